//! Where the RDB file lives: rdb.c's `rdbSave()` writes `dir`/`dbfilename` (a temp file, then
//! `rename()`), `rdbLoad()` reads it. The engine never touches a file system: it hands the bytes
//! to the host's `RdbStore` and reads them back through it. `MemoryStore` (the default, the
//! page's) keeps each file in memory by name; `redisplay serve` plugs in a directory on disk
//! (net/disk.rs).

use std::collections::BTreeMap;

/// A host's files. Errors are the text Redis logs for them.
pub trait RdbStore {
    /// Replaces `dir/name` with `image`, atomically (all or nothing).
    fn write(&mut self, dir: &str, name: &str, image: &[u8]) -> Result<(), String>;
    /// The bytes of `dir/name`, or None when there is no such file.
    fn read(&mut self, dir: &str, name: &str) -> Result<Option<Vec<u8>>, String>;
}

/// Files kept in memory, by directory and name.
#[derive(Debug, Clone, Default)]
pub struct MemoryStore {
    files: BTreeMap<(String, String), Vec<u8>>,
}

impl RdbStore for MemoryStore {
    fn write(&mut self, dir: &str, name: &str, image: &[u8]) -> Result<(), String> {
        self.files.insert((dir.to_string(), name.to_string()), image.to_vec());
        Ok(())
    }

    fn read(&mut self, dir: &str, name: &str) -> Result<Option<Vec<u8>>, String> {
        Ok(self.files.get(&(dir.to_string(), name.to_string())).cloned())
    }
}
