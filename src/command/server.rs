//! server.c commands: PING, ECHO, TIME, INFO, SHUTDOWN and COMMAND (COUNT, LIST, INFO, DOCS,
//! GETKEYS, GETKEYSANDFLAGS, HELP), plus the shared `<CONTAINER> HELP`.
//!
//! SHUTDOWN follows `shutdownCommand()`, `prepareForShutdown()` and `finishShutdown()`: its
//! flags' syntax, ABORT (nothing is ever in progress: no replicas to wait for), BUSY unless
//! NOSAVE while a script has timed out, then the final save when save points are configured and
//! NOSAVE wasn't given, or SAVE was (its failure is the error `Errors trying to SHUTDOWN. Check
//! logs.` unless FORCE). The engine then reports it has shut down (`Engine::has_shut_down`):
//! the host closes the connections and stops — nothing exits here.
//!
//! COMMAND INFO/DOCS and the HELP texts answer from the recorded metadata (table.rs), so they
//! match redis-server byte for byte for every command we have; GETKEYS follows db.c
//! `getKeysFromCommandWithSpecs()` over the same recorded key specs. Differences: COMMAND,
//! COMMAND COUNT and LIST describe our table, not Redis's 240 commands, and a command Redis has
//! but the playground doesn't is unknown to COMMAND INFO (nil), DOCS (left out) and GETKEYS
//! (`Invalid command specified`); a container's subcommands are listed in table order where
//! Redis uses its dict's hash order (random per process). INFO is info.rs.
use crate::command::call::{doc_field, Call, Command, CommandTable};
use crate::command::{is_opt, syntax_error};
use crate::engine::Engine;
use crate::reply::Reply;
use crate::util::{glob_match, string2ll};

pub fn ping(e: &mut Engine, c: &Call) -> Reply {
    // RESP2 Pub/Sub mode: PING answers like a message, `["pong", arg-or-""]` (not over RESP3).
    if c.argc() <= 2 && e.clients.get(&c.client).is_some_and(|cl| cl.in_pubsub() && cl.resp == 2) {
        return Reply::Array(vec![Reply::bulk("pong"), Reply::bulk(if c.argc() == 2 { c.arg(1) } else { b"" })]);
    }
    match c.argc() {
        1 => Reply::Status("PONG".into()),
        2 => Reply::bulk(c.arg(1)),
        _ => Reply::err(format!("ERR wrong number of arguments for '{}' command", c.cmd.name)),
    }
}

pub fn echo(_e: &mut Engine, c: &Call) -> Reply {
    Reply::bulk(c.arg(1))
}

/// server.c `timeCommand()`: seconds and microseconds of the clock. The virtual clock counts
/// milliseconds; the microseconds within the millisecond are the work the cost model charged
/// since the clock reached it (engine/stats.rs `CpuClock::ustime`), so successive TIMEs move
/// forward by what ran between them, as a real server's would.
pub fn time(e: &mut Engine, _c: &Call) -> Reply {
    let us = e.ustime();
    Reply::bulks([us.div_euclid(1_000_000).to_string(), us.rem_euclid(1_000_000).to_string()])
}

/// `SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]`.
pub fn shutdown(e: &mut Engine, c: &Call) -> Reply {
    let (mut nosave, mut save, mut now, mut force, mut abort) = (false, false, false, false, false);
    for arg in &c.argv[1..] {
        let flag = if is_opt(arg, "nosave") {
            &mut nosave
        } else if is_opt(arg, "save") {
            &mut save
        } else if is_opt(arg, "now") {
            &mut now
        } else if is_opt(arg, "force") {
            &mut force
        } else if is_opt(arg, "abort") {
            &mut abort
        } else {
            return syntax_error();
        };
        *flag = true;
    }
    if (abort && (nosave || save || now || force)) || (nosave && save) {
        return syntax_error();
    }
    if abort {
        // abortShutdown(): a shutdown waits only for lagging replicas, and there are none.
        return Reply::err("ERR No shutdown in progress.");
    }
    if !nosave {
        if let Some(busy) = e.scripts.timed_out_error() {
            return Reply::err(busy);
        }
    }
    e.server_log(crate::engine::LogLevel::Warning, "User requested shutdown...");
    // prepareForShutdown(): a BGSAVE at work is killed first.
    if e.persist.bgsave.is_some() {
        e.server_log(crate::engine::LogLevel::Warning, "There is a child saving an .rdb. Killing it!");
        e.kill_rdb_child();
    }
    // An AOF rewrite is killed (the AOF has the whole dataset anyway) — unless it writes the
    // AOF's first base; then the buffer is written out.
    if e.persist.aof.rewrite.is_some() {
        if e.persist.aof.status == crate::engine::AofStatus::WaitRewrite {
            if !force {
                e.server_log(crate::engine::LogLevel::Warning, "Writing initial AOF, can't exit.");
                e.server_log(
                    crate::engine::LogLevel::Warning,
                    "Errors trying to shut down the server. Check the logs for more information.",
                );
                return Reply::err("ERR Errors trying to SHUTDOWN. Check logs.");
            }
            e.server_log(crate::engine::LogLevel::Warning, "Writing initial AOF. Exit anyway.");
        }
        e.server_log(crate::engine::LogLevel::Warning, "There is a child rewriting the AOF. Killing it!");
        e.kill_append_only_child();
    }
    if e.persist.aof.status != crate::engine::AofStatus::Off {
        e.server_log(crate::engine::LogLevel::Notice, "Calling fsync() on the AOF file.");
        e.flush_append_only_file();
    }
    let save_points = !e.config.str("save").is_empty();
    if (save_points && !nosave) || save {
        e.server_log(crate::engine::LogLevel::Notice, "Saving the final RDB snapshot before exiting.");
        if !e.rdb_save() {
            if force {
                e.server_log(crate::engine::LogLevel::Warning, "Error trying to save the DB. Exit anyway.");
            } else {
                e.server_log(crate::engine::LogLevel::Warning, "Error trying to save the DB, can't exit.");
                e.server_log(
                    crate::engine::LogLevel::Warning,
                    "Errors trying to shut down the server. Check the logs for more information.",
                );
                return Reply::err("ERR Errors trying to SHUTDOWN. Check logs.");
            }
        }
    }
    e.server_log(crate::engine::LogLevel::Warning, "Redis is now ready to exit, bye bye...");
    e.persist.shut_down = true;
    // Never sent: the server is gone.
    Reply::ok()
}

/// `<CONTAINER> HELP`: the recorded reply (or the playground's own for CLOCK).
pub fn container_help(_e: &mut Engine, c: &Call) -> Reply {
    let container = c.cmd.name.split('|').next().unwrap_or("");
    c.table.get(container.as_bytes()).and_then(|cmd| cmd.help.clone()).unwrap_or(Reply::Array(vec![]))
}

// ---------------------------------------------------------------------------------------------
// COMMAND
// ---------------------------------------------------------------------------------------------

/// `COMMAND` with no subcommand: every command's info.
pub fn command(_e: &mut Engine, c: &Call) -> Reply {
    Reply::Array(c.table.commands.iter().map(|c| c.info.clone()).collect())
}

pub fn command_count(_e: &mut Engine, c: &Call) -> Reply {
    Reply::Integer(c.table.commands.len() as i64)
}

/// server.c `commandListCommand()`: every name including subcommands, optionally filtered.
pub fn command_list(_e: &mut Engine, c: &Call) -> Reply {
    enum Filter<'a> {
        None,
        Module,
        AclCat(&'a [u8]),
        Pattern(&'a [u8]),
    }
    let mut filter = Filter::None;
    let mut i = 2;
    while i < c.argc() {
        let more = c.argc() - 1 - i;
        if is_opt(c.arg(i), "filterby") && more == 2 {
            let kind = c.arg(i + 1);
            let arg = c.arg(i + 2);
            filter = if is_opt(kind, "module") {
                Filter::Module
            } else if is_opt(kind, "aclcat") {
                Filter::AclCat(arg)
            } else if is_opt(kind, "pattern") {
                Filter::Pattern(arg)
            } else {
                return syntax_error();
            };
            i += 3;
        } else {
            return syntax_error();
        }
    }
    let mut names = Vec::new();
    for cmd in &c.table.commands {
        for c in std::iter::once(cmd).chain(cmd.subcommands.iter()) {
            let keep = match filter {
                Filter::None => true,
                Filter::Module => false,
                Filter::AclCat(cat) => {
                    c.acl_categories.iter().any(|a| a.trim_start_matches('@').as_bytes().eq_ignore_ascii_case(cat))
                }
                Filter::Pattern(p) => glob_match(p, c.name.as_bytes(), true),
            };
            if keep {
                names.push(c.name.clone());
            }
        }
    }
    Reply::bulks(names)
}

/// `lookupCommandBySds()`: `name` or `container|sub`.
fn find_by_fullname(table: &'static CommandTable, name: &[u8]) -> Option<&'static Command> {
    let lower = name.to_ascii_lowercase();
    match lower.iter().position(|&b| b == b'|') {
        Some(p) => table.get(&lower[..p])?.subcommand(&lower[p + 1..]),
        None => table.get(&lower),
    }
}

pub fn command_info(_e: &mut Engine, c: &Call) -> Reply {
    if c.argc() == 2 {
        return Reply::Array(c.table.commands.iter().map(|c| c.info.clone()).collect());
    }
    Reply::Array(
        c.argv[2..]
            .iter()
            .map(|n| find_by_fullname(c.table, n).map(|c| c.info.clone()).unwrap_or(Reply::Nil))
            .collect(),
    )
}

pub fn command_docs(_e: &mut Engine, c: &Call) -> Reply {
    let mut out = Vec::new();
    if c.argc() == 2 {
        for cmd in &c.table.commands {
            out.push((Reply::bulk(&cmd.name), cmd.docs.clone()));
        }
    } else {
        for n in &c.argv[2..] {
            if let Some(cmd) = find_by_fullname(c.table, n) {
                out.push((Reply::bulk(&cmd.name), cmd.docs.clone()));
            }
        }
    }
    Reply::Map(out)
}

pub fn command_getkeys(_e: &mut Engine, c: &Call) -> Reply {
    getkeys(c, false)
}

pub fn command_getkeysandflags(_e: &mut Engine, c: &Call) -> Reply {
    getkeys(c, true)
}

/// server.c `getKeysSubcommandImpl()`: the command is looked up as `processCommand()` would
/// (a container without a subcommand is the container itself), then its keys come from
/// db.c `getKeysFromCommandWithSpecs()`: the key specs, unless one has VARIABLE_FLAGS or the
/// specs are invalid for these arguments, in which case the command's own getkeys function
/// decides (of ours, SET, SORT, SORT_RO and BITFIELD have one: `setGetKeys()`,
/// `sortGetKeys()`, `sortROGetKeys()`, `bitfieldGetKeys()`).
fn getkeys(c: &Call, with_flags: bool) -> Reply {
    let args = &c.argv[2..];
    let Some(name) = args.first() else {
        return Reply::err("ERR Invalid command specified");
    };
    let base = c.table.get(name);
    let cmd = match base {
        Some(b) if b.is_container() && args.len() > 1 => b.subcommand(&args[1]),
        other => other,
    };
    let Some(cmd) = cmd else {
        return Reply::err("ERR Invalid command specified");
    };
    let specs = key_specs(cmd);
    if get_keys_proc(cmd).is_none() && specs.iter().all(|s| s.has("not_key")) {
        return Reply::err("ERR The command has no key arguments");
    }
    let argc = args.len() as i64;
    if (cmd.arity > 0 && cmd.arity != argc) || argc < -cmd.arity {
        return Reply::err("ERR Invalid number of arguments specified for command");
    }
    let keys = keys_with_specs(cmd, &specs, args);
    if keys.is_empty() {
        return if cmd.has_flag("no_mandatory_keys") {
            Reply::Array(vec![])
        } else {
            Reply::err("ERR Invalid arguments specified for command")
        };
    }
    Reply::Array(
        keys.into_iter()
            .map(|(pos, flags)| {
                let key = Reply::bulk(&args[pos]);
                if with_flags {
                    Reply::Array(vec![key, Reply::Set(flags.into_iter().map(Reply::Status).collect())])
                } else {
                    key
                }
            })
            .collect(),
    )
}

/// db.c `getKeysFromCommand()` as tracking.c calls it: the command's getkeys_proc where this
/// table has one (`get_keys_proc`), else — for the other commands with movable keys, whose
/// procs their key specs stand in for — what the specs find, else the legacy (first, last,
/// step) range.
pub(crate) fn command_key_names(cmd: &Command, argv: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let found = match get_keys_proc(cmd) {
        Some(proc) => Some(proc(argv)),
        None if cmd.has_flag("movablekeys") => Some(keys_from_specs(cmd, &key_specs(cmd), argv).unwrap_or_default()),
        None => None,
    };
    if let Some(found) = found {
        return found.into_iter().filter_map(|(i, _)| argv.get(i).cloned()).collect();
    }
    if cmd.first_key <= 0 {
        return vec![];
    }
    let argc = argv.len() as i64;
    let last = if cmd.last_key < 0 { argc + cmd.last_key } else { cmd.last_key };
    let step = cmd.step.max(1);
    let mut keys = Vec::new();
    let mut j = cmd.first_key;
    while j <= last {
        if let Some(k) = argv.get(j as usize) {
            keys.push(k.clone());
        }
        j += step;
    }
    keys
}

/// db.c `getKeysFromCommandWithSpecs()` with `GET_KEYSPEC_DEFAULT`, as the ACL check runs it:
/// each key's position in `args` (args[0] is the command name) and its key-spec flags; none
/// when the command has no keys or the specs don't fit these arguments.
pub(crate) fn command_keys(cmd: &Command, args: &[Vec<u8>]) -> Vec<(usize, Vec<String>)> {
    keys_with_specs(cmd, &key_specs(cmd), args)
}

type KeysProc = fn(&[Vec<u8>]) -> Vec<(usize, Vec<String>)>;

/// The commands whose `getkeys_proc` Redis falls back to when their key specs are incomplete
/// or have variable flags (the others' specs always answer).
fn get_keys_proc(cmd: &Command) -> Option<KeysProc> {
    match cmd.name.as_str() {
        "set" => Some(set_get_keys),
        "sort" => Some(|args| super::db::sort_get_keys(args, false)),
        "sort_ro" => Some(|args| super::db::sort_get_keys(args, true)),
        "bitfield" => Some(super::bitops::bitfield_get_keys),
        "migrate" => Some(super::db::migrate_get_keys),
        _ => None,
    }
}

/// db.c `getKeysFromCommandWithSpecs()`: the specs when their flags are reliable and they fit,
/// else the command's `getkeys_proc`.
fn keys_with_specs(cmd: &Command, specs: &[KeySpec], args: &[Vec<u8>]) -> Vec<(usize, Vec<String>)> {
    let variable_flags = specs.iter().any(|s| s.has("variable_flags"));
    let keys = if variable_flags { None } else { keys_from_specs(cmd, specs, args) };
    keys.or_else(|| get_keys_proc(cmd).map(|proc| proc(args))).unwrap_or_default()
}

/// db.c `setGetKeys()`: the key is read too when a GET option is present (compared as a C
/// string from the fourth argument on, whatever its position among the options).
fn set_get_keys(args: &[Vec<u8>]) -> Vec<(usize, Vec<String>)> {
    let get = args.iter().skip(3).any(|a| is_opt(a, "get"));
    let flags: &[&str] = if get { &["RW", "access", "update"] } else { &["OW", "update"] };
    vec![(1, flags.iter().map(|f| f.to_string()).collect())]
}

/// db.c `getKeysUsingKeySpecs()`; `None` when a spec doesn't fit the arguments (Redis's
/// `invalid_spec`, which drops every key found so far).
fn keys_from_specs(cmd: &Command, specs: &[KeySpec], args: &[Vec<u8>]) -> Option<Vec<(usize, Vec<String>)>> {
    let argc = args.len() as i64;
    let mut keys = Vec::new();
    for spec in specs {
        if spec.has("not_key") {
            continue;
        }
        let first = match &spec.begin {
            Begin::Index(i) => *i,
            Begin::Keyword { keyword, startfrom } => {
                let start = if *startfrom > 0 { *startfrom } else { argc + startfrom };
                let end = if *startfrom > 0 { argc - 1 } else { 1 };
                let mut found = 0;
                let mut i = start;
                while i != end {
                    if i >= argc || i < 1 {
                        break;
                    }
                    if is_opt(&args[i as usize], keyword) {
                        found = i + 1;
                        break;
                    }
                    i = if start <= end { i + 1 } else { i - 1 };
                }
                if found == 0 {
                    continue;
                }
                found
            }
            Begin::Unknown => return None,
        };
        let (first, last, step) = match spec.find {
            Find::Range { lastkey, keystep, limit } => {
                let last = if lastkey >= 0 {
                    first + lastkey
                } else if limit == 0 {
                    argc + lastkey
                } else {
                    first + ((argc - first) / limit + lastkey)
                };
                (first, last, keystep)
            }
            Find::Keynum { keynumidx, firstkey, keystep } => {
                if keynumidx >= argc {
                    return None;
                }
                let idx = (first + keynumidx) as usize;
                let numkeys = args.get(idx).and_then(|a| string2ll(a)).filter(|&n| n >= 0)?;
                let first = first + firstkey;
                (first, first + numkeys as i32 as i64 - 1, keystep)
            }
            Find::Unknown => return None,
        };
        if last >= argc || last < first || first >= argc {
            return None;
        }
        let mut i = first;
        while i <= last {
            if i >= argc || i < first {
                if cmd.arity < 0 {
                    i += step.max(1);
                    continue;
                }
                break;
            }
            keys.push((i as usize, spec.flags.clone()));
            i += step.max(1);
        }
        if spec.has("incomplete") {
            return None;
        }
    }
    Some(keys)
}

enum Begin {
    Index(i64),
    Keyword { keyword: String, startfrom: i64 },
    Unknown,
}

enum Find {
    Range { lastkey: i64, keystep: i64, limit: i64 },
    Keynum { keynumidx: i64, firstkey: i64, keystep: i64 },
    Unknown,
}

struct KeySpec {
    flags: Vec<String>,
    begin: Begin,
    find: Find,
}

impl KeySpec {
    fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f.eq_ignore_ascii_case(flag))
    }
}

/// A command's key specs, from its recorded COMMAND INFO entry.
fn key_specs(cmd: &Command) -> Vec<KeySpec> {
    let info = cmd.info.as_resp2();
    let Reply::Array(items) = &*info else { return vec![] };
    let Some(Reply::Array(specs)) = items.get(8) else { return vec![] };
    let text = |r: Option<&Reply>| -> String {
        match r {
            Some(Reply::Bulk(b)) => String::from_utf8_lossy(b).into_owned(),
            Some(Reply::Status(s)) => s.clone(),
            _ => String::new(),
        }
    };
    let int = |r: Option<&Reply>, k: &str| -> i64 {
        match r.and_then(|r| doc_field(r, k)) {
            Some(Reply::Integer(n)) => *n,
            _ => 0,
        }
    };
    let mut out = Vec::new();
    for spec in specs {
        let flags = match doc_field(spec, "flags") {
            Some(Reply::Array(f)) => f.iter().map(|x| text(Some(x))).collect(),
            _ => vec![],
        };
        let begin_search = doc_field(spec, "begin_search");
        let begin_spec = begin_search.and_then(|b| doc_field(b, "spec"));
        let begin = match text(begin_search.and_then(|b| doc_field(b, "type"))).as_str() {
            "index" => Begin::Index(int(begin_spec, "index")),
            "keyword" => Begin::Keyword {
                keyword: text(begin_spec.and_then(|s| doc_field(s, "keyword"))),
                startfrom: int(begin_spec, "startfrom"),
            },
            _ => Begin::Unknown,
        };
        let find_keys = doc_field(spec, "find_keys");
        let find_spec = find_keys.and_then(|b| doc_field(b, "spec"));
        let find = match text(find_keys.and_then(|b| doc_field(b, "type"))).as_str() {
            "range" => Find::Range {
                lastkey: int(find_spec, "lastkey"),
                keystep: int(find_spec, "keystep"),
                limit: int(find_spec, "limit"),
            },
            "keynum" => Find::Keynum {
                keynumidx: int(find_spec, "keynumidx"),
                firstkey: int(find_spec, "firstkey"),
                keystep: int(find_spec, "keystep"),
            },
            _ => Find::Unknown,
        };
        out.push(KeySpec { flags, begin, find });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::set_get_keys;

    #[test]
    fn set_key_flags_depend_on_get() {
        let args = |v: &[&str]| v.iter().map(|a| a.as_bytes().to_vec()).collect::<Vec<_>>();
        assert_eq!(set_get_keys(&args(&["set", "k", "v"]))[0].1, ["OW", "update"]);
        assert_eq!(set_get_keys(&args(&["set", "k", "v", "EX", "10", "gEt"]))[0].1, ["RW", "access", "update"]);
        // Compared as a C string from the fourth argument on: the value itself never counts.
        assert_eq!(set_get_keys(&args(&["set", "k", "get"]))[0].1, ["OW", "update"]);
        assert_eq!(set_get_keys(&args(&["set", "k", "v", "get\0junk"]))[0].1, ["RW", "access", "update"]);
    }
}
