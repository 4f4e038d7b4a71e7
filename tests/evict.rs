//! Eviction and LRU/LFU metadata, pinned with a fixed seed and a stepped clock: the pool's
//! insertion rules (sorted, best on the right, worst dropped when full, ghosts skipped), LFU's
//! logarithmic increment and decay by subtraction, idle time from the 1-second LRU clock, and
//! that volatile-* with no volatile keys behaves like noeviction.

mod common;

use common::session::run;
use redisplay::events::Event;
use redisplay::events::EvictionReport;
use redisplay::object::{lfu_decr_and_return, lfu_log_incr, lfu_time_in_minutes, LFU_INIT_VAL};
use redisplay::{EngineOptions, Session};

const T0: i64 = 1_700_000_000_000;

fn session() -> Session {
    Session::new(EngineOptions { seed: 9, start_ms: T0 })
}

fn evictions(s: &mut Session) -> Vec<EvictionReport> {
    let (events, _) = s.engine.drain_events();
    events
        .into_iter()
        .filter_map(|e| match e {
            Event::Eviction { report, .. } => Some(*report),
            _ => None,
        })
        .collect()
}

/// used_memory once INFO and CONFIG SET already have their latency histograms (each command's
/// first call allocates one, ~24 KB, as in Redis 7.0).
fn used_memory(s: &mut Session) -> u64 {
    run(s, "CONFIG SET maxmemory 0");
    run(s, "INFO memory");
    let info = run(s, "INFO memory");
    info.lines().find_map(|l| l.strip_prefix("used_memory:")).unwrap().trim().parse().unwrap()
}

#[test]
fn lru_evicts_the_idlest_sampled_key_and_the_pool_stays_sorted() {
    let mut s = session();
    // 200 keys created one second apart: key:0 is the idlest.
    for i in 0..200 {
        run(&mut s, &format!("SET key:{i} {}", "x".repeat(20)));
        run(&mut s, "CLOCK ADVANCE 1000");
    }
    let used = used_memory(&mut s);
    run(&mut s, "CONFIG SET maxmemory-policy allkeys-lru");
    s.engine.drain_events();
    run(&mut s, &format!("CONFIG SET maxmemory {}", used - 1000));
    let ev = evictions(&mut s);
    assert!(!ev.is_empty());
    for e in &ev {
        // The pool is sorted ascending by score, empty slots only on the right.
        let scores: Vec<u64> = e.pool_after.iter().flatten().map(|p| p.idle).collect();
        assert!(scores.windows(2).all(|w| w[0] <= w[1]), "{scores:?}");
        let first_empty = e.pool_after.iter().position(|p| p.is_none()).unwrap_or(16);
        assert!(e.pool_after[first_empty..].iter().all(|p| p.is_none()));
        // The victim scored at least as high as every sample of its round.
        let victim_score = e.samples.iter().find(|x| x.key == e.victim).map(|x| x.score);
        if let Some(v) = victim_score {
            assert!(e.samples.iter().all(|x| x.score <= v), "{e:?}");
        }
        assert!(e.bytes_freed > 0);
    }
    // Idle time comes from the 1-second LRU clock refreshed by cron.
    assert_eq!(run(&mut s, "OBJECT IDLETIME key:199"), "(integer) 1\n");
    assert!(run(&mut s, "EXISTS key:0").starts_with("(integer) 0"), "the idlest key went first");
}

#[test]
fn a_full_pool_drops_its_worst_entry_and_ghosts_are_skipped() {
    let mut s = session();
    for i in 0..2000 {
        run(&mut s, &format!("SET k{i} v"));
        if i % 100 == 0 {
            run(&mut s, "CLOCK ADVANCE 1000");
        }
    }
    run(&mut s, "CONFIG SET maxmemory-policy allkeys-lru");
    run(&mut s, "CONFIG SET maxmemory-samples 10");
    let used = used_memory(&mut s);
    s.engine.drain_events();
    run(&mut s, &format!("CONFIG SET maxmemory {}", used - 20_000));
    let ev = evictions(&mut s);
    assert!(ev.len() > 50);
    assert!(ev.iter().any(|e| e.pool_before.iter().all(|p| p.is_some())), "the pool filled up");
    // Deleting pooled keys behind the pool's back makes ghosts the next eviction skips.
    let pooled: Vec<String> =
        ev.last().unwrap().pool_after.iter().flatten().map(|p| String::from_utf8_lossy(&p.key).into_owned()).collect();
    for k in &pooled {
        run(&mut s, &format!("DEL {k}"));
    }
    run(&mut s, "CONFIG SET maxmemory 1");
    let ev = evictions(&mut s);
    assert!(ev.iter().any(|e| e.ghosts > 0), "ghost entries were skipped");
}

#[test]
fn volatile_policies_without_volatile_keys_refuse_like_noeviction() {
    for policy in ["volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "noeviction"] {
        let mut s = session();
        run(&mut s, "SET a 1");
        run(&mut s, &format!("CONFIG SET maxmemory-policy {policy}"));
        run(&mut s, "CONFIG SET maxmemory 1");
        assert_eq!(
            run(&mut s, "SET b 2"),
            "(error) OOM command not allowed when used memory > 'maxmemory'.\n",
            "{policy}"
        );
        assert_eq!(run(&mut s, "GET a"), "\"1\"\n", "{policy}: reads still run");
        assert_eq!(run(&mut s, "DBSIZE"), "(integer) 1\n", "{policy}: nothing was evicted");
    }
    // With a volatile key, volatile-ttl evicts it (and then can't evict more).
    let mut s = session();
    run(&mut s, "SET a 1");
    run(&mut s, "SET t 1 EX 100");
    run(&mut s, "CONFIG SET maxmemory-policy volatile-ttl");
    run(&mut s, "CONFIG SET maxmemory 1");
    assert_eq!(run(&mut s, "EXISTS t"), "(integer) 0\n");
    assert_eq!(run(&mut s, "EXISTS a"), "(integer) 1\n");
}

#[test]
fn lfu_counters_grow_logarithmically_and_decay_by_subtraction() {
    // Below LFU_INIT_VAL every hit counts.
    assert_eq!(lfu_log_incr(0, 0.999, 10), 1);
    assert_eq!(lfu_log_incr(LFU_INIT_VAL, 0.999, 10), LFU_INIT_VAL + 1);
    // At counter 15 with factor 10 the probability is 1/(10·10+1).
    assert_eq!(lfu_log_incr(15, 0.5 / 101.0, 10), 16);
    assert_eq!(lfu_log_incr(15, 2.0 / 101.0, 10), 15);
    assert_eq!(lfu_log_incr(255, 0.0, 10), 255);
    // Decay: one per lfu-decay-time minutes since the stamp; 0 disables it.
    let now = T0;
    let stamp = (lfu_time_in_minutes(now - 10 * 60_000) << 8) | 20;
    assert_eq!(lfu_decr_and_return(stamp, now, 1), 10);
    assert_eq!(lfu_decr_and_return(stamp, now, 5), 18);
    assert_eq!(lfu_decr_and_return(stamp, now, 0), 20);
    assert_eq!(lfu_decr_and_return(stamp, now + 3_600_000, 1), 0);
    // redis.conf's table for factor 10: 100 hits ≈ 10, 1000 ≈ 18 (with the engine's RNG).
    let mut s = session();
    run(&mut s, "CONFIG SET maxmemory-policy allkeys-lfu");
    run(&mut s, "SET hot v");
    for _ in 0..100 {
        run(&mut s, "GET hot");
    }
    let f100: u32 = run(&mut s, "OBJECT FREQ hot").trim_start_matches("(integer) ").trim().parse().unwrap();
    for _ in 0..900 {
        run(&mut s, "GET hot");
    }
    let f1000: u32 = run(&mut s, "OBJECT FREQ hot").trim_start_matches("(integer) ").trim().parse().unwrap();
    assert!((8..=13).contains(&f100), "100 hits → {f100}");
    assert!((15..=21).contains(&f1000), "1000 hits → {f1000}");
    // OBJECT FREQ itself doesn't count as a hit.
    assert_eq!(run(&mut s, "OBJECT FREQ hot"), format!("(integer) {f1000}\n"));
}

#[test]
fn lfu_eviction_prefers_cold_keys() {
    let mut s = session();
    run(&mut s, "CONFIG SET maxmemory-policy allkeys-lfu");
    for i in 0..300 {
        run(&mut s, &format!("SET k{i} v"));
    }
    for _ in 0..30 {
        for i in 0..150 {
            run(&mut s, &format!("GET k{i}"));
        }
    }
    let used = used_memory(&mut s);
    run(&mut s, &format!("CONFIG SET maxmemory {}", used - 5_000));
    let evicted: Vec<String> = evictions(&mut s).into_iter().map(|e| e.victim).collect();
    assert!(!evicted.is_empty());
    let cold = evicted.iter().filter(|k| k[1..].parse::<u32>().unwrap() >= 150).count();
    assert!(cold * 10 >= evicted.len() * 9, "mostly cold keys: {evicted:?}");
}
