//! Pipelining vs one round trip per command, under a simulated network.
//!
//! A client that waits for each reply pays one network round trip per command; a pipeline pays
//! one per batch. This runs the SETs through a real engine (the keys exist afterwards, cron
//! ticks as the virtual clock passes) and accounts virtual time with two numbers, both given:
//!
//! - the round trip, `rttUs` or a `network` preset ([`Network`]): same host (loopback), same
//!   data centre, cross-region;
//! - the server's time per SET, from one of three sources ([`Server`]): redis-server 7.0.15 on
//!   the machine this was written on, measured ([`REDIS_SERVER_SET_NS`]); the cost model of
//!   src/cost.rs (what the engine charges its virtual CPU for each SET); or a number measured
//!   elsewhere — the page times [`set_burst`] with `performance.now()` and passes the result as
//!   `serviceNs` with `server: "this-page"`.
//!
//! One by one: each command costs `rtt + service`. Pipelined in batches of `batch`: each batch
//! costs one `rtt` plus the service of its commands (the server answers the batch in order; the
//! client sends the next batch when the last reply arrives). Not modelled: the client's own CPU
//! (building and parsing commands: in a Python client it is most of the time), bandwidth,
//! Nagle, the kernel's per-write cost growing with the batch.

use serde::Serialize;

use crate::cost;
use crate::engine::{Engine, EngineOptions, DEFAULT_START_MS};

/// redis-server 7.0.15's time per SET when the server, not the network, is the limit: on this
/// machine (2 cores, shared), `redis-benchmark -p 7451 -t set -n 100000 -q -P 100` (50 clients,
/// 100 commands per write) gave 1,666,667 and 1,851,852 SETs per second (2 Dec 2026); the faster
/// run is 540 ns a SET — reading, parsing, running, replying, syscalls amortised over the
/// batch. (INFO commandstats' `usec_per_call` for SET, the call alone, is 0.18 µs: src/cost.rs.)
pub const REDIS_SERVER_SET_NS: u64 = 540;

/// The round trip between client and server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Network {
    /// Loopback on one machine: 25 µs (a PING loop on one connection measured 19–27 µs here,
    /// `redis-benchmark -c 1 -t set` a p50 of 23 µs).
    SameHost,
    /// Two machines in one data centre or availability zone: 250 µs (typically 0.2–0.5 ms).
    SameDc,
    /// Client and server in different regions: 50 ms (typically 30–80 ms).
    CrossRegion,
    /// `rttUs` as given.
    Custom,
}

impl Network {
    pub fn rtt_ns(self) -> Option<u64> {
        match self {
            Network::SameHost => Some(25_000),
            Network::SameDc => Some(250_000),
            Network::CrossRegion => Some(50_000_000),
            Network::Custom => None,
        }
    }

    fn parse(s: &str) -> Option<Network> {
        match s {
            "same-host" => Some(Network::SameHost),
            "same-dc" => Some(Network::SameDc),
            "cross-region" => Some(Network::CrossRegion),
            _ => None,
        }
    }
}

/// Where the server's time per SET comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Server {
    /// [`REDIS_SERVER_SET_NS`]: redis-server measured with redis-benchmark.
    RedisServer,
    /// What the cost model charges for each SET the simulation runs (src/cost.rs).
    Model,
    /// `serviceNs` measured in the page: this page's wasm engine running SETs.
    ThisPage,
    /// `serviceNs` as given.
    Given,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub commands: u64,
    pub batch: u64,
    pub network: Network,
    pub rtt_ns: u64,
    pub server: Server,
    /// The service time per command; unused with `Server::Model` (charged per command).
    pub service_ns: u64,
    pub seed: u64,
    pub start_ms: i64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            commands: 100_000,
            batch: 100,
            network: Network::SameHost,
            rtt_ns: 25_000,
            server: Server::RedisServer,
            service_ns: REDIS_SERVER_SET_NS,
            seed: 1,
            start_ms: DEFAULT_START_MS,
        }
    }
}

#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ConfigInput {
    pub commands: Option<f64>,
    pub batch: Option<f64>,
    /// "same-host" | "same-dc" | "cross-region" (default same-host); `rttUs` overrides it.
    pub network: Option<String>,
    pub rtt_us: Option<f64>,
    /// "redis-server" (default) | "model" | "this-page" (with `serviceNs`); `serviceNs` alone
    /// is "given".
    pub server: Option<String>,
    pub service_ns: Option<f64>,
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
        let network = match self.network.as_deref() {
            None => d.network,
            Some(s) => Network::parse(s)
                .ok_or_else(|| format!("network must be same-host, same-dc or cross-region (got {s:?})"))?,
        };
        let (network, rtt_ns) = match self.rtt_us {
            None => (network, network.rtt_ns().unwrap_or(d.rtt_ns)),
            Some(us) if us.is_finite() && (0.0..=10_000_000.0).contains(&us) => {
                (Network::Custom, (us * 1000.0).round() as u64)
            }
            Some(us) => return Err(format!("rttUs must be a number of µs from 0 to 10000000 (got {us})")),
        };
        let service_ns = match self.service_ns {
            None => None,
            Some(ns) if ns.is_finite() && (0.0..=1e9).contains(&ns) => Some(ns.round() as u64),
            Some(ns) => return Err(format!("serviceNs must be a number of ns from 0 to 1000000000 (got {ns})")),
        };
        let (server, service_ns) = match (self.server.as_deref(), service_ns) {
            (None, None) | (Some("redis-server"), None) => (Server::RedisServer, REDIS_SERVER_SET_NS),
            (Some("model"), None) => (Server::Model, 0),
            (Some("this-page"), Some(ns)) => (Server::ThisPage, ns),
            (Some("this-page"), None) => {
                return Err("server \"this-page\" needs serviceNs: the page measures it and passes it".into())
            }
            (None, Some(ns)) => (Server::Given, ns),
            (Some(s), _) => {
                return Err(format!(
                    "server must be redis-server or model, or this-page with serviceNs (got {s:?}{})",
                    if service_ns.is_some() { " with serviceNs" } else { "" }
                ))
            }
        };
        Ok(Config {
            commands: whole("commands", self.commands, d.commands, 1, 1_000_000)?,
            batch: whole("batch", self.batch, d.batch, 1, 1_000_000)?,
            network,
            rtt_ns,
            server,
            service_ns,
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

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub commands: u64,
    pub batch: u64,
    pub network: Network,
    pub rtt_us: f64,
    pub server: Server,
    /// The server's time per SET (with `model`: the mean of what it charged).
    pub service_ns: f64,
    /// The batch at which the server's work per batch equals one round trip (rtt / service):
    /// below it the network dominates, above it the server does.
    pub break_even_batch: f64,
    pub one_by_one: Mode,
    pub pipelined: Mode,
    /// one_by_one.total_ms / pipelined.total_ms
    pub speedup: f64,
}

fn set_argv(i: u64) -> Vec<Vec<u8>> {
    vec![b"SET".to_vec(), format!("key:{i}").into_bytes(), format!("value{i}").into_bytes()]
}

/// Runs `n` SETs (the ones the simulation sends) on a fresh engine and returns how many keys
/// it holds: the page times this call to measure its engine's cost per command.
pub fn set_burst(n: u64, seed: u64) -> u64 {
    let mut e = Engine::new(EngineOptions { seed, start_ms: DEFAULT_START_MS });
    e.set_event_recording(false);
    let c = e.connect();
    for i in 0..n {
        e.execute(c, &set_argv(i));
    }
    e.dbsize(0) as u64
}

/// Sends `commands` SETs in batches of `batch`, moving the engine's clock by the time each
/// batch takes. Returns the mode and the server time spent (ns).
fn send(cfg: &Config, batch: u64) -> (Mode, u64) {
    let mut e = Engine::new(EngineOptions { seed: cfg.seed, start_ms: cfg.start_ms });
    e.set_event_recording(false);
    let c = e.connect();
    let mut elapsed_ns: u64 = 0;
    let mut service_total: u64 = 0;
    let mut sent = 0u64;
    let mut round_trips = 0u64;
    while sent < cfg.commands {
        let n = batch.min(cfg.commands - sent);
        let mut service = 0u64;
        for i in sent..sent + n {
            let argv = set_argv(i);
            let reply = e.execute(c, &argv);
            service += match cfg.server {
                Server::Model => cost::command_cost_ns(&argv, Some(&reply)),
                _ => cfg.service_ns,
            };
        }
        e.before_sleep();
        sent += n;
        round_trips += 1;
        service_total += service;
        elapsed_ns += cfg.rtt_ns + service;
        e.advance_to(cfg.start_ms + (elapsed_ns / 1_000_000) as i64, u64::MAX);
    }
    let mode = Mode {
        round_trips,
        total_ms: elapsed_ns as f64 / 1e6,
        commands_per_second: if elapsed_ns > 0 { cfg.commands as f64 * 1e9 / elapsed_ns as f64 } else { f64::INFINITY },
        network_share: if elapsed_ns > 0 { (round_trips * cfg.rtt_ns) as f64 / elapsed_ns as f64 } else { 0.0 },
        keys: e.dbsize(0) as u64,
    };
    (mode, service_total)
}

pub fn run(cfg: &Config) -> Outcome {
    let (one, service_total) = send(cfg, 1);
    let (piped, _) = send(cfg, cfg.batch);
    let service_ns = service_total as f64 / cfg.commands as f64;
    Outcome {
        commands: cfg.commands,
        batch: cfg.batch,
        network: cfg.network,
        rtt_us: cfg.rtt_ns as f64 / 1000.0,
        server: cfg.server,
        service_ns,
        break_even_batch: if service_ns > 0.0 { cfg.rtt_ns as f64 / service_ns } else { f64::INFINITY },
        speedup: if piped.total_ms > 0.0 { one.total_ms / piped.total_ms } else { 1.0 },
        one_by_one: one,
        pipelined: piped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(v: serde_json::Value) -> Result<Config, String> {
        serde_json::from_value::<ConfigInput>(v).map_err(|e| e.to_string())?.into_config()
    }

    #[test]
    fn one_round_trip_per_command_or_per_batch() {
        let cfg = Config { commands: 1000, batch: 100, ..Config::default() };
        let r = run(&cfg);
        assert_eq!((r.one_by_one.round_trips, r.pipelined.round_trips), (1000, 10));
        // One by one: 1000 × (25 µs + 0.54 µs); pipelined: 10 × 25 µs + 1000 × 0.54 µs.
        assert!((r.one_by_one.total_ms - 25.54).abs() < 1e-9, "{}", r.one_by_one.total_ms);
        assert!((r.pipelined.total_ms - 0.79).abs() < 1e-9, "{}", r.pipelined.total_ms);
        assert!((r.speedup - 25.54 / 0.79).abs() < 1e-9);
        assert!((r.pipelined.network_share - 0.25 / 0.79).abs() < 1e-9);
        assert_eq!((r.one_by_one.keys, r.pipelined.keys), (1000, 1000), "the SETs really ran");
        assert!((r.break_even_batch - 25_000.0 / 540.0).abs() < 1e-9);
        // A last, partial batch is still a round trip.
        let r = run(&Config { commands: 10, batch: 3, ..Config::default() });
        assert_eq!(r.pipelined.round_trips, 4);
    }

    #[test]
    fn bigger_batches_help_less_and_less() {
        let at = |batch| run(&Config { commands: 10_000, batch, ..Config::default() }).pipelined.total_ms;
        let (b1, b10, b100, b1000) = (at(1), at(10), at(100), at(1000));
        assert!(b1 > b10 && b10 > b100 && b100 > b1000);
        assert!(b1 / b10 > 5.0, "{b1} {b10}");
        assert!(b100 / b1000 < 2.0, "{b100} {b1000}: past the break-even batch the server's work dominates");
        // The server's own time is a floor no batch goes under: 10,000 × 0.54 µs.
        assert!(b1000 > 5.4);
    }

    #[test]
    fn presets_and_sources() {
        let c = input(serde_json::json!({})).unwrap();
        assert_eq!(
            (c.network, c.rtt_ns, c.server, c.service_ns),
            (Network::SameHost, 25_000, Server::RedisServer, 540)
        );
        let c = input(serde_json::json!({"network": "same-dc"})).unwrap();
        assert_eq!(c.rtt_ns, 250_000);
        let c = input(serde_json::json!({"network": "cross-region"})).unwrap();
        assert_eq!(c.rtt_ns, 50_000_000);
        let c = input(serde_json::json!({"network": "same-dc", "rttUs": 120})).unwrap();
        assert_eq!((c.network, c.rtt_ns), (Network::Custom, 120_000));
        let c = input(serde_json::json!({"server": "this-page", "serviceNs": 812.4})).unwrap();
        assert_eq!((c.server, c.service_ns), (Server::ThisPage, 812));
        let c = input(serde_json::json!({"serviceNs": 8000})).unwrap();
        assert_eq!((c.server, c.service_ns), (Server::Given, 8000));
        for bad in [
            serde_json::json!({"network": "moon"}),
            serde_json::json!({"server": "this-page"}),
            serde_json::json!({"server": "mysql"}),
            serde_json::json!({"rttUs": -1}),
            serde_json::json!({"serviceNs": 1e12}),
            serde_json::json!({"batch": 0}),
            serde_json::json!({"commands": 2.5}),
        ] {
            assert!(input(bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_model_charges_each_set_what_src_cost_rs_says() {
        let r = run(&Config { commands: 100, batch: 10, server: Server::Model, ..Config::default() });
        let one = cost::command_cost_ns(&set_argv(7), Some(&crate::reply::Reply::ok()));
        assert_eq!(r.service_ns, one as f64);
        assert!((100..300).contains(&one), "{one}");
        assert!((r.pipelined.total_ms - (10.0 * 0.025 + 100.0 * one as f64 / 1e6)).abs() < 1e-9);
    }

    #[test]
    fn the_network_sets_what_pipelining_is_worth() {
        let at = |network| {
            run(&Config { commands: 1000, batch: 100, network, rtt_ns: network.rtt_ns().unwrap(), ..Config::default() })
        };
        let (host, dc, region) = (at(Network::SameHost), at(Network::SameDc), at(Network::CrossRegion));
        assert!(host.speedup < dc.speedup && dc.speedup < region.speedup);
        // Across regions one by one, 1000 SETs take 1000 round trips of 50 ms.
        assert!((region.one_by_one.total_ms - (50_000.0 + 0.54)).abs() < 1e-6);
        assert!(region.pipelined.network_share > 0.99, "batches of 100 are still all waiting");
        assert_eq!(region.one_by_one.keys, 1000);
        assert_eq!(set_burst(50, 1), 50);
    }
}
