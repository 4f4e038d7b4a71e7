//! t_set.c: SADD, SREM, SMOVE, SISMEMBER, SMISMEMBER, SCARD, SPOP, SRANDMEMBER, SMEMBERS,
//! SINTER, SINTERCARD, SINTERSTORE, SUNION, SUNIONSTORE, SDIFF, SDIFFSTORE, SSCAN.
//!
//! Models the setType* layer (`setTypeCreate`, `setTypeAdd`, `setTypeRemove`,
//! `setTypeIsMember`, `setTypeRandomElement`, `setTypeConvert`) and the commands built on it
//! (`saddCommand`, `sremCommand`, `smoveCommand`, `sismemberCommand`, `smismemberCommand`,
//! `scardCommand`, `spopCommand` + `spopWithCountCommand`, `srandmemberCommand` +
//! `srandmemberWithCountCommand`, `sinterGenericCommand`, `sinterCardCommand`,
//! `sunionDiffGenericCommand`, `sscanCommand` over db.c `scanGenericCommand`), each with its
//! Redis function's order of checks and keyspace events.
//!
//! Encodings are 7.0's: `intset` while every member is a canonical int64 (util.c `string2ll`)
//! and there are at most `set-max-intset-entries` (capped at 2^30 like Redis), else
//! `hashtable`, never converting back. Results of the STORE commands are built the way Redis
//! builds them (an empty intset that members are added to, one by one, with SDIFF's choice
//! between its two algorithms), so the destination gets the encoding Redis would give it —
//! and SPOP's "keep the rest" strategy rebuilds the remaining set the same way. Which of
//! t_set.c's cases runs (SPOP and SRANDMEMBER with a count ≥ the size return the whole set, a
//! set of one member always gives that member…) is the same, so what is deterministic in Redis
//! is deterministic here; the random picks themselves come from the engine's seeded RNG.
//!
//! Differences:
//! - A hashtable set iterates in our insertion order (perturbed by removals), not in Redis's
//!   hash order (random per process): SMEMBERS/SINTER/SUNION/SDIFF of hashtable sets list the
//!   same members in another order. Intsets iterate ascending, as in Redis.
//! - Random picks are uniform over positions (Redis's `dictGetFairRandomKey` is only roughly
//!   uniform), so the same seed gives a different member than a real server would.
//! - SSCAN over a hashtable walks positions from the end like our SCAN (db.rs) instead of
//!   Redis's reverse-binary bucket cursor: cursor values differ and each call returns exactly
//!   COUNT members (Redis returns about COUNT); SSCAN's guarantees hold.
//! - SRANDMEMBER with a negative count returns |count| picks with repetition: Redis builds any
//!   size asked for (`SRANDMEMBER k -9223372036854775807` makes a real server eat memory until
//!   it dies). Here a reply whose estimated size exceeds `playground-max-alloc` (32 MB by
//!   default, about half a million short members) is refused with a `playground limit` error;
//!   every check Redis makes first (count parsing, a missing key, WRONGTYPE, count 0) still
//!   answers as Redis does.

use indexmap::IndexSet;

use crate::command::call::Call;
use crate::command::db::{parse_scan_cursor, parse_scan_options};
use crate::command::{is_opt, syntax_error, wrongtype, NOT_INTEGER};
use crate::ds::intset::Intset;
use crate::ds::map::Hasher;
use crate::engine::Engine;
use crate::object::{Set, Value};
use crate::reply::Reply;
use crate::util::{glob_match, string2ll};

type Table = IndexSet<Vec<u8>, Hasher>;

/// getPositiveLongFromObjectOrReply()'s default message.
const NOT_POSITIVE: &str = "ERR value is out of range, must be positive";
/// t_set.c SPOP_MOVE_STRATEGY_MUL and SRANDMEMBER_SUB_STRATEGY_MUL.
const SPOP_MOVE_STRATEGY_MUL: u64 = 5;
const SRANDMEMBER_SUB_STRATEGY_MUL: u64 = 3;
/// Estimated bytes per member of a reply we build (the `Reply` plus its allocation), for the
/// playground's SRANDMEMBER limit.
const REPLY_MEMBER_OVERHEAD: u64 = 48;

// ---------------------------------------------------------------------------------------------
// setType*: the operations on a set value
// ---------------------------------------------------------------------------------------------

/// A member as a set iterator yields it: an intset gives integers, a hashtable strings
/// (`setTypeNext()`'s llele / sdsele).
#[derive(Clone, Copy)]
enum Elem<'a> {
    Int(i64),
    Str(&'a [u8]),
}

impl Elem<'_> {
    fn to_bytes(self) -> Vec<u8> {
        match self {
            Elem::Int(v) => v.to_string().into_bytes(),
            Elem::Str(s) => s.to_vec(),
        }
    }

    fn reply(self) -> Reply {
        Reply::Bulk(self.to_bytes())
    }
}

fn new_table() -> Table {
    IndexSet::with_hasher(Hasher::default())
}

/// `server.set_max_intset_entries`, limited to 2^30 "due to intset internals" as setTypeAdd does.
fn max_intset_entries(e: &Engine) -> usize {
    e.config.int("set-max-intset-entries").clamp(0, 1 << 30) as usize
}

/// `setTypeCreate()`: an intset if the first member is an integer, else a hashtable.
fn set_type_create(first: &[u8]) -> Set {
    if string2ll(first).is_some() {
        Set::Intset(Intset::new())
    } else {
        Set::Table(Box::new(new_table()))
    }
}

fn set_type_size(s: &Set) -> usize {
    match s {
        Set::Intset(is) => is.len(),
        Set::Table(t) => t.len(),
    }
}

/// `setTypeConvert(OBJ_ENCODING_HT)`: the integers, ascending, as strings.
fn convert_to_table(s: &mut Set) {
    if let Set::Intset(is) = s {
        let mut t = new_table();
        t.reserve(is.len());
        for v in is.iter() {
            t.insert(v.to_string().into_bytes());
        }
        *s = Set::Table(Box::new(t));
    }
}

/// `setTypeAdd()`: true if the member was new. An intset converts when a non-integer arrives
/// or when it grows past `max_entries`.
fn set_type_add(s: &mut Set, el: Elem, max_entries: usize) -> bool {
    match s {
        Set::Table(t) => match el {
            Elem::Str(b) => {
                if t.contains(b) {
                    false
                } else {
                    t.insert(b.to_vec())
                }
            }
            Elem::Int(v) => t.insert(v.to_string().into_bytes()),
        },
        Set::Intset(is) => {
            let v = match el {
                Elem::Int(v) => Some(v),
                Elem::Str(b) => string2ll(b),
            };
            match v {
                Some(v) => {
                    if !is.add(v) {
                        return false;
                    }
                    if is.len() > max_entries {
                        convert_to_table(s);
                    }
                    true
                }
                None => {
                    convert_to_table(s);
                    if let (Set::Table(t), Elem::Str(b)) = (s, el) {
                        t.insert(b.to_vec());
                    }
                    true
                }
            }
        }
    }
}

/// `setTypeRemove()`. Removal from a hashtable swaps the last member into the hole (our
/// SSCAN cursor relies on that).
fn set_type_remove(s: &mut Set, el: Elem) -> bool {
    match (s, el) {
        (Set::Table(t), Elem::Str(b)) => t.swap_remove(b),
        (Set::Table(t), Elem::Int(v)) => t.swap_remove(v.to_string().as_bytes()),
        (Set::Intset(is), Elem::Int(v)) => is.remove(v),
        (Set::Intset(is), Elem::Str(b)) => string2ll(b).is_some_and(|v| is.remove(v)),
    }
}

/// `setTypeIsMember()`.
fn set_type_is_member(s: &Set, el: Elem) -> bool {
    match (s, el) {
        (Set::Table(t), Elem::Str(b)) => t.contains(b),
        (Set::Table(t), Elem::Int(v)) => t.contains(v.to_string().as_bytes()),
        (Set::Intset(is), Elem::Int(v)) => is.contains(v),
        (Set::Intset(is), Elem::Str(b)) => string2ll(b).is_some_and(|v| is.contains(v)),
    }
}

/// The member at position `i` (intsets are ascending).
fn set_type_at(s: &Set, i: usize) -> Option<Elem<'_>> {
    match s {
        Set::Intset(is) => is.get(i).map(Elem::Int),
        Set::Table(t) => t.get_index(i).map(|b| Elem::Str(b.as_slice())),
    }
}

/// `setTypeInitIterator()` + `setTypeNext()`.
fn set_type_iter(s: &Set) -> Box<dyn Iterator<Item = Elem<'_>> + '_> {
    match s {
        Set::Intset(is) => Box::new(is.iter().map(Elem::Int)),
        Set::Table(t) => Box::new(t.iter().map(|b| Elem::Str(b.as_slice()))),
    }
}

fn set_reply(s: &Set) -> Reply {
    Reply::Set(set_type_iter(s).map(Elem::reply).collect())
}

// ---------------------------------------------------------------------------------------------
// Keyspace helpers
// ---------------------------------------------------------------------------------------------

/// `lookupKeyRead()` + `checkType()`: Ok(true) when a set is there, Ok(false) when the key is
/// missing, WRONGTYPE for another type.
fn read_set(e: &mut Engine, db: usize, key: &[u8]) -> Result<bool, Reply> {
    match e.lookup_read(db, key) {
        None => Ok(false),
        Some(o) if matches!(o.value, Value::Set(_)) => Ok(true),
        Some(_) => Err(wrongtype()),
    }
}

/// `lookupKeyWrite()` + `checkType()`.
fn write_set(e: &mut Engine, db: usize, key: &[u8]) -> Result<bool, Reply> {
    match e.lookup_write(db, key) {
        None => Ok(false),
        Some(o) if matches!(o.value, Value::Set(_)) => Ok(true),
        Some(_) => Err(wrongtype()),
    }
}

/// The set stored at `key`, without a lookup (call after `read_set`/`write_set`).
fn set_ref<'a>(e: &'a Engine, db: usize, key: &[u8]) -> Option<&'a Set> {
    match e.dbs[db].get(key).map(|o| &o.value) {
        Some(Value::Set(s)) => Some(s),
        _ => None,
    }
}

fn set_mut<'a>(e: &'a mut Engine, db: usize, key: &[u8]) -> Option<&'a mut Set> {
    match e.dbs[db].get_mut(key).map(|o| &mut o.value) {
        Some(Value::Set(s)) => Some(s),
        _ => None,
    }
}

/// db.c `dbAdd()` of a new set.
fn db_add(e: &mut Engine, db: usize, key: &[u8], s: Set) {
    let obj = e.new_obj(Value::Set(s));
    e.dbs[db].insert(key.to_vec(), obj);
}

/// db.c `dbDelete()` + the `del` event, when a set became empty.
fn delete_key(e: &mut Engine, db: usize, key: &[u8]) {
    if e.dbs[db].delete(key) {
        e.notify("del", db, key);
    }
}

/// The destination of a STORE command (SINTERSTORE, SUNIONSTORE, SDIFFSTORE): db.c `setKey()`
/// (overwriting any type, dropping the TTL) when the result has members, else `dbDelete()`.
fn store_result(e: &mut Engine, db: usize, dst: &[u8], result: Set, event: &str) -> Reply {
    let n = set_type_size(&result);
    if n > 0 {
        e.lookup_write(db, dst);
        let obj = e.new_obj(Value::Set(result));
        e.dbs[db].set_key(dst.to_vec(), obj, false);
        e.notify(event, db, dst);
        e.dirty(1);
        Reply::Integer(n as i64)
    } else {
        if e.dbs[db].delete(dst) {
            e.dirty(1);
            e.notify("del", db, dst);
        }
        Reply::Integer(0)
    }
}

// ---------------------------------------------------------------------------------------------
// SADD, SREM, SMOVE, SISMEMBER, SMISMEMBER, SCARD
// ---------------------------------------------------------------------------------------------

pub fn sadd(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    match write_set(e, c.db, key) {
        Err(r) => return r,
        Ok(false) => db_add(e, c.db, key, set_type_create(c.arg(2))),
        Ok(true) => {}
    }
    let max = max_intset_entries(e);
    let mut added = 0;
    if let Some(s) = set_mut(e, c.db, key) {
        for m in &c.argv[2..] {
            if set_type_add(s, Elem::Str(m), max) {
                added += 1;
            }
        }
    }
    if added > 0 {
        e.notify("sadd", c.db, key);
    }
    e.dirty(added);
    Reply::Integer(added as i64)
}

pub fn srem(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    match write_set(e, c.db, key) {
        Err(r) => return r,
        Ok(false) => return Reply::Integer(0),
        Ok(true) => {}
    }
    let mut deleted = 0u64;
    let mut emptied = false;
    if let Some(s) = set_mut(e, c.db, key) {
        for m in &c.argv[2..] {
            if set_type_remove(s, Elem::Str(m)) {
                deleted += 1;
                if set_type_size(s) == 0 {
                    emptied = true;
                    break;
                }
            }
        }
    }
    if emptied {
        e.dbs[c.db].delete(key);
    }
    if deleted > 0 {
        e.notify("srem", c.db, key);
        if emptied {
            e.notify("del", c.db, key);
        }
        e.dirty(deleted);
    }
    Reply::Integer(deleted as i64)
}

pub fn smove(e: &mut Engine, c: &Call) -> Reply {
    let (src, dst, member) = (c.arg(1), c.arg(2), c.arg(3));
    let src_type = e.lookup_write(c.db, src).map(|o| matches!(o.value, Value::Set(_)));
    let dst_type = e.lookup_write(c.db, dst).map(|o| matches!(o.value, Value::Set(_)));
    let Some(src_is_set) = src_type else {
        return Reply::Integer(0);
    };
    if !src_is_set || dst_type == Some(false) {
        return wrongtype();
    }
    if src == dst {
        let member_of = set_ref(e, c.db, src).is_some_and(|s| set_type_is_member(s, Elem::Str(member)));
        return Reply::Integer(member_of as i64);
    }
    let Some(s) = set_mut(e, c.db, src) else {
        return Reply::Integer(0);
    };
    if !set_type_remove(s, Elem::Str(member)) {
        return Reply::Integer(0);
    }
    let emptied = set_type_size(s) == 0;
    e.notify("srem", c.db, src);
    if emptied {
        delete_key(e, c.db, src);
    }
    if dst_type.is_none() {
        db_add(e, c.db, dst, set_type_create(member));
    }
    e.dirty(1);
    let max = max_intset_entries(e);
    if set_mut(e, c.db, dst).is_some_and(|d| set_type_add(d, Elem::Str(member), max)) {
        e.dirty(1);
        e.notify("sadd", c.db, dst);
    }
    Reply::Integer(1)
}

pub fn sismember(e: &mut Engine, c: &Call) -> Reply {
    match read_set(e, c.db, c.arg(1)) {
        Err(r) => r,
        Ok(false) => Reply::Integer(0),
        Ok(true) => {
            let found = set_ref(e, c.db, c.arg(1)).is_some_and(|s| set_type_is_member(s, Elem::Str(c.arg(2))));
            Reply::Integer(found as i64)
        }
    }
}

pub fn smismember(e: &mut Engine, c: &Call) -> Reply {
    if let Err(r) = read_set(e, c.db, c.arg(1)) {
        return r;
    }
    let s = set_ref(e, c.db, c.arg(1));
    Reply::Array(
        c.argv[2..]
            .iter()
            .map(|m| Reply::Integer(s.is_some_and(|s| set_type_is_member(s, Elem::Str(m))) as i64))
            .collect(),
    )
}

pub fn scard(e: &mut Engine, c: &Call) -> Reply {
    match read_set(e, c.db, c.arg(1)) {
        Err(r) => r,
        Ok(false) => Reply::Integer(0),
        Ok(true) => Reply::Integer(set_ref(e, c.db, c.arg(1)).map_or(0, set_type_size) as i64),
    }
}

// ---------------------------------------------------------------------------------------------
// SPOP, SRANDMEMBER
// ---------------------------------------------------------------------------------------------

/// `setTypeRandomElement()` on the set at `key` (which must exist and be non-empty).
fn random_member(e: &mut Engine, db: usize, key: &[u8]) -> Option<Vec<u8>> {
    let n = set_ref(e, db, key).map_or(0, set_type_size);
    if n == 0 {
        return None;
    }
    let i = e.random_index(n);
    set_ref(e, db, key).and_then(|s| set_type_at(s, i)).map(Elem::to_bytes)
}

pub fn spop(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() == 3 {
        return spop_with_count(e, c);
    } else if c.argc() > 3 {
        return syntax_error();
    }
    let key = c.arg(1);
    match write_set(e, c.db, key) {
        Err(r) => return r,
        Ok(false) => return Reply::Nil,
        Ok(true) => {}
    }
    let Some(member) = random_member(e, c.db, key) else {
        return Reply::Nil;
    };
    let emptied = match set_mut(e, c.db, key) {
        Some(s) => {
            set_type_remove(s, Elem::Str(&member));
            set_type_size(s) == 0
        }
        None => false,
    };
    e.notify("spop", c.db, key);
    if emptied {
        delete_key(e, c.db, key);
    }
    e.dirty(1);
    // Replicated as SREM key member.
    e.propagate_as(vec![b"SREM".to_vec(), key.to_vec(), member.clone()]);
    Reply::Bulk(member)
}

/// t_set.c `spopWithCountCommand()`.
fn spop_with_count(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    // getPositiveLongFromObjectOrReply(): its message covers non-integers too.
    let count = match string2ll(c.arg(2)) {
        Some(n) if n >= 0 => n as u64,
        _ => return Reply::err(NOT_POSITIVE),
    };
    match write_set(e, c.db, key) {
        Err(r) => return r,
        Ok(false) => return Reply::Set(vec![]),
        Ok(true) => {}
    }
    if count == 0 {
        return Reply::Set(vec![]);
    }
    let size = set_ref(e, c.db, key).map_or(0, set_type_size) as u64;
    e.notify("spop", c.db, key);
    e.dirty(count.min(size));

    // CASE 1: everything — the reply is SUNION of the one key; then the key goes.
    if count >= size {
        let reply = sunion_diff_generic(e, c.db, &[key], None, SetOp::Union);
        delete_key(e, c.db, key);
        // Propagated as a DEL of the set.
        e.propagate_as(vec![b"DEL".to_vec(), key.to_vec()]);
        return reply;
    }
    let remaining = size - count;
    let mut out = Vec::with_capacity(count as usize);
    if remaining * SPOP_MOVE_STRATEGY_MUL > count {
        // CASE 2: few to pop: pick and remove them one by one.
        for _ in 0..count {
            let Some(member) = random_member(e, c.db, key) else { break };
            if let Some(s) = set_mut(e, c.db, key) {
                set_type_remove(s, Elem::Str(&member));
            }
            out.push(Reply::Bulk(member));
        }
    } else {
        // CASE 3: most of the set goes: move the members that stay into a new set (which
        // gets its own encoding, as setTypeCreate + setTypeAdd give it), reply with the rest.
        let max = max_intset_entries(e);
        let mut newset: Option<Set> = None;
        for _ in 0..remaining {
            let Some(member) = random_member(e, c.db, key) else { break };
            let ns = newset.get_or_insert_with(|| set_type_create(&member));
            set_type_add(ns, Elem::Str(&member), max);
            if let Some(s) = set_mut(e, c.db, key) {
                set_type_remove(s, Elem::Str(&member));
            }
        }
        if let (Some(s), Some(ns)) = (set_mut(e, c.db, key), newset) {
            out.extend(set_type_iter(s).map(Elem::reply));
            *s = ns;
        }
    }
    // Propagated as one SREM per member popped (alsoPropagate()), not as SPOP.
    if e.prop.listening {
        for m in &out {
            if let Reply::Bulk(member) = m {
                e.propagate_instead(c.db, vec![b"SREM".to_vec(), key.to_vec(), member.clone()]);
            }
        }
    }
    Reply::Set(out)
}

pub fn srandmember(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() == 3 {
        return srandmember_with_count(e, c);
    } else if c.argc() > 3 {
        return syntax_error();
    }
    match read_set(e, c.db, c.arg(1)) {
        Err(r) => r,
        Ok(false) => Reply::Nil,
        Ok(true) => random_member(e, c.db, c.arg(1)).map_or(Reply::Nil, Reply::Bulk),
    }
}

/// t_set.c `srandmemberWithCountCommand()`.
fn srandmember_with_count(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    // getRangeLongFromObjectOrReply(-LONG_MAX, LONG_MAX): -count must fit.
    let l = match string2ll(c.arg(2)) {
        None => return Reply::err(NOT_INTEGER),
        Some(i64::MIN) => {
            return Reply::err(
                "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807",
            )
        }
        Some(l) => l,
    };
    let (count, uniq) = (l.unsigned_abs(), l >= 0);
    match read_set(e, c.db, key) {
        Err(r) => return r,
        Ok(false) => return Reply::Array(vec![]),
        Ok(true) => {}
    }
    if count == 0 {
        return Reply::Array(vec![]);
    }
    let Some(s) = set_ref(e, c.db, key) else {
        return Reply::Array(vec![]);
    };
    let size = set_type_size(s) as u64;

    // CASE 1: a negative count (or 1): independent picks, repetitions allowed.
    if !uniq || count == 1 {
        if let Err(r) = check_reply_size(e, s, count) {
            return r;
        }
        let indexes: Vec<usize> = (0..count).map(|_| e.random_index(size as usize)).collect();
        let Some(s) = set_ref(e, c.db, key) else {
            return Reply::Array(vec![]);
        };
        return Reply::Array(indexes.into_iter().filter_map(|i| set_type_at(s, i)).map(Elem::reply).collect());
    }
    // CASE 2: at least the whole set: the whole set, in its iteration order.
    if count >= size {
        return Reply::Array(set_type_iter(s).map(Elem::reply).collect());
    }
    let mut picked: Table = new_table();
    if count * SRANDMEMBER_SUB_STRATEGY_MUL > size {
        // CASE 3: copy the set, then drop random members until `count` remain.
        picked.extend(set_type_iter(s).map(Elem::to_bytes));
        while picked.len() as u64 > count {
            let i = e.random_index(picked.len());
            picked.swap_remove_index(i);
        }
    } else {
        // CASE 4: pick until `count` distinct members were found.
        while (picked.len() as u64) < count {
            let Some(member) = random_member(e, c.db, key) else { break };
            picked.insert(member);
        }
    }
    Reply::bulks(picked)
}

/// The playground's limit on a reply of `count` members picked from `s` (see the header).
fn check_reply_size(e: &Engine, s: &Set, count: u64) -> Result<(), Reply> {
    let size = set_type_size(s).max(1) as u64;
    let total: u64 = set_type_iter(s)
        .map(|el| match el {
            Elem::Int(v) => crate::util::digits10(v) as u64,
            Elem::Str(b) => b.len() as u64,
        })
        .sum();
    let bytes = count as u128 * (REPLY_MEMBER_OVERHEAD + total / size) as u128;
    let limit = e.config.int("playground-max-alloc").max(0) as u128;
    if bytes > limit {
        return Err(Reply::err(format!(
            "ERR playground limit: a reply of {count} members would take about {bytes} bytes; playground-max-alloc is {limit} (Redis sets no limit here)"
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// SMEMBERS, SINTER, SINTERCARD, SINTERSTORE
// ---------------------------------------------------------------------------------------------

/// Looks up every key as `lookupKeyRead()` does, in order, failing on the first key of another
/// type. Missing keys are `false`.
fn lookup_all(e: &mut Engine, db: usize, keys: &[&[u8]]) -> Result<Vec<bool>, Reply> {
    keys.iter().map(|k| read_set(e, db, k)).collect()
}

/// t_set.c `sinterGenericCommand()`: SINTER and SMEMBERS (`dst` None), SINTERSTORE, and
/// SINTERCARD (`card_only`, stopping at `limit` unless it is 0).
fn sinter_generic(e: &mut Engine, db: usize, keys: &[&[u8]], dst: Option<&[u8]>, card_only: bool, limit: u64) -> Reply {
    let found = match lookup_all(e, db, keys) {
        Ok(f) => f,
        Err(r) => return r,
    };
    // An intersection with an empty (missing) set is empty.
    if found.iter().any(|f| !f) {
        return match dst {
            Some(dst) => store_result(e, db, dst, Set::Intset(Intset::new()), "sinterstore"),
            None if card_only => Reply::Integer(0),
            None => Reply::Set(vec![]),
        };
    }
    let max = max_intset_entries(e);
    let mut sets: Vec<&Set> = keys.iter().filter_map(|k| set_ref(e, db, k)).collect();
    if sets.is_empty() {
        return Reply::Set(vec![]);
    }
    // qsort by cardinality (glibc's qsort is a stable merge sort for arrays this small).
    sets.sort_by_key(|s| set_type_size(s));
    let first = sets[0];
    let mut cardinality = 0u64;
    let mut out = Vec::new();
    let mut dstset = Set::Intset(Intset::new());
    for el in set_type_iter(first) {
        let in_all = sets[1..].iter().all(|s| std::ptr::eq(*s, first) || set_type_is_member(s, el));
        if !in_all {
            continue;
        }
        if card_only {
            cardinality += 1;
            if limit != 0 && cardinality >= limit {
                break;
            }
        } else if dst.is_none() {
            out.push(el.reply());
        } else {
            set_type_add(&mut dstset, el, max);
        }
    }
    match dst {
        _ if card_only => Reply::Integer(cardinality as i64),
        Some(dst) => store_result(e, db, dst, dstset, "sinterstore"),
        None => Reply::Set(out),
    }
}

pub fn smembers(e: &mut Engine, c: &Call) -> Reply {
    sinter_generic(e, c.db, &[c.arg(1)], None, false, 0)
}

pub fn sinter(e: &mut Engine, c: &Call) -> Reply {
    let keys: Vec<&[u8]> = c.argv[1..].iter().map(|k| k.as_slice()).collect();
    sinter_generic(e, c.db, &keys, None, false, 0)
}

pub fn sinterstore(e: &mut Engine, c: &Call) -> Reply {
    let keys: Vec<&[u8]> = c.argv[2..].iter().map(|k| k.as_slice()).collect();
    sinter_generic(e, c.db, &keys, Some(c.arg(1)), false, 0)
}

/// t_set.c `sinterCardCommand()`: SINTERCARD numkeys key [key ...] [LIMIT limit].
pub fn sintercard(e: &mut Engine, c: &Call) -> Reply {
    let numkeys = match string2ll(c.arg(1)) {
        Some(n) if n >= 1 => n as u64,
        _ => return Reply::err("ERR numkeys should be greater than 0"),
    };
    if numkeys > (c.argc() - 2) as u64 {
        return Reply::err("ERR Number of keys can't be greater than number of args");
    }
    let numkeys = numkeys as usize;
    let mut limit = 0u64;
    let mut j = 2 + numkeys;
    while j < c.argc() {
        let moreargs = c.argc() - 1 - j;
        if is_opt(c.arg(j), "limit") && moreargs > 0 {
            j += 1;
            match string2ll(c.arg(j)) {
                Some(n) if n >= 0 => limit = n as u64,
                _ => return Reply::err("ERR LIMIT can't be negative"),
            }
        } else {
            return syntax_error();
        }
        j += 1;
    }
    let keys: Vec<&[u8]> = c.argv[2..2 + numkeys].iter().map(|k| k.as_slice()).collect();
    sinter_generic(e, c.db, &keys, None, true, limit)
}

// ---------------------------------------------------------------------------------------------
// SUNION, SUNIONSTORE, SDIFF, SDIFFSTORE
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum SetOp {
    Union,
    Diff,
}

/// t_set.c `sunionDiffGenericCommand()`. The result is built in a fresh intset (which
/// converts as members arrive), so its encoding — and SUNION/SDIFF's reply order — is Redis's.
fn sunion_diff_generic(e: &mut Engine, db: usize, keys: &[&[u8]], dst: Option<&[u8]>, op: SetOp) -> Reply {
    let found = match lookup_all(e, db, keys) {
        Ok(f) => f,
        Err(r) => return r,
    };
    let max = max_intset_entries(e);
    let mut sets: Vec<Option<&Set>> =
        keys.iter().zip(&found).map(|(k, f)| if *f { set_ref(e, db, k) } else { None }).collect();
    // A later key naming the first set again: the difference is empty.
    let sameset = sets.first().is_some_and(|s| s.is_some()) && keys[1..].iter().any(|k| *k == keys[0]);

    // Pick the DIFF algorithm: 1 walks the first set probing the others, 2 adds the first set
    // and removes the others. Algorithm 1 gets a 2× advantage.
    let mut diff_algo = 1;
    if op == SetOp::Diff && !sameset {
        if let Some(Some(first)) = sets.first() {
            let first_size = set_type_size(first) as u64;
            let (mut one, mut two) = (0u64, 0u64);
            for s in sets.iter().flatten() {
                one += first_size;
                two += set_type_size(s) as u64;
            }
            one /= 2;
            diff_algo = if one <= two { 1 } else { 2 };
            if diff_algo == 1 && sets.len() > 1 {
                // By decreasing size (missing keys count as empty); stable like glibc's qsort.
                sets[1..].sort_by_key(|s| std::cmp::Reverse(s.map_or(0, set_type_size)));
            }
        }
    }

    let mut dstset = Set::Intset(Intset::new());
    match op {
        SetOp::Union => {
            for s in sets.iter().flatten() {
                for el in set_type_iter(s) {
                    set_type_add(&mut dstset, el, max);
                }
            }
        }
        SetOp::Diff if sameset => {}
        SetOp::Diff => {
            if let Some(Some(first)) = sets.first() {
                if diff_algo == 1 {
                    for el in set_type_iter(first) {
                        if !sets[1..].iter().flatten().any(|s| set_type_is_member(s, el)) {
                            set_type_add(&mut dstset, el, max);
                        }
                    }
                } else {
                    // Stops once the result is empty: later removals could change nothing.
                    let mut cardinality: i64 = 0;
                    for (j, s) in sets.iter().enumerate() {
                        let Some(s) = s else { continue };
                        for el in set_type_iter(s) {
                            if j == 0 {
                                if set_type_add(&mut dstset, el, max) {
                                    cardinality += 1;
                                }
                            } else if set_type_remove(&mut dstset, el) {
                                cardinality -= 1;
                            }
                        }
                        if cardinality == 0 {
                            break;
                        }
                    }
                }
            }
        }
    }
    match dst {
        None => set_reply(&dstset),
        Some(dst) => {
            let event = if op == SetOp::Union { "sunionstore" } else { "sdiffstore" };
            store_result(e, db, dst, dstset, event)
        }
    }
}

pub fn sunion(e: &mut Engine, c: &Call) -> Reply {
    let keys: Vec<&[u8]> = c.argv[1..].iter().map(|k| k.as_slice()).collect();
    sunion_diff_generic(e, c.db, &keys, None, SetOp::Union)
}

pub fn sunionstore(e: &mut Engine, c: &Call) -> Reply {
    let keys: Vec<&[u8]> = c.argv[2..].iter().map(|k| k.as_slice()).collect();
    sunion_diff_generic(e, c.db, &keys, Some(c.arg(1)), SetOp::Union)
}

pub fn sdiff(e: &mut Engine, c: &Call) -> Reply {
    let keys: Vec<&[u8]> = c.argv[1..].iter().map(|k| k.as_slice()).collect();
    sunion_diff_generic(e, c.db, &keys, None, SetOp::Diff)
}

pub fn sdiffstore(e: &mut Engine, c: &Call) -> Reply {
    let keys: Vec<&[u8]> = c.argv[2..].iter().map(|k| k.as_slice()).collect();
    sunion_diff_generic(e, c.db, &keys, Some(c.arg(1)), SetOp::Diff)
}

// ---------------------------------------------------------------------------------------------
// SSCAN
// ---------------------------------------------------------------------------------------------

/// t_set.c `sscanCommand()` → db.c `scanGenericCommand()`: the cursor is parsed before the
/// lookup, the options after it. An intset returns everything with cursor 0; a hashtable is
/// walked from its last position down, the cursor counting the positions left (as SCAN).
pub fn sscan(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    let cursor = match parse_scan_cursor(c.arg(2)) {
        Ok(v) => v,
        Err(r) => return r,
    };
    match read_set(e, c.db, key) {
        Err(r) => return r,
        Ok(false) => return Reply::Array(vec![Reply::bulk("0"), Reply::Array(vec![])]),
        Ok(true) => {}
    }
    let opts = match parse_scan_options(c, 3, false) {
        Ok(o) => o,
        Err(r) => return r,
    };
    let Some(s) = set_ref(e, c.db, key) else {
        return Reply::Array(vec![Reply::bulk("0"), Reply::Array(vec![])]);
    };
    let (next, batch): (u64, Vec<Vec<u8>>) = match s {
        Set::Intset(_) => (0, set_type_iter(s).map(Elem::to_bytes).collect()),
        Set::Table(t) => {
            let len = t.len() as u64;
            let mut pos = if cursor == 0 { len } else { cursor.min(len) };
            let mut batch = Vec::new();
            while pos > 0 && batch.len() < opts.count {
                pos -= 1;
                if let Some(m) = t.get_index(pos as usize) {
                    batch.push(m.clone());
                }
            }
            (pos, batch)
        }
    };
    let members =
        batch.into_iter().filter(|m| opts.pattern.is_none_or(|p| glob_match(p, m, false))).map(Reply::Bulk).collect();
    Reply::Array(vec![Reply::bulk(next.to_string()), Reply::Array(members)])
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn intset_converts_on_a_string_or_past_the_limit() {
        let mut s = set_type_create(b"1");
        assert!(set_type_add(&mut s, Elem::Str(b"1"), 2));
        assert!(set_type_add(&mut s, Elem::Str(b"2"), 2));
        assert!(matches!(s, Set::Intset(_)));
        assert!(set_type_add(&mut s, Elem::Str(b"3"), 2));
        assert!(matches!(s, Set::Table(_)));

        let mut s = set_type_create(b"5");
        set_type_add(&mut s, Elem::Str(b"5"), 512);
        assert!(set_type_add(&mut s, Elem::Str(b"05"), 512));
        assert!(matches!(s, Set::Table(_)), "\"05\" is not a canonical integer");
        assert!(set_type_is_member(&s, Elem::Int(5)) && set_type_is_member(&s, Elem::Str(b"05")));
    }

    #[test]
    fn non_canonical_integers_are_not_intset_members() {
        let mut s = set_type_create(b"1");
        set_type_add(&mut s, Elem::Str(b"1"), 512);
        assert!(!set_type_is_member(&s, Elem::Str(b"+1")));
        assert!(!set_type_remove(&mut s, Elem::Str(b"01")));
        assert!(set_type_remove(&mut s, Elem::Str(b"1")));
    }
}
