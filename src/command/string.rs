//! t_string.c: SET and its variants (SETNX, SETEX, PSETEX, GETSET, MSET, MSETNX), GET, GETEX,
//! GETDEL, MGET, the INCR/DECR family, INCRBYFLOAT, APPEND, STRLEN, GETRANGE/SUBSTR, SETRANGE
//! and LCS.
//!
//! Each handler keeps its t_string.c function's order of checks (option parsing, then
//! integers, then the key's type), the encodings Redis would give the result (int, embstr,
//! raw), and the keyspace events it fires. INCRBYFLOAT computes in 80-bit long double like
//! Redis (ds/long_double.rs). Differences: a playground limit (`playground-max-alloc`) caps a
//! single string or LCS table below Redis's 512 MB, so a browser tab can't be made to allocate
//! half a gigabyte; Redis's own proto-max-bulk-len check comes first and is unchanged.

use crate::command::call::Call;
use crate::command::{c_str, invalid_expire_time, is_opt, parse_i64, syntax_error, wrongtype, NOT_FLOAT, NOT_INTEGER};
use crate::ds::long_double::LongDouble;
use crate::engine::Engine;
use crate::object::{StrValue, Value};
use crate::reply::Reply;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// The string at `key` after lazy expiry (read lookup): `Ok(None)` if missing, WRONGTYPE if
/// it holds another type.
fn read_string(e: &mut Engine, db: usize, key: &[u8]) -> Result<Option<StrValue>, Reply> {
    match e.lookup_read(db, key) {
        None => Ok(None),
        Some(o) => match &o.value {
            Value::Str(s) => Ok(Some(s.clone())),
            #[allow(unreachable_patterns)]
            _ => Err(wrongtype()),
        },
    }
}

/// Same with a write lookup (no hit/miss stats).
fn write_string(e: &mut Engine, db: usize, key: &[u8]) -> Result<Option<StrValue>, Reply> {
    match e.lookup_write(db, key) {
        None => Ok(None),
        Some(o) => match &o.value {
            Value::Str(s) => Ok(Some(s.clone())),
            #[allow(unreachable_patterns)]
            _ => Err(wrongtype()),
        },
    }
}

/// Stores a string, keeping the TTL (db.c `dbOverwrite()`/`dbAdd()`): over an existing key the
/// new object keeps the old one's LFU data under an LFU policy.
fn store_keep_ttl(e: &mut Engine, db: usize, key: &[u8], v: StrValue) {
    let old_lru = e.dbs[db].get(key).map(|o| o.lru());
    let mut obj = e.new_obj(Value::Str(v));
    if let (Some(lru), true) = (old_lru, e.lfu_policy()) {
        obj.set_lru(lru);
    }
    e.dbs[db].insert(key.to_vec(), obj);
}

/// db.c `setKey()`: stores a string (the command's argument object) and clears the TTL unless
/// `keep_ttl`. `lookup`: setKey's own `lookupKeyWrite()` (GETSET, MSET), which the callers that
/// already looked the key up skip (SET, MSETNX). Over an existing key, `dbOverwrite()` keeps
/// the old value's LFU data under an LFU policy — the access just counted included.
fn set_key(e: &mut Engine, db: usize, key: &[u8], v: StrValue, keep_ttl: bool, lookup: bool) {
    if lookup {
        e.lookup_write(db, key);
    }
    let old_lru = e.dbs[db].get(key).map(|o| o.lru());
    let shared_int = matches!(v, StrValue::Int { shared: true, .. });
    let mut obj = e.new_obj(Value::Str(v));
    if let (Some(lru), true) = (old_lru, e.lfu_policy()) {
        obj.set_lru(lru);
    }
    obj.set_exec_argv(e.storing_exec_argv() && !shared_int);
    e.dbs[db].set_key(key.to_vec(), obj, keep_ttl);
}

/// t_string.c `checkStringLength()` plus the playground's allocation limit.
fn check_string_length(e: &Engine, size: u64, append: u64) -> Result<(), Reply> {
    let total = size.saturating_add(append);
    if total > e.config.int("proto-max-bulk-len") as u64 {
        return Err(Reply::err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
    }
    check_playground_alloc(e, total)
}

pub(crate) fn check_playground_alloc(e: &Engine, bytes: u64) -> Result<(), Reply> {
    let limit = e.config.int("playground-max-alloc") as u64;
    if bytes > limit {
        return Err(Reply::err(format!(
            "ERR playground limit: this would allocate {bytes} bytes; playground-max-alloc is {limit} (Redis itself allows up to proto-max-bulk-len)"
        )));
    }
    Ok(())
}

/// The spare room of a string's sds: only a grown raw string has any (an int or embstr is first
/// copied into an exact raw sds by `dbUnshareStringValue()`).
fn sds_room(s: &StrValue) -> usize {
    match s {
        StrValue::Raw(_, room) => *room,
        _ => 0,
    }
}

/// sds.c `sdsMakeRoomFor()`: keep the room if `newlen` fits the sds's capacity, else reserve
/// greedily (memory.rs).
fn grown_room(len: usize, room: usize, newlen: usize) -> usize {
    crate::memory::sds_make_room_for(len, room, newlen)
}

/// Shared integers are off when the eviction policy needs each key's own LRU/LFU field.
fn shared_ok(e: &Engine) -> bool {
    e.shared_integers_ok()
}

// ---------------------------------------------------------------------------------------------
// SET and friends
// ---------------------------------------------------------------------------------------------

const SET_NX: u32 = 1 << 0;
const SET_XX: u32 = 1 << 1;
const SET_GET: u32 = 1 << 2;
const KEEPTTL: u32 = 1 << 3;
const PERSIST: u32 = 1 << 4;
const EX: u32 = 1 << 5;
const PX: u32 = 1 << 6;
const EXAT: u32 = 1 << 7;
const PXAT: u32 = 1 << 8;
const ANY_EXPIRE: u32 = EX | PX | EXAT | PXAT;

#[derive(PartialEq)]
enum Kind {
    Set,
    Get,
}

/// t_string.c `parseExtendedStringArgumentsOrReply()`: options are matched as C strings, and
/// each is accepted only if it doesn't conflict with those already seen.
fn parse_extended<'a>(c: &'a Call, kind: Kind) -> Result<(u32, Option<&'a [u8]>), Reply> {
    let mut flags = 0u32;
    let mut expire = None;
    let mut j = if kind == Kind::Get { 2 } else { 3 };
    while j < c.argc() {
        let opt = c_str(c.arg(j)).to_ascii_lowercase();
        let has_next = j + 1 < c.argc();
        let set = kind == Kind::Set;
        match opt.as_slice() {
            b"nx" if flags & SET_XX == 0 && set => flags |= SET_NX,
            b"xx" if flags & SET_NX == 0 && set => flags |= SET_XX,
            b"get" if set => flags |= SET_GET,
            b"keepttl" if flags & (PERSIST | ANY_EXPIRE) == 0 && set => flags |= KEEPTTL,
            b"persist" if !set && flags & (ANY_EXPIRE | KEEPTTL) == 0 => flags |= PERSIST,
            b"ex" if flags & (KEEPTTL | PERSIST | EXAT | PX | PXAT) == 0 && has_next => {
                flags |= EX;
                expire = Some(c.arg(j + 1));
                j += 1;
            }
            b"px" if flags & (KEEPTTL | PERSIST | EX | EXAT | PXAT) == 0 && has_next => {
                flags |= PX;
                expire = Some(c.arg(j + 1));
                j += 1;
            }
            b"exat" if flags & (KEEPTTL | PERSIST | EX | PX | PXAT) == 0 && has_next => {
                flags |= EXAT;
                expire = Some(c.arg(j + 1));
                j += 1;
            }
            b"pxat" if flags & (KEEPTTL | PERSIST | EX | EXAT | PX) == 0 && has_next => {
                flags |= PXAT;
                expire = Some(c.arg(j + 1));
                j += 1;
            }
            _ => return Err(syntax_error()),
        }
        j += 1;
    }
    Ok((flags, expire))
}

/// t_string.c `getExpireMillisecondsOrReply()`: the absolute expire time in ms.
fn expire_ms(e: &Engine, c: &Call, arg: &[u8], flags: u32) -> Result<i64, Reply> {
    let mut ms = parse_i64(arg)?;
    let seconds = flags & (EX | EXAT) != 0;
    if ms <= 0 || (seconds && ms > i64::MAX / 1000) {
        return Err(invalid_expire_time(&c.cmd.name));
    }
    if seconds {
        ms *= 1000;
    }
    if flags & (PX | EX) != 0 {
        ms = ms.wrapping_add(e.now_ms());
    }
    if ms <= 0 {
        return Err(invalid_expire_time(&c.cmd.name));
    }
    Ok(ms)
}

/// t_string.c `setGenericCommand()`.
#[allow(clippy::too_many_arguments)]
fn set_generic(
    e: &mut Engine,
    c: &Call,
    flags: u32,
    key: &[u8],
    val: &[u8],
    expire: Option<&[u8]>,
    ok_reply: Reply,
    abort_reply: Reply,
) -> Reply {
    let when = match expire {
        Some(arg) => match expire_ms(e, c, arg, flags) {
            Ok(ms) => Some(ms),
            Err(r) => return r,
        },
        None => None,
    };
    let mut get_reply = None;
    if flags & SET_GET != 0 {
        match read_string(e, c.db, key) {
            Ok(v) => get_reply = Some(v.map(|s| Reply::Bulk(s.to_bytes())).unwrap_or(Reply::Nil)),
            Err(r) => return r,
        }
    }
    let found = e.lookup_write(c.db, key).is_some();
    if (flags & SET_NX != 0 && found) || (flags & SET_XX != 0 && !found) {
        return get_reply.unwrap_or(abort_reply);
    }
    let value = StrValue::encoded(val.to_vec(), shared_ok(e));
    set_key(e, c.db, key, value, flags & KEEPTTL != 0, false);
    e.dirty(1);
    e.notify("set", c.db, key);
    if let Some(ms) = when {
        e.dbs[c.db].set_expire(key, ms);
        e.notify("expire", c.db, key);
        // Propagated as SET key value PXAT ms — in 7.0 even when it was PXAT already (the
        // argv is rebuilt: `SET` upper case, NX/XX/GET dropped).
        e.propagate_as(vec![
            b"SET".to_vec(),
            key.to_vec(),
            val.to_vec(),
            b"PXAT".to_vec(),
            ms.to_string().into_bytes(),
        ]);
    }
    get_reply.unwrap_or(ok_reply)
}

pub fn set(e: &mut Engine, c: &Call) -> Reply {
    let (flags, expire) = match parse_extended(c, Kind::Set) {
        Ok(v) => v,
        Err(r) => return r,
    };
    set_generic(e, c, flags, c.arg(1), c.arg(2), expire, Reply::ok(), Reply::Nil)
}

pub fn setnx(e: &mut Engine, c: &Call) -> Reply {
    set_generic(e, c, SET_NX, c.arg(1), c.arg(2), None, Reply::Integer(1), Reply::Integer(0))
}

pub fn setex(e: &mut Engine, c: &Call) -> Reply {
    set_generic(e, c, EX, c.arg(1), c.arg(3), Some(c.arg(2)), Reply::ok(), Reply::Nil)
}

pub fn psetex(e: &mut Engine, c: &Call) -> Reply {
    set_generic(e, c, PX, c.arg(1), c.arg(3), Some(c.arg(2)), Reply::ok(), Reply::Nil)
}

pub fn get(e: &mut Engine, c: &Call) -> Reply {
    match read_string(e, c.db, c.arg(1)) {
        Ok(Some(s)) => Reply::Bulk(s.to_bytes()),
        Ok(None) => Reply::Nil,
        Err(r) => r,
    }
}

/// t_string.c `getexCommand()`: nil for a missing key comes before the expire value is read.
pub fn getex(e: &mut Engine, c: &Call) -> Reply {
    let (flags, expire) = match parse_extended(c, Kind::Get) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let key = c.arg(1);
    let value = match read_string(e, c.db, key) {
        Ok(Some(s)) => s,
        Ok(None) => return Reply::Nil,
        Err(r) => return r,
    };
    let when = match expire {
        Some(arg) => match expire_ms(e, c, arg, flags) {
            Ok(ms) => Some(ms),
            Err(r) => return r,
        },
        None => None,
    };
    let reply = Reply::Bulk(value.to_bytes());
    match when {
        Some(ms) if flags & (EXAT | PXAT) != 0 && ms <= e.now_ms() => {
            e.dbs[c.db].delete(key);
            e.notify("del", c.db, key);
            e.dirty(1);
            let del: &[u8] = if e.hot.lazyfree_lazy_expire { b"UNLINK" } else { b"DEL" };
            e.propagate_as(vec![del.to_vec(), key.to_vec()]);
        }
        Some(ms) => {
            e.dbs[c.db].set_expire(key, ms);
            e.notify("expire", c.db, key);
            e.dirty(1);
            if flags & PXAT == 0 {
                e.propagate_as(vec![b"PEXPIREAT".to_vec(), key.to_vec(), ms.to_string().into_bytes()]);
            }
        }
        None if flags & PERSIST != 0 && e.dbs[c.db].remove_expire(key) => {
            e.notify("persist", c.db, key);
            e.dirty(1);
            e.propagate_as(vec![b"PERSIST".to_vec(), key.to_vec()]);
        }
        None => {}
    }
    reply
}

pub fn getdel(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    match read_string(e, c.db, key) {
        Ok(Some(s)) => {
            e.dbs[c.db].delete(key);
            e.notify("del", c.db, key);
            e.dirty(1);
            let del: &[u8] = if e.config.bool("lazyfree-lazy-user-del") { b"UNLINK" } else { b"DEL" };
            e.propagate_as(vec![del.to_vec(), key.to_vec()]);
            Reply::Bulk(s.to_bytes())
        }
        Ok(None) => Reply::Nil,
        Err(r) => r,
    }
}

pub fn getset(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    let old = match read_string(e, c.db, key) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let value = StrValue::encoded(c.arg(2).to_vec(), shared_ok(e));
    set_key(e, c.db, key, value, false, true);
    e.notify("set", c.db, key);
    e.dirty(1);
    old.map(|s| Reply::Bulk(s.to_bytes())).unwrap_or(Reply::Nil)
}

/// t_string.c `msetGenericCommand()`.
fn mset_generic(e: &mut Engine, c: &Call, nx: bool) -> Reply {
    if c.argc().is_multiple_of(2) {
        return Reply::err(format!("ERR wrong number of arguments for '{}' command", c.cmd.name));
    }
    if nx {
        for pair in c.argv[1..].chunks(2) {
            if e.lookup_write(c.db, &pair[0]).is_some() {
                return Reply::Integer(0);
            }
        }
    }
    let shared = shared_ok(e);
    for pair in c.argv[1..].chunks(2) {
        set_key(e, c.db, &pair[0], StrValue::encoded(pair[1].clone(), shared), false, !nx);
        e.notify("set", c.db, &pair[0]);
    }
    e.dirty(((c.argc() - 1) / 2) as u64);
    if nx {
        Reply::Integer(1)
    } else {
        Reply::ok()
    }
}

pub fn mset(e: &mut Engine, c: &Call) -> Reply {
    mset_generic(e, c, false)
}

pub fn msetnx(e: &mut Engine, c: &Call) -> Reply {
    mset_generic(e, c, true)
}

pub fn mget(e: &mut Engine, c: &Call) -> Reply {
    let mut out = Vec::with_capacity(c.argc() - 1);
    for key in &c.argv[1..] {
        out.push(match e.lookup_read(c.db, key) {
            Some(o) => match &o.value {
                Value::Str(s) => Reply::Bulk(s.to_bytes()),
                #[allow(unreachable_patterns)]
                _ => Reply::Nil,
            },
            None => Reply::Nil,
        });
    }
    Reply::Array(out)
}

// ---------------------------------------------------------------------------------------------
// Counters
// ---------------------------------------------------------------------------------------------

/// t_string.c `incrDecrCommand()`.
fn incr_decr(e: &mut Engine, c: &Call, incr: i64) -> Reply {
    let key = c.arg(1);
    let old = match write_string(e, c.db, key) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let value = match &old {
        None => 0,
        Some(s) => match s.as_i64() {
            Some(v) => v,
            None => return Reply::err(NOT_INTEGER),
        },
    };
    let Some(new) = value.checked_add(incr) else {
        return Reply::err("ERR increment or decrement would overflow");
    };
    // An unshared int object (refcount 1: not an EXEC's argument still) is updated in place;
    // anything else gets a fresh object, which is a shared integer when small
    // (createStringObjectFromLongLongForValue).
    let exec_argv = e.dbs[c.db].get(key).is_some_and(|o| o.exec_argv());
    let in_place = matches!(old, Some(StrValue::Int { shared: false, .. }))
        && !exec_argv
        && !(0..crate::object::SHARED_INTEGERS).contains(&new);
    let v = if in_place { StrValue::Int { value: new, shared: false } } else { StrValue::from_i64(new, shared_ok(e)) };
    if in_place {
        if let Some(o) = e.dbs[c.db].get_mut(key) {
            o.value = Value::Str(v);
        }
    } else {
        store_keep_ttl(e, c.db, key, v);
    }
    e.notify("incrby", c.db, key);
    e.dirty(1);
    Reply::Integer(new)
}

pub fn incr(e: &mut Engine, c: &Call) -> Reply {
    incr_decr(e, c, 1)
}

pub fn decr(e: &mut Engine, c: &Call) -> Reply {
    incr_decr(e, c, -1)
}

pub fn incrby(e: &mut Engine, c: &Call) -> Reply {
    match parse_i64(c.arg(2)) {
        Ok(n) => incr_decr(e, c, n),
        Err(r) => r,
    }
}

pub fn decrby(e: &mut Engine, c: &Call) -> Reply {
    match parse_i64(c.arg(2)) {
        Ok(i64::MIN) => Reply::err("ERR decrement would overflow"),
        Ok(n) => incr_decr(e, c, -n),
        Err(r) => r,
    }
}

/// t_string.c `incrbyfloatCommand()`: long double sum, printed `%.17Lf` trimmed; the result is
/// stored as a plain (embstr/raw) string, never int-encoded.
pub fn incrbyfloat(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    let old = match write_string(e, c.db, key) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let value = match &old {
        None => LongDouble::from_i64(0),
        Some(StrValue::Int { value, .. }) => LongDouble::from_i64(*value),
        Some(s) => match LongDouble::parse(&s.to_bytes()) {
            Some(v) => v,
            None => return Reply::err(NOT_FLOAT),
        },
    };
    let Some(incr) = LongDouble::parse(c.arg(2)) else {
        return Reply::err(NOT_FLOAT);
    };
    let sum = value.add(incr);
    if !sum.is_finite() {
        return Reply::err("ERR increment would produce NaN or Infinity");
    }
    let text = sum.to_human().into_bytes();
    store_keep_ttl(e, c.db, key, StrValue::from_bytes(text.clone()));
    e.notify("incrbyfloat", c.db, key);
    e.dirty(1);
    // Propagated as SET key value KEEPTTL: a replay gives the same bytes, whatever its floats.
    e.propagate_as(vec![b"SET".to_vec(), key.to_vec(), text.clone(), b"KEEPTTL".to_vec()]);
    Reply::Bulk(text)
}

// ---------------------------------------------------------------------------------------------
// Byte-level edits
// ---------------------------------------------------------------------------------------------

pub fn append(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    let add = c.arg(2);
    let old = match write_string(e, c.db, key) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let total = match old {
        None => {
            // A new key stores the argument object itself (t_string.c appendCommand()).
            let v = StrValue::encoded(add.to_vec(), shared_ok(e));
            let len = v.len();
            let shared_int = matches!(v, StrValue::Int { shared: true, .. });
            let mut obj = e.new_obj(Value::Str(v));
            obj.set_exec_argv(e.storing_exec_argv() && !shared_int);
            e.dbs[c.db].insert(key.to_vec(), obj);
            len
        }
        Some(s) => {
            if let Err(r) = check_string_length(e, s.len() as u64, add.len() as u64) {
                return r;
            }
            let room = sds_room(&s);
            let mut bytes = s.to_bytes();
            let old_len = bytes.len();
            bytes.extend_from_slice(add);
            let len = bytes.len();
            store_keep_ttl(e, c.db, key, StrValue::Raw(bytes, grown_room(old_len, room, len)));
            len
        }
    };
    e.notify("append", c.db, key);
    e.dirty(1);
    Reply::Integer(total as i64)
}

pub fn strlen(e: &mut Engine, c: &Call) -> Reply {
    match read_string(e, c.db, c.arg(1)) {
        Ok(Some(s)) => Reply::Integer(s.len() as i64),
        Ok(None) => Reply::Integer(0),
        Err(r) => r,
    }
}

/// t_string.c `getrangeCommand()`.
pub fn getrange(e: &mut Engine, c: &Call) -> Reply {
    let (mut start, mut end) = match (parse_i64(c.arg(2)), parse_i64(c.arg(3))) {
        (Ok(s), Ok(e)) => (s, e),
        (Err(r), _) | (_, Err(r)) => return r,
    };
    let bytes = match read_string(e, c.db, c.arg(1)) {
        Ok(Some(s)) => s.to_bytes(),
        Ok(None) => return Reply::Bulk(vec![]),
        Err(r) => return r,
    };
    let len = bytes.len() as i64;
    if start < 0 && end < 0 && start > end {
        return Reply::Bulk(vec![]);
    }
    if start < 0 {
        start += len;
    }
    if end < 0 {
        end += len;
    }
    start = start.max(0);
    end = end.max(0);
    if end >= len {
        end = len - 1;
    }
    if start > end || len == 0 {
        return Reply::Bulk(vec![]);
    }
    Reply::Bulk(bytes[start as usize..=end as usize].to_vec())
}

/// t_string.c `setrangeCommand()`.
pub fn setrange(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    let value = c.arg(3);
    let offset = match parse_i64(c.arg(2)) {
        Ok(n) => n,
        Err(r) => return r,
    };
    if offset < 0 {
        return Reply::err("ERR offset is out of range");
    }
    let old = match write_string(e, c.db, key) {
        Ok(v) => v,
        Err(r) => return r,
    };
    // u64: on wasm32 a usize can't hold offsets the length check below must see and refuse.
    let end64 = offset as u64 + value.len() as u64;
    let (mut bytes, room) = match old {
        None => {
            if value.is_empty() {
                return Reply::Integer(0);
            }
            if let Err(r) = check_string_length(e, offset as u64, value.len() as u64) {
                return r;
            }
            // A new sds of exactly offset+len bytes.
            (Vec::new(), 0)
        }
        Some(s) => {
            if value.is_empty() {
                return Reply::Integer(s.len() as i64);
            }
            if let Err(r) = check_string_length(e, offset as u64, value.len() as u64) {
                return r;
            }
            let room = sds_room(&s);
            let grown = if end64 > s.len() as u64 { grown_room(s.len(), room, end64 as usize) } else { room };
            (s.to_bytes(), grown)
        }
    };
    let end = end64 as usize;
    if bytes.len() < end {
        bytes.resize(end, 0);
    }
    bytes[offset as usize..end].copy_from_slice(value);
    let len = bytes.len();
    store_keep_ttl(e, c.db, key, StrValue::Raw(bytes, room));
    e.notify("setrange", c.db, key);
    e.dirty(1);
    Reply::Integer(len as i64)
}

// ---------------------------------------------------------------------------------------------
// LCS
// ---------------------------------------------------------------------------------------------

/// t_string.c `lcsCommand()`: the dynamic-programming table over both strings, walked back
/// from the end to build the LCS string and (with IDX) its matching ranges.
pub fn lcs(e: &mut Engine, c: &Call) -> Reply {
    let a_obj = e.lookup_read(c.db, c.arg(1)).map(|o| o.value.clone());
    let b_obj = e.lookup_read(c.db, c.arg(2)).map(|o| o.value.clone());
    let as_bytes = |v: Option<Value>| -> Option<Vec<u8>> {
        match v {
            None => Some(vec![]),
            Some(Value::Str(s)) => Some(s.to_bytes()),
            #[allow(unreachable_patterns)]
            Some(_) => None,
        }
    };
    let (Some(a), Some(b)) = (as_bytes(a_obj), as_bytes(b_obj)) else {
        return Reply::err("ERR The specified keys must contain string values");
    };
    let (mut getidx, mut getlen, mut withmatchlen) = (false, false, false);
    let mut minmatchlen: i64 = 0;
    let mut j = 3;
    while j < c.argc() {
        let more = c.argc() - 1 - j;
        let opt = c.arg(j);
        if is_opt(opt, "idx") {
            getidx = true;
        } else if is_opt(opt, "len") {
            getlen = true;
        } else if is_opt(opt, "withmatchlen") {
            withmatchlen = true;
        } else if is_opt(opt, "minmatchlen") && more > 0 {
            minmatchlen = match parse_i64(c.arg(j + 1)) {
                Ok(n) => n.max(0),
                Err(r) => return r,
            };
            j += 1;
        } else {
            return syntax_error();
        }
        j += 1;
    }
    if getidx && getlen {
        return Reply::err("ERR If you want both the length and indexes, please just use IDX.");
    }
    let (alen, blen) = (a.len(), b.len());
    let cells = (alen as u64 + 1) * (blen as u64 + 1);
    let alloc = cells.saturating_mul(4);
    if alloc > e.config.int("proto-max-bulk-len") as u64 {
        return Reply::err("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
    }
    if let Err(r) = check_playground_alloc(e, alloc) {
        return r;
    }
    let w = blen + 1;
    let mut t = vec![0u32; cells as usize];
    for i in 1..=alen {
        for jj in 1..=blen {
            t[i * w + jj] = if a[i - 1] == b[jj - 1] {
                t[(i - 1) * w + jj - 1] + 1
            } else {
                t[(i - 1) * w + jj].max(t[i * w + jj - 1])
            };
        }
    }
    let total = t[alen * w + blen];
    if getlen {
        return Reply::Integer(total as i64);
    }
    let mut result = vec![0u8; total as usize];
    let mut idx = total as usize;
    let mut matches = Vec::new();
    let (mut ai, mut bj) = (alen, blen);
    // alen in arange_start means "no range open", as in Redis.
    let (mut a_start, mut a_end, mut b_start, mut b_end) = (alen, 0usize, 0usize, 0usize);
    while ai > 0 && bj > 0 {
        let mut emit = false;
        if a[ai - 1] == b[bj - 1] {
            result[idx - 1] = a[ai - 1];
            if a_start == alen {
                a_start = ai - 1;
                a_end = ai - 1;
                b_start = bj - 1;
                b_end = bj - 1;
            } else if a_start == ai && b_start == bj {
                a_start -= 1;
                b_start -= 1;
            } else {
                emit = true;
            }
            if a_start == 0 || b_start == 0 {
                emit = true;
            }
            idx -= 1;
            ai -= 1;
            bj -= 1;
        } else {
            if t[(ai - 1) * w + bj] > t[ai * w + bj - 1] {
                ai -= 1;
            } else {
                bj -= 1;
            }
            if a_start != alen {
                emit = true;
            }
        }
        if emit {
            let match_len = (a_end - a_start + 1) as i64;
            if getidx && (minmatchlen == 0 || match_len >= minmatchlen) {
                let mut m = vec![
                    Reply::Array(vec![Reply::Integer(a_start as i64), Reply::Integer(a_end as i64)]),
                    Reply::Array(vec![Reply::Integer(b_start as i64), Reply::Integer(b_end as i64)]),
                ];
                if withmatchlen {
                    m.push(Reply::Integer(match_len));
                }
                matches.push(Reply::Array(m));
            }
            a_start = alen;
        }
    }
    if getidx {
        return Reply::Map(vec![
            (Reply::bulk("matches"), Reply::Array(matches)),
            (Reply::bulk("len"), Reply::Integer(total as i64)),
        ]);
    }
    Reply::Bulk(result)
}
