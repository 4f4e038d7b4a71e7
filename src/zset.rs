//! The sorted-set type: models t_zset.c's encoding-independent API — `zsetAdd()`,
//! `zsetRemoveFromSkiplist()`/`zzlDelete()`, `zsetConvert()`, `zsetScore()`, `zsetRank()`,
//! the listpack `zzl*` walkers and `zsetConvertToListpackIfNeeded()` — over the two encodings
//! of `object::Zset`.
//!
//! A `listpack` zset is a vector of (member, score) sorted by score then member bytes, kept
//! while it has at most `zset-max-listpack-entries` members of at most
//! `zset-max-listpack-value` bytes; the insert that would break either limit converts it to a
//! `skiplist` (ds/skiplist.rs plus a member → score map) first, and it never converts back,
//! except for the destinations of the *STORE commands. Skiplist levels come from the engine's
//! seeded RNG. Differences: the listpack is a `Vec`, not a byte blob (`lpSafeToAdd`'s 1 GB
//! guard can't trigger below our allocation limit); we report what happened (insert level and
//! rank, conversions) so the engine can emit events for the sorted-set view.

use crate::ds::map::Map;
use crate::ds::skiplist::{LexRange, PathStep, ScoreRange, Skiplist, NIL};
use crate::object::Zset;

/// The encoding limits, read from the config when a command runs.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_entries: usize,
    pub max_value: usize,
}

/// zsetAdd's input flags.
#[derive(Debug, Clone, Copy, Default)]
pub struct AddFlags {
    pub incr: bool,
    pub nx: bool,
    pub xx: bool,
    pub gt: bool,
    pub lt: bool,
}

/// What zsetAdd did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AddOutcome {
    Added {
        score: f64,
    },
    Updated {
        score: f64,
    },
    /// Present with the same score (or INCR by 0): processed, nothing changed.
    Unchanged {
        score: f64,
    },
    /// Blocked by NX/XX/GT/LT.
    Nop,
    /// The resulting score would be NaN.
    Nan,
}

/// Side effects worth showing: where a member landed, and encoding conversions.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Converted { from: &'static str, to: &'static str, len: usize },
    Inserted { member: Vec<u8>, score: f64, rank: u64, level: usize },
}

/// What a listpack stores for a score: t_zset.c `zzlInsertAt()` writes integral scores as
/// integers (`double2ll`), so -0 comes back as 0.
fn lp_score(score: f64) -> f64 {
    if score == 0.0 {
        0.0
    } else {
        score
    }
}

fn lp_before(a: (&[u8], f64), score: f64, ele: &[u8]) -> bool {
    a.1 < score || (a.1 == score && a.0 < ele)
}

/// Position where (score, ele) goes in a listpack vector (t_zset.c `zzlInsert()`).
fn lp_insert_pos(v: &[(Vec<u8>, f64)], score: f64, ele: &[u8]) -> usize {
    v.partition_point(|(m, s)| lp_before((m, *s), score, ele))
}

/// A new, empty sorted set of the right encoding for its first member (t_zset.c
/// `zaddGenericCommand`: skiplist when the listpack limit is 0 or the member is too long).
pub fn create(limits: Limits, first_member_len: usize) -> Zset {
    if limits.max_entries == 0 || limits.max_value < first_member_len {
        Zset::Skiplist { dict: Box::default(), zsl: Skiplist::new() }
    } else {
        Zset::Listpack(Vec::new())
    }
}

/// t_zset.c `zsetConvert()` to skiplist. `level` draws one skiplist level per member.
pub fn convert_to_skiplist(z: &mut Zset, level: &mut dyn FnMut() -> usize) {
    if let Zset::Listpack(v) = z {
        let mut dict = Map::default();
        let mut zsl = Skiplist::new();
        for (m, s) in v.drain(..) {
            zsl.insert(s, m.clone(), level());
            dict.insert(m, s);
        }
        *z = Zset::Skiplist { dict: Box::new(dict), zsl };
    }
}

/// t_zset.c `zsetConvertToListpackIfNeeded()` (used for *STORE destinations).
pub fn shrink_if_possible(z: &mut Zset, limits: Limits) -> bool {
    if let Zset::Skiplist { zsl, .. } = z {
        let maxlen = zsl.iter().map(|(m, _)| m.len()).max().unwrap_or(0);
        if zsl.len() <= limits.max_entries && maxlen <= limits.max_value {
            let v: Vec<(Vec<u8>, f64)> = zsl.iter().map(|(m, s)| (m.to_vec(), lp_score(s))).collect();
            *z = Zset::Listpack(v);
            return true;
        }
    }
    false
}

pub fn score(z: &Zset, member: &[u8]) -> Option<f64> {
    match z {
        Zset::Listpack(v) => v.iter().find(|(m, _)| m == member).map(|(_, s)| *s),
        Zset::Skiplist { dict, .. } => dict.get(member).copied(),
    }
}

/// t_zset.c `zsetAdd()`.
pub fn add(
    z: &mut Zset,
    mut score: f64,
    ele: &[u8],
    f: AddFlags,
    limits: Limits,
    level: &mut dyn FnMut() -> usize,
    changes: &mut Vec<Change>,
) -> AddOutcome {
    if score.is_nan() {
        return AddOutcome::Nan;
    }
    if let Zset::Listpack(v) = z {
        if let Some(pos) = v.iter().position(|(m, _)| m == ele) {
            let cur = v[pos].1;
            if f.nx {
                return AddOutcome::Nop;
            }
            if f.incr {
                score += cur;
                if score.is_nan() {
                    return AddOutcome::Nan;
                }
            }
            if (f.lt && score >= cur) || (f.gt && score <= cur) {
                return AddOutcome::Nop;
            }
            if score != cur {
                let (m, _) = v.remove(pos);
                let at = lp_insert_pos(v, score, &m);
                changes.push(Change::Inserted { member: m.clone(), score, rank: at as u64, level: 0 });
                v.insert(at, (m, lp_score(score)));
                return AddOutcome::Updated { score };
            }
            return AddOutcome::Unchanged { score };
        } else if f.xx {
            return AddOutcome::Nop;
        } else if v.len() + 1 > limits.max_entries || ele.len() > limits.max_value {
            let len = v.len();
            convert_to_skiplist(z, level);
            changes.push(Change::Converted { from: "listpack", to: "skiplist", len });
        } else {
            let at = lp_insert_pos(v, score, ele);
            v.insert(at, (ele.to_vec(), lp_score(score)));
            changes.push(Change::Inserted { member: ele.to_vec(), score, rank: at as u64, level: 0 });
            return AddOutcome::Added { score };
        }
    }
    let Zset::Skiplist { dict, zsl } = z else { return AddOutcome::Nop };
    if let Some(&cur) = dict.get(ele) {
        if f.nx {
            return AddOutcome::Nop;
        }
        if f.incr {
            score += cur;
            if score.is_nan() {
                return AddOutcome::Nan;
            }
        }
        if (f.lt && score >= cur) || (f.gt && score <= cur) {
            return AddOutcome::Nop;
        }
        if score != cur {
            let mut moved_level = None;
            zsl.update_score(cur, ele, score, || {
                let l = level();
                moved_level = Some(l);
                l
            });
            dict.insert(ele.to_vec(), score);
            let rank = zsl.rank(score, ele, None).saturating_sub(1);
            let level = moved_level.unwrap_or_else(|| {
                let n = zsl.by_rank(rank + 1);
                if n == NIL {
                    0
                } else {
                    zsl.node(n).levels.len()
                }
            });
            changes.push(Change::Inserted { member: ele.to_vec(), score, rank, level });
            return AddOutcome::Updated { score };
        }
        AddOutcome::Unchanged { score }
    } else if f.xx {
        AddOutcome::Nop
    } else {
        let l = level();
        let (_, rank) = zsl.insert_ranked(score, ele.to_vec(), l);
        dict.insert(ele.to_vec(), score);
        changes.push(Change::Inserted { member: ele.to_vec(), score, rank: rank - 1, level: l });
        AddOutcome::Added { score }
    }
}

/// Removes a member; true if it was there.
pub fn remove(z: &mut Zset, ele: &[u8]) -> bool {
    match z {
        Zset::Listpack(v) => match v.iter().position(|(m, _)| m == ele) {
            Some(pos) => {
                v.remove(pos);
                true
            }
            None => false,
        },
        Zset::Skiplist { dict, zsl } => match dict.swap_remove(ele) {
            Some(s) => zsl.delete(s, ele),
            None => false,
        },
    }
}

/// 0-based rank (ascending, or descending with `rev`), recording the skiplist search path.
pub fn rank(z: &Zset, ele: &[u8], rev: bool, path: Option<&mut Vec<PathStep>>) -> Option<u64> {
    let len = z.len() as u64;
    let r = match z {
        Zset::Listpack(v) => v.iter().position(|(m, _)| m == ele).map(|p| p as u64)?,
        Zset::Skiplist { dict, zsl } => {
            let s = *dict.get(ele)?;
            zsl.rank(s, ele, path).checked_sub(1)?
        }
    };
    Some(if rev { len - 1 - r } else { r })
}

/// The (member, score) at 0-based ascending rank.
pub fn at_rank(z: &Zset, r: u64) -> Option<(&[u8], f64)> {
    match z {
        Zset::Listpack(v) => v.get(r as usize).map(|(m, s)| (m.as_slice(), *s)),
        Zset::Skiplist { zsl, .. } => {
            let n = zsl.by_rank(r + 1);
            (n != NIL).then(|| {
                let node = zsl.node(n);
                (node.ele.as_slice(), node.score)
            })
        }
    }
}

/// Members in ascending ranks `start..=end` (already sanitized), reversed with `rev`
/// (then `start`/`end` count from the top).
pub fn range_by_rank(z: &Zset, start: u64, end: u64, rev: bool) -> Vec<(Vec<u8>, f64)> {
    let len = z.len() as u64;
    let mut out = Vec::with_capacity((end - start + 1) as usize);
    match z {
        Zset::Listpack(v) => {
            for r in start..=end {
                let i = if rev { len - 1 - r } else { r };
                let (m, s) = &v[i as usize];
                out.push((m.clone(), *s));
            }
        }
        Zset::Skiplist { zsl, .. } => {
            let first_rank = if rev { len - start } else { start + 1 };
            let mut n = zsl.by_rank(first_rank);
            for _ in start..=end {
                if n == NIL {
                    break;
                }
                let node = zsl.node(n);
                out.push((node.ele.clone(), node.score));
                n = if rev { zsl.prev(n) } else { zsl.next(n) };
            }
        }
    }
    out
}

/// Members whose score is in `r`, ascending (or descending), skipping `offset` and returning at
/// most `limit` (negative = all) — genericZrangebyscoreCommand's walk. Negative offsets
/// return nothing, as Redis's `while (offset--)` skips everything.
pub fn range_by_score(
    z: &Zset,
    r: &ScoreRange,
    rev: bool,
    offset: i64,
    limit: i64,
    path: Option<&mut Vec<PathStep>>,
) -> Vec<(Vec<u8>, f64)> {
    let mut out = Vec::new();
    if offset < 0 || limit == 0 {
        return out;
    }
    let mut skip = offset as u64;
    let mut remaining = if limit < 0 { u64::MAX } else { limit as u64 };
    match z {
        Zset::Listpack(v) => {
            let iter: Box<dyn Iterator<Item = &(Vec<u8>, f64)>> =
                if rev { Box::new(v.iter().rev()) } else { Box::new(v.iter()) };
            for (m, s) in iter {
                let in_range = r.contains(*s);
                if !in_range {
                    // Before the range keep looking; past it, stop.
                    if (!rev && !r.lte_max(*s)) || (rev && !r.gte_min(*s)) {
                        break;
                    }
                    continue;
                }
                if skip > 0 {
                    skip -= 1;
                    continue;
                }
                if remaining == 0 {
                    break;
                }
                remaining -= 1;
                out.push((m.clone(), *s));
            }
        }
        Zset::Skiplist { zsl, .. } => {
            let mut n = if rev { zsl.last_in_range(r) } else { zsl.first_in_range(r, path) };
            while n != NIL && skip > 0 {
                let node = zsl.node(n);
                if (!rev && !r.lte_max(node.score)) || (rev && !r.gte_min(node.score)) {
                    return out;
                }
                skip -= 1;
                n = if rev { zsl.prev(n) } else { zsl.next(n) };
            }
            while n != NIL && remaining > 0 {
                let node = zsl.node(n);
                if (!rev && !r.lte_max(node.score)) || (rev && !r.gte_min(node.score)) {
                    break;
                }
                out.push((node.ele.clone(), node.score));
                remaining -= 1;
                n = if rev { zsl.prev(n) } else { zsl.next(n) };
            }
        }
    }
    out
}

/// t_zset.c `zzlIsInLexRange()`: the range against the listpack's first and last members (in
/// storage order — lex ranges assume equal scores; with mixed scores Redis's answer follows
/// this storage-order logic, and so does ours).
fn lp_in_lex_range(v: &[(Vec<u8>, f64)], r: &LexRange) -> bool {
    match (v.first(), v.last()) {
        (Some(first), Some(last)) => !r.is_empty() && r.gte_min(&last.0) && r.lte_max(&first.0),
        _ => false,
    }
}

/// t_zset.c `zzlFirstInLexRange()`: the first member not below the minimum, if it is not
/// above the maximum.
fn lp_first_in_lex(v: &[(Vec<u8>, f64)], r: &LexRange) -> Option<usize> {
    if !lp_in_lex_range(v, r) {
        return None;
    }
    let i = v.iter().position(|(m, _)| r.gte_min(m))?;
    r.lte_max(&v[i].0).then_some(i)
}

/// t_zset.c `zzlLastInLexRange()`.
fn lp_last_in_lex(v: &[(Vec<u8>, f64)], r: &LexRange) -> Option<usize> {
    if !lp_in_lex_range(v, r) {
        return None;
    }
    let i = v.iter().rposition(|(m, _)| r.lte_max(m))?;
    r.gte_min(&v[i].0).then_some(i)
}

/// As `range_by_score` for a lexicographic range (genericZrangebylexCommand).
pub fn range_by_lex(z: &Zset, r: &LexRange, rev: bool, offset: i64, limit: i64) -> Vec<(Vec<u8>, f64)> {
    let mut out = Vec::new();
    if offset < 0 || limit == 0 || r.is_empty() {
        return out;
    }
    let mut skip = offset as u64;
    let mut remaining = if limit < 0 { u64::MAX } else { limit as u64 };
    match z {
        Zset::Listpack(v) => {
            let start = if rev { lp_last_in_lex(v, r) } else { lp_first_in_lex(v, r) };
            let Some(start) = start else { return out };
            let iter: Box<dyn Iterator<Item = &(Vec<u8>, f64)>> =
                if rev { Box::new(v[..=start].iter().rev()) } else { Box::new(v[start..].iter()) };
            for (m, s) in iter {
                if (!rev && !r.lte_max(m)) || (rev && !r.gte_min(m)) {
                    break;
                }
                if skip > 0 {
                    skip -= 1;
                    continue;
                }
                if remaining == 0 {
                    break;
                }
                remaining -= 1;
                out.push((m.clone(), *s));
            }
        }
        Zset::Skiplist { zsl, .. } => {
            let mut n = if rev { zsl.last_in_lex_range(r) } else { zsl.first_in_lex_range(r) };
            while n != NIL && skip > 0 {
                let node = zsl.node(n);
                if (!rev && !r.lte_max(&node.ele)) || (rev && !r.gte_min(&node.ele)) {
                    return out;
                }
                skip -= 1;
                n = if rev { zsl.prev(n) } else { zsl.next(n) };
            }
            while n != NIL && remaining > 0 {
                let node = zsl.node(n);
                if (!rev && !r.lte_max(&node.ele)) || (rev && !r.gte_min(&node.ele)) {
                    break;
                }
                out.push((node.ele.clone(), node.score));
                remaining -= 1;
                n = if rev { zsl.prev(n) } else { zsl.next(n) };
            }
        }
    }
    out
}

/// Number of members with a score in `r` (ZCOUNT).
pub fn count_in_range(z: &Zset, r: &ScoreRange) -> u64 {
    match z {
        Zset::Listpack(v) => v.iter().filter(|(_, s)| r.contains(*s)).count() as u64,
        Zset::Skiplist { zsl, .. } => {
            let first = zsl.first_in_range(r, None);
            if first == NIL {
                return 0;
            }
            let last = zsl.last_in_range(r);
            let (f, l) = (zsl.node(first), zsl.node(last));
            zsl.rank(l.score, &l.ele, None) - zsl.rank(f.score, &f.ele, None) + 1
        }
    }
}

/// Number of members in a lexicographic range (ZLEXCOUNT), as Redis computes it.
pub fn count_in_lex_range(z: &Zset, r: &LexRange) -> i64 {
    if r.is_empty() {
        return 0;
    }
    match z {
        Zset::Listpack(v) => match lp_first_in_lex(v, r) {
            Some(i) => v[i..].iter().take_while(|(m, _)| r.lte_max(m)).count() as i64,
            None => 0,
        },
        Zset::Skiplist { zsl, .. } => {
            // zlexcountCommand: length - (rank(first) - 1), minus length - rank(last); with mixed
            // scores this can go negative, and Redis prints what the unsigned sum wraps to.
            let first = zsl.first_in_lex_range(r);
            if first == NIL {
                return 0;
            }
            let f = zsl.node(first);
            let len = zsl.len() as i64;
            let mut count = len - (zsl.rank(f.score, &f.ele, None) as i64 - 1);
            let last = zsl.last_in_lex_range(r);
            if last != NIL {
                let l = zsl.node(last);
                count -= len - zsl.rank(l.score, &l.ele, None) as i64;
            }
            count
        }
    }
}

/// Removes the members in ascending ranks `start..=end` (sanitized), returning them.
pub fn remove_range_by_rank(z: &mut Zset, start: u64, end: u64) -> Vec<(Vec<u8>, f64)> {
    match z {
        Zset::Listpack(v) => v.drain(start as usize..=end as usize).collect(),
        Zset::Skiplist { dict, zsl } => {
            let removed = zsl.delete_range_by_rank(start + 1, end + 1);
            for (m, _) in &removed {
                dict.swap_remove(m);
            }
            removed
        }
    }
}

/// t_zset.c `zzlDeleteRangeByLex()` / `zslDeleteRangeByLex()`: from the first member in the
/// range (found as Redis finds it), delete while members are not above the maximum.
pub fn remove_range_by_lex(z: &mut Zset, r: &LexRange) -> Vec<(Vec<u8>, f64)> {
    match z {
        Zset::Listpack(v) => match lp_first_in_lex(v, r) {
            Some(i) => {
                let n = v[i..].iter().take_while(|(m, _)| r.lte_max(m)).count();
                v.drain(i..i + n).collect()
            }
            None => vec![],
        },
        Zset::Skiplist { dict, zsl } => {
            if !zsl.in_lex_range(r) {
                return vec![];
            }
            let removed = zsl.delete_range_by_lex(r);
            for (m, _) in &removed {
                dict.swap_remove(m);
            }
            removed
        }
    }
}

/// The member bytes at each position of the listpack or skiplist, for removal by predicate.
pub fn remove_where(z: &mut Zset, pred: impl Fn(&[u8], f64) -> bool) -> Vec<(Vec<u8>, f64)> {
    let victims: Vec<(Vec<u8>, f64)> = z.iter().filter(|(m, s)| pred(m, *s)).map(|(m, s)| (m.to_vec(), s)).collect();
    for (m, _) in &victims {
        remove(z, m);
    }
    victims
}

/// util.h `double2ll()`: an integral double within ±LLONG_MAX/2 as a long long (-0 gives 0).
pub fn double2ll(d: f64) -> Option<i64> {
    let bound = (i64::MAX / 2) as f64;
    if d < -bound || d > bound {
        return None;
    }
    let ll = d as i64;
    (ll as f64 == d).then_some(ll)
}

/// util.c `d2string()`: how a score is written into a listpack and shown by ZSCAN — integers
/// that `double2ll()` takes as such (so 1e17 is "100000000000000000" but 5e18 is "5e+18"),
/// others `%.17g`.
pub fn d2string(d: f64) -> String {
    if d.is_nan() {
        "nan".into()
    } else if d.is_infinite() {
        if d > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else if d == 0.0 {
        if d.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        }
    } else if let Some(ll) = double2ll(d) {
        ll.to_string()
    } else {
        crate::util::fmt_g(d, 17)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits { max_entries: 3, max_value: 4 };

    #[test]
    fn converts_on_the_insert_that_breaks_a_limit() {
        let mut z = create(LIMITS, 1);
        let mut ch = Vec::new();
        let mut lvl = || 1;
        for (s, m) in [(3.0, "c"), (1.0, "a"), (2.0, "b")] {
            assert!(matches!(
                add(&mut z, s, m.as_bytes(), AddFlags::default(), LIMITS, &mut lvl, &mut ch),
                AddOutcome::Added { .. }
            ));
        }
        assert!(matches!(z, Zset::Listpack(_)));
        add(&mut z, 4.0, b"d", AddFlags::default(), LIMITS, &mut lvl, &mut ch);
        assert!(matches!(z, Zset::Skiplist { .. }));
        assert!(ch.iter().any(|c| matches!(c, Change::Converted { len: 3, .. })));
        let order: Vec<&[u8]> = z.iter().map(|(m, _)| m).collect();
        assert_eq!(order, vec![&b"a"[..], b"b", b"c", b"d"]);
    }

    #[test]
    fn flags_follow_zsetadd() {
        let mut z = create(LIMITS, 1);
        let mut ch = Vec::new();
        let mut lvl = || 1;
        add(&mut z, 5.0, b"a", AddFlags::default(), LIMITS, &mut lvl, &mut ch);
        let gt = AddFlags { gt: true, ..Default::default() };
        assert_eq!(add(&mut z, 4.0, b"a", gt, LIMITS, &mut lvl, &mut ch), AddOutcome::Nop);
        assert!(matches!(add(&mut z, 1.0, b"new", gt, LIMITS, &mut lvl, &mut ch), AddOutcome::Added { .. }));
        let incr = AddFlags { incr: true, ..Default::default() };
        assert_eq!(
            add(&mut z, f64::INFINITY, b"a", incr, LIMITS, &mut lvl, &mut ch),
            AddOutcome::Updated { score: f64::INFINITY }
        );
        assert_eq!(add(&mut z, f64::NEG_INFINITY, b"a", incr, LIMITS, &mut lvl, &mut ch), AddOutcome::Nan);
    }

    #[test]
    fn d2string_prefers_integers() {
        assert_eq!(d2string(1e17), "100000000000000000");
        assert_eq!(d2string(1.5), "1.5");
        assert_eq!(d2string(-0.0), "-0");
        assert_eq!(d2string(0.1), "0.10000000000000001");
        // Recorded from redis-server 7.0.15 (ZSCAN of a listpack zset).
        assert_eq!(d2string(4611686018427387904.0), "4611686018427387904");
        assert_eq!(d2string(5e18), "5e+18");
        assert_eq!(d2string(-6e18), "-6e+18");
    }
}
