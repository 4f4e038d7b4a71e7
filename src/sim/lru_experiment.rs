//! The LRU-approximation experiment from the Redis documentation ("Approximated LRU algorithm")
//! and antirez's write-up: fill memory with N keys, accessed one after another so the first are
//! the best LRU candidates; then add N/2 new keys under a maxmemory that forces as many old ones
//! out. True LRU would evict exactly the older half; Redis's sampled approximation evicts a blend
//! whose sharpness grows with `maxmemory-samples`. This runs the real engine — its eviction pool,
//! its 1-second LRU clock — and reports, per tenth of the old keys by age, the share evicted.

use crate::engine::{Engine, EngineOptions};
use crate::reply::Reply;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct ExperimentResult {
    pub keys: usize,
    pub samples: usize,
    /// Share of the old keys evicted, oldest tenth first.
    pub evicted_by_decile: Vec<f64>,
    /// Share of the new keys evicted (true LRU: none).
    pub new_keys_evicted: f64,
    pub evicted_total: u64,
}

fn exec(e: &mut Engine, c: u64, args: &[&str]) -> Reply {
    let argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    let r = e.execute(c, &argv);
    e.before_sleep();
    r
}

fn used_memory(e: &mut Engine, c: u64) -> u64 {
    let Reply::Bulk(info) = exec(e, c, &["INFO", "memory"]).into_resp2() else { return 0 };
    let text = String::from_utf8_lossy(&info);
    text.lines().find_map(|l| l.strip_prefix("used_memory:")).and_then(|v| v.trim().parse().ok()).unwrap_or(0)
}

/// Runs the experiment on a fresh engine with `keys` old keys and `samples` samples; `samples`
/// 0 means true LRU (computed exactly: the oldest keys go first).
pub fn run(keys: usize, samples: usize, seed: u64) -> ExperimentResult {
    let keys = keys.clamp(10, 200_000);
    let new_keys = keys / 2;
    if samples == 0 {
        let mut deciles = vec![0.0; 10];
        for (d, share) in deciles.iter_mut().enumerate() {
            // The oldest half of the old keys is exactly what true LRU evicts.
            let lo = d * keys / 10;
            let hi = (d + 1) * keys / 10;
            let evicted = (lo..hi).filter(|&i| i < new_keys).count();
            *share = evicted as f64 / (hi - lo).max(1) as f64;
        }
        return ExperimentResult {
            keys,
            samples,
            evicted_by_decile: deciles,
            new_keys_evicted: 0.0,
            evicted_total: new_keys as u64,
        };
    }
    let start = 1_700_000_000_000;
    let mut e = Engine::new(EngineOptions { seed, start_ms: start });
    e.set_event_recording(false);
    let c = e.connect();
    exec(&mut e, c, &["CONFIG", "SET", "maxmemory-policy", "allkeys-lru"]);
    exec(&mut e, c, &["CONFIG", "SET", "maxmemory-samples", &samples.to_string()]);
    // One second per key, so every key has its own LRU clock value.
    for i in 0..keys {
        exec(&mut e, c, &["SET", &format!("old:{i:06}"), "v"]);
        e.advance_to(e.now_ms() + 1000, u64::MAX);
    }
    exec(&mut e, c, &["CONFIG", "SET", "maxmemory", "0"]);
    used_memory(&mut e, c);
    let limit = used_memory(&mut e, c);
    exec(&mut e, c, &["CONFIG", "SET", "maxmemory", &limit.to_string()]);
    for i in 0..new_keys {
        exec(&mut e, c, &["SET", &format!("new:{i:06}"), "v"]);
        e.advance_to(e.now_ms() + 1000, u64::MAX);
    }
    let mut deciles = vec![0.0; 10];
    for (d, share) in deciles.iter_mut().enumerate() {
        let (lo, hi) = (d * keys / 10, (d + 1) * keys / 10);
        let gone = (lo..hi).filter(|i| !e.dbs[0].contains(format!("old:{i:06}").as_bytes())).count();
        *share = gone as f64 / (hi - lo).max(1) as f64;
    }
    let new_gone = (0..new_keys).filter(|i| !e.dbs[0].contains(format!("new:{i:06}").as_bytes())).count();
    ExperimentResult {
        keys,
        samples,
        evicted_by_decile: deciles,
        new_keys_evicted: new_gone as f64 / new_keys.max(1) as f64,
        evicted_total: e.stats.evicted_keys,
    }
}

/// The comparison table: true LRU and each sample size, side by side.
pub fn table(keys: usize, samples: &[usize], seed: u64) -> String {
    let mut cols = vec![run(keys, 0, seed)];
    for &s in samples {
        cols.push(run(keys, s, seed));
    }
    let mut out = format!(
        "LRU approximation: {keys} keys accessed oldest first, then {} new keys under maxmemory (allkeys-lru).\n",
        keys / 2
    );
    out.push_str("Share of the old keys evicted, by age (oldest tenth first):\n\n");
    out.push_str("  old keys   ");
    for c in &cols {
        out.push_str(&format!(
            "{:>12}",
            if c.samples == 0 { "true LRU".to_string() } else { format!("samples {}", c.samples) }
        ));
    }
    out.push('\n');
    for d in 0..10 {
        out.push_str(&format!("  {:>3}-{:<3}%  ", d * 10, (d + 1) * 10));
        for c in &cols {
            out.push_str(&format!("{:>11.1}%", c.evicted_by_decile[d] * 100.0));
        }
        out.push('\n');
    }
    out.push_str("  new keys   ");
    for c in &cols {
        out.push_str(&format!("{:>11.1}%", c.new_keys_evicted * 100.0));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_samples_approach_true_lru() {
        let truth = run(1000, 0, 1);
        let s5 = run(1000, 5, 1);
        let s10 = run(1000, 10, 1);
        let error = |r: &ExperimentResult| {
            r.evicted_by_decile.iter().zip(&truth.evicted_by_decile).map(|(a, b)| (a - b).abs()).sum::<f64>()
        };
        assert!(error(&s10) < error(&s5), "samples 10 is closer to true LRU than 5: {} vs {}", error(&s10), error(&s5));
        // The oldest tenth is mostly gone, the newest tenth of old keys mostly kept.
        assert!(s5.evicted_by_decile[0] > 0.6, "{:?}", s5.evicted_by_decile);
        assert!(s5.evicted_by_decile[9] < 0.3, "{:?}", s5.evicted_by_decile);
    }
}
