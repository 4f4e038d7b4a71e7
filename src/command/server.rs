//! server.c commands: PING, ECHO, TIME, INFO and COMMAND (COUNT, LIST, INFO, DOCS, GETKEYS,
//! GETKEYSANDFLAGS, HELP), plus the shared `<CONTAINER> HELP`.
//!
//! COMMAND INFO/DOCS and the HELP texts answer from the recorded metadata (table.rs), so they
//! match redis-server byte for byte for every command we have; GETKEYS follows db.c
//! `getKeysFromCommandWithSpecs()` over the same recorded key specs. Differences: COMMAND,
//! COMMAND COUNT and LIST describe our table, not Redis's 240 commands, and a command Redis has
//! but the playground doesn't is unknown to COMMAND INFO (nil), DOCS (left out) and GETKEYS
//! (`Invalid command specified`); a container's subcommands are listed in table order where
//! Redis uses its dict's hash order (random per process); INFO has the sections and fields
//! that the playground models (see `info`); a `# Playground` section (not Redis) shows the clock,
//! seed, expiry algorithm and the cost model's constants.
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

pub fn time(e: &mut Engine, _c: &Call) -> Reply {
    let us = e.now_ms().saturating_mul(1000);
    Reply::bulks([us.div_euclid(1_000_000).to_string(), us.rem_euclid(1_000_000).to_string()])
}

/// `<CONTAINER> HELP`: the recorded reply (or the playground's own for CLOCK).
pub fn container_help(_e: &mut Engine, c: &Call) -> Reply {
    let container = c.cmd.name.split('|').next().unwrap_or("");
    c.table.get(container.as_bytes()).and_then(|cmd| cmd.help.clone()).unwrap_or(Reply::Array(vec![]))
}

// ---------------------------------------------------------------------------------------------
// INFO
// ---------------------------------------------------------------------------------------------

const SECTIONS: &[&str] = &[
    "server",
    "clients",
    "memory",
    "persistence",
    "stats",
    "replication",
    "cpu",
    "commandstats",
    "keyspace",
    "playground",
];
const DEFAULT_SECTIONS: &[&str] =
    &["server", "clients", "memory", "persistence", "stats", "replication", "cpu", "keyspace", "playground"];

/// server.c `infoCommand()` / `genRedisInfoString()`: the sections asked for (default: all but
/// commandstats), each `# Title` then `field:value` lines, CRLF-separated, blank line between.
pub fn info(e: &mut Engine, c: &Call) -> Reply {
    let mut wanted: Vec<&str> = Vec::new();
    let args = &c.argv[1..];
    if args.is_empty() {
        wanted.extend(DEFAULT_SECTIONS);
    }
    for a in args {
        if is_opt(a, "default") {
            wanted.extend(DEFAULT_SECTIONS);
        } else if is_opt(a, "all") || is_opt(a, "everything") {
            wanted.extend(SECTIONS);
        } else if let Some(s) = SECTIONS.iter().find(|s| is_opt(a, s)) {
            wanted.push(s);
        }
    }
    let mut out = String::new();
    for s in SECTIONS.iter().filter(|s| wanted.contains(s)) {
        if !out.is_empty() {
            out.push_str("\r\n");
        }
        out.push_str(&info_section(e, s));
    }
    // addReplyVerbatim(…, "txt"): a bulk over RESP2.
    Reply::Verbatim(out.into_bytes())
}

fn info_section(e: &Engine, name: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut kv = |k: &str, v: String| lines.push(format!("{k}:{v}"));
    let title = match name {
        "server" => {
            let uptime_s = (e.now_ms - e.start_ms).max(0) / 1000;
            kv("redis_version", "7.0.15".into());
            kv("redis_mode", "standalone".into());
            kv("os", format!("redisplay {} ({})", env!("CARGO_PKG_VERSION"), std::env::consts::ARCH));
            kv("arch_bits", "64".into());
            kv("run_id", e.run_id.clone());
            kv("tcp_port", e.tcp_port.to_string());
            kv("server_time_usec", (e.now_ms.saturating_mul(1000)).to_string());
            kv("uptime_in_seconds", uptime_s.to_string());
            kv("uptime_in_days", (uptime_s / 86400).to_string());
            kv("hz", e.hz().to_string());
            kv("configured_hz", e.config.int("hz").to_string());
            kv("lru_clock", e.lruclock.to_string());
            "Server"
        }
        "clients" => {
            kv("connected_clients", e.clients.len().to_string());
            kv("cluster_connections", "0".into());
            kv("maxclients", e.config.int("maxclients").to_string());
            kv("blocked_clients", e.blocked_clients().to_string());
            kv("tracking_clients", "0".into());
            kv(
                "clients_in_timeout_table",
                e.clients.values().filter(|c| c.blocked.as_ref().is_some_and(|b| b.timeout_ms > 0)).count().to_string(),
            );
            "Clients"
        }
        "memory" => {
            let used = e.used_memory();
            let max = e.config.int("maxmemory");
            kv("used_memory", used.to_string());
            kv("used_memory_human", crate::memory::bytes_to_human(used as f64));
            let peak = e.stats.peak_memory.max(used);
            kv("used_memory_peak", peak.to_string());
            kv("used_memory_peak_human", crate::memory::bytes_to_human(peak as f64));
            kv("used_memory_startup", crate::memory::USED_MEMORY_STARTUP.to_string());
            kv("used_memory_dataset", used.saturating_sub(crate::memory::USED_MEMORY_STARTUP).to_string());
            kv("maxmemory", max.to_string());
            kv("maxmemory_human", crate::memory::bytes_to_human(max as f64));
            kv("maxmemory_policy", e.config.str("maxmemory-policy").to_string());
            kv("mem_allocator", "jemalloc-5.3.0 (modelled)".into());
            kv("lazyfree_pending_objects", "0".into());
            kv("lazyfreed_objects", e.stats.lazyfreed_objects.to_string());
            kv("redisplay_memory", "modelled".into());
            "Memory"
        }
        "persistence" => {
            kv("loading", "0".into());
            kv("async_loading", "0".into());
            kv("rdb_changes_since_last_save", e.stats.dirty.to_string());
            kv("rdb_bgsave_in_progress", "0".into());
            kv("rdb_last_save_time", (e.start_ms / 1000).to_string());
            kv("aof_enabled", "0".into());
            "Persistence"
        }
        "stats" => {
            let s = &e.stats;
            kv("total_connections_received", s.total_connections_received.to_string());
            kv("total_commands_processed", s.total_commands_processed.to_string());
            kv("expired_keys", s.expired_keys.to_string());
            kv("expired_stale_perc", format!("{:.2}", s.expired_stale_perc * 100.0));
            kv("expired_time_cap_reached_count", s.expired_time_cap_reached_count.to_string());
            kv("expire_cycle_cpu_milliseconds", (s.expire_cycle_time_used_us / 1000).to_string());
            kv("evicted_keys", s.evicted_keys.to_string());
            kv("evicted_clients", "0".into());
            kv("total_eviction_exceeded_time", "0".into());
            kv("current_eviction_exceeded_time", "0".into());
            kv("keyspace_hits", s.keyspace_hits.to_string());
            kv("keyspace_misses", s.keyspace_misses.to_string());
            kv("pubsub_channels", e.pubsub.channels.len().to_string());
            kv("pubsub_patterns", e.pubsub.patterns.len().to_string());
            kv("total_error_replies", s.total_error_replies.to_string());
            "Stats"
        }
        "replication" => {
            kv("role", "master".into());
            kv("connected_slaves", "0".into());
            "Replication"
        }
        "playground" => {
            // Not Redis: what the playground models and the constants it models them with.
            use crate::cost::*;
            kv("clock", "virtual".into());
            kv("seed", e.seed.to_string());
            kv("cron_loops", e.cronloops.to_string());
            kv("expire_algorithm", e.config.str("playground-expire-algorithm").to_string());
            kv("cost_percent", e.config.int("playground-cost-percent").to_string());
            kv("cost_examine_key_ns", EXAMINE_KEY_NS.to_string());
            kv("cost_visit_bucket_ns", VISIT_BUCKET_NS.to_string());
            kv("cost_delete_key_ns", DELETE_KEY_NS.to_string());
            kv("cost_free_zset_member_ns", FREE_ZSET_MEMBER_NS.to_string());
            kv("cost_free_hash_field_ns", FREE_HASH_FIELD_NS.to_string());
            kv("cost_free_set_member_ns", FREE_SET_MEMBER_NS.to_string());
            kv("cost_free_list_node_ns", FREE_LIST_NODE_NS.to_string());
            kv("cost_free_string_kib_ns", FREE_STRING_KIB_NS.to_string());
            kv("lazyfree_threshold", LAZYFREE_THRESHOLD.to_string());
            kv("main_thread_free_us", (e.stats.free_time_ns / 1000).to_string());
            "Playground"
        }
        "cpu" => {
            kv("used_cpu_sys", "0.000000".into());
            kv("used_cpu_user", "0.000000".into());
            "CPU"
        }
        "commandstats" => {
            for (name, st) in &e.stats.commands {
                kv(
                    &format!("cmdstat_{name}"),
                    format!(
                        "calls={},usec=0,usec_per_call=0.00,rejected_calls={},failed_calls={}",
                        st.calls, st.rejected_calls, st.failed_calls
                    ),
                );
            }
            "Commandstats"
        }
        _ => {
            for (i, db) in e.dbs.iter().enumerate() {
                if !db.is_empty() {
                    kv(
                        &format!("db{i}"),
                        format!("keys={},expires={},avg_ttl={}", db.len(), db.expires.len(), db.avg_ttl),
                    );
                }
            }
            "Keyspace"
        }
    };
    let mut s = format!("# {title}\r\n");
    for l in lines {
        s.push_str(&l);
        s.push_str("\r\n");
    }
    s
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
    let has_getkeys_proc = matches!(cmd.name.as_str(), "set" | "sort" | "sort_ro" | "bitfield");
    if !has_getkeys_proc && specs.iter().all(|s| s.has("not_key")) {
        return Reply::err("ERR The command has no key arguments");
    }
    let argc = args.len() as i64;
    if (cmd.arity > 0 && cmd.arity != argc) || argc < -cmd.arity {
        return Reply::err("ERR Invalid number of arguments specified for command");
    }
    let variable_flags = specs.iter().any(|s| s.has("variable_flags"));
    let mut keys = if variable_flags { None } else { keys_from_specs(cmd, &specs, args) };
    if keys.is_none() && has_getkeys_proc {
        keys = Some(match cmd.name.as_str() {
            "sort" | "sort_ro" => super::sort::sort_get_keys(args, cmd.name == "sort_ro"),
            "bitfield" => super::bitops::bitfield_get_keys(args),
            _ => set_get_keys(args),
        });
    }
    let keys = keys.unwrap_or_default();
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
