//! HyperLogLog as hyperloglog.c lays it out in a Redis string, byte for byte.
//!
//! Models `MurmurHash64A()` (seed 0xadc83b19), `hllPatLen()`, the dense register macros
//! (`HLL_DENSE_GET_REGISTER`/`HLL_DENSE_SET_REGISTER`), `hllDenseSet()`, `hllSparseToDense()`,
//! `hllSparseSet()` (with its in-place split of ZERO/XZERO/VAL opcodes, the merge of adjacent
//! VALs and the promotions), the register histograms (`hllDenseRegHisto()`,
//! `hllSparseRegHisto()`, `hllRawRegHisto()`), 7.0's estimator `hllCount()` (Ertl's
//! `hllSigma()`/`hllTau()`), `hllMerge()`, `createHLLObject()` and the header checks of
//! `isHLLObjectOrReply()`.
//!
//! The 16-byte header is `HYLL`, an encoding byte (0 dense, 1 sparse), three unused bytes and
//! the cached cardinality, little endian, whose top bit marks it stale. Dense: 16384 6-bit
//! registers packed LSB first (12288 bytes). Sparse: run-length opcodes ZERO `00xxxxxx` (1–64
//! zero registers), XZERO `01xxxxxx yyyyyyyy` (1–16384) and VAL `1vvvvvxx` (value 1–32, run
//! 1–4). A sparse HLL turns dense when a register needs more than 32 or when an update would
//! make it longer than `hll-sparse-max-bytes`.
//!
//! As the oracle runs it: Debian's 7.0.15 carries the CVE-2025-32023 fix, so an opcode that
//! would run past register 16383 makes `hllSparseToDense()`, `hllMerge()` and
//! `hllSparseRegHisto()` report the HLL as corrupt, whatever its kind.
//!
//! The value is the string's bytes (`Vec<u8>`); where C relies on the sds terminator (the
//! byte after the last register, the second byte of a truncated XZERO) a missing byte reads as
//! 0 and is never written. `sdsMakeRoomFor(o->ptr,3)` at the top of `hllSparseSet()` matters
//! only for memory accounting: the caller is told through `SparseSet::room` and models it.
//! Differences: `hllSigma`/`hllTau` stop after 100,000 iterations (they converge in under 70
//! for any input an HLL can hold; the cap only guards against a loop on corrupted data), and
//! `pow(1-x, 2)` is computed as `(1-x)*(1-x)`.

pub const HDR_SIZE: usize = 16;
pub const P: u32 = 14;
pub const Q: u32 = 64 - P;
pub const REGISTERS: usize = 1 << P;
const P_MASK: u64 = (REGISTERS - 1) as u64;
const BITS: usize = 6;
const REGISTER_MAX: u8 = (1 << BITS) - 1;
pub const DENSE_SIZE: usize = HDR_SIZE + (REGISTERS * BITS).div_ceil(8);
pub const DENSE: u8 = 0;
pub const SPARSE: u8 = 1;
const MAX_ENCODING: u8 = 1;
const SPARSE_VAL_MAX_VALUE: u8 = 32;
const SPARSE_VAL_MAX_LEN: usize = 4;
const SPARSE_ZERO_MAX_LEN: usize = 64;
const SPARSE_XZERO_MAX_LEN: usize = 16384;
/// 0.5 / ln(2).
const ALPHA_INF: f64 = 0.721_347_520_444_481_7;
const SEED: u64 = 0xadc8_3b19;

// ---------------------------------------------------------------------------------------------
// Hashing
// ---------------------------------------------------------------------------------------------

/// `MurmurHash64A()`, endian-neutral (words read little endian).
pub fn murmurhash64a(key: &[u8], seed: u64) -> u64 {
    const M: u64 = 0xc6a4_a793_5bd1_e995;
    const R: u32 = 47;
    // C computes `seed ^ (len * m)` with an int len promoted to uint64.
    let mut h = seed ^ (key.len() as u64).wrapping_mul(M);
    let mut chunks = key.chunks_exact(8);
    for c in &mut chunks {
        let mut k = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate() {
            h ^= (b as u64) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}

/// `hllPatLen()`: the register an element hashes to and the length of its `000…1` run
/// (1..=Q+1).
pub fn pat_len(ele: &[u8]) -> (usize, u8) {
    let hash = murmurhash64a(ele, SEED);
    let index = (hash & P_MASK) as usize;
    let rest = (hash >> P) | (1u64 << Q);
    (index, rest.trailing_zeros() as u8 + 1)
}

// ---------------------------------------------------------------------------------------------
// Header
// ---------------------------------------------------------------------------------------------

/// The encoding byte.
pub fn encoding(h: &[u8]) -> u8 {
    h[4]
}

/// `HLL_INVALIDATE_CACHE`.
pub fn invalidate_cache(h: &mut [u8]) {
    h[15] |= 1 << 7;
}

/// The cached cardinality when valid (`HLL_VALID_CACHE`).
pub fn cached_card(h: &[u8]) -> Option<u64> {
    if h[15] & (1 << 7) != 0 {
        return None;
    }
    Some(u64::from_le_bytes([h[8], h[9], h[10], h[11], h[12], h[13], h[14], h[15]]))
}

pub fn set_cached_card(h: &mut [u8], card: u64) {
    h[8..16].copy_from_slice(&card.to_le_bytes());
}

/// `isHLLObjectOrReply()`'s checks on the bytes of a (non-integer) string.
pub fn is_valid_header(h: &[u8]) -> bool {
    h.len() >= HDR_SIZE && &h[..4] == b"HYLL" && h[4] <= MAX_ENCODING && (h[4] != DENSE || h.len() == DENSE_SIZE)
}

/// `createHLLObject()`: a sparse HLL whose registers are all zero (one XZERO of 16384).
pub fn new_sparse() -> Vec<u8> {
    let mut h = vec![0u8; HDR_SIZE];
    h[..4].copy_from_slice(b"HYLL");
    h[4] = SPARSE;
    let mut aux = REGISTERS;
    while aux > 0 {
        let run = aux.min(SPARSE_XZERO_MAX_LEN);
        push_xzero(&mut h, run);
        aux -= run;
    }
    h
}

// ---------------------------------------------------------------------------------------------
// Dense registers
// ---------------------------------------------------------------------------------------------

/// `HLL_DENSE_GET_REGISTER` over the register bytes (after the header).
pub fn dense_get(regs: &[u8], i: usize) -> u8 {
    let byte = i * BITS / 8;
    let fb = (i * BITS) & 7;
    let b0 = regs[byte] as u32;
    let b1 = regs.get(byte + 1).copied().unwrap_or(0) as u32;
    (((b0 >> fb) | (b1 << (8 - fb))) & REGISTER_MAX as u32) as u8
}

/// `HLL_DENSE_SET_REGISTER`.
pub fn dense_set_register(regs: &mut [u8], i: usize, val: u8) {
    let byte = i * BITS / 8;
    let fb = (i * BITS) & 7;
    let v = val as u32;
    regs[byte] &= !((REGISTER_MAX as u32) << fb) as u8;
    regs[byte] |= (v << fb) as u8;
    if let Some(b1) = regs.get_mut(byte + 1) {
        *b1 &= !((REGISTER_MAX as u32) >> (8 - fb)) as u8;
        *b1 |= (v >> (8 - fb)) as u8;
    }
}

/// `hllDenseSet()`: raise register `i` to `count`; true if it changed.
pub fn dense_set(regs: &mut [u8], i: usize, count: u8) -> bool {
    if count > dense_get(regs, i) {
        dense_set_register(regs, i, count);
        true
    } else {
        false
    }
}

// ---------------------------------------------------------------------------------------------
// Sparse opcodes
// ---------------------------------------------------------------------------------------------

fn is_zero(b: u8) -> bool {
    b & 0xc0 == 0
}
fn is_xzero(b: u8) -> bool {
    b & 0xc0 == 0x40
}
fn is_val(b: u8) -> bool {
    b & 0x80 != 0
}
fn zero_len(b: u8) -> usize {
    (b & 0x3f) as usize + 1
}
fn xzero_len(b: u8, b1: u8) -> usize {
    ((((b & 0x3f) as usize) << 8) | b1 as usize) + 1
}
fn val_value(b: u8) -> u8 {
    ((b >> 2) & 0x1f) + 1
}
fn val_len(b: u8) -> usize {
    (b & 0x3) as usize + 1
}
fn val_op(val: u8, len: usize) -> u8 {
    ((val - 1) << 2 | (len as u8 - 1)) | 0x80
}
fn zero_op(len: usize) -> u8 {
    (len - 1) as u8
}
fn push_xzero(out: &mut Vec<u8>, len: usize) {
    let l = len - 1;
    out.push((l >> 8) as u8 | 0x40);
    out.push((l & 0xff) as u8);
}

/// The byte at `i`, or the sds terminator (0) past the end.
fn at(h: &[u8], i: usize) -> u8 {
    h.get(i).copied().unwrap_or(0)
}

/// One opcode of a sparse HLL: (run length, value, bytes).
fn opcode(h: &[u8], p: usize) -> (usize, u8, usize) {
    let b = h[p];
    if is_zero(b) {
        (zero_len(b), 0, 1)
    } else if is_xzero(b) {
        (xzero_len(b, at(h, p + 1)), 0, 2)
    } else {
        (val_len(b), val_value(b), 1)
    }
}

/// `hllSparseToDense()`: the dense form (header copied, encoding set), or `None` if the
/// opcodes don't cover exactly 16384 registers.
pub fn sparse_to_dense(h: &[u8]) -> Option<Vec<u8>> {
    let mut dense = vec![0u8; DENSE_SIZE];
    dense[..HDR_SIZE].copy_from_slice(&h[..HDR_SIZE]);
    dense[4] = DENSE;
    let mut idx = 0usize;
    let mut p = HDR_SIZE;
    while p < h.len() {
        let (run, val, n) = opcode(h, p);
        if run + idx > REGISTERS {
            return None;
        }
        if val > 0 {
            for _ in 0..run {
                dense_set_register(&mut dense[HDR_SIZE..], idx, val);
                idx += 1;
            }
        } else {
            idx += run;
        }
        p += n;
    }
    (idx == REGISTERS).then_some(dense)
}

/// A sparse HLL whose opcodes don't describe exactly 16384 registers (INVALIDOBJ).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Corrupt;

/// What `sparse_set` did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SparseSet {
    /// The register already held at least that value.
    Unchanged,
    /// Updated in place (still sparse).
    Updated,
    /// Promoted to dense, then updated.
    Promoted,
    /// The representation is corrupt.
    Invalid,
}

/// `hllSparseSet()`: raise register `index` to `count` in the sparse HLL `h`. `room` is
/// called with the string's length first whenever C calls `sdsMakeRoomFor(o->ptr,3)`
/// (every call that doesn't promote at once), for the caller's memory model.
pub fn sparse_set(
    h: &mut Vec<u8>,
    index: usize,
    count: u8,
    sparse_max_bytes: usize,
    room: &mut dyn FnMut(usize),
) -> SparseSet {
    if count > SPARSE_VAL_MAX_VALUE {
        return promote(h, index, count);
    }
    room(h.len());
    // Step 1: find the opcode covering `index`.
    let end = h.len();
    let mut p = HDR_SIZE;
    let mut first = 0usize;
    let mut prev: Option<usize> = None;
    let mut span = 0usize;
    while p < end {
        let (run, _, n) = opcode(h, p);
        span = run;
        if index < first + span {
            break;
        }
        prev = Some(p);
        p += n;
        first += span;
    }
    if span == 0 || p >= end {
        return SparseSet::Invalid;
    }
    let b = h[p];
    let (is_z, is_x, is_v) = (is_zero(b), is_xzero(b), is_val(b));
    let runlen = if is_z {
        zero_len(b)
    } else if is_x {
        xzero_len(b, at(h, p + 1))
    } else {
        val_len(b)
    };
    // Cases A and B: a VAL already big enough, or a VAL of one register.
    if is_v {
        if val_value(b) >= count {
            return SparseSet::Unchanged;
        }
        if runlen == 1 {
            h[p] = val_op(count, 1);
            return merge_and_invalidate(h, prev);
        }
    }
    // Case C: a ZERO of one register.
    if is_z && runlen == 1 {
        h[p] = val_op(count, 1);
        return merge_and_invalidate(h, prev);
    }
    // Case D: split the opcode into up to three (XZERO-VAL-XZERO at worst).
    let last = first + span - 1;
    let mut seq: Vec<u8> = Vec::with_capacity(5);
    if is_z || is_x {
        let zeros = |seq: &mut Vec<u8>, len: usize| {
            if len > SPARSE_ZERO_MAX_LEN {
                push_xzero(seq, len);
            } else {
                seq.push(zero_op(len));
            }
        };
        if index != first {
            zeros(&mut seq, index - first);
        }
        seq.push(val_op(count, 1));
        if index != last {
            zeros(&mut seq, last - index);
        }
    } else {
        let curval = val_value(b);
        if index != first {
            seq.push(val_op(curval, index - first));
        }
        seq.push(val_op(count, 1));
        if index != last {
            seq.push(val_op(curval, last - index));
        }
    }
    // Step 3: substitute the new sequence for the old opcode.
    let oldlen = if is_x { 2 } else { 1 };
    if seq.len() > oldlen && h.len() + seq.len() - oldlen > sparse_max_bytes {
        return promote(h, index, count);
    }
    let next = p + oldlen;
    if next <= h.len() {
        h.splice(p..next, seq);
    } else {
        // A truncated final XZERO (its second byte was the terminator): C writes the new
        // sequence at `p` and shortens the string by the difference, cutting it off.
        let new_len = h.len() + seq.len() - oldlen;
        h.truncate(p);
        h.extend_from_slice(&seq);
        h.truncate(new_len);
    }
    merge_and_invalidate(h, prev)
}

/// Step 4 of `hllSparseSet()`: merge adjacent VALs of equal value (scanning up to five
/// opcodes from the one before the change), then mark the cached cardinality stale.
fn merge_and_invalidate(h: &mut Vec<u8>, prev: Option<usize>) -> SparseSet {
    let mut p = prev.unwrap_or(HDR_SIZE);
    let mut scanlen = 5;
    while p < h.len() && scanlen > 0 {
        scanlen -= 1;
        let b = h[p];
        if is_xzero(b) {
            p += 2;
            continue;
        } else if is_zero(b) {
            p += 1;
            continue;
        }
        if p + 1 < h.len() && is_val(h[p + 1]) {
            let (v1, v2) = (val_value(b), val_value(h[p + 1]));
            if v1 == v2 {
                let len = val_len(b) + val_len(h[p + 1]);
                if len <= SPARSE_VAL_MAX_LEN {
                    h[p + 1] = val_op(v1, len);
                    h.remove(p);
                    continue;
                }
            }
        }
        p += 1;
    }
    invalidate_cache(h);
    SparseSet::Updated
}

/// The `promote:` path of `hllSparseSet()`: convert, then set the register densely.
fn promote(h: &mut Vec<u8>, index: usize, count: u8) -> SparseSet {
    match sparse_to_dense(h) {
        Some(mut dense) => {
            dense_set(&mut dense[HDR_SIZE..], index, count);
            *h = dense;
            SparseSet::Promoted
        }
        None => SparseSet::Invalid,
    }
}

/// `hllAdd()`: add an element to a sparse or dense HLL. `Ok(true)` if a register changed.
pub fn add(h: &mut Vec<u8>, ele: &[u8], sparse_max_bytes: usize, room: &mut dyn FnMut(usize)) -> Result<bool, Corrupt> {
    let (index, count) = pat_len(ele);
    match encoding(h) {
        DENSE => Ok(dense_set(&mut h[HDR_SIZE..], index, count)),
        SPARSE => match sparse_set(h, index, count, sparse_max_bytes, room) {
            SparseSet::Invalid => Err(Corrupt),
            SparseSet::Unchanged => Ok(false),
            _ => Ok(true),
        },
        _ => Err(Corrupt),
    }
}

// ---------------------------------------------------------------------------------------------
// Counting and merging
// ---------------------------------------------------------------------------------------------

/// `hllSigma()`.
fn sigma(mut x: f64) -> f64 {
    if x == 1.0 {
        return f64::INFINITY;
    }
    let mut y = 1.0;
    let mut z = x;
    for _ in 0..100_000 {
        x *= x;
        let z_prime = z;
        z += x * y;
        y += y;
        if z_prime == z {
            break;
        }
    }
    z
}

/// `hllTau()`.
fn tau(mut x: f64) -> f64 {
    if x == 0.0 || x == 1.0 {
        return 0.0;
    }
    let mut y = 1.0;
    let mut z = 1.0 - x;
    for _ in 0..100_000 {
        x = x.sqrt();
        let z_prime = z;
        y *= 0.5;
        z -= (1.0 - x) * (1.0 - x) * y;
        if z_prime == z {
            break;
        }
    }
    z / 3.0
}

/// The estimator of `hllCount()` over a register histogram.
fn estimate(reghisto: &[i64; 64]) -> u64 {
    let m = REGISTERS as f64;
    let mut z = m * tau((m - reghisto[Q as usize + 1] as f64) / m);
    for j in (1..=Q as usize).rev() {
        z += reghisto[j] as f64;
        z *= 0.5;
    }
    z += m * sigma(reghisto[0] as f64 / m);
    // llroundl(): half away from zero, as f64::round.
    (ALPHA_INF * m * m / z).round() as u64
}

/// `hllCount()` of a sparse or dense HLL; `None` if a sparse one is corrupt.
pub fn count(h: &[u8]) -> Option<u64> {
    let mut reghisto = [0i64; 64];
    if encoding(h) == DENSE {
        let regs = &h[HDR_SIZE..];
        for i in 0..REGISTERS {
            reghisto[dense_get(regs, i) as usize] += 1;
        }
    } else {
        let mut idx = 0usize;
        let mut p = HDR_SIZE;
        while p < h.len() {
            let (run, val, n) = opcode(h, p);
            if run + idx > REGISTERS {
                return None;
            }
            idx += run;
            reghisto[val as usize] += run as i64;
            p += n;
        }
        if idx != REGISTERS {
            return None;
        }
    }
    Some(estimate(&reghisto))
}

/// `hllCount()` of the internal raw encoding: one byte per register (PFCOUNT of many keys).
pub fn count_raw(max: &[u8]) -> u64 {
    let mut reghisto = [0i64; 64];
    for &r in max {
        reghisto[r as usize & 63] += 1;
    }
    estimate(&reghisto)
}

/// `hllMerge()`: `max[i] = MAX(max[i], register i)`; `Err` if a sparse HLL is corrupt.
pub fn merge(max: &mut [u8], h: &[u8]) -> Result<(), Corrupt> {
    if encoding(h) == DENSE {
        let regs = &h[HDR_SIZE..];
        for (i, m) in max.iter_mut().enumerate() {
            *m = (*m).max(dense_get(regs, i));
        }
        return Ok(());
    }
    let mut i = 0usize;
    let mut p = HDR_SIZE;
    while p < h.len() {
        let (run, val, n) = opcode(h, p);
        if run + i > REGISTERS {
            return Err(Corrupt);
        }
        for m in &mut max[i..i + run] {
            *m = (*m).max(val);
        }
        i += run;
        p += n;
    }
    if i == REGISTERS {
        Ok(())
    } else {
        Err(Corrupt)
    }
}

/// PFDEBUG DECODE's text: `z:N` (ZERO), `Z:N` (XZERO), `v:V,N` (VAL), space separated.
pub fn decode(h: &[u8]) -> String {
    let mut out = Vec::new();
    let mut p = HDR_SIZE;
    while p < h.len() {
        let b = h[p];
        let (run, val, n) = opcode(h, p);
        out.push(if is_zero(b) {
            format!("z:{run}")
        } else if is_xzero(b) {
            format!("Z:{run}")
        } else {
            format!("v:{val},{run}")
        });
        p += n;
    }
    out.join(" ")
}

/// Every register's value, whatever the encoding (`None` if a sparse HLL is corrupt).
pub fn registers(h: &[u8]) -> Option<Vec<u8>> {
    let dense = if encoding(h) == DENSE { h.to_vec() } else { sparse_to_dense(h)? };
    Some((0..REGISTERS).map(|i| dense_get(&dense[HDR_SIZE..], i)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_room(_: usize) {}

    #[test]
    fn registers_and_runs_are_redis_s() {
        // (register, run) as redis-server 7.0.15 puts them: `PFADD k <e>` then
        // `PFDEBUG DECODE k` prints `Z:<register> v:<run>,1 Z:…` — every tail length of
        // MurmurHash64A's last block, and more than one block.
        let cases: &[(&[u8], usize, u8)] = &[
            (b"a", 12711, 2),
            (b"foo", 7348, 5),
            (b"", 5938, 2),
            (b"redis", 9467, 2),
            (b"hello12", 10449, 1),
            (b"abcdefgh", 1383, 1),
            (b"abcdefghi", 6903, 1),
            (b"0123456789abcdef0", 16236, 1),
        ];
        for &(e, index, run) in cases {
            assert_eq!(pat_len(e), (index, run), "{:?}", String::from_utf8_lossy(e));
        }
        assert_eq!(murmurhash64a(b"", 0), 0);
    }

    #[test]
    fn an_empty_hll_is_one_xzero() {
        let h = new_sparse();
        assert_eq!(h, b"HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff");
        assert_eq!(decode(&h), "Z:16384");
        assert_eq!(count(&h), Some(0));
        assert!(is_valid_header(&h));
    }

    #[test]
    fn sparse_splits_and_merges_opcodes() {
        let mut h = new_sparse();
        assert_eq!(sparse_set(&mut h, 1000, 2, 3000, &mut no_room), SparseSet::Updated);
        assert_eq!(decode(&h), "Z:1000 v:2,1 Z:15383");
        assert_eq!(sparse_set(&mut h, 1020, 3, 3000, &mut no_room), SparseSet::Updated);
        assert_eq!(sparse_set(&mut h, 1021, 3, 3000, &mut no_room), SparseSet::Updated);
        assert_eq!(decode(&h), "Z:1000 v:2,1 z:19 v:3,2 Z:15362");
        assert_eq!(sparse_set(&mut h, 1021, 3, 3000, &mut no_room), SparseSet::Unchanged);
        assert_eq!(sparse_set(&mut h, 1001, 2, 3000, &mut no_room), SparseSet::Updated);
        assert_eq!(decode(&h), "Z:1000 v:2,2 z:18 v:3,2 Z:15362");
        assert_eq!(sparse_set(&mut h, 0, 1, 3000, &mut no_room), SparseSet::Updated);
        assert_eq!(decode(&h), "v:1,1 Z:999 v:2,2 z:18 v:3,2 Z:15362");
        let regs = registers(&h).unwrap();
        assert_eq!((regs[0], regs[1000], regs[1001], regs[1002], regs[1020], regs[1021]), (1, 2, 2, 0, 3, 3));
    }

    #[test]
    fn big_values_and_long_sparse_forms_turn_dense() {
        let mut h = new_sparse();
        assert_eq!(sparse_set(&mut h, 5, 33, 3000, &mut no_room), SparseSet::Promoted);
        assert_eq!(encoding(&h), DENSE);
        assert_eq!(h.len(), DENSE_SIZE);
        assert_eq!(dense_get(&h[HDR_SIZE..], 5), 33);
        let mut h = new_sparse();
        let mut i = 0;
        while encoding(&h) == SPARSE {
            sparse_set(&mut h, i * 3, 1 + (i % 5) as u8, 100, &mut no_room);
            i += 1;
            assert!(h.len() <= 100 || encoding(&h) == DENSE);
        }
        let regs = registers(&h).unwrap();
        for j in 0..i {
            assert_eq!(regs[j * 3], 1 + (j % 5) as u8);
        }
    }

    #[test]
    fn dense_registers_keep_their_neighbours() {
        let mut regs = vec![0u8; DENSE_SIZE - HDR_SIZE];
        let mut x = 12345u64;
        let mut want = vec![0u8; REGISTERS];
        for (i, w) in want.iter_mut().enumerate() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            *w = (x >> 58) as u8;
            dense_set_register(&mut regs, i, *w);
        }
        for (i, w) in want.iter().enumerate() {
            assert_eq!(dense_get(&regs, i), *w, "register {i}");
        }
    }

    #[test]
    fn counts_track_cardinality_and_agree_across_encodings() {
        let mut sparse = new_sparse();
        let mut dense = sparse_to_dense(&sparse).unwrap();
        for n in 1..=20_000u32 {
            let e = format!("element:{n}");
            add(&mut sparse, e.as_bytes(), 3000, &mut no_room).unwrap();
            add(&mut dense, e.as_bytes(), 3000, &mut no_room).unwrap();
            if n == 10 || n == 100 || n == 1000 || n == 20_000 {
                let (a, b) = (count(&sparse).unwrap(), count(&dense).unwrap());
                assert_eq!(a, b, "sparse and dense agree at {n}");
                let err = (a as f64 - n as f64).abs() / n as f64;
                assert!(err < 0.05, "{n}: estimated {a}");
            }
        }
        assert_eq!(registers(&sparse), registers(&dense));
        let mut max = vec![0u8; REGISTERS];
        merge(&mut max, &sparse).unwrap();
        assert_eq!(count_raw(&max), count(&dense).unwrap());
    }

    #[test]
    fn corrupt_sparse_forms_are_reported() {
        let mut h = new_sparse();
        h.truncate(HDR_SIZE + 1);
        assert_eq!(count(&h), None);
        assert_eq!(sparse_to_dense(&h), None);
        assert_eq!(merge(&mut [0u8; REGISTERS], &h), Err(Corrupt));
        let mut short = new_sparse();
        short[HDR_SIZE + 1] = 0; // XZERO of 16129: registers missing
        assert_eq!(sparse_set(&mut short, 16383, 1, 3000, &mut no_room), SparseSet::Invalid);
        let mut over = new_sparse();
        over.extend_from_slice(&[0x80; 3]); // VALs past register 16383
        assert_eq!(count(&over), None);
    }

    #[test]
    fn cached_cardinality_header() {
        let mut h = new_sparse();
        assert_eq!(cached_card(&h), Some(0));
        invalidate_cache(&mut h);
        assert_eq!(cached_card(&h), None);
        set_cached_card(&mut h, 0x0102_0304);
        assert_eq!(cached_card(&h), Some(0x0102_0304));
        assert_eq!(&h[8..12], &[4, 3, 2, 1]);
    }
}
