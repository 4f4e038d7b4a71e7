//! Running a script: models script_lua.c `luaCallFunction()` and `luaRedisGenericCommand()`,
//! script.c `scriptCall()` with its checks — `scriptVerifyCommandArity()`, the `noscript`
//! flag, `scriptVerifyACL()`, `scriptVerifyWriteCommandAllow()`, `scriptVerifyOOM()` — and the
//! busy script:
//! script.c `scriptInterrupt()` (past `busy-reply-threshold` the script is timed out and other
//! clients are served between its slices), `scriptKill()`, and server.c `processCommand()`'s
//! BUSY rule. This is where Redis is re-entrant: EVAL runs a script, whose `redis.call` runs a
//! command through `call()`.
//!
//! A script runs in slices (a coroutine the count hook yields, vm.rs). EVAL/FCALL runs the
//! first slice inside the command; a script still running after it is *suspended*: its
//! client waits (`Engine::is_blocked`) and gets the reply in its outbox when the script ends,
//! and the host runs further slices with `Engine::run_script_slice`. Time in a script is
//! virtual: each VM instruction and each `redis.call` is charged from the cost model
//! (cost.rs), so when a script times out depends only on the script.
//!
//! While a suspended script has not timed out, Redis reads nothing from other clients: a
//! command another client sends then is parked and run when the script times out (it gets
//! BUSY, or runs if it may: SCRIPT KILL, FUNCTION KILL, …) or ends. Once timed out, commands
//! without the `allow_busy` flag are refused with BUSY (EXEC with EXECABORT).
//!
//! Differences: a script inside MULTI/EXEC runs to its end within EXEC (no slices, no BUSY);
//! a script's own coroutines are not sliced (they count toward its time and can be killed);
//! SHUTDOWN NOSAVE is not available (the playground has no process to end); a script nobody
//! kills is ended by the playground after `playground-script-time-limit` ms of virtual time,
//! keeping every write it made, as Redis keeps a script's writes.

use omnilua::{Function, Table, Thread, Value, Variadic};

use crate::command::call::{sanitize, Command};
use crate::command::table::table;
use crate::cost;
use crate::engine::{ClientId, Engine};
use crate::reply::Reply;

use super::convert::{error_reply_from_lua, internal, is_counted, lua_string_bytes, lua_to_reply, string_array};
use super::vm::{Request, Response, Vm, ENGINE_IMPL, MAX_HEAP};
use super::{BusyScript, RunKind, RunPolicy, RunState, Running, ScriptSlice};

/// Steps a script runs inside the command that starts it before it is suspended (25 ms of its
/// virtual time; hosts run the rest in slices): small, so that an endless script typed in the
/// page doesn't hold the tab for long before the page's slices take over.
pub const FIRST_SLICE_STEPS: u64 = 1_000_000;

pub use super::{BUSY_EVAL, BUSY_FUNCTION};

/// What EVAL or FCALL asks to run.
pub(crate) struct Invocation<'a> {
    pub func: Function,
    pub kind: RunKind,
    /// The command's name (its statistics count a late error reply).
    pub command: &'static str,
    pub keys: &'a [Vec<u8>],
    pub args: &'a [Vec<u8>],
    /// The caller's whole command (FUNCTION STATS shows a running function's).
    pub argv: &'a [Vec<u8>],
}

impl Engine {
    /// Starts `func` for `client` (eval.c `evalGenericCommand()` / fcall) and runs its first
    /// slice. Returns the script's reply, or — when it is still running — a placeholder: the
    /// client then waits and the reply arrives in its outbox.
    pub(crate) fn run_script(&mut self, client: ClientId, what: Invocation, policy: RunPolicy) -> Reply {
        let Invocation { func, kind, command, keys, args, argv } = what;
        if self.scripts.running.is_some() {
            return Reply::err(BUSY_EVAL);
        }
        let function = matches!(kind, RunKind::Function { .. });
        let Some(vm) = self.scripts.vm_of(function) else {
            return Reply::err("NOSCRIPT No matching script. Please use EVAL.");
        };
        let started = (|| -> omnilua::Result<(Thread, Table, Table)> {
            let thread = vm.lua.create_thread(if function { vm.fbody.clone() } else { vm.body.clone() })?;
            Ok((thread, string_array(&vm.lua, keys)?, string_array(&vm.lua, args)?))
        })();
        let (thread, keys, args) = match started {
            Ok(t) => t,
            Err(e) => return internal(&e),
        };
        vm.sandbox.reset();
        vm.control.steps.set(0);
        let step_ns = cost::scaled(cost::LUA_STEP_NS, self.hot.cost_percent).max(1);
        let limit_ms = self.config.int("playground-script-time-limit").max(1) as u64;
        let limit_steps = limit_ms.saturating_mul(1_000_000) / step_ns;
        if let Err(e) = vm.ctl.call::<_, ()>(("limit", limit_steps as f64)) {
            return internal(&e);
        }
        // "Default is RESP2, scripts can change it" (luaCallFunction).
        vm.control.resp.set(2);
        let threshold_ns = (self.config.int("busy-reply-threshold").max(0) as u64).saturating_mul(1_000_000);
        let run = RunState { client, policy, wrote: false, calls: 0 };
        let caller_argv = if function { argv.to_vec() } else { Vec::new() };
        self.scripts.running = Some(Box::new(Running {
            kind,
            caller_argv,
            command,
            thread,
            start: Some((func, keys, args)),
            run,
            caller_db: self.client_db(client),
            suspended: false,
            timed_out: false,
            killed: false,
            elapsed_ns: 0,
            charged_steps: 0,
            charged_calls: 0,
            threshold_ns,
        }));
        // Inside MULTI/EXEC the script runs to its end: EXEC can't be suspended.
        let in_exec = self.clients.get(&client).is_some_and(|c| c.in_multi);
        let budget = if in_exec { u64::MAX } else { FIRST_SLICE_STEPS };
        match self.script_slice(budget) {
            Some(reply) => reply,
            None => {
                if let Some(r) = self.scripts.running.as_mut() {
                    r.suspended = true;
                }
                Reply::Array(vec![])
            }
        }
    }

    /// The script running now, if any (hosts: keep running slices while there is one).
    pub fn busy_script(&self) -> Option<BusyScript> {
        let r = self.scripts.running.as_ref()?;
        Some(BusyScript {
            client: r.run.client,
            eval: matches!(r.kind, RunKind::Eval { .. }),
            timed_out: r.timed_out,
            elapsed_ms: r.elapsed_ns as f64 / 1e6,
        })
    }

    /// Runs the suspended script for up to `max_steps` VM instructions (hosts call this
    /// between frames or event-loop iterations). When it times out or ends, the commands other
    /// clients sent meanwhile run (BUSY, or the reply when it ended); when it ends, its reply
    /// goes to its client's outbox.
    pub fn run_script_slice(&mut self, max_steps: u64) -> ScriptSlice {
        let Some(before) = self.scripts.running.as_ref().map(|r| r.elapsed_ns) else {
            return ScriptSlice { elapsed_ms: 0.0, done: true };
        };
        let ended = self.script_slice(max_steps.max(1));
        let after = self.scripts.running.as_ref().map(|r| r.elapsed_ns);
        let done = ended.is_some();
        let elapsed = match (&ended, after) {
            (Some(_), _) => self.scripts.last_elapsed_ns.saturating_sub(before),
            (None, Some(a)) => a.saturating_sub(before),
            (None, None) => 0,
        };
        self.serve_parked();
        ScriptSlice { elapsed_ms: elapsed as f64 / 1e6, done }
    }

    /// One slice: resumes the script until it yields at `max_steps` (or at the busy
    /// threshold) or ends. Returns its reply when it ended — and when it had been suspended,
    /// that reply has gone to its client's outbox.
    fn script_slice(&mut self, max_steps: u64) -> Option<Reply> {
        let mut r = self.scripts.running.take()?;
        let function = matches!(r.kind, RunKind::Function { .. });
        let Some(vm) = self.scripts.take_vm(function) else {
            return Some(Reply::err("ERR scripting is unavailable"));
        };
        let step_ns = cost::scaled(cost::LUA_STEP_NS, self.hot.cost_percent).max(1);
        let call_ns = cost::scaled(cost::SCRIPT_CALL_NS, self.hot.cost_percent);
        let steps = vm.control.steps.get();
        let mut yield_at = steps.saturating_add(max_steps);
        // u64::MAX: run to the end (inside EXEC), no slice and no BUSY.
        if !r.timed_out && max_steps != u64::MAX {
            let to_threshold = r.threshold_ns.saturating_sub(r.elapsed_ns) / step_ns;
            yield_at = yield_at.min(steps.saturating_add(to_threshold.max(1)));
        }
        vm.control.yield_at.set(yield_at);
        let outer_in_script = std::mem::replace(&mut self.in_script, true);
        let result = self.resume(&vm, &mut r);
        self.in_script = outer_in_script;
        // Charge what the slice did (every thread's instructions, the calls).
        let used = vm.sandbox.instructions_used().unwrap_or(0);
        // A kill (between slices) emptied the budget: the script ran one more instruction.
        let used = if r.killed { used.min(r.charged_steps.saturating_add(1)) } else { used };
        let (d_steps, d_calls) = (used.saturating_sub(r.charged_steps), r.run.calls - r.charged_calls);
        r.charged_steps = used;
        r.charged_calls = r.run.calls;
        r.elapsed_ns = r.elapsed_ns.saturating_add(d_steps * step_ns).saturating_add(d_calls * call_ns);
        match result {
            Ok(None) => {
                if !r.timed_out && r.elapsed_ns >= r.threshold_ns {
                    r.timed_out = true;
                }
                self.scripts.put_vm(function, vm);
                self.scripts.running = Some(r);
                None
            }
            ended => {
                // A stopped script's thread holds what it built (a doubled string…): it goes
                // now, not later, before the next script's budget starts.
                let tripped = vm.sandbox.tripped().is_some();
                // An error the script got from redis.call/pcall was counted when it failed.
                let counted = matches!(&ended, Ok(Some((_, v))) if is_counted(v));
                let reply = self.end_script(&vm, &r, ended);
                self.scripts.last_elapsed_ns = r.elapsed_ns;
                if r.suspended {
                    // The script's effects go out now (propagatePendingCommands()).
                    self.prop.flush_pending();
                    self.trace_propagated(|| Some("a script that ran past its first slice".into()));
                    self.deliver(&r, reply.clone(), counted);
                } else if counted && reply.is_error() {
                    // EVAL/FCALL's call() does not count it again.
                    self.error_already_counted = true;
                }
                drop(r);
                if tripped {
                    vm.lua.gc_collect();
                }
                vm.sandbox.reset();
                self.scripts.put_vm(function, vm);
                Some(reply)
            }
        }
    }

    /// Resumes the script's coroutine with this slice's `redis.call` implementation:
    /// `Ok(None)` when it yielded, `Ok(Some((ok, value)))` when its body returned.
    fn resume(&mut self, vm: &Vm, r: &mut Running) -> omnilua::Result<Option<(bool, Value)>> {
        let lua = &vm.lua;
        let start = r.start.take();
        let thread = r.thread.clone();
        let run = &mut r.run;
        lua.scope(|scope| {
            // redis.call, redis.pcall and redis.acl_check_cmd leave their request in
            // `control`; this runs it and leaves the answer there (nothing is allocated in Lua:
            // the raw functions convert on the script's own stack).
            let control = vm.control.clone();
            let engine = scope.create_function_mut(lua, move |_, ()| {
                let request = control.request.borrow_mut().take();
                let response = match request {
                    Some(Request::Call(argv)) => self.script_command(&argv, run),
                    // script_lua.c luaRedisAclCheckCmdPermissionsCommand(): lookupCommand() (no
                    // arity check), then the caller's user's permissions.
                    Some(Request::AclCheck(argv)) => match resolve(&argv) {
                        Resolved::Found(cmd) | Resolved::BadArity(cmd) => {
                            Response::Permitted(self.acl_check(run.client, cmd, &argv).is_ok())
                        }
                        Resolved::Unknown => {
                            Response::Refused("ERR Invalid command passed to redis.acl_check_cmd()".into())
                        }
                    },
                    None => Response::Refused("ERR no request".into()),
                };
                *control.response.borrow_mut() = Some(response);
                Ok(())
            })?;
            lua.set_named_registry_value(ENGINE_IMPL, engine)?;
            let result = match start {
                Some((f, keys, args)) => {
                    let mut a = Variadic::new();
                    a.extend([Value::Thread(thread), Value::Function(f), Value::Table(keys), Value::Table(args)]);
                    vm.step.call::<_, Variadic<Value>>(a)
                }
                None => vm.step.call::<_, Variadic<Value>>(Value::Thread(thread)),
            };
            lua.unset_named_registry_value(ENGINE_IMPL)?;
            let mut it = result?.into_vec().into_iter();
            let what = it.next().and_then(|v| lua_string_bytes(&v)).unwrap_or_default();
            let value = it.next().unwrap_or(Value::Nil);
            match what.as_slice() {
                b"yield" => Ok(None),
                b"done" => Ok(Some((true, value))),
                _ => Ok(Some((false, value))),
            }
        })
    }

    /// The reply of a script that ended (luaCallFunction()'s conversion, or why it was
    /// stopped), with the client's db restored and what the stop left behind collected.
    fn end_script(&mut self, vm: &Vm, r: &Running, result: omnilua::Result<Option<(bool, Value)>>) -> Reply {
        // SELECT inside a script changes the script's db, not the caller's.
        if let (Some(db), Some(c)) = (r.caller_db, self.clients.get_mut(&r.run.client)) {
            c.db = db;
        }
        let name = r.kind.name();
        let tripped = vm.sandbox.tripped();
        let reply = match result {
            Ok(Some((true, value))) => lua_to_reply(&value, 0, vm.control.resp.get()),
            Ok(Some((false, err))) => error_reply_from_lua(&err, name),
            Ok(None) => Reply::err("ERR scripting engine error: the script did not end"),
            Err(e) => {
                let reply = if r.killed {
                    // luaMaskCountHook(): the error the kill raised, at the line it stopped on
                    // (read with a refilled budget: the kill emptied it).
                    vm.sandbox.reset();
                    let (source, line) = vm
                        .locate
                        .call::<_, (Value, Value)>(Value::Thread(r.thread.clone()))
                        .ok()
                        .map(|(s, l)| (lua_string_bytes(&s), l))
                        .unwrap_or((None, Value::Nil));
                    let line = match line {
                        Value::Number(n) => n as i64,
                        Value::Integer(n) => n,
                        _ => -1,
                    };
                    let mut msg =
                        format!("ERR Script killed by user with SCRIPT KILL... script: {name}, on ").into_bytes();
                    msg.extend(source.unwrap_or_else(|| b"?".to_vec()));
                    msg.extend(format!(":{line}.").into_bytes());
                    Reply::Error(msg)
                } else {
                    match tripped {
                        Some(omnilua::TripReason::Instructions) => Reply::Error(
                            format!(
                                "ERR Script killed by the playground after {} ms of its virtual time (playground-script-time-limit); Redis would run it on, answering other clients BUSY until SCRIPT KILL or SHUTDOWN NOSAVE",
                                r.elapsed_ns / 1_000_000
                            )
                            .into_bytes(),
                        ),
                        Some(omnilua::TripReason::Memory) => Reply::Error(
                            format!("ERR Script killed by the playground: its Lua heap passed {} MB", MAX_HEAP >> 20)
                                .into_bytes(),
                        ),
                        None => Reply::Error(format!("ERR Error running script {name}, {:.100}", e.to_string()).into_bytes()),
                    }
                };
                reply
            }
        };
        match reply {
            Reply::Error(msg) => Reply::Error(sanitize(msg)),
            other => other,
        }
    }

    /// A suspended script's reply reaches its client, counted as call() would have (an error
    /// `counted` already is not counted again in INFO errorstats).
    fn deliver(&mut self, r: &Running, reply: Reply, counted: bool) {
        if let Reply::Error(msg) = &reply {
            self.stats.command(r.command).failed_calls += 1;
            if !counted {
                self.count_error_reply(msg);
            }
        }
        if let Some(c) = self.clients.get_mut(&r.run.client) {
            c.outbox.push_back(reply);
        }
    }

    /// script.c `scriptKill()`: SCRIPT KILL (`eval`) or FUNCTION KILL.
    pub(crate) fn kill_script(&mut self, eval: bool) -> Reply {
        let Some(r) = self.scripts.running.as_mut() else {
            return Reply::err("NOTBUSY No scripts in execution right now.");
        };
        if r.run.wrote {
            return Reply::err(
                "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.",
            );
        }
        let is_eval = matches!(r.kind, RunKind::Eval { .. });
        if eval && !is_eval {
            return Reply::err(BUSY_FUNCTION);
        }
        if !eval && is_eval {
            return Reply::err(BUSY_EVAL);
        }
        r.killed = true;
        // The next instruction, on any of the script's threads, ends it.
        if let Some(vm) = self.scripts.vm_of(!is_eval) {
            let _ = vm.ctl.call::<_, ()>(("kill", 0.0));
        }
        Reply::ok()
    }

    /// Whether `client`'s command waits for the running script: every client's while it has
    /// not timed out, its own client's always.
    pub(crate) fn must_wait_for_script(&self, client: ClientId) -> bool {
        self.scripts.running.as_ref().is_some_and(|r| !r.timed_out || r.run.client == client)
    }

    /// server.c `processCommand()`'s BUSY rule, for a command of another client while a
    /// timed-out script runs: the error it gets, if any.
    pub(crate) fn busy_error(&self, cmd: &Command) -> Option<&'static str> {
        let r = self.scripts.running.as_ref()?;
        if !r.timed_out || cmd.has_flag("allow_busy") {
            return None;
        }
        Some(if matches!(r.kind, RunKind::Eval { .. }) { BUSY_EVAL } else { BUSY_FUNCTION })
    }

    /// Runs the commands parked while the script had not timed out, in arrival order, each
    /// reply to its client's outbox — while no script holds them back.
    pub(crate) fn serve_parked(&mut self) {
        // One loop at a time (the commands it runs end in after_command(), which calls this).
        if std::mem::replace(&mut self.scripts.serving_parked, true) {
            return;
        }
        self.serve_parked_loop();
        self.scripts.serving_parked = false;
    }

    fn serve_parked_loop(&mut self) {
        while let Some((client, argv)) = self.scripts.parked.pop_front() {
            if self.must_wait_for_script(client) {
                self.scripts.parked.push_front((client, argv));
                return;
            }
            if !self.clients.contains_key(&client) {
                continue;
            }
            let reply = self.execute(client, &argv);
            // Its reply, unless the command blocked or started a script that now runs.
            let waits = self.clients.get(&client).is_some_and(|c| c.blocked.is_some())
                || self.scripts.running.as_ref().is_some_and(|r| r.suspended && r.client() == client);
            if !waits {
                if let Some(c) = self.clients.get_mut(&client) {
                    c.outbox.push_back(reply);
                }
            }
        }
    }

    /// script_lua.c `luaRedisGenericCommand()` + script.c `scriptCall()`: one `redis.call` or
    /// `redis.pcall`.
    fn script_command(&mut self, argv: &[Vec<u8>], run: &mut RunState) -> Response {
        run.calls += 1;
        match self.call_from_script(argv, run) {
            Ok(cmd) => Response::Reply(self.call(run.client, cmd, argv)),
            Err(msg) => {
                // script.c scriptCall(): its own refusals are counted as error replies.
                self.count_error_reply(msg.as_bytes());
                Response::Refused(msg)
            }
        }
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
        // scriptVerifyWriteCommandAllow(): no write on a read-only replica (until the script
        // has written: then it can't fail half way), unless the script's caller is the master.
        if writes
            && !run.wrote
            && self.is_replica()
            && self.config.bool("replica-read-only")
            && !self.is_master_client(run.client)
        {
            self.reject_from_script(cmd);
            return Err("READONLY You can't write against a read only replica.".into());
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
        self.stats.command(cmd.name.as_str()).rejected_calls += 1;
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
