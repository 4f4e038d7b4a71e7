//! The command table: one row per command, as data. Models server.c's command table
//! (`populateCommandTable`, generated in Redis from `src/commands/*.json`).
//!
//! Redis's own metadata — arity, flags, key positions, ACL categories, summary, since, group,
//! complexity, the full COMMAND INFO/DOCS replies and each container's HELP — is recorded from
//! a live redis-server 7.0 into `specs.resp` by `tools/record-command-specs.py`. This file
//! pairs each recorded name with its handler; playground-only commands (CLOCK) carry their
//! metadata here. Every Redis 7.0 command's spec is recorded, but the table keeps only those with
//! a handler: adding a command = one `HANDLERS` row + one fn.
//!
//! The row type, the lookup and the call context are in call.rs; running a call is dispatch.rs.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::reply::{parse_resp, Reply};

use super::call::{command_from_spec, CommandTable, Handler};
use super::{clock, config, db, expire, hash, list, multi, networking, object, pubsub, server, string, zset};

/// Redis's command names paired with their handlers. Subcommands are `container|sub`.
const HANDLERS: &[(&str, Handler)] = &[
    // server.c
    ("ping", server::ping),
    ("echo", server::echo),
    ("time", server::time),
    ("info", super::info::info),
    ("shutdown", server::shutdown),
    // replication.c
    ("role", super::replication::role),
    ("replicaof", super::replication::replicaof),
    ("slaveof", super::replication::replicaof),
    ("sync", super::replication::sync),
    ("psync", super::replication::psync),
    ("replconf", super::replication::replconf),
    ("wait", super::replication::wait),
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
    // debug.c
    ("debug", super::debug::debug),
    // rdb.c
    ("save", super::rdb::save),
    ("bgsave", super::rdb::bgsave),
    // aof.c
    ("bgrewriteaof", super::aof::bgrewriteaof),
    ("lastsave", super::rdb::lastsave),
    // module.c
    ("module|list", super::module::module_list),
    ("module|load", super::module::module_load),
    ("module|loadex", super::module::module_load),
    ("module|unload", super::module::module_unload),
    ("module|help", server::container_help),
    // lolwut.c
    ("lolwut", super::lolwut::lolwut),
    // latency.c
    ("latency|latest", super::latency::latency_latest),
    ("latency|history", super::latency::latency_history),
    ("latency|reset", super::latency::latency_reset),
    ("latency|doctor", super::latency::latency_doctor),
    ("latency|graph", super::latency::latency_graph),
    ("latency|histogram", super::latency::latency_histogram),
    ("latency|help", server::container_help),
    // slowlog.c
    ("slowlog|get", super::slowlog::slowlog_get),
    ("slowlog|len", super::slowlog::slowlog_len),
    ("slowlog|reset", super::slowlog::slowlog_reset),
    ("slowlog|help", server::container_help),
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
    // cluster.c
    ("dump", super::cluster::dump),
    ("restore", super::cluster::restore),
    ("restore-asking", super::cluster::restore),
    ("migrate", super::cluster::migrate),
    ("readonly", super::cluster::cluster_only),
    ("readwrite", super::cluster::cluster_only),
    ("asking", super::cluster::cluster_only),
    ("cluster|addslots", super::cluster::cluster_disabled),
    ("cluster|addslotsrange", super::cluster::cluster_disabled),
    ("cluster|bumpepoch", super::cluster::cluster_disabled),
    ("cluster|count-failure-reports", super::cluster::cluster_disabled),
    ("cluster|countkeysinslot", super::cluster::cluster_disabled),
    ("cluster|delslots", super::cluster::cluster_disabled),
    ("cluster|delslotsrange", super::cluster::cluster_disabled),
    ("cluster|failover", super::cluster::cluster_disabled),
    ("cluster|flushslots", super::cluster::cluster_disabled),
    ("cluster|forget", super::cluster::cluster_disabled),
    ("cluster|getkeysinslot", super::cluster::cluster_disabled),
    ("cluster|help", super::cluster::cluster_disabled),
    ("cluster|info", super::cluster::cluster_disabled),
    ("cluster|keyslot", super::cluster::cluster_disabled),
    ("cluster|links", super::cluster::cluster_disabled),
    ("cluster|meet", super::cluster::cluster_disabled),
    ("cluster|myid", super::cluster::cluster_disabled),
    ("cluster|nodes", super::cluster::cluster_disabled),
    ("cluster|replicas", super::cluster::cluster_disabled),
    ("cluster|replicate", super::cluster::cluster_disabled),
    ("cluster|reset", super::cluster::cluster_disabled),
    ("cluster|saveconfig", super::cluster::cluster_disabled),
    ("cluster|set-config-epoch", super::cluster::cluster_disabled),
    ("cluster|setslot", super::cluster::cluster_disabled),
    ("cluster|shards", super::cluster::cluster_disabled),
    ("cluster|slaves", super::cluster::cluster_disabled),
    ("cluster|slots", super::cluster::cluster_disabled),
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
    // bitops.c
    ("setbit", super::bitops::setbit),
    ("getbit", super::bitops::getbit),
    ("bitcount", super::bitops::bitcount),
    ("bitpos", super::bitops::bitpos),
    ("bitop", super::bitops::bitop),
    ("bitfield", super::bitops::bitfield),
    ("bitfield_ro", super::bitops::bitfield_ro),
    // hyperloglog.c
    ("pfadd", super::hyperloglog::pfadd),
    ("pfcount", super::hyperloglog::pfcount),
    ("pfmerge", super::hyperloglog::pfmerge),
    ("pfdebug", super::hyperloglog::pfdebug),
    ("pfselftest", super::hyperloglog::pfselftest),
    // sort.c
    ("sort", super::sort::sort),
    ("sort_ro", super::sort::sort_ro),
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
    ("xread", super::stream_read::xread),
    ("xreadgroup", super::stream_read::xreadgroup),
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
    // functions.c
    ("function|load", super::functions::function_load),
    ("function|list", super::functions::function_list),
    ("function|delete", super::functions::function_delete),
    ("function|flush", super::functions::function_flush),
    ("function|dump", super::functions::function_dump),
    ("function|restore", super::functions::function_restore),
    ("function|stats", super::functions::function_stats),
    ("function|kill", super::functions::function_kill),
    ("function|help", server::container_help),
    ("fcall", super::functions::fcall),
    ("fcall_ro", super::functions::fcall_ro),
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
    ("ssubscribe", pubsub::ssubscribe),
    ("sunsubscribe", pubsub::sunsubscribe),
    ("spublish", pubsub::spublish_command),
    ("pubsub|channels", pubsub::pubsub_channels),
    ("pubsub|numsub", pubsub::pubsub_numsub),
    ("pubsub|numpat", pubsub::pubsub_numpat),
    ("pubsub|shardchannels", pubsub::pubsub_shardchannels),
    ("pubsub|shardnumsub", pubsub::pubsub_shardnumsub),
    ("pubsub|help", server::container_help),
    // acl.c
    ("acl|setuser", super::acl::acl_setuser),
    ("acl|deluser", super::acl::acl_deluser),
    ("acl|getuser", super::acl::acl_getuser),
    ("acl|list", super::acl::acl_list),
    ("acl|users", super::acl::acl_users),
    ("acl|whoami", super::acl::acl_whoami),
    ("acl|cat", super::acl::acl_cat),
    ("acl|genpass", super::acl::acl_genpass),
    ("acl|log", super::acl::acl_log),
    ("acl|dryrun", super::acl::acl_dryrun),
    ("acl|load", super::acl::acl_load),
    ("acl|save", super::acl::acl_save),
    ("acl|help", server::container_help),
    // networking.c
    ("client|id", networking::client_id),
    ("client|getname", networking::client_getname),
    ("client|setname", networking::client_setname),
    ("client|info", networking::client_info),
    ("client|list", networking::client_list),
    ("client|kill", networking::client_kill),
    ("client|reply", networking::client_reply),
    ("client|unblock", networking::client_unblock),
    ("client|pause", networking::client_pause),
    ("client|unpause", networking::client_unpause),
    ("client|no-evict", networking::client_no_evict),
    ("client|help", server::container_help),
    // tracking.c's CLIENT subcommands
    ("client|tracking", super::tracking::client_tracking),
    ("client|caching", super::tracking::client_caching),
    ("client|getredir", super::tracking::client_getredir),
    ("client|trackinginfo", super::tracking::client_trackinginfo),
    // replication.c
    ("monitor", super::replication::monitor),
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

static TABLE: OnceLock<CommandTable> = OnceLock::new();

/// The table, built once from the recorded specs and the handler list (immutable data).
pub fn table() -> &'static CommandTable {
    TABLE.get_or_init(build_table)
}

const SPECS: &[u8] = include_bytes!("specs.resp");

/// Every command and subcommand redis-server 7.0.15 has, as recorded in specs.resp, whether or
/// not it has a handler here: `get`, `config|get`, … (for the README's list of what is missing
/// and the tests that compare it with the table).
pub fn redis_command_names() -> Vec<String> {
    let mut names = Vec::new();
    if let Some((Reply::Array(entries), _)) = parse_resp(SPECS) {
        for entry in entries {
            let Reply::Array(parts) = entry else { continue };
            let [Reply::Bulk(name), Reply::Array(info), ..] = parts.as_slice() else { continue };
            names.push(String::from_utf8_lossy(name).into_owned());
            if let Some(Reply::Array(subs) | Reply::Set(subs)) = info.get(9) {
                for sub in subs {
                    if let Reply::Array(sub) = sub {
                        if let Some(Reply::Bulk(n)) = sub.first() {
                            names.push(String::from_utf8_lossy(n).into_owned());
                        }
                    }
                }
            }
        }
    }
    names.sort();
    names
}

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
    let acl = acl_universe();
    // Keep only what we can run: a command with a handler, or a container with subcommands.
    commands.retain(|c| c.handler.is_some() || !c.subcommands.is_empty());
    commands.sort_by(|a, b| a.name.cmp(&b.name));
    CommandTable::new(commands).with_acl(acl)
}

/// Every command and subcommand redis-server 7.0.15 has, with its ACL categories, as
/// recorded in specs.resp (handler or not: `+@read` and ACL LIST's best fit count them all):
/// acl.c's view of `server.orig_commands`. The playground's CLOCK is not among them: like a
/// module command loaded later, it runs for users whose rules start from `+@all`.
fn acl_universe() -> crate::acl::Universe {
    let words = |r: Option<&Reply>| -> Vec<String> {
        match r {
            Some(Reply::Array(w) | Reply::Set(w)) => w
                .iter()
                .filter_map(|x| match x {
                    Reply::Status(s) => Some(s.clone()),
                    Reply::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
                    _ => None,
                })
                .collect(),
            _ => vec![],
        }
    };
    // (name, categories, subcommands' (name, categories)), sorted.
    type Named = (String, Vec<String>);
    let mut all: Vec<(String, Vec<String>, Vec<Named>)> = Vec::new();
    if let Some((Reply::Array(entries), _)) = parse_resp(SPECS) {
        for entry in entries {
            let Reply::Array(parts) = entry else { continue };
            let [Reply::Bulk(name), Reply::Array(info), ..] = parts.as_slice() else { continue };
            let mut subs: Vec<Named> = Vec::new();
            if let Some(Reply::Array(list) | Reply::Set(list)) = info.get(9) {
                for sub in list {
                    if let Reply::Array(sub) = sub {
                        if let Some(Reply::Bulk(n)) = sub.first() {
                            subs.push((String::from_utf8_lossy(n).into_owned(), words(sub.get(6))));
                        }
                    }
                }
            }
            subs.sort();
            all.push((String::from_utf8_lossy(name).into_owned(), words(info.get(6)), subs));
        }
    }
    all.sort();
    let mut u = crate::acl::Universe::new();
    for (name, cats, subs) in all {
        let id = u.add(&name, &cats, None);
        for (sub, cats) in subs {
            u.add(&sub, &cats, id);
        }
    }
    u
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
