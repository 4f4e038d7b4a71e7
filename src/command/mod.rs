//! Commands: the table (table.rs) and one file per family, named after the Redis source file
//! it models — server.rs ↔ server.c, db.rs ↔ db.c, string.rs ↔ t_string.c, expire.rs ↔
//! expire.c, object.rs ↔ object.c, config.rs ↔ config.c, list.rs ↔ t_list.c, hash.rs ↔
//! t_hash.c, set.rs ↔ t_set.c, zset.rs ↔ t_zset.c, geo.rs ↔ geo.c, multi.rs ↔ multi.c,
//! stream.rs, stream_group.rs, stream_info.rs ↔ t_stream.c,
//! networking.rs ↔ networking.c (Pub/Sub's commands live with their state in ../pubsub.rs) — plus clock.rs, the
//! playground's own CLOCK command. Shared reply helpers live here, with Redis's exact error
//! strings (server.c `createSharedObjects()`).

pub mod clock;
pub mod config;
pub mod db;
pub mod eval;
pub mod expire;
pub mod geo;
pub mod hash;
pub mod list;
pub mod multi;
pub mod networking;
pub mod object;
pub mod replication;
pub mod server;
pub mod set;
pub mod stream;
pub mod stream_group;
pub mod stream_info;
pub mod string;
pub mod table;
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

/// The bytes of an argument as C sees them with `%s`/`strcasecmp`: up to the first NUL.
pub fn c_str(arg: &[u8]) -> &[u8] {
    match arg.iter().position(|&b| b == 0) {
        Some(n) => &arg[..n],
        None => arg,
    }
}

/// `strcasecmp(arg, word) == 0`, with C string semantics.
pub fn is_opt(arg: &[u8], word: &str) -> bool {
    c_str(arg).eq_ignore_ascii_case(word.as_bytes())
}

/// `ERR invalid expire time in '<cmd>' command` (networking.c `addReplyErrorExpireTime()`).
pub fn invalid_expire_time(cmd: &str) -> Reply {
    Reply::Error(format!("ERR invalid expire time in '{cmd}' command").into_bytes())
}
