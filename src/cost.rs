//! The CPU cost model: virtual nanoseconds charged for the work Redis bounds by real time.
//!
//! Redis stops an active-expire cycle when `ustime()` says it used its budget (25% of a cron
//! period, 1 ms for a fast cycle). The engine has no real time, so it charges each piece of
//! work a documented cost and stops where a real server with that workload would.
//!
//! Calibration (redis-server 7.0.15, Debian, this machine's class of x86-64 CPU, measured with
//! `DEBUG SET-ACTIVE-EXPIRE 0`, N keys set with PX 1, then active expiry switched back on and
//! `expired_keys` / `expire_cycle_cpu_milliseconds` read every 100 ms):
//! - 1,000,000 keys, all expired: 872 ns of cycle time per expired key (1,147 keys per cpu-ms);
//!   every slow cycle hit its 25 ms cap (60 caps for 903,550 keys in 3.8 s).
//! - 1,000,000 keys, every other one expired: 984 ns per expired key, i.e. per two keys
//!   examined. Solving `examine + delete = 872`, `2·examine + delete = 984` gives about 110 ns
//!   to examine a key and 760 ns to delete one (dict removal, keyspace event, propagation, free).
//! - 100,000 keys, all expired: 520 ns per key — smaller tables stay in cache. The model uses the
//!   million-key figures: the playground's interesting cases are the big ones.
//!
//! Freeing a value costs in proportion to its allocations, measured as the latency of `DEL` on
//! a 1,000,000-element value: skiplist zset 193 ms, hashtable hash 743 ms, hashtable set 549 ms,
//! quicklist list 0.3 ms (it frees 8 KB nodes, not elements), a 100 MB string 11.6 ms. Listpack
//! and intset values are one allocation. `lazyfree-lazy-*` and UNLINK hand values whose free
//! effort exceeds LAZYFREE_THRESHOLD (64, lazyfree.c `lazyfreeGetFreeEffort()`) to a background
//! thread, so their cost leaves the main thread, as in Redis.
//!
//! Differences: real costs depend on cache behaviour and vary run to run; these are constants.
//! `playground-cost-percent` scales them all (100 = calibrated).

use crate::object::{Hash, Set, StrValue, Value, Zset};

/// Examining one key of the expires table (read its TTL, compare, count).
pub const EXAMINE_KEY_NS: u64 = 110;
/// Visiting one bucket of the expires table, empty or not.
pub const VISIT_BUCKET_NS: u64 = 10;
/// Deleting one key: dict removal, event, propagation, freeing a small value.
pub const DELETE_KEY_NS: u64 = 760;
/// Freeing one member of a skiplist-encoded sorted set.
pub const FREE_ZSET_MEMBER_NS: u64 = 193;
/// Freeing one field of a hashtable-encoded hash.
pub const FREE_HASH_FIELD_NS: u64 = 743;
/// Freeing one member of a hashtable-encoded set.
pub const FREE_SET_MEMBER_NS: u64 = 549;
/// Freeing one 8 KB quicklist node.
pub const FREE_LIST_NODE_NS: u64 = 250;
/// Freeing one KiB of a string.
pub const FREE_STRING_KIB_NS: u64 = 113;
/// One Lua VM instruction of a script: redis-server 7.0.15 ran `for i=1,1e8 do n=n+1 end`
/// (2·10^8 instructions) in 0.46 s and `while i<1e8 do i=i+1 end` (4·10^8) in 0.64 s.
pub const LUA_STEP_NS: u64 = 2;
/// One `redis.call()` from a script, beyond the instructions around it (10^6 calls of PING
/// in 0.32 s; SET took 0.99 s — the command's own work is not modelled).
pub const SCRIPT_CALL_NS: u64 = 320;
/// lazyfree.c LAZYFREE_THRESHOLD.
pub const LAZYFREE_THRESHOLD: u64 = 64;

/// Elements per quicklist node at list-max-listpack-size -2 (8 KB) for small elements.
fn list_nodes(len: usize, bytes: usize) -> u64 {
    (bytes.div_ceil(8192).max(1)).max(len.div_ceil(1 << 13)) as u64
}

/// lazyfree.c `lazyfreeGetFreeEffort()`: roughly the number of allocations to free.
pub fn free_effort(v: &Value) -> u64 {
    match v {
        Value::Str(_) => 1,
        Value::List(l) => list_nodes(l.len(), l.iter().map(|e| e.len() + 2).sum()),
        Value::Hash(Hash::Table(m)) => m.len() as u64,
        Value::Set(Set::Table(s)) => s.len() as u64,
        Value::Zset(z @ Zset::Skiplist { .. }) => z.len() as u64,
        Value::Hash(Hash::Listpack(_)) | Value::Set(Set::Intset(_)) | Value::Zset(Zset::Listpack(_)) => 1,
    }
}

/// Nanoseconds the main thread spends freeing `v` synchronously (beyond DELETE_KEY_NS).
pub fn free_cost_ns(v: &Value) -> u64 {
    match v {
        Value::Str(StrValue::Raw(b, _)) => (b.len() as u64 / 1024) * FREE_STRING_KIB_NS,
        Value::Str(_) => 0,
        Value::List(l) => {
            let nodes = list_nodes(l.len(), l.iter().map(|e| e.len() + 2).sum());
            nodes.saturating_sub(1) * FREE_LIST_NODE_NS
        }
        Value::Hash(Hash::Table(m)) => m.len() as u64 * FREE_HASH_FIELD_NS,
        Value::Set(Set::Table(s)) => s.len() as u64 * FREE_SET_MEMBER_NS,
        Value::Zset(z @ Zset::Skiplist { .. }) => z.len() as u64 * FREE_ZSET_MEMBER_NS,
        Value::Hash(Hash::Listpack(_)) | Value::Set(Set::Intset(_)) | Value::Zset(Zset::Listpack(_)) => 0,
    }
}

/// Whether freeing `v` goes to the lazyfree thread when lazy freeing applies
/// (lazyfree.c `dbAsyncDelete()`/`freeObjAsync()`).
pub fn frees_in_background(v: &Value) -> bool {
    free_effort(v) > LAZYFREE_THRESHOLD
}

/// Scales a calibrated cost by `playground-cost-percent`.
pub fn scaled(ns: u64, percent: i64) -> u64 {
    ns.saturating_mul(percent.max(0) as u64) / 100
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ds::map::Map;
    use crate::ds::skiplist::Skiplist;

    #[test]
    fn a_million_member_zset_costs_what_del_measured() {
        let mut zsl = Skiplist::new();
        let mut dict = Map::default();
        for i in 0..1000u32 {
            let m = i.to_string().into_bytes();
            zsl.insert(i as f64, m.clone(), 1);
            dict.insert(m, i as f64);
        }
        let z = Value::Zset(Zset::Skiplist { dict, zsl });
        assert_eq!(free_cost_ns(&z), 1000 * FREE_ZSET_MEMBER_NS);
        assert!(frees_in_background(&z));
        assert!(!frees_in_background(&Value::Str(StrValue::Raw(vec![0; 100 << 20], 0))));
        assert_eq!(free_cost_ns(&Value::Str(StrValue::Raw(vec![0; 100 << 20], 0))) / 1_000_000, 11);
    }
}
