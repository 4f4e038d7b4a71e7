//! sort.c: SORT and SORT_RO.
//!
//! Models `sortCommandGeneric()` — the SQL-like option parsing (LIMIT, ASC/DESC, ALPHA, BY,
//! GET, STORE; SORT_RO refuses STORE as a syntax error), the lookup of the key (a list, set or
//! sorted set; a missing key sorts as an empty list), LIMIT's clamping, the vector loaded in
//! the value's order (or, with `BY` a constant pattern, straight from a list's or sorted set's
//! own order, honouring DESC and LIMIT), the weights (`strtod` over the element or the
//! pattern's value, integer-encoded values taken as they are), `sortCompare()`, the sorts
//! (`pqsort()` when BY and LIMIT cut the range, else glibc's `qsort()` — ds/pqsort.rs) and the
//! output or STORE — and `lookupKeyByPattern()` (`#`, the first `*` replaced by the element,
//! `key->field` reading a hash field). db.c `sortGetKeys()` (COMMAND GETKEYS, ACL) is in db.rs.
//!
//! Redis's special cases kept: a sorted set is converted to a skiplist for good before it is
//! sorted (t_zset.c `zsetConvert()`, even by SORT_RO); a set sorted `BY nosort` is sorted ALPHA
//! anyway when the result is stored or the call comes from a script; ALPHA compares with
//! `strcoll()` (the C.UTF-8 locale's byte order, stopping at a NUL) unless STORE is given, when
//! it compares binary-safe; equal scores fall back to comparing the elements. STORE writes a
//! list (db.c `setKey()`: any old value and its TTL go; blocked clients are served; WATCHers
//! touched; event `sortstore`, dirty += length) or deletes the destination when the result is
//! empty (`del`). `strtod` never clears `errno`, so after an element that overflowed or
//! underflowed, a real server keeps failing every SORT that parses a string — until a client
//! connects or a command that resets `errno` runs (anything parsing a float with string2d or
//! string2ld: ZADD, ZINCRBY, INCRBYFLOAT, HINCRBYFLOAT, GEOADD and the GEO searches, WEIGHTS,
//! a memory CONFIG SET). That is modelled (`Engine::errno_erange`).
//!
//! Differences: the elements of a hashtable set and of a skiplist sorted set are loaded in our
//! dict's order, not Redis's hash order — which shows only where the sort can't tell elements
//! apart (ALPHA BY a pattern giving equal or missing values, or `BY nosort` on a set). Other
//! ways a real server's `errno` changes (a failed system call) are not modelled. The values GET
//! patterns fetch may not add up to more than `playground-max-alloc` (many GETs, or big values
//! fetched for many elements, could make a reply of gigabytes): past it the playground answers
//! an error, after the lookups made so far.
//!
//! ACL: a BY pattern with `*` and every GET need a user who may run the command and read every
//! key (acl.c `ACLUserCheckCmdWithUnrestrictedKeyAccess()`), else the option is refused.

use crate::command::call::Call;
use crate::command::{c_str, is_opt, parse_i64, syntax_error, wrongtype};
use crate::ds::pqsort::{pqsort, qsort};
use crate::engine::Engine;
use crate::events::Event;
use crate::object::{Hash, List, Set, Value, Zset};
use crate::reply::Reply;
use crate::util::string2ll;

// ---------------------------------------------------------------------------------------------
// errno
// ---------------------------------------------------------------------------------------------

/// Whether `errno` still holds the ERANGE a SORT left in it.
fn errno_is_erange(e: &Engine) -> bool {
    e.errno_erange == Some(e.stats.total_connections_received)
}

/// Called after every command while `errno` holds SORT's ERANGE: the commands that parse a
/// float with util.c `string2d()`/`string2ld()` (or config.c `memtoull()`) set `errno = 0`.
pub(crate) fn after_command(e: &mut Engine, name: &str, argv: &[Vec<u8>]) {
    let resets = match name {
        "zadd"
        | "zincrby"
        | "incrbyfloat"
        | "hincrbyfloat"
        | "geoadd"
        | "georadius"
        | "georadius_ro"
        | "georadiusbymember"
        | "georadiusbymember_ro"
        | "geosearch"
        | "geosearchstore" => true,
        "zunionstore" | "zinterstore" | "zunion" | "zinter" => argv.iter().any(|a| is_opt(a, "weights")),
        "config|set" => argv.iter().skip(2).step_by(2).any(|p| is_memory_param(p)),
        _ => false,
    };
    if resets {
        e.errno_erange = None;
    }
}

fn is_memory_param(name: &[u8]) -> bool {
    let lower = name.to_ascii_lowercase();
    crate::config::PARAMS.iter().any(|p| {
        (p.name.as_bytes() == lower.as_slice() || p.alias.is_some_and(|a| a.as_bytes() == lower.as_slice()))
            && matches!(p.kind, crate::config::Kind::Num { memory: true, .. })
    })
}

/// The length of the longest prefix of `s` that C `strtod` converts (0: none): a sign, then
/// `inf`/`infinity`, `nan`/`nan(chars)`, a hex float or a decimal one.
fn strtod_prefix(s: &[u8]) -> usize {
    let at = |i: usize| s.get(i).copied().unwrap_or(0).to_ascii_lowercase();
    let i = usize::from(matches!(at(0), b'+' | b'-'));
    let starts = |i: usize, w: &[u8]| (0..w.len()).all(|k| at(i + k) == w[k]);
    if starts(i, b"infinity") {
        return i + 8;
    }
    if starts(i, b"inf") {
        return i + 3;
    }
    if starts(i, b"nan") {
        let mut j = i + 3;
        if at(j) == b'(' {
            let mut k = j + 1;
            while at(k).is_ascii_alphanumeric() || at(k) == b'_' {
                k += 1;
            }
            if at(k) == b')' {
                j = k + 1;
            }
        }
        return j;
    }
    let hex = at(i) == b'0' && at(i + 1) == b'x';
    let digit = |c: u8| if hex { c.is_ascii_hexdigit() } else { c.is_ascii_digit() };
    let body = if hex { i + 2 } else { i };
    let mut j = body;
    let mut any = false;
    while digit(at(j)) {
        j += 1;
        any = true;
    }
    if at(j) == b'.' {
        j += 1;
        while digit(at(j)) {
            j += 1;
            any = true;
        }
    }
    if !any {
        // "0x" with no hex digits converts the "0" alone.
        return if hex { i + 1 } else { 0 };
    }
    let exp = if hex { b'p' } else { b'e' };
    if at(j) == exp {
        let mut k = j + 1;
        if matches!(at(k), b'+' | b'-') {
            k += 1;
        }
        if at(k).is_ascii_digit() {
            while at(k).is_ascii_digit() {
                k += 1;
            }
            j = k;
        }
    }
    j
}

/// C `strtod(s, &eptr)` as sortCommandGeneric() checks it: the whole C string must be used
/// (leading whitespace skipped, an empty string reads 0), no NaN, and `errno` not ERANGE —
/// set by this conversion (even when bytes follow the number) or left over from an earlier one.
fn weight(e: &mut Engine, b: &[u8]) -> (f64, bool) {
    let s = c_str(b);
    if s.is_empty() {
        return (0.0, !errno_is_erange(e));
    }
    let Some(start) = s.iter().position(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)) else {
        return (0.0, false);
    };
    let rest = &s[start..];
    let len = strtod_prefix(rest);
    let Some(parsed) = crate::ds::long_double::parse_c_float(&rest[..len]) else { return (0.0, false) };
    let (v, erange) = parsed.strtod_erange();
    if erange {
        e.errno_erange = Some(e.stats.total_connections_received);
    }
    (v, len == rest.len() && !errno_is_erange(e) && !v.is_nan())
}

// ---------------------------------------------------------------------------------------------
// Values and patterns
// ---------------------------------------------------------------------------------------------

/// Estimated bytes per reply entry (the `Reply` and its allocation), for the playground limit.
const REPLY_ENTRY_OVERHEAD: u64 = 48;

/// A string as SORT holds it: its bytes, and whether Redis has it as an integer-encoded
/// object (a listpack integer, an `int` string), which is used as is instead of `strtod`.
#[derive(Clone)]
struct Str {
    bytes: Vec<u8>,
    int: bool,
}

impl Str {
    fn plain(bytes: Vec<u8>) -> Str {
        Str { bytes, int: false }
    }
    /// A listpack entry: an integer when listpack.c stored it as one.
    fn listpack(bytes: &[u8]) -> Str {
        Str { bytes: bytes.to_vec(), int: string2ll(bytes).is_some() }
    }
}

/// `lookupKeyByPattern()`: `#` is the element itself; else the first `*` (of the pattern as a
/// C string) is replaced by the element and the key read — a string, or with `->field` a hash
/// field. `None` when there is no `*`, no such key, or the wrong type.
fn lookup_by_pattern(e: &mut Engine, db: usize, pattern: &[u8], subst: &Str) -> Option<Str> {
    let spat = c_str(pattern);
    if spat == b"#" {
        return Some(subst.clone());
    }
    let star = spat.iter().position(|&c| c == b'*')?;
    // `strstr(p+1, "->")` with something after it (as a C string); the field is the rest of
    // the whole argument.
    let arrow = spat[star + 1..].windows(2).position(|w| w == b"->").map(|i| star + 1 + i);
    let field = arrow.filter(|&f| f + 2 < spat.len()).map(|f| &pattern[f + 2..]);
    let postfix_end = match (field, arrow) {
        (Some(_), Some(f)) => f,
        _ => pattern.len(),
    };
    let mut key = pattern[..star].to_vec();
    key.extend_from_slice(&subst.bytes);
    key.extend_from_slice(&pattern[star + 1..postfix_end]);
    let obj = e.lookup_read(db, &key)?;
    match (field, &obj.value) {
        (Some(f), Value::Hash(Hash::Listpack(v))) => {
            v.iter().find(|(k, _)| k.as_slice() == f).map(|(_, x)| Str::listpack(x))
        }
        (Some(f), Value::Hash(Hash::Table(m))) => m.get(f).map(|x| Str::plain(x.clone())),
        (None, Value::Str(s)) => Some(Str { bytes: s.to_bytes(), int: s.encoding() == "int" }),
        _ => None,
    }
}

/// One entry of the vector (`redisSortObject`).
struct SortObj {
    obj: Str,
    score: f64,
    cmpobj: Option<Vec<u8>>,
}

/// compareStringObjects(): binary, shorter first on a common prefix.
fn cmp_binary(a: &[u8], b: &[u8]) -> i32 {
    a.cmp(b) as i32
}

/// strcoll() in the C.UTF-8 locale: unsigned bytes up to the first NUL of either.
fn cmp_coll(a: &[u8], b: &[u8]) -> i32 {
    c_str(a).cmp(c_str(b)) as i32
}

struct Order {
    desc: bool,
    alpha: bool,
    bypattern: bool,
    store: bool,
}

/// sort.c `sortCompare()`.
fn sort_compare(o: &Order, a: &SortObj, b: &SortObj) -> i32 {
    let cmp = if !o.alpha {
        if a.score > b.score {
            1
        } else if a.score < b.score {
            -1
        } else {
            cmp_binary(&a.obj.bytes, &b.obj.bytes)
        }
    } else if o.bypattern {
        match (&a.cmpobj, &b.cmpobj) {
            (None, None) => 0,
            (None, Some(_)) => -1,
            (Some(_), None) => 1,
            (Some(x), Some(y)) => {
                if o.store {
                    cmp_binary(x, y)
                } else {
                    cmp_coll(x, y)
                }
            }
        }
    } else if o.store {
        cmp_binary(&a.obj.bytes, &b.obj.bytes)
    } else {
        cmp_coll(&a.obj.bytes, &b.obj.bytes)
    };
    if o.desc {
        -cmp
    } else {
        cmp
    }
}

// ---------------------------------------------------------------------------------------------
// SORT, SORT_RO
// ---------------------------------------------------------------------------------------------

/// What the sorted key held, copied out (the value itself may be replaced by STORE).
enum Source {
    List(List),
    Set(Vec<Str>),
    /// Members in score order, and in dict order.
    Zset(Vec<Vec<u8>>, Vec<Vec<u8>>),
}

impl Source {
    fn len(&self) -> usize {
        match self {
            Source::List(l) => l.len(),
            Source::Set(s) => s.len(),
            Source::Zset(z, _) => z.len(),
        }
    }
}

/// Reads the key to sort: WRONGTYPE for other types; a sorted set is converted to a skiplist
/// first, for good (`zsetConvert(sortval, OBJ_ENCODING_SKIPLIST)`).
fn load_source(e: &mut Engine, db: usize, key: &[u8]) -> Result<Source, Reply> {
    let kind = match e.lookup_read(db, key) {
        None => return Ok(Source::List(List::new())),
        Some(o) => match &o.value {
            Value::List(_) => 0,
            Value::Set(_) => 1,
            Value::Zset(_) => 2,
            _ => return Err(wrongtype()),
        },
    };
    if kind == 2 {
        convert_zset(e, db, key);
    }
    Ok(match e.dbs[db].get(key).map(|o| &o.value) {
        Some(Value::List(l)) => Source::List(l.clone()),
        Some(Value::Set(Set::Intset(i))) => {
            Source::Set(i.iter().map(|v| Str::plain(v.to_string().into_bytes())).collect())
        }
        Some(Value::Set(Set::Table(t))) => Source::Set(t.iter().map(|m| Str::plain(m.clone())).collect()),
        Some(Value::Zset(z @ Zset::Skiplist { dict, .. })) => {
            Source::Zset(z.iter().map(|(m, _)| m.to_vec()).collect(), dict.keys().cloned().collect())
        }
        _ => Source::List(List::new()),
    })
}

fn convert_zset(e: &mut Engine, db: usize, key: &[u8]) {
    let Engine { dbs, rng, .. } = e;
    let Some(o) = dbs[db].get_mut(key) else { return };
    let Value::Zset(z) = &mut o.value else { return };
    let Zset::Listpack(v) = z else { return };
    let len = v.len();
    let mut level = || crate::ds::skiplist::random_level(|| crate::engine::uniform(rng));
    crate::zset::convert_to_skiplist(z, &mut level);
    if e.events.enabled() {
        let at_ms = e.now_ms();
        let key = crate::util::text(key);
        e.events.push(Event::ZsetConvert { at_ms, db, key, from: "listpack".into(), to: "skiplist".into(), len });
    }
}

/// sort.c `sortCommandGeneric()`.
fn sort_generic(e: &mut Engine, c: &Call, readonly: bool) -> Reply {
    let (mut desc, mut alpha, mut dontsort) = (false, false, false);
    let (mut limit_start, mut limit_count) = (0i64, -1i64);
    let mut sortby: Option<&[u8]> = None;
    let mut storekey: Option<&[u8]> = None;
    let mut gets: Vec<&[u8]> = Vec::new();
    // BY and GET patterns reach any key: only for a user who may read them all.
    let full_key_access = e.acl_all_keys_readable(c.client, c.cmd, c.argv);
    let mut j = 2;
    while j < c.argc() {
        let leftargs = c.argc() - j - 1;
        let a = c.arg(j);
        if is_opt(a, "asc") {
            desc = false;
        } else if is_opt(a, "desc") {
            desc = true;
        } else if is_opt(a, "alpha") {
            alpha = true;
        } else if is_opt(a, "limit") && leftargs >= 2 {
            match (parse_i64(c.arg(j + 1)), parse_i64(c.arg(j + 2))) {
                (Ok(s), Ok(n)) => (limit_start, limit_count) = (s, n),
                (Err(r), _) | (_, Err(r)) => return r,
            }
            j += 2;
        } else if !readonly && is_opt(a, "store") && leftargs >= 1 {
            storekey = Some(c.arg(j + 1));
            j += 1;
        } else if is_opt(a, "by") && leftargs >= 1 {
            let p = c.arg(j + 1);
            sortby = Some(p);
            // A pattern without `*` (as a C string) is constant: nothing to sort by.
            if !c_str(p).contains(&b'*') {
                dontsort = true;
            } else if !full_key_access {
                return Reply::err("ERR BY option of SORT denied due to insufficient ACL permissions.");
            }
            j += 1;
        } else if is_opt(a, "get") && leftargs >= 1 {
            if !full_key_access {
                return Reply::err("ERR GET option of SORT denied due to insufficient ACL permissions.");
            }
            gets.push(c.arg(j + 1));
            j += 1;
        } else {
            return syntax_error();
        }
        j += 1;
    }
    let source = match load_source(e, c.db, c.arg(1)) {
        Ok(s) => s,
        Err(r) => return r,
    };
    // A set has no order of its own: sorted ALPHA when stored or in a script.
    if dontsort && matches!(source, Source::Set(_)) && (storekey.is_some() || e.in_script) {
        dontsort = false;
        alpha = true;
        sortby = None;
    }
    let mut vectorlen = source.len() as i64;
    let mut start = limit_start.max(0).min(vectorlen);
    let limit_count = limit_count.max(-1).min(vectorlen);
    let mut end = if limit_count < 0 { vectorlen - 1 } else { start + limit_count - 1 };
    if start >= vectorlen {
        start = vectorlen - 1;
        end = vectorlen - 2;
    }
    if end >= vectorlen {
        end = vectorlen - 1;
    }
    let ranged = matches!(source, Source::List(_) | Source::Zset(..)) && dontsort;
    if ranged && (start != 0 || end != vectorlen - 1) {
        vectorlen = end - start + 1;
    }
    // Load the vector.
    let objs: Vec<Str> = match &source {
        Source::List(l) if dontsort => {
            let (s, n) = (start as usize, vectorlen.max(0) as usize);
            let out: Vec<Str> = if end < start {
                Vec::new()
            } else if desc {
                l.iter().rev().skip(s).take(n).map(|x| Str::listpack(x)).collect()
            } else {
                l.iter().skip(s).take(n).map(|x| Str::listpack(x)).collect()
            };
            if end >= start {
                end -= start;
                start = 0;
            }
            out
        }
        Source::List(l) => l.iter().map(|x| Str::listpack(x)).collect(),
        Source::Set(s) => s.clone(),
        Source::Zset(ordered, _) if dontsort => {
            let (s, n) = (start.max(0) as usize, vectorlen.max(0) as usize);
            let out: Vec<Str> = if desc {
                ordered.iter().rev().skip(s).take(n).map(|m| Str::plain(m.clone())).collect()
            } else {
                ordered.iter().skip(s).take(n).map(|m| Str::plain(m.clone())).collect()
            };
            end -= start;
            start = 0;
            out
        }
        Source::Zset(_, dict) => dict.iter().map(|m| Str::plain(m.clone())).collect(),
    };
    let mut vector: Vec<SortObj> = objs.into_iter().map(|obj| SortObj { obj, score: 0.0, cmpobj: None }).collect();
    let mut conversion_error = false;
    if !dontsort {
        for v in vector.iter_mut() {
            let byval = match sortby {
                Some(p) => match lookup_by_pattern(e, c.db, p, &v.obj) {
                    Some(b) => b,
                    None => continue,
                },
                None => v.obj.clone(),
            };
            if alpha {
                if sortby.is_some() {
                    v.cmpobj = Some(byval.bytes);
                }
            } else if byval.int {
                v.score = string2ll(&byval.bytes).unwrap_or(0) as f64;
            } else {
                let (score, ok) = weight(e, &byval.bytes);
                v.score = score;
                if !ok {
                    conversion_error = true;
                }
            }
        }
        // The sorts move indexes into the vector: the same permutation, cheaper moves.
        let order = Order { desc, alpha, bypattern: sortby.is_some(), store: storekey.is_some() };
        let cmp = |a: &usize, b: &usize| sort_compare(&order, &vector[*a], &vector[*b]);
        let mut perm: Vec<usize> = (0..vector.len()).collect();
        let n = vector.len() as i64;
        if end < start {
            // Nothing is output; how the vector ends up ordered can't be seen.
        } else if sortby.is_some() && (start != 0 || end != n - 1) {
            pqsort(&mut perm, &cmp, start as usize, end as usize);
        } else {
            qsort(&mut perm, &cmp);
        }
        let mut slots: Vec<Option<SortObj>> = vector.into_iter().map(Some).collect();
        vector = perm.into_iter().filter_map(|i| slots[i].take()).collect();
    }
    // Output, or STORE.
    let span = if end >= start { (end - start + 1) as usize } else { 0 };
    let outputlen = if gets.is_empty() { span } else { gets.len() * span };
    if conversion_error {
        return Reply::err("ERR One or more scores can't be converted into double");
    }
    let output: &[SortObj] = if span > 0 { &vector[start as usize..=end as usize] } else { &[] };
    // The values GET patterns fetch: each may repeat a big value many times over.
    let limit = e.config.int("playground-max-alloc").max(0) as u64;
    let mut fetched = 0u64;
    let mut fetch = |e: &mut Engine, g: &[u8], v: &SortObj| -> Result<Option<Vec<u8>>, Reply> {
        let got = lookup_by_pattern(e, c.db, g, &v.obj).map(|s| s.bytes);
        fetched += REPLY_ENTRY_OVERHEAD + got.as_ref().map_or(0, |b| b.len() as u64);
        if fetched > limit {
            return Err(Reply::err(format!(
                "ERR playground limit: the values GET fetches would take more than {limit} bytes (playground-max-alloc; Redis sets no limit here)"
            )));
        }
        Ok(got)
    };
    match storekey {
        None => {
            let mut out = Vec::with_capacity(outputlen.min(1 << 20));
            for v in output {
                if gets.is_empty() {
                    out.push(Reply::Bulk(v.obj.bytes.clone()));
                }
                for g in &gets {
                    out.push(match fetch(e, g, v) {
                        Ok(Some(b)) => Reply::Bulk(b),
                        Ok(None) => Reply::Nil,
                        Err(r) => return r,
                    });
                }
            }
            Reply::Array(out)
        }
        Some(dst) => {
            let mut list = List::new();
            for v in output {
                if gets.is_empty() {
                    list.push_back(v.obj.bytes.clone());
                }
                for g in &gets {
                    match fetch(e, g, v) {
                        Ok(b) => list.push_back(b.unwrap_or_default()),
                        Err(r) => return r,
                    }
                }
            }
            if outputlen > 0 {
                e.lookup_write(c.db, dst);
                let obj = e.new_obj(Value::List(list));
                e.dbs[c.db].set_key(dst.to_vec(), obj, false);
                e.notify("sortstore", c.db, dst);
                e.dirty(outputlen as u64);
            } else if e.dbs[c.db].delete(dst) {
                e.notify("del", c.db, dst);
                e.dirty(1);
            }
            Reply::Integer(outputlen as i64)
        }
    }
}

pub fn sort(e: &mut Engine, c: &Call) -> Reply {
    sort_generic(e, c, false)
}

pub fn sort_ro(e: &mut Engine, c: &Call) -> Reply {
    sort_generic(e, c, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtod_converts_the_longest_prefix() {
        for (s, n) in [
            ("1.5", 3),
            ("1e400x", 5),
            ("1e", 1),
            ("1e+", 1),
            ("-.5e-3z", 6),
            (".", 0),
            ("x", 0),
            ("0x", 1),
            ("0x1p-3", 6),
            ("0x.8p", 4),
            ("0X1P3", 5),
            ("infinity", 8),
            ("-Infinit", 4),
            ("nan(abc)x", 8),
            ("nan(ab", 3),
            ("5.", 2),
            ("+", 0),
        ] {
            assert_eq!(strtod_prefix(s.as_bytes()), n, "{s}");
        }
    }
}
