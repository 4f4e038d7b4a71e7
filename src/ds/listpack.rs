//! The listpack byte format: models listpack.c — `lpEncodeIntegerGetType()`,
//! `lpEncodeString()`, `lpEncodeBacklen()`/`lpDecodeBacklen()`, `lpAppend()`/
//! `lpAppendInteger()` (a string that is a canonical int64 is stored as an integer,
//! `lpStringToInt64()`), `lpGet()`, `lpFirst()`/`lpLast()`/`lpNext()`/`lpPrev()`, t_stream.c's
//! `lpReplaceInteger()`, and `lpValidateIntegrity()` with `lpValidateNext()` (the deep walk
//! `sanitize-dump-payload yes` does).
//!
//! A listpack is `<total bytes: u32 LE> <count: u16 LE> <entry>… <0xFF>`; an entry is its encoding
//! (7-bit uint; 6-, 12- or 32-bit string length; 13-, 16-, 24-, 32- or 64-bit integer), its data,
//! then its own length written backwards (`backlen`, 7 bits a byte) so the list can be walked from
//! the tail. The count saturates at 65535 ("unknown").
//!
//! Two users share the one encoder and decoder: the engine keeps hash/set/zset/list listpack
//! values as vectors (object.rs), and this file turns them into Redis's exact bytes for DUMP
//! (`Builder`, persist/rdb.rs), reads them back (`entries`, persist/rdb_load.rs; `walk` for a
//! stream's nodes) and tells the memory model (memory.rs) each entry's size; a stream keeps its
//! nodes as real listpacks (`Listpack`, ds/stream.rs), walked by byte offsets and edited in
//! place.
//!
//! Only the bytes are modelled; the allocation behind a `Listpack` (lpNew's capacity,
//! `lp_malloc_size()` growth, shrinking) is the caller's business (ds/stream.rs), because it
//! depends on jemalloc. Difference: a listpack is never longer than u32::MAX bytes in Redis;
//! callers keep far below that.

use crate::util::string2ll;

/// LP_HDR_SIZE: total bytes (4) + element count (2).
pub const HDR_SIZE: usize = 6;
/// LP_HDR_NUMELE_UNKNOWN.
pub const NUMELE_UNKNOWN: u16 = u16::MAX;
/// LP_EOF.
pub const EOF: u8 = 0xFF;

/// One entry as `lpGet()` sees it: an integer, or a string.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Entry<'a> {
    Int(i64),
    Str(&'a [u8]),
}

impl Entry<'_> {
    /// The entry's bytes as Redis hands them out (integers in decimal, `ll2string`).
    pub fn to_bytes(self) -> Vec<u8> {
        match self {
            Entry::Int(v) => v.to_string().into_bytes(),
            Entry::Str(s) => s.to_vec(),
        }
    }

    /// `lpGetInteger()` of t_stream.c: the integer, or a string that parses as one (else 0).
    pub fn as_int(self) -> i64 {
        match self {
            Entry::Int(v) => v,
            Entry::Str(s) => string2ll(s).unwrap_or(0),
        }
    }

    /// Length of `to_bytes()`, without building it.
    pub fn len(self) -> usize {
        match self {
            Entry::Int(v) => crate::util::digits10(v),
            Entry::Str(s) => s.len(),
        }
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Whether `to_bytes()` would equal `b`.
    pub fn eq_bytes(self, b: &[u8]) -> bool {
        match self {
            Entry::Str(s) => s == b,
            Entry::Int(v) => string2ll(b) == Some(v) && b.len() == crate::util::digits10(v),
        }
    }
}

/// `lpStringToInt64()`: a canonical decimal int64 of at most 20 characters (as string2ll).
pub fn string_to_int(s: &[u8]) -> Option<i64> {
    if s.len() > 20 {
        return None;
    }
    string2ll(s)
}

/// `lpEncodeBacklen(NULL, l)`: how many bytes the backwards length of an `l`-byte entry takes.
pub fn backlen_size(l: u64) -> usize {
    if l <= 127 {
        1
    } else if l < 16383 {
        2
    } else if l < 2_097_151 {
        3
    } else if l < 268_435_455 {
        4
    } else {
        5
    }
}

/// `lpEncodeBacklen()`: the most significant 7-bit group first, every byte but the first with
/// the high bit set, so `lpDecodeBacklen()` reading right to left stops at the first byte.
pub fn encode_backlen(out: &mut Vec<u8>, l: u64) {
    let n = backlen_size(l);
    for i in (0..n).rev() {
        let group = ((l >> (7 * i)) & 127) as u8;
        out.push(if i == n - 1 { group } else { group | 128 });
    }
}

/// `lpDecodeBacklen()` ending at `buf[end]`; None past 5 bytes (UINT64_MAX in Redis).
fn decode_backlen(buf: &[u8], end: usize) -> Option<u64> {
    let mut val: u64 = 0;
    let mut shift = 0;
    let mut p = end;
    loop {
        let b = *buf.get(p)?;
        val |= ((b & 127) as u64) << shift;
        if b & 128 == 0 {
            return Some(val);
        }
        shift += 7;
        if shift > 28 || p == 0 {
            return None;
        }
        p -= 1;
    }
}

/// `lpEncodeIntegerGetType()`'s encoded size (without the backlen).
pub fn int_encoded_size(v: i64) -> usize {
    if (0..=127).contains(&v) {
        1
    } else if (-4096..=4095).contains(&v) {
        2
    } else if (-32768..=32767).contains(&v) {
        3
    } else if (-8_388_608..=8_388_607).contains(&v) {
        4
    } else if (i32::MIN as i64..=i32::MAX as i64).contains(&v) {
        5
    } else {
        9
    }
}

/// A string's encoded size (without the backlen), `lpEncodeGetType()` for non-integers.
pub fn str_encoded_size(len: usize) -> usize {
    if len < 64 {
        1 + len
    } else if len < 4096 {
        2 + len
    } else {
        5 + len
    }
}

/// Bytes one entry holding `e` takes, as `lpAppend()` would store it (encoding + backlen).
pub fn entry_size(e: &[u8]) -> usize {
    let enc = match string_to_int(e) {
        Some(v) => int_encoded_size(v),
        None => str_encoded_size(e.len()),
    };
    enc + backlen_size(enc as u64)
}

/// Bytes of an integer entry (`lpAppendInteger()`), backlen included.
pub fn int_entry_size(v: i64) -> usize {
    let enc = int_encoded_size(v);
    enc + backlen_size(enc as u64)
}

/// `lpEncodeIntegerGetType()` + its bytes: the encoding and data of an integer entry.
fn encode_int(v: i64, out: &mut Vec<u8>) {
    match int_encoded_size(v) {
        1 => out.push(v as u8),
        2 => {
            let u = if v < 0 { (1 << 13) + v } else { v } as u64;
            out.push((u >> 8) as u8 | 0xC0);
            out.push((u & 0xff) as u8);
        }
        3 => {
            out.push(0xF1);
            out.extend_from_slice(&(v as i16).to_le_bytes());
        }
        4 => {
            out.push(0xF2);
            out.extend_from_slice(&(v as i32).to_le_bytes()[..3]);
        }
        5 => {
            out.push(0xF3);
            out.extend_from_slice(&(v as i32).to_le_bytes());
        }
        _ => {
            out.push(0xF4);
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

/// `lpEncodeString()`: the encoding and data of a string entry (6-, 12- or 32-bit length).
fn encode_str(e: &[u8], out: &mut Vec<u8>) {
    let len = e.len();
    if len < 64 {
        out.push(0x80 | len as u8);
    } else if len < 4096 {
        out.push(0xE0 | (len >> 8) as u8);
        out.push((len & 0xff) as u8);
    } else {
        out.push(0xF0);
        out.extend_from_slice(&(len as u32).to_le_bytes());
    }
    out.extend_from_slice(e);
}

/// `lpAppend()`'s choice: a canonical integer string as an integer, anything else as a string.
fn encode(e: &[u8], out: &mut Vec<u8>) {
    match string_to_int(e) {
        Some(v) => encode_int(v, out),
        None => encode_str(e, out),
    }
}

/// Builds a listpack entry by entry, as `lpNew()` + `lpAppend()`/`lpAppendInteger()`.
#[derive(Debug, Clone)]
pub struct Builder {
    buf: Vec<u8>,
    count: usize,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    pub fn new() -> Builder {
        let mut buf = Vec::with_capacity(64);
        buf.extend_from_slice(&[0; HDR_SIZE]);
        Builder { buf, count: 0 }
    }

    /// `lpAppend()`: a canonical integer string is stored as an integer.
    pub fn push(&mut self, e: &[u8]) {
        match string_to_int(e) {
            Some(v) => self.push_int(v),
            None => self.push_str(e),
        }
    }

    /// A string entry, whatever it holds.
    pub fn push_str(&mut self, e: &[u8]) {
        let start = self.buf.len();
        encode_str(e, &mut self.buf);
        let enc = (self.buf.len() - start) as u64;
        encode_backlen(&mut self.buf, enc);
        self.count += 1;
    }

    /// `lpAppendInteger()`.
    pub fn push_int(&mut self, v: i64) {
        let start = self.buf.len();
        encode_int(v, &mut self.buf);
        let enc = (self.buf.len() - start) as u64;
        encode_backlen(&mut self.buf, enc);
        self.count += 1;
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes the listpack has so far (`lpBytes()`, the EOF byte included).
    pub fn bytes(&self) -> usize {
        self.buf.len() + 1
    }

    /// The finished listpack: header filled in, EOF appended.
    pub fn finish(mut self) -> Vec<u8> {
        self.buf.push(EOF);
        let total = self.buf.len() as u32;
        self.buf[..4].copy_from_slice(&total.to_le_bytes());
        let numele = if self.count < NUMELE_UNKNOWN as usize { self.count as u16 } else { NUMELE_UNKNOWN };
        self.buf[4..6].copy_from_slice(&numele.to_le_bytes());
        self.buf
    }
}

/// `lpCurrentEncodedSizeBytes()`: bytes of the encoding that hold a length (0 = invalid byte).
fn encoded_size_bytes(b: u8) -> u64 {
    if b & 0x80 == 0 || b & 0xC0 == 0x80 || b & 0xE0 == 0xC0 || (0xF1..=0xF4).contains(&b) || b == EOF {
        1
    } else if b & 0xF0 == 0xE0 {
        2
    } else if b == 0xF0 {
        5
    } else {
        0
    }
}

/// `lpCurrentEncodedSizeUnsafe()`: the entry's encoding + data size (without the backlen).
fn encoded_size(lp: &[u8], p: usize) -> u64 {
    let b = lp[p];
    let at = |i: usize| lp.get(p + i).copied().unwrap_or(0) as u64;
    if b & 0x80 == 0 {
        1
    } else if b & 0xC0 == 0x80 {
        1 + (b & 0x3F) as u64
    } else if b & 0xE0 == 0xC0 {
        2
    } else if b == 0xF1 {
        3
    } else if b == 0xF2 {
        4
    } else if b == 0xF3 {
        5
    } else if b == 0xF4 {
        9
    } else if b & 0xF0 == 0xE0 {
        2 + (((b & 0x0F) as u64) << 8 | at(1))
    } else if b == 0xF0 {
        5 + (at(1) | at(2) << 8 | at(3) << 16 | at(4) << 24)
    } else {
        1
    }
}

/// `lpGet()` of the (already validated) entry at `p`.
fn get(lp: &[u8], p: usize) -> Entry<'_> {
    let b = lp[p];
    let le = |n: usize| -> u64 { (0..n).fold(0u64, |acc, i| acc | (lp[p + 1 + i] as u64) << (8 * i)) };
    if b & 0x80 == 0 {
        Entry::Int((b & 0x7F) as i64)
    } else if b & 0xC0 == 0x80 {
        let len = (b & 0x3F) as usize;
        Entry::Str(&lp[p + 1..p + 1 + len])
    } else if b & 0xE0 == 0xC0 {
        let u = ((b & 0x1F) as i64) << 8 | lp[p + 1] as i64;
        Entry::Int(if u >= 1 << 12 { u - (1 << 13) } else { u })
    } else if b == 0xF1 {
        Entry::Int(le(2) as u16 as i16 as i64)
    } else if b == 0xF2 {
        let u = le(3) as i64;
        Entry::Int(if u >= 1 << 23 { u - (1 << 24) } else { u })
    } else if b == 0xF3 {
        Entry::Int(le(4) as u32 as i32 as i64)
    } else if b == 0xF4 {
        Entry::Int(le(8) as i64)
    } else if b & 0xF0 == 0xE0 {
        let len = ((b & 0x0F) as usize) << 8 | lp[p + 1] as usize;
        Entry::Str(&lp[p + 2..p + 2 + len])
    } else {
        let len = le(4) as usize;
        Entry::Str(&lp[p + 5..p + 5 + len])
    }
}

/// `lpValidateIntegrity(lp, size, deep=1)`: the header matches the size, the last byte is EOF,
/// every entry's encoding is valid and stays inside, its backlen matches, and the count in the
/// header is right (or "unknown"). Returns the entries, or None if any check fails.
pub fn entries(lp: &[u8]) -> Option<Vec<Entry<'_>>> {
    let out = walk(lp)?;
    let numele = u16::from_le_bytes([lp[4], lp[5]]);
    if numele != NUMELE_UNKNOWN && numele as usize != out.len() {
        return None;
    }
    Some(out)
}

/// `lpValidateIntegrity(lp, size, deep=0)` (the header matches the size, the last byte is EOF),
/// then `lpValidateNext()` over every entry, as t_stream.c `streamValidateListpackIntegrity()`
/// walks a stream node: everything `entries()` checks but the count in the header.
pub fn walk(lp: &[u8]) -> Option<Vec<Entry<'_>>> {
    let size = lp.len();
    if size < HDR_SIZE + 1 {
        return None;
    }
    let bytes = u32::from_le_bytes([lp[0], lp[1], lp[2], lp[3]]) as usize;
    if bytes != size || lp[size - 1] != EOF {
        return None;
    }
    let last = (size - 1) as u64;
    let mut out = Vec::new();
    let mut p = HDR_SIZE;
    while lp[p] != EOF {
        // lpValidateNext(): the length bytes, then the whole entry, stay before the EOF byte.
        let lenbytes = encoded_size_bytes(lp[p]);
        if lenbytes == 0 || p as u64 + lenbytes > last {
            return None;
        }
        let enc = encoded_size(lp, p);
        let backlen = backlen_size(enc) as u64;
        let entrylen = enc + backlen;
        if p as u64 + entrylen > last {
            return None;
        }
        let next = p + entrylen as usize;
        if decode_backlen(lp, next - 1)? + backlen != entrylen {
            return None;
        }
        out.push(get(lp, p));
        p = next;
    }
    if p != size - 1 {
        return None;
    }
    Some(out)
}

/// A listpack kept as its bytes and edited in place (a stream's node): positions are byte
/// offsets of entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listpack {
    buf: Vec<u8>,
}

impl Default for Listpack {
    fn default() -> Self {
        Listpack::new()
    }
}

impl Listpack {
    /// `lpNew()`: the header and the terminator.
    pub fn new() -> Listpack {
        Builder::new().finish().into()
    }

    /// `lpBytes()`.
    pub fn bytes(&self) -> usize {
        self.buf.len()
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    fn set_total(&mut self) {
        let n = self.buf.len() as u32;
        self.buf[0..4].copy_from_slice(&n.to_le_bytes());
    }

    fn numele(&self) -> u16 {
        u16::from_le_bytes([self.buf[4], self.buf[5]])
    }

    fn set_numele(&mut self, n: u16) {
        self.buf[4..6].copy_from_slice(&n.to_le_bytes());
    }

    /// `lpFirst()`.
    pub fn first(&self) -> Option<usize> {
        (self.buf[HDR_SIZE] != EOF).then_some(HDR_SIZE)
    }

    /// `lpLast()`.
    pub fn last(&self) -> Option<usize> {
        self.prev(self.buf.len() - 1)
    }

    /// Bytes of the whole entry at `p`, backlen included.
    fn entry_len(&self, p: usize) -> usize {
        let l = encoded_size(&self.buf, p);
        (l + backlen_size(l) as u64) as usize
    }

    /// `lpNext()`.
    pub fn next(&self, p: usize) -> Option<usize> {
        let q = p + self.entry_len(p);
        (self.buf[q] != EOF).then_some(q)
    }

    /// `lpPrev()`: reads the previous entry's backlen backwards.
    pub fn prev(&self, p: usize) -> Option<usize> {
        if p <= HDR_SIZE {
            return None;
        }
        let l = decode_backlen(&self.buf, p - 1)?;
        Some(p - backlen_size(l) - l as usize)
    }

    /// `lpGet()`.
    pub fn get(&self, p: usize) -> Entry<'_> {
        get(&self.buf, p)
    }

    /// `lpGetInteger()` of the entry at `p`.
    pub fn get_int(&self, p: usize) -> i64 {
        self.get(p).as_int()
    }

    /// `lpAppend()` of a string (stored as an integer when it is a canonical one).
    pub fn append(&mut self, ele: &[u8]) {
        let mut enc = Vec::with_capacity(ele.len() + 10);
        encode(ele, &mut enc);
        self.append_encoded(enc);
    }

    /// `lpAppendInteger()` of t_stream.c.
    pub fn append_int(&mut self, v: i64) {
        let mut enc = Vec::with_capacity(10);
        encode_int(v, &mut enc);
        self.append_encoded(enc);
    }

    fn append_encoded(&mut self, mut enc: Vec<u8>) {
        let l = enc.len() as u64;
        encode_backlen(&mut enc, l);
        let eof = self.buf.len() - 1;
        self.buf.splice(eof..eof, enc);
        self.set_total();
        let n = self.numele();
        if n != NUMELE_UNKNOWN {
            self.set_numele(n + 1);
        }
    }

    /// `lpReplaceInteger()` of t_stream.c: rewrites the entry at `p` (which stays at `p`).
    pub fn replace_int(&mut self, p: usize, v: i64) {
        let old = self.entry_len(p);
        let mut enc = Vec::with_capacity(10);
        encode_int(v, &mut enc);
        let l = enc.len() as u64;
        encode_backlen(&mut enc, l);
        self.buf.splice(p..p + old, enc);
        self.set_total();
    }

    /// The elements in order (for tests and debugging).
    pub fn elements(&self) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut p = self.first();
        while let Some(q) = p {
            out.push(self.get(q).to_bytes());
            p = self.next(q);
        }
        out
    }
}

/// A finished `Builder`'s bytes, or a blob `entries()` accepted.
impl From<Vec<u8>> for Listpack {
    fn from(buf: Vec<u8>) -> Listpack {
        Listpack { buf }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_as_redis_does() {
        // Bytes recorded from redis-server 7.0.15 (DUMP of `HSET h f1 v1 f2 v2`).
        let mut b = Builder::new();
        for e in [&b"f1"[..], b"v1", b"f2", b"v2"] {
            b.push(e);
        }
        assert_eq!(b.finish(), b"\x17\x00\x00\x00\x04\x00\x82f1\x03\x82v1\x03\x82f2\x03\x82v2\x03\xff");
        // `RPUSH l a b c 1 2 300`.
        let mut b = Builder::new();
        for e in [&b"a"[..], b"b", b"c", b"1", b"2", b"300"] {
            b.push(e);
        }
        assert_eq!(b.finish(), b"\x17\x00\x00\x00\x06\x00\x81a\x02\x81b\x02\x81c\x02\x01\x01\x02\x01\xc1,\x02\xff");
    }

    #[test]
    fn every_encoding_round_trips() {
        let ints = [0, 127, 128, -1, -4096, 4095, 4096, -4097, 32767, -32768, 32768, 8_388_607, -8_388_608, 8_388_608];
        let more = [i32::MAX as i64, i32::MIN as i64, i32::MAX as i64 + 1, i64::MAX, i64::MIN];
        let strs: Vec<Vec<u8>> =
            [0usize, 1, 63, 64, 127, 128, 4095, 4096, 20000].iter().map(|&n| vec![b'x'; n]).collect();
        let mut b = Builder::new();
        for v in ints.iter().chain(more.iter()) {
            b.push_int(*v);
        }
        for s in &strs {
            b.push_str(s);
        }
        let lp = b.finish();
        let got = entries(&lp).expect("valid");
        let want: Vec<Entry> =
            ints.iter().chain(more.iter()).map(|&v| Entry::Int(v)).chain(strs.iter().map(|s| Entry::Str(s))).collect();
        assert_eq!(got, want);
        for v in ints.iter().chain(more.iter()) {
            let mut one = Builder::new();
            one.push_int(*v);
            assert_eq!(one.bytes() - HDR_SIZE - 1, int_entry_size(*v));
        }
        for s in &strs {
            assert_eq!(entry_size(s), str_encoded_size(s.len()) + backlen_size(str_encoded_size(s.len()) as u64));
        }
    }

    #[test]
    fn backlen_boundaries() {
        for l in [0u64, 127, 128, 16382, 16383, 2_097_150, 2_097_151, 268_435_454, 268_435_455, u32::MAX as u64] {
            let mut v = vec![0u8; 3];
            encode_backlen(&mut v, l);
            assert_eq!(v.len() - 3, backlen_size(l));
            assert_eq!(decode_backlen(&v, v.len() - 1), Some(l), "{l}");
        }
    }

    #[test]
    fn corrupt_listpacks_are_refused() {
        let mut b = Builder::new();
        b.push(b"hello");
        b.push(b"12");
        let lp = b.finish();
        assert!(entries(&lp).is_some());
        for cut in 0..lp.len() {
            assert!(entries(&lp[..cut]).is_none());
        }
        let mut bad = lp.clone();
        bad[4] = 3; // wrong count
        assert!(entries(&bad).is_none());
        let mut bad = lp.clone();
        bad[12] = 9; // wrong backlen of "hello"
        assert!(entries(&bad).is_none());
        let mut bad = lp.clone();
        bad[6] = 0xF5; // invalid encoding byte
        assert!(entries(&bad).is_none());
        let mut unknown = lp;
        unknown[4] = 0xFF;
        unknown[5] = 0xFF;
        assert_eq!(entries(&unknown).map(|e| e.len()), Some(2));
    }

    #[test]
    fn encodings_round_trip_and_walk_both_ways() {
        let long = vec![b'x'; 5000];
        let mid = vec![b'y'; 300];
        let items: Vec<Vec<u8>> = vec![
            b"0".to_vec(),
            b"127".to_vec(),
            b"128".to_vec(),
            b"-1".to_vec(),
            b"-4096".to_vec(),
            b"4095".to_vec(),
            b"-32768".to_vec(),
            b"32767".to_vec(),
            b"8388607".to_vec(),
            b"-8388608".to_vec(),
            b"2147483647".to_vec(),
            b"-2147483649".to_vec(),
            b"9223372036854775807".to_vec(),
            b"-9223372036854775808".to_vec(),
            b"01".to_vec(),
            b"-0".to_vec(),
            b"".to_vec(),
            b"hello".to_vec(),
            mid.clone(),
            long.clone(),
        ];
        let mut lp = Listpack::new();
        for it in &items {
            lp.append(it);
        }
        assert_eq!(lp.elements(), items);
        // Backwards.
        let mut back = Vec::new();
        let mut p = lp.last();
        while let Some(q) = p {
            back.push(lp.get(q).to_bytes());
            p = lp.prev(q);
        }
        back.reverse();
        assert_eq!(back, items);
        let expected: usize = HDR_SIZE + 1 + items.iter().map(|i| entry_size(i)).sum::<usize>();
        assert_eq!(lp.bytes(), expected);
        assert_eq!(u32::from_le_bytes(lp.as_bytes()[0..4].try_into().unwrap()) as usize, expected);
    }

    #[test]
    fn sizes_match_listpack_c() {
        assert_eq!(entry_size(b"1"), 2);
        assert_eq!(entry_size(b"128"), 3);
        assert_eq!(entry_size(b"abc"), 5);
        assert_eq!(entry_size(&[b'x'; 64]), 67);
        assert_eq!(entry_size(&[b'x'; 126]), 130);
        assert_eq!(int_entry_size(-1), 3);
        assert_eq!(int_entry_size(1 << 40), 10);
        // lpNew: 6 header bytes + the terminator.
        assert_eq!(Listpack::new().bytes(), 7);
    }

    #[test]
    fn replacing_an_integer_moves_what_follows() {
        let mut lp = Listpack::new();
        lp.append_int(127);
        lp.append(b"tail");
        let p = lp.first().unwrap();
        lp.replace_int(p, 128);
        assert_eq!(lp.elements(), vec![b"128".to_vec(), b"tail".to_vec()]);
        lp.replace_int(p, 3);
        assert_eq!(lp.elements(), vec![b"3".to_vec(), b"tail".to_vec()]);
        assert_eq!(lp.bytes(), 7 + 2 + 6);
    }
}
