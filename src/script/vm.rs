//! The Lua state a script runs in: models script_lua.c `luaRegisterRedisAPI()` (the `redis.*`
//! table), the globals Redis 7.0.15 keeps, the read-only globals protection,
//! `redis_math_random()` with rand.c's generator, and eval.c's `__redis__err__handler`. The
//! Lua code that sets it up (`BOOT`) runs once per state; `redis.call`, `redis.pcall` and
//! `redis.acl_check_cmd` reach the engine, so they are handed in for each run (call.rs).
//! The VM choice and its known gaps are in mod.rs.

use std::cell::Cell;
use std::rc::Rc;

use lua_vm::state::LuaState;
use omnilua::{
    Function, HostHooks, Lua, LuaRuntime, LuaString, LuaVersion, Sandbox, SandboxConfig, Table, Value, Variadic,
};

use super::capi::{self, RawFn};
use super::convert::{error_table_message, lua_tonumber, raise};
use super::lua_bit;
use super::lua_cjson;
use super::lua_cmsgpack;
use super::lua_struct;
use super::stdlib;

/// VM instructions one script may run before the playground stops it (about a second in a
/// browser).
pub const MAX_STEPS: u64 = 50_000_000;
/// `redis.call`/`redis.pcall` calls one script may make.
pub const MAX_CALLS: u64 = 100_000;
/// Lua heap one script may hold.
pub const MAX_HEAP: usize = 64 << 20;

/// redis.h: the version scripts see in `redis.REDIS_VERSION(_NUM)`.
const REDIS_VERSION: &str = "7.0.15";
const REDIS_VERSION_NUM: f64 = 0x07000f as f64;

/// Redis's `math.random` generator state (rand.c): outside Lua, so it survives SCRIPT FLUSH as
/// a C static does.
#[derive(Clone)]
pub struct Rand48(pub(crate) Rc<Cell<u64>>);

impl Default for Rand48 {
    fn default() -> Self {
        Rand48(Rc::new(Cell::new(RAND48_SEED)))
    }
}

/// rand.c's initial state (X2 X1 X0 = 0x1234 0xABCD 0x330E).
const RAND48_SEED: u64 = 0x1234_ABCD_330E;

pub struct Vm {
    pub lua: Lua,
    pub sandbox: Sandbox,
    /// `prepare(f)`: give a compiled script the protected environment.
    pub prepare: Function,
    /// `run(f, keys, argv, impl)`: run a script under the error handler with `impl` behind
    /// `redis.call`/`redis.pcall`; returns `ok, value`.
    pub run: Function,
    /// The script client's protocol (`lua_client->resp`): 2 at each script's start,
    /// `redis.setresp(3)` switches how replies convert to Lua (and how booleans return).
    pub resp: Rc<Cell<u8>>,
}

/// Runs once in a fresh state: keeps exactly the globals Redis 7.0.15 offers, installs
/// `redis.*`, Redis's `math.random`, `pcall` and the error handler, and protects the globals.
/// Its functions are skipped when the error handler looks for the script's line.
const BOOT: &str = r#"
local prims = ...
local G = _G
local dbg = debug
local type, tostring, error, select, ipairs = type, tostring, error, select, ipairs
local rawget, rawset, next, pairs = rawget, rawset, next, pairs
local setmetatable, getmetatable, setfenv, xpcall, pcall = setmetatable, getmetatable, setfenv, xpcall, pcall
local BOOT = dbg.getinfo(1, 'S').source

local keep = {}
for name in ('_G _VERSION assert collectgarbage coroutine error gcinfo getmetatable ipairs load ' ..
    'loadstring math next pairs pcall rawequal rawget rawset select setmetatable string table ' ..
    'tonumber tostring type unpack xpcall'):gmatch('%S+') do keep[name] = true end
for name in pairs(G) do if not keep[name] then G[name] = nil end end

-- The raw functions (capi.rs): omnilua's originals that some of them wrap go to the registry
-- first, then each replaces the library function of its name.
local raw, wrapped = prims.raw, prims.wrapped
local registry = dbg.getregistry()
local function lookup(path)
  local lib, name = path:match('^([%w_]+)%.([%w_]+)$')
  if lib then return G[lib], name end
  return G, path
end
for _, path in ipairs(wrapped) do
  local t, name = lookup(path)
  registry['redisplay.orig.' .. path] = t[name]
end
for path, f in pairs(raw) do
  local lib = path:match('^([%w_]+)%.')
  if lib and G[lib] == nil then G[lib] = {} end
  if path ~= 'cjson.new' then
    local t, name = lookup(path)
    t[name] = f
  end
end
G.cjson = raw['cjson.new']()
for k, v in pairs(prims.cmsgpack_fields) do G.cmsgpack[k] = v end
G._VERSION = 'Lua 5.1'
tostring = G.tostring

-- redis.*: call/pcall/acl_check_cmd are set for each run (they reach the engine); the API functions that
-- raise are Rust functions too, so the error handler finds the script's frame right above
-- them even after a tail call. A Redis error raised from Rust travels as "\1" .. message.
local MARK = '\1'
local function unmark(e)
  if type(e) == 'string' and e:sub(1, 1) == MARK then return {err = e:sub(2)} end
  return e
end
local redis = {}
redis.error_reply = function(...)
  local s = ...
  if select('#', ...) ~= 1 or type(s) ~= 'string' then return {err = 'ERR wrong number or type of arguments'} end
  return {err = prims.error_code(s:sub(1, 1) == '-' and s or '-' .. s)}
end
redis.status_reply = function(...)
  local s = ...
  if select('#', ...) ~= 1 or type(s) ~= 'string' then return {err = 'ERR wrong number or type of arguments'} end
  return {ok = s}
end
for _, name in pairs({'sha1hex', 'log', 'setresp', 'set_repl'}) do redis[name] = prims[name] end
redis.replicate_commands = function() return true end
redis.breakpoint = function() return false end
redis.debug = function() end
redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING = 0, 1, 2, 3
redis.REDIS_VERSION, redis.REDIS_VERSION_NUM = prims.version, prims.version_num
redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL = 0, 1, 2, 2, 3
G.redis = redis

-- pcall: a Redis error table caught by pcall becomes its message (script_lua.c luaRedisPcall).
local function pcall_result(ok, ...)
  if ok then return ok, ... end
  local e = unmark((...))
  if type(e) == 'table' then
    local m = e.err
    if type(m) == 'string' or type(m) == 'number' then e = m end
  end
  return false, e
end
G.pcall = function(...) return pcall_result(pcall(...)) end
G.xpcall = function(f, h) return xpcall(f, function(e) return h(unmark(e)) end) end

-- The error handler (eval.c __redis__err__handler): the line of the script, past C frames
-- and this file's wrappers.
local function handler(err)
  local level = 2
  local i = dbg.getinfo(level, 'nSl')
  if i and i.what == 'C' then level = level + 1; i = dbg.getinfo(level, 'nSl') end
  while i and i.source == BOOT do level = level + 1; i = dbg.getinfo(level, 'nSl') end
  err = unmark(err)
  if type(err) ~= 'table' then err = {err = 'ERR ' .. tostring(err)} end
  if i then
    err.source = i.source
    err.line = i.currentline
  end
  return err
end
G.__redis__err__handler = handler

-- Read-only tables: proxies whose writes fail.
local real_of, proxy_of = {}, {}
local function readonly() error('Attempt to modify a readonly table', 2) end
local function protect(t)
  local p = setmetatable({}, {__index = t, __newindex = readonly, __metatable = false})
  real_of[p], proxy_of[t] = t, p
  return p
end
for _, name in pairs({'string', 'math', 'table', 'coroutine', 'redis', 'cjson', 'cmsgpack', 'struct', 'bit'}) do
  G[name] = protect(G[name])
end
local string_mt = getmetatable('')
string_mt.__index = G.string
string_mt.__metatable = protect(string_mt)

local env = setmetatable({}, {
  __index = function(_, k)
    local v = rawget(G, k)
    if v == nil then
      if type(k) ~= 'string' and type(k) ~= 'number' then
        error('Second argument to luaProtectedTableError must be a string or number', 2)
      end
      error("Script attempted to access nonexistent global variable '" .. tostring(k) .. "'", 2)
    end
    return v
  end,
  __newindex = readonly,
  __metatable = false,
})
real_of[env], proxy_of[G] = G, env
G._G = env

local function seen(v) return proxy_of[v] or v end
G.rawget = function(t, k)
  local real = real_of[t]
  if real then return seen(rawget(real, k)) end
  return rawget(t, k)
end
G.rawset = function(t, k, v)
  if real_of[t] then error('Attempt to modify a readonly table', 0) end
  return rawset(t, k, v)
end
G.next = function(t, k)
  local real = real_of[t]
  if real then
    local nk, nv = next(real, k)
    return nk, seen(nv)
  end
  return next(t, k)
end
local next_ = G.next
G.pairs = function(t)
  if real_of[t] then return next_, t, nil end
  return pairs(t)
end
local env_mt_view = protect({})
G.getmetatable = function(o)
  if o == env then return env_mt_view end
  if real_of[o] then return nil end
  return getmetatable(o)
end
G.setmetatable = function(t, mt)
  if real_of[t] then error('Attempt to modify a readonly table', 0) end
  return setmetatable(t, mt)
end

setfenv(0, env)

local host = {}
function host.prepare(f) setfenv(f, env) end
function host.run(f, keys, argv, call, pcall_, acl_check_cmd)
  rawset(G, 'KEYS', keys)
  rawset(G, 'ARGV', argv)
  redis.call, redis.pcall, redis.acl_check_cmd = call, pcall_, acl_check_cmd
  local ok, value = xpcall(f, handler)
  redis.call, redis.pcall, redis.acl_check_cmd = nil, nil, nil
  return ok, value
end
return host
"#;

impl Vm {
    pub fn new(rand48: Rand48) -> omnilua::Result<Vm> {
        let rand48 = rand48.0;
        // Made as a LuaRuntime first: the raw functions (capi.rs) are registered on the bare
        // state, which a `Lua` no longer exposes.
        let mut runtime = LuaRuntime::with_hooks_versioned(HostHooks::default(), LuaVersion::V51)?;
        let mut raw = stdlib::functions(rand48.clone());
        raw.extend(lua_bit::functions());
        raw.extend(lua_struct::functions());
        raw.extend(lua_cmsgpack::functions());
        raw.extend(lua_cjson::functions());
        register_raw(runtime.state_mut(), raw)?;
        let lua = runtime.into_lua();
        let prims = lua.create_table()?;
        let wrapped = lua.create_table()?;
        for (i, name) in stdlib::WRAPPED.iter().enumerate() {
            wrapped.raw_set(i as f64 + 1.0, *name)?;
        }
        prims.set("wrapped", wrapped)?;
        let cmsgpack_fields = lua.create_table()?;
        cmsgpack_fields.set("_NAME", lua_cmsgpack::NAME)?;
        cmsgpack_fields.set("_VERSION", lua_cmsgpack::VERSION)?;
        cmsgpack_fields.set("_COPYRIGHT", lua_cmsgpack::COPYRIGHT)?;
        cmsgpack_fields.set("_DESCRIPTION", lua_cmsgpack::DESCRIPTION)?;
        prims.set("cmsgpack_fields", cmsgpack_fields)?;
        let raw: Table = lua.globals().get("__raw")?;
        lua.globals().raw_set("__raw", Value::Nil)?;
        prims.set("raw", raw)?;
        prims.set(
            "error_code",
            lua.create_function(|lua, s: LuaString| lua.create_string(error_table_message(&s.as_bytes()?)))?,
        )?;
        prims.set(
            "sha1hex",
            lua.create_function(|_, args: Variadic<Value>| {
                if args.len() != 1 {
                    return Err(raise(b"ERR wrong number of arguments"));
                }
                let bytes = match &args[0] {
                    Value::String(s) => s.as_bytes()?,
                    Value::Number(n) => crate::util::fmt_g(*n, 14).into_bytes(),
                    Value::Integer(n) => n.to_string().into_bytes(),
                    _ => vec![],
                };
                Ok(crate::util::sha1hex(&bytes))
            })?,
        )?;
        prims.set(
            "log",
            lua.create_function(|_, args: Variadic<Value>| {
                if args.len() < 2 {
                    return Err(raise(b"ERR redis.log() requires two arguments or more."));
                }
                let Some(level) = lua_tonumber(&args[0]) else {
                    return Err(raise(b"ERR First argument must be a number (log level)."));
                };
                if !(0..=3).contains(&(level as i64 as i32)) {
                    return Err(raise(b"ERR Invalid debug level."));
                }
                Ok(())
            })?,
        )?;
        let script_resp = Rc::new(Cell::new(2u8));
        let state = script_resp.clone();
        prims.set(
            "setresp",
            lua.create_function(move |_, args: Variadic<Value>| {
                if args.len() != 1 {
                    return Err(raise(b"ERR redis.setresp() requires one argument."));
                }
                let resp = lua_tonumber(&args[0]).unwrap_or(0.0) as i64 as i32;
                if resp != 2 && resp != 3 {
                    return Err(raise(b"ERR RESP version must be 2 or 3."));
                }
                state.set(resp as u8);
                Ok(())
            })?,
        )?;
        prims.set(
            "set_repl",
            lua.create_function(|_, args: Variadic<Value>| {
                if args.len() != 1 {
                    return Err(raise(b"ERR redis.set_repl() requires two arguments."));
                }
                let flags = lua_tonumber(&args[0]).unwrap_or(0.0) as i64 as i32;
                if flags & !3 != 0 {
                    return Err(raise(
                        b"ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.",
                    ));
                }
                Ok(())
            })?,
        )?;
        prims.set("version", REDIS_VERSION)?;
        prims.set("version_num", REDIS_VERSION_NUM)?;
        let host: Table = lua.load(BOOT).set_name("=redisplay").into_function()?.call(prims)?;
        let prepare: Function = host.get("prepare")?;
        let run: Function = host.get("run")?;
        let sandbox = lua.install_sandbox(SandboxConfig {
            instruction_limit: Some(MAX_STEPS),
            memory_limit_bytes: Some(MAX_HEAP),
            check_interval: 1,
            remove_globals: vec![],
        })?;
        Ok(Vm { lua, sandbox, prepare, run, resp: script_resp })
    }
}

/// Registers raw functions on a bare state, as the global table `__raw` (path → function) that
/// BOOT takes apart.
fn register_raw(state: &mut LuaState, functions: Vec<(&'static str, RawFn)>) -> omnilua::Result<()> {
    let heap = state.global().heap.clone();
    let _guard = lua_gc::HeapGuard::push(&heap);
    capi::push_table(state);
    for (path, f) in functions {
        capi::push_bytes(state, path.as_bytes()).map_err(omnilua::Error::from)?;
        let value = capi::function_value(state, f);
        state.push(value);
        capi::pop_into_table(state).map_err(omnilua::Error::from)?;
    }
    lua_vm::api::set_global(state, b"__raw").map_err(omnilua::Error::from)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::stdlib::{lrand48, srand48};

    #[test]
    fn rand48_follows_redis() {
        // redis-server 7.0.15, fresh: math.random(1000) gives 397 then 841; after
        // math.randomseed(1), 42 then 455.
        let s = Cell::new(RAND48_SEED);
        let pick = |s: &Cell<u64>| ((lrand48(s) % 2147483647) as f64 / 2147483647.0 * 1000.0).floor() as i64 + 1;
        assert_eq!((pick(&s), pick(&s)), (397, 841));
        srand48(&s, 1);
        assert_eq!((pick(&s), pick(&s)), (42, 455));
    }
}
