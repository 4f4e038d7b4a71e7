//! `cmsgpack`: lua-cmsgpack 0.4.0 as Redis 7.0.15 ships it (deps/lua/src/lua_cmsgpack.c:
//! `mp_pack()`, `mp_unpack_full()` behind `unpack`/`unpack_one`/`unpack_limit`), in Rust.
//!
//! Packing: a number whose `(int64_t)` cast is exact is an integer (the smallest MessagePack
//! int that holds it), any other a float32 when that is exact, else a float64; strings are
//! fixstr/str8/str16/str32; a table whose keys are exactly 1..n is an array (elements read up
//! to its border), any other table a map; tables nested 16 deep, functions and other values
//! are nil. Unpacking accepts what 0.4.0 does (no bin/ext types: `Bad data format in input.`).
//!
//! The decoder keeps its work on the Lua stack as the C does, with an explicit stack of
//! containers instead of C recursion; it checks Lua 5.1's C-stack bound (LUAI_MAXCSTACK, 8000
//! slots) where the C calls `luaL_checkstack()`, so the deepest input gives the same
//! `stack overflow (…)` error instead of exhausting Rust's stack.

use lua_types::error::LuaError;
use lua_types::table::LuaTable;
use lua_types::value::LuaValue;
use lua_types::LuaType;
use lua_vm::state::LuaState;

use super::capi::{self, raw, RawFn};
use super::printf;

/// lua_cmsgpack.c LUACMSGPACK_MAX_NESTING.
const MAX_NESTING: usize = 16;

pub const NAME: &str = "cmsgpack";
pub const VERSION: &str = "lua-cmsgpack 0.4.0";
pub const COPYRIGHT: &str = "Copyright (C) 2012, Salvatore Sanfilippo";
pub const DESCRIPTION: &str = "MessagePack C implementation for Lua";

// ------------------------------------------------------------------------------------------
// Encoding
// ------------------------------------------------------------------------------------------

fn encode_bytes(buf: &mut Vec<u8>, s: &[u8]) {
    let len = s.len();
    if len < 32 {
        buf.push(0xa0 | len as u8);
    } else if len <= 0xff {
        buf.extend_from_slice(&[0xd9, len as u8]);
    } else if len <= 0xffff {
        buf.push(0xda);
        buf.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        buf.push(0xdb);
        buf.extend_from_slice(&(len as u32).to_be_bytes());
    }
    buf.extend_from_slice(s);
}

fn encode_double(buf: &mut Vec<u8>, d: f64) {
    let f = d as f32;
    if d == f as f64 {
        buf.push(0xca);
        buf.extend_from_slice(&f.to_be_bytes());
    } else {
        buf.push(0xcb);
        buf.extend_from_slice(&d.to_be_bytes());
    }
}

fn encode_int(buf: &mut Vec<u8>, n: i64) {
    if n >= 0 {
        if n <= 127 {
            buf.push(n as u8);
        } else if n <= 0xff {
            buf.extend_from_slice(&[0xcc, n as u8]);
        } else if n <= 0xffff {
            buf.push(0xcd);
            buf.extend_from_slice(&(n as u16).to_be_bytes());
        } else if n <= 0xffff_ffff {
            buf.push(0xce);
            buf.extend_from_slice(&(n as u32).to_be_bytes());
        } else {
            buf.push(0xcf);
            buf.extend_from_slice(&(n as u64).to_be_bytes());
        }
    } else if n >= -32 {
        buf.push(n as i8 as u8);
    } else if n >= -128 {
        buf.extend_from_slice(&[0xd0, n as u8]);
    } else if n >= -32768 {
        buf.push(0xd1);
        buf.extend_from_slice(&(n as i16).to_be_bytes());
    } else if n >= -2_147_483_648 {
        buf.push(0xd2);
        buf.extend_from_slice(&(n as i32).to_be_bytes());
    } else {
        buf.push(0xd3);
        buf.extend_from_slice(&n.to_be_bytes());
    }
}

fn encode_header(buf: &mut Vec<u8>, n: u64, fix: u8, op16: u8, op32: u8) {
    if n <= 15 {
        buf.push(fix | n as u8);
    } else if n <= 65535 {
        buf.push(op16);
        buf.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        buf.push(op32);
        buf.extend_from_slice(&(n as u32).to_be_bytes());
    }
}

/// `mp_encode_lua_number()`: `IS_INT64_EQUIVALENT` decides integer or float.
fn encode_number(buf: &mut Vec<u8>, n: f64) {
    let as_int = printf::c_long(n);
    if !n.is_infinite() && as_int as f64 == n {
        encode_int(buf, as_int);
    } else {
        encode_double(buf, n);
    }
}

/// `table_is_an_array()`: every key a number > 0 that `(int)` holds exactly, and as many keys
/// as the largest.
fn table_is_an_array(t: &LuaTable) -> bool {
    let (mut count, mut max) = (0i64, 0i32);
    let mut key = LuaValue::Nil;
    while let Some((k, _)) = t.next_pair(&key) {
        let n = match k {
            LuaValue::Float(f) => f,
            LuaValue::Int(i) => i as f64,
            _ => return false,
        };
        if n <= 0.0 || n.is_infinite() || printf::c_int(n) as f64 != n {
            return false;
        }
        if n > max as f64 {
            max = printf::c_int(n);
        }
        count += 1;
        key = k;
    }
    max as i64 == count
}

fn encode_value(st: &mut LuaState, buf: &mut Vec<u8>, v: &LuaValue, level: usize) -> Result<(), LuaError> {
    if let Some(e) = st.sandbox_reserve(buf.len()) {
        return Err(e);
    }
    match v {
        LuaValue::Str(s) => encode_bytes(buf, s.as_bytes()),
        LuaValue::Bool(b) => buf.push(if *b { 0xc3 } else { 0xc2 }),
        LuaValue::Float(f) => encode_number(buf, *f),
        LuaValue::Int(i) => encode_number(buf, *i as f64),
        LuaValue::Table(t) if level < MAX_NESTING => {
            if table_is_an_array(t) {
                let len = t.getn();
                encode_header(buf, len, 0x90, 0xdc, 0xdd);
                for j in 1..=len {
                    let item = t.get_int(j as i64);
                    encode_value(st, buf, &item, level + 1)?;
                }
            } else {
                let mut len = 0u64;
                let mut key = LuaValue::Nil;
                while let Some((k, _)) = t.next_pair(&key) {
                    len += 1;
                    key = k;
                }
                encode_header(buf, len, 0x80, 0xde, 0xdf);
                let mut key = LuaValue::Nil;
                while let Some((k, item)) = t.next_pair(&key) {
                    encode_value(st, buf, &k, level + 1)?;
                    encode_value(st, buf, &item, level + 1)?;
                    key = k;
                }
            }
        }
        _ => buf.push(0xc0),
    }
    Ok(())
}

/// `mp_pack()`: every argument, one after the other.
fn mp_pack(st: &mut LuaState) -> Result<usize, LuaError> {
    let nargs = capi::nargs(st);
    if nargs == 0 {
        return Err(capi::arg_error(st, 0, "MessagePack pack needs input."));
    }
    let mut buf = Vec::new();
    for i in 1..=nargs {
        let v = capi::arg(st, i);
        encode_value(st, &mut buf, &v, 0)?;
    }
    capi::push_bytes(st, &buf)?;
    Ok(1)
}

// ------------------------------------------------------------------------------------------
// Decoding
// ------------------------------------------------------------------------------------------

enum DecodeError {
    /// MP_CUR_ERROR_EOF
    Eof,
    /// MP_CUR_ERROR_BADFMT
    BadFormat,
    Lua(LuaError),
}

impl From<LuaError> for DecodeError {
    fn from(e: LuaError) -> Self {
        DecodeError::Lua(e)
    }
}

/// The input left to read (`mp_cur`).
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn left(&self) -> usize {
        self.data.len() - self.pos
    }

    fn need(&self, n: usize) -> Result<(), DecodeError> {
        if self.left() < n {
            Err(DecodeError::Eof)
        } else {
            Ok(())
        }
    }

    fn byte(&self, i: usize) -> u8 {
        self.data[self.pos + i]
    }

    fn be(&self, from: usize, n: usize) -> u64 {
        (0..n).fold(0u64, |acc, i| (acc << 8) | self.byte(from + i) as u64)
    }
}

enum Open {
    Array { left: u64, index: f64 },
    Map { left: u64, key_done: bool },
}

/// `lua_settable(L, -3)` on a fresh table: key and value popped into the table below them.
fn set_pair(st: &mut LuaState) -> Result<(), LuaError> {
    match capi::from_top(st, 2) {
        LuaValue::Nil => return Err(capi::plain_error(st, b"table index is nil")),
        LuaValue::Float(f) if f.is_nan() => return Err(capi::plain_error(st, b"table index is NaN")),
        _ => {}
    }
    capi::pop_into_table(st)
}

/// Opens a container just read: its table is pushed; returns whether items follow.
fn open_container(st: &mut LuaState, open: &mut Vec<Open>, len: u64, array: bool) -> Result<(), LuaError> {
    capi::push_table(st);
    if array {
        capi::ensure_stack(st, 1, "in function mp_decode_to_lua_array")?;
    }
    if len > 0 {
        open.push(if array { Open::Array { left: len, index: 1.0 } } else { Open::Map { left: len, key_done: false } });
        if array {
            capi::push_number(st, 1.0);
        }
    }
    Ok(())
}

/// `mp_decode_to_lua_type()` for one top-level value, its containers filled iteratively.
fn decode_value(st: &mut LuaState, c: &mut Cursor) -> Result<(), DecodeError> {
    let mut open: Vec<Open> = Vec::new();
    loop {
        // One item at the cursor.
        c.need(1)?;
        capi::ensure_stack(st, 1, "too many return values at once; use unpack_one or unpack_limit instead.")?;
        let b = c.byte(0);
        let mut opened = false;
        match b {
            0xcc => {
                c.need(2)?;
                capi::push_number(st, c.byte(1) as f64);
                c.pos += 2;
            }
            0xd0 => {
                c.need(2)?;
                capi::push_number(st, c.byte(1) as i8 as f64);
                c.pos += 2;
            }
            0xcd => {
                c.need(3)?;
                capi::push_number(st, c.be(1, 2) as f64);
                c.pos += 3;
            }
            0xd1 => {
                c.need(3)?;
                capi::push_number(st, c.be(1, 2) as u16 as i16 as f64);
                c.pos += 3;
            }
            0xce => {
                c.need(5)?;
                capi::push_number(st, c.be(1, 4) as f64);
                c.pos += 5;
            }
            0xd2 => {
                c.need(5)?;
                capi::push_number(st, c.be(1, 4) as u32 as i32 as f64);
                c.pos += 5;
            }
            // lua_pushunsigned() is lua_pushinteger() on 64 bits: through a signed long.
            0xcf | 0xd3 => {
                c.need(9)?;
                capi::push_number(st, c.be(1, 8) as i64 as f64);
                c.pos += 9;
            }
            0xc0 => {
                st.push(LuaValue::Nil);
                c.pos += 1;
            }
            0xc3 | 0xc2 => {
                st.push(LuaValue::Bool(b == 0xc3));
                c.pos += 1;
            }
            0xca => {
                c.need(5)?;
                capi::push_number(st, f32::from_bits(c.be(1, 4) as u32) as f64);
                c.pos += 5;
            }
            0xcb => {
                c.need(9)?;
                capi::push_number(st, f64::from_bits(c.be(1, 8)));
                c.pos += 9;
            }
            0xd9..=0xdb => {
                let hdr = match b {
                    0xd9 => 1,
                    0xda => 2,
                    _ => 4,
                };
                c.need(1 + hdr)?;
                let l = c.be(1, hdr) as usize;
                c.pos += 1 + hdr;
                c.need(l)?;
                capi::push_bytes(st, &c.data[c.pos..c.pos + l])?;
                c.pos += l;
            }
            0xdc..=0xdf => {
                let hdr = if b == 0xdc || b == 0xde { 2 } else { 4 };
                c.need(1 + hdr)?;
                let l = c.be(1, hdr);
                c.pos += 1 + hdr;
                open_container(st, &mut open, l, b <= 0xdd)?;
                opened = l > 0;
            }
            _ if b & 0x80 == 0 => {
                capi::push_number(st, b as f64);
                c.pos += 1;
            }
            _ if b & 0xe0 == 0xe0 => {
                capi::push_number(st, b as i8 as f64);
                c.pos += 1;
            }
            _ if b & 0xe0 == 0xa0 => {
                let l = (b & 0x1f) as usize;
                c.need(1 + l)?;
                capi::push_bytes(st, &c.data[c.pos + 1..c.pos + 1 + l])?;
                c.pos += 1 + l;
            }
            _ if b & 0xf0 == 0x90 || b & 0xf0 == 0x80 => {
                let l = (b & 0xf) as u64;
                c.pos += 1;
                open_container(st, &mut open, l, b & 0xf0 == 0x90)?;
                opened = l > 0;
            }
            _ => return Err(DecodeError::BadFormat),
        }
        if opened {
            continue;
        }
        // A value is complete on the stack top: fill the containers it completes.
        loop {
            match open.last_mut() {
                None => return Ok(()),
                Some(Open::Array { left, index }) => {
                    set_pair(st)?;
                    *left -= 1;
                    *index += 1.0;
                    if *left == 0 {
                        open.pop();
                        continue;
                    }
                    let i = *index;
                    capi::push_number(st, i);
                    break;
                }
                Some(Open::Map { left, key_done }) => {
                    if !*key_done {
                        *key_done = true;
                        break;
                    }
                    set_pair(st)?;
                    *left -= 1;
                    *key_done = false;
                    if *left == 0 {
                        open.pop();
                        continue;
                    }
                    break;
                }
            }
        }
    }
}

/// `mp_unpack_full()`.
fn unpack_full(st: &mut LuaState, limit: i32, offset: i32) -> Result<usize, LuaError> {
    let s = capi::check_bytes(st, 1)?;
    let len = s.len();
    let decode_all = limit == 0 && offset == 0;
    if offset < 0 || limit < 0 {
        return Err(capi::error(
            st,
            format!("Invalid request to unpack with offset of {offset} and limit of {}.", len as i32),
        ));
    } else if offset as usize > len {
        return Err(capi::error(st, format!("Start offset {offset} greater than input length {}.", len as i32)));
    }
    let limit = if decode_all { i32::MAX } else { limit };
    let mut c = Cursor { data: &s, pos: offset as usize };
    let mut cnt = 0;
    while c.left() > 0 && cnt < limit {
        match decode_value(st, &mut c) {
            Ok(()) => {}
            Err(DecodeError::Eof) => return Err(capi::error(st, "Missing bytes in input.")),
            Err(DecodeError::BadFormat) => return Err(capi::error(st, "Bad data format in input.")),
            Err(DecodeError::Lua(e)) => return Err(e),
        }
        cnt += 1;
    }
    let mut n = cnt as usize;
    if !decode_all {
        capi::ensure_stack(st, 1, "in function mp_unpack_full")?;
        let next = if c.left() == 0 { -1.0 } else { (len - c.left()) as i32 as f64 };
        capi::push_number(st, next);
        lua_vm::api::rotate(st, 2, 1);
        n += 1;
    }
    Ok(n)
}

fn opt_int(st: &mut LuaState, n: i32) -> Result<i32, LuaError> {
    match capi::arg_type(st, n) {
        LuaType::None | LuaType::Nil => Ok(0),
        _ => Ok(capi::check_integer(st, n)? as i32),
    }
}

pub fn functions() -> Vec<(&'static str, RawFn)> {
    vec![
        ("cmsgpack.pack", raw(mp_pack)),
        ("cmsgpack.unpack", raw(|st| unpack_full(st, 0, 0))),
        (
            "cmsgpack.unpack_one",
            raw(|st| {
                let offset = opt_int(st, 2)?;
                let keep = 1.min(capi::nargs(st));
                capi::set_top(st, keep)?;
                unpack_full(st, 1, offset)
            }),
        ),
        (
            "cmsgpack.unpack_limit",
            raw(|st| {
                let limit = capi::check_integer(st, 2)? as i32;
                let offset = opt_int(st, 3)?;
                capi::set_top(st, 1)?;
                unpack_full(st, limit, offset)
            }),
        ),
    ]
}
