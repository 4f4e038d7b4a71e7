//! The RDB value encoding, reading side: models rdb.c's `rdbLoadObjectType()`,
//! `rdbLoadObject()`, `rdbLoadLen()`, `rdbGenericLoadStringObject()` (integers, raw bytes,
//! `rdbLoadLzfStringObject()`), `rdbLoadDoubleValue()`/`rdbLoadBinaryDoubleValue()` as Redis 7.0
//! reads a RESTORE payload (the writing side and the payload's footer are rdb.rs). Pure: bytes in,
//! a value or a typed error out.
//!
//! Loading accepts every encoding 7.0 writes and the older ones a DUMP from an earlier Redis
//! carries — RDB_TYPE_LIST, RDB_TYPE_ZSET (scores as text), RDB_TYPE_HASH_ZIPMAP,
//! RDB_TYPE_LIST_ZIPLIST, RDB_TYPE_ZSET_ZIPLIST, RDB_TYPE_HASH_ZIPLIST, RDB_TYPE_LIST_QUICKLIST
//! (ds/ziplist.rs) — and converts as rdbLoadObject does: a listpack hash or sorted set past its
//! `*-max-listpack-entries`, an intset past `set-max-intset-entries`, a plain hash past the
//! entries or value limits become hashtable/skiplist; a plain sorted set small enough becomes a
//! listpack. Every refusal (`ERR Bad data format` for RESTORE) is a `LoadError`, never a panic;
//! a declared length is checked against what the payload still holds before anything is
//! allocated for it. Streams (RDB_TYPE_STREAM_LISTPACKS of Redis 5/6 and 7.0's
//! RDB_TYPE_STREAM_LISTPACKS_2, `load_stream`) keep their nodes' listpacks byte for byte, as
//! Redis does, so they DUMP again to the same bytes.
//!
//! Differences:
//! - Loading always validates deeply, as `sanitize-dump-payload yes` does (every listpack,
//!   ziplist and intset entry walked; duplicate members and fields, odd pair counts, unsorted
//!   intsets refused; a stream's nodes walked entry by entry, its group PEL entries all owned).
//!   Redis's default (`no`) checks only headers and keeps what it was given, crashing later on
//!   some of it. Beyond even the deep check, a listpack sorted set whose members are not in
//!   (score, member) order, or that has a NaN score, is refused: 7.0 keeps it as given and its
//!   later replies follow the disorder. Likewise a stream node with negative counters or field
//!   counts, or whose live-entry count disagrees with its entries' deleted flags, and a pending
//!   entry two consumers own (ds/stream.rs `validate_listpack`, `load_stream`).
//! - A listpack entry restored in a non-canonical encoding is written back canonically; a
//!   listpack sorted set's score stored as text is kept as its number (`"1.50"` comes back as
//!   `1.5`); a list's node layout is not kept (the engine keeps its elements).
//! - A value whose strings would decompress to more than the caller's allocation limit
//!   (`playground-max-alloc`) is refused with `LoadError::TooBig`; Redis would allocate it.

use std::collections::BTreeSet;

use indexmap::IndexSet;

use super::lzf;
use super::rdb::*;
use crate::ds::intset::Intset;
use crate::ds::listpack::{self, Entry};
use crate::ds::map::{Hasher, Map};
use crate::ds::skiplist::Skiplist;
use crate::ds::stream::{self, Consumer, Group, Nack, Stream, StreamId};
use crate::ds::ziplist;
use crate::object::{Hash, List, Set, StrValue, Value, Zset};

/// Why a payload was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// Redis's `ERR Bad data format`: truncated, malformed, or a value Redis refuses.
    BadFormat,
    /// Decompressing would allocate more than the caller's limit.
    TooBig { bytes: u64 },
    /// rdb.c's `RDB_LOAD_ERR_EMPTY_KEY`: a collection with no elements. RESTORE refuses it as
    /// bad data; an RDB file's loader skips the key (rdb_file.rs).
    EmptyKey,
}

pub type Result<T> = std::result::Result<T, LoadError>;

/// What loading needs from the config (the encoding limits rdbLoadObject converts by).
#[derive(Debug, Clone, Copy)]
pub struct LoadOptions {
    pub hash_max_listpack_entries: usize,
    pub hash_max_listpack_value: usize,
    pub zset_max_listpack_entries: usize,
    pub zset_max_listpack_value: usize,
    pub set_max_intset_entries: usize,
    /// Integers 0..9999 may be shared objects (not with maxmemory + an LRU/LFU policy).
    pub shared_integers: bool,
    /// The most bytes all decompressed strings of one value may take.
    pub max_alloc: u64,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            hash_max_listpack_entries: 512,
            hash_max_listpack_value: 64,
            zset_max_listpack_entries: 128,
            zset_max_listpack_value: 64,
            set_max_intset_entries: 512,
            shared_integers: true,
            max_alloc: 32 << 20,
        }
    }
}

/// A read position in a payload (rio over a buffer): every read is checked against what is left.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Bytes decompressed strings may still take.
    budget: u64,
}

/// A string as `rdbGenericLoadStringObject()` hands it out.
enum Loaded<'a> {
    Int(i64),
    Bytes(std::borrow::Cow<'a, [u8]>),
}

impl Loaded<'_> {
    fn into_bytes(self) -> Vec<u8> {
        match self {
            Loaded::Int(v) => v.to_string().into_bytes(),
            Loaded::Bytes(b) => b.into_owned(),
        }
    }
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8], max_alloc: u64) -> Reader<'a> {
        Reader { buf, pos: 0, budget: max_alloc }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Bytes read so far (`rioTell()`).
    pub fn position(&self) -> usize {
        self.pos
    }

    /// What decompressed strings may take from now on (an RDB file's loader gives each value
    /// the per-value limit afresh).
    pub fn set_budget(&mut self, max_alloc: u64) {
        self.budget = max_alloc;
    }

    /// `rioRead()`: exactly `n` bytes or an error (never allocates).
    pub fn read(&mut self, n: u64) -> Result<&'a [u8]> {
        if n > self.remaining() as u64 {
            return Err(LoadError::BadFormat);
        }
        let s = &self.buf[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }

    pub fn byte(&mut self) -> Result<u8> {
        Ok(self.read(1)?[0])
    }

    /// `rdbLoadLenByRef()`: (length or encoding, is it an encoding).
    pub fn len_ref(&mut self) -> Result<(u64, bool)> {
        let b = self.byte()?;
        Ok(match (b & 0xC0) >> 6 {
            ENCVAL => ((b & 0x3F) as u64, true),
            LEN_6BIT => ((b & 0x3F) as u64, false),
            LEN_14BIT => ((((b & 0x3F) as u64) << 8) | self.byte()? as u64, false),
            _ if b == LEN_32BIT => (u32::from_be_bytes(self.read(4)?.try_into().unwrap_or_default()) as u64, false),
            _ if b == LEN_64BIT => (u64::from_be_bytes(self.read(8)?.try_into().unwrap_or_default()), false),
            _ => return Err(LoadError::BadFormat),
        })
    }

    /// `rdbLoadLen()` where an encoding is not expected (it reads as its number, as in Redis).
    pub fn load_len(&mut self) -> Result<u64> {
        Ok(self.len_ref()?.0)
    }

    /// `rdbLoadLen()` of a count the caller checks against RDB_LENERR: a count of 2^64-1 is
    /// refused like a length that can't be read.
    fn count(&mut self) -> Result<u64> {
        match self.load_len()? {
            u64::MAX => Err(LoadError::BadFormat),
            n => Ok(n),
        }
    }

    /// `rdbLoadLen()` of a field the caller only checks for a short read (a stream's IDs and
    /// counters): an unknown length encoding (0x82..0xBF) is reported by Redis but, in RESTORE,
    /// not fatal — the field becomes RDB_LENERR (2^64-1) and loading goes on.
    fn field_len(&mut self) -> Result<u64> {
        let b = self.buf.get(self.pos).copied().ok_or(LoadError::BadFormat)?;
        if b >> 6 == 2 && b != LEN_32BIT && b != LEN_64BIT {
            self.pos += 1;
            return Ok(u64::MAX);
        }
        self.load_len()
    }

    /// `rdbLoadMillisecondTime()`: 8 bytes, little endian.
    fn millisecond_time(&mut self) -> Result<i64> {
        Ok(i64::from_le_bytes(self.read(8)?.try_into().unwrap_or_default()))
    }

    /// A raw 16-byte stream ID (`streamEncodeID()`).
    fn raw_id(&mut self) -> Result<StreamId> {
        let raw: &[u8; 16] = self.read(16)?.try_into().map_err(|_| LoadError::BadFormat)?;
        Ok(StreamId::decode(raw))
    }

    /// `rdbGenericLoadStringObject()`.
    fn string(&mut self) -> Result<Loaded<'a>> {
        let (len, encoded) = self.len_ref()?;
        if !encoded {
            return Ok(Loaded::Bytes(self.read(len)?.into()));
        }
        match len {
            ENC_INT8 => Ok(Loaded::Int(self.byte()? as i8 as i64)),
            ENC_INT16 => Ok(Loaded::Int(i16::from_le_bytes(self.read(2)?.try_into().unwrap_or_default()) as i64)),
            ENC_INT32 => Ok(Loaded::Int(i32::from_le_bytes(self.read(4)?.try_into().unwrap_or_default()) as i64)),
            ENC_LZF => {
                // rdbLoadLzfStringObject(): the compressed length, the original length, the bytes.
                let clen = self.load_len()?;
                let len = self.load_len()?;
                let c = self.read(clen)?;
                if len / 88 > clen {
                    return Err(LoadError::BadFormat); // more than LZF can expand to
                }
                if len > self.budget {
                    return Err(LoadError::TooBig { bytes: len });
                }
                let out = lzf::decompress(c, len as usize).ok_or(LoadError::BadFormat)?;
                self.budget -= len;
                Ok(Loaded::Bytes(out.into()))
            }
            _ => Err(LoadError::BadFormat),
        }
    }

    /// A string's bytes (RDB_LOAD_PLAIN / RDB_LOAD_SDS: integers as decimal text).
    pub fn bytes(&mut self) -> Result<Vec<u8>> {
        Ok(self.string()?.into_bytes())
    }

    /// `rdbLoadBinaryDoubleValue()`.
    fn binary_double(&mut self) -> Result<f64> {
        Ok(f64::from_le_bytes(self.read(8)?.try_into().unwrap_or_default()))
    }

    /// `rdbLoadDoubleValue()`: a length byte (253 NaN, 254 +inf, 255 -inf) and `%lg` text.
    fn text_double(&mut self) -> Result<f64> {
        match self.byte()? {
            255 => Ok(f64::NEG_INFINITY),
            254 => Ok(f64::INFINITY),
            253 => Ok(f64::NAN),
            n => {
                let s = self.read(n as u64)?;
                let s = &s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())];
                strtod_prefix(s).ok_or(LoadError::BadFormat)
            }
        }
    }
}

/// C `strtod(s, NULL)` over the longest prefix that is a number (leading white space skipped):
/// None when there is none (where `sscanf("%lg")` fails and `strtod` returns 0).
fn strtod_prefix(s: &[u8]) -> Option<f64> {
    let ws = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let start = s.iter().position(|&c| !ws(c)).unwrap_or(s.len());
    let mut i = start;
    if matches!(s.get(i), Some(b'+' | b'-')) {
        i += 1;
    }
    let rest = &s[i..];
    let starts = |w: &[u8]| rest.len() >= w.len() && rest[..w.len()].eq_ignore_ascii_case(w);
    let digits_from = |mut j: usize, hex: bool| {
        while j < s.len() && (if hex { s[j].is_ascii_hexdigit() } else { s[j].is_ascii_digit() }) {
            j += 1;
        }
        j
    };
    let end = if starts(b"infinity") {
        i + 8
    } else if starts(b"inf") {
        i + 3
    } else if starts(b"nan") {
        let mut j = i + 3;
        if s.get(j) == Some(&b'(') {
            let k = j + 1 + s[j + 1..].iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
            if s.get(k) == Some(&b')') {
                j = k + 1;
            }
        }
        j
    } else {
        let hex = starts(b"0x")
            && (rest.get(2).is_some_and(|c| c.is_ascii_hexdigit())
                || (rest.get(2) == Some(&b'.') && rest.get(3).is_some_and(|c| c.is_ascii_hexdigit())));
        let mant = if hex { i + 2 } else { i };
        let int_end = digits_from(mant, hex);
        let mut j = int_end;
        let mut any = int_end > mant;
        if s.get(j) == Some(&b'.') {
            let frac_end = digits_from(j + 1, hex);
            any |= frac_end > j + 1;
            j = frac_end;
        }
        if !any {
            return None;
        }
        let exp = if hex { b'p' } else { b'e' };
        if s.get(j).is_some_and(|c| c.to_ascii_lowercase() == exp) {
            let mut k = j + 1;
            if matches!(s.get(k), Some(b'+' | b'-')) {
                k += 1;
            }
            let e_end = digits_from(k, false);
            if e_end > k {
                j = e_end;
            }
        }
        j
    };
    let parsed = crate::ds::long_double::parse_c_float(&s[start..end])?;
    Some(parsed.to_f64_lenient())
}

/// The engine's `Value` from the bytes of a restored payload: `rdbLoadObjectType()` +
/// `rdbLoadObject()` read from the start of the payload (its footer included, as Redis reads
/// it: bytes after the value are ignored). `level` draws a skiplist level per member.
pub fn restore_payload(p: &[u8], opts: &LoadOptions, level: &mut dyn FnMut() -> usize) -> Result<Value> {
    let mut r = Reader::new(p, opts.max_alloc);
    let t = r.byte()?;
    if !is_object_type(t) {
        return Err(LoadError::BadFormat);
    }
    load_object(t, &mut r, opts, level)
}

fn table_set() -> IndexSet<Vec<u8>, Hasher> {
    IndexSet::with_hasher(Hasher::default())
}

/// `rdbLoadObject()`.
pub fn load_object(t: u8, r: &mut Reader, opts: &LoadOptions, level: &mut dyn FnMut() -> usize) -> Result<Value> {
    let bad = Err(LoadError::BadFormat);
    match t {
        TYPE_STRING => Ok(Value::Str(match r.string()? {
            Loaded::Int(v) => StrValue::from_i64(v, opts.shared_integers),
            Loaded::Bytes(b) => StrValue::encoded(b.into_owned(), opts.shared_integers),
        })),
        TYPE_LIST => {
            let len = r.load_len()?;
            let mut l = List::new();
            for _ in 0..len {
                l.push_back(r.bytes()?);
            }
            non_empty(Value::List(l), len == 0)
        }
        TYPE_SET => load_set(r, opts),
        TYPE_ZSET | TYPE_ZSET_2 => load_zset(t, r, opts, level),
        TYPE_HASH => load_hash(r, opts),
        TYPE_LIST_QUICKLIST | TYPE_LIST_QUICKLIST_2 => {
            let nodes = r.load_len()?;
            let mut l = List::new();
            for _ in 0..nodes {
                let container = if t == TYPE_LIST_QUICKLIST_2 { r.load_len()? } else { CONTAINER_PACKED };
                if container != CONTAINER_PACKED && container != CONTAINER_PLAIN {
                    return bad;
                }
                let data = r.bytes()?;
                if data.is_empty() {
                    return bad;
                }
                if container == CONTAINER_PLAIN {
                    l.push_back(data);
                    continue;
                }
                let entries =
                    if t == TYPE_LIST_QUICKLIST_2 { listpack::entries(&data) } else { ziplist::ziplist_entries(&data) };
                // An empty node is skipped; an empty list fails below.
                l.extend(entries.ok_or(LoadError::BadFormat)?.into_iter().map(Entry::to_bytes));
            }
            let empty = l.is_empty();
            non_empty(Value::List(l), empty)
        }
        TYPE_HASH_ZIPMAP | TYPE_LIST_ZIPLIST | TYPE_SET_INTSET | TYPE_ZSET_ZIPLIST | TYPE_ZSET_LISTPACK
        | TYPE_HASH_ZIPLIST | TYPE_HASH_LISTPACK => {
            let blob = r.bytes()?;
            load_blob(t, &blob, opts, level)
        }
        TYPE_STREAM_LISTPACKS | TYPE_STREAM_LISTPACKS_2 => load_stream(t, r),
        _ => bad, // modules: no module type is loaded
    }
}

/// `rdbLoadObject()` of RDB_TYPE_STREAM_LISTPACKS (15, Redis 5 and 6) and
/// RDB_TYPE_STREAM_LISTPACKS_2 (19, 7.0): the rax's nodes (a 16-byte master ID, then the
/// listpack, checked by `stream::validate_listpack`), the length and last ID — for type 19 also
/// the first ID, the maximal deleted ID and entries-added; for type 15 the first ID is the first
/// live entry's (`streamGetEdgeID()`, the maximum ID when there is none) and entries-added the
/// length — then each group: its name, last ID, entries-read (type 15: estimated,
/// `streamEstimateDistanceFromFirstEverEntry()`), its PEL (raw ID, delivery time, delivery
/// count) and its consumers (name, seen time, their PEL as raw IDs that must be in the
/// group's). A stream may be empty. Refused, as Redis refuses them: a node key not of 16
/// bytes, a node twice, a length without nodes, a group, a consumer or a group PEL entry
/// twice, a consumer's entry not in the group's PEL or twice in its PEL, a group PEL entry no
/// consumer owns (the deep check). Refused beyond Redis 7.0.15 (as later Redis does): an entry
/// in the PELs of two consumers, which 7.0.15 keeps as one NACK two consumers point at.
fn load_stream(t: u8, r: &mut Reader) -> Result<Value> {
    let bad = || LoadError::BadFormat;
    let mut s = Stream::new();
    for _ in 0..r.count()? {
        let key = r.bytes()?;
        let key: &[u8; 16] = key.as_slice().try_into().map_err(|_| bad())?;
        let lp = r.bytes()?;
        if !stream::validate_listpack(&lp) || !s.load_node(StreamId::decode(key), lp) {
            return Err(bad());
        }
    }
    s.loaded();
    s.length = r.field_len()?;
    s.last_id = StreamId::new(r.field_len()?, r.field_len()?);
    if t == TYPE_STREAM_LISTPACKS_2 {
        s.first_id = StreamId::new(r.field_len()?, r.field_len()?);
        s.max_deleted_entry_id = StreamId::new(r.field_len()?, r.field_len()?);
        s.entries_added = r.field_len()?;
    } else {
        s.entries_added = s.length;
        s.first_id = s.edge_id(true, true);
    }
    if s.length != 0 && s.rax_keys() == 0 {
        return Err(bad()); // "Stream length inconsistent with rax entries"
    }
    for _ in 0..r.count()? {
        let name = r.bytes()?;
        if s.group(&name).is_some() {
            return Err(bad()); // "Duplicated consumer group name"
        }
        let last_id = StreamId::new(r.field_len()?, r.field_len()?);
        // The u64 is handed to streamCreateCG() as a long long.
        let entries_read =
            if t == TYPE_STREAM_LISTPACKS_2 { r.field_len()? as i64 } else { s.estimate_distance(last_id) };
        let mut g = Group::new(last_id, entries_read);
        for _ in 0..r.count()? {
            let id = r.raw_id()?;
            let nack = Nack { delivery_time: r.millisecond_time()?, delivery_count: r.field_len()?, consumer: vec![] };
            if g.pel.insert(id, nack).is_some() {
                return Err(bad()); // "Duplicated global PEL entry"
            }
        }
        let mut owned: BTreeSet<StreamId> = BTreeSet::new();
        for _ in 0..r.count()? {
            let cname = r.bytes()?;
            if g.consumers.contains_key(&cname) {
                return Err(bad()); // "Duplicate stream consumer detected."
            }
            let mut c = Consumer { seen_time: r.millisecond_time()?, pel: BTreeSet::new() };
            for _ in 0..r.count()? {
                let id = r.raw_id()?;
                // "Consumer entry not found in group global PEL".
                let nack = g.pel.get_mut(&id).ok_or_else(bad)?;
                // Twice in this consumer's PEL (Redis's check) or already another's (ours).
                if !owned.insert(id) {
                    return Err(bad());
                }
                nack.consumer = cname.clone();
                c.pel.insert(id);
            }
            g.consumers.insert(cname, c);
        }
        if owned.len() != g.pel.len() {
            return Err(bad()); // "Stream CG PEL entry without consumer"
        }
        if !s.create_group(&name, g) {
            return Err(bad());
        }
    }
    Ok(Value::Stream(Box::new(s)))
}

/// `goto emptykey`: Redis refuses an empty value.
fn non_empty(v: Value, empty: bool) -> Result<Value> {
    if empty {
        Err(LoadError::EmptyKey)
    } else {
        Ok(v)
    }
}

fn load_set(r: &mut Reader, opts: &LoadOptions) -> Result<Value> {
    let len = r.load_len()?;
    if len == 0 {
        return Err(LoadError::EmptyKey);
    }
    let max_entries = opts.set_max_intset_entries.min(1 << 30) as u64;
    let mut set = if len > max_entries { Set::Table(Box::new(table_set())) } else { Set::Intset(Intset::new()) };
    for _ in 0..len {
        let m = r.bytes()?;
        if let Set::Intset(is) = &mut set {
            match crate::util::string2ll(&m) {
                Some(v) => {
                    if !is.add(v) {
                        return Err(LoadError::BadFormat); // duplicate
                    }
                    continue;
                }
                None => {
                    let mut t = table_set();
                    t.extend(is.iter().map(|v| v.to_string().into_bytes()));
                    set = Set::Table(Box::new(t));
                }
            }
        }
        if let Set::Table(t) = &mut set {
            if !t.insert(m) {
                return Err(LoadError::BadFormat);
            }
        }
    }
    Ok(Value::Set(set))
}

fn zset_limits(opts: &LoadOptions) -> crate::zset::Limits {
    crate::zset::Limits { max_entries: opts.zset_max_listpack_entries, max_value: opts.zset_max_listpack_value }
}

fn load_zset(t: u8, r: &mut Reader, opts: &LoadOptions, level: &mut dyn FnMut() -> usize) -> Result<Value> {
    let len = r.load_len()?;
    if len == 0 {
        return Err(LoadError::EmptyKey);
    }
    let mut dict: Map<Vec<u8>, f64> = Map::default();
    let mut zsl = Skiplist::new();
    let (mut maxelelen, mut totelelen) = (0usize, 0u64);
    for _ in 0..len {
        let m = r.bytes()?;
        let score = if t == TYPE_ZSET_2 { r.binary_double()? } else { r.text_double()? };
        if score.is_nan() || dict.contains_key(&m) {
            return Err(LoadError::BadFormat);
        }
        maxelelen = maxelelen.max(m.len());
        totelelen += m.len() as u64;
        zsl.insert(score, m.clone(), level());
        dict.insert(m, score);
    }
    let mut z = Zset::Skiplist { dict: Box::new(dict), zsl };
    // Converted *after* loading, as a listpack if small enough (lpSafeToAdd: under 1 GB).
    if z.len() <= opts.zset_max_listpack_entries && maxelelen <= opts.zset_max_listpack_value && totelelen < 1 << 30 {
        crate::zset::shrink_if_possible(&mut z, zset_limits(opts));
    }
    Ok(Value::Zset(z))
}

fn load_hash(r: &mut Reader, opts: &LoadOptions) -> Result<Value> {
    let len = r.load_len()?;
    if len == 0 {
        return Err(LoadError::EmptyKey);
    }
    let mut pairs: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    let mut seen: IndexSet<Vec<u8>, Hasher> = table_set();
    let mut table: Option<Map<Vec<u8>, Vec<u8>>> = (len > opts.hash_max_listpack_entries as u64).then(Map::default);
    let mut lp_bytes = listpack::HDR_SIZE as u64 + 1;
    for _ in 0..len {
        let f = r.bytes()?;
        let v = r.bytes()?;
        if let Some(m) = table.as_mut() {
            if m.insert(f, v).is_some() {
                return Err(LoadError::BadFormat);
            }
            continue;
        }
        if !seen.insert(f.clone()) {
            return Err(LoadError::BadFormat); // "Hash with dup elements"
        }
        lp_bytes += (f.len() + v.len()) as u64;
        if f.len() > opts.hash_max_listpack_value || v.len() > opts.hash_max_listpack_value || lp_bytes >= 1 << 30 {
            let mut m: Map<Vec<u8>, Vec<u8>> = Map::default();
            m.extend(pairs.drain(..));
            m.insert(f, v);
            table = Some(m);
            continue;
        }
        pairs.push((f, v));
    }
    Ok(Value::Hash(match table {
        Some(m) => Hash::Table(Box::new(m)),
        None => Hash::Listpack(pairs),
    }))
}

/// The value of a zset listpack entry as t_zset.c `zzlGetScore()` reads it (`zzlStrtod()`: C
/// `strtod` over at most 127 bytes, 0 when nothing parses).
fn lp_score(e: Entry) -> f64 {
    match e {
        Entry::Int(v) => v as f64,
        Entry::Str(s) => {
            let s = &s[..s.len().min(127)];
            let s = &s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())];
            strtod_prefix(s).unwrap_or(0.0)
        }
    }
}

/// (field, value) pairs of a ziplist/listpack: an even count and no duplicate field
/// (`lpPairsValidateIntegrityAndDups()`, `ziplistPairsConvertAndValidateIntegrity()`).
fn pairs(entries: Vec<Entry>) -> Result<Vec<(Vec<u8>, Entry)>> {
    if !entries.len().is_multiple_of(2) {
        return Err(LoadError::BadFormat);
    }
    let mut seen = table_set();
    let mut out = Vec::with_capacity(entries.len() / 2);
    let mut it = entries.into_iter();
    while let (Some(f), Some(v)) = (it.next(), it.next()) {
        let f = f.to_bytes();
        if !seen.insert(f.clone()) {
            return Err(LoadError::BadFormat);
        }
        out.push((f, v));
    }
    Ok(out)
}

/// The single-blob encodings (rdbLoadObject's ziplist/listpack/intset/zipmap branch).
fn load_blob(t: u8, blob: &[u8], opts: &LoadOptions, level: &mut dyn FnMut() -> usize) -> Result<Value> {
    let bad = || LoadError::BadFormat;
    match t {
        TYPE_HASH_ZIPMAP => {
            let mut maxlen = 0;
            let mut seen = table_set();
            let mut out = Vec::new();
            for (f, v) in ziplist::zipmap_pairs(blob).ok_or_else(bad)? {
                maxlen = maxlen.max(f.len()).max(v.len());
                if !seen.insert(f.to_vec()) {
                    return Err(bad());
                }
                out.push((f.to_vec(), v.to_vec()));
            }
            Ok(hash_from_pairs(out, opts, maxlen > opts.hash_max_listpack_value))
        }
        TYPE_LIST_ZIPLIST => {
            let entries = ziplist::ziplist_entries(blob).ok_or_else(bad)?;
            let l: List = entries.into_iter().map(Entry::to_bytes).collect();
            let empty = l.is_empty();
            non_empty(Value::List(l), empty)
        }
        TYPE_SET_INTSET => {
            let is = Intset::from_blob(blob).ok_or_else(bad)?;
            if is.len() > opts.set_max_intset_entries {
                let mut t = table_set();
                t.extend(is.iter().map(|v| v.to_string().into_bytes()));
                return Ok(Value::Set(Set::Table(Box::new(t))));
            }
            Ok(Value::Set(Set::Intset(is)))
        }
        TYPE_HASH_ZIPLIST | TYPE_HASH_LISTPACK => {
            let entries = if t == TYPE_HASH_ZIPLIST { ziplist::ziplist_entries(blob) } else { listpack::entries(blob) };
            let p: Vec<(Vec<u8>, Vec<u8>)> =
                pairs(entries.ok_or_else(bad)?)?.into_iter().map(|(f, v)| (f, v.to_bytes())).collect();
            if p.is_empty() {
                return Err(LoadError::EmptyKey);
            }
            Ok(hash_from_pairs(p, opts, false))
        }
        TYPE_ZSET_ZIPLIST | TYPE_ZSET_LISTPACK => {
            let entries = if t == TYPE_ZSET_ZIPLIST { ziplist::ziplist_entries(blob) } else { listpack::entries(blob) };
            let p = pairs(entries.ok_or_else(bad)?)?;
            if p.is_empty() {
                return Err(LoadError::EmptyKey);
            }
            let mut v: Vec<(Vec<u8>, f64)> = Vec::with_capacity(p.len());
            for (m, s) in p {
                let s = lp_score(s);
                // Ours, not Redis's: a listpack out of (score, member) order or with a NaN score.
                let ordered = v.last().is_none_or(|(pm, ps)| *ps < s || (*ps == s && pm.as_slice() < m.as_slice()));
                if s.is_nan() || !ordered {
                    return Err(bad());
                }
                v.push((m, s));
            }
            let mut z = Zset::Listpack(v);
            if z.len() > opts.zset_max_listpack_entries {
                crate::zset::convert_to_skiplist(&mut z, level);
            }
            Ok(Value::Zset(z))
        }
        _ => Err(bad()),
    }
}

/// A loaded listpack hash, converted to a hashtable past `hash-max-listpack-entries` (or when
/// `convert` says a value is too long, for zipmaps).
fn hash_from_pairs(p: Vec<(Vec<u8>, Vec<u8>)>, opts: &LoadOptions, convert: bool) -> Value {
    if convert || p.len() > opts.hash_max_listpack_entries {
        let mut m: Map<Vec<u8>, Vec<u8>> = Map::default();
        m.extend(p);
        Value::Hash(Hash::Table(Box::new(m)))
    } else {
        Value::Hash(Hash::Listpack(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ds::stream::NodeLimits;
    use crate::persist::rdb::{create_dump_payload, SaveOptions};

    fn load(body: &[u8]) -> Result<Value> {
        let mut p = body.to_vec();
        p.extend_from_slice(&RDB_VERSION.to_le_bytes());
        restore_payload(&p, &LoadOptions::default(), &mut || 1)
    }

    /// A stream of entries 1-1 … n-1 (field "f"), a group "g" whose PEL holds 1-1 and 2-1.
    fn grouped(n: u64) -> Stream {
        let mut s = Stream::new();
        for i in 1..=n {
            s.append_item(
                &[b"f".to_vec(), i.to_string().into_bytes()],
                Some(StreamId::new(i, 1)),
                true,
                0,
                NodeLimits::default(),
            )
            .unwrap();
        }
        let mut g = Group::new(StreamId::new(2, 1), 2);
        for (i, owner) in [(1, "alice"), (2, "bob")] {
            g.pel.insert(StreamId::new(i, 1), Nack { delivery_time: 7, delivery_count: 1, consumer: owner.into() });
            g.consumers.entry(owner.into()).or_default().pel.insert(StreamId::new(i, 1));
        }
        s.create_group(b"g", g);
        s
    }

    fn dump_body(s: Stream) -> Vec<u8> {
        let p = create_dump_payload(&Value::Stream(Box::new(s)), &SaveOptions::default());
        p[..p.len() - 10].to_vec()
    }

    #[test]
    fn streams_restore_and_dump_the_same_bytes() {
        let mut s = grouped(250);
        s.delete_item(StreamId::new(120, 1));
        s.trim(crate::ds::stream::TrimStrategy::MaxLen(240), false, 0);
        let p = create_dump_payload(&Value::Stream(Box::new(s)), &SaveOptions::default());
        let Ok(Value::Stream(back)) = restore_payload(&p, &LoadOptions::default(), &mut || 1) else { panic!() };
        assert_eq!((back.length, back.rax_keys()), (240, 3));
        assert_eq!(back.group(b"g").unwrap().pel[&StreamId::new(2, 1)].consumer, b"bob");
        assert_eq!(create_dump_payload(&Value::Stream(back), &SaveOptions::default()), p);
        // Empty: no nodes, the last ID kept.
        let mut e = Stream::new();
        e.last_id = StreamId::new(5, 5);
        assert!(matches!(load(&dump_body(e)), Ok(Value::Stream(e)) if e.last_id == StreamId::new(5, 5)));
    }

    /// Redis 5/6's RDB_TYPE_STREAM_LISTPACKS: the same value without the 7.0 fields.
    #[test]
    fn type_15_streams_fill_in_the_7_0_fields() {
        let mut s = grouped(3);
        s.delete_item(StreamId::new(1, 1));
        let body = dump_body(s);
        // Take out first/max-deleted IDs and entries-added (5 lengths after length + last ID)
        // and the group's entries-read: rebuilt here from the parts.
        let mut v1 = vec![TYPE_STREAM_LISTPACKS];
        let Value::Stream(s) = load(&body).unwrap() else { panic!() };
        let mut lzf = crate::persist::lzf::Compressor::new();
        let mut w = StringWriter { compression: false, lzf: &mut lzf };
        save_len(&mut v1, 1);
        for (k, lp) in s.listpacks() {
            w.raw(&mut v1, &k.encode());
            w.raw(&mut v1, lp.as_bytes());
        }
        for v in [2, 3, 1, 0] {
            save_len(&mut v1, v); // length, last ID 3-1, no groups
        }
        let Value::Stream(old) = load(&v1).unwrap() else { panic!() };
        assert_eq!(
            (old.first_id, old.entries_added, old.max_deleted_entry_id),
            (StreamId::new(2, 1), 2, StreamId::MIN)
        );
    }

    #[test]
    fn corrupt_streams_are_refused() {
        let ok = dump_body(grouped(3));
        assert!(load(&ok).is_ok());
        // The consumers' part: "alice" (1-1), "bob" (2-1), each an 8-byte seen time then a PEL.
        let alice = ok.windows(6).position(|w| w == b"\x05alice").unwrap();
        let id = |i: u64| StreamId::new(i, 1).encode();
        let bob_id = ok.len() - 16;
        assert_eq!(ok[bob_id..], id(2));
        let edit = |at: usize, bytes: &[u8]| {
            let mut b = ok.clone();
            b[at..at + bytes.len()].copy_from_slice(bytes);
            load(&b)
        };
        // Bob's entry is alice's too: two consumers would share one NACK (7.0.15 accepts it).
        assert_eq!(edit(bob_id, &id(1)), Err(LoadError::BadFormat));
        // Bob's entry not in the group PEL.
        assert_eq!(edit(bob_id, &id(9)), Err(LoadError::BadFormat));
        // Alice's PEL holds 1-1 twice (Redis refuses it, then frees the NACK twice).
        let mut twice = ok[..alice + 6 + 8].to_vec();
        twice.push(2);
        twice.extend_from_slice(&id(1));
        twice.extend_from_slice(&ok[alice + 6 + 8 + 1..]);
        assert_eq!(load(&twice), Err(LoadError::BadFormat));
        // Bob owns nothing: 2-1 stays without a consumer (the deep check).
        let mut orphan = ok[..bob_id - 1].to_vec();
        orphan.push(0);
        assert_eq!(load(&orphan), Err(LoadError::BadFormat));
        // An unknown length encoding (0x82..0xBF) where a count is read refuses; where an ID or a
        // counter is read it is 2^64-1, as rdbLoadLen() hands RDB_LENERR on.
        let mut r = Reader::new(b"\x85\x01", 100);
        assert_eq!((r.field_len(), r.field_len()), (Ok(u64::MAX), Ok(1)));
        assert_eq!(Reader::new(b"\x85", 100).count(), Err(LoadError::BadFormat));
        assert_eq!(Reader::new(b"\x81\xff\xff\xff\xff\xff\xff\xff\xff", 100).count(), Err(LoadError::BadFormat));
    }

    #[test]
    fn strtod_prefixes_as_c_does() {
        assert_eq!(strtod_prefix(b" 1.5abc"), Some(1.5));
        assert_eq!(strtod_prefix(b"-inFinity!"), Some(f64::NEG_INFINITY));
        assert_eq!(strtod_prefix(b"0x1p3"), Some(8.0));
        assert_eq!(strtod_prefix(b"0x"), Some(0.0));
        assert_eq!(strtod_prefix(b"1e"), Some(1.0));
        assert_eq!(strtod_prefix(b"abc"), None);
        assert!(strtod_prefix(b"nan(12)").unwrap().is_nan());
    }
}
