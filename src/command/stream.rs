//! t_stream.c, part one: ID parsing, lookups and reply helpers, XADD, XRANGE, XREVRANGE, XLEN,
//! XDEL, XTRIM and XSETID. XREAD/XREADGROUP (with BLOCK) are in stream_read.rs, consumer groups
//! in stream_group.rs (XGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM, the group side of
//! XREADGROUP), XINFO in stream_info.rs; the data structure is ds/stream.rs.
//!
//! Each handler keeps its t_stream.c function's order of checks — `xaddCommand()` with
//! `streamParseAddOrTrimArgsOrReply()`, `xrangeGenericCommand()`, `xdelCommand()`,
//! `xtrimCommand()`, `xsetidCommand()` — and IDs are parsed as
//! `streamGenericParseIDOrReply()` does: at most 127 bytes, read as a C string (up to a NUL),
//! `-`/`+`, `<ms>[-<seq>]` with util.c `string2ull()` (which falls back to `strtoull()`, so
//! `+5`, ` 5` and `05` are IDs too), `<ms>-*` for XADD. Keyspace events are t_stream.c's:
//! `xadd`, `xtrim`, `xdel`, `xsetid` (and `new` when XADD creates the key); WATCH is touched
//! where Redis calls `signalModifiedKey()` — XADD, XTRIM and XDEL when they removed something —
//! and not by XSETID, which fires its event only.
//!
//! `*` IDs take their milliseconds from the engine's virtual clock (`streamNextID()` reads
//! `mstime()`). XADD signals the key ready, so clients blocked in XREAD/XREADGROUP
//! (stream_read.rs) are served.
//!
//! 7.0.15's quirks are kept, as the live server shows them: `<ms>-*` after an ID whose
//! sequence is the largest answers "Elements are too large to be stored" (streamAppendItem
//! returns without setting errno); XSETID does not compare with max-deleted-entry-id; a BLOCK
//! timeout too large to add to the clock wraps and never fires; `*` followed by a NUL is `*`.
//!
//! Differences: a reply larger than `playground-max-alloc` (an XRANGE over a million entries
//! without COUNT) is refused with a playground error instead of being built; inside a script
//! or MULTI the clock stands still, so `*` IDs there share one ms (Redis's `mstime()` may move
//! between them).

use crate::command::call::Call;
use crate::command::{c_str, is_opt, parse_i64, syntax_error, wrongtype};
use crate::ds::stream::{AppendError, Entry, NodeLimits, Stream, StreamId, TrimStrategy};
use crate::engine::Engine;
use crate::object::Value;
use crate::reply::Reply;
use crate::util::string2ll;

pub const INVALID_ID: &str = "ERR Invalid stream ID specified as stream command argument";

// ---------------------------------------------------------------------------------------------
// Lookups
// ---------------------------------------------------------------------------------------------

/// `lookupKeyRead()` + `checkType(OBJ_STREAM)`.
pub(crate) fn read_stream<'a>(e: &'a mut Engine, db: usize, key: &[u8]) -> Result<Option<&'a mut Stream>, Reply> {
    match e.lookup_read(db, key) {
        None => Ok(None),
        Some(o) => match &mut o.value {
            Value::Stream(s) => Ok(Some(s)),
            _ => Err(wrongtype()),
        },
    }
}

/// `lookupKeyWrite()` + `checkType(OBJ_STREAM)`.
pub(crate) fn write_stream<'a>(e: &'a mut Engine, db: usize, key: &[u8]) -> Result<Option<&'a mut Stream>, Reply> {
    match e.lookup_write(db, key) {
        None => Ok(None),
        Some(o) => match &mut o.value {
            Value::Stream(s) => Ok(Some(s)),
            _ => Err(wrongtype()),
        },
    }
}

/// The stream at `key` without a lookup (the caller did it); marks it changed for the memory
/// model.
pub(crate) fn stream_at<'a>(e: &'a mut Engine, db: usize, key: &[u8]) -> Option<&'a mut Stream> {
    match e.dbs[db].get_mut(key).map(|o| &mut o.value) {
        Some(Value::Stream(s)) => Some(s),
        _ => None,
    }
}

pub(crate) fn node_limits(e: &Engine) -> NodeLimits {
    NodeLimits {
        max_bytes: e.config.int("stream-node-max-bytes").max(0) as u64,
        max_entries: e.config.int("stream-node-max-entries"),
    }
}

// ---------------------------------------------------------------------------------------------
// IDs
// ---------------------------------------------------------------------------------------------

/// util.c `string2ull()`: a canonical int64 that is not negative, else C `strtoull()` over the
/// whole string (leading white space, a sign — `-` wraps around — and leading zeros accepted;
/// overflow rejected).
pub(crate) fn string2ull(s: &[u8]) -> Option<u64> {
    if let Some(v) = string2ll(s) {
        return (v >= 0).then_some(v as u64);
    }
    if s.is_empty() {
        return None;
    }
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let digits = i;
    let mut v: u64 = 0;
    let mut overflow = false;
    while i < s.len() && s[i].is_ascii_digit() {
        match v.checked_mul(10).and_then(|x| x.checked_add((s[i] - b'0') as u64)) {
            Some(x) => v = x,
            None => overflow = true,
        }
        i += 1;
    }
    if i == digits || i != s.len() || overflow {
        return None;
    }
    Some(if neg { v.wrapping_neg() } else { v })
}

/// t_stream.c `streamGenericParseIDOrReply()`: the ID and whether its sequence was given
/// (false for `<ms>-*`, accepted only when `seq_star`).
pub(crate) fn parse_id_generic(
    arg: &[u8],
    missing_seq: u64,
    strict: bool,
    seq_star: bool,
) -> Result<(StreamId, bool), Reply> {
    let invalid = || Reply::err(INVALID_ID);
    if arg.len() > 127 {
        return Err(invalid());
    }
    let buf = c_str(arg);
    if strict && (buf == b"-" || buf == b"+") {
        return Err(invalid());
    }
    if buf == b"-" {
        return Ok((StreamId::MIN, true));
    }
    if buf == b"+" {
        return Ok((StreamId::MAX, true));
    }
    let (ms_part, seq_part) = match buf.iter().position(|&b| b == b'-') {
        Some(i) => (&buf[..i], Some(&buf[i + 1..])),
        None => (buf, None),
    };
    let ms = string2ull(ms_part).ok_or_else(invalid)?;
    match seq_part {
        Some(b"*") if seq_star => Ok((StreamId::new(ms, 0), false)),
        Some(seq) => Ok((StreamId::new(ms, string2ull(seq).ok_or_else(invalid)?), true)),
        None => Ok((StreamId::new(ms, missing_seq), true)),
    }
}

/// `streamParseIDOrReply()`.
pub(crate) fn parse_id(arg: &[u8], missing_seq: u64) -> Result<StreamId, Reply> {
    parse_id_generic(arg, missing_seq, false, false).map(|(id, _)| id)
}

/// `streamParseStrictIDOrReply()`: `-` and `+` are not IDs.
pub(crate) fn parse_strict_id(arg: &[u8], missing_seq: u64) -> Result<StreamId, Reply> {
    parse_id_generic(arg, missing_seq, true, false).map(|(id, _)| id)
}

/// `streamParseIntervalIDOrReply()`: `(` makes the bound exclusive (then the rest must be a
/// strict ID).
pub(crate) fn parse_interval_id(arg: &[u8], missing_seq: u64) -> Result<(StreamId, bool), Reply> {
    if arg.len() > 1 && arg[0] == b'(' {
        return Ok((parse_strict_id(&arg[1..], missing_seq)?, true));
    }
    Ok((parse_id(arg, missing_seq)?, false))
}

/// A range's start: inclusive, or past an exclusive bound.
pub(crate) fn parse_range_start(arg: &[u8]) -> Result<StreamId, Reply> {
    let (mut id, ex) = parse_interval_id(arg, 0)?;
    if ex && !id.incr() {
        return Err(Reply::err("ERR invalid start ID for the interval"));
    }
    Ok(id)
}

/// A range's end.
pub(crate) fn parse_range_end(arg: &[u8]) -> Result<StreamId, Reply> {
    let (mut id, ex) = parse_interval_id(arg, u64::MAX)?;
    if ex && !id.decr() {
        return Err(Reply::err("ERR invalid end ID for the interval"));
    }
    Ok(id)
}

pub(crate) fn id_reply(id: StreamId) -> Reply {
    Reply::Bulk(id.to_string().into_bytes())
}

// ---------------------------------------------------------------------------------------------
// Replies within the playground's allocation cap
// ---------------------------------------------------------------------------------------------

/// What building one reply may allocate (`playground-max-alloc`): roughly the payload plus a
/// reply node per element.
pub(crate) struct Budget {
    left: u64,
    limit: u64,
}

const REPLY_NODE: u64 = 48;

impl Budget {
    pub(crate) fn new(e: &Engine) -> Budget {
        let limit = e.config.int("playground-max-alloc").max(0) as u64;
        Budget { left: limit, limit }
    }

    pub(crate) fn charge(&mut self, payload: usize, nodes: u64) -> Result<(), Reply> {
        let cost = payload as u64 + nodes * REPLY_NODE;
        if cost > self.left {
            self.left = 0;
            return Err(Reply::err(format!(
                "ERR playground limit: this reply would take more than {} bytes (playground-max-alloc); ask for fewer entries (COUNT)",
                self.limit
            )));
        }
        self.left -= cost;
        Ok(())
    }
}

/// One entry as `streamReplyWithRange()` emits it: `[id, [field, value, …]]`.
pub(crate) fn entry_reply(entry: &Entry<'_>, budget: &mut Budget) -> Result<Reply, Reply> {
    let mut fv = Vec::with_capacity(entry.numfields() * 2);
    let mut payload = 0;
    for (f, v) in entry.fields() {
        payload += f.len() + v.len();
        fv.push(Reply::Bulk(f.to_bytes()));
        fv.push(Reply::Bulk(v.to_bytes()));
    }
    budget.charge(payload + 24, 3 + fv.len() as u64)?;
    Ok(Reply::Array(vec![id_reply(entry.id), Reply::Array(fv)]))
}

/// The entries of `[start, end]` (at most `count`, 0 = all) as replies, with their IDs.
pub(crate) fn range_replies(
    s: &Stream,
    start: StreamId,
    end: StreamId,
    count: usize,
    rev: bool,
    budget: &mut Budget,
) -> Result<Vec<(StreamId, Reply)>, Reply> {
    let mut out = Vec::new();
    let mut err = None;
    s.range(start, end, rev, true, |e| match entry_reply(e, budget) {
        Ok(r) => {
            out.push((e.id, r));
            count == 0 || out.len() < count
        }
        Err(x) => {
            err = Some(x);
            false
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// A single entry (`streamReplyWithRange(…, id, id, 1, …)`), or None if it is gone.
pub(crate) fn single_entry(s: &Stream, id: StreamId, budget: &mut Budget) -> Result<Option<Reply>, Reply> {
    Ok(range_replies(s, id, id, 1, false, budget)?.pop().map(|(_, r)| r))
}

// ---------------------------------------------------------------------------------------------
// XADD / XTRIM arguments
// ---------------------------------------------------------------------------------------------

/// `streamAddTrimArgs`.
struct AddTrimArgs {
    id: Option<(StreamId, bool)>,
    no_mkstream: bool,
    strategy: TrimStrategy,
    approx: bool,
    limit: i64,
    /// Where the MAXLEN/MINID threshold is in argv (the `~` before it, when approximate).
    trim_arg: usize,
}

/// The start of a MAXLEN or MINID option (t_stream.c `streamParseAddOrTrimArgsOrReply()`):
/// only one of the two, and an optional `~` (approximate) or `=` before its argument.
fn trim_operator(a: &mut AddTrimArgs, c: &Call, i: &mut usize, moreargs: usize) -> Result<(), Reply> {
    if a.strategy != TrimStrategy::None {
        return Err(Reply::err("ERR syntax error, MAXLEN and MINID options at the same time are not compatible"));
    }
    a.approx = false;
    let next = c_str(c.arg(*i + 1));
    if moreargs >= 2 && (next == b"~" || next == b"=") {
        a.approx = next == b"~";
        *i += 1;
    }
    Ok(())
}
/// t_stream.c `streamParseAddOrTrimArgsOrReply()`: the options, and for XADD the position
/// of the ID (the fields follow it).
fn parse_add_or_trim(e: &Engine, c: &Call, xadd: bool) -> Result<(AddTrimArgs, usize), Reply> {
    let mut a = AddTrimArgs {
        id: None,
        no_mkstream: false,
        strategy: TrimStrategy::None,
        approx: false,
        limit: 0,
        trim_arg: 0,
    };
    let mut limit_given = false;
    let argc = c.argc();
    let mut i = 2;
    while i < argc {
        let moreargs = argc - 1 - i;
        let opt = c.arg(i);
        if xadd && c_str(opt) == b"*" {
            break;
        } else if is_opt(opt, "maxlen") && moreargs > 0 {
            trim_operator(&mut a, c, &mut i, moreargs)?;
            a.trim_arg = i + 1;
            let maxlen = parse_i64(c.arg(i + 1))?;
            if maxlen < 0 {
                return Err(Reply::err("ERR The MAXLEN argument must be >= 0."));
            }
            i += 1;
            a.strategy = TrimStrategy::MaxLen(maxlen as u64);
        } else if is_opt(opt, "minid") && moreargs > 0 {
            trim_operator(&mut a, c, &mut i, moreargs)?;
            a.trim_arg = i + 1;
            let minid = parse_strict_id(c.arg(i + 1), 0)?;
            i += 1;
            a.strategy = TrimStrategy::MinId(minid);
        } else if is_opt(opt, "limit") && moreargs > 0 {
            a.limit = parse_i64(c.arg(i + 1))?;
            if a.limit < 0 {
                return Err(Reply::err("ERR The LIMIT argument must be >= 0."));
            }
            limit_given = true;
            i += 1;
        } else if xadd && is_opt(opt, "nomkstream") {
            a.no_mkstream = true;
        } else if xadd {
            a.id = Some(parse_id_generic(opt, 0, true, true)?);
            break;
        } else {
            return Err(syntax_error());
        }
        i += 1;
    }
    if a.limit != 0 && a.strategy == TrimStrategy::None {
        return Err(Reply::err("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"));
    }
    if !xadd && a.strategy == TrimStrategy::None {
        return Err(Reply::err("ERR syntax error, XTRIM must be called with a trimming strategy"));
    }
    if limit_given {
        if !a.approx {
            return Err(Reply::err("ERR syntax error, LIMIT cannot be used without the special ~ option"));
        }
    } else if a.approx {
        let entries = e.config.int("stream-node-max-entries");
        a.limit = entries.saturating_mul(100);
        if a.limit <= 0 || a.limit > 10000 {
            a.limit = 10000;
        }
    } else {
        a.limit = 0;
    }
    Ok((a, i))
}

// ---------------------------------------------------------------------------------------------
// XADD, XLEN, XRANGE, XREVRANGE, XDEL, XTRIM, XSETID
// ---------------------------------------------------------------------------------------------

/// t_stream.c `xaddCommand()`.
pub fn xadd(e: &mut Engine, c: &Call) -> Reply {
    let (args, idpos) = match parse_add_or_trim(e, c, true) {
        Ok(p) => p,
        Err(r) => return r,
    };
    let field_pos = idpos + 1;
    if c.argc() < field_pos + 2 || (c.argc() - field_pos) % 2 == 1 {
        return Reply::err("ERR wrong number of arguments for 'xadd' command");
    }
    if let Some((id, true)) = args.id {
        if id.is_zero() {
            return Reply::err("ERR The ID specified in XADD must be greater than 0-0");
        }
    }
    let key = c.arg(1);
    match write_stream(e, c.db, key) {
        Err(r) => return r,
        Ok(Some(_)) => {}
        Ok(None) => {
            if args.no_mkstream {
                return Reply::Nil;
            }
            let obj = e.new_obj(Value::Stream(Box::default()));
            e.dbs[c.db].insert(key.to_vec(), obj);
        }
    }
    let limits = node_limits(e);
    let now = e.now_ms().max(0) as u64;
    let Some(s) = stream_at(e, c.db, key) else { return Reply::Nil };
    if s.last_id == StreamId::MAX {
        return Reply::err("ERR The stream has exhausted the last possible ID, unable to add more items");
    }
    let (use_id, seq_given) = match args.id {
        Some((id, seq)) => (Some(id), seq),
        None => (None, true),
    };
    let id = match s.append_item(&c.argv[field_pos..], use_id, seq_given, now, limits) {
        Ok(id) => id,
        Err(AppendError::IdTooSmall) => {
            return Reply::err("ERR The ID specified in XADD is equal or smaller than the target stream top item")
        }
        Err(AppendError::TooLarge | AppendError::SeqExhausted) => {
            return Reply::err("ERR Elements are too large to be stored")
        }
    };
    e.notify("xadd", c.db, key);
    e.dirty(1);
    let mut argv = e.prop.listening.then(|| c.argv.to_vec());
    // Propagated with the ID it got (when not given in full).
    if let (Some(argv), false) = (argv.as_mut(), matches!(args.id, Some((_, true)))) {
        argv[idpos] = id.to_string().into_bytes();
    }
    if args.strategy != TrimStrategy::None {
        let trimmed = stream_at(e, c.db, key).map_or(0, |s| s.trim(args.strategy, args.approx, args.limit));
        if trimmed > 0 {
            e.notify("xtrim", c.db, key);
        }
        if let Some(argv) = argv.as_mut() {
            rewrite_trim(e, c.db, key, &args, argv);
        }
    }
    if let Some(argv) = argv {
        e.propagate_as(argv);
    }
    e.signal_key_as_ready(c.db, key);
    id_reply(id)
}

/// t_stream.c `streamRewriteApproxSpecifier()` + `streamRewriteTrimArgument()`: an
/// approximate trim propagates as the exact one it came to (`=`, and the length, or the first
/// ID, the stream has now), so that a replay trims the same entries.
fn rewrite_trim(e: &Engine, db: usize, key: &[u8], args: &AddTrimArgs, argv: &mut [Vec<u8>]) {
    if !args.approx {
        return;
    }
    let Some(Value::Stream(s)) = e.dbs[db].get(key).map(|o| &o.value) else { return };
    argv[args.trim_arg - 1] = b"=".to_vec();
    argv[args.trim_arg] = match args.strategy {
        TrimStrategy::MaxLen(_) => s.length.to_string().into_bytes(),
        _ => s.edge_id(true, false).to_string().into_bytes(),
    };
}

/// t_stream.c `xlenCommand()`.
pub fn xlen(e: &mut Engine, c: &Call) -> Reply {
    match read_stream(e, c.db, c.arg(1)) {
        Err(r) => r,
        Ok(None) => Reply::Integer(0),
        Ok(Some(s)) => Reply::Integer(s.length as i64),
    }
}

/// t_stream.c `xrangeGenericCommand()`: both IDs, then COUNT, then the key.
fn xrange_generic(e: &mut Engine, c: &Call, rev: bool) -> Reply {
    let (start_arg, end_arg) = if rev { (c.arg(3), c.arg(2)) } else { (c.arg(2), c.arg(3)) };
    let start = match parse_range_start(start_arg) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let end = match parse_range_end(end_arg) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let mut count: i64 = -1;
    let mut j = 4;
    while j < c.argc() {
        if is_opt(c.arg(j), "count") && c.argc() - j > 1 {
            count = match parse_i64(c.arg(j + 1)) {
                Ok(n) => n.max(0),
                Err(r) => return r,
            };
            j += 1;
        } else {
            return syntax_error();
        }
        j += 1;
    }
    let mut budget = Budget::new(e);
    let s = match read_stream(e, c.db, c.arg(1)) {
        Err(r) => return r,
        Ok(None) => return Reply::Array(vec![]),
        Ok(Some(s)) => s,
    };
    if count == 0 {
        return Reply::NilArray;
    }
    let count = if count < 0 { 0 } else { usize::try_from(count).unwrap_or(usize::MAX) };
    match range_replies(s, start, end, count, rev, &mut budget) {
        Ok(items) => Reply::Array(items.into_iter().map(|(_, r)| r).collect()),
        Err(r) => r,
    }
}

pub fn xrange(e: &mut Engine, c: &Call) -> Reply {
    xrange_generic(e, c, false)
}

pub fn xrevrange(e: &mut Engine, c: &Call) -> Reply {
    xrange_generic(e, c, true)
}

/// t_stream.c `xdelCommand()`: a missing key answers 0 before the IDs are parsed; all IDs
/// are parsed before any is deleted.
pub fn xdel(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    match write_stream(e, c.db, key) {
        Err(r) => return r,
        Ok(None) => return Reply::Integer(0),
        Ok(Some(_)) => {}
    }
    let mut ids = Vec::with_capacity(c.argc() - 2);
    for a in &c.argv[2..] {
        match parse_strict_id(a, 0) {
            Ok(id) => ids.push(id),
            Err(r) => return r,
        }
    }
    let Some(s) = stream_at(e, c.db, key) else { return Reply::Integer(0) };
    let mut deleted = 0i64;
    let mut first_entry = false;
    for id in ids {
        if s.delete_item(id) {
            if id == s.first_id {
                first_entry = true;
            }
            if id > s.max_deleted_entry_id {
                s.max_deleted_entry_id = id;
            }
            deleted += 1;
        }
    }
    if deleted > 0 {
        if s.length == 0 {
            s.first_id = StreamId::MIN;
        } else if first_entry {
            s.first_id = s.edge_id(true, true);
        }
        e.notify("xdel", c.db, key);
        e.dirty(deleted as u64);
    }
    Reply::Integer(deleted)
}

/// t_stream.c `xtrimCommand()`.
pub fn xtrim(e: &mut Engine, c: &Call) -> Reply {
    let (args, _) = match parse_add_or_trim(e, c, false) {
        Ok(p) => p,
        Err(r) => return r,
    };
    let key = c.arg(1);
    match write_stream(e, c.db, key) {
        Err(r) => return r,
        Ok(None) => return Reply::Integer(0),
        Ok(Some(_)) => {}
    }
    let deleted = stream_at(e, c.db, key).map_or(0, |s| s.trim(args.strategy, args.approx, args.limit));
    if deleted > 0 {
        e.notify("xtrim", c.db, key);
        e.dirty(deleted as u64);
    }
    if e.prop.listening && args.approx {
        let mut argv = c.argv.to_vec();
        rewrite_trim(e, c.db, key, &args, &mut argv);
        e.propagate_as(argv);
    }
    Reply::Integer(deleted)
}

/// t_stream.c `xsetidCommand()`: the options are parsed before the key is looked up.
pub fn xsetid(e: &mut Engine, c: &Call) -> Reply {
    let id = match parse_strict_id(c.arg(2), 0) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let mut entries_added: i64 = -1;
    let mut max_xdel_id = StreamId::MIN;
    let mut i = 3;
    while i < c.argc() {
        let moreargs = c.argc() - 1 - i;
        let opt = c.arg(i);
        if is_opt(opt, "entriesadded") && moreargs > 0 {
            entries_added = match parse_i64(c.arg(i + 1)) {
                Ok(n) => n,
                Err(r) => return r,
            };
            if entries_added < 0 {
                return Reply::err("ERR entries_added must be positive");
            }
            i += 2;
        } else if is_opt(opt, "maxdeletedid") && moreargs > 0 {
            max_xdel_id = match parse_strict_id(c.arg(i + 1), 0) {
                Ok(id) => id,
                Err(r) => return r,
            };
            if id < max_xdel_id {
                return Reply::err("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
            }
            i += 2;
        } else {
            return syntax_error();
        }
    }
    let key = c.arg(1);
    match write_stream(e, c.db, key) {
        Err(r) => return r,
        Ok(None) => return Reply::err(crate::command::NO_SUCH_KEY),
        Ok(Some(_)) => {}
    }
    let Some(s) = stream_at(e, c.db, key) else { return Reply::err(crate::command::NO_SUCH_KEY) };
    if s.length > 0 {
        if id < s.last_valid_id() {
            return Reply::err("ERR The ID specified in XSETID is smaller than the target stream top item");
        }
        if entries_added != -1 && s.length > entries_added as u64 {
            return Reply::err("ERR The entries_added specified in XSETID is smaller than the target stream length");
        }
    }
    s.last_id = id;
    if entries_added != -1 {
        s.entries_added = entries_added as u64;
    }
    if !max_xdel_id.is_zero() {
        s.max_deleted_entry_id = max_xdel_id;
    }
    e.dirty(1);
    e.notify_unsignalled("xsetid", c.db, key);
    Reply::ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_as_string2ull_and_strtoull_do() {
        let p = |s: &str| parse_id(s.as_bytes(), 0).ok();
        assert_eq!(p("5"), Some(StreamId::new(5, 0)));
        assert_eq!(p("5-3"), Some(StreamId::new(5, 3)));
        assert_eq!(p("+5"), Some(StreamId::new(5, 0)));
        assert_eq!(p(" 5"), Some(StreamId::new(5, 0)));
        assert_eq!(p("05-007"), Some(StreamId::new(5, 7)));
        assert_eq!(p("-1"), None);
        // The first `-` splits ms from seq, so a negative ms never reaches strtoull.
        assert_eq!(p(" -1"), None);
        assert_eq!(p("18446744073709551615-18446744073709551615"), Some(StreamId::MAX));
        assert_eq!(p("18446744073709551616"), None);
        assert_eq!(p("5 "), None);
        assert_eq!(p(""), None);
        assert_eq!(p("-"), Some(StreamId::MIN));
        assert_eq!(p("+"), Some(StreamId::MAX));
        assert_eq!(parse_strict_id(b"-", 0).ok(), None);
        assert_eq!(p("5\x00junk"), Some(StreamId::new(5, 0)));
        assert_eq!(parse_id_generic(b"7-*", 0, true, true).ok(), Some((StreamId::new(7, 0), false)));
        assert_eq!(p("7-*"), None);
        assert_eq!(p(&"1".repeat(128)), None);
    }
}
