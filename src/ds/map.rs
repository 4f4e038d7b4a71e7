//! The hash maps behind every Redis dict here: insertion-ordered `IndexMap`s with a fast
//! deterministic hasher (foldhash with a fixed seed), so the same inputs give the same layout on
//! every platform. They index user keys; no network peer picks them to collide. The dict.c table
//! shape Redis's cursors and samplers walk is modelled beside them (ds/buckets.rs).

use indexmap::IndexMap;

pub type Hasher = foldhash::fast::FixedState;
pub type Map<K, V> = IndexMap<K, V, Hasher>;
