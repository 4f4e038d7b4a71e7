//! The `used_memory` model: what zmalloc would count on Debian's redis-server 7.0.15 (jemalloc
//! 5.3.0, 16-byte quantum), from REDIS-FACTS §3: size-class-rounded allocations for each key's
//! dictEntry, key sds and value, plus 8 bytes per hash-table bucket.
//!
//! Models object.c `objectComputeSize()` for strings and server.c `bytesToHuman()`.
//! Differences: computed from the keyspace on demand rather than by counting allocations;
//! the startup baseline is the measured `used_memory_startup`; client buffers are not counted.

use crate::engine::Engine;
use crate::object::{StrValue, Value};

/// INFO `used_memory_startup` measured on Debian's 7.0.15 with the default config.
pub const USED_MEMORY_STARTUP: u64 = 876_272;

/// jemalloc's size class for an allocation of `n` bytes (Debian build, 16-byte quantum).
pub fn size_class(n: usize) -> usize {
    const SMALL: &[usize] = &[
        8, 16, 32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768, 896, 1024, 1280, 1536, 1792,
        2048, 2560, 3072, 3584, 4096, 5120, 6144, 7168, 8192, 10240, 12288, 14336, 16384, 20480,
    ];
    if n == 0 {
        return 0;
    }
    if let Some(&c) = SMALL.iter().find(|&&c| c >= n) {
        return c;
    }
    // Above 16 KiB: four classes per power of two.
    let mut base = 16384usize;
    loop {
        let step = base / 4;
        for k in 1..=4 {
            if base + k * step >= n {
                return base + k * step;
            }
        }
        base *= 2;
        if base > usize::MAX / 8 {
            return n;
        }
    }
}

/// sds.c `sdsReqType()` header size for a string of `len` bytes.
pub fn sds_header(len: usize) -> usize {
    if len < 32 {
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

pub fn sds_alloc(len: usize) -> usize {
    size_class(sds_header(len) + len + 1)
}

/// object.c `objectComputeSize()` for a value. Collections are estimated from their
/// element sizes for now (the calibrated per-encoding model comes with eviction).
pub fn value_size(v: &Value) -> usize {
    match v {
        Value::Str(StrValue::Int { .. }) => 16,
        Value::Str(StrValue::Embstr(b)) => size_class(16 + 3 + b.len() + 1),
        Value::Str(StrValue::Raw(b)) => 16 + sds_alloc(b.len()),
        Value::List(l) => 16 + 40 + 40 + size_class(7 + l.iter().map(|e| e.len() + 2).sum::<usize>()),
        Value::Hash(crate::object::Hash::Listpack(v)) => 16 + size_class(7 + v.iter().map(|(f, x)| f.len() + x.len() + 4).sum::<usize>()),
        Value::Hash(crate::object::Hash::Table(m)) => {
            16 + 56 + 8 * buckets(m.len()) + m.iter().map(|(f, x)| 24 + sds_alloc(f.len()) + sds_alloc(x.len())).sum::<usize>()
        }
        Value::Set(crate::object::Set::Intset(i)) => 16 + size_class(i.blob_len()),
        Value::Set(crate::object::Set::Table(m)) => 16 + 56 + 8 * buckets(m.len()) + m.iter().map(|x| 24 + sds_alloc(x.len())).sum::<usize>(),
        Value::Zset(crate::object::Zset::Listpack(v)) => 16 + size_class(7 + v.iter().map(|(m, _)| m.len() + 12).sum::<usize>()),
        Value::Zset(z @ crate::object::Zset::Skiplist { .. }) => {
            16 + 16 + 32 + 56 + 8 * buckets(z.len()) + 640 + z.iter().map(|(m, _)| sds_alloc(m.len()) + 24 + 48).sum::<usize>()
        }
    }
}

/// Hash-table buckets for `n` entries: 0 when empty, else max(4, next power of two ≥ n).
pub fn buckets(n: usize) -> usize {
    if n == 0 {
        0
    } else {
        n.next_power_of_two().max(4)
    }
}

pub fn used_memory(e: &Engine) -> u64 {
    let mut total = USED_MEMORY_STARTUP as usize;
    for db in &e.dbs {
        total += buckets(db.dict.len()) * 8 + buckets(db.expires.len()) * 8;
        total += db.expires.len() * size_class(24);
        for (key, obj) in &db.dict {
            let shared = matches!(obj.value, Value::Str(StrValue::Int { shared: true, .. }));
            total += size_class(24) + sds_alloc(key.len()) + if shared { 0 } else { value_size(&obj.value) };
        }
    }
    total as u64
}

/// server.c `bytesToHuman()`.
pub fn bytes_to_human(n: f64) -> String {
    const UNITS: &[(f64, &str)] = &[
        (1024.0, "K"),
        (1024.0 * 1024.0, "M"),
        (1024.0 * 1024.0 * 1024.0, "G"),
        (1024.0 * 1024.0 * 1024.0 * 1024.0, "T"),
        (1024.0 * 1024.0 * 1024.0 * 1024.0 * 1024.0, "P"),
    ];
    if n < 1024.0 {
        return format!("{}B", n as u64);
    }
    for (i, (div, unit)) in UNITS.iter().enumerate() {
        let next = UNITS.get(i + 1).map(|u| u.0).unwrap_or(f64::INFINITY);
        if n < next {
            return format!("{:.2}{unit}", n / div);
        }
    }
    format!("{}B", n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_sizes_match_memory_usage_on_debian() {
        // MEMORY USAGE = value + key sds + sizeof(dictEntry) 24 (REDIS-FACTS §3.4).
        let usage = |key: &str, v: Value| value_size(&v) + sds_alloc(key.len()) + 24;
        assert_eq!(usage("foo", Value::Str(StrValue::Embstr(b"bar".to_vec()))), 64);
        assert_eq!(usage("n", Value::Str(StrValue::Int { value: 123456, shared: false })), 48);
        assert_eq!(usage(&"k".repeat(34), Value::Str(StrValue::Embstr(vec![b'v'; 44]))), 136);
        assert_eq!(usage("big", Value::Str(StrValue::Raw(vec![b'v'; 45]))), 112);
    }

    #[test]
    fn human_bytes() {
        assert_eq!(bytes_to_human(0.0), "0B");
        assert_eq!(bytes_to_human(939_386.0), "917.37K");
        assert_eq!(bytes_to_human(1_048_576.0), "1.00M");
    }
}
