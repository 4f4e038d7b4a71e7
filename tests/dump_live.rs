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
//! - RESTORE's options (TTL, ABSTTL, IDLETIME under LRU, FREQ under LFU, REPLACE) read back alike;
//! - streams (nodes split by entries and bytes, deletions, trims, XSETID, groups, consumers,
//!   PELs) DUMP to the server's bytes but for the wall-clock times; our payload restores on the
//!   server to the same stream, and the server's restores here to exactly what it restores to
//!   there (XINFO STREAM FULL with its times, XRANGE, MEMORY USAGE, DUMP again, and the same
//!   commands going on from it);
//! - mutated payloads of every type, streams included, are refused or accepted alike.
//!
//! The DUMPs run in the same order on both sides, one session each, so LZF's carried-over hash
//! table (persist/lzf.rs) is exercised as a server's is. redis-server is required: without it
//! this test fails (run scripts/test.sh, which installs it).

#[path = "support/live_server.rs"]
mod live_server;

use live_server::{check_tools, Conn, Server};
use redisplay::reply::parse_resp;
use redisplay::{ClientId, Engine, EngineOptions, Reply};

struct Both {
    conn: Conn,
    engine: Engine,
    client: ClientId,
}

impl Both {
    /// A connection to `server` and an engine whose clock starts at the wall clock's time.
    fn new(server: &Server) -> Both {
        let start = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
        let mut engine = Engine::new(EngineOptions { seed: 7, start_ms: start });
        let client = engine.connect();
        Both { conn: Conn::open(server.port()), engine, client }
    }
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
        "stream" => {
            out.push(run(&argv(&[b"XLEN", key])));
            out.push(run(&argv(&[b"XRANGE", key, b"-", b"+"])));
            out.push(run(&argv(&[b"XREVRANGE", key, b"+", b"-"])));
            out.push(run(&argv(&[b"XINFO", b"STREAM", key, b"FULL"])));
            out.push(run(&argv(&[b"MEMORY", b"USAGE", key])));
        }
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
    let mut b = Both::new(&server);
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
    let mut b = Both::new(&server);
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
    let abs = (b.engine.now_ms() + 500_000).to_string();
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
/// alike — except a listpack sorted set out of order or with a NaN score, and a stream whose
/// nodes' counters disagree with their entries' deleted flags, which 7.0 keeps and the engine
/// refuses (persist/rdb_load.rs) — and what both accept must read back alike. Redis must stay up.
#[test]
fn mutated_payloads_are_refused_as_redis_refuses_them() {
    check_tools();
    let server = Server::start();
    let mut b = Both::new(&server);
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
        cmd(&["XADD", "k", "1-1", "f", "v", "n", "12"]),
        cmd_with(&["XADD", "k", "2-1"], (0..4).flat_map(|i| [format!("f{i}").into_bytes(), b"-300".to_vec()])),
    ];
    let mut payloads = Vec::new();
    for s in &seeds {
        if s[0] != b"XADD" || s[2] == b"1-1" {
            b.both(&cmd(&["DEL", "k"]));
        }
        b.both(s);
        let Reply::Bulk(p) = b.redis(&cmd(&["DUMP", "k"])) else { panic!("DUMP") };
        payloads.push(p);
    }
    // A stream of several nodes, deletions, a group with a PEL and consumers.
    b.both(&cmd(&["DEL", "k"]));
    b.both(&cmd(&["CONFIG", "SET", "stream-node-max-entries", "4"]));
    for i in 1..=12 {
        let v = i.to_string();
        let f = if i % 5 == 0 { "other" } else { "f" };
        b.both(&cmd(&["XADD", "k", &format!("{i}-{}", i % 2), f, &v]));
    }
    for c in [
        &["XDEL", "k", "3-1", "7-1"][..],
        &["XGROUP", "CREATE", "k", "g", "0"],
        &["XREADGROUP", "GROUP", "g", "a", "COUNT", "3", "STREAMS", "k", ">"],
        &["XREADGROUP", "GROUP", "g", "b", "COUNT", "2", "STREAMS", "k", ">"],
        &["XGROUP", "CREATECONSUMER", "k", "g", "c"],
        &["CONFIG", "SET", "stream-node-max-entries", "100"],
    ] {
        b.redis(&cmd(c));
    }
    let Reply::Bulk(p) = b.redis(&cmd(&["DUMP", "k"])) else { panic!("DUMP") };
    payloads.push(p);
    let mut rng = Rng(0x5eed);
    let (mut accepted, mut refused, mut deviations) = (0, 0, 0);
    let (mut streams_accepted, mut stream_deviations) = (0, 0);
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
                streams_accepted += matches!(body[0], 15 | 19) as usize;
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
        // A stream Redis keeps with a node whose live count disagrees with its entries' deleted
        // flags shows it: its XLEN is not the number of entries XRANGE walks.
        let stream_counters = theirs == Reply::ok()
            && b.redis(&cmd(&["TYPE", "f"])) == Reply::Status("stream".into())
            && match (b.redis(&cmd(&["XLEN", "f"])), b.redis(&cmd(&["XRANGE", "f", "-", "+"]))) {
                (Reply::Integer(n), Reply::Array(a)) => n as usize != a.len(),
                _ => false,
            };
        if (zset_listpack || stream_counters) && ours == Reply::err("ERR Bad data format") {
            deviations += 1;
            stream_deviations += stream_counters as usize;
        } else {
            failures.push(format!("round {round}: redis {theirs:?}, ours {ours:?}, payload {body:?}"));
        }
        b.redis(&cmd(&["DEL", "f"]));
        b.ours(&cmd(&["DEL", "f"]));
    }
    eprintln!(
        "mutated payloads: {accepted} accepted ({streams_accepted} streams), {refused} refused alike, {deviations} documented differences ({stream_deviations} streams)"
    );
    assert!(accepted > 50 && refused > 1000, "the mutations exercise both outcomes");
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures[..failures.len().min(10)].join("\n"));
}

/// The byte ranges of a stream payload (RDB_TYPE_STREAM_LISTPACKS_2, rdb.c `rdbSaveObject()`)
/// that hold wall-clock times — a pending entry's delivery time and a consumer's seen time,
/// 8 bytes each — which the engine's clock and the server's cannot share. None if the payload
/// does not parse as a stream.
fn stream_time_fields(p: &[u8]) -> Option<Vec<std::ops::Range<usize>>> {
    let mut at = 1;
    let len = |at: &mut usize| -> Option<u64> {
        let b = *p.get(*at)?;
        *at += 1;
        Some(match b >> 6 {
            0 => (b & 0x3f) as u64,
            1 => {
                *at += 1;
                ((b & 0x3f) as u64) << 8 | *p.get(*at - 1)? as u64
            }
            2 if b == 0x80 => {
                *at += 4;
                u32::from_be_bytes(p.get(*at - 4..*at)?.try_into().ok()?) as u64
            }
            2 if b == 0x81 => {
                *at += 8;
                u64::from_be_bytes(p.get(*at - 8..*at)?.try_into().ok()?)
            }
            _ => return None,
        })
    };
    let string = |at: &mut usize| -> Option<()> {
        let b = *p.get(*at)?;
        if b >> 6 == 3 {
            *at += 1;
            match b & 0x3f {
                0 => *at += 1,
                1 => *at += 2,
                2 => *at += 4,
                3 => {
                    let clen = len(at)?;
                    len(at)?;
                    *at += clen as usize;
                }
                _ => return None,
            }
        } else {
            let n = len(at)?;
            *at += n as usize;
        }
        Some(())
    };
    let mut times = Vec::new();
    for _ in 0..len(&mut at)? {
        string(&mut at)?;
        string(&mut at)?;
    }
    for _ in 0..8 {
        len(&mut at)?;
    }
    for _ in 0..len(&mut at)? {
        string(&mut at)?;
        for _ in 0..3 {
            len(&mut at)?;
        }
        for _ in 0..len(&mut at)? {
            at += 16;
            times.push(at..at + 8);
            at += 8;
            len(&mut at)?;
        }
        for _ in 0..len(&mut at)? {
            string(&mut at)?;
            times.push(at..at + 8);
            at += 8;
            at += 16 * len(&mut at)? as usize;
        }
    }
    (at + 10 == p.len()).then_some(times)
}

/// A stream case: its name, the config it needs, the commands that build `k`.
type StreamCase = (&'static str, Vec<(&'static str, &'static str)>, Vec<Vec<Vec<u8>>>);

/// Streams: the same commands (explicit IDs only) build the stream on the server and in the
/// engine; the DUMP payloads must be byte-identical but for the wall-clock times of pending
/// entries and consumers (and so the CRC); the engine's payload RESTOREd on the server must
/// read back as the original there (XINFO STREAM FULL, XRANGE) and DUMP to the server's bytes.
#[test]
fn stream_dumps_agree_with_a_live_server() {
    check_tools();
    let server = Server::start();
    let mut b = Both::new(&server);
    let xadd = |id: String, fields: &[(&str, String)]| {
        let mut a = cmd(&["XADD", "k", &id]);
        for (f, v) in fields {
            a.push(f.as_bytes().to_vec());
            a.push(v.as_bytes().to_vec());
        }
        a
    };
    let many = |n: usize| (1..=n).map(|i| xadd(format!("{i}-1"), &[("field", i.to_string())])).collect::<Vec<_>>();
    let mut cases: Vec<StreamCase> = vec![
        ("one entry", vec![], vec![cmd(&["XADD", "k", "1-1", "f", "v"])]),
        ("empty after XDEL", vec![], vec![cmd(&["XADD", "k", "5-5", "f", "v"]), cmd(&["XDEL", "k", "5-5"])]),
        ("empty by MKSTREAM", vec![], vec![cmd(&["XGROUP", "CREATE", "k", "g", "$", "MKSTREAM"])]),
        ("many nodes", vec![], many(1000)),
        (
            "fields differ, values of every width",
            vec![],
            vec![
                cmd(&["XADD", "k", "1-0", "a", "1", "b", "-4096", "c", "x"]),
                cmd(&["XADD", "k", "1-1", "a", "2", "b", "32768", "c", "9223372036854775807"]),
                cmd(&[
                    "XADD",
                    "k",
                    "2-0",
                    "other",
                    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                ]),
                cmd(&["XADD", "k", "18446744073709551615-0", "a", "01", "b", "-0", "c", "1.5"]),
            ],
        ),
        ("node by bytes", vec![("stream-node-max-bytes", "200")], many(300)),
        ("node by entries", vec![("stream-node-max-entries", "7")], many(100)),
        (
            "deleted and trimmed",
            vec![],
            [many(500), vec![cmd(&["XDEL", "k", "3-1", "250-1", "499-1"]), cmd(&["XTRIM", "k", "MAXLEN", "300"])]]
                .concat(),
        ),
        (
            "XSETID",
            vec![],
            vec![
                cmd(&["XADD", "k", "1-1", "f", "v"]),
                cmd(&["XSETID", "k", "99-3", "ENTRIESADDED", "50", "MAXDELETEDID", "7-7"]),
            ],
        ),
        (
            "groups without consumers",
            vec![],
            [
                many(20),
                vec![
                    cmd(&["XGROUP", "CREATE", "k", "g2", "0"]),
                    cmd(&["XGROUP", "CREATE", "k", "g1", "$"]),
                    cmd(&["XGROUP", "CREATE", "k", "a", "5-1", "ENTRIESREAD", "3"]),
                ],
            ]
            .concat(),
        ),
        (
            "groups, consumers and PELs",
            vec![],
            [
                many(120),
                vec![
                    cmd(&["XGROUP", "CREATE", "k", "g", "0"]),
                    cmd(&["XGROUP", "CREATE", "k", "h", "0"]),
                    cmd(&["XREADGROUP", "GROUP", "g", "alice", "COUNT", "70", "STREAMS", "k", ">"]),
                    cmd(&["XREADGROUP", "GROUP", "g", "bob", "COUNT", "20", "STREAMS", "k", ">"]),
                    cmd(&["XREADGROUP", "GROUP", "h", "carol", "NOACK", "COUNT", "5", "STREAMS", "k", ">"]),
                    cmd(&["XGROUP", "CREATECONSUMER", "k", "g", "idle"]),
                    cmd(&["XACK", "k", "g", "1-1", "2-1", "50-1"]),
                    cmd(&["XCLAIM", "k", "g", "bob", "0", "3-1", "4-1", "RETRYCOUNT", "300"]),
                ],
            ]
            .concat(),
        ),
    ];
    let mut mismatched = Vec::new();
    for (name, config, build) in cases.drain(..) {
        b.both(&cmd(&["FLUSHALL"]));
        for (k, v) in DEFAULTS.iter().chain(&[("stream-node-max-bytes", "4096"), ("stream-node-max-entries", "100")]) {
            b.both(&cmd(&["CONFIG", "SET", k, v]));
        }
        for (k, v) in &config {
            b.both(&cmd(&["CONFIG", "SET", k, v]));
        }
        for line in &build {
            b.both(line);
        }
        let dump = cmd(&["DUMP", "k"]);
        let (Reply::Bulk(theirs), Reply::Bulk(ours)) = (b.redis(&dump), b.ours(&dump)) else {
            panic!("{name}: DUMP did not answer a payload");
        };
        let times = stream_time_fields(&theirs).unwrap_or_else(|| panic!("{name}: the server's payload did not parse"));
        assert_eq!(stream_time_fields(&ours), Some(times.clone()), "{name}: our payload's layout");
        let masked = |p: &[u8]| {
            let mut p = p[..p.len() - 8].to_vec();
            for r in &times {
                p[r.clone()].fill(0);
            }
            p
        };
        if masked(&theirs) != masked(&ours) {
            let (t, o) = (masked(&theirs), masked(&ours));
            let at = t.iter().zip(&o).position(|(a, b)| a != b).unwrap_or(t.len().min(o.len()));
            mismatched.push(format!("{name}: DUMP differs (redis {} bytes, ours {}; first at {at})", t.len(), o.len()));
            continue;
        }
        // Our payload restored on the server reads back as the original there.
        assert_eq!(b.redis(&cmd_with(&["RESTORE", "r", "0"], [ours.clone()])), Reply::ok(), "{name}: RESTORE of ours");
        let full = |b: &mut Both, key: &str| {
            // Seen and delivery times differ by when each was restored: only the shape counts.
            let r = b.redis(&cmd(&["XINFO", "STREAM", key, "FULL"]));
            let mut s = format!("{r:?}");
            s.retain(|c| !c.is_ascii_digit());
            (s, b.redis(&cmd(&["XRANGE", key, "-", "+"])), b.redis(&cmd(&["XLEN", key])))
        };
        assert_eq!(full(&mut b, "r"), full(&mut b, "k"), "{name}: our payload restored on the server");
        let Reply::Bulk(again) = b.redis(&cmd(&["DUMP", "r"])) else { panic!("{name}: DUMP r") };
        assert_eq!(masked(&again), masked(&theirs), "{name}: the server dumps our restored payload the same");
        // The server's payload restored on both sides reads back the same, times included (they
        // come from the payload), DUMPs to the same bytes and goes on alike.
        assert_eq!(
            b.both(&cmd_with(&["RESTORE", "t", "0"], [theirs.clone()])),
            Reply::ok(),
            "{name}: RESTORE of theirs"
        );
        for c in [
            &["XINFO", "STREAM", "t", "FULL"][..],
            &["XRANGE", "t", "-", "+"],
            &["XREVRANGE", "t", "+", "-", "COUNT", "5"],
            &["XLEN", "t"],
            &["XINFO", "GROUPS", "t"],
            &["XPENDING", "t", "g"],
            &["OBJECT", "ENCODING", "t"],
            &["MEMORY", "USAGE", "t"],
            &["MEMORY", "USAGE", "t", "SAMPLES", "0"],
            &["DUMP", "t"],
            &["XADD", "t", "18446744073709551615-*", "f", "v"],
            &["XADD", "t", "1-1", "f", "v"],
            &["XDEL", "t", "3-1", "4-1", "60-1"],
            &["XTRIM", "t", "MINID", "50"],
            &["XREADGROUP", "GROUP", "g", "new", "COUNT", "3", "STREAMS", "t", ">"],
            &["XACK", "t", "g", "6-1", "7-1", "70-1"],
            &["XINFO", "GROUPS", "t"],
            &["XPENDING", "t", "g"],
            &["XTRIM", "t", "MAXLEN", "=", "3"],
            &["XRANGE", "t", "-", "+"],
            &["XINFO", "STREAM", "t"],
            &["MEMORY", "USAGE", "t"],
        ] {
            b.both(&cmd(c));
        }
        assert_eq!(b.both(&cmd(&["DEL", "t"])), Reply::Integer(1));
    }
    assert!(mismatched.is_empty(), "{}", mismatched.join("\n"));
}
