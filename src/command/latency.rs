//! latency.c's LATENCY command: LATEST, HISTORY, RESET, DOCTOR, GRAPH, HISTOGRAM (HELP is the
//! recorded reply). The monitor itself is ../latency.rs; the per-command histograms are kept by
//! call() (INFO latencystats reads them too).
//!
//! HISTOGRAM models latency.c `fillCommandCDF()`: per command a map of `calls` and
//! `histogram_usec`, the cumulative count at each power-of-two bucket from 1 µs (an
//! `hdr_iter_log_init(…, 1024, 2)` walk), only the buckets where it grew. Commands named that
//! don't exist are skipped; a container lists its subcommands that have data.
//! Difference: commands (and events) come in table (and creation) order where Redis walks its
//! dicts in hash order.

use crate::command::call::Call;
use crate::engine::Engine;
use crate::reply::Reply;

pub fn latency_latest(e: &mut Engine, _c: &Call) -> Reply {
    use crate::engine::stats::LATENCY_TS_LEN;
    Reply::Array(
        e.latency
            .events
            .iter()
            .map(|(event, ts)| {
                let last = ts.samples[(ts.idx + LATENCY_TS_LEN - 1) % LATENCY_TS_LEN];
                Reply::Array(vec![
                    Reply::bulk(event),
                    Reply::Integer(last.0),
                    Reply::Integer(last.1 as i64),
                    Reply::Integer(ts.max as i64),
                ])
            })
            .collect(),
    )
}

pub fn latency_history(e: &mut Engine, c: &Call) -> Reply {
    use crate::engine::stats::LATENCY_TS_LEN;
    let Some((_, ts)) = e.latency_series(c.arg(2)) else { return Reply::Array(vec![]) };
    Reply::Array(
        (0..LATENCY_TS_LEN)
            .map(|j| ts.samples[(ts.idx + j) % LATENCY_TS_LEN])
            .filter(|s| s.0 != 0)
            .map(|(time, latency)| Reply::Array(vec![Reply::Integer(time), Reply::Integer(latency as i64)]))
            .collect(),
    )
}

pub fn latency_reset(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() == 2 {
        return Reply::Integer(e.latency_reset(None) as i64);
    }
    let n: usize = c.argv[2..].iter().map(|ev| e.latency_reset(Some(ev))).sum();
    Reply::Integer(n as i64)
}

pub fn latency_doctor(e: &mut Engine, _c: &Call) -> Reply {
    Reply::Verbatim(e.latency_report().into_bytes())
}

pub fn latency_graph(e: &mut Engine, c: &Call) -> Reply {
    let Some((event, ts)) = e.latency_series(c.arg(2)) else {
        let mut msg = b"ERR No samples available for event '".to_vec();
        msg.extend_from_slice(crate::command::c_str(c.arg(2)));
        msg.push(b'\'');
        return Reply::Error(msg);
    };
    let (event, ts) = (event.to_string(), ts.clone());
    Reply::Verbatim(e.latency_graph(&event, &ts))
}

/// latency.c `fillCommandCDF()` for one command's histogram.
fn command_cdf(h: &crate::ds::hdr_histogram::HdrHistogram) -> Reply {
    let mut buckets = Vec::new();
    let mut previous = 0u64;
    for (highest, cumulative) in h.log_steps(1024, 2.0) {
        if cumulative > previous {
            buckets.push((Reply::Integer(highest / 1000), Reply::Integer(cumulative as i64)));
        }
        previous = cumulative;
    }
    Reply::Map(vec![
        (Reply::bulk("calls"), Reply::Integer(h.total_count() as i64)),
        (Reply::bulk("histogram_usec"), Reply::Map(buckets)),
    ])
}

pub fn latency_histogram(e: &mut Engine, c: &Call) -> Reply {
    let mut out = Vec::new();
    let mut add = |name: &str, e: &Engine| {
        if let Some(h) = e.stats.command_named(name).and_then(|s| s.histogram.as_ref()) {
            out.push((Reply::bulk(name), command_cdf(h)));
        }
    };
    if c.argc() == 2 {
        // latencyAllCommandsFillCDF(): every command, then its subcommands.
        for cmd in &c.table.commands {
            add(&cmd.name, e);
            for sub in &cmd.subcommands {
                add(&sub.name, e);
            }
        }
    } else {
        for name in &c.argv[2..] {
            let lower = name.to_ascii_lowercase();
            let found = match lower.iter().position(|&b| b == b'|') {
                Some(p) => c.table.get(&lower[..p]).and_then(|cmd| cmd.subcommand(&lower[p + 1..])),
                None => c.table.get(&lower),
            };
            let Some(cmd) = found else { continue };
            add(&cmd.name, e);
            for sub in &cmd.subcommands {
                add(&sub.name, e);
            }
        }
    }
    Reply::Map(out)
}
