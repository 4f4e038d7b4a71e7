//! C's number grammar (`strtod`/`strtold`) and the x87 80-bit `long double` Redis computes with.
//!
//! INCRBYFLOAT and HINCRBYFLOAT (t_string.c `incrbyfloatCommand`, t_hash.c) parse both operands
//! with `strtold`, add them in 80-bit extended precision (64-bit mantissa) and print the sum with
//! util.c `ld2string(LD_STR_HUMAN)`: `%.17Lf` with trailing zeros removed. With a plain `f64`
//! `10.5 + 0.1` would print `10.59999999999999964`; Redis prints `10.6`. We reproduce the
//! arithmetic exactly: values are `mantissa × 2^exp` with a 64-bit mantissa, conversions and
//! sums are computed exactly with big integers and rounded half-to-even, as the x87 FPU does.

use num_bigint::BigUint;

/// A parsed C floating-point literal, before rounding to a machine format.
#[derive(Debug, Clone, PartialEq)]
pub enum CFloat {
    Nan,
    Inf {
        neg: bool,
    },
    /// `digits × 10^exp` (decimal input) or `digits × 2^exp` (hex input).
    Finite {
        neg: bool,
        digits: BigUint,
        exp: i64,
        radix2: bool,
        text: String,
    },
}

/// Parses `s` with the grammar of C `strtod` and requires it to use the whole string, with no
/// leading whitespace (util.c `string2d`/`string2ld` reject that). `None` means "not a float".
pub fn parse_c_float(s: &[u8]) -> Option<CFloat> {
    let (neg, rest) = split_sign(s);
    let lower: Vec<u8> = rest.to_ascii_lowercase();
    if lower == b"inf" || lower == b"infinity" {
        return Some(CFloat::Inf { neg });
    }
    if lower == b"nan"
        || (lower.starts_with(b"nan(")
            && lower.ends_with(b")")
            && lower[4..lower.len() - 1].iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_'))
    {
        return Some(CFloat::Nan);
    }
    if lower.len() > 2 && lower.starts_with(b"0x") {
        if let Some(f) = parse_hex(neg, &lower[2..]) {
            return Some(f);
        }
        return None;
    }
    parse_decimal(neg, rest)
}

fn parse_decimal(neg: bool, s: &[u8]) -> Option<CFloat> {
    let mut i = 0;
    let mut digits = String::new();
    let mut exp: i64 = 0;
    let mut any = false;
    while i < s.len() && s[i].is_ascii_digit() {
        digits.push(s[i] as char);
        any = true;
        i += 1;
    }
    if i < s.len() && s[i] == b'.' {
        i += 1;
        while i < s.len() && s[i].is_ascii_digit() {
            digits.push(s[i] as char);
            exp -= 1;
            any = true;
            i += 1;
        }
    }
    if !any {
        return None;
    }
    if i < s.len() && (s[i] == b'e' || s[i] == b'E') {
        let (e, used) = parse_exponent(&s[i + 1..])?;
        exp = exp.saturating_add(e);
        i += 1 + used;
    }
    if i != s.len() {
        return None;
    }
    let text = {
        let trimmed = digits.trim_start_matches('0');
        format!(
            "{}{}e{}",
            if neg { "-" } else { "" },
            if trimmed.is_empty() { "0" } else { trimmed },
            exp.clamp(-9_999_999, 9_999_999)
        )
    };
    let digits = BigUint::parse_bytes(digits.as_bytes(), 10)?;
    Some(CFloat::Finite { neg, digits, exp, radix2: false, text })
}

/// An exponent: optional sign and at least one digit (else `strtod` stops before the `e`,
/// leaving trailing bytes, which the callers reject). Saturates instead of overflowing.
fn parse_exponent(s: &[u8]) -> Option<(i64, usize)> {
    let (neg, digits) = split_sign(s);
    let mut i = 0;
    let mut v: i64 = 0;
    while i < digits.len() && digits[i].is_ascii_digit() {
        v = v.saturating_mul(10).saturating_add((digits[i] - b'0') as i64).min(1 << 40);
        i += 1;
    }
    if i == 0 {
        return None;
    }
    Some((if neg { -v } else { v }, s.len() - digits.len() + i))
}

/// The optional sign every C number reader (`strtod`, `strtol`, `strtoul`, `atoi`) accepts
/// after the leading whitespace: whether it is `-`, and the bytes after it.
pub fn split_sign(s: &[u8]) -> (bool, &[u8]) {
    match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

fn parse_hex(neg: bool, s: &[u8]) -> Option<CFloat> {
    let mut i = 0;
    let mut digits = Vec::new();
    let mut exp: i64 = 0;
    let mut any = false;
    while i < s.len() && s[i].is_ascii_hexdigit() {
        digits.push(s[i]);
        any = true;
        i += 1;
    }
    if i < s.len() && s[i] == b'.' {
        i += 1;
        while i < s.len() && s[i].is_ascii_hexdigit() {
            digits.push(s[i]);
            exp -= 4;
            any = true;
            i += 1;
        }
    }
    if !any {
        return None;
    }
    if i < s.len() && s[i] == b'p' {
        let (e, used) = parse_exponent(&s[i + 1..])?;
        exp = exp.saturating_add(e);
        i += 1 + used;
    }
    if i != s.len() {
        return None;
    }
    let digits = BigUint::parse_bytes(&digits, 16)?;
    Some(CFloat::Finite { neg, digits, exp, radix2: true, text: String::new() })
}

/// A binary floating-point format: mantissa bits and the smallest exponent of the last bit.
#[derive(Clone, Copy)]
struct Format {
    precision: u32,
    /// Exponent of the least significant mantissa bit of the smallest subnormal.
    min_lsb_exp: i64,
    /// Largest `e` such that values in `[2^e, 2^(e+1))` are finite.
    max_exp: i64,
}

const DOUBLE: Format = Format { precision: 53, min_lsb_exp: -1074, max_exp: 1023 };
const EXTENDED: Format = Format { precision: 64, min_lsb_exp: -16445, max_exp: 16383 };

/// A rounded value `mant × 2^exp`, or a special.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LongDouble {
    Finite { neg: bool, mant: u64, exp: i64 },
    Inf { neg: bool },
    Nan,
}

/// The outcome of rounding an exact value to a format.
enum Rounded {
    Value {
        neg: bool,
        mant: u64,
        exp: i64,
    },
    Overflow {
        neg: bool,
    },
    /// A non-zero value that rounded to zero (C sets ERANGE; Redis rejects it).
    Underflow {
        neg: bool,
    },
}

/// Rounds `num / den × 2^exp2` (num > 0 or zero) to `fmt`, half to even.
fn round_exact(neg: bool, num: &BigUint, den: &BigUint, exp2: i64, fmt: Format) -> Rounded {
    if num.bits() == 0 {
        return Rounded::Value { neg, mant: 0, exp: 0 };
    }
    // e = floor(log2(num/den)) + exp2
    let mut e = num.bits() as i64 - den.bits() as i64;
    let ge = |e_rel: i64| -> bool {
        // num >= den * 2^e_rel ?
        if e_rel >= 0 {
            num >= &(den << e_rel as u64)
        } else {
            &(num << (-e_rel) as u64) >= den
        }
    };
    if !ge(e) {
        e -= 1;
    }
    let e_abs = e + exp2;
    if e_abs > fmt.max_exp {
        return Rounded::Overflow { neg };
    }
    let lsb = (e_abs - (fmt.precision as i64 - 1)).max(fmt.min_lsb_exp);
    // q = round(num/den × 2^(exp2 - lsb))
    let shift = exp2 - lsb;
    let (n, d) = if shift >= 0 { (num << shift as u64, den.clone()) } else { (num.clone(), den << (-shift) as u64) };
    let mut q = &n / &d;
    let r = &n - &q * &d;
    let twice = &r << 1u32;
    let one = BigUint::from(1u32);
    if twice > d || (twice == d && q.bit(0)) {
        q += &one;
    }
    if q.bits() == 0 {
        return Rounded::Underflow { neg };
    }
    let mut exp = lsb;
    if q.bits() > fmt.precision as u64 {
        q >>= 1u32;
        exp += 1;
    }
    if exp + q.bits() as i64 - 1 > fmt.max_exp {
        return Rounded::Overflow { neg };
    }
    let digits = q.to_u64_digits();
    let mant = digits.first().copied().unwrap_or(0);
    Rounded::Value { neg, mant, exp }
}

fn pow10(n: u64) -> BigUint {
    BigUint::from(10u32).pow(n as u32)
}

impl CFloat {
    /// Exact value as `num/den × 2^exp2`, or `Err(overflow?)` for a value so far out of range
    /// that no format here can hold it (and for the specials, which have no exact value).
    fn exact(&self) -> Result<(bool, BigUint, BigUint, i64), bool> {
        let (neg, digits, exp, radix2) = match self {
            CFloat::Finite { neg, digits, exp, radix2, .. } => (neg, digits, exp, radix2),
            CFloat::Inf { .. } => return Err(true),
            CFloat::Nan => return Err(true),
        };
        let one = BigUint::from(1u32);
        if digits.bits() == 0 {
            return Ok((*neg, BigUint::default(), one, 0));
        }
        if *radix2 {
            if *exp + digits.bits() as i64 > 20_000 {
                return Err(true);
            }
            if *exp + (digits.bits() as i64) < -20_000 {
                return Err(false);
            }
            return Ok((*neg, digits.clone(), one, *exp));
        }
        // Decimal: digits × 10^exp. Magnitude ≈ 10^(exp + ndigits).
        let ndigits = digits.to_string().len() as i64;
        if exp + ndigits > 5_000 {
            return Err(true);
        }
        if exp + ndigits < -5_000 {
            return Err(false);
        }
        if *exp >= 0 {
            Ok((*neg, digits * pow10(*exp as u64), one, 0))
        } else {
            Ok((*neg, digits.clone(), pow10((-*exp) as u64), 0))
        }
    }

    /// As a C `double` via `strtod` rules; `None` for NaN, overflow and underflow to zero.
    pub fn to_f64(&self) -> Option<f64> {
        match self {
            CFloat::Nan => None,
            CFloat::Inf { neg } => Some(if *neg { f64::NEG_INFINITY } else { f64::INFINITY }),
            CFloat::Finite { radix2: false, text, digits, .. } => {
                let v: f64 = text.parse().ok()?;
                if v.is_infinite() || (v == 0.0 && digits.bits() != 0) {
                    None
                } else {
                    Some(v)
                }
            }
            CFloat::Finite { .. } => match self.to_long_double_fmt(DOUBLE)? {
                LongDouble::Finite { neg, mant, exp } => {
                    // In two steps: 2^exp alone underflows below 2^-1022, mant × 2^exp doesn't.
                    let (first, rest): (i32, i64) = if exp < -1000 { (-1000, exp + 1000) } else { (0, exp) };
                    let v = mant as f64 * 2f64.powi(first) * 2f64.powi(rest as i32);
                    Some(if neg { -v } else { v })
                }
                _ => None,
            },
        }
    }

    /// As C `strtod` returns it, ignoring ERANGE: overflow gives ±inf and underflow ±0.
    pub fn to_f64_lenient(&self) -> f64 {
        match self {
            CFloat::Nan => f64::NAN,
            CFloat::Inf { neg } => {
                if *neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            }
            CFloat::Finite { neg, radix2: false, text, .. } => {
                let v: f64 = text.parse().unwrap_or(0.0);
                if v == 0.0 && *neg {
                    -0.0
                } else {
                    v
                }
            }
            CFloat::Finite { neg, .. } => match self.exact() {
                Err(true) => {
                    if *neg {
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    }
                }
                Err(false) => {
                    if *neg {
                        -0.0
                    } else {
                        0.0
                    }
                }
                Ok(_) => self.to_f64().unwrap_or(if *neg { -0.0 } else { 0.0 }),
            },
        }
    }

    /// C `strtod()`'s result and whether it sets `errno = ERANGE`, as glibc does: on overflow
    /// (±inf from a finite literal), and when the result is subnormal or zero and not exact.
    pub fn strtod_erange(&self) -> (f64, bool) {
        let v = self.to_f64_lenient();
        match self {
            CFloat::Finite { digits, .. } => {
                if v.is_infinite() {
                    (v, true)
                } else if v == 0.0 {
                    (v, digits.bits() != 0)
                } else if v.abs() < f64::MIN_POSITIVE {
                    (v, !self.equals_f64(v))
                } else {
                    (v, false)
                }
            }
            _ => (v, false),
        }
    }

    /// Whether the literal's exact value is `v`.
    fn equals_f64(&self, v: f64) -> bool {
        let Ok((_, num, den, exp2)) = self.exact() else { return false };
        let LongDouble::Finite { mant, exp, .. } = LongDouble::from_f64(v) else { return false };
        // num/den × 2^exp2 == mant × 2^exp  ⇔  num × 2^(exp2-exp) == mant × den
        let rhs = BigUint::from(mant) * &den;
        let d = exp2 - exp;
        if d >= 0 {
            (num << d as u64) == rhs
        } else {
            num == (rhs << (-d) as u64)
        }
    }

    /// As an x87 `long double` via `strtold` rules; `None` for NaN, overflow and underflow.
    pub fn to_long_double(&self) -> Option<LongDouble> {
        match self {
            CFloat::Nan => None,
            CFloat::Inf { neg } => Some(LongDouble::Inf { neg: *neg }),
            CFloat::Finite { .. } => self.to_long_double_fmt(EXTENDED),
        }
    }

    fn to_long_double_fmt(&self, fmt: Format) -> Option<LongDouble> {
        let (neg, num, den, exp2) = self.exact().ok()?;
        match round_exact(neg, &num, &den, exp2, fmt) {
            Rounded::Value { neg, mant, exp } => Some(LongDouble::Finite { neg, mant, exp }),
            Rounded::Overflow { .. } | Rounded::Underflow { .. } => None,
        }
    }
}

impl LongDouble {
    pub fn from_i64(v: i64) -> LongDouble {
        LongDouble::Finite { neg: v < 0, mant: v.unsigned_abs(), exp: 0 }
    }

    /// A double widened to long double, exactly (C's implicit `(long double)d`, as in
    /// networking.c `addReplyHumanLongDouble(c, d)` for GEO coordinates).
    pub fn from_f64(d: f64) -> LongDouble {
        if d.is_nan() {
            return LongDouble::Nan;
        }
        let neg = d.is_sign_negative();
        if d.is_infinite() {
            return LongDouble::Inf { neg };
        }
        let bits = d.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i64;
        let frac = bits & ((1u64 << 52) - 1);
        let (mant, exp) = if biased == 0 { (frac, -1074) } else { (frac | (1u64 << 52), biased - 1075) };
        LongDouble::Finite { neg, mant, exp }
    }

    /// util.c `string2ld()`: `strtold` over the whole string, at most 5119 bytes.
    pub fn parse(s: &[u8]) -> Option<LongDouble> {
        if s.is_empty() || s.len() >= 5 * 1024 {
            return None;
        }
        parse_c_float(s)?.to_long_double()
    }

    pub fn is_finite(&self) -> bool {
        matches!(self, LongDouble::Finite { .. })
    }

    /// `a + b` rounded to the 64-bit mantissa, half to even, with IEEE infinities and NaN.
    #[allow(clippy::should_implement_trait)] // by value like `long double` arithmetic; no operator overloading
    pub fn add(self, other: LongDouble) -> LongDouble {
        use LongDouble::*;
        match (self, other) {
            (Nan, _) | (_, Nan) => Nan,
            (Inf { neg: a }, Inf { neg: b }) => {
                if a == b {
                    Inf { neg: a }
                } else {
                    Nan
                }
            }
            (Inf { neg }, _) | (_, Inf { neg }) => Inf { neg },
            (Finite { neg: na, mant: ma, exp: ea }, Finite { neg: nb, mant: mb, exp: eb }) => {
                if ma == 0 {
                    return if mb == 0 { Finite { neg: na && nb, mant: 0, exp: 0 } } else { other };
                }
                if mb == 0 {
                    return self;
                }
                let e = ea.min(eb);
                let a = BigUint::from(ma) << (ea - e) as u64;
                let b = BigUint::from(mb) << (eb - e) as u64;
                let (neg, sum) = if na == nb {
                    (na, a + b)
                } else if a >= b {
                    (na, a - b)
                } else {
                    (nb, b - a)
                };
                if sum.bits() == 0 {
                    return Finite { neg: false, mant: 0, exp: 0 };
                }
                match round_exact(neg, &sum, &BigUint::from(1u32), e, EXTENDED) {
                    Rounded::Value { neg, mant, exp } => Finite { neg, mant, exp },
                    Rounded::Overflow { neg } => Inf { neg },
                    Rounded::Underflow { neg } => Finite { neg, mant: 0, exp: 0 },
                }
            }
        }
    }

    /// glibc `printf("%.{decimals}Lf")`: exact decimal expansion, rounded half to even.
    pub fn to_fixed(&self, decimals: u32) -> String {
        match *self {
            LongDouble::Nan => "nan".into(),
            LongDouble::Inf { neg } => (if neg { "-inf" } else { "inf" }).into(),
            LongDouble::Finite { neg, mant, exp } => {
                let scale = pow10(decimals as u64);
                let m = BigUint::from(mant);
                let scaled = if exp >= 0 {
                    (m << exp as u64) * scale
                } else {
                    let num = m * scale;
                    let den = BigUint::from(1u32) << (-exp) as u64;
                    let mut q = &num / &den;
                    let r = &num - &q * &den;
                    let twice = r << 1u32;
                    if twice > den || (twice == den && q.bit(0)) {
                        q += BigUint::from(1u32);
                    }
                    q
                };
                let mut digits = scaled.to_string();
                let d = decimals as usize;
                if digits.len() <= d {
                    digits = format!("{}{}", "0".repeat(d + 1 - digits.len()), digits);
                }
                let (int_part, frac) = digits.split_at(digits.len() - d);
                let sign = if neg { "-" } else { "" };
                if d == 0 {
                    format!("{sign}{int_part}")
                } else {
                    format!("{sign}{int_part}.{frac}")
                }
            }
        }
    }

    /// util.c `ld2string(..., LD_STR_HUMAN)`: `%.17Lf`, trailing zeros and a bare dot removed,
    /// `-0` shown as `0`.
    pub fn to_human(&self) -> String {
        if let LongDouble::Inf { neg } = self {
            return (if *neg { "-inf" } else { "inf" }).into();
        }
        let s = self.to_fixed(17);
        let mut t: &str = &s;
        if t.contains('.') {
            t = t.trim_end_matches('0');
            t = t.strip_suffix('.').unwrap_or(t);
        }
        if t == "-0" {
            "0".into()
        } else {
            t.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ld(s: &str) -> LongDouble {
        LongDouble::parse(s.as_bytes()).unwrap()
    }

    #[test]
    fn incrbyfloat_examples_from_redis() {
        assert_eq!(ld("10.5").add(ld("0.1")).to_human(), "10.6");
        assert_eq!(ld("10.6").add(ld("5.0e3")).to_human(), "5010.60000000000000009");
        assert_eq!(ld("3").add(ld("0")).to_human(), "3");
        assert_eq!(ld("-0.0").add(ld("0")).to_human(), "0");
        assert_eq!(LongDouble::from_i64(i64::MIN).to_human(), "-9223372036854775808");
    }

    #[test]
    #[allow(clippy::excessive_precision)] // the literal spells the double's exact decimal value
    fn doubles_widen_exactly() {
        assert_eq!(LongDouble::from_f64(13.36138933897018433).to_human(), "13.36138933897018433");
        assert_eq!(LongDouble::from_f64(0.1).to_human(), "0.10000000000000001");
        assert_eq!(LongDouble::from_f64(180.0).to_human(), "180");
        assert_eq!(LongDouble::from_f64(-0.0).to_human(), "0");
        assert_eq!(LongDouble::from_f64(5e-324).to_human(), "0");
        assert_eq!(LongDouble::from_f64(f64::NEG_INFINITY).to_human(), "-inf");
    }

    #[test]
    fn strtod_grammar() {
        for ok in ["1", "-1.5", "+2", ".5", "5.", "1e3", "1E-3", "inf", "-Infinity", "0x10", "0x1p-2", "0X1.8P1"] {
            assert!(parse_c_float(ok.as_bytes()).is_some(), "{ok}");
        }
        for bad in ["", " 1", "1 ", "e3", "1e", "1e+", ".", "0x", "abc", "1.5.5", "--1"] {
            assert!(parse_c_float(bad.as_bytes()).is_none(), "{bad}");
        }
        assert_eq!(crate::util::string2d(b"0x10"), Some(16.0));
        assert_eq!(crate::util::string2d(b"0x1p-2"), Some(0.25));
        assert_eq!(crate::util::string2d(b"1e400"), None);
        assert_eq!(crate::util::string2d(b"1e-400"), None);
        assert_eq!(crate::util::string2d(b"nan"), None);
        assert_eq!(crate::util::string2d(b"-inf"), Some(f64::NEG_INFINITY));
        assert!(LongDouble::parse(b"1e4000").is_some());
        assert!(LongDouble::parse(b"1e5000").is_none());
    }

    #[test]
    fn extended_overflow_becomes_infinity() {
        let big = ld("1e4932");
        assert!(!big.add(big).is_finite());
    }
}
