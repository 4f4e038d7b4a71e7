//! The RDB value encoding: models rdb.c's object serialization as Redis 7.0 (RDB version 10)
//! writes and reads it — `rdbSaveObjectType()`, `rdbSaveObject()`, `rdbSaveLen()`/
//! `rdbLoadLen()`, `rdbSaveRawString()` with `rdbTryIntegerEncoding()`/`rdbEncodeInteger()`
//! (RDB_ENC_INT8/16/32) and `rdbSaveLzfStringObject()` (with `rdbcompression yes`, a string of
//! more than 20 bytes is stored LZF-compressed when that saves at least 4 bytes; lzf.rs),
//! `rdbSaveLongLongAsStringObject()`, `rdbSaveBinaryDoubleValue()`, `rdbLoadObjectType()`,
//! `rdbLoadObject()` and `rdbGenericLoadStringObject()` — and cluster.c's `createDumpPayload()`
//! (the value, then the RDB version as 2 bytes and a CRC64 of everything before it, both
//! little-endian; crc64.rs) and `verifyDumpPayload()`. Pure: values in, bytes out; bytes in, a
//! value or a typed error out.
//!
//! What 7.0 writes, per encoding: strings as integers or (compressed) raw bytes; lists as
//! RDB_TYPE_LIST_QUICKLIST_2 (the node count, then per node its container — 2 packed, 1 plain —
//! and its listpack as a string, or the node's own LZF blob when `list-compress-depth` compressed
//! it); intsets (RDB_TYPE_SET_INTSET) and listpack hashes and sorted sets (RDB_TYPE_HASH_LISTPACK,
//! RDB_TYPE_ZSET_LISTPACK) as their blob in one string; hashtable sets and hashes
//! (RDB_TYPE_SET, RDB_TYPE_HASH) as a count and their members/pairs; skiplist sorted sets
//! (RDB_TYPE_ZSET_2) as a count and (member, 8-byte little-endian double) from the tail, the
//! greatest first. Loading accepts those and the older encodings a DUMP from an earlier Redis
//! carries — RDB_TYPE_LIST, RDB_TYPE_ZSET (scores as text), RDB_TYPE_HASH_ZIPMAP,
//! RDB_TYPE_LIST_ZIPLIST, RDB_TYPE_ZSET_ZIPLIST, RDB_TYPE_HASH_ZIPLIST, RDB_TYPE_LIST_QUICKLIST
//! (ds/ziplist.rs) — and converts as rdbLoadObject does: a listpack hash or sorted set past its
//! `*-max-listpack-entries`, an intset past `set-max-intset-entries`, a plain hash past the
//! entries or value limits become hashtable/skiplist; a plain sorted set small enough becomes a
//! listpack. Every refusal (`ERR Bad data format` for RESTORE) is a `LoadError`, never a panic;
//! a declared length is checked against what the payload still holds before anything is
//! allocated for it.
//!
//! Streams (RDB_TYPE_STREAM_LISTPACKS, RDB_TYPE_STREAM_LISTPACKS_2) have no value type in the
//! engine yet: loading one answers `LoadError::Unsupported`, and `save_object_type` has no arm
//! for them; the stream value will add its arm to both `match`es.
//!
//! Differences:
//! - Loading always validates deeply, as `sanitize-dump-payload yes` does (every listpack,
//!   ziplist and intset entry walked; duplicate members and fields, odd pair counts, unsorted
//!   intsets refused). Redis's default (`no`) checks only headers and keeps what it was given,
//!   crashing later on some of it. Beyond even the deep check, a listpack sorted set whose
//!   members are not in (score, member) order, or that has a NaN score, is refused: 7.0 keeps it
//!   as given and its later replies follow the disorder.
//! - A hashtable set or hash is written in our iteration order (insertion order), Redis's in its
//!   dict's hash order (random per process); a list's listpack nodes are cut as RPUSH fills them
//!   (quicklist.c `_quicklistNodeAllowInsert()` for `list-max-listpack-size`), since the engine
//!   keeps a list's elements, not its node history; compressed nodes are those `list-compress-
//!   depth` leaves compressed once the list stops changing. A listpack entry restored in a
//!   non-canonical encoding is written back canonically; a listpack sorted set's score stored as
//!   text is kept as its number (`"1.50"` comes back as `1.5`).
//! - A value whose strings would decompress to more than the caller's allocation limit
//!   (`playground-max-alloc`) is refused with `LoadError::TooBig`; Redis would allocate it.

use indexmap::IndexSet;

use super::crc64::crc64;
use super::lzf::{self, Compressor};
use crate::ds::intset::Intset;
use crate::ds::listpack::{self, Entry};
use crate::ds::map::{Hasher, Map};
use crate::ds::skiplist::Skiplist;
use crate::ds::ziplist;
use crate::object::{Hash, List, Set, StrValue, Value, Zset};

/// RDB_VERSION of Redis 7.0.
pub const RDB_VERSION: u16 = 10;

// Object types (rdb.h RDB_TYPE_*).
pub const TYPE_STRING: u8 = 0;
pub const TYPE_LIST: u8 = 1;
pub const TYPE_SET: u8 = 2;
pub const TYPE_ZSET: u8 = 3;
pub const TYPE_HASH: u8 = 4;
pub const TYPE_ZSET_2: u8 = 5;
pub const TYPE_MODULE_PRE_GA: u8 = 6;
pub const TYPE_MODULE_2: u8 = 7;
pub const TYPE_HASH_ZIPMAP: u8 = 9;
pub const TYPE_LIST_ZIPLIST: u8 = 10;
pub const TYPE_SET_INTSET: u8 = 11;
pub const TYPE_ZSET_ZIPLIST: u8 = 12;
pub const TYPE_HASH_ZIPLIST: u8 = 13;
pub const TYPE_LIST_QUICKLIST: u8 = 14;
pub const TYPE_STREAM_LISTPACKS: u8 = 15;
pub const TYPE_HASH_LISTPACK: u8 = 16;
pub const TYPE_ZSET_LISTPACK: u8 = 17;
pub const TYPE_LIST_QUICKLIST_2: u8 = 18;
pub const TYPE_STREAM_LISTPACKS_2: u8 = 19;

/// rdb.h `rdbIsObjectType()` for version 10.
pub fn is_object_type(t: u8) -> bool {
    t <= 7 || (9..=19).contains(&t)
}

// Length encodings (rdb.h RDB_6BITLEN…RDB_ENCVAL) and special string encodings.
const LEN_6BIT: u8 = 0;
const LEN_14BIT: u8 = 1;
const LEN_32BIT: u8 = 0x80;
const LEN_64BIT: u8 = 0x81;
const ENCVAL: u8 = 3;
const ENC_INT8: u64 = 0;
const ENC_INT16: u64 = 1;
const ENC_INT32: u64 = 2;
const ENC_LZF: u64 = 3;

/// quicklist.h containers.
const CONTAINER_PLAIN: u64 = 1;
const CONTAINER_PACKED: u64 = 2;

/// Why a payload was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// Redis's `ERR Bad data format`: truncated, malformed, or a value Redis refuses.
    BadFormat,
    /// A type the engine has no value for yet (streams).
    Unsupported(&'static str),
    /// Decompressing would allocate more than the caller's limit.
    TooBig { bytes: u64 },
}

type Result<T> = std::result::Result<T, LoadError>;

/// What DUMP needs from the config.
#[derive(Debug, Clone, Copy)]
pub struct SaveOptions {
    /// `rdbcompression`.
    pub compression: bool,
    /// `list-max-listpack-size` (the quicklist fill).
    pub list_fill: i64,
    /// `list-compress-depth`.
    pub list_compress_depth: i64,
}

impl Default for SaveOptions {
    fn default() -> Self {
        SaveOptions { compression: true, list_fill: -2, list_compress_depth: 0 }
    }
}

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

// =============================================================================================
// Saving
// =============================================================================================

/// `rdbSaveLen()`.
pub fn save_len(out: &mut Vec<u8>, len: u64) {
    if len < 1 << 6 {
        out.push(len as u8 | (LEN_6BIT << 6));
    } else if len < 1 << 14 {
        out.push((len >> 8) as u8 | (LEN_14BIT << 6));
        out.push(len as u8);
    } else if len <= u32::MAX as u64 {
        out.push(LEN_32BIT);
        out.extend_from_slice(&(len as u32).to_be_bytes());
    } else {
        out.push(LEN_64BIT);
        out.extend_from_slice(&len.to_be_bytes());
    }
}

/// `rdbEncodeInteger()`: values that fit 8, 16 or 32 signed bits.
fn encode_integer(out: &mut Vec<u8>, v: i64) -> bool {
    let tag = (ENCVAL << 6) as u64;
    if (-(1 << 7)..1 << 7).contains(&v) {
        out.push((tag | ENC_INT8) as u8);
        out.push(v as u8);
    } else if (-(1 << 15)..1 << 15).contains(&v) {
        out.push((tag | ENC_INT16) as u8);
        out.extend_from_slice(&(v as i16).to_le_bytes());
    } else if (-(1i64 << 31)..1i64 << 31).contains(&v) {
        out.push((tag | ENC_INT32) as u8);
        out.extend_from_slice(&(v as i32).to_le_bytes());
    } else {
        return false;
    }
    true
}

/// `rdbSaveLzfBlob()`.
fn save_lzf_blob(out: &mut Vec<u8>, data: &[u8], original_len: usize) {
    out.push((ENCVAL << 6) | ENC_LZF as u8);
    save_len(out, data.len() as u64);
    save_len(out, original_len as u64);
    out.extend_from_slice(data);
}

/// How strings are written: `rdbcompression` and the LZF table.
pub struct StringWriter<'a> {
    pub compression: bool,
    pub lzf: &'a mut Compressor,
}

impl StringWriter<'_> {
    /// `rdbSaveRawString()`: an integer encoding for a canonical integer of at most 11 bytes, else
    /// LZF for more than 20 bytes when it saves at least 4, else the length and the bytes.
    pub fn raw(&mut self, out: &mut Vec<u8>, s: &[u8]) {
        if s.len() <= 11 {
            if let Some(v) = crate::util::string2ll(s) {
                if encode_integer(out, v) {
                    return;
                }
            }
        }
        if self.compression && s.len() > 20 {
            if let Some(z) = self.lzf.compress(s, s.len() - 4) {
                save_lzf_blob(out, &z, s.len());
                return;
            }
        }
        save_len(out, s.len() as u64);
        out.extend_from_slice(s);
    }

    /// `rdbSaveStringObject()`: an int-encoded value as `rdbSaveLongLongAsStringObject()`.
    pub fn string_object(&mut self, out: &mut Vec<u8>, s: &StrValue) {
        match s {
            StrValue::Int { value, .. } => {
                if !encode_integer(out, *value) {
                    let digits = value.to_string();
                    save_len(out, digits.len() as u64);
                    out.extend_from_slice(digits.as_bytes());
                }
            }
            StrValue::Embstr(b) | StrValue::Raw(b, _) => self.raw(out, b),
        }
    }
}

/// `rdbSaveObjectType()`.
pub fn save_object_type(v: &Value) -> u8 {
    match v {
        Value::Str(_) => TYPE_STRING,
        Value::List(_) => TYPE_LIST_QUICKLIST_2,
        Value::Set(Set::Intset(_)) => TYPE_SET_INTSET,
        Value::Set(Set::Table(_)) => TYPE_SET,
        Value::Zset(Zset::Listpack(_)) => TYPE_ZSET_LISTPACK,
        Value::Zset(Zset::Skiplist { .. }) => TYPE_ZSET_2,
        Value::Hash(Hash::Listpack(_)) => TYPE_HASH_LISTPACK,
        Value::Hash(Hash::Table(_)) => TYPE_HASH,
    }
}

/// quicklist.c `optimization_level[]`, SIZE_SAFETY_LIMIT and SIZE_ESTIMATE_OVERHEAD.
const OPTIMIZATION_LEVEL: [usize; 5] = [4096, 8192, 16384, 32768, 65536];
const SIZE_SAFETY_LIMIT: usize = 8192;
const SIZE_ESTIMATE_OVERHEAD: usize = 8;
/// quicklist.c MIN_COMPRESS_BYTES and MIN_COMPRESS_IMPROVE.
const MIN_COMPRESS_BYTES: usize = 48;
const MIN_COMPRESS_IMPROVE: usize = 8;

/// The listpack nodes RPUSH would fill with these elements: quicklist.c
/// `_quicklistNodeAllowInsert()` at `fill` (clamped to -5..=32767 as `quicklistSetFill()`).
pub fn quicklist_nodes(list: &List, fill: i64) -> Vec<Vec<u8>> {
    let fill = fill.clamp(-5, (1 << 15) - 1);
    let mut nodes = Vec::new();
    let mut cur: Option<listpack::Builder> = None;
    for e in list {
        let allowed = cur.as_ref().is_some_and(|node| {
            let new_sz = node.bytes() + e.len() + SIZE_ESTIMATE_OVERHEAD;
            if fill < 0 {
                let level = OPTIMIZATION_LEVEL[((-fill - 1) as usize).min(OPTIMIZATION_LEVEL.len() - 1)];
                new_sz <= level
            } else {
                new_sz <= SIZE_SAFETY_LIMIT && (node.len() as i64) < fill
            }
        });
        if !allowed {
            if let Some(node) = cur.take() {
                nodes.push(node.finish());
            }
            cur = Some(listpack::Builder::new());
        }
        if let Some(node) = cur.as_mut() {
            node.push(e);
        }
    }
    if let Some(node) = cur {
        nodes.push(node.finish());
    }
    nodes
}

/// `rdbSaveObject()`.
pub fn save_object(out: &mut Vec<u8>, v: &Value, opts: &SaveOptions, w: &mut StringWriter) {
    match v {
        Value::Str(s) => w.string_object(out, s),
        Value::List(l) => {
            let nodes = quicklist_nodes(l, opts.list_fill);
            save_len(out, nodes.len() as u64);
            let depth = opts.list_compress_depth.max(0) as usize;
            let n = nodes.len();
            for (i, lp) in nodes.iter().enumerate() {
                save_len(out, CONTAINER_PACKED);
                // __quicklistCompressNode(): the nodes deeper than `depth` from both ends, when
                // LZF (into as many bytes as the node) saves more than 8 bytes; DUMP writes that
                // blob as it is (rdbSaveLzfBlob()).
                let compressed = (depth > 0 && i >= depth && i + depth < n && lp.len() >= MIN_COMPRESS_BYTES)
                    .then(|| w.lzf.compress(lp, lp.len()))
                    .flatten()
                    .filter(|z| z.len() + MIN_COMPRESS_IMPROVE < lp.len());
                match compressed {
                    Some(z) => save_lzf_blob(out, &z, lp.len()),
                    None => w.raw(out, lp),
                }
            }
        }
        Value::Set(Set::Intset(is)) => w.raw(out, &is.to_blob()),
        Value::Set(Set::Table(t)) => {
            save_len(out, t.len() as u64);
            for m in t {
                w.raw(out, m);
            }
        }
        Value::Zset(Zset::Listpack(v)) => w.raw(out, &zset_listpack(v)),
        Value::Zset(Zset::Skiplist { zsl, .. }) => {
            save_len(out, zsl.len() as u64);
            let mut n = zsl.tail();
            while n != crate::ds::skiplist::NIL {
                let node = zsl.node(n);
                w.raw(out, &node.ele);
                out.extend_from_slice(&node.score.to_le_bytes());
                n = zsl.prev(n);
            }
        }
        Value::Hash(Hash::Listpack(pairs)) => {
            let mut lp = listpack::Builder::new();
            for (f, v) in pairs {
                lp.push(f);
                lp.push(v);
            }
            w.raw(out, &lp.finish());
        }
        Value::Hash(Hash::Table(m)) => {
            save_len(out, m.len() as u64);
            for (f, v) in m {
                w.raw(out, f);
                w.raw(out, v);
            }
        }
    }
}

/// A listpack sorted set's bytes: member, then score as t_zset.c `zzlInsertAt()` stores it — an
/// integer when `double2ll()` allows, else the `d2string()` text.
pub fn zset_listpack(v: &[(Vec<u8>, f64)]) -> Vec<u8> {
    let mut lp = listpack::Builder::new();
    for (m, s) in v {
        lp.push(m);
        match crate::zset::double2ll(*s) {
            Some(i) => lp.push_int(i),
            None => lp.push(crate::zset::d2string(*s).as_bytes()),
        }
    }
    lp.finish()
}

/// cluster.c `createDumpPayload()`: type, value, RDB version (2 bytes LE), CRC64 (8 bytes LE).
pub fn create_dump_payload(v: &Value, opts: &SaveOptions) -> Vec<u8> {
    let mut out = vec![save_object_type(v)];
    let mut lzf = Compressor::new();
    let mut w = StringWriter { compression: opts.compression, lzf: &mut lzf };
    save_object(&mut out, v, opts, &mut w);
    out.extend_from_slice(&RDB_VERSION.to_le_bytes());
    let crc = crc64(0, &out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// cluster.c `verifyDumpPayload()`: at least 10 bytes, a version no newer than ours, and the
/// CRC64. Returns the payload's RDB version.
pub fn verify_dump_payload(p: &[u8]) -> Option<u16> {
    if p.len() < 10 {
        return None;
    }
    let footer = &p[p.len() - 10..];
    let version = u16::from_le_bytes([footer[0], footer[1]]);
    if version > RDB_VERSION {
        return None;
    }
    let crc = u64::from_le_bytes(footer[2..10].try_into().ok()?);
    (crc64(0, &p[..p.len() - 8]) == crc).then_some(version)
}

// =============================================================================================
// Loading
// =============================================================================================

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
        TYPE_STREAM_LISTPACKS | TYPE_STREAM_LISTPACKS_2 => Err(LoadError::Unsupported("stream")),
        _ => bad, // modules: no module type is loaded
    }
}

/// `goto emptykey`: Redis refuses an empty value.
fn non_empty(v: Value, empty: bool) -> Result<Value> {
    if empty {
        Err(LoadError::BadFormat)
    } else {
        Ok(v)
    }
}

fn load_set(r: &mut Reader, opts: &LoadOptions) -> Result<Value> {
    let len = r.load_len()?;
    if len == 0 {
        return Err(LoadError::BadFormat);
    }
    let max_entries = opts.set_max_intset_entries.min(1 << 30) as u64;
    let mut set = if len > max_entries { Set::Table(table_set()) } else { Set::Intset(Intset::new()) };
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
                    set = Set::Table(t);
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
        return Err(LoadError::BadFormat);
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
    let mut z = Zset::Skiplist { dict, zsl };
    // Converted *after* loading, as a listpack if small enough (lpSafeToAdd: under 1 GB).
    if z.len() <= opts.zset_max_listpack_entries && maxelelen <= opts.zset_max_listpack_value && totelelen < 1 << 30 {
        crate::zset::shrink_if_possible(&mut z, zset_limits(opts));
    }
    Ok(Value::Zset(z))
}

fn load_hash(r: &mut Reader, opts: &LoadOptions) -> Result<Value> {
    let len = r.load_len()?;
    if len == 0 {
        return Err(LoadError::BadFormat);
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
        Some(m) => Hash::Table(m),
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
                return Ok(Value::Set(Set::Table(t)));
            }
            Ok(Value::Set(Set::Intset(is)))
        }
        TYPE_HASH_ZIPLIST | TYPE_HASH_LISTPACK => {
            let entries = if t == TYPE_HASH_ZIPLIST { ziplist::ziplist_entries(blob) } else { listpack::entries(blob) };
            let p: Vec<(Vec<u8>, Vec<u8>)> =
                pairs(entries.ok_or_else(bad)?)?.into_iter().map(|(f, v)| (f, v.to_bytes())).collect();
            if p.is_empty() {
                return Err(bad());
            }
            Ok(hash_from_pairs(p, opts, false))
        }
        TYPE_ZSET_ZIPLIST | TYPE_ZSET_LISTPACK => {
            let entries = if t == TYPE_ZSET_ZIPLIST { ziplist::ziplist_entries(blob) } else { listpack::entries(blob) };
            let p = pairs(entries.ok_or_else(bad)?)?;
            if p.is_empty() {
                return Err(bad());
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
        Value::Hash(Hash::Table(m))
    } else {
        Value::Hash(Hash::Listpack(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lvl() -> impl FnMut() -> usize {
        let mut x = 1u64;
        move || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            1 + (x >> 62) as usize
        }
    }

    fn dump(v: &Value) -> Vec<u8> {
        create_dump_payload(v, &SaveOptions::default())
    }

    fn restore(p: &[u8]) -> Result<Value> {
        restore_payload(p, &LoadOptions::default(), &mut lvl())
    }

    #[test]
    fn strings_as_redis_dumps_them() {
        // Recorded from redis-server 7.0.15 (`SET s1 hello`, `SET s2 12345`, 52 × "a").
        assert_eq!(dump(&Value::Str(StrValue::Embstr(b"hello".to_vec()))), b"\x00\x05hello\n\x00cr\xdfve4 \n");
        assert_eq!(
            dump(&Value::Str(StrValue::Int { value: 12345, shared: false })),
            b"\x00\xc190\n\x00\x9d\x94\xea'\x93\xfc\x08\xb9"
        );
        assert_eq!(
            dump(&Value::Str(StrValue::Raw(vec![b'a'; 52], 0))),
            b"\x00\xc3\t4\x01aa\xe0'\x00\x01aa\n\x00c\xdd)\xd3L\x1a$n"
        );
    }

    #[test]
    fn collections_as_redis_dumps_them() {
        let mut z = vec![];
        for (s, m) in [(-0.0, "c"), (0.5, "d"), (1.0, "a"), (1e17, "b"), (6e18, "e"), (f64::INFINITY, "f")] {
            z.push((m.as_bytes().to_vec(), s));
        }
        // `ZADD z 1 a 1e17 b -0 c 0.5 d 6e18 e inf f`.
        assert_eq!(
            dump(&Value::Zset(Zset::Listpack(z))),
            &b"\x1188\x00\x00\x00\x0c\x00\x81c\x02\x00\x01\x81d\x02\x830.5\x04\x81a\x02\x01\x01\x81b\x02\xf4\x00\x00\x8a]xEc\x01\t\x81e\x02\x856e+18\x06\x81f\x02\x83inf\x04\xff\n\x00\x0e\x99\xa2M\x1d\xe3\xa7\x17"[..]
        );
        let mut is = Intset::new();
        for v in [1, 2, 3, 100_000] {
            is.add(v);
        }
        assert_eq!(
            dump(&Value::Set(Set::Intset(is))),
            &b"\x0b\x18\x04\x00\x00\x00\x04\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\xa0\x86\x01\x00\n\x00\x1f\xaen\x8f\x19\x9a\x91\xfb"[..]
        );
        let l: List = ["a", "b", "c", "1", "2", "300"].iter().map(|s| s.as_bytes().to_vec()).collect();
        assert_eq!(
            dump(&Value::List(l)),
            &b"\x12\x01\x02\x17\x17\x00\x00\x00\x06\x00\x81a\x02\x81b\x02\x81c\x02\x01\x01\x02\x01\xc1,\x02\xff\n\x00VP5\xa5v\xf9x\xfe"[..]
        );
    }

    #[test]
    fn round_trips_every_encoding() {
        let mut level = lvl();
        let mut big = Zset::Listpack((0..300).map(|i| (format!("m{i:04}").into_bytes(), i as f64 / 3.0)).collect());
        crate::zset::convert_to_skiplist(&mut big, &mut level);
        let mut table = Map::default();
        for i in 0..600 {
            table.insert(format!("field:{i}").into_bytes(), format!("value {i}").repeat(3).into_bytes());
        }
        let mut members = table_set();
        for i in 0..100 {
            members.insert(format!("member-{i}").into_bytes());
        }
        let values = vec![
            Value::Str(StrValue::Int { value: -7, shared: false }),
            Value::Str(StrValue::Int { value: i64::MIN, shared: false }),
            Value::Str(StrValue::Raw("compress me ".repeat(40).into_bytes(), 0)),
            Value::List((0..5000).map(|i| format!("element-{i}").into_bytes()).collect()),
            Value::Set(Set::Table(members)),
            Value::Zset(big),
            Value::Hash(Hash::Table(table)),
            Value::Hash(Hash::Listpack(vec![(b"a".to_vec(), b"1".to_vec()), (b"12".to_vec(), b"x".repeat(60))])),
        ];
        let opts = LoadOptions { hash_max_listpack_entries: 512, ..Default::default() };
        for v in values {
            let p = dump(&v);
            assert!(verify_dump_payload(&p).is_some());
            let back = restore_payload(&p, &opts, &mut level).expect("restores");
            assert_eq!(back, v, "{}", v.type_name());
        }
    }

    #[test]
    fn long_lists_cut_into_nodes_as_rpush_fills_them() {
        let l: List = (0..3000).map(|i| format!("{i:010}").into_bytes()).collect();
        let nodes = quicklist_nodes(&l, -2);
        assert!(nodes.len() > 3);
        assert!(nodes.iter().all(|n| n.len() <= 8192));
        assert_eq!(nodes.iter().map(|n| listpack::entries(n).unwrap().len()).sum::<usize>(), 3000);
        assert!(quicklist_nodes(&l, 5).iter().all(|n| listpack::entries(n).unwrap().len() <= 5));
        let compressed = SaveOptions { list_compress_depth: 1, ..Default::default() };
        let p = create_dump_payload(&Value::List(l.clone()), &compressed);
        assert_eq!(restore(&p).unwrap(), Value::List(l));
    }

    #[test]
    fn conversions_follow_the_limits() {
        let small = LoadOptions {
            hash_max_listpack_entries: 2,
            zset_max_listpack_entries: 2,
            set_max_intset_entries: 2,
            ..Default::default()
        };
        let h = Value::Hash(Hash::Listpack((0..3).map(|i| (vec![b'a' + i], b"v".to_vec())).collect()));
        let back = restore_payload(&dump(&h), &small, &mut lvl()).unwrap();
        assert_eq!(back.encoding(), "hashtable");
        let mut is = Intset::new();
        for v in 0..3 {
            is.add(v);
        }
        assert_eq!(
            restore_payload(&dump(&Value::Set(Set::Intset(is))), &small, &mut lvl()).unwrap().encoding(),
            "hashtable"
        );
        let z = Value::Zset(Zset::Listpack((0..3).map(|i| (vec![b'a' + i], i as f64)).collect()));
        assert_eq!(restore_payload(&dump(&z), &small, &mut lvl()).unwrap().encoding(), "skiplist");
        // A skiplist payload small enough comes back as a listpack.
        let mut level = lvl();
        let mut zs = Zset::Listpack(vec![(b"x".to_vec(), 1.0)]);
        crate::zset::convert_to_skiplist(&mut zs, &mut level);
        assert_eq!(restore(&dump(&Value::Zset(zs))).unwrap().encoding(), "listpack");
    }

    #[test]
    fn footer_checks() {
        let p = dump(&Value::Str(StrValue::Embstr(b"x".to_vec())));
        assert_eq!(verify_dump_payload(&p), Some(10));
        let mut bad = p.clone();
        bad[1] ^= 1;
        assert!(verify_dump_payload(&bad).is_none());
        assert!(verify_dump_payload(&p[..9]).is_none());
        assert_eq!(strtod_prefix(b" 1.5abc"), Some(1.5));
        assert_eq!(strtod_prefix(b"-inFinity!"), Some(f64::NEG_INFINITY));
        assert_eq!(strtod_prefix(b"0x1p3"), Some(8.0));
        assert_eq!(strtod_prefix(b"0x"), Some(0.0));
        assert_eq!(strtod_prefix(b"1e"), Some(1.0));
        assert_eq!(strtod_prefix(b"abc"), None);
        assert!(strtod_prefix(b"nan(12)").unwrap().is_nan());
    }
}
