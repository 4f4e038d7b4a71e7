//! The repository explains itself: no source, test, script, tool, page or doc points at notes
//! that live outside it (the shared folder beside the checkout the project started from, or its
//! files by name).
//! What the code relies on from outside is written down in docs/redis-facts.md and
//! docs/toolchain.md (and the architecture in docs/architecture.md), and comments point there.

// Reads the checkout: native only (`cargo test --target wasm32` builds every test target).
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

/// What a pointer outside the repository looks like. Spelled in pieces so this file does not
/// match itself.
const OUTSIDE: &[&str] = &[
    concat!("..", "/shared"),
    concat!("REDIS", "-FACTS"),
    concat!("TOOL", "CHAIN.md"),
    concat!("DESIGN", ".md"),
    concat!("STYLE", ".md"),
    concat!("HELPER", "-RULES"),
];

const DIRS: &[&str] = &["src", "tests", "scripts", "tools", "www", "benches", "docs", ".ci"];
const FILES: &[&str] = &["build.rs", "Cargo.toml", "index.html", "package.json", "README.md"];

/// Every file under `dir`, without build output and installed packages.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "node_modules" && !path.ends_with("www/pkg") {
                walk(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

fn files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for d in DIRS {
        walk(&root.join(d), &mut out);
    }
    out.extend(FILES.iter().map(|f| root.join(f)));
    out
}

/// The lines of `text` that point outside, as `line number: text`.
fn outside_pointers(text: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(text);
    text.lines()
        .enumerate()
        .filter(|(_, line)| OUTSIDE.iter().any(|needle| line.contains(needle)))
        .map(|(i, line)| format!("{}: {}", i + 1, line.trim()))
        .collect()
}

#[test]
fn nothing_points_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = files();
    assert!(files.iter().any(|f| f.ends_with("src/lib.rs")), "the walk found no sources");
    let mut problems = Vec::new();
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else { continue };
        for hit in outside_pointers(&bytes) {
            problems.push(format!("{}:{hit}", f.strip_prefix(root).unwrap_or(f).display()));
        }
    }
    assert!(
        problems.is_empty(),
        "these lines point outside the repository (write the fact into docs/ and point there):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_check_sees_each_kind_of_pointer() {
    for needle in OUTSIDE {
        let line = format!("// see {needle} for why\n");
        assert_eq!(outside_pointers(line.as_bytes()).len(), 1, "{needle}");
    }
    assert!(outside_pointers(b"// see docs/redis-facts.md \xc2\xa72.5\n").is_empty());
}
