//! Pipelining vs one round trip per command, under a simulated network.
//!
//! The usual illustration: 100,000 commands take about 12 s when each waits for its reply, about
//! 0.8 s pipelined. The time goes to round trips, not to Redis: a command costs the server a few
//! microseconds, a round trip costs the client a hundred or more. This runs the commands
//! through a real engine (the keys exist afterwards, cron ticks as the virtual clock passes) and
//! accounts virtual time with two documented constants:
//! - `rtt_us`: the network round trip (default 112 µs, a loopback/LAN figure);
//! - `service_us`: the server's time per command (default 8 µs, about what redis-server 7.0
//!   spends on a small SET including its read and write syscalls amortised over a pipeline —
//!   that illustration's 0.8 s / 100,000).
//!
//! One by one: each command costs `rtt + service`. Pipelined in batches of `batch`: each batch
//! costs one `rtt` plus `batch × service` (the server answers the batch in order; the client
//! sends the next batch when the last reply arrives). Not modelled: bandwidth, Nagle, the
//! client's own CPU.

use serde::Serialize;

use crate::engine::{Engine, EngineOptions, DEFAULT_START_MS};

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub commands: u64,
    pub batch: u64,
    pub rtt_us: u64,
    pub service_us: u64,
    pub seed: u64,
    pub start_ms: i64,
}

impl Default for Config {
    fn default() -> Config {
        Config { commands: 100_000, batch: 1000, rtt_us: 112, service_us: 8, seed: 1, start_ms: DEFAULT_START_MS }
    }
}

#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ConfigInput {
    pub commands: Option<f64>,
    pub batch: Option<f64>,
    pub rtt_us: Option<f64>,
    pub service_us: Option<f64>,
    pub seed: Option<f64>,
    pub start_ms: Option<f64>,
}

fn whole(name: &str, v: Option<f64>, default: u64, lo: u64, hi: u64) -> Result<u64, String> {
    let Some(v) = v else { return Ok(default) };
    if !(v.is_finite() && v.fract() == 0.0 && v >= lo as f64 && v <= hi as f64) {
        return Err(format!("{name} must be a whole number from {lo} to {hi} (got {v})"));
    }
    Ok(v as u64)
}

impl ConfigInput {
    pub fn into_config(self) -> Result<Config, String> {
        let d = Config::default();
        Ok(Config {
            commands: whole("commands", self.commands, d.commands, 1, 1_000_000)?,
            batch: whole("batch", self.batch, d.batch, 1, 100_000)?,
            rtt_us: whole("rttUs", self.rtt_us, d.rtt_us, 0, 10_000_000)?,
            service_us: whole("serviceUs", self.service_us, d.service_us, 0, 1_000_000)?,
            seed: whole("seed", self.seed, d.seed, 0, 1 << 53)?,
            start_ms: whole("startMs", self.start_ms, d.start_ms as u64, 0, 253_402_300_799_000)? as i64,
        })
    }
}

/// One way of sending the commands.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Mode {
    pub round_trips: u64,
    pub total_ms: f64,
    pub commands_per_second: f64,
    /// Share of the time spent waiting on the network.
    pub network_share: f64,
    /// Keys the engine holds afterwards (each mode runs on a fresh engine).
    pub keys: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub commands: u64,
    pub batch: u64,
    pub one_by_one: Mode,
    pub pipelined: Mode,
    /// one_by_one.total_ms / pipelined.total_ms
    pub speedup: f64,
}

/// Sends `commands` SETs in batches of `batch`, moving the engine's clock by the time each
/// batch takes.
fn send(cfg: &Config, batch: u64) -> Mode {
    let mut e = Engine::new(EngineOptions { seed: cfg.seed, start_ms: cfg.start_ms });
    e.set_event_recording(false);
    let c = e.connect();
    let mut elapsed_us: u64 = 0;
    let mut sent = 0u64;
    let mut round_trips = 0u64;
    while sent < cfg.commands {
        let n = batch.min(cfg.commands - sent);
        for i in sent..sent + n {
            let argv = vec![b"SET".to_vec(), format!("key:{i}").into_bytes(), format!("value{i}").into_bytes()];
            e.execute(c, &argv);
        }
        e.before_sleep();
        sent += n;
        round_trips += 1;
        elapsed_us += cfg.rtt_us + n * cfg.service_us;
        e.advance_to(cfg.start_ms + (elapsed_us / 1000) as i64, u64::MAX);
    }
    let total_ms = elapsed_us as f64 / 1000.0;
    Mode {
        round_trips,
        total_ms,
        commands_per_second: if elapsed_us > 0 { cfg.commands as f64 * 1e6 / elapsed_us as f64 } else { f64::INFINITY },
        network_share: if elapsed_us > 0 { (round_trips * cfg.rtt_us) as f64 / elapsed_us as f64 } else { 0.0 },
        keys: e.dbsize(0) as u64,
    }
}

pub fn run(cfg: &Config) -> Outcome {
    let one = send(cfg, 1);
    let piped = send(cfg, cfg.batch);
    Outcome {
        commands: cfg.commands,
        batch: cfg.batch,
        speedup: if piped.total_ms > 0.0 { one.total_ms / piped.total_ms } else { 1.0 },
        one_by_one: one,
        pipelined: piped,
    }
}
