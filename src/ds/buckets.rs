//! The shape of a dict.c hash table, kept beside an insertion-ordered map: which entries share a
//! bucket, how many buckets there are, and in what order a cursor meets them. Models dict.c
//! `_dictExpandIfNeeded()` (grow to the next power of two ≥ used+1 once used ≥ size, starting at
//! DICT_HT_INITIAL_SIZE 4), `dictResize()` as `tryResizeHashTables()` calls it from cron (shrink
//! when under 10% full), `dictAdd()`'s insertion at the head of the chain, and the bucket walks
//! of `activeExpireCycle()` and `dictGetRandomKey()`/`dictGetSomeKeys()`.
//!
//! Entries are identified by their index in the owning `IndexMap`; the owner reports appends
//! and swap-removals so the chains stay in step. Differences from Redis: the hash function is
//! ours (seeded; Redis's is SipHash with a random per-process key, so which keys share a bucket
//! differs anyway); a resize happens at once instead of incrementally (no second table while
//! rehashing), so a cursor never sees two tables.

pub const NIL: u32 = u32::MAX;
/// dict.h DICT_HT_INITIAL_SIZE.
pub const INITIAL_SIZE: usize = 4;
/// server.h HASHTABLE_MIN_FILL: shrink when fewer than 10% of the buckets would be used.
pub const MIN_FILL_PERCENT: usize = 10;

#[derive(Debug, Clone, Default)]
pub struct Buckets {
    /// First entry of each bucket's chain; empty until the first insert.
    head: Vec<u32>,
    /// The next entry in each entry's chain. Singly linked, as dict.c's: unlinking walks the
    /// chain from its head (a chain averages under one entry, the table grows at one per
    /// bucket), and a key costs 4 bytes less than with back links.
    next: Vec<u32>,
    /// The low 32 bits of each entry's hash: all a table of up to 2³² buckets masks with
    /// (indices are u32 anyway), at half the bytes per key.
    hash: Vec<u32>,
    seed: u64,
}

/// A seeded 64-bit hash of the key bytes (FNV-1a, then a splitmix finaliser).
pub fn hash_bytes(seed: u64, key: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for &b in key {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

impl Buckets {
    pub fn new(seed: u64) -> Buckets {
        Buckets { seed, ..Default::default() }
    }

    /// Number of buckets (0 before the first insert, else a power of two ≥ 4).
    pub fn size(&self) -> usize {
        self.head.len()
    }

    pub fn len(&self) -> usize {
        self.hash.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hash.is_empty()
    }

    fn mask(&self) -> u64 {
        (self.head.len() as u64).wrapping_sub(1)
    }

    fn bucket_of(&self, i: u32) -> usize {
        (self.hash[i as usize] as u64 & self.mask()) as usize
    }

    fn link_at_head(&mut self, i: u32) {
        let b = self.bucket_of(i);
        self.next[i as usize] = self.head[b];
        self.head[b] = i;
    }

    /// Points whatever links to entry `i` (its bucket's head or its predecessor in the chain)
    /// at `to` instead.
    fn relink(&mut self, i: u32, to: u32) {
        let b = self.bucket_of(i);
        if self.head[b] == i {
            self.head[b] = to;
            return;
        }
        let mut p = self.head[b];
        while p != NIL {
            let n = self.next[p as usize];
            if n == i {
                self.next[p as usize] = to;
                return;
            }
            p = n;
        }
        debug_assert!(false, "entry {i} is in no chain");
    }

    fn unlink(&mut self, i: u32) {
        self.relink(i, self.next[i as usize]);
    }

    /// Rebuilds the chains for `size` buckets, moving entries bucket by bucket and pushing each
    /// at the head of its new chain, as a rehash does.
    fn rehash(&mut self, size: usize) {
        let old_heads = std::mem::replace(&mut self.head, vec![NIL; size]);
        // Relinking `i` rewrites only its own `next` (read first); the old chains
        // are walked by `next` alone, so they need no copy.
        for mut i in old_heads {
            while i != NIL {
                let n = self.next[i as usize];
                self.link_at_head(i);
                i = n;
            }
        }
    }

    /// An entry was appended to the map at index `len()` with this key.
    pub fn push(&mut self, key: &[u8]) {
        let used = self.hash.len();
        if self.head.is_empty() {
            self.head = vec![NIL; INITIAL_SIZE];
        } else if used >= self.head.len() {
            let size = (used + 1).next_power_of_two();
            self.rehash(size);
        }
        let i = used as u32;
        self.hash.push(hash_bytes(self.seed, key) as u32);
        self.next.push(NIL);
        self.link_at_head(i);
    }

    /// The map swap-removed index `i`: its last entry (if any other) moved into `i`.
    pub fn swap_remove(&mut self, i: usize) {
        let last = self.hash.len() - 1;
        self.unlink(i as u32);
        if i != last {
            // Move `last` into slot `i`: what linked to it links to `i`, in the same place.
            self.relink(last as u32, i as u32);
            self.hash[i] = self.hash[last];
            self.next[i] = self.next[last];
        }
        self.hash.pop();
        self.next.pop();
    }

    pub fn clear(&mut self) {
        self.head.clear();
        self.next.clear();
        self.hash.clear();
    }

    /// server.c `htNeedsResize()`.
    pub fn needs_shrink(&self) -> bool {
        let (size, used) = (self.head.len(), self.hash.len());
        size > INITIAL_SIZE && used * 100 / size < MIN_FILL_PERCENT
    }

    /// server.c `htNeedsResize()` + dict.c `dictResize()`: shrink to the smallest power of two
    /// holding the entries (at least 4) when fewer than 10% of the buckets are used. True if it
    /// resized.
    pub fn shrink_if_needed(&mut self) -> bool {
        let (size, used) = (self.head.len(), self.hash.len());
        if size > INITIAL_SIZE && used * 100 / size < MIN_FILL_PERCENT {
            let target = used.max(INITIAL_SIZE).next_power_of_two();
            if target < size {
                self.rehash(target);
                return true;
            }
        }
        false
    }

    /// Map indices in bucket `b`'s chain, head first.
    pub fn chain(&self, b: usize) -> ChainIter<'_> {
        ChainIter { buckets: self, at: self.head.get(b).copied().unwrap_or(NIL) }
    }

    /// The bucket entry `i` of the map sits in.
    pub fn bucket_of_index(&self, i: usize) -> usize {
        self.hash.get(i).map_or(0, |&h| (h as u64 & self.mask()) as usize)
    }

    /// The bucket a cursor value points at (`cursor & mask`).
    pub fn bucket_for_cursor(&self, cursor: u64) -> usize {
        (cursor & self.mask()) as usize
    }

    /// dict.c `dictGetRandomKey()`: a random non-empty bucket, then a random entry of its
    /// chain (so entries in long chains are picked less often, as in Redis). `draw(n)` returns
    /// a uniform index below n.
    pub fn random_entry(&self, mut draw: impl FnMut(usize) -> usize) -> Option<u32> {
        if self.hash.is_empty() {
            return None;
        }
        let b = loop {
            let b = draw(self.head.len());
            if self.head[b] != NIL {
                break b;
            }
        };
        let len = self.chain(b).count();
        self.chain(b).nth(draw(len))
    }

    /// dict.c `dictGetSomeKeys()`: up to `count` entries from consecutive buckets starting at a
    /// random one, whole chains at a time, jumping elsewhere after 5 empty buckets in a row, and
    /// giving up after `count × 10` steps.
    pub fn some_entries(&self, count: usize, mut draw: impl FnMut(usize) -> usize) -> Vec<u32> {
        let mut out = Vec::new();
        let count = count.min(self.hash.len());
        if count == 0 {
            return out;
        }
        let mask = self.head.len() - 1;
        let mut i = draw(self.head.len());
        let mut empty_len = 0;
        let mut max_steps = count * 10;
        while out.len() < count && max_steps > 0 {
            max_steps -= 1;
            if self.head[i] == NIL {
                empty_len += 1;
                if empty_len >= 5 && empty_len > count {
                    i = draw(self.head.len());
                    empty_len = 0;
                }
            } else {
                empty_len = 0;
                for e in self.chain(i) {
                    out.push(e);
                    if out.len() == count {
                        return out;
                    }
                }
            }
            i = (i + 1) & mask;
        }
        out
    }
}

impl Buckets {
    /// Checks that the chains hold exactly the entries `0..len` and that entry `i` hashes
    /// like `keys[i]` (for tests).
    pub fn check<'a>(&self, keys: impl Iterator<Item = &'a [u8]>) -> Result<(), String> {
        let mut seen = vec![false; self.len()];
        for b in 0..self.size() {
            for i in self.chain(b) {
                if self.bucket_of(i) != b || std::mem::replace(&mut seen[i as usize], true) {
                    return Err(format!("entry {i} misplaced or twice"));
                }
            }
        }
        if seen.iter().any(|s| !s) {
            return Err("an entry is in no chain".into());
        }
        for (i, k) in keys.enumerate() {
            if self.hash.get(i) != Some(&(hash_bytes(self.seed, k) as u32)) {
                return Err(format!("entry {i} has another key's hash"));
            }
        }
        Ok(())
    }
}

pub struct ChainIter<'a> {
    buckets: &'a Buckets,
    at: u32,
}

impl Iterator for ChainIter<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.at == NIL {
            return None;
        }
        let i = self.at;
        self.at = self.buckets.next[i as usize];
        Some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_entries(b: &Buckets) -> Vec<u32> {
        let mut v: Vec<u32> = (0..b.size()).flat_map(|i| b.chain(i).collect::<Vec<_>>()).collect();
        v.sort();
        v
    }

    #[test]
    fn grows_like_dict_and_tracks_swap_removes() {
        let mut b = Buckets::new(7);
        for i in 0..4 {
            b.push(format!("k{i}").as_bytes());
        }
        assert_eq!(b.size(), 4);
        b.push(b"k4");
        assert_eq!(b.size(), 8);
        for i in 5..100 {
            b.push(format!("k{i}").as_bytes());
        }
        assert_eq!(b.size(), 128);
        assert_eq!(all_entries(&b), (0..100).collect::<Vec<_>>());
        for i in (0..100).step_by(3).rev() {
            b.swap_remove(i);
        }
        assert_eq!(all_entries(&b), (0..b.len() as u32).collect::<Vec<_>>());
        while b.len() > 5 {
            b.swap_remove(0);
        }
        assert!(b.shrink_if_needed());
        assert_eq!(b.size(), 8);
        assert_eq!(all_entries(&b), (0..5).collect::<Vec<_>>());
    }

    #[test]
    fn random_and_sampled_entries_exist() {
        let mut b = Buckets::new(1);
        for i in 0..1000 {
            b.push(format!("key:{i}").as_bytes());
        }
        let mut x = 12345usize;
        let mut draw = |n: usize| {
            x = x.wrapping_mul(1103515245).wrapping_add(12345);
            (x >> 8) % n
        };
        for _ in 0..100 {
            assert!(b.random_entry(&mut draw).unwrap() < 1000);
        }
        let some = b.some_entries(5, &mut draw);
        assert_eq!(some.len(), 5);
    }
}
