//! LZF, byte for byte as Redis's copy of liblzf 3.6 (lzf_c.c `lzf_compress()`, lzf_d.c
//! `lzf_decompress()`, lzfP.h with Redis's settings: HLOG 16, VERY_FAST, not ULTRA_FAST,
//! CHECK_INPUT, offsets in the hash table on 64-bit builds), so a value DUMPed here has the bytes
//! redis-server gives it.
//!
//! The compressed stream is a sequence of literal runs (`000LLLLL` + L+1 bytes) and back
//! references (`LLLooooo oooooooo`, or `111ooooo LLLLLLLL oooooooo` for long ones: copy len+2
//! bytes from `offset+1` back). The compressor hashes the next three bytes into a 2¹⁶-slot table
//! of offsets into the input; in VERY_FAST mode only the last two positions of a match are
//! hashed.
//!
//! Redis never clears that table (INIT_HTAB 0: it lives on the stack), so a slot this call has
//! not written yet holds an offset left by an earlier call, read as an offset into the new input.
//! That never changes the output, which is why liblzf allows it: a stale slot is only read for
//! three bytes whose hash no position of this call has written yet, so those three bytes occur
//! nowhere before `ip` except inside the copied part of a match — and a match copies bytes that
//! occur earlier still, down to a first occurrence, which was hashed. So the stale offset points
//! at bytes that differ (or at or past `ip`), and the checks refuse it. `Compressor` keeps its
//! table between calls the same way, only to allocate it once per DUMP.

const HLOG: u32 = 16;
const HSIZE: usize = 1 << HLOG;
const MAX_LIT: usize = 1 << 5;
const MAX_OFF: usize = 1 << 13;
const MAX_REF: usize = (1 << 8) + (1 << 3);

/// The compressor's hash table (`LZF_STATE`), reused between calls as Redis's stack is.
#[derive(Clone)]
pub struct Compressor {
    /// An offset into the input per slot (0 can never match: `ref > in_data`); allocated on
    /// first use.
    table: Vec<u32>,
}

impl Default for Compressor {
    fn default() -> Self {
        Compressor::new()
    }
}

/// lzfP.h `FRST`, `NEXT`, and `IDX` in its VERY_FAST form.
fn frst(input: &[u8], p: usize) -> u32 {
    ((input[p] as u32) << 8) | input[p + 1] as u32
}
fn next(v: u32, input: &[u8], p: usize) -> u32 {
    (v << 8) | input[p + 2] as u32
}
fn idx(h: u32) -> usize {
    ((h >> (3 * 8 - HLOG)).wrapping_sub(h.wrapping_mul(5)) & (HSIZE as u32 - 1)) as usize
}

impl Compressor {
    pub fn new() -> Compressor {
        Compressor { table: Vec::new() }
    }

    fn slot(&self, h: usize) -> usize {
        self.table[h] as usize
    }

    fn set(&mut self, h: usize, pos: usize) {
        self.table[h] = pos as u32;
    }

    /// `lzf_compress(in, in_len, out, out_len)`: the compressed bytes, or None when they would
    /// not fit in `out_len` bytes (Redis then stores the data as it is).
    pub fn compress(&mut self, input: &[u8], out_len: usize) -> Option<Vec<u8>> {
        let in_len = input.len();
        if in_len == 0 || out_len == 0 || in_len > u32::MAX as usize {
            return None;
        }
        if self.table.is_empty() {
            self.table = vec![0; HSIZE];
        }
        // `op` is an index into `out`, which never grows past out_len + 1 (checks come first).
        let mut out = vec![0u8; out_len + 1];
        let mut op: usize = 1; // lit = 0; op++: start a run
        let mut lit: usize = 0;
        let mut ip: usize = 0;
        let mut hval = if in_len >= 2 { frst(input, 0) } else { 0 };
        while in_len > 2 && ip < in_len - 2 {
            hval = next(hval, input, ip);
            let h = idx(hval);
            let r = self.slot(h);
            self.set(h, ip);
            // A stale offset at or past `ip` wraps around and fails the MAX_OFF test.
            let off = ip.wrapping_sub(r).wrapping_sub(1);
            if off < MAX_OFF
                && r > 0
                && input[r + 2] == input[ip + 2]
                && input[r] == input[ip]
                && input[r + 1] == input[ip + 1]
            {
                let mut len: usize = 2;
                let mut maxlen = in_len - ip - len;
                if maxlen > MAX_REF {
                    maxlen = MAX_REF;
                }
                // `op + 3 + 1 >= out_end`, then the exact test.
                if op + 3 + 1 >= out_len && op - usize::from(lit == 0) + 3 + 1 >= out_len {
                    return None;
                }
                out[op - lit - 1] = (lit as u8).wrapping_sub(1); // stop run
                op -= usize::from(lit == 0); // undo run if length is zero
                                             // The unrolled loop compares 16 bytes without checking maxlen, then steps.
                let mut done = false;
                if maxlen > 16 {
                    for _ in 0..16 {
                        len += 1;
                        if input[r + len] != input[ip + len] {
                            done = true;
                            break;
                        }
                    }
                }
                if !done {
                    loop {
                        len += 1;
                        if !(len < maxlen && input[r + len] == input[ip + len]) {
                            break;
                        }
                    }
                }
                len -= 2; // len is now #octets - 1
                ip += 1;
                if len < 7 {
                    out[op] = ((off >> 8) + (len << 5)) as u8;
                    op += 1;
                } else {
                    out[op] = ((off >> 8) + (7 << 5)) as u8;
                    out[op + 1] = (len - 7) as u8;
                    op += 2;
                }
                out[op] = off as u8;
                op += 1;
                lit = 0;
                op += 1; // start run
                ip += len + 1;
                if ip >= in_len - 2 {
                    break;
                }
                // VERY_FAST: hash the two positions before the new ip.
                ip -= 2;
                hval = frst(input, ip);
                hval = next(hval, input, ip);
                self.set(idx(hval), ip);
                ip += 1;
                hval = next(hval, input, ip);
                self.set(idx(hval), ip);
                ip += 1;
            } else {
                // one more literal byte we must copy
                if op >= out_len {
                    return None;
                }
                lit += 1;
                out[op] = input[ip];
                op += 1;
                ip += 1;
                if lit == MAX_LIT {
                    out[op - lit - 1] = (lit - 1) as u8; // stop run
                    lit = 0;
                    op += 1; // start run
                }
            }
        }
        if op + 3 > out_len {
            // at most 3 bytes can be missing here
            return None;
        }
        while ip < in_len {
            lit += 1;
            out[op] = input[ip];
            op += 1;
            ip += 1;
            if lit == MAX_LIT {
                out[op - lit - 1] = (lit - 1) as u8;
                lit = 0;
                op += 1;
                if op > out_len {
                    return None;
                }
            }
        }
        out[op - lit - 1] = (lit as u8).wrapping_sub(1); // end run
        op -= usize::from(lit == 0);
        out.truncate(op);
        Some(out)
    }
}

/// `lzf_compress()` with a fresh (zeroed) table.
pub fn compress(input: &[u8], out_len: usize) -> Option<Vec<u8>> {
    Compressor::new().compress(input, out_len)
}

/// `lzf_decompress(in, in_len, out, out_len)` and Redis's check that exactly `out_len` bytes came
/// out. A declared length of 0 always succeeds (Redis's comparison `!= len` sees the 0 an error
/// returns as success). The caller bounds `out_len` before calling (nothing is allocated beyond
/// what the input can produce: at most 88 bytes per input byte).
pub fn decompress(input: &[u8], out_len: usize) -> Option<Vec<u8>> {
    if out_len == 0 {
        return Some(Vec::new());
    }
    if out_len / 88 > input.len() {
        return None;
    }
    let mut out: Vec<u8> = Vec::with_capacity(out_len);
    let mut ip = 0usize;
    loop {
        let ctrl = *input.get(ip)? as usize;
        ip += 1;
        if ctrl < (1 << 5) {
            let n = ctrl + 1;
            if out.len() + n > out_len || ip + n > input.len() {
                return None;
            }
            out.extend_from_slice(&input[ip..ip + n]);
            ip += n;
        } else {
            let mut len = ctrl >> 5;
            let mut back = (ctrl & 0x1f) << 8;
            if ip >= input.len() {
                return None;
            }
            if len == 7 {
                len += input[ip] as usize;
                ip += 1;
                if ip >= input.len() {
                    return None;
                }
            }
            back += input[ip] as usize;
            ip += 1;
            if out.len() + len + 2 > out_len || back + 1 > out.len() {
                return None;
            }
            let from = out.len() - back - 1;
            for i in 0..len + 2 {
                let b = out[from + i];
                out.push(b);
            }
        }
        if ip >= input.len() {
            break;
        }
    }
    (out.len() == out_len).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_redis_bytes() {
        // DUMP of a 52-byte string of 'a' from redis-server 7.0.15: "\xc3\t4" + these 9 bytes.
        let input = vec![b'a'; 52];
        assert_eq!(compress(&input, 48).unwrap(), b"\x01aa\xe0'\x00\x01aa");
        assert_eq!(decompress(b"\x01aa\xe0'\x00\x01aa", 52).unwrap(), input);
    }

    #[test]
    fn round_trips_and_refuses_what_does_not_fit() {
        let mut x = 7u64;
        let mut c = Compressor::new();
        for round in 0..300 {
            let n = (round * 37) % 2000 + 1;
            let alphabet = 1 + round % 20;
            let data: Vec<u8> = (0..n)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    b'a' + ((x >> 33) % alphabet as u64) as u8
                })
                .collect();
            let fresh = compress(&data, data.len().saturating_sub(4).max(1));
            let reused = c.compress(&data, data.len().saturating_sub(4).max(1));
            assert_eq!(fresh, reused, "a table left over from earlier calls changes nothing");
            for z in [&fresh, &reused].into_iter().flatten() {
                assert!(z.len() <= data.len() - 4);
                assert_eq!(decompress(z, data.len()).as_deref(), Some(&data[..]));
                assert!(decompress(z, data.len() + 1).is_none());
                assert!(decompress(z, data.len() - 1).is_none());
            }
        }
    }

    #[test]
    fn corrupt_input_never_panics() {
        let mut x = 1u64;
        for _ in 0..5000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let n = (x >> 58) as usize;
            let data: Vec<u8> = (0..n).map(|i| (x >> (i % 56)) as u8).collect();
            let _ = decompress(&data, (x >> 40) as usize % 4096);
        }
        assert!(decompress(b"\x01a", 4_000_000_000).is_none(), "a huge length is refused before allocating");
    }
}
