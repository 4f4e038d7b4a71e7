//! The labs' small simulations with fixed seeds: pipelining under a simulated RTT and
//! cache-aside in front of a slow database (src/sim/pipeline.rs, src/sim/cache_aside.rs).

use redisplay::sim::{cache_aside, pipeline};

#[test]
fn pipelining_pays_one_round_trip_per_batch_instead_of_per_command() {
    // 100,000 SETs on loopback (25 µs) against redis-server's measured 0.54 µs per SET.
    let r = pipeline::run(&pipeline::Config::default());
    eprintln!("pipeline: {r:?}");
    assert_eq!(r.one_by_one.round_trips, 100_000);
    assert!((r.one_by_one.total_ms - 2554.0).abs() < 1e-6, "{}", r.one_by_one.total_ms);
    assert_eq!(r.pipelined.round_trips, 1000);
    assert!((r.pipelined.total_ms - 79.0).abs() < 1e-6, "{}", r.pipelined.total_ms);
    assert!(r.speedup > 30.0);
    assert!(r.one_by_one.network_share > 0.97 && r.pipelined.network_share < 0.35);
    // The commands really ran: every key is there either way.
    assert_eq!((r.one_by_one.keys, r.pipelined.keys), (100_000, 100_000));
    assert!(pipeline::ConfigInput { batch: Some(0.0), ..Default::default() }.into_config().is_err());
    assert!(pipeline::ConfigInput { commands: Some(f64::NAN), ..Default::default() }.into_config().is_err());
}

#[test]
fn a_cache_absorbs_most_of_a_zipf_load_and_less_when_small_or_short_lived() {
    let base = cache_aside::Config { duration_ms: 30_000, ..Default::default() };
    let big = cache_aside::run(&base);
    let small = cache_aside::run(&cache_aside::Config { maxmemory: 1_200_000, ..base.clone() });
    let short = cache_aside::run(&cache_aside::Config { ttl_s: 2, ..base.clone() });
    eprintln!("cache-aside unbounded: {big:?}\nmaxmemory 1.2 MB: {small:?}\nttl 2 s: {short:?}");
    assert_eq!(big.requests, big.hits + big.misses);
    assert!(big.requests > 29_000 && big.requests < 31_000);
    assert!(big.hit_ratio > 0.6, "{}", big.hit_ratio);
    // Warming up: the last tenth hits more often than the first.
    assert!(big.hit_ratio_by_tenth[9] > big.hit_ratio_by_tenth[0] + 0.1, "{:?}", big.hit_ratio_by_tenth);
    assert_eq!(big.evicted_keys, 0);
    assert!(small.evicted_keys > 0 && small.hit_ratio < big.hit_ratio, "{} {}", small.evicted_keys, small.hit_ratio);
    assert!(short.expired_keys > 0 && short.hit_ratio < big.hit_ratio);
    assert!((big.load_absorbed - big.hit_ratio).abs() < 1e-9);
    assert!(big.db_queries_per_second < big.db_queries_per_second_without_cache * 0.4);
    // Same seed, same run.
    assert_eq!(cache_aside::run(&base), big);
    assert!(cache_aside::ConfigInput { policy: Some("lru".into()), ..Default::default() }.into_config().is_err());
}
