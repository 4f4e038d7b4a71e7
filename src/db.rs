//! One database: models the `redisDb` of server.h — `dict` (key → value) and `expires`
//! (key → absolute Unix time in ms) — and the raw operations of db.c (`dbAdd`,
//! `dbOverwrite`, `dbSyncDelete`, `setExpire`, `removeExpire`, `getExpire`).
//!
//! Lookups with lazy expiry (`lookupKey*`, `expireIfNeeded`) need the clock, the stats and
//! the event log, so they live on the engine (engine/keyspace.rs); this file never checks time.
//! Differences: both maps are insertion-ordered `IndexMap`s (so KEYS/SCAN order differs from a
//! real server's, which is random per process anyway); beside each sits a model of its dict.c
//! table shape (ds/buckets.rs) — bucket count, chains, resize points — which the active expire
//! cycle's cursor and eviction's sampling walk as Redis walks its tables.

use crate::ds::buckets::Buckets;
use crate::ds::map::Map;
use crate::object::RObj;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

#[derive(Debug, Clone, Default)]
pub struct Db {
    pub dict: Map<Vec<u8>, RObj>,
    pub expires: Map<Vec<u8>, i64>,
    /// The dict.c table shape of `dict` and of `expires` (indices follow the maps').
    pub dict_buckets: Buckets,
    pub expires_buckets: Buckets,
    /// INFO keyspace `avg_ttl` (maintained by the active expire cycle).
    pub avg_ttl: i64,
    /// `db->expires_cursor`: where the active expire cycle resumes its bucket walk.
    pub expires_cursor: u64,
    /// Σ over keys of their dictEntry, key sds and value allocations (memory.rs).
    pub mem: usize,
    /// Keys added since the engine last looked (db.c `dbAdd()`'s `new` event and ready-key
    /// signal are emitted from this list by notify.rs).
    pub created: Vec<Vec<u8>>,
    /// Keys handed out mutably since the last `refresh_dirty`: their sizes may have changed.
    dirty: DirtyKeys,
    /// Stream keys deleted or overwritten since the engine last looked (db.c
    /// `signalDeletedKeyAsReady()`: clients blocked in XREADGROUP on them are told).
    pub gone_streams: Vec<Vec<u8>>,
    /// Keys whose value was stored as an EXEC's argument object (`RObj::exec_argv`), for the
    /// EXEC to release when it ends.
    pub exec_argv: Vec<Vec<u8>>,
    /// What the engine's dbs tell it, shared by all of them (`DbSignals`).
    pub signals: std::sync::Arc<DbSignals>,
}

/// Flags an engine's dbs raise for it, shared by all of them, so that what runs several times
/// a command reads one flag instead of visiting every db.
#[derive(Debug, Default)]
pub struct DbSignals {
    /// `created` or `gone_streams` got a key (notify.rs `flush_new_key_events`).
    pub news: AtomicBool,
    /// `memory()` may have changed (the engine's `used_memory`, after every command).
    pub memory: AtomicBool,
}

impl DbSignals {
    /// Whether `news` was raised since the last call (lowered again).
    pub fn take_news(&self) -> bool {
        take(&self.news)
    }

    /// Whether `memory` was raised since the last call (lowered again).
    pub fn take_memory(&self) -> bool {
        take(&self.memory)
    }
}

/// A plain load first: the swap is a locked instruction, which most calls need not pay.
fn take(flag: &AtomicBool) -> bool {
    flag.load(Relaxed) && flag.swap(false, Relaxed)
}

impl Db {
    /// What this db adds to `used_memory`: its keys and values and its tables.
    pub fn memory(&self) -> u64 {
        self.mem as u64
            + crate::memory::db_tables(self.dict_buckets.size(), self.expires_buckets.size(), self.expires.len())
    }

    fn raise_news(&self) {
        self.signals.news.store(true, Relaxed);
    }

    fn raise_memory(&self) {
        self.signals.memory.store(true, Relaxed);
    }

    /// A table of the db shrank (databasesCron's resize): its memory changed.
    pub fn shrink_tables_if_needed(&mut self) {
        if self.dict_buckets.shrink_if_needed() | self.expires_buckets.shrink_if_needed() {
            self.raise_memory();
        }
    }

    /// An empty db whose tables hash with `seed`.
    pub fn new(seed: u64) -> Db {
        Db {
            dict_buckets: Buckets::new(seed),
            expires_buckets: Buckets::new(seed ^ 0x5ee_de4b_17e5),
            ..Default::default()
        }
    }

    pub fn len(&self) -> usize {
        self.dict.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dict.is_empty()
    }

    pub fn get(&self, key: &[u8]) -> Option<&RObj> {
        self.dict.get(key)
    }

    /// A value to change in place: its size is recomputed after the command (`refresh_dirty`).
    pub fn get_mut(&mut self, key: &[u8]) -> Option<&mut RObj> {
        let obj = self.dict.get_mut(key)?;
        self.dirty.push(key);
        Some(obj)
    }

    /// A value whose metadata (LRU/LFU) changes but not its size.
    pub fn get_mut_quiet(&mut self, key: &[u8]) -> Option<&mut RObj> {
        self.dict.get_mut(key)
    }

    /// Recomputes the size of every value handed out by `get_mut` since the last call.
    pub fn refresh_dirty(&mut self) {
        if self.dirty.is_empty() {
            return;
        }
        self.raise_memory();
        let mut dirty = std::mem::take(&mut self.dirty);
        let mut keys: Vec<&[u8]> = dirty.keys().collect();
        if keys.len() > 1 {
            keys.sort_unstable();
            keys.dedup();
        }
        for key in keys {
            if let Some(obj) = self.dict.get_mut(key) {
                let new = crate::memory::value_alloc(&obj.value);
                self.mem = self.mem - obj.mem + new;
                obj.mem = new;
            }
        }
        dirty.clear();
        self.dirty = dirty;
    }

    pub fn contains(&self, key: &[u8]) -> bool {
        self.dict.contains_key(key)
    }

    /// The absolute expire time in ms, if the key has one.
    pub fn expire_of(&self, key: &[u8]) -> Option<i64> {
        self.expires.get(key).copied()
    }

    /// db.c `dbAdd()`/`dbOverwrite()` without touching the TTL.
    pub fn insert(&mut self, key: Vec<u8>, mut obj: RObj) {
        self.raise_memory();
        obj.mem = crate::memory::value_alloc(&obj.value);
        if obj.exec_argv() {
            self.exec_argv.push(key.clone());
        }
        if let Some(slot) = self.dict.get_mut(&key) {
            if matches!(slot.value, crate::object::Value::Stream(_)) {
                self.gone_streams.push(key.clone());
                self.signals.news.store(true, Relaxed);
            }
            self.mem = self.mem - slot.mem + obj.mem;
            *slot = obj;
            return;
        }
        self.mem += crate::memory::key_alloc(&key) + obj.mem;
        // The map grows before the shape model's tables, so that when both double (at the
        // same powers of two) the model's new vectors can take the block the map freed.
        crate::ds::map::reserve_one(&mut self.dict);
        self.dict_buckets.push(&key);
        self.created.push(key.clone());
        self.raise_news();
        self.dict.insert(key, obj);
    }

    /// db.c `setKey()`: store and clear any TTL unless `keep_ttl`.
    pub fn set_key(&mut self, key: Vec<u8>, obj: RObj, keep_ttl: bool) {
        if !keep_ttl {
            self.remove_expire(&key);
        }
        self.insert(key, obj);
    }

    fn remove_from_dict(&mut self, key: &[u8]) -> Option<RObj> {
        self.raise_memory();
        let (i, _, obj) = self.dict.swap_remove_full(key)?;
        if matches!(obj.value, crate::object::Value::Stream(_)) {
            self.gone_streams.push(key.to_vec());
            self.raise_news();
        }
        self.dict_buckets.swap_remove(i);
        self.mem -= crate::memory::key_alloc(key) + obj.mem;
        Some(obj)
    }

    /// db.c `dbSyncDelete()`: removes the key and its TTL; true if it existed.
    pub fn delete(&mut self, key: &[u8]) -> bool {
        self.remove_expire(key);
        self.remove_from_dict(key).is_some()
    }

    /// Removes and returns the value (for MOVE, RENAME, GETDEL), dropping the TTL.
    pub fn take(&mut self, key: &[u8]) -> Option<(RObj, Option<i64>)> {
        let obj = self.remove_from_dict(key)?;
        let ttl = self.expires.get(key).copied();
        self.remove_expire(key);
        Some((obj, ttl))
    }

    /// db.c `setExpire()`; the key must exist.
    pub fn set_expire(&mut self, key: &[u8], when_ms: i64) {
        self.raise_memory();
        if let Some(stored) = self.expires.get_mut(key) {
            *stored = when_ms;
        } else if self.dict.contains_key(key) {
            crate::ds::map::reserve_one(&mut self.expires);
            self.expires_buckets.push(key);
            self.expires.insert(key.to_vec(), when_ms);
        }
    }

    /// db.c `removeExpire()`: true if a TTL was removed.
    pub fn remove_expire(&mut self, key: &[u8]) -> bool {
        self.raise_memory();
        match self.expires.swap_remove_full(key) {
            Some((i, _, _)) => {
                self.expires_buckets.swap_remove(i);
                true
            }
            None => false,
        }
    }

    /// db.c `keyIsExpired()` for a given `now`: strictly after its time.
    pub fn is_expired(&self, key: &[u8], now_ms: i64) -> bool {
        matches!(self.expires.get(key), Some(&when) if now_ms > when)
    }

    pub fn clear(&mut self) {
        self.raise_memory();
        for (k, o) in &self.dict {
            if matches!(o.value, crate::object::Value::Stream(_)) {
                self.gone_streams.push(k.clone());
                self.signals.news.store(true, Relaxed);
            }
        }
        self.dict.clear();
        self.expires.clear();
        self.dict_buckets.clear();
        self.expires_buckets.clear();
        self.avg_ttl = 0;
        self.expires_cursor = 0;
        self.mem = 0;
        self.dirty.clear();
        self.created.clear();
        self.exec_argv.clear();
    }

    /// The end of an EXEC: its argument objects are released (OBJECT REFCOUNT back to 1).
    pub fn release_exec_argv(&mut self) {
        self.raise_memory();
        for key in std::mem::take(&mut self.exec_argv) {
            if let Some(obj) = self.dict.get_mut(&key) {
                obj.set_exec_argv(false);
            }
        }
    }
}

/// The keys `get_mut` handed out, one after another in one buffer (no allocation per write
/// once it has grown; a key asked for twice in a row is kept once).
#[derive(Debug, Clone, Default)]
struct DirtyKeys {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl DirtyKeys {
    fn push(&mut self, key: &[u8]) {
        if let Some(&end) = self.ends.last() {
            let start = if self.ends.len() >= 2 { self.ends[self.ends.len() - 2] } else { 0 };
            if &self.bytes[start..end] == key {
                return;
            }
        }
        self.bytes.extend_from_slice(key);
        self.ends.push(self.bytes.len());
    }

    fn keys(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(self.ends.iter().copied()).map(|(a, b)| &self.bytes[a..b])
    }

    fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::{StrValue, Value};

    #[test]
    fn dirty_keys_keep_each_key_handed_out() {
        let mut d = DirtyKeys::default();
        assert!(d.is_empty());
        for k in [&b"a"[..], b"a", b"", b"bc", b"a", b"bc", b"bc"] {
            d.push(k);
        }
        assert_eq!(d.keys().collect::<Vec<_>>(), vec![&b"a"[..], b"", b"bc", b"a", b"bc"]);
        d.clear();
        assert!(d.is_empty() && d.keys().next().is_none());
        d.push(b"");
        assert_eq!(d.keys().collect::<Vec<_>>(), vec![&b""[..]]);
    }

    #[test]
    fn a_list_write_updates_used_memory() {
        let mut db = Db::new(42);
        let list: crate::object::List = (0..3000).map(|i| format!("e{i}").into_bytes()).collect();
        db.insert(b"l".to_vec(), RObj::new(Value::List(list), 0));
        let before = db.memory();
        for _ in 0..200 {
            let Some(obj) = db.get_mut(b"l") else { panic!() };
            let Value::List(l) = &mut obj.value else { panic!() };
            l.push_back(vec![b'x'; 500]);
            db.refresh_dirty();
        }
        // 200 elements of ~500 bytes among 3,200, seen through a 64-element sample.
        assert!(db.memory() > before + 200 * 500 / 2, "{} vs {before}", db.memory());
    }

    #[test]
    fn table_shapes_follow_every_change() {
        let mut db = Db::new(42);
        let obj = || RObj::new(Value::Str(StrValue::Embstr(b"v".to_vec().into())), 0);
        let mut x = 1u64;
        for _ in 0..5000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let key = format!("k{}", (x >> 33) % 300).into_bytes();
            match (x >> 20) % 6 {
                0 | 1 => db.insert(key, obj()),
                2 => db.set_expire(&key, 5),
                3 => {
                    db.remove_expire(&key);
                }
                4 => {
                    db.delete(&key);
                }
                _ => db.set_key(key, obj(), false),
            }
        }
        db.dict_buckets.check(db.dict.keys().map(|k| k.as_slice())).unwrap();
        db.expires_buckets.check(db.expires.keys().map(|k| k.as_slice())).unwrap();
        let mem: usize =
            db.dict.iter().map(|(k, o)| crate::memory::key_alloc(k) + crate::memory::value_alloc(&o.value)).sum();
        assert_eq!(db.mem, mem, "the running total follows every insert and delete");
        db.expires_buckets.shrink_if_needed();
        db.expires_buckets.check(db.expires.keys().map(|k| k.as_slice())).unwrap();
    }
}
