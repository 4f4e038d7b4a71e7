//! Several clients side by side with a real redis-server 7.0: Pub/Sub delivery and formats,
//! keyspace notifications, MULTI/EXEC errors, WATCH races, blocking pops served in order.
//!
//! Each scenario is a script of steps for named clients (A, B, C…), each one a connection to
//! the live server and a client of one engine:
//! - `A: cmd …`  send the command and take its reply(ies) — and anything else that arrived;
//! - `A& cmd …`  send it and don't wait (a blocking command);
//! - `A?`        take what arrived for A since (messages, a blocked command's late reply);
//! - `@sleep N`  let N ms pass: the server sleeps for real, the engine's clock moves N ms.
//!
//! Every reply is printed as `redis-cli --no-raw` prints it (the engine's formatter applied to
//! the server's RESP), and the two transcripts must be byte-identical.
//!
//! Then the same script runs through `redisplay serve` (issue 10) next to a fresh
//! redis-server, over RESP2 and over RESP3 (every connection says `HELLO 3` first): the raw
//! bytes each step receives — push messages, maps, late blocked replies — must be identical.

// Sockets and `redisplay::net::server` exist only natively (wasm-pack builds every test target).
#![cfg(not(target_arch = "wasm32"))]

mod common;
#[path = "support/live_server.rs"]
mod live_server;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::native::wall_ms;
use live_server::{check_tools, Server};
use redisplay::reply::parse_resp;
use redisplay::tokenize::split_args;
use redisplay::{ClientId, Engine, EngineOptions, Reply};

/// A raw RESP connection that can read "whatever has arrived".
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    fn send(&mut self, argv: &[Vec<u8>]) {
        let mut out = format!("*{}\r\n", argv.len()).into_bytes();
        for a in argv {
            out.extend(format!("${}\r\n", a.len()).bytes());
            out.extend(a);
            out.extend(b"\r\n");
        }
        self.stream.write_all(&out).expect("write");
    }

    /// Reads replies until none arrives for `quiet` (after at least `at_least` replies).
    fn take(&mut self, at_least: usize, quiet: Duration) -> Vec<Reply> {
        let mut out = Vec::new();
        loop {
            while let Some((r, used)) = parse_resp(&self.buf) {
                self.buf.drain(..used);
                out.push(r);
            }
            let wait = if out.len() < at_least { Duration::from_secs(5) } else { quiet };
            self.stream.set_read_timeout(Some(wait)).ok();
            let mut chunk = [0u8; 65536];
            match self.stream.read(&mut chunk) {
                Ok(0) => return out,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(_) if out.len() >= at_least => return out,
                Err(e) => panic!("no reply from redis-server: {e}"),
            }
        }
    }
}

fn text(replies: &[Reply]) -> String {
    replies.iter().map(|r| String::from_utf8_lossy(&r.to_cli()).into_owned()).collect()
}

/// Runs a script on both sides and asserts identical transcripts; then through our server.
fn check(name: &str, script: &str) {
    check_engine(name, script);
    check_wire(name, script, 2);
    check_wire(name, script, 3);
}

/// The raw replies that arrive within `quiet` (after at least `at_least` frames).
fn take_raw(conn: &mut Conn, at_least: usize, quiet: Duration) -> Vec<u8> {
    let mut out = Vec::new();
    let mut frames = 0;
    loop {
        while let Some((_, used)) = parse_resp(&conn.buf) {
            out.extend(conn.buf.drain(..used));
            frames += 1;
        }
        let wait = if frames < at_least { Duration::from_secs(5) } else { quiet };
        conn.stream.set_read_timeout(Some(wait)).ok();
        let mut chunk = [0u8; 65536];
        match conn.stream.read(&mut chunk) {
            Ok(0) => {
                out.extend_from_slice(b"<closed>");
                return out;
            }
            Ok(n) => conn.buf.extend_from_slice(&chunk[..n]),
            Err(_) if frames >= at_least => return out,
            Err(e) => panic!("no reply: {e}"),
        }
    }
}

/// The script against a fresh redis-server and a fresh `redisplay serve`, on raw sockets
/// speaking RESP`proto`: every step's bytes must be identical.
fn check_wire(name: &str, script: &str, proto: u8) {
    use redisplay::net::server::{ServeOptions, Server as Ours};
    let redis = Server::start();
    let ours = Ours::start(ServeOptions { port: 0, seed: 11, ..Default::default() }).expect("redisplay serve");
    let ports = [redis.port(), ours.addr.port()];
    let mut conns: Vec<(char, [Conn; 2])> = Vec::new();
    let mut transcripts = [String::new(), String::new()];
    let quiet = Duration::from_millis(40);
    for raw in script.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(ms) = line.strip_prefix("@sleep ") {
            std::thread::sleep(Duration::from_millis(ms.trim().parse().unwrap()));
            continue;
        }
        let who = line.chars().next().unwrap();
        let idx = match conns.iter().position(|(c, _)| *c == who) {
            Some(i) => i,
            None => {
                let pair = ports.map(|port| {
                    let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
                    stream.set_nodelay(true).ok();
                    let mut conn = Conn { stream, buf: Vec::new() };
                    if proto == 3 {
                        // The HELLO reply holds the connection id, which may differ: not compared.
                        conn.send(&[b"HELLO".to_vec(), b"3".to_vec()]);
                        take_raw(&mut conn, 1, Duration::from_millis(1));
                    }
                    conn
                });
                conns.push((who, pair));
                conns.len() - 1
            }
        };
        let rest = &line[1..];
        for t in transcripts.iter_mut() {
            t.push_str(&format!("{line}\n"));
        }
        let pair = &mut conns[idx].1;
        if rest.trim() == "?" {
            for (i, conn) in pair.iter_mut().enumerate() {
                transcripts[i].push_str(&String::from_utf8_lossy(&take_raw(conn, 0, quiet)));
            }
            continue;
        }
        let (wait, cmd) = match rest.chars().next() {
            Some(':') => (1, &rest[1..]),
            Some('&') => (0, &rest[1..]),
            _ => panic!("bad step {line:?}"),
        };
        let argv = split_args(cmd.trim().as_bytes()).expect("step arguments");
        for (i, conn) in pair.iter_mut().enumerate() {
            conn.send(&argv);
            transcripts[i].push_str(&String::from_utf8_lossy(&take_raw(conn, wait, quiet)));
        }
    }
    let [live, ours] = &transcripts;
    assert_same(&format!("{name} over RESP{proto}"), "redisplay serve", live, ours);
}

/// Panics with the first differing lines and both transcripts when they differ.
fn assert_same(what: &str, ours_name: &str, live: &str, ours: &str) {
    if live != ours {
        let diff: Vec<String> = live
            .lines()
            .zip(ours.lines())
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .take(8)
            .map(|(i, (a, b))| format!("line {}: redis {a:?} | {ours_name} {b:?}", i + 1))
            .collect();
        panic!(
            "{what}: redis-server and {ours_name} differ\n{}\n--- redis ---\n{live}\n--- {ours_name} ---\n{ours}",
            diff.join("\n")
        );
    }
}

/// Runs a script on the live server and the in-process engine; asserts identical transcripts.
fn check_engine(name: &str, script: &str) {
    check_tools();
    let server = Server::start();
    let mut engine = Engine::new(EngineOptions { seed: 11, start_ms: wall_ms() });
    let mut conns: Vec<(char, Conn, ClientId)> = Vec::new();
    let (mut live, mut ours) = (String::new(), String::new());
    let quiet = Duration::from_millis(40);
    for raw in script.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(ms) = line.strip_prefix("@sleep ") {
            let ms: u64 = ms.trim().parse().unwrap();
            std::thread::sleep(Duration::from_millis(ms));
            continue;
        }
        // The engine's clock follows the real one, as the server's does.
        let now = wall_ms();
        if now > engine.now_ms() {
            engine.advance_to(now, u64::MAX);
            engine.before_sleep();
        }
        let who = line.chars().next().unwrap();
        let idx = match conns.iter().position(|(c, _, _)| *c == who) {
            Some(i) => i,
            None => {
                let stream = TcpStream::connect(("127.0.0.1", server.port())).expect("connect");
                stream.set_nodelay(true).ok();
                let id = engine.connect();
                conns.push((who, Conn { stream, buf: Vec::new() }, id));
                conns.len() - 1
            }
        };
        // A script that outlived its first slice, while the server sat in it: until it times
        // out or ends nothing else ran; after that, a slice between steps.
        while engine.busy_script().is_some_and(|b| !b.timed_out) {
            engine.run_script_slice(5_000_000);
        }
        if engine.busy_script().is_some() {
            engine.run_script_slice(5_000_000);
        }
        let rest = &line[1..];
        let header = format!("{line}\n");
        live.push_str(&header);
        ours.push_str(&header);
        let (_, conn, id) = &mut conns[idx];
        let id = *id;
        if rest.trim() == "?" {
            live.push_str(&text(&conn.take(0, quiet)));
            let pending = engine.take_outbox(id);
            ours.push_str(&text(&pending));
            continue;
        }
        let (wait, cmd) = match rest.chars().next() {
            Some(':') => (true, &rest[1..]),
            Some('&') => (false, &rest[1..]),
            _ => panic!("bad step {line:?}"),
        };
        let argv = split_args(cmd.trim().as_bytes()).expect("step arguments");
        conn.send(&argv);
        // The server's answer first: the engine's run (a script's first slice) takes real time.
        live.push_str(&text(&conn.take(usize::from(wait), quiet)));
        let reply = engine.execute(id, &argv);
        engine.before_sleep();
        if wait {
            let mut mine = Vec::new();
            if !engine.is_blocked(id) {
                mine.push(reply);
            }
            mine.extend(engine.take_outbox(id));
            ours.push_str(&text(&mine));
        } else {
            // Whatever the server answered at once (if it did not block).
            let mut mine = Vec::new();
            if !engine.is_blocked(id) {
                mine.push(reply);
            }
            mine.extend(engine.take_outbox(id));
            ours.push_str(&text(&mine));
        }
    }
    assert_same(name, "engine", &live, &ours);
}

#[test]
fn pubsub_delivery_and_formats() {
    check(
        "pubsub",
        r#"
        A: SUBSCRIBE news sport
        A: SUBSCRIBE news
        B: PUBLISH news "hello world"
        B: PUBLISH nobody x
        A?
        B: PUBSUB NUMSUB news sport nothing
        B: PUBSUB NUMPAT
        C: PSUBSCRIBE "spo*" "w?ather"
        B: PUBLISH sport goal
        B: PUBLISH weather rain
        B: PUBSUB NUMPAT
        A?
        C?
        A: PING
        A: PING hi
        A: GET k
        A: UNSUBSCRIBE sport nothing
        A: UNSUBSCRIBE
        A: UNSUBSCRIBE
        A: PING
        B: PUBLISH news lost
        A?
        C: PUNSUBSCRIBE
        C: PUNSUBSCRIBE
        C: PUBLISH sport "\x00binary\xff"
        D: SUBSCRIBE sport
        C: PUBLISH sport "\x00binary\xff"
        D?
        B: PUBSUB CHANNELS
        B: PUBSUB CHANNELS "sp*"
        B: PUBSUB NUMSUB
        B: PUBSUB FOO
        A: SUBSCRIBE
        D: RESET
        B: PUBSUB NUMSUB sport
        "#,
    );
}

#[test]
fn keyspace_notifications_for_a_scripted_set_of_commands() {
    check(
        "notifications",
        r#"
        B: CONFIG SET notify-keyspace-events KEA
        B: CONFIG GET notify-keyspace-events
        A: PSUBSCRIBE __key*@0__:*
        B: SET k v
        B: SET k v EX 100
        B: PERSIST k
        B: EXPIRE k 100
        B: EXPIRE k 0
        B: INCR n
        B: INCRBYFLOAT n 1.5
        B: DECRBY n 3
        B: APPEND s x
        B: SETRANGE s 3 y
        B: GETDEL s
        B: MSET a 1 b 2
        B: RENAME a a2
        B: COPY b b2
        B: MOVE b2 1
        B: LPUSH l a b c
        B: RPOP l
        B: LPOP l 2
        B: RPUSH l x y z
        B: LSET l 0 q
        B: LINSERT l BEFORE q p
        B: LREM l 1 p
        B: LTRIM l 0 0
        B: LMOVE l l2 LEFT RIGHT
        B: HSET h f v g w
        B: HINCRBY h n 1
        B: HINCRBYFLOAT h n 1.5
        B: HDEL h f g n
        B: SADD st a b c
        B: SREM st a
        B: SMOVE st st2 c
        B: SPOP st
        B: SINTERSTORE st3 st2 st2
        B: ZADD z 1 a 2 b
        B: ZINCRBY z 5 a
        B: ZREM z b
        B: ZPOPMIN z
        B: ZADD z 1 a 2 b 3 c
        B: ZREMRANGEBYSCORE z 1 1
        B: ZREMRANGEBYRANK z 0 0
        B: ZUNIONSTORE z2 1 z
        B: GETEX a2 PX 100000
        B: GETEX a2 PERSIST
        B: DEL nothing b
        A?
        B: SET gone v PX 5
        @sleep 30
        B: GET gone
        A?
        B: CONFIG SET notify-keyspace-events Em
        B: CONFIG GET notify-keyspace-events
        B: GET missing
        B: CONFIG SET notify-keyspace-events KEn
        B: CONFIG GET notify-keyspace-events
        B: SET fresh 1
        B: LPUSH fresh2 a
        A?
        B: CONFIG SET notify-keyspace-events Kl
        B: RPUSH fresh2 b
        B: SET ignored 1
        A?
        B: CONFIG SET notify-keyspace-events xyz
        B: CONFIG SET notify-keyspace-events ""
        "#,
    );
}

#[test]
fn dump_and_restore_notify_watch_and_wake() {
    // DUMP fires nothing; RESTORE fires `new` then `restore` (REPLACE: `restore` only; a TTL in
    // the past with REPLACE: `del`; with nothing to replace: nothing), touches WATCHers, and
    // serves a client blocked on the key it creates.
    check(
        "dump-restore",
        r#"
        B: CONFIG SET notify-keyspace-events KEA
        A: PSUBSCRIBE __key*@0__:*
        B: SET k v
        B: DUMP k
        B: RESTORE r 0 "\x00\x05hello\x0a\x00cr\xdfve4 \x0a"
        B: RESTORE r 0 "\x00\x05hello\x0a\x00cr\xdfve4 \x0a" REPLACE
        B: RESTORE r 0 "\x00\x05hello\x0a\x00cr\xdfve4 \x0a"
        B: RESTORE r 1 "\x00\x05hello\x0a\x00cr\xdfve4 \x0a" ABSTTL REPLACE
        B: RESTORE gone 1 "\x00\x05hello\x0a\x00cr\xdfve4 \x0a" ABSTTL
        B: RESTORE t 100000 "\x00\x05hello\x0a\x00cr\xdfve4 \x0a"
        B: RESTORE bad 0 "\x00\x05hellx\x0a\x00cr\xdfve4 \x0a"
        A?
        C: WATCH k
        B: RESTORE k 0 "\x00\xc190\x0a\x00\x9d\x94\xea'\x93\xfc\x08\xb9" REPLACE
        C: MULTI
        C: GET k
        C: EXEC
        D& BLPOP q 0
        B: RESTORE q 0 "\x12\x01\x02\x0f\x0f\x00\x00\x00\x03\x00\x81a\x02\x81b\x02\x07\x01\xff\x0a\x00\xa4\xd5}\x13~\x93C\x9c"
        D?
        B: LRANGE q 0 -1
        A?
        B: CONFIG SET notify-keyspace-events ""
        "#,
    );
}

#[test]
fn multi_exec_errors_and_no_rollback() {
    check(
        "multi",
        r#"
        A: MULTI
        A: SET a 1
        A: SET s hello
        A: INCR s
        A: INCR a
        A: EXEC
        A: GET a
        A: MULTI
        A: SET b 1
        A: NOSUCHCOMMAND x
        A: GET
        A: EXEC
        A: EXISTS b
        A: EXEC
        A: DISCARD
        A: MULTI
        A: MULTI
        A: WATCH a
        A: PING
        A: DISCARD
        A: MULTI
        A: SELECT 3
        A: SET in3 x
        A: EXEC
        A: DBSIZE
        A: SELECT 0
        A: MULTI
        A: EXEC
        A: MULTI
        A: BLPOP nolist 0
        A: BZPOPMIN nozset 0
        A: BLMOVE nolist dst LEFT LEFT 0
        A: EXEC
        A: MULTI
        A: SUBSCRIBE x
        A: UNWATCH
        A: EXEC
        A: UNSUBSCRIBE
        "#,
    );
}

#[test]
fn watch_races_between_clients() {
    check(
        "watch",
        r#"
        A: SET k 1
        A: WATCH k
        B: SET k 2
        A: MULTI
        A: INCR k
        A: EXEC
        A: GET k
        A: WATCH k
        A: MULTI
        A: INCR k
        B: GET k
        A: EXEC
        A: WATCH k other
        B: SET other x
        A: UNWATCH
        A: MULTI
        A: INCR k
        A: EXEC
        A: WATCH k
        B: SET k 2 XX
        A: MULTI
        A: EXEC
        A: WATCH nosuch
        B: DEL nosuch
        A: MULTI
        A: EXEC
        A: WATCH k
        B: FLUSHDB
        A: MULTI
        A: EXEC
        A: WATCH empty
        B: FLUSHALL
        A: MULTI
        A: EXEC
        A: SET t v PX 20
        A: WATCH t
        @sleep 40
        A: MULTI
        A: PING
        A: EXEC
        A: SET t2 v PX 5
        @sleep 20
        A: WATCH t2
        A: MULTI
        A: PING
        A: EXEC
        A: SET w 1
        A: WATCH w
        B: SELECT 1
        B: SET w 9
        A: MULTI
        A: PING
        A: EXEC
        A: WATCH w
        B: SWAPDB 0 1
        A: MULTI
        A: PING
        A: EXEC
        A: WATCH gone
        C: WATCH gone
        B: SELECT 0
        B: SET gone 1
        A: MULTI
        A: EXEC
        C: MULTI
        C: EXEC
        "#,
    );
}

#[test]
fn blocking_pops_are_served_in_order() {
    check(
        "blocking",
        r#"
        A& BLPOP q 0
        B& BRPOP other q 0
        C: RPUSH q x y z
        A?
        B?
        C: LRANGE q 0 -1
        A& BLMOVE src dst LEFT RIGHT 0
        B& BRPOP dst 0
        C: LPUSH src v w
        A?
        B?
        C: LRANGE src 0 -1
        C: EXISTS dst
        A& BZPOPMIN z1 z2 0
        B& BZMPOP 0 2 z2 z1 MAX COUNT 5
        C: ZADD z2 1 a 2 b 3 c
        A?
        B?
        C: ZADD z1 5 e
        A& BLMPOP 0 2 l1 l2 RIGHT COUNT 2
        C: RPUSH l2 1 2 3
        A?
        A& BLPOP typed 0
        C: SET typed str
        A?
        C: DEL typed
        C: RPUSH typed ok
        A?
        A& BRPOPLPUSH from to 0
        C: MULTI
        C: RPUSH from 1 2
        C: RPUSH from 3
        C: EXEC
        A?
        C: LRANGE to 0 -1
        C: LRANGE from 0 -1
        # A timeout well above the harness's 40 ms read window: the real server answers at the
        # first cron tick past it, which a loaded machine must not bring into that window.
        A& BLPOP t 0.5
        @sleep 900
        A?
        A: BLPOP q -1
        A: BLPOP q abc
        A: BZPOPMAX q 1e400
        A: BLMPOP 0 0 q LEFT
        A: BLMPOP x 1 q LEFT
        A: BZMPOP 1 1 q MIDDLE
        A: RPUSH ready 1
        A: BLPOP ready 0
        A& BLPOP dup dup 0
        C: RPUSH dup 1 2
        A?
        C: LLEN dup
        "#,
    );
}

#[test]
fn scripts_among_clients() {
    check(
        "scripts",
        r#"
        A: WATCH lock:job
        B: EVAL "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])" 1 lock:job owner-b 30000
        A: MULTI
        A: SET lock:job owner-a
        A: EXEC
        A: EVAL "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])" 1 lock:job owner-a 30000
        A: EVAL "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end" 1 lock:job owner-a
        B: EVAL "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end" 1 lock:job owner-b
        A: WATCH q
        B: EVAL "return redis.call('ZADD', KEYS[1], 100, 'task:1', 200, 'task:2', 300, 'task:3')" 1 q
        A: MULTI
        A: ZRANGEBYSCORE q -inf 250
        A: EXEC
        C: SUBSCRIBE jobs
        D: CONFIG SET notify-keyspace-events KEA
        D: PSUBSCRIBE "__keyevent@0__:*"
        A: EVAL "local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 10) for _, t in ipairs(due) do redis.call('ZREM', KEYS[1], t) redis.call('PUBLISH', 'jobs', t) end return due" 1 q 250
        B: EVAL "local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 10) for _, t in ipairs(due) do redis.call('ZREM', KEYS[1], t) redis.call('PUBLISH', 'jobs', t) end return due" 1 q 250
        C?
        D?
        A& BLPOP work 0
        B& BLPOP work 0
        E: EVAL "redis.call('RPUSH', KEYS[1], 'one') redis.call('RPUSH', KEYS[1], 'two') return redis.call('LLEN', KEYS[1])" 1 work
        A?
        B?
        D?
        E: EVAL "redis.call('RPUSH', KEYS[1], 'x') return redis.call('LPOP', KEYS[1])" 1 work
        E: LLEN work
        D?
        E: MULTI
        E: EVAL "return redis.call('INCR', KEYS[1])" 1 n
        E: EVAL "return redis.call('NOPE')" 0
        E: EXEC
        E: MULTI
        E: EVAL "return redis.call('INCR', KEYS[1])" 1 n
        E: EVAL "return redis.pcall('HSET', KEYS[1], 'f', 'v')" 1 n
        E: EXEC
        D?
        A: CONFIG SET notify-keyspace-events ""
        "#,
    );
}

/// Bitmaps (bitops.c): `setbit` only when a bit changed or the string was created or grew
/// (SETBIT and BITFIELD alike), BITOP's `set` or `del`, keymiss, WATCH touched by the same.
#[test]
fn keyspace_events_of_bitmaps() {
    check(
        "bitmaps",
        r#"
        B: CONFIG SET notify-keyspace-events KEAm
        A: PSUBSCRIBE __key*@0__:*
        B: SETBIT b 0 0
        B: SETBIT b 0 0
        B: SETBIT b 1 1
        B: SETBIT b 1 1
        B: SETBIT b 100 0
        B: GETBIT nosuch 3
        B: BITFIELD f SET u8 0 0
        B: BITFIELD f SET u8 0 0
        B: BITFIELD f INCRBY u8 0 0 GET u8 0
        B: BITFIELD f OVERFLOW FAIL INCRBY u8 0 1000
        B: BITFIELD g OVERFLOW FAIL INCRBY u2 20 10
        B: BITFIELD_RO nosuch GET u8 0
        B: BITOP AND dest b nosuch
        B: BITOP OR dest nosuch
        B: BITOP OR dest nosuch
        B: SET n 12
        B: SETBIT n 2 0
        B: BITCOUNT nosuch
        A?
        C: WATCH b
        B: SETBIT b 1 1
        C: MULTI
        C: GET b
        C: EXEC
        C: WATCH b
        B: SETBIT b 1 0
        C: MULTI
        C: GET b
        C: EXEC
        C: WATCH dest2
        B: BITOP NOT dest2 b
        C: MULTI
        C: GET dest2
        C: EXEC
        A?
        B: CONFIG SET notify-keyspace-events ""
        "#,
    );
}

/// HyperLogLog (hyperloglog.c): `pfadd` from PFADD (only when something changed) and from
/// PFMERGE (always); PFCOUNT rewriting its cache touches WATCHers but fires no event; a
/// PFCOUNT served from a valid cache touches nothing.
#[test]
fn keyspace_events_of_hyperloglogs() {
    check(
        "hyperloglog",
        r#"
        B: CONFIG SET notify-keyspace-events KEA
        A: PSUBSCRIBE __key*@0__:*
        B: PFADD h a b c
        B: PFADD h a
        B: PFADD h
        B: PFADD fresh
        B: PFMERGE m h
        B: PFMERGE m
        B: PFCOUNT h
        B: PFDEBUG TODENSE h
        B: PFDEBUG GETREG fresh
        A?
        C: WATCH h
        B: PFCOUNT h
        C: MULTI
        C: PFCOUNT h
        C: EXEC
        C: WATCH h
        B: PFCOUNT h
        C: MULTI
        C: PFCOUNT h
        C: EXEC
        C: WATCH h
        B: PFADD h a
        C: MULTI
        C: PFCOUNT h
        C: EXEC
        A?
        B: CONFIG SET notify-keyspace-events ""
        "#,
    );
}

/// SORT … STORE (sort.c): `sortstore` (list class) or `del` when the result is empty; a
/// client blocked on the destination is served; WATCHers touched; BY/GET lookups of missing
/// keys are key misses.
#[test]
fn keyspace_events_and_blocked_clients_of_sort_store() {
    check(
        "sort",
        r#"
        B: CONFIG SET notify-keyspace-events KEA
        A: PSUBSCRIBE __key*@0__:*
        B: RPUSH src 3 1 2
        C& BLPOP dst 0
        B: SORT src STORE dst
        C?
        B: LRANGE dst 0 -1
        B: SORT src DESC STORE dst
        B: SORT nosuch STORE dst
        B: SORT nosuch STORE dst
        B: SORT src BY w_* GET h_*->f LIMIT 0 1
        A?
        D: WATCH out
        B: SORT src STORE out
        D: MULTI
        D: LLEN out
        D: EXEC
        D: WATCH out
        B: SORT src LIMIT 5 5 STORE out
        D: MULTI
        D: EXISTS out
        D: EXEC
        D: WATCH src
        B: SORT_RO src
        B: SORT src
        D: MULTI
        D: LLEN src
        D: EXEC
        C& BLPOP l2 0
        B: ZADD z 1 a 2 b
        B: SORT z BY nosort STORE l2
        C?
        A?
        B: CONFIG SET notify-keyspace-events Km
        B: SORT src BY w_* GET h_*->f
        A?
        B: CONFIG SET notify-keyspace-events ""
        "#,
    );
}

/// The `new` event (db.c `dbAdd()`) for keys created by SETBIT, BITFIELD (even when its write
/// fails), BITOP, PFADD, PFMERGE and SORT … STORE — and none when they overwrite.
#[test]
fn new_key_events_of_bitmaps_hyperloglogs_and_sort() {
    check(
        "new keys",
        r#"
        B: CONFIG SET notify-keyspace-events KEn
        A: PSUBSCRIBE __key*@0__:*
        B: SETBIT b 3 1
        B: SETBIT b 4 1
        B: BITFIELD f OVERFLOW FAIL INCRBY u2 0 9
        B: BITOP NOT d b
        B: BITOP NOT d b
        B: PFADD h a
        B: PFMERGE m h
        B: PFMERGE m h
        B: RPUSH l 2 1
        B: SORT l STORE s
        B: SORT l STORE s
        A?
        B: CONFIG SET notify-keyspace-events ""
        "#,
    );
}

#[test]
fn a_busy_script_among_clients() {
    check(
        "busy script",
        r#"
        A: SET k v
        # A script that ends on its own: a command sent meanwhile waits for it.
        A& EVAL "local n = 0 for i = 1, 5e7 do n = n + 1 end return n" 0
        B: GET k
        A?
        A: CONFIG SET busy-reply-threshold 10
        A& EVAL "local i = 0\nwhile true do i = i + 1 end" 0
        @sleep 100
        B: PING
        B: GET k
        B: EVAL "return 1" 0
        B: MULTI
        B: SET k v2
        B: EXEC
        C: SCRIPT KILL
        A?
        B: GET k
        B: SCRIPT KILL
        # pcall cannot catch the kill.
        A& EVAL "local f = function() while 1 do redis.call('ping') end end while 1 do pcall(f) end" 0
        @sleep 100
        B: SCRIPT KILL
        A?
        A: EVAL "return redis.call('GET', KEYS[1])" 1 k
        A: CONFIG SET busy-reply-threshold 5000
        "#,
    );
}
