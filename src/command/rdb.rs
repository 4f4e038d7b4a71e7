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
//! BGSAVE (`bgsaveCommand()`, `rdbSaveBackground()`, `backgroundSaveDoneHandlerDisk()`) and the
//! save points serverCron fires: the fork is a snapshot of the dataset taken at once (the
//! child's image); the child then takes `RDB_SAVE_NS_PER_BYTE` of virtual time per byte
//! (cost.rs), and serverCron's check for finished children writes the image to the store,
//! takes the changes made before the fork off `rdb_changes_since_last_save` and sets
//! `lastsave`. SAVE refuses while a child works; FLUSHALL and SHUTDOWN kill it, as Redis does.
//!
//! Differences: the file is written whole or not at all, then loaded whole or not at all — a
//! corrupt file, a duplicate key or a library that fails is an error here, where Redis exits or
//! panics (for DEBUG RELOAD, after it has emptied the dataset: so does this). SAVE is instant in
//! virtual time (no cost is charged for it yet); a BGSAVE child's copy-on-write memory is
//! modelled per key changed while it works (engine `ForkCow`: the value's size rounded up to
//! 4 KB pages; a FLUSHALL's or a DEBUG RELOAD's mass change is not counted), as INFO's
//! `current_cow_size`/`rdb_last_cow_size` and the child's log line. Libraries are saved in name order, keys in the engine's
//! iteration order (Redis: its dicts' hash order). Replication's `repl-*` AUX fields are not
//! here yet.

use super::cluster::{load_options, save_options, set_lru_or_lfu};
use crate::command::call::Call;
use crate::ds::skiplist::random_level;
use crate::engine::{uniform, Bgsave, Engine, ForkCow, LogLevel};
use crate::evict::estimate_idle_ms;
use crate::object::lfu_decr_and_return;
use crate::persist::rdb_file::{self, Checksum, FileLoadOptions, FileOptions, Header, KeyMeta, RdbError, RdbWriter};
use crate::persist::store::FileStore;
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
    /// Where the RDB ended in the bytes read (an old AOF's tail follows it).
    pub end: usize,
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
    /// The AOF files don't load (command/aof.rs), in Redis's words.
    Aof(String),
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
            LoadFailure::Store(msg) | LoadFailure::Aof(msg) => write!(f, "{msg}"),
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
    /// Keys past their TTL are loaded too: an AOF's RDB part (`RDBFLAGS_AOF_PREAMBLE`), a
    /// replica's load (it waits for its master's DEL).
    pub keep_expired: bool,
}

impl Engine {
    /// Where SAVE writes and DEBUG RELOAD reads the RDB file (default: in memory).
    pub fn set_rdb_store(&mut self, store: Box<dyn FileStore>) {
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
        self.rdb_image_with(false)
    }

    /// The RDB image, marked as an AOF's base file (`aof-base 1`) when `aof_base`.
    pub(crate) fn rdb_image_with(&self, aof_base: bool) -> Vec<u8> {
        let opts = FileOptions { values: save_options(self), checksum: self.config.bool("rdbchecksum") };
        let header = Header { ctime: self.now_ms.div_euclid(1000), used_mem: self.used_memory(), repl: None, aof_base };
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
                    KeyMeta::Idle(estimate_idle_ms(self.lruclock, obj.lru()) as u64 / 1000)
                } else if self.lfu {
                    KeyMeta::Freq(lfu_decr_and_return(obj.lru(), now, decay) as u8)
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
        self.rdb_load_image(image, LoadMode { merge: false, replace: true, keep_expired: false })
    }

    /// A replica's load of its master's payload (replication.rs): the dataset replaced,
    /// expired keys kept.
    pub(crate) fn rdb_load_for_replica(&mut self, image: &[u8]) -> Result<LoadReport, LoadFailure> {
        self.rdb_load_image(image, LoadMode { merge: false, replace: true, keep_expired: true })
    }

    /// A file a host gives the server as its RDB file (the page's "Load an RDB file"): the
    /// dataset becomes what a restart on it would load (`load_rdb`: the keys and libraries
    /// replaced, keys already expired skipped), and the file becomes `dir`/`dbfilename` with
    /// nothing changed since (dirty 0, `lastsave` now) — so DEBUG RELOAD, or SHUTDOWN NOSAVE and
    /// `connect`, find it there — and a BGSAVE at work is killed, as a restart ends it (it would
    /// write the old dataset over the file). When the file doesn't load, nothing changes.
    pub fn load_rdb_file(&mut self, image: &[u8]) -> Result<LoadReport, LoadFailure> {
        let report = self.load_rdb(image)?;
        self.kill_rdb_child();
        let (dir, name) = self.rdb_path();
        if let Err(msg) = self.persist.store.write(&dir, &name, image) {
            self.server_log(LogLevel::Warning, msg);
        }
        self.stats.dirty = 0;
        self.persist.lastsave = self.now_ms.div_euclid(1000);
        Ok(report)
    }

    /// `rdbLoad()` of `dir`/`dbfilename` from the store (DEBUG RELOAD).
    pub(crate) fn rdb_load_from_store(&mut self, merge: bool) -> Result<LoadReport, LoadFailure> {
        let (dir, name) = self.rdb_path();
        let image = match self.persist.store.read(&dir, &name) {
            Ok(Some(image)) => image,
            Ok(None) => return Err(LoadFailure::Missing),
            Err(msg) => return Err(LoadFailure::Store(msg)),
        };
        self.rdb_load_image(&image, LoadMode { merge, replace: false, keep_expired: false })
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
            expire_keys: !mode.keep_expired,
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
            let mut lru = obj.lru();
            set_lru_or_lfu(self, &mut lru, freq, idle);
            obj.set_lru(lru);
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
            end: loaded.end,
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

impl Engine {
    /// `hasActiveChildProcess()`: a BGSAVE or an AOF rewrite child.
    pub(crate) fn has_active_child(&self) -> bool {
        self.persist.bgsave.is_some() || self.persist.aof.rewrite.is_some()
    }

    /// rdb.c `rdbSaveBackground()`: forks a child that writes the dataset as it is now.
    pub(crate) fn rdb_save_background(&mut self) {
        let image = self.rdb_image();
        let ns = crate::cost::scaled(crate::cost::RDB_SAVE_NS_PER_BYTE, self.hot.cost_percent) * image.len() as u64;
        let now = self.now_ms;
        self.persist.lastbgsave_try = now.div_euclid(1000);
        self.persist.bgsave = Some(Bgsave {
            image,
            start_ms: now,
            done_ms: now + ns.div_ceil(1_000_000) as i64,
            dirty_before: self.stats.dirty,
            cow: ForkCow::new(self.dbs.iter().map(|d| d.len() as u64).sum()),
        });
        self.server_log(LogLevel::Notice, "Background saving started");
    }

    /// rdb.c `killRDBChild()`: SAVE, FLUSHALL and SHUTDOWN stop a BGSAVE at work.
    pub(crate) fn kill_rdb_child(&mut self) {
        if self.persist.bgsave.take().is_some() {
            self.server_log(LogLevel::Warning, "Background saving terminated by signal 10");
        }
    }

    /// server.c `checkChildrenDone()` + `backgroundSaveDoneHandlerDisk()`: a child that is done
    /// has its file written; on success the changes before the fork are saved ones.
    pub(crate) fn check_children_done(&mut self) {
        if self.persist.bgsave.as_ref().is_none_or(|b| self.now_ms < b.done_ms) {
            return;
        }
        let Some(b) = self.persist.bgsave.take() else { return };
        let (dir, name) = self.rdb_path();
        match self.persist.store.write(&dir, &name, &b.image) {
            Ok(()) => {
                self.server_log(
                    LogLevel::Notice,
                    format!("RDB: {} MB of memory used by copy-on-write", b.cow.bytes / (1024 * 1024)),
                );
                self.persist.rdb_last_cow_size = b.cow.bytes;
                self.server_log(LogLevel::Notice, "Background saving terminated with success");
                self.stats.dirty = self.stats.dirty.saturating_sub(b.dirty_before);
                self.persist.lastsave = self.now_ms.div_euclid(1000);
                self.persist.lastbgsave_ok = true;
            }
            Err(msg) => {
                self.server_log(LogLevel::Warning, msg);
                self.server_log(LogLevel::Warning, "Background saving error");
                self.persist.lastbgsave_ok = false;
            }
        }
        self.persist.last_bgsave_time_sec = (self.now_ms - b.start_ms).div_euclid(1000);
    }

    /// serverCron()'s persistence part: a child at work is checked; else a scheduled BGSAVE or
    /// a save point that is due starts one (a failed BGSAVE is retried after
    /// `CONFIG_BGSAVE_RETRY_DELAY`, 5 s).
    pub(crate) fn rdb_cron(&mut self) {
        if self.persist.bgsave.is_some() {
            self.check_children_done();
            return;
        }
        if self.has_active_child() {
            return;
        }
        let now_s = self.now_ms.div_euclid(1000);
        let may_retry = now_s - self.persist.lastbgsave_try > 5 || self.persist.lastbgsave_ok;
        let save = self.config.str("save").to_string();
        let points: Vec<i64> = save.split_whitespace().filter_map(|w| w.parse().ok()).collect();
        for pair in points.chunks(2) {
            let [seconds, changes] = pair else { continue };
            if self.stats.dirty >= *changes as u64 && now_s - self.persist.lastsave > *seconds && may_retry {
                self.server_log(LogLevel::Notice, format!("{changes} changes in {seconds} seconds. Saving..."));
                self.rdb_save_background();
                return;
            }
        }
        if self.persist.bgsave_scheduled && may_retry {
            self.persist.bgsave_scheduled = false;
            self.rdb_save_background();
        }
    }

    /// Whether serverCron has persistence work (a child, a scheduled BGSAVE, a save point that
    /// could come due): its ticks can't be skipped.
    pub(crate) fn rdb_cron_has_work(&self) -> bool {
        self.persist.bgsave.is_some()
            || self.persist.bgsave_scheduled
            || (self.stats.dirty > 0 && !self.config.str("save").is_empty())
    }
}

/// `BGSAVE [SCHEDULE]`
pub fn bgsave(e: &mut Engine, c: &Call) -> Reply {
    let mut schedule = false;
    if c.argc() > 1 {
        if c.argc() == 2 && super::is_opt(c.arg(1), "schedule") {
            schedule = true;
        } else {
            return super::syntax_error();
        }
    }
    if e.persist.bgsave.is_some() {
        return Reply::err("ERR Background save already in progress");
    }
    // Inside EXEC a fork is put off to serverCron (`server.in_exec`); while an AOF rewrite
    // works, only SCHEDULE puts it off.
    if e.has_active_child() || e.exec_running {
        if !(schedule || e.exec_running) {
            return Reply::err(
                "ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.",
            );
        }
        e.persist.bgsave_scheduled = true;
        return Reply::Status("Background saving scheduled".into());
    }
    e.persist.rdb_saves += 1;
    e.rdb_save_background();
    Reply::Status("Background saving started".into())
}

/// `SAVE`: the dataset to the RDB file, now (the server does nothing else meanwhile).
pub fn save(e: &mut Engine, _c: &Call) -> Reply {
    if e.persist.bgsave.is_some() {
        return Reply::err("ERR Background save already in progress");
    }
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

    fn info_field(e: &mut Engine, c: u64, name: &str) -> String {
        let Reply::Verbatim(text) = e.execute(c, &argv(&["INFO", "persistence"])) else { panic!("INFO") };
        let text = String::from_utf8_lossy(&text).into_owned();
        let prefix = format!("{name}:");
        text.lines().find_map(|l| l.strip_prefix(prefix.as_str())).unwrap_or("?").to_string()
    }

    #[test]
    fn bgsave_forks_a_child_that_writes_the_dataset_as_it_was_when_it_started() {
        let t0 = 1_700_000_000_000;
        let mut e = Engine::new(EngineOptions { seed: 1, start_ms: t0 });
        let c = e.connect();
        for i in 0..2000 {
            e.execute(c, &argv(&["SET", &format!("key:{i}"), &format!("value-value-{i}")]));
        }
        assert_eq!(e.execute(c, &argv(&["BGSAVE", "x"])), Reply::err("ERR syntax error"));
        assert_eq!(e.execute(c, &argv(&["BGSAVE"])), Reply::Status("Background saving started".into()));
        assert_eq!(info_field(&mut e, c, "rdb_bgsave_in_progress"), "1");
        assert_eq!(e.execute(c, &argv(&["BGSAVE"])), Reply::err("ERR Background save already in progress"));
        assert_eq!(e.execute(c, &argv(&["SAVE"])), Reply::err("ERR Background save already in progress"));
        assert_eq!(info_field(&mut e, c, "current_save_keys_total"), "2000");
        // A write after the fork is not in the file, and stays a change to save. It copies the
        // page its key lies on (one page per key changed, however often).
        e.execute(c, &argv(&["SET", "after", "fork"]));
        e.execute(c, &argv(&["SET", "key:1", "changed"]));
        e.execute(c, &argv(&["SET", "key:1", "again"]));
        e.execute(c, &argv(&["SET", "big", &"x".repeat(10_000)]));
        assert_eq!(info_field(&mut e, c, "current_cow_size"), (2 * 4096 + 3 * 4096).to_string());
        assert_eq!(e.rdb_file().unwrap(), None, "nothing written before the child is done");
        e.advance_to(t0 + 1_000, u64::MAX);
        assert_eq!(info_field(&mut e, c, "rdb_bgsave_in_progress"), "0");
        assert_eq!(info_field(&mut e, c, "rdb_last_bgsave_status"), "ok");
        assert_eq!(info_field(&mut e, c, "rdb_changes_since_last_save"), "4");
        assert_eq!(info_field(&mut e, c, "rdb_last_cow_size"), (5 * 4096).to_string());
        assert_eq!(info_field(&mut e, c, "current_cow_size"), "0");
        assert_eq!(info_field(&mut e, c, "rdb_last_save_time"), (t0 / 1000).to_string());
        let file = e.rdb_file().unwrap().expect("the child's file");
        let mut fresh = Engine::new(EngineOptions { seed: 1, start_ms: t0 });
        let report = fresh.load_rdb(&file).unwrap();
        assert_eq!(report.keys_loaded, 2000);
        // 2000 keys, ~40 KB: 44 ns a byte is under 2 ms of the child's time, done by the next tick.
        assert!(file.len() > 40_000 && file.len() < 60_000, "{}", file.len());
    }

    #[test]
    fn save_points_and_a_bgsave_inside_exec_start_a_child_from_cron() {
        let t0 = 1_700_000_000_000;
        let mut e = Engine::new(EngineOptions { seed: 1, start_ms: t0 });
        let c = e.connect();
        e.execute(c, &argv(&["MULTI"]));
        e.execute(c, &argv(&["SET", "k", "v"]));
        e.execute(c, &argv(&["BGSAVE"]));
        let Reply::Array(replies) = e.execute(c, &argv(&["EXEC"])) else { panic!("EXEC") };
        assert_eq!(replies[1], Reply::Status("Background saving scheduled".into()));
        // Started by the first tick (t0+100), seen done by the next one.
        e.advance_to(t0 + 250, u64::MAX);
        assert_eq!(info_field(&mut e, c, "rdb_bgsave_in_progress"), "0");
        assert!(e.rdb_file().unwrap().is_some(), "the scheduled BGSAVE ran and finished");
        // `save 2 1`: one change and more than 2 s since the last save fire a BGSAVE.
        e.execute(c, &argv(&["CONFIG", "SET", "save", "2 1"]));
        e.execute(c, &argv(&["SET", "k2", "v"]));
        e.advance_to(t0 + 2_900, u64::MAX);
        assert_eq!(info_field(&mut e, c, "rdb_changes_since_last_save"), "1", "not yet: 2 s not passed");
        e.advance_to(t0 + 3_500, u64::MAX);
        assert_eq!(info_field(&mut e, c, "rdb_changes_since_last_save"), "0");
        assert!(e.take_log().iter().any(|l| l.message == "1 changes in 2 seconds. Saving..."));
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
    fn a_file_whose_library_fails_changes_nothing() {
        let mut theirs = Engine::new(EngineOptions::default());
        let c = theirs.connect();
        theirs.execute(c, &argv(&["CONFIG", "SET", "rdbcompression", "no"]));
        let lib = "#!lua name=theirs\nredis.register_function('g', function() return 2 end)";
        assert_eq!(theirs.execute(c, &argv(&["FUNCTION", "LOAD", lib])), Reply::bulk("theirs"));
        theirs.execute(c, &argv(&["SET", "their", "1"]));
        let mut image = theirs.rdb_image();
        // Broken code of the same length: the file still reads (its checksum aside), the
        // library does not compile.
        let at = image.windows(8).position(|w| w == b"return 2").unwrap();
        image[at..at + 8].copy_from_slice(b"return (");
        let n = image.len();
        image[n - 8..].fill(0); // checksum 0: not checked, as a file saved with rdbchecksum no

        let mut mine = Engine::new(EngineOptions::default());
        let c = mine.connect();
        let lib = "#!lua name=mine\nredis.register_function('f', function() return 1 end)";
        mine.execute(c, &argv(&["FUNCTION", "LOAD", lib]));
        mine.execute(c, &argv(&["SET", "k", "v"]));
        assert!(matches!(mine.load_rdb_file(&image), Err(LoadFailure::Library(_))));
        assert_eq!(mine.execute(c, &argv(&["GET", "k"])), Reply::bulk("v"));
        assert_eq!(mine.execute(c, &argv(&["FCALL", "f", "0"])), Reply::Integer(1));
        assert_eq!(mine.dbsize(0), 1);
        assert_eq!(mine.rdb_file(), Ok(None), "a file that did not load is not kept");
    }

    #[test]
    fn a_loaded_file_is_the_servers_file() {
        let mut theirs = Engine::new(EngineOptions::default());
        let c = theirs.connect();
        theirs.execute(c, &argv(&["SET", "their", "1"]));
        theirs.execute(c, &argv(&["SET", "gone", "1", "PX", "10"]));
        let image = theirs.rdb_image();

        let mut mine =
            Engine::new(EngineOptions { start_ms: EngineOptions::default().start_ms + 1000, ..Default::default() });
        let c = mine.connect();
        mine.execute(c, &argv(&["SET", "k", "v"]));
        let report = mine.load_rdb_file(&image).unwrap();
        assert_eq!((report.keys_loaded, report.keys_expired), (1, 1));
        assert_eq!(mine.execute(c, &argv(&["EXISTS", "k", "their", "gone"])), Reply::Integer(1));
        assert_eq!(mine.rdb_file(), Ok(Some(image)));
        assert_eq!(info_field(&mut mine, c, "rdb_changes_since_last_save"), "0");
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
