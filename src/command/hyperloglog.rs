//! hyperloglog.c's commands: PFADD, PFCOUNT, PFMERGE, PFDEBUG and PFSELFTEST, over the
//! representation in src/ds/hll.rs.
//!
//! Models `pfaddCommand()`, `pfcountCommand()` (one key: the cached cardinality in the
//! header, recomputed and stored when stale — a write Redis propagates, so it counts as dirty
//! and touches WATCHers, without a keyspace event; several keys: the union, read-only),
//! `pfmergeCommand()` (the destination is among the sources it validates, and becomes dense
//! when any source is), `pfdebugCommand()` (GETREG, DECODE, ENCODING, TODENSE; GETREG and
//! TODENSE convert a sparse value for good), `pfselftestCommand()` and `isHLLObjectOrReply()`.
//! An HLL is a plain string: created `raw` by PFADD/PFMERGE, turned `raw` by any of these
//! commands (db.c `dbUnshareStringValue()`), its sds capacity modelled as the sparse form's
//! `sdsMakeRoomFor(o->ptr,3)` grows it (memory.rs). Events: `pfadd` (PFADD when something
//! changed, PFMERGE always).
//!
//! Differences: PFSELFTEST draws its random registers and element seed from the engine's
//! seeded RNG instead of `rand()`, so it checks the same things on other numbers.

use crate::command::call::Call;
use crate::command::{c_str, is_opt, wrongtype};
use crate::ds::hll::{self, DENSE, HDR_SIZE, REGISTERS, SPARSE};
use crate::engine::Engine;
use crate::object::{StrValue, Value};
use crate::reply::Reply;

const NOT_HLL: &str = "WRONGTYPE Key is not a valid HyperLogLog string value.";
const INVALID_HLL: &str = "INVALIDOBJ Corrupted HLL object detected";

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// `isHLLObjectOrReply()`: a string (not integer-encoded) with a valid header.
fn check_hll(v: &Value) -> Result<(), Reply> {
    match v {
        Value::Str(StrValue::Embstr(b)) if hll::is_valid_header(b) => Ok(()),
        Value::Str(StrValue::Raw(b, _)) if hll::is_valid_header(b) => Ok(()),
        Value::Str(_) => Err(Reply::err(NOT_HLL)),
        _ => Err(wrongtype()),
    }
}

/// The HLL's bytes and sds capacity after `dbUnshareStringValue()` (an embstr becomes raw).
fn hll_mut<'a>(e: &'a mut Engine, db: usize, key: &[u8]) -> Option<(&'a mut Vec<u8>, &'a mut usize)> {
    let o = e.dbs[db].get_mut(key)?;
    let Value::Str(s) = &mut o.value else { return None };
    if !matches!(s, StrValue::Raw(..)) {
        *s = StrValue::Raw(s.to_bytes(), 0);
    }
    match s {
        StrValue::Raw(b, room) => Some((b, room)),
        _ => None,
    }
}

/// `hllSparseSet()`/`hllAdd()` with the sds capacity kept: `sdsMakeRoomFor(3)` before a sparse
/// update, and a fresh exact sds after the promotion to dense.
fn sparse_aware<T>(
    bytes: &mut Vec<u8>,
    room: &mut usize,
    f: impl FnOnce(&mut Vec<u8>, &mut dyn FnMut(usize)) -> T,
) -> T {
    let was_sparse = hll::encoding(bytes) == SPARSE;
    let mut grow = |len: usize| *room = crate::memory::sds_make_room_for(len, *room, len + 3);
    let out = f(bytes, &mut grow);
    if was_sparse && hll::encoding(bytes) == DENSE {
        *room = 0;
    }
    out
}

fn sparse_max_bytes(e: &Engine) -> usize {
    e.config.int("hll-sparse-max-bytes").max(0) as usize
}

/// `createHLLObject()` + `dbAdd()`.
fn create_hll(e: &mut Engine, db: usize, key: &[u8]) {
    let obj = e.new_obj(Value::Str(StrValue::Raw(hll::new_sparse(), 0)));
    e.dbs[db].insert(key.to_vec(), obj);
}

// ---------------------------------------------------------------------------------------------
// PFADD, PFCOUNT, PFMERGE
// ---------------------------------------------------------------------------------------------

/// hyperloglog.c `pfaddCommand()`: 1 if the key was created or any register changed.
pub fn pfadd(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    let mut updated = 0u64;
    match e.lookup_write(c.db, key) {
        None => {
            create_hll(e, c.db, key);
            updated += 1;
        }
        Some(o) => {
            if let Err(r) = check_hll(&o.value) {
                return r;
            }
        }
    }
    let max_bytes = sparse_max_bytes(e);
    let Some((bytes, room)) = hll_mut(e, c.db, key) else { return Reply::Integer(0) };
    for ele in &c.argv[2..] {
        match sparse_aware(bytes, room, |b, grow| hll::add(b, ele, max_bytes, grow)) {
            Ok(true) => updated += 1,
            Ok(false) => {}
            Err(_) => return Reply::err(INVALID_HLL),
        }
    }
    if updated > 0 {
        hll::invalidate_cache(bytes);
        e.notify("pfadd", c.db, key);
        e.dirty(updated);
    }
    Reply::Integer((updated > 0) as i64)
}

/// hyperloglog.c `pfcountCommand()`.
pub fn pfcount(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() > 2 {
        let mut max = vec![0u8; REGISTERS];
        for key in &c.argv[1..] {
            let Some(o) = e.lookup_read(c.db, key) else { continue };
            if let Err(r) = check_hll(&o.value) {
                return r;
            }
            let Value::Str(s) = &o.value else { continue };
            let bytes = s.to_bytes();
            if hll::merge(&mut max, &bytes).is_err() {
                return Reply::err(INVALID_HLL);
            }
        }
        return Reply::Integer(hll::count_raw(&max) as i64);
    }
    let key = c.arg(1);
    match e.lookup_read(c.db, key) {
        None => return Reply::Integer(0),
        Some(o) => {
            if let Err(r) = check_hll(&o.value) {
                return r;
            }
        }
    }
    let Some((bytes, _)) = hll_mut(e, c.db, key) else { return Reply::Integer(0) };
    if let Some(card) = hll::cached_card(bytes) {
        return Reply::Integer(card as i64);
    }
    let Some(card) = hll::count(bytes) else {
        return Reply::err(INVALID_HLL);
    };
    hll::set_cached_card(bytes, card);
    // A write Redis propagates (signalModifiedKey + dirty), with no keyspace event.
    e.signal_modified_key(c.db, key, false);
    e.dirty(1);
    Reply::Integer(card as i64)
}

/// hyperloglog.c `pfmergeCommand()`.
pub fn pfmerge(e: &mut Engine, c: &Call) -> Reply {
    let mut max = vec![0u8; REGISTERS];
    let mut use_dense = false;
    for key in &c.argv[1..] {
        let Some(o) = e.lookup_read(c.db, key) else { continue };
        if let Err(r) = check_hll(&o.value) {
            return r;
        }
        let Value::Str(s) = &o.value else { continue };
        let bytes = s.to_bytes();
        if hll::encoding(&bytes) == DENSE {
            use_dense = true;
        }
        if hll::merge(&mut max, &bytes).is_err() {
            return Reply::err(INVALID_HLL);
        }
    }
    let dst = c.arg(1);
    if e.lookup_write(c.db, dst).is_none() {
        create_hll(e, c.db, dst);
    }
    let max_bytes = sparse_max_bytes(e);
    let Some((bytes, room)) = hll_mut(e, c.db, dst) else { return Reply::ok() };
    if use_dense && hll::encoding(bytes) == SPARSE {
        match hll::sparse_to_dense(bytes) {
            Some(dense) => {
                *bytes = dense;
                *room = 0;
            }
            None => return Reply::err(INVALID_HLL),
        }
    }
    for (j, &m) in max.iter().enumerate() {
        if m == 0 {
            continue;
        }
        if hll::encoding(bytes) == DENSE {
            hll::dense_set(&mut bytes[HDR_SIZE..], j, m);
        } else {
            sparse_aware(bytes, room, |b, grow| hll::sparse_set(b, j, m, max_bytes, grow));
        }
    }
    hll::invalidate_cache(bytes);
    e.notify("pfadd", c.db, dst);
    e.dirty(1);
    Reply::ok()
}

// ---------------------------------------------------------------------------------------------
// PFDEBUG, PFSELFTEST
// ---------------------------------------------------------------------------------------------

/// Converts the sparse HLL at `key` to dense in place (`hllSparseToDense()`); false if corrupt.
fn to_dense(e: &mut Engine, db: usize, key: &[u8]) -> bool {
    let Some((bytes, room)) = hll_mut(e, db, key) else { return false };
    match hll::sparse_to_dense(bytes) {
        Some(dense) => {
            *bytes = dense;
            *room = 0;
            true
        }
        None => false,
    }
}

/// hyperloglog.c `pfdebugCommand()`: GETREG, DECODE, ENCODING, TODENSE.
pub fn pfdebug(e: &mut Engine, c: &Call) -> Reply {
    let sub = c.arg(1);
    let key = c.arg(2);
    match e.lookup_write(c.db, key) {
        None => return Reply::err("ERR The specified key does not exist"),
        Some(o) => {
            if let Err(r) = check_hll(&o.value) {
                return r;
            }
        }
    }
    let Some((bytes, _)) = hll_mut(e, c.db, key) else { return Reply::Nil };
    let sparse = hll::encoding(bytes) == SPARSE;
    if is_opt(sub, "getreg") {
        if sparse {
            if !to_dense(e, c.db, key) {
                return Reply::err(INVALID_HLL);
            }
            e.dirty(1);
        }
        let Some((bytes, _)) = hll_mut(e, c.db, key) else { return Reply::Nil };
        let regs = &bytes[HDR_SIZE..];
        Reply::Array((0..REGISTERS).map(|i| Reply::Integer(hll::dense_get(regs, i) as i64)).collect())
    } else if is_opt(sub, "decode") {
        if !sparse {
            return Reply::err("ERR HLL encoding is not sparse");
        }
        Reply::Bulk(hll::decode(bytes).into_bytes())
    } else if is_opt(sub, "encoding") {
        Reply::Status(if sparse { "sparse" } else { "dense" }.into())
    } else if is_opt(sub, "todense") {
        if !sparse {
            return Reply::Integer(0);
        }
        if !to_dense(e, c.db, key) {
            return Reply::err(INVALID_HLL);
        }
        e.dirty(1);
        Reply::Integer(1)
    } else {
        let mut msg = b"ERR Unknown PFDEBUG subcommand '".to_vec();
        msg.extend_from_slice(c_str(sub));
        msg.push(b'\'');
        Reply::Error(msg)
    }
}

/// hyperloglog.c `pfselftestCommand()`: the dense register accessors keep every value and
/// their neighbours; sparse and dense HLLs fed the same 10,000,000 elements agree, stay
/// sparse while small, and stay within six standard errors at every power of ten.
pub fn pfselftest(e: &mut Engine, _c: &Call) -> Reply {
    const CYCLES: usize = 1000;
    let mut dense = vec![0u8; hll::DENSE_SIZE];
    dense[..4].copy_from_slice(b"HYLL");
    let mut bytecounters = vec![0u8; REGISTERS];
    for _ in 0..CYCLES {
        for (i, b) in bytecounters.iter_mut().enumerate() {
            let r = (e.random_index(1 << 31) & 63) as u8;
            *b = r;
            hll::dense_set_register(&mut dense[HDR_SIZE..], i, r);
        }
        for (i, &b) in bytecounters.iter().enumerate() {
            let v = hll::dense_get(&dense[HDR_SIZE..], i);
            if v != b {
                return Reply::err(format!("TESTFAILED Register {i} should be {b} but is {v}"));
            }
        }
    }
    dense[HDR_SIZE..].fill(0);
    let mut sparse = hll::new_sparse();
    let max_bytes = sparse_max_bytes(e);
    let relerr = 1.04 / (REGISTERS as f64).sqrt();
    let mut checkpoint: u64 = 1;
    let seed = (e.random_index(1 << 31) as u64) | ((e.random_index(1 << 31) as u64) << 32);
    for j in 1..=10_000_000u64 {
        let ele = (j ^ seed).to_le_bytes();
        let (index, count) = hll::pat_len(&ele);
        hll::dense_set(&mut dense[HDR_SIZE..], index, count);
        let _ = hll::add(&mut sparse, &ele, max_bytes, &mut |_| {});
        if j != checkpoint {
            continue;
        }
        if j < (max_bytes / 2) as u64 && hll::encoding(&sparse) != SPARSE {
            return Reply::err("TESTFAILED sparse encoding not used");
        }
        let card = hll::count(&dense).unwrap_or(0);
        if hll::count(&sparse) != Some(card) {
            return Reply::err("TESTFAILED dense/sparse disagree");
        }
        let abserr = (checkpoint as i64 - card as i64).unsigned_abs();
        let maxerr = if j == 10 { 1 } else { (relerr * 6.0 * checkpoint as f64).ceil() as u64 };
        if abserr > maxerr {
            return Reply::err(format!("TESTFAILED Too big error. card:{checkpoint} abserr:{abserr}"));
        }
        checkpoint *= 10;
    }
    Reply::ok()
}
