//! DUMP and RESTORE against a real redis-server 7.0.15, both ways.
//!
//! For every type × encoding (strings int/embstr/raw/compressible/incompressible; lists short
//! and long over many quicklist nodes, every listpack integer and string width; intsets of every
//! width and hashtable sets; listpack and hashtable hashes; listpack and skiplist sorted sets with
//! special doubles) the same commands build the key on the server and in the engine. Then:
//! - the two DUMP payloads must be byte-identical (except where Redis's bytes depend on its hash
//!   order: hashtable sets and hashes, or on history the engine does not keep: LPUSH-built lists);
//! - the server's payload RESTOREd in the engine, and the engine's payload RESTOREd on the
//!   server, must read back (TYPE, OBJECT ENCODING, the whole value) as the original does there,
//!   and DUMP again to the same bytes;
//! - RESTORE's options (TTL, ABSTTL, IDLETIME under LRU, FREQ under LFU, REPLACE) read back alike.
//!
//! The DUMPs run in the same order on both sides, one session each, so LZF's carried-over hash
//! table (persist/lzf.rs) is exercised as a server's is. redis-server is required: without it
//! this test fails (run scripts/test.sh, which installs it).

#[path = "support/live_server.rs"]
mod live_server;

use std::io::{Read, Write};
use std::net::TcpStream;

use live_server::{check_tools, Server};
use redisplay::reply::parse_resp;
use redisplay::{ClientId, Engine, EngineOptions, Reply};

/// A RESP2 connection speaking bytes.
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    fn call(&mut self, argv: &[Vec<u8>]) -> Reply {
        let mut out = format!("*{}\r\n", argv.len()).into_bytes();
        for a in argv {
            out.extend(format!("${}\r\n", a.len()).bytes());
            out.extend_from_slice(a);
            out.extend_from_slice(b"\r\n");
        }
        self.stream.write_all(&out).unwrap();
        loop {
            if let Some((reply, used)) = parse_resp(&self.buf) {
                self.buf.drain(..used);
                return reply;
            }
            let mut chunk = [0u8; 1 << 16];
            let n = self.stream.read(&mut chunk).unwrap();
            assert!(n > 0, "redis-server closed the connection");
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }
}

struct Both {
    conn: Conn,
    engine: Engine,
    client: ClientId,
}

fn argv(words: &[&[u8]]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.to_vec()).collect()
}

fn norm(r: Reply) -> Reply {
    let r = r.into_resp2();
    let mut bytes = Vec::new();
    r.encode(2, &mut bytes);
    parse_resp(&bytes).map(|(r, _)| r).unwrap_or(r)
}

impl Both {
    fn redis(&mut self, a: &[Vec<u8>]) -> Reply {
        self.conn.call(a)
    }
    fn ours(&mut self, a: &[Vec<u8>]) -> Reply {
        norm(self.engine.execute(self.client, a))
    }
    /// Runs on both; the replies must agree.
    fn both(&mut self, a: &[Vec<u8>]) -> Reply {
        let (r, o) = (self.redis(a), self.ours(a));
        assert_eq!(o, r, "replies differ for {:?}", show_argv(a));
        r
    }
}

fn show_argv(a: &[Vec<u8>]) -> String {
    a.iter().map(|w| String::from_utf8_lossy(&w[..w.len().min(40)]).into_owned()).collect::<Vec<_>>().join(" ")
}

/// Everything a client can read of `key`, with hash-ordered replies sorted.
fn view(run: &mut dyn FnMut(&[Vec<u8>]) -> Reply, key: &[u8]) -> Vec<Reply> {
    let mut out = vec![run(&argv(&[b"TYPE", key])), run(&argv(&[b"OBJECT", b"ENCODING", key]))];
    let t = match &out[0] {
        Reply::Status(s) => s.clone(),
        other => panic!("TYPE answered {other:?}"),
    };
    let sorted = |r: Reply, pairs: bool| match r {
        Reply::Array(mut items) => {
            if pairs {
                let mut p: Vec<(Reply, Reply)> =
                    items.chunks(2).map(|c| (c[0].clone(), c.get(1).cloned().unwrap_or(Reply::Nil))).collect();
                p.sort_by_key(|(a, _)| format!("{a:?}"));
                Reply::Array(p.into_iter().flat_map(|(a, b)| [a, b]).collect())
            } else {
                items.sort_by_key(|a| format!("{a:?}"));
                Reply::Array(items)
            }
        }
        other => other,
    };
    match t.as_str() {
        "string" => {
            out.push(run(&argv(&[b"GET", key])));
            out.push(run(&argv(&[b"STRLEN", key])));
        }
        "list" => out.push(run(&argv(&[b"LRANGE", key, b"0", b"-1"]))),
        "set" => out.push(sorted(run(&argv(&[b"SMEMBERS", key])), false)),
        "hash" => {
            let all = run(&argv(&[b"HGETALL", key]));
            let listpack = matches!(&out[1], Reply::Bulk(e) if e == b"listpack");
            out.push(if listpack { all } else { sorted(all, true) });
        }
        "zset" => out.push(run(&argv(&[b"ZRANGE", key, b"0", b"-1", b"WITHSCORES"]))),
        other => panic!("unexpected type {other}"),
    }
    out
}

struct Case {
    name: &'static str,
    build: Vec<Vec<Vec<u8>>>,
    /// DUMP bytes are comparable (Redis's don't depend on hash order or push history).
    bytes: bool,
    /// CONFIG SET pairs in force for this case (put back to the defaults after it).
    config: Vec<(&'static str, &'static str)>,
}

fn case(name: &'static str, bytes: bool, cmds: Vec<Vec<Vec<u8>>>) -> Case {
    Case { name, build: cmds, bytes, config: vec![] }
}

const DEFAULTS: &[(&str, &str)] = &[
    ("rdbcompression", "yes"),
    ("list-compress-depth", "0"),
    ("list-max-listpack-size", "-2"),
    ("hash-max-listpack-entries", "512"),
    ("zset-max-listpack-entries", "128"),
    ("set-max-intset-entries", "512"),
];

fn cmd(words: &[&str]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.as_bytes().to_vec()).collect()
}

fn cmd_with(head: &[&str], rest: impl IntoIterator<Item = Vec<u8>>) -> Vec<Vec<u8>> {
    let mut v = cmd(head);
    v.extend(rest);
    v
}

/// A deterministic byte stream.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn cases() -> Vec<Case> {
    let mut rng = Rng(42);
    let text = |rng: &mut Rng, n: usize| -> Vec<u8> {
        let words: [&[u8]; 6] = [b"redis ", b"dump ", b"restore ", b"payload ", b"lzf ", b"crc64 "];
        let mut v = Vec::new();
        while v.len() < n {
            v.extend_from_slice(words[(rng.next() % 6) as usize]);
        }
        v.truncate(n);
        v
    };
    let noise = |rng: &mut Rng, n: usize| -> Vec<u8> { (0..n).map(|_| rng.next() as u8).collect() };
    let mut v = vec![
        case("int8", true, vec![cmd(&["SET", "k", "-7"])]),
        case("int16", true, vec![cmd(&["SET", "k", "300"])]),
        case("int32", true, vec![cmd(&["SET", "k", "70000"])]),
        case("int64 as text", true, vec![cmd(&["SET", "k", "5000000000"])]),
        case("int min", true, vec![cmd(&["SET", "k", "-9223372036854775808"])]),
        case("not canonical", true, vec![cmd(&["SET", "k", "007"])]),
        case("empty string", true, vec![cmd(&["SET", "k", ""])]),
        case("embstr", true, vec![cmd(&["SET", "k", "hello world"])]),
        case("21 bytes", true, vec![cmd(&["SET", "k", "aaaaaaaaaaaaaaaaaaaaa"])]),
        case("append grown", true, vec![cmd(&["SET", "k", "abc"]), cmd(&["APPEND", "k", "abcabcabcabcabcabcabcabc"])]),
        case("incr", true, vec![cmd(&["INCRBY", "k", "123456789"])]),
    ];
    v.push(case("text 100k", true, vec![cmd_with(&["SET", "k"], [text(&mut rng, 100_000)])]));
    v.push(case("binary 10k", true, vec![cmd_with(&["SET", "k"], [noise(&mut rng, 10_000)])]));
    let mut nul = b"with\0nul\r\nand \xff bytes ".repeat(3);
    nul.extend_from_slice(b"tail");
    v.push(case("binary short", true, vec![cmd_with(&["SET", "k"], [nul])]));
    // Lists.
    v.push(case("list small", true, vec![cmd(&["RPUSH", "k", "a", "b", "c", "1", "2", "300"])]));
    let widths: Vec<Vec<u8>> = [
        "0",
        "127",
        "128",
        "-1",
        "-4096",
        "4095",
        "4096",
        "32767",
        "-32768",
        "8388607",
        "-8388608",
        "2147483647",
        "-2147483648",
        "9223372036854775807",
        "-9223372036854775808",
        "-0",
        "01",
        "1.5",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .chain([63, 64, 127, 4095, 4096, 5000].iter().map(|&n| vec![b'x'; n]))
    .collect();
    v.push(case("list widths", true, vec![cmd_with(&["RPUSH", "k"], widths.clone())]));
    v.push(case(
        "list long",
        true,
        vec![cmd_with(&["RPUSH", "k"], (0..20_000).map(|i| format!("element-{i}").into_bytes()))],
    ));
    v.push(case(
        "list ints",
        true,
        vec![cmd_with(&["RPUSH", "k"], (0..5000).map(|_| ((rng.next() as i64) - (1 << 30)).to_string().into_bytes()))],
    ));
    v.push(case("list big element", true, vec![cmd_with(&["RPUSH", "k"], [text(&mut rng, 20_000), b"x".to_vec()])]));
    v.push(case("list lpush", false, vec![cmd_with(&["LPUSH", "k"], (0..3000).map(|i| format!("e{i}").into_bytes()))]));
    // Sets.
    v.push(case("intset 16", true, vec![cmd(&["SADD", "k", "1", "2", "3", "-5"])]));
    v.push(case("intset 32", true, vec![cmd(&["SADD", "k", "1", "100000", "-3"])]));
    v.push(case("intset 64", true, vec![cmd(&["SADD", "k", "1", "9223372036854775807", "-9223372036854775808"])]));
    v.push(case(
        "intset 512",
        true,
        vec![cmd_with(&["SADD", "k"], (0..512).map(|i| (i * 7919).to_string().into_bytes()))],
    ));
    v.push(case("set 513 ints", false, vec![cmd_with(&["SADD", "k"], (0..513).map(|i| i.to_string().into_bytes()))]));
    v.push(case(
        "set strings",
        false,
        vec![cmd_with(&["SADD", "k"], (0..200).map(|i| format!("member:{i}").into_bytes()))],
    ));
    // Hashes.
    v.push(case("hash small", true, vec![cmd(&["HSET", "k", "f1", "v1", "f2", "v2", "n", "12", "neg", "-300"])]));
    v.push(case(
        "hash 64-byte values",
        true,
        vec![cmd_with(&["HSET", "k"], (0..100).flat_map(|i| [format!("field{i}").into_bytes(), vec![b'v'; 64]]))],
    ));
    v.push(case("hash 65-byte value", false, vec![cmd_with(&["HSET", "k", "a", "1", "b"], [vec![b'v'; 65]])]));
    v.push(case(
        "hash big",
        false,
        vec![cmd_with(
            &["HSET", "k"],
            (0..600).flat_map(|i| [format!("f{i}").into_bytes(), format!("value-{i}").into_bytes()]),
        )],
    ));
    // Sorted sets.
    v.push(case("zset small", true, vec![cmd(&["ZADD", "k", "1", "a", "2", "b", "2", "c"])]));
    v.push(case(
        "zset doubles",
        true,
        vec![cmd(&[
            "ZADD",
            "k",
            "1e17",
            "a",
            "-0",
            "b",
            "0.1",
            "c",
            "6e18",
            "d",
            "inf",
            "e",
            "-inf",
            "f",
            "1e-300",
            "g",
            "2.5e-320",
            "h",
            "4611686018427387904",
            "i",
            "-4611686018427387904",
            "j",
            "3.14159",
            "k",
            "-2",
            "l",
        ])],
    ));
    v.push(case(
        "zset skiplist",
        true,
        vec![cmd_with(
            &["ZADD", "k"],
            (0..1000).flat_map(|i| {
                [format!("{}", (i * 7919 % 1000) as f64 / 7.0 - 50.0).into_bytes(), format!("m{i}").into_bytes()]
            }),
        )],
    ));
    v.push(case(
        "zset skiplist doubles",
        true,
        vec![
            cmd_with(&["ZADD", "k"], (0..200).flat_map(|i| [i.to_string().into_bytes(), format!("m{i}").into_bytes()])),
            cmd(&["ZADD", "k", "inf", "top", "-inf", "bottom", "-0", "negzero", "0.1", "tenth", "6e18", "big"]),
        ],
    ));
    v.push(case("zset long member", true, vec![cmd_with(&["ZADD", "k", "1", "a", "2"], [vec![b'm'; 65]])]));
    // The config DUMP and RESTORE read.
    let long_list = || cmd_with(&["RPUSH", "k"], (0..6000).map(|i| format!("element-{}", i % 100).into_bytes()));
    let mut c = case("compress depth 1", true, vec![long_list()]);
    c.config = vec![("list-compress-depth", "1")];
    v.push(c);
    let mut c = case("compress depth 3", true, vec![long_list()]);
    c.config = vec![("list-compress-depth", "3")];
    v.push(c);
    let mut c = case("fill 5", true, vec![long_list()]);
    c.config = vec![("list-max-listpack-size", "5")];
    v.push(c);
    let mut c = case("fill -5", true, vec![long_list()]);
    c.config = vec![("list-max-listpack-size", "-5")];
    v.push(c);
    let mut c =
        case("rdbcompression no", true, vec![long_list(), cmd(&["SET", "s", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"])]);
    c.config = vec![("rdbcompression", "no")];
    v.push(c);
    // Encodings built under the default limits, restored under lower ones: rdbLoadObject converts.
    v.push(case(
        "limits lowered before RESTORE",
        true,
        vec![
            cmd_with(&["HSET", "k"], (0..100).flat_map(|i| [format!("f{i}").into_bytes(), b"v".to_vec()])),
            cmd(&["CONFIG", "SET", "hash-max-listpack-entries", "50"]),
        ],
    ));
    v.push(case(
        "zset limit lowered",
        true,
        vec![
            cmd_with(&["ZADD", "k"], (0..100).flat_map(|i| [i.to_string().into_bytes(), format!("m{i}").into_bytes()])),
            cmd(&["CONFIG", "SET", "zset-max-listpack-entries", "10"]),
        ],
    ));
    v.push(case(
        "intset limit lowered",
        true,
        vec![
            cmd_with(&["SADD", "k"], (0..100).map(|i| i.to_string().into_bytes())),
            cmd(&["CONFIG", "SET", "set-max-intset-entries", "10"]),
        ],
    ));
    v
}

#[test]
fn dump_and_restore_agree_with_a_live_server() {
    check_tools();
    let server = Server::start();
    let stream = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    stream.set_nodelay(true).ok();
    let start = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let mut engine = Engine::new(EngineOptions { seed: 7, start_ms: start });
    let client = engine.connect();
    let mut b = Both { conn: Conn { stream, buf: Vec::new() }, engine, client };
    let mut mismatched = Vec::new();
    let mut compared = 0;
    for c in cases() {
        b.both(&cmd(&["DEL", "k", "r1", "r2"]));
        for (name, value) in DEFAULTS.iter().chain(&c.config) {
            b.both(&cmd(&["CONFIG", "SET", name, value]));
        }
        for line in &c.build {
            b.both(line);
        }
        let dump = cmd(&["DUMP", "k"]);
        let (Reply::Bulk(theirs), Reply::Bulk(ours)) = (b.redis(&dump), b.ours(&dump)) else {
            panic!("{}: DUMP did not answer a payload", c.name);
        };
        if c.bytes {
            compared += 1;
            if theirs != ours {
                mismatched.push(format!(
                    "{}: DUMP differs (redis {} bytes, ours {} bytes; first difference at {})",
                    c.name,
                    theirs.len(),
                    ours.len(),
                    theirs.iter().zip(&ours).position(|(a, b)| a != b).unwrap_or(theirs.len().min(ours.len()))
                ));
            }
        }
        // Redis's payload (r1) and ours (r2) restored on both sides read back alike, and hold
        // the original value (RESTORE may pick another encoding than the commands did: an
        // APPENDed raw string comes back embstr).
        assert_eq!(b.both(&cmd_with(&["RESTORE", "r1", "0"], [theirs.clone()])), Reply::ok(), "{}", c.name);
        assert_eq!(b.both(&cmd_with(&["RESTORE", "r2", "0"], [ours.clone()])), Reply::ok(), "{}", c.name);
        let original = view(&mut |a| b.redis(a), b"k");
        // The value without its encoding, a hash's pairs in any order.
        let content = |mut v: Vec<Reply>| {
            v.remove(1);
            if v[0] == Reply::Status("hash".into()) {
                if let Some(Reply::Array(items)) = v.pop() {
                    let mut p: Vec<String> = items.chunks(2).map(|c| format!("{c:?}")).collect();
                    p.sort();
                    v.push(Reply::Array(p.into_iter().map(|s| Reply::Bulk(s.into_bytes())).collect()));
                }
            }
            v
        };
        assert_eq!(view(&mut |a| b.ours(a), b"k"), original, "{}: the engine's own value", c.name);
        for key in [&b"r1"[..], b"r2"] {
            let there = view(&mut |a| b.redis(a), key);
            assert_eq!(view(&mut |a| b.ours(a), key), there, "{}: {} restored", c.name, String::from_utf8_lossy(key));
            assert_eq!(
                content(there),
                content(original.clone()),
                "{}: {} holds the value",
                c.name,
                String::from_utf8_lossy(key)
            );
        }
        // And each DUMPs again to the same bytes on both sides (unless it came back a hashtable).
        if c.bytes {
            for key in ["r1", "r2"] {
                if b.redis(&cmd(&["OBJECT", "ENCODING", key])) != Reply::Bulk(b"hashtable".to_vec()) {
                    b.both(&cmd(&["DUMP", key]));
                }
            }
        }
    }
    assert!(mismatched.is_empty(), "{} of {compared} payloads differ:\n{}", mismatched.len(), mismatched.join("\n"));
}

#[test]
fn restore_options_agree_with_a_live_server() {
    check_tools();
    let server = Server::start();
    let stream = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    let start = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let mut engine = Engine::new(EngineOptions { seed: 7, start_ms: start });
    let client = engine.connect();
    let mut b = Both { conn: Conn { stream, buf: Vec::new() }, engine, client };
    b.both(&cmd(&["SET", "src", "value"]));
    let Reply::Bulk(p) = b.redis(&cmd(&["DUMP", "src"])) else { panic!("DUMP") };
    let restore = |key: &str, ttl: &str, opts: &[&str]| {
        let mut a = cmd(&["RESTORE", key, ttl]);
        a.push(p.clone());
        a.extend(cmd(opts));
        a
    };
    let within = |a: Reply, b: Reply, tol: i64| match (&a, &b) {
        (Reply::Integer(x), Reply::Integer(y)) => assert!((x - y).abs() <= tol, "{x} vs {y}"),
        _ => assert_eq!(a, b),
    };
    // TTLs: relative, absolute, past, overflowing.
    b.both(&restore("t1", "100000", &[]));
    let (r, o) = (b.redis(&cmd(&["PTTL", "t1"])), b.ours(&cmd(&["PTTL", "t1"])));
    within(r, o, 2000);
    let abs = (start + 500_000).to_string();
    b.both(&restore("t2", &abs, &["ABSTTL"]));
    let (r, o) = (b.redis(&cmd(&["PTTL", "t2"])), b.ours(&cmd(&["PTTL", "t2"])));
    within(r, o, 2000);
    b.both(&restore("t3", "1", &["ABSTTL"]));
    b.both(&cmd(&["EXISTS", "t3"]));
    b.both(&restore("t4", "9223372036854775807", &[]));
    b.both(&cmd(&["EXISTS", "t4"]));
    b.both(&restore("src", "1", &["REPLACE", "ABSTTL"]));
    b.both(&cmd(&["EXISTS", "src"]));
    // IDLETIME under the default (LRU-field) policy, including values past the 24-bit clock.
    for idle in ["0", "1000", "8000000", "16777214", "16777215", "100000000", "9223372036854775", "9223372036854775807"]
    {
        b.both(&restore("i", "0", &["REPLACE", "IDLETIME", idle]));
        let (r, o) = (b.redis(&cmd(&["OBJECT", "IDLETIME", "i"])), b.ours(&cmd(&["OBJECT", "IDLETIME", "i"])));
        within(r, o, 2);
    }
    b.both(&restore("f", "0", &["FREQ", "100"]));
    b.both(&cmd(&["OBJECT", "FREQ", "f"]));
    // FREQ under an LFU policy; IDLETIME is then ignored.
    b.both(&cmd(&["CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"]));
    b.both(&restore("f", "0", &["REPLACE", "FREQ", "100"]));
    b.both(&cmd(&["OBJECT", "FREQ", "f"]));
    b.both(&restore("f", "0", &["REPLACE", "IDLETIME", "100"]));
    b.both(&cmd(&["OBJECT", "FREQ", "f"]));
    b.both(&cmd(&["CONFIG", "SET", "maxmemory-policy", "noeviction"]));
    // Writes counted (INFO rdb_changes_since_last_save): one per key restored, one for a REPLACE
    // that only deleted, none for a refusal, a DUMP or a TTL in the past with nothing to replace.
    let dirty = |r: Reply| -> i64 {
        let Reply::Bulk(text) = r else { panic!("INFO") };
        let text = String::from_utf8_lossy(&text).into_owned();
        text.lines().find_map(|l| l.strip_prefix("rdb_changes_since_last_save:")).unwrap().trim().parse().unwrap()
    };
    let info = cmd(&["INFO", "persistence"]);
    let (r0, o0) = (dirty(b.redis(&info)), dirty(b.ours(&info)));
    b.both(&restore("d1", "0", &[]));
    b.both(&restore("d1", "0", &[]));
    b.both(&restore("d1", "0", &["REPLACE"]));
    b.both(&restore("d1", "1", &["REPLACE", "ABSTTL"]));
    b.both(&restore("d2", "1", &["ABSTTL"]));
    b.both(&cmd(&["DUMP", "t1"]));
    b.both(&cmd_with(&["RESTORE", "d3", "0"], [b"garbage".to_vec()]));
    let (r1, o1) = (dirty(b.redis(&info)), dirty(b.ours(&info)));
    assert_eq!((o1 - o0, r1 - r0), (3, 3), "writes counted (engine, redis)");
}

/// Ports redis 7.0's tests/integration/corrupt-dump-fuzzer.tcl as a differential: payloads of
/// every type with bytes flipped, cut or inserted (and a valid CRC, as a crafted payload would
/// have) are RESTOREd on both sides under `sanitize-dump-payload yes`. Both must accept or refuse
/// alike — except a listpack sorted set out of order or with a NaN score, which 7.0 keeps and the
/// engine refuses (persist/rdb_load.rs), and a stream type byte, which the engine answers with its
/// "no stream type yet" error — and what both accept must read back alike. Redis must stay up.
#[test]
fn mutated_payloads_are_refused_as_redis_refuses_them() {
    check_tools();
    let server = Server::start();
    let stream = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    let start = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let mut engine = Engine::new(EngineOptions { seed: 7, start_ms: start });
    let client = engine.connect();
    let mut b = Both { conn: Conn { stream, buf: Vec::new() }, engine, client };
    b.both(&cmd(&["CONFIG", "SET", "sanitize-dump-payload", "yes"]));
    // Seeds: one key per type and encoding, DUMPed by redis.
    let seeds: Vec<Vec<Vec<u8>>> = vec![
        cmd(&["SET", "k", "abcabcabcabcabcabcabcabcabcabc"]),
        cmd(&["SET", "k", "12345"]),
        cmd(&["RPUSH", "k", "a", "1", "-300", "70000", "hello world", "5000000000"]),
        cmd_with(&["RPUSH", "k"], (0..300).map(|i| format!("item-{i}").into_bytes())),
        cmd(&["SADD", "k", "1", "2", "-3", "100000"]),
        cmd(&["SADD", "k", "a", "b", "c"]),
        cmd(&["HSET", "k", "f", "v", "n", "12", "g", "ww"]),
        cmd_with(&["HSET", "k"], (0..600).flat_map(|i| [format!("f{i}").into_bytes(), b"v".to_vec()])),
        cmd(&["ZADD", "k", "1", "a", "2.5", "b", "-3", "c", "inf", "d"]),
        cmd_with(&["ZADD", "k"], (0..200).flat_map(|i| [format!("{i}.5").into_bytes(), format!("m{i}").into_bytes()])),
    ];
    let mut payloads = Vec::new();
    for s in &seeds {
        b.both(&cmd(&["DEL", "k"]));
        b.both(s);
        let Reply::Bulk(p) = b.redis(&cmd(&["DUMP", "k"])) else { panic!("DUMP") };
        payloads.push(p);
    }
    let mut rng = Rng(0x5eed);
    let (mut accepted, mut refused, mut deviations) = (0, 0, 0);
    let mut failures = Vec::new();
    for round in 0..3000 {
        let base = &payloads[(rng.next() % payloads.len() as u64) as usize];
        let mut body = base[..base.len() - 10].to_vec();
        match round % 3 {
            0 => {
                for _ in 0..1 + rng.next() % 3 {
                    let i = (rng.next() % body.len() as u64) as usize;
                    body[i] = rng.next() as u8;
                }
            }
            1 => body.truncate((rng.next() % body.len() as u64) as usize),
            _ => {
                let i = (rng.next() % (body.len() as u64 + 1)) as usize;
                let junk: Vec<u8> = (0..1 + rng.next() % 4).map(|_| rng.next() as u8).collect();
                body.splice(i..i, junk);
            }
        }
        body.extend_from_slice(&10u16.to_le_bytes());
        let crc = redisplay::persist::crc64::crc64(0, &body);
        body.extend_from_slice(&crc.to_le_bytes());
        let restore = cmd_with(&["RESTORE", "f", "0"], [body.clone()]);
        let (theirs, ours) = (b.redis(&restore), b.ours(&restore));
        assert_eq!(b.redis(&cmd(&["PING"])), Reply::Status("PONG".into()), "redis-server survived");
        if theirs == ours {
            if theirs == Reply::ok() {
                accepted += 1;
                let there = view(&mut |a| b.redis(a), b"f");
                let here = view(&mut |a| b.ours(a), b"f");
                if there != here {
                    failures
                        .push(format!("round {round}: restored values differ\n  redis {there:?}\n  ours  {here:?}"));
                }
                b.both(&cmd(&["DEL", "f"]));
            } else {
                refused += 1;
            }
            continue;
        }
        let zset_listpack = theirs == Reply::ok()
            && b.redis(&cmd(&["OBJECT", "ENCODING", "f"])) == Reply::Bulk(b"listpack".to_vec())
            && b.redis(&cmd(&["TYPE", "f"])) == Reply::Status("zset".into());
        // A stream type byte: the engine has no stream type yet and says so, valid or not.
        let stream = matches!(body[0], 15 | 19) && matches!(&ours, Reply::Error(e) if e.starts_with(b"ERR playground"));
        if (zset_listpack && ours == Reply::err("ERR Bad data format")) || stream {
            deviations += 1;
        } else {
            failures.push(format!("round {round}: redis {theirs:?}, ours {ours:?}, payload {body:?}"));
        }
        b.redis(&cmd(&["DEL", "f"]));
        b.ours(&cmd(&["DEL", "f"]));
    }
    eprintln!("mutated payloads: {accepted} accepted, {refused} refused alike, {deviations} documented differences");
    assert!(accepted > 50 && refused > 1000, "the mutations exercise both outcomes");
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures[..failures.len().min(10)].join("\n"));
}
