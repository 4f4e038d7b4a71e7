//! What only a native test can do: read the transcripts from disk, read the wall clock (the
//! live tests start the engine's clock where the real server's is). Declared by mod.rs for
//! native targets only, so tests/wasm.rs (which `include_str!`s its transcripts) never sees it.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Every transcript, `tests/scripts/*.redis`, sorted by name.
pub fn scripts() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "redis"))
        .collect();
    v.sort();
    v
}

/// Milliseconds since the Unix epoch, now.
pub fn wall_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}
