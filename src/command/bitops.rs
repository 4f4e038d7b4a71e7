//! bitops.c: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD and BITFIELD_RO.
//!
//! Models `getBitOffsetFromArgument()`, `getBitfieldTypeFromArgument()`,
//! `lookupStringForBitCommand()`, `getObjectReadOnlyString()`, `redisPopcount()`,
//! `redisBitpos()`, the `get/set{Signed,Unsigned}Bitfield()` accessors,
//! `check{Signed,Unsigned}BitfieldOverflow()` and the commands built on them, each with
//! 7.0.15's order of checks — e.g. BITCOUNT and BITPOS look the key up before they parse their
//! range, so a missing key answers 0 (or -1) whatever follows, and BITCOUNT answers 0 for a
//! negative range with `start > end` before it looks at BIT|BYTE.
//!
//! Strings keep Redis's encodings: a command that writes bits first turns an `int` or `embstr`
//! value into a `raw` one (db.c `dbUnshareStringValue()`, even when nothing changes), grows it
//! with sds.c `sdsgrowzero()` (greedy, as memory.rs models it), and a new bitmap or BITOP's
//! result is an exact `raw` sds. SETBIT and BITFIELD count a change (keyspace event `setbit`,
//! a dirty write) only when a bit changed or the string was created or grown.
//!
//! Differences: a write that would make the string longer than `playground-max-alloc` (32 MB
//! by default) is refused with the playground's error, after every check Redis makes first —
//! Redis allows up to `proto-max-bulk-len` (512 MB), which a browser tab can't afford.

use crate::command::call::Call;
use crate::command::string::check_playground_alloc;
use crate::command::{c_str, is_opt, syntax_error, wrongtype, NOT_INTEGER};
use crate::engine::Engine;
use crate::object::{StrValue, Value};
use crate::reply::Reply;
use crate::util::string2ll;

const BIT_OFFSET_ERR: &str = "ERR bit offset is not an integer or out of range";
const BIT_VALUE_ERR: &str = "ERR bit is not an integer or out of range";
const BITFIELD_TYPE_ERR: &str =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// `getBitOffsetFromArgument()`: a non-negative int64 below `proto-max-bulk-len` × 8. With
/// `hash` and a width, `#N` means N × bits (multiplied as C does, wrapping on overflow).
fn bit_offset(e: &Engine, arg: &[u8], hash: bool, bits: u32) -> Result<u64, Reply> {
    let usehash = hash && bits > 0 && arg.first() == Some(&b'#');
    let digits = if usehash { &arg[1..] } else { arg };
    let Some(mut offset) = string2ll(digits) else {
        return Err(Reply::err(BIT_OFFSET_ERR));
    };
    if usehash {
        offset = offset.wrapping_mul(bits as i64);
    }
    if offset < 0 || (offset >> 3) >= e.config.int("proto-max-bulk-len") {
        return Err(Reply::err(BIT_OFFSET_ERR));
    }
    Ok(offset as u64)
}

/// `getBitfieldTypeFromArgument()`: `i1`..`i64` or `u1`..`u63` (the width read as a C string).
fn bitfield_type(arg: &[u8]) -> Result<(bool, u32), Reply> {
    let signed = match arg.first() {
        Some(b'i') => true,
        Some(b'u') => false,
        _ => return Err(Reply::err(BITFIELD_TYPE_ERR)),
    };
    match string2ll(c_str(&arg[1..])) {
        Some(bits) if bits >= 1 && ((signed && bits <= 64) || (!signed && bits <= 63)) => Ok((signed, bits as u32)),
        _ => Err(Reply::err(BITFIELD_TYPE_ERR)),
    }
}

/// `lookupKeyRead()` + `checkType()` + `getObjectReadOnlyString()`: the string's bytes (an
/// `int` value as its decimal digits), `None` for a missing key.
fn read_bytes(e: &mut Engine, db: usize, key: &[u8]) -> Result<Option<Vec<u8>>, Reply> {
    match e.lookup_read(db, key) {
        None => Ok(None),
        Some(o) => match &o.value {
            Value::Str(s) => Ok(Some(s.to_bytes())),
            _ => Err(wrongtype()),
        },
    }
}

/// `lookupStringForBitCommand()`: the string at `key`, created or zero-padded so that bit
/// `maxbit` exists, and always `raw` afterwards. Returns whether it was created or grew (the
/// `dirty` out-parameter).
fn lookup_string_for_bit(e: &mut Engine, db: usize, key: &[u8], maxbit: u64) -> Result<bool, Reply> {
    let need = (maxbit >> 3) + 1;
    let current = match e.lookup_write(db, key) {
        None => None,
        Some(o) => match &o.value {
            Value::Str(s) => Some(s.len()),
            _ => return Err(wrongtype()),
        },
    };
    match current {
        None => {
            check_playground_alloc(e, need)?;
            let obj = e.new_obj(Value::Str(StrValue::Raw(vec![0; need as usize], 0)));
            e.dbs[db].insert(key.to_vec(), obj);
            Ok(true)
        }
        Some(len) => {
            let grows = need > len as u64;
            if grows {
                check_playground_alloc(e, need)?;
            }
            if let Some(o) = e.dbs[db].get_mut(key) {
                if let Value::Str(s) = &mut o.value {
                    // dbUnshareStringValue(): an int or embstr becomes an exact raw sds first.
                    let (mut bytes, mut room) = match std::mem::replace(s, StrValue::Raw(Vec::new(), 0)) {
                        StrValue::Raw(b, room) => (b, room),
                        other => (other.to_bytes(), 0),
                    };
                    if grows {
                        room = crate::memory::sds_make_room_for(len, room, need as usize);
                        bytes.resize(need as usize, 0);
                    }
                    *s = StrValue::Raw(bytes, room);
                }
            }
            Ok(grows)
        }
    }
}

/// The raw bytes of the string at `key` (after `lookup_string_for_bit`), for writing.
fn raw_bytes_mut<'a>(e: &'a mut Engine, db: usize, key: &[u8]) -> Option<&'a mut Vec<u8>> {
    match e.dbs[db].get_mut(key).map(|o| &mut o.value) {
        Some(Value::Str(StrValue::Raw(b, _))) => Some(b),
        _ => None,
    }
}

/// C's `getLongLongFromObjectOrReply()`.
fn parse_ll(arg: &[u8]) -> Result<i64, Reply> {
    string2ll(arg).ok_or_else(|| Reply::err(NOT_INTEGER))
}

// ---------------------------------------------------------------------------------------------
// Bit arithmetic (bit 0 is the most significant bit of the first byte)
// ---------------------------------------------------------------------------------------------

/// `redisPopcount()`.
fn popcount(b: &[u8]) -> i64 {
    b.iter().map(|x| x.count_ones() as i64).sum()
}

/// `redisBitpos()`: the first bit equal to `bit`; looking for a 1 in all zeros gives -1,
/// looking for a 0 in all ones gives the bit right after the bytes (the string is taken as
/// zero-padded on the right).
fn bitpos_in(b: &[u8], bit: bool) -> i64 {
    for (i, &byte) in b.iter().enumerate() {
        let lead = if bit { byte.leading_zeros() } else { byte.leading_ones() };
        if lead < 8 {
            return i as i64 * 8 + lead as i64;
        }
    }
    if bit {
        -1
    } else {
        b.len() as i64 * 8
    }
}

/// The byte at `i`, zero beyond the end (GET's zero-padded copy in `bitfieldGeneric()`).
fn byte_at(p: &[u8], i: u64) -> u8 {
    usize::try_from(i).ok().and_then(|i| p.get(i)).copied().unwrap_or(0)
}

/// `getUnsignedBitfield()`.
fn get_unsigned(p: &[u8], mut offset: u64, bits: u32) -> u64 {
    let mut value = 0u64;
    for _ in 0..bits {
        let bit = 7 - (offset & 7);
        value = (value << 1) | ((byte_at(p, offset >> 3) >> bit) & 1) as u64;
        offset += 1;
    }
    value
}

/// `getSignedBitfield()`: the unsigned bits, sign-extended.
fn get_signed(p: &[u8], offset: u64, bits: u32) -> i64 {
    let mut value = get_unsigned(p, offset, bits) as i64;
    if bits < 64 && value & (1i64 << (bits - 1)) != 0 {
        value |= -1i64 << bits;
    }
    value
}

/// `setUnsignedBitfield()` (the caller made room for the bits).
fn set_unsigned(p: &mut [u8], mut offset: u64, bits: u32, value: u64) {
    for j in 0..bits {
        let bitval = (value >> (bits - 1 - j)) & 1;
        let byte = (offset >> 3) as usize;
        let bit = 7 - (offset & 7);
        p[byte] = (p[byte] & !(1 << bit)) | ((bitval as u8) << bit);
        offset += 1;
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Overflow {
    Wrap,
    Sat,
    Fail,
}

/// `checkUnsignedBitfieldOverflow()`: whether `value + incr` leaves `bits` bits, and the value
/// WRAP or SAT would store instead.
fn unsigned_overflow(value: u64, incr: i64, bits: u32, ow: Overflow) -> Option<u64> {
    let max = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let maxincr = max.wrapping_sub(value) as i64;
    let minincr = (value as i64).wrapping_neg();
    let wrap = || value.wrapping_add(incr as u64) & !(u64::MAX << bits);
    if value > max || (incr > 0 && incr > maxincr) {
        Some(if ow == Overflow::Wrap { wrap() } else { max })
    } else if incr < 0 && incr < minincr {
        Some(if ow == Overflow::Wrap { wrap() } else { 0 })
    } else {
        None
    }
}

/// `checkSignedBitfieldOverflow()`.
fn signed_overflow(value: i64, incr: i64, bits: u32, ow: Overflow) -> Option<i64> {
    let max = if bits == 64 { i64::MAX } else { (1i64 << (bits - 1)) - 1 };
    let min = -max - 1;
    let maxincr = (max as u64).wrapping_sub(value as u64) as i64;
    let minincr = min.wrapping_sub(value);
    let wrap = || {
        let mut c = (value as u64).wrapping_add(incr as u64);
        if bits < 64 {
            let mask = u64::MAX << bits;
            if c & (1u64 << (bits - 1)) != 0 {
                c |= mask;
            } else {
                c &= !mask;
            }
        }
        c as i64
    };
    if value > max || (bits != 64 && incr > maxincr) || (value >= 0 && incr > 0 && incr > maxincr) {
        Some(if ow == Overflow::Wrap { wrap() } else { max })
    } else if value < min || (bits != 64 && incr < minincr) || (value < 0 && incr < 0 && incr < minincr) {
        Some(if ow == Overflow::Wrap { wrap() } else { min })
    } else {
        None
    }
}

// ---------------------------------------------------------------------------------------------
// SETBIT, GETBIT
// ---------------------------------------------------------------------------------------------

pub fn setbit(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    let offset = match bit_offset(e, c.arg(2), false, 0) {
        Ok(o) => o,
        Err(r) => return r,
    };
    let on = match string2ll(c.arg(3)) {
        Some(v) if v & !1 == 0 => v == 1,
        _ => return Reply::err(BIT_VALUE_ERR),
    };
    let dirty = match lookup_string_for_bit(e, c.db, key, offset) {
        Ok(d) => d,
        Err(r) => return r,
    };
    let byte = (offset >> 3) as usize;
    let bit = 7 - (offset & 7) as u8;
    let Some(bytes) = raw_bytes_mut(e, c.db, key) else { return Reply::Integer(0) };
    let old = bytes[byte] & (1 << bit) != 0;
    if dirty || old != on {
        bytes[byte] = (bytes[byte] & !(1 << bit)) | ((on as u8) << bit);
        e.notify("setbit", c.db, key);
        e.dirty(1);
    }
    Reply::Integer(old as i64)
}

pub fn getbit(e: &mut Engine, c: &Call) -> Reply {
    let offset = match bit_offset(e, c.arg(2), false, 0) {
        Ok(o) => o,
        Err(r) => return r,
    };
    match read_bytes(e, c.db, c.arg(1)) {
        Ok(Some(b)) => Reply::Integer(((byte_at(&b, offset >> 3) >> (7 - (offset & 7))) & 1) as i64),
        Ok(None) => Reply::Integer(0),
        Err(r) => r,
    }
}

// ---------------------------------------------------------------------------------------------
// BITCOUNT, BITPOS
// ---------------------------------------------------------------------------------------------

/// BIT or BYTE (case-insensitive, as a C string): true for BIT.
fn range_unit(arg: &[u8]) -> Result<bool, Reply> {
    if is_opt(arg, "bit") {
        Ok(true)
    } else if is_opt(arg, "byte") {
        Ok(false)
    } else {
        Err(syntax_error())
    }
}

/// The byte range and edge masks of a BIT range, after negative indexes were resolved
/// against `totlen` bits (the masks select the bits outside the range in the edge bytes).
fn bit_range_masks(start: i64, end: i64) -> (i64, i64, u8, u8) {
    let first = !(((1u32 << (8 - (start & 7))) - 1) as u8);
    let last = ((1u32 << (7 - (end & 7))) - 1) as u8;
    (start >> 3, end >> 3, first, last)
}

/// bitops.c `bitcountCommand()`.
pub fn bitcount(e: &mut Engine, c: &Call) -> Reply {
    let p = match read_bytes(e, c.db, c.arg(1)) {
        Ok(Some(b)) => b,
        Ok(None) => return Reply::Integer(0),
        Err(r) => return r,
    };
    let strlen = p.len() as i64;
    let (mut start, mut end);
    let (mut first_mask, mut last_mask) = (0u8, 0u8);
    if c.argc() == 4 || c.argc() == 5 {
        start = match parse_ll(c.arg(2)) {
            Ok(v) => v,
            Err(r) => return r,
        };
        end = match parse_ll(c.arg(3)) {
            Ok(v) => v,
            Err(r) => return r,
        };
        if start < 0 && end < 0 && start > end {
            return Reply::Integer(0);
        }
        let isbit = if c.argc() == 5 {
            match range_unit(c.arg(4)) {
                Ok(b) => b,
                Err(r) => return r,
            }
        } else {
            false
        };
        let totlen = if isbit { strlen << 3 } else { strlen };
        if start < 0 {
            start += totlen;
        }
        if end < 0 {
            end += totlen;
        }
        start = start.max(0);
        end = end.max(0);
        if end >= totlen {
            end = totlen - 1;
        }
        if isbit && start <= end {
            (start, end, first_mask, last_mask) = bit_range_masks(start, end);
        }
    } else if c.argc() == 2 {
        start = 0;
        end = strlen - 1;
    } else {
        return syntax_error();
    }
    if start > end {
        return Reply::Integer(0);
    }
    let (s, t) = (start as usize, end as usize);
    let mut count = popcount(&p[s..=t]);
    if first_mask != 0 || last_mask != 0 {
        count -= popcount(&[p[s] & first_mask, p[t] & last_mask]);
    }
    Reply::Integer(count)
}

/// bitops.c `bitposCommand()`.
pub fn bitpos(e: &mut Engine, c: &Call) -> Reply {
    let bit = match string2ll(c.arg(2)) {
        Some(0) => false,
        Some(1) => true,
        Some(_) => return Reply::err("ERR The bit argument must be 1 or 0."),
        None => return Reply::err(NOT_INTEGER),
    };
    let p = match read_bytes(e, c.db, c.arg(1)) {
        Ok(Some(b)) => b,
        Ok(None) => return Reply::Integer(if bit { -1 } else { 0 }),
        Err(r) => return r,
    };
    let strlen = p.len() as i64;
    let (mut start, mut end);
    let mut end_given = false;
    let (mut first_mask, mut last_mask) = (0u8, 0u8);
    let argc = c.argc();
    if (4..=6).contains(&argc) {
        start = match parse_ll(c.arg(3)) {
            Ok(v) => v,
            Err(r) => return r,
        };
        let isbit = if argc == 6 {
            match range_unit(c.arg(5)) {
                Ok(b) => b,
                Err(r) => return r,
            }
        } else {
            false
        };
        if argc >= 5 {
            end = match parse_ll(c.arg(4)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            end_given = true;
        } else {
            end = if isbit { (strlen << 3) + 7 } else { strlen - 1 };
        }
        let totlen = if isbit { strlen << 3 } else { strlen };
        if start < 0 {
            start += totlen;
        }
        if end < 0 {
            end += totlen;
        }
        start = start.max(0);
        end = end.max(0);
        if end >= totlen {
            end = totlen - 1;
        }
        if isbit && start <= end {
            (start, end, first_mask, last_mask) = bit_range_masks(start, end);
        }
    } else if argc == 3 {
        start = 0;
        end = strlen - 1;
    } else {
        return syntax_error();
    }
    if start > end {
        return Reply::Integer(-1);
    }
    // The first byte and the last one are masked to the range's bits (outside bits set to
    // what is not looked for), the bytes between searched whole, as bitposCommand() does.
    let mut bytes = end - start + 1;
    let pos;
    'search: {
        if first_mask != 0 {
            let mut tmp = if bit { p[start as usize] & !first_mask } else { p[start as usize] | first_mask };
            if last_mask != 0 && bytes == 1 {
                tmp = if bit { tmp & !last_mask } else { tmp | last_mask };
            }
            let found = bitpos_in(&[tmp], bit);
            if bytes == 1 || (found != -1 && found != 8) {
                pos = found;
                break 'search;
            }
            start += 1;
            bytes -= 1;
        }
        let curbytes = bytes - (last_mask != 0) as i64;
        if curbytes > 0 {
            let found = bitpos_in(&p[start as usize..(start + curbytes) as usize], bit);
            if bytes == curbytes || (found != -1 && found != curbytes << 3) {
                pos = found;
                break 'search;
            }
            start += curbytes;
            bytes -= curbytes;
        }
        let tmp = if bit { p[end as usize] & !last_mask } else { p[end as usize] | last_mask };
        pos = bitpos_in(&[tmp], bit);
    }
    if end_given && !bit && pos == bytes << 3 {
        return Reply::Integer(-1);
    }
    Reply::Integer(if pos != -1 { pos + (start << 3) } else { pos })
}

// ---------------------------------------------------------------------------------------------
// BITOP
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum BitOp {
    And,
    Or,
    Xor,
    Not,
}

/// bitops.c `bitopCommand()`: missing keys are empty strings; the result is an exact raw
/// string as long as the longest input, or the destination is deleted when that is empty.
pub fn bitop(e: &mut Engine, c: &Call) -> Reply {
    let op = match c_str(c.arg(1)).to_ascii_lowercase().as_slice() {
        b"and" => BitOp::And,
        b"or" => BitOp::Or,
        b"xor" => BitOp::Xor,
        b"not" => BitOp::Not,
        _ => return syntax_error(),
    };
    if op == BitOp::Not && c.argc() != 4 {
        return Reply::err("ERR BITOP NOT must be called with a single source key.");
    }
    let mut srcs: Vec<Vec<u8>> = Vec::with_capacity(c.argc() - 3);
    for key in &c.argv[3..] {
        match read_bytes(e, c.db, key) {
            Ok(b) => srcs.push(b.unwrap_or_default()),
            Err(r) => return r,
        }
    }
    let maxlen = srcs.iter().map(Vec::len).max().unwrap_or(0);
    let mut res = vec![0u8; maxlen];
    for (j, out) in res.iter_mut().enumerate() {
        let at = |s: &Vec<u8>| s.get(j).copied().unwrap_or(0);
        let mut v = at(&srcs[0]);
        if op == BitOp::Not {
            v = !v;
        }
        for s in &srcs[1..] {
            match op {
                BitOp::And => v &= at(s),
                BitOp::Or => v |= at(s),
                BitOp::Xor => v ^= at(s),
                BitOp::Not => {}
            }
        }
        *out = v;
    }
    let dst = c.arg(2);
    if maxlen > 0 {
        e.lookup_write(c.db, dst);
        let obj = e.new_obj(Value::Str(StrValue::Raw(res, 0)));
        e.dbs[c.db].set_key(dst.to_vec(), obj, false);
        e.notify("set", c.db, dst);
        e.dirty(1);
    } else if e.dbs[c.db].delete(dst) {
        e.notify("del", c.db, dst);
        e.dirty(1);
    }
    Reply::Integer(maxlen as i64)
}

// ---------------------------------------------------------------------------------------------
// BITFIELD, BITFIELD_RO
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum FieldOp {
    Get,
    Set,
    Incrby,
}

struct Op {
    offset: u64,
    value: i64,
    op: FieldOp,
    overflow: Overflow,
    bits: u32,
    signed: bool,
}

/// The operations of a BITFIELD call, as `bitfieldGeneric()` parses them (each subcommand
/// needs all its arguments, else it is a syntax error; OVERFLOW applies to what follows).
fn parse_bitfield(e: &Engine, c: &Call) -> Result<Vec<Op>, Reply> {
    let mut ops = Vec::new();
    let mut overflow = Overflow::Wrap;
    let mut j = 2;
    while j < c.argc() {
        let remargs = c.argc() - j - 1;
        let sub = c.arg(j);
        let op = if is_opt(sub, "get") && remargs >= 2 {
            FieldOp::Get
        } else if is_opt(sub, "set") && remargs >= 3 {
            FieldOp::Set
        } else if is_opt(sub, "incrby") && remargs >= 3 {
            FieldOp::Incrby
        } else if is_opt(sub, "overflow") && remargs >= 1 {
            let kind = c.arg(j + 1);
            overflow = if is_opt(kind, "wrap") {
                Overflow::Wrap
            } else if is_opt(kind, "sat") {
                Overflow::Sat
            } else if is_opt(kind, "fail") {
                Overflow::Fail
            } else {
                return Err(Reply::err("ERR Invalid OVERFLOW type specified"));
            };
            j += 2;
            continue;
        } else {
            return Err(syntax_error());
        };
        let (signed, bits) = bitfield_type(c.arg(j + 1))?;
        let offset = bit_offset(e, c.arg(j + 2), true, bits)?;
        let value = if op == FieldOp::Get { 0 } else { parse_ll(c.arg(j + 3))? };
        ops.push(Op { offset, value, op, overflow, bits, signed });
        j += if op == FieldOp::Get { 3 } else { 4 };
    }
    Ok(ops)
}

fn bitfield_generic(e: &mut Engine, c: &Call, readonly_cmd: bool) -> Reply {
    let ops = match parse_bitfield(e, c) {
        Ok(ops) => ops,
        Err(r) => return r,
    };
    let key = c.arg(1);
    let writes = ops.iter().any(|o| o.op != FieldOp::Get);
    let mut dirty = false;
    let mut read_only_value = None;
    if !writes {
        match read_bytes(e, c.db, key) {
            Ok(v) => read_only_value = v,
            Err(r) => return r,
        }
    } else {
        if readonly_cmd {
            return Reply::err("ERR BITFIELD_RO only supports the GET subcommand");
        }
        let highest = ops.iter().filter(|o| o.op != FieldOp::Get).map(|o| o.offset + o.bits as u64 - 1).max();
        match lookup_string_for_bit(e, c.db, key, highest.unwrap_or(0)) {
            Ok(d) => dirty = d,
            Err(r) => return r,
        }
    }
    let mut replies = Vec::with_capacity(ops.len());
    let mut changes = 0u64;
    let mut empty = Vec::new();
    let bytes: &mut Vec<u8> = if writes {
        match raw_bytes_mut(e, c.db, key) {
            Some(b) => b,
            None => &mut empty,
        }
    } else {
        read_only_value.as_mut().unwrap_or(&mut empty)
    };
    for op in &ops {
        if op.op == FieldOp::Get {
            replies.push(Reply::Integer(if op.signed {
                get_signed(bytes, op.offset, op.bits)
            } else {
                get_unsigned(bytes, op.offset, op.bits) as i64
            }));
            continue;
        }
        // SET replies the old value, INCRBY the new one; FAIL on overflow writes nothing.
        let (old, new, reply, failed) = if op.signed {
            let old = get_signed(bytes, op.offset, op.bits);
            let (new, reply, over) = if op.op == FieldOp::Incrby {
                let over = signed_overflow(old, op.value, op.bits, op.overflow);
                let new = over.unwrap_or(old.wrapping_add(op.value));
                (new, new, over.is_some())
            } else {
                let over = signed_overflow(op.value, 0, op.bits, op.overflow);
                (over.unwrap_or(op.value), old, over.is_some())
            };
            (old as u64, new as u64, reply, over && op.overflow == Overflow::Fail)
        } else {
            let old = get_unsigned(bytes, op.offset, op.bits);
            let (new, reply, over) = if op.op == FieldOp::Incrby {
                let over = unsigned_overflow(old, op.value, op.bits, op.overflow);
                let new = over.unwrap_or(old.wrapping_add(op.value as u64));
                (new, new as i64, over.is_some())
            } else {
                let over = unsigned_overflow(op.value as u64, 0, op.bits, op.overflow);
                (over.unwrap_or(op.value as u64), old as i64, over.is_some())
            };
            (old, new, reply, over && op.overflow == Overflow::Fail)
        };
        if failed {
            replies.push(Reply::Nil);
            continue;
        }
        replies.push(Reply::Integer(reply));
        set_unsigned(bytes, op.offset, op.bits, new);
        if dirty || old != new {
            changes += 1;
        }
    }
    if changes > 0 {
        e.notify("setbit", c.db, key);
        e.dirty(changes);
    }
    Reply::Array(replies)
}

/// db.c `bitfieldGetKeys()`: the key, read-only when every subcommand is a complete GET or
/// OVERFLOW (a syntax error counts as a write).
pub(crate) fn bitfield_get_keys(args: &[Vec<u8>]) -> Vec<(usize, Vec<String>)> {
    let mut readonly = true;
    let mut i = 2;
    while i < args.len() {
        let remargs = args.len() - i - 1;
        let a = &args[i];
        if is_opt(a, "get") && remargs >= 2 {
            i += 2;
        } else if is_opt(a, "overflow") && remargs >= 1 {
            i += 1;
        } else {
            readonly = false;
            break;
        }
        i += 1;
    }
    let flags: &[&str] = if readonly { &["RO", "access"] } else { &["RW", "access", "update"] };
    vec![(1, flags.iter().map(|f| f.to_string()).collect())]
}

pub fn bitfield(e: &mut Engine, c: &Call) -> Reply {
    bitfield_generic(e, c, false)
}

pub fn bitfield_ro(e: &mut Engine, c: &Call) -> Reply {
    bitfield_generic(e, c, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitfields_round_trip_at_any_offset() {
        let mut p = vec![0u8; 10];
        set_unsigned(&mut p, 7, 5, 23);
        assert_eq!(&p[..2], &[0b0000_0001, 0b0111_0000]);
        assert_eq!(get_unsigned(&p, 7, 5), 23);
        set_unsigned(&mut p, 13, 64, (-5i64) as u64);
        assert_eq!(get_signed(&p, 13, 64), -5);
        set_unsigned(&mut p, 3, 4, 0b1010);
        assert_eq!(get_signed(&p, 3, 4), -6);
        assert_eq!(get_unsigned(&p, 200, 8), 0, "beyond the end reads zeros");
    }

    #[test]
    fn overflow_policies() {
        assert_eq!(unsigned_overflow(250, 10, 8, Overflow::Wrap), Some(4));
        assert_eq!(unsigned_overflow(250, 10, 8, Overflow::Sat), Some(255));
        assert_eq!(unsigned_overflow(5, -10, 8, Overflow::Sat), Some(0));
        assert_eq!(unsigned_overflow(5, -5, 8, Overflow::Sat), None);
        assert_eq!(signed_overflow(127, 1, 8, Overflow::Wrap), Some(-128));
        assert_eq!(signed_overflow(-128, -1, 8, Overflow::Sat), Some(-128));
        assert_eq!(signed_overflow(i64::MIN, -1, 64, Overflow::Wrap), Some(i64::MAX));
        assert_eq!(signed_overflow(i64::MAX - 1, -1, 64, Overflow::Sat), None);
    }

    #[test]
    fn bitpos_pads_with_zeros() {
        assert_eq!(bitpos_in(&[0xff, 0xff], false), 16);
        assert_eq!(bitpos_in(&[0, 0], true), -1);
        assert_eq!(bitpos_in(&[0xff, 0xf0], false), 12);
        assert_eq!(bitpos_in(&[0, 0x10], true), 11);
    }
}
