//! The AOF rewrite (src/persist/aof.rs) side by side with redis-server 7.0.15's: the same
//! dataset on both, then the real server turns AOF on with `aof-use-rdb-preamble no` and
//! writes its base file, which must equal ours command for command — key by key, since keys
//! come in each server's own order. Absolute times (stream IDs from `*`, TTLs, delivery
//! times) come from each side's clock: the scenario sets them explicitly.

#[path = "support/live_server.rs"]
mod live_server;

use std::time::{Duration, Instant};

use live_server::{check_tools, Server};
use redisplay::persist::aof;
use redisplay::reply::parse_resp;
use redisplay::{Engine, EngineOptions, Reply};

/// The commands of an AOF, cut into the SELECTs and, per db, runs of commands about one key
/// (sorted, so that key order doesn't matter).
fn chunks(aof: &[u8]) -> Vec<Vec<Vec<Vec<u8>>>> {
    let mut rest = aof;
    let mut cmds = Vec::new();
    while let Some((reply, used)) = parse_resp(rest) {
        rest = &rest[used..];
        let Reply::Array(items) = reply else { panic!("not a command: {reply:?}") };
        cmds.push(
            items.into_iter().map(|i| if let Reply::Bulk(b) = i { b } else { panic!("{i:?}") }).collect::<Vec<_>>(),
        );
    }
    assert!(rest.is_empty(), "trailing bytes: {:?}", String::from_utf8_lossy(rest));
    let key_of = |c: &Vec<Vec<u8>>| -> Vec<u8> {
        match c[0].as_slice() {
            b"XGROUP" => c[2].clone(),
            b"SELECT" => b"\0select".to_vec(),
            _ => c.get(1).cloned().unwrap_or_default(),
        }
    };
    let mut out: Vec<Vec<Vec<Vec<u8>>>> = Vec::new();
    for c in cmds {
        match out.last_mut() {
            Some(last) if key_of(&last[0]) == key_of(&c) && c[0] != b"SELECT" && c[0] != b"FUNCTION" => last.push(c),
            _ => out.push(vec![c]),
        }
    }
    // Sort the key chunks between two SELECTs.
    let mut sorted = Vec::new();
    let mut group: Vec<Vec<Vec<Vec<u8>>>> = Vec::new();
    for ch in out {
        if ch[0][0] == b"SELECT" {
            group.sort();
            sorted.append(&mut group);
            sorted.push(ch);
        } else {
            group.push(ch);
        }
    }
    group.sort();
    sorted.append(&mut group);
    sorted
}

const DATASET: &[&str] = &[
    "SET s1 hello",
    "SET s2 12345",
    "SET s3 -9223372036854775808",
    "SET ttl v PXAT 99999999999999",
    "RPUSH l a 1 b 2 c",
    "SADD si 3 1 2",
    "ZADD z 1 a 2.5 b -3 c 1e300 d",
    "ZADD zinf inf a -inf b 0.1 c",
    "HSET h f1 v1 f2 2",
    "XADD st 1-1 f v g 7",
    "XADD st 2-0 f v2",
    "XADD st 3-3 x y",
    "XDEL st 2-0",
    "XGROUP CREATE st g1 0",
    "XGROUP CREATE st g2 $",
    "XCLAIM st g1 alice 0 1-1 TIME 1700000000000 RETRYCOUNT 3 FORCE JUSTID",
    "XCLAIM st g1 alice 0 3-3 TIME 1700000000001 RETRYCOUNT 1 FORCE JUSTID",
    "XGROUP CREATECONSUMER st g1 bob",
    "XADD empty MAXLEN 0 5-5 x y",
    "SELECT 3",
    "RPUSH big 0",
    "SELECT 0",
    "FUNCTION LOAD \"#!lua name=lib1\\nredis.register_function('f1', function() return 1 end)\"",
];

#[test]
fn our_aof_rewrite_matches_redis_servers_base_file() {
    check_tools();
    let server = Server::start();
    let mut r = server.connect();
    // After the delivery TIMEs below (XCLAIM clamps a TIME in the future to now).
    let mut e = Engine::new(EngineOptions { seed: 2, start_ms: 1_800_000_000_000 });
    let c = e.connect();
    let mut lines: Vec<String> = DATASET.iter().map(|s| s.to_string()).collect();
    // A list of 130 items: three RPUSHes of at most 64.
    lines.insert(
        lines.len() - 2,
        format!("RPUSH big {}", (1..130).map(|i| i.to_string()).collect::<Vec<_>>().join(" ")),
    );
    for line in &lines {
        let argv = redisplay::tokenize::split_args(line.as_bytes()).expect("a dataset line");
        let words: Vec<String> = argv.iter().map(|a| String::from_utf8_lossy(a).into_owned()).collect();
        let args: Vec<&str> = words.iter().map(String::as_str).collect();
        let live = r.call(&args);
        let ours = e.execute(c, &argv);
        assert!(!live.starts_with("ERR") && !ours.is_error(), "{line}: {live} / {ours:?}");
    }
    r.call(&["CONFIG", "SET", "aof-use-rdb-preamble", "no"]);
    r.call(&["CONFIG", "SET", "appendonly", "yes"]);
    let base = server.dir().join("appendonlydir").join("appendonly.aof.1.base.aof");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let info = r.call(&["INFO", "persistence"]);
        let done = info.contains("aof_rewrite_in_progress:0")
            && info.contains("aof_rewrite_scheduled:0")
            && info.contains("aof_enabled:1");
        if done && base.exists() {
            break;
        }
        assert!(Instant::now() < deadline, "redis-server did not write its base AOF: {info}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let theirs = std::fs::read(&base).expect("the base AOF");
    let ours = e.aof_rewrite();
    let (t, o) = (chunks(&theirs), chunks(&ours));
    let show = |c: &Vec<Vec<Vec<Vec<u8>>>>| -> String {
        c.iter()
            .flat_map(|ch| {
                ch.iter().map(|cmd| {
                    cmd.iter().map(|a| String::from_utf8_lossy(a).into_owned()).collect::<Vec<_>>().join(" ")
                })
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(show(&t), show(&o));
    // Byte for byte where order can't differ: db 3, the last, holds one key.
    let one_key = |aof: &[u8]| -> Vec<u8> {
        let select3 = b"*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n";
        let at = aof.windows(select3.len()).position(|w| w == select3).expect("db 3");
        aof[at..].to_vec()
    };
    assert_eq!(one_key(&theirs), one_key(&ours), "db 3 (one list of 130 items) byte for byte");
    // The real server's files read back: every command whole; its manifest as ours writes it.
    let read = aof::read_commands(&theirs, 1 << 30);
    assert_eq!(read.end, aof::AofEnd::Complete);
    assert_eq!(read.commands.len(), aof::read_commands(&ours, 1 << 30).commands.len());
    let manifest = std::fs::read(server.dir().join("appendonlydir").join("appendonly.aof.manifest")).unwrap();
    let files = aof::parse_manifest(&manifest).expect("redis-server's manifest");
    assert_eq!(files.iter().map(|f| f.kind).collect::<Vec<_>>(), [b'b', b'i']);
    assert_eq!(aof::format_manifest(&files), manifest);
}
