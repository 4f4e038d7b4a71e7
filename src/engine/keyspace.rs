//! Keyspace access with lazy expiry: db.c `lookupKey()` (LRU/LFU touch, hit/miss stats,
//! `keymiss`), `expireIfNeeded()` and `deleteExpiredKeyAndPropagate()`, and the cost of freeing
//! a value on the main thread or handing it to the lazyfree thread (lazyfree.c
//! `dbAsyncDelete()`, `lazyfreeGetFreeEffort()`).

use super::{lookup, uniform, Engine};
use crate::db::Db;
use crate::events::{Event, ExpiredBy};
use crate::object::RObj;

impl Engine {
    /// db.c `expireIfNeeded()`: deletes the key if its time has passed; true if it did (never
    /// while a file loads).
    /// While clients are paused (CLIENT PAUSE) the key reads as expired but stays.
    pub(crate) fn expire_if_needed(&mut self, db: usize, key: &[u8]) -> bool {
        self.expire_if_needed_with(db, key, false)
    }

    /// `expireIfNeeded(db, key, force_delete_expired)`: on a replica only a write (`force`)
    /// deletes an expired key; a read sees it gone and leaves it for the master's DEL, and the
    /// master's own commands see it alive (replication.rs `replica_expiry`).
    pub(crate) fn expire_if_needed_with(&mut self, db: usize, key: &[u8], force: bool) -> bool {
        // keyIsExpired(): nothing expires while a file loads.
        if self.loading || !self.dbs[db].is_expired(key, self.now_ms) {
            return false;
        }
        if let Some(expired) = self.repl.replica_expiry(self.current_client, force) {
            return expired;
        }
        if self.check_client_pause_timeout() {
            return true;
        }
        self.delete_expired_key(db, key, ExpiredBy::Lazy);
        true
    }

    /// db.c `deleteExpiredKeyAndPropagate()`: delete (timed as the `expire-del` latency event),
    /// count, fire `expired`. Returns the main-thread ns spent freeing the value.
    pub(crate) fn delete_expired_key(&mut self, db: usize, key: &[u8], by: ExpiredBy) -> u64 {
        // One removal from each table; the value's free is charged from what was removed.
        let Some((obj, when)) = self.dbs[db].take(key) else { return 0 };
        let when = when.unwrap_or(self.now_ms);
        let lazy = self.hot.lazyfree_lazy_expire;
        let free_ns = self.charge_free(
            db,
            key,
            &obj.value,
            lazy,
            if by == ExpiredBy::Lazy { "lazy expiry" } else { "active expiry" },
        );
        // deleteExpiredKeyAndPropagate() times the delete as the `expire-del` latency event
        // (LATENCY LATEST / HISTORY): a big value freed on the main thread shows there.
        self.latency_add_sample_if_needed("expire-del", free_ns / 1_000_000);
        self.stats.expired_keys += 1;
        self.propagate_deletion(db, key, lazy);
        if self.events.enabled() {
            self.events.push(Event::Expired {
                at_ms: self.now_ms,
                db,
                key: String::from_utf8_lossy(key).into_owned(),
                by,
                late_ms: self.now_ms - when,
                command: if by == ExpiredBy::Lazy { self.current_command } else { None },
            });
        }
        // The `expired` keyspace event (published, WATCHers touched); the Expired event above
        // is its record in the log.
        self.notify_logged("expired", db, key, false);
        free_ns
    }

    /// Charges freeing the value at `key` (about to be deleted) to the main thread, or hands it to
    /// the lazyfree thread when `lazy` applies and the value is big enough (lazyfree.c
    /// `dbAsyncDelete()`). Returns the main-thread ns; a free of a millisecond or more is
    /// reported as a stall.
    pub(crate) fn account_free(&mut self, db: usize, key: &[u8], lazy: bool, cause: &'static str) -> u64 {
        let Some(obj) = self.dbs[db].get(key) else { return 0 };
        let (background, ns) = (crate::cost::frees_in_background(&obj.value), crate::cost::free_cost_ns(&obj.value));
        self.record_free(db, key, lazy && background, ns, cause)
    }

    /// `account_free` for a value already removed.
    pub(crate) fn charge_free(
        &mut self,
        db: usize,
        key: &[u8],
        value: &crate::object::Value,
        lazy: bool,
        cause: &'static str,
    ) -> u64 {
        let (background, ns) = (crate::cost::frees_in_background(value), crate::cost::free_cost_ns(value));
        self.record_free(db, key, lazy && background, ns, cause)
    }

    fn record_free(&mut self, db: usize, key: &[u8], in_background: bool, ns: u64, cause: &'static str) -> u64 {
        if in_background {
            self.stats.lazyfreed_objects += 1;
            return 0;
        }
        let ns = crate::cost::scaled(ns, self.hot.cost_percent);
        self.stats.free_time_ns += ns;
        // Freeing is work on the main thread: the virtual CPU clock moves (src/cost.rs).
        self.charge_cpu(ns);
        if ns >= 1_000_000 && self.events.enabled() {
            let at_ms = self.now_ms;
            self.events.push(Event::Stall { at_ms, db, key: crate::util::text(key), cause, us: ns / 1000 });
        }
        ns
    }

    /// db.c `lookupKey()`: lazy expiry, then LRU touch and hit/miss stats per `flags`.
    pub(crate) fn lookup(&mut self, db: usize, key: &[u8], flags: u32) -> Option<&mut RObj> {
        let expired = self.dbs[db].contains(key) && self.expire_if_needed_with(db, key, flags & lookup::WRITE != 0);
        let lru = self.lruclock;
        let found = !expired && self.dbs[db].contains(key);
        if found {
            if flags & (lookup::WRITE | lookup::NOSTATS) == 0 {
                self.stats.keyspace_hits += 1;
            }
        } else {
            if flags & (lookup::WRITE | lookup::NONOTIFY) == 0 {
                self.notify("keymiss", db, key);
            }
            if flags & (lookup::WRITE | lookup::NOSTATS) == 0 {
                self.stats.keyspace_misses += 1;
            }
            return None;
        }
        let write = flags & lookup::WRITE != 0;
        fn get<'a>(d: &'a mut Db, k: &[u8], write: bool) -> Option<&'a mut RObj> {
            if write {
                d.get_mut(k)
            } else {
                d.get_mut_quiet(k)
            }
        }
        if flags & lookup::NOTOUCH != 0 {
            return get(&mut self.dbs[db], key, write);
        }
        if self.lfu {
            // db.c updateLFU(): decay, then a logarithmic increment, then restamp.
            let r = uniform(&mut self.rng);
            let (now, decay, factor) = (self.now_ms, self.hot.lfu_decay_time, self.hot.lfu_log_factor);
            let obj = get(&mut self.dbs[db], key, write)?;
            let counter = crate::object::lfu_decr_and_return(obj.lru(), now, decay);
            let counter = crate::object::lfu_log_incr(counter, r, factor);
            obj.set_lru((crate::object::lfu_time_in_minutes(now) << 8) | counter);
            return Some(obj);
        }
        let obj = get(&mut self.dbs[db], key, write)?;
        obj.set_lru(lru);
        Some(obj)
    }

    pub(crate) fn lookup_read(&mut self, db: usize, key: &[u8]) -> Option<&mut RObj> {
        self.lookup(db, key, lookup::NONE)
    }

    pub(crate) fn lookup_write(&mut self, db: usize, key: &[u8]) -> Option<&mut RObj> {
        self.lookup(db, key, lookup::WRITE)
    }

    /// A new object stamped with the LRU clock, or the LFU initial value under an LFU policy
    /// (object.c `createObject()`).
    pub(crate) fn new_obj(&self, value: crate::object::Value) -> RObj {
        let lru = if self.lfu { crate::object::lfu_initial(self.now_ms) } else { self.lruclock };
        RObj::new(value, lru)
    }
}
