//! One dataset of every type and encoding, built alike in the engine and on a live
//! redis-server, and the views that compare two copies of it (tests/rdb_live.rs,
//! tests/aof_files_live.rs: a file written by one side loaded by the other).
#![allow(dead_code)]

use std::path::PathBuf;

use redisplay::reply::parse_resp;
use redisplay::{ClientId, Engine, EngineOptions, Reply};

use super::live_server::Server;

pub fn argv(words: &[&str]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.as_bytes().to_vec()).collect()
}

/// A reply as it reads over RESP2.
pub fn norm(r: Reply) -> Reply {
    let mut bytes = Vec::new();
    r.into_resp2().encode(2, &mut bytes);
    parse_resp(&bytes).map(|(r, _)| r).expect("a reply")
}

/// The engine with DEBUG on, as the live servers here are started.
pub fn engine(start_ms: i64) -> (Engine, ClientId) {
    let mut e = Engine::new(EngineOptions { seed: 7, start_ms });
    e.configure_startup("enable-debug-command", "yes").unwrap();
    let c = e.connect();
    (e, c)
}

pub fn ours(e: &mut Engine, c: ClientId, a: &[Vec<u8>]) -> Reply {
    norm(e.execute(c, a))
}

/// A server with DEBUG on (for DIGEST-VALUE), optionally on a file of ours.
pub fn redis(extra: &[&str]) -> Server {
    let mut args = vec!["--enable-debug-command", "yes"];
    args.extend_from_slice(extra);
    Server::start_with(&args)
}

/// A TTL far in the future (2100-01-01), so that both sides read the same PEXPIRETIME.
pub const FAR: &str = "4102444800000";

/// The dataset's commands: every type and encoding, TTLs, several dbs, a library.
pub fn dataset() -> Vec<Vec<Vec<u8>>> {
    let mut cmds: Vec<Vec<Vec<u8>>> = Vec::new();
    let mut c = |words: Vec<String>| cmds.push(words.into_iter().map(String::into_bytes).collect());
    let s = |v: &[&str]| v.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    c(s(&["SELECT", "0"]));
    c(s(&["SET", "int", "12345"]));
    c(s(&["SET", "neg", "-7"]));
    c(s(&["SET", "big", "9223372036854775807"]));
    c(s(&["SET", "embstr", "hello world"]));
    c(s(&["SET", "raw", &"compress me please ".repeat(8)]));
    let noise: String = (0..200u32).map(|i| char::from(b'!' + ((i * 7919 + i / 3) % 90) as u8)).collect();
    c(s(&["SET", "noise", &noise]));
    c(s(&["SET", "12", "a numeric key"]));
    c(s(&["RPUSH", "list", "a", "b", "c", "1", "2", "300", "-70000", "4294967296"]));
    let mut big = s(&["RPUSH", "biglist"]);
    big.extend((0..3000).map(|i| format!("element-{i}")));
    c(big);
    c(s(&["SADD", "intset", "1", "2", "3", "100000", "-5", "4294967296"]));
    c(s(&["SADD", "strset", "apple", "banana", "cherry", "7"]));
    let mut bigset = s(&["SADD", "bigintset"]);
    bigset.extend((0..600).map(|i| (i * 3).to_string()));
    c(bigset);
    c(s(&["ZADD", "zl", "1", "a", "2", "b", "1.5", "c", "-inf", "d", "1e17", "e"]));
    let mut zs = s(&["ZADD", "zs"]);
    for i in 0..200 {
        zs.push(format!("{}", i as f64 / 3.0));
        zs.push(format!("member-{i}"));
    }
    c(zs);
    c(s(&["HSET", "hl", "f1", "v1", "f2", "22", "n", "-3"]));
    let mut hh = s(&["HSET", "hh"]);
    for i in 0..600 {
        hh.push(format!("field:{i}"));
        hh.push(format!("value {i}"));
    }
    c(hh);
    c(s(&["HSET", "hlong", "f", &"x".repeat(70)]));
    c(s(&["PFADD", "hll", "a", "b", "c", "d"]));
    let mut dense = s(&["PFADD", "hlldense"]);
    dense.extend((0..5000).map(|i| format!("e{i}")));
    c(dense);
    c(s(&["SET", "ttl", "v"]));
    c(s(&["PEXPIREAT", "ttl", FAR]));
    c(s(&["RPUSH", "ttllist", "x"]));
    c(s(&["PEXPIREAT", "ttllist", "4102444800123"]));
    c(s(&["SELECT", "5"]));
    c(s(&["SET", "other", "db five"]));
    c(s(&["SADD", "s5", "1"]));
    c(s(&["SELECT", "15"]));
    c(s(&["HSET", "last", "k", "v"]));
    c(s(&["PEXPIREAT", "last", FAR]));
    c(s(&["SELECT", "0"]));
    c(s(&[
        "FUNCTION",
        "LOAD",
        "#!lua name=mylib\nredis.register_function('myfunc', function(keys, args) return #keys end)",
    ]));
    cmds
}

/// Every key's TYPE, OBJECT ENCODING, PEXPIRETIME and DEBUG DIGEST-VALUE, per db (keys
/// sorted), then DEBUG DIGEST and FUNCTION LIST WITHCODE.
pub fn views(run: &mut dyn FnMut(&[Vec<u8>]) -> Reply) -> Vec<(String, Reply)> {
    let mut out = Vec::new();
    for db in 0..16 {
        run(&argv(&["SELECT", &db.to_string()]));
        let Reply::Array(keys) = run(&argv(&["KEYS", "*"])) else { panic!("KEYS") };
        let mut keys: Vec<Vec<u8>> = keys
            .into_iter()
            .map(|k| match k {
                Reply::Bulk(b) => b,
                other => panic!("{other:?}"),
            })
            .collect();
        keys.sort();
        for k in keys {
            let name = format!("db{db} {}", String::from_utf8_lossy(&k));
            for cmd in [&b"TYPE"[..], b"OBJECT ENCODING", b"PEXPIRETIME", b"DEBUG DIGEST-VALUE"] {
                let mut a: Vec<Vec<u8>> = cmd.split(|&b| b == b' ').map(|w| w.to_vec()).collect();
                a.push(k.clone());
                out.push((format!("{name}: {}", String::from_utf8_lossy(cmd)), run(&a)));
            }
        }
    }
    run(&argv(&["SELECT", "0"]));
    out.push(("DEBUG DIGEST".into(), run(&argv(&["DEBUG", "DIGEST"]))));
    out.push(("FUNCTION LIST".into(), run(&argv(&["FUNCTION", "LIST", "WITHCODE"]))));
    out
}

pub fn assert_same_views(what: &str, want: &[(String, Reply)], got: &[(String, Reply)]) {
    let names = |v: &[(String, Reply)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(got), names(want), "{what}: not the same keys");
    for ((name, w), (_, g)) in want.iter().zip(got) {
        assert_eq!(g, w, "{what}: {name}");
    }
}

pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("redisplay-rdb-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn info_field(info: &Reply, field: &str) -> String {
    let text = match info {
        Reply::Bulk(b) | Reply::Verbatim(b) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("INFO answered {other:?}"),
    };
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .unwrap_or_else(|| panic!("no {field} in INFO"))
        .to_string()
}
