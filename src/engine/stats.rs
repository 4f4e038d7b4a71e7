//! The counters INFO shows (server.h's `stat_*` fields and each command's `redisCommand`
//! counters), kept by dispatch.rs, expire.rs, evict.rs and keyspace.rs.

use std::collections::BTreeMap;

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
    pub dirty: u64,
    /// Per-command counters (INFO commandstats), keyed by the table's full names.
    pub commands: BTreeMap<&'static str, CommandStat>,
}

#[derive(Debug, Clone, Default)]
pub struct CommandStat {
    pub calls: u64,
    pub rejected_calls: u64,
    pub failed_calls: u64,
}
