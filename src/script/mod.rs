//! Lua scripting, as script_lua.c, script.c and eval.c split it:
//! - this file: an engine's scripting state — the script cache (eval.c `luaCreateFunction()`,
//!   `sha1hex()`, `evalExtractShebangFlags()`) and the Lua state, created on first use;
//! - `vm.rs`: the Lua state itself — the globals Redis offers, `redis.*`, `math.random`, the
//!   error handler, read-only globals (script_lua.c `luaRegisterRedisAPI()`, the globals
//!   protection, `redis_math_random()`);
//! - `call.rs`: running a script and its `redis.call`s (script_lua.c `luaCallFunction()`,
//!   `luaRedisGenericCommand()`; script.c `scriptCall()` and its checks) — the re-entrant part:
//!   a script calls commands, which may be EVAL's own neighbours;
//! - `convert.rs`: Lua ⇄ Redis values (`luaReplyToRedisReply()`, `redisProtocolToLuaType_*()`,
//!   `luaPushErrorBuff()`);
//! - `capi.rs`: the slice of Lua's C API the functions written in Rust use (they get the running
//!   thread's state, as C functions do);
//! - `stdlib.rs`: the Lua 5.1 library functions omnilua gets wrong, after the C; `printf.rs`:
//!   glibc's printf/strtod as they print and read Lua's numbers;
//! - Redis's Lua libraries, after deps/lua/src: `lua_cjson.rs`, `lua_cmsgpack.rs`,
//!   `lua_struct.rs`, `lua_bit.rs`.
//!
//! - `flags.rs`: the flags a script's shebang or a function declares (script.c
//!   `scripts_flags_def`);
//! - `functions.rs`: the function libraries (functions.c), loaded and run in a Lua state of
//!   their own (`Scripts::fvm`).
//!
//! The commands themselves are in command/eval.rs (EVAL, SCRIPT…) and command/functions.rs
//! (FUNCTION, FCALL).
//!
//! # The Lua VM: omnilua 0.7 in its Lua 5.1 mode
//!
//! Redis embeds PUC-Rio Lua 5.1. C Lua does not build for `wasm32-unknown-unknown` without a
//! libc, so the engine uses a pure-Rust VM. Candidates measured (2026-11) with a 235-snippet
//! battery of Lua expressions whose `type`/`tostring` results (and error messages) were recorded
//! from redis-server 7.0.15's EVAL:
//!
//! | crate | matches Redis | notes |
//! |---|---|---|
//! | **omnilua 0.7.1** (`LuaVersion::V51`) | 213 / 235 | a port of the C sources: doubles only, `%.14g` `tostring`, 5.1 error wording (`attempt to index local 't' (a nil value)`), `unpack`/`getn`/`math.mod`/`gfind`; an instruction budget and a heap ceiling that `pcall` cannot catch; no imports on wasm32 |
//! | luna-core 2.16 (`Lua51`) | 202 / 235 | 5.4 error wording, `string.rep` with a separator, no `\ddd` quirks |
//! | piccolo 0.3.3 | 70 / 235 | integers and floats (`2^53` prints `9007199254740992`), no `string.format/find/gsub/match/rep`; fuel-based stepping; pulls `getrandom` 0.2 |
//!
//! Where omnilua's library differs from Lua 5.1, the function is ours (stdlib.rs, printf.rs,
//! written against the C, as raw functions: capi.rs): `tonumber`/`tostring`, `string.format`,
//! `math.*`, `table.concat`, `unpack`, and the wording and position of library errors.
//!
//! Known gaps of the VM (checked against redis-server 7.0.15):
//! - `pairs`/`next` order over string keys differs from Lua 5.1's (the table is 5.4's, with a
//!   hash seed; natively the seed comes from the clock, so the order can change between runs;
//!   on wasm32 it is fixed). The border `#t` of a table with holes can differ too.
//! - What the VM does itself, no library function involved: `..` prints a NaN as `nan` (glibc:
//!   `-nan`); arithmetic on a string only strtod reads (`'inf' + 0`) raises; `%` is 5.4's
//!   (`-0.0 % 26` is `-0`, `4 % (1/0)` is `4`; 5.1 gives `0` and `-nan`); calling a constant
//!   says `attempt to call constant 'x'`.
//! - The base functions the read-only globals wrap in Lua (`setmetatable`, `getmetatable`,
//!   `rawget`, `rawset`, `next`, `pairs`, `pcall`, `xpcall`) skip some argument checks
//!   (`getmetatable()`, `rawget({})`, `pairs(1)` answer instead of raising), and an error they
//!   raise for a bad argument names `redisplay:N:` (and `=(tail call)` after `return f(…)`).
//! - `coroutine.wrap` does not add the position to a string error it passes on, and words a
//!   non-function argument as 5.4 does.
//! - `cjson.encode` and `cmsgpack.pack` write an object's / a map's members in that table order.
//!
//! # The busy script
//!
//! A script runs in slices (call.rs): past `busy-reply-threshold` of its virtual time (each VM
//! instruction and `redis.call` charged from cost.rs) other clients get `BUSY`, SCRIPT KILL
//! stops it unless it wrote (`UNKILLABLE`), and no timer runs until it ends. Deviations: a
//! script nobody stops is ended after `playground-script-time-limit` ms of virtual time (60 s by
//! default) with `ERR Script killed by the playground …`, keeping every write it made, as Redis
//! keeps them; a Lua heap above `MAX_HEAP` bytes (checked at every instruction and before
//! `string.rep`/`table.concat` allocate) ends it the same way. `pcall` catches neither.
//!
//! # Read-only globals
//!
//! Redis patches its Lua with read-only tables. Here the scripts' global environment is a
//! proxy (`setfenv(0, env)`): reading a missing global raises Redis's nonexistent-global error,
//! writing one raises `Attempt to modify a readonly table`; the library tables (`string`,
//! `math`, `table`, `coroutine`, `redis`) and the string metatable are proxies too, and
//! `rawset`/`rawget`/`next`/`pairs`/`getmetatable`/`setmetatable` see through them. `KEYS`
//! and `ARGV` are ordinary tables, as in Redis.

pub mod call;
pub mod capi;
pub mod convert;
pub mod flags;
pub mod functions;
pub mod lua_bit;
pub mod lua_cjson;
pub mod lua_cmsgpack;
pub mod lua_struct;
pub mod printf;
pub mod stdlib;
pub mod vm;

use std::collections::{HashMap, VecDeque};

use omnilua::Function;

use crate::reply::Reply;

use convert::internal;
pub use flags::{extract_shebang, ScriptFlags};
use vm::Vm;
pub use vm::MAX_HEAP;

/// What a script run may do (script.c `scriptRunCtx` flags).
#[derive(Debug, Clone, Copy, Default)]
pub struct RunPolicy {
    /// EVAL_RO/EVALSHA_RO, or a `no-writes` shebang (`SCRIPT_READ_ONLY`).
    pub read_only: bool,
    /// An `allow-oom` shebang (`SCRIPT_ALLOW_OOM`).
    pub allow_oom: bool,
    /// `server.pre_command_oom_state`: over maxmemory with nothing to evict when EVAL started.
    pub oom_at_start: bool,
}

/// shared.slowevalerr / shared.slowscripterr.
pub const BUSY_EVAL: &str = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
pub const BUSY_FUNCTION: &str =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";

/// What runs: an EVAL'd script (by SHA) or a function (by name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunKind {
    Eval { sha: String },
    Function { name: String },
}

impl RunKind {
    /// `run_ctx->funcname` as error messages show it.
    pub(crate) fn name(&self) -> &str {
        match self {
            RunKind::Eval { sha } => sha,
            RunKind::Function { name } => name,
        }
    }
}

/// One script run's mutable state (the part `redis.call` updates).
pub(crate) struct RunState {
    pub(crate) client: u64,
    pub(crate) policy: RunPolicy,
    /// `SCRIPT_WRITE_DIRTY`: a write command was called.
    pub(crate) wrote: bool,
    pub(crate) calls: u64,
}

/// A script between two slices (script.c `curr_run_ctx`).
pub(crate) struct Running {
    pub(crate) kind: RunKind,
    /// A function's caller's command (FUNCTION STATS); empty for EVAL.
    pub(crate) caller_argv: Vec<Vec<u8>>,
    /// The command that started it (for its statistics when it ends later).
    pub(crate) command: &'static str,
    pub(crate) thread: omnilua::Thread,
    /// The first resume's arguments: the function, KEYS and ARGV.
    pub(crate) start: Option<(Function, omnilua::Table, omnilua::Table)>,
    pub(crate) run: RunState,
    pub(crate) caller_db: Option<usize>,
    /// Its client has a placeholder reply; the real one goes to the outbox.
    pub(crate) suspended: bool,
    /// `SCRIPT_TIMEDOUT`: past busy-reply-threshold; other clients are served between slices.
    pub(crate) timed_out: bool,
    /// `SCRIPT_KILLED`.
    pub(crate) killed: bool,
    /// Virtual time spent so far, and the instructions and calls it was charged for.
    pub(crate) elapsed_ns: u64,
    pub(crate) charged_steps: u64,
    pub(crate) charged_calls: u64,
    pub(crate) threshold_ns: u64,
}

impl Running {
    pub(crate) fn client(&self) -> u64 {
        self.run.client
    }
}

/// A running script as hosts see it.
#[derive(Debug, Clone, PartialEq)]
pub struct BusyScript {
    pub client: u64,
    /// An EVAL'd script (SCRIPT KILL) or a function (FUNCTION KILL).
    pub eval: bool,
    /// Past busy-reply-threshold: other clients get BUSY.
    pub timed_out: bool,
    /// Its virtual run time so far.
    pub elapsed_ms: f64,
}

/// What one slice did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ScriptSlice {
    /// Virtual time the slice took.
    pub elapsed_ms: f64,
    /// The script ended (its reply is in its client's outbox).
    pub done: bool,
}

/// A cached script (eval.c `luaScript`).
pub struct Script {
    pub body: Vec<u8>,
    pub flags: ScriptFlags,
    pub(crate) func: Function,
}

/// The scripting state of an engine: the Lua state (created on first use, dropped by SCRIPT
/// FLUSH), the script cache and Redis's `math.random` generator (rand.c), which lives outside
/// Lua and survives SCRIPT FLUSH as a C static does.
#[derive(Default)]
pub struct Scripts {
    /// EVAL's Lua state.
    pub(crate) vm: Option<Vm>,
    /// The functions' Lua state (Redis runs them in a state of their own: SCRIPT FLUSH
    /// leaves it alone, and each has its own cjson configuration).
    pub(crate) fvm: Option<Vm>,
    /// The function libraries (functions.c `curr_functions_lib_ctx`).
    pub(crate) libs: functions::Libraries,
    pub(crate) cache: HashMap<String, Script>,
    rand48: vm::Rand48,
    /// The script running between slices (call.rs).
    pub(crate) running: Option<Box<Running>>,
    /// Commands other clients sent before it timed out, run after (call.rs).
    pub(crate) parked: VecDeque<(u64, Vec<Vec<u8>>)>,
    /// The virtual run time of the last script that ended.
    pub(crate) last_elapsed_ns: u64,
    /// serve_parked() is running.
    pub(crate) serving_parked: bool,
}

impl Scripts {
    pub fn get(&self, sha: &str) -> Option<&Script> {
        self.cache.get(sha)
    }

    pub fn len(&self) -> usize {
        self.cache.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cache.is_empty()
    }

    /// Whether `client` waits on the running script: it runs it, or sent a command while it
    /// ran (its reply comes to its outbox).
    pub fn holds(&self, client: u64) -> bool {
        self.running.as_ref().is_some_and(|r| r.suspended && r.client() == client)
            || self.parked.iter().any(|(c, _)| *c == client)
    }

    /// A script is running (between slices).
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }

    /// The BUSY error of a script that has timed out (`isInsideYieldingLongCommand()`), for the
    /// commands that check it themselves (SHUTDOWN without NOSAVE).
    pub(crate) fn timed_out_error(&self) -> Option<&'static str> {
        let r = self.running.as_ref().filter(|r| r.timed_out)?;
        Some(if matches!(r.kind, RunKind::Eval { .. }) { BUSY_EVAL } else { BUSY_FUNCTION })
    }

    /// SCRIPT FLUSH (eval.c `scriptingReset()`): forget every script and start a new Lua state.
    pub fn flush(&mut self) {
        self.cache.clear();
        self.vm = None;
    }

    /// eval.c `luaCreateFunction()`: compiles `body` (its shebang already parsed) and caches it
    /// under `sha`. A syntax error is Redis's `Error compiling script` reply.
    pub fn create(&mut self, sha: &str, body: &[u8], flags: ScriptFlags, shebang_len: usize) -> Result<(), Reply> {
        if self.cache.contains_key(sha) {
            return Ok(());
        }
        let vm = self.vm()?;
        vm.sandbox.reset();
        let compiled = vm.lua.load(&body[shebang_len..]).set_name("@user_script").into_function();
        let func = match compiled {
            Ok(f) => f,
            Err(e) => {
                let mut msg = b"ERR Error compiling script (new function): ".to_vec();
                msg.extend_from_slice(e.to_string().as_bytes());
                return Err(Reply::Error(msg));
            }
        };
        vm.prepare.call::<_, ()>(func.clone()).map_err(|e| internal(&e))?;
        self.cache.insert(sha.to_string(), Script { body: body.to_vec(), flags, func });
        Ok(())
    }

    /// The Lua state of EVAL'd scripts, or of functions.
    pub(crate) fn vm_of(&self, function: bool) -> Option<&Vm> {
        if function {
            self.fvm.as_ref()
        } else {
            self.vm.as_ref()
        }
    }

    pub(crate) fn take_vm(&mut self, function: bool) -> Option<Vm> {
        if function {
            self.fvm.take()
        } else {
            self.vm.take()
        }
    }

    /// Puts back a state a slice took (unless the slot was filled meanwhile).
    pub(crate) fn put_vm(&mut self, function: bool, vm: Vm) {
        let slot = if function { &mut self.fvm } else { &mut self.vm };
        if slot.is_none() {
            *slot = Some(vm);
        }
    }

    /// The functions' Lua state, created on first use.
    pub(crate) fn function_vm(&mut self) -> Result<&mut Vm, Reply> {
        if self.fvm.is_none() {
            self.fvm = Some(Vm::new(self.rand48.clone()).map_err(|e| internal(&e))?);
        }
        self.fvm.as_mut().ok_or_else(|| Reply::err("ERR scripting is unavailable"))
    }

    fn vm(&mut self) -> Result<&mut Vm, Reply> {
        if self.vm.is_none() {
            self.vm = Some(Vm::new(self.rand48.clone()).map_err(|e| internal(&e))?);
        }
        self.vm.as_mut().ok_or_else(|| Reply::err("ERR scripting is unavailable"))
    }
}
