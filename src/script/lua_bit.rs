//! `bit`: LuaBitOp 1.0 as Redis 7.0.15 ships it (deps/lua/src/lua_bit.c), in Rust. Numbers
//! become 32-bit integers the way `barg()` does it — the low word of `n + 2^52 + 2^51` (round
//! to nearest, wrap modulo 2^32) — and results come back signed (`BRET`). A non-number argument
//! is `luaL_typerror()`'s `number expected`, only when that low word is 0 (Lua 5.1's check).

use lua_types::error::LuaError;
use lua_vm::state::LuaState;

use super::capi::{self, raw, RawFn};

/// lua_bit.c `barg()`.
fn barg(st: &mut LuaState, n: i32) -> Result<u32, LuaError> {
    let v = capi::arg(st, n);
    let d = capi::to_number(&v);
    let b = (d.unwrap_or(0.0) + 6_755_399_441_055_744.0).to_bits() as u32;
    if b == 0 && d.is_none() {
        return Err(capi::type_error(st, n, "number"));
    }
    Ok(b)
}

/// `BRET(b)`: the result as a signed 32-bit number.
fn bret(st: &mut LuaState, b: u32) -> Result<usize, LuaError> {
    capi::push_number(st, b as i32 as f64);
    Ok(1)
}

fn fold(op: fn(u32, u32) -> u32) -> RawFn {
    raw(move |st| {
        let mut b = barg(st, 1)?;
        // bit_band() & co. fold from the last argument down to the second.
        let mut i = capi::nargs(st);
        while i > 1 {
            b = op(b, barg(st, i)?);
            i -= 1;
        }
        bret(st, b)
    })
}

fn shift(op: fn(u32, u32) -> u32) -> RawFn {
    raw(move |st| {
        let b = barg(st, 1)?;
        let n = barg(st, 2)? & 31;
        bret(st, op(b, n))
    })
}

pub fn functions() -> Vec<(&'static str, RawFn)> {
    vec![
        (
            "bit.tobit",
            raw(|st| {
                let b = barg(st, 1)?;
                bret(st, b)
            }),
        ),
        (
            "bit.bnot",
            raw(|st| {
                let b = barg(st, 1)?;
                bret(st, !b)
            }),
        ),
        ("bit.band", fold(|a, b| a & b)),
        ("bit.bor", fold(|a, b| a | b)),
        ("bit.bxor", fold(|a, b| a ^ b)),
        ("bit.lshift", shift(|b, n| b << n)),
        ("bit.rshift", shift(|b, n| b >> n)),
        ("bit.arshift", shift(|b, n| ((b as i32) >> n) as u32)),
        ("bit.rol", shift(|b, n| b.rotate_left(n))),
        ("bit.ror", shift(|b, n| b.rotate_right(n))),
        (
            "bit.bswap",
            raw(|st| {
                let b = barg(st, 1)?;
                bret(st, b.swap_bytes())
            }),
        ),
        (
            "bit.tohex",
            raw(|st| {
                let mut b = barg(st, 1)?;
                let mut n: i32 =
                    if capi::arg_type(st, 2) == lua_types::LuaType::None { 8 } else { barg(st, 2)? as i32 };
                let mut digits: &[u8] = b"0123456789abcdef";
                if n < 0 {
                    n = n.wrapping_neg();
                    digits = b"0123456789ABCDEF";
                }
                let n = n.clamp(0, 8) as usize;
                let mut buf = vec![0u8; n];
                for slot in buf.iter_mut().rev() {
                    *slot = digits[(b & 15) as usize];
                    b >>= 4;
                }
                capi::push_bytes(st, &buf)?;
                Ok(1)
            }),
        ),
    ]
}
