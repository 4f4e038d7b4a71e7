//! Commands: how a command is found and run, and one file per family named after the Redis
//! source file it models. Shared reply helpers live here, with Redis's exact error strings
//! (server.c `createSharedObjects()`).
//!
//! Finding and running:
//! - `table.rs`: the command table — every handler paired with the metadata recorded from
//!   redis-server 7.0 (`specs.resp`);
//! - `call.rs`: a table row, the lookup and arity checks, and what a handler sees (`Call`);
//! - `dispatch.rs`: server.c `processCommand()` and `call()`.
//!
//! The families (file ↔ Redis file):
//! - `server.rs` ↔ server.c (PING, ECHO, TIME, COMMAND, SHUTDOWN), `info.rs` ↔ server.c's INFO, `db.rs` ↔ db.c, `object.rs` ↔
//!   object.c (OBJECT, MEMORY), `config.rs` ↔ config.c, `latency.rs` ↔ latency.c (LATENCY),
//!   `slowlog.rs` ↔ slowlog.c (SLOWLOG), `debug.rs` ↔ debug.c (DEBUG), `module.rs` ↔ module.c
//!   (MODULE, without modules), `lolwut.rs` ↔ lolwut.c, lolwut5.c, lolwut6.c, `networking.rs` ↔ networking.c
//!   (CLIENT, HELLO, AUTH, RESET, QUIT), `tracking.rs` ↔ tracking.c's CLIENT subcommands
//!   (TRACKING, CACHING, GETREDIR, TRACKINGINFO), `replication.rs` ↔ replication.c (ROLE,
//!   MONITOR);
//! - `acl.rs` ↔ acl.c (ACL, and the permission check dispatch, EXEC and scripts run; users are
//!   ../acl.rs);
//! - `string.rs` ↔ t_string.c, `expire.rs` ↔ expire.c, `list.rs` ↔ t_list.c, `hash.rs` ↔
//!   t_hash.c, `set.rs` ↔ t_set.c, `zset.rs` ↔ t_zset.c, `geo.rs` ↔ geo.c, `bitops.rs` ↔
//!   bitops.c, `hyperloglog.rs` ↔ hyperloglog.c, `sort.rs` ↔ sort.c,
//!   `stream.rs`, `stream_read.rs`, `stream_group.rs`, `stream_info.rs` ↔ t_stream.c;
//! - `cluster.rs` ↔ cluster.c (DUMP, RESTORE: the payload format is ../persist/rdb.rs);
//! - `rdb.rs` ↔ rdb.c (SAVE, BGSAVE, LASTSAVE, and the engine's side of an RDB file: the format
//!   is ../persist/rdb_file.rs);
//! - `aof.rs` ↔ aof.c's writing side (appendonly, BGREWRITEAOF, the incr files and manifest),
//!   `aof_load.rs` ↔ aof.c's loading side and server.c's `loadDataFromDisk()` (DEBUG LOADAOF;
//!   the format is ../persist/aof.rs);
//! - `multi.rs` ↔ multi.c, `pubsub.rs` ↔ pubsub.c (the tables and delivery are ../pubsub.rs),
//!   `eval.rs` ↔ eval.c, `functions.rs` ↔ functions.c (the Lua side of both is ../script/);
//! - `clock.rs`: the playground's own CLOCK command (not Redis).

pub mod acl;
pub mod aof;
pub mod aof_load;
pub mod bitops;
pub mod call;
pub mod clock;
pub mod cluster;
pub mod config;
pub mod db;
pub mod debug;
pub mod dispatch;
pub mod eval;
pub mod expire;
pub mod functions;
pub mod geo;
pub mod hash;
pub mod hyperloglog;
pub mod info;
pub mod latency;
pub mod list;
pub mod lolwut;
pub mod module;
pub mod multi;
pub mod networking;
pub mod object;
pub mod pubsub;
pub mod rdb;
pub mod replication;
pub mod server;
pub mod set;
pub mod slowlog;
pub mod sort;
pub mod stream;
pub mod stream_group;
pub mod stream_info;
pub mod stream_read;
pub mod string;
pub mod table;
pub mod tracking;
pub mod zset;

use crate::reply::Reply;
use crate::util::string2ll;

pub const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";
pub const SYNTAX_ERR: &str = "ERR syntax error";
pub const NOT_INTEGER: &str = "ERR value is not an integer or out of range";
pub const NOT_FLOAT: &str = "ERR value is not a valid float";
pub const NO_SUCH_KEY: &str = "ERR no such key";
pub const SAME_OBJECT: &str = "ERR source and destination objects are the same";
pub const OUT_OF_RANGE_DB: &str = "ERR DB index is out of range";

pub fn wrongtype() -> Reply {
    Reply::err(WRONGTYPE)
}

pub fn syntax_error() -> Reply {
    Reply::err(SYNTAX_ERR)
}

/// object.c `getLongLongFromObjectOrReply()`.
pub fn parse_i64(arg: &[u8]) -> Result<i64, Reply> {
    string2ll(arg).ok_or_else(|| Reply::err(NOT_INTEGER))
}

/// object.c `getIntFromObjectOrReply()` with no custom message: an int64, then
/// `getRangeLongFromObjectOrReply()`'s check that it fits a C `int`, with its own error.
pub fn parse_i32(arg: &[u8]) -> Result<i64, Reply> {
    match string2ll(arg) {
        Some(v) if v >= i32::MIN as i64 && v <= i32::MAX as i64 => Ok(v),
        Some(_) => Err(Reply::err("ERR value is out of range, value must between -2147483648 and 2147483647")),
        None => Err(Reply::err(NOT_INTEGER)),
    }
}

pub use crate::util::c_str;

/// `strcasecmp(arg, word) == 0`, with C string semantics.
pub fn is_opt(arg: &[u8], word: &str) -> bool {
    c_str(arg).eq_ignore_ascii_case(word.as_bytes())
}

/// `ERR invalid expire time in '<cmd>' command` (networking.c `addReplyErrorExpireTime()`).
pub fn invalid_expire_time(cmd: &str) -> Reply {
    Reply::Error(format!("ERR invalid expire time in '{cmd}' command").into_bytes())
}

/// networking.c `addReplySubcommandSyntaxError()`: a subcommand given more arguments than it
/// takes (`'%.128s'` of the subcommand as typed).
pub fn subcommand_syntax_error(container: &str, sub: &[u8]) -> Reply {
    let mut msg = b"ERR unknown subcommand or wrong number of arguments for '".to_vec();
    msg.extend(c_str(sub).iter().take(128));
    msg.extend(format!("'. Try {container} HELP.").bytes());
    Reply::Error(msg)
}

/// The index arithmetic of t_list.c `addListRangeReply()`/`ltrimCommand()` and t_zset.c's rank
/// ranges (ZRANGE, ZREMRANGEBYRANK): the inclusive range `[start, end]` of `len` elements after
/// converting negative indexes, or `None` when it is empty.
pub fn clamp_range(start: i64, end: i64, len: i64) -> Option<(usize, usize)> {
    let mut start = if start < 0 { len + start } else { start };
    let mut end = if end < 0 { len + end } else { end };
    if start < 0 {
        start = 0;
    }
    if start > end || start >= len {
        return None;
    }
    if end >= len {
        end = len - 1;
    }
    Some((start as usize, end as usize))
}
