//! db.c commands: SELECT, SWAPDB, DBSIZE, FLUSHDB, FLUSHALL, DEL, UNLINK, EXISTS, TYPE, KEYS,
//! SCAN, RANDOMKEY, RENAME, RENAMENX, COPY, MOVE, TOUCH; `sortGetKeys()` (SORT's keys for COMMAND
//! GETKEYS and the ACL check).
//!
//! Each follows its db.c function's order of checks, so the same bad input gets the same
//! error. Differences: SCAN's cursor walks our insertion-ordered keyspace from the end (which
//! keeps SCAN's guarantee — every key present for the whole scan is returned at least once —
//! under deletes and inserts) instead of Redis's reverse-binary bucket cursor, so cursor
//! values differ; KEYS/SCAN list keys in our order, not the hash order of a real server
//! (which is random per process).

use crate::command::call::Call;
use crate::command::{c_str, is_opt, parse_i32, parse_i64, syntax_error, NO_SUCH_KEY, OUT_OF_RANGE_DB, SAME_OBJECT};
use crate::ds::long_double::split_sign;
use crate::engine::{lookup, Engine};
use crate::events::ExpiredBy;
use crate::reply::Reply;
use crate::util::{glob_match, is_c_space};

/// db.c `selectDb()` bounds.
fn db_index(e: &Engine, id: i64) -> Option<usize> {
    if id < 0 || id as usize >= e.dbnum() {
        None
    } else {
        Some(id as usize)
    }
}

pub fn select(e: &mut Engine, c: &Call) -> Reply {
    let id = match parse_i32(c.arg(1)) {
        Ok(id) => id,
        Err(r) => return r,
    };
    match db_index(e, id) {
        Some(db) => {
            if let Some(client) = e.clients.get_mut(&c.client) {
                client.db = db;
            }
            Reply::ok()
        }
        None => Reply::err(OUT_OF_RANGE_DB),
    }
}

pub fn swapdb(e: &mut Engine, c: &Call) -> Reply {
    let Ok(a) = parse_i32(c.arg(1)) else {
        return Reply::err("ERR invalid first DB index");
    };
    let Ok(b) = parse_i32(c.arg(2)) else {
        return Reply::err("ERR invalid second DB index");
    };
    let (Some(a), Some(b)) = (db_index(e, a), db_index(e, b)) else {
        return Reply::err(OUT_OF_RANGE_DB);
    };
    if a != b {
        // db.c dbSwapDatabases(): watchers of either db see a change, then clients blocked
        // on keys that now exist are served.
        e.touch_all_watched_keys_in_db(a, Some(b));
        e.touch_all_watched_keys_in_db(b, Some(a));
        e.dbs.swap(a, b);
        e.scan_database_for_ready_keys(a);
        e.scan_database_for_ready_keys(b);
        e.dirty(1);
    }
    Reply::ok()
}

pub fn dbsize(e: &mut Engine, c: &Call) -> Reply {
    Reply::Integer(e.dbs[c.db].len() as i64)
}

/// db.c `getFlushCommandFlags()`: optional ASYNC|SYNC.
fn flush_flags(c: &Call) -> Result<(), Reply> {
    if c.argc() > 2 {
        return Err(syntax_error());
    }
    if c.argc() == 2 && !is_opt(c.arg(1), "sync") && !is_opt(c.arg(1), "async") {
        return Err(syntax_error());
    }
    Ok(())
}

pub fn flushdb(e: &mut Engine, c: &Call) -> Reply {
    if let Err(r) = flush_flags(c) {
        return r;
    }
    let n = e.dbs[c.db].len() as u64;
    // db.c signalFlushedDb(): watchers of keys that existed see a change; tracking clients
    // are told everything is invalid.
    e.touch_all_watched_keys_in_db(c.db, None);
    charge_flush(e, c, c.db);
    e.tracking_invalidate_keys_on_flush();
    e.dbs[c.db].clear();
    e.dirty(n);
    Reply::ok()
}

pub fn flushall(e: &mut Engine, c: &Call) -> Reply {
    if let Err(r) = flush_flags(c) {
        return r;
    }
    let mut n = 0;
    for db in 0..e.dbs.len() {
        e.touch_all_watched_keys_in_db(db, None);
        charge_flush(e, c, db);
    }
    e.tracking_invalidate_keys_on_flush();
    for db in e.dbs.iter_mut() {
        n += db.len() as u64;
        db.clear();
    }
    e.dirty(n + 1);
    // db.c flushAllDataAndResetRDB(): with save points, the (empty) dataset is saved at once.
    // A BGSAVE at work would write what was flushed: it is killed (killRDBChild()).
    e.kill_rdb_child();
    if !e.config.str("save").is_empty() {
        e.rdb_save();
    }
    Reply::ok()
}

/// A synchronous flush frees every key and value on the main thread (src/cost.rs); an ASYNC
/// one or lazyfree-lazy-user-flush hands the dataset to the lazyfree thread, as Redis does.
fn charge_flush(e: &mut Engine, c: &Call, db: usize) {
    let lazy = if c.argc() == 2 { is_opt(c.arg(1), "async") } else { e.config.bool("lazyfree-lazy-user-flush") };
    if lazy {
        return;
    }
    let ns: u64 =
        e.dbs[db].dict.values().map(|o| crate::cost::DELETE_KEY_NS + crate::cost::free_cost_ns(&o.value)).sum();
    e.charge_cpu(crate::cost::scaled(ns, e.hot.cost_percent));
}

/// db.c `delGenericCommand()`: expire first (a dead key doesn't count), then delete.
fn del_generic(e: &mut Engine, c: &Call, lazy: bool) -> Reply {
    let mut deleted = 0;
    for key in &c.argv[1..] {
        e.expire_if_needed(c.db, key);
        // Freeing a big value blocks the main thread unless it goes to the lazyfree thread.
        e.account_free(c.db, key, lazy, if lazy { "UNLINK" } else { "DEL" });
        if e.dbs[c.db].delete(key) {
            e.notify("del", c.db, key);
            e.dirty(1);
            deleted += 1;
        }
    }
    Reply::Integer(deleted)
}

pub fn del(e: &mut Engine, c: &Call) -> Reply {
    let lazy = e.config.bool("lazyfree-lazy-user-del");
    del_generic(e, c, lazy)
}

pub fn unlink(e: &mut Engine, c: &Call) -> Reply {
    del_generic(e, c, true)
}

pub fn exists(e: &mut Engine, c: &Call) -> Reply {
    let mut n = 0;
    for key in &c.argv[1..] {
        if e.lookup(c.db, key, lookup::NOTOUCH).is_some() {
            n += 1;
        }
    }
    Reply::Integer(n)
}

pub fn type_(e: &mut Engine, c: &Call) -> Reply {
    let t = e.lookup(c.db, c.arg(1), lookup::NOTOUCH).map(|o| o.value.type_name()).unwrap_or("none");
    Reply::Status(t.into())
}

/// db.c `keysCommand()`: logically-expired keys are skipped but not deleted.
pub fn keys(e: &mut Engine, c: &Call) -> Reply {
    let pattern = c.arg(1);
    let all = pattern == b"*";
    let now = e.now_ms();
    let db = &e.dbs[c.db];
    let mut out = Vec::new();
    for key in db.dict.keys() {
        if (all || glob_match(pattern, key, false)) && !db.is_expired(key, now) {
            out.push(Reply::bulk(key));
        }
    }
    // Every key is examined (src/cost.rs).
    let examined = db.len() as u64;
    e.charge_cpu(crate::cost::scaled(examined * crate::cost::SCAN_KEY_NS, e.hot.cost_percent));
    Reply::Array(out)
}

/// db.c `parseScanCursorOrReply()`: C `strtoul` over the whole string (so `+5`, `007` and
/// even `-1` are accepted, the last as ULONG_MAX), no leading space, no overflow.
pub fn parse_scan_cursor(arg: &[u8]) -> Result<u64, Reply> {
    let invalid = || Reply::err("ERR invalid cursor");
    let s = c_str(arg);
    if s.len() != arg.len() && !s.is_empty() {
        return Err(invalid());
    }
    if s.first().is_some_and(|&c| is_c_space(c)) {
        return Err(invalid());
    }
    let (neg, digits) = split_sign(s);
    if digits.is_empty() {
        // No digits: strtoul consumed nothing; only an empty string ends right there.
        return if s.is_empty() { Ok(0) } else { Err(invalid()) };
    }
    let mut v: u64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return Err(invalid());
        }
        v = v.checked_mul(10).and_then(|v| v.checked_add((d - b'0') as u64)).ok_or_else(invalid)?;
    }
    Ok(if neg { v.wrapping_neg() } else { v })
}

/// SCAN options as db.c `scanGenericCommand()` parses them.
pub struct ScanOptions<'a> {
    pub count: usize,
    pub pattern: Option<&'a [u8]>,
    pub type_name: Option<&'a [u8]>,
}

pub fn parse_scan_options<'a>(c: &'a Call, start: usize, allow_type: bool) -> Result<ScanOptions<'a>, Reply> {
    let mut opts = ScanOptions { count: 10, pattern: None, type_name: None };
    let mut i = start;
    while i < c.argc() {
        let remaining = c.argc() - i;
        if is_opt(c.arg(i), "count") && remaining >= 2 {
            let n = parse_i64(c.arg(i + 1))?;
            if n < 1 {
                return Err(syntax_error());
            }
            opts.count = n.min(u32::MAX as i64) as usize;
            i += 2;
        } else if is_opt(c.arg(i), "match") && remaining >= 2 {
            let p = c.arg(i + 1);
            opts.pattern = if p == b"*" { None } else { Some(p) };
            i += 2;
        } else if allow_type && is_opt(c.arg(i), "type") && remaining >= 2 {
            opts.type_name = Some(c.arg(i + 1));
            i += 2;
        } else {
            return Err(syntax_error());
        }
    }
    Ok(opts)
}

pub fn scan(e: &mut Engine, c: &Call) -> Reply {
    let cursor = match parse_scan_cursor(c.arg(1)) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let opts = match parse_scan_options(c, 2, true) {
        Ok(o) => o,
        Err(r) => return r,
    };
    // Walk positions from the end of the keyspace: `cursor` is how many positions remain.
    let len = e.dbs[c.db].len() as u64;
    let mut pos = if cursor == 0 { len } else { cursor.min(len) };
    let mut batch = Vec::new();
    while pos > 0 && batch.len() < opts.count {
        pos -= 1;
        if let Some((k, _)) = e.dbs[c.db].dict.get_index(pos as usize) {
            batch.push(k.clone());
        }
    }
    let mut keys = Vec::new();
    e.charge_cpu(crate::cost::scaled(batch.len() as u64 * crate::cost::SCAN_KEY_NS, e.hot.cost_percent));
    for key in batch {
        if let Some(p) = opts.pattern {
            if !glob_match(p, &key, false) {
                continue;
            }
        }
        if let Some(t) = opts.type_name {
            let actual = e.lookup(c.db, &key, lookup::NOTOUCH).map(|o| o.value.type_name()).unwrap_or("none");
            if !c_str(t).eq_ignore_ascii_case(actual.as_bytes()) {
                continue;
            }
        }
        if e.expire_if_needed(c.db, &key) {
            continue;
        }
        keys.push(Reply::Bulk(key));
    }
    Reply::Array(vec![Reply::bulk(pos.to_string()), Reply::Array(keys)])
}

/// db.c `dbRandomKey()`: pick uniformly; an expired pick is deleted and we pick again, until a
/// live key turns up or the db is empty. (Redis gives up after 100 tries and returns a dead
/// key only on a replica, which can't delete.)
pub fn randomkey(e: &mut Engine, c: &Call) -> Reply {
    // While clients are paused nothing expires: after 100 dead picks, give up and answer one
    // (Redis 7.0.15 loops forever there; later versions answer as here).
    let mut tries = 100;
    loop {
        let n = e.dbs[c.db].len();
        if n == 0 {
            return Reply::Nil;
        }
        let i = e.random_index(n);
        let Some((key, _)) = e.dbs[c.db].dict.get_index(i) else {
            return Reply::Nil;
        };
        let key = key.clone();
        if e.dbs[c.db].is_expired(&key, e.now_ms()) {
            // A replica can't delete it: pick again, and when every key has a TTL give up
            // after 100 picks and answer a dead one, as 7.0's dbRandomKey() does.
            if e.is_replica() {
                if e.dbs[c.db].expires.len() == n {
                    tries -= 1;
                    if tries == 0 {
                        return Reply::Bulk(key);
                    }
                }
                continue;
            }
            if e.check_client_pause_timeout() {
                tries -= 1;
                if tries == 0 {
                    return Reply::Bulk(key);
                }
                continue;
            }
            e.delete_expired_key(c.db, &key, ExpiredBy::Lazy);
            continue;
        }
        return Reply::Bulk(key);
    }
}

/// db.c `renameGenericCommand()`.
fn rename_generic(e: &mut Engine, c: &Call, nx: bool) -> Reply {
    let (src, dst) = (c.arg(1), c.arg(2));
    if e.lookup_write(c.db, src).is_none() {
        return Reply::err(NO_SUCH_KEY);
    }
    if src == dst {
        return if nx { Reply::Integer(0) } else { Reply::ok() };
    }
    let dst_exists = e.lookup_write(c.db, dst).is_some();
    if dst_exists {
        if nx {
            return Reply::Integer(0);
        }
        e.dbs[c.db].delete(dst);
    }
    let Some((obj, ttl)) = e.dbs[c.db].take(src) else {
        return Reply::err(NO_SUCH_KEY);
    };
    e.dbs[c.db].insert(dst.to_vec(), obj);
    if let Some(when) = ttl {
        e.dbs[c.db].set_expire(dst, when);
    }
    e.notify("rename_from", c.db, src);
    e.notify("rename_to", c.db, dst);
    e.dirty(1);
    if nx {
        Reply::Integer(1)
    } else {
        Reply::ok()
    }
}

pub fn rename(e: &mut Engine, c: &Call) -> Reply {
    rename_generic(e, c, false)
}

pub fn renamenx(e: &mut Engine, c: &Call) -> Reply {
    rename_generic(e, c, true)
}

/// db.c `copyCommand()`.
pub fn copy(e: &mut Engine, c: &Call) -> Reply {
    let mut replace = false;
    let mut dst_db = c.db;
    let mut j = 3;
    while j < c.argc() {
        if is_opt(c.arg(j), "replace") {
            replace = true;
        } else if is_opt(c.arg(j), "db") && j < c.argc() - 1 {
            let id = match parse_i32(c.arg(j + 1)) {
                Ok(id) => id,
                Err(r) => return r,
            };
            match db_index(e, id) {
                Some(db) => dst_db = db,
                None => return Reply::err(OUT_OF_RANGE_DB),
            }
            j += 1;
        } else {
            return syntax_error();
        }
        j += 1;
    }
    let (src, dst) = (c.arg(1), c.arg(2));
    if dst_db == c.db && src == dst {
        return Reply::err(SAME_OBJECT);
    }
    let Some(obj) = e.lookup_read(c.db, src).map(|o| o.clone()) else {
        return Reply::Integer(0);
    };
    let ttl = e.dbs[c.db].expire_of(src);
    if e.lookup_write(dst_db, dst).is_some() {
        if !replace {
            return Reply::Integer(0);
        }
        e.dbs[dst_db].delete(dst);
    }
    // object.c dupStringObject(): a copy is never a shared integer.
    let mut copy = e.new_obj(obj.value);
    if let crate::object::Value::Str(crate::object::StrValue::Int { shared, .. }) = &mut copy.value {
        *shared = false;
    }
    e.dbs[dst_db].insert(dst.to_vec(), copy);
    if let Some(when) = ttl {
        e.dbs[dst_db].set_expire(dst, when);
    }
    e.notify("copy_to", dst_db, dst);
    e.dirty(1);
    Reply::Integer(1)
}

/// db.c `moveCommand()`.
pub fn move_(e: &mut Engine, c: &Call) -> Reply {
    let id = match parse_i32(c.arg(2)) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let Some(dst_db) = db_index(e, id) else {
        return Reply::err(OUT_OF_RANGE_DB);
    };
    if dst_db == c.db {
        return Reply::err(SAME_OBJECT);
    }
    let key = c.arg(1);
    if e.lookup_write(c.db, key).is_none() {
        return Reply::Integer(0);
    }
    if e.lookup_write(dst_db, key).is_some() {
        return Reply::Integer(0);
    }
    let Some((obj, ttl)) = e.dbs[c.db].take(key) else {
        return Reply::Integer(0);
    };
    e.dbs[dst_db].insert(key.to_vec(), obj);
    if let Some(when) = ttl {
        e.dbs[dst_db].set_expire(key, when);
    }
    e.notify("move_from", c.db, key);
    e.notify("move_to", dst_db, key);
    e.dirty(1);
    Reply::Integer(1)
}

pub fn touch(e: &mut Engine, c: &Call) -> Reply {
    let mut n = 0;
    for key in &c.argv[1..] {
        if e.lookup_read(c.db, key).is_some() {
            n += 1;
        }
    }
    Reply::Integer(n)
}

/// db.c `sortGetKeys()`: the key, and the destination of the last STORE that has an argument
/// after it — options are scanned skipping LIMIT's two arguments and GET's and BY's one
/// (`sortROGetKeys()`: the key alone).
pub(crate) fn sort_get_keys(args: &[Vec<u8>], readonly: bool) -> Vec<(usize, Vec<String>)> {
    let flags = |f: &[&str]| f.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut keys = vec![(1, flags(&["RO", "access"]))];
    if readonly {
        return keys;
    }
    let mut store = None;
    let mut i = 2;
    while i < args.len() {
        let a = &args[i];
        if is_opt(a, "limit") {
            i += 2;
        } else if is_opt(a, "get") || is_opt(a, "by") {
            i += 1;
        } else if is_opt(a, "store") && i + 1 < args.len() {
            store = Some(i + 1);
        }
        i += 1;
    }
    if let Some(pos) = store {
        keys.push((pos, flags(&["OW", "update"])));
    }
    keys
}

/// db.c `migrateGetKeys()` (MIGRATE's key specs are incomplete, so Redis asks this function
/// whenever its KEYS spec finds something): the key at 3 — or, after a KEYS option (COPY and
/// REPLACE skipped, AUTH's one argument and AUTH2's two), every argument after it, which needs
/// the key at 3 empty (else no keys at all). Each key read, written and deleted.
pub(crate) fn migrate_get_keys(args: &[Vec<u8>]) -> Vec<(usize, Vec<String>)> {
    let (mut first, mut num) = (3, 1);
    let mut i = 6;
    while args.len() > 6 && i < args.len() {
        let a = &args[i];
        if is_opt(a, "keys") {
            if args.get(3).is_some_and(|k| !k.is_empty()) {
                return vec![];
            }
            first = i + 1;
            num = args.len() - first;
            break;
        }
        if is_opt(a, "auth") {
            i += 1;
        } else if is_opt(a, "auth2") {
            i += 2;
        }
        i += 1;
    }
    let flags = || ["RW", "access", "delete"].iter().map(|s| s.to_string()).collect::<Vec<_>>();
    (first..first + num).filter(|&i| i < args.len()).map(|i| (i, flags())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_cursor_is_strtoul() {
        assert_eq!(parse_scan_cursor(b"0").ok(), Some(0));
        assert_eq!(parse_scan_cursor(b"007").ok(), Some(7));
        assert_eq!(parse_scan_cursor(b"+5").ok(), Some(5));
        assert_eq!(parse_scan_cursor(b"-1").ok(), Some(u64::MAX));
        assert_eq!(parse_scan_cursor(b"").ok(), Some(0));
        assert!(parse_scan_cursor(b" 1").is_err());
        assert!(parse_scan_cursor(b"1x").is_err());
        assert!(parse_scan_cursor(b"18446744073709551616").is_err());
        assert!(parse_scan_cursor(b"-").is_err());
    }

    #[test]
    fn getkeys_takes_the_last_store_with_an_argument() {
        let args = |s: &str| s.split(' ').map(|w| w.as_bytes().to_vec()).collect::<Vec<_>>();
        let pos = |k: Vec<(usize, Vec<String>)>| k.into_iter().map(|(p, _)| p).collect::<Vec<_>>();
        assert_eq!(pos(sort_get_keys(&args("SORT k BY x STORE d GET y LIMIT 0 1 STORE e"), false)), vec![1, 12]);
        assert_eq!(pos(sort_get_keys(&args("SORT k STORE"), false)), vec![1]);
        assert_eq!(pos(sort_get_keys(&args("SORT k GET store STORE d"), false)), vec![1, 5]);
        assert_eq!(pos(sort_get_keys(&args("SORT k STORE d"), true)), vec![1]);
    }
}
