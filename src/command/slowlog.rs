//! slowlog.c's SLOWLOG command: GET [count], LEN, RESET (HELP is the recorded reply). The log
//! is kept by ../slowlog.rs from call().

use crate::command::call::Call;
use crate::engine::Engine;
use crate::reply::Reply;
use crate::util::string2ll;

/// `SLOWLOG GET [count]`: the newest `count` entries (10; -1 for all), each `[id, time,
/// duration, [args…], addr, name]`.
pub fn slowlog_get(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() > 3 {
        return Reply::err(format!(
            "ERR unknown subcommand or wrong number of arguments for '{}'. Try SLOWLOG HELP.",
            String::from_utf8_lossy(crate::command::c_str(c.arg(1)))
        ));
    }
    let mut count: i64 = 10;
    if c.argc() == 3 {
        // getRangeLongFromObjectOrReply(…, -1, LONG_MAX, "count should be greater than or equal to -1")
        match string2ll(c.arg(2)) {
            Some(n) if n >= -1 => count = n,
            _ => return Reply::err("ERR count should be greater than or equal to -1"),
        }
    }
    let n = if count == -1 { e.slowlog.entries.len() } else { count as usize };
    Reply::Array(
        e.slowlog
            .entries
            .iter()
            .take(n)
            .map(|se| {
                Reply::Array(vec![
                    Reply::Integer(se.id as i64),
                    Reply::Integer(se.time),
                    Reply::Integer(se.duration as i64),
                    Reply::Array(se.argv.iter().map(Reply::bulk).collect()),
                    Reply::bulk(&se.peer),
                    Reply::bulk(&se.name),
                ])
            })
            .collect(),
    )
}

pub fn slowlog_len(e: &mut Engine, _c: &Call) -> Reply {
    Reply::Integer(e.slowlog.entries.len() as i64)
}

pub fn slowlog_reset(e: &mut Engine, _c: &Call) -> Reply {
    e.slowlog.entries.clear();
    Reply::ok()
}
