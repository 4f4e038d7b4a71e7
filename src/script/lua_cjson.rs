//! `cjson`: lua-cjson 2.1.0 as Redis 7.0.15 ships it (deps/lua/src/lua_cjson.c), in Rust:
//! `json_encode()` (`%.14g` numbers, `encode_number_precision`; NaN/Inf refused unless
//! `encode_invalid_numbers`; an empty table is `{}`; a table whose keys are all integers ≥ 1
//! is an array unless excessively sparse — `encode_sparse_array(convert, ratio, safe)`,
//! default (false, 2, 10); other tables are objects with string or number keys;
//! `encode_max_depth`, 1000), `json_decode()` (strtod numbers, `decode_invalid_numbers`,
//! `\uXXXX` and surrogate pairs to UTF-8, `null` as `cjson.null` — a NULL light userdata —
//! `decode_max_depth`, 1000, with Redis's "Found too many nested data structures" error), the
//! configuration functions and `cjson.new()` (a copy with its own configuration).
//!
//! Each function is a C closure whose upvalue is its instance's configuration (a table), as
//! `compat_luaL_setfuncs(l, reg, 1)` does with the config userdata. Encoding and decoding walk
//! nested values with explicit stacks instead of C recursion, and count the Lua stack slots the
//! C would use, so Lua 5.1's 8000-slot bound (`lua_checkstack()`) fails at the same depth when
//! a script raises the depth limits, instead of exhausting Rust's stack.
//!
//! Difference: an object's members come out in omnilua's table order (see mod.rs).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use lua_types::closure::{LuaCClosure, LuaClosure};
use lua_types::error::LuaError;
use lua_types::gc::GcRef;
use lua_types::table::LuaTable;
use lua_types::value::LuaValue;
use lua_types::LuaType;
use lua_vm::state::LuaState;

use super::capi::{self, raw, RawFn};
use super::printf::{self, Spec};

pub const NAME: &str = "cjson";
pub const VERSION: &str = "2.1.0";

// ------------------------------------------------------------------------------------------
// Configuration (json_config_t), kept in a table that is each function's upvalue
// ------------------------------------------------------------------------------------------

const DEFAULTS: &[(&str, i64)] = &[
    ("encode_sparse_convert", 0),
    ("encode_sparse_ratio", 2),
    ("encode_sparse_safe", 10),
    ("encode_max_depth", 1000),
    ("decode_max_depth", 1000),
    ("encode_invalid_numbers", 0),
    ("decode_invalid_numbers", 1),
    ("encode_keep_buffer", 1),
    ("encode_number_precision", 14),
];

#[derive(Clone, Copy)]
struct Config {
    sparse_convert: bool,
    sparse_ratio: i64,
    sparse_safe: i64,
    encode_max_depth: i64,
    decode_max_depth: i64,
    encode_invalid_numbers: i64,
    decode_invalid_numbers: bool,
    precision: usize,
}

/// The running function's configuration table (its upvalue).
fn config_table(st: &mut LuaState) -> Option<GcRef<LuaTable>> {
    let func = st.current_call_info().func;
    match st.get_at(func) {
        LuaValue::Function(LuaClosure::C(c)) => match c.upvalues.borrow().first() {
            Some(LuaValue::Table(t)) => Some(*t),
            _ => None,
        },
        _ => None,
    }
}

fn get(t: &LuaTable, key: &str) -> i64 {
    match t.get_str_bytes(key.as_bytes()) {
        LuaValue::Float(f) => f as i64,
        LuaValue::Int(i) => i,
        _ => DEFAULTS.iter().find(|(k, _)| *k == key).map_or(0, |(_, v)| *v),
    }
}

fn set(st: &mut LuaState, t: GcRef<LuaTable>, key: &str, v: i64) -> Result<(), LuaError> {
    st.push(LuaValue::Table(t));
    capi::push_bytes(st, key.as_bytes())?;
    capi::push_number(st, v as f64);
    capi::pop_into_table(st)?;
    capi::pop(st, 1)
}

fn config(st: &mut LuaState) -> Result<(GcRef<LuaTable>, Config), LuaError> {
    let Some(t) = config_table(st) else {
        return Err(capi::error(st, "BUG: Unable to fetch CJSON configuration"));
    };
    let c = Config {
        sparse_convert: get(&t, "encode_sparse_convert") != 0,
        sparse_ratio: get(&t, "encode_sparse_ratio"),
        sparse_safe: get(&t, "encode_sparse_safe"),
        encode_max_depth: get(&t, "encode_max_depth"),
        decode_max_depth: get(&t, "decode_max_depth"),
        encode_invalid_numbers: get(&t, "encode_invalid_numbers"),
        decode_invalid_numbers: get(&t, "decode_invalid_numbers") != 0,
        precision: get(&t, "encode_number_precision").clamp(1, 14) as usize,
    };
    Ok((t, c))
}

/// `json_arg_init()`: at most `args` arguments.
fn arg_init(st: &mut LuaState, args: i32) -> Result<GcRef<LuaTable>, LuaError> {
    if capi::nargs(st) > args {
        return Err(capi::arg_error(st, args + 1, "found too many arguments"));
    }
    Ok(config(st)?.0)
}

/// `json_integer_option()`.
fn integer_option(
    st: &mut LuaState,
    t: GcRef<LuaTable>,
    n: i32,
    key: &str,
    min: i64,
    max: i64,
) -> Result<(), LuaError> {
    if !matches!(capi::arg_type(st, n), LuaType::None | LuaType::Nil) {
        let value = capi::check_integer(st, n)? as i32 as i64;
        if !(min <= value && value <= max) {
            return Err(capi::arg_error(st, 1, &format!("expected integer between {min} and {max}")));
        }
        set(st, t, key, value)?;
    }
    capi::push_number(st, get(&t, key) as f64);
    Ok(())
}

/// `json_enum_option()` with `bool_true` = 1: booleans or one of `options`.
fn enum_option(st: &mut LuaState, t: GcRef<LuaTable>, n: i32, key: &str, options: &[&str]) -> Result<(), LuaError> {
    match capi::arg(st, n) {
        LuaValue::Nil => {}
        LuaValue::Bool(b) => set(st, t, key, b as i64)?,
        _ => {
            let name = capi::check_bytes(st, n)?;
            match options.iter().position(|o| o.as_bytes() == name.as_slice()) {
                Some(i) => set(st, t, key, i as i64)?,
                None => {
                    let mut msg = b"invalid option '".to_vec();
                    msg.extend_from_slice(&name);
                    msg.push(b'\'');
                    return Err(capi::arg_error(st, n, &String::from_utf8_lossy(&msg)));
                }
            }
        }
    }
    let setting = get(&t, key);
    if setting == 0 || setting == 1 {
        st.push(LuaValue::Bool(setting == 1));
    } else {
        capi::push_bytes(st, options[setting as usize].as_bytes())?;
    }
    Ok(())
}

const ON_OFF: &[&str] = &["off", "on"];

// ------------------------------------------------------------------------------------------
// Encoding
// ------------------------------------------------------------------------------------------

fn encode_exception(st: &mut LuaState, v: &LuaValue, reason: &str) -> LuaError {
    capi::error(st, format!("Cannot serialise {}: {reason}", v.type_name()))
}

/// `json_append_string()`.
fn append_string(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    for &c in s {
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'/' => out.extend_from_slice(b"\\/"),
            0x08 => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0..=0x1f | 0x7f => out.extend_from_slice(format!("\\u{c:04x}").as_bytes()),
            _ => out.push(c),
        }
    }
    out.push(b'"');
}

/// `json_append_number()`.
fn append_number(st: &mut LuaState, out: &mut Vec<u8>, cfg: &Config, v: &LuaValue) -> Result<(), LuaError> {
    let num = capi::to_number(v).unwrap_or(0.0);
    match cfg.encode_invalid_numbers {
        0 if !num.is_finite() => return Err(encode_exception(st, v, "must not be NaN or Inf")),
        1 if num.is_nan() => {
            out.extend_from_slice(b"nan");
            return Ok(());
        }
        2 if !num.is_finite() => {
            out.extend_from_slice(b"null");
            return Ok(());
        }
        _ => {}
    }
    let spec = Spec { precision: Some(cfg.precision), ..Spec::default() };
    out.extend(printf::fmt_double(&spec, num, b'g'));
    Ok(())
}

/// `lua_array_length()`: the array's length, or None for an object.
fn array_length(st: &mut LuaState, t: &LuaTable, cfg: &Config) -> Result<Option<i64>, LuaError> {
    let (mut max, mut items) = (0i32, 0i64);
    let mut key = LuaValue::Nil;
    while let Some((k, _)) = t.next_pair(&key) {
        let n = match k {
            LuaValue::Float(f) => f,
            LuaValue::Int(i) => i as f64,
            _ => return Ok(None),
        };
        if !(n != 0.0 && n.floor() == n && n >= 1.0) {
            return Ok(None);
        }
        if n > max as f64 {
            max = printf::c_int(n);
        }
        items += 1;
        key = k;
    }
    let max = max as i64;
    if cfg.sparse_ratio > 0 && max > items * cfg.sparse_ratio && max > cfg.sparse_safe {
        if !cfg.sparse_convert {
            return Err(capi::error(st, "Cannot serialise table: excessively sparse array"));
        }
        return Ok(None);
    }
    Ok(Some(max))
}

enum Level {
    Array { t: GcRef<LuaTable>, len: i64, next: i64 },
    Object { t: GcRef<LuaTable>, key: LuaValue, first: bool },
}

/// `json_append_data()` for the value `v`, its tables walked with an explicit stack.
fn append_data(st: &mut LuaState, out: &mut Vec<u8>, cfg: &Config, v: LuaValue) -> Result<(), LuaError> {
    let mut levels: Vec<Level> = Vec::new();
    // Stack slots the C would hold: the argument, plus per open level the element (arrays)
    // or key and value (objects).
    let mut used: i32 = 1;
    let mut value = Some(v);
    loop {
        if let Some(v) = value.take() {
            if let Some(e) = st.sandbox_reserve(out.len()) {
                return Err(e);
            }
            match &v {
                LuaValue::Str(s) => append_string(out, s.as_bytes()),
                LuaValue::Float(_) | LuaValue::Int(_) => append_number(st, out, cfg, &v)?,
                LuaValue::Bool(true) => out.extend_from_slice(b"true"),
                LuaValue::Bool(false) => out.extend_from_slice(b"false"),
                LuaValue::Nil => out.extend_from_slice(b"null"),
                LuaValue::LightUserData(p) if p.is_null() => out.extend_from_slice(b"null"),
                LuaValue::Table(t) => {
                    let depth = levels.len() as i64 + 1;
                    // json_check_encode_depth(): the depth limit, and room for key, value and
                    // an error message.
                    if depth > cfg.encode_max_depth || used + 3 > capi::MAX_C_STACK {
                        return Err(capi::error(st, format!("Cannot serialise, excessive nesting ({depth})")));
                    }
                    match array_length(st, t, cfg)? {
                        Some(len) if len > 0 => {
                            out.push(b'[');
                            levels.push(Level::Array { t: *t, len, next: 1 });
                            used += 1;
                        }
                        _ => {
                            out.push(b'{');
                            levels.push(Level::Object { t: *t, key: LuaValue::Nil, first: true });
                            used += 2;
                        }
                    }
                }
                other => return Err(encode_exception(st, other, "type not supported")),
            }
        }
        // The next value of the innermost open table, or close it.
        let Some(level) = levels.last_mut() else { return Ok(()) };
        match level {
            Level::Array { t, len, next } => {
                if *next > *len {
                    out.push(b']');
                    levels.pop();
                    used -= 1;
                    continue;
                }
                if *next > 1 {
                    out.push(b',');
                }
                value = Some(t.get_int(*next));
                *next += 1;
            }
            Level::Object { t, key, first } => match t.next_pair(key) {
                None => {
                    out.push(b'}');
                    levels.pop();
                    used -= 2;
                }
                Some((k, item)) => {
                    if !*first {
                        out.push(b',');
                    }
                    *first = false;
                    *key = k;
                    match k {
                        LuaValue::Float(_) | LuaValue::Int(_) => {
                            out.push(b'"');
                            append_number(st, out, cfg, &k)?;
                            out.extend_from_slice(b"\":");
                        }
                        LuaValue::Str(s) => {
                            append_string(out, s.as_bytes());
                            out.push(b':');
                        }
                        other => return Err(encode_exception(st, &other, "table key must be a number or string")),
                    }
                    value = Some(item);
                }
            },
        }
    }
}

fn json_encode(st: &mut LuaState) -> Result<usize, LuaError> {
    if capi::nargs(st) != 1 {
        return Err(capi::arg_error(st, 1, "expected 1 argument"));
    }
    let (_, cfg) = config(st)?;
    let mut out = Vec::new();
    let v = capi::arg(st, 1);
    append_data(st, &mut out, &cfg, v)?;
    capi::push_bytes(st, &out)?;
    Ok(1)
}

// ------------------------------------------------------------------------------------------
// Decoding
// ------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    ObjBegin,
    ObjEnd,
    ArrBegin,
    ArrEnd,
    Str,
    Number,
    Boolean,
    Null,
    Colon,
    Comma,
    End,
    Error,
}

impl Tok {
    fn name(self) -> &'static str {
        match self {
            Tok::ObjBegin => "T_OBJ_BEGIN",
            Tok::ObjEnd => "T_OBJ_END",
            Tok::ArrBegin => "T_ARR_BEGIN",
            Tok::ArrEnd => "T_ARR_END",
            Tok::Str => "T_STRING",
            Tok::Number => "T_NUMBER",
            Tok::Boolean => "T_BOOLEAN",
            Tok::Null => "T_NULL",
            Tok::Colon => "T_COLON",
            Tok::Comma => "T_COMMA",
            Tok::End => "T_END",
            Tok::Error => "T_ERROR",
        }
    }
}

struct Token {
    kind: Tok,
    index: usize,
    error: &'static str,
    string: Vec<u8>,
    number: f64,
    boolean: bool,
}

struct Parser<'a> {
    /// The text as C sees it: reading past the end gives the terminating NUL.
    data: &'a [u8],
    ptr: usize,
    decode_invalid_numbers: bool,
}

impl Parser<'_> {
    fn at(&self, i: usize) -> u8 {
        self.data.get(i).copied().unwrap_or(0)
    }

    fn starts_with(&self, word: &[u8]) -> bool {
        (0..word.len()).all(|i| self.at(self.ptr + i) == word[i])
    }

    fn error(&self, token: &mut Token, what: &'static str) {
        token.kind = Tok::Error;
        token.index = self.ptr;
        token.error = what;
    }

    /// `json_is_invalid_number()`.
    fn is_invalid_number(&self) -> bool {
        let mut p = self.ptr;
        if self.at(p) == b'+' {
            return true;
        }
        if self.at(p) == b'-' {
            p += 1;
        }
        if self.at(p) == b'0' {
            let ch2 = self.at(p + 1);
            return (ch2 | 0x20) == b'x' || ch2.is_ascii_digit();
        } else if self.at(p) <= b'9' {
            return false;
        }
        let word = |w: &[u8]| (0..3).all(|i| self.at(p + i).to_ascii_lowercase() == w[i]);
        word(b"inf") || word(b"nan")
    }

    fn number_token(&mut self, token: &mut Token) {
        token.kind = Tok::Number;
        let end = self.data[self.ptr.min(self.data.len())..]
            .iter()
            .position(|&c| c == 0)
            .map_or(self.data.len(), |n| self.ptr + n);
        let (v, used) = printf::strtod(&self.data[self.ptr.min(end)..end]);
        if used == 0 {
            self.error(token, "invalid number");
        } else {
            token.number = v;
            self.ptr += used;
        }
    }

    /// `json_append_unicode_escape()`: the UTF-8 of `\uXXXX` (or a surrogate pair) at `ptr`.
    fn unicode_escape(&mut self, out: &mut Vec<u8>) -> bool {
        let hex4 = |p: &Self, at: usize| -> Option<u32> {
            (0..4).try_fold(0u32, |acc, i| Some(acc << 4 | (p.at(at + i) as char).to_digit(16)?))
        };
        let Some(mut cp) = hex4(self, self.ptr + 2) else { return false };
        let mut escape_len = 6;
        if cp & 0xF800 == 0xD800 {
            if cp & 0x400 != 0 {
                return false;
            }
            if self.at(self.ptr + 6) != b'\\' || self.at(self.ptr + 7) != b'u' {
                return false;
            }
            let Some(low) = hex4(self, self.ptr + 8) else { return false };
            if low & 0xFC00 != 0xDC00 {
                return false;
            }
            cp = (((cp & 0x3FF) << 10) | (low & 0x3FF)) + 0x10000;
            escape_len = 12;
        }
        match char::from_u32(cp) {
            Some(c) => {
                let mut b = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
            None => return false,
        }
        self.ptr += escape_len;
        true
    }

    fn string_token(&mut self, token: &mut Token) {
        self.ptr += 1;
        let mut s = Vec::new();
        loop {
            let ch = self.at(self.ptr);
            if ch == b'"' {
                break;
            }
            if ch == 0 {
                return self.error(token, "unexpected end of string");
            }
            let mut c = ch;
            if ch == b'\\' {
                c = match self.at(self.ptr + 1) {
                    b'"' => b'"',
                    b'\\' => b'\\',
                    b'/' => b'/',
                    b'b' => 0x08,
                    b't' => b'\t',
                    b'n' => b'\n',
                    b'f' => 0x0c,
                    b'r' => b'\r',
                    b'u' => {
                        if self.unicode_escape(&mut s) {
                            continue;
                        }
                        return self.error(token, "invalid unicode escape code");
                    }
                    _ => return self.error(token, "invalid escape code"),
                };
                self.ptr += 1;
            }
            s.push(c);
            self.ptr += 1;
        }
        self.ptr += 1;
        token.kind = Tok::Str;
        token.string = s;
    }

    /// `json_next_token()`.
    fn next(&mut self) -> Token {
        let mut token = Token { kind: Tok::End, index: 0, error: "", string: Vec::new(), number: 0.0, boolean: false };
        while matches!(self.at(self.ptr), b' ' | b'\t' | b'\n' | b'\r') {
            self.ptr += 1;
        }
        token.index = self.ptr;
        let ch = self.at(self.ptr);
        let single = match ch {
            b'{' => Some(Tok::ObjBegin),
            b'}' => Some(Tok::ObjEnd),
            b'[' => Some(Tok::ArrBegin),
            b']' => Some(Tok::ArrEnd),
            b',' => Some(Tok::Comma),
            b':' => Some(Tok::Colon),
            0 => {
                token.kind = Tok::End;
                return token;
            }
            _ => None,
        };
        if let Some(kind) = single {
            token.kind = kind;
            self.ptr += 1;
            return token;
        }
        if !matches!(ch, b'f' | b'i' | b'I' | b'n' | b'N' | b't' | b'"' | b'+' | b'-' | b'0'..=b'9') {
            self.error(&mut token, "invalid token");
            return token;
        }
        if ch == b'"' {
            self.string_token(&mut token);
        } else if ch == b'-' || ch.is_ascii_digit() {
            if !self.decode_invalid_numbers && self.is_invalid_number() {
                self.error(&mut token, "invalid number");
            } else {
                self.number_token(&mut token);
            }
        } else if self.starts_with(b"true") {
            token.kind = Tok::Boolean;
            token.boolean = true;
            self.ptr += 4;
        } else if self.starts_with(b"false") {
            token.kind = Tok::Boolean;
            token.boolean = false;
            self.ptr += 5;
        } else if self.starts_with(b"null") {
            token.kind = Tok::Null;
            self.ptr += 4;
        } else if self.decode_invalid_numbers && self.is_invalid_number() {
            self.number_token(&mut token);
        } else {
            self.error(&mut token, "invalid token");
        }
        token
    }
}

fn parse_error(st: &mut LuaState, expected: &str, token: &Token) -> LuaError {
    let found = if token.kind == Tok::Error { token.error } else { token.kind.name() };
    capi::error(st, format!("Expected {expected} but found {found} at character {}", token.index + 1))
}

enum Ctx {
    Array { index: i64 },
    Object,
}

/// `json_decode()`'s value, containers filled iteratively on the Lua stack as the C does.
fn decode_value(st: &mut LuaState, p: &mut Parser, max_depth: i64) -> Result<(), LuaError> {
    let mut open: Vec<Ctx> = Vec::new();
    let mut token = p.next();
    loop {
        // json_process_value()
        let mut opened = false;
        match token.kind {
            Tok::Str => capi::push_bytes(st, &token.string)?,
            Tok::Number => capi::push_number(st, token.number),
            Tok::Boolean => st.push(LuaValue::Bool(token.boolean)),
            Tok::Null => st.push(LuaValue::LightUserData(std::ptr::null_mut())),
            Tok::ObjBegin | Tok::ArrBegin => {
                let array = token.kind == Tok::ArrBegin;
                // json_decode_descend(): 2 slots for an array (table, value), 3 for an object.
                let depth = open.len() as i64 + 1;
                let slots = if array { 2 } else { 3 };
                if depth > max_depth || !capi::check_stack(st, slots) {
                    return Err(capi::error(
                        st,
                        format!("Found too many nested data structures ({depth}) at character {}", p.ptr),
                    ));
                }
                capi::push_table(st);
                token = p.next();
                if token.kind == if array { Tok::ArrEnd } else { Tok::ObjEnd } {
                    // empty container: a complete value
                } else {
                    open.push(if array { Ctx::Array { index: 1 } } else { Ctx::Object });
                    opened = true;
                }
            }
            _ => return Err(parse_error(st, "value", &token)),
        }
        if opened {
            if let Some(Ctx::Object) = open.last() {
                // The first member's key.
                if token.kind != Tok::Str {
                    return Err(parse_error(st, "object key string", &token));
                }
                capi::push_bytes(st, &token.string)?;
                let colon = p.next();
                if colon.kind != Tok::Colon {
                    return Err(parse_error(st, "colon", &colon));
                }
                token = p.next();
            }
            continue;
        }
        // A value is complete: store it, then read what follows it.
        loop {
            match open.last_mut() {
                None => return Ok(()),
                Some(Ctx::Array { index }) => {
                    capi::pop_into_index(st, *index)?;
                    *index += 1;
                    let next = p.next();
                    if next.kind == Tok::ArrEnd {
                        open.pop();
                        continue;
                    }
                    if next.kind != Tok::Comma {
                        return Err(parse_error(st, "comma or array end", &next));
                    }
                    token = p.next();
                    break;
                }
                Some(Ctx::Object) => {
                    capi::pop_into_table(st)?;
                    let next = p.next();
                    if next.kind == Tok::ObjEnd {
                        open.pop();
                        continue;
                    }
                    if next.kind != Tok::Comma {
                        return Err(parse_error(st, "comma or object end", &next));
                    }
                    let key = p.next();
                    if key.kind != Tok::Str {
                        return Err(parse_error(st, "object key string", &key));
                    }
                    capi::push_bytes(st, &key.string)?;
                    let colon = p.next();
                    if colon.kind != Tok::Colon {
                        return Err(parse_error(st, "colon", &colon));
                    }
                    token = p.next();
                    break;
                }
            }
        }
    }
}

fn json_decode(st: &mut LuaState) -> Result<usize, LuaError> {
    if capi::nargs(st) != 1 {
        return Err(capi::arg_error(st, 1, "expected 1 argument"));
    }
    let (_, cfg) = config(st)?;
    let text = capi::check_bytes(st, 1)?;
    if text.len() >= 2 && (text[0] == 0 || text[1] == 0) {
        return Err(capi::error(st, "JSON parser does not support UTF-16 or UTF-32"));
    }
    let mut p = Parser { data: &text, ptr: 0, decode_invalid_numbers: cfg.decode_invalid_numbers };
    decode_value(st, &mut p, cfg.decode_max_depth)?;
    let end = p.next();
    if end.kind != Tok::End {
        return Err(parse_error(st, "the end", &end));
    }
    Ok(1)
}

// ------------------------------------------------------------------------------------------
// The module and cjson.new()
// ------------------------------------------------------------------------------------------

/// The functions of a cjson table, by name.
fn module_functions() -> Vec<(&'static str, RawFn)> {
    vec![
        ("encode", raw(json_encode)),
        ("decode", raw(json_decode)),
        (
            "encode_sparse_array",
            raw(|st| {
                let t = arg_init(st, 3)?;
                enum_option(st, t, 1, "encode_sparse_convert", ON_OFF)?;
                integer_option(st, t, 2, "encode_sparse_ratio", 0, i32::MAX as i64)?;
                integer_option(st, t, 3, "encode_sparse_safe", 0, i32::MAX as i64)?;
                Ok(3)
            }),
        ),
        (
            "encode_max_depth",
            raw(|st| {
                let t = arg_init(st, 1)?;
                integer_option(st, t, 1, "encode_max_depth", 1, i32::MAX as i64)?;
                Ok(1)
            }),
        ),
        (
            "decode_max_depth",
            raw(|st| {
                let t = arg_init(st, 1)?;
                integer_option(st, t, 1, "decode_max_depth", 1, i32::MAX as i64)?;
                Ok(1)
            }),
        ),
        (
            "encode_number_precision",
            raw(|st| {
                let t = arg_init(st, 1)?;
                integer_option(st, t, 1, "encode_number_precision", 1, 14)?;
                Ok(1)
            }),
        ),
        (
            "encode_keep_buffer",
            raw(|st| {
                let t = arg_init(st, 1)?;
                enum_option(st, t, 1, "encode_keep_buffer", ON_OFF)?;
                Ok(1)
            }),
        ),
        (
            "encode_invalid_numbers",
            raw(|st| {
                let t = arg_init(st, 1)?;
                enum_option(st, t, 1, "encode_invalid_numbers", &["off", "on", "null"])?;
                Ok(1)
            }),
        ),
        (
            "decode_invalid_numbers",
            raw(|st| {
                let t = arg_init(st, 1)?;
                enum_option(st, t, 1, "decode_invalid_numbers", ON_OFF)?;
                Ok(1)
            }),
        ),
    ]
}

/// `lua_cjson_new()`: a new cjson table whose functions share a new configuration. The
/// functions are registered with the state on the first call and reused by every instance.
fn lua_cjson_new(
    st: &mut LuaState,
    registered: &RefCell<Vec<(&'static str, usize)>>,
    new_fn: &Cell<usize>,
) -> Result<usize, LuaError> {
    if registered.borrow().is_empty() {
        let mut list = Vec::new();
        for (name, f) in module_functions() {
            if let LuaValue::Function(LuaClosure::LightC(idx)) = capi::function_value(st, f) {
                list.push((name, idx));
            }
        }
        // `new` itself: the running function's own index.
        if let LuaValue::Function(LuaClosure::C(c)) = st.get_at(st.current_call_info().func) {
            new_fn.set(c.func);
        } else if let LuaValue::Function(LuaClosure::LightC(idx)) = st.get_at(st.current_call_info().func) {
            new_fn.set(idx);
        }
        *registered.borrow_mut() = list;
    }
    let module = capi::push_table(st);
    let cfg = capi::push_table(st);
    for (key, value) in DEFAULTS {
        capi::push_bytes(st, key.as_bytes())?;
        capi::push_number(st, *value as f64);
        capi::pop_into_table(st)?;
    }
    let mut entries: Vec<(&'static str, usize)> = registered.borrow().clone();
    entries.push(("new", new_fn.get()));
    for (name, idx) in entries {
        capi::push_bytes(st, name.as_bytes())?;
        let closure = GcRef::new(LuaCClosure { func: idx, upvalues: RefCell::new(vec![LuaValue::Table(cfg)]) });
        closure.account_buffer(closure.buffer_bytes() as isize);
        st.push(LuaValue::Function(LuaClosure::C(closure)));
        lua_vm::api::raw_set(st, -4)?;
    }
    capi::pop(st, 1)?; // the configuration (kept by the closures)
    let _ = module;
    capi::push_bytes(st, b"null")?;
    st.push(LuaValue::LightUserData(std::ptr::null_mut()));
    capi::pop_into_table(st)?;
    capi::push_bytes(st, b"_NAME")?;
    capi::push_bytes(st, NAME.as_bytes())?;
    capi::pop_into_table(st)?;
    capi::push_bytes(st, b"_VERSION")?;
    capi::push_bytes(st, VERSION.as_bytes())?;
    capi::pop_into_table(st)?;
    Ok(1)
}

pub fn functions() -> Vec<(&'static str, RawFn)> {
    let registered: Rc<RefCell<Vec<(&'static str, usize)>>> = Rc::default();
    let new_fn: Rc<Cell<usize>> = Rc::default();
    vec![("cjson.new", raw(move |st| lua_cjson_new(st, &registered, &new_fn)))]
}
