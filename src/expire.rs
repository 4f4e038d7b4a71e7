//! Active expiry: models expire.c `activeExpireCycle()` as in Redis 7.0.15, and the classic
//! algorithm of Redis ≤ 5.0 that tutorials describe, selectable with the playground-only
//! config parameter `playground-expire-algorithm` (`7.0` | `classic`).
//!
//! 7.0 (docs/redis-facts.md §1.1–§1.3): each db keeps a cursor into its expires table and the
//! cycle walks whole buckets in order (not random picks) until it has examined `keys_per_loop`
//! keys or visited 20× that many buckets; it repeats the db while more than `acceptable_stale`
//! percent of the keys it examined were dead (or it examined none), checks its time budget every
//! 16 rounds, and rotates over up to 16 dbs per call (all of them after a time-capped call). The
//! fast cycle runs from `before_sleep` only when the last cycle hit its time limit and at most
//! once per 2× its duration — Redis's stale-percentage trigger compares a 0..1 fraction with a
//! 1..10 percentage, so it never fires (redis#15410); we keep that.
//!
//! Classic (5.0 `activeExpireCycle()`, §1.4): per db, `dictGetRandomKey()` 20 times (with
//! replacement), repeat while more than 5 of the 20 were expired (> 25%), same 25% time budget
//! checked every 16 rounds, same fast-cycle gating; no effort setting.
//!
//! Time is virtual: the budget is spent by the cost model (src/cost.rs), so a cycle caps where a
//! real server with that workload would. Differences: no rehashing second table (ds/buckets.rs
//! resizes at once); one event per cycle lists every round (up to `MAX_ROUNDS_IN_EVENT`, with
//! the keys examined up to `MAX_KEYS_IN_ROUND` each) for the expiry view.

use crate::cost;
use crate::engine::{uniform, Engine};
use crate::events::{CycleKind, Event, ExaminedKey, ExpireCycleReport, ExpireRound, ExpiredBy};
use crate::util::text;

/// ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP.
pub const KEYS_PER_LOOP: u64 = 20;
/// ACTIVE_EXPIRE_CYCLE_FAST_DURATION (µs).
pub const FAST_DURATION_US: u64 = 1000;
/// ACTIVE_EXPIRE_CYCLE_SLOW_TIME_PERC.
pub const SLOW_TIME_PERC: u64 = 25;
/// ACTIVE_EXPIRE_CYCLE_ACCEPTABLE_STALE.
pub const ACCEPTABLE_STALE: u64 = 10;
/// CRON_DBS_PER_CALL.
pub const DBS_PER_CALL: usize = 16;
/// Rounds listed per cycle event (the counts cover all of them).
pub const MAX_ROUNDS_IN_EVENT: usize = 64;
/// Keys listed per round.
pub const MAX_KEYS_IN_ROUND: usize = 64;

impl Engine {
    fn classic_expiry(&self) -> bool {
        self.hot.classic_expiry
    }

    /// Nanoseconds for one unit of work, scaled by `playground-cost-percent`.
    fn cost_ns(&self, ns: u64) -> u64 {
        cost::scaled(ns, self.hot.cost_percent)
    }

    /// Deletes an expired key found by the active cycle and returns the main-thread time it took
    /// (expire.c `activeExpireCycleTryExpire()` → `deleteExpiredKeyAndPropagate()`).
    fn active_expire_key(&mut self, db: usize, key: &[u8]) -> u64 {
        let free_ns = self.delete_expired_key(db, key, ExpiredBy::Active);
        self.cost_ns(cost::DELETE_KEY_NS) + free_ns
    }

    /// expire.c `activeExpireCycle()`: returns what it did (None when it didn't run).
    pub(crate) fn active_expire_cycle(&mut self, kind: CycleKind) -> Option<ExpireCycleReport> {
        // DEBUG SET-ACTIVE-EXPIRE 0 (`server.active_expire_enabled`); while clients are paused
        // (CLIENT PAUSE) nothing expires.
        if !self.debug.active_expire || self.check_client_pause_timeout() {
            return None;
        }
        let classic = self.classic_expiry();
        let effort = if classic { 0 } else { (self.hot.active_expire_effort.clamp(1, 10) - 1) as u64 };
        let keys_per_loop = KEYS_PER_LOOP + KEYS_PER_LOOP / 4 * effort;
        let fast_duration = FAST_DURATION_US + FAST_DURATION_US / 4 * effort;
        let slow_time_perc = SLOW_TIME_PERC + 2 * effort;
        let acceptable_stale = ACCEPTABLE_STALE - effort;
        let start_us = self.now_ms.saturating_mul(1000);
        if kind == CycleKind::Fast {
            // The stale test compares a 0..1 fraction with a percentage: never true (redis#15410).
            if !self.expire.timelimit_exit && self.stats.expired_stale_perc < acceptable_stale as f64 {
                return None;
            }
            if start_us < self.expire.last_fast_cycle_us.saturating_add(2 * fast_duration as i64) {
                return None;
            }
            self.expire.last_fast_cycle_us = start_us;
        }
        let dbnum = self.dbs.len();
        let mut dbs_per_call = DBS_PER_CALL.min(dbnum);
        if self.expire.timelimit_exit {
            dbs_per_call = dbnum;
        }
        let hz = self.hz() as u64;
        let mut timelimit = (slow_time_perc * 1_000_000 / hz / 100).max(1);
        if kind == CycleKind::Fast {
            timelimit = fast_duration;
        }
        self.expire.timelimit_exit = false;
        let mut elapsed_ns: u64 = 0;
        let free_before = self.stats.free_time_ns;
        let mut iteration: u64 = 0;
        let (mut total_sampled, mut total_expired) = (0u64, 0u64);
        let mut rounds: Vec<ExpireRound> = Vec::new();
        let mut dbs_visited = Vec::new();
        let now = self.now_ms;
        let tracing = self.events.enabled();
        for _ in 0..dbs_per_call {
            if self.expire.timelimit_exit {
                break;
            }
            let db = self.expire.current_db % dbnum;
            self.expire.current_db = self.expire.current_db.wrapping_add(1);
            dbs_visited.push(db);
            loop {
                iteration += 1;
                let num = self.dbs[db].expires.len() as u64;
                if num == 0 {
                    self.dbs[db].avg_ttl = 0;
                    break;
                }
                let slots = self.dbs[db].expires_buckets.size() as u64;
                if !classic && slots > crate::ds::buckets::INITIAL_SIZE as u64 && num * 100 / slots < 1 {
                    // The table is under 1% full: wait for cron to shrink it.
                    break;
                }
                let (mut sampled, mut expired, mut ttl_sum, mut ttl_samples, mut buckets) =
                    (0u64, 0u64, 0i64, 0i64, 0u64);
                let mut keys: Vec<ExaminedKey> = Vec::new();
                let mut examine = |e: &mut Engine,
                                   key: Vec<u8>,
                                   when: i64,
                                   bucket: usize,
                                   elapsed: &mut u64,
                                   keys: &mut Vec<ExaminedKey>|
                 -> bool {
                    let ttl = when.saturating_sub(now);
                    let dead = now > when;
                    *elapsed += e.cost_ns(cost::EXAMINE_KEY_NS);
                    if dead {
                        *elapsed += e.active_expire_key(db, &key);
                    }
                    if tracing && keys.len() < MAX_KEYS_IN_ROUND {
                        keys.push(ExaminedKey { key: text(&key), bucket, ttl_ms: ttl, expired: dead });
                    }
                    if ttl > 0 {
                        ttl_sum = ttl_sum.saturating_add(ttl);
                        ttl_samples += 1;
                    }
                    dead
                };
                if classic {
                    // 5.0: 20 random picks with replacement.
                    let n = num.min(KEYS_PER_LOOP);
                    for _ in 0..n {
                        let Engine { dbs, rng, .. } = &mut *self;
                        let d = &dbs[db];
                        let Some(i) = d.expires_buckets.random_entry(|m| (uniform(rng) * m as f64) as usize % m.max(1))
                        else {
                            break;
                        };
                        let Some((k, w)) = d.expires.get_index(i as usize).map(|(k, w)| (k.clone(), *w)) else { break };
                        let bucket = d.expires_buckets.bucket_of_index(i as usize);
                        buckets += 1;
                        if examine(self, k, w, bucket, &mut elapsed_ns, &mut keys) {
                            expired += 1;
                        }
                        sampled += 1;
                    }
                } else {
                    let n = num.min(keys_per_loop);
                    let max_buckets = n * 20;
                    while sampled < n && buckets < max_buckets {
                        let d = &self.dbs[db];
                        let b = d.expires_buckets.bucket_for_cursor(d.expires_cursor);
                        let chain: Vec<(Vec<u8>, i64)> = d
                            .expires_buckets
                            .chain(b)
                            .filter_map(|i| d.expires.get_index(i as usize).map(|(k, w)| (k.clone(), *w)))
                            .collect();
                        buckets += 1;
                        elapsed_ns += self.cost_ns(cost::VISIT_BUCKET_NS);
                        for (k, w) in chain {
                            if examine(self, k, w, b, &mut elapsed_ns, &mut keys) {
                                expired += 1;
                            }
                            sampled += 1;
                        }
                        self.dbs[db].expires_cursor = self.dbs[db].expires_cursor.wrapping_add(1);
                    }
                }
                total_expired += expired;
                total_sampled += sampled;
                if ttl_samples > 0 {
                    let avg = ttl_sum / ttl_samples;
                    let d = &mut self.dbs[db];
                    if d.avg_ttl == 0 {
                        d.avg_ttl = avg;
                    }
                    d.avg_ttl = (d.avg_ttl / 50) * 49 + avg / 50;
                }
                let mut capped = false;
                if iteration & 0xf == 0 && elapsed_ns / 1000 > timelimit {
                    self.expire.timelimit_exit = true;
                    self.stats.expired_time_cap_reached_count += 1;
                    capped = true;
                }
                let stale = if sampled > 0 { expired as f64 * 100.0 / sampled as f64 } else { 0.0 };
                let (repeat, reason) = if capped {
                    (false, format!("time limit: {} µs used of {} µs", elapsed_ns / 1000, timelimit))
                } else if classic {
                    let more = expired > KEYS_PER_LOOP / 4;
                    (
                        more,
                        format!(
                            "{expired} of {sampled} expired: {} than 5 (25%)",
                            if more { "more" } else { "not more" }
                        ),
                    )
                } else if let Some(whole) = (expired * 100).checked_div(sampled) {
                    // Redis compares whole percents: expired*100/sampled > acceptable.
                    let more = whole > acceptable_stale;
                    let side = if more { "above" } else { "within" };
                    let why = format!(
                        "{expired} of {sampled} expired: {whole}% (whole percent) {side} the acceptable {acceptable_stale}%"
                    );
                    (more, why)
                } else {
                    (true, "no key examined: look again".to_string())
                };
                if tracing && rounds.len() < MAX_ROUNDS_IN_EVENT {
                    rounds.push(ExpireRound {
                        db,
                        iteration,
                        sampled,
                        expired,
                        buckets,
                        cursor: self.dbs[db].expires_cursor,
                        table_size: self.dbs[db].expires_buckets.size(),
                        keys,
                        stale_percent: stale,
                        repeat,
                        reason,
                        elapsed_us: elapsed_ns / 1000,
                    });
                }
                if !repeat {
                    break;
                }
            }
        }
        let elapsed_us = elapsed_ns / 1000;
        self.stats.expire_cycle_time_used_us += elapsed_us;
        // The cycle's time is CPU time (what freeing took is on the clock already), and the
        // `expire-cycle` latency event (ms).
        let freeing = self.stats.free_time_ns.saturating_sub(free_before);
        self.charge_cpu(elapsed_ns.saturating_sub(freeing));
        self.latency_add_sample_if_needed("expire-cycle", elapsed_us / 1000);
        let current = if total_sampled > 0 { total_expired as f64 / total_sampled as f64 } else { 0.0 };
        self.stats.expired_stale_perc = current * 0.05 + self.stats.expired_stale_perc * 0.95;
        let cursors_after = dbs_visited
            .iter()
            .map(|&d| {
                let db = &self.dbs[d];
                let bucket = if db.expires_buckets.size() == 0 {
                    0
                } else {
                    db.expires_buckets.bucket_for_cursor(db.expires_cursor)
                };
                (d, db.expires_cursor, bucket)
            })
            .collect();
        let report = ExpireCycleReport {
            kind,
            cursors_after,
            algorithm: if classic { "classic".into() } else { "7.0".into() },
            budget_us: timelimit,
            time_used_us: elapsed_us,
            cap_reached: self.expire.timelimit_exit,
            dbs_visited,
            sampled: total_sampled,
            expired: total_expired,
            round_count: iteration,
            rounds,
            stale_perc_after: self.stats.expired_stale_perc * 100.0,
            keys_per_loop: if classic { KEYS_PER_LOOP } else { keys_per_loop },
            acceptable_stale: if classic { 25 } else { acceptable_stale },
        };
        if tracing {
            self.events.push(Event::ExpireCycle { at_ms: self.now_ms, report: Box::new(report.clone()) });
        }
        Some(report)
    }

    /// server.c `databasesCron()`'s table resizing (`tryResizeHashTables()`), 16 dbs per call.
    pub(crate) fn try_resize_tables(&mut self) {
        let dbnum = self.dbs.len();
        for _ in 0..DBS_PER_CALL.min(dbnum) {
            let db = self.resize_db % dbnum;
            self.resize_db = self.resize_db.wrapping_add(1);
            self.dbs[db].shrink_tables_if_needed();
        }
    }

    /// Whether a cron tick could change anything beyond its counters and the stale-percentage
    /// decay: a db holds keys with a TTL, a table is due to shrink, or a blocked client waits
    /// with a timeout (beforeSleep answers it).
    pub(crate) fn cron_has_work(&self) -> bool {
        self.dbs
            .iter()
            .any(|d| !d.expires.is_empty() || d.dict_buckets.needs_shrink() || d.expires_buckets.needs_shrink())
            || self.next_block_timeout() != 0
            || self.rdb_cron_has_work()
            || self.aof_cron_has_work()
            || self.replication_has_work()
    }
}
