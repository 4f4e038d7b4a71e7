//! Where persistence files live. The engine never touches a file system: it hands bytes to the
//! host's `FileStore` and reads them back through it — rdb.c's `rdbSave()` writes
//! `dir`/`dbfilename` (a temp file, then `rename()`), `rdbLoad()` reads it; aof.c appends to the
//! incr file of `dir`/`appenddirname`, replaces its manifest, renames a rewrite's temp files and
//! unlinks history files. `MemoryStore` (the default, the page's) keeps each file in memory by
//! directory and name; `redisplay serve` plugs in a directory on disk (net/disk.rs).
//!
//! Only names without a `/` reach a store (config.rs refuses a `dbfilename`, `appendfilename`
//! or `appenddirname` that is a path; an AOF manifest naming a path fails to load), so nothing
//! is written outside the configured directory.

use std::collections::{BTreeMap, BTreeSet};

/// A host's files. `write`'s errors are the text Redis logs for a failed RDB save; the others'
/// are `strerror()`'s words, which the caller puts in Redis's log line.
pub trait FileStore {
    /// Replaces `dir/name` with `image`, atomically (all or nothing): an RDB save.
    fn write(&mut self, dir: &str, name: &str, image: &[u8]) -> Result<(), String>;
    /// The bytes of `dir/name`, or None when there is no such file.
    fn read(&mut self, dir: &str, name: &str) -> Result<Option<Vec<u8>>, String>;
    /// Replaces `dir/name` with `bytes`, atomically (a temp file renamed over it).
    fn replace(&mut self, dir: &str, name: &str, bytes: &[u8]) -> Result<(), String>;
    /// Appends `bytes` to `dir/name` (created if missing, also with no bytes), then fsyncs it
    /// when `fsync`.
    fn append(&mut self, dir: &str, name: &str, bytes: &[u8], fsync: bool) -> Result<(), String>;
    /// `rename()` within `dir`.
    fn rename(&mut self, dir: &str, from: &str, to: &str) -> Result<(), String>;
    /// `unlink()`; a missing file is no error.
    fn remove(&mut self, dir: &str, name: &str);
    /// `truncate()` to `len` bytes.
    fn truncate(&mut self, dir: &str, name: &str, len: u64) -> Result<(), String>;
    /// `dirCreateIfMissing()`: `dir` (one level, inside the server's directory).
    fn make_dir(&mut self, dir: &str) -> Result<(), String>;
    /// Whether `dir` exists (`dirExists()`).
    fn dir_exists(&mut self, dir: &str) -> bool;
    /// The size of `dir/name` (`stat()`), or None when there is no such file.
    fn size(&self, dir: &str, name: &str) -> Option<u64>;
}

/// Files kept in memory, by directory and name.
#[derive(Debug, Clone, Default)]
pub struct MemoryStore {
    files: BTreeMap<(String, String), Vec<u8>>,
    dirs: BTreeSet<String>,
}

impl MemoryStore {
    fn key(dir: &str, name: &str) -> (String, String) {
        (dir.to_string(), name.to_string())
    }
}

impl FileStore for MemoryStore {
    fn write(&mut self, dir: &str, name: &str, image: &[u8]) -> Result<(), String> {
        self.files.insert(Self::key(dir, name), image.to_vec());
        Ok(())
    }

    fn read(&mut self, dir: &str, name: &str) -> Result<Option<Vec<u8>>, String> {
        Ok(self.files.get(&Self::key(dir, name)).cloned())
    }

    fn replace(&mut self, dir: &str, name: &str, bytes: &[u8]) -> Result<(), String> {
        self.write(dir, name, bytes)
    }

    fn append(&mut self, dir: &str, name: &str, bytes: &[u8], _fsync: bool) -> Result<(), String> {
        self.files.entry(Self::key(dir, name)).or_default().extend_from_slice(bytes);
        Ok(())
    }

    fn rename(&mut self, dir: &str, from: &str, to: &str) -> Result<(), String> {
        let bytes = self.files.remove(&Self::key(dir, from)).ok_or("No such file or directory")?;
        self.files.insert(Self::key(dir, to), bytes);
        Ok(())
    }

    fn remove(&mut self, dir: &str, name: &str) {
        self.files.remove(&Self::key(dir, name));
    }

    fn truncate(&mut self, dir: &str, name: &str, len: u64) -> Result<(), String> {
        let f = self.files.get_mut(&Self::key(dir, name)).ok_or("No such file or directory")?;
        f.resize(len as usize, 0);
        Ok(())
    }

    fn make_dir(&mut self, dir: &str) -> Result<(), String> {
        self.dirs.insert(dir.to_string());
        Ok(())
    }

    fn dir_exists(&mut self, dir: &str) -> bool {
        self.dirs.contains(dir)
    }

    fn size(&self, dir: &str, name: &str) -> Option<u64> {
        self.files.get(&Self::key(dir, name)).map(|f| f.len() as u64)
    }
}
