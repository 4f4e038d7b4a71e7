//! The delay-queue config as the page sends it (a JavaScript object through src/wasm.rs and the
//! labs' JSON), checked into a `Config`. The simulation is mod.rs.

use super::{Config, Crash, OrderSpec};
use crate::sim::strategies::Strategy;

/// The config as the page sends it (camelCase, every field optional; numbers as JavaScript
/// numbers). `into_config` checks it.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ConfigInput {
    pub strategy: Option<f64>,
    pub consumers: Option<f64>,
    pub poll_ms: Option<f64>,
    pub limit: Option<f64>,
    pub work_ms: Option<f64>,
    pub rtt_ms: Option<f64>,
    pub rate_per_s: Option<f64>,
    pub delay_ms: Option<f64>,
    pub pay_prob: Option<f64>,
    pub pay_mean_ms: Option<f64>,
    pub duration_ms: Option<f64>,
    pub seed: Option<f64>,
    pub hz: Option<f64>,
    pub start_ms: Option<f64>,
    pub volatile_keys: Option<f64>,
    pub claim_idle_ms: Option<f64>,
    pub fail_prob: Option<f64>,
    pub max_tries: Option<f64>,
    pub backoff_ms: Option<f64>,
    pub crashes: Option<Vec<CrashInput>>,
    pub orders: Option<Vec<OrderInput>>,
}

#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CrashInput {
    pub consumer: Option<f64>,
    pub at_ms: Option<f64>,
    pub for_ms: Option<f64>,
}

#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OrderInput {
    pub at_ms: Option<f64>,
    pub delay_ms: Option<f64>,
    pub pay_at_ms: Option<f64>,
}

/// A whole number from a JavaScript number (refuses NaN, fractions and |v| ≥ 2^53).
fn whole(name: &str, v: f64) -> Result<i64, String> {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 {
        Ok(v as i64)
    } else {
        Err(format!("{name} must be a whole number (got {v})"))
    }
}

impl ConfigInput {
    pub fn into_config(self) -> Result<Config, String> {
        let d = Config::default();
        let int = |name: &str, v: Option<f64>, default: i64| v.map_or(Ok(default), |v| whole(name, v));
        let count = |name: &str, v: Option<f64>, default: usize| -> Result<usize, String> {
            let n = int(name, v, default as i64)?;
            usize::try_from(n).map_err(|_| format!("{name} must not be negative (got {n})"))
        };
        let strategy_n = int("strategy", self.strategy, 1)?;
        let strategy =
            Strategy::from_number(strategy_n).ok_or_else(|| format!("strategy must be 1 to 6 (got {strategy_n})"))?;
        let seed = int("seed", self.seed, 1)?;
        let crashes = self
            .crashes
            .unwrap_or_default()
            .into_iter()
            .map(|c| {
                Ok(Crash {
                    consumer: count("crash consumer", c.consumer, 0)?,
                    at_ms: int("crash atMs", c.at_ms, 0)?,
                    for_ms: int("crash forMs", c.for_ms, 60_000)?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let orders = match self.orders {
            None => None,
            Some(list) => Some(
                list.into_iter()
                    .map(|o| {
                        Ok(OrderSpec {
                            at_ms: int("order atMs", o.at_ms, 0)?,
                            delay_ms: int("order delayMs", o.delay_ms, d.delay_ms)?,
                            pay_at_ms: o.pay_at_ms.map(|p| whole("order payAtMs", p)).transpose()?,
                        })
                    })
                    .collect::<Result<Vec<_>, String>>()?,
            ),
        };
        let cfg = Config {
            strategy,
            consumers: count("consumers", self.consumers, d.consumers)?,
            poll_ms: int("pollMs", self.poll_ms, d.poll_ms)?,
            limit: count("limit", self.limit, d.limit)?,
            work_ms: int("workMs", self.work_ms, d.work_ms)?,
            rtt_ms: int("rttMs", self.rtt_ms, d.rtt_ms)?,
            rate_per_s: self.rate_per_s.unwrap_or(d.rate_per_s),
            delay_ms: int("delayMs", self.delay_ms, d.delay_ms)?,
            pay_prob: self.pay_prob.unwrap_or(d.pay_prob),
            pay_mean_ms: int("payMeanMs", self.pay_mean_ms, d.pay_mean_ms)?,
            duration_ms: int("durationMs", self.duration_ms, d.duration_ms)?,
            seed: u64::try_from(seed).map_err(|_| format!("seed must not be negative (got {seed})"))?,
            hz: int("hz", self.hz, d.hz)?,
            start_ms: int("startMs", self.start_ms, d.start_ms)?,
            crashes,
            volatile_keys: count("volatileKeys", self.volatile_keys, 0)?,
            orders,
            claim_idle_ms: int("claimIdleMs", self.claim_idle_ms, d.claim_idle_ms)?,
            fail_prob: self.fail_prob.unwrap_or(d.fail_prob),
            max_tries: count("maxTries", self.max_tries, d.max_tries)?,
            backoff_ms: int("backoffMs", self.backoff_ms, d.backoff_ms)?,
        };
        cfg.validate()?;
        Ok(cfg)
    }
}
