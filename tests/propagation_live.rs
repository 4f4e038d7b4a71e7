//! The propagation stream (src/propagate.rs) side by side with redis-server 7.0.15's: the same
//! commands run on a live server, whose replication stream a replica of the test's own reads
//! (SYNC, then the commands), and on the engine, whose propagated ops go through a replica
//! link's `Feed` (SELECTs inserted); both are printed as `redis-cli --replica` prints them. Absolute times (PXAT, PEXPIREAT) must agree within a second — the two clocks
//! are the same wall clock — and are then masked; SPOP's random members are masked too.

#[path = "support/live_server.rs"]
mod live_server;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use live_server::{check_tools, Server};
use redisplay::propagate::Feed;
use redisplay::reply::{cat_repr, parse_resp};
use redisplay::{Engine, EngineOptions, Reply};

fn wall_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

/// What redis-cli --replica prints for a command: its arguments, quoted, comma-separated.
fn print_argv(argv: &[Vec<u8>]) -> String {
    let mut out = Vec::new();
    for (i, a) in argv.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        cat_repr(&mut out, a);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Masks the random members SPOP picked and the absolute times (returned apart, in order).
fn normalize(lines: &[String]) -> (Vec<String>, Vec<i64>) {
    let mut times = Vec::new();
    let masked = lines
        .iter()
        .map(|line| {
            let mut fields: Vec<String> = line.split(',').map(str::to_string).collect();
            if fields.first().is_some_and(|f| f == "\"SREM\"") && fields.len() == 3 {
                fields[2] = "<member>".into();
            }
            for f in fields.iter_mut() {
                let text = f.trim_matches('"');
                let (ms, seq) = text.split_once('-').unwrap_or((text, ""));
                let digits = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit());
                if ms.len() == 13 && digits(ms) && (seq.is_empty() || digits(seq)) {
                    times.push(ms.parse().unwrap());
                    *f = if seq.is_empty() { "\"<ms>\"".into() } else { "\"<ms>-<seq>\"".into() };
                }
            }
            fields.join(",")
        })
        .collect();
    (masked, times)
}

const SCENARIO: &str = r##"
SET a 1 EX 100
SET a2 1 PX 100000 NX
SETEX g 10 v
PSETEX g2 10000 v
SET a3 v PXAT 9999999999999
SET a4 v KEEPTTL
SET a4 v2 GET EX 100
SET a4 v3 XX
SET a4 v4 NX EX 5
EXPIRE a 50
PEXPIRE a 60000 GT
PEXPIRE a 5 GT
EXPIREAT a 99999999999
PEXPIREAT a 99999999999999
EXPIRE nokey 10
PERSIST a
EXPIRE a -1
INCRBYFLOAT f 1.5
INCRBYFLOAT f 1e3
HINCRBYFLOAT h x 2.5
SADD one x
SPOP one
SADD s x y z w v u t
SPOP s 0
SPOP s 2
SPOP s 10
SADD s2 1 2 3 4 5 6 7 8 9 10
SPOP s2 9
GETEX a2 EX 100
GETEX a2
GETEX a2 PERSIST
GETEX a2 PERSIST
GETEX a2 PXAT 1
SET gd 1
GETDEL gd
GETDEL gd
SELECT 3
SET b 2
SELECT 0
EVAL "redis.call('set','c','1') redis.call('incr','c')" 0
EVAL "return redis.call('get','c')" 0
EVAL "redis.call('set','c2','1', 'EX', 10)" 0
EVAL "redis.call('select', 5) redis.call('set','c3','1') redis.call('select', 0) redis.call('del', 'c3')" 0
MULTI
SET x 1
INCR x
EXEC
MULTI
SET y 1
GET y
EXEC
MULTI
GET y
EXEC
SET e 1 PX 1
@sleep 20
GET e
SET e2 1 PX 1
@sleep 20
INCR e2
PUBLISH ch msg
CONFIG SET lazyfree-lazy-user-del yes
SET z 1
GETDEL z
SET z 1
DEL z
CONFIG SET lazyfree-lazy-user-del no
CONFIG SET lazyfree-lazy-expire yes
SET w v PX 1
@sleep 20
GET w
SET w v
EXPIRE w 0
CONFIG SET lazyfree-lazy-expire no
SET act v PX 50
@sleep 400
RPUSH l a b c d e f g h i j
BLPOP l 0
BRPOP l 0
BLPOP nol l 0
LMPOP 1 l LEFT COUNT 2
BLMPOP 0 1 l RIGHT
BLMOVE l l2 LEFT RIGHT 0
BRPOPLPUSH l2 l3 0
LMOVE l3 l4 RIGHT LEFT
RPUSH short 1 2
LMPOP 1 short LEFT COUNT 100
ZADD z 1 a 2 b 3 c 4 d 5 e
BZPOPMIN z 0
BZPOPMAX z 0
ZPOPMIN z
ZMPOP 1 z MIN COUNT 1
BZMPOP 0 1 z MAX
ZADD z2 1 a 2 b 3 c
BZPOPMIN nokey z2 0
ZMPOP 2 nokey z2 MAX COUNT 100
XADD st 1-1 f v
XADD st MAXLEN = 1 2-1 f v
XTRIM st MAXLEN 0
PFADD hll a b c
PFCOUNT hll
PFCOUNT hll
SORT l4 ALPHA STORE sorted
SPUBLISH sch msg
FUNCTION LOAD "#!lua name=plib\nredis.register_function('pf', function(k, a) redis.call('set', k[1], a[1]) return redis.call('expire', k[1], 100) end)"
FCALL pf 1 fk fv
FUNCTION DELETE plib
SET kk v
EVAL "local p = redis.call('dump', KEYS[1]) redis.call('restore', KEYS[2], 0, p) redis.call('restore', KEYS[3], 100000, p) return 1" 3 kk rk rk2
COPY rk rk3
RENAME rk3 rk4
MOVE rk4 2
SWAPDB 0 2
SWAPDB 0 2
XADD st * f v
XADD st MAXLEN ~ 1 * f v
XADD st2 MAXLEN 5 * f v
XADD st2 MINID ~ 0 * f v
XTRIM st MAXLEN ~ 0
XTRIM st MAXLEN 1
XADD ex 1-1 f v
XADD ex 2-1 f v
XADD ex 3-* f v
XGROUP CREATE ex g2 0
XREADGROUP GROUP g2 c COUNT 2 STREAMS ex >
XREADGROUP GROUP g2 c2 NOACK STREAMS ex >
XCLAIM ex g2 c4 0 1-1 7
XCLAIM ex g2 c4 0 1 JUSTID
XDEL ex 2-1
XAUTOCLAIM ex g2 c5 0 0-0
XCLAIM ex g2 c6 0 9-9 LASTID 10-0
XCLAIM ex g2 c6 0 1-1 LASTID 11-0 IDLE 5000
B& BLPOP bl 0
LPUSH bl x
B?
B& BLMOVE bm dst left right 0
RPUSH bm y
B?
B& BZPOPMIN bz 0
ZADD bz 1 a
B?
B& BLMPOP 0 1 bm2 LEFT COUNT 5
RPUSH bm2 a b
B?
B& XREADGROUP GROUP g2 cb BLOCK 0 STREAMS ex >
XADD ex 20-1 f w
B?
FLUSHDB
FLUSHALL
"##;

#[test]
fn the_propagated_stream_matches_redis_servers_replication_stream() {
    check_tools();
    let server = Server::start();
    let mut r = server.connect();
    // A replica of our own: SYNC, skip the RDB, then read the stream (RESP arrays).
    r.call(&["CONFIG", "SET", "repl-diskless-sync", "no"]);
    let mut link = TcpStream::connect(("127.0.0.1", server.port())).expect("connect");
    link.write_all(b"SYNC\r\n").unwrap();
    link.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    // Newlines while the master saves, then `$<len>\r\n` and the RDB (no CRLF after it).
    let rdb_end = loop {
        while buf.first() == Some(&b'\n') {
            buf.remove(0);
        }
        if let Some(p) = buf.windows(2).position(|w| w == b"\r\n") {
            assert_eq!(buf.first(), Some(&b'$'), "not an RDB transfer: {:?}", String::from_utf8_lossy(&buf));
            let len: usize = String::from_utf8_lossy(&buf[1..p]).parse().unwrap();
            if buf.len() >= p + 2 + len {
                break p + 2 + len;
            }
        }
        let n = link.read(&mut chunk).expect("the RDB from the master");
        assert!(n > 0, "the master closed the link");
        buf.extend_from_slice(&chunk[..n]);
    };
    buf.drain(..rdb_end);
    let stream = Arc::new(Mutex::new(buf));
    let sink = stream.clone();
    let mut reader = link.try_clone().unwrap();
    reader.set_read_timeout(None).unwrap();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 65536];
        while let Ok(n) = reader.read(&mut chunk) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&chunk[..n]);
        }
    });

    let mut e = Engine::new(EngineOptions { seed: 3, start_ms: wall_ms() });
    e.set_propagation(true);
    let client = e.connect();
    let b = e.connect();
    let mut rb = server.connect();
    for line in SCENARIO.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(ms) = line.strip_prefix("@sleep ") {
            std::thread::sleep(Duration::from_millis(ms.parse().unwrap()));
            continue;
        }
        // `B& cmd`: sent by a second client, which blocks; `B?`: its reply, once served.
        if line == "B?" {
            rb.read_reply();
            e.take_outbox(b);
            continue;
        }
        let (second, line) = match line.strip_prefix("B& ") {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        let argv = redisplay::tokenize::split_args(line.as_bytes()).expect("a scenario line");
        let words: Vec<String> = argv.iter().map(|a| String::from_utf8_lossy(a).into_owned()).collect();
        let args: Vec<&str> = words.iter().map(String::as_str).collect();
        let now = wall_ms();
        if now > e.now_ms() {
            e.advance_to(now, u64::MAX);
        }
        if second {
            rb.send(&args);
            e.execute(b, &argv);
            // Let the server block it before the next command.
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        r.call(&args);
        e.execute(client, &argv);
    }
    let now = wall_ms();
    e.advance_to(now, u64::MAX);
    std::thread::sleep(Duration::from_millis(300));
    let _ = link.shutdown(std::net::Shutdown::Both);

    let theirs: Vec<String> = {
        let bytes = stream.lock().unwrap().clone();
        let mut rest = bytes.as_slice();
        let mut out = Vec::new();
        while let Some((reply, used)) = parse_resp(rest) {
            rest = &rest[used..];
            let Reply::Array(items) = reply else { continue };
            let argv: Vec<Vec<u8>> =
                items.into_iter().filter_map(|i| if let Reply::Bulk(b) = i { Some(b) } else { None }).collect();
            // The master's keepalive PING.
            if argv.len() == 1 && argv[0].eq_ignore_ascii_case(b"ping") {
                continue;
            }
            out.push(print_argv(&argv));
        }
        out
    };
    // A new link selects before its first command (`server.slaveseldb = -1`).
    let mut feed = Feed::default();
    let ours: Vec<String> = feed.commands(&e.take_propagated()).iter().map(|a| print_argv(a)).collect();
    assert!(!theirs.is_empty(), "nothing came from the master");
    let ((t, t_times), (o, o_times)) = (normalize(&theirs), normalize(&ours));
    let width = t.len().max(o.len());
    let mut diff = Vec::new();
    for i in 0..width {
        let (a, b) = (t.get(i).map(String::as_str).unwrap_or("-"), o.get(i).map(String::as_str).unwrap_or("-"));
        diff.push(format!("{} {a:<50} {b}", if a == b { " " } else { "!" }));
    }
    assert_eq!(t, o, "redis-server (left) vs ours (right):\n{}", diff.join("\n"));
    // The same wall clock: the absolute times agree within a second.
    for (a, b) in t_times.iter().zip(&o_times) {
        assert!((a - b).abs() < 1000, "absolute times differ: {t_times:?} vs {o_times:?}");
    }
}
