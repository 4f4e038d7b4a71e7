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
//! quicklist list 0.3 ms (it frees 8 KB nodes, not elements), a 100 MB string 11.6 ms; a stream
//! frees per listpack node and per pending entry (constants below). Listpack
//! and intset values are one allocation. `lazyfree-lazy-*` and UNLINK hand values whose free
//! effort exceeds LAZYFREE_THRESHOLD (64, lazyfree.c `lazyfreeGetFreeEffort()`) to a background
//! thread, so their cost leaves the main thread, as in Redis.
//!
//! Running a command costs its dispatch, its arguments and its reply (`command_cost_ns`),
//! calibrated with redis-benchmark against redis-server 7.0.15 on this machine and read back
//! from INFO commandstats' `usec_per_call` (warm caches, pipelined): PING 0.05 µs, GET 0.12,
//! SET 0.18, INCR 0.13, SADD 0.11, ZADD 0.21, MSET of 10 keys 0.79, LRANGE of 100 elements
//! 2.91 and of 600 16.57 (27 ns an element), KEYS * over 19,800 keys 2,347 µs (118 ns a key).
//! To that the command adds what it frees (above) and the work a few handlers charge themselves
//! (keys scanned by KEYS/SCAN, a flushed keyspace, DEBUG SLEEP). The sum advances the virtual
//! CPU clock (engine/stats.rs `CpuClock`), from which command durations (INFO commandstats,
//! latencystats, SLOWLOG, LATENCY) and TIME's microseconds are read.
//!
//! Differences: real costs depend on cache behaviour and vary run to run; these are constants.
//! Commands that compute a lot for a short reply (SUNIONSTORE, ZINTERSTORE, SORT … STORE) are
//! charged for their arguments and reply only, so they measure faster than on a server.
//! `playground-cost-percent` scales them all (100 = calibrated).

use crate::object::{Hash, Set, StrValue, Value, Zset};
use crate::reply::Reply;

/// Writing one byte of an RDB file in a BGSAVE child: redis-server 7.0.15 SAVEd 300,000
/// `SET key:N value-value-N` (9,078,099 bytes) in 0.402 s on this machine.
pub const RDB_SAVE_NS_PER_BYTE: u64 = 44;

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
/// Freeing one listpack node of a stream (100 entries by default): DEL of a 1,000,000-entry
/// stream (10,000 nodes) took 3.42 ms on redis-server 7.0.15 (100,000 entries: 0.21 ms).
pub const FREE_STREAM_NODE_NS: u64 = 342;
/// Freeing one pending entry of a consumer group (its NACK and two rax leaves): DEL of a
/// 100,000-entry stream with all of them pending in one group took 10.15 ms instead of 0.21.
pub const FREE_STREAM_NACK_NS: u64 = 99;
/// One Lua VM instruction of a script. A deviation: redis-server 7.0.15's Lua 5.1 runs one in
/// a few ns (`for i=1,1e8 do n=n+1 end`, 2·10^8 instructions, in 0.46 s; `while i<1e8 do
/// i=i+1 end`, 4·10^8, in 0.64 s), but our VM runs ~13–50M instructions a second in wasm: at
/// 2 ns a script reached the default 5 s `busy-reply-threshold` only after minutes of real
/// time in the page; at 25 ns it takes seconds.
pub const LUA_STEP_NS: u64 = 25;
/// One `redis.call()` from a script, beyond the instructions around it (10^6 calls of PING
/// in 0.32 s; SET took 0.99 s — the command's own work is not modelled).
pub const SCRIPT_CALL_NS: u64 = 320;
/// lazyfree.c LAZYFREE_THRESHOLD.
pub const LAZYFREE_THRESHOLD: u64 = 64;
/// Running a command: its lookup and checks, the call, writing its reply's header.
pub const CALL_NS: u64 = 60;
/// Each argument after the command name.
pub const ARG_NS: u64 = 35;
/// Each element of the reply (a bulk, an integer…, counted through arrays and maps).
pub const REPLY_ELEMENT_NS: u64 = 27;
/// Each KiB of argument or reply payload copied.
pub const PAYLOAD_KIB_NS: u64 = 100;
/// Examining one key while walking a keyspace (KEYS, SCAN).
pub const SCAN_KEY_NS: u64 = 90;
/// Each byte of text the server composes (INFO, CLIENT LIST, LATENCY DOCTOR…): INFO's
/// default sections measured 12.6 µs for about 4 KB.
pub const TEXT_BYTE_NS: u64 = 3;
/// Running a script's body on top of the commands it calls (EVAL "return 1" measured 0.79 µs).
pub const SCRIPT_RUN_NS: u64 = 600;

/// The reply's elements and payload bytes.
fn reply_size(r: &Reply) -> (u64, u64) {
    match r {
        Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => {
            items.iter().map(reply_size).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
        }
        Reply::Map(pairs) | Reply::Pairs(pairs) => pairs
            .iter()
            .map(|(k, v)| {
                let (a, b) = (reply_size(k), reply_size(v));
                (a.0 + b.0, a.1 + b.1)
            })
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)),
        Reply::Bulk(b) | Reply::Verbatim(b) | Reply::Error(b) | Reply::HumanDouble(b) | Reply::BigNumber(b) => {
            (1, b.len() as u64)
        }
        Reply::Status(s) => (1, s.len() as u64),
        _ => (1, 0),
    }
}

/// What running a command costs besides its frees and its own charges: dispatch, arguments and
/// the reply (`reply` = None for commands whose reply was charged by the commands that built it:
/// EXEC, EVAL…). Unscaled nanoseconds.
pub fn command_cost_ns(argv: &[Vec<u8>], reply: Option<&Reply>) -> u64 {
    let arg_bytes: u64 = argv.iter().map(|a| a.len() as u64).sum();
    let (elements, bytes) = reply.map(reply_size).unwrap_or((0, 0));
    let text = match reply {
        Some(Reply::Verbatim(t)) => t.len() as u64 * TEXT_BYTE_NS,
        _ => 0,
    };
    CALL_NS
        + ARG_NS * argv.len().saturating_sub(1) as u64
        + REPLY_ELEMENT_NS * elements
        + (arg_bytes + bytes) / 1024 * PAYLOAD_KIB_NS
        + text
}

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
        Value::Stream(s) => s.free_effort(),
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
        Value::Stream(s) => {
            let (nodes, nacks) = s.allocations();
            nodes.saturating_sub(1) as u64 * FREE_STREAM_NODE_NS + nacks as u64 * FREE_STREAM_NACK_NS
        }
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

    #[test]
    fn command_costs_match_the_calibration() {
        let argv = |v: &[&str]| v.iter().map(|a| a.as_bytes().to_vec()).collect::<Vec<_>>();
        let lrange = Reply::Array((0..100).map(|_| Reply::bulk("x")).collect());
        let ns = command_cost_ns(&argv(&["LRANGE", "l", "0", "99"]), Some(&lrange));
        assert!((2700..3100).contains(&ns), "{ns}");
        let get = command_cost_ns(&argv(&["GET", "k"]), Some(&Reply::bulk("v")));
        assert!((100..150).contains(&get), "{get}");
        let mset: Vec<&str> = std::iter::once("MSET").chain(std::iter::repeat_n("k", 20)).collect();
        let ns = command_cost_ns(&argv(&mset), Some(&Reply::ok()));
        assert!((700..900).contains(&ns), "{ns}");
    }
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
        let z = Value::Zset(Zset::Skiplist { dict: Box::new(dict), zsl });
        assert_eq!(free_cost_ns(&z), 1000 * FREE_ZSET_MEMBER_NS);
        assert!(frees_in_background(&z));
        assert!(!frees_in_background(&Value::Str(StrValue::Raw(vec![0; 100 << 20], 0))));
        assert_eq!(free_cost_ns(&Value::Str(StrValue::Raw(vec![0; 100 << 20], 0))) / 1_000_000, 11);
    }
}
