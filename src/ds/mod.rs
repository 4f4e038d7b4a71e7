//! Data structures that know nothing of commands or replies:
//! - `skiplist.rs`: t_zset.c's `zskiplist` (levels, spans, ranks, score/lex ranges, search paths);
//! - `intset.rs`: intset.c; `buckets.rs`: dict.c's table shape (buckets, resize, sampling);
//! - `listpack.rs`: listpack.c's byte format; `ziplist.rs`: reading ziplist.c's and zipmap.c's
//!   older formats (what an old DUMP carries);
//! - `map.rs`: the hash maps behind every dict (deterministic hasher);
//! - `geohash.rs`: geohash.c and geohash_helper.c; `pqsort.rs`: pqsort.c and glibc's qsort;
//! - `long_double.rs`: x87 80-bit `long double` arithmetic, `strtold` and its printing;
//! - `sds.rs`: sds.c's string sizes on jemalloc's size classes;
//! - `hll.rs`: hyperloglog.c's sparse and dense representations and estimator.

pub mod buckets;
pub mod geohash;
pub mod hll;
pub mod intset;
pub mod listpack;
pub mod long_double;
pub mod map;
pub mod pqsort;
pub mod sds;
pub mod skiplist;
pub mod ziplist;
