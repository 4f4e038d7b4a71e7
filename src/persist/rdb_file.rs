//! RDB files, pure (bytes in, bytes out): models rdb.c as Redis 7.0.15 writes and reads a whole
//! dump — `rdbSaveRio()` with `rdbSaveInfoAuxFields()`, `rdbSaveFunctions()`, `rdbSaveDb()` and
//! `rdbSaveKeyValuePair()` (`RdbWriter`), and `rdbLoadRioWithLoadingCtx()` (`load`). The values
//! themselves are rdb.rs's `save_object()` and rdb_load.rs's `load_object()`, the same encoding
//! DUMP/RESTORE use; the engine side (which keys, which libraries, where the bytes go) is
//! command/rdb.rs.
//!
//! A file, as SAVE writes it on a master: `REDIS0010`; the AUX fields `redis-ver` (7.0.15),
//! `redis-bits` (64), `ctime` (seconds), `used-mem`, the `repl-stream-db`/`repl-id`/`repl-offset`
//! triple only when the caller has replication info to give (`rdbPopulateSaveInfo()` gives none
//! on a master without a backlog), `aof-base` (0); one `RDB_OPCODE_FUNCTION2` per library (its
//! code); per non-empty db `SELECTDB` and `RESIZEDB` (keys, keys with a TTL); per key its
//! `EXPIRETIME_MS` (absolute ms, little-endian), `IDLE` (seconds, under an LRU
//! maxmemory-policy) or `FREQ` (the LFU counter, under an LFU one), the type, the key, the
//! value; `EOF`; the CRC64 of everything before it, little-endian (0 with `rdbchecksum no`).
//!
//! Loading reads every opcode of RDB versions 1 to 10: AUX (kept for the caller to log; unknown
//! ones ignored, as the format's contract says), SELECTDB (past `databases`: refused, where Redis
//! exits), RESIZEDB (a hint: ignored), EXPIRETIME (seconds, 4 bytes) and EXPIRETIME_MS, IDLE,
//! FREQ, FUNCTION (7.0's release candidates') and FUNCTION2 (the library code, for the caller
//! to create), MODULE_AUX and module values (refused: no module is loaded — Redis exits naming
//! the module), EOF; then, from version 5 on, the checksum (0 means "saved without one"). A key
//! whose TTL has already passed is skipped when the loader expires keys (a master; `now` is the
//! caller's clock) and counted, as `rdb_last_load_keys_expired` counts it; a collection with no
//! elements is skipped and counted (rdb.c's `RDB_LOAD_ERR_EMPTY_KEY`); a key twice in one db is
//! refused (Redis panics).
//!
//! Bad input is an `RdbError` (what rdb.c logs, and the byte offset), never a panic: every read
//! is checked against what the buffer holds before anything is allocated for it, and each
//! value's decompressed strings get the caller's per-value allocation limit.
//!
//! Differences: keys are written in the engine's iteration order (insertion order), Redis's in
//! its dict's hash order (random per process), so two files of the same data match key by key,
//! not byte for byte, unless every db holds at most one key; loading validates every value deeply
//! (`sanitize-dump-payload yes`); errors are returned, where Redis exits or crashes (a corrupt
//! file, too many dbs, a duplicate key, a missing module).

use std::collections::HashSet;

use super::crc64::crc64;
use super::lzf::Compressor;
use super::rdb::{save_len, save_object, save_object_type, SaveOptions, StringWriter, RDB_VERSION};
use super::rdb::{TYPE_MODULE_2, TYPE_MODULE_PRE_GA};
use super::rdb_load::{load_object, LoadError, LoadOptions, Reader};
use crate::object::Value;

// rdb.h's opcodes.
pub const OPCODE_FUNCTION2: u8 = 245;
pub const OPCODE_FUNCTION_PRE_GA: u8 = 246;
pub const OPCODE_MODULE_AUX: u8 = 247;
pub const OPCODE_IDLE: u8 = 248;
pub const OPCODE_FREQ: u8 = 249;
pub const OPCODE_AUX: u8 = 250;
pub const OPCODE_RESIZEDB: u8 = 251;
pub const OPCODE_EXPIRETIME_MS: u8 = 252;
pub const OPCODE_EXPIRETIME: u8 = 253;
pub const OPCODE_SELECTDB: u8 = 254;
pub const OPCODE_EOF: u8 = 255;

/// module.h `REDISMODULE_AUX`'s `when` opcode (`RDB_MODULE_OPCODE_UINT`).
const MODULE_OPCODE_UINT: u64 = 2;

/// The version the `redis-ver` AUX field names.
pub const REDIS_VERSION: &str = "7.0.15";

// =============================================================================================
// Saving
// =============================================================================================

/// `rdbSaveInfo` as `rdbPopulateSaveInfo()` fills it: the replication stream's db, id and
/// offset (written as `repl-*` AUX fields).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplInfo {
    pub stream_db: i64,
    pub replid: String,
    pub offset: i64,
}

/// What `rdbSaveInfoAuxFields()` writes about the instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// `ctime`: the Unix time (seconds) of the save.
    pub ctime: i64,
    /// `used-mem`: `zmalloc_used_memory()` then.
    pub used_mem: u64,
    pub repl: Option<ReplInfo>,
    /// `aof-base`: the file is the base of a multi-part AOF (`RDBFLAGS_AOF_PREAMBLE`).
    pub aof_base: bool,
}

/// How a file is written: the value settings (`rdbcompression`, the quicklist's fill and
/// compress depth) and `rdbchecksum`.
#[derive(Debug, Clone, Copy)]
pub struct FileOptions {
    pub values: SaveOptions,
    pub checksum: bool,
}

/// What `rdbSaveKeyValuePair()` writes before a key's type, by the maxmemory-policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyMeta {
    None,
    /// `RDB_OPCODE_IDLE`: the LRU idle time in seconds (an LRU policy).
    Idle(u64),
    /// `RDB_OPCODE_FREQ`: the decayed LFU counter (an LFU policy).
    Freq(u8),
}

/// `rdbSaveRio()` as a writer fed step by step — header, libraries, then each db and its
/// keys — so a save can be spread over time (BGSAVE's child) or done at once (SAVE).
pub struct RdbWriter {
    out: Vec<u8>,
    lzf: Compressor,
    opts: FileOptions,
    keys: u64,
}

impl RdbWriter {
    /// The magic and the AUX fields.
    pub fn new(opts: FileOptions, header: &Header) -> RdbWriter {
        let mut w = RdbWriter { out: Vec::new(), lzf: Compressor::new(), opts, keys: 0 };
        w.out.extend_from_slice(format!("REDIS{RDB_VERSION:04}").as_bytes());
        w.aux(b"redis-ver", REDIS_VERSION.as_bytes());
        w.aux(b"redis-bits", b"64");
        w.aux(b"ctime", header.ctime.to_string().as_bytes());
        w.aux(b"used-mem", header.used_mem.to_string().as_bytes());
        if let Some(r) = &header.repl {
            w.aux(b"repl-stream-db", r.stream_db.to_string().as_bytes());
            w.aux(b"repl-id", r.replid.as_bytes());
            w.aux(b"repl-offset", r.offset.to_string().as_bytes());
        }
        w.aux(b"aof-base", if header.aof_base { b"1" } else { b"0" });
        w
    }

    fn string(&mut self, s: &[u8]) {
        let mut w = StringWriter { compression: self.opts.values.compression, lzf: &mut self.lzf };
        w.raw(&mut self.out, s);
    }

    /// `rdbSaveAuxField()`.
    pub fn aux(&mut self, key: &[u8], value: &[u8]) {
        self.out.push(OPCODE_AUX);
        self.string(key);
        self.string(value);
    }

    /// `rdbSaveFunctions()`, one library: `RDB_OPCODE_FUNCTION2` and its code.
    pub fn function(&mut self, code: &[u8]) {
        self.out.push(OPCODE_FUNCTION2);
        self.string(code);
    }

    /// `rdbSaveDb()`'s opening: SELECTDB, then RESIZEDB with the db's key and TTL counts.
    pub fn select_db(&mut self, db: usize, keys: u64, expires: u64) {
        self.out.push(OPCODE_SELECTDB);
        save_len(&mut self.out, db as u64);
        self.out.push(OPCODE_RESIZEDB);
        save_len(&mut self.out, keys);
        save_len(&mut self.out, expires);
    }

    /// `rdbSaveKeyValuePair()`.
    pub fn key(&mut self, key: &[u8], value: &Value, expire_ms: Option<i64>, meta: KeyMeta) {
        if let Some(at) = expire_ms {
            self.out.push(OPCODE_EXPIRETIME_MS);
            self.out.extend_from_slice(&at.to_le_bytes());
        }
        match meta {
            KeyMeta::None => {}
            KeyMeta::Idle(secs) => {
                self.out.push(OPCODE_IDLE);
                save_len(&mut self.out, secs);
            }
            KeyMeta::Freq(counter) => {
                self.out.push(OPCODE_FREQ);
                self.out.push(counter);
            }
        }
        self.out.push(save_object_type(value));
        self.string(key);
        let values = self.opts.values;
        let mut w = StringWriter { compression: values.compression, lzf: &mut self.lzf };
        save_object(&mut self.out, value, &values, &mut w);
        self.keys += 1;
    }

    /// Bytes written so far (`rdb->processed_bytes`).
    pub fn len(&self) -> usize {
        self.out.len()
    }

    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    /// Keys written so far (`rdb_save_keys_processed`).
    pub fn keys(&self) -> u64 {
        self.keys
    }

    /// EOF and the checksum: the file.
    pub fn finish(mut self) -> Vec<u8> {
        self.out.push(OPCODE_EOF);
        let crc = if self.opts.checksum { crc64(0, &self.out) } else { 0 };
        self.out.extend_from_slice(&crc.to_le_bytes());
        self.out
    }
}

// =============================================================================================
// Loading
// =============================================================================================

/// What loading needs from the caller.
#[derive(Debug, Clone, Copy)]
pub struct FileLoadOptions {
    /// The encoding limits values convert by, and the per-value allocation limit.
    pub values: LoadOptions,
    /// `databases`: a SELECTDB at or past it is refused.
    pub dbnum: usize,
    /// The clock, in Unix ms (`mstime()` when loading starts).
    pub now_ms: i64,
    /// Skip keys whose TTL has passed (`iAmMaster()` and not an AOF preamble).
    pub expire_keys: bool,
    /// Check the CRC64 (`rdbchecksum yes` and not DEBUG SET-SKIP-CHECKSUM-VALIDATION 1).
    pub verify_checksum: bool,
}

/// A key as the file holds it, with the opcodes that came before it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedKey {
    pub db: usize,
    pub key: Vec<u8>,
    pub value: Value,
    pub expire_ms: Option<i64>,
    /// `RDB_OPCODE_IDLE` (seconds).
    pub idle_secs: Option<u64>,
    /// `RDB_OPCODE_FREQ`.
    pub freq: Option<u8>,
}

/// How the checksum went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checksum {
    /// Version 1–4 files have none.
    Absent,
    /// The file says 0: it was saved with `rdbchecksum no` (Redis logs that it checked nothing).
    Disabled,
    /// Not checked (the caller said not to).
    Skipped,
    Verified,
}

/// A whole file, read.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedRdb {
    pub version: u32,
    /// The AUX fields in file order.
    pub aux: Vec<(Vec<u8>, Vec<u8>)>,
    /// Each library's code, in file order (a release candidate's `RDB_OPCODE_FUNCTION` made
    /// into a 7.0 library's code).
    pub functions: Vec<Vec<u8>>,
    pub keys: Vec<LoadedKey>,
    /// Skipped: already expired (`rdb_last_load_keys_expired`).
    pub keys_expired: u64,
    /// Skipped: collections with no elements, and the first ten of their names.
    pub empty_keys_skipped: u64,
    pub empty_key_names: Vec<Vec<u8>>,
    pub checksum: Checksum,
    /// Where the file ended (the checksum's end); bytes after it are not read.
    pub end: usize,
}

impl LoadedRdb {
    /// An AUX field's value.
    pub fn aux_field(&self, name: &str) -> Option<&[u8]> {
        self.aux.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(name.as_bytes())).map(|(_, v)| v.as_slice())
    }
}

/// Why a file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RdbErrorKind {
    /// Not `REDIS` at the start.
    Signature,
    /// A version outside 1..=10.
    Version(i64),
    /// The file ends where more was due (`rdbReportReadError()`).
    Eof,
    /// A type byte no loader knows.
    UnknownType(u8),
    /// A value that doesn't decode (`rdbLoadObject()` refused it).
    BadValue {
        db: usize,
        key: Vec<u8>,
    },
    /// A value whose strings would decompress past the per-value limit.
    TooBig {
        bytes: u64,
        db: usize,
        key: Vec<u8>,
    },
    Checksum {
        expected: u64,
        got: u64,
    },
    /// SELECTDB at or past `databases`.
    TooManyDbs {
        dbnum: usize,
    },
    Duplicate {
        db: usize,
        key: Vec<u8>,
    },
    /// Module data (AUX or a value): no module is loaded here.
    Module {
        name: String,
        aux: bool,
    },
    /// A library record that doesn't read.
    Function(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RdbError {
    /// The byte offset where reading stopped.
    pub offset: usize,
    pub kind: RdbErrorKind,
}

/// A key as `%s` prints it in Redis's log (up to a NUL, lossy UTF-8).
fn show(key: &[u8]) -> String {
    String::from_utf8_lossy(crate::util::c_str(key)).into_owned()
}

impl std::fmt::Display for RdbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = self.offset;
        match &self.kind {
            RdbErrorKind::Signature => write!(f, "Wrong signature trying to load DB from file"),
            RdbErrorKind::Version(v) => write!(f, "Can't handle RDB format version {v}"),
            RdbErrorKind::Eof => write!(f, "Short read loading DB at offset {at}: Unexpected EOF reading RDB file"),
            RdbErrorKind::UnknownType(t) => write!(f, "Unknown RDB encoding type {t} at offset {at}"),
            RdbErrorKind::BadValue { db, key } => {
                write!(f, "Bad data format in the value of key '{}' in DB {db} (offset {at})", show(key))
            }
            RdbErrorKind::TooBig { bytes, db, key } => write!(
                f,
                "The value of key '{}' in DB {db} decompresses to more than {bytes} bytes, past playground-max-alloc (offset {at})",
                show(key)
            ),
            RdbErrorKind::Checksum { expected, got } => {
                write!(f, "Wrong RDB checksum expected: ({expected:x}) but got ({got:x}). Aborting now.")
            }
            RdbErrorKind::TooManyDbs { dbnum } => write!(
                f,
                "FATAL: Data file was created with a Redis server configured to handle more than {dbnum} databases."
            ),
            RdbErrorKind::Duplicate { db, key } => write!(f, "RDB has duplicated key '{}' in DB {db}", show(key)),
            RdbErrorKind::Module { name, aux: true } => {
                write!(f, "The RDB file contains AUX module data I can't load: no matching module '{name}'")
            }
            RdbErrorKind::Module { name, aux: false } => {
                write!(f, "The RDB file contains module data I can't load: no matching module type '{name}'")
            }
            RdbErrorKind::Function(msg) => write!(f, "Failed loading library, {msg}"),
        }
    }
}

/// module.c `moduleTypeNameByID()`: the 9-character type name in the id's top 54 bits.
pub fn module_type_name(id: u64) -> String {
    const CSET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut id = id >> 10;
    let mut name = [b'A'; 9];
    for slot in name.iter_mut().rev() {
        *slot = CSET[(id & 63) as usize];
        id >>= 6;
    }
    String::from_utf8_lossy(&name).into_owned()
}

/// rdb.c `rdbFunctionLoad()` for `RDB_OPCODE_FUNCTION` (7.0's release candidates): the
/// library's name, engine, optional description (dropped) and code, made into a 7.0 library's
/// code with its shebang (`"#!%s name=%s\n%s"`: each part up to a NUL).
pub fn pre_ga_code(r: &mut Reader) -> Result<Vec<u8>, String> {
    let name = r.bytes().map_err(|_| "Failed loading library name".to_string())?;
    let engine = r.bytes().map_err(|_| "Failed loading engine name".to_string())?;
    let has_desc = r.load_len().map_err(|_| "Failed loading library description indicator".to_string())?;
    if has_desc != 0 {
        r.bytes().map_err(|_| "Failed loading library description".to_string())?;
    }
    let blob = r.bytes().map_err(|_| "Failed loading library blob".to_string())?;
    let c = crate::util::c_str;
    Ok([b"#!", c(&engine), b" name=", c(&name), b"\n", c(&blob)].concat())
}

/// `rdbLoadRioWithLoadingCtx()` over a whole file.
pub fn load(buf: &[u8], opts: &FileLoadOptions, level: &mut dyn FnMut() -> usize) -> Result<LoadedRdb, RdbError> {
    let mut r = Reader::new(buf, opts.values.max_alloc);
    let err = |r: &Reader, kind| RdbError { offset: r.position(), kind };
    let eof = |r: &Reader| err(r, RdbErrorKind::Eof);
    let magic = r.read(9).map_err(|_| eof(&r))?;
    if &magic[..5] != b"REDIS" {
        return Err(err(&r, RdbErrorKind::Signature));
    }
    let version = crate::util::atoi(&magic[5..]);
    if !(1..=RDB_VERSION as i64).contains(&version) {
        return Err(err(&r, RdbErrorKind::Version(version)));
    }
    let mut out = LoadedRdb {
        version: version as u32,
        aux: Vec::new(),
        functions: Vec::new(),
        keys: Vec::new(),
        keys_expired: 0,
        empty_keys_skipped: 0,
        empty_key_names: Vec::new(),
        checksum: Checksum::Absent,
        end: 0,
    };
    let mut seen: HashSet<(usize, Vec<u8>)> = HashSet::new();
    let mut db = 0usize;
    // Set by the opcodes before a key, reset after it.
    let (mut expire, mut idle, mut freq): (i64, Option<u64>, Option<u8>) = (-1, None, None);
    loop {
        r.set_budget(opts.values.max_alloc);
        let t = r.byte().map_err(|_| eof(&r))?;
        match t {
            OPCODE_EXPIRETIME => {
                let b = r.read(4).map_err(|_| eof(&r))?;
                expire = i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64 * 1000;
                continue;
            }
            OPCODE_EXPIRETIME_MS => {
                let b = r.read(8).map_err(|_| eof(&r))?;
                expire = i64::from_le_bytes(b.try_into().unwrap_or_default());
                continue;
            }
            OPCODE_FREQ => {
                freq = Some(r.byte().map_err(|_| eof(&r))?);
                continue;
            }
            OPCODE_IDLE => {
                idle = Some(r.load_len().map_err(|_| eof(&r))?);
                continue;
            }
            OPCODE_EOF => break,
            OPCODE_SELECTDB => {
                let id = r.load_len().map_err(|_| eof(&r))?;
                if id >= opts.dbnum as u64 {
                    return Err(err(&r, RdbErrorKind::TooManyDbs { dbnum: opts.dbnum }));
                }
                db = id as usize;
                continue;
            }
            OPCODE_RESIZEDB => {
                r.load_len().map_err(|_| eof(&r))?;
                r.load_len().map_err(|_| eof(&r))?;
                continue;
            }
            OPCODE_AUX => {
                let k = r.bytes().map_err(|_| eof(&r))?;
                let v = r.bytes().map_err(|_| eof(&r))?;
                out.aux.push((k, v));
                continue;
            }
            OPCODE_MODULE_AUX => {
                let id = r.load_len().map_err(|_| eof(&r))?;
                let when_opcode = r.load_len().map_err(|_| eof(&r))?;
                r.load_len().map_err(|_| eof(&r))?;
                if when_opcode != MODULE_OPCODE_UINT {
                    return Err(eof(&r)); // "bad when_opcode"
                }
                return Err(err(&r, RdbErrorKind::Module { name: module_type_name(id), aux: true }));
            }
            OPCODE_FUNCTION2 => {
                let code =
                    r.bytes().map_err(|_| err(&r, RdbErrorKind::Function("Failed loading library payload".into())))?;
                out.functions.push(code);
                continue;
            }
            OPCODE_FUNCTION_PRE_GA => {
                let code = pre_ga_code(&mut r).map_err(|m| err(&r, RdbErrorKind::Function(m)))?;
                out.functions.push(code);
                continue;
            }
            _ => {}
        }
        let key = r.bytes().map_err(|_| eof(&r))?;
        if t == TYPE_MODULE_2 || t == TYPE_MODULE_PRE_GA {
            let id = r.load_len().map_err(|_| eof(&r))?;
            return Err(err(&r, RdbErrorKind::Module { name: module_type_name(id), aux: false }));
        }
        if !super::rdb::is_object_type(t) {
            return Err(err(&r, RdbErrorKind::UnknownType(t)));
        }
        r.set_budget(opts.values.max_alloc);
        match load_object(t, &mut r, &opts.values, level) {
            Err(LoadError::EmptyKey) => {
                out.empty_keys_skipped += 1;
                if out.empty_key_names.len() < 10 {
                    out.empty_key_names.push(key);
                }
            }
            Err(LoadError::BadFormat) => return Err(err(&r, RdbErrorKind::BadValue { db, key })),
            Err(LoadError::TooBig { bytes }) => return Err(err(&r, RdbErrorKind::TooBig { bytes, db, key })),
            Ok(_) if opts.expire_keys && expire != -1 && expire < opts.now_ms => out.keys_expired += 1,
            Ok(value) => {
                if !seen.insert((db, key.clone())) {
                    return Err(err(&r, RdbErrorKind::Duplicate { db, key }));
                }
                let expire_ms = (expire != -1).then_some(expire);
                out.keys.push(LoadedKey { db, key, value, expire_ms, idle_secs: idle, freq });
            }
        }
        (expire, idle, freq) = (-1, None, None);
    }
    if version >= 5 {
        let covered = r.position();
        let got = r.read(8).map_err(|_| eof(&r))?;
        let got = u64::from_le_bytes(got.try_into().unwrap_or_default());
        out.checksum = if !opts.verify_checksum {
            Checksum::Skipped
        } else if got == 0 {
            Checksum::Disabled
        } else {
            let expected = crc64(0, &buf[..covered]);
            if got != expected {
                return Err(err(&r, RdbErrorKind::Checksum { expected, got }));
            }
            Checksum::Verified
        };
    }
    out.end = r.position();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::{List, Set, StrValue};

    fn opts() -> FileLoadOptions {
        FileLoadOptions {
            values: LoadOptions::default(),
            dbnum: 16,
            now_ms: 1_000_000,
            expire_keys: true,
            verify_checksum: true,
        }
    }

    fn header() -> Header {
        Header { ctime: 1796178410, used_mem: 1020568, repl: None, aof_base: false }
    }

    fn writer() -> RdbWriter {
        RdbWriter::new(FileOptions { values: SaveOptions::default(), checksum: true }, &header())
    }

    fn s(v: &str) -> Value {
        Value::Str(StrValue::encoded(v.as_bytes().to_vec(), true))
    }

    #[test]
    fn a_file_as_redis_writes_it() {
        // redis-server 7.0.15: `SET a 1`, SAVE (ctime and used-mem set to what it wrote).
        let mut w = RdbWriter::new(
            FileOptions { values: SaveOptions::default(), checksum: true },
            &Header { ctime: 1796178411, used_mem: 988568, repl: None, aof_base: false },
        );
        w.select_db(0, 1, 0);
        w.key(b"a", &s("1"), None, KeyMeta::None);
        let file = w.finish();
        let want = b"REDIS0010\xfa\tredis-ver\x067.0.15\xfa\nredis-bits\xc0@\xfa\x05ctime\xc2\xeb\x81\x0fk\xfa\x08used-mem\xc2\x98\x15\x0f\x00\xfa\x08aof-base\xc0\x00\xfe\x00\xfb\x01\x00\x00\x01a\xc0\x01\xfftTr\xfc\x1f\xc9\xc1\x0c";
        assert_eq!(file, want.to_vec());
        let back = load(&file, &opts(), &mut || 1).unwrap();
        assert_eq!(back.checksum, Checksum::Verified);
        assert_eq!(back.keys.len(), 1);
        assert_eq!(back.aux_field("redis-bits"), Some(&b"64"[..]));
    }

    #[test]
    fn round_trip_with_ttls_meta_functions_and_dbs() {
        let mut w = writer();
        w.function(b"#!lua name=lib\nredis.register_function('f', function() return 1 end)");
        w.select_db(0, 2, 1);
        w.key(b"k", &s("v"), Some(2_000_000), KeyMeta::Idle(30));
        w.key(b"1234", &Value::List(List::from(vec![b"x".to_vec()])), None, KeyMeta::Freq(7));
        w.select_db(3, 1, 0);
        w.key(b"k", &Value::Set(Set::Table(Box::new([b"m".to_vec()].into_iter().collect()))), None, KeyMeta::None);
        let file = w.finish();
        let back = load(&file, &opts(), &mut || 1).unwrap();
        assert_eq!(back.functions.len(), 1);
        let got: Vec<_> = back.keys.iter().map(|k| (k.db, k.key.clone(), k.expire_ms, k.idle_secs, k.freq)).collect();
        assert_eq!(
            got,
            vec![
                (0, b"k".to_vec(), Some(2_000_000), Some(30), None),
                (0, b"1234".to_vec(), None, None, Some(7)),
                (3, b"k".to_vec(), None, None, None)
            ]
        );
    }

    #[test]
    fn expired_keys_are_skipped_and_counted_on_a_master() {
        let mut w = writer();
        w.select_db(0, 3, 2);
        w.key(b"gone", &s("x"), Some(999_999), KeyMeta::None);
        w.key(b"edge", &s("x"), Some(1_000_000), KeyMeta::None);
        w.key(b"kept", &s("x"), None, KeyMeta::None);
        let file = w.finish();
        let back = load(&file, &opts(), &mut || 1).unwrap();
        assert_eq!(back.keys_expired, 1);
        assert_eq!(back.keys.iter().map(|k| k.key.as_slice()).collect::<Vec<_>>(), vec![&b"edge"[..], b"kept"]);
        let replica = FileLoadOptions { expire_keys: false, ..opts() };
        assert_eq!(load(&file, &replica, &mut || 1).unwrap().keys.len(), 3);
    }

    #[test]
    fn refusals() {
        let mut w = writer();
        w.select_db(0, 2, 0);
        w.key(b"k", &s("x"), None, KeyMeta::None);
        w.key(b"k", &s("y"), None, KeyMeta::None);
        let dup = w.finish();
        assert!(matches!(load(&dup, &opts(), &mut || 1).unwrap_err().kind, RdbErrorKind::Duplicate { db: 0, .. }));

        let mut w = writer();
        w.select_db(20, 1, 0);
        let far = w.finish();
        assert_eq!(load(&far, &opts(), &mut || 1).unwrap_err().kind, RdbErrorKind::TooManyDbs { dbnum: 16 });

        let mut w = writer();
        w.select_db(0, 1, 0);
        w.key(b"k", &s("x"), None, KeyMeta::None);
        let mut bad = w.finish();
        let n = bad.len();
        bad[n - 1] ^= 1;
        assert!(matches!(load(&bad, &opts(), &mut || 1).unwrap_err().kind, RdbErrorKind::Checksum { .. }));
        let skip = FileLoadOptions { verify_checksum: false, ..opts() };
        assert_eq!(load(&bad, &skip, &mut || 1).unwrap().checksum, Checksum::Skipped);
        // Saved with rdbchecksum no: 0, nothing checked.
        let mut w = RdbWriter::new(FileOptions { values: SaveOptions::default(), checksum: false }, &header());
        w.key(b"k", &s("x"), None, KeyMeta::None);
        assert_eq!(load(&w.finish(), &opts(), &mut || 1).unwrap().checksum, Checksum::Disabled);

        assert_eq!(load(b"REDIX0010\xff", &opts(), &mut || 1).unwrap_err().kind, RdbErrorKind::Signature);
        assert_eq!(load(b"REDIS0011\xff", &opts(), &mut || 1).unwrap_err().kind, RdbErrorKind::Version(11));
        assert_eq!(load(b"REDIS0000\xff", &opts(), &mut || 1).unwrap_err().kind, RdbErrorKind::Version(0));
        for cut in 0..dup.len() - 8 {
            assert!(load(&dup[..cut], &opts(), &mut || 1).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn old_versions_and_opcodes() {
        // Version 4: no checksum; EXPIRETIME in seconds; a version-1 style plain list.
        let mut f = b"REDIS0004\xfe\x00".to_vec();
        f.push(OPCODE_EXPIRETIME);
        f.extend_from_slice(&2000i32.to_le_bytes());
        f.extend_from_slice(b"\x00\x01s\x05hello");
        f.extend_from_slice(b"\x01\x01l\x02\x01a\xc0\x05");
        f.push(OPCODE_EOF);
        let back = load(&f, &opts(), &mut || 1).unwrap();
        assert_eq!(back.checksum, Checksum::Absent);
        assert_eq!(back.keys[0].expire_ms, Some(2_000_000));
        assert_eq!(back.keys[1].value, Value::List(List::from(vec![b"a".to_vec(), b"5".to_vec()])));
        // An empty collection is skipped and counted.
        let empty = b"REDIS0004\x02\x01e\x00\x00\x01k\x01v\xff";
        let back = load(empty, &opts(), &mut || 1).unwrap();
        assert_eq!((back.empty_keys_skipped, back.keys.len()), (1, 1));
        // Module data names the module.
        let m = b"REDIS0010\xf7\x81\x12\x34\x56\x78\x9a\xbc\xde\xf0\x02\x00\xff";
        assert!(matches!(load(m, &opts(), &mut || 1).unwrap_err().kind, RdbErrorKind::Module { aux: true, .. }));
        assert_eq!(load(b"REDIS0010\x08\x01k\x00", &opts(), &mut || 1).unwrap_err().kind, RdbErrorKind::UnknownType(8));
    }
}
