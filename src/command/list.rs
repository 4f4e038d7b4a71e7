//! t_list.c: LPUSH, RPUSH, LPUSHX, RPUSHX, LINSERT, LLEN, LINDEX, LSET, LPOP, RPOP (with
//! count), LMPOP, LRANGE, LTRIM, LPOS, LREM, LMOVE and RPOPLPUSH, and the blocking BLPOP, BRPOP,
//! BLMPOP, BLMOVE and BRPOPLPUSH (a client that finds nothing waits in ../blocked.rs).
//!
//! Each handler keeps its t_list.c function's order of checks — `pushGenericCommand`,
//! `linsertCommand`, `lindexCommand`, `lsetCommand`, `popGenericCommand`,
//! `mpopGenericCommand`/`lmpopGenericCommand`, `lrangeCommand`/`addListRangeReply`,
//! `ltrimCommand`, `lposCommand`, `lremCommand`, `lmoveGenericCommand`/`lmoveHandlePush` —
//! so the same bad input gets the same error (e.g. LRANGE parses its indexes before looking
//! at the key, LINDEX after), and fires the same keyspace events in the same order, including
//! `del` when a pop, trim or removal empties the list (the key is deleted, as
//! `listElementsRemoved()` does), and `new` when a push creates the key (db.c `dbAdd()`).
//!
//! The list-type helpers Redis calls `listType*` are the small functions below over the
//! `VecDeque` of object.rs. Differences: 7.0 stores a list as a quicklist (a linked list of
//! listpack nodes, `OBJECT ENCODING` always `quicklist`); we keep one deque, which only
//! changes memory numbers, not replies. C `long` arithmetic that overflows in Redis (LPOS
//! RANK -9223372036854775808, LREM with that count) wraps here the way it does on x86-64.

use crate::command::call::Call;
use crate::command::{clamp_range, is_opt, parse_i64, syntax_error, wrongtype, NOT_INTEGER, NO_SUCH_KEY};
use crate::engine::Engine;
use crate::object::{List, Value};
use crate::reply::Reply;

/// Which end: LIST_HEAD (left) or LIST_TAIL (right).
#[derive(Clone, Copy, PartialEq)]
enum End {
    Head,
    Tail,
}

impl End {
    fn pop_event(self) -> &'static str {
        match self {
            End::Head => "lpop",
            End::Tail => "rpop",
        }
    }
    fn push_event(self) -> &'static str {
        match self {
            End::Head => "lpush",
            End::Tail => "rpush",
        }
    }
    /// LMOVE's word for it.
    fn word(self) -> &'static [u8] {
        match self {
            End::Head => b"LEFT",
            End::Tail => b"RIGHT",
        }
    }
}

// ---------------------------------------------------------------------------------------------
// listType* helpers
// ---------------------------------------------------------------------------------------------

/// `lookupKeyWrite()` + `checkType(OBJ_LIST)`: `Ok(None)` for a missing key.
fn write_list<'a>(e: &'a mut Engine, db: usize, key: &[u8]) -> Result<Option<&'a mut List>, Reply> {
    match e.lookup_write(db, key) {
        None => Ok(None),
        Some(o) => match &mut o.value {
            Value::List(l) => Ok(Some(l)),
            _ => Err(wrongtype()),
        },
    }
}

/// `lookupKeyRead()` + `checkType(OBJ_LIST)`.
fn read_list<'a>(e: &'a mut Engine, db: usize, key: &[u8]) -> Result<Option<&'a mut List>, Reply> {
    match e.lookup_read(db, key) {
        None => Ok(None),
        Some(o) => match &mut o.value {
            Value::List(l) => Ok(Some(l)),
            _ => Err(wrongtype()),
        },
    }
}

/// The list stored at `key`, without a lookup (the caller already did it).
fn list_mut<'a>(e: &'a mut Engine, db: usize, key: &[u8]) -> Option<&'a mut List> {
    match e.dbs[db].get_mut(key).map(|o| &mut o.value) {
        Some(Value::List(l)) => Some(l),
        _ => None,
    }
}

/// `createQuicklistObject()` + db.c `dbAdd()` (which fires `new`).
fn create_list(e: &mut Engine, db: usize, key: &[u8]) {
    let obj = e.new_obj(Value::List(List::new()));
    e.dbs[db].insert(key.to_vec(), obj);
}

fn list_type_push(l: &mut List, value: &[u8], end: End) {
    match end {
        End::Head => l.push_front(value.to_vec()),
        End::Tail => l.push_back(value.to_vec()),
    }
}

fn list_type_pop(l: &mut List, end: End) -> Option<Vec<u8>> {
    match end {
        End::Head => l.pop_front(),
        End::Tail => l.pop_back(),
    }
}

/// Deletes the key if its list is empty (and fires `del`); true if it did.
fn delete_if_empty(e: &mut Engine, db: usize, key: &[u8]) -> bool {
    if list_mut(e, db, key).is_some_and(|l| l.is_empty()) {
        e.dbs[db].delete(key);
        e.notify("del", db, key);
        return true;
    }
    false
}

/// t_list.c `listElementsRemoved()`: the pop event, `del` if the list is now empty, dirty.
fn elements_removed(e: &mut Engine, db: usize, key: &[u8], end: End, count: usize) {
    e.notify(end.pop_event(), db, key);
    delete_if_empty(e, db, key);
    e.dirty(count as u64);
}

/// A C `long` index (negative from the tail) to a position, if it is in range
/// (`quicklistGetIteratorAtIdx()`).
fn list_index(l: &List, index: i64) -> Option<usize> {
    let len = l.len() as i64;
    let i = if index < 0 { len.checked_add(index)? } else { index };
    (0..len).contains(&i).then_some(i as usize)
}

/// `getListPositionFromObjectOrReply()`: LEFT or RIGHT.
fn parse_position(arg: &[u8]) -> Result<End, Reply> {
    if is_opt(arg, "right") {
        Ok(End::Tail)
    } else if is_opt(arg, "left") {
        Ok(End::Head)
    } else {
        Err(syntax_error())
    }
}

/// object.c `getRangeLongFromObjectOrReply()` with a custom message: the message replaces both
/// "not an integer" and "out of range".
fn parse_range(arg: &[u8], min: i64, max: i64, msg: &str) -> Result<i64, Reply> {
    match crate::util::string2ll(arg) {
        Some(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(Reply::err(format!("ERR {msg}"))),
    }
}

/// `getPositiveLongFromObjectOrReply()`.
fn parse_positive(arg: &[u8], msg: Option<&str>) -> Result<i64, Reply> {
    parse_range(arg, 0, i64::MAX, msg.unwrap_or("value is out of range, must be positive"))
}

fn arity_error(c: &Call) -> Reply {
    Reply::err(format!("ERR wrong number of arguments for '{}' command", c.cmd.name))
}

// ---------------------------------------------------------------------------------------------
// Push
// ---------------------------------------------------------------------------------------------

/// t_list.c `pushGenericCommand()`; `xx` for LPUSHX/RPUSHX.
fn push_generic(e: &mut Engine, c: &Call, end: End, xx: bool) -> Reply {
    let key = c.arg(1);
    match write_list(e, c.db, key) {
        Err(r) => return r,
        Ok(Some(_)) => {}
        Ok(None) => {
            if xx {
                return Reply::Integer(0);
            }
            create_list(e, c.db, key);
        }
    }
    let Some(l) = list_mut(e, c.db, key) else { return Reply::Integer(0) };
    for v in &c.argv[2..] {
        list_type_push(l, v, end);
    }
    let len = l.len() as i64;
    e.dirty((c.argc() - 2) as u64);
    e.notify(end.push_event(), c.db, key);
    Reply::Integer(len)
}

pub fn lpush(e: &mut Engine, c: &Call) -> Reply {
    push_generic(e, c, End::Head, false)
}

pub fn rpush(e: &mut Engine, c: &Call) -> Reply {
    push_generic(e, c, End::Tail, false)
}

pub fn lpushx(e: &mut Engine, c: &Call) -> Reply {
    push_generic(e, c, End::Head, true)
}

pub fn rpushx(e: &mut Engine, c: &Call) -> Reply {
    push_generic(e, c, End::Tail, true)
}

/// t_list.c `linsertCommand()`: BEFORE/AFTER is checked before the key.
pub fn linsert(e: &mut Engine, c: &Call) -> Reply {
    let after = if is_opt(c.arg(2), "after") {
        true
    } else if is_opt(c.arg(2), "before") {
        false
    } else {
        return syntax_error();
    };
    let key = c.arg(1);
    let l = match write_list(e, c.db, key) {
        Err(r) => return r,
        Ok(None) => return Reply::Integer(0),
        Ok(Some(l)) => l,
    };
    let Some(pos) = l.iter().position(|v| v.as_slice() == c.arg(3)) else {
        return Reply::Integer(-1);
    };
    l.insert(if after { pos + 1 } else { pos }, c.arg(4).to_vec());
    let len = l.len() as i64;
    e.notify("linsert", c.db, key);
    e.dirty(1);
    Reply::Integer(len)
}

// ---------------------------------------------------------------------------------------------
// Read
// ---------------------------------------------------------------------------------------------

pub fn llen(e: &mut Engine, c: &Call) -> Reply {
    match read_list(e, c.db, c.arg(1)) {
        Err(r) => r,
        Ok(None) => Reply::Integer(0),
        Ok(Some(l)) => Reply::Integer(l.len() as i64),
    }
}

/// t_list.c `lindexCommand()`: the key (and its type) before the index.
pub fn lindex(e: &mut Engine, c: &Call) -> Reply {
    let l = match read_list(e, c.db, c.arg(1)) {
        Err(r) => return r,
        Ok(None) => return Reply::Nil,
        Ok(Some(l)) => l,
    };
    let index = match parse_i64(c.arg(2)) {
        Ok(i) => i,
        Err(r) => return r,
    };
    match list_index(l, index) {
        Some(i) => Reply::Bulk(l[i].clone()),
        None => Reply::Nil,
    }
}

/// t_list.c `lrangeCommand()`: the indexes before the key.
pub fn lrange(e: &mut Engine, c: &Call) -> Reply {
    let (start, end) = match (parse_i64(c.arg(2)), parse_i64(c.arg(3))) {
        (Ok(s), Ok(e)) => (s, e),
        _ => return Reply::err(NOT_INTEGER),
    };
    match read_list(e, c.db, c.arg(1)) {
        Err(r) => r,
        Ok(None) => Reply::Array(vec![]),
        Ok(Some(l)) => match clamp_range(start, end, l.len() as i64) {
            None => Reply::Array(vec![]),
            Some((s, t)) => Reply::Array(l.range(s..=t).map(|v| Reply::Bulk(v.clone())).collect()),
        },
    }
}

/// t_list.c `lposCommand()`.
pub fn lpos(e: &mut Engine, c: &Call) -> Reply {
    let ele = c.arg(2);
    let mut rank: i64 = 1;
    let mut count: i64 = -1; // -1: COUNT not given
    let mut maxlen: i64 = 0;
    let mut j = 3;
    while j < c.argc() {
        let more = c.argc() - 1 - j > 0;
        let opt = c.arg(j);
        if is_opt(opt, "rank") && more {
            j += 1;
            rank = match parse_i64(c.arg(j)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            if rank == 0 {
                return Reply::err("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list");
            }
        } else if is_opt(opt, "count") && more {
            j += 1;
            count = match parse_positive(c.arg(j), Some("COUNT can't be negative")) {
                Ok(v) => v,
                Err(r) => return r,
            };
        } else if is_opt(opt, "maxlen") && more {
            j += 1;
            maxlen = match parse_positive(c.arg(j), Some("MAXLEN can't be negative")) {
                Ok(v) => v,
                Err(r) => return r,
            };
        } else {
            return syntax_error();
        }
        j += 1;
    }
    // A negative rank searches from the tail (`rank = -rank`, which leaves LONG_MIN as is).
    let from_tail = rank < 0;
    if from_tail {
        rank = rank.wrapping_neg();
    }
    let l = match read_list(e, c.db, c.arg(1)) {
        Err(r) => return r,
        Ok(None) => return if count != -1 { Reply::Array(vec![]) } else { Reply::Nil },
        Ok(Some(l)) => l,
    };
    let llen = l.len() as i64;
    let mut matches: i64 = 0;
    let mut found: Option<i64> = None;
    let mut out = Vec::new();
    let mut index: i64 = 0;
    while index < llen && (maxlen == 0 || index < maxlen) {
        let pos = if from_tail { llen - index - 1 } else { index };
        if l[pos as usize].as_slice() == ele {
            matches += 1;
            if matches >= rank {
                if count != -1 {
                    out.push(Reply::Integer(pos));
                    if count != 0 && matches.wrapping_sub(rank).wrapping_add(1) >= count {
                        break;
                    }
                } else {
                    found = Some(pos);
                    break;
                }
            }
        }
        index += 1;
    }
    if count != -1 {
        Reply::Array(out)
    } else {
        found.map(Reply::Integer).unwrap_or(Reply::Nil)
    }
}

// ---------------------------------------------------------------------------------------------
// Modify in place
// ---------------------------------------------------------------------------------------------

/// t_list.c `lsetCommand()`: `no such key` for a missing key, then the index.
pub fn lset(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    let l = match write_list(e, c.db, key) {
        Err(r) => return r,
        Ok(None) => return Reply::err(NO_SUCH_KEY),
        Ok(Some(l)) => l,
    };
    let index = match parse_i64(c.arg(2)) {
        Ok(i) => i,
        Err(r) => return r,
    };
    let Some(i) = list_index(l, index) else {
        return Reply::err("ERR index out of range");
    };
    l[i] = c.arg(3).to_vec();
    e.notify("lset", c.db, key);
    e.dirty(1);
    Reply::ok()
}

/// t_list.c `ltrimCommand()`: the indexes before the key; a missing key is OK; `ltrim` fires
/// even when nothing was removed.
pub fn ltrim(e: &mut Engine, c: &Call) -> Reply {
    let (start, end) = match (parse_i64(c.arg(2)), parse_i64(c.arg(3))) {
        (Ok(s), Ok(e)) => (s, e),
        _ => return Reply::err(NOT_INTEGER),
    };
    let key = c.arg(1);
    let l = match write_list(e, c.db, key) {
        Err(r) => return r,
        Ok(None) => return Reply::ok(),
        Ok(Some(l)) => l,
    };
    let llen = l.len();
    let (ltrim, rtrim) = match clamp_range(start, end, llen as i64) {
        None => (llen, 0),
        Some((s, t)) => (s, llen - t - 1),
    };
    l.truncate(llen - rtrim);
    l.drain(..ltrim);
    e.notify("ltrim", c.db, key);
    delete_if_empty(e, c.db, key);
    e.dirty((ltrim + rtrim) as u64);
    Reply::ok()
}

/// t_list.c `lremCommand()`: count > 0 from the head, < 0 from the tail, 0 all.
pub fn lrem(e: &mut Engine, c: &Call) -> Reply {
    let mut toremove = match parse_i64(c.arg(2)) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let key = c.arg(1);
    let l = match write_list(e, c.db, key) {
        Err(r) => return r,
        Ok(None) => return Reply::Integer(0),
        Ok(Some(l)) => l,
    };
    let from_tail = toremove < 0;
    if from_tail {
        toremove = toremove.wrapping_neg();
    }
    let obj = c.arg(3);
    let mut removed: i64 = 0;
    let len = l.len();
    let mut keep = vec![true; len];
    for n in 0..len {
        let i = if from_tail { len - 1 - n } else { n };
        if l[i].as_slice() == obj {
            keep[i] = false;
            removed += 1;
            if toremove != 0 && removed == toremove {
                break;
            }
        }
    }
    if removed > 0 {
        let mut it = keep.into_iter();
        l.retain(|_| it.next().unwrap_or(true));
        e.dirty(removed as u64);
        e.notify("lrem", c.db, key);
    }
    delete_if_empty(e, c.db, key);
    Reply::Integer(removed)
}

// ---------------------------------------------------------------------------------------------
// Pop
// ---------------------------------------------------------------------------------------------

/// Pops up to `count` elements from one end, in pop order (`listPopRangeAndReplyWithKey()` /
/// `addListRangeReply(reverse)` + `listTypeDelRange()`).
fn pop_range(l: &mut List, end: End, count: i64) -> Vec<Reply> {
    let n = (count.max(0) as u64).min(l.len() as u64) as usize;
    (0..n).filter_map(|_| list_type_pop(l, end)).map(Reply::Bulk).collect()
}

/// t_list.c `popGenericCommand()`: the count is parsed before the key is looked at.
fn pop_generic(e: &mut Engine, c: &Call, end: End) -> Reply {
    let has_count = c.argc() == 3;
    if c.argc() > 3 {
        return arity_error(c);
    }
    let mut count = 0;
    if has_count {
        count = match parse_positive(c.arg(2), None) {
            Ok(v) => v,
            Err(r) => return r,
        };
    }
    let key = c.arg(1);
    let l = match write_list(e, c.db, key) {
        Err(r) => return r,
        Ok(None) => return if has_count { Reply::NilArray } else { Reply::Nil },
        Ok(Some(l)) => l,
    };
    if has_count && count == 0 {
        return Reply::Array(vec![]);
    }
    if count == 0 {
        let Some(v) = list_type_pop(l, end) else { return Reply::Nil };
        elements_removed(e, c.db, key, end, 1);
        return Reply::Bulk(v);
    }
    let items = pop_range(l, end, count);
    let n = items.len();
    elements_removed(e, c.db, key, end, n);
    Reply::Array(items)
}

pub fn lpop(e: &mut Engine, c: &Call) -> Reply {
    pop_generic(e, c, End::Head)
}

pub fn rpop(e: &mut Engine, c: &Call) -> Reply {
    pop_generic(e, c, End::Tail)
}

/// t_list.c `lmpopGenericCommand()` + `mpopGenericCommand()`:
/// `LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]`.
pub fn lmpop(e: &mut Engine, c: &Call) -> Reply {
    let (keys, end, count) = match parse_mpop(c.argv, 1) {
        Ok(p) => p,
        Err(r) => return r,
    };
    for key in &keys {
        let l = match write_list(e, c.db, key) {
            Err(r) => return r,
            Ok(None) => continue,
            Ok(Some(l)) => l,
        };
        if l.is_empty() {
            continue;
        }
        let items = pop_range(l, end, count);
        let n = items.len();
        elements_removed(e, c.db, key, end, n);
        propagate_pop(e, key, end, Some(n as i64));
        return Reply::Array(vec![Reply::Bulk(key.clone()), Reply::Array(items)]);
    }
    Reply::NilArray
}

// ---------------------------------------------------------------------------------------------
// Move
// ---------------------------------------------------------------------------------------------

/// t_list.c `lmoveGenericCommand()` + `lmoveHandlePush()`: the destination's events (and its
/// creation) come before the source's pop event.
fn lmove_generic(e: &mut Engine, c: &Call, from: End, to: End) -> Reply {
    let (src, dst) = (c.arg(1), c.arg(2));
    match write_list(e, c.db, src) {
        Err(r) => return r,
        Ok(None) => return Reply::Nil,
        Ok(Some(l)) if l.is_empty() => return Reply::Nil,
        Ok(Some(_)) => {}
    }
    move_one(e, c.db, src, dst, from, to)
}

/// The part of `lmoveGenericCommand()` after the source was found: check the destination,
/// pop, push (creating the destination), the events, the reply.
fn move_one(e: &mut Engine, db: usize, src: &[u8], dst: &[u8], from: End, to: End) -> Reply {
    let dst_exists = match write_list(e, db, dst) {
        Err(r) => return r,
        Ok(found) => found.is_some(),
    };
    let Some(value) = list_mut(e, db, src).and_then(|l| list_type_pop(l, from)) else {
        return Reply::Nil;
    };
    if !dst_exists {
        create_list(e, db, dst);
    }
    if let Some(l) = list_mut(e, db, dst) {
        list_type_push(l, &value, to);
    }
    e.notify(to.push_event(), db, dst);
    e.notify(from.pop_event(), db, src);
    delete_if_empty(e, db, src);
    e.dirty(1);
    Reply::Bulk(value)
}

/// The `LEFT|RIGHT LEFT|RIGHT` of LMOVE and BLMOVE (arguments 3 and 4), parsed before anything
/// else is looked at.
fn parse_positions(c: &Call) -> Result<(End, End), Reply> {
    Ok((parse_position(c.arg(3))?, parse_position(c.arg(4))?))
}

/// `LMOVE source destination LEFT|RIGHT LEFT|RIGHT`: both positions are parsed first.
pub fn lmove(e: &mut Engine, c: &Call) -> Reply {
    match parse_positions(c) {
        Ok((from, to)) => lmove_generic(e, c, from, to),
        Err(r) => r,
    }
}

pub fn rpoplpush(e: &mut Engine, c: &Call) -> Reply {
    lmove_generic(e, c, End::Tail, End::Head)
}

// ---------------------------------------------------------------------------------------------
// Blocking pops (blocked.rs parks the client; `serve_blocked` answers it later)
// ---------------------------------------------------------------------------------------------

/// `listPopRangeAndReplyWithKey()`'s rewrite: LMPOP and the blocking pops served at once
/// propagate as `LPOP|RPOP key [count]` (the count popped), naming the key popped.
fn propagate_pop(e: &mut Engine, key: &[u8], end: End, count: Option<i64>) {
    let mut argv = vec![if end == End::Head { b"LPOP".to_vec() } else { b"RPOP".to_vec() }, key.to_vec()];
    if let Some(n) = count {
        argv.push(n.to_string().into_bytes());
    }
    e.propagate_as(argv);
}

/// Pops for a client from a non-empty list: `[key, value]` (BLPOP/BRPOP) or, with a count,
/// `[key, [values…]]` (BLMPOP) — with the pop event and the `del` of an emptied list.
fn serve_pop(e: &mut Engine, db: usize, key: &[u8], end: End, count: Option<i64>) -> Reply {
    let Some(l) = list_mut(e, db, key) else { return Reply::NilArray };
    match count {
        None => {
            let Some(v) = list_type_pop(l, end) else { return Reply::NilArray };
            elements_removed(e, db, key, end, 1);
            Reply::Array(vec![Reply::bulk(key), Reply::Bulk(v)])
        }
        Some(n) => {
            let items = pop_range(l, end, n);
            let popped = items.len();
            elements_removed(e, db, key, end, popped);
            Reply::Array(vec![Reply::bulk(key), Reply::Array(items)])
        }
    }
}

/// t_list.c `blockingPopGenericCommand()`: the timeout is read first; the first non-empty
/// list is popped at once; otherwise the client blocks (or, inside MULTI or a script, gets a
/// null array).
fn blocking_pop(e: &mut Engine, c: &Call, keys: &[Vec<u8>], end: End, timeout_idx: usize, count: Option<i64>) -> Reply {
    let timeout = match crate::blocked::parse_timeout(e, c.arg(timeout_idx)) {
        Ok(t) => t,
        Err(r) => return r,
    };
    for key in keys {
        match write_list(e, c.db, key) {
            Err(r) => return r,
            Ok(None) => continue,
            Ok(Some(l)) if l.is_empty() => continue,
            Ok(Some(_)) => {
                let reply = serve_pop(e, c.db, key, end, count);
                // BLMPOP: the count popped.
                let popped = match (&reply, count) {
                    (Reply::Array(kv), Some(_)) => match kv.get(1) {
                        Some(Reply::Array(items)) => Some(items.len() as i64),
                        _ => None,
                    },
                    _ => None,
                };
                propagate_pop(e, key, end, popped);
                return reply;
            }
        }
    }
    if e.deny_blocking(c.client) {
        return Reply::NilArray;
    }
    e.block_for_keys(c.client, c.db, keys, timeout, c.argv, serve_blocked)
}

pub fn blpop(e: &mut Engine, c: &Call) -> Reply {
    let keys = c.argv[1..c.argc() - 1].to_vec();
    blocking_pop(e, c, &keys, End::Head, c.argc() - 1, None)
}

pub fn brpop(e: &mut Engine, c: &Call) -> Reply {
    let keys = c.argv[1..c.argc() - 1].to_vec();
    blocking_pop(e, c, &keys, End::Tail, c.argc() - 1, None)
}

/// `BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]`: parsed as LMPOP (from
/// index 2), then the timeout.
fn parse_mpop(argv: &[Vec<u8>], numkeys_idx: usize) -> Result<(Vec<Vec<u8>>, End, i64), Reply> {
    let arg = |i: usize| argv.get(i).map(|v| v.as_slice()).unwrap_or(b"");
    let numkeys = parse_range(arg(numkeys_idx), 1, i64::MAX, "numkeys should be greater than 0")? as u64;
    let where_idx = numkeys.saturating_add(numkeys_idx as u64 + 1);
    if where_idx >= argv.len() as u64 {
        return Err(syntax_error());
    }
    let where_idx = where_idx as usize;
    let end = parse_position(arg(where_idx))?;
    let mut count: i64 = -1;
    let mut j = where_idx + 1;
    while j < argv.len() {
        let more = argv.len() - 1 - j > 0;
        if count == -1 && is_opt(arg(j), "count") && more {
            j += 1;
            count = parse_range(arg(j), 1, i64::MAX, "count should be greater than 0")?;
        } else {
            return Err(syntax_error());
        }
        j += 1;
    }
    Ok((argv[numkeys_idx + 1..where_idx].to_vec(), end, if count == -1 { 1 } else { count }))
}

pub fn blmpop(e: &mut Engine, c: &Call) -> Reply {
    match parse_mpop(c.argv, 2) {
        Ok((keys, end, count)) => blocking_pop(e, c, &keys, end, 1, Some(count)),
        Err(r) => r,
    }
}

/// t_list.c `blmoveGenericCommand()`: a missing source blocks (or answers nil inside MULTI);
/// an existing one is LMOVE.
fn blmove_generic(e: &mut Engine, c: &Call, from: End, to: End, timeout_idx: usize) -> Reply {
    let timeout = match crate::blocked::parse_timeout(e, c.arg(timeout_idx)) {
        Ok(t) => t,
        Err(r) => return r,
    };
    let found = match write_list(e, c.db, c.arg(1)) {
        Err(r) => return r,
        Ok(found) => found.is_some(),
    };
    match found {
        true => {
            let reply = lmove_generic(e, c, from, to);
            // Served at once: propagated as LMOVE (BLMOVE) or RPOPLPUSH (BRPOPLPUSH).
            let (src, dst) = (c.arg(1).to_vec(), c.arg(2).to_vec());
            e.propagate_as(if c.cmd.name == "brpoplpush" {
                vec![b"RPOPLPUSH".to_vec(), src, dst]
            } else {
                vec![b"LMOVE".to_vec(), src, dst, from.word().to_vec(), to.word().to_vec()]
            });
            reply
        }
        false if e.deny_blocking(c.client) => Reply::Nil,
        false => {
            let keys = vec![c.arg(1).to_vec()];
            e.block_for_keys(c.client, c.db, &keys, timeout, c.argv, serve_blocked)
        }
    }
}

pub fn blmove(e: &mut Engine, c: &Call) -> Reply {
    match parse_positions(c) {
        Ok((from, to)) => blmove_generic(e, c, from, to, 5),
        Err(r) => r,
    }
}

pub fn brpoplpush(e: &mut Engine, c: &Call) -> Reply {
    blmove_generic(e, c, End::Tail, End::Head, 3)
}

/// blocked.c `serveClientsBlockedOnListKey()` for one client: its command, applied to the
/// list that became ready. `None` if the key does not hold a list.
fn serve_blocked(
    e: &mut Engine,
    _client: crate::engine::ClientId,
    db: usize,
    key: &[u8],
    argv: &[Vec<u8>],
) -> Option<Reply> {
    if !matches!(e.dbs[db].get(key).map(|o| &o.value), Some(Value::List(l)) if !l.is_empty()) {
        return None;
    }
    let name = argv.first().map(|n| n.to_ascii_lowercase()).unwrap_or_default();
    // Each is propagated as its non-blocking form (blocked.c serveClientBlockedOnList()):
    // LPOP/RPOP key [count popped], LMOVE with the client's own words, RPOPLPUSH.
    let reply = match name.as_slice() {
        b"blpop" => {
            let reply = serve_pop(e, db, key, End::Head, None);
            propagate_pop(e, key, End::Head, None);
            reply
        }
        b"brpop" => {
            let reply = serve_pop(e, db, key, End::Tail, None);
            propagate_pop(e, key, End::Tail, None);
            reply
        }
        b"blmpop" => {
            let (_, end, count) = parse_mpop(argv, 2).ok()?;
            let reply = serve_pop(e, db, key, end, Some(count));
            if let Reply::Array(kv) = &reply {
                if let Some(Reply::Array(items)) = kv.get(1) {
                    propagate_pop(e, key, end, Some(items.len() as i64));
                }
            }
            reply
        }
        b"blmove" | b"brpoplpush" => {
            let (from, to) = if name == b"blmove" {
                (parse_position(&argv[3]).ok()?, parse_position(&argv[4]).ok()?)
            } else {
                (End::Tail, End::Head)
            };
            let reply = move_one(e, db, key, &argv[2], from, to);
            e.propagate_as(if name == b"blmove" {
                vec![b"LMOVE".to_vec(), key.to_vec(), argv[2].clone(), argv[3].clone(), argv[4].clone()]
            } else {
                vec![b"RPOPLPUSH".to_vec(), key.to_vec(), argv[2].clone()]
            });
            reply
        }
        _ => return None,
    };
    Some(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_follow_add_list_range_reply() {
        assert_eq!(clamp_range(0, -1, 3), Some((0, 2)));
        assert_eq!(clamp_range(-100, 100, 3), Some((0, 2)));
        assert_eq!(clamp_range(2, 1, 3), None);
        assert_eq!(clamp_range(3, 5, 3), None);
        assert_eq!(clamp_range(0, -4, 3), None);
        assert_eq!(clamp_range(i64::MIN, i64::MAX, 3), Some((0, 2)));
        assert_eq!(clamp_range(0, 0, 0), None);
    }

    #[test]
    fn indexes_count_from_either_end() {
        let l: List = [b"a".to_vec(), b"b".to_vec()].into_iter().collect();
        assert_eq!(list_index(&l, 0), Some(0));
        assert_eq!(list_index(&l, -1), Some(1));
        assert_eq!(list_index(&l, -2), Some(0));
        assert_eq!(list_index(&l, -3), None);
        assert_eq!(list_index(&l, 2), None);
        assert_eq!(list_index(&l, i64::MIN), None);
    }
}
