//! The multi-part AOF (src/command/aof.rs) against a real redis-server 7.0.15, both ways:
//! - `CONFIG SET appendonly yes`, writes, BGREWRITEAOF: the same commands on both sides give
//!   the same file names, the same manifest and byte-identical incr files;
//! - our AOF directory passes `redis-check-aof`, and a redis-server started on it has our
//!   dataset (every type and encoding, TTLs, several dbs, a library);
//! - redis-server's AOF directory (base, a rewrite, incr files) loads here to its dataset;
//! - a truncated tail is cut where redis-server cuts it with `aof-load-truncated yes`, and
//!   stops the start with `no`; an old single `appendonly.aof` is moved into the AOF directory
//!   as redis-server moves it; broken manifests and files get Redis's errors and load nothing.
//!
//! The engine writes through the same `DiskStore` `redisplay serve` uses.
//! redis-server, redis-cli and redis-check-aof are required: without them this test fails.

#![cfg(not(target_arch = "wasm32"))]

mod common;
#[path = "support/dataset.rs"]
mod dataset;
#[path = "support/live_server.rs"]
mod live_server;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::native::wall_ms;
use dataset::*;
use live_server::{check_tools, Conn};
use redisplay::net::disk::DiskStore;
use redisplay::{ClientId, Engine, Reply};

/// The engine on the files of `dir` (DiskStore), started as redis-server starts with `config`
/// on its command line: the result of loading what is there.
fn on_disk(dir: &Path, config: &[(&str, &str)]) -> (Engine, ClientId, Result<(), String>) {
    let (mut e, c) = engine(wall_ms());
    e.configure_startup("dir", dir.to_str().unwrap()).unwrap();
    for (name, value) in config {
        e.configure_startup(name, value).unwrap();
    }
    e.set_rdb_store(Box::new(DiskStore));
    let loaded = e.load_data_from_disk().map(|_| ()).map_err(|f| f.to_string());
    (e, c, loaded)
}

/// A command, then the event loop's beforeSleep (where the AOF is written).
fn run(e: &mut Engine, c: ClientId, a: &[Vec<u8>]) -> Reply {
    let r = ours(e, c, a);
    e.before_sleep();
    r
}

/// The engine's clock moved on until its rewrite child is done.
fn finish_rewrite(e: &mut Engine, c: ClientId) {
    for _ in 0..100 {
        let info = ours(e, c, &argv(&["INFO", "persistence"]));
        if info_field(&info, "aof_rewrite_in_progress") == "0" && info_field(&info, "aof_rewrite_scheduled") == "0" {
            return;
        }
        let t = e.now_ms() + 100;
        e.advance_to(t, 1_000);
        e.before_sleep();
    }
    panic!("the engine's rewrite never ended");
}

/// redis-server's rewrite done (it forks a real child: wait for it).
fn wait_rewrite(conn: &mut Conn) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let info = conn.call(&argv(&["INFO", "persistence"]));
        if info_field(&info, "aof_rewrite_in_progress") == "0" && info_field(&info, "aof_rewrite_scheduled") == "0" {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("redis-server's rewrite never ended");
}

/// A redis-server started on files answers LOADING until it has read them: wait for it.
fn wait_loaded(port: u16) -> Conn {
    let mut conn = Conn::open(port);
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        let info = conn.call(&argv(&["INFO", "persistence"]));
        if info_field(&info, "loading") == "0" {
            return conn;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("redis-server kept loading");
}

/// redis-server's AOF buffer written out: with `appendfsync everysec` it postpones a write (up
/// to 2 s) while a background fsync runs — right after a rewrite, for one — and replies anyway.
fn wait_flushed(conn: &mut Conn) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let info = conn.call(&argv(&["INFO", "persistence"]));
        if info_field(&info, "aof_buffer_length") == "0" {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("redis-server's AOF buffer was never written");
}

/// The files under `dir`, as sorted relative paths.
fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

fn aof_dir_files(dir: &Path) -> Vec<String> {
    files(&dir.join("appendonlydir"))
}

fn read(path: PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for f in files(from) {
        let target = to.join(&f);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(from.join(&f), target).unwrap();
    }
}

/// `redis-check-aof MANIFEST` accepts the directory.
fn check_aof(dir: &Path) {
    let manifest = dir.join("appendonlydir/appendonly.aof.manifest");
    let out = Command::new("redis-check-aof").arg(&manifest).output().expect("redis-check-aof runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("All AOF files and manifest are valid"),
        "redis-check-aof refused {}:\n{text}",
        manifest.display()
    );
}

/// A command line's argv, with one argument that has spaces (a script).
fn words(line: &str) -> Vec<Vec<u8>> {
    argv(&line.split(' ').collect::<Vec<_>>())
}

// ---------------------------------------------------------------------------------------------

#[test]
fn the_same_commands_write_the_same_files() {
    check_tools();
    let dir = temp_dir("aof-same");
    let (mut e, c, loaded) = on_disk(&dir, &[]);
    loaded.unwrap();
    let server = redis(&[]);
    let mut conn = wait_loaded(server.port());
    let both = |e: &mut Engine, conn: &mut Conn, a: Vec<Vec<u8>>| {
        let (theirs, mine) = (conn.call(&a), run(e, c, &a));
        assert_eq!(mine, theirs, "{:?}", String::from_utf8_lossy(&a.join(&b' ')));
    };
    both(&mut e, &mut conn, words("SET before 1"));
    // CONFIG SET appendonly yes: a rewrite makes the base, commands wait in a temp incr file.
    both(&mut e, &mut conn, words("CONFIG SET appendonly yes"));
    both(&mut e, &mut conn, words("SET during 2"));
    wait_rewrite(&mut conn);
    finish_rewrite(&mut e, c);
    let theirs = server.dir().to_path_buf();
    assert_eq!(aof_dir_files(&dir), aof_dir_files(&theirs));
    let script = vec![
        b"EVAL".to_vec(),
        b"redis.call('set', KEYS[1], 'v') redis.call('incr', KEYS[2]) return 1".to_vec(),
        b"2".to_vec(),
        b"k".to_vec(),
        b"n".to_vec(),
    ];
    let lines = [
        "SET a 1",
        "set b 2 PXAT 4102444800000",
        "SELECT 3",
        "INCRBYFLOAT f 1.5",
        "MULTI",
        "INCR n",
        "LPUSH l x y",
        "EXEC",
        "HSET h f v",
        "EXPIREAT h 4102444800",
        "DEL nothing",
        "SELECT 0",
        "GETDEL a",
    ];
    for l in lines {
        both(&mut e, &mut conn, words(l));
    }
    both(&mut e, &mut conn, script.clone());
    wait_flushed(&mut conn);
    let manifest = "appendonlydir/appendonly.aof.manifest";
    assert_eq!(read(dir.join(manifest)), read(theirs.join(manifest)));
    let incr = "appendonlydir/appendonly.aof.1.incr.aof";
    assert_eq!(String::from_utf8_lossy(&read(dir.join(incr))), String::from_utf8_lossy(&read(theirs.join(incr))));
    // BGREWRITEAOF: a new base and incr, the old files gone as history.
    both(&mut e, &mut conn, words("BGREWRITEAOF"));
    wait_rewrite(&mut conn);
    finish_rewrite(&mut e, c);
    both(&mut e, &mut conn, words("SET after 3"));
    both(&mut e, &mut conn, script);
    wait_flushed(&mut conn);
    assert_eq!(aof_dir_files(&dir), aof_dir_files(&theirs));
    assert_eq!(read(dir.join(manifest)), read(theirs.join(manifest)));
    let incr = "appendonlydir/appendonly.aof.2.incr.aof";
    assert_eq!(String::from_utf8_lossy(&read(dir.join(incr))), String::from_utf8_lossy(&read(theirs.join(incr))));
    let info = |r: Reply| {
        ["aof_enabled", "aof_rewrites", "aof_current_size", "aof_base_size", "aof_last_bgrewrite_status"]
            .map(|f| format!("{f}:{}", info_field(&r, f)))
    };
    let mine = info(ours(&mut e, c, &argv(&["INFO", "persistence"])));
    let theirs_info = info(conn.call(&argv(&["INFO", "persistence"])));
    // The base files are RDBs whose header differs (ctime, used-mem): sizes may differ by a
    // few bytes; the rest is the same.
    assert_eq!(mine[..2], theirs_info[..2]);
    assert_eq!(mine[4], theirs_info[4]);
    // CONFIG SET appendonly no: the files stay, the AOF stops.
    both(&mut e, &mut conn, words("CONFIG SET appendonly no"));
    both(&mut e, &mut conn, words("SET off 4"));
    assert_eq!(String::from_utf8_lossy(&read(dir.join(incr))), String::from_utf8_lossy(&read(theirs.join(incr))));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn our_aof_loads_in_redis_server_with_the_same_data() {
    check_tools();
    let dir = temp_dir("aof-ours");
    let (mut e, c, loaded) = on_disk(&dir, &[("appendonly", "yes")]);
    loaded.unwrap();
    let cmds = dataset();
    let half = cmds.len() / 2;
    for (i, cmd) in cmds.iter().enumerate() {
        if i == half {
            assert_eq!(
                run(&mut e, c, &argv(&["BGREWRITEAOF"])),
                Reply::Status("Background append only file rewriting started".into())
            );
            finish_rewrite(&mut e, c);
        }
        let r = run(&mut e, c, cmd);
        assert!(!r.is_error(), "{:?}: {r:?}", String::from_utf8_lossy(&cmd[0]));
    }
    check_aof(&dir);
    let want = views(&mut |a| ours(&mut e, c, a));
    // A restart of ours loads the same.
    drop(e);
    let (mut again, c2, loaded) = on_disk(&dir, &[("appendonly", "yes")]);
    loaded.unwrap();
    assert_same_views("our restart on our AOF", &want, &views(&mut |a| ours(&mut again, c2, a)));
    drop(again);
    let server = redis(&["--dir", dir.to_str().unwrap(), "--appendonly", "yes"]);
    let mut conn = wait_loaded(server.port());
    let got = views(&mut |a| conn.call(a));
    assert_same_views("redis-server on our AOF", &want, &got);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn redis_servers_aof_loads_here_with_the_same_data() {
    check_tools();
    let server = redis(&["--appendonly", "yes"]);
    let mut conn = wait_loaded(server.port());
    let cmds = dataset();
    let half = cmds.len() / 2;
    for (i, cmd) in cmds.iter().enumerate() {
        if i == half {
            conn.call(&argv(&["BGREWRITEAOF"]));
            wait_rewrite(&mut conn);
        }
        let r = conn.call(cmd);
        assert!(!r.is_error(), "{r:?}");
    }
    // What redis-server itself loads from its files (DEBUG LOADAOF): values a command changed
    // in place may come back in another encoding.
    assert_eq!(conn.call(&argv(&["DEBUG", "LOADAOF"])), Reply::ok());
    let want = views(&mut |a| conn.call(a));
    let dir = temp_dir("aof-theirs");
    copy_dir(&server.dir().join("appendonlydir"), &dir.join("appendonlydir"));
    let (mut e, c, loaded) = on_disk(&dir, &[("appendonly", "yes")]);
    loaded.unwrap();
    assert_same_views("our engine on redis-server's AOF", &want, &views(&mut |a| ours(&mut e, c, a)));
    drop(e);
    conn.call(&argv(&["CONFIG", "SET", "aof-use-rdb-preamble", "no"]));
    conn.call(&argv(&["BGREWRITEAOF"]));
    wait_rewrite(&mut conn);
    conn.call(&argv(&["SET", "after-the-rewrite", "1"]));
    assert_eq!(conn.call(&argv(&["DEBUG", "LOADAOF"])), Reply::ok());
    let want = views(&mut |a| conn.call(a));
    copy_dir(&server.dir().join("appendonlydir"), &dir.join("appendonlydir"));
    assert!(aof_dir_files(&dir).iter().any(|f| f.ends_with(".base.aof")), "{:?}", aof_dir_files(&dir));
    let (mut e, c, loaded) = on_disk(&dir, &[("appendonly", "yes")]);
    loaded.unwrap();
    assert_same_views("our engine on redis-server's AOF base", &want, &views(&mut |a| ours(&mut e, c, a)));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_truncated_tail_is_cut_as_redis_server_cuts_it() {
    check_tools();
    let base = temp_dir("aof-trunc");
    {
        let (mut e, c, loaded) = on_disk(&base, &[("appendonly", "yes")]);
        loaded.unwrap();
        for l in ["SET a 1", "MULTI", "SET b 2", "EXEC", "RPUSH l x y z"] {
            run(&mut e, c, &words(l));
        }
    }
    let incr = "appendonlydir/appendonly.aof.1.incr.aof";
    let whole = read(base.join(incr));
    // Cut inside a command, and inside a MULTI (which is reverted whole).
    let mut tail = whole.clone();
    tail.extend_from_slice(b"*3\r\n$3\r\nSET\r\n$1\r\nz");
    let mut in_multi = whole.clone();
    in_multi.extend_from_slice(b"*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$1\r\nm\r\n$1\r\n1\r\n");
    for (name, bytes) in [("tail", tail), ("multi", in_multi)] {
        let (ours_dir, theirs_dir) =
            (temp_dir(&format!("aof-trunc-{name}-ours")), temp_dir(&format!("aof-trunc-{name}-theirs")));
        for d in [&ours_dir, &theirs_dir] {
            copy_dir(&base, d);
            std::fs::write(d.join(incr), &bytes).unwrap();
        }
        let server = redis(&["--dir", theirs_dir.to_str().unwrap(), "--appendonly", "yes"]);
        let mut conn = wait_loaded(server.port());
        let want = views(&mut |a| conn.call(a));
        drop(server);
        let (mut e, c, loaded) = on_disk(&ours_dir, &[("appendonly", "yes")]);
        loaded.unwrap();
        assert_same_views(&format!("{name}: truncated AOF"), &want, &views(&mut |a| ours(&mut e, c, a)));
        assert_eq!(read(ours_dir.join(incr)), read(theirs_dir.join(incr)), "{name}: the file as cut");
        assert_eq!(read(ours_dir.join(incr)), whole, "{name}: cut at the last whole command");
        // aof-load-truncated no: the start stops (redis-server exits with status 1).
        for d in [&ours_dir, &theirs_dir] {
            std::fs::write(d.join(incr), &bytes).unwrap();
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port().to_string();
        let out = Command::new("redis-server")
            .args([
                "--port",
                &port,
                "--save",
                "",
                "--daemonize",
                "no",
                "--appendonly",
                "yes",
                "--aof-load-truncated",
                "no",
            ])
            .arg("--dir")
            .arg(&theirs_dir)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let log = String::from_utf8_lossy(&out.stdout);
        let (_, _, loaded) = on_disk(&ours_dir, &[("appendonly", "yes"), ("aof-load-truncated", "no")]);
        let err = loaded.unwrap_err();
        assert!(err.starts_with("Unexpected end of file reading the append only file"), "{err}");
        assert!(log.contains(&err), "redis-server logged:\n{log}\nwe said: {err}");
        let _ = std::fs::remove_dir_all(&ours_dir);
        let _ = std::fs::remove_dir_all(&theirs_dir);
    }
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn an_old_single_aof_moves_into_the_aof_directory() {
    check_tools();
    let (ours_dir, theirs_dir) = (temp_dir("aof-old-ours"), temp_dir("aof-old-theirs"));
    let mut old = Vec::new();
    for l in ["SELECT 0", "SET a 1", "RPUSH l x y", "SELECT 2", "SET b 2"] {
        redisplay::persist::aof::cat_command(&mut old, &words(l));
    }
    for d in [&ours_dir, &theirs_dir] {
        std::fs::write(d.join("appendonly.aof"), &old).unwrap();
    }
    let server = redis(&["--dir", theirs_dir.to_str().unwrap(), "--appendonly", "yes"]);
    let mut conn = wait_loaded(server.port());
    let want = views(&mut |a| conn.call(a));
    let (mut e, c, loaded) = on_disk(&ours_dir, &[("appendonly", "yes")]);
    loaded.unwrap();
    assert_same_views("an old AOF", &want, &views(&mut |a| ours(&mut e, c, a)));
    assert_eq!(files(&ours_dir), files(&theirs_dir));
    let manifest = "appendonlydir/appendonly.aof.manifest";
    assert_eq!(read(ours_dir.join(manifest)), read(theirs_dir.join(manifest)));
    drop(server);
    let _ = std::fs::remove_dir_all(&ours_dir);
    let _ = std::fs::remove_dir_all(&theirs_dir);
}

#[test]
fn broken_files_load_nothing_and_say_why() {
    let dir = temp_dir("aof-broken");
    let aofdir = dir.join("appendonlydir");
    std::fs::create_dir_all(&aofdir).unwrap();
    let manifest = aofdir.join("appendonly.aof.manifest");
    // The manifest, the files it names, the start of the error.
    type Case<'a> = (&'a [u8], &'a [(&'a str, &'a [u8])], &'a str);
    let cases: &[Case] = &[
        (b"garbage\n", &[], "Invalid AOF manifest file format"),
        (b"file ../x seq 1 type b\n", &[], "File can't be a path, just a filename"),
        (
            b"file a.aof seq 1 type i\n",
            &[],
            "Unable to obtain the AOF file a.aof length. stat: No such file or directory",
        ),
        (
            b"file a.aof seq 1 type i\n",
            &[("a.aof", b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*1\r\n$7\r\nNOTACMD\r\n")],
            "Unknown command 'NOTACMD' reading the append only file a.aof",
        ),
        (
            b"file a.aof seq 1 type i\n",
            &[("a.aof", b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\nGARBAGE\r\n")],
            "Bad file format reading the append only file a.aof",
        ),
        (
            b"file b.rdb seq 1 type b\nfile a.aof seq 1 type i\n",
            &[("b.rdb", b"REDIS0010\xfe\x00garbage"), ("a.aof", b"")],
            "Error reading the RDB base file b.rdb, AOF loading aborted",
        ),
        (
            b"file a.aof seq 1 type i\nfile c.aof seq 2 type i\n",
            &[("a.aof", b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1"), ("c.aof", b"*3\r\n$3\r\nSET\r\n$1\r\nj\r\n$1\r\nv\r\n")],
            "Fatal error: the truncated file is not the last file",
        ),
    ];
    for (text, contents, want) in cases {
        std::fs::write(&manifest, text).unwrap();
        for (name, bytes) in *contents {
            std::fs::write(aofdir.join(name), bytes).unwrap();
        }
        let (mut e, c, loaded) = on_disk(&dir, &[("appendonly", "yes")]);
        let err = loaded.unwrap_err();
        assert!(err.starts_with(want), "{:?}: {err}", String::from_utf8_lossy(text));
        assert_eq!(ours(&mut e, c, &argv(&["DBSIZE"])), Reply::Integer(0), "nothing partial");
        for (name, _) in *contents {
            let _ = std::fs::remove_file(aofdir.join(name));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
