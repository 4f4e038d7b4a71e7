//! The standard-library functions where omnilua's 5.1 mode differs from the PUC-Rio Lua 5.1
//! Redis 7.0.15 embeds, written after the C (raw functions, see capi.rs):
//! - lbaselib.c `luaB_tonumber()` (strtod: `inf`, `nan`, hex; `strtoul` for other bases),
//!   `luaB_tostring()` for numbers (`%.14g` with glibc's `-nan`), `luaB_unpack()`;
//! - lstrlib.c `str_format()` (each item through glibc's printf, see printf.rs: `(long)` and
//!   `(unsigned long)` casts, `%c` of `(int)`, C strings that stop at a NUL, `%q`, 2-digit
//!   width/precision, no `%a`) and `str_find_aux()`'s clamped start;
//! - ltablib.c `tconcat()`;
//! - lmathlib.c whole (floats everywhere: `math.floor(2^53)` prints `9.007199254741e+15`;
//!   `min`/`max` keep a NaN first argument), with Redis's `redis_math_random()`/
//!   `redis_math_randomseed()` on rand.c's generator;
//! - the library errors omnilua raises without `luaL_where()` (`malformed pattern…`, `'setn' is
//!   obsolete`, `too many results to unpack`…) get the `user_script:N:` position, in 5.1's words.
//!
//! Differences left (mod.rs lists them): number formatting inside the VM itself (`..`,
//! arithmetic on strings like `'inf' + 0`, `%` of -0 or by infinity) is omnilua's.

use std::cell::Cell;
use std::rc::Rc;

use lua_types::error::LuaError;
use lua_types::value::LuaValue;
use lua_types::LuaType;
use lua_vm::state::LuaState;

use super::capi::{self, raw, RawFn};
use super::printf::{self, Spec};

/// The registry key under which BOOT keeps omnilua's own function `name` for a wrapper.
pub fn original_key(name: &str) -> Vec<u8> {
    format!("redisplay.orig.{name}").into_bytes()
}

/// Every function this file provides, by its path (`string.format`); the wrapped originals
/// are those in `WRAPPED`.
pub fn functions(rand48: Rc<Cell<u64>>) -> Vec<(&'static str, RawFn)> {
    let mut f: Vec<(&'static str, RawFn)> = vec![
        ("tonumber", raw(tonumber)),
        ("tostring", raw(tostring)),
        ("unpack", raw(unpack)),
        ("loadstring", raw(loadstring)),
        ("load", raw(load)),
        ("string.format", raw(str_format)),
        ("string.find", raw(|st| find_aux(st, "string.find"))),
        ("string.match", raw(|st| find_aux(st, "string.match"))),
        ("string.gsub", raw(gsub)),
        ("table.concat", raw(tconcat)),
    ];
    for name in WRAPPED {
        if !f.iter().any(|(n, _)| n == name) {
            f.push((name, raw(move |st| wrapped(st, name))));
        }
    }
    f.extend(math_functions(rand48));
    f
}

/// omnilua functions kept but called through a wrapper that words their errors as 5.1 does.
pub const WRAPPED: &[&str] = &[
    "tostring",
    "loadstring",
    "string.find",
    "string.match",
    "string.gmatch",
    "string.gsub",
    "string.char",
    "table.insert",
    "table.setn",
    "table.sort",
];

// ------------------------------------------------------------------------------------------
// lbaselib.c
// ------------------------------------------------------------------------------------------

fn tonumber(st: &mut LuaState) -> Result<usize, LuaError> {
    let base = capi::opt_int(st, 2, 10)?;
    if base == 10 {
        capi::check_any(st, 1)?;
        match capi::to_number(&capi::arg(st, 1)) {
            Some(d) => capi::push_number(st, d),
            None => st.push(LuaValue::Nil),
        }
        return Ok(1);
    }
    let s = capi::check_bytes(st, 1)?;
    if !(2..=36).contains(&base) {
        return Err(capi::arg_error(st, 2, "base out of range"));
    }
    let s = match s.iter().position(|&c| c == 0) {
        Some(nul) => &s[..nul],
        None => &s[..],
    };
    let (n, used) = printf::strtoul(s, base as u32);
    if used > 0 && s[used..].iter().all(|&c| printf::is_space(c)) {
        capi::push_number(st, n as f64);
    } else {
        st.push(LuaValue::Nil);
    }
    Ok(1)
}

fn tostring(st: &mut LuaState) -> Result<usize, LuaError> {
    if let v @ (LuaValue::Float(_) | LuaValue::Int(_)) = capi::arg(st, 1) {
        let d = capi::to_number(&v).unwrap_or(0.0);
        capi::push_bytes(st, printf::number_to_string(d).as_bytes())?;
        return Ok(1);
    }
    // cjson.null: glibc prints a NULL `%p` as `(nil)`.
    if let LuaValue::LightUserData(p) = capi::arg(st, 1) {
        let text = if p.is_null() { "userdata: (nil)".to_string() } else { format!("userdata: {p:p}") };
        capi::push_bytes(st, text.as_bytes())?;
        return Ok(1);
    }
    wrapped(st, "tostring")
}

/// lbaselib.c `luaB_unpack()`: the stack room is reserved first (`lua_checkstack()`), which
/// is also what bounds the count.
fn unpack(st: &mut LuaState) -> Result<usize, LuaError> {
    let t = capi::check_table(st, 1)?;
    let i = capi::opt_int(st, 2, 1)?;
    let e = match capi::arg_type(st, 3) {
        LuaType::None | LuaType::Nil => t.getn() as i32,
        _ => capi::check_int(st, 3)?,
    };
    if i > e {
        return Ok(0);
    }
    // `e - i + 1` in C's int arithmetic: 0 or negative when it overflows.
    let n = e.wrapping_sub(i).wrapping_add(1);
    let (i, e) = (i as i64, e as i64);
    if n <= 0 || !capi::check_stack(st, n) {
        return Err(capi::error(st, "too many results to unpack"));
    }
    for k in i..=e {
        let v = t.get_int(k);
        st.push(v);
    }
    Ok(n as usize)
}

/// Lua 5.1's LUA_IDSIZE as Redis builds it.
const ID_SIZE: usize = 80;

/// lobject.c `luaO_chunkid()` (5.1): how a chunk's name shows in messages.
fn chunk_id(source: &[u8]) -> Vec<u8> {
    let source = c_string(source);
    if let Some(rest) = source.strip_prefix(b"=") {
        return rest[..rest.len().min(ID_SIZE - 1)].to_vec();
    }
    if let Some(file) = source.strip_prefix(b"@") {
        let room = ID_SIZE - b" '...' \0".len();
        let mut out = Vec::new();
        let file = if file.len() > room {
            out.extend_from_slice(b"...");
            &file[file.len() - room..]
        } else {
            file
        };
        out.extend_from_slice(file);
        return out;
    }
    let room = ID_SIZE - b" [string \"...\"] \0".len();
    let mut len = source.iter().position(|&c| c == b'\n' || c == b'\r').unwrap_or(source.len());
    len = len.min(room);
    let mut out = b"[string \"".to_vec();
    out.extend_from_slice(&source[..len]);
    if len < source.len() {
        out.extend_from_slice(b"...");
    }
    out.extend_from_slice(b"\"]");
    out
}

/// Redis's Lua refuses precompiled chunks: one that starts with the bytecode signature is
/// read as text, whose first symbol (ESC) is a syntax error.
fn refuse_bytecode(st: &mut LuaState, chunk: &[u8], name: &[u8]) -> Result<Option<usize>, LuaError> {
    if chunk.first() != Some(&0x1b) {
        return Ok(None);
    }
    let mut msg = chunk_id(name);
    msg.extend_from_slice(b":1: unexpected symbol near 'char(27)'");
    st.push(LuaValue::Nil);
    capi::push_bytes(st, &msg)?;
    Ok(Some(2))
}

fn loadstring(st: &mut LuaState) -> Result<usize, LuaError> {
    let s = capi::check_bytes(st, 1)?;
    let name = capi::opt_bytes(st, 2, &s)?;
    if let Some(n) = refuse_bytecode(st, &s, &name)? {
        return Ok(n);
    }
    wrapped(st, "loadstring")
}

/// `load(func [, chunkname])`: the pieces are gathered first (lbaselib.c `generic_reader()`:
/// each must be a string; nil or "" ends), then compiled as `loadstring` does.
fn load(st: &mut LuaState) -> Result<usize, LuaError> {
    if capi::arg_type(st, 1) != LuaType::Function {
        return Err(capi::type_error(st, 1, "function"));
    }
    let name = capi::opt_bytes(st, 2, b"=(load)")?;
    let mut chunk = Vec::new();
    loop {
        let f = capi::arg(st, 1);
        st.push(f);
        lua_vm::api::call_k(st, 0, 1, 0, None)?;
        let piece = capi::from_top(st, 1);
        capi::pop(st, 1)?;
        match piece {
            LuaValue::Nil => break,
            LuaValue::Str(s) if s.as_bytes().is_empty() => break,
            LuaValue::Str(s) => chunk.extend_from_slice(s.as_bytes()),
            v @ (LuaValue::Float(_) | LuaValue::Int(_)) => chunk.extend(capi::to_bytes(&v).unwrap_or_default()),
            _ => {
                // What 7.0.15 answers: nil and an error table whose message has the position.
                let mut msg = b"ERR ".to_vec();
                msg.extend(
                    capi::error_message(&capi::error(st, "reader function must return a string")).unwrap_or_default(),
                );
                st.push(LuaValue::Nil);
                capi::push_table(st);
                capi::push_bytes(st, b"err")?;
                capi::push_bytes(st, &msg)?;
                capi::pop_into_table(st)?;
                return Ok(2);
            }
        }
        if let Some(e) = st.sandbox_reserve(chunk.len()) {
            return Err(e);
        }
    }
    if let Some(n) = refuse_bytecode(st, &chunk, &name)? {
        return Ok(n);
    }
    capi::set_top(st, 0)?;
    capi::push_bytes(st, &chunk)?;
    capi::push_bytes(st, &name)?;
    wrapped(st, "loadstring")
}

// ------------------------------------------------------------------------------------------
// lstrlib.c
// ------------------------------------------------------------------------------------------

/// lstrlib.c `scanformat()`'s flags.
const FLAGS: &[u8] = b"-+ #0";

fn str_format(st: &mut LuaState) -> Result<usize, LuaError> {
    let top = capi::nargs(st);
    let fmt = capi::check_bytes(st, 1)?;
    let mut argn = 1;
    let mut out: Vec<u8> = Vec::with_capacity(fmt.len());
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        i += 1;
        if fmt.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        argn += 1;
        if argn > top {
            return Err(capi::arg_error(st, argn, "no value"));
        }
        // scanformat()
        let start = i;
        let mut p = i;
        while p < fmt.len() && FLAGS.contains(&fmt[p]) {
            p += 1;
        }
        if p - start > FLAGS.len() {
            return Err(capi::error(st, "invalid format (repeated flags)"));
        }
        let digit = |p: usize| fmt.get(p).is_some_and(|c| c.is_ascii_digit());
        for _ in 0..2 {
            if digit(p) {
                p += 1;
            }
        }
        if fmt.get(p) == Some(&b'.') {
            p += 1;
            for _ in 0..2 {
                if digit(p) {
                    p += 1;
                }
            }
        }
        if digit(p) {
            return Err(capi::error(st, "invalid format (width or precision too long)"));
        }
        let form = &fmt[start..p];
        let spec = Spec::parse(form);
        // Past the end C reads the string's terminating NUL.
        let conv = fmt.get(p).copied().unwrap_or(0);
        i = p + 1;
        let item = match conv {
            b'c' => {
                let d = capi::check_number(st, argn)?;
                printf::fmt_char(&spec, printf::c_int(d) as u8)
            }
            b'd' | b'i' => printf::fmt_signed(&spec, printf::c_long(capi::check_number(st, argn)?)),
            b'o' | b'u' | b'x' | b'X' => {
                printf::fmt_unsigned(&spec, printf::c_ulong(capi::check_number(st, argn)?), conv)
            }
            b'e' | b'E' | b'f' | b'g' | b'G' => printf::fmt_double(&spec, capi::check_number(st, argn)?, conv),
            b'q' => {
                let s = capi::check_bytes(st, argn)?;
                add_quoted(&mut out, &s);
                continue;
            }
            b's' => {
                let s = capi::check_bytes(st, argn)?;
                if !form.contains(&b'.') && s.len() >= 100 {
                    // "no precision and string is too long to be formatted": kept whole.
                    out.extend_from_slice(&s);
                    continue;
                }
                printf::fmt_str(&spec, c_string(&s))
            }
            other => {
                let mut msg = b"invalid option '%".to_vec();
                if other != 0 {
                    msg.push(other);
                }
                msg.extend_from_slice(b"' to 'format'");
                return Err(capi::error(st, msg));
            }
        };
        // luaL_addlstring(&b, buff, strlen(buff))
        out.extend_from_slice(c_string(&item));
    }
    capi::push_bytes(st, &out)?;
    Ok(1)
}

/// What C sees of a buffer: up to its first NUL.
fn c_string(s: &[u8]) -> &[u8] {
    match s.iter().position(|&c| c == 0) {
        Some(nul) => &s[..nul],
        None => s,
    }
}

/// lstrlib.c `addquoted()`.
fn add_quoted(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    for &c in s {
        match c {
            b'"' | b'\\' | b'\n' => {
                out.push(b'\\');
                out.push(c);
            }
            b'\r' => out.extend_from_slice(b"\\r"),
            0 => out.extend_from_slice(b"\\000"),
            _ => out.push(c),
        }
    }
    out.push(b'"');
}

/// `string.find`/`string.match`: lstrlib.c `str_find_aux()` clamps a start past the end to
/// the end (where an empty pattern still matches); the matching is omnilua's.
fn find_aux(st: &mut LuaState, name: &'static str) -> Result<usize, LuaError> {
    if capi::nargs(st) >= 3 && capi::arg_type(st, 1) != LuaType::None {
        if let (Some(s), Some(init)) = (capi::to_bytes(&capi::arg(st, 1)), capi::to_number(&capi::arg(st, 3))) {
            let len = s.len() as i64;
            let mut pos = printf::c_long(init);
            if pos < 0 {
                pos += len + 1;
            }
            if pos - 1 > len {
                replace_arg(st, 3, LuaValue::Float((len + 1) as f64));
            }
        }
    }
    wrapped(st, name)
}

/// `string.gsub`: lstrlib.c `add_s()` reads a replacement string's `%` followed by anything
/// but a digit as that character (a `%` at the very end as the string's NUL); omnilua refuses
/// those, so the string is rewritten into the form it reads the same way.
fn gsub(st: &mut LuaState) -> Result<usize, LuaError> {
    if let v @ (LuaValue::Str(_) | LuaValue::Float(_) | LuaValue::Int(_)) = capi::arg(st, 3) {
        let news = capi::to_bytes(&v).unwrap_or_default();
        if news.contains(&b'%') {
            let mut out = Vec::with_capacity(news.len() + 2);
            let mut i = 0;
            while i < news.len() {
                if news[i] != b'%' {
                    out.push(news[i]);
                } else {
                    i += 1;
                    match news.get(i).copied().unwrap_or(0) {
                        d if d.is_ascii_digit() => out.extend_from_slice(&[b'%', d]),
                        b'%' => out.extend_from_slice(b"%%"),
                        other => out.push(other),
                    }
                }
                i += 1;
            }
            let s = st.new_string(&out)?;
            replace_arg(st, 3, LuaValue::Str(s));
        }
    }
    wrapped(st, "string.gsub")
}

fn replace_arg(st: &mut LuaState, n: i32, v: LuaValue) {
    let func = st.current_call_info().func;
    st.set_at(func + n, v);
}

/// Calls omnilua's `name` with the same arguments; a library error it raises without a
/// position (or in other words than 5.1's) is raised again as 5.1 raises it.
fn wrapped(st: &mut LuaState, name: &str) -> Result<usize, LuaError> {
    match capi::call_registry_protected(st, &original_key(name)) {
        Ok(n) => Ok(n as usize),
        Err(e) => {
            let Some(msg) = capi::error_message(&e) else { return Err(e) };
            // An argument error names the function as its caller saw it: ours.
            if let Some((n, extra)) = parse_arg_error(&msg) {
                return Err(capi::arg_error(st, n, &extra));
            }
            match fix_library_message(name, &msg) {
                Some((fixed, true)) => Err(capi::error(st, fixed)),
                Some((fixed, false)) => Err(capi::plain_error(st, &fixed)),
                None => Err(e),
            }
        }
    }
}

/// `bad argument #N to '?' (extra)` (how an error of a function called from Rust reads) →
/// (N, extra).
fn parse_arg_error(msg: &[u8]) -> Option<(i32, String)> {
    let text = std::str::from_utf8(msg).ok()?;
    let rest = text.strip_prefix("bad argument #")?;
    let (n, rest) = rest.split_once(" to '?' (")?;
    let extra = rest.strip_suffix(')')?;
    let extra = if extra == "value out of range" { "invalid value" } else { extra };
    Some((n.parse().ok()?, extra.to_string()))
}

/// 5.1's wording of an error omnilua's library raised, and whether it gets a position.
fn fix_library_message(name: &str, msg: &[u8]) -> Option<(Vec<u8>, bool)> {
    const NEEDS_POSITION: &[&str] = &[
        "malformed pattern",
        "unfinished capture",
        "invalid pattern capture",
        "invalid capture index",
        "missing '[' after '%f' in pattern",
        "invalid replacement value",
        "too many captures",
        "pattern too complex",
        "'setn' is obsolete",
        "wrong number of arguments to 'insert'",
        "invalid order function for sorting",
    ];
    let text = String::from_utf8_lossy(msg);
    if text.starts_with("malformed pattern (missing arguments to '%b')") {
        return Some((b"unbalanced pattern".to_vec(), true));
    }
    if let Some(rest) = text.strip_prefix("invalid capture index") {
        if rest.starts_with(" %") {
            return Some((b"invalid capture index".to_vec(), true));
        }
    }
    if name == "string.char" && text.ends_with("(value out of range)") {
        return Some((text.replace("(value out of range)", "(invalid value)").into_bytes(), false));
    }
    if NEEDS_POSITION.iter().any(|p| text.starts_with(p)) {
        return Some((msg.to_vec(), true));
    }
    None
}

// ------------------------------------------------------------------------------------------
// ltablib.c
// ------------------------------------------------------------------------------------------

fn tconcat(st: &mut LuaState) -> Result<usize, LuaError> {
    let sep = capi::opt_bytes(st, 2, b"")?;
    let t = capi::check_table(st, 1)?;
    let mut i = capi::opt_int(st, 3, 1)? as i64;
    let last = match capi::arg_type(st, 4) {
        LuaType::None | LuaType::Nil => t.getn() as i32 as i64,
        _ => capi::check_int(st, 4)? as i64,
    };
    let mut out = Vec::new();
    let add = |st: &mut LuaState, out: &mut Vec<u8>, i: i64| -> Result<(), LuaError> {
        match capi::to_bytes(&t.get_int(i)) {
            Some(b) => {
                if let Some(e) = st.sandbox_reserve(out.len() + b.len()) {
                    return Err(e);
                }
                out.extend_from_slice(&b);
                Ok(())
            }
            None => {
                let what = t.get_int(i).type_name();
                Err(capi::error(st, format!("invalid value ({what}) at index {i} in table for 'concat'")))
            }
        }
    };
    while i < last {
        add(st, &mut out, i)?;
        out.extend_from_slice(&sep);
        i += 1;
    }
    if i == last {
        add(st, &mut out, i)?;
    }
    capi::push_bytes(st, &out)?;
    Ok(1)
}

// ------------------------------------------------------------------------------------------
// lmathlib.c (+ Redis's random)
// ------------------------------------------------------------------------------------------

fn math1(f: fn(f64) -> f64) -> RawFn {
    raw(move |st| {
        let x = capi::check_number(st, 1)?;
        capi::push_number(st, f(x));
        Ok(1)
    })
}

fn math2(f: fn(f64, f64) -> f64) -> RawFn {
    raw(move |st| {
        let x = capi::check_number(st, 1)?;
        let y = capi::check_number(st, 2)?;
        capi::push_number(st, f(x, y));
        Ok(1)
    })
}

/// rand.c: `REDIS_LRAND48_MAX` is INT32_MAX.
const LRAND48_MAX: u32 = i32::MAX as u32;

/// rand.c `redisLrand48()`: the 48-bit LCG of `lrand48`, 31 bits out.
pub fn lrand48(state: &Cell<u64>) -> u32 {
    let x = state.get().wrapping_mul(0x5_DEEC_E66D).wrapping_add(0xB) & ((1 << 48) - 1);
    state.set(x);
    (x >> 17) as u32
}

/// rand.c `redisSrand48()`.
pub fn srand48(state: &Cell<u64>, seed: i32) {
    state.set(((seed as u32 as u64) << 16) | 0x330E);
}

fn math_functions(rand48: Rc<Cell<u64>>) -> Vec<(&'static str, RawFn)> {
    const RADIANS_PER_DEGREE: f64 = std::f64::consts::PI / 180.0;
    let seed_state = rand48.clone();
    vec![
        ("math.abs", math1(f64::abs)),
        ("math.ceil", math1(f64::ceil)),
        ("math.floor", math1(f64::floor)),
        ("math.sqrt", math1(f64::sqrt)),
        ("math.sin", math1(f64::sin)),
        ("math.cos", math1(f64::cos)),
        ("math.tan", math1(f64::tan)),
        ("math.asin", math1(f64::asin)),
        ("math.acos", math1(f64::acos)),
        ("math.atan", math1(f64::atan)),
        ("math.sinh", math1(f64::sinh)),
        ("math.cosh", math1(f64::cosh)),
        ("math.tanh", math1(f64::tanh)),
        ("math.exp", math1(f64::exp)),
        ("math.log", math1(f64::ln)),
        ("math.log10", math1(f64::log10)),
        ("math.deg", math1(|x| x / RADIANS_PER_DEGREE)),
        ("math.rad", math1(|x| x * RADIANS_PER_DEGREE)),
        ("math.atan2", math2(f64::atan2)),
        ("math.pow", math2(f64::powf)),
        ("math.fmod", math2(|x, y| x % y)),
        ("math.mod", math2(|x, y| x % y)),
        (
            "math.modf",
            raw(|st| {
                let x = capi::check_number(st, 1)?;
                let ip = if x.is_infinite() { x } else { x.trunc() };
                let fp = if x.is_infinite() { 0.0f64.copysign(x) } else { x - ip };
                capi::push_number(st, ip);
                capi::push_number(st, fp);
                Ok(2)
            }),
        ),
        (
            "math.frexp",
            raw(|st| {
                let x = capi::check_number(st, 1)?;
                let (m, e) = frexp(x);
                capi::push_number(st, m);
                capi::push_number(st, e as f64);
                Ok(2)
            }),
        ),
        (
            "math.ldexp",
            raw(|st| {
                let x = capi::check_number(st, 1)?;
                let e = capi::check_int(st, 2)?;
                capi::push_number(st, ldexp(x, e));
                Ok(1)
            }),
        ),
        ("math.min", raw(|st| min_max(st, |d, m| d < m))),
        ("math.max", raw(|st| min_max(st, |d, m| d > m))),
        (
            "math.random",
            raw(move |st| {
                let r = (lrand48(&rand48) % LRAND48_MAX) as f64 / LRAND48_MAX as f64;
                match capi::nargs(st) {
                    0 => capi::push_number(st, r),
                    1 => {
                        let u = capi::check_int(st, 1)?;
                        if u < 1 {
                            return Err(capi::arg_error(st, 1, "interval is empty"));
                        }
                        capi::push_number(st, (r * u as f64).floor() + 1.0);
                    }
                    2 => {
                        let l = capi::check_int(st, 1)?;
                        let u = capi::check_int(st, 2)?;
                        if l > u {
                            return Err(capi::arg_error(st, 2, "interval is empty"));
                        }
                        capi::push_number(st, (r * (u as f64 - l as f64 + 1.0)).floor() + l as f64);
                    }
                    _ => return Err(capi::error(st, "wrong number of arguments")),
                }
                Ok(1)
            }),
        ),
        (
            "math.randomseed",
            raw(move |st| {
                let seed = capi::check_int(st, 1)?;
                srand48(&seed_state, seed);
                Ok(0)
            }),
        ),
    ]
}

fn min_max(st: &mut LuaState, better: fn(f64, f64) -> bool) -> Result<usize, LuaError> {
    let n = capi::nargs(st);
    let mut m = capi::check_number(st, 1)?;
    for i in 2..=n {
        let d = capi::check_number(st, i)?;
        if better(d, m) {
            m = d;
        }
    }
    capi::push_number(st, m);
    Ok(1)
}

/// C `frexp()`: `x = m · 2^e` with 0.5 ≤ |m| < 1.
fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // Subnormal: scale up first.
        let (m, e) = frexp(x * 2f64.powi(64));
        return (m, e - 64);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exp - 1022)
}

/// C `ldexp()`.
fn ldexp(x: f64, e: i32) -> f64 {
    let mut x = x;
    let mut e = e;
    // Scale in steps so intermediate powers neither overflow nor underflow early.
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    x * 2f64.powi(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frexp_and_ldexp_match_c() {
        assert_eq!(frexp(8.0), (0.5, 4));
        assert_eq!(frexp(-3.0), (-0.75, 2));
        assert_eq!(frexp(5e-324), (0.5, -1073));
        assert_eq!(ldexp(1.0, 1024), f64::INFINITY);
        assert_eq!(ldexp(0.5, -1073), 5e-324);
    }

    #[test]
    fn library_messages_get_5_1_words() {
        assert_eq!(
            fix_library_message("string.gsub", b"invalid capture index %2"),
            Some((b"invalid capture index".to_vec(), true))
        );
        assert_eq!(
            fix_library_message("string.find", b"malformed pattern (missing arguments to '%b')"),
            Some((b"unbalanced pattern".to_vec(), true))
        );
        assert_eq!(fix_library_message("string.find", b"user_script:1: x"), None);
    }
}
