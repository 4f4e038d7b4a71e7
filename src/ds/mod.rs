//! Data structures that know nothing of commands or replies:
//! - `skiplist.rs`: t_zset.c's `zskiplist` (levels, spans, ranks, score/lex ranges, search paths);
//! - `intset.rs`: intset.c; `buckets.rs`: dict.c's table shape (buckets, resize, sampling);
//! - `listpack.rs`: listpack.c's byte format; `ziplist.rs`: reading ziplist.c's and zipmap.c's
//!   older formats (what an old DUMP carries);
//! - `map.rs`: the hash maps behind every dict (deterministic hasher); `id_table.rs`: values by
//!   id in id order with O(1) lookups (the engine's clients);
//! - `geohash.rs`: geohash.c and geohash_helper.c; `pqsort.rs`: pqsort.c and glibc's qsort;
//! - `long_double.rs`: x87 80-bit `long double` arithmetic, `strtold` and its printing;
//! - `hdr_histogram.rs`: the HDR histogram behind per-command latency tracking;
//! - `sparkline.rs`: sparkline.c's ASCII graphs (LATENCY GRAPH);
//! - `sha256.rs`: sha256.c (ACL password hashes);
//! - `sds.rs`: sds.c's string sizes on jemalloc's size classes;
//! - `hll.rs`: hyperloglog.c's sparse and dense representations and estimator;
//! - `stream.rs`: t_stream.c's stream — a rax of listpack nodes, consumer groups, PELs.

pub mod buckets;
pub mod geohash;
pub mod hdr_histogram;
pub mod hll;
pub mod id_table;
pub mod intset;
pub mod listpack;
pub mod long_double;
pub mod map;
pub mod pqsort;
pub mod sds;
pub mod sha256;
pub mod skiplist;
pub mod sparkline;
pub mod stream;
pub mod ziplist;
