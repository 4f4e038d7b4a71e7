//! Cache-aside in front of a slow database, on a real engine in virtual time.
//!
//! Each request reads `item:<k>` (k drawn from a Zipf distribution over `keys` items, Poisson
//! arrivals): `GET` from the cache; on a miss, the database answers after `db_latency_ms` and
//! the client writes the value back with `SET item:<k> <value> EX <ttl>`. The engine does the
//! rest as Redis would: the TTLs expire (lazily and by the active cycle), `maxmemory` with its
//! policy evicts. So the hit ratio and the load the cache takes off the database come out of
//! the same expiry and eviction the other views show.
//!
//! The write-back lands `rtt + db_latency` after the miss, so requests for the same key in
//! between miss too and query the database again (the "thundering herd" a cache without a lock
//! has). Not modelled: the database's own queueing.

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

use crate::engine::{Engine, EngineOptions, DEFAULT_START_MS};
use crate::reply::Reply;

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub keys: u64,
    /// Zipf exponent (1.0: the k-th most popular item is requested ∝ 1/k).
    pub skew: f64,
    pub rate_per_s: f64,
    pub duration_ms: i64,
    pub db_latency_ms: f64,
    pub rtt_ms: f64,
    /// TTL of a cached value, seconds (0: no TTL).
    pub ttl_s: i64,
    /// Cache size, bytes (0: no limit).
    pub maxmemory: u64,
    pub policy: String,
    pub value_bytes: usize,
    pub seed: u64,
    pub start_ms: i64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            keys: 10_000,
            skew: 1.0,
            rate_per_s: 1_000.0,
            duration_ms: 60_000,
            db_latency_ms: 50.0,
            rtt_ms: 0.5,
            ttl_s: 30,
            maxmemory: 0,
            policy: "allkeys-lru".into(),
            value_bytes: 100,
            seed: 1,
            start_ms: DEFAULT_START_MS,
        }
    }
}

#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ConfigInput {
    pub keys: Option<f64>,
    pub skew: Option<f64>,
    pub rate_per_s: Option<f64>,
    pub duration_ms: Option<f64>,
    pub db_latency_ms: Option<f64>,
    pub rtt_ms: Option<f64>,
    pub ttl_s: Option<f64>,
    pub maxmemory: Option<f64>,
    pub policy: Option<String>,
    pub value_bytes: Option<f64>,
    pub seed: Option<f64>,
    pub start_ms: Option<f64>,
}

fn num(name: &str, v: Option<f64>, default: f64, lo: f64, hi: f64, whole: bool) -> Result<f64, String> {
    let Some(v) = v else { return Ok(default) };
    if !(v.is_finite() && v >= lo && v <= hi && (!whole || v.fract() == 0.0)) {
        let kind = if whole { "a whole number" } else { "a number" };
        return Err(format!("{name} must be {kind} from {lo} to {hi} (got {v})"));
    }
    Ok(v)
}

const POLICIES: &[&str] = &[
    "noeviction",
    "allkeys-lru",
    "allkeys-lfu",
    "allkeys-random",
    "volatile-lru",
    "volatile-lfu",
    "volatile-random",
    "volatile-ttl",
];

impl ConfigInput {
    pub fn into_config(self) -> Result<Config, String> {
        let d = Config::default();
        let rate = num("ratePerS", self.rate_per_s, d.rate_per_s, 0.001, 100_000.0, false)?;
        let duration = num("durationMs", self.duration_ms, d.duration_ms as f64, 1.0, 86_400_000.0, true)?;
        if rate * duration / 1000.0 > 2_000_000.0 {
            return Err("ratePerS × duration would make more than 2,000,000 requests".into());
        }
        let policy = self.policy.unwrap_or(d.policy);
        if !POLICIES.contains(&policy.as_str()) {
            return Err(format!("policy must be one of {} (got {policy})", POLICIES.join(", ")));
        }
        Ok(Config {
            keys: num("keys", self.keys, d.keys as f64, 1.0, 1_000_000.0, true)? as u64,
            skew: num("skew", self.skew, d.skew, 0.0, 5.0, false)?,
            rate_per_s: rate,
            duration_ms: duration as i64,
            db_latency_ms: num("dbLatencyMs", self.db_latency_ms, d.db_latency_ms, 0.0, 60_000.0, false)?,
            rtt_ms: num("rttMs", self.rtt_ms, d.rtt_ms, 0.0, 10_000.0, false)?,
            ttl_s: num("ttlS", self.ttl_s, d.ttl_s as f64, 0.0, 31_536_000.0, true)? as i64,
            maxmemory: num("maxmemory", self.maxmemory, 0.0, 0.0, 1e12, true)? as u64,
            policy,
            value_bytes: num("valueBytes", self.value_bytes, d.value_bytes as f64, 1.0, 1_000_000.0, true)? as usize,
            seed: num("seed", self.seed, d.seed as f64, 0.0, 9_007_199_254_740_991.0, true)? as u64,
            start_ms: num("startMs", self.start_ms, d.start_ms as f64, 0.0, 253_402_300_799_000.0, true)? as i64,
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub requests: u64,
    pub hits: u64,
    pub misses: u64,
    pub hit_ratio: f64,
    /// Database queries per second with the cache, and without it (every request).
    pub db_queries_per_second: f64,
    pub db_queries_per_second_without_cache: f64,
    /// Share of the database load the cache absorbs.
    pub load_absorbed: f64,
    pub mean_latency_ms: f64,
    pub p99_latency_ms: f64,
    /// From the engine's INFO.
    pub expired_keys: u64,
    pub evicted_keys: u64,
    pub keys_in_cache: u64,
    /// Hit ratio per tenth of the run (the cache warming up).
    pub hit_ratio_by_tenth: Vec<f64>,
}

/// Zipf(s) over 1..=n by inverse CDF.
struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    fn new(n: u64, s: f64) -> Zipf {
        let mut cdf = Vec::with_capacity(n as usize);
        let mut sum = 0.0;
        for k in 1..=n {
            sum += 1.0 / (k as f64).powf(s);
            cdf.push(sum);
        }
        for v in &mut cdf {
            *v /= sum;
        }
        Zipf { cdf }
    }

    /// A 0-based item (0 = the most popular).
    fn sample(&self, u: f64) -> usize {
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1)
    }
}

fn info_field(e: &mut Engine, c: u64, section: &str, field: &str) -> u64 {
    let argv = vec![b"INFO".to_vec(), section.as_bytes().to_vec()];
    let Reply::Bulk(info) = e.execute(c, &argv).into_resp2() else { return 0 };
    let text = String::from_utf8_lossy(&info).into_owned();
    let prefix = format!("{field}:");
    text.lines().find_map(|l| l.strip_prefix(prefix.as_str())).and_then(|v| v.trim().parse().ok()).unwrap_or(0)
}

pub fn run(cfg: &Config) -> Outcome {
    let mut e = Engine::new(EngineOptions { seed: cfg.seed, start_ms: cfg.start_ms });
    e.set_event_recording(false);
    let c = e.connect();
    let set = |e: &mut Engine, args: &[&str]| {
        let argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        e.execute(c, &argv)
    };
    if cfg.maxmemory > 0 {
        set(&mut e, &["CONFIG", "SET", "maxmemory-policy", &cfg.policy]);
        set(&mut e, &["CONFIG", "SET", "maxmemory", &cfg.maxmemory.to_string()]);
    }
    let zipf = Zipf::new(cfg.keys, cfg.skew);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed ^ 0x63_6163_6865);
    let mut uniform = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let value = "v".repeat(cfg.value_bytes);
    let ttl = cfg.ttl_s.to_string();
    let mut t = 0.0f64;
    let mut out = Outcome::default();
    let mut latencies: Vec<f64> = Vec::new();
    let mut tenths = [(0u64, 0u64); 10];
    // Write-backs on their way: (virtual ms, key), earliest first.
    let mut pending: std::collections::BinaryHeap<std::cmp::Reverse<(i64, String)>> = Default::default();
    let write_back = |e: &mut Engine, key: String| {
        let mut argv = vec![b"SET".to_vec(), key.into_bytes(), value.as_bytes().to_vec()];
        if cfg.ttl_s > 0 {
            argv.extend([b"EX".to_vec(), ttl.as_bytes().to_vec()]);
        }
        e.execute(c, &argv);
        e.before_sleep();
    };
    loop {
        t += -(1000.0 / cfg.rate_per_s) * (1.0 - uniform()).ln();
        if t >= cfg.duration_ms as f64 {
            break;
        }
        let now = cfg.start_ms + t as i64;
        while let Some(std::cmp::Reverse((at, _))) = pending.peek() {
            if *at > now {
                break;
            }
            let std::cmp::Reverse((at, key)) = pending.pop().unwrap();
            if at > e.now_ms() {
                e.advance_to(at, u64::MAX);
            }
            write_back(&mut e, key);
        }
        if now > e.now_ms() {
            e.advance_to(now, u64::MAX);
            e.before_sleep();
        }
        let key = format!("item:{}", zipf.sample(uniform()) + 1);
        let hit = !matches!(e.execute(c, &[b"GET".to_vec(), key.clone().into_bytes()]), Reply::Nil);
        e.before_sleep();
        let tenth = ((t / cfg.duration_ms as f64) * 10.0) as usize;
        out.requests += 1;
        tenths[tenth.min(9)].0 += 1;
        if hit {
            out.hits += 1;
            tenths[tenth.min(9)].1 += 1;
            latencies.push(cfg.rtt_ms);
        } else {
            out.misses += 1;
            // The database answers later; the write-back reaches the cache then.
            let back = now + (cfg.rtt_ms + cfg.db_latency_ms).round() as i64;
            pending.push(std::cmp::Reverse((back, key)));
            latencies.push(2.0 * cfg.rtt_ms + cfg.db_latency_ms);
        }
    }
    let secs = cfg.duration_ms as f64 / 1000.0;
    out.hit_ratio = if out.requests > 0 { out.hits as f64 / out.requests as f64 } else { 0.0 };
    out.db_queries_per_second = out.misses as f64 / secs;
    out.db_queries_per_second_without_cache = out.requests as f64 / secs;
    out.load_absorbed = out.hit_ratio;
    if !latencies.is_empty() {
        out.mean_latency_ms = latencies.iter().sum::<f64>() / latencies.len() as f64;
        latencies.sort_by(f64::total_cmp);
        let rank = ((0.99 * latencies.len() as f64).ceil() as usize).clamp(1, latencies.len());
        out.p99_latency_ms = latencies[rank - 1];
    }
    out.hit_ratio_by_tenth = tenths.iter().map(|(n, h)| if *n > 0 { *h as f64 / *n as f64 } else { 0.0 }).collect();
    out.expired_keys = info_field(&mut e, c, "stats", "expired_keys");
    out.evicted_keys = info_field(&mut e, c, "stats", "evicted_keys");
    out.keys_in_cache = e.dbsize(0) as u64;
    out
}
