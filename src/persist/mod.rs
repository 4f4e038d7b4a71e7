//! Persistence formats, pure (bytes in, bytes out; no engine state, no files):
//! - `rdb.rs`: the RDB value encoding (rdb.c) and the DUMP/RESTORE payload (cluster.c
//!   `createDumpPayload()`/`verifyDumpPayload()`), the base RDB files will be written with;
//! - `lzf.rs`: LZF compression as Redis's liblzf does it, byte for byte;
//! - `crc64.rs`: crc64.c's CRC64 (Jones), the checksum of payloads and RDB files;
//! - `rdb_fuzz.rs` (tests only): thousands of random and mutated payloads through the loader.

pub mod crc64;
pub mod lzf;
pub mod rdb;

#[cfg(test)]
mod rdb_fuzz;
