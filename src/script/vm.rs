//! The Lua state a script runs in: models script_lua.c `luaRegisterRedisAPI()` (the `redis.*`
//! table), the globals Redis 7.0.15 keeps, the read-only globals protection,
//! `redis_math_random()` with rand.c's generator, and eval.c's `__redis__err__handler`. The
//! Lua code that sets it up (`BOOT`) runs once per state. `redis.call`, `redis.pcall` and
//! `redis.acl_check_cmd` are raw functions that call the engine's implementation of the
//! current slice (call.rs hands one in, through the registry, each time it resumes a script).
//!
//! A script runs as a coroutine (`BODY`): a count hook installed on its thread (`__arm`)
//! counts its instructions and yields at the step the engine asked for (`Control::yield_at`),
//! so the engine can answer other clients between slices; the sandbox's instruction budget,
//! shared by every thread, is the hard cap, and SCRIPT KILL empties it (`__ctl`) so the very
//! next instruction, on any thread, ends the script in a way `pcall` cannot catch.
//! The VM choice and its known gaps are in mod.rs.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use lua_vm::state::LuaState;
use omnilua::{Function, HostHooks, Lua, LuaRuntime, LuaVersion, Sandbox, SandboxConfig, Table, Value};

use super::capi::{self, RawFn};
use super::convert::{argv_of, error_table_message, push_reply, raise, raise_counted};
use super::lua_bit;
use super::lua_cjson;
use super::lua_cmsgpack;
use super::lua_struct;
use super::stdlib;
use crate::reply::Reply;

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

/// What `redis.call`, `redis.pcall` and `redis.acl_check_cmd` ask the engine.
pub enum Request {
    Call(Vec<Vec<u8>>),
    AclCheck(Vec<Vec<u8>>),
}

/// The engine's answer.
pub enum Response {
    /// The command ran (its reply may be an error).
    Reply(Reply),
    /// It was refused before running (the message, with its code). For `redis.call`/`pcall`
    /// scriptCall() counted it as an error reply already, as call() counts a command's error.
    Refused(String),
    /// `redis.acl_check_cmd`: whether the caller's user may run the command.
    Permitted(bool),
}

/// What the engine and a running script share: the count hook's steps and yield point, the
/// script client's protocol, and `redis.call`'s request and answer (the engine's
/// implementation reads and writes them; the raw functions convert on the script's own stack).
#[derive(Default)]
pub struct Control {
    /// The script client's protocol (`lua_client->resp`): 2 at each script's start,
    /// `redis.setresp(3)` switches how replies convert to Lua (and how booleans return).
    pub resp: Cell<u8>,
    pub request: RefCell<Option<Request>>,
    pub response: RefCell<Option<Response>>,
    /// Instructions the script's own thread ran in this run.
    pub steps: Cell<u64>,
    /// The hook yields once `steps` reaches this (when the thread can yield).
    pub yield_at: Cell<u64>,
    /// The id of the script's own thread (`coroutine.yield` refuses to yield it).
    pub script_thread: Cell<u64>,
}

/// The count hook installed on a script's thread.
type CountHook = Box<dyn FnMut(&mut LuaState, &lua_vm::debug::LuaDebug)>;

/// `LUA_MASKCOUNT`.
const MASK_COUNT: i32 = 1 << 3;

pub struct Vm {
    pub lua: Lua,
    pub sandbox: Sandbox,
    pub control: Rc<Control>,
    /// `prepare(f)`: give a compiled script the protected environment.
    pub prepare: Function,
    /// `body(f, keys, argv)`: a run, as a coroutine's body: arms the hook, sets KEYS/ARGV and
    /// returns `f()`'s first value.
    pub body: Function,
    /// `step(thread, …)`: resumes a run: `"yield"`, `"done", value` or `"error", err`.
    pub step: Function,
    /// `where(thread)`: the source and line of the innermost Lua function of a stopped script.
    pub locate: Function,
    /// `ctl(op, n)`: `"limit"` sets the instruction budget (the hard cap) and refills it;
    /// `"kill"` empties it.
    pub ctl: Function,
    /// `load(f)`: runs a library's compiled code (FUNCTION LOAD): the functions it
    /// registered, or `nil, error text`.
    pub load: Function,
    /// `fbody(f, keys, args)`: a function's run (FCALL), as `body` is a script's.
    pub fbody: Function,
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
  if path ~= 'cjson.new' and lib ~= 'redis' and lib ~= 'host' then
    local t, name = lookup(path)
    t[name] = f
  end
end
G.cjson = raw['cjson.new']()
for k, v in pairs(prims.cmsgpack_fields) do G.cmsgpack[k] = v end
G._VERSION = 'Lua 5.1'
tostring = G.tostring

-- redis.*: call/pcall/acl_check_cmd are raw functions that call the engine's implementation
-- for the running slice (so two C frames sit above the script when they raise); the other
-- API functions that raise are Rust functions too, so the error handler finds the script's
-- frame right above them even after a tail call. A Redis error raised from Rust travels as
-- "\1" .. message; one a command already counted in INFO errorstats as "\2" .. message (its
-- table says ignore_error_stats_update, so the script's final error is not counted again).
local MARK, COUNTED = '\1', '\2'
local function unmark(e)
  if type(e) == 'string' and e:sub(1, 1) == MARK then return {err = e:sub(2)} end
  if type(e) == 'string' and e:sub(1, 1) == COUNTED then return {err = e:sub(2), ignore_error_stats_update = true} end
  return e
end
local redis = {}
redis.call, redis.pcall, redis.acl_check_cmd = raw['redis.call'], raw['redis.pcall'], raw['redis.acl_check_cmd']
local engine_api = {[redis.call] = true, [redis.pcall] = true, [redis.acl_check_cmd] = true}
redis.error_reply = function(...)
  local s = ...
  if select('#', ...) ~= 1 or type(s) ~= 'string' then return {err = 'ERR wrong number or type of arguments'} end
  return {err = raw['host.error_code'](s:sub(1, 1) == '-' and s or '-' .. s)}
end
redis.status_reply = function(...)
  local s = ...
  if select('#', ...) ~= 1 or type(s) ~= 'string' then return {err = 'ERR wrong number or type of arguments'} end
  return {ok = s}
end
for _, name in pairs({'sha1hex', 'log', 'setresp', 'set_repl'}) do redis[name] = raw['redis.' .. name] end
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
-- The frame an error came from, as the handler sees it: `level` is where the raising function
-- is; a C function's caller (past the engine's redis.call implementation) and this file's
-- wrappers are skipped. `info(level, what)` reads a frame of the right thread.
local function raised_at(info, level)
  local i = info(level, 'nSlf')
  if i and i.what == 'C' then
    level = level + 1; i = info(level, 'nSlf')
    if i and engine_api[i.func] then level = level + 1; i = info(level, 'nSlf') end
  end
  while i and i.source == BOOT do level = level + 1; i = info(level, 'nSlf') end
  return i
end
local function handler(err)
  local i = raised_at(dbg.getinfo, 2)
  err = unmark(err)
  if type(err) ~= 'table' then err = {err = 'ERR ' .. tostring(err)} end
  if i then
    err.source = i.source
    err.line = i.currentline
  end
  return err
end
G.__redis__err__handler = handler

-- The script runs as a coroutine, but to the script it is the main thread, as in Redis:
-- yielding from it fails and coroutine.running() is nil.
local co_running = coroutine.running
-- Held weakly: a stopped script's coroutine (and all it built) must be collectable.
local script_co = setmetatable({}, {__mode = 'v'})
G.coroutine.yield = raw['host.yield']
G.coroutine.running = function()
  local co = co_running()
  if co == script_co[1] then return nil end
  return co
end

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

-- A missing global (script_lua.c luaProtectedTableError()), blamed on the code that read it
-- (level 3: past this function and the __index that called it).
local function no_global(k)
  if type(k) ~= 'string' and type(k) ~= 'number' then
    error('Second argument to luaProtectedTableError must be a string or number', 3)
  end
  error("Script attempted to access nonexistent global variable '" .. tostring(k) .. "'", 3)
end
-- A read-only view whose missing names raise: `lookup()` says which table it reads now.
local function strict_view(lookup)
  return setmetatable({}, {
    __index = function(_, k)
      local v = rawget(lookup(), k)
      if v == nil then no_global(k) end
      return v
    end,
    __newindex = readonly,
    __metatable = false,
  })
end
local env = strict_view(function() return G end)
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
-- A run is a coroutine: an error ends it with its stack kept, which `step` then reads as
-- eval.c's __redis__err__handler would have at the error (omnilua runs an xpcall handler
-- only after a coroutine's frames unwound).
local arm, call1 = raw['host.arm'], raw['host.call']
function host.body(f, keys, argv)
  arm()
  rawset(G, 'KEYS', keys)
  rawset(G, 'ARGV', argv)
  -- Through a C function, as lua_pcall() calls it: `error(msg, 2)` has no position.
  return call1(f)
end
local resume, co_status = coroutine.resume, coroutine.status
-- `step(co, ...)`: resumes; 'yield', or 'done' and the result, or 'error' and the error
-- table with the line.
function host.step(co, ...)
  script_co[1] = co
  local ok, value = resume(co, ...)
  if not ok then
    local i = raised_at(function(level, what) return dbg.getinfo(co, level, what) end, 0)
    local err = unmark(value)
    if type(err) ~= 'table' then err = {err = 'ERR ' .. tostring(err)} end
    if i then
      err.source = i.source
      err.line = i.currentline
    end
    return 'error', err
  end
  if co_status(co) == 'dead' then return 'done', value end
  return 'yield'
end
function host.locate(co)
  for level = 0, 1000 do
    local i = dbg.getinfo(co, level, 'Sl')
    if not i then return nil end
    if i.what ~= 'C' and i.source ~= BOOT then return i.source, i.currentline end
  end
end
host.ctl = raw['host.ctl']

-- Functions (function_lua.c `luaEngineInitEngine()`, `luaEngineCreate()`,
-- `luaRegisterFunction()`): a library's code runs with only the library API as its globals —
-- `redis.register_function`, `redis.log`, the log levels and the version, any other name
-- raising the nonexistent-global error — and the functions it registers later run with the
-- globals scripts see (no KEYS/ARGV: they get keys and args as arguments). Redis swaps the
-- `__index` of one globals table between the two; here one environment looks in one or the
-- other.
local lib_redis = {}
for _, k in ipairs({'log', 'LOG_DEBUG', 'LOG_VERBOSE', 'LOG_NOTICE', 'LOG_WARNING', 'REDIS_VERSION', 'REDIS_VERSION_NUM'}) do
  lib_redis[k] = redis[k]
end
local lib_api = {redis = strict_view(function() return lib_redis end)}
local registering -- while a library loads: what it registered, in order
local fenv = strict_view(function() return registering and lib_api or G end)
real_of[fenv] = G

-- scripts_flags_def (flags.rs), the order FUNCTION LIST prints them in.
local FLAG_NAMES = prims.flag_names
local function fail(msg) error(MARK .. 'ERR ' .. msg, 0) end
local lower = string.lower
-- lua_isstring(): a string or a number (which reads as its %.14g text).
local function str(v)
  if type(v) == 'string' then return v end
  if type(v) == 'number' then return tostring(v) end
end
local function read_flags(t)
  local flags, j = {}, 1
  while true do
    local v = t[j]
    if v == nil then return flags end
    local s = str(v)
    if not s then return nil end
    local found = false
    for _, name in ipairs(FLAG_NAMES) do
      if lower(s) == name then flags[name] = true; found = true; break end
    end
    if not found then return nil end
    j = j + 1
  end
end
function lib_redis.register_function(...)
  if not registering then fail('redis.register_function can only be called on FUNCTION LOAD command') end
  local n = select('#', ...)
  if n < 1 or n > 2 then fail('wrong number of arguments to redis.register_function') end
  local name, desc, callback, flags
  if n == 1 then
    local t = ...
    if type(t) ~= 'table' then
      fail('calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).')
    end
    for k, v in next, t do
      local key = str(k)
      if not key then fail('named argument key given to redis.register_function is not a string') end
      key = lower(key)
      if key == 'function_name' then
        name = str(v)
        if not name then fail('function_name argument given to redis.register_function must be a string') end
      elseif key == 'description' then
        desc = str(v)
        if not desc then fail('description argument given to redis.register_function must be a string') end
      elseif key == 'callback' then
        if type(v) ~= 'function' then fail('callback argument given to redis.register_function must be a function') end
        callback = v
      elseif key == 'flags' then
        if type(v) ~= 'table' then fail('flags argument to redis.register_function must be a table representing function flags') end
        flags = read_flags(v)
        if not flags then fail('unknown flag given') end
      else
        fail('unknown argument given to redis.register_function')
      end
    end
    if not name then fail('redis.register_function must get a function name argument') end
    if not callback then fail('redis.register_function must get a callback argument') end
  else
    local a, b = ...
    name = str(a)
    if not name then fail('first argument to redis.register_function must be a string') end
    if type(b) ~= 'function' then fail('second argument to redis.register_function must be a function') end
    callback = b
  end
  -- functions.c functionLibCreateFunction()
  if not name:find('^[%w_]+$') then
    fail('Library names can only contain letters, numbers, or underscores(_) and must be at least one character long')
  end
  if registering.names[name] then fail('Function already exists in the library') end
  registering.names[name] = true
  local list = {}
  for _, f in ipairs(FLAG_NAMES) do if flags and flags[f] then list[#list + 1] = f end end
  registering[#registering + 1] = {name = name, description = desc, flags = list, callback = callback}
end

-- `load(f)`: runs a library's compiled code; its registrations, or the error text.
function host.load(f)
  setfenv(f, fenv)
  registering = {names = {}}
  local ok, err = pcall(f)
  local got = registering
  registering = nil
  if ok then
    got.names = nil
    return got
  end
  err = unmark(err)
  if type(err) == 'table' then
    local m = err.err
    if type(m) == 'string' or type(m) == 'number' then return nil, tostring(m) end
    return nil, 'ERR unknown error'
  end
  return nil, 'ERR ' .. tostring(err)
end
-- A function's run: keys and args are its arguments.
function host.fbody(f, keys, argv)
  registering = nil -- a load the instruction budget stopped left it set
  arm()
  return call1(f, keys, argv)
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
        let control = Rc::new(Control::default());
        raw.extend(engine_functions(control.clone()));
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
        prims.set("version", REDIS_VERSION)?;
        prims.set("version_num", REDIS_VERSION_NUM)?;
        let flag_names = lua.create_table()?;
        for (i, name) in super::flags::NAMES.iter().enumerate() {
            flag_names.raw_set(i as f64 + 1.0, *name)?;
        }
        prims.set("flag_names", flag_names)?;
        let host: Table = lua.load(BOOT).set_name("=redisplay").into_function()?.call(prims)?;
        let prepare: Function = host.get("prepare")?;
        let body: Function = host.get("body")?;
        let step: Function = host.get("step")?;
        let locate: Function = host.get("locate")?;
        let ctl: Function = host.get("ctl")?;
        let load: Function = host.get("load")?;
        let fbody: Function = host.get("fbody")?;
        let sandbox = lua.install_sandbox(SandboxConfig {
            instruction_limit: Some(u64::MAX / 2),
            memory_limit_bytes: Some(MAX_HEAP),
            check_interval: 1,
            remove_globals: vec![],
        })?;
        Ok(Vm { lua, sandbox, control, prepare, body, step, locate, ctl, load, fbody })
    }
}

/// Registry key of the engine's implementation behind `redis.call`, `redis.pcall` and
/// `redis.acl_check_cmd` for the slice running now (call.rs sets it): it takes
/// `Control::request` and leaves `Control::response`.
pub const ENGINE_IMPL: &str = "redisplay.engine";

/// The raw functions between the VM and the engine: `redis.call`/`pcall`/`acl_check_cmd`
/// (which call the slice's implementation in the registry), `host.arm` (the count hook) and
/// `host.ctl` (the instruction budget).
fn engine_functions(control: Rc<Control>) -> Vec<(&'static str, RawFn)> {
    #[derive(Clone, Copy, PartialEq)]
    enum Api {
        Call,
        Pcall,
        AclCheck,
    }
    // script_lua.c luaRedisGenericCommand() (call/pcall) and luaRedisAclCheckCmdPermissionsCommand().
    let via = |api: Api, control: Rc<Control>| {
        capi::raw(move |st: &mut LuaState| {
            // An error table (pcall) or raised error (call); `counted` marks one INFO
            // errorstats counted already (`ignore_error_stats_update`).
            let refused = |st: &mut LuaState, msg: &[u8], counted: bool| -> Result<usize, lua_types::error::LuaError> {
                if api == Api::Pcall {
                    capi::push_table(st);
                    capi::push_bytes(st, b"err")?;
                    capi::push_bytes(st, msg)?;
                    capi::pop_into_table(st)?;
                    if counted {
                        capi::push_bytes(st, b"ignore_error_stats_update")?;
                        st.push(lua_types::value::LuaValue::Bool(true));
                        capi::pop_into_table(st)?;
                    }
                    return Ok(1);
                }
                Err(if counted { raise_counted(msg) } else { raise(msg) })
            };
            let argv = match argv_of(st) {
                Ok(argv) => argv,
                Err(msg) => return refused(st, msg.as_bytes(), false),
            };
            *control.request.borrow_mut() =
                Some(if api == Api::AclCheck { Request::AclCheck(argv) } else { Request::Call(argv) });
            if capi::push_registry(st, ENGINE_IMPL.as_bytes())? != lua_types::LuaType::Function {
                return Err(raise(b"ERR redis.call() is only available while a script runs"));
            }
            lua_vm::api::call_k(st, 0, 0, 0, None)?;
            let response = control.response.borrow_mut().take();
            match response {
                Some(Response::Reply(Reply::Error(msg))) => {
                    let mut err = b"-".to_vec();
                    err.extend_from_slice(&msg);
                    refused(st, &error_table_message(&err), true)
                }
                Some(Response::Reply(reply)) => {
                    push_reply(st, &reply, control.resp.get())?;
                    Ok(1)
                }
                Some(Response::Refused(msg)) if api == Api::AclCheck => Err(raise(msg.as_bytes())),
                Some(Response::Refused(msg)) => refused(st, msg.as_bytes(), true),
                Some(Response::Permitted(ok)) => {
                    st.push(lua_types::value::LuaValue::Bool(ok));
                    Ok(1)
                }
                None => Err(raise(b"ERR scripting engine error: no answer from the engine")),
            }
        })
    };
    let yield_control = control.clone();
    let resp_control = control.clone();
    let (call_control, pcall_control, acl_control) = (control.clone(), control.clone(), control.clone());
    let co_yield = capi::raw(move |st: &mut LuaState| {
        if st.cached_thread_id == yield_control.script_thread.get() {
            return Err(capi::plain_error(st, b"attempt to yield across metamethod/C-call boundary"));
        }
        let n = capi::nargs(st);
        lua_vm::do_::lua_yieldk(st, n, 0, None).map(|n| n as usize)
    });
    let arm = capi::raw(move |st: &mut LuaState| {
        control.script_thread.set(st.cached_thread_id);
        let ctl = control.clone();
        let hook: CountHook = Box::new(move |st, _| {
            let n = ctl.steps.get() + 1;
            ctl.steps.set(n);
            if n >= ctl.yield_at.get() && st.is_yieldable() {
                let _ = lua_vm::do_::lua_yieldk(st, 0, 0, None);
            }
        });
        lua_vm::debug::set_hook(st, Some(hook), MASK_COUNT, 1);
        Ok(0)
    });
    let ctl = capi::raw(|st: &mut LuaState| {
        let op = capi::check_bytes(st, 1)?;
        let n = capi::opt_number(st, 2, 0.0)? as u64;
        let g = st.global();
        match op.as_slice() {
            b"limit" => {
                g.sandbox.instr_limit.set(n.max(1));
                g.sandbox.instr_remaining.set(n.max(1));
            }
            b"kill" => g.sandbox.instr_remaining.set(1),
            _ => {}
        }
        Ok(0)
    });
    // `host.call(f)`: f's first result, called from C (yieldable, with a continuation).
    fn first_result(_: &mut LuaState, _: i32, _: isize) -> Result<usize, lua_types::error::LuaError> {
        Ok(1)
    }
    let call1 = capi::raw(|st: &mut LuaState| {
        let nargs = (capi::nargs(st) - 1).max(0);
        lua_vm::api::call_k(st, nargs, 1, 0, Some(first_result))?;
        Ok(1)
    });
    vec![
        ("host.call", call1),
        ("host.yield", co_yield),
        ("redis.call", via(Api::Call, call_control)),
        ("redis.pcall", via(Api::Pcall, pcall_control)),
        ("redis.acl_check_cmd", via(Api::AclCheck, acl_control)),
        ("redis.sha1hex", capi::raw(redis_sha1hex)),
        ("redis.log", capi::raw(redis_log)),
        ("redis.setresp", capi::raw(move |st| redis_setresp(st, &resp_control))),
        ("redis.set_repl", capi::raw(redis_set_repl)),
        (
            "host.error_code",
            capi::raw(|st: &mut LuaState| {
                let s = capi::check_bytes(st, 1)?;
                capi::push_bytes(st, &error_table_message(&s))?;
                Ok(1)
            }),
        ),
        ("host.arm", arm),
        ("host.ctl", ctl),
    ]
}

/// `redis.sha1hex(s)`.
fn redis_sha1hex(st: &mut LuaState) -> Result<usize, lua_types::error::LuaError> {
    if capi::nargs(st) != 1 {
        return Err(raise(b"ERR wrong number of arguments"));
    }
    let bytes = capi::to_bytes(&capi::arg(st, 1)).unwrap_or_default();
    capi::push_bytes(st, crate::util::sha1hex(&bytes).as_bytes())?;
    Ok(1)
}

/// `redis.log(level, …)`: checked; the playground keeps no log.
fn redis_log(st: &mut LuaState) -> Result<usize, lua_types::error::LuaError> {
    if capi::nargs(st) < 2 {
        return Err(raise(b"ERR redis.log() requires two arguments or more."));
    }
    let Some(level) = capi::to_number(&capi::arg(st, 1)) else {
        return Err(raise(b"ERR First argument must be a number (log level)."));
    };
    if !(0..=3).contains(&(level as i64 as i32)) {
        return Err(raise(b"ERR Invalid debug level."));
    }
    Ok(0)
}

/// `redis.setresp(2|3)`.
fn redis_setresp(st: &mut LuaState, control: &Control) -> Result<usize, lua_types::error::LuaError> {
    if capi::nargs(st) != 1 {
        return Err(raise(b"ERR redis.setresp() requires one argument."));
    }
    let resp = capi::to_number(&capi::arg(st, 1)).unwrap_or(0.0) as i64 as i32;
    if resp != 2 && resp != 3 {
        return Err(raise(b"ERR RESP version must be 2 or 3."));
    }
    control.resp.set(resp as u8);
    Ok(0)
}

/// `redis.set_repl(flags)`: checked; nothing is replicated.
fn redis_set_repl(st: &mut LuaState) -> Result<usize, lua_types::error::LuaError> {
    if capi::nargs(st) != 1 {
        return Err(raise(b"ERR redis.set_repl() requires two arguments."));
    }
    let flags = capi::to_number(&capi::arg(st, 1)).unwrap_or(0.0) as i64 as i32;
    if flags & !3 != 0 {
        return Err(raise(b"ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."));
    }
    Ok(0)
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
