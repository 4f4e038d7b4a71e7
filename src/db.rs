//! One database: models the `redisDb` of server.h — `dict` (key → value) and `expires`
//! (key → absolute Unix time in ms) — and the raw operations of db.c (`dbAdd`,
//! `dbOverwrite`, `dbSyncDelete`, `setExpire`, `removeExpire`, `getExpire`).
//!
//! Lookups with lazy expiry (`lookupKey*`, `expireIfNeeded`) need the clock, the stats and
//! the event log, so they live on the engine (engine.rs); this file never checks time.
//! Differences: both maps are insertion-ordered `IndexMap`s, which give O(1) uniform
//! sampling (eviction, RANDOMKEY) but not Redis's bucket layout; iteration order differs
//! from a real server's (which is random per process anyway).

use std::collections::hash_map::DefaultHasher;
use std::hash::BuildHasherDefault;

use indexmap::IndexMap;

use crate::object::RObj;

/// A deterministic hasher: same layout for the same inputs, on every platform.
pub type Hasher = BuildHasherDefault<DefaultHasher>;
pub type Map<K, V> = IndexMap<K, V, Hasher>;

#[derive(Debug, Clone, Default)]
pub struct Db {
    pub dict: Map<Vec<u8>, RObj>,
    pub expires: Map<Vec<u8>, i64>,
    /// INFO keyspace `avg_ttl` (maintained by the active expire cycle).
    pub avg_ttl: i64,
}

impl Db {
    pub fn len(&self) -> usize {
        self.dict.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dict.is_empty()
    }

    pub fn get(&self, key: &[u8]) -> Option<&RObj> {
        self.dict.get(key)
    }

    pub fn get_mut(&mut self, key: &[u8]) -> Option<&mut RObj> {
        self.dict.get_mut(key)
    }

    pub fn contains(&self, key: &[u8]) -> bool {
        self.dict.contains_key(key)
    }

    /// The absolute expire time in ms, if the key has one.
    pub fn expire_of(&self, key: &[u8]) -> Option<i64> {
        self.expires.get(key).copied()
    }

    /// db.c `dbAdd()`/`dbOverwrite()` without touching the TTL.
    pub fn insert(&mut self, key: Vec<u8>, obj: RObj) {
        self.dict.insert(key, obj);
    }

    /// db.c `setKey()`: store and clear any TTL unless `keep_ttl`.
    pub fn set_key(&mut self, key: Vec<u8>, obj: RObj, keep_ttl: bool) {
        if !keep_ttl {
            self.expires.swap_remove(&key);
        }
        self.dict.insert(key, obj);
    }

    /// db.c `dbSyncDelete()`: removes the key and its TTL; true if it existed.
    pub fn delete(&mut self, key: &[u8]) -> bool {
        self.expires.swap_remove(key);
        self.dict.swap_remove(key).is_some()
    }

    /// Removes and returns the value (for MOVE, RENAME, GETDEL), dropping the TTL.
    pub fn take(&mut self, key: &[u8]) -> Option<(RObj, Option<i64>)> {
        let obj = self.dict.swap_remove(key)?;
        let ttl = self.expires.swap_remove(key);
        Some((obj, ttl))
    }

    /// db.c `setExpire()`; the key must exist.
    pub fn set_expire(&mut self, key: &[u8], when_ms: i64) {
        if let Some(stored) = self.expires.get_mut(key) {
            *stored = when_ms;
        } else if self.dict.contains_key(key) {
            self.expires.insert(key.to_vec(), when_ms);
        }
    }

    /// db.c `removeExpire()`: true if a TTL was removed.
    pub fn remove_expire(&mut self, key: &[u8]) -> bool {
        self.expires.swap_remove(key).is_some()
    }

    /// db.c `keyIsExpired()` for a given `now`: strictly after its time.
    pub fn is_expired(&self, key: &[u8], now_ms: i64) -> bool {
        matches!(self.expires.get(key), Some(&when) if now_ms > when)
    }

    pub fn clear(&mut self) {
        self.dict.clear();
        self.expires.clear();
        self.avg_ttl = 0;
    }
}
