//! Files on disk for `redisplay serve`: persist/store.rs's `FileStore` over a directory (the
//! RDB file, the AOF directory's files) and the server log's lines in redis-server's format.
//!
//! Writing models rdb.c `rdbSave()`: the image goes to `temp-<pid>.rdb` in the directory, is
//! flushed and fsync'd, then `rename()`d over `dbfilename` and the directory fsync'd — so the
//! file is the old one or the new one, never half of either; on failure the temp file is
//! removed. Errors are Redis's log lines. Only names inside the configured directory are used
//! (`dbfilename` can't be a path: config.rs refuses one with a `/`).

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use crate::engine::LogLine;
use crate::persist::store::FileStore;

/// The RDB file in a directory (the `dir` the engine's config names).
#[derive(Debug, Clone, Default)]
pub struct DiskStore;

/// What `strerror()` says for an I/O error (the part after Rust's own words).
fn strerror(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

impl DiskStore {
    fn write_temp(tmp: &Path, image: &[u8]) -> std::io::Result<()> {
        let mut f = OpenOptions::new().write(true).create(true).truncate(true).open(tmp)?;
        f.write_all(image)?;
        f.flush()?;
        f.sync_all()
    }
}

impl FileStore for DiskStore {
    fn write(&mut self, dir: &str, name: &str, image: &[u8]) -> Result<(), String> {
        let temp_name = format!("temp-{}.rdb", std::process::id());
        let tmp = Path::new(dir).join(&temp_name);
        let target = Path::new(dir).join(name);
        if let Err(e) = Self::write_temp(&tmp, image) {
            let _ = fs::remove_file(&tmp);
            return Err(if e.kind() == ErrorKind::NotFound || e.kind() == ErrorKind::PermissionDenied {
                format!(
                    "Failed opening the temp RDB file {temp_name} (in server root dir {dir}) for saving: {}",
                    strerror(&e)
                )
            } else {
                format!("Write error saving DB on disk(rdbSaveRio): {}", strerror(&e))
            });
        }
        if let Err(e) = fs::rename(&tmp, &target) {
            let _ = fs::remove_file(&tmp);
            return Err(format!(
                "Error moving temp DB file {temp_name} on the final destination {name} (in server root dir {dir}): {}",
                strerror(&e)
            ));
        }
        // fsyncFileDir(): the rename itself reaches the disk.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    fn read(&mut self, dir: &str, name: &str) -> Result<Option<Vec<u8>>, String> {
        match fs::read(Path::new(dir).join(name)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("Fatal error loading the DB: {}. Exiting.", strerror(&e))),
        }
    }

    fn replace(&mut self, dir: &str, name: &str, bytes: &[u8]) -> Result<(), String> {
        let tmp = Path::new(dir).join(format!("temp-{name}"));
        let done = Self::write_temp(&tmp, bytes).and_then(|()| fs::rename(&tmp, Path::new(dir).join(name)));
        if let Err(e) = done {
            let _ = fs::remove_file(&tmp);
            return Err(strerror(&e));
        }
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    fn append(&mut self, dir: &str, name: &str, bytes: &[u8], fsync: bool) -> Result<(), String> {
        let mut f =
            OpenOptions::new().append(true).create(true).open(Path::new(dir).join(name)).map_err(|e| strerror(&e))?;
        f.write_all(bytes).map_err(|e| strerror(&e))?;
        if fsync {
            f.sync_data().map_err(|e| strerror(&e))?;
        }
        Ok(())
    }

    fn rename(&mut self, dir: &str, from: &str, to: &str) -> Result<(), String> {
        fs::rename(Path::new(dir).join(from), Path::new(dir).join(to)).map_err(|e| strerror(&e))
    }

    fn remove(&mut self, dir: &str, name: &str) {
        let _ = fs::remove_file(Path::new(dir).join(name));
    }

    fn truncate(&mut self, dir: &str, name: &str, len: u64) -> Result<(), String> {
        let f = OpenOptions::new().write(true).open(Path::new(dir).join(name)).map_err(|e| strerror(&e))?;
        f.set_len(len).map_err(|e| strerror(&e))
    }

    fn make_dir(&mut self, dir: &str) -> Result<(), String> {
        match fs::create_dir(dir) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::AlreadyExists && Path::new(dir).is_dir() => Ok(()),
            Err(e) => Err(strerror(&e)),
        }
    }

    fn dir_exists(&mut self, dir: &str) -> bool {
        Path::new(dir).is_dir()
    }

    fn size(&self, dir: &str, name: &str) -> Option<u64> {
        fs::metadata(Path::new(dir).join(name)).ok().map(|m| m.len())
    }
}

/// The directory `--dir` names (or the working directory), absolute, as `CONFIG GET dir`
/// reports it after redis-server's `chdir()`; an error in Redis's words when it isn't one.
pub fn resolve_dir(dir: Option<&str>) -> Result<PathBuf, String> {
    let d = match dir {
        Some(d) => PathBuf::from(d),
        None => std::env::current_dir().map_err(|e| format!("Can't get the working directory: {}", strerror(&e)))?,
    };
    let abs = fs::canonicalize(&d).map_err(|e| format!("Can't chdir to '{}': {}", d.display(), strerror(&e)))?;
    if !abs.is_dir() {
        return Err(format!("Can't chdir to '{}': Not a directory", d.display()));
    }
    Ok(abs)
}

/// A log line as redis-server writes it: `pid:M dd Mon yyyy hh:mm:ss.mmm <mark> message`
/// (the time is the engine's clock, UTC).
pub fn format_log_line(line: &LogLine) -> String {
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let ms = line.at_ms.rem_euclid(1000);
    let secs = line.at_ms.div_euclid(1000);
    let (days, sod) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{}:M {:02} {} {} {:02}:{:02}:{:02}.{:03} {} {}",
        std::process::id(),
        day,
        MONTHS[(month - 1) as usize],
        year,
        sod / 3600,
        sod % 3600 / 60,
        sod % 60,
        ms,
        line.level.mark(),
        line.message
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::LogLevel;

    #[test]
    fn log_lines_read_like_redis_servers() {
        let line = LogLine { at_ms: 1_796_178_411_142, level: LogLevel::Notice, message: "DB saved on disk".into() };
        let text = format_log_line(&line);
        assert!(text.ends_with(":M 02 Dec 2026 02:26:51.142 * DB saved on disk"), "{text}");
    }

    #[test]
    fn writes_replace_the_file_whole() {
        let dir = std::env::temp_dir().join(format!("redisplay-disk-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let d = dir.to_str().unwrap();
        let mut s = DiskStore;
        assert_eq!(s.read(d, "x.rdb"), Ok(None));
        s.write(d, "x.rdb", b"one").unwrap();
        s.write(d, "x.rdb", b"two").unwrap();
        assert_eq!(s.read(d, "x.rdb"), Ok(Some(b"two".to_vec())));
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1, "no temp file left");
        let gone = dir.join("missing");
        let err = s.write(gone.to_str().unwrap(), "x.rdb", b"z").unwrap_err();
        assert!(err.starts_with("Failed opening the temp RDB file temp-"), "{err}");
        assert!(resolve_dir(Some(gone.to_str().unwrap())).unwrap_err().starts_with("Can't chdir to"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
