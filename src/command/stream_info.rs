//! t_stream.c, part three: XINFO STREAM [FULL [COUNT n]], XINFO GROUPS, XINFO CONSUMERS
//! (`xinfoCommand()`, `xinfoReplyWithStreamInfo()`, `streamReplyWithCGLag()`); XINFO HELP is
//! the recorded reply. Fields and their order are 7.0.15's: a consumer has `seen-time` (FULL)
//! or `idle`, no `active-time`/`inactive` (those came in 7.2). Maps are RESP3 maps, flat over
//! RESP2. The key is looked up (`no such key`) before the options are parsed, as in Redis.

use super::stream::{id_reply, range_replies, read_stream, Budget};
use super::stream_group::subcommand_syntax_error;
use crate::command::call::Call;
use crate::command::{is_opt, parse_i64, NO_SUCH_KEY};
use crate::ds::stream::{Group, Stream, StreamId, INVALID_ENTRIES_READ};
use crate::engine::Engine;
use crate::reply::Reply;

fn field(k: &str, v: Reply) -> (Reply, Reply) {
    (Reply::bulk(k), v)
}

fn entries_read(g: &Group) -> Reply {
    if g.entries_read != INVALID_ENTRIES_READ {
        Reply::Integer(g.entries_read)
    } else {
        Reply::Nil
    }
}

fn lag(s: &Stream, g: &Group) -> Reply {
    s.group_lag(g).map_or(Reply::Nil, Reply::Integer)
}

/// `lookupKeyReadOrReply(c, key, shared.nokeyerr)` + `checkType()`.
fn lookup<'a>(e: &'a mut Engine, c: &Call) -> Result<&'a mut Stream, Reply> {
    match read_stream(e, c.db, c.arg(2)) {
        Err(r) => Err(r),
        Ok(None) => Err(Reply::err(NO_SUCH_KEY)),
        Ok(Some(s)) => Ok(s),
    }
}

/// `XINFO STREAM <key> [FULL [COUNT <count>]]`.
pub fn xinfo_stream(e: &mut Engine, c: &Call) -> Reply {
    let mut budget = Budget::new(e);
    let s = match lookup(e, c) {
        Ok(s) => &*s,
        Err(r) => return r,
    };
    let argc = c.argc() - 3;
    let mut full = false;
    let mut count: i64 = 10;
    if argc > 0 {
        if !is_opt(c.arg(3), "full") {
            return subcommand_syntax_error(c);
        }
        full = true;
        if argc == 3 && is_opt(c.arg(4), "count") {
            count = match parse_i64(c.arg(5)) {
                Ok(n) if n < 0 => 10,
                Ok(n) => n,
                Err(r) => return r,
            };
        } else if argc != 1 {
            return subcommand_syntax_error(c);
        }
    }
    let mut m = vec![
        field("length", Reply::Integer(s.length as i64)),
        field("radix-tree-keys", Reply::Integer(s.rax_keys() as i64)),
        field("radix-tree-nodes", Reply::Integer(s.rax_nodes() as i64)),
        field("last-generated-id", id_reply(s.last_id)),
        field("max-deleted-entry-id", id_reply(s.max_deleted_entry_id)),
        field("entries-added", Reply::Integer(s.entries_added as i64)),
        field("recorded-first-entry-id", id_reply(s.first_id)),
    ];
    if !full {
        m.push(field("groups", Reply::Integer(s.group_count() as i64)));
        for (name, rev) in [("first-entry", false), ("last-entry", true)] {
            let entry = match range_replies(s, StreamId::MIN, StreamId::MAX, 1, rev, &mut budget) {
                Ok(mut v) => v.pop().map_or(Reply::Nil, |(_, r)| r),
                Err(r) => return r,
            };
            m.push(field(name, entry));
        }
        return Reply::Map(m);
    }
    let limit = usize::try_from(count).unwrap_or(usize::MAX);
    let take = if limit == 0 { usize::MAX } else { limit };
    let entries = match range_replies(s, StreamId::MIN, StreamId::MAX, limit, false, &mut budget) {
        Ok(v) => Reply::Array(v.into_iter().map(|(_, r)| r).collect()),
        Err(r) => return r,
    };
    m.push(field("entries", entries));
    let mut groups = Vec::new();
    for (name, g) in s.groups() {
        let mut pending = Vec::new();
        for (id, n) in g.pel.iter().take(take) {
            if let Err(r) = budget.charge(n.consumer.len() + 24, 5) {
                return r;
            }
            pending.push(Reply::Array(vec![
                id_reply(*id),
                Reply::bulk(&n.consumer),
                Reply::Integer(n.delivery_time),
                Reply::Integer(n.delivery_count as i64),
            ]));
        }
        let mut consumers = Vec::new();
        for (cname, cons) in &g.consumers {
            let mut cpel = Vec::new();
            for id in cons.pel.iter().take(take) {
                let Some(n) = g.pel.get(id) else { continue };
                if let Err(r) = budget.charge(24, 4) {
                    return r;
                }
                cpel.push(Reply::Array(vec![
                    id_reply(*id),
                    Reply::Integer(n.delivery_time),
                    Reply::Integer(n.delivery_count as i64),
                ]));
            }
            consumers.push(Reply::Map(vec![
                field("name", Reply::bulk(cname)),
                field("seen-time", Reply::Integer(cons.seen_time)),
                field("pel-count", Reply::Integer(cons.pel.len() as i64)),
                field("pending", Reply::Array(cpel)),
            ]));
        }
        groups.push(Reply::Map(vec![
            field("name", Reply::bulk(name)),
            field("last-delivered-id", id_reply(g.last_id)),
            field("entries-read", entries_read(g)),
            field("lag", lag(s, g)),
            field("pel-count", Reply::Integer(g.pel.len() as i64)),
            field("pending", Reply::Array(pending)),
            field("consumers", Reply::Array(consumers)),
        ]));
    }
    m.push(field("groups", Reply::Array(groups)));
    Reply::Map(m)
}

/// `XINFO GROUPS <key>`.
pub fn xinfo_groups(e: &mut Engine, c: &Call) -> Reply {
    let s = match lookup(e, c) {
        Ok(s) => &*s,
        Err(r) => return r,
    };
    Reply::Array(
        s.groups()
            .map(|(name, g)| {
                Reply::Map(vec![
                    field("name", Reply::bulk(name)),
                    field("consumers", Reply::Integer(g.consumers.len() as i64)),
                    field("pending", Reply::Integer(g.pel.len() as i64)),
                    field("last-delivered-id", id_reply(g.last_id)),
                    field("entries-read", entries_read(g)),
                    field("lag", lag(s, g)),
                ])
            })
            .collect(),
    )
}

/// `XINFO CONSUMERS <key> <group>`.
pub fn xinfo_consumers(e: &mut Engine, c: &Call) -> Reply {
    let now = e.now_ms();
    let s = match lookup(e, c) {
        Ok(s) => &*s,
        Err(r) => return r,
    };
    let Some(g) = s.group(c.arg(3)) else {
        return super::stream_group::nogroup_for_key(c.arg(2), c.arg(3));
    };
    Reply::Array(
        g.consumers
            .iter()
            .map(|(name, cons)| {
                Reply::Map(vec![
                    field("name", Reply::bulk(name)),
                    field("pending", Reply::Integer(cons.pel.len() as i64)),
                    field("idle", Reply::Integer(now.wrapping_sub(cons.seen_time).max(0))),
                ])
            })
            .collect(),
    )
}
