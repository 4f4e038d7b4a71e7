//! Eviction: models evict.c `performEvictions()`, `evictionPoolPopulate()`,
//! `evictionTimeLimitUs()` and `evictionTimeProc()`, with server.c `processCommand()`'s OOM rule.
//!
//! Before every command, when `maxmemory` is set and the modelled used_memory (memory.rs) is
//! above it, keys are evicted until it fits. LRU, LFU and volatile-ttl policies sample
//! `maxmemory-samples` keys per db with `dictGetSomeKeys()` (consecutive buckets from a random
//! one; ds/buckets.rs) into one global pool of 16 candidates sorted by score (idle ms, 255 −
//! LFU counter, or ULLONG_MAX − expire time) and evict its best (rightmost) entry that still
//! exists — stale entries are "ghosts" and are skipped. Random policies pick with
//! `dictGetRandomKey()`. Every 16 evictions the time used (cost model, src/cost.rs) is checked
//! against `maxmemory-eviction-tenacity`'s limit; past it the rest is left to a timer that runs
//! before the event loop sleeps. When nothing can be evicted (noeviction, or volatile-* with no
//! volatile key) a command flagged `denyoom` is refused with Redis's OOM error.
//! Differences: no lazyfree thread queue (lazily freed memory counts as freed at once).

use crate::cost;
use crate::engine::{uniform, Engine};
use crate::events::{Event, EvictionReport, PoolEntry, Sample};
use crate::object::{lfu_decr_and_return, LRU_CLOCK_MAX, LRU_CLOCK_RESOLUTION};
use crate::util::text;

/// EVPOOL_SIZE.
pub const POOL_SIZE: usize = 16;
/// Samples listed per eviction event.
pub const MAX_SAMPLES_IN_EVENT: usize = 64;

/// evict.c `estimateObjectIdleTime()` in ms: how long since the LRU clock stamped `lru`, across one wrap.
pub fn estimate_idle_ms(lruclock: u32, lru: u32) -> i64 {
    let ticks = if lruclock >= lru { lruclock - lru } else { lruclock + (LRU_CLOCK_MAX - lru) };
    ticks as i64 * LRU_CLOCK_RESOLUTION
}

/// performEvictions()'s outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvictResult {
    Ok,
    Running,
    Fail,
}

#[derive(Clone, Copy, PartialEq)]
enum Policy {
    Lru,
    Lfu,
    Ttl,
    Random,
    NoEviction,
}

impl Engine {
    fn policy(&self) -> (Policy, bool) {
        let p = self.config.str("maxmemory-policy");
        let allkeys = p.starts_with("allkeys");
        let kind = if p.ends_with("-lru") {
            Policy::Lru
        } else if p.ends_with("-lfu") {
            Policy::Lfu
        } else if p == "volatile-ttl" {
            Policy::Ttl
        } else if p.ends_with("-random") {
            Policy::Random
        } else {
            Policy::NoEviction
        };
        (kind, allkeys)
    }

    /// evict.c `evictionTimeLimitUs()` from `maxmemory-eviction-tenacity`.
    fn eviction_time_limit_us(&self) -> u64 {
        let t = self.config.int("maxmemory-eviction-tenacity").clamp(0, 100);
        if t <= 10 {
            50 * t as u64
        } else if t < 100 {
            (500.0 * 1.15f64.powi((t - 10) as i32)) as u64
        } else {
            u64::MAX
        }
    }

    /// evict.c `evictionPoolPopulate()` for one db.
    fn eviction_pool_populate(&mut self, db: usize, allkeys: bool, policy: Policy, samples_out: &mut Vec<Sample>) {
        let samples = self.config.int("maxmemory-samples").max(1) as usize;
        let Engine { dbs, rng, .. } = &mut *self;
        let d = &dbs[db];
        let buckets = if allkeys { &d.dict_buckets } else { &d.expires_buckets };
        let picked = buckets.some_entries(samples, |n| (uniform(rng) * n as f64) as usize % n.max(1));
        let keys: Vec<Vec<u8>> = picked
            .iter()
            .filter_map(|&i| {
                if allkeys {
                    d.dict.get_index(i as usize).map(|(k, _)| k.clone())
                } else {
                    d.expires.get_index(i as usize).map(|(k, _)| k.clone())
                }
            })
            .collect();
        if self.evict.pool.len() != POOL_SIZE {
            self.evict.pool = vec![None; POOL_SIZE];
        }
        let (lruclock, now, decay) = (self.lruclock, self.now_ms, self.config.int("lfu-decay-time"));
        for key in keys {
            let d = &self.dbs[db];
            let idle = match policy {
                Policy::Lru => d.get(&key).map(|o| estimate_idle_ms(lruclock, o.lru()) as u64).unwrap_or(0),
                Policy::Lfu => d.get(&key).map(|o| 255 - lfu_decr_and_return(o.lru(), now, decay) as u64).unwrap_or(0),
                _ => u64::MAX - d.expire_of(&key).unwrap_or(0) as u64,
            };
            if samples_out.len() < MAX_SAMPLES_IN_EVENT {
                samples_out.push(Sample { db, key: text(&key), score: idle });
            }
            let pool = &mut self.evict.pool;
            let mut k = 0;
            while k < POOL_SIZE && pool[k].as_ref().is_some_and(|e| e.idle < idle) {
                k += 1;
            }
            if k == 0 && pool[POOL_SIZE - 1].is_some() {
                continue; // worse than everything in a full pool
            } else if k < POOL_SIZE && pool[k].is_none() {
                // an empty slot
            } else if pool[POOL_SIZE - 1].is_none() {
                // room on the right: shift k.. right
                pool[k..].rotate_right(1);
            } else {
                // full: drop the worst (leftmost), shift 1..k left, insert at k-1
                k -= 1;
                pool[..=k].rotate_left(1);
            }
            pool[k] = Some(PoolEntry { idle, key, db });
        }
    }

    /// evict.c `performEvictions()`.
    pub(crate) fn perform_evictions(&mut self) -> EvictResult {
        // isSafeToPerformEvictions(): while clients are paused the dataset stands still.
        if self.check_client_pause_timeout() {
            return EvictResult::Ok;
        }
        // A replica leaves eviction to its master (replica-ignore-maxmemory).
        if self.repl.is_replica() && self.config.bool("replica-ignore-maxmemory") {
            return EvictResult::Ok;
        }
        let maxmemory = self.config.int("maxmemory").max(0) as u64;
        if maxmemory == 0 {
            return EvictResult::Ok;
        }
        let used = self.used_memory();
        if used <= maxmemory {
            self.evict.timer_running = false;
            return EvictResult::Ok;
        }
        let (policy, allkeys) = self.policy();
        if policy == Policy::NoEviction {
            return EvictResult::Fail;
        }
        let tofree = used - maxmemory;
        let mut freed: u64 = 0;
        let mut keys_freed = 0u64;
        let time_limit = self.eviction_time_limit_us();
        let mut elapsed_ns: u64 = 0;
        // What freeing values cost (already on the CPU clock: keyspace.rs record_free).
        let mut freeing_ns: u64 = 0;
        let lazy = self.config.bool("lazyfree-lazy-eviction");
        let pct = self.config.int("playground-cost-percent");
        let tracing = self.events.enabled();
        self.evict.timer_running = false;
        while freed < tofree {
            let mut best: Option<(usize, Vec<u8>)> = None;
            let mut samples = Vec::new();
            let pool_before = if tracing { self.evict.pool.clone() } else { vec![] };
            let mut ghosts = 0;
            if policy != Policy::Random {
                while best.is_none() {
                    let mut total = 0;
                    for db in 0..self.dbs.len() {
                        let size = if allkeys { self.dbs[db].len() } else { self.dbs[db].expires.len() };
                        if size > 0 {
                            self.eviction_pool_populate(db, allkeys, policy, &mut samples);
                            elapsed_ns += cost::scaled(cost::EXAMINE_KEY_NS, pct)
                                * self.config.int("maxmemory-samples").max(1) as u64;
                            total += size;
                        }
                    }
                    if total == 0 {
                        break;
                    }
                    for k in (0..POOL_SIZE).rev() {
                        let Some(entry) = self.evict.pool.get_mut(k).and_then(|e| e.take()) else { continue };
                        let d = &self.dbs[entry.db];
                        let exists = if allkeys { d.contains(&entry.key) } else { d.expire_of(&entry.key).is_some() };
                        if exists {
                            best = Some((entry.db, entry.key));
                            break;
                        }
                        ghosts += 1;
                    }
                }
            } else {
                let dbnum = self.dbs.len();
                for _ in 0..dbnum {
                    self.evict.next_db = self.evict.next_db.wrapping_add(1);
                    let j = self.evict.next_db % dbnum;
                    let Engine { dbs, rng, .. } = &mut *self;
                    let d = &dbs[j];
                    let buckets = if allkeys { &d.dict_buckets } else { &d.expires_buckets };
                    if let Some(i) = buckets.random_entry(|n| (uniform(rng) * n as f64) as usize % n.max(1)) {
                        let key = if allkeys {
                            d.dict.get_index(i as usize).map(|(k, _)| k.clone())
                        } else {
                            d.expires.get_index(i as usize).map(|(k, _)| k.clone())
                        };
                        if let Some(key) = key {
                            best = Some((j, key));
                            break;
                        }
                    }
                }
            }
            let Some((db, key)) = best else {
                self.end_eviction_cycle(elapsed_ns, freeing_ns);
                return EvictResult::Fail;
            };
            let before = self.used_memory();
            let free_ns = self.account_free(db, &key, lazy, "eviction");
            self.dbs[db].delete(&key);
            let after = self.used_memory();
            let delta = before.saturating_sub(after);
            freed += delta;
            let del_ns = cost::scaled(cost::DELETE_KEY_NS, pct) + free_ns;
            elapsed_ns += del_ns;
            freeing_ns += free_ns;
            // latency.c: each eviction's delete is the `eviction-del` event (ms).
            self.latency_add_sample_if_needed("eviction-del", del_ns / 1_000_000);
            self.stats.evicted_keys += 1;
            self.propagate_deletion(db, &key, lazy);
            self.notify("evicted", db, &key);
            keys_freed += 1;
            if tracing {
                let at_ms = self.now_ms;
                let report = EvictionReport {
                    policy: self.config.str("maxmemory-policy").to_string(),
                    samples,
                    pool_before,
                    pool_after: self.evict.pool.clone(),
                    victim_db: db,
                    victim: text(&key),
                    ghosts,
                    bytes_freed: delta,
                    used_before: before,
                    maxmemory,
                };
                self.events.push(Event::Eviction { at_ms, report: Box::new(report) });
            }
            if keys_freed.is_multiple_of(16) && elapsed_ns / 1000 > time_limit {
                self.evict.timer_running = true;
                self.stats.eviction_time_used_us += elapsed_ns / 1000;
                self.end_eviction_cycle(elapsed_ns, freeing_ns);
                return EvictResult::Running;
            }
        }
        self.stats.eviction_time_used_us += elapsed_ns / 1000;
        self.end_eviction_cycle(elapsed_ns, freeing_ns);
        EvictResult::Ok
    }

    /// The end of performEvictions(): its time is CPU time (what freeing took is already on
    /// the clock) and the `eviction-cycle` latency event (ms).
    fn end_eviction_cycle(&mut self, elapsed_ns: u64, freeing_ns: u64) {
        self.charge_cpu(elapsed_ns.saturating_sub(freeing_ns));
        self.latency_add_sample_if_needed("eviction-cycle", elapsed_ns / 1_000_000);
    }
}
