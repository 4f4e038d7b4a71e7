//! Golden transcripts, natively: every `tests/scripts/*.redis` runs through the engine's
//! redis-cli session (`redisplay::Session`, one client, seed fixed, clock pinned) and must
//! print exactly what redis-cli printed against a real redis-server 7.0.15 — the `.out` file
//! next to it, recorded by `tools/record-golden.sh`. No server is needed here; the live
//! comparison is tests/differential.rs.

mod common;

use std::path::{Path, PathBuf};

use common::{compare, parse_script};
use redisplay::{EngineOptions, Session};

/// 2025-01-01T00:00:00Z. The scripts never depend on the current time (absolute times are
/// far in the past or the future, relative TTLs don't tick within a run).
pub const PINNED_MS: i64 = 1_735_689_600_000;
pub const SEED: u64 = 0x5eed;

fn scripts() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "redis"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_transcript_matches_its_recording() {
    let scripts = scripts();
    assert!(!scripts.is_empty(), "no transcripts in tests/scripts");
    let mut failures = Vec::new();
    let mut commands = 0;
    for script in &scripts {
        let name = script.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read(script).unwrap();
        let out_path = script.with_extension("out");
        let Ok(expected) = std::fs::read(&out_path) else {
            failures.push(format!("{name}: no {} (run tools/record-golden.sh {})", out_path.display(), script.display()));
            continue;
        };
        let lines = parse_script(&text);
        let mut session = Session::new(EngineOptions { seed: SEED, start_ms: PINNED_MS });
        let outputs: Vec<Vec<u8>> = lines.iter().map(|l| session.run_line(&l.line).text).collect();
        commands += lines.len();
        if let Err(m) = compare(&lines, &outputs, &expected) {
            failures.push(format!("{name}: {m}"));
        }
    }
    eprintln!("golden: {} transcripts, {commands} command lines", scripts.len());
    assert!(failures.is_empty(), "{} of {} transcripts differ:\n\n{}", failures.len(), scripts.len(), failures.join("\n\n"));
}
