//! `redisplay delay-queue`: its flags parsed into configs (one per strategy asked for), and the
//! run printed as the metrics table the README shows. The simulation is mod.rs.

use super::{table, Config, Crash, Sim};
use crate::sim::strategies::Strategy;

/// `250`, `250ms`, `5s`, `30m`, `2h`, `1d` → ms.
pub fn parse_duration(s: &str) -> Option<i64> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "ms"),
    };
    let n: f64 = num.parse().ok()?;
    let scale = match unit {
        "ms" => 1.0,
        "s" => 1000.0,
        "m" | "min" => 60_000.0,
        "h" => 3_600_000.0,
        "d" => 86_400_000.0,
        _ => return None,
    };
    let v = n * scale;
    (v.is_finite() && (0.0..=1e15).contains(&v)).then_some(v.round() as i64)
}

/// What `redisplay delay-queue` was asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct CliRequest {
    /// One config per strategy to run (`--strategy all` runs the six on the same orders).
    pub runs: Vec<Config>,
    /// `--code`: print each strategy's client code first.
    pub code: bool,
}

pub const CLI_USAGE: &str = "usage: redisplay delay-queue [--strategy 1-6|all] [--consumers N] [--poll 1s] [--limit N]
         [--work 20ms] [--rtt 2ms] [--rate ORDERS_PER_S] [--delay 30m] [--pay-prob P] [--pay-mean 10m]
         [--duration 1h] [--crash CONSUMER@AT+FOR]... [--volatile-keys N] [--claim-idle 30s]
         [--fail-prob P] [--max-tries 3] [--backoff 10s] [--hz N] [--seed N] [--code]
  Runs the delay-queue lab without a browser and prints its metrics table. Durations take
  ms/s/m/h/d suffixes (a bare number is ms). Consumers are numbered from 0; --crash 1@20m+5m
  takes consumer 1 down 20 minutes in, for 5 minutes. --fail-prob makes processings fail: the
  task is retried (a later score, doubling --backoff; strategy 6: XAUTOCLAIM) and after
  --max-tries goes to the dead-letter set.";

/// Parses the subcommand's flags.
pub fn parse_cli(args: &[String]) -> Result<CliRequest, String> {
    let mut cfg = Config::default();
    let mut strategies = vec![Strategy::PollClaim];
    let mut code = false;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        let dur = |v: String| parse_duration(&v).ok_or_else(|| format!("{flag}: not a duration: {v}"));
        match flag.as_str() {
            "--strategy" => {
                let v = value()?;
                strategies = if v == "all" {
                    Strategy::ALL.to_vec()
                } else {
                    let s = v.parse::<i64>().ok().and_then(Strategy::from_number);
                    vec![s.ok_or_else(|| format!("--strategy: 1 to 6 or all (got {v})"))?]
                };
            }
            "--consumers" => cfg.consumers = value()?.parse().map_err(|_| "--consumers needs a number".to_string())?,
            "--poll" => cfg.poll_ms = dur(value()?)?,
            "--limit" => cfg.limit = value()?.parse().map_err(|_| "--limit needs a number".to_string())?,
            "--work" => cfg.work_ms = dur(value()?)?,
            "--rtt" => cfg.rtt_ms = dur(value()?)?,
            "--rate" => cfg.rate_per_s = value()?.parse().map_err(|_| "--rate needs orders per second".to_string())?,
            "--delay" => cfg.delay_ms = dur(value()?)?,
            "--pay-prob" => {
                cfg.pay_prob = value()?.parse().map_err(|_| "--pay-prob needs a probability".to_string())?
            }
            "--pay-mean" => cfg.pay_mean_ms = dur(value()?)?,
            "--duration" => cfg.duration_ms = dur(value()?)?,
            "--volatile-keys" => {
                cfg.volatile_keys = value()?.parse().map_err(|_| "--volatile-keys needs a number".to_string())?
            }
            "--claim-idle" => cfg.claim_idle_ms = dur(value()?)?,
            "--fail-prob" => {
                cfg.fail_prob = value()?.parse().map_err(|_| "--fail-prob needs a probability".to_string())?
            }
            "--max-tries" => cfg.max_tries = value()?.parse().map_err(|_| "--max-tries needs a number".to_string())?,
            "--backoff" => cfg.backoff_ms = dur(value()?)?,
            "--hz" => cfg.hz = value()?.parse().map_err(|_| "--hz needs a number".to_string())?,
            "--seed" => cfg.seed = value()?.parse().map_err(|_| "--seed needs an unsigned integer".to_string())?,
            "--crash" => {
                let v = value()?;
                let bad = || format!("--crash: CONSUMER@AT+FOR, e.g. 1@20m+5m (got {v})");
                let (who, rest) = v.split_once('@').ok_or_else(bad)?;
                let (at, dur_s) = rest.split_once('+').ok_or_else(bad)?;
                cfg.crashes.push(Crash {
                    consumer: who.parse().map_err(|_| bad())?,
                    at_ms: parse_duration(at).ok_or_else(bad)?,
                    for_ms: parse_duration(dur_s).ok_or_else(bad)?,
                });
            }
            "--code" => code = true,
            other => return Err(format!("unknown delay-queue option {other}")),
        }
    }
    let runs: Vec<Config> = strategies.into_iter().map(|strategy| Config { strategy, ..cfg.clone() }).collect();
    for r in &runs {
        r.validate()?;
    }
    Ok(CliRequest { runs, code })
}

/// Runs what the flags asked for and returns the text to print.
pub fn run_cli(req: &CliRequest) -> String {
    let mut out = String::new();
    if req.code {
        for r in &req.runs {
            out.push_str(&format!("## {}. {}\n\n{}\n\n", r.strategy.number(), r.strategy.name(), r.strategy.code()));
        }
    }
    let mut rows = Vec::new();
    for cfg in &req.runs {
        let Ok(mut sim) = Sim::new(cfg.clone()) else { continue };
        let m = sim.run().clone();
        rows.push((format!("{}. {}", cfg.strategy.number(), cfg.strategy.name()), m));
    }
    if let Some(c) = req.runs.first() {
        let crashes: Vec<String> =
            c.crashes.iter().map(|k| format!("{}@{}ms+{}ms", k.consumer, k.at_ms, k.for_ms)).collect();
        out.push_str(&format!(
            "consumers {} · poll {} ms · limit {} · work {} ms · rtt {} ms · {} orders/s · delay {} ms · pay {:.0}% (mean {} ms) · {} ms · seed {}{}{}\n\n",
            c.consumers,
            c.poll_ms,
            c.limit,
            c.work_ms,
            c.rtt_ms,
            c.rate_per_s,
            c.delay_ms,
            c.pay_prob * 100.0,
            c.pay_mean_ms,
            c.duration_ms,
            c.seed,
            if crashes.is_empty() { String::new() } else { format!(" · crashes {}", crashes.join(", ")) },
            if c.fail_prob > 0.0 {
                format!(
                    " · fail {:.0}% (max tries {}, backoff {} ms)",
                    c.fail_prob * 100.0,
                    c.max_tries,
                    c.backoff_ms
                )
            } else {
                String::new()
            }
        ));
    }
    out.push_str(&table(&rows));
    out
}
