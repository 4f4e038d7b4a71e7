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
            failures.push(format!(
                "{name}: no {} (run tools/record-golden.sh {})",
                out_path.display(),
                script.display()
            ));
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
    assert!(
        failures.is_empty(),
        "{} of {} transcripts differ:\n\n{}",
        failures.len(),
        scripts.len(),
        failures.join("\n\n")
    );
}

// ---------------------------------------------------------------------------------------------
// COMMAND, COMMAND COUNT, COMMAND LIST: Redis lists its whole table (240 commands), the engine
// lists its own (fewer, by design), so these are checked for consistency natively here and
// against a live server's list, restricted to what we implement, in tests/differential.rs.
// ---------------------------------------------------------------------------------------------

fn session() -> Session {
    Session::new(EngineOptions { seed: SEED, start_ms: PINNED_MS })
}

fn reply(s: &mut Session, line: &str) -> redisplay::Reply {
    s.run_line(line.as_bytes()).reply.unwrap_or_else(|| panic!("{line}: no reply"))
}

fn names(r: &redisplay::Reply) -> Vec<String> {
    match r {
        redisplay::Reply::Array(items) => items
            .iter()
            .map(|i| match i {
                redisplay::Reply::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
                other => panic!("not a name: {other:?}"),
            })
            .collect(),
        other => panic!("not an array: {other:?}"),
    }
}

#[test]
fn command_count_list_and_info_describe_the_same_table() {
    let mut s = session();
    let all = names(&reply(&mut s, "COMMAND LIST"));
    let top: Vec<&String> = all.iter().filter(|n| !n.contains('|')).collect();
    assert_eq!(reply(&mut s, "COMMAND COUNT"), redisplay::Reply::Integer(top.len() as i64));
    let mut unique = all.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), all.len(), "COMMAND LIST repeats a name");
    for required in ["get", "set", "config|get", "object|encoding", "command|info", "lcs", "expire"] {
        assert!(all.iter().any(|n| n == required), "COMMAND LIST lacks {required}");
    }
    // COMMAND and COMMAND INFO without names: one entry per top-level command, each equal to
    // what COMMAND INFO <name> says (which tests/scripts/command-info.redis pins to Redis).
    for line in ["COMMAND", "COMMAND INFO"] {
        let redisplay::Reply::Array(entries) = reply(&mut s, line) else { panic!("{line}") };
        assert_eq!(entries.len(), top.len(), "{line}");
        for entry in &entries {
            let redisplay::Reply::Array(fields) = entry else { panic!("{line}: {entry:?}") };
            let redisplay::Reply::Bulk(name) = &fields[0] else { panic!("{line}: {entry:?}") };
            let name = String::from_utf8_lossy(name).into_owned();
            let single = reply(&mut s, &format!("COMMAND INFO {name}"));
            assert_eq!(single, redisplay::Reply::Array(vec![entry.clone()]), "{line}: {name}");
        }
    }
    // COMMAND DOCS without names: a map name → docs for every top-level command.
    let redisplay::Reply::Map(docs) = reply(&mut s, "COMMAND DOCS") else { panic!("COMMAND DOCS") };
    assert_eq!(docs.len(), top.len());
    for pair in &docs {
        let redisplay::Reply::Bulk(name) = &pair.0 else { panic!("{pair:?}") };
        let name = String::from_utf8_lossy(name).into_owned();
        assert_eq!(reply(&mut s, &format!("COMMAND DOCS {name}")), redisplay::Reply::Map(vec![pair.clone()]), "{name}");
    }
    // Filters narrow the same list.
    let strings = names(&reply(&mut s, "COMMAND LIST FILTERBY ACLCAT string"));
    assert!(
        strings.iter().all(|n| all.contains(n))
            && strings.contains(&"append".to_string())
            && !strings.contains(&"del".to_string())
    );
    let pattern = names(&reply(&mut s, "COMMAND LIST FILTERBY PATTERN get*"));
    let mut want: Vec<String> = all.iter().filter(|n| n.starts_with("get")).cloned().collect();
    let mut got = pattern.clone();
    want.sort();
    got.sort();
    assert_eq!(got, want);
    assert_eq!(reply(&mut s, "COMMAND LIST FILTERBY MODULE x"), redisplay::Reply::Array(vec![]));
    assert!(reply(&mut s, "COMMAND LIST FILTERBY NOSUCH x").is_error());
    assert!(reply(&mut s, "COMMAND LIST FILTERBY PATTERN").is_error());
    assert!(reply(&mut s, "COMMAND COUNT x").is_error());
}
