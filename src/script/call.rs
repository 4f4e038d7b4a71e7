//! Running a script: models script_lua.c `luaCallFunction()` and `luaRedisGenericCommand()`,
//! and script.c `scriptCall()` with its checks — `scriptVerifyCommandArity()`, the `noscript`
//! flag, `scriptVerifyACL()`, `scriptVerifyWriteCommandAllow()`, `scriptVerifyOOM()`. This is where Redis is
//! re-entrant: EVAL runs a script, whose `redis.call` runs a command through `call()`.
//!
//! Bounded execution (a deviation) is described in mod.rs.

use std::cell::Cell;
use std::rc::Rc;

use omnilua::{Lua, Value, Variadic};

use crate::command::call::Command;
use crate::command::table::table;
use crate::engine::{ClientId, Engine};
use crate::reply::Reply;

use super::convert::{
    error_reply_from_lua, error_table, is_counted, lua_args_to_argv, lua_string_bytes, lua_to_reply, mark_counted,
    raise, raise_counted, reply_to_lua, reply_to_lua3, string_array,
};
use super::vm::{MAX_CALLS, MAX_HEAP, MAX_STEPS};
use super::RunPolicy;

/// One script run's mutable state.
struct RunState {
    client: ClientId,
    policy: RunPolicy,
    /// `SCRIPT_WRITE_DIRTY`: a write command was called.
    wrote: bool,
    calls: u64,
    /// The script client's protocol (`redis.setresp`).
    resp: Rc<Cell<u8>>,
}

impl Engine {
    /// eval.c `evalGenericCommand()` after the script is found: runs `sha` (already cached) for
    /// `client` with `keys`/`args` and converts its result (script_lua.c `luaCallFunction()`).
    pub(crate) fn run_script(
        &mut self,
        client: ClientId,
        sha: &str,
        keys: &[Vec<u8>],
        args: &[Vec<u8>],
        policy: RunPolicy,
    ) -> Reply {
        let Some(func) = self.scripts.cache.get(sha).map(|s| s.func.clone()) else {
            return Reply::err("NOSCRIPT No matching script. Please use EVAL.");
        };
        // The Lua state leaves the engine while the script runs, so redis.call can borrow it.
        let Some(vm) = self.scripts.vm.take() else {
            return Reply::err("NOSCRIPT No matching script. Please use EVAL.");
        };
        let caller_db = self.client_db(client);
        let outer_in_script = std::mem::replace(&mut self.in_script, true);
        vm.sandbox.reset();
        // "Default is RESP2, scripts can change it" (luaCallFunction).
        vm.resp.set(2);
        let mut run = RunState { client, policy, wrote: false, calls: 0, resp: vm.resp.clone() };
        let lua = &vm.lua;
        let result: omnilua::Result<(bool, Value)> = lua.scope(|scope| {
            let keys = string_array(lua, keys)?;
            let args = string_array(lua, args)?;
            // redis.call and redis.pcall share the engine and the run state.
            let shared = std::cell::RefCell::new((&mut *self, &mut run));
            let shared = &shared;
            let call = scope.create_function(lua, move |lua, a: Variadic<Value>| {
                let mut guard = shared.borrow_mut();
                let (engine, run) = &mut *guard;
                let (reply, is_error) = engine.script_command(lua, &a, run)?;
                if is_error {
                    let msg = match &reply {
                        Value::Table(t) => lua_string_bytes(&t.get::<_, Value>("err")?).unwrap_or_default(),
                        _ => vec![],
                    };
                    return Err(if is_counted(&reply) { raise_counted(&msg) } else { raise(&msg) });
                }
                Ok(reply)
            })?;
            let pcall = scope.create_function(lua, move |lua, a: Variadic<Value>| {
                let mut guard = shared.borrow_mut();
                let (engine, run) = &mut *guard;
                Ok(engine.script_command(lua, &a, run)?.0)
            })?;
            // script_lua.c luaRedisAclCheckCmdPermissionsCommand(): lookupCommand() (no arity
            // check), then the caller's user's permissions.
            let acl_check_cmd = scope.create_function(lua, move |_, a: Variadic<Value>| {
                let argv = lua_args_to_argv(&a).map_err(|m| raise(m.as_bytes()))?;
                match resolve(&argv) {
                    Resolved::Found(cmd) | Resolved::BadArity(cmd) => {
                        let guard = shared.borrow();
                        let (engine, run) = &*guard;
                        Ok(engine.acl_check(run.client, cmd, &argv).is_ok())
                    }
                    Resolved::Unknown => Err(raise(b"ERR Invalid command passed to redis.acl_check_cmd()")),
                }
            })?;
            let mut run_args = Variadic::new();
            run_args.extend([
                Value::Function(func),
                Value::Table(keys),
                Value::Table(args),
                Value::Function(call),
                Value::Function(pcall),
                Value::Function(acl_check_cmd),
            ]);
            vm.run.call::<_, (bool, Value)>(run_args)
        });
        // SELECT inside a script changes the script's db, not the caller's.
        if let (Some(db), Some(c)) = (caller_db, self.clients.get_mut(&client)) {
            c.db = db;
        }
        self.in_script = outer_in_script;
        let tripped = vm.sandbox.tripped();
        if tripped.is_some() {
            // What the stopped script left behind (a doubled string…) goes now, not later.
            vm.lua.gc_collect();
        }
        // An error the script got from redis.call/pcall was counted when the command failed.
        let counted = matches!(&result, Ok((_, v)) if is_counted(v));
        let reply = match result {
            Ok((true, value)) => lua_to_reply(&value, 0, vm.resp.get()),
            Ok((false, err)) => error_reply_from_lua(&err, sha),
            Err(e) => match tripped {
                Some(omnilua::TripReason::Instructions) => Reply::Error(
                    format!(
                        "ERR Script killed by the playground after {MAX_STEPS} Lua steps (Redis would run it on and answer other clients BUSY until SCRIPT KILL)"
                    )
                    .into_bytes(),
                ),
                Some(omnilua::TripReason::Memory) => Reply::Error(
                    format!("ERR Script killed by the playground: its Lua heap passed {} MB", MAX_HEAP >> 20).into_bytes(),
                ),
                None => Reply::Error(format!("ERR Error running script {sha}, {:.100}", e.to_string()).into_bytes()),
            },
        };
        vm.sandbox.reset();
        if self.scripts.vm.is_none() {
            self.scripts.vm = Some(vm);
        }
        if counted && reply.is_error() {
            self.error_already_counted = true;
        }
        reply
    }

    /// script_lua.c `luaRedisGenericCommand()` + script.c `scriptCall()`: one `redis.call` or
    /// `redis.pcall`. Returns the Lua value and whether it is an error.
    fn script_command(&mut self, lua: &Lua, args: &[Value], run: &mut RunState) -> omnilua::Result<(Value, bool)> {
        let argv = match lua_args_to_argv(args) {
            Ok(argv) => argv,
            Err(msg) => return Ok((error_table(lua, &msg)?, true)),
        };
        run.calls += 1;
        if run.calls > MAX_CALLS {
            let msg = format!("ERR Script stopped by the playground after {MAX_CALLS} redis.call()s");
            return Ok((error_table(lua, &msg)?, true));
        }
        let reply = match self.call_from_script(&argv, run) {
            Ok(cmd) => self.call(run.client, cmd, &argv),
            Err(msg) => {
                // script.c scriptCall(): its own refusals are counted as error replies.
                self.count_error_reply(msg.as_bytes());
                let t = error_table(lua, &msg)?;
                mark_counted(&t);
                return Ok((t, true));
            }
        };
        let is_error = reply.is_error();
        let value = if run.resp.get() >= 3 { reply_to_lua3(lua, &reply)? } else { reply_to_lua(lua, &reply)? };
        if is_error {
            mark_counted(&value);
        }
        Ok((value, is_error))
    }

    /// script.c `scriptCall()`'s checks before `call()`: the command exists with a valid arity,
    /// may run from scripts, may write (read-only scripts) and may grow memory (OOM when the
    /// script started and has not written yet). Returns the command to run, or the error
    /// message (with its code) the script sees.
    fn call_from_script(&mut self, argv: &[Vec<u8>], run: &mut RunState) -> Result<&'static Command, String> {
        let cmd = match resolve(argv) {
            Resolved::Found(cmd) => cmd,
            Resolved::Unknown => return Err("ERR Unknown Redis command called from script".into()),
            Resolved::BadArity(cmd) => {
                self.reject_from_script(cmd);
                return Err("ERR Wrong number of args calling Redis command from script".into());
            }
        };
        if cmd.has_flag("noscript") {
            self.reject_from_script(cmd);
            return Err("ERR This Redis command is not allowed from script".into());
        }
        // scriptVerifyACL(): the caller's user's permissions, logged in the "lua" context.
        if let Err(denied) = self.acl_check(run.client, cmd, argv) {
            self.acl_log_denied(run.client, cmd, argv, denied, crate::acl::Context::Lua);
            self.reject_from_script(cmd);
            return Err(crate::command::acl::noperm_in_script(denied).into());
        }
        let writes = cmd.has_flag("write");
        if run.policy.read_only && (writes || may_replicate(cmd)) {
            self.reject_from_script(cmd);
            return Err("ERR Write commands are not allowed from read-only scripts.".into());
        }
        if !run.policy.allow_oom
            && run.policy.oom_at_start
            && !run.wrote
            && self.hot.maxmemory != 0
            && cmd.has_flag("denyoom")
        {
            self.reject_from_script(cmd);
            return Err("OOM command not allowed when used memory > 'maxmemory'.".into());
        }
        if writes {
            run.wrote = true;
        }
        Ok(cmd)
    }

    fn reject_from_script(&mut self, cmd: &'static Command) {
        self.stats.commands.entry(cmd.name.as_str()).or_default().rejected_calls += 1;
    }
}

/// `CMD_MAY_REPLICATE`, which 7.0's COMMAND INFO doesn't list: commands that may propagate
/// though they don't write a key (commands/*.json `MAY_REPLICATE`).
fn may_replicate(cmd: &Command) -> bool {
    cmd.has_flag("may_replicate") || matches!(cmd.name.as_str(), "publish" | "spublish" | "pfcount")
}

enum Resolved {
    Found(&'static Command),
    Unknown,
    BadArity(&'static Command),
}

/// server.c `lookupCommand()` + script.c `scriptVerifyCommandArity()`: a container called with
/// no subcommand is itself the command (and fails the arity check); an unknown subcommand is
/// an unknown command.
fn resolve(argv: &[Vec<u8>]) -> Resolved {
    let Some(base) = argv.first().and_then(|name| table().get(name)) else {
        return Resolved::Unknown;
    };
    let cmd = if base.is_container() && argv.len() > 1 {
        match base.subcommand(&argv[1]) {
            Some(sub) => sub,
            None => return Resolved::Unknown,
        }
    } else {
        base
    };
    let argc = argv.len() as i64;
    if (cmd.arity > 0 && cmd.arity != argc) || argc < -cmd.arity {
        return Resolved::BadArity(cmd);
    }
    Resolved::Found(cmd)
}
