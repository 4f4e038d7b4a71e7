//! FUNCTION and FCALL — functions.c (`functionLoadCommand()`, `functionListCommand()`,
//! `functionDeleteCommand()`, `functionFlushCommand()`, `functionDumpCommand()`,
//! `functionRestoreCommand()`, `functionStatsCommand()`, `functionKillCommand()`,
//! `fcallCommandGeneric()`, `fcallGetCommandFlags()`). The libraries are in
//! ../script/functions.rs, the Lua side of a load in ../script/vm.rs, a function's run in
//! ../script/call.rs (as a script's: in slices, BUSY, FUNCTION KILL).
//!
//! Difference: libraries and functions are listed and dumped ordered by name (Redis: its
//! dicts' order, which changes from one start of the server to the next).

use crate::cost;
use crate::engine::Engine;
use crate::persist::rdb::verify_dump_payload;
use crate::reply::Reply;
use crate::script::call::{Invocation, BUSY_EVAL};
use crate::script::functions::{Libraries, ENGINE};
use crate::script::{RunKind, Scripts};
use crate::util::glob_match;

use super::call::Call;
use super::eval::{oom_state, prepare_run, OOM};
use super::is_opt;

/// What a VM instruction costs, for a load's time limit.
fn step_ns(e: &Engine) -> u64 {
    cost::scaled(cost::LUA_STEP_NS, e.hot.cost_percent).max(1)
}

fn err_text(msg: String) -> Reply {
    Reply::Error(format!("ERR {msg}").into_bytes())
}

/// `ERR <text> <arg>` with the argument as C's `%s` prints it (up to a NUL).
fn err_with(text: &str, arg: &[u8]) -> Reply {
    let arg = &arg[..arg.iter().position(|&b| b == 0).unwrap_or(arg.len())];
    Reply::Error([format!("ERR {text}").as_bytes(), arg].concat())
}

impl Scripts {
    /// functions.c `functionsCreateWithLibraryCtx()` on the current libraries, in the
    /// functions' Lua state.
    fn load_library(&mut self, code: &[u8], replace: bool, step_ns: u64) -> Result<String, String> {
        self.function_vm().map_err(|_| "scripting is unavailable".to_string())?;
        let Scripts { fvm, libs, .. } = self;
        let vm = fvm.as_ref().ok_or("scripting is unavailable")?;
        libs.create(vm, code, replace, step_ns)
    }

    /// The libraries of a FUNCTION DUMP payload, read into a set of their own.
    fn read_payload(&mut self, payload: &[u8], step_ns: u64, max_alloc: u64) -> Result<Libraries, String> {
        let vm = self.function_vm().map_err(|_| "scripting is unavailable".to_string())?;
        Libraries::from_payload(vm, payload, step_ns, max_alloc)
    }
}

/// `FUNCTION LOAD [REPLACE] code`
pub fn function_load(e: &mut Engine, c: &Call) -> Reply {
    let mut replace = false;
    let mut pos = 2;
    while pos < c.argc() - 1 {
        let arg = c.arg(pos);
        pos += 1;
        if is_opt(arg, "replace") {
            replace = true;
            continue;
        }
        return err_with("Unknown option given: ", arg);
    }
    if pos >= c.argc() {
        return Reply::err("ERR Function code is missing");
    }
    let step = step_ns(e);
    match e.scripts.load_library(c.arg(pos), replace, step) {
        Ok(name) => {
            e.dirty(1);
            Reply::bulk(name)
        }
        Err(msg) => err_text(msg),
    }
}

/// `FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE]`
pub fn function_list(e: &mut Engine, c: &Call) -> Reply {
    let mut with_code = false;
    let mut pattern: Option<&[u8]> = None;
    let mut i = 2;
    while i < c.argc() {
        let arg = c.arg(i);
        if !with_code && is_opt(arg, "withcode") {
            with_code = true;
        } else if pattern.is_none() && is_opt(arg, "libraryname") {
            if i >= c.argc() - 1 {
                return Reply::err("ERR library name argument was not given");
            }
            i += 1;
            pattern = Some(c.arg(i));
        } else {
            return err_with("Unknown argument ", arg);
        }
        i += 1;
    }
    let libs =
        e.scripts.libs.libraries().filter(|lib| pattern.is_none_or(|p| glob_match(p, lib.name.as_bytes(), true)));
    Reply::Array(
        libs.map(|lib| {
            let functions = lib
                .functions
                .values()
                .map(|f| {
                    Reply::Map(vec![
                        (Reply::bulk("name"), Reply::bulk(&f.name)),
                        (Reply::bulk("description"), f.description.as_ref().map_or(Reply::Nil, Reply::bulk)),
                        (
                            Reply::bulk("flags"),
                            Reply::Set(f.flags.names().into_iter().map(|n| Reply::Status(n.into())).collect()),
                        ),
                    ])
                })
                .collect();
            let mut fields = vec![
                (Reply::bulk("library_name"), Reply::bulk(&lib.name)),
                (Reply::bulk("engine"), Reply::bulk(ENGINE)),
                (Reply::bulk("functions"), Reply::Array(functions)),
            ];
            if with_code {
                fields.push((Reply::bulk("library_code"), Reply::bulk(&lib.code)));
            }
            Reply::Map(fields)
        })
        .collect(),
    )
}

/// `FUNCTION DELETE library-name`
pub fn function_delete(e: &mut Engine, c: &Call) -> Reply {
    if !e.scripts.libs.delete(c.arg(2)) {
        return Reply::err("ERR Library not found");
    }
    e.dirty(1);
    Reply::ok()
}

/// `FUNCTION FLUSH [ASYNC|SYNC]`
pub fn function_flush(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() > 3 {
        return super::subcommand_syntax_error("FUNCTION", c.arg(1));
    }
    if c.argc() == 3 && !is_opt(c.arg(2), "sync") && !is_opt(c.arg(2), "async") {
        return Reply::err("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
    }
    e.scripts.libs.clear();
    e.dirty(1);
    Reply::ok()
}

/// `FUNCTION DUMP`
pub fn function_dump(e: &mut Engine, _c: &Call) -> Reply {
    Reply::Bulk(e.scripts.libs.dump(e.config.bool("rdbcompression")))
}

/// `FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]`
pub fn function_restore(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() > 4 {
        return super::subcommand_syntax_error("FUNCTION", c.arg(1));
    }
    #[derive(PartialEq)]
    enum Policy {
        Flush,
        Append,
        Replace,
    }
    let policy = match c.argv.get(3) {
        None => Policy::Append,
        Some(p) if is_opt(p, "append") => Policy::Append,
        Some(p) if is_opt(p, "replace") => Policy::Replace,
        Some(p) if is_opt(p, "flush") => Policy::Flush,
        Some(_) => {
            return Reply::err("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
        }
    };
    let payload = c.arg(2);
    if verify_dump_payload(payload).is_none() {
        return Reply::err("ERR DUMP payload version or checksum are wrong");
    }
    let step = step_ns(e);
    let max_alloc = e.config.int("playground-max-alloc").max(0) as u64;
    let restored = match e.scripts.read_payload(payload, step, max_alloc) {
        Ok(l) => l,
        Err(msg) => return err_text(msg),
    };
    if policy == Policy::Flush {
        e.scripts.libs = restored;
    } else if let Err(msg) = e.scripts.libs.join(restored, policy == Policy::Replace) {
        return err_text(msg);
    }
    e.dirty(1);
    Reply::ok()
}

/// `FUNCTION STATS`: the running function (name, its caller's command, how long it has run)
/// and the engines' counts.
pub fn function_stats(e: &mut Engine, _c: &Call) -> Reply {
    let running = match e.scripts.running.as_ref() {
        Some(r) if !matches!(r.kind, RunKind::Function { .. }) => return Reply::err(BUSY_EVAL),
        Some(r) => Reply::Map(vec![
            (Reply::bulk("name"), Reply::bulk(r.kind.name())),
            (Reply::bulk("command"), Reply::bulks(r.caller_argv.iter())),
            (Reply::bulk("duration_ms"), Reply::Integer((r.elapsed_ns / 1_000_000) as i64)),
        ]),
        None => Reply::Nil,
    };
    let libs = &e.scripts.libs;
    Reply::Map(vec![
        (Reply::bulk("running_script"), running),
        (
            Reply::bulk("engines"),
            Reply::Map(vec![(
                Reply::bulk(ENGINE),
                Reply::Map(vec![
                    (Reply::bulk("libraries_count"), Reply::Integer(libs.library_count() as i64)),
                    (Reply::bulk("functions_count"), Reply::Integer(libs.function_count() as i64)),
                ]),
            )]),
        ),
    ])
}

/// `FUNCTION KILL` (script.c `scriptKill()` for a function).
pub fn function_kill(e: &mut Engine, _c: &Call) -> Reply {
    e.kill_script(false)
}

/// `FCALL function numkeys [key …] [arg …]`
pub fn fcall(e: &mut Engine, c: &Call) -> Reply {
    fcall_generic(e, c, false)
}

/// `FCALL_RO function numkeys [key …] [arg …]`
pub fn fcall_ro(e: &mut Engine, c: &Call) -> Reply {
    fcall_generic(e, c, true)
}

fn fcall_generic(e: &mut Engine, c: &Call, ro: bool) -> Reply {
    let oom = oom_state(e);
    let found = e.scripts.libs.function(c.arg(1)).map(|f| (f.flags, f.func.clone(), f.name.clone()));
    // processCommand() with fcallGetCommandFlags(): a function that may write and lacks
    // allow-oom is a denyoom command.
    if oom && found.as_ref().is_some_and(|(f, _, _)| !f.allow_oom && !f.no_writes) {
        return Reply::err(OOM);
    }
    let Some((flags, func, name)) = found else {
        return Reply::err("ERR Function not found");
    };
    let Some(numkeys) = crate::util::string2ll(c.arg(2)) else {
        return Reply::err("ERR Bad number of keys provided");
    };
    if numkeys > c.argc() as i64 - 3 {
        return Reply::err("ERR Number of keys can't be greater than number of args");
    }
    if numkeys < 0 {
        return Reply::err("ERR Number of keys can't be negative");
    }
    let policy = match prepare_run(flags, ro, oom) {
        Ok(p) => p,
        Err(r) => return r,
    };
    let first_arg = 3 + numkeys as usize;
    let what = Invocation {
        func,
        kind: RunKind::Function { name },
        command: c.cmd.name.as_str(),
        keys: &c.argv[3..first_arg],
        args: &c.argv[first_arg..],
        argv: c.argv,
    };
    e.run_script(c.client, what, policy)
}
