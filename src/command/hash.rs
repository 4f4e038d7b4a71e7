//! t_hash.c: HSET, HMSET, HSETNX, HGET, HMGET, HDEL, HLEN, HSTRLEN, HEXISTS, HKEYS, HVALS,
//! HGETALL, HINCRBY, HINCRBYFLOAT, HRANDFIELD and HSCAN.
//!
//! The hash-type helpers are Redis's `hashType*` functions over the two encodings of
//! object.rs: `listpack` (field/value pairs in insertion order) while the hash has at most
//! `hash-max-listpack-entries` fields and no field or value longer than
//! `hash-max-listpack-value` bytes, else `hashtable`; it never converts back
//! (`hashTypeTryConversion()` checks every argument before a write, `hashTypeSet()` the
//! entry count after it and, for HINCRBY*, the new field and value). Both limits are read
//! from the config on every write, so CONFIG SET changes them as it does in Redis.
//!
//! Each handler keeps its t_hash.c function's order of checks (HINCRBY parses the increment
//! before looking at the key; HINCRBYFLOAT rejects an infinite increment before it creates
//! the key; HRANDFIELD checks its count and WITHVALUES before the key; HSCAN parses the cursor
//! before the key and the options after it) and fires the same keyspace events, including
//! `del` when HDEL empties a hash and `new` when a write creates one (db.c `dbAdd()`).
//! HINCRBYFLOAT computes in 80-bit long double like Redis (ds/long_double.rs).
//!
//! Differences: a `hashtable` hash iterates in our map's order (insertion order, with deletes
//! moving the last field into the hole), not Redis's hash order, which is random per process —
//! so HGETALL/HKEYS/HVALS/HSCAN of a large hash list the same fields in another order. HSCAN's
//! cursor over a hashtable walks positions in that map from the end, like SCAN in db.rs
//! (every field present for the whole scan is returned at least once), so cursor values
//! differ from Redis's reverse-binary bucket cursor. HRANDFIELD draws from the engine's seeded
//! RNG, so it picks other fields than a real server would (the shape of the reply — how many,
//! unique or not, which case of `hrandfieldWithCountCommand()` — is Redis's). A reply of more
//! elements than `playground-max-alloc` allows (HRANDFIELD with a huge negative count, which
//! would make a real server allocate until it is killed) is refused with a playground error.

use crate::command::call::Call;
use crate::command::db::{parse_scan_cursor, parse_scan_options};
use crate::command::{is_opt, parse_i64, syntax_error, wrongtype, NOT_FLOAT, NOT_INTEGER};
use crate::ds::long_double::LongDouble;
use crate::ds::map::Map;
use crate::engine::Engine;
use crate::object::{Hash, Value};
use crate::reply::Reply;
use crate::util::{glob_match, string2ll};

// ---------------------------------------------------------------------------------------------
// hashType* helpers
// ---------------------------------------------------------------------------------------------

/// `hash-max-listpack-entries` and `hash-max-listpack-value`, read when a command runs.
#[derive(Clone, Copy)]
struct Limits {
    entries: u64,
    value: u64,
}

fn limits(e: &Engine) -> Limits {
    Limits {
        entries: e.config.int("hash-max-listpack-entries").max(0) as u64,
        value: e.config.int("hash-max-listpack-value").max(0) as u64,
    }
}

/// `lookupKeyWrite()` + `checkType(OBJ_HASH)`: `Ok(None)` for a missing key.
fn write_hash<'a>(e: &'a mut Engine, db: usize, key: &[u8]) -> Result<Option<&'a mut Hash>, Reply> {
    match e.lookup_write(db, key) {
        None => Ok(None),
        Some(o) => match &mut o.value {
            Value::Hash(h) => Ok(Some(h)),
            _ => Err(wrongtype()),
        },
    }
}

/// `lookupKeyRead()` + `checkType(OBJ_HASH)`.
fn read_hash<'a>(e: &'a mut Engine, db: usize, key: &[u8]) -> Result<Option<&'a mut Hash>, Reply> {
    match e.lookup_read(db, key) {
        None => Ok(None),
        Some(o) => match &mut o.value {
            Value::Hash(h) => Ok(Some(h)),
            _ => Err(wrongtype()),
        },
    }
}

/// t_hash.c `hashTypeLookupWriteOrCreate()`: WRONGTYPE, or the hash, created (empty, as a
/// listpack) if missing — db.c `dbAdd()` fires `new`.
fn lookup_write_or_create<'a>(e: &'a mut Engine, db: usize, key: &[u8]) -> Result<&'a mut Hash, Reply> {
    if write_hash(e, db, key)?.is_none() {
        let obj = e.new_obj(Value::Hash(Hash::Listpack(Vec::new())));
        e.dbs[db].insert(key.to_vec(), obj);
    }
    match e.dbs[db].get_mut(key).map(|o| &mut o.value) {
        Some(Value::Hash(h)) => Ok(h),
        _ => Err(wrongtype()),
    }
}

fn hash_len(h: &Hash) -> usize {
    match h {
        Hash::Listpack(v) => v.len(),
        Hash::Table(m) => m.len(),
    }
}

/// `hashTypeGetValue()`.
fn hash_get<'a>(h: &'a Hash, field: &[u8]) -> Option<&'a [u8]> {
    match h {
        Hash::Listpack(v) => v.iter().find(|(f, _)| f.as_slice() == field).map(|(_, x)| x.as_slice()),
        Hash::Table(m) => m.get(field).map(|x| x.as_slice()),
    }
}

/// The pair at position `i` of the hash's iteration order.
fn hash_pair(h: &Hash, i: usize) -> Option<(&[u8], &[u8])> {
    match h {
        Hash::Listpack(v) => v.get(i).map(|(f, x)| (f.as_slice(), x.as_slice())),
        Hash::Table(m) => m.get_index(i).map(|(f, x)| (f.as_slice(), x.as_slice())),
    }
}

fn hash_pairs(h: &Hash) -> Box<dyn Iterator<Item = (&[u8], &[u8])> + '_> {
    match h {
        Hash::Listpack(v) => Box::new(v.iter().map(|(f, x)| (f.as_slice(), x.as_slice()))),
        Hash::Table(m) => Box::new(m.iter().map(|(f, x)| (f.as_slice(), x.as_slice()))),
    }
}

/// `hashTypeConvert(OBJ_ENCODING_HT)`: listpack → hashtable, keeping the pairs' order.
fn convert(h: &mut Hash) {
    if let Hash::Listpack(v) = h {
        let m: Map<Vec<u8>, Vec<u8>> = std::mem::take(v).into_iter().collect();
        *h = Hash::Table(Box::new(m));
    }
}

/// `hashTypeTryConversion()`: a listpack becomes a hashtable before a write if any of the
/// arguments (fields and values alike) is longer than hash-max-listpack-value.
fn try_conversion(h: &mut Hash, args: &[Vec<u8>], lim: Limits) {
    if matches!(h, Hash::Listpack(_)) && args.iter().any(|a| a.len() as u64 > lim.value) {
        convert(h);
    }
}

/// `hashTypeSet()`: true if the field existed (an update). A listpack converts first if the
/// field or value is too long, and after the insert if it has too many fields.
fn hash_set(h: &mut Hash, field: &[u8], value: Vec<u8>, lim: Limits) -> bool {
    if matches!(h, Hash::Listpack(_)) && (field.len() as u64 > lim.value || value.len() as u64 > lim.value) {
        convert(h);
    }
    match h {
        Hash::Listpack(v) => {
            let update = match v.iter_mut().find(|(f, _)| f.as_slice() == field) {
                Some(pair) => {
                    pair.1 = value;
                    true
                }
                None => {
                    v.push((field.to_vec(), value));
                    false
                }
            };
            if v.len() as u64 > lim.entries {
                convert(h);
            }
            update
        }
        Hash::Table(m) => m.insert(field.to_vec(), value).is_some(),
    }
}

/// `hashTypeDelete()`: true if the field was there.
fn hash_delete(h: &mut Hash, field: &[u8]) -> bool {
    match h {
        Hash::Listpack(v) => match v.iter().position(|(f, _)| f.as_slice() == field) {
            Some(i) => {
                v.remove(i);
                true
            }
            None => false,
        },
        Hash::Table(m) => m.swap_remove(field).is_some(),
    }
}

/// The playground's cap on one reply's size (`playground-max-alloc`), for replies whose
/// length the user chooses (HRANDFIELD with a negative count).
fn check_reply_size(e: &Engine, elements: u64, bytes_each: u64) -> Result<(), Reply> {
    let limit = e.config.int("playground-max-alloc").max(0) as u64;
    let bytes = elements.saturating_mul(bytes_each);
    if bytes > limit {
        return Err(Reply::err(format!(
            "ERR playground limit: this reply would hold {elements} elements (about {bytes} bytes); playground-max-alloc is {limit}"
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------------------------

/// t_hash.c `hsetCommand()`, also HMSET (which replies OK instead of the count of new fields).
fn hset_generic(e: &mut Engine, c: &Call, hmset: bool) -> Reply {
    if c.argc() % 2 == 1 {
        return Reply::err(format!("ERR wrong number of arguments for '{}' command", c.cmd.name));
    }
    let lim = limits(e);
    let key = c.arg(1);
    let h = match lookup_write_or_create(e, c.db, key) {
        Ok(h) => h,
        Err(r) => return r,
    };
    try_conversion(h, &c.argv[2..], lim);
    let mut created = 0;
    for pair in c.argv[2..].chunks(2) {
        if !hash_set(h, &pair[0], pair[1].clone(), lim) {
            created += 1;
        }
    }
    e.notify("hset", c.db, key);
    e.dirty(((c.argc() - 2) / 2) as u64);
    if hmset {
        Reply::ok()
    } else {
        Reply::Integer(created)
    }
}

pub fn hset(e: &mut Engine, c: &Call) -> Reply {
    hset_generic(e, c, false)
}

pub fn hmset(e: &mut Engine, c: &Call) -> Reply {
    hset_generic(e, c, true)
}

/// t_hash.c `hsetnxCommand()`: the key is created before the field is looked up.
pub fn hsetnx(e: &mut Engine, c: &Call) -> Reply {
    let lim = limits(e);
    let key = c.arg(1);
    let h = match lookup_write_or_create(e, c.db, key) {
        Ok(h) => h,
        Err(r) => return r,
    };
    if hash_get(h, c.arg(2)).is_some() {
        return Reply::Integer(0);
    }
    try_conversion(h, &c.argv[2..4], lim);
    hash_set(h, c.arg(2), c.arg(3).to_vec(), lim);
    e.notify("hset", c.db, key);
    e.dirty(1);
    Reply::Integer(1)
}

/// t_hash.c `hdelCommand()`: stops at the field that empties the hash (and deletes the key).
pub fn hdel(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    let h = match write_hash(e, c.db, key) {
        Err(r) => return r,
        Ok(None) => return Reply::Integer(0),
        Ok(Some(h)) => h,
    };
    let mut deleted = 0;
    let mut key_removed = false;
    for field in &c.argv[2..] {
        if hash_delete(h, field) {
            deleted += 1;
            if hash_len(h) == 0 {
                key_removed = true;
                break;
            }
        }
    }
    if key_removed {
        e.dbs[c.db].delete(key);
    }
    if deleted > 0 {
        e.notify("hdel", c.db, key);
        if key_removed {
            e.notify("del", c.db, key);
        }
        e.dirty(deleted as u64);
    }
    Reply::Integer(deleted)
}

/// t_hash.c `hincrbyCommand()`: the increment is parsed before the key is looked at (and the
/// key is created before the field's value is checked).
pub fn hincrby(e: &mut Engine, c: &Call) -> Reply {
    let incr = match parse_i64(c.arg(3)) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let lim = limits(e);
    let key = c.arg(1);
    let h = match lookup_write_or_create(e, c.db, key) {
        Ok(h) => h,
        Err(r) => return r,
    };
    let old = match hash_get(h, c.arg(2)) {
        Some(v) => match string2ll(v) {
            Some(n) => n,
            None => return Reply::err("ERR hash value is not an integer"),
        },
        None => 0,
    };
    let Some(value) = old.checked_add(incr) else {
        return Reply::err("ERR increment or decrement would overflow");
    };
    hash_set(h, c.arg(2), value.to_string().into_bytes(), lim);
    e.notify("hincrby", c.db, key);
    e.dirty(1);
    Reply::Integer(value)
}

/// t_hash.c `hincrbyfloatCommand()`: long double arithmetic, `%.17Lf` output trimmed
/// (`ld2string(LD_STR_HUMAN)`). An infinite increment is refused before the key is touched.
pub fn hincrbyfloat(e: &mut Engine, c: &Call) -> Reply {
    let Some(incr) = LongDouble::parse(c.arg(3)) else {
        return Reply::err(NOT_FLOAT);
    };
    if !incr.is_finite() {
        return Reply::err("ERR value is NaN or Infinity");
    }
    let lim = limits(e);
    let key = c.arg(1);
    let h = match lookup_write_or_create(e, c.db, key) {
        Ok(h) => h,
        Err(r) => return r,
    };
    let old = match hash_get(h, c.arg(2)) {
        Some(v) => match LongDouble::parse(v) {
            Some(x) => x,
            None => return Reply::err("ERR hash value is not a float"),
        },
        None => LongDouble::from_i64(0),
    };
    let sum = old.add(incr);
    if !sum.is_finite() {
        return Reply::err("ERR increment would produce NaN or Infinity");
    }
    let text = sum.to_human().into_bytes();
    hash_set(h, c.arg(2), text.clone(), lim);
    e.notify("hincrbyfloat", c.db, key);
    e.dirty(1);
    // Propagated as HSET key field value: a replay gives the same bytes.
    e.propagate_as(vec![b"HSET".to_vec(), key.to_vec(), c.arg(2).to_vec(), text.clone()]);
    Reply::Bulk(text)
}

// ---------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------

pub fn hget(e: &mut Engine, c: &Call) -> Reply {
    match read_hash(e, c.db, c.arg(1)) {
        Err(r) => r,
        Ok(None) => Reply::Nil,
        Ok(Some(h)) => hash_get(h, c.arg(2)).map(Reply::bulk).unwrap_or(Reply::Nil),
    }
}

/// t_hash.c `hmgetCommand()`: a missing key is an empty hash (all nils).
pub fn hmget(e: &mut Engine, c: &Call) -> Reply {
    let h = match read_hash(e, c.db, c.arg(1)) {
        Err(r) => return r,
        Ok(h) => h,
    };
    let fields = &c.argv[2..];
    Reply::Array(
        fields
            .iter()
            .map(|f| h.as_deref().and_then(|h| hash_get(h, f)).map(Reply::bulk).unwrap_or(Reply::Nil))
            .collect(),
    )
}

pub fn hlen(e: &mut Engine, c: &Call) -> Reply {
    match read_hash(e, c.db, c.arg(1)) {
        Err(r) => r,
        Ok(None) => Reply::Integer(0),
        Ok(Some(h)) => Reply::Integer(hash_len(h) as i64),
    }
}

pub fn hstrlen(e: &mut Engine, c: &Call) -> Reply {
    match read_hash(e, c.db, c.arg(1)) {
        Err(r) => r,
        Ok(None) => Reply::Integer(0),
        Ok(Some(h)) => Reply::Integer(hash_get(h, c.arg(2)).map_or(0, |v| v.len() as i64)),
    }
}

pub fn hexists(e: &mut Engine, c: &Call) -> Reply {
    match read_hash(e, c.db, c.arg(1)) {
        Err(r) => r,
        Ok(None) => Reply::Integer(0),
        Ok(Some(h)) => Reply::Integer(hash_get(h, c.arg(2)).is_some() as i64),
    }
}

/// t_hash.c `genericHgetallCommand()`.
fn getall_generic(e: &mut Engine, c: &Call, fields: bool, values: bool) -> Reply {
    let h = match read_hash(e, c.db, c.arg(1)) {
        Err(r) => return r,
        // shared.emptymap / emptyarray: HGETALL answers a map (`%0` over RESP3).
        Ok(None) if fields && values => return Reply::Map(vec![]),
        Ok(None) => return Reply::Array(vec![]),
        Ok(Some(h)) => h,
    };
    if fields && values {
        return Reply::Map(hash_pairs(h).map(|(f, v)| (Reply::bulk(f), Reply::bulk(v))).collect());
    }
    let mut out = Vec::with_capacity(hash_len(h) * (fields as usize + values as usize));
    for (f, v) in hash_pairs(h) {
        if fields {
            out.push(Reply::bulk(f));
        }
        if values {
            out.push(Reply::bulk(v));
        }
    }
    Reply::Array(out)
}

pub fn hkeys(e: &mut Engine, c: &Call) -> Reply {
    getall_generic(e, c, true, false)
}

pub fn hvals(e: &mut Engine, c: &Call) -> Reply {
    getall_generic(e, c, false, true)
}

pub fn hgetall(e: &mut Engine, c: &Call) -> Reply {
    getall_generic(e, c, true, true)
}

/// t_hash.c `hscanCommand()` + db.c `scanGenericCommand()`: the cursor is parsed before the
/// key, the options after it (so a missing key answers `0` and no fields even with bad
/// options). A listpack returns every pair at once with cursor 0, whatever the cursor; MATCH
/// filters on the field and drops its value with it.
pub fn hscan(e: &mut Engine, c: &Call) -> Reply {
    let cursor = match parse_scan_cursor(c.arg(2)) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let h = match read_hash(e, c.db, c.arg(1)) {
        Err(r) => return r,
        Ok(None) => return Reply::Array(vec![Reply::bulk("0"), Reply::Array(vec![])]),
        Ok(Some(h)) => h,
    };
    let opts = match parse_scan_options(c, 3, false) {
        Ok(o) => o,
        Err(r) => return r,
    };
    let h: &Hash = h;
    let mut batch: Vec<(&[u8], &[u8])> = Vec::new();
    let next = match h {
        Hash::Listpack(_) => {
            batch.extend(hash_pairs(h));
            0
        }
        Hash::Table(m) => {
            // Positions from the end of the map: the cursor is how many remain to visit.
            let len = m.len() as u64;
            let mut pos = if cursor == 0 { len } else { cursor.min(len) };
            while pos > 0 && batch.len() < opts.count {
                pos -= 1;
                if let Some(pair) = hash_pair(h, pos as usize) {
                    batch.push(pair);
                }
            }
            pos
        }
    };
    let mut out = Vec::with_capacity(batch.len() * 2);
    for (f, v) in batch {
        if opts.pattern.is_some_and(|p| !glob_match(p, f, false)) {
            continue;
        }
        out.push(Reply::bulk(f));
        out.push(Reply::bulk(v));
    }
    Reply::Array(vec![Reply::bulk(next.to_string()), Reply::Array(out)])
}

// ---------------------------------------------------------------------------------------------
// HRANDFIELD
// ---------------------------------------------------------------------------------------------

/// t_hash.c `hrandfieldCommand()`: the count must be within ±LONG_MAX, and within ±LONG_MAX/2
/// with WITHVALUES, all before the key is looked at.
pub fn hrandfield(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() >= 3 {
        let l = match string2ll(c.arg(2)) {
            None => return Reply::err(NOT_INTEGER),
            Some(i64::MIN) => {
                return Reply::err(
                    "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807",
                )
            }
            Some(l) => l,
        };
        if c.argc() > 4 || (c.argc() == 4 && !is_opt(c.arg(3), "withvalues")) {
            return syntax_error();
        }
        let withvalues = c.argc() == 4;
        if withvalues && !(-(i64::MAX / 2)..=i64::MAX / 2).contains(&l) {
            return Reply::err("ERR value is out of range");
        }
        return hrandfield_with_count(e, c, l, withvalues);
    }
    let h = match read_hash(e, c.db, c.arg(1)) {
        Err(r) => return r,
        Ok(None) => return Reply::Nil,
        Ok(Some(h)) => h,
    };
    let n = hash_len(h);
    let i = e.random_index(n);
    match read_pair(e, c, i) {
        Some((f, _)) => Reply::Bulk(f),
        None => Reply::Nil,
    }
}

/// The pair at position `i` of the hash at the call's key (already looked up).
fn read_pair(e: &mut Engine, c: &Call, i: usize) -> Option<(Vec<u8>, Vec<u8>)> {
    match e.dbs[c.db].get(c.arg(1)).map(|o| &o.value) {
        Some(Value::Hash(h)) => hash_pair(h, i).map(|(f, v)| (f.to_vec(), v.to_vec())),
        _ => None,
    }
}

/// t_hash.c `hrandfieldWithCountCommand()`: a negative count picks with repetition; a
/// positive one picks distinct fields — the whole hash when it has at most `count` fields,
/// else by removing random fields from a copy (when the count is more than a third of the
/// size) or by drawing until enough distinct ones came up.
fn hrandfield_with_count(e: &mut Engine, c: &Call, l: i64, withvalues: bool) -> Reply {
    let (size, longest, listpack) = match read_hash(e, c.db, c.arg(1)) {
        Err(r) => return r,
        Ok(None) => return Reply::Array(vec![]),
        Ok(Some(h)) => {
            let longest = hash_pairs(h).map(|(f, v)| f.len() + if withvalues { v.len() } else { 0 }).max().unwrap_or(0);
            (hash_len(h), longest as u64, matches!(h, Hash::Listpack(_)))
        }
    };
    let uniq = l >= 0;
    let count = l.unsigned_abs();
    if count == 0 {
        return Reply::Array(vec![]);
    }
    let emit = |e: &mut Engine, picks: &[usize]| -> Reply {
        // WITHVALUES: pairs, nested over RESP3 (`if (withvalues && c->resp > 2)`).
        if withvalues {
            return Reply::Pairs(
                picks
                    .iter()
                    .filter_map(|&i| read_pair(e, c, i))
                    .map(|(f, v)| (Reply::Bulk(f), Reply::Bulk(v)))
                    .collect(),
            );
        }
        Reply::Array(picks.iter().filter_map(|&i| read_pair(e, c, i)).map(|(f, _)| Reply::Bulk(f)).collect())
    };
    // CASE 1: a negative count (or 1): `count` independent picks, in the order drawn.
    if !uniq || count == 1 {
        let per = 48 + longest + if withvalues { 48 } else { 0 };
        if let Err(r) = check_reply_size(e, count, per) {
            return r;
        }
        let picks: Vec<usize> = (0..count).map(|_| e.random_index(size)).collect();
        return emit(e, &picks);
    }
    // CASE 2: the whole hash, in its order. (Compared as u64: on wasm32 a count of 2^32 would
    // truncate to 0 as a usize.)
    if count >= size as u64 {
        return emit(e, &(0..size).collect::<Vec<_>>());
    }
    let count = count as usize;
    let mut picks: Vec<usize>;
    if count * 3 > size {
        // CASE 3: remove random fields from a copy until `count` remain.
        picks = (0..size).collect();
        while picks.len() > count {
            let i = e.random_index(picks.len());
            picks.swap_remove(i);
        }
        picks.sort_unstable();
    } else {
        // CASE 4: draw until `count` distinct fields came up; a listpack yields them in its
        // own order (`lpRandomPairsUnique()`), a hashtable in the order drawn.
        let mut seen = std::collections::HashSet::new();
        picks = Vec::with_capacity(count);
        while picks.len() < count {
            let i = e.random_index(size);
            if seen.insert(i) {
                picks.push(i);
            }
        }
        if listpack {
            picks.sort_unstable();
        }
    }
    emit(e, &picks)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIM: Limits = Limits { entries: 2, value: 4 };

    #[test]
    fn listpack_converts_on_entries_and_value_length_and_never_back() {
        let mut h = Hash::Listpack(vec![]);
        assert!(!hash_set(&mut h, b"a", b"1".to_vec(), LIM));
        assert!(!hash_set(&mut h, b"b", b"2".to_vec(), LIM));
        assert!(hash_set(&mut h, b"a", b"3".to_vec(), LIM));
        assert!(matches!(h, Hash::Listpack(_)));
        assert!(!hash_set(&mut h, b"c", b"3".to_vec(), LIM));
        assert!(matches!(h, Hash::Table(_)));
        for f in [b"a", b"b", b"c"] {
            assert!(hash_delete(&mut h, f));
        }
        assert!(matches!(h, Hash::Table(_)) && hash_len(&h) == 0);

        let mut h = Hash::Listpack(vec![]);
        hash_set(&mut h, b"field", b"1".to_vec(), LIM);
        assert!(matches!(h, Hash::Table(_)));
        let mut h = Hash::Listpack(vec![(b"a".to_vec(), b"1".to_vec())]);
        try_conversion(&mut h, &[b"a".to_vec(), b"12345".to_vec()], LIM);
        assert!(matches!(h, Hash::Table(_)));
    }

    #[test]
    fn conversion_keeps_insertion_order() {
        let mut h = Hash::Listpack(vec![(b"z".to_vec(), b"1".to_vec()), (b"a".to_vec(), b"2".to_vec())]);
        convert(&mut h);
        let fields: Vec<&[u8]> = hash_pairs(&h).map(|(f, _)| f).collect();
        assert_eq!(fields, vec![b"z".as_slice(), b"a".as_slice()]);
    }
}
