//! Engine throughput, natively: GET, SET, SET EX, INCR, EXPIRE on a keyspace of 10³, 10⁵ and
//! 10⁶ string keys, and ZADD (an existing member to a new score), ZRANGEBYSCORE … LIMIT 0 10
//! and ZRANK on a sorted set of as many members — each through `Engine::execute` (dispatch,
//! arity and key checks, lazy expiry, the reply) with argv built before the clock starts and
//! the event log off, as in the native CLI. Then redis-benchmark's one-key tests the table of
//! scripts/bench.sh has no wasm column for: LPUSH, RPOP, SADD, HSET (a new field of one hash
//! each call) and LRANGE_100 (the first 100 elements of the list LPUSH filled), on a list of as
//! many elements.
//!
//!     cargo bench --bench engine
//!     REDISPLAY_BENCH_JSON=out.json cargo bench --bench engine   # also writes the figures as JSON
//!     REDISPLAY_BENCH_SIZES=1000 REDISPLAY_BENCH_ONLY=GET,INCR cargo bench --bench engine   # a subset (for perf)
//!
//! `scripts/bench.sh` runs it next to the wasm build and the peers (tools/bench/). A benchmark,
//! not a test: it prints figures and asserts nothing about speed. The keys each operation hits
//! are drawn at random (a fixed LCG) from the whole keyspace, so at 10⁶ keys most lookups miss
//! the CPU caches, as they would on a server.

use std::time::Instant;

use redisplay::{Engine, EngineOptions, Reply};

mod support;
use support::{argv, build_zset, Lcg};

/// The operations, in the order every layer of `scripts/bench.sh` runs and reports them: INCR
/// before SET, which replaces the integers with a string.
const OPS: [&str; 13] = [
    "GET",
    "INCR",
    "SET",
    "SET EX",
    "EXPIRE",
    "ZADD",
    "ZRANGEBYSCORE",
    "ZRANK",
    "LPUSH",
    "LRANGE_100",
    "RPOP",
    "SADD",
    "HSET",
];
const SIZES: [usize; 3] = [1_000, 100_000, 1_000_000];
/// Distinct pre-built commands cycled through while timing: enough to spread over the keyspace,
/// few enough that building them costs nothing next to the run.
const POOL: usize = 1 << 14;

/// `n` keys `key:i` holding small integers (so INCR works on them), a sorted set `z` of `n`
/// members `member:i` with random scores, and a list `mylist` of `n` elements.
fn populate(e: &mut Engine, client: u64, n: usize, rng: &mut Lcg) {
    let mut batch = vec!["MSET".to_string()];
    for i in 0..n {
        batch.push(format!("key:{i}"));
        batch.push(i.to_string());
        if batch.len() > 2 * 10_000 || i + 1 == n {
            e.execute(client, &argv(&batch));
            batch.truncate(1);
        }
    }
    build_zset(e, client, n, rng);
    let mut batch = vec!["RPUSH".to_string(), "mylist".to_string()];
    for i in 0..n {
        batch.push(format!("element:{i}"));
        if batch.len() >= 2 + 10_000 || i + 1 == n {
            e.execute(client, &argv(&batch));
            batch.truncate(2);
        }
    }
}

fn command(op: &str, n: usize, rng: &mut Lcg) -> Vec<String> {
    let key = format!("key:{}", rng.below(n));
    let s = |x: &str| x.to_string();
    match op {
        "GET" => vec![s("GET"), key],
        "SET" => vec![s("SET"), key, s("value")],
        // A long TTL: the clock does not move during the run, so nothing expires under the bench.
        "SET EX" => vec![s("SET"), key, s("value"), s("EX"), s("100000")],
        "INCR" => vec![s("INCR"), key],
        "EXPIRE" => vec![s("EXPIRE"), key, s("100000")],
        "ZADD" => vec![s("ZADD"), s("z"), (rng.next() % 1_000_000_000).to_string(), format!("member:{}", rng.below(n))],
        "ZRANGEBYSCORE" => {
            vec![
                s("ZRANGEBYSCORE"),
                s("z"),
                (rng.next() % 1_000_000_000).to_string(),
                s("+inf"),
                s("LIMIT"),
                s("0"),
                s("10"),
            ]
        }
        "ZRANK" => vec![s("ZRANK"), s("z"), format!("member:{}", rng.below(n))],
        "LPUSH" => vec![s("LPUSH"), s("mylist"), s("xxx")],
        "RPOP" => vec![s("RPOP"), s("mylist")],
        "SADD" => vec![s("SADD"), s("myset"), format!("element:{}", rng.below(n))],
        "HSET" => vec![s("HSET"), s("myhash"), format!("element:{}", rng.below(n)), s("xxx")],
        "LRANGE_100" => vec![s("LRANGE"), s("mylist"), s("0"), s("99")],
        _ => unreachable!("unknown op {op}"),
    }
}

/// Runs `ops` calls cycling through `pool` after a short warm-up; returns ns/op.
fn measure(e: &mut Engine, client: u64, pool: &[Vec<Vec<u8>>], ops: usize) -> f64 {
    // Warm-up: caches, the latency histogram Redis allocates on a command's first call.
    // An error reply would time the error path instead of the operation.
    for a in pool.iter().take(2_000) {
        if let Reply::Error(msg) = e.execute(client, a) {
            panic!("{:?}: {}", a.first().map(|c| String::from_utf8_lossy(c)), String::from_utf8_lossy(&msg));
        }
    }
    let t = Instant::now();
    for i in 0..ops {
        std::hint::black_box(e.execute(client, &pool[i % pool.len()]));
    }
    t.elapsed().as_nanos() as f64 / ops as f64
}

fn main() {
    let ops: usize = std::env::var("REDISPLAY_BENCH_OPS").ok().and_then(|v| v.parse().ok()).unwrap_or(200_000);
    let list = |var: &str| std::env::var(var).ok().map(|v| v.split(',').map(str::to_string).collect::<Vec<_>>());
    let only = list("REDISPLAY_BENCH_ONLY");
    let ops_run: Vec<&str> =
        OPS.into_iter().filter(|op| only.as_ref().is_none_or(|o| o.iter().any(|x| x == op))).collect();
    let sizes: Vec<usize> = match list("REDISPLAY_BENCH_SIZES") {
        Some(v) => v.iter().map(|x| x.parse().expect("REDISPLAY_BENCH_SIZES: numbers")).collect(),
        None => SIZES.to_vec(),
    };
    println!("native engine, event log off, {ops} calls per cell (cargo bench --bench engine)");
    print!("{:>9}", "keys");
    for op in &ops_run {
        print!(" {:>14}", op);
    }
    println!("   (ns/op)");
    let mut rows = Vec::new();
    for &n in &sizes {
        let mut e = Engine::new(EngineOptions { seed: 1, start_ms: 0 });
        e.set_event_recording(false);
        let client = e.connect();
        let mut rng = Lcg(n as u64);
        populate(&mut e, client, n, &mut rng);
        print!("{n:>9}");
        let mut cells = Vec::new();
        for &op in &ops_run {
            let pool: Vec<Vec<Vec<u8>>> = (0..POOL).map(|_| argv(&command(op, n, &mut rng))).collect();
            let ns = measure(&mut e, client, &pool, ops);
            print!(" {:>14.0}", ns);
            cells.push(format!("{{\"op\":\"{op}\",\"ns_per_op\":{ns:.1},\"ops_per_s\":{:.0}}}", 1e9 / ns));
        }
        println!();
        rows.push(format!("{{\"size\":{n},\"results\":[{}]}}", cells.join(",")));
    }
    if let Ok(path) = std::env::var("REDISPLAY_BENCH_JSON") {
        let json = format!("{{\"ops_per_cell\":{ops},\"sizes\":[{}]}}\n", rows.join(","));
        std::fs::write(&path, json).unwrap_or_else(|err| panic!("writing {path}: {err}"));
    }
}
