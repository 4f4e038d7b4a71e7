//! The transcript format and its comparison, shared by every layer that runs the golden
//! transcripts: tests/golden.rs (natively, against the recorded .out files),
//! tests/differential.rs and tests/server_live.rs (against a live redis-server) and the wasm
//! tests (which `include_str!` the scripts). No file IO, no processes: this compiles on wasm32.
//!
//! Beside it, the helpers more than one test file needs: `engine` (an engine driven by
//! argument lists), `session` (driven through the console), and — native targets only —
//! `native` (the transcripts on disk, the wall clock).
//!
//! A transcript (`tests/scripts/*.redis`) is what one types into redis-cli, one line per
//! command. Lines whose first non-blank character is `#` are comments and are never sent;
//! a comment that reads exactly `# unordered` marks the next command's reply as having no
//! specified order (KEYS, SCAN, CONFIG GET with several matches): its lines are then
//! compared as a sorted multiset, with the leading `N) ` indexes stripped.
//!
//! The expected output is one stream — what redis-cli printed for the whole script — so it
//! is cut into per-command pieces as it is consumed: an ordered reply must match byte for
//! byte at the current position; an unordered one takes as many lines as the engine printed.

#![allow(dead_code)]

pub mod engine;
#[cfg(not(target_arch = "wasm32"))]
pub mod native;
pub mod session;

/// How one command's reply is compared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Check {
    /// Byte for byte.
    Exact,
    /// The reply's lines as a multiset, `N) ` indexes stripped (`# unordered`).
    Unordered,
    /// Byte for byte except the connection id in HELLO's map (`# id varies`): a server's first
    /// client id depends on who connected before (redis-cli's own probes, the test harness).
    IdVaries,
    /// An `(integer) N` reply whose value may differ by at most this much (time-dependent
    /// replies such as TTL in the randomized differential); anything else byte for byte.
    IntegerWithin(i64),
}

/// One command of a transcript.
#[derive(Debug, Clone)]
pub struct ScriptLine {
    /// 1-based line number in the script (for messages).
    pub lineno: usize,
    /// The bytes typed, as redis-cli receives them.
    pub line: Vec<u8>,
    pub check: Check,
}

fn is_comment(line: &[u8]) -> bool {
    line.iter().find(|c| !c.is_ascii_whitespace()) == Some(&b'#')
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|c| c.is_ascii_whitespace())
}

fn split_lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    text.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l))
}

/// The commands of a transcript, with the `# unordered` markers applied. Blank lines are
/// dropped (redis-cli prints nothing for them).
pub fn parse_script(text: &[u8]) -> Vec<ScriptLine> {
    let mut out = Vec::new();
    let mut unordered = false;
    let mut id_varies = false;
    if text.is_empty() {
        return out;
    }
    for (i, line) in split_lines(text).enumerate() {
        if is_comment(line) {
            let trimmed = String::from_utf8_lossy(line);
            if trimmed.trim() == "# unordered" {
                unordered = true;
            }
            if trimmed.trim() == "# id varies" {
                id_varies = true;
            }
            continue;
        }
        if is_blank(line) {
            continue;
        }
        let check = if unordered {
            Check::Unordered
        } else if id_varies {
            Check::IdVaries
        } else {
            Check::Exact
        };
        unordered = false;
        id_varies = false;
        out.push(ScriptLine { lineno: i + 1, line: line.to_vec(), check });
    }
    out
}

/// What redis-cli is fed: the script without its comment lines (tools/record-golden.sh
/// does the same with grep).
pub fn cli_input(lines: &[ScriptLine]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(&l.line);
        out.push(b'\n');
    }
    out
}

/// Cuts a reference stream into per-command pieces sized like the engine's (valid once the
/// two were found equal by `compare`).
pub fn split_like(lines: &[ScriptLine], engine: &[Vec<u8>], stream: &[u8]) -> Vec<Vec<u8>> {
    let mut pos = 0;
    let mut out = Vec::new();
    for (l, e) in lines.iter().zip(engine) {
        let len = match l.check {
            Check::Exact => e.len(),
            _ => {
                let want = e.iter().filter(|&&c| c == b'\n').count();
                let mut seen = 0;
                let mut n = 0;
                for &c in &stream[pos..] {
                    if seen == want {
                        break;
                    }
                    n += 1;
                    if c == b'\n' {
                        seen += 1;
                    }
                }
                n
            }
        };
        let end = (pos + len).min(stream.len());
        out.push(stream[pos..end].to_vec());
        pos = end;
    }
    out
}

/// The first command whose reply differs.
#[derive(Debug, Clone)]
pub struct Mismatch {
    pub lineno: usize,
    pub line: Vec<u8>,
    /// What the reference (redis-server or the .out file) printed for it, as far as it could
    /// be cut out of the stream.
    pub expected: Vec<u8>,
    /// What the engine printed.
    pub actual: Vec<u8>,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "line {}: {}", self.lineno, String::from_utf8_lossy(&self.line))?;
        writeln!(f, "--- expected (redis-server)\n{}", show(clip(&self.expected)))?;
        write!(f, "--- actual (engine)\n{}", show(clip(&self.actual)))
    }
}

/// At most the first 40 lines, for messages.
fn clip(b: &[u8]) -> &[u8] {
    &b[..take_lines(b, 40)]
}

/// Printable form of output bytes: escapes what a terminal would swallow.
pub fn show(b: &[u8]) -> String {
    let mut s = String::new();
    for chunk in b.utf8_chunks() {
        for ch in chunk.valid().chars() {
            match ch {
                '\n' => s.push_str("⏎\n"),
                '\r' => s.push_str("\\r"),
                '\x1b' => s.push_str("\\e"),
                c if c.is_control() => s.push_str(&format!("\\x{:02x}", c as u32)),
                c => s.push(c),
            }
        }
        for byte in chunk.invalid() {
            s.push_str(&format!("\\x{byte:02x}"));
        }
    }
    if s.is_empty() {
        s.push_str("(nothing)");
    }
    s
}

/// Number of lines a piece of output spans (a final unterminated line counts).
fn line_count(b: &[u8]) -> usize {
    let n = b.iter().filter(|&&c| c == b'\n').count();
    if b.last().is_some_and(|&c| c != b'\n') {
        n + 1
    } else {
        n
    }
}

/// The first `n` lines of `b` (with their newlines), as a byte length.
fn take_lines(b: &[u8], n: usize) -> usize {
    let mut seen = 0;
    for (i, &c) in b.iter().enumerate() {
        if seen == n {
            return i;
        }
        if c == b'\n' {
            seen += 1;
        }
    }
    b.len()
}

/// A reply's lines without their leading `N) ` indexes (nested ones too), sorted.
fn normalized_lines(b: &[u8]) -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = split_lines(b).map(strip_indexes).collect();
    lines.sort();
    lines
}

fn strip_indexes(line: &[u8]) -> Vec<u8> {
    let mut rest = line;
    loop {
        let trimmed = rest.iter().position(|&c| c != b' ').map_or(&rest[rest.len()..], |p| &rest[p..]);
        let digits = trimmed.iter().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && trimmed[digits..].starts_with(b") ") {
            rest = &trimmed[digits + 2..];
        } else {
            return rest.to_vec();
        }
    }
}

/// The output with the number after `"id" => (integer) ` (RESP3) or on the line after `"id"`
/// (RESP2) replaced by `N` — or, as `redis-cli --raw` prints HELLO, the number in `id N`
/// (RESP3) or on the line after `id` (RESP2).
fn mask_id(b: &[u8]) -> Vec<Vec<u8>> {
    let lines: Vec<&[u8]> = split_lines(b).collect();
    let mut out = Vec::new();
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    for (i, line) in lines.iter().enumerate() {
        let text = String::from_utf8_lossy(line);
        let previous = if i > 0 { String::from_utf8_lossy(lines[i - 1]).into_owned() } else { String::new() };
        let after_id_key = previous.ends_with("\"id\"");
        if let Some(p) = text.find("\"id\" => (integer) ") {
            out.push(format!("{}\"id\" => (integer) N", &text[..p]).into_bytes());
        } else if after_id_key && text.contains("(integer) ") {
            out.push(b"(integer) N".to_vec());
        } else if text.strip_prefix("id ").is_some_and(digits) {
            out.push(b"id N".to_vec());
        } else if previous == "id" && digits(&text) {
            out.push(b"N".to_vec());
        } else {
            out.push(line.to_vec());
        }
    }
    out
}

/// `(integer) N` → N.
fn integer_of(b: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(b).ok()?;
    s.strip_prefix("(integer) ")?.strip_suffix('\n')?.parse().ok()
}

/// Compares the engine's per-command outputs with the reference's single output stream.
pub fn compare(lines: &[ScriptLine], actual: &[Vec<u8>], expected: &[u8]) -> Result<(), Mismatch> {
    assert_eq!(lines.len(), actual.len(), "one output per command");
    let mut pos = 0usize;
    for (l, out) in lines.iter().zip(actual) {
        let rest = &expected[pos..];
        let mismatch = |exp: &[u8]| Mismatch {
            lineno: l.lineno,
            line: l.line.clone(),
            expected: exp.to_vec(),
            actual: out.clone(),
        };
        match l.check {
            Check::Exact => {
                if rest.starts_with(out) {
                    pos += out.len();
                } else {
                    let n = take_lines(rest, line_count(out).max(1));
                    return Err(mismatch(&rest[..n]));
                }
            }
            Check::Unordered => {
                let n = take_lines(rest, line_count(out));
                let piece = &rest[..n];
                if piece.len() != out.len() || normalized_lines(piece) != normalized_lines(out) {
                    return Err(mismatch(piece));
                }
                pos += n;
            }
            Check::IdVaries => {
                let n = take_lines(rest, line_count(out).max(1));
                let piece = &rest[..n];
                if mask_id(piece) != mask_id(out) {
                    return Err(mismatch(piece));
                }
                pos += n;
            }
            Check::IntegerWithin(tolerance) => {
                let n = take_lines(rest, line_count(out).max(1));
                let piece = &rest[..n];
                let close = match (integer_of(piece), integer_of(out)) {
                    (Some(a), Some(b)) => a.abs_diff(b) <= tolerance as u64,
                    _ => piece == out.as_slice(),
                };
                if !close {
                    return Err(mismatch(piece));
                }
                pos += n;
            }
        }
    }
    if pos < expected.len() {
        let last = lines.last();
        return Err(Mismatch {
            lineno: last.map_or(0, |l| l.lineno),
            line: b"(after the last command)".to_vec(),
            expected: expected[pos..].to_vec(),
            actual: vec![],
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_and_comments() {
        let s = parse_script(b"# title\nSET a 1\n\n# unordered\nKEYS *\n  # note\nGET a\n");
        assert_eq!(s.len(), 3);
        assert_eq!((s[0].lineno, s[0].check), (2, Check::Exact));
        assert_eq!((s[1].lineno, s[1].check), (5, Check::Unordered));
        assert_eq!(s[2].check, Check::Exact);
    }

    #[test]
    fn unordered_ignores_order_and_index_width() {
        let s = parse_script(b"# unordered\nKEYS *\nGET a\n");
        let actual = vec![b"1) \"b\"\n2) \"a\"\n".to_vec(), b"\"1\"\n".to_vec()];
        assert!(compare(&s, &actual, b"1) \"a\"\n2) \"b\"\n\"1\"\n").is_ok());
        assert!(compare(&s, &actual, b"1) \"a\"\n2) \"c\"\n\"1\"\n").is_err());
        assert!(compare(&s, &actual, b"1) \"a\"\n2) \"b\"\n\"1\"\nextra\n").is_err());
    }
}
