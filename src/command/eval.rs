//! EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT — eval.c (`evalGenericCommand()`,
//! `evalShaCommand()`, `scriptCommand()`, `luaCreateFunction()`) and script.c
//! (`scriptPrepareForRun()`). The Lua state, the conversions and `redis.call` are in
//! ../script/.
//!
//! A script that runs long is suspended between slices (script/call.rs): SCRIPT KILL stops it.
//! Difference: SCRIPT DEBUG YES/SYNC (the Lua debugger, LDB) is refused.

use crate::engine::Engine;
use crate::reply::Reply;
use crate::script::call::Invocation;
use crate::script::{extract_shebang, RunKind, RunPolicy, ScriptFlags};
use crate::util::sha1hex;

use super::call::Call;
use super::{is_opt, parse_i64};

const NOSCRIPT: &str = "NOSCRIPT No matching script. Please use EVAL.";
pub(super) const OOM: &str = "OOM command not allowed when used memory > 'maxmemory'.";

/// `EVAL script numkeys [key …] [arg …]`
pub fn eval(e: &mut Engine, c: &Call) -> Reply {
    eval_generic(e, c, false, false)
}

/// `EVALSHA sha1 numkeys [key …] [arg …]`
pub fn evalsha(e: &mut Engine, c: &Call) -> Reply {
    eval_generic(e, c, true, false)
}

/// `EVAL_RO script numkeys [key …] [arg …]`: write commands inside fail.
pub fn eval_ro(e: &mut Engine, c: &Call) -> Reply {
    eval_generic(e, c, false, true)
}

/// `EVALSHA_RO sha1 numkeys [key …] [arg …]`
pub fn evalsha_ro(e: &mut Engine, c: &Call) -> Reply {
    eval_generic(e, c, true, true)
}

/// server.c `processCommand()`'s OOM state for this command (`server.pre_command_oom_state`):
/// still over maxmemory after the eviction that ran before it.
pub(super) fn oom_state(e: &Engine) -> bool {
    e.hot.maxmemory != 0 && e.used_memory() > e.hot.maxmemory as u64
}

fn eval_generic(e: &mut Engine, c: &Call, evalsha: bool, ro: bool) -> Reply {
    let script = c.arg(1);
    // evalShaCommand(): a SHA of the wrong length can't match anything.
    if evalsha && script.len() != 40 {
        return Reply::err(NOSCRIPT);
    }
    let sha = if evalsha { String::from_utf8_lossy(script).to_ascii_lowercase() } else { sha1hex(script) };
    let oom = oom_state(e);
    // processCommand() with evalGetCommandFlags(): a script declaring flags that may write and
    // lacks allow-oom is a denyoom command.
    if oom {
        let flags = match e.scripts.get(&sha) {
            Some(s) => Some(s.flags),
            None if !evalsha => extract_shebang(script).ok().map(|(f, _)| f),
            None => None,
        };
        if flags.is_some_and(|f| f.shebang && !f.allow_oom && !f.no_writes) {
            return Reply::err(OOM);
        }
    }
    let numkeys = match parse_i64(c.arg(2)) {
        Ok(n) => n,
        Err(r) => return r,
    };
    if numkeys > c.argc() as i64 - 3 {
        return Reply::err("ERR Number of keys can't be greater than number of args");
    }
    if numkeys < 0 {
        return Reply::err("ERR Number of keys can't be negative");
    }
    if e.scripts.get(&sha).is_none() {
        if evalsha {
            return Reply::err(NOSCRIPT);
        }
        if let Err(r) = create(e, &sha, script) {
            return r;
        }
    }
    let Some(flags) = e.scripts.get(&sha).map(|s| s.flags) else {
        return Reply::err(NOSCRIPT);
    };
    let policy = match prepare_run(flags, ro, oom) {
        Ok(p) => p,
        Err(r) => return r,
    };
    let first_arg = 3 + numkeys as usize;
    let Some(func) = e.scripts.get(&sha).map(|s| s.func.clone()) else {
        return Reply::err(NOSCRIPT);
    };
    let command = c.cmd.name.as_str();
    let what = Invocation {
        func,
        kind: RunKind::Eval { sha },
        command,
        keys: &c.argv[3..first_arg],
        args: &c.argv[first_arg..],
        argv: c.argv,
    };
    e.run_script(c.client, what, policy)
}

/// script.c `scriptPrepareForRun()`'s checks of a script's flags (EVAL's with a shebang, or a
/// function's), and what the run may then do.
pub(super) fn prepare_run(flags: ScriptFlags, ro: bool, oom: bool) -> Result<RunPolicy, Reply> {
    if flags.shebang && !flags.no_writes && ro {
        return Err(Reply::err("ERR Can not execute a script with write flag using *_ro command."));
    }
    if flags.shebang && oom && !flags.allow_oom && !flags.no_writes {
        return Err(Reply::err(
            "OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'",
        ));
    }
    Ok(RunPolicy {
        read_only: ro || (flags.shebang && flags.no_writes),
        allow_oom: flags.shebang && flags.allow_oom,
        oom_at_start: oom,
    })
}

/// eval.c `luaCreateFunction()`: the shebang, then the compiled body, cached by SHA.
fn create(e: &mut Engine, sha: &str, body: &[u8]) -> Result<(), Reply> {
    let (flags, shebang_len) = extract_shebang(body)?;
    e.scripts.create(sha, body, flags, shebang_len)
}

/// `SCRIPT LOAD script`
pub fn script_load(e: &mut Engine, c: &Call) -> Reply {
    let body = c.arg(2);
    let sha = sha1hex(body);
    match create(e, &sha, body) {
        Ok(()) => Reply::bulk(sha),
        Err(r) => r,
    }
}

/// `SCRIPT EXISTS sha1 [sha1 …]`: SHAs compare case-insensitively.
pub fn script_exists(e: &mut Engine, c: &Call) -> Reply {
    Reply::Array(
        c.argv[2..]
            .iter()
            .map(|sha| {
                Reply::Integer(e.scripts.get(&String::from_utf8_lossy(sha).to_ascii_lowercase()).is_some() as i64)
            })
            .collect(),
    )
}

/// `SCRIPT FLUSH [ASYNC|SYNC]`: forgets every script and starts a new Lua state.
pub fn script_flush(e: &mut Engine, c: &Call) -> Reply {
    let valid = c.argc() == 2 || (c.argc() == 3 && (is_opt(c.arg(2), "sync") || is_opt(c.arg(2), "async")));
    if !valid {
        return Reply::err("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    }
    e.scripts.flush();
    Reply::ok()
}

/// `SCRIPT KILL` (script.c `scriptKill()`): stops a running script that has not written.
pub fn script_kill(e: &mut Engine, _c: &Call) -> Reply {
    e.kill_script(true)
}

/// `SCRIPT DEBUG YES|SYNC|NO`: NO is accepted; the debugger itself is not modelled.
pub fn script_debug(e: &mut Engine, c: &Call) -> Reply {
    if e.client(c.client).is_some_and(|cl| cl.in_multi) {
        return Reply::err("ERR SCRIPT DEBUG must be called outside MULTI");
    }
    let mode = c.arg(2);
    if is_opt(mode, "no") {
        Reply::ok()
    } else if is_opt(mode, "yes") || is_opt(mode, "sync") {
        Reply::err("ERR SCRIPT DEBUG (the Lua debugger) is not available in the playground")
    } else {
        Reply::err("ERR Use SCRIPT DEBUG YES/SYNC/NO")
    }
}
