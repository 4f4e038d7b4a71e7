//! The event log: what the engine did, as plain data, pulled by the host once per frame.
//!
//! Commands, cron ticks, expiry and keyspace changes append typed events to a bounded queue.
//! Nothing is pushed into JavaScript: the page drains the queue after each frame and the
//! views draw from it. When the queue is full the oldest events are dropped and counted, so a
//! view can say "N events were not shown" instead of silently missing them.

use std::borrow::Cow;
use std::collections::VecDeque;

use serde::Serialize;

/// How a key came to be deleted for being expired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExpiredBy {
    /// db.c `expireIfNeeded()` on access.
    Lazy,
    /// expire.c `activeExpireCycle()`.
    Active,
}

/// One entry of the event log: something the engine did (`kind` names the variant).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A command ran (or was rejected before running).
    /// `name` is the table's full name (`config|get`) or, for an unknown command, as typed.
    Command { at_ms: i64, client: u64, db: usize, name: Cow<'static, str>, argc: usize, error: bool },
    /// A keyspace change, named as Redis's keyspace notifications name it (`set`, `del`,
    /// `expire`, `expired`, `rename_from`…), whether or not notifications are enabled.
    Keyspace { at_ms: i64, db: usize, event: String, key: String },
    /// A key was removed because its TTL had passed: by which mechanism, how long after its
    /// time, and (lazy expiry) which command touched it.
    Expired { at_ms: i64, db: usize, key: String, by: ExpiredBy, late_ms: i64, command: Option<&'static str> },
    /// The main thread spent `us` freeing a big value synchronously (DEL, expiry, overwrite):
    /// the server served nothing meanwhile. Lazy freeing (UNLINK, lazyfree-lazy-*) avoids it.
    Stall { at_ms: i64, db: usize, key: String, cause: &'static str, us: u64 },
    /// One key evicted: the samples that fed the pool, the pool before and after, the victim.
    Eviction { at_ms: i64, report: Box<EvictionReport> },
    /// One call of the active expire cycle (slow from cron, fast before sleeping): its rounds,
    /// the keys each examined, the repeat decisions, the time used against the budget.
    ExpireCycle { at_ms: i64, report: Box<ExpireCycleReport> },
    /// `ticks` serverCron runs happened, the last at `at_ms`.
    Cron { at_ms: i64, ticks: u64, hz: i64 },
    /// The clock was set (not advanced): CLOCK SET or the host's set_time.
    ClockSet { from_ms: i64, to_ms: i64 },
    /// A config parameter changed.
    Config { at_ms: i64, name: String, value: String },
    /// A sorted-set member was placed (ZADD, ZINCRBY, a moved score…): its 0-based rank after
    /// the insert and, in a skiplist, the level it drew (0 in a listpack).
    ZsetInsert { at_ms: i64, db: usize, key: String, member: String, score: f64, rank: u64, level: usize },
    /// Sorted-set members were removed (ZREM, ZPOP*, ZREMRANGEBY*).
    ZsetRemove { at_ms: i64, db: usize, key: String, members: Vec<String> },
    /// A sorted set changed encoding (listpack → skiplist at the insert that breaks a limit).
    ZsetConvert { at_ms: i64, db: usize, key: String, from: String, to: String, len: usize },
    /// The nodes a skiplist lookup visited, level by level (ZRANK, ZSCORE's range walks…).
    ZsetSearch { at_ms: i64, db: usize, key: String, command: String, path: Vec<SearchStep> },
    /// A command went out on the propagation stream (propagate.rs) — to the AOF and/or the
    /// replicas — as `argv` (in db `db`; none for EXEC). `cause`: the client's command it came
    /// from, as typed (`client 3: SET k v EX 60`), when one did; an expiry or an eviction
    /// otherwise (their own events tell which).
    Propagated { at_ms: i64, db: Option<usize>, argv: Vec<String>, aof: bool, repl: bool, cause: Option<String> },
}

/// One node examined by a skiplist search.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchStep {
    pub level: usize,
    /// 0-based rank of the node examined.
    pub rank: u64,
    /// The search moved onto this node (true) or stopped before it and went down (false).
    pub moved: bool,
    pub member: String,
    pub score: f64,
}

// -------------------------------------------------------------------------------------------
// What one call of the active expire cycle did (expire.rs `activeExpireCycle()`)
// -------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CycleKind {
    Slow,
    Fast,
}

/// One key an expire round examined.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExaminedKey {
    pub key: String,
    /// The expires-table bucket it sat in (7.0; the random pick's bucket in classic).
    pub bucket: usize,
    /// Time left (negative: already past) when examined.
    pub ttl_ms: i64,
    pub expired: bool,
}

/// One round (one iteration of the do-while) in one db.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpireRound {
    pub db: usize,
    pub iteration: u64,
    pub sampled: u64,
    pub expired: u64,
    /// Buckets visited (7.0) or random picks made (classic).
    pub buckets: u64,
    /// The db's cursor after the round (7.0).
    pub cursor: u64,
    pub table_size: usize,
    pub keys: Vec<ExaminedKey>,
    /// expired / sampled, in percent.
    pub stale_percent: f64,
    /// Whether the db was examined again.
    pub repeat: bool,
    /// Why the db loop went on or stopped.
    pub reason: String,
    /// Virtual µs used so far in the cycle, after this round.
    pub elapsed_us: u64,
}

/// What one call of the cycle did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpireCycleReport {
    pub kind: CycleKind,
    pub algorithm: String,
    pub budget_us: u64,
    pub time_used_us: u64,
    pub cap_reached: bool,
    pub dbs_visited: Vec<usize>,
    pub sampled: u64,
    pub expired: u64,
    /// Rounds in the cycle (all of them, even those not listed).
    pub round_count: u64,
    pub rounds: Vec<ExpireRound>,
    /// Each visited db's cursor after the cycle (7.0), as (db, cursor, bucket it points at).
    pub cursors_after: Vec<(usize, u64, usize)>,
    /// INFO `expired_stale_perc` after the cycle (percent).
    pub stale_perc_after: f64,
    /// The per-call parameters, as effort scaled them.
    pub keys_per_loop: u64,
    pub acceptable_stale: u64,
}

// -------------------------------------------------------------------------------------------
// What one eviction did (evict.rs `performEvictions()`)
// -------------------------------------------------------------------------------------------

/// One pool slot (evict.c `struct evictionPoolEntry`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolEntry {
    /// The score: higher is a better candidate.
    #[serde(serialize_with = "score_json")]
    pub idle: u64,
    #[serde(serialize_with = "as_text")]
    pub key: Vec<u8>,
    pub db: usize,
}

fn as_text<S: serde::Serializer>(k: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&crate::util::text(k))
}

/// A key the pool sampled, with its score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sample {
    pub db: usize,
    pub key: String,
    #[serde(serialize_with = "score_json")]
    pub score: u64,
}

/// A score as a number when JavaScript can hold it exactly, else as its decimal text: volatile-ttl
/// scores (ULLONG_MAX − expire ms) are above 2^53, which a JSON-compatible serializer refuses.
fn score_json<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    const MAX_SAFE: u64 = (1 << 53) - 1;
    if *v <= MAX_SAFE {
        s.serialize_u64(*v)
    } else {
        s.serialize_str(&v.to_string())
    }
}

/// What one eviction did, for the eviction view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvictionReport {
    pub policy: String,
    pub samples: Vec<Sample>,
    pub pool_before: Vec<Option<PoolEntry>>,
    pub pool_after: Vec<Option<PoolEntry>>,
    pub victim_db: usize,
    pub victim: String,
    /// Pool entries skipped because their key was gone.
    pub ghosts: u32,
    pub bytes_freed: u64,
    pub used_before: u64,
    pub maxmemory: u64,
}

// -------------------------------------------------------------------------------------------
// The bounded log
// -------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
pub struct EventLog {
    queue: VecDeque<Event>,
    capacity: usize,
    dropped: u64,
    enabled: bool,
}

impl EventLog {
    pub fn new(capacity: usize) -> EventLog {
        EventLog { queue: VecDeque::new(), capacity: capacity.max(1), dropped: 0, enabled: true }
    }

    /// Whether events are recorded. A host with no views (the native CLI, benchmarks of the
    /// bare engine) switches recording off; callers check this before building costly events.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    pub fn set_enabled(&mut self, on: bool) {
        self.enabled = on;
        if !on {
            self.queue.clear();
        }
    }

    pub fn push(&mut self, e: Event) {
        if !self.enabled {
            return;
        }
        if self.queue.len() == self.capacity {
            self.queue.pop_front();
            self.dropped += 1;
        }
        self.queue.push_back(e);
    }

    /// Takes every queued event, oldest first, and how many were dropped since the last drain.
    pub fn drain(&mut self) -> (Vec<Event>, u64) {
        let dropped = std::mem::take(&mut self.dropped);
        (self.queue.drain(..).collect(), dropped)
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_log_counts_what_it_drops() {
        let mut log = EventLog::new(2);
        for i in 0..5 {
            log.push(Event::ClockSet { from_ms: i, to_ms: i + 1 });
        }
        let (events, dropped) = log.drain();
        assert_eq!(dropped, 3);
        assert_eq!(events, vec![Event::ClockSet { from_ms: 3, to_ms: 4 }, Event::ClockSet { from_ms: 4, to_ms: 5 }]);
        assert!(log.is_empty());
    }
}
