//! Data structures that know nothing of commands or replies.

pub mod buckets;
pub mod geohash;
pub mod intset;
pub mod listpack;
pub mod long_double;
pub mod pqsort;
pub mod skiplist;
pub mod stream;
