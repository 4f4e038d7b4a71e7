//! redis-cli's line splitting: models sds.c `sdssplitargs()` (what redis-cli.c `cliSplitArgs()`
//! calls for every line typed or piped in).
//!
//! - Unquoted words end at space, `\n`, `\r`, `\t` (or the end); a quote inside a word starts a
//!   quoted part of the same word (`a"b c"` is one argument `ab c`).
//! - `"…"` understands `\xHH`, `\n \r \t \b \a` and `\<any>`; `'…'` only `\'`.
//! - A closing quote must be followed by whitespace or the end, and an unterminated quote is an
//!   error: redis-cli then prints `Invalid argument(s)`.
//! - A NUL byte ends the line, as it ends the C string redis-cli reads.

use crate::util::{c_str, is_c_space};

/// Splits a line into arguments; `None` for unbalanced quotes (redis-cli: `Invalid argument(s)`).
pub fn split_args(line: &[u8]) -> Option<Vec<Vec<u8>>> {
    let line = c_str(line);
    let at = |i: usize| -> u8 { line.get(i).copied().unwrap_or(0) };
    let mut args = Vec::new();
    let mut p = 0usize;
    loop {
        while p < line.len() && is_c_space(line[p]) {
            p += 1;
        }
        if p >= line.len() {
            return Some(args);
        }
        let mut in_double = false;
        let mut in_single = false;
        let mut current = Vec::new();
        loop {
            let c = at(p);
            if in_double {
                if c == b'\\' && at(p + 1) == b'x' && is_hex(at(p + 2)) && is_hex(at(p + 3)) {
                    current.push(hex_val(at(p + 2)) * 16 + hex_val(at(p + 3)));
                    p += 3;
                } else if c == b'\\' && at(p + 1) != 0 {
                    p += 1;
                    current.push(match at(p) {
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'b' => 8,
                        b'a' => 7,
                        other => other,
                    });
                } else if c == b'"' {
                    if at(p + 1) != 0 && !is_c_space(at(p + 1)) {
                        return None;
                    }
                    p += 1;
                    break;
                } else if c == 0 {
                    return None;
                } else {
                    current.push(c);
                }
            } else if in_single {
                if c == b'\\' && at(p + 1) == b'\'' {
                    p += 1;
                    current.push(b'\'');
                } else if c == b'\'' {
                    if at(p + 1) != 0 && !is_c_space(at(p + 1)) {
                        return None;
                    }
                    p += 1;
                    break;
                } else if c == 0 {
                    return None;
                } else {
                    current.push(c);
                }
            } else {
                match c {
                    b' ' | b'\n' | b'\r' | b'\t' | 0 => {
                        if c != 0 {
                            p += 1;
                        }
                        break;
                    }
                    b'"' => in_double = true,
                    b'\'' => in_single = true,
                    other => current.push(other),
                }
            }
            p += 1;
        }
        args.push(current);
    }
}

fn is_hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

fn hex_val(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(s: &str) -> Option<Vec<String>> {
        split_args(s.as_bytes()).map(|v| v.into_iter().map(|a| String::from_utf8_lossy(&a).into_owned()).collect())
    }

    #[test]
    fn words_and_quotes() {
        assert_eq!(split("  set  a   b "), Some(vec!["set".into(), "a".into(), "b".into()]));
        assert_eq!(split(r#"set "a b" 'c d'"#), Some(vec!["set".into(), "a b".into(), "c d".into()]));
        assert_eq!(split(r#"a"b c""#), Some(vec!["ab c".into()]));
        assert_eq!(split(r#""\x41\n""#), Some(vec!["A\n".into()]));
        assert_eq!(split(r#"'it\'s'"#), Some(vec!["it's".into()]));
        assert_eq!(split(r#"'\x41'"#), Some(vec!["\\x41".into()]));
        assert_eq!(split(""), Some(vec![]));
    }

    #[test]
    fn unbalanced_or_glued_quotes_are_invalid() {
        assert_eq!(split(r#""abc"#), None);
        assert_eq!(split(r#""a"b"#), None);
        assert_eq!(split(r#"'a'b"#), None);
        assert_eq!(split(r#""a\""#), None);
    }

    #[test]
    fn nul_ends_the_line() {
        assert_eq!(split_args(b"get a\0 b"), Some(vec![b"get".to_vec(), b"a".to_vec()]));
    }
}
