//! CLOCK — the playground's own command (not Redis): read, set or advance the virtual clock.
//!
//! `CLOCK GET` → the virtual Unix time in ms; `CLOCK SET <unix-ms>` sets it without running
//! the server cron (it may go backwards, as a real server's clock can); `CLOCK ADVANCE <ms>`
//! lets time pass as it does in the page: serverCron runs for every tick crossed. Scripts,
//! labs, the native CLI and tests use it to say "30 minutes later". Redis has no command of
//! this name, so it can never change the meaning of a real one.

use std::collections::HashMap;

use crate::command::call::{command_from_spec, Call, Command, Handler};
use crate::command::parse_i64;
use crate::engine::{Engine, MAX_CLOCK_MS};
use crate::reply::Reply;

/// Ticks one CLOCK ADVANCE may run (100 days at hz 10); beyond that the reply is an error
/// and the clock does not move, so a typo can't freeze the tab.
pub const MAX_ADVANCE_TICKS: u64 = 100 * 86_400 * 10;

pub fn clock_get(e: &mut Engine, _c: &Call) -> Reply {
    Reply::Integer(e.now_ms())
}

fn parse_time(arg: &[u8], what: &str) -> Result<i64, Reply> {
    let v = parse_i64(arg)?;
    if !(0..=MAX_CLOCK_MS).contains(&v) {
        return Err(Reply::err(format!("ERR {what} must be between 0 and {MAX_CLOCK_MS}")));
    }
    Ok(v)
}

pub fn clock_set(e: &mut Engine, c: &Call) -> Reply {
    match parse_time(c.arg(2), "time") {
        Ok(ms) => {
            e.set_time(ms);
            Reply::ok()
        }
        Err(r) => r,
    }
}

pub fn clock_advance(e: &mut Engine, c: &Call) -> Reply {
    let ms = match parse_time(c.arg(2), "ms") {
        Ok(ms) => ms,
        Err(r) => return r,
    };
    let target = e.now_ms().saturating_add(ms).min(MAX_CLOCK_MS);
    let ticks = e.ticks_until(target);
    if ticks > MAX_ADVANCE_TICKS {
        return Reply::err(format!(
            "ERR CLOCK ADVANCE would run {ticks} cron ticks; at most {MAX_ADVANCE_TICKS} per call (use CLOCK SET to jump without running cron)"
        ));
    }
    let cpu_before = e.cpu.ns;
    e.advance_to(target, u64::MAX);
    // The cron work is the server's, not this command's (Engine::cron_in_command_ns).
    e.cron_in_command_ns += e.cpu.ns - cpu_before;
    Reply::Integer(e.now_ms())
}

fn info(name: &str, arity: i64, flags: &[&str], subcommands: Vec<Reply>) -> Reply {
    Reply::Array(vec![
        Reply::bulk(name),
        Reply::Integer(arity),
        Reply::Array(flags.iter().map(|f| Reply::Status(f.to_string())).collect()),
        Reply::Integer(0),
        Reply::Integer(0),
        Reply::Integer(0),
        Reply::Array(vec![Reply::Status("@slow".into())]),
        Reply::Array(vec![]),
        Reply::Array(vec![]),
        Reply::Array(subcommands),
    ])
}

fn docs(summary: &str, args: &[(&str, &str)], subcommands: Option<Reply>) -> Reply {
    let mut d = vec![
        Reply::bulk("summary"),
        Reply::bulk(summary),
        Reply::bulk("since"),
        Reply::bulk("redisplay"),
        Reply::bulk("group"),
        Reply::bulk("playground"),
        Reply::bulk("complexity"),
        Reply::bulk("O(1), plus one serverCron run per tick crossed by ADVANCE"),
    ];
    if !args.is_empty() {
        d.push(Reply::bulk("arguments"));
        d.push(Reply::Array(
            args.iter()
                .map(|(name, ty)| {
                    Reply::Array(vec![
                        Reply::bulk("name"),
                        Reply::bulk(name),
                        Reply::bulk("type"),
                        Reply::bulk(ty),
                        Reply::bulk("display_text"),
                        Reply::bulk(name),
                    ])
                })
                .collect(),
        ));
    }
    if let Some(s) = subcommands {
        d.push(Reply::bulk("subcommands"));
        d.push(s);
    }
    Reply::Array(d)
}

/// A subcommand: name, arity, summary, arguments (name, type).
type SubSpec = (&'static str, i64, &'static str, &'static [(&'static str, &'static str)]);

const SUBS: &[SubSpec] = &[
    (
        "clock|advance",
        3,
        "Let virtual time pass, running serverCron for every tick crossed (not Redis)",
        &[("milliseconds", "integer")],
    ),
    ("clock|get", 2, "The virtual clock in Unix milliseconds (not Redis)", &[]),
    ("clock|help", 2, "Show helpful text about the different subcommands", &[]),
    (
        "clock|set",
        3,
        "Set the virtual clock without running cron; it may go backwards (not Redis)",
        &[("unix-time-milliseconds", "integer")],
    ),
];

const HELP: &[&str] = &[
    "CLOCK <subcommand> [<arg> ...]. The playground's virtual clock (not a Redis command):",
    "GET",
    "    Return the virtual time in Unix milliseconds.",
    "SET <unix-time-milliseconds>",
    "    Set the virtual time without running the server cron (it may go backwards).",
    "ADVANCE <milliseconds>",
    "    Let time pass: serverCron runs once per 1000/hz ms crossed, as in the page.",
    "HELP",
    "    Print this help.",
];

/// CLOCK's table row, built here because Redis has no metadata for it.
pub fn spec(handlers: &HashMap<&str, Handler>) -> Command {
    let sub_infos: Vec<Reply> = SUBS.iter().map(|(n, a, _, _)| info(n, *a, &["loading", "stale"], vec![])).collect();
    let mut sub_docs = Vec::new();
    for (n, _, summary, args) in SUBS {
        sub_docs.push(Reply::bulk(n));
        sub_docs.push(docs(summary, args, None));
    }
    let info = info("clock", -2, &[], sub_infos);
    let docs = docs(
        "A playground command: read, set or advance the virtual clock (not Redis)",
        &[],
        Some(Reply::Array(sub_docs)),
    );
    let help = Reply::Array(HELP.iter().map(|l| Reply::Status(l.to_string())).collect());
    let mut cmd = command_from_spec("clock", &info, &docs, Some(help), handlers);
    cmd.playground = true;
    for s in cmd.subcommands.iter_mut() {
        s.playground = true;
    }
    cmd
}
