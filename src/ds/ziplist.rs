//! Reading the two encodings Redis ≤ 6.2 wrote and 7.0 still loads (never writes): models
//! ziplist.c `ziplistValidateIntegrity()` with `zipEntrySafe()` and `ziplistGet()`, and
//! zipmap.c `zipmapValidateIntegrity()` with `zipmapNext()` — always the deep check, as 7.0's
//! rdb.c asks for them.
//!
//! A ziplist is `<bytes: u32 LE> <tail offset: u32 LE> <count: u16 LE> <entry>… <0xFF>`; an entry
//! is the previous entry's length (1 byte, or 0xFE + u32 LE), an encoding (6-, 14- or 32-bit
//! string length; 8/16/24/32/64-bit integer; or a 4-bit immediate 0..12) and its data. A zipmap
//! (Redis ≤ 2.4 hashes) is `<count byte> (<len> field <len> <free byte> value <free bytes>)… <0xFF>`
//! with lengths of 1 byte, or 0xFE + u32 LE.

use super::listpack::Entry;

const HEADER_SIZE: usize = 10;
const END: u8 = 0xFF;
const BIG_PREVLEN: u8 = 254;

/// The length of the encoding header for `encoding` (`zipEncodingLenSize()`; 0 = invalid).
fn encoding_len_size(encoding: u8) -> usize {
    match encoding {
        0xC0 | 0xD0 | 0xF0 | 0xE0 | 0xFE => 1,
        0xF1..=0xFD => 1,
        0x00 => 1,
        0x40 => 2,
        0x80 => 5,
        _ => 0,
    }
}

/// The data length of an integer encoding (`zipIntSize()`).
fn int_size(encoding: u8) -> usize {
    match encoding {
        0xFE => 1,
        0xC0 => 2,
        0xF0 => 3,
        0xD0 => 4,
        0xE0 => 8,
        _ => 0,
    }
}

/// `ziplistValidateIntegrity(zl, size, deep=1)`: returns the entries, or None when the header,
/// an entry, a prevlen, the tail offset or the count is wrong.
pub fn ziplist_entries(zl: &[u8]) -> Option<Vec<Entry<'_>>> {
    let size = zl.len();
    if size < HEADER_SIZE + 1 {
        return None;
    }
    let u32_at = |i: usize| u32::from_le_bytes([zl[i], zl[i + 1], zl[i + 2], zl[i + 3]]) as usize;
    if u32_at(0) != size || zl[size - 1] != END {
        return None;
    }
    let tail = u32_at(4);
    if tail > size - 1 {
        return None;
    }
    let header_count = u16::from_le_bytes([zl[8], zl[9]]);
    let last = (size - 1) as u64; // the END byte: nothing may reach past it
    let mut out = Vec::new();
    let mut p = HEADER_SIZE;
    let mut prev: Option<usize> = None;
    let mut prev_raw = 0u64;
    while zl[p] != END {
        // zipEntrySafe(): every header byte and the whole entry inside the ziplist.
        let prevlensize = if zl[p] < BIG_PREVLEN { 1 } else { 5 };
        if (p + prevlensize) as u64 > last {
            return None;
        }
        let mut encoding = zl[p + prevlensize];
        if encoding < 0xC0 {
            encoding &= 0xC0;
        }
        let lensize = encoding_len_size(encoding);
        if lensize == 0 || (p + prevlensize + lensize) as u64 > last {
            return None;
        }
        let prevlen = if prevlensize == 1 {
            zl[p] as u64
        } else {
            u32::from_le_bytes([zl[p + 1], zl[p + 2], zl[p + 3], zl[p + 4]]) as u64
        };
        let e = p + prevlensize;
        let len = match encoding {
            0x00 => (zl[e] & 0x3F) as u64,
            0x40 => (((zl[e] & 0x3F) as u64) << 8) | zl[e + 1] as u64,
            0x80 => u32::from_be_bytes([zl[e + 1], zl[e + 2], zl[e + 3], zl[e + 4]]) as u64,
            _ => int_size(encoding) as u64,
        };
        let headersize = (prevlensize + lensize) as u64;
        if p as u64 + headersize + len > last {
            return None;
        }
        // The prevlen must point inside, and be the previous entry's real size.
        if prevlen > p as u64 || (p as u64 - prevlen) < HEADER_SIZE as u64 {
            return None;
        }
        if prevlen != prev_raw {
            return None;
        }
        let data = p + headersize as usize;
        let entry = if encoding < 0xC0 {
            Entry::Str(&zl[data..data + len as usize])
        } else {
            let b = &zl[data..data + len as usize];
            Entry::Int(match encoding {
                0xFE => b[0] as i8 as i64,
                0xC0 => i16::from_le_bytes([b[0], b[1]]) as i64,
                0xF0 => (i32::from_le_bytes([0, b[0], b[1], b[2]]) >> 8) as i64,
                0xD0 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64,
                0xE0 => i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
                imm => (imm & 0x0F) as i64 - 1,
            })
        };
        out.push(entry);
        prev_raw = headersize + len;
        prev = Some(p);
        p += prev_raw as usize;
    }
    if p != size - 1 {
        return None;
    }
    if prev.is_some_and(|prev| prev != tail) {
        return None;
    }
    if header_count != u16::MAX && header_count as usize != out.len() {
        return None;
    }
    Some(out)
}

/// `zipmapValidateIntegrity(zm, size, deep=1)` and `zipmapNext()`: the (field, value) pairs,
/// or None when a length reaches outside, the map is empty, or its count byte is wrong.
#[allow(clippy::type_complexity)]
pub fn zipmap_pairs(zm: &[u8]) -> Option<Vec<(&[u8], &[u8])>> {
    let size = zm.len();
    if size < 2 || zm[size - 1] != END {
        return None;
    }
    // OUT_OF_RANGE(p): p < zm + 2 || p > zm + size - 1.
    let in_range = |p: u64| p >= 2 && p <= (size - 1) as u64;
    let len_size = |b: u8| if b < BIG_PREVLEN { 1u64 } else { 5 };
    let decode = |p: usize| -> u64 {
        if zm[p] < BIG_PREVLEN {
            zm[p] as u64
        } else {
            u32::from_le_bytes([zm[p + 1], zm[p + 2], zm[p + 3], zm[p + 4]]) as u64
        }
    };
    let mut out = Vec::new();
    let mut p: u64 = 1;
    while zm[p as usize] != END {
        let s = len_size(zm[p as usize]);
        if !in_range(p + s) {
            return None;
        }
        let flen = decode(p as usize);
        let field_at = p + s;
        p = field_at + flen;
        if !in_range(p) {
            return None;
        }
        let s = len_size(zm[p as usize]);
        if !in_range(p + s) {
            return None;
        }
        let vlen = decode(p as usize);
        p += s;
        let free = zm[p as usize] as u64;
        let value_at = p + 1;
        p = value_at + vlen + free;
        if !in_range(p) {
            return None;
        }
        out.push((
            &zm[field_at as usize..(field_at + flen) as usize],
            &zm[value_at as usize..(value_at + vlen) as usize],
        ));
    }
    if out.is_empty() {
        return None;
    }
    if zm[0] != BIG_PREVLEN && zm[0] as usize != out.len() {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ziplist as ziplist.c writes one (smallest encodings).
    fn ziplist(items: &[Entry]) -> Vec<u8> {
        let mut body = Vec::new();
        let mut prev = 0usize;
        let mut tail = HEADER_SIZE;
        for it in items {
            let start = body.len();
            tail = HEADER_SIZE + start;
            if prev < 254 {
                body.push(prev as u8);
            } else {
                body.push(0xFE);
                body.extend_from_slice(&(prev as u32).to_le_bytes());
            }
            match it {
                Entry::Int(v) if (0..=12).contains(v) => body.push(0xF1 + *v as u8),
                Entry::Int(v) if i8::try_from(*v).is_ok() => body.extend_from_slice(&[0xFE, *v as u8]),
                Entry::Int(v) => {
                    body.push(0xE0);
                    body.extend_from_slice(&v.to_le_bytes());
                }
                Entry::Str(s) if s.len() < 64 => {
                    body.push(s.len() as u8);
                    body.extend_from_slice(s);
                }
                Entry::Str(s) => {
                    body.push(0x40 | (s.len() >> 8) as u8);
                    body.push(s.len() as u8);
                    body.extend_from_slice(s);
                }
            }
            prev = body.len() - start;
        }
        let mut zl = Vec::new();
        zl.extend_from_slice(&((HEADER_SIZE + body.len() + 1) as u32).to_le_bytes());
        zl.extend_from_slice(&(tail as u32).to_le_bytes());
        zl.extend_from_slice(&(items.len() as u16).to_le_bytes());
        zl.extend_from_slice(&body);
        zl.push(END);
        zl
    }

    #[test]
    fn reads_every_encoding() {
        let long = vec![b'y'; 300];
        let items =
            [Entry::Int(0), Entry::Int(12), Entry::Int(-5), Entry::Int(1 << 40), Entry::Str(b"ab"), Entry::Str(&long)];
        let zl = ziplist(&items);
        assert_eq!(ziplist_entries(&zl).unwrap(), items.to_vec());
        // Every truncation and every single-byte change either fails or still parses safely.
        for cut in 0..zl.len() {
            assert!(ziplist_entries(&zl[..cut]).is_none());
        }
        for i in 0..zl.len() {
            for b in [0u8, 0x3F, 0x40, 0x80, 0xC0, 0xFE, 0xFF] {
                let mut bad = zl.clone();
                bad[i] = b;
                let _ = ziplist_entries(&bad);
            }
        }
    }

    #[test]
    fn int24_and_int16_decode_signed() {
        let mut zl = ziplist(&[Entry::Int(7)]);
        // Replace the immediate by a 24-bit -2 (0xFFFFFE) and fix the header.
        zl.truncate(HEADER_SIZE);
        zl.extend_from_slice(&[0, 0xF0, 0xFE, 0xFF, 0xFF, 0xFF]);
        let n = zl.len() as u32;
        zl[..4].copy_from_slice(&n.to_le_bytes());
        assert_eq!(ziplist_entries(&zl).unwrap(), vec![Entry::Int(-2)]);
    }

    #[test]
    fn zipmaps() {
        // 2 pairs: "a" => "1", "bc" => "xyz" with 2 free bytes.
        let zm = b"\x02\x01a\x01\x001\x02bc\x03\x02xyz..\xff";
        assert_eq!(zipmap_pairs(zm).unwrap(), vec![(&b"a"[..], &b"1"[..]), (&b"bc"[..], &b"xyz"[..])]);
        assert!(zipmap_pairs(b"\x00\xff").is_none(), "empty");
        assert!(zipmap_pairs(b"\x05\x01a\x01\x001\xff").is_none(), "wrong count");
        assert!(zipmap_pairs(b"\xfe\x01a\x01\x001\xff").is_some(), "count unknown");
        for cut in 0..zm.len() {
            assert!(zipmap_pairs(&zm[..cut]).is_none());
        }
    }
}
