//! Data structures that know nothing of commands or replies.

pub mod geohash;
pub mod long_double;
pub mod pqsort;
pub mod skiplist;
pub mod buckets;
pub mod intset;
