//! The command table: one row per command, as data. Models server.c's command table
//! (`populateCommandTable`, generated in Redis from `src/commands/*.json`) and the lookup and
//! checks of `processCommand()`: `lookupCommandLogic()`, `commandCheckExistence()`,
//! `commandCheckArity()`.
//!
//! Redis's own metadata — arity, flags, key positions, ACL categories, summary, since, group,
//! complexity, the full COMMAND INFO/DOCS replies and each container's HELP — is recorded from
//! a live redis-server 7.0 into `specs.resp` by `tools/record-command-specs.py`. This file
//! pairs each recorded name with its handler; playground-only commands (CLOCK) carry their
//! metadata here. Adding a command = record its spec + one `HANDLERS` row + one fn.
//!
//! Difference: a command or subcommand name with a NUL byte in it (`"get\x00x"`) is unknown
//! here. Redis hashes the whole name but compares names as C strings, so whether it finds
//! GET depends on its per-process hash seed; no fixed answer can match it.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::engine::{ClientId, Engine};
use crate::reply::{parse_resp, Reply};

use super::{clock, config, db, expire, hash, list, multi, networking, object, server, string, zset};
use crate::pubsub;

/// What a handler sees of the call: who, which db, the arguments, and its table row.
pub struct Call<'a> {
    pub client: ClientId,
    pub db: usize,
    pub argv: &'a [Vec<u8>],
    pub cmd: &'static Command,
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

/// Redis's command names paired with their handlers. Subcommands are `container|sub`.
const HANDLERS: &[(&str, Handler)] = &[
    // server.c
    ("ping", server::ping),
    ("echo", server::echo),
    ("time", server::time),
    ("info", server::info),
    // replication.c
    ("role", super::replication::role),
    ("command", server::command),
    ("command|count", server::command_count),
    ("command|list", server::command_list),
    ("command|info", server::command_info),
    ("command|docs", server::command_docs),
    ("command|getkeys", server::command_getkeys),
    ("command|getkeysandflags", server::command_getkeysandflags),
    ("command|help", server::container_help),
    // config.c
    ("config|get", config::config_get),
    ("config|set", config::config_set),
    ("config|resetstat", config::config_resetstat),
    ("config|rewrite", config::config_rewrite),
    ("config|help", server::container_help),
    // db.c
    ("select", db::select),
    ("swapdb", db::swapdb),
    ("dbsize", db::dbsize),
    ("flushdb", db::flushdb),
    ("flushall", db::flushall),
    ("del", db::del),
    ("unlink", db::unlink),
    ("exists", db::exists),
    ("type", db::type_),
    ("keys", db::keys),
    ("scan", db::scan),
    ("randomkey", db::randomkey),
    ("rename", db::rename),
    ("renamenx", db::renamenx),
    ("copy", db::copy),
    ("move", db::move_),
    ("touch", db::touch),
    // object.c
    ("object|encoding", object::object_encoding),
    ("object|refcount", object::object_refcount),
    ("object|idletime", object::object_idletime),
    ("object|freq", object::object_freq),
    ("object|help", server::container_help),
    ("memory|usage", object::memory_usage),
    ("memory|stats", object::memory_stats),
    ("memory|doctor", object::memory_doctor),
    ("memory|purge", object::memory_purge),
    ("memory|malloc-stats", object::memory_malloc_stats),
    ("memory|help", server::container_help),
    // t_string.c
    ("set", string::set),
    ("get", string::get),
    ("getex", string::getex),
    ("getdel", string::getdel),
    ("getset", string::getset),
    ("setnx", string::setnx),
    ("setex", string::setex),
    ("psetex", string::psetex),
    ("mset", string::mset),
    ("msetnx", string::msetnx),
    ("mget", string::mget),
    ("incr", string::incr),
    ("incrby", string::incrby),
    ("decr", string::decr),
    ("decrby", string::decrby),
    ("incrbyfloat", string::incrbyfloat),
    ("append", string::append),
    ("strlen", string::strlen),
    ("getrange", string::getrange),
    ("substr", string::getrange),
    ("setrange", string::setrange),
    ("lcs", string::lcs),
    // expire.c
    ("expire", expire::expire),
    ("pexpire", expire::pexpire),
    ("expireat", expire::expireat),
    ("pexpireat", expire::pexpireat),
    ("ttl", expire::ttl),
    ("pttl", expire::pttl),
    ("expiretime", expire::expiretime),
    ("pexpiretime", expire::pexpiretime),
    ("persist", expire::persist),
    // t_zset.c
    ("zadd", zset::zadd),
    ("zincrby", zset::zincrby),
    ("zscore", zset::zscore),
    ("zmscore", zset::zmscore),
    ("zcard", zset::zcard),
    ("zcount", zset::zcount),
    ("zlexcount", zset::zlexcount),
    ("zrange", zset::zrange),
    ("zrangebyscore", zset::zrangebyscore),
    ("zrevrangebyscore", zset::zrevrangebyscore),
    ("zrangebylex", zset::zrangebylex),
    ("zrevrangebylex", zset::zrevrangebylex),
    ("zrevrange", zset::zrevrange),
    ("zrank", zset::zrank),
    ("zrevrank", zset::zrevrank),
    ("zrem", zset::zrem),
    ("zremrangebyscore", zset::zremrangebyscore),
    ("zremrangebyrank", zset::zremrangebyrank),
    ("zremrangebylex", zset::zremrangebylex),
    ("zpopmin", zset::zpopmin),
    ("zpopmax", zset::zpopmax),
    ("zmpop", zset::zmpop),
    ("zrandmember", zset::zrandmember),
    ("zunion", zset::zunion),
    ("zinter", zset::zinter),
    ("zdiff", zset::zdiff),
    ("zunionstore", zset::zunionstore),
    ("zinterstore", zset::zinterstore),
    ("zdiffstore", zset::zdiffstore),
    ("zintercard", zset::zintercard),
    ("zrangestore", zset::zrangestore),
    ("zscan", zset::zscan),
    // geo.c
    ("geoadd", super::geo::geoadd),
    ("geopos", super::geo::geopos),
    ("geodist", super::geo::geodist),
    ("geohash", super::geo::geohash),
    ("geosearch", super::geo::geosearch),
    ("geosearchstore", super::geo::geosearchstore),
    ("georadius", super::geo::georadius),
    ("georadiusbymember", super::geo::georadiusbymember),
    ("georadius_ro", super::geo::georadius_ro),
    ("georadiusbymember_ro", super::geo::georadiusbymember_ro),
    // t_list.c
    ("lpush", list::lpush),
    ("rpush", list::rpush),
    ("lpushx", list::lpushx),
    ("rpushx", list::rpushx),
    ("linsert", list::linsert),
    ("llen", list::llen),
    ("lindex", list::lindex),
    ("lset", list::lset),
    ("lpop", list::lpop),
    ("rpop", list::rpop),
    ("lmpop", list::lmpop),
    ("lrange", list::lrange),
    ("ltrim", list::ltrim),
    ("lpos", list::lpos),
    ("lrem", list::lrem),
    ("lmove", list::lmove),
    ("rpoplpush", list::rpoplpush),
    // t_hash.c
    ("hset", hash::hset),
    ("hmset", hash::hmset),
    ("hsetnx", hash::hsetnx),
    ("hget", hash::hget),
    ("hmget", hash::hmget),
    ("hdel", hash::hdel),
    ("hlen", hash::hlen),
    ("hstrlen", hash::hstrlen),
    ("hexists", hash::hexists),
    ("hkeys", hash::hkeys),
    ("hvals", hash::hvals),
    ("hgetall", hash::hgetall),
    ("hincrby", hash::hincrby),
    ("hincrbyfloat", hash::hincrbyfloat),
    ("hrandfield", hash::hrandfield),
    ("hscan", hash::hscan),
    // t_set.c
    ("sadd", super::set::sadd),
    ("srem", super::set::srem),
    ("smove", super::set::smove),
    ("sismember", super::set::sismember),
    ("smismember", super::set::smismember),
    ("scard", super::set::scard),
    ("spop", super::set::spop),
    ("srandmember", super::set::srandmember),
    ("smembers", super::set::smembers),
    ("sinter", super::set::sinter),
    ("sintercard", super::set::sintercard),
    ("sinterstore", super::set::sinterstore),
    ("sunion", super::set::sunion),
    ("sunionstore", super::set::sunionstore),
    ("sdiff", super::set::sdiff),
    ("sdiffstore", super::set::sdiffstore),
    ("sscan", super::set::sscan),
    // t_stream.c
    ("xadd", super::stream::xadd),
    ("xlen", super::stream::xlen),
    ("xrange", super::stream::xrange),
    ("xrevrange", super::stream::xrevrange),
    ("xdel", super::stream::xdel),
    ("xtrim", super::stream::xtrim),
    ("xsetid", super::stream::xsetid),
    ("xread", super::stream::xread),
    ("xreadgroup", super::stream::xreadgroup),
    ("xgroup|create", super::stream_group::xgroup_create),
    ("xgroup|setid", super::stream_group::xgroup_setid),
    ("xgroup|destroy", super::stream_group::xgroup_destroy),
    ("xgroup|createconsumer", super::stream_group::xgroup_createconsumer),
    ("xgroup|delconsumer", super::stream_group::xgroup_delconsumer),
    ("xgroup|help", server::container_help),
    ("xack", super::stream_group::xack),
    ("xpending", super::stream_group::xpending),
    ("xclaim", super::stream_group::xclaim),
    ("xautoclaim", super::stream_group::xautoclaim),
    ("xinfo|stream", super::stream_info::xinfo_stream),
    ("xinfo|groups", super::stream_info::xinfo_groups),
    ("xinfo|consumers", super::stream_info::xinfo_consumers),
    ("xinfo|help", server::container_help),
    // eval.c
    ("eval", super::eval::eval),
    ("evalsha", super::eval::evalsha),
    ("eval_ro", super::eval::eval_ro),
    ("evalsha_ro", super::eval::evalsha_ro),
    ("script|load", super::eval::script_load),
    ("script|exists", super::eval::script_exists),
    ("script|flush", super::eval::script_flush),
    ("script|kill", super::eval::script_kill),
    ("script|debug", super::eval::script_debug),
    ("script|help", server::container_help),
    // playground-only (not Redis)
    ("clock|get", clock::clock_get),
    ("clock|set", clock::clock_set),
    ("clock|advance", clock::clock_advance),
    ("clock|help", server::container_help),
    // multi.c
    ("multi", multi::multi),
    ("exec", multi::exec),
    ("discard", multi::discard),
    ("watch", multi::watch),
    ("unwatch", multi::unwatch),
    // pubsub.c
    ("subscribe", pubsub::subscribe),
    ("unsubscribe", pubsub::unsubscribe),
    ("psubscribe", pubsub::psubscribe),
    ("punsubscribe", pubsub::punsubscribe),
    ("publish", pubsub::publish_command),
    ("pubsub|channels", pubsub::pubsub_channels),
    ("pubsub|numsub", pubsub::pubsub_numsub),
    ("pubsub|numpat", pubsub::pubsub_numpat),
    ("pubsub|shardchannels", pubsub::pubsub_shardchannels),
    ("pubsub|shardnumsub", pubsub::pubsub_shardnumsub),
    ("pubsub|help", server::container_help),
    // networking.c
    ("client|id", networking::client_id),
    ("client|getname", networking::client_getname),
    ("client|setname", networking::client_setname),
    ("client|info", networking::client_info),
    ("client|list", networking::client_list),
    ("client|kill", networking::client_kill),
    ("client|help", server::container_help),
    ("hello", networking::hello),
    ("auth", networking::auth),
    ("reset", networking::reset),
    ("quit", networking::quit),
    // blocking pops (t_list.c, t_zset.c)
    ("blpop", list::blpop),
    ("brpop", list::brpop),
    ("blmpop", list::blmpop),
    ("blmove", list::blmove),
    ("brpoplpush", list::brpoplpush),
    ("bzpopmin", zset::bzpopmin),
    ("bzpopmax", zset::bzpopmax),
    ("bzmpop", zset::bzmpop),
];

/// One command or subcommand.
pub struct Command {
    /// Lowercase full name: `get`, `config|get`.
    pub name: String,
    pub arity: i64,
    pub flags: Vec<String>,
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
}

impl Command {
    pub fn has_flag(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
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
    index: HashMap<Vec<u8>, usize>,
}

/// Why a call was rejected before running.
pub enum Lookup<'a> {
    Found(&'a Command),
    Rejected(Reply),
}

impl CommandTable {
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
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len()).min(max);
    b[..end].to_vec()
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

static TABLE: OnceLock<CommandTable> = OnceLock::new();

/// The table, built once from the recorded specs and the handler list (immutable data).
pub fn table() -> &'static CommandTable {
    TABLE.get_or_init(build_table)
}

const SPECS: &[u8] = include_bytes!("specs.resp");

fn build_table() -> CommandTable {
    let handlers: HashMap<&str, Handler> = HANDLERS.iter().copied().collect();
    let mut commands = Vec::new();
    if let Some((Reply::Array(entries), _)) = parse_resp(SPECS) {
        for entry in entries {
            if let Reply::Array(parts) = entry {
                if let [Reply::Bulk(name), info, docs, help] = parts.as_slice() {
                    let name = String::from_utf8_lossy(name).into_owned();
                    let help = if matches!(help, Reply::Nil) { None } else { Some(help.clone()) };
                    commands.push(command_from_spec(&name, info, docs, help, &handlers));
                }
            }
        }
    }
    commands.push(super::clock::spec(&handlers));
    // Keep only what we can run: a command with a handler, or a container with subcommands.
    commands.retain(|c| c.handler.is_some() || !c.subcommands.is_empty());
    commands.sort_by(|a, b| a.name.cmp(&b.name));
    let index = commands.iter().enumerate().map(|(i, c)| (c.name.as_bytes().to_vec(), i)).collect();
    CommandTable { commands, index }
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
    Command {
        name: name.to_string(),
        arity: int_at(items, 1),
        flags: words_at(items, 2),
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_handler_has_recorded_metadata() {
        let t = table();
        for (name, _) in HANDLERS {
            let found = match name.split_once('|') {
                Some((c, s)) => t.get(c.as_bytes()).and_then(|c| c.subcommand(s.as_bytes())).is_some(),
                None => t.get(name.as_bytes()).is_some(),
            };
            assert!(found, "{name} has a handler but no spec in specs.resp");
        }
    }

    #[test]
    fn every_recorded_command_can_run() {
        for c in &table().commands {
            assert!(c.handler.is_some() || c.is_container(), "{} has no handler", c.name);
            for s in &c.subcommands {
                assert!(s.handler.is_some(), "{} has no handler", s.name);
            }
        }
    }

    #[test]
    fn metadata_comes_from_the_recording() {
        let get = table().get(b"GET").unwrap();
        assert_eq!(get.arity, 2);
        assert_eq!((get.first_key, get.last_key, get.step), (1, 1, 1));
        assert!(get.has_flag("readonly") && get.has_flag("fast"));
        assert_eq!(get.group, "string");
        assert_eq!(get.summary, "Get the value of a key");
        let cfg = table().get(b"config").unwrap();
        assert_eq!(cfg.subcommand(b"GET").unwrap().name, "config|get");
    }
}
