//! The counters INFO shows (server.h's `stat_*` fields, each command's `redisCommand`
//! counters and latency histogram, `server.errors`), kept by dispatch.rs, expire.rs, evict.rs
//! and keyspace.rs; the slow log (slowlog.c's `server.slowlog`), the latency monitor's time
//! series (latency.c's `server.latency_events`) and the virtual CPU clock the cost model
//! advances (src/cost.rs), which command durations and TIME's microseconds are read from.

use std::collections::{BTreeMap, VecDeque};

use crate::ds::hdr_histogram::HdrHistogram;

/// server.h counters shown by INFO stats.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Commands with `calls > 0`: each has a latency histogram allocated (used_memory counts
    /// them). Kept here so used_memory need not scan every command's stats after each call.
    pub histograms: u64,
    pub total_connections_received: u64,
    pub total_commands_processed: u64,
    pub keyspace_hits: u64,
    pub keyspace_misses: u64,
    pub expired_keys: u64,
    pub expired_stale_perc: f64,
    pub expired_time_cap_reached_count: u64,
    /// `stat_expire_cycle_time_used`, virtual µs (INFO shows ms).
    pub expire_cycle_time_used_us: u64,
    /// Main-thread ns spent freeing values synchronously (DEL, expiry, overwrites).
    pub free_time_ns: u64,
    /// Values handed to the lazyfree thread.
    pub lazyfreed_objects: u64,
    /// INFO `used_memory_peak`.
    pub peak_memory: u64,
    /// Virtual µs spent evicting.
    pub eviction_time_used_us: u64,
    pub evicted_keys: u64,
    pub total_error_replies: u64,
    pub unexpected_error_replies: u64,
    /// `server.errors`: error replies counted by their prefix (`ERR`, `WRONGTYPE`…), in the
    /// byte order INFO errorstats lists them (a rax).
    pub errors: BTreeMap<Vec<u8>, u64>,
    pub dirty: u64,
    /// Per-command counters (INFO commandstats), keyed by the table's full names (hashed: every
    /// call counts itself here; `commands_by_name` gives the order INFO lists them in).
    pub commands: std::collections::HashMap<StatKey, CommandStat, crate::ds::map::Hasher>,
}

impl Stats {
    /// The per-command counters in name order (INFO commandstats, latencystats).
    pub fn commands_by_name(&self) -> Vec<(&'static str, &CommandStat)> {
        let mut all: Vec<_> = self.commands.iter().map(|(name, st)| (name.0, st)).collect();
        all.sort_unstable_by_key(|&(name, _)| name);
        all
    }

    /// A command's counters by its name as text (LATENCY HISTOGRAM).
    pub fn command_named(&self, name: &str) -> Option<&CommandStat> {
        self.commands.iter().find(|(k, _)| k.0 == name).map(|(_, st)| st)
    }

    /// A command's counters, made on first use. `name` is its table row's name (`cmd.name`).
    pub fn command(&mut self, name: &'static str) -> &mut CommandStat {
        self.commands.entry(StatKey(name)).or_default()
    }
}

/// A command's name as the table holds it, compared and hashed by address: every counter is
/// reached through the one `&'static str` of the command's row, so equal text is the same
/// address, and a call's count costs no string hashing or comparison.
#[derive(Debug, Clone, Copy)]
pub struct StatKey(pub &'static str);

impl PartialEq for StatKey {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for StatKey {}

impl std::hash::Hash for StatKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.0.as_ptr() as usize).hash(state);
    }
}

#[derive(Debug, Clone, Default)]
pub struct CommandStat {
    pub calls: u64,
    /// `microseconds`: the sum of the calls' durations (whole µs, as Redis measures them).
    pub usec: u64,
    pub rejected_calls: u64,
    pub failed_calls: u64,
    /// `latency_histogram`: allocated on the first call measured while latency-tracking is on.
    pub histogram: Option<Box<HdrHistogram>>,
}

/// What call()'s bookkeeping needs of a command (its table row's name and flags), kept with a
/// blocked client until its command completes.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CallInfo {
    pub name: &'static str,
    /// CMD_FAST: samples go to the `fast-command` latency event rather than `command`.
    pub fast: bool,
    /// CMD_SKIP_SLOWLOG.
    pub skip_slowlog: bool,
}

/// latency.h LATENCY_TS_LEN: samples kept per event.
pub const LATENCY_TS_LEN: usize = 160;

/// latency.h `struct latencyTimeSeries`: a ring of (unix seconds, ms) samples, one per second
/// at most, and the all-time maximum.
#[derive(Debug, Clone)]
pub struct LatencyTimeSeries {
    pub idx: usize,
    pub max: u64,
    pub samples: [(i64, u64); LATENCY_TS_LEN],
}

impl Default for LatencyTimeSeries {
    fn default() -> Self {
        LatencyTimeSeries { idx: 0, max: 0, samples: [(0, 0); LATENCY_TS_LEN] }
    }
}

/// `server.latency_events`: event name → time series, in creation order (Redis's dict order is
/// its hash order, random per process).
#[derive(Debug, Clone, Default)]
pub struct LatencyMonitor {
    pub events: Vec<(String, LatencyTimeSeries)>,
}

/// One slowlog.h `slowlogEntry`.
#[derive(Debug, Clone, PartialEq)]
pub struct SlowlogEntry {
    pub id: u64,
    /// Unix seconds (the virtual clock).
    pub time: i64,
    /// µs.
    pub duration: u64,
    pub argv: Vec<Vec<u8>>,
    pub peer: String,
    pub name: Vec<u8>,
}

/// `server.slowlog` (newest first) and `server.slowlog_entry_id`.
#[derive(Debug, Clone, Default)]
pub struct SlowLog {
    pub entries: VecDeque<SlowlogEntry>,
    pub next_id: u64,
}

/// The virtual CPU clock: nanoseconds of work the cost model has charged since the engine
/// started (commands, their frees, expire cycles). A command's duration is the number of whole
/// microseconds this clock crossed while it ran — as Redis's `ustime()` difference counts the
/// microsecond ticks crossed — so a 120 ns command measures 0 µs most times and 1 µs now and
/// then, averaging 0.12. `mark_ms`/`mark_ns` remember where the clock stood when the virtual
/// millisecond last changed, for TIME's microseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct CpuClock {
    pub ns: u64,
    pub mark_ms: i64,
    pub mark_ns: u64,
}

impl CpuClock {
    /// Charges `ns` of work at virtual time `now_ms`.
    pub fn charge(&mut self, now_ms: i64, ns: u64) {
        if self.mark_ms != now_ms {
            self.mark_ms = now_ms;
            self.mark_ns = self.ns;
        }
        self.ns = self.ns.saturating_add(ns);
    }

    /// server.c `ustime()` on the virtual clock: the millisecond, plus the microseconds of work
    /// charged since the clock reached it (at most 999: the millisecond is the host's to move).
    pub fn ustime(&self, now_ms: i64) -> i64 {
        let within = if self.mark_ms == now_ms { ((self.ns - self.mark_ns) / 1000).min(999) } else { 0 };
        now_ms.saturating_mul(1000).saturating_add(within as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::CpuClock;

    #[test]
    fn microseconds_follow_the_work_within_a_millisecond() {
        let mut c = CpuClock::default();
        assert_eq!(c.ustime(5), 5000);
        c.charge(5, 1500);
        assert_eq!(c.ustime(5), 5001);
        c.charge(5, 10_000_000);
        assert_eq!(c.ustime(5), 5999);
        // The next millisecond starts from its own mark.
        assert_eq!(c.ustime(6), 6000);
        c.charge(6, 2500);
        assert_eq!(c.ustime(6), 6002);
    }
}
