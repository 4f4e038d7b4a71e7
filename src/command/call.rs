//! What the command table holds per command and what a handler sees of a call: the row
//! (`Command`, built from the metadata recorded from redis-server 7.0 in specs.resp), the
//! table's lookup with the checks of server.c `processCommand()` — `lookupCommandLogic()`,
//! `commandCheckExistence()`, `commandCheckArity()` — and the call context (`Call`).
//!
//! This file knows no handler: table.rs pairs names with handlers, dispatch.rs runs them. A
//! handler that needs the table (COMMAND, EXEC, GEOADD calling ZADD) reaches it through
//! `Call::table`, so the families never import the list that imports them.
//!
//! Difference: a command or subcommand name with a NUL byte in it (`"get\x00x"`) is unknown
//! here. Redis hashes the whole name but compares names as C strings, so whether it finds
//! GET depends on its per-process hash seed; no fixed answer can match it.

use std::collections::HashMap;

use crate::acl::Universe;
use crate::engine::{ClientId, Engine};
use crate::reply::Reply;

/// What a handler sees of the call: who, which db, the arguments, and its table row.
pub struct Call<'a> {
    pub client: ClientId,
    pub db: usize,
    pub argv: &'a [Vec<u8>],
    pub cmd: &'static Command,
    /// The table the command was found in.
    pub table: &'static CommandTable,
}

impl Call<'_> {
    pub fn arg(&self, i: usize) -> &[u8] {
        self.argv.get(i).map(|v| v.as_slice()).unwrap_or(b"")
    }
    pub fn argc(&self) -> usize {
        self.argv.len()
    }
}

pub type Handler = fn(&mut Engine, &Call) -> Reply;

/// One command or subcommand.
pub struct Command {
    /// Lowercase full name: `get`, `config|get`.
    pub name: String,
    pub arity: i64,
    pub flags: Vec<String>,
    /// `flags` as bits (`flag_bit`), for the checks every call makes.
    pub flag_bits: u32,
    /// What the dispatcher treats specially by name (`role`), worked out once.
    pub role: u8,
    pub first_key: i64,
    pub last_key: i64,
    pub step: i64,
    pub acl_categories: Vec<String>,
    pub group: String,
    pub summary: String,
    pub since: String,
    pub complexity: String,
    /// The COMMAND INFO entry, as redis-server sends it.
    pub info: Reply,
    /// The COMMAND DOCS body (a flat key/value array), as redis-server sends it.
    pub docs: Reply,
    /// `<CONTAINER> HELP`'s reply, for containers.
    pub help: Option<Reply>,
    pub handler: Option<Handler>,
    pub subcommands: Vec<Command>,
    /// A playground-only command (not in Redis).
    pub playground: bool,
    /// The ACL's command id (`cmd->id`): its bit in a user's command bitmap (acl.rs).
    pub id: usize,
}

impl Command {
    /// Whether the command has the flag (as COMMAND INFO names it). The flags every call checks
    /// are bits; a literal name folds to its bit at compile time.
    #[inline(always)]
    pub fn has_flag(&self, flag: &str) -> bool {
        match flag_bit(flag) {
            Some(bit) => self.flag_bits & bit != 0,
            None => self.flags.iter().any(|f| f == flag),
        }
    }
    /// Whether the command plays the `role::` part.
    pub fn is(&self, role: u8) -> bool {
        self.role & role != 0
    }
    pub fn is_container(&self) -> bool {
        !self.subcommands.is_empty()
    }
    /// The name after the `|`, or the whole name.
    pub fn short_name(&self) -> &str {
        self.name.rsplit('|').next().unwrap_or(&self.name)
    }
    pub fn subcommand(&self, name: &[u8]) -> Option<&Command> {
        let lower = name.to_ascii_lowercase();
        self.subcommands.iter().find(|s| s.short_name().as_bytes() == lower.as_slice())
    }
}

pub struct CommandTable {
    /// Top-level commands sorted by name.
    pub commands: Vec<Command>,
    /// Name → position, hashed with the maps' fixed foldhash (ds/map.rs): looked up for every
    /// command, where SipHash showed in profiles.
    index: HashMap<Vec<u8>, usize, crate::ds::map::Hasher>,
    /// Every command Redis has, as the ACL sees them (ids, categories), handler or not.
    pub acl: Universe,
}

/// Why a call was rejected before running.
pub enum Lookup<'a> {
    Found(&'a Command),
    Rejected(Reply),
}

impl CommandTable {
    /// A table of these rows (top-level commands, sorted by name).
    pub fn new(commands: Vec<Command>) -> CommandTable {
        let index = commands.iter().enumerate().map(|(i, c)| (c.name.as_bytes().to_vec(), i)).collect();
        CommandTable { commands, index, acl: Universe::new() }
    }

    /// The table with the ACL's universe; each row gets its command id from it.
    pub fn with_acl(mut self, acl: Universe) -> CommandTable {
        for c in self.commands.iter_mut() {
            c.id = acl.id(&c.name).unwrap_or(usize::MAX);
            for s in c.subcommands.iter_mut() {
                s.id = acl.id(&s.name).unwrap_or(usize::MAX);
            }
        }
        self.acl = acl;
        self
    }

    pub fn get(&self, name: &[u8]) -> Option<&Command> {
        // Lowercase into a stack buffer: no command name is longer than 32 bytes.
        let mut buf = [0u8; 32];
        let lower = buf.get_mut(..name.len())?;
        lower.copy_from_slice(name);
        lower.make_ascii_lowercase();
        self.index.get(&*lower).map(|&i| &self.commands[i])
    }

    /// server.c `lookupCommandLogic()` + `commandCheckExistence()` + `commandCheckArity()`.
    pub fn lookup(&self, argv: &[Vec<u8>]) -> Lookup<'_> {
        let Some(name) = argv.first() else {
            return Lookup::Rejected(Reply::err("ERR empty command"));
        };
        let base = self.get(name);
        let cmd = match base {
            Some(b) if b.is_container() && argv.len() > 1 => b.subcommand(&argv[1]),
            other => other,
        };
        let Some(cmd) = cmd else {
            if base.is_some() {
                let mut upper = c_str(name, usize::MAX);
                upper.make_ascii_uppercase();
                let mut msg = b"ERR unknown subcommand '".to_vec();
                msg.extend(c_str(&argv[1], 128));
                msg.extend(b"'. Try ");
                msg.extend(upper);
                msg.extend(b" HELP.");
                return Lookup::Rejected(Reply::Error(sanitize(msg)));
            }
            let mut args = Vec::new();
            // `sdscatprintf(args, "'%.*s' ", 128-sdslen(args), arg)` while sdslen(args) < 128.
            for a in &argv[1..] {
                if args.len() >= 128 {
                    break;
                }
                let room = 128 - args.len();
                args.push(b'\'');
                args.extend(c_str(a, room));
                args.extend(b"' ");
            }
            let mut msg = b"ERR unknown command '".to_vec();
            msg.extend(c_str(name, 128));
            msg.extend(b"', with args beginning with: ");
            msg.extend(args);
            return Lookup::Rejected(Reply::Error(sanitize(msg)));
        };
        let argc = argv.len() as i64;
        if (cmd.arity > 0 && cmd.arity != argc) || argc < -cmd.arity {
            return Lookup::Rejected(Reply::Error(
                format!("ERR wrong number of arguments for '{}' command", cmd.name).into_bytes(),
            ));
        }
        Lookup::Found(cmd)
    }
}

/// `%.{max}s` of a C string: stops at the first NUL, at most `max` bytes.
fn c_str(b: &[u8], max: usize) -> Vec<u8> {
    let s = crate::util::c_str(b);
    s[..s.len().min(max)].to_vec()
}

/// `sdsmapchars(err, "\r\n", "  ")`: errors never carry line breaks onto the wire.
pub fn sanitize(mut msg: Vec<u8>) -> Vec<u8> {
    for c in msg.iter_mut() {
        if *c == b'\r' || *c == b'\n' {
            *c = b' ';
        }
    }
    msg
}

fn int_at(items: &[Reply], i: usize) -> i64 {
    match items.get(i) {
        Some(Reply::Integer(n)) => *n,
        _ => 0,
    }
}

fn words_at(items: &[Reply], i: usize) -> Vec<String> {
    match items.get(i) {
        Some(Reply::Array(words)) => words
            .iter()
            .filter_map(|w| match w {
                Reply::Status(s) => Some(s.clone()),
                Reply::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
                _ => None,
            })
            .collect(),
        _ => vec![],
    }
}

/// Looks up a field of a COMMAND DOCS body (a map, or its flat RESP2 form).
pub fn doc_field<'a>(docs: &'a Reply, key: &str) -> Option<&'a Reply> {
    match docs {
        Reply::Map(kv) => kv.iter().find_map(|(k, v)| match k {
            Reply::Bulk(k) if k.as_slice() == key.as_bytes() => Some(v),
            _ => None,
        }),
        Reply::Array(items) => items.chunks(2).find_map(|kv| match kv {
            [Reply::Bulk(k), v] if k.as_slice() == key.as_bytes() => Some(v),
            _ => None,
        }),
        _ => None,
    }
}

fn doc_text(docs: &Reply, key: &str) -> String {
    match doc_field(docs, key) {
        Some(Reply::Bulk(b)) => String::from_utf8_lossy(b).into_owned(),
        Some(Reply::Status(s)) => s.clone(),
        _ => String::new(),
    }
}

/// Builds a row from a COMMAND INFO entry and a COMMAND DOCS body (as recorded over RESP3:
/// kept in that shape for the replies, read through their RESP2 form here).
/// Commands dispatch.rs treats by name (server.c compares `c->cmd->proc` with them).
pub mod role {
    /// EXEC.
    pub const EXEC: u8 = 1;
    /// Runs inside MULTI instead of being queued: EXEC, DISCARD, MULTI, WATCH, QUIT, RESET.
    pub const TX_CONTROL: u8 = 1 << 1;
    /// Propagated by the effects of the commands it runs: EXEC, EVAL*, FCALL*.
    pub const BY_EFFECTS: u8 = 1 << 2;
    /// Allowed to a RESP2 client in Pub/Sub mode.
    pub const PUBSUB_OK: u8 = 1 << 3;
    /// Queued while OOM inside MULTI is refused, except for these: EXEC, DISCARD, QUIT, RESET.
    pub const ENDS_TX: u8 = 1 << 4;

    pub(super) fn of(name: &str) -> u8 {
        let base = name.split('|').next().unwrap_or("");
        let mut bits = 0;
        if base == "exec" {
            bits |= EXEC;
        }
        if matches!(base, "exec" | "discard" | "multi" | "watch" | "quit" | "reset") {
            bits |= TX_CONTROL;
        }
        if matches!(name, "exec" | "eval" | "evalsha" | "eval_ro" | "evalsha_ro" | "fcall" | "fcall_ro") {
            bits |= BY_EFFECTS;
        }
        if matches!(
            base,
            "ping"
                | "subscribe"
                | "unsubscribe"
                | "psubscribe"
                | "punsubscribe"
                | "ssubscribe"
                | "sunsubscribe"
                | "quit"
                | "reset"
        ) {
            bits |= PUBSUB_OK;
        }
        if matches!(base, "exec" | "discard" | "quit" | "reset") {
            bits |= ENDS_TX;
        }
        bits
    }
}

/// The bit of a flag the dispatcher checks on every call; other flags are looked up by name.
#[inline(always)]
fn flag_bit(flag: &str) -> Option<u32> {
    Some(match flag {
        "write" => 1,
        "readonly" => 1 << 1,
        "denyoom" => 1 << 2,
        "admin" => 1 << 3,
        "fast" => 1 << 4,
        "no_auth" => 1 << 5,
        "no_multi" => 1 << 6,
        "skip_monitor" => 1 << 7,
        "skip_slowlog" => 1 << 8,
        "may_replicate" => 1 << 9,
        "allow_busy" => 1 << 10,
        "noscript" => 1 << 11,
        "movablekeys" => 1 << 12,
        "no_mandatory_keys" => 1 << 13,
        "loading" => 1 << 14,
        "stale" => 1 << 15,
        _ => return None,
    })
}

pub fn command_from_spec(
    name: &str,
    info: &Reply,
    docs: &Reply,
    help: Option<Reply>,
    handlers: &HashMap<&str, Handler>,
) -> Command {
    let empty = Vec::new();
    let flat = info.as_resp2();
    let items = match &*flat {
        Reply::Array(items) => items,
        _ => &empty,
    };
    let mut subcommands = Vec::new();
    let shaped = match info {
        Reply::Array(items) => items.get(9),
        _ => None,
    };
    if let Some(Reply::Array(subs) | Reply::Set(subs)) = shaped {
        let sub_docs = doc_field(docs, "subcommands");
        for sub in subs {
            let Reply::Array(sub_items) = sub else { continue };
            let Some(Reply::Bulk(sub_name)) = sub_items.first() else { continue };
            let sub_name = String::from_utf8_lossy(sub_name).into_owned();
            let body = sub_docs.and_then(|d| doc_field(d, &sub_name)).cloned().unwrap_or(Reply::Map(vec![]));
            let cmd = command_from_spec(&sub_name, sub, &body, None, handlers);
            if cmd.handler.is_some() {
                subcommands.push(cmd);
            }
        }
    }
    subcommands.sort_by(|a, b| a.name.cmp(&b.name));
    let flags = words_at(items, 2);
    let flag_bits = flags.iter().filter_map(|f| flag_bit(f)).fold(0, |bits, bit| bits | bit);
    Command {
        name: name.to_string(),
        arity: int_at(items, 1),
        flags,
        flag_bits,
        role: role::of(name),
        first_key: int_at(items, 3),
        last_key: int_at(items, 4),
        step: int_at(items, 5),
        acl_categories: words_at(items, 6),
        group: doc_text(docs, "group"),
        summary: doc_text(docs, "summary"),
        since: doc_text(docs, "since"),
        complexity: doc_text(docs, "complexity"),
        info: info.clone(),
        docs: docs.clone(),
        help,
        handler: handlers.get(name).copied(),
        subcommands,
        playground: false,
        id: usize::MAX,
    }
}
