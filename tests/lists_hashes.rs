//! Lists and hashes through the engine (src/command/list.rs, src/command/hash.rs): what the
//! golden transcripts can't show — HRANDFIELD with a count smaller than the hash (Redis picks
//! at random: checked by size, distinctness, membership and field/value pairing), the seed's
//! determinism, the playground's limit on a huge negative count, HSCAN's cursor over a
//! hashtable (every field present for the whole scan comes back, whatever the COUNT and the
//! deletes in between), and the keyspace events each command fires.

mod common;

use std::collections::{HashMap, HashSet};

use common::engine::{engine, run};
use redisplay::{ClientId, Engine, Event, Reply};

fn bulks(r: &Reply) -> Vec<String> {
    // As a RESP2 client sees it (WITHVALUES pairs flat).
    match &r.clone().into_resp2() {
        Reply::Array(items) => items
            .iter()
            .map(|i| match i {
                Reply::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
                other => panic!("not a bulk: {other:?}"),
            })
            .collect(),
        other => panic!("not an array: {other:?}"),
    }
}

fn keyspace_events(e: &mut Engine) -> Vec<String> {
    e.drain_events()
        .0
        .into_iter()
        .filter_map(|ev| match ev {
            Event::Keyspace { event, key, .. } if event != "keymiss" => Some(format!("{event} {key}")),
            _ => None,
        })
        .collect()
}

/// A hash `h` of `n` fields `f<i>` = `v<i>`: a listpack up to 512 fields, else (or with an extra
/// 65-byte value) a hashtable.
fn make_hash(e: &mut Engine, c: ClientId, n: usize, hashtable: bool) -> HashMap<String, String> {
    let mut fields = HashMap::new();
    let mut line = String::from("HSET h");
    for i in 0..n {
        line.push_str(&format!(" f{i} v{i}"));
        fields.insert(format!("f{i}"), format!("v{i}"));
    }
    if hashtable {
        let long = "x".repeat(65);
        line.push_str(&format!(" long {long}"));
        fields.insert("long".into(), long);
    }
    run(e, c, &line);
    let enc = run(e, c, "OBJECT ENCODING h");
    assert_eq!(enc, Reply::bulk(if hashtable || n > 512 { "hashtable" } else { "listpack" }));
    fields
}

#[test]
fn hrandfield_with_a_positive_count_returns_distinct_fields_of_the_hash() {
    // Of 30 fields: 5 is CASE 4 (draw until distinct), 20 is CASE 3 (remove from a copy).
    for hashtable in [false, true] {
        for count in [2usize, 5, 9, 10, 11, 20, 29] {
            let (mut e, c) = engine(count as u64);
            let fields = make_hash(&mut e, c, 30, hashtable);
            let got = bulks(&run(&mut e, c, &format!("HRANDFIELD h {count}")));
            assert_eq!(got.len(), count, "count {count}");
            assert_eq!(got.iter().collect::<HashSet<_>>().len(), count, "distinct, count {count}");
            assert!(got.iter().all(|f| fields.contains_key(f)));
            let pairs = bulks(&run(&mut e, c, &format!("HRANDFIELD h {count} WITHVALUES")));
            assert_eq!(pairs.len(), 2 * count);
            for p in pairs.chunks(2) {
                assert_eq!(fields.get(&p[0]), Some(&p[1]), "value of {}", p[0]);
            }
        }
    }
}

#[test]
fn hrandfield_with_a_negative_count_may_repeat_and_has_exactly_that_many() {
    for hashtable in [false, true] {
        let (mut e, c) = engine(3);
        let fields = make_hash(&mut e, c, 4, hashtable);
        let got = bulks(&run(&mut e, c, "HRANDFIELD h -200"));
        assert_eq!(got.len(), 200);
        assert!(got.iter().all(|f| fields.contains_key(f)));
        // 200 draws from at most 5 fields: every field shows up (the RNG isn't stuck).
        assert_eq!(got.iter().collect::<HashSet<_>>().len(), fields.len());
        let pairs = bulks(&run(&mut e, c, "HRANDFIELD h -50 WITHVALUES"));
        assert_eq!(pairs.len(), 100);
        for p in pairs.chunks(2) {
            assert_eq!(fields.get(&p[0]), Some(&p[1]));
        }
        let one = run(&mut e, c, "HRANDFIELD h");
        assert!(matches!(&one, Reply::Bulk(f) if fields.contains_key(&*String::from_utf8_lossy(f))));
    }
}

#[test]
fn hrandfield_is_deterministic_for_a_seed() {
    let picks = |seed| {
        let (mut e, c) = engine(seed);
        make_hash(&mut e, c, 50, false);
        (0..5).map(|_| run(&mut e, c, "HRANDFIELD h -7 WITHVALUES")).collect::<Vec<_>>()
    };
    assert_eq!(picks(42), picks(42));
    assert_ne!(picks(42), picks(43));
}

#[test]
fn hrandfield_refuses_a_reply_larger_than_playground_max_alloc() {
    let (mut e, c) = engine(1);
    run(&mut e, c, "HSET h f v");
    // Redis would build 2^62 replies until the OOM killer stops it; the engine answers at once.
    let r = run(&mut e, c, "HRANDFIELD h -4611686018427387903 WITHVALUES");
    assert!(matches!(&r, Reply::Error(m) if m.starts_with(b"ERR playground limit")), "{r:?}");
    let r = run(&mut e, c, "HRANDFIELD h -9223372036854775807");
    assert!(r.is_error());
    // Within the limit it is an ordinary reply.
    assert_eq!(bulks(&run(&mut e, c, "HRANDFIELD h -1000")).len(), 1000);
}

/// Scans `h` to the end with `count`, running `between` after each call.
fn full_hscan(e: &mut Engine, c: ClientId, count: usize, mut between: impl FnMut(&mut Engine, usize)) -> Vec<String> {
    let mut cursor = "0".to_string();
    let mut seen = Vec::new();
    for call in 0.. {
        let Reply::Array(parts) = run(e, c, &format!("HSCAN h {cursor} COUNT {count}")) else { panic!("HSCAN") };
        let Reply::Bulk(next) = &parts[0] else { panic!("cursor") };
        let items = bulks(&parts[1]);
        for pair in items.chunks(2) {
            seen.push(pair[0].clone());
        }
        cursor = String::from_utf8_lossy(next).into_owned();
        if cursor == "0" {
            break;
        }
        between(e, call);
        assert!(call < 10_000, "HSCAN never ends");
    }
    seen
}

#[test]
fn hscan_over_a_hashtable_returns_every_field_with_any_count() {
    for count in [1, 3, 10, 1000] {
        let (mut e, c) = engine(5);
        let fields = make_hash(&mut e, c, 600, false);
        assert_eq!(run(&mut e, c, "OBJECT ENCODING h"), Reply::bulk("hashtable"));
        let seen = full_hscan(&mut e, c, count, |_, _| {});
        assert_eq!(seen.len(), fields.len(), "count {count}: no duplicates without writes");
        assert_eq!(seen.into_iter().collect::<HashSet<_>>(), fields.keys().cloned().collect());
    }
}

#[test]
fn hscan_keeps_its_guarantee_across_deletes_and_inserts() {
    let (mut e, c) = engine(9);
    let fields = make_hash(&mut e, c, 600, false);
    // Fields f0..f99 are deleted during the scan, new ones added; f100.. are present throughout.
    let seen: HashSet<String> = full_hscan(&mut e, c, 7, |e, call| {
        if call < 100 {
            run(e, c, &format!("HDEL h f{call}"));
            run(e, c, &format!("HSET h new{call} x"));
        }
    })
    .into_iter()
    .collect();
    for f in
        fields.keys().filter(|f| f.strip_prefix('f').and_then(|n| n.parse::<usize>().ok()).is_some_and(|n| n >= 100))
    {
        assert!(seen.contains(f), "{f} was present for the whole scan but not returned");
    }
}

#[test]
fn list_and_hash_commands_fire_redis_keyspace_events_in_order() {
    // The order a real redis-server 7.0.15 published on `__keyevent@0__:*` (notify-keyspace-events
    // KElhgn) for these commands: `new` from dbAdd first, `del` after the pop/trim/removal that
    // emptied the key, LMOVE's destination events before its source's.
    let (mut e, c) = engine(1);
    keyspace_events(&mut e);
    for line in [
        "RPUSH src a",
        "LMOVE src dst LEFT RIGHT",
        "RPUSH l2 a b",
        "LPOP l2 2",
        "HSET h f v",
        "HDEL h f",
        "HINCRBYFLOAT hx f 1",
        "LTRIM dst 1 0",
        "RPUSH q 1",
        "LREM q 0 1",
        "RPUSH m 1",
        "LMPOP 1 m LEFT",
    ] {
        run(&mut e, c, line);
    }
    let want = [
        "new src",
        "rpush src",
        "new dst",
        "rpush dst",
        "lpop src",
        "del src",
        "new l2",
        "rpush l2",
        "lpop l2",
        "del l2",
        "new h",
        "hset h",
        "hdel h",
        "del h",
        "new hx",
        "hincrbyfloat hx",
        "ltrim dst",
        "del dst",
        "new q",
        "rpush q",
        "lrem q",
        "del q",
        "new m",
        "rpush m",
        "lpop m",
        "del m",
    ];
    assert_eq!(keyspace_events(&mut e), want);
}

/// Writes that change nothing fire nothing, as on a real server (same commands, same check).
#[test]
fn failed_and_empty_writes_fire_nothing() {
    let (mut e, c) = engine(1);
    run(&mut e, c, "RPUSH l a");
    run(&mut e, c, "HSET h f v");
    keyspace_events(&mut e);
    for line in [
        "LPUSHX nosuch a",
        "LINSERT l BEFORE nothere x",
        "LREM l 0 nothere",
        "LSET l 5 x",
        "HDEL h nothere",
        "HSETNX h f other",
        "HINCRBY h f 1",
        "HINCRBYFLOAT nosuch f inf",
        "LMOVE nosuch l LEFT LEFT",
        "LPOP l 0",
        "LMPOP 1 nosuch LEFT",
    ] {
        run(&mut e, c, line);
    }
    assert_eq!(keyspace_events(&mut e), Vec::<String>::new());
    assert_eq!(run(&mut e, c, "EXISTS nosuch"), Reply::Integer(0));
    // LTRIM fires even when it removes nothing (checked against redis-server 7.0.15 too).
    run(&mut e, c, "LTRIM l 0 -1");
    assert_eq!(keyspace_events(&mut e), ["ltrim l"]);
}

/// Hostile arguments for every list and hash command: nothing panics, every call answers, the
/// engine still answers PING. (tests/robustness.rs fuzzes the whole line grammar; this one
/// aims at these handlers' index, count and option arithmetic.)
#[test]
fn hostile_arguments_never_panic() {
    const COMMANDS: &[&str] = &[
        "LPUSH",
        "RPUSH",
        "LPUSHX",
        "RPUSHX",
        "LPOP",
        "RPOP",
        "LLEN",
        "LRANGE",
        "LINDEX",
        "LSET",
        "LREM",
        "LINSERT",
        "LTRIM",
        "LPOS",
        "LMOVE",
        "LMPOP",
        "RPOPLPUSH",
        "HSET",
        "HMSET",
        "HSETNX",
        "HGET",
        "HMGET",
        "HDEL",
        "HLEN",
        "HEXISTS",
        "HKEYS",
        "HVALS",
        "HGETALL",
        "HINCRBY",
        "HINCRBYFLOAT",
        "HSTRLEN",
        "HRANDFIELD",
        "HSCAN",
        "DEL",
        "CONFIG",
    ];
    const WORDS: &[&str] = &[
        "l",
        "h",
        "x",
        "0",
        "1",
        "-1",
        "2",
        "-2",
        "3",
        "100",
        "-100",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "4611686018427387903",
        "-4611686018427387903",
        "18446744073709551615",
        "",
        "abc",
        "1.5",
        "inf",
        "-inf",
        "nan",
        "1e4932",
        "LEFT",
        "RIGHT",
        "BEFORE",
        "AFTER",
        "RANK",
        "COUNT",
        "MAXLEN",
        "MATCH",
        "TYPE",
        "WITHVALUES",
        "*",
        "[",
        "\\",
        "SET",
        "hash-max-listpack-entries",
        "hash-max-listpack-value",
    ];
    let mut state: u64 = 0x1234_5678;
    let mut next = |n: usize| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) % n as u64) as usize
    };
    let (mut e, c) = engine(11);
    for i in 0..20_000 {
        let mut argv: Vec<Vec<u8>> = vec![COMMANDS[next(COMMANDS.len())].as_bytes().to_vec()];
        for _ in 0..next(7) {
            argv.push(WORDS[next(WORDS.len())].as_bytes().to_vec());
        }
        if argv[0] == b"CONFIG" && argv.len() > 1 {
            argv[1] = b"SET".to_vec();
        }
        let reply =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| e.execute(c, &argv))).unwrap_or_else(|_| {
                panic!(
                    "call {i} panicked: {:?}",
                    argv.iter().map(|a| String::from_utf8_lossy(a).into_owned()).collect::<Vec<_>>()
                )
            });
        let _ = reply.to_cli();
    }
    assert_eq!(run(&mut e, c, "PING"), Reply::Status("PONG".into()));
}
