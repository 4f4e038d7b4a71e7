//! Generates, from the golden transcripts in `tests/scripts/*.redis` (so nothing can drift from
//! the directory):
//! - `$OUT_DIR/transcripts.rs`: `TRANSCRIPTS`, one `(name, script, recorded output)` per
//!   transcript, embedded with `include_bytes!` — for the wasm tests, which can't read files;
//! - `$OUT_DIR/golden_tests.rs`: one `#[test]` per transcript for tests/golden.rs, named after
//!   it (`zset-ranges.redis` → `zset_ranges`), so `cargo test zset` runs the sorted-set ones.

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn main() {
    // Read at run time, not with env!(): the compiled build script is shared by every checkout
    // that builds into the same target directory, and must list this checkout's transcripts.
    let root = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_default();
    let dir = root.join("tests/scripts");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".redis")).map(str::to_string))
                .filter(|n| dir.join(format!("{n}.out")).exists())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut src = String::from("pub const TRANSCRIPTS: &[(&str, &[u8], &[u8])] = &[\n");
    for n in &names {
        let script = dir.join(format!("{n}.redis"));
        let out = dir.join(format!("{n}.out"));
        println!("cargo:rerun-if-changed={}", script.display());
        println!("cargo:rerun-if-changed={}", out.display());
        let _ = writeln!(
            src,
            "    ({n:?}, include_bytes!({:?}), include_bytes!({:?})),",
            script.display().to_string(),
            out.display().to_string()
        );
    }
    src.push_str("];\n");
    let out_dir = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    let _ = std::fs::write(Path::new(&out_dir).join("transcripts.rs"), src);
    let mut tests = String::new();
    for n in &names {
        let ident: String =
            n.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
        let _ = writeln!(tests, "#[test]\nfn {ident}() {{\n    check_transcript({n:?});\n}}\n");
    }
    let _ = std::fs::write(Path::new(&out_dir).join("golden_tests.rs"), tests);
}
