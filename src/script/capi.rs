//! A small slice of Lua 5.1's C API (lapi.c, lauxlib.c) over omnilua's VM (`lua-vm`), for the
//! functions Redis's Lua has that the playground writes in Rust: the libraries (cjson, cmsgpack,
//! struct, bit), the stdlib functions whose 5.1 behaviour omnilua lacks, and `redis.call`.
//!
//! Why not omnilua's `Lua::create_function`: those callbacks never see the running thread's
//! stack, so they cannot say where an error happened (`luaL_where(L, 1)` — the `user_script:1:`
//! prefix), name the function in `bad argument #1 to 'format'` (`luaL_argerror()`), or run while
//! a script is a coroutine between slices (see call.rs). These raw functions get the
//! `&mut LuaState` of the thread that called them, as a C function gets its `lua_State *`.
//! They are registered once, when the state is made (vm.rs), before it becomes a `Lua`.
//!
//! Conventions as in C: arguments are stack indices 1..=`nargs`; a function pushes its results
//! and returns how many; every value it makes stays on the stack until it is returned, so the
//! collector (which traces the stack) never frees it early. As in C, a function is given
//! `LUA_MINSTACK` (20) free slots; one that pushes more must reserve them first with
//! `check_stack()`. omnilua's `push` does not: past the reserved end it appends to the stack's
//! `Vec` without moving `stack_last`, so the next stack growth (e.g. the count hook's, before the
//! next instruction: it reserves `LUA_MINSTACK` slots above the top) fills what it takes for
//! fresh room with nil — over the values pushed there.

use std::rc::Rc;

use lua_types::closure::LuaClosure;
use lua_types::error::LuaError;
use lua_types::gc::GcRef;
use lua_types::table::LuaTable;
use lua_types::value::LuaValue;
use lua_types::LuaType;
use lua_vm::state::{LuaCallable, LuaRustFunction, LuaState};

use super::printf;

/// lua.h `LUA_REGISTRYINDEX` and `LUA_MULTRET`.
pub const REGISTRY_INDEX: i32 = -1_001_000;
pub const MULTRET: i32 = -1;

/// Lua 5.1's luaconf.h LUAI_MAXCSTACK: the stack slots a C function may use.
pub const MAX_C_STACK: i32 = 8000;

/// A function Lua calls with its thread's state.
pub type RawFn = LuaRustFunction;

/// Wraps a Rust closure as a raw function. Debug builds check that it pushed no more than the
/// room it had (`check_stack()`).
pub fn raw(f: impl Fn(&mut LuaState) -> Result<usize, LuaError> + 'static) -> RawFn {
    Rc::new(move |state: &mut LuaState| {
        let r = f(state);
        debug_assert!(
            state.top_idx().0 <= state.stack_last.0,
            "a raw function pushed past the stack's reserved end without check_stack()"
        );
        r
    })
}

/// `lua_pushcfunction()` for a raw function: registers it with the state and returns the value.
pub fn function_value(state: &mut LuaState, f: RawFn) -> LuaValue {
    let idx = {
        let mut g = state.global_mut();
        g.c_functions.push(LuaCallable::rust(f));
        g.c_functions.len() - 1
    };
    LuaValue::Function(LuaClosure::LightC(idx))
}

/// `lua_gettop()`: how many arguments the running function got.
pub fn nargs(state: &mut LuaState) -> i32 {
    lua_vm::api::get_top(state)
}

/// The argument at `n` (1-based); `Nil` past the last one.
pub fn arg(state: &mut LuaState, n: i32) -> LuaValue {
    if n < 1 || n > nargs(state) {
        return LuaValue::Nil;
    }
    lua_vm::api::positive_index_value(state, n)
}

/// `lua_type()`, with `None` for a missing argument.
pub fn arg_type(state: &mut LuaState, n: i32) -> LuaType {
    if n < 1 || n > nargs(state) {
        return LuaType::None;
    }
    arg(state, n).type_tag()
}

/// `luaL_typename()`: the type name, or `no value`.
pub fn type_name_at(state: &mut LuaState, n: i32) -> &'static str {
    if n < 1 || n > nargs(state) {
        return "no value";
    }
    arg(state, n).type_name()
}

/// lapi.c `lua_tonumber()` as Redis's Lua 5.1 has it: numbers, and strings `luaO_str2d()`
/// reads (strtod: `inf`, `nan`, hex…).
pub fn to_number(v: &LuaValue) -> Option<f64> {
    match v {
        LuaValue::Float(f) => Some(*f),
        LuaValue::Int(i) => Some(*i as f64),
        LuaValue::Str(s) => printf::lua_str2d(s.as_bytes()),
        _ => None,
    }
}

/// `lua_tolstring()`: strings, and numbers as `%.14g`.
pub fn to_bytes(v: &LuaValue) -> Option<Vec<u8>> {
    match v {
        LuaValue::Str(s) => Some(s.as_bytes().to_vec()),
        LuaValue::Float(f) => Some(printf::number_to_string(*f).into_bytes()),
        LuaValue::Int(i) => Some(printf::number_to_string(*i as f64).into_bytes()),
        _ => None,
    }
}

/// `luaL_error()`: `msg` with the position of the Lua code that called the running function.
pub fn error(state: &mut LuaState, msg: impl Into<Vec<u8>>) -> LuaError {
    lua_vm::debug::c_api_runtime(state, msg.into())
}

/// `lua_error()` of a string, with no position added.
pub fn plain_error(state: &mut LuaState, msg: &[u8]) -> LuaError {
    match state.new_string(msg) {
        Ok(s) => LuaError::Runtime(LuaValue::Str(s)),
        Err(e) => e,
    }
}

/// `luaL_argerror()`: `bad argument #n to 'name' (msg)`, with the position.
pub fn arg_error(state: &mut LuaState, n: i32, msg: &str) -> LuaError {
    lua_vm::debug::arg_error_impl(state, n, msg.as_bytes())
}

/// `luaL_typerror()`: `bad argument #n to 'name' (<expected> expected, got <type>)`.
pub fn type_error(state: &mut LuaState, n: i32, expected: &str) -> LuaError {
    let got = type_name_at(state, n);
    arg_error(state, n, &format!("{expected} expected, got {got}"))
}

/// `luaL_checknumber()`.
pub fn check_number(state: &mut LuaState, n: i32) -> Result<f64, LuaError> {
    let v = arg(state, n);
    match to_number(&v) {
        Some(d) => Ok(d),
        None => Err(type_error(state, n, "number")),
    }
}

/// `luaL_optnumber()`.
pub fn opt_number(state: &mut LuaState, n: i32, default: f64) -> Result<f64, LuaError> {
    match arg_type(state, n) {
        LuaType::None | LuaType::Nil => Ok(default),
        _ => check_number(state, n),
    }
}

/// `luaL_checkinteger()`: `(ptrdiff_t)` of the number (x86-64 truncation).
pub fn check_integer(state: &mut LuaState, n: i32) -> Result<i64, LuaError> {
    Ok(printf::c_long(check_number(state, n)?))
}

/// `luaL_checkint()`: `(int)luaL_checkinteger()`.
pub fn check_int(state: &mut LuaState, n: i32) -> Result<i32, LuaError> {
    Ok(check_integer(state, n)? as i32)
}

/// `luaL_optint()`.
pub fn opt_int(state: &mut LuaState, n: i32, default: i32) -> Result<i32, LuaError> {
    match arg_type(state, n) {
        LuaType::None | LuaType::Nil => Ok(default),
        _ => check_int(state, n),
    }
}

/// `luaL_checklstring()`.
pub fn check_bytes(state: &mut LuaState, n: i32) -> Result<Vec<u8>, LuaError> {
    let v = arg(state, n);
    match to_bytes(&v) {
        Some(b) => Ok(b),
        None => Err(type_error(state, n, "string")),
    }
}

/// `luaL_optlstring()`.
pub fn opt_bytes(state: &mut LuaState, n: i32, default: &[u8]) -> Result<Vec<u8>, LuaError> {
    match arg_type(state, n) {
        LuaType::None | LuaType::Nil => Ok(default.to_vec()),
        _ => check_bytes(state, n),
    }
}

/// `luaL_checktype(L, n, LUA_TTABLE)`.
pub fn check_table(state: &mut LuaState, n: i32) -> Result<GcRef<LuaTable>, LuaError> {
    match arg(state, n) {
        LuaValue::Table(t) => Ok(t),
        _ => Err(type_error(state, n, "table")),
    }
}

/// `luaL_checkany()`.
pub fn check_any(state: &mut LuaState, n: i32) -> Result<(), LuaError> {
    if arg_type(state, n) == LuaType::None {
        return Err(arg_error(state, n, "value expected"));
    }
    Ok(())
}

/// lapi.c `lua_checkstack()` (5.1): room for `n` more values, unless the running function
/// would then hold more than `MAX_C_STACK` slots.
pub fn check_stack(state: &mut LuaState, n: i32) -> bool {
    if n > MAX_C_STACK || nargs(state) as i64 + n as i64 > MAX_C_STACK as i64 {
        return false;
    }
    n <= 0 || lua_vm::api::check_stack(state, n)
}

/// lauxlib.c `luaL_checkstack()`: `check_stack()`, raising `stack overflow (msg)`.
pub fn ensure_stack(state: &mut LuaState, n: i32, msg: &str) -> Result<(), LuaError> {
    if check_stack(state, n) {
        return Ok(());
    }
    Err(error(state, format!("stack overflow ({msg})")))
}

/// `lua_pushnumber()`.
pub fn push_number(state: &mut LuaState, d: f64) {
    state.push(LuaValue::Float(d));
}

/// `lua_pushlstring()`.
pub fn push_bytes(state: &mut LuaState, b: &[u8]) -> Result<(), LuaError> {
    let s = state.new_string(b)?;
    state.push(LuaValue::Str(s));
    Ok(())
}

/// `lua_newtable()`: pushes a new table and returns it (it stays rooted by the stack).
pub fn push_table(state: &mut LuaState) -> GcRef<LuaTable> {
    let t = state.new_table();
    state.push(LuaValue::Table(t));
    t
}

/// `lua_rawseti(L, -2, i)`: pops the top value into `t[i]`.
pub fn pop_into_index(state: &mut LuaState, i: i64) -> Result<(), LuaError> {
    lua_vm::api::raw_set_i(state, -2, i)
}

/// `lua_rawset(L, -3)`: pops a key and a value into the table below them.
pub fn pop_into_table(state: &mut LuaState) -> Result<(), LuaError> {
    lua_vm::api::raw_set(state, -3)
}

/// `lua_pop(L, n)`.
pub fn pop(state: &mut LuaState, n: i32) -> Result<(), LuaError> {
    let top = nargs(state);
    set_top(state, top - n)
}

/// The value `k` slots below the top (`k` = 1: the top), as `lua_tovalue(L, -k)`.
pub fn from_top(state: &mut LuaState, k: i32) -> LuaValue {
    let top = nargs(state);
    arg(state, top - k + 1)
}

/// `lua_settop(L, n)`.
pub fn set_top(state: &mut LuaState, n: i32) -> Result<(), LuaError> {
    lua_vm::api::set_top(state, n)
}

/// A value kept in the registry under `name` (functions the raw functions wrap, the proxies'
/// maps), pushed.
pub fn push_registry(state: &mut LuaState, name: &[u8]) -> Result<LuaType, LuaError> {
    lua_vm::api::get_field(state, REGISTRY_INDEX, name)
}

/// Calls the registry function `name` with this function's own arguments, protected, and
/// returns its results or its error (for wrappers that fix an error's wording).
pub fn call_registry_protected(state: &mut LuaState, name: &[u8]) -> Result<i32, LuaError> {
    let n = nargs(state);
    push_registry(state, name)?;
    lua_vm::api::rotate(state, 1, 1);
    state.protected_call(n, MULTRET, 0)?;
    Ok(nargs(state))
}

/// The message of a raised error, when it is a string.
pub fn error_message(e: &LuaError) -> Option<Vec<u8>> {
    match e {
        LuaError::Runtime(LuaValue::Str(s)) => Some(s.as_bytes().to_vec()),
        LuaError::RuntimeMsg(m) => Some(m.to_vec()),
        _ => None,
    }
}
