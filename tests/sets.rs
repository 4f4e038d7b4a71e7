//! Sets through the engine (src/command/set.rs): what the golden transcripts can't show because
//! Redis picks at random — SPOP and SRANDMEMBER with a count smaller than the set, checked by
//! size, distinctness and membership — plus the seed's determinism, the playground's limit on
//! SRANDMEMBER's negative count, and the keyspace events each command fires (Redis's names, in
//! Redis's order).

mod common;

use common::engine::{engine, run};
use redisplay::{Engine, Event, Reply};

/// A canonical int64, as util.c `string2ll` accepts it.
fn is_int(m: &[u8]) -> bool {
    std::str::from_utf8(m).ok().and_then(|s| s.parse::<i64>().ok()).is_some_and(|v| v.to_string().as_bytes() == m)
}

fn members(r: &Reply) -> Vec<Vec<u8>> {
    // As a RESP2 client sees it (sets as arrays).
    match &r.clone().into_resp2() {
        Reply::Array(items) => {
            items.iter().filter_map(|i| if let Reply::Bulk(b) = i { Some(b.clone()) } else { None }).collect()
        }
        other => panic!("not an array: {other:?}"),
    }
}

fn sorted(mut v: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    v.sort();
    v
}

fn keyspace_events(e: &mut Engine) -> Vec<String> {
    e.drain_events()
        .0
        .into_iter()
        .filter_map(|ev| match ev {
            Event::Keyspace { event, key, .. } if event != "keymiss" && event != "new" => {
                Some(format!("{event} {key}"))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn spop_with_a_count_pops_distinct_members_and_keeps_the_rest() {
    // 3 of 40 is CASE 2 (pick and remove), 36 of 40 is CASE 3 (keep 4 in a new set).
    for (count, create) in [(3, "SADD s"), (36, "SADD s"), (3, "SADD s x"), (36, "SADD s x")] {
        let (mut e, c) = engine(7);
        let all: Vec<String> = (1..=40).map(|i| i.to_string()).collect();
        run(&mut e, c, &format!("{create} {}", all.join(" ")));
        let before = sorted(members(&run(&mut e, c, "SMEMBERS s")));
        let popped = members(&run(&mut e, c, &format!("SPOP s {count}")));
        let rest = members(&run(&mut e, c, "SMEMBERS s"));
        assert_eq!(popped.len(), count);
        assert_eq!(rest.len(), before.len() - count);
        let mut union = popped.clone();
        union.extend(rest.clone());
        assert_eq!(sorted(union), before, "SPOP s {count} after {create}: popped and kept are the set");
        // CASE 3 rebuilds the kept members from setTypeCreate: integers only → intset.
        let all_ints = rest.iter().all(|m| is_int(m));
        let enc = run(&mut e, c, "OBJECT ENCODING s");
        if count == 36 || create == "SADD s" {
            assert_eq!(enc, Reply::bulk(if all_ints { "intset" } else { "hashtable" }), "{create}, SPOP {count}");
        }
    }
}

#[test]
fn srandmember_counts() {
    let (mut e, c) = engine(11);
    run(&mut e, c, "SADD s a b c d e f g h i j 1 2 3 4 5 6 7 8 9 10");
    let all = sorted(members(&run(&mut e, c, "SMEMBERS s")));
    // 15 of 20 copies then drops (CASE 3); 3 of 20 picks until distinct (CASE 4).
    for count in [15usize, 3, 1] {
        let got = members(&run(&mut e, c, &format!("SRANDMEMBER s {count}")));
        assert_eq!(got.len(), count);
        let mut distinct = sorted(got.clone());
        distinct.dedup();
        assert_eq!(distinct.len(), count, "SRANDMEMBER s {count} repeats a member");
        assert!(got.iter().all(|m| all.contains(m)));
    }
    let got = members(&run(&mut e, c, "SRANDMEMBER s -100"));
    assert_eq!(got.len(), 100);
    assert!(got.iter().all(|m| all.contains(m)));
    assert_eq!(run(&mut e, c, "SCARD s"), Reply::Integer(20), "SRANDMEMBER never removes");
}

#[test]
fn random_picks_follow_the_seed() {
    let picks = |seed| {
        let (mut e, c) = engine(seed);
        run(&mut e, c, "SADD s 1 2 3 4 5 6 7 8 9 10 a b c");
        (run(&mut e, c, "SRANDMEMBER s -20"), run(&mut e, c, "SPOP s 4"), run(&mut e, c, "SPOP s"))
    };
    assert_eq!(picks(1), picks(1));
    assert_ne!(picks(1), picks(2));
}

#[test]
fn a_huge_negative_srandmember_count_is_refused_quickly() {
    let (mut e, c) = engine(1);
    run(&mut e, c, "SADD s a");
    let r = run(&mut e, c, "SRANDMEMBER s -9223372036854775807");
    assert!(matches!(&r, Reply::Error(m) if m.starts_with(b"ERR playground limit")), "{r:?}");
    // What Redis checks first still answers as Redis does.
    assert_eq!(run(&mut e, c, "SRANDMEMBER nosuch -9223372036854775807"), Reply::Array(vec![]));
    assert_eq!(members(&run(&mut e, c, "SRANDMEMBER s -100000")).len(), 100_000);
}

#[test]
fn keyspace_events_are_redis_ones() {
    let (mut e, c) = engine(1);
    run(&mut e, c, "SADD s 1 2");
    run(&mut e, c, "SADD s 1");
    run(&mut e, c, "SREM s 9");
    run(&mut e, c, "SREM s 1 2 3");
    assert_eq!(keyspace_events(&mut e), ["sadd s", "srem s", "del s"]);
    run(&mut e, c, "SADD a x");
    run(&mut e, c, "SMOVE a b x");
    run(&mut e, c, "SADD a y");
    run(&mut e, c, "SADD b y");
    run(&mut e, c, "SMOVE a b y");
    assert_eq!(keyspace_events(&mut e), ["sadd a", "srem a", "del a", "sadd b", "sadd a", "sadd b", "srem a", "del a"]);
    run(&mut e, c, "SPOP b 10");
    run(&mut e, c, "SADD p 1 2 3");
    run(&mut e, c, "SPOP p");
    run(&mut e, c, "SPOP p 0");
    assert_eq!(keyspace_events(&mut e), ["spop b", "del b", "sadd p", "spop p"]);
    run(&mut e, c, "SUNIONSTORE d p");
    run(&mut e, c, "SINTERSTORE d p nosuch");
    run(&mut e, c, "SINTERSTORE d p nosuch");
    run(&mut e, c, "SDIFFSTORE d p p");
    run(&mut e, c, "SDIFFSTORE d2 p");
    assert_eq!(keyspace_events(&mut e), ["sunionstore d", "del d", "sdiffstore d2"]);
}
