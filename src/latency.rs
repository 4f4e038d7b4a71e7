//! The latency monitor: models latency.c — `latencyAddSample()` and the
//! `latencyAddSampleIfNeeded()` macro, `latencyResetEvent()`, `analyzeLatencyForEvent()`,
//! `createLatencyReport()` (LATENCY DOCTOR) and `latencyCommandGenSparkeline()` (LATENCY GRAPH).
//!
//! Events are sampled in milliseconds once they reach `latency-monitor-threshold` (0 = off):
//! `command` and `fast-command` (every call, its duration), `expire-cycle` (each active expire
//! cycle), `eviction-del` (each key evicted) and `eviction-cycle` (each performEvictions), the
//! events Redis 7.0 samples for what the playground models. Durations come from the cost model
//! (src/cost.rs) through the virtual CPU clock, times from the virtual clock (unix seconds).
//!
//! Differences: Redis keeps its events in a dict whose order is its hash order (random per
//! process); LATEST and DOCTOR list them here in the order they first occurred. There are no
//! fork, AOF or disk events (nothing is written), and the doctor never finds transparent huge
//! pages.

use crate::ds::hdr_histogram::{HdrHistogram, LATENCY_MAX_NS, LATENCY_MIN_NS};
use crate::ds::sparkline::Sequence;
use crate::engine::stats::{LatencyTimeSeries, LATENCY_TS_LEN};
use crate::engine::{CallInfo, ClientId, Engine};
use crate::reply::Reply;

/// latency.h `struct latencyStats`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LatencyStats {
    pub all_time_high: u64,
    pub avg: u64,
    pub min: u64,
    pub max: u64,
    pub mad: u64,
    pub samples: u64,
    pub period: i64,
}

/// latency.c LATENCY_GRAPH_COLS.
const GRAPH_COLS: usize = 80;

impl Engine {
    /// What server.c `call()` records for a call that finished: the latency monitor's `event`
    /// (`sample` µs, sampled in ms), the slow log, and the command's latency histogram
    /// (`updateCommandLatencyHistogram()`: the duration in ns, clamped to 1 ns .. 1 s).
    pub(crate) fn record_call(
        &mut self,
        client: ClientId,
        info: CallInfo,
        argv: &[Vec<u8>],
        duration: u64,
        event: &str,
        sample: u64,
    ) {
        self.latency_add_sample_if_needed(event, sample / 1000);
        if !info.skip_slowlog {
            self.slowlog_push_if_needed(client, info.name, argv, duration);
        }
        if self.hot.latency_tracking {
            let stat = self.stats.commands.entry(crate::engine::stats::StatKey(info.name)).or_default();
            let h = stat.histogram.get_or_insert_with(|| {
                self.stats.histograms += 1;
                Box::new(HdrHistogram::for_latency())
            });
            h.record((duration.saturating_mul(1000) as i64).clamp(LATENCY_MIN_NS, LATENCY_MAX_NS));
        }
    }

    /// blocked.c `updateStatsOnUnblock()`: a blocked client was served (`reply`) or timed out
    /// (None). Its command's duration counts again, with the cost of producing the reply, into
    /// its microseconds, histogram and the slow log; the reply's own time is the
    /// `command-unblocking` latency event.
    pub(crate) fn update_stats_on_unblock(
        &mut self,
        client: ClientId,
        argv: &[Vec<u8>],
        reply: Option<&Reply>,
        cpu_before: u64,
    ) {
        let Some((first, info)) =
            self.clients.get(&client).and_then(|c| c.blocked.as_ref()).map(|b| (b.duration_us, b.call))
        else {
            return;
        };
        if info.name.is_empty() {
            return;
        }
        if let Some(r) = reply {
            let own = crate::cost::command_cost_ns(&argv[..argv.len().min(1)], Some(r));
            self.charge_cpu(crate::cost::scaled(own, self.hot.cost_percent));
        }
        let reply_us = self.cpu.ns / 1000 - cpu_before / 1000;
        let total = first + reply_us;
        self.stats.command(info.name).usec += total;
        self.record_call(client, info, argv, total, "command-unblocking", reply_us);
    }

    /// The `latencyAddSampleIfNeeded()` macro.
    pub(crate) fn latency_add_sample_if_needed(&mut self, event: &str, ms: u64) {
        let threshold = self.hot.latency_monitor_threshold;
        if threshold > 0 && ms >= threshold as u64 {
            self.latency_add_sample(event, ms);
        }
    }

    /// latency.c `latencyAddSample()`: one sample a second per event (the highest wins).
    pub(crate) fn latency_add_sample(&mut self, event: &str, ms: u64) {
        let now = self.now_ms.div_euclid(1000);
        let i = match self.latency.events.iter().position(|(e, _)| e == event) {
            Some(i) => i,
            None => {
                self.latency.events.push((event.to_string(), LatencyTimeSeries::default()));
                self.latency.events.len() - 1
            }
        };
        let ts = &mut self.latency.events[i].1;
        if ms > ts.max {
            ts.max = ms;
        }
        let prev = (ts.idx + LATENCY_TS_LEN - 1) % LATENCY_TS_LEN;
        if ts.samples[prev].0 == now {
            if ms > ts.samples[prev].1 {
                ts.samples[prev].1 = ms;
            }
            return;
        }
        ts.samples[ts.idx] = (now, ms);
        ts.idx = (ts.idx + 1) % LATENCY_TS_LEN;
    }

    /// latency.c `latencyResetEvent()`: every event, or those named (without case).
    pub(crate) fn latency_reset(&mut self, event: Option<&[u8]>) -> usize {
        let before = self.latency.events.len();
        match event {
            None => self.latency.events.clear(),
            Some(name) => self.latency.events.retain(|(e, _)| !e.as_bytes().eq_ignore_ascii_case(name)),
        }
        before - self.latency.events.len()
    }

    pub(crate) fn latency_series(&self, event: &[u8]) -> Option<(&str, &LatencyTimeSeries)> {
        self.latency.events.iter().find(|(e, _)| e.as_bytes() == event).map(|(e, ts)| (e.as_str(), ts))
    }

    /// latency.c `analyzeLatencyForEvent()`.
    pub(crate) fn analyze_latency(&self, event: &str) -> LatencyStats {
        let mut ls = LatencyStats::default();
        let Some((_, ts)) = self.latency_series(event.as_bytes()) else { return ls };
        ls.all_time_high = ts.max;
        let mut sum = 0u64;
        for &(time, latency) in ts.samples.iter() {
            if time == 0 {
                continue;
            }
            ls.samples += 1;
            if ls.samples == 1 {
                ls.min = latency;
                ls.max = latency;
            } else {
                ls.min = ls.min.min(latency);
                ls.max = ls.max.max(latency);
            }
            sum += latency;
            if ls.period == 0 || time < ls.period {
                ls.period = time;
            }
        }
        if let Some(avg) = sum.checked_div(ls.samples) {
            ls.avg = avg;
            ls.period = self.now_ms.div_euclid(1000) - ls.period;
            if ls.period == 0 {
                ls.period = 1;
            }
        }
        let mut dev = 0u64;
        for &(time, latency) in ts.samples.iter() {
            if time == 0 {
                continue;
            }
            dev += (ls.avg as i64 - latency as i64).unsigned_abs();
        }
        ls.mad = dev.checked_div(ls.samples).unwrap_or(0);
        ls
    }

    /// latency.c `createLatencyReport()`: LATENCY DOCTOR's text.
    pub(crate) fn latency_report(&self) -> String {
        if self.latency.events.is_empty() && self.hot.latency_monitor_threshold == 0 {
            return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n".into();
        }
        let mut report = String::new();
        let (mut slowlog_enabled, mut slowlog_tuning, mut slowlog_inspect) = (false, false, false);
        let (mut scheduler, mut hz, mut large_objects, mut mass_eviction) = (false, false, false, false);
        let mut advices = 0;
        let slower_than = self.hot.slowlog_log_slower_than;
        let threshold = self.hot.latency_monitor_threshold;
        for (n, (event, ts)) in self.latency.events.iter().enumerate() {
            if n == 0 {
                report.push_str("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n");
            }
            let ls = self.analyze_latency(event);
            report.push_str(&format!(
                "{}. {}: {} latency spikes (average {}ms, mean deviation {}ms, period {:.2} sec). Worst all time event {}ms.",
                n + 1,
                event,
                ls.samples,
                ls.avg,
                ls.mad,
                ls.period as f64 / ls.samples as f64,
                ts.max
            ));
            match event.to_ascii_lowercase().as_str() {
                "command" => {
                    if slower_than < 0 {
                        slowlog_enabled = true;
                        advices += 1;
                    } else if slower_than / 1000 > threshold {
                        slowlog_tuning = true;
                        advices += 1;
                    }
                    slowlog_inspect = true;
                    large_objects = true;
                    advices += 2;
                }
                "fast-command" => {
                    scheduler = true;
                    advices += 1;
                }
                "expire-cycle" => {
                    hz = true;
                    large_objects = true;
                    advices += 2;
                }
                "eviction-del" => {
                    large_objects = true;
                    advices += 1;
                }
                "eviction-cycle" => {
                    mass_eviction = true;
                    advices += 1;
                }
                _ => {}
            }
            report.push('\n');
        }
        let eventnum = self.latency.events.len();
        if eventnum == 0 && advices == 0 {
            report.push_str("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n");
        } else if eventnum > 0 && advices == 0 {
            report.push_str("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n");
        } else {
            report.push_str("\nI have a few advices for you:\n\n");
            if slowlog_enabled {
                report.push_str(&format!("- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than {}'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n", (threshold as u64).wrapping_mul(1000)));
            }
            if slowlog_tuning {
                report.push_str(&format!("- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than {}'.\n", (threshold as u64).wrapping_mul(1000)));
            }
            if slowlog_inspect {
                report.push_str("- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n");
            }
            if scheduler {
                report.push_str("- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n  1) Lower the system load.\n  2) Use a computer / VM just for Redis if you are running other software in the same system.\n  3) Check if you have a \"noisy neighbour\" problem.\n  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n");
            }
            if hz && self.hz() < 100 {
                report.push_str("- In order to make the Redis keys expiring process more incremental, try to set the 'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n");
            }
            if large_objects {
                report.push_str("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n");
            }
            if mass_eviction {
                report.push_str("- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of large objects via sets or sorted sets intersections, STORE option of SORT, Redis Cluster large keys migrations (RESTORE command), may create sudden memory pressure forcing the server to block trying to evict keys. \n");
            }
        }
        report
    }

    /// latency.c `latencyCommandGenSparkeline()`: LATENCY GRAPH's text for an event.
    pub(crate) fn latency_graph(&self, event: &str, ts: &LatencyTimeSeries) -> Vec<u8> {
        let mut seq = Sequence::new();
        let (mut min, mut max) = (0u64, 0u64);
        let now = self.now_ms.div_euclid(1000);
        for j in 0..LATENCY_TS_LEN {
            let (time, latency) = ts.samples[(ts.idx + j) % LATENCY_TS_LEN];
            if time == 0 {
                continue;
            }
            if seq.samples.is_empty() {
                min = latency;
                max = latency;
            } else {
                max = max.max(latency);
                min = min.min(latency);
            }
            // An `int` in Redis: the label is the age in s, m, h or d.
            let elapsed = (now - time) as i32;
            let label = if elapsed < 60 {
                format!("{elapsed}s")
            } else if elapsed < 3600 {
                format!("{}m", elapsed / 60)
            } else if elapsed < 3600 * 24 {
                format!("{}h", elapsed / 3600)
            } else {
                format!("{}d", elapsed / (3600 * 24))
            };
            seq.add(latency as f64, label.as_bytes());
        }
        let mut graph = format!("{event} - high {max} ms, low {min} ms (all time high {} ms)\n", ts.max).into_bytes();
        graph.extend(std::iter::repeat_n(b'-', GRAPH_COLS));
        graph.push(b'\n');
        seq.render(&mut graph, GRAPH_COLS, 4, true);
        graph
    }
}
