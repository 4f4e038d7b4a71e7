//! Values and their access metadata: models object.c (`createStringObject`,
//! `tryObjectEncoding`, `createStringObjectFromLongLongForValue`) and the `robj` header's
//! 24-bit `lru` field.
//!
//! Collections (lists, hashes, sets, sorted sets) are enums over the encodings 7.0 reports;
//! their operations live in the command file of their family (t_hash.c ↔ command/hash.rs…).
//!
//! Strings keep the encoding Redis would report in `OBJECT ENCODING`: `int` (a canonical
//! int64 of at most 20 characters), `embstr` (at most 44 bytes, one allocation with the
//! header) or `raw`. Integers 0..9999 created by encoding-aware paths are Redis's shared
//! objects (`OBJECT REFCOUNT` 2147483647). Differences: we keep no real refcount; a value is
//! reported shared exactly when Redis would have picked the shared object for it.

use indexmap::IndexSet;

use crate::ds::intset::Intset;
use crate::ds::map::{Hasher, Map};
use crate::ds::skiplist::Skiplist;

/// server.h LRU_CLOCK_MAX / LRU_CLOCK_RESOLUTION.
pub const LRU_CLOCK_MAX: u32 = (1 << 24) - 1;
pub const LRU_CLOCK_RESOLUTION: i64 = 1000;
/// OBJ_ENCODING_EMBSTR_SIZE_LIMIT.
pub const EMBSTR_SIZE_LIMIT: usize = 44;
/// OBJ_SHARED_INTEGERS.
pub const SHARED_INTEGERS: i64 = 10_000;

#[derive(Debug, Clone, PartialEq)]
pub enum StrValue {
    /// `int` encoding; `shared` when it is one of Redis's shared integers.
    Int {
        value: i64,
        shared: bool,
    },
    Embstr(Vec<u8>),
    /// A raw sds; the second field is its capacity (sds.c's `alloc`) when it differs from what
    /// sdsnewlen gives a string of that length — after `sdsMakeRoomFor()` or a trim — and 0
    /// otherwise (memory.rs `sds_capacity()`), for the memory model.
    Raw(Vec<u8>, usize),
}

/// A list: 7.0 always reports `quicklist` (a linked list of listpack nodes); the node layout
/// only matters for memory numbers, so the elements are kept in one deque.
pub type List = std::collections::VecDeque<Vec<u8>>;

/// A hash: `listpack` (field/value pairs in insertion order) while small, else `hashtable`
/// (t_hash.c `hashTypeConvert`; never converts back).
#[derive(Debug, Clone, PartialEq)]
pub enum Hash {
    Listpack(Vec<(Vec<u8>, Vec<u8>)>),
    Table(Map<Vec<u8>, Vec<u8>>),
}

/// A set: `intset` while every member is a canonical int64 and there are at most
/// set-max-intset-entries of them, else `hashtable` (t_set.c; never converts back).
#[derive(Debug, Clone, PartialEq)]
pub enum Set {
    Intset(Intset),
    Table(IndexSet<Vec<u8>, Hasher>),
}

/// A sorted set: `listpack` (member/score pairs sorted by score, then member) while small,
/// else `skiplist` — the skiplist plus a member → score dict (t_zset.c `zsetConvert`).
#[derive(Debug, Clone)]
pub enum Zset {
    Listpack(Vec<(Vec<u8>, f64)>),
    Skiplist { dict: Map<Vec<u8>, f64>, zsl: Skiplist },
}

impl PartialEq for Zset {
    fn eq(&self, other: &Zset) -> bool {
        self.len() == other.len()
            && self.iter().zip(other.iter()).all(|(a, b)| a.0 == b.0 && a.1.to_bits() == b.1.to_bits())
    }
}

impl Zset {
    pub fn len(&self) -> usize {
        match self {
            Zset::Listpack(v) => v.len(),
            Zset::Skiplist { zsl, .. } => zsl.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Members with their scores in order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = (&[u8], f64)> + '_> {
        match self {
            Zset::Listpack(v) => Box::new(v.iter().map(|(m, s)| (m.as_slice(), *s))),
            Zset::Skiplist { zsl, .. } => Box::new(zsl.iter()),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(StrValue),
    List(List),
    Hash(Hash),
    Set(Set),
    Zset(Zset),
}

/// A value plus the `lru` field of its `robj` header (LRU clock or LFU data).
#[derive(Debug, Clone, PartialEq)]
pub struct RObj {
    pub value: Value,
    pub lru: u32,
    /// The value is still the argument object of the command that stored it, which the running
    /// EXEC's queue also holds until it ends: OBJECT REFCOUNT 2 (db.c `setKey()`'s
    /// `incrRefCount()` on `c->argv[2]`). A change in place (`dbUnshareStringValue()`: APPEND,
    /// SETRANGE…) makes a new object; the EXEC clears the rest when it ends.
    pub exec_argv: bool,
    /// The value's allocations as memory.rs models them, kept by the db (db.rs).
    pub mem: usize,
}

impl StrValue {
    /// object.c `createStringObject()`: embstr up to 44 bytes, raw beyond. No integer check.
    pub fn from_bytes(b: Vec<u8>) -> StrValue {
        if b.len() <= EMBSTR_SIZE_LIMIT {
            StrValue::Embstr(b)
        } else {
            StrValue::Raw(b, 0)
        }
    }

    /// object.c `tryObjectEncoding()` applied to a fresh argument: int when the bytes are a
    /// canonical int64 of at most 20 characters, else embstr/raw by length.
    pub fn encoded(b: Vec<u8>, shared_ok: bool) -> StrValue {
        if b.len() <= 20 {
            if let Some(v) = crate::util::string2ll(&b) {
                return StrValue::from_i64(v, shared_ok);
            }
        }
        match StrValue::from_bytes(b) {
            // trimStringObjectIfNeeded(): only the spare room changes (memory.rs).
            StrValue::Raw(b, _) => {
                let room = crate::ds::sds::sds_trimmed_room(b.len());
                StrValue::Raw(b, room)
            }
            other => other,
        }
    }

    /// `createStringObjectFromLongLongForValue()`: shared object for 0..9999 unless the
    /// eviction policy needs a private LRU/LFU field (`shared_ok == false`).
    pub fn from_i64(v: i64, shared_ok: bool) -> StrValue {
        StrValue::Int { value: v, shared: shared_ok && (0..SHARED_INTEGERS).contains(&v) }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            StrValue::Int { value, .. } => value.to_string().into_bytes(),
            StrValue::Embstr(b) | StrValue::Raw(b, _) => b.clone(),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            StrValue::Int { value, .. } => crate::util::digits10(*value),
            StrValue::Embstr(b) | StrValue::Raw(b, _) => b.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn encoding(&self) -> &'static str {
        match self {
            StrValue::Int { .. } => "int",
            StrValue::Embstr(_) => "embstr",
            StrValue::Raw(..) => "raw",
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            StrValue::Int { value, .. } => Some(*value),
            StrValue::Embstr(b) | StrValue::Raw(b, _) => crate::util::string2ll(b),
        }
    }
}

impl Value {
    /// The name `TYPE` replies with.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Str(_) => "string",
            Value::List(_) => "list",
            Value::Hash(_) => "hash",
            Value::Set(_) => "set",
            Value::Zset(_) => "zset",
        }
    }

    /// The name `OBJECT ENCODING` replies with (object.c `strEncoding()`).
    pub fn encoding(&self) -> &'static str {
        match self {
            Value::Str(s) => s.encoding(),
            Value::List(_) => "quicklist",
            Value::Hash(Hash::Listpack(_)) | Value::Zset(Zset::Listpack(_)) => "listpack",
            Value::Hash(Hash::Table(_)) | Value::Set(Set::Table(_)) => "hashtable",
            Value::Set(Set::Intset(_)) => "intset",
            Value::Zset(Zset::Skiplist { .. }) => "skiplist",
        }
    }

    /// `OBJECT REFCOUNT` of the value alone: shared integers report INT_MAX
    /// (OBJ_SHARED_REFCOUNT), others 1 (`RObj::refcount` adds an EXEC's reference).
    pub fn refcount(&self) -> i64 {
        match self {
            Value::Str(StrValue::Int { shared: true, .. }) => i32::MAX as i64,
            _ => 1,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// LFU: the same 24 bits as the LRU clock, split into a 16-bit minute stamp and an 8-bit
// logarithmic counter. Models evict.c `LFUGetTimeInMinutes()`, `LFUTimeElapsed()`,
// `LFULogIncr()`, `LFUDecrAndReturn()` and db.c `updateLFU()`.
// ---------------------------------------------------------------------------------------------

/// server.h LFU_INIT_VAL: a new key's counter, so it isn't evicted before it can be used.
pub const LFU_INIT_VAL: u32 = 5;

/// Minutes since the epoch, 16 bits.
pub fn lfu_time_in_minutes(now_ms: i64) -> u32 {
    ((now_ms.max(0) / 1000 / 60) & 65535) as u32
}

/// The `lru` field of a new object under an LFU policy.
pub fn lfu_initial(now_ms: i64) -> u32 {
    (lfu_time_in_minutes(now_ms) << 8) | LFU_INIT_VAL
}

fn lfu_time_elapsed(ldt: u32, now_min: u32) -> u32 {
    if now_min >= ldt {
        now_min - ldt
    } else {
        65535 - ldt + now_min
    }
}

/// The counter after decay: minus one per `decay_time` minutes since the stamp (0 = no decay).
/// Read-only, like Redis's.
pub fn lfu_decr_and_return(lru: u32, now_ms: i64, decay_time: i64) -> u32 {
    let ldt = lru >> 8;
    let counter = lru & 255;
    let periods =
        if decay_time > 0 { lfu_time_elapsed(ldt, lfu_time_in_minutes(now_ms)) as i64 / decay_time } else { 0 };
    if periods > 0 {
        (counter as i64 - periods).max(0) as u32
    } else {
        counter
    }
}

/// Logarithmic increment: always below LFU_INIT_VAL, then with probability
/// 1 / ((counter - 5) × log_factor + 1). `r` is uniform in [0, 1).
pub fn lfu_log_incr(counter: u32, r: f64, log_factor: i64) -> u32 {
    if counter >= 255 {
        return 255;
    }
    let base = (counter as f64 - LFU_INIT_VAL as f64).max(0.0);
    let p = 1.0 / (base * log_factor as f64 + 1.0);
    if r < p {
        counter + 1
    } else {
        counter
    }
}

impl RObj {
    /// `OBJECT REFCOUNT`: the value's, plus the running EXEC's reference to its argument.
    pub fn refcount(&self) -> i64 {
        match self.value.refcount() {
            1 if self.exec_argv => 2,
            n => n,
        }
    }
}

#[cfg(test)]
mod size_tests {
    /// Every keyspace entry is as big as the largest value variant: keep it small (a million
    /// keys in the page cost this many bytes each).
    #[test]
    fn a_keyspace_value_stays_small() {
        assert!(std::mem::size_of::<super::RObj>() <= 96, "{}", std::mem::size_of::<super::RObj>());
    }
}
