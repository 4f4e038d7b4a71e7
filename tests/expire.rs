//! Active expiry, pinned with a fixed seed and a stepped clock (no sleeps): the 7.0 repeat
//! condition and effort scaling, the classic >25% rule, the time cap and the fast cycle, the
//! stats, and that DBSIZE/KEYS/INFO count a dead key until something reclaims it.

mod common;

use common::engine::execute;
use common::session::run;
use redisplay::events::{CycleKind, ExpireCycleReport};
use redisplay::events::{Event, ExpiredBy};
use redisplay::{Engine, EngineOptions, Session};

const T0: i64 = 1_700_000_000_000;

fn session() -> Session {
    Session::new(EngineOptions { seed: 7, start_ms: T0 })
}

/// Pipes many commands quickly through the engine (no console formatting).
fn exec(e: &mut Engine, client: u64, args: &[&str]) {
    execute(e, client, args);
}

fn cycles(s: &mut Session) -> Vec<ExpireCycleReport> {
    let (events, _) = s.engine.drain_events();
    events
        .into_iter()
        .filter_map(|e| match e {
            Event::ExpireCycle { report, .. } => Some(*report),
            _ => None,
        })
        .collect()
}

fn info_field(s: &mut Session, field: &str) -> String {
    let text = run(s, "INFO all");
    text.lines().find_map(|l| l.strip_prefix(&format!("{field}:"))).unwrap_or("").trim().to_string()
}

/// `n` keys that expire at `when_ms` plus `live` keys with a long TTL.
fn populate(s: &mut Session, n: usize, ttl_ms: i64, live: usize) {
    let c = s.client;
    for i in 0..live {
        exec(&mut s.engine, c, &["SET", &format!("live:{i}"), "v", "EX", "3600"]);
    }
    for i in 0..n {
        exec(&mut s.engine, c, &["SET", &format!("short:{i}"), "v", "PX", &ttl_ms.to_string()]);
    }
}

#[test]
fn a_round_repeats_while_more_than_ten_percent_were_dead() {
    let mut s = session();
    populate(&mut s, 300, 50, 700);
    s.engine.drain_events();
    run(&mut s, "CLOCK ADVANCE 100");
    let cyc = cycles(&mut s);
    let slow = cyc.iter().find(|c| c.kind == CycleKind::Slow).expect("a slow cycle ran");
    assert_eq!((slow.keys_per_loop, slow.acceptable_stale), (20, 10));
    assert!(!slow.rounds.is_empty());
    for r in &slow.rounds {
        assert!(
            r.sampled >= 20 || r.buckets >= 400 || r.sampled == 0,
            "a round examines ≥20 keys or 400 buckets: {r:?}"
        );
        let stale = r.expired * 100 / r.sampled.max(1);
        if r.reason.starts_with("time limit") {
            continue;
        }
        assert_eq!(r.repeat, r.sampled == 0 || stale > 10, "round {r:?}");
        for k in &r.keys {
            assert_eq!(k.expired, k.ttl_ms < 0, "{k:?}");
        }
    }
    // The last round of the db stopped because it was clean enough.
    let last = slow.rounds.iter().rev().find(|r| r.db == 0).unwrap();
    assert!(!last.repeat);
}

#[test]
fn effort_ten_samples_65_keys_and_tolerates_one_percent() {
    let mut s = session();
    run(&mut s, "CONFIG SET active-expire-effort 10");
    populate(&mut s, 30, 50, 2000);
    s.engine.drain_events();
    run(&mut s, "CLOCK ADVANCE 100");
    let slow = cycles(&mut s).into_iter().find(|c| c.kind == CycleKind::Slow).unwrap();
    assert_eq!((slow.keys_per_loop, slow.acceptable_stale), (65, 1));
    assert!(slow.rounds[0].sampled >= 65);
    // Budget: (25 + 2·9)% of a 100 ms period.
    assert_eq!(slow.budget_us, 43_000);
}

#[test]
fn classic_samples_twenty_random_keys_and_repeats_above_five() {
    let mut s = session();
    run(&mut s, "CONFIG SET playground-expire-algorithm classic");
    populate(&mut s, 500, 50, 500);
    s.engine.drain_events();
    run(&mut s, "CLOCK ADVANCE 100");
    let slow = cycles(&mut s).into_iter().find(|c| c.kind == CycleKind::Slow).unwrap();
    assert_eq!(slow.algorithm, "classic");
    for r in slow.rounds.iter().filter(|r| !r.reason.starts_with("time limit")) {
        assert_eq!(r.sampled, 20, "{r:?}");
        assert_eq!(r.repeat, r.expired > 5, "{r:?}");
    }
    // Random picks with replacement: some rounds examine a key twice (or a dead one again
    // is impossible — it was deleted; live ones can repeat).
    assert!(slow.rounds.len() > 1);
}

#[test]
fn a_big_backlog_hits_the_time_cap_and_wakes_the_fast_cycle() {
    let mut s = session();
    populate(&mut s, 100_000, 10, 0);
    s.engine.drain_events();
    run(&mut s, "CLOCK ADVANCE 100");
    let cyc = cycles(&mut s);
    let slow = cyc.iter().find(|c| c.kind == CycleKind::Slow).unwrap();
    assert!(slow.cap_reached, "25 ms can't delete 100k keys at ~870 ns each");
    assert!(slow.time_used_us >= 25_000 && slow.time_used_us < 26_500, "{}", slow.time_used_us);
    // ≈ 25 ms / (110 + 760 + a bucket) ns per key.
    assert!((27_000..30_500).contains(&slow.expired), "{}", slow.expired);
    // beforeSleep then ran a fast cycle with a 1 ms budget.
    let fast = cyc.iter().find(|c| c.kind == CycleKind::Fast).expect("fast cycle after a capped slow one");
    assert_eq!(fast.budget_us, 1000);
    assert_eq!(info_field(&mut s, "expired_time_cap_reached_count"), "2");
    // A second fast cycle in the same millisecond is refused (2 × its duration apart).
    s.engine.drain_events();
    s.engine.before_sleep();
    assert!(cycles(&mut s).iter().all(|c| c.kind != CycleKind::Fast));
    let cpu: u64 = info_field(&mut s, "expire_cycle_cpu_milliseconds").parse().unwrap();
    assert!((25..=27).contains(&cpu), "{cpu}");
    // Keep going: everything is reclaimed within a few ticks, and the stale average rose.
    run(&mut s, "CLOCK ADVANCE 500");
    assert_eq!(run(&mut s, "DBSIZE"), "(integer) 0\n");
    let stale: f64 = info_field(&mut s, "expired_stale_perc").parse().unwrap();
    assert!(stale > 10.0, "{stale}");
}

#[test]
fn a_fast_cycle_only_runs_after_a_capped_one() {
    let mut s = session();
    populate(&mut s, 10, 10, 10);
    s.engine.drain_events();
    run(&mut s, "CLOCK ADVANCE 1000");
    assert!(cycles(&mut s).iter().all(|c| c.kind == CycleKind::Slow));
}

#[test]
fn dead_keys_count_until_reclaimed() {
    let mut s = session();
    // Many long-lived volatile keys and one that dies: the cursor needs many ticks to reach it.
    populate(&mut s, 0, 0, 20_000);
    run(&mut s, "SET dying v PX 10");
    run(&mut s, "CLOCK ADVANCE 200");
    let dbsize = run(&mut s, "DBSIZE");
    let keys = run(&mut s, "KEYS dying");
    let info = info_field(&mut s, "db0");
    assert_eq!(dbsize, "(integer) 20001\n", "DBSIZE counts the dead key");
    assert_eq!(keys, "(empty array)\n", "KEYS hides it without deleting it");
    assert!(info.starts_with("keys=20001,expires=20001"), "{info}");
    // Touching it reclaims it lazily, and the event says which command did.
    s.engine.drain_events();
    assert_eq!(run(&mut s, "EXISTS dying"), "(integer) 0\n");
    let (events, _) = s.engine.drain_events();
    let lazy = events.iter().find_map(|e| match e {
        Event::Expired { key, by: ExpiredBy::Lazy, command, .. } if key == "dying" => Some(*command),
        _ => None,
    });
    assert_eq!(lazy, Some(Some("exists")));
    assert_eq!(run(&mut s, "DBSIZE"), "(integer) 20000\n");
    assert_eq!(info_field(&mut s, "expired_keys"), "1");
}

#[test]
fn avg_ttl_and_stale_average_follow_the_samples() {
    let mut s = session();
    populate(&mut s, 0, 0, 1000);
    run(&mut s, "CLOCK ADVANCE 1000");
    let db0 = info_field(&mut s, "db0");
    let avg: i64 = db0.rsplit("avg_ttl=").next().unwrap().parse().unwrap();
    assert!((3_590_000..=3_600_000).contains(&avg), "{db0}");
    // No key was dead: the stale average stays 0.
    assert_eq!(info_field(&mut s, "expired_stale_perc"), "0.00");
}

#[test]
fn a_big_value_expiring_stalls_unless_lazyfree() {
    for lazy in ["no", "yes"] {
        let mut s = session();
        run(&mut s, &format!("CONFIG SET lazyfree-lazy-expire {lazy}"));
        let c = s.client;
        for i in 0..100 {
            let args: Vec<String> = (0..1000).flat_map(|j| vec![(j).to_string(), format!("m{i}-{j}")]).collect();
            let mut argv: Vec<&str> = vec!["ZADD", "big"];
            argv.extend(args.iter().map(|a| a.as_str()));
            exec(&mut s.engine, c, &argv);
        }
        run(&mut s, "PEXPIRE big 10");
        s.engine.drain_events();
        run(&mut s, "CLOCK ADVANCE 100");
        let slow = cycles(&mut s).into_iter().find(|c| c.kind == CycleKind::Slow).unwrap();
        assert_eq!(slow.expired, 1);
        if lazy == "no" {
            // 100,000 members × 193 ns: a 19 ms stall inside one cycle.
            assert!(slow.time_used_us > 19_000, "{}", slow.time_used_us);
        } else {
            assert!(slow.time_used_us < 100, "{}", slow.time_used_us);
        }
    }
}
