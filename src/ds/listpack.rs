//! A listpack, byte for byte: models listpack.c — the header (total bytes as a little-endian
//! u32, element count as a u16 that saturates at 65535), entries each made of an encoding
//! byte, the data and a reversed variable-length "backlen", and the 0xFF terminator.
//! `lpAppend()` stores a string that is a canonical int64 (`lpStringToInt64()`) as an integer
//! in the smallest of the 7/13/16/24/32/64-bit encodings, other strings with a 6-, 12- or
//! 32-bit length; `lpNext()`/`lpPrev()` walk forward by the encoding and backward by the
//! backlen; `lpReplace()` of an integer rewrites one entry in place.
//!
//! Only the bytes are modelled here; the allocation behind them (lpNew's capacity,
//! `lp_malloc_size()` growth, shrinking) is the caller's business (ds/stream.rs), because it
//! depends on jemalloc. Positions are byte offsets into the buffer. Difference: a listpack is
//! never longer than u32::MAX bytes in Redis; callers keep far below that.

use crate::util::string2ll;

/// LP_HDR_SIZE: total bytes (4) + number of elements (2).
pub const HDR_SIZE: usize = 6;
const EOF: u8 = 0xFF;
const NUMELE_UNKNOWN: u16 = u16::MAX;

/// One element as `lpGet()` returns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LpValue<'a> {
    Int(i64),
    Str(&'a [u8]),
}

impl LpValue<'_> {
    /// The element as bytes: integers in their canonical decimal form (`ll2string`).
    pub fn to_vec(self) -> Vec<u8> {
        match self {
            LpValue::Int(v) => v.to_string().into_bytes(),
            LpValue::Str(s) => s.to_vec(),
        }
    }
    /// `lpGetInteger()` of t_stream.c: the integer, or a string that parses as one.
    pub fn as_int(self) -> i64 {
        match self {
            LpValue::Int(v) => v,
            LpValue::Str(s) => string2ll(s).unwrap_or(0),
        }
    }
    pub fn len(self) -> usize {
        match self {
            LpValue::Int(v) => crate::util::digits10(v),
            LpValue::Str(s) => s.len(),
        }
    }
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
    pub fn eq_bytes(self, b: &[u8]) -> bool {
        match self {
            LpValue::Str(s) => s == b,
            LpValue::Int(v) => string2ll(b) == Some(v) && b.len() == crate::util::digits10(v),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listpack {
    buf: Vec<u8>,
}

impl Default for Listpack {
    fn default() -> Self {
        Listpack::new()
    }
}

/// `lpEncodeBacklen()`'s size for an entry of `l` bytes (encoding + data).
pub fn backlen_size(l: usize) -> usize {
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

/// The encoding + data bytes of an integer (`lpEncodeIntegerGetType()`).
fn encode_int(v: i64, out: &mut Vec<u8>) {
    if (0..=127).contains(&v) {
        out.push(v as u8);
    } else if (-4096..=4095).contains(&v) {
        let u = if v < 0 { (1i64 << 13) + v } else { v } as u64;
        out.push(((u >> 8) as u8) | 0xC0);
        out.push((u & 0xff) as u8);
    } else if (i16::MIN as i64..=i16::MAX as i64).contains(&v) {
        let u = if v < 0 { (1i64 << 16) + v } else { v } as u64;
        out.extend_from_slice(&[0xF1, (u & 0xff) as u8, (u >> 8) as u8]);
    } else if (-(1i64 << 23)..(1i64 << 23)).contains(&v) {
        let u = if v < 0 { (1i64 << 24) + v } else { v } as u64;
        out.extend_from_slice(&[0xF2, (u & 0xff) as u8, ((u >> 8) & 0xff) as u8, (u >> 16) as u8]);
    } else if (i32::MIN as i64..=i32::MAX as i64).contains(&v) {
        out.push(0xF3);
        out.extend_from_slice(&(v as i32).to_le_bytes());
    } else {
        out.push(0xF4);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// The encoding + data bytes of an element (`lpEncodeGetType()` + `lpEncodeString()`).
fn encode(ele: &[u8], out: &mut Vec<u8>) {
    if let Some(v) = string2ll(ele) {
        return encode_int(v, out);
    }
    let len = ele.len();
    if len < 64 {
        out.push(0x80 | len as u8);
    } else if len < 4096 {
        out.push(0xE0 | (len >> 8) as u8);
        out.push((len & 0xff) as u8);
    } else {
        out.push(0xF0);
        out.extend_from_slice(&(len as u32).to_le_bytes());
    }
    out.extend_from_slice(ele);
}

/// `lpEncodeBacklen()`: the reversed variable-length size, appended after the entry.
fn encode_backlen(l: usize, out: &mut Vec<u8>) {
    let n = backlen_size(l);
    for i in (0..n).rev() {
        let part = ((l >> (7 * i)) & 127) as u8;
        // The first byte written (most significant group) has no continuation bit.
        out.push(if i == n - 1 { part } else { part | 128 });
    }
}

/// Bytes one element takes in a listpack, backlen included.
pub fn entry_size(ele: &[u8]) -> usize {
    let mut tmp = Vec::new();
    encode(ele, &mut tmp);
    tmp.len() + backlen_size(tmp.len())
}

/// Bytes an integer element takes, backlen included.
pub fn int_entry_size(v: i64) -> usize {
    let mut tmp = Vec::new();
    encode_int(v, &mut tmp);
    tmp.len() + backlen_size(tmp.len())
}

impl Listpack {
    /// `lpNew()`: the header and the terminator.
    pub fn new() -> Listpack {
        let mut lp = Listpack { buf: vec![0; HDR_SIZE + 1] };
        lp.buf[HDR_SIZE] = EOF;
        lp.set_total();
        lp
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

    /// The encoding + data size of the entry at `p` (`lpCurrentEncodedSizeUnsafe()`).
    fn encoded_size(&self, p: usize) -> usize {
        let b = self.buf[p];
        if b & 0x80 == 0 {
            1
        } else if b & 0xC0 == 0x80 {
            1 + (b & 0x3f) as usize
        } else if b & 0xE0 == 0xC0 {
            2
        } else if b & 0xF0 == 0xE0 {
            2 + (((b & 0x0f) as usize) << 8 | self.buf[p + 1] as usize)
        } else {
            match b {
                0xF1 => 3,
                0xF2 => 4,
                0xF3 => 5,
                0xF4 => 9,
                0xF0 => {
                    5 + u32::from_le_bytes([self.buf[p + 1], self.buf[p + 2], self.buf[p + 3], self.buf[p + 4]])
                        as usize
                }
                _ => 1,
            }
        }
    }

    /// Bytes of the whole entry at `p`, backlen included.
    fn entry_len(&self, p: usize) -> usize {
        let l = self.encoded_size(p);
        l + backlen_size(l)
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
        let mut q = p - 1;
        let mut val = 0usize;
        let mut shift = 0;
        loop {
            val |= ((self.buf[q] & 127) as usize) << shift;
            if self.buf[q] & 128 == 0 {
                break;
            }
            shift += 7;
            q -= 1;
        }
        Some(q - val)
    }

    /// `lpGet()`.
    pub fn get(&self, p: usize) -> LpValue<'_> {
        let b = &self.buf[p..];
        let sign = |u: u64, bits: u32| -> i64 {
            if u >= 1 << (bits - 1) {
                (u as i64) - (1i64 << bits)
            } else {
                u as i64
            }
        };
        let c = b[0];
        if c & 0x80 == 0 {
            LpValue::Int((c & 0x7f) as i64)
        } else if c & 0xC0 == 0x80 {
            let len = (c & 0x3f) as usize;
            LpValue::Str(&b[1..1 + len])
        } else if c & 0xE0 == 0xC0 {
            LpValue::Int(sign(((c & 0x1f) as u64) << 8 | b[1] as u64, 13))
        } else if c & 0xF0 == 0xE0 {
            let len = ((c & 0x0f) as usize) << 8 | b[1] as usize;
            LpValue::Str(&b[2..2 + len])
        } else {
            match c {
                0xF1 => LpValue::Int(sign(u16::from_le_bytes([b[1], b[2]]) as u64, 16)),
                0xF2 => LpValue::Int(sign(b[1] as u64 | (b[2] as u64) << 8 | (b[3] as u64) << 16, 24)),
                0xF3 => LpValue::Int(i32::from_le_bytes([b[1], b[2], b[3], b[4]]) as i64),
                0xF4 => LpValue::Int(i64::from_le_bytes([b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8]])),
                _ => {
                    let len = u32::from_le_bytes([b[1], b[2], b[3], b[4]]) as usize;
                    LpValue::Str(&b[5..5 + len])
                }
            }
        }
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
        let l = enc.len();
        encode_backlen(l, &mut enc);
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
        let l = enc.len();
        encode_backlen(l, &mut enc);
        self.buf.splice(p..p + old, enc);
        self.set_total();
    }

    /// The elements in order (for tests and debugging).
    pub fn elements(&self) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut p = self.first();
        while let Some(q) = p {
            out.push(self.get(q).to_vec());
            p = self.next(q);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            back.push(lp.get(q).to_vec());
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
