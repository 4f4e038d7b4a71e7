//! Generates the list of golden transcripts for the wasm tests, which can't read files at run
//! time: `$OUT_DIR/transcripts.rs` holds `TRANSCRIPTS`, one `(name, script, recorded output)`
//! per `tests/scripts/*.redis`, embedded with `include_bytes!`. Generated, so it can't drift
//! from the directory.

use std::fmt::Write;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts");
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
}
