//! The hash maps behind every Redis dict here: insertion-ordered `IndexMap`s with a fast
//! deterministic hasher (foldhash with a fixed seed), so the same inputs give the same layout on
//! every platform. They index user keys; no network peer picks them to collide. The dict.c table
//! shape Redis's cursors and samplers walk is modelled beside them (ds/buckets.rs).

use indexmap::IndexMap;

pub type Hasher = foldhash::fast::FixedState;
pub type Map<K, V> = IndexMap<K, V, Hasher>;

/// Makes room for one more entry in a map that grows one insert at a time, as a `Vec` grows
/// (doubling the entries), where `IndexMap::insert` alone grows its entries to its hash index's
/// capacity — 7/8 of the index's buckets, so 1.8 entries per key just past 917,504 keys, each
/// entry the size of a key's slot. The index grows as it would have (it must hold twice the
/// entries at the next growth, which its doubling gives).
pub fn reserve_one<K, V>(map: &mut Map<K, V>) {
    if map.len() == map.capacity() {
        map.reserve_exact(map.len().max(4));
    }
}
