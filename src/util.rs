//! Number parsing and printing, and glob matching, as Redis's util.c does them.
//!
//! Models util.c `string2ll()`, `string2d()`, `stringmatchlen()` and the `%.17g` double
//! formatting of networking.c `addReplyDouble()` (7.0, before 7.2's shortest round trip), and
//! the C library readers Redis and redis-cli call directly: `strtol`, `atoi`, `isspace`, C
//! strings ending at a NUL. (The sign rule they share with `strtod` is in ds/long_double.rs.)
//! Differences: `stringmatchlen` is recursive in Redis; ours is an iterative backtracking
//! matcher with the same answers, so a pattern of a million `*` cannot overflow the wasm stack.

/// util.c `string2ll()`: the whole string must be a canonical decimal int64 — optional `-`,
/// no `+`, no spaces, no leading zeros (except "0" itself), at most 20 characters.
pub fn string2ll(s: &[u8]) -> Option<i64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    if s == b"0" {
        return Some(0);
    }
    let (neg, digits) = if s[0] == b'-' { (true, &s[1..]) } else { (false, s) };
    if digits.is_empty() || !(b'1'..=b'9').contains(&digits[0]) {
        return None;
    }
    let mut v: u64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    if neg {
        if v > (i64::MAX as u64) + 1 {
            None
        } else {
            Some((v as i64).wrapping_neg())
        }
    } else if v > i64::MAX as u64 {
        None
    } else {
        Some(v as i64)
    }
}

/// `string2ll` for unsigned cursors (`SCAN`): util.c `string2ull()`, canonical digits only.
pub fn string2ull(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 || s[0] == b'-' {
        return None;
    }
    if s == b"0" {
        return Some(0);
    }
    if !(b'1'..=b'9').contains(&s[0]) {
        return None;
    }
    let mut v: u64 = 0;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    Some(v)
}

/// util.c `string2d()`: C `strtod` over the whole string; rejects leading space, trailing bytes,
/// NaN, and overflow/underflow (a result of ±HUGE_VAL or 0 with ERANGE). Accepts `inf`,
/// `infinity` in any case, exponents and hex floats (`0x1p3`).
pub fn string2d(s: &[u8]) -> Option<f64> {
    if let Some(v) = plain_decimal(s) {
        return Some(v);
    }
    let parsed = crate::ds::long_double::parse_c_float(s)?;
    parsed.to_f64()
}

/// C `strtod(s, &end)` requiring `*end == '\0'`, as t_zset.c `zslParseRange()` uses it:
/// leading whitespace is skipped, overflow gives ±inf and underflow 0 (no ERANGE check), a
/// NUL ends the string, and the empty string reads as 0 (nothing parsed, end already at the
/// terminator). NaN is returned as NaN for the caller to reject.
pub fn strtod_whole(s: &[u8]) -> Option<f64> {
    if let Some(v) = plain_decimal(s) {
        return Some(v);
    }
    let s = c_str(s);
    if s.is_empty() {
        return Some(0.0);
    }
    let start = s.iter().position(|&c| !is_c_space(c))?;
    Some(crate::ds::long_double::parse_c_float(&s[start..])?.to_f64_lenient())
}

/// The fast path of `string2d`/`strtod_whole` for what scores and increments usually are: a
/// plain decimal (sign, digits, a point, an exponent) that reads as a normal double, or as 0
/// from zero digits. Rust's reader rounds correctly, as glibc's `strtod` does, and accepts no
/// such string that strtod would not use whole; anything else (hex, inf, spaces, NUL,
/// underflow, overflow, subnormals) is left to the C-grammar reader.
fn plain_decimal(s: &[u8]) -> Option<f64> {
    if s.is_empty()
        || s.len() > 64
        || !s.iter().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    let v: f64 = std::str::from_utf8(s).ok()?.parse().ok()?;
    let mantissa = s.split(|&c| c == b'e' || c == b'E').next().unwrap_or(s);
    if v.is_normal() || (v == 0.0 && !mantissa.iter().any(|c| (b'1'..=b'9').contains(c))) {
        Some(v)
    } else {
        None
    }
}

/// The bytes of an argument as C sees them with `%s`/`strcasecmp`: up to the first NUL.
pub fn c_str(arg: &[u8]) -> &[u8] {
    match arg.iter().position(|&b| b == 0) {
        Some(n) => &arg[..n],
        None => arg,
    }
}

/// C `isspace()` in the "C" locale: space, `\t`, `\n`, `\v`, `\f`, `\r`.
pub fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// C `strtol(s, &end, 10)` on a C string (`long` is 64 bits, as on every platform Redis is
/// built for): leading `isspace`, an optional sign, decimal digits. Returns the value —
/// saturated to `i64::MIN`/`i64::MAX` on overflow, with `ERANGE` reported as `true` — and the
/// bytes after the number (all of the string, whitespace included, when no digit was read).
pub fn strtol(s: &[u8]) -> (i64, bool, &[u8]) {
    let s = c_str(s);
    let start = s.iter().position(|&c| !is_c_space(c)).unwrap_or(s.len());
    let (neg, digits) = crate::ds::long_double::split_sign(&s[start..]);
    let n = digits.iter().take_while(|c| c.is_ascii_digit()).count();
    if n == 0 {
        return (0, false, s);
    }
    let mut v: i64 = 0;
    for &d in &digits[..n] {
        // Accumulated toward the sign, so that LONG_MIN itself fits.
        let d = (d - b'0') as i64;
        match v.checked_mul(10).and_then(|v| if neg { v.checked_sub(d) } else { v.checked_add(d) }) {
            Some(next) => v = next,
            None => return (if neg { i64::MIN } else { i64::MAX }, true, &digits[n..]),
        }
    }
    (v, false, &digits[n..])
}

/// `strtol` requiring `*end == '\0'`, as redis-cli reads a repeat count: `Some(value)` when
/// the whole argument is a number (the empty string counts, as 0), with an overflow reported
/// as 0 (redis-cli treats ERANGE as invalid).
pub fn strtol_whole(s: &[u8]) -> Option<i64> {
    match strtol(s) {
        (_, _, rest) if !rest.is_empty() => None,
        (_, true, _) => Some(0),
        (v, false, _) => Some(v),
    }
}

/// C `atoi()`: glibc's `(int)strtol(s, NULL, 10)` — leading digits, 0 when there are none.
pub fn atoi(s: &[u8]) -> i64 {
    strtol(s).0 as i32 as i64
}

/// `%.17g` as glibc prints a double, with `inf`/`-inf` for infinities and `nan` for NaN.
pub fn fmt_double(d: f64) -> String {
    if d.is_nan() {
        return "nan".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "inf".into() } else { "-inf".into() };
    }
    fmt_g(d, 17)
}

/// C's `%.{precision}g` for finite values.
pub fn fmt_g(d: f64, precision: usize) -> String {
    let p = precision.max(1);
    if d == 0.0 {
        return if d.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // `{:.*e}` is correctly rounded, like glibc; it gives the exponent %g decides with.
    let e_form = format!("{:.*e}", p - 1, d);
    let (mantissa, exp) = e_form.split_once('e').unwrap_or((&e_form, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let m = strip_fraction_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip_fraction_zeros(&format!("{:.*}", decimals, d)).to_string()
    }
}

fn strip_fraction_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// `%.{decimals}f` for an f64 (what `addReplyDoubleDistance` and `%f` in errors print).
pub fn fmt_fixed(d: f64, decimals: usize) -> String {
    if d.is_nan() {
        return "nan".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "inf".into() } else { "-inf".into() };
    }
    format!("{:.*}", decimals, d)
}

/// util.c `stringmatchlen()`: glob-style matching with `*`, `?`, `[...]` (ranges, `^`
/// negation, backslash escapes) and `\x`. `nocase` folds ASCII case, as CONFIG GET does.
pub fn glob_match(pattern: &[u8], string: &[u8], nocase: bool) -> bool {
    // Redis's loop never runs for an empty string, so only an empty pattern matches it
    // (`KEYS *` and `SCAN` skip matching for a lone `*`, which is why "" still shows there).
    if string.is_empty() {
        return pattern.is_empty();
    }
    let tokens = compile_glob(pattern);
    let (mut t, mut s) = (0usize, 0usize);
    let mut backtrack: Option<(usize, usize)> = None;
    while s < string.len() {
        match tokens.get(t) {
            Some(GlobToken::Star) => {
                t += 1;
                backtrack = Some((t, s));
                continue;
            }
            Some(tok) if tok.matches(string[s], nocase) => {
                t += 1;
                s += 1;
                continue;
            }
            _ => {}
        }
        match backtrack {
            Some((bt, bs)) => {
                t = bt;
                s = bs + 1;
                backtrack = Some((bt, bs + 1));
            }
            None => return false,
        }
    }
    tokens[t..].iter().all(|tok| matches!(tok, GlobToken::Star))
}

enum GlobToken {
    Star,
    Any,
    Byte(u8),
    Class { negate: bool, items: Vec<ClassItem> },
}

enum ClassItem {
    Byte(u8),
    /// A backslash-escaped byte: compared exactly, even with nocase.
    Exact(u8),
    Range(u8, u8),
}

/// C `char` is signed on x86: Redis compares range bounds as signed values.
fn signed(b: u8) -> i32 {
    b as i8 as i32
}

fn fold(b: u8, nocase: bool) -> u8 {
    if nocase {
        b.to_ascii_lowercase()
    } else {
        b
    }
}

impl GlobToken {
    fn matches(&self, c: u8, nocase: bool) -> bool {
        match self {
            GlobToken::Star => true,
            GlobToken::Any => true,
            GlobToken::Byte(b) => fold(*b, nocase) == fold(c, nocase),
            GlobToken::Class { negate, items } => {
                let hit = items.iter().any(|item| match item {
                    ClassItem::Byte(b) => fold(*b, nocase) == fold(c, nocase),
                    ClassItem::Exact(b) => *b == c,
                    ClassItem::Range(a, b) => {
                        let (mut lo, mut hi) = (signed(*a), signed(*b));
                        if lo > hi {
                            std::mem::swap(&mut lo, &mut hi);
                        }
                        let (lo, hi, c) = if nocase {
                            (lower_signed(lo), lower_signed(hi), signed(c.to_ascii_lowercase()))
                        } else {
                            (lo, hi, signed(c))
                        };
                        c >= lo && c <= hi
                    }
                });
                hit != *negate
            }
        }
    }
}

fn lower_signed(v: i32) -> i32 {
    if (b'A' as i32..=b'Z' as i32).contains(&v) {
        v + 32
    } else {
        v
    }
}

fn compile_glob(p: &[u8]) -> Vec<GlobToken> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            b'*' => {
                if !matches!(out.last(), Some(GlobToken::Star)) {
                    out.push(GlobToken::Star);
                }
                i += 1;
            }
            b'?' => {
                out.push(GlobToken::Any);
                i += 1;
            }
            b'[' => {
                i += 1;
                let negate = p.get(i) == Some(&b'^');
                if negate {
                    i += 1;
                }
                let mut items = Vec::new();
                loop {
                    let rest = p.len() - i.min(p.len());
                    if rest >= 2 && p[i] == b'\\' {
                        items.push(ClassItem::Exact(p[i + 1]));
                        i += 2;
                    } else if rest == 0 {
                        break;
                    } else if p[i] == b']' {
                        i += 1;
                        break;
                    } else if rest >= 3 && p[i + 1] == b'-' {
                        items.push(ClassItem::Range(p[i], p[i + 2]));
                        i += 3;
                    } else {
                        items.push(ClassItem::Byte(p[i]));
                        i += 1;
                    }
                }
                out.push(GlobToken::Class { negate, items });
            }
            b'\\' if i + 1 < p.len() => {
                out.push(GlobToken::Byte(p[i + 1]));
                i += 2;
            }
            c => {
                out.push(GlobToken::Byte(c));
                i += 1;
            }
        }
    }
    out
}

/// Number of characters in the decimal form of `v` (util.c `ll2string` length).
pub fn digits10(v: i64) -> usize {
    let mut n = v.unsigned_abs();
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d + (v < 0) as usize
}

/// ASCII-lowercased copy (command names, options).
pub fn lower(b: &[u8]) -> Vec<u8> {
    b.to_ascii_lowercase()
}

/// Case-insensitive comparison with an ASCII option word.
pub fn eq_ic(a: &[u8], word: &str) -> bool {
    a.eq_ignore_ascii_case(word.as_bytes())
}

/// Bytes as text for error messages (Redis prints them raw; invalid UTF-8 is kept lossily).
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// SHA1 of a script body as 40 lowercase hex digits (eval.c `sha1hex()`, used by scripts and functions).
pub fn sha1hex(body: &[u8]) -> String {
    sha1_smol::Sha1::from(body).digest().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path agrees with the C-grammar reader bit for bit wherever it answers.
    #[test]
    fn plain_decimal_agrees_with_the_c_reader() {
        let mut cases: Vec<String> = [
            "0",
            "-0",
            "+0",
            "0.0",
            "00",
            "1",
            "-1",
            "+1.5",
            "1.",
            ".5",
            "-.5",
            "1e5",
            "1E+5",
            "1e-5",
            "12.5e-3",
            "3.14159265358979323846264338327950288",
            "1e308",
            "1.7976931348623157e308",
            "1.8e308",
            "1e309",
            "2.2250738585072014e-308",
            "2.2250738585072011e-308",
            "4.9e-324",
            "1e-400",
            "0e999",
            "0.000e-999",
            "9007199254740993",
            "123456789012345678901234567890",
            "1e",
            "e5",
            ".",
            "-",
            "+-1",
            "1e5.5",
            "1.2.3",
            "--1",
            "1-",
            "",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut x: u64 = 0x9e3779b97f4a7c15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let digits = x % 1_000_000_007;
            let frac = (x >> 20) % 100_000;
            let exp = ((x >> 40) % 700) as i64 - 350;
            cases.push(format!("{}{digits}.{frac:05}e{exp}", if x & 1 == 1 { "-" } else { "" }));
            cases.push(format!("{}", f64::from_bits(x)));
        }
        for case in &cases {
            let s = case.as_bytes();
            if let Some(fast) = plain_decimal(s) {
                let slow = crate::ds::long_double::parse_c_float(s).and_then(|p| p.to_f64());
                assert_eq!(Some(fast.to_bits()), slow.map(f64::to_bits), "{case}");
                let lenient = crate::ds::long_double::parse_c_float(s).map(|p| p.to_f64_lenient());
                assert_eq!(Some(fast.to_bits()), lenient.map(f64::to_bits), "{case}");
            }
        }
        assert!(plain_decimal(b"1e-400").is_none() && plain_decimal(b"1e309").is_none());
        assert!(plain_decimal(b"4.9e-324").is_none(), "subnormals go the long way");
    }

    #[test]
    fn sha1_of_known_scripts() {
        assert_eq!(sha1hex(b""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(sha1hex(b"abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
        // SCRIPT LOAD "return 'loaded'" on redis-server 7.0.15.
        assert_eq!(sha1hex(b"return 'loaded'"), "b534286061d4b9e4026607613b95c06c06015ae8");
    }

    #[test]
    fn string2ll_is_strict() {
        assert_eq!(string2ll(b"0"), Some(0));
        assert_eq!(string2ll(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(string2ll(b"9223372036854775807"), Some(i64::MAX));
        for bad in [&b"9223372036854775808"[..], b"010", b"+1", b" 1", b"1 ", b"-0", b"-", b"", b"1e3"] {
            assert_eq!(string2ll(bad), None, "{:?}", std::str::from_utf8(bad));
        }
    }

    /// Expected values from glibc 2.36's `strtol(s, &end, 10)` and `atoi(s)` (called through
    /// Python's ctypes): value, whether `end` reached the terminator, atoi.
    #[test]
    fn strtol_and_atoi_match_glibc() {
        let cases: [(&[u8], i64, bool, i64); 16] = [
            (b"", 0, true, 0),
            (b" 5", 5, true, 5),
            (b"+5", 5, true, 5),
            (b"-3", -3, true, -3),
            (b"5x", 5, false, 5),
            (b"-", 0, false, 0),
            (b" ", 0, false, 0),
            (b"99999999999999999999", i64::MAX, true, -1),
            (b"\x0b7", 7, true, 7),
            (b" -12abc", -12, false, -12),
            (b"abc", 0, false, 0),
            (b"4294967297", 4294967297, true, 1),
            (b"\t\n\r\x0c\x0b 8", 8, true, 8),
            (b"+-1", 0, false, 0),
            (b"0x10", 0, false, 0),
            (b"007", 7, true, 7),
        ];
        for (s, value, whole, atoi_value) in cases {
            let (v, _, rest) = strtol(s);
            assert_eq!((v, rest.is_empty()), (value, whole), "strtol({:?})", text(s));
            assert_eq!(atoi(s), atoi_value, "atoi({:?})", text(s));
        }
        assert_eq!(strtol(b"-9223372036854775808"), (i64::MIN, false, &b""[..]));
        assert_eq!(strtol(b"-9223372036854775809x"), (i64::MIN, true, &b"x"[..]));
        assert_eq!(strtol(b"  x"), (0, false, &b"  x"[..]), "no number: end stays at the start");
        assert_eq!(strtol(b"12\0 34"), (12, false, &b""[..]), "a NUL ends the C string");
    }

    #[test]
    fn strtol_whole_is_redis_cli_repeat_count() {
        assert_eq!(strtol_whole(b"3"), Some(3));
        assert_eq!(strtol_whole(b" +3"), Some(3));
        assert_eq!(strtol_whole(b""), Some(0));
        assert_eq!(strtol_whole(b"99999999999999999999"), Some(0), "ERANGE reads as invalid");
        assert_eq!(strtol_whole(b"3x"), None);
        assert_eq!(strtol_whole(b"ping"), None);
    }

    #[test]
    fn c_strings_and_c_space() {
        assert_eq!(c_str(b"ab\0cd"), b"ab");
        assert_eq!(c_str(b"abc"), b"abc");
        let spaces: Vec<u8> = (0..=255u8).filter(|&c| is_c_space(c)).collect();
        assert_eq!(spaces, b"\t\n\x0b\x0c\r ");
        assert_eq!(crate::ds::long_double::split_sign(b"-1"), (true, &b"1"[..]));
        assert_eq!(crate::ds::long_double::split_sign(b"+1"), (false, &b"1"[..]));
        assert_eq!(crate::ds::long_double::split_sign(b" 1"), (false, &b" 1"[..]));
    }

    #[test]
    #[allow(clippy::approx_constant)] // 3.14 is a value to format, not π
    fn percent_17g() {
        let cases = [
            (1.5, "1.5"),
            (0.1, "0.10000000000000001"),
            (3.14, "3.1400000000000001"),
            (100.0, "100"),
            (1e16, "10000000000000000"),
            (1e17, "1e+17"),
            (1e20, "1e+20"),
            (0.000123, "0.00012300000000000001"),
            (0.0000123, "1.2300000000000001e-05"),
            (123456789.123, "123456789.123"),
            (-0.0, "-0"),
        ];
        for (d, want) in cases {
            assert_eq!(fmt_double(d), want);
        }
    }

    #[test]
    fn glob() {
        assert!(glob_match(b"*", b"anything", false));
        assert!(glob_match(b"h?llo", b"hello", false));
        assert!(glob_match(b"h[ae]llo", b"hallo", false));
        assert!(!glob_match(b"h[^e]llo", b"hello", false));
        assert!(glob_match(b"h[a-b]llo", b"hbllo", false));
        assert!(glob_match(b"h[b-a]llo", b"hbllo", false));
        assert!(glob_match(b"a\\*b", b"a*b", false));
        assert!(!glob_match(b"a\\*b", b"axb", false));
        assert!(glob_match(b"*a*b*", b"xxaxxbxx", false));
        assert!(!glob_match(b"*a*b", b"xxaxxbxx", false));
        assert!(glob_match(b"MAX*", b"maxmemory", true));
        assert!(glob_match(b"[abc", b"b", false));
        assert!(glob_match(b"", b"", false));
        assert!(!glob_match(b"*", b"", false));
        assert!(!glob_match(b"", b"a", false));
        let stars = vec![b'*'; 100_000];
        assert!(glob_match(&stars, b"x", false));
        let mut evil = b"a*".repeat(30);
        evil.push(b'b');
        assert!(!glob_match(&evil, &[b'a'; 60], false));
    }
}
