//! The RDB value encoding, writing side, and the DUMP payload: models rdb.c as Redis 7.0 (RDB
//! version 10) writes values — `rdbSaveObjectType()`, `rdbSaveObject()`, `rdbSaveLen()`,
//! `rdbSaveRawString()` with `rdbTryIntegerEncoding()`/`rdbEncodeInteger()` (RDB_ENC_INT8/16/32)
//! and `rdbSaveLzfStringObject()` (with `rdbcompression yes`, a string of more than 20 bytes is
//! stored LZF-compressed when that saves at least 4 bytes; lzf.rs),
//! `rdbSaveLongLongAsStringObject()`, `rdbSaveBinaryDoubleValue()` — and cluster.c's
//! `createDumpPayload()` (the value, then the RDB version as 2 bytes and a CRC64 of everything
//! before it, both little-endian; crc64.rs) and `verifyDumpPayload()`. Reading values back is
//! rdb_load.rs. Pure: values in, bytes out.
//!
//! What 7.0 writes, per encoding: strings as integers or (compressed) raw bytes; lists as
//! RDB_TYPE_LIST_QUICKLIST_2 (the node count, then per node its container — 2 packed, 1 plain —
//! and its listpack as a string, or the node's own LZF blob when `list-compress-depth` compressed
//! it); intsets (RDB_TYPE_SET_INTSET) and listpack hashes and sorted sets (RDB_TYPE_HASH_LISTPACK,
//! RDB_TYPE_ZSET_LISTPACK) as their blob in one string; hashtable sets and hashes
//! (RDB_TYPE_SET, RDB_TYPE_HASH) as a count and their members/pairs; skiplist sorted sets
//! (RDB_TYPE_ZSET_2) as a count and (member, 8-byte little-endian double) from the tail, the
//! greatest first.
//!
//! Streams (RDB_TYPE_STREAM_LISTPACKS_2, `save_stream`): the rax's listpacks byte for byte as
//! the stream holds them (ds/stream.rs keeps Redis's exact node bytes), the stream's counters,
//! then the consumer groups with their PELs and consumers.
//!
//! Differences: a hashtable set or hash is written in our iteration order (insertion order),
//! Redis's in its dict's hash order (random per process); a list's listpack nodes are cut as
//! RPUSH fills them (quicklist.c `_quicklistNodeAllowInsert()` for `list-max-listpack-size`),
//! since the engine keeps a list's elements, not its node history; compressed nodes are those
//! `list-compress-depth` leaves compressed once the list stops changing.

use super::crc64::crc64;
use super::lzf::Compressor;
use crate::ds::listpack;
use crate::ds::stream::Stream;
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
pub const LEN_6BIT: u8 = 0;
pub const LEN_14BIT: u8 = 1;
pub const LEN_32BIT: u8 = 0x80;
pub const LEN_64BIT: u8 = 0x81;
pub const ENCVAL: u8 = 3;
pub const ENC_INT8: u64 = 0;
pub const ENC_INT16: u64 = 1;
pub const ENC_INT32: u64 = 2;
pub const ENC_LZF: u64 = 3;

/// quicklist.h containers.
pub const CONTAINER_PLAIN: u64 = 1;
pub const CONTAINER_PACKED: u64 = 2;

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
            StrValue::Embstr(b) => self.raw(out, b),
            StrValue::Raw(b, _) => self.raw(out, b),
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
        Value::Stream(_) => TYPE_STREAM_LISTPACKS_2,
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
            for m in t.iter() {
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
            for (f, v) in m.iter() {
                w.raw(out, f);
                w.raw(out, v);
            }
        }
        Value::Stream(s) => save_stream(out, s, w),
    }
}

/// `rdbSaveObject()` of a stream (RDB_TYPE_STREAM_LISTPACKS_2): the rax's nodes (master ID as
/// its 16-byte key, then the listpack as it is), the length, last/first/max-deleted IDs and
/// entries-added; then each group in name order — its name, last ID, entries-read (-1 as a
/// 64-bit length, as C's cast makes it), its PEL (`rdbSaveStreamPEL(…, 1)`: raw 16-byte IDs, the
/// delivery time as 8 little-endian bytes, the delivery count) and its consumers in name order
/// (name, seen time, their PEL as bare IDs).
fn save_stream(out: &mut Vec<u8>, s: &Stream, w: &mut StringWriter) {
    save_len(out, s.rax_keys() as u64);
    for (master, lp) in s.listpacks() {
        w.raw(out, &master.encode());
        w.raw(out, lp.as_bytes());
    }
    for v in [
        s.length,
        s.last_id.ms,
        s.last_id.seq,
        s.first_id.ms,
        s.first_id.seq,
        s.max_deleted_entry_id.ms,
        s.max_deleted_entry_id.seq,
        s.entries_added,
    ] {
        save_len(out, v);
    }
    save_len(out, s.group_count() as u64);
    for (name, g) in s.groups() {
        w.raw(out, name);
        save_len(out, g.last_id.ms);
        save_len(out, g.last_id.seq);
        save_len(out, g.entries_read as u64);
        save_len(out, g.pel.len() as u64);
        for (id, nack) in &g.pel {
            out.extend_from_slice(&id.encode());
            out.extend_from_slice(&nack.delivery_time.to_le_bytes());
            save_len(out, nack.delivery_count);
        }
        save_len(out, g.consumers.len() as u64);
        for (cname, c) in &g.consumers {
            w.raw(out, cname);
            out.extend_from_slice(&c.seen_time.to_le_bytes());
            save_len(out, c.pel.len() as u64);
            for id in &c.pel {
                out.extend_from_slice(&id.encode());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ds::intset::Intset;
    use crate::ds::map::Map;
    use crate::persist::rdb_load::{restore_payload, LoadOptions, Result};

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
        assert_eq!(dump(&Value::Str(StrValue::Embstr(b"hello".to_vec().into()))), b"\x00\x05hello\n\x00cr\xdfve4 \n");
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
        let mut members = indexmap::IndexSet::with_hasher(crate::ds::map::Hasher::default());
        for i in 0..100 {
            members.insert(format!("member-{i}").into_bytes());
        }
        let values = vec![
            Value::Str(StrValue::Int { value: -7, shared: false }),
            Value::Str(StrValue::Int { value: i64::MIN, shared: false }),
            Value::Str(StrValue::Raw("compress me ".repeat(40).into_bytes(), 0)),
            Value::List((0..5000).map(|i| format!("element-{i}").into_bytes()).collect()),
            Value::Set(Set::Table(Box::new(members))),
            Value::Zset(big),
            Value::Hash(Hash::Table(Box::new(table))),
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
        let p = dump(&Value::Str(StrValue::Embstr(b"x".to_vec().into())));
        assert_eq!(verify_dump_payload(&p), Some(10));
        let mut bad = p.clone();
        bad[1] ^= 1;
        assert!(verify_dump_payload(&bad).is_none());
        assert!(verify_dump_payload(&p[..9]).is_none());
    }
}
