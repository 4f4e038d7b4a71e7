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
    Embstr(Emb),
    /// A raw sds; the second field is its capacity (sds.c's `alloc`) when it differs from what
    /// sdsnewlen gives a string of that length — after `sdsMakeRoomFor()` or a trim — and 0
    /// otherwise (memory.rs `sds_capacity()`), for the memory model.
    Raw(Vec<u8>, usize),
}

/// An embstr's bytes: kept inside the value when they fit (`EMB_INLINE` bytes) — no allocation
/// of their own, as Redis's embstr shares one allocation with its `robj` header — else on the
/// heap. Both forms are the same string: equality, hashing and the memory model see only the
/// bytes.
#[derive(Clone)]
pub enum Emb {
    Inline { len: u8, buf: [u8; EMB_INLINE] },
    Heap(Vec<u8>),
}

/// The longest embstr kept inline: what fits beside the tags in a string value's slot on wasm32
/// (24 bytes, the size of its other forms), so a short value costs its key's slot alone.
pub const EMB_INLINE: usize = 22;

impl Emb {
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Emb::Inline { len, buf } => &buf[..*len as usize],
            Emb::Heap(v) => v,
        }
    }
    pub fn into_vec(self) -> Vec<u8> {
        match self {
            Emb::Inline { len, buf } => buf[..len as usize].to_vec(),
            Emb::Heap(v) => v,
        }
    }
}

impl From<Vec<u8>> for Emb {
    fn from(v: Vec<u8>) -> Emb {
        if v.len() <= EMB_INLINE {
            let mut buf = [0u8; EMB_INLINE];
            buf[..v.len()].copy_from_slice(&v);
            Emb::Inline { len: v.len() as u8, buf }
        } else {
            Emb::Heap(v)
        }
    }
}

impl std::ops::Deref for Emb {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl PartialEq for Emb {
    fn eq(&self, other: &Emb) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl std::fmt::Debug for Emb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

/// A list: 7.0 always reports `quicklist` (a linked list of listpack nodes); the node layout
/// only matters for memory numbers, so the elements are kept in one deque (reached through
/// `Deref`), beside the memory model's last sample of a long list's element sizes
/// (`memory::long_list_shape`), which is not part of the list's value.
#[derive(Clone, Default)]
pub struct List {
    items: std::collections::VecDeque<Vec<u8>>,
    shape: std::cell::Cell<Option<ListShape>>,
}

/// A long list's sampled element sizes (see `memory::long_list_shape`) and the length it was
/// taken at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ListShape {
    pub len: usize,
    pub entry: f64,
    pub raw: f64,
}

impl List {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn shape(&self) -> Option<ListShape> {
        self.shape.get()
    }

    pub fn set_shape(&self, shape: ListShape) {
        self.shape.set(Some(shape));
    }
}

impl std::ops::Deref for List {
    type Target = std::collections::VecDeque<Vec<u8>>;
    fn deref(&self) -> &Self::Target {
        &self.items
    }
}

impl std::ops::DerefMut for List {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.items
    }
}

impl PartialEq for List {
    fn eq(&self, other: &Self) -> bool {
        self.items == other.items
    }
}

impl std::fmt::Debug for List {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.items.fmt(f)
    }
}

impl FromIterator<Vec<u8>> for List {
    fn from_iter<I: IntoIterator<Item = Vec<u8>>>(iter: I) -> Self {
        Self { items: iter.into_iter().collect(), shape: Default::default() }
    }
}

impl From<Vec<Vec<u8>>> for List {
    fn from(v: Vec<Vec<u8>>) -> Self {
        Self { items: v.into(), shape: Default::default() }
    }
}

impl From<std::collections::VecDeque<Vec<u8>>> for List {
    fn from(items: std::collections::VecDeque<Vec<u8>>) -> Self {
        Self { items, shape: Default::default() }
    }
}

impl<'a> IntoIterator for &'a List {
    type Item = &'a Vec<u8>;
    type IntoIter = std::collections::vec_deque::Iter<'a, Vec<u8>>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

/// A hash: `listpack` (field/value pairs in insertion order) while small, else `hashtable`
/// (t_hash.c `hashTypeConvert`; never converts back). The table is boxed, as are the other
/// collections' tables: every key's slot is as large as the largest value kept in it, and most
/// keys are strings.
#[derive(Debug, Clone, PartialEq)]
pub enum Hash {
    Listpack(Vec<(Vec<u8>, Vec<u8>)>),
    Table(Box<Map<Vec<u8>, Vec<u8>>>),
}

/// A set: `intset` while every member is a canonical int64 and there are at most
/// set-max-intset-entries of them, else `hashtable` (t_set.c; never converts back).
#[derive(Debug, Clone, PartialEq)]
pub enum Set {
    Intset(Intset),
    Table(Box<IndexSet<Vec<u8>, Hasher>>),
}

/// A sorted set: `listpack` (member/score pairs sorted by score, then member) while small,
/// else `skiplist` — the skiplist plus a member → score dict (t_zset.c `zsetConvert`).
#[derive(Debug, Clone)]
pub enum Zset {
    Listpack(Vec<(Vec<u8>, f64)>),
    Skiplist { dict: Box<Map<Vec<u8>, f64>>, zsl: Skiplist },
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
    /// A stream (t_stream.c): boxed, its struct is large and keys of other types are many.
    Stream(Box<crate::ds::stream::Stream>),
}

/// A value plus the `lru` field of its `robj` header (LRU clock or LFU data).
#[derive(Debug, Clone, PartialEq)]
pub struct RObj {
    pub value: Value,
    /// The 24-bit `lru` field (`lru()`), and above it the `exec_argv` flag (`exec_argv()`): one
    /// word, so a key's slot stays 8-aligned at 32 bytes on wasm32 (a separate flag made it 40).
    meta: u32,
    /// The value's allocations as memory.rs models them, kept by the db (db.rs).
    pub mem: usize,
}

/// `RObj::meta`'s flag bit: the value is still the argument object of the command that stored
/// it, which the running EXEC's queue also holds until it ends: OBJECT REFCOUNT 2 (db.c
/// `setKey()`'s `incrRefCount()` on `c->argv[2]`). A change in place
/// (`dbUnshareStringValue()`: APPEND, SETRANGE…) makes a new object; the EXEC clears the rest
/// when it ends.
const EXEC_ARGV: u32 = 1 << 31;
/// `RObj::meta`'s lru bits (LRU_BITS 24).
const LRU_MASK: u32 = (1 << 24) - 1;

impl RObj {
    pub fn new(value: Value, lru: u32) -> RObj {
        let mut o = RObj { value, meta: 0, mem: 0 };
        o.set_lru(lru);
        o
    }
    /// The `lru` field: the LRU clock, or the LFU time and counter (24 bits).
    pub fn lru(&self) -> u32 {
        self.meta & LRU_MASK
    }
    pub fn set_lru(&mut self, lru: u32) {
        debug_assert!(lru <= LRU_MASK, "lru {lru} wider than 24 bits");
        self.meta = (self.meta & !LRU_MASK) | (lru & LRU_MASK);
    }
    pub fn exec_argv(&self) -> bool {
        self.meta & EXEC_ARGV != 0
    }
    pub fn set_exec_argv(&mut self, on: bool) {
        self.meta = if on { self.meta | EXEC_ARGV } else { self.meta & !EXEC_ARGV };
    }
}

impl StrValue {
    /// object.c `createStringObject()`: embstr up to 44 bytes, raw beyond. No integer check.
    pub fn from_bytes(b: Vec<u8>) -> StrValue {
        if b.len() <= EMBSTR_SIZE_LIMIT {
            StrValue::Embstr(b.into())
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
            StrValue::Embstr(b) => b.to_vec(),
            StrValue::Raw(b, _) => b.clone(),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            StrValue::Int { value, .. } => crate::util::digits10(*value),
            StrValue::Embstr(b) => b.len(),
            StrValue::Raw(b, _) => b.len(),
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
            StrValue::Embstr(b) => crate::util::string2ll(b),
            StrValue::Raw(b, _) => crate::util::string2ll(b),
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
            Value::Stream(_) => "stream",
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
            Value::Stream(_) => "stream",
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
            1 if self.exec_argv() => 2,
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
