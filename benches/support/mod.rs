//! Shared by the benches (benches/engine.rs, benches/zset.rs): a fixed LCG for the keys and
//! scores each run draws, argv building, and the sorted set both measure.
#![allow(dead_code)]

use redisplay::Engine;

pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 11
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

pub fn argv(parts: &[String]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.clone().into_bytes()).collect()
}

/// A sorted set `z` of `n` members `member:i` with random scores, 10,000 per ZADD.
pub fn build_zset(e: &mut Engine, client: u64, n: usize, rng: &mut Lcg) {
    let mut batch = vec!["ZADD".to_string(), "z".to_string()];
    for i in 0..n {
        batch.push((rng.next() % 1_000_000_000).to_string());
        batch.push(format!("member:{i}"));
        if batch.len() >= 2 + 2 * 10_000 || i + 1 == n {
            e.execute(client, &argv(&batch));
            batch.truncate(2);
        }
    }
}
