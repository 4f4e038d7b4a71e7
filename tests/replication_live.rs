//! Replication over TCP with a real redis-server 7.0.15, both ways (issue 18, part 3):
//! 1. a real `redis-server --replicaof` full-syncs from `redisplay serve`, follows ~50 writes of
//!    every type (expiries, an active-expiry DEL), and ends with our data (DEBUG DIGEST, and per
//!    key DEBUG DIGEST-VALUE and PTTL within a second); WAIT and min-replicas-to-write against
//!    it; `CLIENT KILL TYPE master` on it → it comes back with a partial resync from us;
//! 2. `redisplay serve --replicaof` syncs from a real master and follows its stream, keeps a
//!    logically expired key (GET nil, DBSIZE counts it) until the master's DEL, refuses writes;
//!    `CLIENT KILL TYPE master` on ours → we come back with a partial resync;
//! 3. misbehaving peers: a fake master that answers garbage or dies mid-transfer, a replica that
//!    disconnects right after asking for a sync — the server keeps serving.
//!
//! The tests wait for conditions on the live servers (polled with a deadline), never for a
//! fixed time.

#![cfg(not(target_arch = "wasm32"))]

#[path = "support/live_server.rs"]
mod live_server;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use live_server::{check_tools, Conn, Server};
use redisplay::net::server::{ServeOptions, Server as Ours};
use redisplay::Reply;

fn argv(line: &str) -> Vec<Vec<u8>> {
    redisplay::tokenize::split_args(line.as_bytes()).expect("a line")
}

fn call(c: &mut Conn, line: &str) -> Reply {
    c.call(&argv(line))
}

fn text(r: &Reply) -> String {
    live_server::reply_text(r)
}

fn info(c: &mut Conn, field: &str) -> String {
    let r = call(c, "INFO all");
    let t = match &r {
        Reply::Bulk(b) | Reply::Verbatim(b) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("INFO: {other:?}"),
    };
    t.lines().find_map(|l| l.strip_prefix(&format!("{field}:"))).unwrap_or("").trim().to_string()
}

/// Polls `cond` until it holds (15 s at most).
fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn ours(config: &[(&str, &str)]) -> Ours {
    let mut cfg: Vec<(String, String)> =
        vec![("enable-debug-command".into(), "yes".into()), ("repl-diskless-sync-delay".into(), "0".into())];
    cfg.extend(config.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    Ours::start(ServeOptions { port: 0, seed: 5, config: cfg, ..Default::default() }).expect("redisplay serve")
}

/// ~50 writes of every type, with relative and absolute expiries.
const WRITES: &[&str] = &[
    "SET s1 hello",
    "SET s2 12345",
    "SET s3 v EX 1000",
    "SET s4 v PX 600000",
    "SETEX s5 500 v",
    "APPEND s1 world",
    "INCR counter",
    "INCRBY counter 41",
    "INCRBYFLOAT f 2.5",
    "GETSET s2 99",
    "MSET m1 a m2 b m3 c",
    "SETRANGE m1 3 xyz",
    "RPUSH list a b c d e f",
    "LPUSH list z",
    "LPOP list",
    "LSET list 0 first",
    "LTRIM list 0 4",
    "SADD set a b c d 1 2 3",
    "SREM set d",
    "SPOP set",
    "SADD ints 1 2 3 4 5",
    "ZADD z 1 a 2 b 3 c 4.5 d",
    "ZINCRBY z 10 a",
    "ZREM z b",
    "ZPOPMIN z",
    "HSET h f1 v1 f2 v2 f3 3",
    "HINCRBY h f3 4",
    "HINCRBYFLOAT h f4 1.25",
    "HDEL h f1",
    "XADD st 1-1 a 1",
    "XADD st 2-1 b 2",
    "XGROUP CREATE st g 0",
    "XREADGROUP GROUP g c COUNT 1 STREAMS st >",
    "PFADD hll a b c d e",
    "SETBIT bits 100 1",
    "EXPIRE list 3000",
    "PEXPIREAT h 4102444800000",
    "PERSIST s4",
    "EXPIRE z 100",
    "SELECT 2",
    "SET db2 here EX 2000",
    "LPUSH db2list x",
    "SELECT 0",
    "EVAL \"redis.call('set', KEYS[1], ARGV[1]) return redis.call('expire', KEYS[1], 300)\" 1 scripted v",
    "MULTI",
    "SET tx1 1",
    "INCR tx1",
    "EXEC",
    "COPY s1 s1copy",
    "RENAME m3 m3renamed",
    "DEL m2",
    "SET gone soon PX 300",
];

/// Per db, every key's DEBUG DIGEST-VALUE and PTTL on both sides: the same keys, values, and
/// TTLs within a second; then the whole DEBUG DIGEST.
/// The replica `r` drops its link (CLIENT KILL TYPE master): it comes back with PSYNC, the
/// master `m` answers +CONTINUE (sync_partial_ok 1, still one full sync), and a write made
/// meanwhile arrives; the data is the same on both.
fn partial_resync_after_the_replica_drops_the_link(m: &mut Conn, r: &mut Conn) {
    assert_eq!(call(r, "CLIENT KILL TYPE master"), Reply::Integer(1));
    call(m, "SET after-kill 1");
    wait_until("the partial resync", || info(m, "sync_partial_ok") == "1");
    assert_eq!(call(m, "WAIT 1 5000"), Reply::Integer(1));
    assert_eq!(call(r, "GET after-kill"), Reply::bulk("1"));
    assert_eq!(info(m, "sync_full"), "1");
    same_data(m, r, &[0, 2]);
}

fn same_data(a: &mut Conn, b: &mut Conn, dbs: &[usize]) {
    for &db in dbs {
        call(a, &format!("SELECT {db}"));
        call(b, &format!("SELECT {db}"));
        let mut ka: Vec<String> = text(&call(a, "KEYS *")).lines().map(str::to_string).collect();
        let mut kb: Vec<String> = text(&call(b, "KEYS *")).lines().map(str::to_string).collect();
        ka.sort();
        kb.sort();
        assert_eq!(ka, kb, "db {db}: the same keys");
        for k in &ka {
            let (da, db_) = (call(a, &format!("DEBUG DIGEST-VALUE {k}")), call(b, &format!("DEBUG DIGEST-VALUE {k}")));
            assert_eq!(text(&da), text(&db_), "db {db} key {k}: the same value");
            let (ta, tb) = (call(a, &format!("PTTL {k}")), call(b, &format!("PTTL {k}")));
            let (Reply::Integer(ta), Reply::Integer(tb)) = (ta, tb) else { panic!("PTTL") };
            assert!((ta < 0) == (tb < 0) && (ta - tb).abs() < 1000, "db {db} key {k}: PTTL {ta} vs {tb}");
        }
    }
    call(a, "SELECT 0");
    call(b, "SELECT 0");
    assert_eq!(text(&call(a, "DEBUG DIGEST")), text(&call(b, "DEBUG DIGEST")), "the whole dataset");
}

#[test]
fn a_real_replica_syncs_from_redisplay_serve() {
    check_tools();
    let server = ours(&[]);
    let port = server.addr.port();
    let mut m = Conn::open(port);
    call(&mut m, "SET before-sync 1");
    call(&mut m, "HSET before-hash a 1");
    let replica = Server::start_with(&["--replicaof", "127.0.0.1", &port.to_string(), "--enable-debug-command", "yes"]);
    let mut r = replica.connect_conn();
    wait_until("the replica's link", || info(&mut r, "master_link_status") == "up");
    assert_eq!(info(&mut m, "connected_slaves"), "1");
    for line in WRITES {
        let reply = call(&mut m, line);
        assert!(!reply.is_error(), "{line}: {reply:?}");
    }
    // `gone` dies in 300 ms; our active expiry reclaims it and sends the DEL.
    wait_until("active expiry on ours", || info(&mut m, "expired_keys") == "1");
    assert_eq!(call(&mut m, "WAIT 1 5000"), Reply::Integer(1));
    wait_until("the DEL on the replica", || call(&mut r, "EXISTS gone") == Reply::Integer(0));
    same_data(&mut m, &mut r, &[0, 2]);
    let slave0 = info(&mut m, "slave0");
    assert!(slave0.contains("state=online"), "{slave0}");
    assert_eq!(text(&call(&mut r, "ROLE")).lines().next(), Some("slave"));
    assert_eq!(info(&mut m, "sync_full"), "1");

    // WAIT and min-replicas-to-write against the real replica.
    call(&mut m, "SET w 1");
    assert_eq!(call(&mut m, "WAIT 1 5000"), Reply::Integer(1));
    assert_eq!(call(&mut m, "WAIT 2 200"), Reply::Integer(1));
    call(&mut m, "CONFIG SET min-replicas-to-write 2");
    assert_eq!(call(&mut m, "SET w 2"), Reply::err("NOREPLICAS Not enough good replicas to write."));
    call(&mut m, "CONFIG SET min-replicas-to-write 1");
    assert_eq!(call(&mut m, "SET w 2"), Reply::ok());
    call(&mut m, "CONFIG SET min-replicas-to-write 0");

    // The link dropped by the replica: it comes back with PSYNC and gets +CONTINUE.
    partial_resync_after_the_replica_drops_the_link(&mut m, &mut r);
}

#[test]
fn redisplay_serve_replicates_a_real_master() {
    check_tools();
    let master = Server::start_with(&["--enable-debug-command", "yes", "--repl-diskless-sync-delay", "0"]);
    let mut m = master.connect_conn();
    // The master keeps dead keys until they are touched: the replica must wait for its DEL.
    call(&mut m, "DEBUG SET-ACTIVE-EXPIRE 0");
    call(&mut m, "SET before-sync 1");
    call(&mut m, "SET dies-early v PX 400");
    call(&mut m, "ZADD zz 1 a 2 b");
    let replicaof = format!("127.0.0.1 {}", master.port());
    let server = ours(&[("replicaof", &replicaof)]);
    let mut r = Conn::open(server.addr.port());
    wait_until("our link", || info(&mut r, "master_link_status") == "up");
    call(&mut m, "SET dies-later v PX 400");
    for line in WRITES {
        let reply = call(&mut m, line);
        assert!(!reply.is_error(), "{line}: {reply:?}");
    }
    assert_eq!(call(&mut m, "WAIT 1 5000"), Reply::Integer(1));
    assert_eq!(call(&mut r, "SET x 1"), Reply::err("READONLY You can't write against a read only replica."));
    let role = text(&call(&mut r, "ROLE"));
    assert!(role.starts_with(&format!("slave\n127.0.0.1\n{}\nconnected\n", master.port())), "{role}");

    // Past the TTLs: the keys read as gone on the replica but stay, until the master's DEL.
    wait_until("the TTLs to pass", || call(&mut r, "EXISTS dies-early dies-later gone") == Reply::Integer(0));
    let size = call(&mut r, "DBSIZE");
    assert_eq!(call(&mut r, "GET dies-early"), Reply::Nil);
    assert_eq!(call(&mut r, "EXISTS dies-later"), Reply::Integer(0));
    assert_eq!(call(&mut r, "TTL dies-later"), Reply::Integer(-2));
    assert_eq!(call(&mut r, "DBSIZE"), size, "reads on a replica delete nothing");
    // `gone` (PX 300 in WRITES) is dead too; touching all three on the master sends the DELs.
    for k in ["dies-early", "dies-later", "gone"] {
        assert_eq!(call(&mut m, &format!("GET {k}")), Reply::Nil);
    }
    assert_eq!(call(&mut m, "WAIT 1 5000"), Reply::Integer(1));
    let Reply::Integer(n) = size else { panic!("DBSIZE") };
    assert_eq!(call(&mut r, "DBSIZE"), Reply::Integer(n - 3));
    same_data(&mut m, &mut r, &[0, 2]);

    // Our link dropped: we come back with PSYNC and the master answers +CONTINUE.
    partial_resync_after_the_replica_drops_the_link(&mut m, &mut r);
    // REPLICAOF NO ONE: a master again, writable.
    assert_eq!(call(&mut r, "REPLICAOF NO ONE"), Reply::ok());
    assert_eq!(call(&mut r, "SET x 1"), Reply::ok());
}

/// A fake master on a free port: each connection is counted and handed to `serve`.
fn fake_master(serve: fn(std::net::TcpStream)) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for s in listener.incoming().flatten() {
            seen.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || serve(s));
        }
    });
    (port, count)
}

fn read_some(s: &mut std::net::TcpStream) -> Vec<u8> {
    let mut buf = [0u8; 4096];
    s.set_read_timeout(Some(Duration::from_secs(5))).ok();
    match s.read(&mut buf) {
        Ok(n) => buf[..n].to_vec(),
        Err(_) => vec![],
    }
}

#[test]
fn misbehaving_peers_are_dropped_and_the_server_keeps_serving() {
    check_tools();
    // A master that answers the PING with garbage.
    let (garbage, tries) = fake_master(|mut s| {
        read_some(&mut s);
        let _ = s.write_all(b"\x00\xffgarbage\r\n");
        read_some(&mut s);
    });
    let server = ours(&[]);
    let mut c = Conn::open(server.addr.port());
    assert_eq!(call(&mut c, &format!("REPLICAOF 127.0.0.1 {garbage}")), Reply::ok());
    // Dropped, and tried again a second later (replicationCron), as Redis does.
    wait_until("a second attempt", || tries.load(Ordering::SeqCst) >= 2);
    assert_eq!(info(&mut c, "master_link_status"), "down");
    assert_eq!(call(&mut c, "PING"), Reply::Status("PONG".into()));
    // A master that starts a full sync and dies mid-payload.
    let (dies, tries) = fake_master(|mut s| {
        let mut seen = Vec::new();
        while !String::from_utf8_lossy(&seen).contains("PSYNC") {
            let got = read_some(&mut s);
            if got.is_empty() {
                return;
            }
            if got.starts_with(b"*1\r\n$4\r\nPING") {
                let _ = s.write_all(b"+PONG\r\n");
            } else {
                let n = String::from_utf8_lossy(&got).matches("REPLCONF").count();
                for _ in 0..n {
                    let _ = s.write_all(b"+OK\r\n");
                }
            }
            seen.extend(got);
        }
        let _ = s.write_all(b"+FULLRESYNC 0123456789012345678901234567890123456789 0\r\n$1000\r\nREDIS0010");
    });
    assert_eq!(call(&mut c, &format!("REPLICAOF 127.0.0.1 {dies}")), Reply::ok());
    wait_until("the transfer to fail and a new attempt", || tries.load(Ordering::SeqCst) >= 2);
    assert_eq!(info(&mut c, "master_link_status"), "down");
    assert_eq!(info(&mut c, "master_sync_in_progress"), "0");
    assert_eq!(call(&mut c, "SET k v"), Reply::err("READONLY You can't write against a read only replica."));
    assert_eq!(call(&mut c, "REPLICAOF NO ONE"), Reply::ok());
    assert_eq!(call(&mut c, "SET k v"), Reply::ok());

    // A replica that asks for a sync and goes away at once; another sends garbage after PSYNC.
    for tail in [&b""[..], b"\x00\x01garbage\r\n*9999999999\r\n"] {
        let mut s = std::net::TcpStream::connect(server.addr).unwrap();
        s.write_all(b"REPLCONF capa eof\r\nPSYNC ? -1\r\n").unwrap();
        s.write_all(tail).unwrap();
        drop(s);
    }
    wait_until("both to have asked", || info(&mut c, "sync_full") == "2");
    wait_until("the replicas to be gone", || info(&mut c, "connected_slaves") == "0");
    assert_eq!(call(&mut c, "GET k"), Reply::bulk("v"));
}
