//! t_zset.c commands: ZADD, ZINCRBY, ZSCORE, ZMSCORE, ZCARD, ZCOUNT, ZLEXCOUNT, the ZRANGE
//! family (ZRANGE with BYSCORE/BYLEX/REV/LIMIT/WITHSCORES, ZRANGEBYSCORE, ZREVRANGEBYSCORE,
//! ZRANGEBYLEX, ZREVRANGEBYLEX, ZREVRANGE, ZRANGESTORE), ZRANK, ZREVRANK, ZREM,
//! ZREMRANGEBYSCORE/RANK/LEX, ZPOPMIN, ZPOPMAX, ZMPOP, ZRANDMEMBER, ZUNION/ZINTER/ZDIFF and
//! their STORE forms, ZINTERCARD, ZSCAN.
//!
//! Each handler follows its t_zset.c function (`zaddGenericCommand`, `zrangeGenericCommand`,
//! `zremrangeGenericCommand`, `genericZpopCommand`, `zmpopGenericCommand`,
//! `zrandmemberWithCountCommand`, `zunionInterDiffGenericCommand`…) in its order of checks.
//! The type operations are in src/zset.rs, the skiplist in src/ds/skiplist.rs. Every insert,
//! removal, conversion and skiplist search is reported as an event for the sorted-set view.
//! Differences: ZRANDMEMBER with a negative count returns at most `MAX_RANDOM_REPLY` members
//! (Redis would build a reply of any size); hashtable-encoded SET sources are iterated in our
//! order, not Redis's hash order (the results are sorted sets, so only float rounding in
//! SUM over 3+ inputs could tell).

use crate::command::call::Call;
use crate::command::db::{parse_scan_cursor, parse_scan_options};
use crate::command::{c_str, clamp_range, is_opt, parse_i64, syntax_error, wrongtype, NOT_FLOAT, NOT_INTEGER};
use crate::ds::skiplist::{random_level, LexBound, LexRange, PathStep, ScoreRange};
use crate::engine::{uniform, Engine};
use crate::events::{Event, SearchStep};
use crate::object::{Set, Value, Zset};
use crate::reply::Reply;
use crate::util::{string2d, text};
use crate::zset::{self, AddFlags, AddOutcome, Change, Limits};

/// The largest reply ZRANDMEMBER with a negative count builds in the playground.
pub const MAX_RANDOM_REPLY: u64 = 1_000_000;

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

pub(crate) fn limits(e: &Engine) -> Limits {
    Limits {
        max_entries: e.config.int("zset-max-listpack-entries").max(0) as usize,
        max_value: e.config.int("zset-max-listpack-value").max(0) as usize,
    }
}

/// A STORE variant's empty result (ZRANGESTORE, ZUNIONSTORE…, GEOSEARCHSTORE, GEORADIUS STORE):
/// the destination is deleted — a `del` event and one change, if it existed — and the reply is 0.
pub(crate) fn store_nothing(e: &mut Engine, db: usize, dst: &[u8]) -> Reply {
    if e.dbs[db].delete(dst) {
        e.notify("del", db, dst);
        e.dirty(1);
    }
    Reply::Integer(0)
}

/// The sorted set ZUNIONSTORE/ZINTERSTORE/ZDIFFSTORE and the GEO STORE options write: built as
/// a skiplist, then shrunk to a listpack if it fits (t_zset.c `zsetConvertToListpackIfNeeded()`).
pub(crate) fn zset_from_pairs<'a>(e: &mut Engine, pairs: impl IntoIterator<Item = (&'a [u8], f64)>) -> Zset {
    let lim = limits(e);
    let mut z = zset::create(Limits { max_entries: 0, ..lim }, 0);
    let Engine { rng, .. } = e;
    let mut level = || random_level(|| uniform(rng));
    let mut changes = Vec::new();
    for (m, s) in pairs {
        zset::add(&mut z, s, m, AddFlags::default(), lim, &mut level, &mut changes);
    }
    zset::shrink_if_possible(&mut z, lim);
    z
}

/// The zset at `key` after a write lookup: Ok(None) if missing, WRONGTYPE otherwise.
fn check_zset_write(e: &mut Engine, db: usize, key: &[u8]) -> Result<bool, Reply> {
    match e.lookup_write(db, key).map(|o| matches!(o.value, Value::Zset(_))) {
        None => Ok(false),
        Some(true) => Ok(true),
        Some(false) => Err(wrongtype()),
    }
}

pub(crate) fn check_zset_read(e: &mut Engine, db: usize, key: &[u8]) -> Result<bool, Reply> {
    match e.lookup_read(db, key).map(|o| matches!(o.value, Value::Zset(_))) {
        None => Ok(false),
        Some(true) => Ok(true),
        Some(false) => Err(wrongtype()),
    }
}

/// The stored zset (after a lookup said it is one).
pub(crate) fn zset_ref<'a>(e: &'a Engine, db: usize, key: &[u8]) -> Option<&'a Zset> {
    match e.dbs[db].get(key).map(|o| &o.value) {
        Some(Value::Zset(z)) => Some(z),
        _ => None,
    }
}

/// Runs `f` on the stored zset with a level generator drawing from the engine's RNG.
fn with_zset<R>(
    e: &mut Engine,
    db: usize,
    key: &[u8],
    f: impl FnOnce(&mut Zset, &mut dyn FnMut() -> usize) -> R,
) -> Option<R> {
    let Engine { dbs, rng, .. } = e;
    let obj = dbs[db].get_mut(key)?;
    let Value::Zset(z) = &mut obj.value else { return None };
    let mut level = || random_level(|| uniform(rng));
    Some(f(z, &mut level))
}

fn score_reply(s: f64) -> Reply {
    Reply::Double(s)
}

/// Members, or member/score pairs (flat over RESP2, nested over RESP3: t_zset.c
/// `zrangeResultEmitCBufferForClient()` / `zrandmemberWithCountCommand()`).
fn members_reply(items: &[(Vec<u8>, f64)], withscores: bool) -> Reply {
    if withscores {
        return Reply::Pairs(items.iter().map(|(m, s)| (Reply::bulk(m), score_reply(*s))).collect());
    }
    Reply::Array(items.iter().map(|(m, _)| Reply::bulk(m)).collect())
}

fn emit_changes(e: &mut Engine, db: usize, key: &[u8], changes: Vec<Change>) {
    if !e.events.enabled() {
        return;
    }
    let at_ms = e.now_ms();
    for ch in changes {
        let ev = match ch {
            Change::Converted { from, to, len } => {
                Event::ZsetConvert { at_ms, db, key: text(key), from: from.into(), to: to.into(), len }
            }
            Change::Inserted { member, score, rank, level } => {
                Event::ZsetInsert { at_ms, db, key: text(key), member: text(&member), score, rank, level }
            }
        };
        e.events.push(ev);
    }
}

fn emit_removed(e: &mut Engine, db: usize, key: &[u8], removed: &[(Vec<u8>, f64)]) {
    if !removed.is_empty() && e.events.enabled() {
        let at_ms = e.now_ms();
        e.events.push(Event::ZsetRemove {
            at_ms,
            db,
            key: text(key),
            members: removed.iter().map(|(m, _)| text(m)).collect(),
        });
    }
}

fn emit_search(e: &mut Engine, db: usize, key: &[u8], command: &str, path: Vec<PathStep>) {
    if path.is_empty() || !e.events.enabled() {
        return;
    }
    let Some(Zset::Skiplist { zsl, .. }) = zset_ref(e, db, key) else { return };
    let steps = path
        .iter()
        .map(|p| {
            let n = zsl.node(p.node);
            SearchStep {
                level: p.level,
                rank: p.rank.saturating_sub(1),
                moved: p.moved,
                member: text(&n.ele),
                score: n.score,
            }
        })
        .collect();
    let at_ms = e.now_ms();
    e.events.push(Event::ZsetSearch { at_ms, db, key: text(key), command: command.to_string(), path: steps });
}

/// Deletes the key if the zset is now empty (with the `del` event).
fn delete_if_empty(e: &mut Engine, db: usize, key: &[u8]) -> bool {
    if zset_ref(e, db, key).is_some_and(|z| z.is_empty()) {
        e.dbs[db].delete(key);
        e.notify("del", db, key);
        return true;
    }
    false
}

/// t_zset.c `zslParseRange()`: `(` for exclusive, C strtod for the rest.
fn parse_score_range(min: &[u8], max: &[u8]) -> Result<ScoreRange, Reply> {
    fn bound(b: &[u8]) -> Option<(f64, bool)> {
        let (ex, rest) = match b.first() {
            Some(b'(') => (true, &b[1..]),
            _ => (false, b),
        };
        let v = crate::util::strtod_whole(rest)?;
        (!v.is_nan()).then_some((v, ex))
    }
    match (bound(min), bound(max)) {
        (Some((min, minex)), Some((max, maxex))) => Ok(ScoreRange { min, max, minex, maxex }),
        _ => Err(Reply::err("ERR min or max is not a float")),
    }
}

/// t_zset.c `zslParseLexRangeItem()`.
fn parse_lex_bound(b: &[u8]) -> Option<LexBound> {
    let cs = c_str(b);
    match b.first() {
        Some(b'+') if cs.len() == 1 => Some(LexBound::PlusInf),
        Some(b'-') if cs.len() == 1 => Some(LexBound::MinusInf),
        Some(b'(') => Some(LexBound::Exclusive(b[1..].to_vec())),
        Some(b'[') => Some(LexBound::Inclusive(b[1..].to_vec())),
        _ => None,
    }
}

fn parse_lex_range(min: &[u8], max: &[u8]) -> Result<LexRange, Reply> {
    match (parse_lex_bound(min), parse_lex_bound(max)) {
        (Some(min), Some(max)) => Ok(LexRange { min, max }),
        _ => Err(Reply::err("ERR min or max not valid string range item")),
    }
}

/// Rank sanitizing shared by ZRANGE and ZREMRANGEBYRANK: `None` for an empty range.
fn sanitize_ranks(start: i64, end: i64, len: i64) -> Option<(u64, u64)> {
    clamp_range(start, end, len).map(|(start, end)| (start as u64, end as u64))
}

// ---------------------------------------------------------------------------------------------
// ZADD / ZINCRBY
// ---------------------------------------------------------------------------------------------

/// t_zset.c `zaddGenericCommand()`.
fn zadd_generic(e: &mut Engine, c: &Call, incr_cmd: bool) -> Reply {
    let key = c.arg(1);
    let mut f = AddFlags { incr: incr_cmd, ..Default::default() };
    let mut ch = false;
    let mut idx = 2;
    while idx < c.argc() {
        let opt = c.arg(idx);
        if is_opt(opt, "nx") {
            f.nx = true;
        } else if is_opt(opt, "xx") {
            f.xx = true;
        } else if is_opt(opt, "ch") {
            ch = true;
        } else if is_opt(opt, "incr") {
            f.incr = true;
        } else if is_opt(opt, "gt") {
            f.gt = true;
        } else if is_opt(opt, "lt") {
            f.lt = true;
        } else {
            break;
        }
        idx += 1;
    }
    let elements = c.argc() - idx;
    if elements % 2 == 1 || elements == 0 {
        return syntax_error();
    }
    let elements = elements / 2;
    if f.nx && f.xx {
        return Reply::err("ERR XX and NX options at the same time are not compatible");
    }
    if [f.gt, f.lt, f.nx].iter().filter(|&&on| on).count() > 1 {
        return Reply::err("ERR GT, LT, and/or NX options at the same time are not compatible");
    }
    if f.incr && elements > 1 {
        return Reply::err("ERR INCR option supports a single increment-element pair");
    }
    let mut scores = Vec::with_capacity(elements);
    for j in 0..elements {
        match string2d(c.arg(idx + j * 2)) {
            Some(s) => scores.push(s),
            None => return Reply::err(NOT_FLOAT),
        }
    }
    let exists = match check_zset_write(e, c.db, key) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let lim = limits(e);
    let (mut added, mut updated, mut processed) = (0i64, 0i64, 0i64);
    let mut last_score = 0.0;
    let mut nan = false;
    if !exists {
        if f.xx {
            return if f.incr { Reply::Nil } else { Reply::Integer(0) };
        }
        let z = zset::create(lim, c.arg(idx + 1).len());
        let obj = e.new_obj(Value::Zset(z));
        e.dbs[c.db].insert(key.to_vec(), obj);
    }
    let mut changes = Vec::new();
    let pairs: Vec<(f64, &[u8])> = (0..elements).map(|j| (scores[j], c.arg(idx + 1 + j * 2))).collect();
    with_zset(e, c.db, key, |z, level| {
        for (score, member) in pairs {
            match zset::add(z, score, member, f, lim, level, &mut changes) {
                AddOutcome::Nan => {
                    nan = true;
                    break;
                }
                AddOutcome::Added { score } => {
                    added += 1;
                    processed += 1;
                    last_score = score;
                }
                AddOutcome::Updated { score } => {
                    updated += 1;
                    processed += 1;
                    last_score = score;
                }
                AddOutcome::Unchanged { score } => {
                    processed += 1;
                    last_score = score;
                }
                AddOutcome::Nop => {}
            }
        }
    });
    emit_changes(e, c.db, key, changes);
    if added + updated > 0 {
        e.notify(if f.incr { "zincr" } else { "zadd" }, c.db, key);
        e.dirty((added + updated) as u64);
    }
    if nan {
        return Reply::err("ERR resulting score is not a number (NaN)");
    }
    if f.incr {
        if processed > 0 {
            score_reply(last_score)
        } else {
            Reply::Nil
        }
    } else {
        Reply::Integer(if ch { added + updated } else { added })
    }
}

pub fn zadd(e: &mut Engine, c: &Call) -> Reply {
    zadd_generic(e, c, false)
}

pub fn zincrby(e: &mut Engine, c: &Call) -> Reply {
    zadd_generic(e, c, true)
}

// ---------------------------------------------------------------------------------------------
// Point lookups
// ---------------------------------------------------------------------------------------------

pub fn zscore(e: &mut Engine, c: &Call) -> Reply {
    match check_zset_read(e, c.db, c.arg(1)) {
        Err(r) => r,
        Ok(false) => Reply::Nil,
        Ok(true) => {
            zset_ref(e, c.db, c.arg(1)).and_then(|z| zset::score(z, c.arg(2))).map(score_reply).unwrap_or(Reply::Nil)
        }
    }
}

pub fn zmscore(e: &mut Engine, c: &Call) -> Reply {
    match check_zset_read(e, c.db, c.arg(1)) {
        Err(r) => r,
        Ok(false) => Reply::Array(vec![Reply::Nil; c.argc() - 2]),
        Ok(true) => {
            let z = zset_ref(e, c.db, c.arg(1));
            Reply::Array(
                c.argv[2..]
                    .iter()
                    .map(|m| z.and_then(|z| zset::score(z, m)).map(score_reply).unwrap_or(Reply::Nil))
                    .collect(),
            )
        }
    }
}

pub fn zcard(e: &mut Engine, c: &Call) -> Reply {
    match check_zset_read(e, c.db, c.arg(1)) {
        Err(r) => r,
        Ok(false) => Reply::Integer(0),
        Ok(true) => Reply::Integer(zset_ref(e, c.db, c.arg(1)).map_or(0, |z| z.len()) as i64),
    }
}

fn zrank_generic(e: &mut Engine, c: &Call, rev: bool) -> Reply {
    let key = c.arg(1);
    match check_zset_read(e, c.db, key) {
        Err(r) => r,
        Ok(false) => Reply::Nil,
        Ok(true) => {
            let mut path = Vec::new();
            let trace = e.events.enabled();
            let r = zset_ref(e, c.db, key).and_then(|z| zset::rank(z, c.arg(2), rev, trace.then_some(&mut path)));
            emit_search(e, c.db, key, if rev { "zrevrank" } else { "zrank" }, path);
            r.map(|r| Reply::Integer(r as i64)).unwrap_or(Reply::Nil)
        }
    }
}

pub fn zrank(e: &mut Engine, c: &Call) -> Reply {
    zrank_generic(e, c, false)
}

pub fn zrevrank(e: &mut Engine, c: &Call) -> Reply {
    zrank_generic(e, c, true)
}

pub fn zcount(e: &mut Engine, c: &Call) -> Reply {
    let range = match parse_score_range(c.arg(2), c.arg(3)) {
        Ok(r) => r,
        Err(r) => return r,
    };
    match check_zset_read(e, c.db, c.arg(1)) {
        Err(r) => r,
        Ok(false) => Reply::Integer(0),
        Ok(true) => Reply::Integer(zset_ref(e, c.db, c.arg(1)).map_or(0, |z| zset::count_in_range(z, &range)) as i64),
    }
}

pub fn zlexcount(e: &mut Engine, c: &Call) -> Reply {
    let range = match parse_lex_range(c.arg(2), c.arg(3)) {
        Ok(r) => r,
        Err(r) => return r,
    };
    match check_zset_read(e, c.db, c.arg(1)) {
        Err(r) => r,
        Ok(false) => Reply::Integer(0),
        Ok(true) => Reply::Integer(zset_ref(e, c.db, c.arg(1)).map_or(0, |z| zset::count_in_lex_range(z, &range))),
    }
}

// ---------------------------------------------------------------------------------------------
// The ZRANGE family
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum RangeType {
    Auto,
    Rank,
    Score,
    Lex,
}

#[derive(Clone, Copy, PartialEq)]
enum Direction {
    Auto,
    Forward,
    Reverse,
}

/// t_zset.c `zrangeGenericCommand()`: `argc_start` is the source key's index; `store` is
/// ZRANGESTORE (destination at argv[1]).
fn zrange_generic(
    e: &mut Engine,
    c: &Call,
    argc_start: usize,
    store: bool,
    mut rtype: RangeType,
    mut dir: Direction,
) -> Reply {
    let key = c.arg(argc_start);
    let (mut minidx, mut maxidx) = (argc_start + 1, argc_start + 2);
    let mut withscores = false;
    let (mut offset, mut limit) = (0i64, -1i64);
    let mut j = argc_start + 3;
    while j < c.argc() {
        let left = c.argc() - j - 1;
        let opt = c.arg(j);
        if !store && is_opt(opt, "withscores") {
            withscores = true;
        } else if is_opt(opt, "limit") && left >= 2 {
            match (parse_i64(c.arg(j + 1)), parse_i64(c.arg(j + 2))) {
                (Ok(o), Ok(l)) => {
                    offset = o;
                    limit = l;
                }
                (Err(r), _) | (_, Err(r)) => return r,
            }
            j += 2;
        } else if dir == Direction::Auto && is_opt(opt, "rev") {
            dir = Direction::Reverse;
        } else if rtype == RangeType::Auto && is_opt(opt, "bylex") {
            rtype = RangeType::Lex;
        } else if rtype == RangeType::Auto && is_opt(opt, "byscore") {
            rtype = RangeType::Score;
        } else {
            return syntax_error();
        }
        j += 1;
    }
    if dir == Direction::Auto {
        dir = Direction::Forward;
    }
    if rtype == RangeType::Auto {
        rtype = RangeType::Rank;
    }
    if limit != -1 && rtype == RangeType::Rank {
        return Reply::err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
    }
    if withscores && rtype == RangeType::Lex {
        return Reply::err("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
    }
    let rev = dir == Direction::Reverse;
    if rev && rtype != RangeType::Rank {
        std::mem::swap(&mut minidx, &mut maxidx);
    }
    enum Parsed {
        Rank(i64, i64),
        Score(ScoreRange),
        Lex(LexRange),
    }
    let parsed = match rtype {
        RangeType::Score => match parse_score_range(c.arg(minidx), c.arg(maxidx)) {
            Ok(r) => Parsed::Score(r),
            Err(r) => return r,
        },
        RangeType::Lex => match parse_lex_range(c.arg(minidx), c.arg(maxidx)) {
            Ok(r) => Parsed::Lex(r),
            Err(r) => return r,
        },
        _ => match (parse_i64(c.arg(minidx)), parse_i64(c.arg(maxidx))) {
            (Ok(a), Ok(b)) => Parsed::Rank(a, b),
            (Err(r), _) | (_, Err(r)) => return r,
        },
    };
    let exists = match e.lookup_read(c.db, key).map(|o| matches!(o.value, Value::Zset(_))) {
        None => false,
        Some(true) => true,
        Some(false) => {
            return wrongtype();
        }
    };
    let mut path = Vec::new();
    let trace = e.events.enabled();
    let mut rank_len = None;
    let result: Vec<(Vec<u8>, f64)> = match (exists, zset_ref(e, c.db, key)) {
        (true, Some(z)) => match &parsed {
            Parsed::Rank(a, b) => match sanitize_ranks(*a, *b, z.len() as i64) {
                Some((s, en)) => {
                    rank_len = Some(en - s + 1);
                    zset::range_by_rank(z, s, en, rev)
                }
                None => {
                    rank_len = Some(0);
                    vec![]
                }
            },
            Parsed::Score(r) => zset::range_by_score(z, r, rev, offset, limit, trace.then_some(&mut path)),
            Parsed::Lex(r) => zset::range_by_lex(z, r, rev, offset, limit),
        },
        _ => {
            if !store {
                return Reply::Array(vec![]);
            }
            vec![]
        }
    };
    if exists {
        emit_search(e, c.db, key, &c.cmd.name, path);
    }
    if !store {
        return members_reply(&result, withscores);
    }
    // ZRANGESTORE: zrangeResultBeginStore/EmitCBufferForStore/FinalizeStore.
    let dst = c.arg(1);
    if result.is_empty() {
        return store_nothing(e, c.db, dst);
    }
    let lim = limits(e);
    let begin_len = rank_len.map(|n| n as i64).unwrap_or(-1);
    let mut z = if begin_len > lim.max_entries as i64 {
        zset::create(Limits { max_entries: 0, ..lim }, 0)
    } else {
        Zset::Listpack(Vec::new())
    };
    let mut changes = Vec::new();
    {
        let Engine { rng, .. } = e;
        let mut level = || random_level(|| uniform(rng));
        for (m, s) in &result {
            zset::add(&mut z, *s, m, AddFlags { nx: true, ..Default::default() }, lim, &mut level, &mut changes);
        }
    }
    let n = z.len();
    let obj = e.new_obj(Value::Zset(z));
    e.dbs[c.db].set_key(dst.to_vec(), obj, false);
    e.notify("zrangestore", c.db, dst);
    e.dirty(1);
    Reply::Integer(n as i64)
}

pub fn zrange(e: &mut Engine, c: &Call) -> Reply {
    zrange_generic(e, c, 1, false, RangeType::Auto, Direction::Auto)
}

pub fn zrevrange(e: &mut Engine, c: &Call) -> Reply {
    zrange_generic(e, c, 1, false, RangeType::Rank, Direction::Reverse)
}

pub fn zrangebyscore(e: &mut Engine, c: &Call) -> Reply {
    zrange_generic(e, c, 1, false, RangeType::Score, Direction::Forward)
}

pub fn zrevrangebyscore(e: &mut Engine, c: &Call) -> Reply {
    zrange_generic(e, c, 1, false, RangeType::Score, Direction::Reverse)
}

pub fn zrangebylex(e: &mut Engine, c: &Call) -> Reply {
    zrange_generic(e, c, 1, false, RangeType::Lex, Direction::Forward)
}

pub fn zrevrangebylex(e: &mut Engine, c: &Call) -> Reply {
    zrange_generic(e, c, 1, false, RangeType::Lex, Direction::Reverse)
}

pub fn zrangestore(e: &mut Engine, c: &Call) -> Reply {
    zrange_generic(e, c, 2, true, RangeType::Auto, Direction::Auto)
}

// ---------------------------------------------------------------------------------------------
// Removal
// ---------------------------------------------------------------------------------------------

pub fn zrem(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    match check_zset_write(e, c.db, key) {
        Err(r) => return r,
        Ok(false) => return Reply::Integer(0),
        Ok(true) => {}
    }
    let mut removed = Vec::new();
    with_zset(e, c.db, key, |z, _| {
        for m in &c.argv[2..] {
            if zset::remove(z, m) {
                removed.push((m.clone(), 0.0));
            }
            if z.is_empty() {
                break;
            }
        }
    });
    if !removed.is_empty() {
        emit_removed(e, c.db, key, &removed);
        e.notify("zrem", c.db, key);
        delete_if_empty(e, c.db, key);
        e.dirty(removed.len() as u64);
    }
    Reply::Integer(removed.len() as i64)
}

/// t_zset.c `zremrangeGenericCommand()`.
fn zremrange_generic(e: &mut Engine, c: &Call, rtype: RangeType) -> Reply {
    let key = c.arg(1);
    enum Parsed {
        Rank(i64, i64),
        Score(ScoreRange),
        Lex(LexRange),
    }
    let parsed = match rtype {
        RangeType::Score => match parse_score_range(c.arg(2), c.arg(3)) {
            Ok(r) => Parsed::Score(r),
            Err(r) => return r,
        },
        RangeType::Lex => match parse_lex_range(c.arg(2), c.arg(3)) {
            Ok(r) => Parsed::Lex(r),
            Err(r) => return r,
        },
        _ => match (parse_i64(c.arg(2)), parse_i64(c.arg(3))) {
            (Ok(a), Ok(b)) => Parsed::Rank(a, b),
            (Err(r), _) | (_, Err(r)) => return r,
        },
    };
    match check_zset_write(e, c.db, key) {
        Err(r) => return r,
        Ok(false) => return Reply::Integer(0),
        Ok(true) => {}
    }
    let removed = with_zset(e, c.db, key, |z, _| match &parsed {
        Parsed::Rank(a, b) => match sanitize_ranks(*a, *b, z.len() as i64) {
            Some((s, en)) => zset::remove_range_by_rank(z, s, en),
            None => vec![],
        },
        Parsed::Score(r) => zset::remove_where(z, |_, s| r.contains(s)),
        Parsed::Lex(r) => zset::remove_range_by_lex(z, r),
    })
    .unwrap_or_default();
    if !removed.is_empty() {
        emit_removed(e, c.db, key, &removed);
        let event = match rtype {
            RangeType::Score => "zremrangebyscore",
            RangeType::Lex => "zremrangebylex",
            _ => "zremrangebyrank",
        };
        e.notify(event, c.db, key);
        delete_if_empty(e, c.db, key);
        e.dirty(removed.len() as u64);
    }
    Reply::Integer(removed.len() as i64)
}

pub fn zremrangebyscore(e: &mut Engine, c: &Call) -> Reply {
    zremrange_generic(e, c, RangeType::Score)
}

pub fn zremrangebyrank(e: &mut Engine, c: &Call) -> Reply {
    zremrange_generic(e, c, RangeType::Rank)
}

pub fn zremrangebylex(e: &mut Engine, c: &Call) -> Reply {
    zremrange_generic(e, c, RangeType::Lex)
}

// ---------------------------------------------------------------------------------------------
// Pops
// ---------------------------------------------------------------------------------------------

/// t_zset.c `genericZpopCommand()` for the non-blocking callers. `emit_key` + `nested` is
/// ZMPOP's `[key, [[m, s], …]]`; neither is ZPOPMIN/ZPOPMAX's flat `[m, s, …]`.
fn zpop_generic(e: &mut Engine, c: &Call, keys: &[Vec<u8>], max: bool, count: i64, zmpop: bool) -> Reply {
    let reply = zpop_in(e, c.db, keys, max, count, if zmpop { PopShape::Nested } else { PopShape::Flat });
    if zmpop {
        propagate_pop(e, &reply, max, true);
    }
    reply
}

/// `genericZpopCommand()`'s rewrite: ZMPOP and the blocking pops served at once propagate as
/// `ZPOPMIN|ZPOPMAX key [count]` (`with_count`: the count popped), naming the key popped.
fn propagate_pop(e: &mut Engine, reply: &Reply, max: bool, with_count: bool) {
    let Reply::Array(items) = reply else { return };
    let Some(Reply::Bulk(key)) = items.first() else { return };
    let mut argv = vec![if max { b"ZPOPMAX".to_vec() } else { b"ZPOPMIN".to_vec() }, key.clone()];
    if with_count {
        let popped = match items.get(1) {
            Some(Reply::Array(pairs)) => pairs.len(),
            _ => 1,
        };
        argv.push(popped.to_string().into_bytes());
    }
    e.propagate_as(argv);
}

/// How a pop answers: ZPOPMIN's `[m, s, …]`, BZPOPMIN's `[key, m, s]`, (B)ZMPOP's
/// `[key, [[m, s], …]]`.
#[derive(Clone, Copy, PartialEq)]
enum PopShape {
    Flat,
    KeyFlat,
    Nested,
}

fn zpop_in(e: &mut Engine, db: usize, keys: &[Vec<u8>], max: bool, count: i64, shape: PopShape) -> Reply {
    let zmpop = shape == PopShape::Nested;
    let mut found = None;
    for key in keys {
        match check_zset_write(e, db, key) {
            Err(r) => return r,
            Ok(false) => continue,
            Ok(true) => {
                found = Some(key.clone());
                break;
            }
        }
    }
    let Some(key) = found else {
        return if zmpop { Reply::NilArray } else { Reply::Array(vec![]) };
    };
    if count == 0 {
        return Reply::Array(vec![]);
    }
    // `use_nested_array = c->resp > 2 && count != -1`: only an explicit count nests over RESP3.
    let explicit_count = count != -1;
    let count = if count == -1 { 1 } else { count };
    let popped = with_zset(e, db, &key, |z, _| {
        let len = z.len() as u64;
        let n = (count as u64).min(len);
        let mut out = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let at = if max { z.len() as u64 - 1 } else { 0 };
            let mut removed = zset::remove_range_by_rank(z, at, at);
            if let Some(p) = removed.pop() {
                out.push(p);
            }
        }
        out
    })
    .unwrap_or_default();
    emit_removed(e, db, &key, &popped);
    e.notify(if max { "zpopmax" } else { "zpopmin" }, db, &key);
    delete_if_empty(e, db, &key);
    e.dirty(popped.len() as u64);
    if shape == PopShape::KeyFlat {
        return match popped.first() {
            Some((m, s)) => Reply::Array(vec![Reply::Bulk(key), Reply::bulk(m), score_reply(*s)]),
            None => Reply::NilArray,
        };
    }
    if zmpop {
        let items = popped.iter().map(|(m, s)| Reply::Array(vec![Reply::bulk(m), score_reply(*s)])).collect();
        Reply::Array(vec![Reply::Bulk(key), Reply::Array(items)])
    } else if explicit_count {
        members_reply(&popped, true)
    } else {
        Reply::Array(popped.iter().flat_map(|(m, s)| [Reply::bulk(m), score_reply(*s)]).collect())
    }
}

fn zpop_minmax(e: &mut Engine, c: &Call, max: bool) -> Reply {
    if c.argc() > 3 {
        return syntax_error();
    }
    let mut count = -1;
    if c.argc() == 3 {
        // getPositiveLongFromObjectOrReply(): one message for non-integers and negatives.
        match crate::util::string2ll(c.arg(2)) {
            Some(n) if n >= 0 => count = n,
            _ => return Reply::err("ERR value is out of range, must be positive"),
        }
    }
    let keys = vec![c.arg(1).to_vec()];
    zpop_generic(e, c, &keys, max, count, false)
}

pub fn zpopmin(e: &mut Engine, c: &Call) -> Reply {
    zpop_minmax(e, c, false)
}

pub fn zpopmax(e: &mut Engine, c: &Call) -> Reply {
    zpop_minmax(e, c, true)
}

/// `getRangeLongFromObjectOrReply(…, 1, LONG_MAX, msg)`: the message replaces both errors.
fn positive_with_msg(arg: &[u8], msg: &str) -> Result<i64, Reply> {
    match crate::util::string2ll(arg) {
        Some(n) if n >= 1 => Ok(n),
        _ => Err(Reply::err(format!("ERR {msg}"))),
    }
}

/// t_zset.c `zmpopGenericCommand()`'s parsing: `numkeys key [key ...] MIN|MAX [COUNT count]`
/// from `numkeys_idx` → (keys, max, count).
fn parse_zmpop(argv: &[Vec<u8>], numkeys_idx: usize) -> Result<(Vec<Vec<u8>>, bool, i64), Reply> {
    let arg = |i: usize| argv.get(i).map(|v| v.as_slice()).unwrap_or(b"");
    let numkeys = positive_with_msg(arg(numkeys_idx), "numkeys should be greater than 0")?;
    let where_idx = numkeys_idx as u64 + numkeys as u64 + 1;
    if where_idx >= argv.len() as u64 {
        return Err(syntax_error());
    }
    let where_idx = where_idx as usize;
    let max = if is_opt(arg(where_idx), "min") {
        false
    } else if is_opt(arg(where_idx), "max") {
        true
    } else {
        return Err(syntax_error());
    };
    let mut count = -1;
    let mut j = where_idx + 1;
    while j < argv.len() {
        let more = argv.len() - 1 - j;
        if count == -1 && is_opt(arg(j), "count") && more > 0 {
            j += 1;
            count = positive_with_msg(arg(j), "count should be greater than 0")?;
        } else {
            return Err(syntax_error());
        }
        j += 1;
    }
    Ok((argv[numkeys_idx + 1..where_idx].to_vec(), max, if count == -1 { 1 } else { count }))
}

/// t_zset.c `zmpopGenericCommand()` (non-blocking).
pub fn zmpop(e: &mut Engine, c: &Call) -> Reply {
    match parse_zmpop(c.argv, 1) {
        Ok((keys, max, count)) => zpop_generic(e, c, &keys, max, count, true),
        Err(r) => r,
    }
}

/// t_zset.c `blockingGenericZpopCommand()`: the timeout is read first; the first non-empty
/// sorted set is popped at once; otherwise the client blocks (or gets a null array inside
/// MULTI or a script).
fn blocking_zpop(
    e: &mut Engine,
    c: &Call,
    keys: &[Vec<u8>],
    max: bool,
    timeout_idx: usize,
    count: i64,
    shape: PopShape,
) -> Reply {
    let timeout = match crate::blocked::parse_timeout(e, c.arg(timeout_idx)) {
        Ok(t) => t,
        Err(r) => return r,
    };
    for key in keys {
        match check_zset_write(e, c.db, key) {
            Err(r) => return r,
            Ok(false) => continue,
            Ok(true) => {
                let reply = zpop_in(e, c.db, std::slice::from_ref(key), max, count, shape);
                propagate_pop(e, &reply, max, shape == PopShape::Nested);
                return reply;
            }
        }
    }
    if e.deny_blocking(c.client) {
        return Reply::NilArray;
    }
    e.block_for_keys(c.client, c.db, keys, timeout, c.argv, serve_blocked)
}

pub fn bzpopmin(e: &mut Engine, c: &Call) -> Reply {
    let keys = c.argv[1..c.argc() - 1].to_vec();
    blocking_zpop(e, c, &keys, false, c.argc() - 1, -1, PopShape::KeyFlat)
}

pub fn bzpopmax(e: &mut Engine, c: &Call) -> Reply {
    let keys = c.argv[1..c.argc() - 1].to_vec();
    blocking_zpop(e, c, &keys, true, c.argc() - 1, -1, PopShape::KeyFlat)
}

/// `BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]`.
pub fn bzmpop(e: &mut Engine, c: &Call) -> Reply {
    match parse_zmpop(c.argv, 2) {
        Ok((keys, max, count)) => blocking_zpop(e, c, &keys, max, 1, count, PopShape::Nested),
        Err(r) => r,
    }
}

/// blocked.c `serveClientsBlockedOnSortedSetKey()` for one client. `None` if the key does not
/// hold a sorted set.
fn serve_blocked(
    e: &mut Engine,
    _client: crate::engine::ClientId,
    db: usize,
    key: &[u8],
    argv: &[Vec<u8>],
) -> Option<Reply> {
    if !matches!(e.dbs[db].get(key).map(|o| &o.value), Some(Value::Zset(_))) {
        return None;
    }
    let name = argv.first().map(|n| n.to_ascii_lowercase()).unwrap_or_default();
    let keys = [key.to_vec()];
    // Propagated as ZPOPMIN/ZPOPMAX key [count popped].
    let (reply, max, nested) = match name.as_slice() {
        b"bzpopmin" => (zpop_in(e, db, &keys, false, -1, PopShape::KeyFlat), false, false),
        b"bzpopmax" => (zpop_in(e, db, &keys, true, -1, PopShape::KeyFlat), true, false),
        b"bzmpop" => {
            let (_, max, count) = parse_zmpop(argv, 2).ok()?;
            (zpop_in(e, db, &keys, max, count, PopShape::Nested), max, true)
        }
        _ => return None,
    };
    propagate_pop(e, &reply, max, nested);
    Some(reply)
}

// ---------------------------------------------------------------------------------------------
// ZRANDMEMBER
// ---------------------------------------------------------------------------------------------

pub fn zrandmember(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    if c.argc() >= 3 {
        let l = match crate::util::string2ll(c.arg(2)) {
            Some(n) if n >= -i64::MAX => n,
            Some(_) => {
                return Reply::err(
                    "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807",
                )
            }
            None => return Reply::err(NOT_INTEGER),
        };
        let withscores = if c.argc() > 4 || (c.argc() == 4 && !is_opt(c.arg(3), "withscores")) {
            return syntax_error();
        } else if c.argc() == 4 {
            if !(-i64::MAX / 2..=i64::MAX / 2).contains(&l) {
                return Reply::err("ERR value is out of range");
            }
            true
        } else {
            false
        };
        return zrandmember_with_count(e, c, l, withscores);
    }
    match check_zset_read(e, c.db, key) {
        Err(r) => r,
        Ok(false) => Reply::Nil,
        Ok(true) => {
            let len = zset_ref(e, c.db, key).map_or(0, |z| z.len());
            let i = e.random_index(len);
            zset_ref(e, c.db, key)
                .and_then(|z| zset::at_rank(z, i as u64))
                .map(|(m, _)| Reply::bulk(m))
                .unwrap_or(Reply::Nil)
        }
    }
}

/// t_zset.c `zrandmemberWithCountCommand()`: negative → with repetition; ≥ size → the whole
/// set (highest rank first, as 7.0 sends it); otherwise a random subset.
fn zrandmember_with_count(e: &mut Engine, c: &Call, l: i64, withscores: bool) -> Reply {
    let key = c.arg(1);
    match check_zset_read(e, c.db, key) {
        Err(r) => return r,
        Ok(false) => return Reply::Array(vec![]),
        Ok(true) => {}
    }
    let size = zset_ref(e, c.db, key).map_or(0, |z| z.len()) as u64;
    let (count, uniq) = if l >= 0 { (l as u64, true) } else { (l.unsigned_abs(), false) };
    if count == 0 {
        return Reply::Array(vec![]);
    }
    let pick = |e: &mut Engine, i: usize| -> (Vec<u8>, f64) {
        zset_ref(e, c.db, key)
            .and_then(|z| zset::at_rank(z, i as u64))
            .map(|(m, s)| (m.to_vec(), s))
            .unwrap_or_default()
    };
    if !uniq || count == 1 {
        if count > MAX_RANDOM_REPLY {
            return Reply::err(format!("ERR playground limit: ZRANDMEMBER returns at most {MAX_RANDOM_REPLY} members"));
        }
        let mut out = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let i = e.random_index(size as usize);
            out.push(pick(e, i));
        }
        return members_reply(&out, withscores);
    }
    if count >= size {
        // CASE 2: the whole set — redis-server 7.0 sends it highest rank first.
        let mut all: Vec<(Vec<u8>, f64)> =
            zset_ref(e, c.db, key).map(|z| z.iter().map(|(m, s)| (m.to_vec(), s)).collect()).unwrap_or_default();
        all.reverse();
        return members_reply(&all, withscores);
    }
    // A random subset of `count` distinct ranks, in random order.
    let mut ranks: Vec<usize> = (0..size as usize).collect();
    let mut out = Vec::with_capacity(count as usize);
    for k in 0..count as usize {
        let j = k + e.random_index(ranks.len() - k);
        ranks.swap(k, j);
        out.push(pick(e, ranks[k]));
    }
    members_reply(&out, withscores)
}

// ---------------------------------------------------------------------------------------------
// ZUNION / ZINTER / ZDIFF (+STORE), ZINTERCARD
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum SetOp {
    Union,
    Inter,
    Diff,
}

#[derive(Clone, Copy, PartialEq)]
enum Aggregate {
    Sum,
    Min,
    Max,
}

/// An input of a set operation: members with scores (a plain SET counts as scores of 1).
struct Source {
    items: Vec<(Vec<u8>, f64)>,
    weight: f64,
    present: bool,
}

impl Source {
    fn find(&self, m: &[u8]) -> Option<f64> {
        self.items.iter().find(|(x, _)| x == m).map(|(_, s)| *s)
    }
}

/// t_zset.c `zunionInterAggregate()`.
fn aggregate(target: &mut f64, v: f64, how: Aggregate) {
    match how {
        Aggregate::Sum => {
            *target += v;
            if target.is_nan() {
                *target = 0.0;
            }
        }
        Aggregate::Min => {
            if v < *target {
                *target = v;
            }
        }
        Aggregate::Max => {
            if v > *target {
                *target = v;
            }
        }
    }
}

fn set_members(s: &Set) -> Vec<Vec<u8>> {
    match s {
        Set::Intset(i) => i.iter().map(|v| v.to_string().into_bytes()).collect(),
        Set::Table(t) => t.iter().cloned().collect(),
    }
}

/// t_zset.c `zunionInterDiffGenericCommand()`.
fn zsetop_generic(
    e: &mut Engine,
    c: &Call,
    dst: Option<&[u8]>,
    numkeys_index: usize,
    op: SetOp,
    cardinality_only: bool,
) -> Reply {
    let setnum = match parse_i64(c.arg(numkeys_index)) {
        Ok(n) => n,
        Err(r) => return r,
    };
    if setnum < 1 {
        return Reply::err(format!("ERR at least 1 input key is needed for '{}' command", c.cmd.name));
    }
    if setnum > (c.argc() - (numkeys_index + 1)) as i64 {
        return syntax_error();
    }
    let setnum = setnum as usize;
    let mut sources = Vec::with_capacity(setnum);
    for key in &c.argv[numkeys_index + 1..numkeys_index + 1 + setnum] {
        let src = match e.lookup_read(c.db, key).map(|o| &o.value) {
            None => Source { items: vec![], weight: 1.0, present: false },
            Some(Value::Zset(z)) => {
                Source { items: z.iter().map(|(m, s)| (m.to_vec(), s)).collect(), weight: 1.0, present: true }
            }
            Some(Value::Set(s)) => {
                Source { items: set_members(s).into_iter().map(|m| (m, 1.0)).collect(), weight: 1.0, present: true }
            }
            Some(_) => return wrongtype(),
        };
        sources.push(src);
    }
    let mut how = Aggregate::Sum;
    let mut withscores = false;
    let mut limit: i64 = 0;
    let mut j = numkeys_index + 1 + setnum;
    while j < c.argc() {
        let remaining = c.argc() - j;
        let opt = c.arg(j);
        if op != SetOp::Diff && !cardinality_only && remaining > setnum && is_opt(opt, "weights") {
            j += 1;
            for src in sources.iter_mut() {
                match string2d(c.arg(j)) {
                    Some(w) => src.weight = w,
                    None => return Reply::err("ERR weight value is not a float"),
                }
                j += 1;
            }
        } else if op != SetOp::Diff && !cardinality_only && remaining >= 2 && is_opt(opt, "aggregate") {
            let a = c.arg(j + 1);
            how = if is_opt(a, "sum") {
                Aggregate::Sum
            } else if is_opt(a, "min") {
                Aggregate::Min
            } else if is_opt(a, "max") {
                Aggregate::Max
            } else {
                return syntax_error();
            };
            j += 2;
        } else if dst.is_none() && !cardinality_only && is_opt(opt, "withscores") {
            withscores = true;
            j += 1;
        } else if cardinality_only && remaining >= 2 && is_opt(opt, "limit") {
            match crate::util::string2ll(c.arg(j + 1)) {
                Some(n) if n >= 0 => limit = n,
                _ => return Reply::err("ERR LIMIT can't be negative"),
            }
            j += 2;
        } else {
            return syntax_error();
        }
    }
    if op != SetOp::Diff {
        // qsort by cardinality; glibc's qsort is a stable merge sort here.
        sources.sort_by_key(|s| s.items.len());
    }
    let mut result: Vec<(Vec<u8>, f64)> = Vec::new();
    let mut cardinality: u64 = 0;
    match op {
        SetOp::Inter => {
            if sources.iter().all(|s| s.present) && !sources[0].items.is_empty() {
                for (m, s0) in &sources[0].items {
                    let mut score = sources[0].weight * s0;
                    if score.is_nan() {
                        score = 0.0;
                    }
                    let mut all = true;
                    for src in &sources[1..] {
                        match src.find(m) {
                            Some(v) => aggregate(&mut score, v * src.weight, how),
                            None => {
                                all = false;
                                break;
                            }
                        }
                    }
                    if !all {
                        continue;
                    }
                    if cardinality_only {
                        cardinality += 1;
                        if limit > 0 && cardinality >= limit as u64 {
                            break;
                        }
                    } else {
                        result.push((m.clone(), score));
                    }
                }
            }
        }
        SetOp::Union => {
            let mut acc: crate::ds::map::Map<Vec<u8>, f64> = crate::ds::map::Map::default();
            for src in &sources {
                for (m, s) in &src.items {
                    let mut score = src.weight * s;
                    if score.is_nan() {
                        score = 0.0;
                    }
                    match acc.get_mut(m) {
                        Some(cur) => aggregate(cur, score, how),
                        None => {
                            acc.insert(m.clone(), score);
                        }
                    }
                }
            }
            result = acc.into_iter().collect();
        }
        SetOp::Diff => {
            for (m, s) in &sources[0].items {
                if sources[1..].iter().all(|src| src.find(m).is_none()) {
                    result.push((m.clone(), *s));
                }
            }
        }
    }
    if cardinality_only {
        return Reply::Integer(cardinality as i64);
    }
    result.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal).then_with(|| a.0.cmp(&b.0)));
    let Some(dst) = dst else {
        return members_reply(&result, withscores);
    };
    if result.is_empty() {
        return store_nothing(e, c.db, dst);
    }
    let z = zset_from_pairs(e, result.iter().map(|(m, s)| (m.as_slice(), *s)));
    let n = z.len();
    let obj = e.new_obj(Value::Zset(z));
    e.dbs[c.db].set_key(dst.to_vec(), obj, false);
    let event = match op {
        SetOp::Union => "zunionstore",
        SetOp::Inter => "zinterstore",
        SetOp::Diff => "zdiffstore",
    };
    e.notify(event, c.db, dst);
    e.dirty(1);
    Reply::Integer(n as i64)
}

pub fn zunion(e: &mut Engine, c: &Call) -> Reply {
    zsetop_generic(e, c, None, 1, SetOp::Union, false)
}

pub fn zinter(e: &mut Engine, c: &Call) -> Reply {
    zsetop_generic(e, c, None, 1, SetOp::Inter, false)
}

pub fn zdiff(e: &mut Engine, c: &Call) -> Reply {
    zsetop_generic(e, c, None, 1, SetOp::Diff, false)
}

pub fn zunionstore(e: &mut Engine, c: &Call) -> Reply {
    let dst = c.arg(1).to_vec();
    zsetop_generic(e, c, Some(&dst), 2, SetOp::Union, false)
}

pub fn zinterstore(e: &mut Engine, c: &Call) -> Reply {
    let dst = c.arg(1).to_vec();
    zsetop_generic(e, c, Some(&dst), 2, SetOp::Inter, false)
}

pub fn zdiffstore(e: &mut Engine, c: &Call) -> Reply {
    let dst = c.arg(1).to_vec();
    zsetop_generic(e, c, Some(&dst), 2, SetOp::Diff, false)
}

pub fn zintercard(e: &mut Engine, c: &Call) -> Reply {
    zsetop_generic(e, c, None, 1, SetOp::Inter, true)
}

// ---------------------------------------------------------------------------------------------
// ZSCAN
// ---------------------------------------------------------------------------------------------

/// db.c `scanGenericCommand()` for a zset: a listpack answers in one call with cursor 0, its
/// scores as the listpack stores them (util.c `d2string()`: 1e17 → "100000000000000000"); a
/// skiplist walks its member map by position like SCAN, scores in `%.17g` ("1e+17").
pub fn zscan(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    let cursor = match parse_scan_cursor(c.arg(2)) {
        Ok(v) => v,
        Err(r) => return r,
    };
    // db.c `scanGenericCommand()` looks the key up (and answers an empty scan when it is
    // missing) before it parses the options, as HSCAN and SSCAN do.
    match check_zset_read(e, c.db, key) {
        Err(r) => return r,
        Ok(false) => return Reply::Array(vec![Reply::bulk("0"), Reply::Array(vec![])]),
        Ok(true) => {}
    }
    let opts = match parse_scan_options(c, 3, false) {
        Ok(o) => o,
        Err(r) => return r,
    };
    let Some(z) = zset_ref(e, c.db, key) else { return Reply::Array(vec![Reply::bulk("0"), Reply::Array(vec![])]) };
    let listpack = matches!(z, Zset::Listpack(_));
    let (next, batch): (u64, Vec<(Vec<u8>, f64)>) = match z {
        Zset::Listpack(v) => (0, v.clone()),
        Zset::Skiplist { dict, .. } => {
            let len = dict.len() as u64;
            let mut pos = if cursor == 0 { len } else { cursor.min(len) };
            let mut batch = Vec::new();
            while pos > 0 && batch.len() < opts.count {
                pos -= 1;
                if let Some((m, s)) = dict.get_index(pos as usize) {
                    batch.push((m.clone(), *s));
                }
            }
            (pos, batch)
        }
    };
    let mut items = Vec::new();
    for (m, s) in batch {
        if opts.pattern.is_some_and(|p| !crate::util::glob_match(p, &m, false)) {
            continue;
        }
        items.push(Reply::Bulk(m));
        let shown = if listpack { zset::d2string(s) } else { crate::util::fmt_double(s) };
        items.push(Reply::Bulk(shown.into_bytes()));
    }
    Reply::Array(vec![Reply::bulk(next.to_string()), Reply::Array(items)])
}
