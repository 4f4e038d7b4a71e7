//! rdb.c's commands and the engine's side of an RDB file: SAVE and LASTSAVE; `rdbSave()` — the
//! libraries and every db's keys written by persist/rdb_file.rs's `RdbWriter` (`rdb_image`) and
//! handed to the host's store (persist/store.rs) as `dir`/`dbfilename`; `rdbLoad()` — a file
//! read back into the dataset (`load_rdb` for a host, DEBUG RELOAD's `rdb_load_from_store`);
//! and what INFO persistence and the server log report of both.
//!
//! As 7.0.15: a successful save resets `rdb_changes_since_last_save`, sets `lastsave` (the
//! virtual clock) and logs "DB saved on disk"; a failed one logs the store's error and SAVE
//! answers `-ERR`, leaving both alone. A load skips keys already expired and counts
//! `rdb_last_load_keys_loaded`/`_expired`; the keys it adds fire no keyspace event and wake no
//! blocked client (db.c `dbAddRDBLoad()`); each key's IDLE or FREQ sets its LRU/LFU field as
//! RESTORE's options do (`objectSetLRUOrLFU()`).
//!
//! Differences: the file is written whole or not at all, then loaded whole or not at all — a
//! corrupt file, a duplicate key or a library that fails is an error here, where Redis exits or
//! panics (for DEBUG RELOAD, after it has emptied the dataset: so does this). Saving is instant in
//! virtual time (no cost is charged for it yet). Libraries are saved in name order, keys in the
//! engine's iteration order (Redis: its dicts' hash order). BGSAVE, the save points serverCron
//! fires, and replication's `repl-*` AUX fields are not here yet: `rdb_image` is what they will
//! write.

use super::cluster::{load_options, save_options, set_lru_or_lfu};
use crate::command::call::Call;
use crate::ds::skiplist::random_level;
use crate::engine::{uniform, Engine, LogLevel};
use crate::evict::estimate_idle_ms;
use crate::object::lfu_decr_and_return;
use crate::persist::rdb_file::{self, Checksum, FileLoadOptions, FileOptions, Header, KeyMeta, RdbError, RdbWriter};
use crate::persist::store::RdbStore;
use crate::reply::Reply;
use crate::script::functions::Libraries;

/// What a successful load did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadReport {
    /// The file's RDB version.
    pub version: u32,
    /// Keys added (`rdb_last_load_keys_loaded`).
    pub keys_loaded: u64,
    /// Keys skipped because their TTL had passed (`rdb_last_load_keys_expired`).
    pub keys_expired: u64,
    /// Collections with no elements, skipped.
    pub empty_keys_skipped: u64,
    /// Function libraries created.
    pub libraries: usize,
}

/// Why a load failed (nothing was loaded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadFailure {
    /// The file doesn't read (persist/rdb_file.rs).
    File(RdbError),
    /// A library in it could not be created (`Failed loading library, …`).
    Library(String),
    /// A key the dataset already has (DEBUG RELOAD NOFLUSH without MERGE).
    Conflict { db: usize, key: Vec<u8> },
    /// There is no file.
    Missing,
    /// The store could not read it.
    Store(String),
}

impl std::fmt::Display for LoadFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadFailure::File(e) => write!(f, "{e}"),
            LoadFailure::Library(msg) => write!(f, "Failed loading library, {msg}"),
            LoadFailure::Conflict { db, key } => {
                write!(f, "RDB has duplicated key '{}' in DB {db}", String::from_utf8_lossy(key))
            }
            LoadFailure::Missing => write!(f, "No such file or directory"),
            LoadFailure::Store(msg) => write!(f, "{msg}"),
        }
    }
}

/// How a load meets what is there (rdb.c's `RDBFLAGS_ALLOW_DUP`, and a host's replacing load).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LoadMode {
    /// A key or library the dataset has is replaced (DEBUG RELOAD MERGE); otherwise refused.
    pub merge: bool,
    /// The dataset and the libraries are emptied first, once the file has read (a host's load).
    pub replace: bool,
}

impl Engine {
    /// Where SAVE writes and DEBUG RELOAD reads the RDB file (default: in memory).
    pub fn set_rdb_store(&mut self, store: Box<dyn RdbStore>) {
        self.persist.store = store;
    }

    /// The file at `dir`/`dbfilename` in the store, if there is one (the page's download).
    pub fn rdb_file(&mut self) -> Result<Option<Vec<u8>>, String> {
        let (dir, name) = self.rdb_path();
        self.persist.store.read(&dir, &name)
    }

    /// SHUTDOWN succeeded: the server is gone. A host closes every connection and stops; the
    /// SHUTDOWN's own reply is never sent.
    pub fn has_shut_down(&self) -> bool {
        self.persist.shut_down
    }

    fn rdb_path(&self) -> (String, String) {
        (self.config.str("dir").to_string(), self.config.str("dbfilename").to_string())
    }

    /// `rdbSaveRio()` of the server now: the bytes SAVE writes (and BGSAVE will).
    pub fn rdb_image(&self) -> Vec<u8> {
        let opts = FileOptions { values: save_options(self), checksum: self.config.bool("rdbchecksum") };
        let header =
            Header { ctime: self.now_ms.div_euclid(1000), used_mem: self.used_memory(), repl: None, aof_base: false };
        let mut w = RdbWriter::new(opts, &header);
        for lib in self.scripts.libs.libraries() {
            w.function(&lib.code);
        }
        let lru = self.config.str("maxmemory-policy").ends_with("-lru");
        let (now, decay) = (self.now_ms, self.hot.lfu_decay_time);
        for (i, db) in self.dbs.iter().enumerate() {
            if db.is_empty() {
                continue;
            }
            w.select_db(i, db.len() as u64, db.expires.len() as u64);
            for (key, obj) in &db.dict {
                let meta = if lru {
                    KeyMeta::Idle(estimate_idle_ms(self.lruclock, obj.lru) as u64 / 1000)
                } else if self.lfu {
                    KeyMeta::Freq(lfu_decr_and_return(obj.lru, now, decay) as u8)
                } else {
                    KeyMeta::None
                };
                w.key(key, &obj.value, db.expire_of(key), meta);
            }
        }
        w.finish()
    }

    /// `rdbSave()`: the image to the store. On success the dirty counter starts over and
    /// `lastsave` is now; a failure is logged. Returns whether it saved.
    pub(crate) fn rdb_save(&mut self) -> bool {
        let image = self.rdb_image();
        let (dir, name) = self.rdb_path();
        match self.persist.store.write(&dir, &name, &image) {
            Ok(()) => {
                self.server_log(LogLevel::Notice, "DB saved on disk");
                self.stats.dirty = 0;
                self.persist.lastsave = self.now_ms.div_euclid(1000);
                self.persist.lastbgsave_ok = true;
                true
            }
            Err(msg) => {
                self.server_log(LogLevel::Warning, msg);
                false
            }
        }
    }

    /// `emptyData(-1, EMPTYDB_NO_FLAGS)`: every db and, with `functions`, every library —
    /// watchers and tracking clients told, as a flush tells them; nothing counted as a change.
    pub(crate) fn empty_data(&mut self, functions: bool) {
        for db in 0..self.dbs.len() {
            self.touch_all_watched_keys_in_db(db, None);
        }
        self.tracking_invalidate_keys_on_flush();
        for db in self.dbs.iter_mut() {
            db.clear();
        }
        if functions {
            self.scripts.libs.clear();
        }
    }

    /// A host's load (`redisplay serve` at startup, a file given to the page): the file
    /// replaces the dataset and the libraries — or, when it doesn't load, nothing changes.
    pub fn load_rdb(&mut self, image: &[u8]) -> Result<LoadReport, LoadFailure> {
        self.rdb_load_image(image, LoadMode { merge: false, replace: true })
    }

    /// A restart, as redis-server's with the same command line: a fresh engine (`reset`, which
    /// keeps the startup configuration and the store) that loads its RDB file, if there is one.
    /// What CONFIG SET changed since the start is gone, as without CONFIG REWRITE.
    pub fn restart(&mut self) -> Result<Option<LoadReport>, LoadFailure> {
        self.reset();
        let (dir, name) = self.rdb_path();
        match self.persist.store.read(&dir, &name) {
            Ok(None) => Ok(None),
            Ok(Some(image)) => self.load_rdb(&image).map(Some),
            Err(msg) => Err(LoadFailure::Store(msg)),
        }
    }

    /// `rdbLoad()` of `dir`/`dbfilename` from the store (DEBUG RELOAD).
    pub(crate) fn rdb_load_from_store(&mut self, merge: bool) -> Result<LoadReport, LoadFailure> {
        let (dir, name) = self.rdb_path();
        let image = match self.persist.store.read(&dir, &name) {
            Ok(Some(image)) => image,
            Ok(None) => return Err(LoadFailure::Missing),
            Err(msg) => return Err(LoadFailure::Store(msg)),
        };
        self.rdb_load_image(&image, LoadMode { merge, replace: false })
    }

    /// `rdbLoadRio()`: reads the whole file, creates its libraries, checks what it would
    /// replace, then — and only then — changes the dataset.
    pub(crate) fn rdb_load_image(&mut self, image: &[u8], mode: LoadMode) -> Result<LoadReport, LoadFailure> {
        self.persist.last_load_keys_loaded = 0;
        self.persist.last_load_keys_expired = 0;
        let opts = FileLoadOptions {
            values: load_options(self),
            dbnum: self.dbs.len(),
            now_ms: self.now_ms,
            expire_keys: true,
            verify_checksum: self.config.bool("rdbchecksum") && !self.debug.skip_checksum_validation,
        };
        let rng = &mut self.rng;
        let mut level = || random_level(|| uniform(rng));
        let loaded = rdb_file::load(image, &opts, &mut level).map_err(LoadFailure::File)?;
        self.log_aux(&loaded.aux);

        // The libraries, created apart and joined in one step (a name clash fails whole).
        let step_ns = crate::cost::scaled(crate::cost::LUA_STEP_NS, self.hot.cost_percent).max(1);
        let mut libs = Libraries::default();
        if !loaded.functions.is_empty() {
            let vm = self.scripts.function_vm().map_err(|_| LoadFailure::Library("scripting is unavailable".into()))?;
            for code in &loaded.functions {
                libs.create(vm, code, false, step_ns).map_err(LoadFailure::Library)?;
            }
        }
        if !mode.merge && !mode.replace {
            if let Some(k) = loaded.keys.iter().find(|k| self.dbs[k.db].contains(&k.key)) {
                return Err(LoadFailure::Conflict { db: k.db, key: k.key.clone() });
            }
        }
        let library_count = libs.library_count();
        if mode.replace {
            self.empty_data(true);
            self.scripts.libs = libs;
        } else if library_count > 0 {
            self.scripts.libs.join(libs, mode.merge).map_err(LoadFailure::Library)?;
        }

        let created_before: Vec<usize> = self.dbs.iter().map(|d| d.created.len()).collect();
        let mut loaded_keys = 0u64;
        for k in loaded.keys {
            let mut obj = self.new_obj(k.value);
            let (freq, idle) =
                (k.freq.map_or(-1, i64::from), k.idle_secs.map_or(-1, |s| s.min(i64::MAX as u64) as i64));
            set_lru_or_lfu(self, &mut obj.lru, freq, idle);
            let db = &mut self.dbs[k.db];
            if mode.merge {
                db.delete(&k.key);
            }
            db.insert(k.key.clone(), obj);
            if let Some(at) = k.expire_ms {
                db.set_expire(&k.key, at);
            }
            loaded_keys += 1;
        }
        // dbAddRDBLoad(): no `new` event, no blocked client woken.
        for (db, before) in self.dbs.iter_mut().zip(created_before) {
            db.created.truncate(before);
        }
        for name in &loaded.empty_key_names {
            let msg = format!("rdbLoadObject skipping empty key: {}", String::from_utf8_lossy(name));
            self.server_log(LogLevel::Warning, msg);
        }
        if loaded.checksum == Checksum::Disabled {
            self.server_log(LogLevel::Warning, "RDB file was saved with checksum disabled: no check performed.");
        }
        self.persist.last_load_keys_loaded = loaded_keys;
        self.persist.last_load_keys_expired = loaded.keys_expired;
        let done = if loaded.empty_keys_skipped > 0 {
            format!(
                "Done loading RDB, keys loaded: {loaded_keys}, keys expired: {}, empty keys skipped: {}.",
                loaded.keys_expired, loaded.empty_keys_skipped
            )
        } else {
            format!("Done loading RDB, keys loaded: {loaded_keys}, keys expired: {}.", loaded.keys_expired)
        };
        let level = if loaded.empty_keys_skipped > 0 { LogLevel::Warning } else { LogLevel::Notice };
        self.server_log(level, done);
        Ok(LoadReport {
            version: loaded.version,
            keys_loaded: loaded_keys,
            keys_expired: loaded.keys_expired,
            empty_keys_skipped: loaded.empty_keys_skipped,
            libraries: library_count,
        })
    }

    /// What rdbLoadRio() logs of the AUX fields it understands.
    fn log_aux(&mut self, aux: &[(Vec<u8>, Vec<u8>)]) {
        for (k, v) in aux {
            let (key, val) = (String::from_utf8_lossy(k).into_owned(), String::from_utf8_lossy(v).into_owned());
            let int = || crate::util::strtol(v).0;
            let (level, msg) = match key.to_ascii_lowercase().as_str() {
                _ if key.starts_with('%') => (LogLevel::Notice, format!("RDB '{key}': {val}")),
                "redis-ver" => (LogLevel::Notice, format!("Loading RDB produced by version {val}")),
                "ctime" => {
                    let age = (self.now_ms.div_euclid(1000) - int()).max(0);
                    (LogLevel::Notice, format!("RDB age {age} seconds"))
                }
                "used-mem" => (
                    LogLevel::Notice,
                    format!("RDB memory usage when created {:.2} Mb", int() as f64 / (1024.0 * 1024.0)),
                ),
                "aof-preamble" if int() != 0 => (LogLevel::Notice, "RDB has an AOF tail".into()),
                "aof-base" if int() != 0 => (LogLevel::Notice, "RDB is base AOF".into()),
                "repl-stream-db" | "repl-id" | "repl-offset" | "lua" | "redis-bits" | "aof-preamble" | "aof-base" => {
                    continue
                }
                _ => (LogLevel::Debug, format!("Unrecognized RDB AUX field: '{key}'")),
            };
            self.server_log(level, msg);
        }
    }
}

/// `SAVE`: the dataset to the RDB file, now (the server does nothing else meanwhile).
pub fn save(e: &mut Engine, _c: &Call) -> Reply {
    e.persist.rdb_saves += 1;
    if e.rdb_save() {
        Reply::ok()
    } else {
        Reply::err("ERR")
    }
}

/// `LASTSAVE`: the Unix time of the last successful save.
pub fn lastsave(e: &mut Engine, _c: &Call) -> Reply {
    Reply::Integer(e.persist.lastsave)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineOptions;

    fn argv(args: &[&str]) -> Vec<Vec<u8>> {
        args.iter().map(|a| a.as_bytes().to_vec()).collect()
    }

    #[test]
    fn save_then_load_restores_the_dataset_and_counts() {
        let mut e = Engine::new(EngineOptions::default());
        let c = e.connect();
        for cmd in [
            &["SET", "s", "hello"][..],
            &["RPUSH", "l", "a", "b", "c"],
            &["SADD", "set", "1", "2", "x"],
            &["ZADD", "z", "1", "a", "2", "b"],
            &["HSET", "h", "f", "v"],
            &["SET", "ttl", "v", "PX", "5000"],
            &["SELECT", "3"],
            &["SET", "other", "42"],
        ] {
            assert!(!e.execute(c, &argv(cmd)).is_error(), "{cmd:?}");
        }
        assert_eq!(e.execute(c, &argv(&["SAVE"])), Reply::ok());
        let image = e.rdb_file().unwrap().expect("a file");
        assert_eq!(e.execute(c, &argv(&["DBSIZE"])), Reply::Integer(1));
        let mut f = Engine::new(EngineOptions::default());
        let report = f.load_rdb(&image).unwrap();
        assert_eq!((report.keys_loaded, report.keys_expired), (7, 0));
        let d = f.connect();
        assert_eq!(f.execute(d, &argv(&["LRANGE", "l", "0", "-1"])), Reply::bulks(["a", "b", "c"]));
        assert_eq!(f.execute(d, &argv(&["PTTL", "ttl"])), Reply::Integer(5000));
        f.execute(d, &argv(&["SELECT", "3"]));
        assert_eq!(f.execute(d, &argv(&["GET", "other"])), Reply::bulk("42"));
        // Past the TTL, a load skips the key and counts it.
        let mut g = Engine::new(EngineOptions { seed: 0, start_ms: crate::engine::DEFAULT_START_MS + 6000 });
        let report = g.load_rdb(&image).unwrap();
        assert_eq!((report.keys_loaded, report.keys_expired), (6, 1));
    }

    #[test]
    fn a_restart_loads_what_was_saved_and_shutdown_saves_under_save_points() {
        let mut e = Engine::new(EngineOptions::default());
        let c = e.connect();
        e.execute(c, &argv(&["SET", "saved", "1"]));
        e.execute(c, &argv(&["SAVE"]));
        e.execute(c, &argv(&["SET", "unsaved", "1"]));
        assert_eq!(e.restart().unwrap().map(|r| r.keys_loaded), Some(1));
        assert_eq!(e.execute(c, &argv(&["EXISTS", "saved", "unsaved"])), Reply::Integer(1));
        // With save points SHUTDOWN saves first; the engine says it is gone.
        e.execute(c, &argv(&["CONFIG", "SET", "save", "60 1"]));
        e.execute(c, &argv(&["SET", "late", "1"]));
        e.execute(c, &argv(&["SHUTDOWN"]));
        assert!(e.has_shut_down());
        assert_eq!(e.restart().unwrap().map(|r| r.keys_loaded), Some(2));
        assert!(!e.has_shut_down());
    }

    #[test]
    fn a_failed_load_changes_nothing() {
        let mut e = Engine::new(EngineOptions::default());
        let c = e.connect();
        e.execute(c, &argv(&["SET", "k", "v"]));
        let mut image = e.rdb_image();
        let n = image.len();
        image[n - 3] ^= 0x40;
        assert!(matches!(e.load_rdb(&image), Err(LoadFailure::File(_))));
        assert_eq!(e.execute(c, &argv(&["GET", "k"])), Reply::bulk("v"));
        assert!(matches!(e.load_rdb(&image[..n - 20]), Err(LoadFailure::File(_))));
        assert_eq!(e.dbsize(0), 1);
    }
}
