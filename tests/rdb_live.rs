//! RDB files against a real redis-server 7.0.15, both ways (issue 18, part 1).
//!
//! One dataset — strings (int, embstr, raw, LZF-compressed), lists (one listpack node, many
//! nodes), sets (intset, hashtable), sorted sets (listpack, skiplist), hashes (listpack,
//! hashtable by count and by value size), HyperLogLogs (sparse, dense), TTLs, keys in several
//! dbs, a function library — is built by the same commands on a live server and in the engine.
//! Then:
//! - our SAVE'd file passes `redis-check-rdb`, and a redis-server started on it (`--dir
//!   --dbfilename`) holds what the engine holds once it has reloaded its own file (loading
//!   makes a short raw string embstr, on both): per key TYPE, OBJECT ENCODING, PEXPIRETIME and
//!   DEBUG DIGEST-VALUE, the whole DEBUG DIGEST, FUNCTION LIST WITHCODE, and INFO's
//!   `rdb_last_load_keys_loaded`; a stream (saved by us; loading streams waits for stream
//!   RESTORE) goes along one way;
//! - the server's SAVE'd file loads in the engine to the views the server shows after DEBUG
//!   RELOAD;
//! - with one key per db (so that no dict's hash order is involved) the two files are the same
//!   bytes but for the `ctime` and `used-mem` AUX values and the checksum; the whole dataset's
//!   files have the same size;
//! - keys whose TTL has passed are skipped and counted on load, both ways;
//! - SAVE, LASTSAVE, INFO persistence and DEBUG RELOAD (with its options) print through redis-cli
//!   what they print on the server (LASTSAVE's time aside, checked against each clock);
//! - `redisplay serve --dir D --dbfilename F`: SAVE writes the file, a restart loads it,
//!   SHUTDOWN ends the process with status 0 after saving (save points configured), SHUTDOWN
//!   NOSAVE doesn't save, redis-cli prints for SHUTDOWN what it prints against redis-server,
//!   and a corrupt file stops the start with status 1, as it stops redis-server.
//!
//! redis-server, redis-cli and redis-check-rdb are required: without them this test fails.

#![cfg(not(target_arch = "wasm32"))]

mod common;

#[path = "support/dataset.rs"]
mod dataset;
#[path = "support/live_server.rs"]
mod live_server;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use common::native::wall_ms;
use dataset::*;
use live_server::{check_tools, cli_on, Conn, Server};
use redisplay::persist::rdb_load::Reader;
use redisplay::{EngineOptions, Reply, Session};

// ---------------------------------------------------------------------------------------------
// Both sides
// ---------------------------------------------------------------------------------------------

/// `redis-check-rdb FILE` accepts it.
fn check_rdb(path: &Path) {
    let out = Command::new("redis-check-rdb").arg(path).output().expect("redis-check-rdb runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("RDB looks OK"),
        "redis-check-rdb refused {}:\n{text}",
        path.display()
    );
}

// ---------------------------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------------------------

#[test]
fn our_file_loads_in_redis_server_with_the_same_data() {
    check_tools();
    let (mut e, c) = engine(wall_ms());
    for cmd in dataset() {
        let r = ours(&mut e, c, &cmd);
        assert!(!r.is_error(), "{r:?}");
    }
    // A loaded value may differ from the one its commands built only where Redis's would too
    // (a short raw string comes back embstr): the engine reloads its own file first.
    let digest = ours(&mut e, c, &argv(&["DEBUG", "DIGEST"]));
    assert_eq!(ours(&mut e, c, &argv(&["DEBUG", "RELOAD"])), Reply::ok());
    assert_eq!(ours(&mut e, c, &argv(&["DEBUG", "DIGEST"])), digest);
    // A stream too (db 9): explicit IDs, a group without consumers (nothing wall-clock-timed);
    // the engine saves streams but loads none yet (stream RESTORE), so it is added after.
    for cmd in [
        &["SELECT", "9"][..],
        &["XADD", "stream", "1-1", "a", "1"],
        &["XADD", "stream", "2-0", "b", "2", "c", "3"],
        &["XGROUP", "CREATE", "stream", "g", "0"],
        &["SELECT", "0"],
    ] {
        assert!(!ours(&mut e, c, &argv(cmd)).is_error());
    }
    assert_eq!(ours(&mut e, c, &argv(&["SAVE"])), Reply::ok());
    let image = e.rdb_file().unwrap().expect("SAVE wrote the file");
    let dir = temp_dir("ours");
    let path = dir.join("ours.rdb");
    std::fs::write(&path, &image).unwrap();
    check_rdb(&path);

    let server = redis(&["--dir", dir.to_str().unwrap(), "--dbfilename", "ours.rdb"]);
    let mut conn = Conn::open(server.port());
    let info = conn.call(&argv(&["INFO", "persistence"]));
    let keys: usize = (0..16).map(|db| e.dbsize(db)).sum();
    assert_eq!(info_field(&info, "rdb_last_load_keys_loaded"), keys.to_string());
    assert_eq!(info_field(&info, "rdb_last_load_keys_expired"), "0");
    let want = views(&mut |a| ours(&mut e, c, a));
    let got = views(&mut |a| conn.call(a));
    assert_same_views("redis-server on our file", &want, &got);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn redis_servers_file_loads_here_with_the_same_data() {
    check_tools();
    let server = redis(&[]);
    let mut conn = Conn::open(server.port());
    for cmd in dataset() {
        let r = conn.call(&cmd);
        assert!(!r.is_error(), "{r:?}");
    }
    assert_eq!(conn.call(&argv(&["SAVE"])), Reply::ok());
    let image = std::fs::read(server.dir().join("dump.rdb")).expect("redis-server's dump.rdb");
    let (mut e, c) = engine(wall_ms());
    let report = e.load_rdb(&image).expect("our loader reads redis-server's file");
    let keys: i64 = (0..16)
        .map(|db| {
            conn.call(&argv(&["SELECT", &db.to_string()]));
            match conn.call(&argv(&["DBSIZE"])) {
                Reply::Integer(n) => n,
                other => panic!("{other:?}"),
            }
        })
        .sum();
    assert_eq!((report.keys_loaded as i64, report.keys_expired, report.libraries), (keys, 0, 1));
    let info = ours(&mut e, c, &argv(&["INFO", "persistence"]));
    assert_eq!(info_field(&info, "rdb_last_load_keys_loaded"), keys.to_string());
    // As loaded on both sides (DEBUG RELOAD: a short raw string comes back embstr).
    assert_eq!(conn.call(&argv(&["DEBUG", "RELOAD"])), Reply::ok());
    let want = views(&mut |a| conn.call(a));
    let got = views(&mut |a| ours(&mut e, c, a));
    assert_same_views("the engine on redis-server's file", &want, &got);
}

/// AUX fields: (name, value) pairs.
type Aux = Vec<(Vec<u8>, Vec<u8>)>;

/// The AUX fields of a file and where they end.
fn split_header(file: &[u8]) -> (Aux, usize) {
    let mut r = Reader::new(file, 1 << 20);
    r.read(9).unwrap();
    let mut aux = Vec::new();
    loop {
        let at = r.position();
        if r.byte().unwrap() != 0xfa {
            return (aux, at);
        }
        aux.push((r.bytes().unwrap(), r.bytes().unwrap()));
    }
}

#[test]
fn one_key_per_db_gives_redis_servers_bytes() {
    check_tools();
    // Deterministic encodings only (a hashtable's order is its dict's, random per process).
    let per_db: Vec<Vec<&str>> = vec![
        vec!["SET", "k", "12345"],
        vec!["SET", "k", "an embedded string"],
        vec!["SET", "k", "compressible compressible compressible compressible"],
        vec!["RPUSH", "k", "a", "b", "1", "-300", "70000", "4294967296"],
        vec!["SADD", "k", "1", "-2", "300", "70000", "4294967296"],
        vec!["ZADD", "k", "1", "a", "2.5", "b", "-inf", "c", "1e17", "d"],
        vec!["HSET", "k", "f", "v", "n", "123"],
        vec!["PFADD", "k", "a", "b", "c"],
        vec!["XADD", "k", "5-1", "field", "value"],
        vec!["SET", "k", "with a ttl", "PXAT", FAR],
        vec!["RPUSH", "k", "x", "y", "z"],
        vec!["ZADD", "k", "1", "m"],
    ];
    let mut cmds: Vec<Vec<Vec<u8>>> = Vec::new();
    for (db, cmd) in per_db.iter().enumerate() {
        cmds.push(argv(&["SELECT", &db.to_string()]));
        cmds.push(argv(cmd));
    }
    // A big skiplist set and a multi-node list, each alone in its db.
    cmds.push(argv(&["SELECT", "12"]));
    let mut zs = argv(&["ZADD", "k"]);
    for i in 0..300 {
        zs.push(format!("{}", i as f64 * 1.25).into_bytes());
        zs.push(format!("m{i}").into_bytes());
    }
    cmds.push(zs);
    cmds.push(argv(&["SELECT", "13"]));
    let mut l = argv(&["RPUSH", "k"]);
    l.extend((0..2500).map(|i| format!("item {i}").into_bytes()));
    cmds.push(l);
    cmds.push(argv(&["FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"]));

    let server = redis(&[]);
    let mut conn = Conn::open(server.port());
    let (mut e, c) = engine(wall_ms());
    for cmd in &cmds {
        let (theirs, mine) = (conn.call(cmd), ours(&mut e, c, cmd));
        assert_eq!(mine, theirs, "{:?}", String::from_utf8_lossy(&cmd.concat()));
    }
    assert_eq!(conn.call(&argv(&["SAVE"])), Reply::ok());
    assert_eq!(ours(&mut e, c, &argv(&["SAVE"])), Reply::ok());
    let theirs = std::fs::read(server.dir().join("dump.rdb")).unwrap();
    let mine = e.rdb_file().unwrap().unwrap();
    let ((aux_t, body_t), (aux_m, body_m)) = (split_header(&theirs), split_header(&mine));
    let names = |a: &[(Vec<u8>, Vec<u8>)]| a.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
    assert_eq!(names(&aux_m), names(&aux_t));
    for ((k, v), (_, w)) in aux_m.iter().zip(&aux_t) {
        if k != b"ctime" && k != b"used-mem" {
            assert_eq!(v, w, "AUX {}", String::from_utf8_lossy(k));
        }
    }
    // Everything after the header but the checksum (which covers the header).
    let (bt, bm) = (&theirs[body_t..theirs.len() - 8], &mine[body_m..mine.len() - 8]);
    assert_eq!(bm, bt, "the files' bodies differ");
    assert_eq!(mine.len(), theirs.len());
    eprintln!("one key per db: our file {} bytes, redis-server's {} bytes", mine.len(), theirs.len());

    // The whole dataset: the same size (only key order may differ).
    let server = redis(&[]);
    let mut conn = Conn::open(server.port());
    let (mut e, c) = engine(wall_ms());
    for cmd in dataset() {
        conn.call(&cmd);
        ours(&mut e, c, &cmd);
    }
    conn.call(&argv(&["SAVE"]));
    ours(&mut e, c, &argv(&["SAVE"]));
    let theirs = std::fs::read(server.dir().join("dump.rdb")).unwrap();
    let mine = e.rdb_file().unwrap().unwrap();
    eprintln!("the whole dataset: our file {} bytes, redis-server's {} bytes", mine.len(), theirs.len());
    assert_eq!(mine.len(), theirs.len());
}

#[test]
fn keys_already_expired_are_skipped_on_load_both_ways() {
    check_tools();
    // Ours → redis-server: an engine whose clock is ten minutes behind writes TTLs of one
    // second: by the server's clock they are long past.
    let (mut e, c) = engine(wall_ms() - 600_000);
    for i in 0..5 {
        ours(&mut e, c, &argv(&["SET", &format!("gone{i}"), "v", "PX", "1000"]));
    }
    ours(&mut e, c, &argv(&["SET", "kept", "v"]));
    ours(&mut e, c, &argv(&["SET", "later", "v", "PXAT", FAR]));
    ours(&mut e, c, &argv(&["SAVE"]));
    let dir = temp_dir("expired");
    std::fs::write(dir.join("old.rdb"), e.rdb_file().unwrap().unwrap()).unwrap();
    let server = redis(&["--dir", dir.to_str().unwrap(), "--dbfilename", "old.rdb"]);
    let mut conn = Conn::open(server.port());
    let info = conn.call(&argv(&["INFO", "persistence"]));
    assert_eq!(info_field(&info, "rdb_last_load_keys_expired"), "5");
    assert_eq!(info_field(&info, "rdb_last_load_keys_loaded"), "2");
    assert_eq!(conn.call(&argv(&["DBSIZE"])), Reply::Integer(2));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);

    // redis-server → ours: TTLs of a minute, loaded by an engine whose clock is two minutes on.
    let server = redis(&[]);
    let mut conn = Conn::open(server.port());
    for i in 0..3 {
        conn.call(&argv(&["SET", &format!("gone{i}"), "v", "PX", "60000"]));
    }
    conn.call(&argv(&["SET", "kept", "v"]));
    conn.call(&argv(&["SAVE"]));
    let image = std::fs::read(server.dir().join("dump.rdb")).unwrap();
    let (mut e, c) = engine(wall_ms() + 120_000);
    let report = e.load_rdb(&image).unwrap();
    assert_eq!((report.keys_loaded, report.keys_expired), (1, 3));
    let info = ours(&mut e, c, &argv(&["INFO", "persistence"]));
    assert_eq!(info_field(&info, "rdb_last_load_keys_expired"), "3");
    assert_eq!(ours(&mut e, c, &argv(&["DBSIZE"])), Reply::Integer(1));
    // Loaded now, the same file keeps them all.
    let (mut e, _) = engine(wall_ms());
    assert_eq!(e.load_rdb(&image).unwrap().keys_loaded, 4);
}

/// Under an LRU policy each key's idle time travels as IDLE, under an LFU one its counter as
/// FREQ (set here with RESTORE … IDLETIME / FREQ on both sides).
#[test]
fn lru_idle_and_lfu_freq_travel_both_ways() {
    check_tools();
    for (policy, option, value, read) in
        [("allkeys-lru", "IDLETIME", "1000", "IDLETIME"), ("volatile-lfu", "FREQ", "100", "FREQ")]
    {
        let server = redis(&["--maxmemory-policy", policy]);
        let mut conn = Conn::open(server.port());
        let (mut e, c) = engine(wall_ms());
        ours(&mut e, c, &argv(&["CONFIG", "SET", "maxmemory-policy", policy]));
        conn.call(&argv(&["SET", "tmp", "v"]));
        let Reply::Bulk(payload) = conn.call(&argv(&["DUMP", "tmp"])) else { panic!("DUMP") };
        let restore = |k: &str| {
            let mut a = argv(&["RESTORE", k, "0"]);
            a.push(payload.clone());
            a.extend(argv(&[option, value]));
            a
        };
        assert_eq!(conn.call(&restore("k")), Reply::ok());
        assert_eq!(ours(&mut e, c, &restore("k")), Reply::ok());
        conn.call(&argv(&["SAVE"]));
        ours(&mut e, c, &argv(&["SAVE"]));
        // redis-server's file here…
        let theirs = std::fs::read(server.dir().join("dump.rdb")).unwrap();
        let (mut f, d) = engine(wall_ms());
        ours(&mut f, d, &argv(&["CONFIG", "SET", "maxmemory-policy", policy]));
        f.load_rdb(&theirs).unwrap();
        let got = ours(&mut f, d, &argv(&["OBJECT", read, "k"]));
        // …and ours there.
        let dir = temp_dir(&format!("meta-{policy}"));
        std::fs::write(dir.join("m.rdb"), e.rdb_file().unwrap().unwrap()).unwrap();
        let on_ours = redis(&["--maxmemory-policy", policy, "--dir", dir.to_str().unwrap(), "--dbfilename", "m.rdb"]);
        let theirs_on_ours = Conn::open(on_ours.port()).call(&argv(&["OBJECT", read, "k"]));
        for r in [got, theirs_on_ours] {
            let Reply::Integer(n) = r else { panic!("{r:?}") };
            let want: i64 = value.parse().unwrap();
            // Idle time keeps growing with the wall clock (seconds); a counter stays.
            assert!(n >= want && n <= want + 5, "{policy}: {n}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

// ---------------------------------------------------------------------------------------------
// SAVE, LASTSAVE, INFO persistence, DEBUG RELOAD through redis-cli
// ---------------------------------------------------------------------------------------------

/// Run through redis-cli on redis-server (DEBUG and protected configs on) and through the
/// engine's redis-cli session set up alike; LASTSAVE's and `rdb_last_save_time`'s seconds are
/// checked against each side's clock, then masked.
const RELOAD_SCRIPT: &str = "SET a 1
RPUSH l a b c
HSET h f v
SET t v PXAT 4102444800000
FUNCTION LOAD \"#!lua name=lib1\\nredis.register_function('f1', function() return 1 end)\"
INFO persistence
LASTSAVE
SAVE
LASTSAVE
INFO persistence
DEBUG RELOAD
DBSIZE
PEXPIRETIME t
FUNCTION LIST
INFO persistence
DEBUG RELOAD foo
DEBUG RELOAD NOSAVE NOFLUSH MERGE
DBSIZE
SET b 2
DEBUG RELOAD NOSAVE
GET b
INFO persistence
FLUSHALL
FUNCTION FLUSH
DEBUG RELOAD NOSAVE
DBSIZE
FCALL f1 0
DEBUG RELOAD NOFLUSH MERGE
DBSIZE
CONFIG SET dbfilename missing.rdb
DEBUG RELOAD NOSAVE
DBSIZE
FUNCTION LIST
CONFIG SET dbfilename other.rdb
SET c 3
SAVE
DEBUG RELOAD
GET c
INFO persistence
CONFIG SET save \"3600 1\"
SET z 1
FLUSHALL
INFO persistence
DEBUG RELOAD NOSAVE
DBSIZE
";

/// Masks the seconds of LASTSAVE's `(integer) N` and `rdb_last_save_time:N`, checking each is
/// within `slack` seconds of `now`.
fn mask_times(out: &str, now: i64, slack: i64) -> String {
    let mut lines = Vec::new();
    for l in out.lines() {
        let t =
            l.strip_prefix("rdb_last_save_time:").or_else(|| l.strip_prefix("(integer) ").filter(|n| n.len() == 10));
        match t.and_then(|n| n.trim().parse::<i64>().ok()) {
            Some(secs) => {
                assert!((secs - now).abs() <= slack, "{l} is not near {now}");
                lines.push(l.replace(&secs.to_string(), "<time>"));
            }
            None => lines.push(l.to_string()),
        }
    }
    lines.join("\n")
}

#[test]
fn save_lastsave_and_debug_reload_print_what_redis_prints() {
    check_tools();
    let server = redis(&["--enable-protected-configs", "yes"]);
    let start = wall_ms();
    let theirs = String::from_utf8(cli_on(server.port(), RELOAD_SCRIPT.as_bytes())).unwrap();
    let mut session = Session::new(EngineOptions { seed: 1, start_ms: start });
    session.engine.configure_startup("enable-debug-command", "yes").unwrap();
    session.engine.configure_startup("enable-protected-configs", "yes").unwrap();
    let mut mine = Vec::new();
    for line in RELOAD_SCRIPT.lines() {
        mine.extend(session.run_line(line.as_bytes()).text);
    }
    let mine = String::from_utf8(mine).unwrap();
    assert_eq!(mask_times(&mine, start / 1000, 0), mask_times(&theirs, wall_ms() / 1000, 30));
    // The DEBUG RELOAD that found no file flushed first, as Redis does.
    assert!(theirs.contains("ERR Error trying to load the RDB dump"));
}

// ---------------------------------------------------------------------------------------------
// redisplay serve --dir --dbfilename
// ---------------------------------------------------------------------------------------------

/// `redisplay serve` as a child process; its stderr lines until the banner, and its port.
struct Served {
    child: std::process::Child,
    port: u16,
    log: Vec<String>,
    stderr: BufReader<std::process::ChildStderr>,
}

// The child goes into `Served`, whose Drop kills and waits for it.
#[allow(clippy::zombie_processes)]
fn serve(dir: &Path, extra: &[&str]) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_redisplay"))
        .args(["serve", "--port", "0", "--dir", dir.to_str().unwrap(), "--dbfilename", "data.rdb"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("redisplay serve starts");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut log = Vec::new();
    loop {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap_or(0) == 0 {
            let _ = child.kill();
            let _ = child.wait();
            panic!("serve ended before its banner: {log:?}");
        }
        if let Some(rest) = line.strip_prefix("redisplay (Redis 7.0.15 engine) ready to accept connections on ") {
            let addr = rest.split(';').next().unwrap();
            let port = addr.rsplit(':').next().unwrap().parse().unwrap();
            return Served { child, port, log, stderr };
        }
        log.push(line.trim_end().to_string());
    }
}

impl Served {
    /// Waits for the process to end (after SHUTDOWN): its status and the rest of its log.
    fn wait(mut self) -> (std::process::ExitStatus, String) {
        let mut rest = String::new();
        self.stderr.read_to_string(&mut rest).unwrap();
        (self.child.wait().unwrap(), rest)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// redis-cli with arguments: (stdout, exit code).
fn cli_args(port: u16, args: &[&str]) -> (String, i32) {
    let out = Command::new("redis-cli").arg("-p").arg(port.to_string()).args(args).output().unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), out.status.code().unwrap_or(-1))
}

#[test]
fn serve_saves_loads_and_shuts_down_as_redis_server_does() {
    check_tools();
    let dir = temp_dir("serve");
    let file = dir.join("data.rdb");
    let s = serve(&dir, &["--save", "3600 1"]);
    assert!(s.log.is_empty(), "no file, nothing loaded: {:?}", s.log);
    assert_eq!(
        cli_args(s.port, &["CONFIG", "GET", "dir"]).0,
        format!("dir\n{}\n", dir.canonicalize().unwrap().display())
    );
    cli_args(s.port, &["SET", "k", "v"]);
    cli_args(s.port, &["RPUSH", "l", "a", "b"]);
    assert_eq!(cli_args(s.port, &["SAVE"]), ("OK\n".into(), 0));
    check_rdb(&file);
    let saved = std::fs::read(&file).unwrap();
    // SHUTDOWN with save points configured saves first, then the process ends with status 0;
    // redis-cli prints nothing and exits 0, as against redis-server.
    cli_args(s.port, &["SET", "after", "save"]);
    assert_eq!(cli_args(s.port, &["SHUTDOWN"]), (String::new(), 0));
    let (status, log) = s.wait();
    assert!(status.success(), "{status:?}");
    assert!(log.contains("# User requested shutdown...") && log.contains("* DB saved on disk"), "{log}");
    assert_ne!(std::fs::read(&file).unwrap(), saved, "SHUTDOWN saved");
    check_rdb(&file);

    // A restart loads the file.
    let s = serve(&dir, &[]);
    assert!(s.log.iter().any(|l| l.ends_with("* Done loading RDB, keys loaded: 3, keys expired: 0.")), "{:?}", s.log);
    assert_eq!(cli_args(s.port, &["GET", "after"]), ("save\n".into(), 0));
    assert!(cli_args(s.port, &["INFO", "persistence"]).0.contains("rdb_last_load_keys_loaded:3"));
    // SHUTDOWN NOSAVE doesn't save; SHUTDOWN SAVE would.
    cli_args(s.port, &["SET", "lost", "1"]);
    let before = std::fs::read(&file).unwrap();
    assert_eq!(cli_args(s.port, &["SHUTDOWN", "NOSAVE"]), (String::new(), 0));
    assert!(s.wait().0.success());
    assert_eq!(std::fs::read(&file).unwrap(), before);
    let s = serve(&dir, &[]);
    assert_eq!(cli_args(s.port, &["EXISTS", "lost"]), ("0\n".into(), 0));
    // Without save points plain SHUTDOWN doesn't save either; SHUTDOWN SAVE does.
    cli_args(s.port, &["SET", "saved", "1"]);
    assert_eq!(cli_args(s.port, &["SHUTDOWN", "SAVE"]), (String::new(), 0));
    assert!(s.wait().0.success());
    let s = serve(&dir, &[]);
    assert_eq!(cli_args(s.port, &["EXISTS", "saved"]), ("1\n".into(), 0));
    // Every connection closes: a client blocked on a list sees the server go.
    let mut blocked = Conn::open(s.port);
    blocked.stream.write_all(b"*3\r\n$5\r\nBLPOP\r\n$5\r\nempty\r\n$1\r\n0\r\n").unwrap();
    assert_eq!(cli_args(s.port, &["SHUTDOWN", "NOSAVE"]), (String::new(), 0));
    let mut rest = Vec::new();
    blocked.stream.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty(), "{rest:?}");
    assert!(s.wait().0.success());

    // The same SHUTDOWN on redis-server: redis-cli prints the same (nothing, status 0).
    let real = Server::start();
    assert_eq!(cli_args(real.port(), &["SHUTDOWN", "NOSAVE"]), (String::new(), 0));

    // A corrupt file stops the start, with status 1, as it stops redis-server.
    let mut bad = std::fs::read(&file).unwrap();
    let n = bad.len();
    bad[n / 2] ^= 0xff;
    std::fs::write(&file, &bad).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_redisplay"))
        .args(["serve", "--port", "0", "--dir", dir.to_str().unwrap(), "--dbfilename", "data.rdb"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Fatal error loading the DB"));
    let redis_on_it = Command::new("redis-server")
        .args(["--port", "0", "--dir", dir.to_str().unwrap(), "--dbfilename", "data.rdb", "--save", ""])
        .output()
        .unwrap();
    assert_eq!(redis_on_it.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}
