//! Strings as sds.c sizes them, on the allocator it sizes itself by: jemalloc's size classes
//! (Debian's build, 16-byte quantum), sds headers by length (`sdsReqType()`), the capacity
//! `sdsnewlen()`/`sdsMakeRoomFor()` record (7.0 takes jemalloc's usable size), greedy growth and
//! `trimStringObjectIfNeeded()`. Pure arithmetic: memory.rs builds the used_memory model on it
//! and object.rs asks it how much room a fresh argument keeps. Facts: docs/redis-facts.md §2.

/// jemalloc's size class for an allocation of `n` bytes (Debian build, 16-byte quantum).
/// The classes: 8, 16, then multiples of 16 up to 128, then four per power of two (160, 192,
/// 224, 256, 320…), computed rather than searched — the memory model asks after every write.
pub fn size_class(n: usize) -> usize {
    match n {
        0 => 0,
        1..=8 => 8,
        9..=128 => n.next_multiple_of(16),
        // Past what jemalloc has classes for on 64 bits: the size itself.
        _ if n > usize::MAX / 8 => n,
        _ => {
            // The largest power of two below n, in quarters.
            let step = (1usize << (usize::BITS - 1 - (n - 1).leading_zeros())) / 4;
            n.next_multiple_of(step)
        }
    }
}

/// sds.c `sdsReqType()` header size for a string of `len` bytes (type 5 for short ones, except
/// the empty string, which sdsnewlen makes type 8).
pub fn sds_header(len: usize) -> usize {
    if len == 0 {
        3
    } else if len < 32 {
        1
    } else if len < 256 {
        3
    } else if len < 65536 {
        5
    } else if (len as u64) < (1u64 << 32) {
        9
    } else {
        17
    }
}

/// The allocation of an sds holding `len` bytes created exactly (sdsnewlen).
pub fn sds_alloc(len: usize) -> usize {
    size_class(sds_header(len) + len + 1)
}

/// The length sds.c `sdsMakeRoomFor()` asks for when an sds grows to `newlen` bytes: double it
/// below 1 MB (SDS_MAX_PREALLOC), else add 1 MB.
pub fn sds_greedy_room(newlen: usize) -> usize {
    if newlen < 1024 * 1024 {
        newlen * 2
    } else {
        newlen + 1024 * 1024
    }
}

/// The allocation of a grown sds with `room` bytes of capacity (never type 5).
pub fn sds_grown_alloc(room: usize) -> usize {
    let hdr = sds_header(room).max(3);
    size_class(hdr + room + 1)
}

/// sds.c `sdsTypeMaxSize()` of the type `sdsReqType()` picks for `len` (type 5 counted as 8).
fn sds_type_max(len: usize) -> usize {
    if len < 256 {
        255
    } else if len < 65536 {
        65535
    } else if (len as u64) < (1u64 << 32) {
        u32::MAX as usize
    } else {
        usize::MAX
    }
}

/// The `alloc` field sds.c records for an sds asked to hold `len` bytes (not type 5): 7.0's
/// sdsnewlen/sdsMakeRoomFor take jemalloc's usable size, minus header and terminator, capped at
/// the type's maximum — so a string may grow into its size class's slack without a realloc.
fn sds_usable(len: usize) -> usize {
    let hdr = sds_header(len).max(3);
    (size_class(hdr + len + 1) - hdr - 1).min(sds_type_max(len))
}

/// The capacity of a raw string's sds: `room` when it grew (or was trimmed to its length), else
/// what sdsnewlen gave it (an sds under 32 bytes is type 5, which records no spare room).
pub fn sds_capacity(len: usize, room: usize) -> usize {
    if room >= len && room > 0 {
        room
    } else if len > 0 && len < 32 {
        len
    } else {
        sds_usable(len)
    }
}

/// The room of a raw string made from a command argument: object.c `tryObjectEncoding()` ends
/// with `trimStringObjectIfNeeded()`, which drops the spare capacity sdsnewlen gave it when that
/// is more than a tenth of its length (`sdsRemoveFreeSpace()`: `alloc` = length, same size
/// class). Returns the length then, else 0 (the untouched sdsnewlen capacity).
pub fn sds_trimmed_room(len: usize) -> usize {
    if len >= 32 && sds_usable(len) - len > len / 10 {
        len
    } else {
        0
    }
}

/// sds.c `sdsMakeRoomFor()` (greedy) for a raw string of `len` bytes and spare `room` that is
/// to hold `newlen`: the same room if it already fits, else the new capacity (double `newlen`
/// below 1 MB, `newlen` + 1 MB above, rounded up to the size class).
pub fn sds_make_room_for(len: usize, room: usize, newlen: usize) -> usize {
    let capacity = sds_capacity(len, room);
    if capacity < newlen {
        sds_usable(sds_greedy_room(newlen))
    } else if room == 0 && len > 0 && len < 32 {
        0 // a type-5 sds that didn't need to grow stays as it is
    } else {
        capacity
    }
}

#[cfg(test)]
mod tests {
    use super::size_class;

    /// The classes as jemalloc lists them (a table up to 20 KiB, then four per power of two),
    /// searched one by one: what `size_class` computes.
    fn listed(n: usize) -> usize {
        const SMALL: &[usize] = &[
            8, 16, 32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768, 896, 1024, 1280,
            1536, 1792, 2048, 2560, 3072, 3584, 4096, 5120, 6144, 7168, 8192, 10240, 12288, 14336, 16384, 20480,
        ];
        if n == 0 {
            return 0;
        }
        if let Some(&c) = SMALL.iter().find(|&&c| c >= n) {
            return c;
        }
        let mut base = 16384usize;
        loop {
            for k in 1..=4 {
                if base + k * base / 4 >= n {
                    return base + k * base / 4;
                }
            }
            base *= 2;
            if base > usize::MAX / 8 {
                return n;
            }
        }
    }

    #[test]
    fn size_class_matches_the_listed_classes() {
        for n in 0..70_000 {
            assert_eq!(size_class(n), listed(n), "{n}");
        }
        for shift in 16..usize::BITS {
            for n in [(1usize << shift) - 1, 1 << shift, (1 << shift) + 1, (1 << shift) + (1 << (shift - 2)) + 1] {
                assert_eq!(size_class(n), listed(n), "{n}");
            }
        }
        assert_eq!(size_class(usize::MAX), usize::MAX);
    }
}
