//! The `used_memory` model: what zmalloc counts on Debian's redis-server 7.0.15 (jemalloc
//! 5.3.0, 16-byte quantum), from docs/redis-facts.md §2 — size-class-rounded allocations for
//! each key's dictEntry, key sds and value, 8 bytes per hash-table bucket, the expires table, a
//! measured startup baseline, a measured cost per connected client and per command's latency
//! histogram — and object.c `objectComputeSize()` for MEMORY USAGE (§2.5), plus server.c
//! `bytesToHuman()`.
//!
//! Values: int/embstr/raw strings (a raw string's sds keeps the spare room sds.c
//! `sdsMakeRoomFor()` reserved when it grew), listpacks sized entry by entry as listpack.c
//! encodes them, intsets by width, quicklists as 8 KB listpack nodes, hashtables as dict +
//! buckets + entries + sds, skiplists as zset + dict + header + one node per member sized by its
//! level, streams as their rax of listpacks (ds/stream.rs). Kept incrementally: each db sums its keys (db.rs) and recomputes a key's value size
//! after a command touched it. Differences: for collections above `EXACT_LIMIT` elements the
//! per-element part is estimated from the first elements (as MEMORY USAGE itself samples), so
//! one write stays O(1); quicklist node boundaries follow a greedy 8 KB packing, not the exact
//! history of pushes and pops; a list of more than 2048 elements is sized from a 64-element
//! sample kept with it and taken again only when its length has moved by 1/64 (an LSET between
//! samples shows at the next one); incremental rehashing (a second table) is not modelled; a string
//! that arrived as a bulk of 32 KB or more is sized as if created exactly, without the 2 spare
//! bytes Redis keeps (§2.2: one class too low when that sits just under a class boundary).

pub use crate::ds::sds::{
    sds_alloc, sds_capacity, sds_greedy_room, sds_grown_alloc, sds_header, sds_make_room_for, sds_trimmed_room,
    size_class,
};
use crate::ds::skiplist::NIL;
use crate::object::{Hash, Set, StrValue, Value, Zset};

/// INFO `used_memory_startup` measured on Debian's 7.0.15 with the default config.
pub const USED_MEMORY_STARTUP: u64 = 876_232;
/// What one connected client adds to used_memory while it runs commands (measured: 914,704 −
/// 876,232 with one client connected; CLIENT LIST `tot-mem=37658` plus its struct).
pub const CLIENT_MEMORY: u64 = 38_472;
/// latency-tracking (on by default in 7.0) gives every command an hdr_histogram the first time it
/// is called; CONFIG RESETSTAT frees them. Measured: the first INFO, SET or DEL each add 24,688
/// bytes to used_memory.
pub const LATENCY_HISTOGRAM: u64 = 24_688;
/// Elements counted exactly in a collection's size; beyond, the rest is estimated from them.
pub const EXACT_LIMIT: usize = 128;

// struct sizes (64-bit, 7.0)
pub const SIZEOF_ROBJ: usize = 16;
pub const SIZEOF_DICT: usize = 56;
pub const SIZEOF_DICT_ENTRY: usize = 24;
pub const SIZEOF_QUICKLIST: usize = 40;
pub const SIZEOF_QUICKLIST_NODE: usize = 40;
pub const SIZEOF_ZSET: usize = 16;
pub const SIZEOF_ZSKIPLIST: usize = 32;
/// 24 + 16 × ZSKIPLIST_MAXLEVEL (32): the skiplist header node.
pub const SIZEOF_ZSL_HEADER: usize = 24 + 16 * 32;

/// The j-th of a fixed pseudo-random sequence of positions below `len`.
fn scatter(j: usize, len: usize) -> usize {
    ((j as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17) % len.max(1) as u64) as usize
}

/// Bytes of one listpack entry holding `e` (listpack.c `lpEncodeGetType()` + backlen).
pub fn lp_entry_size(e: &[u8]) -> usize {
    crate::ds::listpack::entry_size(e)
}

/// A score as a listpack stores it (t_zset.c `zzlInsertAt()`): integers as `double2ll()`
/// allows, others as `d2string()` text.
pub fn lp_score_size(score: f64) -> usize {
    match crate::zset::double2ll(score) {
        Some(v) => crate::ds::listpack::int_entry_size(v),
        None => lp_entry_size(crate::zset::d2string(score).as_bytes()),
    }
}

/// listpack header (6) + entries + end byte.
fn lp_bytes(entries: usize) -> usize {
    6 + entries + 1
}

/// Σ f(i) over a collection of `len` elements: exact up to EXACT_LIMIT, else from
/// EXACT_LIMIT/4 evenly spaced elements, extrapolated.
fn estimate(len: usize, f: impl Fn(usize) -> usize) -> usize {
    if len <= EXACT_LIMIT {
        return (0..len).map(f).sum();
    }
    let k = EXACT_LIMIT / 4;
    let sum: usize = (0..k).map(|j| f(j * len / k)).sum();
    (sum as f64 / k as f64 * len as f64) as usize
}

/// The buckets a value's dict holds while it is still being rehashed incrementally: after the
/// table doubled from S to 2S buckets at the (S+1)th entry, both tables exist until every
/// non-empty old bucket (about 63% of S with S entries hashed into S buckets) has moved, one per
/// dict call — `calls_per_add` of them for each element added (dict.c `_dictRehashStep()`).
/// Modelled from the element count alone (as if the value was built by adds only).
pub fn dict_slots(n: usize, calls_per_add: usize) -> usize {
    let size = buckets(n);
    // Small dicts were usually made whole by a listpack/intset conversion (`dictExpand` to the
    // final size): no second table.
    if size <= 1024 {
        return size;
    }
    dict_slots_grown(n, calls_per_add)
}

/// `dict_slots` for a dict that grew from the initial 4 buckets by adds alone (a set whose
/// first member was not an integer was a hashtable from the start): every doubling leaves the
/// old table until its non-empty buckets have moved. Measured on 7.0.15 with MEMORY USAGE …
/// SAMPLES 0 of sets of 5 to 1500 members `m0`, `m1`…: the second table is there at 5, 6, 9,
/// 12, 17, 33, 65, 100, 129, 300, 513, 700 members, gone at 8, 64, 1025, 1500.
pub fn dict_slots_grown(n: usize, calls_per_add: usize) -> usize {
    let size = buckets(n);
    if size <= 4 {
        return size;
    }
    let old = size / 2;
    let adds_since = n - old;
    let old_nonempty = (old as f64 * (1.0 - (-1.0f64).exp())).ceil() as usize;
    if adds_since * calls_per_add < old_nonempty {
        size + old
    } else {
        size
    }
}

/// The buckets of a hashtable set's dict. A set becomes a hashtable when an intset meets a
/// string member (converted at the size it had: `dictExpand()` to it, t_set.c
/// `setTypeConvert()`), when it outgrows set-max-intset-entries (converted at 513), or at its
/// creation with a string member (4 buckets); from then on it grows by adds, each doubling
/// leaving the old table until rehashed (`dict_slots_grown`). The conversion point is read
/// from insertion order: the first string member among the first 513.
fn set_dict_slots(s: &indexmap::IndexSet<Vec<u8>, crate::ds::map::Hasher>) -> usize {
    const CONVERTED_BY_SIZE: usize = 513;
    let is_int = |m: &Vec<u8>| m.len() <= 20 && crate::util::string2ll(m).is_some();
    let converted_at = s.iter().take(CONVERTED_BY_SIZE).position(|m| !is_int(m)).unwrap_or(CONVERTED_BY_SIZE);
    if buckets(s.len()) <= buckets(converted_at).max(4) {
        buckets(s.len())
    } else {
        dict_slots_grown(s.len(), 1)
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

/// The listpack byte size of each quicklist node, packed as quicklist.c
/// `_quicklistNodeAllowInsert()` packs pushes at list-max-listpack-size -2: an element joins
/// the node while node bytes + element length + 8 ≤ 8192. Exact up to 2048 elements; longer
/// lists repeat the shape of their first 2048.
pub fn quicklist_nodes(l: &crate::object::List) -> Vec<usize> {
    const LIMIT: usize = 8192;
    const EXACT: usize = 2048;
    if l.len() <= EXACT {
        let mut nodes: Vec<usize> = Vec::new();
        let mut cur = 0usize;
        for e in l.iter() {
            if cur == 0 || cur + e.len() + 8 > LIMIT {
                if cur > 0 {
                    nodes.push(cur);
                }
                cur = 7;
            }
            cur += lp_entry_size(e);
        }
        if cur > 0 {
            nodes.push(cur);
        }
        return nodes;
    }
    let (full, node, rest) = long_list_shape(l);
    let mut nodes = vec![node; full];
    if let Some(rest) = rest {
        nodes.push(rest);
    }
    nodes
}

/// A long list's quicklist as `full` nodes of `node` bytes and maybe a last partial one: the
/// average element, from 64 evenly spaced ones, packed as `quicklist_nodes` packs. The sample
/// is kept with the list and taken again once the length has moved by 1/64 of the length it
/// was taken at (this runs after every write to the list: 64 elements sized each time were half
/// of a pipelined LPUSH's cost); in between, a write that changes elements without changing the
/// length (LSET) shows in the estimate only at the next sample.
fn long_list_shape(l: &crate::object::List) -> (usize, usize, Option<usize>) {
    const LIMIT: usize = 8192;
    let shape = match l.shape() {
        Some(s) if s.len.abs_diff(l.len()) * 64 < s.len => s,
        _ => {
            let k = 64;
            let (mut entry, mut raw) = (0usize, 0usize);
            for j in 0..k {
                let e = &l[j * l.len() / k];
                entry += lp_entry_size(e);
                raw += e.len();
            }
            let s = crate::object::ListShape {
                len: l.len(),
                entry: (entry as f64 / k as f64).max(1.0),
                raw: raw as f64 / k as f64,
            };
            l.set_shape(s);
            s
        }
    };
    let (entry, raw) = (shape.entry, shape.raw);
    let per_node = (((LIMIT as f64 - 8.0 - raw - 7.0) / entry).floor() as usize + 1).max(1);
    let full = l.len() / per_node;
    let rest = l.len() % per_node;
    (full, 7 + (per_node as f64 * entry) as usize, (rest > 0).then(|| 7 + (rest as f64 * entry) as usize))
}

/// The allocations of a list's quicklist nodes: `quicklist_nodes` summed, without building
/// the node list for a long one (this runs after every write to the list).
fn quicklist_alloc(l: &crate::object::List) -> usize {
    let node = |bytes: usize| size_class(SIZEOF_QUICKLIST_NODE) + size_class(bytes);
    if l.len() <= 2048 {
        return quicklist_nodes(l).iter().map(|&b| node(b)).sum();
    }
    let (full, bytes, rest) = long_list_shape(l);
    full * node(bytes) + rest.map_or(0, node)
}

/// What the value's allocations add to used_memory (size classes, real allocations).
pub fn value_alloc(v: &Value) -> usize {
    match v {
        Value::Str(StrValue::Int { shared: true, .. }) => 0,
        Value::Str(StrValue::Int { .. }) => SIZEOF_ROBJ,
        Value::Str(StrValue::Embstr(b)) => size_class(SIZEOF_ROBJ + 3 + b.len() + 1),
        Value::Str(StrValue::Raw(b, room)) => SIZEOF_ROBJ + raw_sds_alloc(b.len(), *room),
        Value::List(l) => SIZEOF_ROBJ + size_class(SIZEOF_QUICKLIST) + quicklist_alloc(l),
        Value::Hash(Hash::Listpack(v)) => {
            SIZEOF_ROBJ + size_class(lp_bytes(v.iter().map(|(f, x)| lp_entry_size(f) + lp_entry_size(x)).sum()))
        }
        Value::Hash(Hash::Table(m)) => {
            SIZEOF_ROBJ
                + size_class(SIZEOF_DICT)
                + size_class(8 * dict_slots(m.len(), 2))
                + estimate(m.len(), |i| {
                    m.get_index(i)
                        .map_or(0, |(f, x)| size_class(SIZEOF_DICT_ENTRY) + sds_alloc(f.len()) + sds_alloc(x.len()))
                })
        }
        Value::Set(Set::Intset(i)) => SIZEOF_ROBJ + size_class(i.blob_len()),
        Value::Set(Set::Table(s)) => {
            SIZEOF_ROBJ
                + size_class(SIZEOF_DICT)
                + size_class(8 * set_dict_slots(s))
                + estimate(s.len(), |i| {
                    s.get_index(i).map_or(0, |m| size_class(SIZEOF_DICT_ENTRY) + sds_alloc(m.len()))
                })
        }
        Value::Zset(Zset::Listpack(v)) => {
            SIZEOF_ROBJ + size_class(lp_bytes(v.iter().map(|(m, s)| lp_entry_size(m) + lp_score_size(*s)).sum()))
        }
        Value::Zset(Zset::Skiplist { dict, zsl }) => {
            let node_size = |n: u32| {
                let node = zsl.node(n);
                sds_alloc(node.ele.len()) + size_class(SIZEOF_DICT_ENTRY) + size_class(24 + 16 * node.levels.len())
            };
            // Exact up to EXACT_LIMIT members, else the first EXACT_LIMIT/4 extrapolated (a walk
            // along level 0, as MEMORY USAGE samples).
            let take = if zsl.len() <= EXACT_LIMIT { EXACT_LIMIT } else { EXACT_LIMIT / 4 };
            let (mut sum, mut seen) = (0usize, 0usize);
            let mut n = zsl.first();
            while n != NIL && seen < take {
                sum += node_size(n);
                seen += 1;
                n = zsl.next(n);
            }
            let members = if seen == 0 || seen == zsl.len() {
                sum
            } else {
                (sum as f64 / seen as f64 * zsl.len() as f64) as usize
            };
            SIZEOF_ROBJ
                + size_class(SIZEOF_ZSET)
                + size_class(SIZEOF_ZSKIPLIST)
                + size_class(SIZEOF_DICT)
                + size_class(8 * dict_slots(dict.len(), 2))
                + size_class(SIZEOF_ZSL_HEADER)
                + members
        }
        Value::Stream(s) => SIZEOF_ROBJ + s.alloc(),
    }
}

/// A raw string's sds: exact when created whole, with sdsMakeRoomFor's spare room when it grew.
fn raw_sds_alloc(len: usize, room: usize) -> usize {
    if room >= len && room > 0 {
        sds_grown_alloc(room)
    } else {
        sds_alloc(len)
    }
}

/// What a key costs besides its value: its dictEntry and its sds.
pub fn key_alloc(key: &[u8]) -> usize {
    size_class(SIZEOF_DICT_ENTRY) + sds_alloc(key.len())
}

/// object.c `objectComputeSize()`: MEMORY USAGE's value part, sampling the first `samples`
/// elements (0 = all) as Redis does, with struct sizes unrounded where Redis uses sizeof.
pub fn object_compute_size(v: &Value, samples: usize) -> usize {
    let samples = if samples == 0 { usize::MAX } else { samples };
    let sampled = |len: usize, it: &mut dyn Iterator<Item = usize>| -> usize {
        let mut sum = 0usize;
        let mut n = 0usize;
        for x in it.take(samples) {
            sum += x;
            n += 1;
        }
        if n == 0 {
            0
        } else {
            (sum as f64 / n as f64 * len as f64) as usize
        }
    };
    match v {
        Value::Str(StrValue::Int { .. }) => SIZEOF_ROBJ,
        Value::Str(StrValue::Embstr(b)) => size_class(SIZEOF_ROBJ + 3 + b.len() + 1),
        Value::Str(StrValue::Raw(b, room)) => SIZEOF_ROBJ + raw_sds_alloc(b.len(), *room),
        Value::List(l) => {
            // The first `samples` nodes, averaged over all of them.
            let nodes = quicklist_nodes(l);
            SIZEOF_ROBJ
                + SIZEOF_QUICKLIST
                + sampled(nodes.len(), &mut nodes.iter().map(|&b| SIZEOF_QUICKLIST_NODE + size_class(b)))
        }
        Value::Hash(Hash::Listpack(_)) | Value::Zset(Zset::Listpack(_)) | Value::Set(Set::Intset(_)) => value_alloc(v),
        // A dict's first entries in Redis's iteration are in hash order, effectively random: we take
        // entries at fixed pseudo-random positions, which estimates the same average.
        Value::Hash(Hash::Table(m)) => {
            let n = samples.min(m.len()).max(1);
            SIZEOF_ROBJ
                + SIZEOF_DICT
                + 8 * dict_slots(m.len(), 2)
                + sampled(
                    m.len(),
                    &mut (0..n)
                        .filter_map(|j| m.get_index(scatter(j, m.len())))
                        .map(|(f, x)| sds_alloc(f.len()) + sds_alloc(x.len()) + SIZEOF_DICT_ENTRY),
                )
        }
        Value::Set(Set::Table(s)) => {
            let n = samples.min(s.len()).max(1);
            SIZEOF_ROBJ
                + SIZEOF_DICT
                + 8 * set_dict_slots(s)
                + sampled(
                    s.len(),
                    &mut (0..n)
                        .filter_map(|j| s.get_index(scatter(j, s.len())))
                        .map(|m| SIZEOF_DICT_ENTRY + sds_alloc(m.len())),
                )
        }
        Value::Zset(Zset::Skiplist { dict, zsl }) => {
            let mut n = zsl.first();
            let mut it = std::iter::from_fn(|| {
                if n == NIL {
                    return None;
                }
                let node = zsl.node(n);
                n = zsl.next(n);
                Some(sds_alloc(node.ele.len()) + SIZEOF_DICT_ENTRY + size_class(24 + 16 * node.levels.len()))
            });
            SIZEOF_ROBJ
                + SIZEOF_ZSET
                + SIZEOF_ZSKIPLIST
                + SIZEOF_DICT
                + 8 * dict_slots(dict.len(), 2)
                + size_class(SIZEOF_ZSL_HEADER)
                + sampled(dict.len(), &mut it)
        }
        Value::Stream(s) => SIZEOF_ROBJ + s.compute_size(samples),
    }
}

/// The memory a db's tables add besides its keys: bucket arrays (`dict` and `expires`, as
/// many slots as each table has) and one dictEntry per key with a TTL.
pub fn db_tables(dict_slots: usize, expires_slots: usize, expires: usize) -> u64 {
    size_class(8 * dict_slots) as u64
        + size_class(8 * expires_slots) as u64
        + expires as u64 * size_class(SIZEOF_DICT_ENTRY) as u64
}

/// INFO `used_memory`: the startup baseline, each connected client, each command's latency
/// histogram (allocated on its first call), and what the dbs hold (keys, values, tables).
pub fn used_memory(clients: usize, histograms: u64, dbs: u64) -> u64 {
    USED_MEMORY_STARTUP + CLIENT_MEMORY * clients as u64 + LATENCY_HISTOGRAM * histograms + dbs
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
        // MEMORY USAGE = value + key sds + sizeof(dictEntry) 24 (docs/redis-facts.md §2.5).
        let usage = |key: &str, v: Value| object_compute_size(&v, 5) + sds_alloc(key.len()) + 24;
        assert_eq!(usage("foo", Value::Str(StrValue::Embstr(b"bar".to_vec().into()))), 64);
        assert_eq!(usage("n", Value::Str(StrValue::Int { value: 123456, shared: false })), 48);
        assert_eq!(usage(&"k".repeat(34), Value::Str(StrValue::Embstr(vec![b'v'; 44].into()))), 136);
        assert_eq!(usage("big", Value::Str(StrValue::Raw(vec![b'v'; 45], 0))), 112);
    }

    #[test]
    fn listpack_entries() {
        assert_eq!(lp_entry_size(b"1"), 2);
        assert_eq!(lp_entry_size(b"128"), 3);
        assert_eq!(lp_entry_size(b"abc"), 5);
        assert_eq!(lp_entry_size(&[b'x'; 64]), 67);
    }

    #[test]
    fn human_bytes() {
        assert_eq!(bytes_to_human(0.0), "0B");
        assert_eq!(bytes_to_human(939_386.0), "917.37K");
        assert_eq!(bytes_to_human(1_048_576.0), "1.00M");
    }
}
