//! `struct`: Roberto Ierusalimschy's struct library as Redis 7.0.15 ships it
//! (deps/lua/src/lua_struct.c: `b_pack()`, `b_unpack()`, `b_size()`), in Rust, for x86-64's C
//! sizes: `b`/`B` 1, `h`/`H` 2, `l`/`L` 8, `T` 8, `i`/`I` 4 or `iN` (N ≤ 32), `f` 4, `d` 8,
//! `cN` (`c0`: the whole string / the previous number as length), `s` (zero-terminated), `x`
//! (a pad byte), `<` `>` (endianness, little by default), `![N]` (maximum alignment, 8 by
//! default), spaces ignored. Integers go through C's `long` / `unsigned long` as the C does
//! (bytes past the 8th are zero; a signed read past the 8th sign-extends from x86's masked
//! shift).

use lua_types::error::LuaError;
use lua_types::value::LuaValue;
use lua_vm::state::LuaState;

use super::capi::{self, raw, RawFn};
use super::printf;

/// lua_struct.c MAXINTSIZE.
const MAX_INT_SIZE: usize = 32;
/// `MAXALIGN` on x86-64 (the padding before a double in a struct).
const MAX_ALIGN: usize = 8;

#[derive(Clone, Copy)]
struct Header {
    little: bool,
    align: usize,
}

impl Default for Header {
    fn default() -> Self {
        Header { little: true, align: 1 }
    }
}

/// `getnum()`: digits after an option, or `default`.
fn getnum(st: &mut LuaState, fmt: &[u8], i: &mut usize, default: usize) -> Result<usize, LuaError> {
    if !fmt.get(*i).is_some_and(|c| c.is_ascii_digit()) {
        return Ok(default);
    }
    let mut a: i64 = 0;
    while let Some(&c) = fmt.get(*i).filter(|c| c.is_ascii_digit()) {
        let d = (c - b'0') as i64;
        if a > (i32::MAX / 10) as i64 || a * 10 > i32::MAX as i64 - d {
            return Err(capi::error(st, "integral size overflow"));
        }
        a = a * 10 + d;
        *i += 1;
    }
    Ok(a as usize)
}

/// `optsize()`.
fn optsize(st: &mut LuaState, opt: u8, fmt: &[u8], i: &mut usize) -> Result<usize, LuaError> {
    Ok(match opt {
        b'B' | b'b' => 1,
        b'H' | b'h' => 2,
        b'L' | b'l' | b'T' | b'd' => 8,
        b'f' => 4,
        b'x' => 1,
        b'c' => getnum(st, fmt, i, 1)?,
        b'i' | b'I' => {
            let sz = getnum(st, fmt, i, 4)?;
            if sz > MAX_INT_SIZE {
                return Err(capi::error(
                    st,
                    format!("integral size {} is larger than limit of {MAX_INT_SIZE}", sz as i32),
                ));
            }
            sz
        }
        _ => 0,
    })
}

/// `gettoalign()`.
fn gettoalign(len: usize, h: &Header, opt: u8, size: usize) -> usize {
    if size == 0 || opt == b'c' {
        return 0;
    }
    let size = size.min(h.align);
    (size - (len & (size - 1))) & (size - 1)
}

/// `controloptions()`.
fn controloptions(st: &mut LuaState, opt: u8, fmt: &[u8], i: &mut usize, h: &mut Header) -> Result<(), LuaError> {
    match opt {
        b' ' => Ok(()),
        b'>' => {
            h.little = false;
            Ok(())
        }
        b'<' => {
            h.little = true;
            Ok(())
        }
        b'!' => {
            let a = getnum(st, fmt, i, MAX_ALIGN)?;
            if !(a > 0 && a & (a - 1) == 0) {
                return Err(capi::error(st, format!("alignment {} is not a power of 2", a as i32)));
            }
            h.align = a;
            Ok(())
        }
        other => Err(capi::arg_error(st, 1, &format!("invalid format option '{}'", other as char))),
    }
}

/// `putinteger()`.
fn put_integer(out: &mut Vec<u8>, n: f64, little: bool, size: usize) {
    let mut value = if n < 0.0 { printf::c_long(n) as u64 } else { printf::c_ulong(n) };
    let mut buf = vec![0u8; size];
    if little {
        for b in buf.iter_mut() {
            *b = value as u8;
            value = value.checked_shr(8).unwrap_or(0);
        }
    } else {
        for b in buf.iter_mut().rev() {
            *b = value as u8;
            value = value.checked_shr(8).unwrap_or(0);
        }
    }
    out.extend_from_slice(&buf);
}

/// `getinteger()`.
fn get_integer(buf: &[u8], little: bool, signed: bool) -> f64 {
    let mut l: u64 = 0;
    let bytes: Box<dyn Iterator<Item = &u8>> = if little { Box::new(buf.iter().rev()) } else { Box::new(buf.iter()) };
    for &b in bytes {
        l = (l << 8) | b as u64;
    }
    if !signed {
        return l as f64;
    }
    // `~0UL << (size*8 - 1)`: x86 masks the shift count to 6 bits.
    let mask = u64::MAX << ((buf.len() * 8).wrapping_sub(1) & 63);
    if l & mask != 0 {
        l |= mask;
    }
    l as i64 as f64
}

fn b_pack(st: &mut LuaState) -> Result<usize, LuaError> {
    let fmt = capi::check_bytes(st, 1)?;
    let fmt = &fmt[..fmt.iter().position(|&c| c == 0).unwrap_or(fmt.len())];
    let mut h = Header::default();
    let mut arg = 2;
    // "mark to separate arguments from string buffer": the first missing argument is this nil.
    st.push(LuaValue::Nil);
    let mut total = 0usize;
    let mut out = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        let opt = fmt[i];
        i += 1;
        let mut size = optsize(st, opt, fmt, &mut i)?;
        let toalign = gettoalign(total, &h, opt, size);
        total += toalign;
        out.resize(out.len() + toalign, 0);
        match opt {
            b'b' | b'B' | b'h' | b'H' | b'l' | b'L' | b'T' | b'i' | b'I' => {
                let n = capi::check_number(st, arg)?;
                arg += 1;
                put_integer(&mut out, n, h.little, size);
            }
            b'x' => out.push(0),
            b'f' => {
                let f = capi::check_number(st, arg)? as f32;
                arg += 1;
                out.extend_from_slice(&if h.little { f.to_le_bytes() } else { f.to_be_bytes() });
            }
            b'd' => {
                let d = capi::check_number(st, arg)?;
                arg += 1;
                out.extend_from_slice(&if h.little { d.to_le_bytes() } else { d.to_be_bytes() });
            }
            b'c' | b's' => {
                let s = capi::check_bytes(st, arg)?;
                arg += 1;
                if size == 0 {
                    size = s.len();
                }
                if s.len() < size {
                    return Err(capi::arg_error(st, arg, "string too short"));
                }
                out.extend_from_slice(&s[..size]);
                if opt == b's' {
                    out.push(0);
                    size += 1;
                }
            }
            _ => controloptions(st, opt, fmt, &mut i, &mut h)?,
        }
        total += size;
        if let Some(e) = st.sandbox_reserve(out.len()) {
            return Err(e);
        }
    }
    capi::push_bytes(st, &out)?;
    Ok(1)
}

fn b_unpack(st: &mut LuaState) -> Result<usize, LuaError> {
    let fmt = capi::check_bytes(st, 1)?;
    let fmt = &fmt[..fmt.iter().position(|&c| c == 0).unwrap_or(fmt.len())];
    let data = capi::check_bytes(st, 2)?;
    let ld = data.len();
    let start = match capi::arg_type(st, 3) {
        lua_types::LuaType::None | lua_types::LuaType::Nil => 1,
        _ => capi::check_integer(st, 3)?,
    };
    if start == 0 {
        return Err(capi::arg_error(st, 3, "offset must be 1 or greater"));
    }
    // (size_t) arithmetic: a negative offset is a huge position.
    let mut pos = (start as u64).wrapping_sub(1) as usize;
    let mut h = Header::default();
    let mut n = 0usize;
    let mut i = 0;
    let too_short = |st: &mut LuaState| capi::arg_error(st, 2, "data string too short");
    while i < fmt.len() {
        let opt = fmt[i];
        i += 1;
        let mut size = optsize(st, opt, fmt, &mut i)?;
        pos = pos.wrapping_add(gettoalign(pos, &h, opt, size));
        if !(size <= ld && pos <= ld - size) {
            return Err(too_short(st));
        }
        capi::ensure_stack(st, 2, "too many results")?;
        match opt {
            b'b' | b'B' | b'h' | b'H' | b'l' | b'L' | b'T' | b'i' | b'I' => {
                let v = get_integer(&data[pos..pos + size], h.little, opt.is_ascii_lowercase());
                capi::push_number(st, v);
                n += 1;
            }
            b'x' => {}
            b'f' => {
                let b: [u8; 4] = data[pos..pos + 4].try_into().unwrap_or_default();
                let f = if h.little { f32::from_le_bytes(b) } else { f32::from_be_bytes(b) };
                capi::push_number(st, f as f64);
                n += 1;
            }
            b'd' => {
                let b: [u8; 8] = data[pos..pos + 8].try_into().unwrap_or_default();
                let d = if h.little { f64::from_le_bytes(b) } else { f64::from_be_bytes(b) };
                capi::push_number(st, d);
                n += 1;
            }
            b'c' => {
                if size == 0 {
                    let prev = if n == 0 { None } else { capi::to_number(&capi::from_top(st, 1)) };
                    let Some(len) = prev else {
                        return Err(capi::error(st, "format 'c0' needs a previous size"));
                    };
                    size = printf::c_ulong(len) as usize;
                    capi::pop(st, 1)?;
                    n -= 1;
                    if !(size <= ld && pos <= ld - size) {
                        return Err(too_short(st));
                    }
                }
                capi::push_bytes(st, &data[pos..pos + size])?;
                n += 1;
            }
            b's' => {
                let Some(e) = data[pos..].iter().position(|&c| c == 0) else {
                    return Err(capi::error(st, "unfinished string in data"));
                };
                size = e + 1;
                capi::push_bytes(st, &data[pos..pos + e])?;
                n += 1;
            }
            _ => controloptions(st, opt, fmt, &mut i, &mut h)?,
        }
        pos = pos.wrapping_add(size);
    }
    capi::push_number(st, pos.wrapping_add(1) as i64 as f64);
    Ok(n + 1)
}

fn b_size(st: &mut LuaState) -> Result<usize, LuaError> {
    let fmt = capi::check_bytes(st, 1)?;
    let fmt = &fmt[..fmt.iter().position(|&c| c == 0).unwrap_or(fmt.len())];
    let mut h = Header::default();
    let mut pos = 0usize;
    let mut i = 0;
    while i < fmt.len() {
        let opt = fmt[i];
        i += 1;
        let size = optsize(st, opt, fmt, &mut i)?;
        pos += gettoalign(pos, &h, opt, size);
        if opt == b's' {
            return Err(capi::arg_error(st, 1, "option 's' has no fixed size"));
        } else if opt == b'c' && size == 0 {
            return Err(capi::arg_error(st, 1, "option 'c0' has no fixed size"));
        }
        if !opt.is_ascii_alphanumeric() {
            controloptions(st, opt, fmt, &mut i, &mut h)?;
        }
        pos += size;
    }
    st.push(LuaValue::Float(pos as f64));
    Ok(1)
}

pub fn functions() -> Vec<(&'static str, RawFn)> {
    vec![("struct.pack", raw(b_pack)), ("struct.unpack", raw(b_unpack)), ("struct.size", raw(b_size))]
}
