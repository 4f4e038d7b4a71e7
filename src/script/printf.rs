//! glibc's number printing and parsing as Redis's Lua 5.1 sees them: `printf()` conversions
//! (`%d %i %o %u %x %X %c %e %E %f %g %G %s`, with the flags `-+ #0`, a width and a precision),
//! `strtod()` (decimal, hexadecimal, `inf`/`infinity`/`nan`, the longest valid prefix),
//! `strtoul()`, and the casts C applies on x86-64 (`(long)`, `(unsigned long)`, `(int)` of a
//! double). lstrlib.c `str_format()` hands each item to `sprintf`; lobject.c `luaO_str2d()` reads
//! numbers with `strtod`; `lua_Number`s print as `%.14g` (LUAI_NUMFFORMAT).
//!
//! Rust's float formatting is exact and rounds ties to even, as glibc does, so the digits are
//! glibc's; what this file adds is the C layout (signs, padding, `e+NN` exponents, `%g`'s choice
//! and its trailing zeros, `-nan`).

/// The flags, width and precision of one conversion (what lstrlib.c `scanformat()` keeps).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spec {
    pub minus: bool,
    pub plus: bool,
    pub space: bool,
    pub hash: bool,
    pub zero: bool,
    pub width: usize,
    pub precision: Option<usize>,
}

impl Spec {
    /// Reads `[flags][width][.precision]` (what follows the `%`, without the conversion).
    pub fn parse(s: &[u8]) -> Spec {
        let mut spec = Spec::default();
        let mut i = 0;
        while let Some(&c) = s.get(i) {
            match c {
                b'-' => spec.minus = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.hash = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        while let Some(d) = s.get(i).filter(|c| c.is_ascii_digit()) {
            spec.width = spec.width * 10 + (d - b'0') as usize;
            i += 1;
        }
        if s.get(i) == Some(&b'.') {
            i += 1;
            let mut p = 0;
            while let Some(d) = s.get(i).filter(|c| c.is_ascii_digit()) {
                p = p * 10 + (d - b'0') as usize;
                i += 1;
            }
            spec.precision = Some(p);
        }
        spec
    }
}

/// Pads `body` (whose first `sign_len` bytes are a sign or `0x` prefix) to the width: spaces on
/// the left (right with `-`), or zeros after the sign when `zero_ok`.
fn pad(spec: &Spec, body: Vec<u8>, sign_len: usize, zero_ok: bool) -> Vec<u8> {
    if body.len() >= spec.width {
        return body;
    }
    let fill = spec.width - body.len();
    if spec.minus {
        let mut out = body;
        out.resize(out.len() + fill, b' ');
        out
    } else if spec.zero && zero_ok {
        let mut out = body[..sign_len].to_vec();
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(&body[sign_len..]);
        out
    } else {
        let mut out = vec![b' '; fill];
        out.extend_from_slice(&body);
        out
    }
}

fn sign_of(spec: &Spec, negative: bool) -> &'static [u8] {
    if negative {
        b"-"
    } else if spec.plus {
        b"+"
    } else if spec.space {
        b" "
    } else {
        b""
    }
}

/// `%d` / `%i` of a `long`.
pub fn fmt_signed(spec: &Spec, v: i64) -> Vec<u8> {
    let digits = v.unsigned_abs().to_string().into_bytes();
    let mut body = sign_of(spec, v < 0).to_vec();
    let sign_len = body.len();
    body.extend(with_precision(spec, digits, v == 0));
    pad(spec, body, sign_len, spec.precision.is_none())
}

/// The digits with `precision` as their minimum count (`.0` of zero prints nothing).
fn with_precision(spec: &Spec, digits: Vec<u8>, is_zero: bool) -> Vec<u8> {
    match spec.precision {
        Some(0) if is_zero => Vec::new(),
        Some(p) if p > digits.len() => {
            let mut out = vec![b'0'; p - digits.len()];
            out.extend(digits);
            out
        }
        _ => digits,
    }
}

/// `%o %u %x %X` of an `unsigned long`.
pub fn fmt_unsigned(spec: &Spec, v: u64, conv: u8) -> Vec<u8> {
    let digits = match conv {
        b'o' => format!("{v:o}"),
        b'x' => format!("{v:x}"),
        b'X' => format!("{v:X}"),
        _ => v.to_string(),
    }
    .into_bytes();
    let mut digits = with_precision(spec, digits, v == 0);
    let mut prefix: &[u8] = b"";
    if spec.hash {
        match conv {
            b'o' if digits.first() != Some(&b'0') => digits.insert(0, b'0'),
            b'x' if v != 0 => prefix = b"0x",
            b'X' if v != 0 => prefix = b"0X",
            _ => {}
        }
    }
    let mut body = prefix.to_vec();
    body.extend(digits);
    pad(spec, body, prefix.len(), spec.precision.is_none())
}

/// `%c` (sprintf writes the byte; a NUL ends the C string there).
pub fn fmt_char(spec: &Spec, c: u8) -> Vec<u8> {
    pad(spec, vec![c], 0, false)
}

/// `%s` of a C string (the caller stops it at its first NUL).
pub fn fmt_str(spec: &Spec, s: &[u8]) -> Vec<u8> {
    let s = match spec.precision {
        Some(p) if p < s.len() => &s[..p],
        _ => s,
    };
    pad(spec, s.to_vec(), 0, false)
}

/// `%e %E %f %F %g %G` of a double.
pub fn fmt_double(spec: &Spec, v: f64, conv: u8) -> Vec<u8> {
    let upper = conv.is_ascii_uppercase();
    let negative = v.is_sign_negative();
    let mut body = sign_of(spec, negative).to_vec();
    let sign_len = body.len();
    if !v.is_finite() {
        let word = match (v.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        body.extend_from_slice(word.as_bytes());
        return pad(spec, body, sign_len, false);
    }
    let a = v.abs();
    let text = match conv.to_ascii_lowercase() {
        b'e' => exp_form(a, spec.precision.unwrap_or(6), spec.hash),
        b'f' => fixed_form(a, spec.precision.unwrap_or(6), spec.hash),
        _ => {
            let p = match spec.precision {
                None => 6,
                Some(0) => 1,
                Some(p) => p,
            };
            let x = exponent_of(a, p);
            let s = if x < -4 || x >= p as i32 {
                exp_form(a, p - 1, spec.hash)
            } else {
                fixed_form(a, (p as i32 - 1 - x) as usize, spec.hash)
            };
            if spec.hash {
                s
            } else {
                strip_zeros(s)
            }
        }
    };
    let text = if upper { text.to_ascii_uppercase() } else { text };
    body.extend_from_slice(text.as_bytes());
    pad(spec, body, sign_len, true)
}

/// The decimal exponent `%e` with `p` significant digits would print.
fn exponent_of(a: f64, p: usize) -> i32 {
    let e = format!("{:.*e}", p.saturating_sub(1), a);
    e.split_once('e').and_then(|(_, x)| x.parse().ok()).unwrap_or(0)
}

fn exp_form(a: f64, prec: usize, hash: bool) -> String {
    let e = format!("{a:.prec$e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let point = if hash && prec == 0 { "." } else { "" };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}{point}e{sign}{:02}", exp.unsigned_abs())
}

fn fixed_form(a: f64, prec: usize, hash: bool) -> String {
    let mut s = format!("{a:.prec$}");
    if hash && prec == 0 {
        s.push('.');
    }
    s
}

/// `%g` without `#`: no trailing zeros in the fraction, no bare point.
fn strip_zeros(s: String) -> String {
    let (mantissa, exp) = match s.find('e') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s.as_str(), ""),
    };
    if !mantissa.contains('.') {
        return s;
    }
    let m = mantissa.trim_end_matches('0').trim_end_matches('.');
    format!("{m}{exp}")
}

/// A `lua_Number` as Lua 5.1 prints it (`%.14g`, glibc's `-nan` for a NaN with its sign set).
pub fn number_to_string(d: f64) -> String {
    let spec = Spec { precision: Some(14), ..Spec::default() };
    String::from_utf8(fmt_double(&spec, d, b'g')).unwrap_or_default()
}

/// `(long)d` on x86-64 (`cvttsd2si`): truncation; NaN and out-of-range give LONG_MIN.
pub fn c_long(d: f64) -> i64 {
    if d.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&d) {
        i64::MIN
    } else {
        d as i64
    }
}

/// `(unsigned long)d` as gcc compiles it on x86-64: below 2^63 (or NaN) through `(long)`, else
/// `(long)(d - 2^63)` with the top bit flipped.
pub fn c_ulong(d: f64) -> u64 {
    const TWO63: f64 = 9.223_372_036_854_776e18;
    if d >= TWO63 {
        (c_long(d - TWO63) as u64) ^ (1 << 63)
    } else {
        c_long(d) as u64
    }
}

/// `(int)d` on x86-64: truncation; NaN and out-of-range give INT_MIN.
pub fn c_int(d: f64) -> i32 {
    if d.is_nan() || !(-2_147_483_649.0..2_147_483_648.0).contains(&d) {
        i32::MIN
    } else {
        d as i32
    }
}

/// C's `isspace()` in the C locale.
pub fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// glibc `strtod()`: the value of the longest prefix of `s` that reads as a number, and how
/// many bytes it took (0: none). Leading white space, a sign, then decimal (`1.5e3`), hexadecimal
/// (`0x1.8p4`), `inf`/`infinity` or `nan`/`nan(…)`, case-insensitive.
pub fn strtod(s: &[u8]) -> (f64, usize) {
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let negative = s.get(i) == Some(&b'-');
    if matches!(s.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let rest = &s[i..];
    let lower = |n: usize| rest.get(..n).map(|p| p.to_ascii_lowercase());
    let signed = |v: f64| if negative { -v } else { v };
    if lower(3).as_deref() == Some(b"inf") {
        let n = if lower(8).as_deref() == Some(b"infinity") { 8 } else { 3 };
        return (signed(f64::INFINITY), i + n);
    }
    if lower(3).as_deref() == Some(b"nan") {
        let mut n = 3;
        if rest.get(3) == Some(&b'(') {
            if let Some(close) = rest[4..].iter().position(|&c| !(c.is_ascii_alphanumeric() || c == b'_')) {
                if rest[4 + close] == b')' {
                    n = 4 + close + 1;
                }
            }
        }
        return (signed(f64::NAN), i + n);
    }
    if rest.len() > 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' {
        if let Some((v, n)) = hex_float(&rest[2..]) {
            return (signed(v), i + 2 + n);
        }
        // "0x" with no hex digit after it: the "0" alone.
        return (signed(0.0), i + 1);
    }
    let mut j = 0;
    let digits_before = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    j += digits_before;
    let mut digits_after = 0;
    if rest.get(j) == Some(&b'.') {
        digits_after = rest[j + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits_before + digits_after > 0 {
            j += 1 + digits_after;
        }
    }
    if digits_before + digits_after == 0 {
        return (0.0, 0);
    }
    if matches!(rest.get(j), Some(b'e' | b'E')) {
        let mut k = j + 1;
        if matches!(rest.get(k), Some(b'-' | b'+')) {
            k += 1;
        }
        let exp_digits = rest[k.min(rest.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp_digits > 0 {
            j = k + exp_digits;
        }
    }
    let text = std::str::from_utf8(&rest[..j]).unwrap_or("0");
    // Rust wants a digit before an exponent and accepts "1." / ".5" as C does.
    let v: f64 = text.parse().unwrap_or_else(|_| format!("0{text}").parse().unwrap_or(0.0));
    (signed(v), i + j)
}

/// The hexadecimal digits (after `0x`) of a C hex float: `h[.h][p±d]`, correctly rounded.
fn hex_float(s: &[u8]) -> Option<(f64, usize)> {
    let mut mantissa: u64 = 0;
    let mut exp: i64 = 0;
    let mut sticky = false;
    let mut any = false;
    let mut i = 0;
    let mut seen_point = false;
    while i < s.len() {
        let c = s[i];
        if c == b'.' && !seen_point {
            seen_point = true;
            i += 1;
            continue;
        }
        let Some(d) = (c as char).to_digit(16) else { break };
        any = true;
        if mantissa >> 60 == 0 {
            mantissa = mantissa << 4 | d as u64;
            if seen_point {
                exp -= 4;
            }
        } else {
            sticky |= d != 0;
            if !seen_point {
                exp += 4;
            }
        }
        i += 1;
    }
    if !any {
        return None;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        let mut k = i + 1;
        let neg = s.get(k) == Some(&b'-');
        if matches!(s.get(k), Some(b'-' | b'+')) {
            k += 1;
        }
        let n = s[k.min(s.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n > 0 {
            let e: i64 = s[k..k + n].iter().fold(0i64, |a, &d| (a * 10 + (d - b'0') as i64).min(1 << 20));
            exp += if neg { -e } else { e };
            i = k + n;
        }
    }
    if sticky {
        mantissa |= 1;
    }
    let v = (mantissa as f64) * 2f64.powi(exp.clamp(-2000, 2000) as i32);
    // powi may underflow to 0 where a two-step scaling would not.
    let v = if v == 0.0 && mantissa != 0 && exp < 0 {
        (mantissa as f64) * 2f64.powi((exp / 2) as i32) * 2f64.powi((exp - exp / 2) as i32)
    } else {
        v
    };
    Some((v, i))
}

/// glibc `strtoul()`: leading white space, a sign (a `-` negates in unsigned arithmetic), an
/// optional `0x` for base 16, then digits; overflow gives ULONG_MAX. Returns the value and the
/// bytes taken (0 when no digit was read).
pub fn strtoul(s: &[u8], base: u32) -> (u64, usize) {
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let negative = s.get(i) == Some(&b'-');
    if matches!(s.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    if base == 16
        && s.get(i) == Some(&b'0')
        && matches!(s.get(i + 1), Some(b'x' | b'X'))
        && s.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit())
    {
        i += 2;
    }
    let start = i;
    let mut v: u64 = 0;
    let mut overflow = false;
    while let Some(d) = s.get(i).and_then(|&c| (c as char).to_digit(base)) {
        match v.checked_mul(base as u64).and_then(|x| x.checked_add(d as u64)) {
            Some(x) => v = x,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start {
        return (0, 0);
    }
    if overflow {
        return (u64::MAX, i);
    }
    (if negative { v.wrapping_neg() } else { v }, i)
}

/// lobject.c `luaO_str2d()` (with `lua_str2number` = strtod): the whole string, up to its first
/// NUL as C sees it, must read as a number, with only white space after it; `0x…` that strtod
/// stops at the `x` of is read again by `strtoul(…, 16)`.
pub fn lua_str2d(s: &[u8]) -> Option<f64> {
    let s = match s.iter().position(|&c| c == 0) {
        Some(nul) => &s[..nul],
        None => s,
    };
    let (mut v, mut end) = strtod(s);
    if end == 0 {
        return None;
    }
    if matches!(s.get(end), Some(b'x' | b'X')) {
        let (u, n) = strtoul(s, 16);
        v = u as f64;
        end = n;
    }
    let trailing = &s[end..];
    trailing.iter().all(|&c| is_space(c)).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(spec: &str, conv: u8, v: f64) -> String {
        String::from_utf8(fmt_double(&Spec::parse(spec.as_bytes()), v, conv)).unwrap()
    }

    #[test]
    fn doubles_print_as_glibc_does() {
        // Expected values from glibc's snprintf.
        assert_eq!(f(".17", b'g', 1e300), "1.0000000000000001e+300");
        assert_eq!(f("", b'e', 5e-324), "4.940656e-324");
        assert_eq!(f("05.1", b'f', f64::NAN), "  nan");
        assert_eq!(f("+", b'f', f64::NAN), "+nan");
        assert_eq!(f("", b'E', -f64::NAN), "-NAN");
        assert_eq!(f("#.0", b'e', 3.0), "3.e+00");
        assert_eq!(f("#", b'g', 1.0), "1.00000");
        assert_eq!(f("#.0", b'g', 0.0), "0.");
        assert_eq!(f("", b'g', 0.0001), "0.0001");
        assert_eq!(f("", b'g', 123456789.0), "1.23457e+08");
        assert_eq!(f(".0", b'g', 15.0), "2e+01");
        assert_eq!(f("#.3", b'g', 100.0), "100.");
        assert_eq!(f("", b'g', -0.0), "-0");
        assert_eq!(f("010.3", b'e', -1.5), "-1.500e+00");
        assert_eq!(f("-+8.2", b'f', 3.25159), "+3.25   ");
        assert_eq!(f(".0", b'f', 2.5), "2");
        assert_eq!(number_to_string(0.1), "0.1");
        assert_eq!(number_to_string(2f64.powi(53)), "9.007199254741e+15");
    }

    #[test]
    fn integers_print_as_glibc_does() {
        let s = |spec: &str| Spec::parse(spec.as_bytes());
        assert_eq!(fmt_signed(&s(".0"), 0), b"");
        assert_eq!(fmt_signed(&s("+.0"), 0), b"+");
        assert_eq!(fmt_signed(&s("08.3"), 5), b"     005");
        assert_eq!(fmt_signed(&s("-05"), 3), b"3    ");
        assert_eq!(fmt_unsigned(&s("#"), 0, b'x'), b"0");
        assert_eq!(fmt_unsigned(&s("#.3"), 8, b'o'), b"010");
        assert_eq!(fmt_unsigned(&s("#08"), 255, b'x'), b"0x0000ff");
        assert_eq!(fmt_char(&s("05"), b'A'), b"    A");
        assert_eq!(c_ulong(-1.0), u64::MAX);
        assert_eq!(c_ulong(2f64.powi(64)), 0);
        assert_eq!(c_ulong(-3.7), 0xffff_ffff_ffff_fffd);
        assert_eq!(c_long(1e300), i64::MIN);
        assert_eq!(c_int(2.5), 2);
    }

    #[test]
    fn strtod_reads_the_longest_prefix() {
        assert_eq!(strtod(b" inf "), (f64::INFINITY, 4));
        assert_eq!(strtod(b"-Infinity"), (f64::NEG_INFINITY, 9));
        assert_eq!(strtod(b"0x10"), (16.0, 4));
        assert_eq!(strtod(b"0x1p4"), (16.0, 5));
        assert_eq!(strtod(b"0x"), (0.0, 1));
        assert_eq!(strtod(b"1e"), (1.0, 1));
        assert_eq!(strtod(b".5"), (0.5, 2));
        assert_eq!(strtod(b"5."), (5.0, 2));
        assert_eq!(strtod(b"abc"), (0.0, 0));
        assert!(strtod(b"nan(123)").0.is_nan() && strtod(b"nan(123)").1 == 8);
        assert_eq!(lua_str2d(b" 12 "), Some(12.0));
        assert_eq!(lua_str2d(b"0x"), None);
        assert_eq!(lua_str2d(b"12\0abc"), Some(12.0));
        assert_eq!(lua_str2d(b"1e400"), Some(f64::INFINITY));
        assert_eq!(strtoul(b"-1", 16), (u64::MAX, 2));
        assert_eq!(strtoul(b"zz", 36), (1295, 2));
        assert_eq!(strtoul(b"0x", 16), (0, 1));
    }
}
