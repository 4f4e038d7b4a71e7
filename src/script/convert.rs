//! Lua ⇄ Redis values: models script_lua.c `luaArgsToRedisArgv()`, `redisProtocolToLuaType_*()`
//! (RESP2 and RESP3 replies to Lua), `luaReplyToRedisReply()` (Lua values to replies) and
//! `luaPushErrorBuff()` (error codes), plus the C casts they rely on.

use lua_types::error::LuaError;
use lua_types::value::LuaValue;
use lua_vm::state::LuaState;
use omnilua::{Lua, Table, Value};

use super::capi;

use crate::reply::Reply;

pub(crate) fn internal(e: &omnilua::Error) -> Reply {
    Reply::Error(format!("ERR scripting engine error: {e}").into_bytes())
}

/// `luaArgsToRedisArgv()` for a raw function's own arguments.
pub(crate) fn argv_of(st: &mut LuaState) -> Result<Vec<Vec<u8>>, String> {
    let n = capi::nargs(st);
    if n == 0 {
        return Err("ERR Please specify at least one argument for this redis lib call".into());
    }
    (1..=n)
        .map(|i| match capi::arg(st, i) {
            LuaValue::Str(s) => Ok(s.as_bytes().to_vec()),
            LuaValue::Float(f) => Ok(fmt_17g(f).into_bytes()),
            LuaValue::Int(i) => Ok(fmt_17g(i as f64).into_bytes()),
            _ => Err("ERR Lua redis lib command arguments must be strings or integers".into()),
        })
        .collect()
}

/// `snprintf("%.17g")`, with glibc's `-nan` for a NaN whose sign bit is set.
pub(crate) fn fmt_17g(d: f64) -> String {
    if d.is_nan() {
        return if d.is_sign_negative() { "-nan".into() } else { "nan".into() };
    }
    if d.is_infinite() {
        return if d > 0.0 { "inf".into() } else { "-inf".into() };
    }
    crate::util::fmt_g(d, 17)
}

/// The message of a Redis error table for an error reply `-CODE msg` (script_lua.c
/// `luaPushErrorBuff()`): the code is the first word; a message with no space gets `ERR`.
pub(crate) fn error_table_message(err: &[u8]) -> Vec<u8> {
    let (code, msg) = match err.strip_prefix(b"-") {
        Some(rest) => match rest.iter().position(|&b| b == b' ') {
            Some(sp) => (&rest[..sp], &rest[sp + 1..]),
            None => (b"ERR".as_slice(), rest),
        },
        None => (b"ERR".as_slice(), err),
    };
    let trim = |b: &u8| *b != b'\r' && *b != b'\n';
    let start = msg.iter().position(trim).unwrap_or(msg.len());
    let end = msg.iter().rposition(trim).map_or(start, |e| e + 1);
    let mut out = code.to_vec();
    out.push(b' ');
    out.extend_from_slice(&msg[start..end.max(start)]);
    out
}

/// A Redis error raised from Rust: the error handler, `pcall` and `xpcall` turn the marked
/// string into the error table Redis raises (script_lua.c `luaError()` of a `luaPushError()`
/// table). Owned bytes: nothing is allocated in Lua until the error is caught.
pub(crate) fn raise(msg: &[u8]) -> LuaError {
    let mut marked = vec![1u8];
    marked.extend_from_slice(msg);
    LuaError::RuntimeMsg(marked.into_boxed_slice())
}

/// `raise` for an error a command (or scriptCall's checks) already counted in INFO errorstats:
/// the table Lua sees carries `ignore_error_stats_update = true`, as script_lua.c
/// `redisProtocolToLuaType_Error()` marks it, so the script's final error is not counted again.
pub(crate) fn raise_counted(msg: &[u8]) -> LuaError {
    let mut marked = vec![2u8];
    marked.extend_from_slice(msg);
    LuaError::RuntimeMsg(marked.into_boxed_slice())
}

/// Whether a script's error value was already counted (see `raise_counted`).
pub(crate) fn is_counted(v: &Value) -> bool {
    match v {
        Value::Table(t) => matches!(t.get::<_, Value>("ignore_error_stats_update"), Ok(Value::Boolean(true))),
        _ => false,
    }
}

pub(crate) fn string_array(lua: &Lua, items: &[Vec<u8>]) -> omnilua::Result<Table> {
    let t = lua.create_table()?;
    for (i, item) in items.iter().enumerate() {
        t.raw_set(i as i64 + 1, lua.create_string(item)?)?;
    }
    Ok(t)
}

/// script_lua.c `redisProtocolToLuaType_*()`, pushed onto the running script's stack (raw,
/// so nothing is allocated through another thread): integers are numbers, bulks strings, a
/// status `{ok=…}`, an error `{err=…}`; over RESP2 (`resp` 2) nulls are `false` and maps,
/// sets and other RESP3 shapes arrive in their RESP2 forms; after `redis.setresp(3)` nulls
/// are `nil`, booleans booleans, doubles `{double=n}`, maps `{map={k=v}}`, sets
/// `{set={m=true}}`, verbatim text `{verbatim_string={format='txt', string=s}}`, big numbers
/// `{big_number=s}`.
pub(crate) fn push_reply(st: &mut LuaState, reply: &Reply, resp: u8) -> Result<(), LuaError> {
    lua_vm::api::check_stack(st, 4);
    let resp3 = resp >= 3;
    let wrap = |st: &mut LuaState, key: &[u8]| -> Result<(), LuaError> {
        // The value is on top: {key = value}.
        capi::push_table(st);
        lua_vm::api::rotate(st, -2, 1);
        capi::push_bytes(st, key)?;
        lua_vm::api::rotate(st, -2, 1);
        capi::pop_into_table(st)
    };
    match reply {
        Reply::Integer(n) => capi::push_number(st, *n as f64),
        Reply::Bool(b) if resp3 => st.push(LuaValue::Bool(*b)),
        Reply::Bool(b) => capi::push_number(st, *b as i64 as f64),
        Reply::Double(d) if resp3 => {
            capi::push_number(st, *d);
            wrap(st, b"double")?;
        }
        Reply::HumanDouble(b) if resp3 => {
            capi::push_number(st, crate::util::string2d(b).unwrap_or(0.0));
            wrap(st, b"double")?;
        }
        Reply::BigNumber(b) if resp3 => {
            capi::push_bytes(st, b)?;
            wrap(st, b"big_number")?;
        }
        Reply::Verbatim(b) if resp3 => {
            capi::push_table(st);
            capi::push_bytes(st, b"format")?;
            capi::push_bytes(st, b"txt")?;
            capi::pop_into_table(st)?;
            capi::push_bytes(st, b"string")?;
            capi::push_bytes(st, b)?;
            capi::pop_into_table(st)?;
            wrap(st, b"verbatim_string")?;
        }
        Reply::Bulk(b) | Reply::Verbatim(b) | Reply::HumanDouble(b) | Reply::BigNumber(b) | Reply::Raw(b) => {
            capi::push_bytes(st, b)?
        }
        Reply::Double(d) => capi::push_bytes(st, fmt_17g(*d).as_bytes())?,
        Reply::Nil | Reply::NilArray if resp3 => st.push(LuaValue::Nil),
        Reply::Nil | Reply::NilArray => st.push(LuaValue::Bool(false)),
        Reply::Status(s) => {
            capi::push_table(st);
            capi::push_bytes(st, b"ok")?;
            capi::push_bytes(st, s.as_bytes())?;
            capi::pop_into_table(st)?;
        }
        Reply::Error(msg) => {
            let mut err = b"-".to_vec();
            err.extend_from_slice(msg);
            capi::push_table(st);
            capi::push_bytes(st, b"err")?;
            capi::push_bytes(st, &error_table_message(&err))?;
            capi::pop_into_table(st)?;
        }
        Reply::Map(kv) | Reply::KeyedMap(kv) if resp3 => {
            capi::push_table(st);
            for (k, v) in kv {
                push_reply(st, k, resp)?;
                push_reply(st, v, resp)?;
                set_unless_nil_key(st)?;
            }
            wrap(st, b"map")?;
        }
        Reply::Set(items) if resp3 => {
            capi::push_table(st);
            for item in items {
                push_reply(st, item, resp)?;
                st.push(LuaValue::Bool(true));
                set_unless_nil_key(st)?;
            }
            wrap(st, b"set")?;
        }
        Reply::Pairs(kv) if resp3 => {
            capi::push_table(st);
            for (i, (k, v)) in kv.iter().enumerate() {
                capi::push_table(st);
                push_reply(st, k, resp)?;
                capi::pop_into_index(st, 1)?;
                push_reply(st, v, resp)?;
                capi::pop_into_index(st, 2)?;
                capi::pop_into_index(st, i as i64 + 1)?;
            }
        }
        Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => {
            capi::push_table(st);
            for (i, item) in items.iter().enumerate() {
                push_reply(st, item, resp)?;
                capi::pop_into_index(st, i as i64 + 1)?;
            }
        }
        // A RESP3-only frame before the reply (DEBUG PROTOCOL): the script sees the reply alone.
        Reply::Preceded(_, r) => push_reply(st, r, resp)?,
        // An array of [key, value] pairs, as a RESP2 client receives them (a map over RESP3).
        Reply::KeyedMap(_) => push_reply(st, &reply.clone().into_resp2(), resp)?,
        // Sent flat, as a RESP2 client receives them.
        Reply::Map(kv) | Reply::Pairs(kv) => {
            capi::push_table(st);
            for (i, (k, v)) in kv.iter().enumerate() {
                push_reply(st, k, resp)?;
                capi::pop_into_index(st, 2 * i as i64 + 1)?;
                push_reply(st, v, resp)?;
                capi::pop_into_index(st, 2 * i as i64 + 2)?;
            }
        }
    }
    Ok(())
}

/// `lua_settable(L, -3)` of a key/value pair, skipped when the key is nil (a RESP3 null as a
/// map key).
fn set_unless_nil_key(st: &mut LuaState) -> Result<(), LuaError> {
    if matches!(capi::from_top(st, 2), LuaValue::Nil) {
        return capi::pop(st, 2);
    }
    capi::pop_into_table(st)
}

/// `(long long)` of a double as x86-64 computes it: truncation toward zero; NaN and values
/// out of range give LLONG_MIN.
pub(crate) fn c_cast_i64(d: f64) -> i64 {
    if d.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&d) {
        i64::MIN
    } else {
        d as i64
    }
}

/// Lua strings as bytes; numbers as `lua_tostring` would print them (`%.14g`).
pub(crate) fn lua_string_bytes(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::String(s) => s.as_bytes().ok(),
        _ => None,
    }
}

/// Nested tables deeper than this reply an error instead of recursing further.
pub(crate) const MAX_REPLY_DEPTH: usize = 1000;

/// script_lua.c `luaReplyToRedisReply()`: numbers truncate to integers; `true` is 1 and
/// `false`/`nil` a null for a RESP2 script client, booleans for one that said
/// `redis.setresp(3)` (`script_resp`); `{err=s}` an error, `{ok=s}` a status, `{double=n}` a
/// double, `{big_number=s}`, `{verbatim_string={format=, string=}}`, `{map={k=v…}}` a map,
/// `{set={m=true…}}` a set (each in its RESP2 form for a RESP2 caller); any other table the
/// array of its elements 1..n up to the first nil.
pub(crate) fn lua_to_reply(v: &Value, depth: usize, script_resp: u8) -> Reply {
    match v {
        Value::String(s) => Reply::Bulk(s.as_bytes().unwrap_or_default()),
        Value::Boolean(b) if script_resp >= 3 => Reply::Bool(*b),
        Value::Boolean(true) => Reply::Integer(1),
        Value::Boolean(false) | Value::Nil => Reply::Nil,
        Value::Number(n) => Reply::Integer(c_cast_i64(*n)),
        Value::Integer(n) => Reply::Integer(*n),
        Value::Table(t) => {
            if depth >= MAX_REPLY_DEPTH {
                return Reply::err("ERR reached lua stack limit");
            }
            if let Ok(err @ Value::String(_)) = t.get::<_, Value>("err") {
                let mut msg = lua_string_bytes(&err).unwrap_or_default();
                for c in msg.iter_mut() {
                    if *c == b'\r' || *c == b'\n' {
                        *c = b' ';
                    }
                }
                return Reply::Error(msg);
            }
            if let Ok(ok @ Value::String(_)) = t.get::<_, Value>("ok") {
                let mut s = lua_string_bytes(&ok).unwrap_or_default();
                for c in s.iter_mut() {
                    if *c == b'\r' || *c == b'\n' {
                        *c = b' ';
                    }
                }
                return Reply::Status(String::from_utf8_lossy(&s).into_owned());
            }
            match t.raw_get::<_, Value>("double") {
                Ok(Value::Number(n)) => return Reply::Double(n),
                Ok(Value::Integer(n)) => return Reply::Double(n as f64),
                _ => {}
            }
            if let Ok(big @ Value::String(_)) = t.raw_get::<_, Value>("big_number") {
                let mut s = lua_string_bytes(&big).unwrap_or_default();
                for c in s.iter_mut() {
                    if *c == b'\r' || *c == b'\n' {
                        *c = b' ';
                    }
                }
                return Reply::BigNumber(s);
            }
            if let Ok(Value::Table(vs)) = t.raw_get::<_, Value>("verbatim_string") {
                if let (Ok(Value::String(_)), Ok(s @ Value::String(_))) =
                    (vs.raw_get::<_, Value>("format"), vs.raw_get::<_, Value>("string"))
                {
                    return Reply::Verbatim(lua_string_bytes(&s).unwrap_or_default());
                }
            }
            if let Ok(Value::Table(m)) = t.raw_get::<_, Value>("map") {
                let mut kv = Vec::new();
                for pair in m.pairs().into_iter().flatten() {
                    let Ok((k, v)) = pair else { break };
                    kv.push((lua_to_reply(&k, depth + 1, script_resp), lua_to_reply(&v, depth + 1, script_resp)));
                }
                return Reply::Map(kv);
            }
            if let Ok(Value::Table(m)) = t.raw_get::<_, Value>("set") {
                let mut items = Vec::new();
                for pair in m.pairs().into_iter().flatten() {
                    let Ok((k, _)) = pair else { break };
                    items.push(lua_to_reply(&k, depth + 1, script_resp));
                }
                return Reply::Set(items);
            }
            let mut items = Vec::new();
            for i in 1.. {
                match t.get::<_, Value>(i as i64) {
                    Ok(Value::Nil) | Err(_) => break,
                    Ok(item) => items.push(lua_to_reply(&item, depth + 1, script_resp)),
                }
            }
            Reply::Array(items)
        }
        _ => Reply::Nil,
    }
}

/// The reply for a script that raised (script_lua.c `luaCallFunction()`): the error table's
/// message, plus ` script: <sha>, on <source>:<line>.` when the handler found the line.
pub(crate) fn error_reply_from_lua(err: &Value, sha: &str) -> Reply {
    let Value::Table(t) = err else {
        let msg = lua_string_bytes(err)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_else(|| "execution failure".into());
        return Reply::Error(format!("ERR Error running script f_{sha}, {msg:.100}").into_bytes());
    };
    let text = |key: &str| -> Option<Vec<u8>> {
        match t.get::<_, Value>(key) {
            Ok(Value::String(s)) => s.as_bytes().ok(),
            Ok(Value::Number(n)) => Some(crate::util::fmt_g(n, 14).into_bytes()),
            Ok(Value::Integer(n)) => Some(n.to_string().into_bytes()),
            _ => None,
        }
    };
    // Redis crashes on an error table without a string `err` (7.0.15 dereferences NULL);
    // the playground answers the generic message instead.
    let mut msg = text("err").unwrap_or_else(|| b"ERR unknown error".to_vec());
    if let (Some(source), Some(line)) = (text("source"), text("line")) {
        msg.extend_from_slice(format!(" script: {sha}, on ").as_bytes());
        msg.extend_from_slice(&source);
        msg.push(b':');
        msg.extend_from_slice(&line);
        msg.push(b'.');
    }
    Reply::Error(msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_codes_split_like_lua_push_error_buff() {
        assert_eq!(error_table_message(b"-WRONGTYPE Operation against"), b"WRONGTYPE Operation against");
        assert_eq!(error_table_message(b"-x"), b"ERR x");
        assert_eq!(error_table_message(b"plain words"), b"ERR plain words");
        assert_eq!(error_table_message(b"-OOM command not allowed\r\n"), b"OOM command not allowed");
    }

    #[test]
    fn lua_numbers_truncate_like_c() {
        assert_eq!(c_cast_i64(3.99), 3);
        assert_eq!(c_cast_i64(-2.5), -2);
        assert_eq!(c_cast_i64(1e20), i64::MIN);
        assert_eq!(c_cast_i64(f64::NAN), i64::MIN);
        assert_eq!(c_cast_i64(-9.223_372_036_854_776e18), i64::MIN);
    }
}
