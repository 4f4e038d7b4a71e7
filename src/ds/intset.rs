//! A sorted set of integers with one width for all of them: models intset.c (`intsetAdd`,
//! `intsetRemove`, `intsetFind`, `intsetUpgradeAndAdd`, `intsetBlobLen`, and the blob DUMP
//! writes and `intsetValidateIntegrity()` checks).
//!
//! Members are kept ascending (which is why SMEMBERS of an intset is sorted) and the width
//! (2, 4 or 8 bytes) grows to fit the widest member; it never shrinks. Differences: values are
//! stored as `i64` in a `Vec`; only the width is modelled, for the memory numbers.

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Intset {
    width: u8,
    items: Vec<i64>,
}

/// intset.c `_intsetValueEncoding()`.
pub fn value_width(v: i64) -> u8 {
    if v >= i16::MIN as i64 && v <= i16::MAX as i64 {
        2
    } else if v >= i32::MIN as i64 && v <= i32::MAX as i64 {
        4
    } else {
        8
    }
}

impl Intset {
    pub fn new() -> Intset {
        Intset { width: 2, items: Vec::new() }
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn width(&self) -> u8 {
        self.width.max(2)
    }
    pub fn contains(&self, v: i64) -> bool {
        self.items.binary_search(&v).is_ok()
    }
    /// Adds `v`; false if it was already there.
    pub fn add(&mut self, v: i64) -> bool {
        match self.items.binary_search(&v) {
            Ok(_) => false,
            Err(pos) => {
                self.width = self.width().max(value_width(v));
                self.items.insert(pos, v);
                true
            }
        }
    }
    pub fn remove(&mut self, v: i64) -> bool {
        match self.items.binary_search(&v) {
            Ok(pos) => {
                self.items.remove(pos);
                true
            }
            Err(_) => false,
        }
    }
    pub fn get(&self, i: usize) -> Option<i64> {
        self.items.get(i).copied()
    }
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = i64> + '_ {
        self.items.iter().copied()
    }
    /// Removes and returns the member at `i`.
    pub fn remove_at(&mut self, i: usize) -> Option<i64> {
        (i < self.items.len()).then(|| self.items.remove(i))
    }
    /// intset.c `intsetBlobLen()`: 8-byte header + members × width.
    pub fn blob_len(&self) -> usize {
        8 + self.items.len() * self.width() as usize
    }

    /// The intset as Redis lays it out: encoding (the width) and length as u32 LE, then the
    /// members ascending, each `width` bytes LE.
    pub fn to_blob(&self) -> Vec<u8> {
        let w = self.width() as usize;
        let mut out = Vec::with_capacity(self.blob_len());
        out.extend_from_slice(&(w as u32).to_le_bytes());
        out.extend_from_slice(&(self.items.len() as u32).to_le_bytes());
        for v in &self.items {
            out.extend_from_slice(&v.to_le_bytes()[..w]);
        }
        out
    }

    /// intset.c `intsetValidateIntegrity(p, size, deep=1)`: a known width, the size its length
    /// says, not empty, ascending without duplicates. The width is kept even when the members
    /// would fit a narrower one (as Redis keeps the blob).
    pub fn from_blob(p: &[u8]) -> Option<Intset> {
        let u32_at = |i: usize| p.get(i..i + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let w = u32_at(0)? as usize;
        let count = u32_at(4)? as usize;
        if !matches!(w, 2 | 4 | 8) || 8 + count as u64 * w as u64 != p.len() as u64 || count == 0 {
            return None;
        }
        let mut items = Vec::with_capacity(count);
        for c in p[8..].chunks_exact(w) {
            let v = match w {
                2 => i16::from_le_bytes([c[0], c[1]]) as i64,
                4 => i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as i64,
                _ => i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
            };
            if items.last().is_some_and(|&prev| v <= prev) {
                return None;
            }
            items.push(v);
        }
        Some(Intset { width: w as u8, items })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_unique_and_width_only_grows() {
        let mut s = Intset::new();
        assert!(s.add(5) && s.add(-3) && !s.add(5));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![-3, 5]);
        assert_eq!(s.width(), 2);
        s.add(100_000);
        assert_eq!(s.width(), 4);
        s.remove(100_000);
        assert_eq!(s.width(), 4);
        assert_eq!(s.blob_len(), 8 + 2 * 4);
        assert_eq!(s.to_blob(), b"\x04\x00\x00\x00\x02\x00\x00\x00\xfd\xff\xff\xff\x05\x00\x00\x00");
        assert_eq!(Intset::from_blob(&s.to_blob()), Some(s));
    }

    #[test]
    fn blobs_are_validated() {
        assert!(Intset::from_blob(b"\x02\x00\x00\x00\x00\x00\x00\x00").is_none(), "empty");
        assert!(Intset::from_blob(b"\x03\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00").is_none(), "width");
        assert!(Intset::from_blob(b"\x02\x00\x00\x00\x02\x00\x00\x00\x05\x00\x01\x00").is_none(), "unsorted");
        assert!(Intset::from_blob(b"\x02\x00\x00\x00\x02\x00\x00\x00\x01\x00\x01\x00").is_none(), "duplicate");
        assert!(Intset::from_blob(b"\x02\x00\x00\x00\xff\xff\xff\xff\x01\x00").is_none(), "huge count");
        let wide = Intset::from_blob(b"\x08\x00\x00\x00\x01\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00").unwrap();
        assert_eq!((wide.width(), wide.get(0)), (8, Some(7)));
    }
}
