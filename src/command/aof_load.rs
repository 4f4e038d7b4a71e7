//! Loading the append only file — aof.c's reading side and server.c's start:
//! - `loadDataFromDisk()`: with `appendonly yes` the AOF files, else the RDB file; a host's
//!   restart (`Engine::restart`) and `redisplay serve`'s start go through it;
//! - `loadAppendOnlyFiles()`, `loadSingleAppendOnlyFile()`: the manifest
//!   (`aofLoadManifestFromDisk()`), the upgrade of an old single `appendonly.aof`
//!   (`aofUpgradePrepare()`), the base (RDB or AOF; expired keys kept, as an AOF preamble keeps
//!   them) and the incr files, whose commands run as a fake client's with nothing expiring
//!   meanwhile (`server.loading`); a truncated last file is cut at its last whole command when
//!   `aof-load-truncated` (an unfinished MULTI reverted whole);
//! - `aofOpenIfNeededOnServerStart()`: a fresh AOF's base and incr files;
//! - `DEBUG LOADAOF`.
//!
//! Running the file's commands goes through dispatch.rs's `call()`: a command that runs
//! commands, so this module (and DEBUG, which reaches it) is part of the module circle
//! src/lib.rs documents.
//!
//! Deviations: the fake client's commands are counted in the command stats only until the load
//! ends (they are put back, as Redis never counts them); load times are virtual (0.000 s); a
//! failed load leaves the dataset empty (redis-server exits).

use crate::engine::{AofStatus, Engine, LogLevel};
use crate::persist::aof::{parse_manifest, read_commands, AofEnd, Manifest};

use super::rdb::{LoadFailure, LoadMode, LoadReport};

/// How a load of the AOF files ended (aof.c's `AOF_OK`, `AOF_NOT_EXIST`, `AOF_EMPTY`,
/// `AOF_TRUNCATED`; `AOF_OPEN_ERR`/`AOF_FAILED` are the `Err` of `load_append_only_files`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AofLoad {
    Ok,
    NotExist,
    Empty,
    Truncated,
}

impl Engine {
    /// A restart, as redis-server's with the same command line: a fresh engine (`reset`, which
    /// keeps the startup configuration and the store) that loads its files (`loadDataFromDisk()`).
    /// What CONFIG SET changed since the start is gone, as without CONFIG REWRITE. Time goes on:
    /// the clock stays where it was (keys whose TTL passed meanwhile are skipped by the load).
    pub fn restart(&mut self) -> Result<Option<LoadReport>, LoadFailure> {
        let now = self.now_ms;
        self.reset();
        self.set_time(now);
        self.load_data_from_disk()
    }

    /// server.c `loadDataFromDisk()` and what follows it at startup: with `appendonly yes` the
    /// AOF files (then `aofOpenIfNeededOnServerStart()`), else the RDB file.
    pub fn load_data_from_disk(&mut self) -> Result<Option<LoadReport>, LoadFailure> {
        if !self.config.bool("appendonly") {
            let (dir, name) = (self.config.str("dir").to_string(), self.config.str("dbfilename").to_string());
            return match self.persist.store.read(&dir, &name) {
                Ok(None) => Ok(None),
                Ok(Some(image)) => self.load_rdb(&image).map(Some),
                Err(msg) => Err(LoadFailure::Store(msg)),
            };
        }
        self.persist.aof.status = AofStatus::On;
        let m = self.aof_load_manifest_from_disk().map_err(LoadFailure::Aof)?;
        self.persist.aof.manifest = m;
        let loaded = self.load_append_only_files();
        if let Err(msg) = loaded {
            self.empty_data(true);
            return Err(LoadFailure::Aof(msg));
        }
        if matches!(loaded, Ok(AofLoad::Ok | AofLoad::Truncated)) {
            self.server_log(LogLevel::Notice, "DB loaded from append only file: 0.000 seconds");
        }
        self.aof_open_if_needed_on_server_start().map_err(LoadFailure::Aof)?;
        Ok(None)
    }

    /// aof.c `aofLoadManifestFromDisk()`: no directory or no manifest is an empty one.
    fn aof_load_manifest_from_disk(&mut self) -> Result<Manifest, String> {
        let dir = self.aof_dir();
        if !self.persist.store.dir_exists(&dir) {
            return Ok(Manifest::default());
        }
        let name = format!("{}.manifest", self.aof_filename());
        match self.persist.store.read(&dir, &name) {
            Ok(None) => Ok(Manifest::default()),
            Ok(Some(text)) => parse_manifest(&text).map(Manifest::from_files).map_err(|e| e.to_string()),
            Err(e) => Err(format!("Fatal error: can't open the AOF manifest file {name} for reading: {e}")),
        }
    }

    /// aof.c `loadAppendOnlyFiles()`: the base, then each incr file, in the manifest's order.
    fn load_append_only_files(&mut self) -> Result<AofLoad, String> {
        let (root, dir, filename) = (self.config.str("dir").to_string(), self.aof_dir(), self.aof_filename());
        // An old single AOF in `dir` moves into the AOF directory as its base.
        let m = &self.persist.aof.manifest;
        let no_files = m.base.is_none() && m.incr.is_empty();
        let only_old_base = m.incr.is_empty() && m.base.as_ref().is_some_and(|b| b.name == filename.as_bytes());
        if self.persist.store.size(&root, &filename).is_some() {
            let dir_missing = !self.persist.store.dir_exists(&dir);
            let moved = only_old_base && self.persist.store.size(&dir, &filename).is_some();
            if dir_missing || no_files || (only_old_base && !moved) {
                // Only now is the old file read (to move it).
                let old = self.persist.store.read(&root, &filename)?.unwrap_or_default();
                self.aof_upgrade_prepare(&old)?;
            }
        }
        let m = self.persist.aof.manifest.clone();
        if m.base.is_none() && m.incr.is_empty() {
            return Ok(AofLoad::NotExist);
        }
        let mut files = Vec::new();
        for f in m.loaded_files() {
            let name = String::from_utf8_lossy(&f.name).into_owned();
            match self.persist.store.read(&dir, &name) {
                Ok(Some(bytes)) => files.push((name, bytes, f.kind == b'b')),
                Ok(None) => {
                    return Err(format!("Unable to obtain the AOF file {name} length. stat: No such file or directory"))
                }
                Err(e) => return Err(format!("Unable to obtain the AOF file {name} length. stat: {e}")),
            }
        }
        let total: u64 = files.iter().map(|(_, b, _)| b.len() as u64).sum();
        if total == 0 {
            return Ok(AofLoad::Empty);
        }
        let base_size = files.iter().find(|f| f.2).map_or(0, |f| f.1.len() as u64);
        let count = files.len();
        let mut result = AofLoad::Ok;
        self.loading = true;
        let saved_stats = (self.stats.commands.clone(), self.stats.histograms);
        let outcome = (|| {
            for (i, (name, bytes, is_base)) in files.iter().enumerate() {
                let last = i + 1 == count;
                let r = self.load_single_append_only_file(name, bytes)?;
                if r == AofLoad::Truncated && !last {
                    return Err("Fatal error: the truncated file is not the last file".to_string());
                }
                if matches!(r, AofLoad::Ok | AofLoad::Truncated) {
                    let kind = if *is_base { "base" } else { "incr" };
                    self.server_log(LogLevel::Notice, format!("DB loaded from {kind} file {name}: 0.000 seconds"));
                }
                if r == AofLoad::Truncated {
                    result = AofLoad::Truncated;
                }
            }
            Ok(())
        })();
        self.loading = false;
        (self.stats.commands, self.stats.histograms) = saved_stats;
        outcome?;
        let a = &mut self.persist.aof;
        a.current_size = total;
        a.rewrite_base_size = base_size;
        a.fsync_offset = total;
        Ok(result)
    }

    /// aof.c `aofUpgradePrepare()`: the AOF directory, a manifest whose base is the old file,
    /// and the old file moved into the directory.
    fn aof_upgrade_prepare(&mut self, old: &[u8]) -> Result<(), String> {
        let (root, dir, filename) = (self.config.str("dir").to_string(), self.aof_dir(), self.aof_filename());
        let dirname = self.config.str("appenddirname").to_string();
        self.persist
            .store
            .make_dir(&dir)
            .map_err(|e| format!("Can't open or create append-only dir {dirname}: {e}"))?;
        let base = crate::persist::aof::AofInfo { name: filename.clone().into_bytes(), seq: 1, kind: b'b' };
        let m = Manifest { base: Some(base), base_seq: 1, ..Default::default() };
        if !self.persist_aof_manifest(&m) {
            return Err("Can't persist the AOF manifest".into());
        }
        self.persist.aof.manifest = m;
        let moved = self.persist.store.replace(&dir, &filename, old);
        if let Err(e) = moved {
            return Err(format!("Error trying to move the old AOF file {filename} into dir {dirname}: {e}"));
        }
        self.persist.store.remove(&root, &filename);
        self.server_log(
            LogLevel::Notice,
            format!("Successfully migrated an old-style AOF file ({filename}) into the AOF directory ({dirname})."),
        );
        Ok(())
    }

    /// aof.c `loadSingleAppendOnlyFile()`: an RDB part (a base file, or an old AOF's
    /// preamble) loads as RDB keeping expired keys; the commands run as a fake client's.
    fn load_single_append_only_file(&mut self, name: &str, bytes: &[u8]) -> Result<AofLoad, String> {
        if bytes.is_empty() {
            return Ok(AofLoad::Empty);
        }
        let mut at = 0;
        if bytes.starts_with(b"REDIS") {
            let old_style = name == self.aof_filename();
            self.server_log(
                LogLevel::Notice,
                if old_style {
                    "Reading RDB preamble from AOF file..."
                } else {
                    "Reading RDB base file on AOF loading..."
                },
            );
            match self.rdb_load_image(bytes, LoadMode { merge: false, replace: false, keep_expired: true }) {
                Ok(report) => at = report.end,
                Err(e) => {
                    let what = if old_style { "the RDB preamble of the AOF file" } else { "the RDB base file" };
                    return Err(format!("Error reading {what} {name}, AOF loading aborted: {e}"));
                }
            }
            if old_style {
                self.server_log(LogLevel::Notice, "Reading the remaining AOF tail...");
            }
        }
        let tail = &bytes[at..];
        let read = read_commands(tail, usize::MAX);
        let fake = u64::MAX;
        self.clients.insert(fake, crate::engine::Client::new(fake, self.now_ms));
        let mut valid_up_to = 0usize;
        let mut before_multi = 0usize;
        let mut failed = None;
        for (argv, end) in &read.commands {
            let cmd = match super::table::table().lookup(argv) {
                super::call::Lookup::Found(cmd) => cmd,
                _ => {
                    let shown = String::from_utf8_lossy(&argv[0]).into_owned();
                    failed = Some(format!("Unknown command '{shown}' reading the append only file {name}"));
                    break;
                }
            };
            let in_multi = self.clients.get(&fake).is_some_and(|c| c.in_multi);
            if cmd.name == "multi" {
                before_multi = valid_up_to;
            }
            if in_multi && cmd.name != "exec" {
                if let Some(c) = self.clients.get_mut(&fake) {
                    c.queued.push(argv.clone());
                }
            } else {
                let _ = self.call(fake, cmd, argv);
            }
            valid_up_to = at + end;
        }
        let unfinished_multi = self.clients.get(&fake).is_some_and(|c| c.in_multi);
        self.clients.remove(&fake);
        if let Some(msg) = failed {
            return Err(msg);
        }
        let short = match read.end {
            AofEnd::Complete if !unfinished_multi => return Ok(AofLoad::Ok),
            AofEnd::Complete => {
                self.server_log(LogLevel::Warning, format!("Revert incomplete MULTI/EXEC transaction in AOF file {name}"));
                before_multi
            }
            AofEnd::Truncated if unfinished_multi => before_multi,
            AofEnd::Truncated => valid_up_to,
            AofEnd::BadFormat { .. } => {
                return Err(format!(
                    "Bad file format reading the append only file {name}: make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>"
                ))
            }
        };
        if self.config.bool("aof-load-truncated") {
            self.server_log(LogLevel::Warning, format!("!!! Warning: short read while loading the AOF file {name}!!!"));
            self.server_log(LogLevel::Warning, format!("!!! Truncating the AOF {name} at offset {short} !!!"));
            let dir = self.aof_dir();
            match self.persist.store.truncate(&dir, name, short as u64) {
                Ok(()) => {
                    self.server_log(
                        LogLevel::Warning,
                        format!("AOF {name} loaded anyway because aof-load-truncated is enabled"),
                    );
                    return Ok(AofLoad::Truncated);
                }
                Err(e) => {
                    self.server_log(LogLevel::Warning, format!("Error truncating the AOF file {name}: {e}"));
                }
            }
        }
        Err(format!(
            "Unexpected end of file reading the append only file {name}. You can: 1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. 2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server."
        ))
    }

    /// aof.c `aofOpenIfNeededOnServerStart()`: a fresh AOF gets its base file (the dataset, as
    /// a rewrite writes it) and an incr file; the manifest is persisted.
    fn aof_open_if_needed_on_server_start(&mut self) -> Result<(), String> {
        if self.persist.aof.status != AofStatus::On {
            return Ok(());
        }
        let (dir, filename) = (self.aof_dir(), self.aof_filename());
        let dirname = self.config.str("appenddirname").to_string();
        self.persist
            .store
            .make_dir(&dir)
            .map_err(|e| format!("Can't open or create append-only dir {dirname}: {e}"))?;
        let mut m = self.persist.aof.manifest.clone();
        if m.base.is_none() && m.incr.is_empty() {
            let base = m.new_base(&filename, self.config.bool("aof-use-rdb-preamble"));
            let image = self.aof_base_image();
            self.persist
                .store
                .replace(&dir, &base, &image)
                .map_err(|e| format!("Write error writing append only file on disk: {e}"))?;
            self.server_log(LogLevel::Notice, format!("Creating AOF base file {base} on server start"));
        }
        let had_incr = !m.incr.is_empty();
        let name = m.last_incr(&filename);
        self.persist
            .store
            .append(&dir, &name, b"", false)
            .map_err(|e| format!("Can't open the append-only file {name}: {e}"))?;
        if !self.persist_aof_manifest(&m) {
            return Err("Can't persist the AOF manifest".into());
        }
        let size = self.persist.store.size(&dir, &name).unwrap_or(0);
        let a = &mut self.persist.aof;
        a.manifest = m;
        a.last_incr_size = size;
        a.incr_name = Some(name.clone());
        a.last_fsync_s = self.now_ms.div_euclid(1000);
        let verb = if had_incr { "Opening" } else { "Creating" };
        self.server_log(LogLevel::Notice, format!("{verb} AOF incr file {name} on server start"));
        self.sync_aof_sink();
        Ok(())
    }

    /// `DEBUG LOADAOF`: the AOF written out, the dataset emptied and loaded back from the files.
    pub(crate) fn debug_loadaof(&mut self) -> Result<(), String> {
        if self.persist.aof.status == AofStatus::On {
            self.flush_append_only_file();
        }
        self.empty_data(false);
        let m = self.aof_load_manifest_from_disk()?;
        self.persist.aof.manifest = m;
        self.aof_del_history_files();
        let sink = self.prop.aof.take();
        self.prop.refresh();
        let loaded = self.load_append_only_files();
        self.prop.aof = sink;
        self.prop.refresh();
        match loaded {
            Ok(AofLoad::Ok | AofLoad::Empty) => {}
            Ok(_) => return Err("the AOF did not load whole".into()),
            Err(e) => return Err(e),
        }
        self.stats.dirty = 0;
        self.server_log(LogLevel::Warning, "Append Only File loaded by DEBUG LOADAOF");
        Ok(())
    }
}
