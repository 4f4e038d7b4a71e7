//! A sorted set of integers with one width for all of them: models intset.c (`intsetAdd`,
//! `intsetRemove`, `intsetFind`, `intsetUpgradeAndAdd`, `intsetBlobLen`).
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
    }
}
