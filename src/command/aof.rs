//! The append only file at work — aof.c of Redis 7.0, its multi-part AOF:
//! - `appendonly yes` at runtime: `startAppendOnly()` (the AOF waits for a rewrite that makes its
//!   base — `AOF_WAIT_REWRITE`, commands going to a temp incr file meanwhile), `stopAppendOnly()`;
//! - `feedAppendOnlyFile()` is propagate.rs's AOF sink; `flushAppendOnlyFile()` writes the buffer
//!   to the incr file in `beforeSleep()` (and serverCron), `appendfsync` deciding the fsyncs
//!   (`always`: each write; `everysec`: at most once a second; `no`: never;
//!   `no-appendfsync-on-rewrite` skips them while a child works);
//! - `rewriteAppendOnlyFileBackground()` (BGREWRITEAOF, a scheduled rewrite, the
//!   `auto-aof-rewrite-percentage` growth rule) — a child in virtual time, as BGSAVE's
//!   (command/rdb.rs): it writes the dataset as it was when it forked, an RDB with the
//!   `aof-base` aux field (`aof-use-rdb-preamble yes`) or the commands of persist/aof.rs; the
//!   parent opens a new incr file at once (`openNewIncrAofForAppend()`), and when the child is
//!   done `backgroundRewriteDoneHandler()` installs the new base, turns the covered files into
//!   history, persists the manifest and unlinks the history (`aofDelHistoryFiles()`);
//! - loading the files is aof_load.rs (it runs commands: a part of the module circle).
//!
//! Deviations: no fork, so no pid in the log lines or temp names; the write and fsync happen
//! at once (no bio thread: `aof_pending_bio_fsync` and `aof_delayed_fsync` stay 0, a flush is
//! never postponed); a write error with `appendfsync always` is logged and kept for a retry
//! (Redis exits); `aof-timestamp-enabled` writes no `#TS:` lines.

use crate::engine::{AofRewrite, AofStatus, Engine, ForkCow, LogLevel};
use crate::persist::aof::Manifest;
use crate::propagate::AofSink;
use crate::reply::Reply;

use super::call::Call;

impl Engine {
    pub(crate) fn aof_dir(&self) -> String {
        format!("{}/{}", self.config.str("dir"), self.config.str("appenddirname"))
    }

    pub(crate) fn aof_filename(&self) -> String {
        self.config.str("appendfilename").to_string()
    }

    fn temp_incr_name(&self) -> String {
        format!("temp-{}.incr", self.aof_filename())
    }

    /// The AOF's end of the propagation stream follows its state: fed while the AOF is on, or
    /// while it waits for a rewrite that is running (feedAppendOnlyFile()'s condition).
    pub(crate) fn sync_aof_sink(&mut self) {
        let a = &self.persist.aof;
        let fed = a.status == AofStatus::On || (a.status == AofStatus::WaitRewrite && a.rewrite.is_some());
        if fed != self.prop.aof.is_some() {
            self.prop.aof = fed.then(AofSink::default);
            self.prop.refresh();
        }
    }

    /// config.c `updateAppendonly()`.
    pub(crate) fn update_appendonly(&mut self) {
        let enabled = self.config.bool("appendonly");
        let status = self.persist.aof.status;
        if !enabled && status != AofStatus::Off {
            self.stop_append_only();
        } else if enabled && status == AofStatus::Off && !self.start_append_only() {
            self.server_log(LogLevel::Warning, "Unable to turn on AOF. Check server logs.");
        }
    }

    /// aof.c `startAppendOnly()`.
    fn start_append_only(&mut self) -> bool {
        self.persist.aof.status = AofStatus::WaitRewrite;
        if self.persist.bgsave.is_some() {
            self.persist.aof.rewrite_scheduled = true;
            self.server_log(
                LogLevel::Warning,
                "AOF was enabled but there is already another background operation. An AOF background was scheduled to start when possible.",
            );
        } else if self.exec_running {
            self.persist.aof.rewrite_scheduled = true;
            self.server_log(
                LogLevel::Warning,
                "AOF was enabled during a transaction. An AOF background was scheduled to start when possible.",
            );
        } else {
            if self.persist.aof.rewrite.is_some() {
                self.server_log(
                    LogLevel::Warning,
                    "AOF was enabled but there is already an AOF rewriting in background. Stopping background AOF and starting a rewrite now.",
                );
                self.kill_append_only_child();
            }
            if !self.rewrite_append_only_file_background() {
                self.persist.aof.status = AofStatus::Off;
                self.server_log(
                    LogLevel::Warning,
                    "Redis needs to enable the AOF but can't trigger a background AOF rewrite operation. Check the above logs for more info about the error.",
                );
                return false;
            }
        }
        self.persist.aof.last_fsync_s = self.now_ms.div_euclid(1000);
        self.persist.aof.last_write_ok = true;
        true
    }

    /// aof.c `stopAppendOnly()`.
    fn stop_append_only(&mut self) {
        self.flush_append_only_file();
        let a = &mut self.persist.aof;
        a.fsync_offset = a.current_size;
        a.last_fsync_s = self.now_ms.div_euclid(1000);
        a.incr_name = None;
        a.status = AofStatus::Off;
        a.rewrite_scheduled = false;
        a.last_incr_size = 0;
        self.kill_append_only_child();
        self.prop.aof = None;
        self.prop.refresh();
    }

    /// aof.c `killAppendOnlyChild()`.
    pub(crate) fn kill_append_only_child(&mut self) {
        if self.persist.aof.rewrite.take().is_some() {
            self.server_log(LogLevel::Notice, "Killing running AOF rewrite child");
        }
        self.sync_aof_sink();
    }

    /// The base file a rewrite writes: an RDB marked `aof-base` (`aof-use-rdb-preamble yes`),
    /// or the commands that rebuild the dataset.
    pub(crate) fn aof_base_image(&self) -> Vec<u8> {
        if !self.config.bool("aof-use-rdb-preamble") {
            return self.aof_rewrite();
        }
        self.rdb_image_with(true)
    }

    /// aof.c `rewriteAppendOnlyFileBackground()`.
    pub(crate) fn rewrite_append_only_file_background(&mut self) -> bool {
        if self.has_active_child() {
            return false;
        }
        let dir = self.aof_dir();
        if let Err(e) = self.persist.store.make_dir(&dir) {
            let name = self.config.str("appenddirname").to_string();
            self.server_log(LogLevel::Warning, format!("Can't open or create append-only dir {name}: {e}"));
            self.persist.aof.lastbgrewrite_ok = false;
            return false;
        }
        // aof_selected_db = -1: the next command fed selects its db again.
        if let Some(sink) = self.prop.aof.as_mut() {
            sink.feed.selected = None;
        }
        self.flush_append_only_file();
        if !self.open_new_incr_for_append() {
            self.persist.aof.lastbgrewrite_ok = false;
            return false;
        }
        self.persist.aof.rewrites += 1;
        let image = self.aof_base_image();
        let cow = ForkCow::new(self.dbs.iter().map(|d| d.len() as u64).sum());
        let ns = crate::cost::scaled(crate::cost::RDB_SAVE_NS_PER_BYTE, self.hot.cost_percent) * image.len() as u64;
        let now = self.now_ms;
        self.persist.aof.rewrite =
            Some(AofRewrite { image, start_ms: now, done_ms: now + ns.div_ceil(1_000_000) as i64, cow });
        self.persist.aof.rewrite_scheduled = false;
        self.server_log(LogLevel::Notice, "Background append only file rewriting started");
        self.sync_aof_sink();
        true
    }

    /// aof.c `openNewIncrAofForAppend()`: the file commands go to from now on — a new incr file
    /// in the manifest (persisted at once), or, while the AOF waits for its first rewrite, the
    /// temp incr file.
    fn open_new_incr_for_append(&mut self) -> bool {
        let status = self.persist.aof.status;
        if status == AofStatus::Off {
            return true;
        }
        let dir = self.aof_dir();
        let mut temp = None;
        let name = if status == AofStatus::WaitRewrite {
            self.temp_incr_name()
        } else {
            let mut m = self.persist.aof.manifest.clone();
            let name = m.new_incr(&self.aof_filename());
            temp = Some(m);
            name
        };
        if let Err(e) = self.persist.store.replace(&dir, &name, b"") {
            self.server_log(LogLevel::Warning, format!("Can't open the append-only file {name}: {e}"));
            return false;
        }
        if let Some(m) = &temp {
            if !self.persist_aof_manifest(m) {
                return false;
            }
        }
        self.server_log(LogLevel::Notice, format!("Creating AOF incr file {name} on background rewrite"));
        let a = &mut self.persist.aof;
        if a.incr_name.is_some() {
            a.fsync_offset = a.current_size;
            a.last_fsync_s = self.now_ms.div_euclid(1000);
        }
        a.incr_name = Some(name);
        a.last_incr_size = 0;
        if let Some(m) = temp {
            a.manifest = m;
        }
        true
    }

    /// aof.c `persistAofManifest()`: the manifest file replaced whole.
    pub(crate) fn persist_aof_manifest(&mut self, m: &Manifest) -> bool {
        let (dir, name) = (self.aof_dir(), format!("{}.manifest", self.aof_filename()));
        match self.persist.store.replace(&dir, &name, &m.format()) {
            Ok(()) => true,
            Err(e) => {
                self.server_log(LogLevel::Warning, format!("Can't open the AOF manifest file temp-{name}: {e}"));
                false
            }
        }
    }

    /// aof.c `flushAppendOnlyFile()`: the buffer to the incr file, then an fsync as
    /// `appendfsync` says.
    pub(crate) fn flush_append_only_file(&mut self) {
        let now_s = self.now_ms.div_euclid(1000);
        let policy = self.config.str("appendfsync");
        let (always, everysec) = (policy == "always", policy == "everysec");
        let buf_len = self.prop.aof.as_ref().map_or(0, |s| s.buf.len());
        let a = &self.persist.aof;
        if buf_len == 0 {
            // everysec: an fsync still owed for what was written before.
            if !(everysec && a.fsync_offset != a.current_size && now_s > a.last_fsync_s) {
                return;
            }
        }
        let Some(name) = a.incr_name.clone() else { return };
        let no_fsync = self.config.bool("no-appendfsync-on-rewrite") && self.has_active_child();
        let fsync = !no_fsync && (always || (everysec && now_s > a.last_fsync_s));
        let dir = self.aof_dir();
        let buf = self.prop.aof.as_mut().map(|s| std::mem::take(&mut s.buf)).unwrap_or_default();
        if let Err(e) = self.persist.store.append(&dir, &name, &buf, fsync) {
            self.server_log(LogLevel::Warning, format!("Error writing to the AOF file: {e}"));
            self.persist.aof.last_write_ok = false;
            if let Some(s) = self.prop.aof.as_mut() {
                // Kept for the next try, before anything fed since.
                let mut rest = std::mem::take(&mut s.buf);
                s.buf = buf;
                s.buf.append(&mut rest);
            }
            return;
        }
        let a = &mut self.persist.aof;
        if !a.last_write_ok {
            a.last_write_ok = true;
            self.server_log(LogLevel::Warning, "AOF write error looks solved, Redis can write again.");
        }
        let a = &mut self.persist.aof;
        a.current_size += buf.len() as u64;
        a.last_incr_size += buf.len() as u64;
        if fsync {
            a.fsync_offset = a.current_size;
            a.last_fsync_s = now_s;
        } else if everysec && now_s > a.last_fsync_s {
            a.last_fsync_s = now_s;
        }
    }

    /// serverCron()'s AOF part: a scheduled rewrite starts when no child works; a child that
    /// is done is handled; the AOF grown past `auto-aof-rewrite-percentage` of its base (and
    /// `auto-aof-rewrite-min-size`) is rewritten; a failed write is retried.
    pub(crate) fn aof_cron(&mut self) {
        if !self.has_active_child() && self.persist.aof.rewrite_scheduled {
            self.rewrite_append_only_file_background();
        }
        if self.persist.aof.rewrite.as_ref().is_some_and(|r| self.now_ms >= r.done_ms) {
            self.background_rewrite_done();
        }
        if let Some(growth) = self.aof_rewrite_growth_due() {
            self.server_log(LogLevel::Notice, format!("Starting automatic rewriting of AOF on {growth}% growth"));
            self.rewrite_append_only_file_background();
        }
        if self.persist.aof.status != AofStatus::Off && !self.persist.aof.last_write_ok {
            self.flush_append_only_file();
        }
    }

    /// The growth (in % of the base) when the AOF has grown past `auto-aof-rewrite-percentage`
    /// and `auto-aof-rewrite-min-size` with no child at work: an automatic rewrite is due.
    fn aof_rewrite_growth_due(&self) -> Option<i64> {
        let a = &self.persist.aof;
        let perc = self.config.int("auto-aof-rewrite-percentage");
        if a.status != AofStatus::On
            || self.has_active_child()
            || perc == 0
            || a.current_size as i64 <= self.config.int("auto-aof-rewrite-min-size")
        {
            return None;
        }
        let growth = (a.current_size * 100 / a.rewrite_base_size.max(1)) as i64 - 100;
        (growth >= perc).then_some(growth)
    }

    /// Whether serverCron has AOF work (its ticks can't be skipped): a child, a scheduled or
    /// due rewrite, a write to retry. An AOF that is merely on leaves idle ticks skippable.
    pub(crate) fn aof_cron_has_work(&self) -> bool {
        let a = &self.persist.aof;
        a.rewrite.is_some()
            || a.rewrite_scheduled
            || (a.status != AofStatus::Off && !a.last_write_ok)
            || self.aof_rewrite_growth_due().is_some()
    }

    /// aof.c `backgroundRewriteDoneHandler()`.
    fn background_rewrite_done(&mut self) {
        let Some(child) = self.persist.aof.rewrite.take() else { return };
        self.server_log(
            LogLevel::Notice,
            format!("AOF rewrite: {} MB of memory used by copy-on-write", child.cow.bytes / (1024 * 1024)),
        );
        self.persist.aof_last_cow_size = child.cow.bytes;
        self.server_log(LogLevel::Notice, "Background AOF rewrite terminated with success");
        let dir = self.aof_dir();
        let filename = self.aof_filename();
        let waiting = self.persist.aof.status == AofStatus::WaitRewrite;
        let mut m = self.persist.aof.manifest.clone();
        let base = m.new_base(&filename, self.config.bool("aof-use-rdb-preamble"));
        let done = match self.persist.store.replace(&dir, &base, &child.image) {
            Err(e) => {
                self.server_log(LogLevel::Warning, format!("Error trying to write the AOF base file {base}: {e}"));
                false
            }
            Ok(()) => {
                self.server_log(LogLevel::Notice, format!("Successfully created the AOF base file {base}"));
                let mut ok = true;
                if waiting {
                    let temp = self.temp_incr_name();
                    let incr = m.new_incr(&filename);
                    match self.persist.store.rename(&dir, &temp, &incr) {
                        Ok(()) => {
                            self.persist.aof.incr_name = Some(incr.clone());
                            self.server_log(
                                LogLevel::Notice,
                                format!("Successfully renamed the temporary AOF incr file {temp} into {incr}"),
                            );
                        }
                        Err(e) => {
                            self.server_log(
                                LogLevel::Warning,
                                format!("Error trying to rename the temporary AOF incr file {temp} into {incr}: {e}"),
                            );
                            self.persist.store.remove(&dir, &base);
                            ok = false;
                        }
                    }
                }
                if ok {
                    m.mark_rewritten_incr_as_history(self.persist.aof.incr_name.is_some());
                    ok = self.persist_aof_manifest(&m);
                    if !ok {
                        self.persist.store.remove(&dir, &base);
                    }
                }
                ok
            }
        };
        if done {
            self.persist.aof.manifest = m;
            let a = &mut self.persist.aof;
            if a.incr_name.is_some() {
                // The sizes start over from the new base (the incr file was new at the start,
                // and its SELECT state carries on: 7.0 issues no SELECT again here).
                a.current_size = child.image.len() as u64 + a.last_incr_size;
                a.rewrite_base_size = a.current_size;
                a.fsync_offset = a.current_size;
                a.last_fsync_s = self.now_ms.div_euclid(1000);
            }
            self.aof_del_history_files();
            let a = &mut self.persist.aof;
            a.lastbgrewrite_ok = true;
            a.consecutive_failures = 0;
            self.server_log(LogLevel::Notice, "Background AOF rewrite finished successfully");
            if self.persist.aof.status == AofStatus::WaitRewrite {
                self.persist.aof.status = AofStatus::On;
            }
        } else {
            self.persist.aof.lastbgrewrite_ok = false;
            self.persist.aof.consecutive_failures += 1;
        }
        // cleanup: a failed first rewrite drops what waited in the temp incr file and tries again.
        if self.persist.aof.status == AofStatus::WaitRewrite {
            let temp = self.temp_incr_name();
            self.server_log(LogLevel::Notice, format!("Removing the temp incr aof file {temp} in the background"));
            self.persist.store.remove(&dir, &temp);
            self.persist.aof.incr_name = None;
            self.persist.aof.rewrite_scheduled = true;
        }
        self.persist.aof.rewrite_time_last = (self.now_ms - child.start_ms).div_euclid(1000);
        self.sync_aof_sink();
    }

    /// aof.c `aofDelHistoryFiles()`.
    pub(crate) fn aof_del_history_files(&mut self) {
        if self.config.bool("aof-disable-auto-gc") || self.persist.aof.manifest.history.is_empty() {
            return;
        }
        let dir = self.aof_dir();
        for f in std::mem::take(&mut self.persist.aof.manifest.history) {
            let name = String::from_utf8_lossy(&f.name).into_owned();
            self.server_log(LogLevel::Notice, format!("Removing the history file {name} in the background"));
            self.persist.store.remove(&dir, &name);
        }
        let m = self.persist.aof.manifest.clone();
        self.persist_aof_manifest(&m);
    }
}

/// `BGREWRITEAOF`
pub fn bgrewriteaof(e: &mut Engine, _c: &Call) -> Reply {
    if e.persist.aof.rewrite.is_some() {
        Reply::err("ERR Background append only file rewriting already in progress")
    } else if e.has_active_child() || e.exec_running {
        e.persist.aof.rewrite_scheduled = true;
        e.persist.aof.consecutive_failures = 0;
        Reply::Status("Background append only file rewriting scheduled".into())
    } else if e.rewrite_append_only_file_background() {
        Reply::Status("Background append only file rewriting started".into())
    } else {
        Reply::err("ERR Can't execute an AOF background rewriting. Please check the server logs for more information.")
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::{Engine, EngineOptions};
    use crate::reply::Reply;

    fn argv(args: &[&str]) -> Vec<Vec<u8>> {
        args.iter().map(|a| a.as_bytes().to_vec()).collect()
    }

    #[test]
    fn the_pages_aof_lives_in_memory_and_a_restart_loads_it() {
        let t0 = 1_700_000_000_000;
        let mut e = Engine::new(EngineOptions { seed: 1, start_ms: t0 });
        // Started with appendonly yes (a restart keeps that; a CONFIG SET would be forgotten).
        e.configure_startup("appendonly", "yes").unwrap();
        e.load_data_from_disk().unwrap();
        let c = e.connect();
        e.execute(c, &argv(&["SET", "before", "1"]));
        e.execute(c, &argv(&["SET", "during", "2", "EX", "100"]));
        e.before_sleep();
        e.advance_to(t0 + 1_000, u64::MAX);
        e.execute(c, &argv(&["SELECT", "2"]));
        e.execute(c, &argv(&["INCRBYFLOAT", "f", "1.5"]));
        e.before_sleep();
        let dir = format!("{}/appendonlydir", e.config.str("dir"));
        let read = |e: &mut Engine, name: &str| e.persist.store.read(&dir, name).unwrap().unwrap_or_default();
        let manifest = read(&mut e, "appendonly.aof.manifest");
        assert_eq!(
            String::from_utf8_lossy(&manifest),
            "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
        );
        let incr = String::from_utf8(read(&mut e, "appendonly.aof.1.incr.aof")).unwrap();
        let at = (t0 + 100_000).to_string();
        let want = format!(
            "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$6\r\nbefore\r\n$1\r\n1\r\n*5\r\n$3\r\nSET\r\n$6\r\nduring\r\n$1\r\n2\r\n$4\r\nPXAT\r\n$13\r\n{at}\r\n\
             *2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n*4\r\n$3\r\nSET\r\n$1\r\nf\r\n$3\r\n1.5\r\n$7\r\nKEEPTTL\r\n"
        );
        assert_eq!(incr, want);
        // A restart (the page's SHUTDOWN, then connect) loads the AOF, not an RDB.
        e.restart().unwrap();
        let c = e.connect();
        assert_eq!(e.execute(c, &argv(&["GET", "before"])), Reply::bulk("1"));
        assert_eq!(e.execute(c, &argv(&["PEXPIRETIME", "during"])), Reply::Integer(t0 + 100_000));
        e.execute(c, &argv(&["SELECT", "2"]));
        assert_eq!(e.execute(c, &argv(&["GET", "f"])), Reply::bulk("1.5"));
    }

    #[test]
    fn a_rewrite_and_a_bgsave_take_turns() {
        let t0 = 1_700_000_000_000;
        let mut e = Engine::new(EngineOptions { seed: 1, start_ms: t0 });
        let c = e.connect();
        for i in 0..100_000 {
            e.execute(c, &argv(&["SET", &format!("key:{i}"), "v"]));
        }
        let started = Reply::Status("Background append only file rewriting started".into());
        assert_eq!(e.execute(c, &argv(&["BGREWRITEAOF"])), started);
        assert_eq!(
            e.execute(c, &argv(&["BGREWRITEAOF"])),
            Reply::err("ERR Background append only file rewriting already in progress")
        );
        assert_eq!(
            e.execute(c, &argv(&["BGSAVE"])),
            Reply::err(
                "ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible."
            )
        );
        assert_eq!(e.execute(c, &argv(&["BGSAVE", "SCHEDULE"])), Reply::Status("Background saving scheduled".into()));
        e.advance_to(t0 + 5_000, u64::MAX);
        assert!(e.persist.aof.rewrite.is_none() && e.persist.bgsave.is_none(), "both ran, one after the other");
        assert_eq!(e.persist.aof.rewrites, 1);
        assert!(e.rdb_file().unwrap().is_some());
    }
}
