//! Persistence formats, pure (bytes in, bytes out; no engine state, no files):
//! - `rdb.rs`: the RDB value encoding, writing side (rdb.c `rdbSaveObject()`…), and the DUMP
//!   payload (cluster.c `createDumpPayload()`/`verifyDumpPayload()`), the base RDB files will be
//!   written with; `rdb_load.rs`: the reading side (`rdbLoadObject()`…);
//! - `aof.rs`: the AOF format — a command as the AOF writes it, and the rewrite that rebuilds
//!   the dataset as commands (aof.c, without an RDB preamble);
//! - `rdb_file.rs`: whole RDB files (rdb.c `rdbSaveRio()`/`rdbLoadRio()`): the header's AUX
//!   fields, function libraries, dbs, per-key TTL/LRU/LFU opcodes, EOF and checksum;
//! - `store.rs`: where the RDB and AOF files live — the host's `FileStore` (a directory under
//!   `redisplay serve`, memory in the page);
//! - `lzf.rs`: LZF compression as Redis's liblzf does it, byte for byte;
//! - `crc64.rs`: crc64.c's CRC64 (Jones), the checksum of payloads and RDB files;
//! - `rdb_fuzz.rs` (tests only): thousands of random and mutated payloads through the loader.

pub mod aof;
pub mod crc64;
pub mod lzf;
pub mod rdb;
pub mod rdb_file;
pub mod rdb_load;
pub mod store;

#[cfg(test)]
mod rdb_fuzz;
