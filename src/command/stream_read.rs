//! t_stream.c, part two: XREAD and XREADGROUP — `xreadCommand()`'s parsing and order of checks,
//! the reply (a map per stream over RESP3, pairs over RESP2), and BLOCK: the client is parked in
//! blocked.rs with its command resolved as Redis keeps it in `c->bpop` (`$` replaced by the ID
//! it meant, the COUNT defaulting to 1000), and `serve_blocked` answers it from the stream when
//! its key is signalled ready, as blocked.c `serveClientsBlockedOnStreamKey()` does. The group
//! side of XREADGROUP (consumers, PELs, NOACK) is stream_group.rs; IDs, lookups and the entry
//! replies are stream.rs. Inside MULTI a BLOCK answers a null array at once; inside a script
//! BLOCK is an error, as in Redis; a BLOCK timeout too large to add to the clock wraps and
//! never fires, as in 7.0.15.

use super::stream::{parse_id, parse_strict_id, range_replies, read_stream, Budget};
use crate::command::call::Call;
use crate::command::{c_str, is_opt, parse_i64, syntax_error};
use crate::ds::stream::StreamId;
use crate::engine::{ClientId, Engine};
use crate::object::Value;
use crate::reply::Reply;
use crate::util::string2ll;

/// XREAD_BLOCKED_DEFAULT_COUNT.
const XREAD_BLOCKED_DEFAULT_COUNT: i64 = 1000;

/// What `xreadCommand()` parsed.
struct ReadArgs {
    block: Option<i64>,
    count: i64,
    noack: bool,
    group: Option<(Vec<u8>, Vec<u8>)>,
    streams_arg: usize,
    streams_count: usize,
}

fn parse_read_args(e: &Engine, c: &Call, xreadgroup: bool) -> Result<ReadArgs, Reply> {
    let mut a = ReadArgs { block: None, count: 0, noack: false, group: None, streams_arg: 0, streams_count: 0 };
    let argc = c.argc();
    let mut i = 1;
    while i < argc {
        let moreargs = argc - i - 1;
        let o = c.arg(i);
        if is_opt(o, "block") && moreargs > 0 {
            if e.in_script {
                let mut msg = b"ERR ".to_vec();
                msg.extend_from_slice(c_str(c.arg(0)));
                msg.extend_from_slice(b" command is not allowed with BLOCK option from scripts");
                return Err(Reply::Error(msg));
            }
            i += 1;
            a.block = Some(crate::blocked::parse_timeout_ms(e, c.arg(i))?);
        } else if is_opt(o, "count") && moreargs > 0 {
            i += 1;
            a.count = parse_i64(c.arg(i))?.max(0);
        } else if is_opt(o, "streams") && moreargs > 0 {
            a.streams_arg = i + 1;
            let n = argc - a.streams_arg;
            if !n.is_multiple_of(2) {
                let (name, symbol) = if xreadgroup { ("XREADGROUP", '>') } else { ("XREAD", '$') };
                return Err(Reply::err(format!(
                    "ERR Unbalanced {name} list of streams: for each stream key an ID or '{symbol}' must be specified."
                )));
            }
            a.streams_count = n / 2;
            break;
        } else if is_opt(o, "group") && moreargs >= 2 {
            if !xreadgroup {
                return Err(Reply::err(
                    "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.",
                ));
            }
            a.group = Some((c.arg(i + 1).to_vec(), c.arg(i + 2).to_vec()));
            i += 2;
        } else if is_opt(o, "noack") {
            if !xreadgroup {
                return Err(Reply::err(
                    "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.",
                ));
            }
            a.noack = true;
        } else {
            return Err(syntax_error());
        }
        i += 1;
    }
    if a.streams_arg == 0 {
        return Err(syntax_error());
    }
    if xreadgroup && a.group.is_none() {
        return Err(Reply::err("ERR Missing GROUP option for XREADGROUP"));
    }
    Ok(a)
}

pub(crate) fn nogroup_read_error(key: &[u8], group: &[u8]) -> Reply {
    let mut msg = b"NOGROUP No such key '".to_vec();
    msg.extend_from_slice(c_str(key));
    msg.extend_from_slice(b"' or consumer group '");
    msg.extend_from_slice(c_str(group));
    msg.extend_from_slice(b"' in XREADGROUP with GROUP option");
    Reply::Error(msg)
}

/// t_stream.c `xreadCommand()`, for XREAD and XREADGROUP (told apart by the length of the
/// command name, as Redis does).
fn xread_generic(e: &mut Engine, c: &Call) -> Reply {
    let xreadgroup = c.arg(0).len() == 10;
    let a = match parse_read_args(e, c, xreadgroup) {
        Ok(a) => a,
        Err(r) => return r,
    };
    let keys: Vec<Vec<u8>> = c.argv[a.streams_arg..a.streams_arg + a.streams_count].to_vec();
    let mut ids: Vec<StreamId> = Vec::with_capacity(a.streams_count);
    for (n, key) in keys.iter().enumerate() {
        let arg = c.arg(a.streams_arg + a.streams_count + n);
        let s = match read_stream(e, c.db, key) {
            Ok(s) => s,
            Err(r) => return r,
        };
        if let Some((group, _)) = &a.group {
            if s.as_ref().and_then(|s| s.group(group)).is_none() {
                return nogroup_read_error(key, group);
            }
        }
        if arg == b"$" {
            if xreadgroup {
                return Reply::err("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.");
            }
            ids.push(s.map_or(StreamId::MIN, |s| s.last_id));
            continue;
        } else if arg == b">" {
            if !xreadgroup {
                return Reply::err(
                    "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.",
                );
            }
            ids.push(StreamId::MAX);
            continue;
        }
        match parse_strict_id(arg, 0) {
            Ok(id) => ids.push(id),
            Err(r) => return r,
        }
    }

    let mut budget = Budget::new(e);
    let mut served: Vec<(Reply, Reply)> = Vec::new();
    for (n, key) in keys.iter().enumerate() {
        let s = match read_stream(e, c.db, key) {
            Ok(Some(s)) => s,
            _ => continue,
        };
        let mut gt = ids[n];
        let mut serve = false;
        let mut history = false;
        if let Some((group, _)) = &a.group {
            if gt != StreamId::MAX {
                serve = true;
                history = true;
            } else if s.length > 0 {
                let last = s.group(group).map_or(StreamId::MIN, |g| g.last_id);
                if s.last_valid_id() > last {
                    serve = true;
                    gt = last;
                }
            }
        } else if s.length > 0 && s.last_valid_id() > gt {
            serve = true;
        }
        if !serve {
            continue;
        }
        let mut start = gt;
        start.incr();
        let count = usize::try_from(a.count).unwrap_or(usize::MAX);
        let entries = match &a.group {
            None => range_replies(s, start, StreamId::MAX, count, false, &mut budget)
                .map(|v| Reply::Array(v.into_iter().map(|(_, r)| r).collect())),
            Some((group, consumer)) => {
                super::stream_group::lookup_or_create_consumer(e, c.db, key, group, consumer, a.noack);
                let r = if history {
                    super::stream_group::consumer_history(e, c.db, key, group, consumer, start, count, &mut budget)
                } else {
                    super::stream_group::read_new_entries(
                        e,
                        c.db,
                        key,
                        group,
                        consumer,
                        start,
                        count,
                        a.noack,
                        &mut budget,
                    )
                };
                e.dirty(1);
                r
            }
        };
        match entries {
            Ok(r) => served.push((Reply::Bulk(key.clone()), r)),
            Err(r) => return r,
        }
    }
    if !served.is_empty() {
        return Reply::KeyedMap(served);
    }
    if let Some(timeout) = a.block {
        if e.deny_blocking(c.client) {
            return Reply::NilArray;
        }
        // The command as `c->bpop` keeps it: count, NOACK, group, consumer, the keys and the
        // IDs they wait beyond (`$` resolved now).
        let count = if a.count != 0 { a.count } else { XREAD_BLOCKED_DEFAULT_COUNT };
        let (group, consumer) = a.group.clone().unwrap_or_default();
        let mut argv = vec![
            c.arg(0).to_vec(),
            count.to_string().into_bytes(),
            if a.noack { b"1".to_vec() } else { b"0".to_vec() },
            group,
            consumer,
        ];
        argv.extend(keys.iter().cloned());
        argv.extend(ids.iter().map(|id| id.to_string().into_bytes()));
        return e.block_for_keys(c.client, c.db, &keys, timeout, &argv, serve_blocked);
    }
    Reply::NilArray
}

pub fn xread(e: &mut Engine, c: &Call) -> Reply {
    xread_generic(e, c)
}

pub fn xreadgroup(e: &mut Engine, c: &Call) -> Reply {
    xread_generic(e, c)
}

/// blocked.c `serveClientsBlockedOnStreamKey()` for one client: `None` while the stream has
/// nothing beyond the ID it waits for (or the key is not a stream).
fn serve_blocked(e: &mut Engine, _client: ClientId, db: usize, key: &[u8], argv: &[Vec<u8>]) -> Option<Reply> {
    if argv.len() < 5 {
        return None;
    }
    let count = string2ll(&argv[1]).unwrap_or(XREAD_BLOCKED_DEFAULT_COUNT).max(0);
    let noack = argv[2] == b"1";
    let grouped = argv[0].len() == 10;
    let rest = &argv[5..];
    let n = rest.len() / 2;
    let idx = rest[..n].iter().position(|k| k.as_slice() == key)?;
    let waited = parse_id(&rest[n + idx], 0).ok()?;
    let (group, consumer) = (&argv[3], &argv[4]);
    let s = match e.dbs[db].get(key).map(|o| &o.value) {
        Some(Value::Stream(s)) => s,
        _ => return None,
    };
    let gt = if grouped {
        match s.group(group) {
            None => {
                e.stats.total_error_replies += 1;
                return Some(Reply::err("NOGROUP the consumer group this client was blocked on no longer exists"));
            }
            Some(g) => g.last_id,
        }
    } else {
        waited
    };
    if s.last_id <= gt {
        return None;
    }
    let mut start = gt;
    start.incr();
    let mut budget = Budget::new(e);
    let count = usize::try_from(count).unwrap_or(usize::MAX);
    let entries = if grouped {
        super::stream_group::lookup_or_create_consumer(e, db, key, group, consumer, noack);
        super::stream_group::read_new_entries(e, db, key, group, consumer, start, count, noack, &mut budget)
    } else {
        let s = match e.dbs[db].get(key).map(|o| &o.value) {
            Some(Value::Stream(s)) => s,
            _ => return None,
        };
        range_replies(s, start, StreamId::MAX, count, false, &mut budget)
            .map(|v| Reply::Array(v.into_iter().map(|(_, r)| r).collect()))
    };
    Some(match entries {
        Ok(r) => Reply::KeyedMap(vec![(Reply::bulk(key), r)]),
        Err(r) => r,
    })
}
