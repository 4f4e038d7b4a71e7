//! t_stream.c, part two: consumer groups — XGROUP CREATE/SETID/DESTROY/CREATECONSUMER/
//! DELCONSUMER, XACK, XPENDING, XCLAIM, XAUTOCLAIM, and the group side of XREADGROUP
//! (`streamReplyWithRange()` with a group: advancing `last_id` and `entries_read`, adding to
//! the PELs; `streamReplyWithRangeFromConsumerPEL()` for a consumer's history).
//!
//! The order of checks and the replies are `xgroupCommand()`'s (options, then the key, then
//! the group; `addReplySubcommandSyntaxError()` for a bad option or count), `xackCommand()`,
//! `xpendingCommand()`, `xclaimCommand()` (IDs first, the options after the first argument that
//! isn't one; the consumer is created only when something is claimed), `xautoclaimCommand()`
//! (7.0's reply with the IDs it found deleted). Times are the virtual clock's: a NACK's
//! delivery time, a consumer's seen-time. Keyspace events: `xgroup-create`, `xgroup-setid`,
//! `xgroup-destroy`, `xgroup-createconsumer` (also from XREADGROUP, XCLAIM and XAUTOCLAIM),
//! `xgroup-delconsumer`. None of these touches WATCH except XGROUP CREATE … MKSTREAM creating
//! the key: Redis calls `signalModifiedKey()` for none of them (checked on redis-server 7.0.15).
//! XGROUP DESTROY signals the key ready, so clients blocked in XREADGROUP on that group get
//! their NOGROUP error.

use super::stream::{
    id_reply, parse_interval_id, parse_range_end, parse_range_start, parse_strict_id, range_replies, read_stream,
    single_entry, stream_at, write_stream, Budget,
};
use crate::command::call::Call;
use crate::command::{c_str, is_opt, parse_i64, syntax_error};
use crate::ds::stream::{Consumer, Group, Nack, StreamId, INVALID_ENTRIES_READ};
use crate::engine::Engine;
use crate::object::Value;
use crate::reply::Reply;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// `addReplySubcommandSyntaxError()`.
pub(crate) fn subcommand_syntax_error(c: &Call) -> Reply {
    let sub = c_str(c.arg(1));
    let mut msg = b"ERR unknown subcommand or wrong number of arguments for '".to_vec();
    msg.extend_from_slice(&sub[..sub.len().min(128)]);
    msg.extend_from_slice(b"'. Try ");
    let mut name = c_str(c.arg(0)).to_vec();
    name.make_ascii_uppercase();
    msg.extend_from_slice(&name);
    msg.extend_from_slice(b" HELP.");
    Reply::Error(msg)
}

/// `-NOGROUP No such key '<key>' or consumer group '<group>'`.
fn nogroup_error(key: &[u8], group: &[u8]) -> Reply {
    let mut msg = b"NOGROUP No such key '".to_vec();
    msg.extend_from_slice(c_str(key));
    msg.extend_from_slice(b"' or consumer group '");
    msg.extend_from_slice(c_str(group));
    msg.extend_from_slice(b"'");
    Reply::Error(msg)
}

/// `-NOGROUP No such consumer group '<group>' for key name '<key>'`.
pub(crate) fn nogroup_for_key(key: &[u8], group: &[u8]) -> Reply {
    let mut msg = b"NOGROUP No such consumer group '".to_vec();
    msg.extend_from_slice(c_str(group));
    msg.extend_from_slice(b"' for key name '");
    msg.extend_from_slice(c_str(key));
    msg.extend_from_slice(b"'");
    Reply::Error(msg)
}

/// `getLongLongFromObjectOrReply()` with a custom message.
fn parse_i64_msg(arg: &[u8], msg: &str) -> Result<i64, Reply> {
    parse_i64(arg).map_err(|_| Reply::err(format!("ERR {msg}")))
}

/// `streamCreateConsumer()` (SCC_DEFAULT: dirty, `xgroup-createconsumer`); false if it exists.
fn create_consumer(e: &mut Engine, db: usize, key: &[u8], group: &[u8], name: &[u8]) -> bool {
    let now = e.now_ms();
    let created = match stream_at(e, db, key).and_then(|s| s.group_mut(group)) {
        Some(g) if !g.consumers.contains_key(name) => {
            g.consumers.insert(name.to_vec(), Consumer { seen_time: now, pel: Default::default() });
            true
        }
        _ => false,
    };
    if created {
        e.dirty(1);
        e.notify_unsignalled("xgroup-createconsumer", db, key);
    }
    created
}

/// `streamLookupConsumer(…, SLC_DEFAULT)` (refreshing its seen-time), else
/// `streamCreateConsumer()` — which, for a NOACK read (whose deliveries propagate no XCLAIM
/// that would create it on a replica), propagates `XGROUP CREATECONSUMER`
/// (`streamPropagateConsumerCreation()`).
pub(crate) fn lookup_or_create_consumer(e: &mut Engine, db: usize, key: &[u8], group: &[u8], name: &[u8], noack: bool) {
    let now = e.now_ms();
    let found = match stream_at(e, db, key).and_then(|s| s.group_mut(group)).and_then(|g| g.consumers.get_mut(name)) {
        Some(c) => {
            c.seen_time = now;
            true
        }
        None => false,
    };
    if !found {
        create_consumer(e, db, key, group, name);
        if noack {
            e.propagate_instead(
                db,
                vec![b"XGROUP".to_vec(), b"CREATECONSUMER".to_vec(), key.to_vec(), group.to_vec(), name.to_vec()],
            );
        }
    }
}

/// Moves (or adds) the pending entry `id` to consumer `to`, as XREADGROUP, XCLAIM and
/// XAUTOCLAIM reassign NACKs: out of the old owner's PEL, into the new one's.
fn assign(g: &mut Group, id: StreamId, to: &[u8]) {
    let old = match g.pel.get_mut(&id) {
        Some(n) => std::mem::replace(&mut n.consumer, to.to_vec()),
        None => return,
    };
    if old.as_slice() != to {
        if let Some(c) = g.consumers.get_mut(&old) {
            c.pel.remove(&id);
        }
    }
    if let Some(c) = g.consumers.get_mut(to) {
        c.pel.insert(id);
    }
}

/// Removes a pending entry from the group and its owner.
fn drop_nack(g: &mut Group, id: StreamId) {
    if let Some(n) = g.pel.remove(&id) {
        if let Some(c) = g.consumers.get_mut(&n.consumer) {
            c.pel.remove(&id);
        }
    }
}

/// `streamReplyWithRange()` with a group, for XREADGROUP's `>`: the entries from `start`,
/// advancing the group's last ID and read counter, and (unless NOACK) adding them to the PELs.
#[allow(clippy::too_many_arguments)]
pub(crate) fn read_new_entries(
    e: &mut Engine,
    db: usize,
    key: &[u8],
    group: &[u8],
    consumer: &[u8],
    start: StreamId,
    count: usize,
    noack: bool,
    budget: &mut Budget,
) -> Result<Reply, Reply> {
    let now = e.now_ms();
    let listening = e.prop.listening;
    let mut claims = Vec::new();
    let mut last_id_moved = false;
    let Some(s) = stream_at(e, db, key) else { return Ok(Reply::Array(vec![])) };
    let items = range_replies(s, start, StreamId::MAX, count, false, budget)?;
    for (id, _) in &items {
        let id = *id;
        let Some(g) = s.group(group) else { break };
        if id > g.last_id {
            let read = if g.entries_read != INVALID_ENTRIES_READ && !s.range_has_tombstones(Some(id), None) {
                g.entries_read.wrapping_add(1)
            } else if s.entries_added > 0 {
                s.estimate_distance(id)
            } else {
                g.entries_read
            };
            let Some(g) = s.group_mut(group) else { break };
            g.entries_read = read;
            g.last_id = id;
            last_id_moved = true;
        }
        if !noack {
            let Some(g) = s.group_mut(group) else { break };
            match g.pel.entry(id) {
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert(Nack { delivery_time: now, delivery_count: 1, consumer: consumer.to_vec() });
                    if let Some(c) = g.consumers.get_mut(consumer) {
                        c.pel.insert(id);
                    }
                }
                std::collections::btree_map::Entry::Occupied(o) => {
                    let n = o.into_mut();
                    n.delivery_time = now;
                    n.delivery_count = 1;
                    assign(g, id, consumer);
                }
            }
            if listening {
                if let Some(n) = g.pel.get(&id) {
                    claims.push(xclaim_argv(key, group, id.to_string().as_bytes(), n, g.last_id));
                }
            }
        }
    }
    // Each delivery propagates as an idempotent XCLAIM; with NOACK, the group's new last ID
    // as XGROUP SETID (t_stream.c streamPropagateXCLAIM(), streamPropagateGroupID()).
    if listening && noack && last_id_moved {
        if let Some(g) = s.group(group) {
            claims.push(setid_argv(key, group, g));
        }
    }
    for argv in claims {
        e.propagate_instead(db, argv);
    }
    Ok(Reply::Array(items.into_iter().map(|(_, r)| r).collect()))
}

/// `streamLookupConsumer(…, SLC_NO_REFRESH)` then XCLAIM/XAUTOCLAIM's touch: the consumer's
/// seen-time is now, created if missing. Returns whether it was created.
fn touch_or_create_consumer(g: &mut Group, name: &[u8], now: i64) -> bool {
    match g.consumers.get_mut(name) {
        Some(cons) => {
            cons.seen_time = now;
            false
        }
        None => {
            g.consumers.insert(name.to_vec(), Consumer { seen_time: now, pel: Default::default() });
            true
        }
    }
}

/// XCLAIM and XAUTOCLAIM propagate what they did (`claims`) and never themselves
/// (`preventCommandPropagation()`).
fn propagate_claims(e: &mut Engine, db: usize, claims: Vec<Vec<Vec<u8>>>) {
    e.prop.call.prevent = true;
    for argv in claims {
        e.propagate_instead(db, argv);
    }
}

/// t_stream.c `streamPropagateGroupID()`: `XGROUP SETID key group last-id ENTRIESREAD n`.
fn setid_argv(key: &[u8], group: &[u8], g: &Group) -> Vec<Vec<u8>> {
    vec![
        b"XGROUP".to_vec(),
        b"SETID".to_vec(),
        key.to_vec(),
        group.to_vec(),
        g.last_id.to_string().into_bytes(),
        b"ENTRIESREAD".to_vec(),
        g.entries_read.to_string().into_bytes(),
    ]
}

/// t_stream.c `streamPropagateXCLAIM()`: `XCLAIM key group consumer 0 id TIME ms RETRYCOUNT n
/// FORCE JUSTID LASTID last-id`, which a replica applies as the master did.
pub(crate) fn xclaim_argv(key: &[u8], group: &[u8], id: &[u8], n: &Nack, last_id: StreamId) -> Vec<Vec<u8>> {
    vec![
        b"XCLAIM".to_vec(),
        key.to_vec(),
        group.to_vec(),
        n.consumer.clone(),
        b"0".to_vec(),
        id.to_vec(),
        b"TIME".to_vec(),
        n.delivery_time.to_string().into_bytes(),
        b"RETRYCOUNT".to_vec(),
        n.delivery_count.to_string().into_bytes(),
        b"FORCE".to_vec(),
        b"JUSTID".to_vec(),
        b"LASTID".to_vec(),
        last_id.to_string().into_bytes(),
    ]
}

/// `streamReplyWithRangeFromConsumerPEL()`: the consumer's pending entries from `start`; an
/// entry deleted meanwhile is `[id, nil]`; each one served counts as a delivery.
#[allow(clippy::too_many_arguments)]
pub(crate) fn consumer_history(
    e: &mut Engine,
    db: usize,
    key: &[u8],
    group: &[u8],
    consumer: &[u8],
    start: StreamId,
    count: usize,
    budget: &mut Budget,
) -> Result<Reply, Reply> {
    let now = e.now_ms();
    let Some(s) = stream_at(e, db, key) else { return Ok(Reply::Array(vec![])) };
    let ids: Vec<StreamId> = match s.group(group).and_then(|g| g.consumers.get(consumer)) {
        Some(c) => c.pel.range(start..).take(if count == 0 { usize::MAX } else { count }).copied().collect(),
        None => vec![],
    };
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        match single_entry(s, id, budget)? {
            Some(r) => {
                out.push(r);
                if let Some(n) = s.group_mut(group).and_then(|g| g.pel.get_mut(&id)) {
                    n.delivery_time = now;
                    n.delivery_count = n.delivery_count.wrapping_add(1);
                }
            }
            None => out.push(Reply::Array(vec![id_reply(id), Reply::NilArray])),
        }
    }
    Ok(Reply::Array(out))
}

// ---------------------------------------------------------------------------------------------
// XGROUP
// ---------------------------------------------------------------------------------------------

/// t_stream.c `xgroupCommand()` for every subcommand but HELP.
fn xgroup_generic(e: &mut Engine, c: &Call) -> Reply {
    let opt = c.arg(1);
    let argc = c.argc();
    let create = is_opt(opt, "create");
    let setid = is_opt(opt, "setid");
    let mut mkstream = false;
    let mut entries_read = INVALID_ENTRIES_READ;
    let mut i = 5;
    while i < argc {
        if create && is_opt(c.arg(i), "mkstream") {
            mkstream = true;
            i += 1;
        } else if (create || setid) && is_opt(c.arg(i), "entriesread") && i + 1 < argc {
            entries_read = match parse_i64(c.arg(i + 1)) {
                Ok(n) => n,
                Err(r) => return r,
            };
            if entries_read < 0 && entries_read != INVALID_ENTRIES_READ {
                return Reply::err("ERR value for ENTRIESREAD must be positive or -1");
            }
            i += 2;
        } else {
            return subcommand_syntax_error(c);
        }
    }
    let key = c.arg(2);
    let group = c.arg(3);
    let exists = match write_stream(e, c.db, key) {
        Err(r) => return r,
        Ok(s) => s.map(|s| s.group(group).is_some()),
    };
    if !mkstream {
        let Some(has_group) = exists else {
            return Reply::err("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.");
        };
        if !has_group && (setid || is_opt(opt, "createconsumer") || is_opt(opt, "delconsumer")) {
            return nogroup_for_key(key, group);
        }
    }

    if create && (5..=8).contains(&argc) {
        let id = if c_str(c.arg(4)) == b"$" {
            match exists {
                Some(_) => stream_at(e, c.db, key).map_or(StreamId::MIN, |s| s.last_id),
                None => StreamId::MIN,
            }
        } else {
            match parse_strict_id(c.arg(4), 0) {
                Ok(id) => id,
                Err(r) => return r,
            }
        };
        if exists.is_none() {
            let obj = e.new_obj(Value::Stream(Box::default()));
            e.dbs[c.db].insert(key.to_vec(), obj);
            // signalModifiedKey() for the new stream.
            e.touch_watched_key(c.db, key);
        }
        let Some(s) = stream_at(e, c.db, key) else { return Reply::Nil };
        if !s.create_group(group, Group::new(id, entries_read)) {
            return Reply::err("BUSYGROUP Consumer Group name already exists");
        }
        e.dirty(1);
        e.notify_unsignalled("xgroup-create", c.db, key);
        Reply::ok()
    } else if setid && (argc == 5 || argc == 7) {
        let Some(s) = stream_at(e, c.db, key) else { return Reply::Nil };
        let id = if c_str(c.arg(4)) == b"$" {
            s.last_id
        } else {
            match super::stream::parse_id(c.arg(4), 0) {
                Ok(id) => id,
                Err(r) => return r,
            }
        };
        if let Some(g) = s.group_mut(group) {
            g.last_id = id;
            g.entries_read = entries_read;
        }
        e.dirty(1);
        e.notify_unsignalled("xgroup-setid", c.db, key);
        Reply::ok()
    } else if is_opt(opt, "destroy") && argc == 4 {
        let removed = stream_at(e, c.db, key).is_some_and(|s| s.remove_group(group));
        if !removed {
            return Reply::Integer(0);
        }
        e.dirty(1);
        e.notify_unsignalled("xgroup-destroy", c.db, key);
        e.signal_key_as_ready(c.db, key);
        Reply::Integer(1)
    } else if is_opt(opt, "createconsumer") && argc == 5 {
        Reply::Integer(create_consumer(e, c.db, key, group, c.arg(4)) as i64)
    } else if is_opt(opt, "delconsumer") && argc == 5 {
        let name = c.arg(4);
        let pending = stream_at(e, c.db, key).and_then(|s| s.group_mut(group)).and_then(|g| {
            let consumer = g.consumers.remove(name)?;
            for id in &consumer.pel {
                g.pel.remove(id);
            }
            Some(consumer.pel.len())
        });
        match pending {
            None => Reply::Integer(0),
            Some(n) => {
                e.dirty(1);
                e.notify_unsignalled("xgroup-delconsumer", c.db, key);
                Reply::Integer(n as i64)
            }
        }
    } else {
        subcommand_syntax_error(c)
    }
}

pub fn xgroup_create(e: &mut Engine, c: &Call) -> Reply {
    xgroup_generic(e, c)
}

pub fn xgroup_setid(e: &mut Engine, c: &Call) -> Reply {
    xgroup_generic(e, c)
}

pub fn xgroup_destroy(e: &mut Engine, c: &Call) -> Reply {
    xgroup_generic(e, c)
}

pub fn xgroup_createconsumer(e: &mut Engine, c: &Call) -> Reply {
    xgroup_generic(e, c)
}

pub fn xgroup_delconsumer(e: &mut Engine, c: &Call) -> Reply {
    xgroup_generic(e, c)
}

// ---------------------------------------------------------------------------------------------
// XACK, XPENDING
// ---------------------------------------------------------------------------------------------

/// t_stream.c `xackCommand()`: no key or group answers 0 before the IDs are parsed; all IDs
/// are parsed before any is acknowledged.
pub fn xack(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    let group = c.arg(2);
    match read_stream(e, c.db, key) {
        Err(r) => return r,
        Ok(None) => return Reply::Integer(0),
        Ok(Some(s)) if s.group(group).is_none() => return Reply::Integer(0),
        Ok(Some(_)) => {}
    }
    let mut ids = Vec::with_capacity(c.argc() - 3);
    for a in &c.argv[3..] {
        match parse_strict_id(a, 0) {
            Ok(id) => ids.push(id),
            Err(r) => return r,
        }
    }
    let mut acked = 0;
    if let Some(g) = stream_at(e, c.db, key).and_then(|s| s.group_mut(group)) {
        for id in ids {
            if g.pel.contains_key(&id) {
                drop_nack(g, id);
                acked += 1;
            }
        }
    }
    e.dirty(acked as u64);
    Reply::Integer(acked)
}

/// t_stream.c `xpendingCommand()`: the summary form, or `[IDLE min] start end count
/// [consumer]`, whose arguments are parsed before the key is looked up.
pub fn xpending(e: &mut Engine, c: &Call) -> Reply {
    let argc = c.argc();
    let justinfo = argc == 3;
    if argc != 3 && !(6..=9).contains(&argc) {
        return syntax_error();
    }
    let mut start = StreamId::MIN;
    let mut end = StreamId::MAX;
    let mut count: i64 = 0;
    let mut minidle: i64 = 0;
    let mut consumer: Option<&[u8]> = None;
    if argc >= 6 {
        let mut startidx = 3;
        if is_opt(c.arg(3), "idle") {
            minidle = match parse_i64(c.arg(4)) {
                Ok(n) => n,
                Err(r) => return r,
            };
            if argc < 8 {
                return syntax_error();
            }
            startidx += 2;
        }
        count = match parse_i64(c.arg(startidx + 2)) {
            Ok(n) => n.max(0),
            Err(r) => return r,
        };
        start = match parse_range_start(c.arg(startidx)) {
            Ok(id) => id,
            Err(r) => return r,
        };
        end = match parse_range_end(c.arg(startidx + 1)) {
            Ok(id) => id,
            Err(r) => return r,
        };
        if startidx + 3 < argc {
            consumer = Some(c.arg(startidx + 3));
        }
    }
    let key = c.arg(1);
    let group = c.arg(2);
    let now = e.now_ms();
    let mut budget = Budget::new(e);
    let s = match read_stream(e, c.db, key) {
        Err(r) => return r,
        Ok(s) => s,
    };
    let Some(g) = s.as_ref().and_then(|s| s.group(group)) else {
        return nogroup_error(key, group);
    };
    if justinfo {
        if g.pel.is_empty() {
            return Reply::Array(vec![Reply::Integer(0), Reply::Nil, Reply::Nil, Reply::NilArray]);
        }
        let first = g.pel.keys().next().copied().unwrap_or_default();
        let last = g.pel.keys().next_back().copied().unwrap_or_default();
        let consumers: Vec<Reply> = g
            .consumers
            .iter()
            .filter(|(_, c)| !c.pel.is_empty())
            .map(|(name, c)| Reply::Array(vec![Reply::bulk(name), Reply::bulk(c.pel.len().to_string())]))
            .collect();
        return Reply::Array(vec![
            Reply::Integer(g.pel.len() as i64),
            id_reply(first),
            id_reply(last),
            Reply::Array(consumers),
        ]);
    }
    let ids: Box<dyn Iterator<Item = StreamId> + '_> = match consumer {
        Some(name) => match g.consumers.get(name) {
            None => return Reply::Array(vec![]),
            Some(c) => Box::new(c.pel.range(start..).copied()),
        },
        None => Box::new(g.pel.range(start..).map(|(k, _)| *k)),
    };
    let mut out = Vec::new();
    for id in ids {
        if count == 0 || id > end {
            break;
        }
        let Some(n) = g.pel.get(&id) else { continue };
        if minidle != 0 && now.wrapping_sub(n.delivery_time) < minidle {
            continue;
        }
        count -= 1;
        if let Err(r) = budget.charge(n.consumer.len() + 24, 5) {
            return r;
        }
        out.push(Reply::Array(vec![
            id_reply(id),
            Reply::bulk(&n.consumer),
            Reply::Integer(now.wrapping_sub(n.delivery_time).max(0)),
            Reply::Integer(n.delivery_count as i64),
        ]));
    }
    Reply::Array(out)
}

// ---------------------------------------------------------------------------------------------
// XCLAIM, XAUTOCLAIM
// ---------------------------------------------------------------------------------------------

/// t_stream.c `xclaimCommand()`.
pub fn xclaim(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    let group = c.arg(2);
    let name = c.arg(3);
    match read_stream(e, c.db, key) {
        Err(r) => return r,
        Ok(Some(s)) if s.group(group).is_some() => {}
        Ok(_) => return nogroup_error(key, group),
    }
    let minidle = match parse_i64_msg(c.arg(4), "Invalid min-idle-time argument for XCLAIM") {
        Ok(n) => n.max(0),
        Err(r) => return r,
    };
    let argc = c.argc();
    let mut ids = Vec::new();
    let mut j = 5;
    while j < argc {
        match parse_strict_id(c.arg(j), 0) {
            Ok(id) => ids.push(id),
            Err(_) => break,
        }
        j += 1;
    }
    let now = e.now_ms();
    let mut last_id = StreamId::MIN;
    let mut deliverytime: i64 = -1;
    let mut retrycount: i64 = -1;
    let (mut force, mut justid) = (false, false);
    while j < argc {
        let moreargs = argc - 1 - j;
        let opt = c.arg(j);
        if is_opt(opt, "force") {
            force = true;
        } else if is_opt(opt, "justid") {
            justid = true;
        } else if is_opt(opt, "idle") && moreargs > 0 {
            j += 1;
            deliverytime = match parse_i64_msg(c.arg(j), "Invalid IDLE option argument for XCLAIM") {
                Ok(n) => now.wrapping_sub(n),
                Err(r) => return r,
            };
        } else if is_opt(opt, "time") && moreargs > 0 {
            j += 1;
            deliverytime = match parse_i64_msg(c.arg(j), "Invalid TIME option argument for XCLAIM") {
                Ok(n) => n,
                Err(r) => return r,
            };
        } else if is_opt(opt, "retrycount") && moreargs > 0 {
            j += 1;
            retrycount = match parse_i64_msg(c.arg(j), "Invalid RETRYCOUNT option argument for XCLAIM") {
                Ok(n) => n,
                Err(r) => return r,
            };
        } else if is_opt(opt, "lastid") && moreargs > 0 {
            j += 1;
            last_id = match parse_strict_id(c.arg(j), 0) {
                Ok(id) => id,
                Err(r) => return r,
            };
        } else {
            let mut msg = b"ERR Unrecognized XCLAIM option '".to_vec();
            msg.extend_from_slice(c_str(opt));
            msg.push(b'\'');
            return Reply::Error(msg);
        }
        j += 1;
    }
    let listening = e.prop.listening;
    let mut budget = Budget::new(e);
    let Some(s) = stream_at(e, c.db, key) else { return nogroup_error(key, group) };
    let mut moved_last_id = false;
    if let Some(g) = s.group_mut(group) {
        if last_id > g.last_id {
            g.last_id = last_id;
            moved_last_id = true;
        }
    }
    if deliverytime != -1 {
        if deliverytime < 0 || deliverytime > now {
            deliverytime = now;
        }
    } else {
        deliverytime = now;
    }
    let mut out = Vec::new();
    let mut have_consumer = false;
    let mut created = false;
    let mut claimed = 0u64;
    // Each claim (and each NACK dropped) propagates as an XCLAIM of its own, with the ID as
    // the client wrote it; XCLAIM itself is not propagated.
    let mut claims = Vec::new();
    for (k, id) in ids.into_iter().enumerate() {
        let typed = c.arg(5 + k);
        let exists = s.entry_exists(id);
        let Some(g) = s.group_mut(group) else { break };
        if !exists {
            if let Some(n) = g.pel.get(&id) {
                if listening {
                    claims.push(xclaim_argv(key, group, typed, n, g.last_id));
                }
                drop_nack(g, id);
                claimed += 1;
            }
            continue;
        }
        let forced = force && !g.pel.contains_key(&id);
        if !forced {
            let Some(n) = g.pel.get(&id) else { continue };
            if minidle != 0 && now.wrapping_sub(n.delivery_time) < minidle {
                continue;
            }
        }
        if !have_consumer {
            have_consumer = true;
            created = touch_or_create_consumer(g, name, now);
        }
        if forced {
            // streamCreateNACK(NULL): one delivery so far, owned by no one yet.
            g.pel.insert(id, Nack { delivery_time: now, delivery_count: 1, consumer: Vec::new() });
        }
        assign(g, id, name);
        let last = g.last_id;
        if let Some(n) = g.pel.get_mut(&id) {
            n.delivery_time = deliverytime;
            if retrycount >= 0 {
                n.delivery_count = retrycount as u64;
            } else if !justid {
                n.delivery_count = n.delivery_count.wrapping_add(1);
            }
            if listening {
                claims.push(xclaim_argv(key, group, typed, n, last));
            }
        }
        if justid {
            out.push(id_reply(id));
        } else {
            match single_entry(s, id, &mut budget) {
                Ok(Some(r)) => out.push(r),
                Ok(None) => out.push(Reply::Nil),
                Err(r) => return r,
            }
        }
        claimed += 1;
    }
    // Each claim (or dropped NACK) is a change; a LASTID alone is one too, propagated as
    // XGROUP SETID.
    if listening {
        if claims.is_empty() && moved_last_id {
            if let Some(g) = s.group(group) {
                claims.push(setid_argv(key, group, g));
            }
        }
        propagate_claims(e, c.db, claims);
    }
    e.dirty(if claimed == 0 && moved_last_id { 1 } else { claimed });
    if created {
        e.dirty(1);
        e.notify_unsignalled("xgroup-createconsumer", c.db, key);
    }
    Reply::Array(out)
}

/// The largest transient allocation XAUTOCLAIM's COUNT can make redis-server 7.0.15 try and
/// succeed (Debian, jemalloc 5.3.0, x86-64: between 87.875 and 87.969 TB).
const TRANSIENT_ALLOC_LIMIT: u64 = 87_900_000_000_000;

/// t_stream.c `xautoclaimCommand()`: `[next start, claimed entries, deleted IDs]`.
pub fn xautoclaim(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    let group = c.arg(2);
    let name = c.arg(3);
    let minidle = match parse_i64_msg(c.arg(4), "Invalid min-idle-time argument for XAUTOCLAIM") {
        Ok(n) => n.max(0),
        Err(r) => return r,
    };
    let (mut start, ex) = match parse_interval_id(c.arg(5), 0) {
        Ok(p) => p,
        Err(r) => return r,
    };
    if ex && !start.incr() {
        return Reply::err("ERR invalid start ID for the interval");
    }
    let mut count: i64 = 100;
    let mut justid = false;
    let argc = c.argc();
    let mut j = 6;
    while j < argc {
        let moreargs = argc - 1 - j;
        let opt = c.arg(j);
        if is_opt(opt, "count") && moreargs > 0 {
            let max_count = i64::MAX / 16;
            count = match parse_i64(c.arg(j + 1)) {
                Ok(n) if (1..=max_count).contains(&n) => n,
                _ => return Reply::err("ERR COUNT must be > 0"),
            };
            j += 1;
        } else if is_opt(opt, "justid") {
            justid = true;
        } else {
            return syntax_error();
        }
        j += 1;
    }
    match read_stream(e, c.db, key) {
        Err(r) => return r,
        Ok(Some(s)) if s.group(group).is_some() => {}
        Ok(_) => return nogroup_error(key, group),
    }
    // `ztrymalloc(count * sizeof(streamID))` for the deleted IDs: Redis fails only when the
    // allocator can't reserve that much address space (about 80 TiB on Debian's 7.0.15,
    // jemalloc 5.3.0, x86-64, measured); the playground never allocates it.
    if count as u64 * 16 > TRANSIENT_ALLOC_LIMIT {
        return Reply::err("ERR Insufficient memory, failed allocating transient memory, COUNT too high.");
    }
    let now = e.now_ms();
    let mut budget = Budget::new(e);
    let listening = e.prop.listening;
    let Some(s) = stream_at(e, c.db, key) else { return nogroup_error(key, group) };
    let mut attempts = count.saturating_mul(10);
    let mut out = Vec::new();
    let mut deleted = Vec::new();
    let mut have_consumer = false;
    let mut created = false;
    let mut claimed = 0u64;
    // Each claim and each NACK dropped propagates as an XCLAIM; XAUTOCLAIM itself is not.
    let mut claims = Vec::new();
    let mut cursor = Some(start);
    loop {
        if attempts == 0 {
            break;
        }
        attempts -= 1;
        if count == 0 {
            break;
        }
        let Some(from) = cursor else { break };
        let Some(id) = s.group(group).and_then(|g| g.pel.range(from..).next().map(|(k, _)| *k)) else {
            cursor = None;
            break;
        };
        let mut next = id;
        cursor = if next.incr() { Some(next) } else { None };
        let exists = s.entry_exists(id);
        let Some(g) = s.group_mut(group) else { break };
        if !exists {
            if let (true, Some(n)) = (listening, g.pel.get(&id)) {
                claims.push(xclaim_argv(key, group, id.to_string().as_bytes(), n, g.last_id));
            }
            drop_nack(g, id);
            deleted.push(id);
            claimed += 1;
            count -= 1;
            continue;
        }
        if minidle != 0 {
            if let Some(n) = g.pel.get(&id) {
                if now.wrapping_sub(n.delivery_time) < minidle {
                    continue;
                }
            }
        }
        if !have_consumer {
            have_consumer = true;
            created = touch_or_create_consumer(g, name, now);
        }
        assign(g, id, name);
        let last = g.last_id;
        if let Some(n) = g.pel.get_mut(&id) {
            n.delivery_time = now;
            if !justid {
                n.delivery_count = n.delivery_count.wrapping_add(1);
            }
            if listening {
                claims.push(xclaim_argv(key, group, id.to_string().as_bytes(), n, last));
            }
        }
        if justid {
            out.push(id_reply(id));
        } else {
            match single_entry(s, id, &mut budget) {
                Ok(Some(r)) => out.push(r),
                Ok(None) => out.push(Reply::Nil),
                Err(r) => return r,
            }
        }
        claimed += 1;
        count -= 1;
    }
    // The next entry after the last one looked at is the cursor for the next call.
    let next = cursor
        .and_then(|from| s.group(group).and_then(|g| g.pel.range(from..).next().map(|(k, _)| *k)))
        .unwrap_or(StreamId::MIN);
    if listening {
        propagate_claims(e, c.db, claims);
    }
    e.dirty(claimed);
    if created {
        e.dirty(1);
        e.notify_unsignalled("xgroup-createconsumer", c.db, key);
    }
    Reply::Array(vec![id_reply(next), Reply::Array(out), Reply::Array(deleted.into_iter().map(id_reply).collect())])
}
