//! geo.c commands: GEOADD, GEOPOS, GEODIST, GEOHASH, GEOSEARCH, GEOSEARCHSTORE, GEORADIUS,
//! GEORADIUSBYMEMBER and their _RO forms.
//!
//! A GEO key is a plain sorted set whose scores are 52-bit geohashes (src/ds/geohash.rs), so
//! TYPE says zset and ZREM removes a place. GEOADD is geo.c `geoaddCommand()`: it checks its
//! own options and coordinates, then rewrites itself into `ZADD key [NX|XX] [CH] hash member…`
//! and runs ZADD (command/zset.rs), which creates the key, emits `zadd` and replies. The
//! searches are `georadiusGeneric()`: the source key is looked up (and type-checked) before
//! any argument, options are parsed left to right with each one's errors raised on the spot,
//! then the cross-option checks, in Redis's order. The search reads the score ranges of the
//! centre cell and its neighbours in `membersOfAllNeighbors()`'s order (centre, N, S, E, W,
//! NE, NW, SE, SW, skipping excluded cells and a cell equal to the last one read), keeps the
//! members inside the circle or box, and sorts with the same algorithms as redis-server
//! (src/ds/pqsort.rs) — so even without ASC/DESC, and among equal distances, the order is
//! Redis's. Coordinates are printed like `addReplyHumanLongDouble()` (`%.17Lf` of the
//! double, trimmed), distances like `addReplyDoubleDistance()`, which in 7.0.15 is
//! `fixedpoint_d2string(d, 4)` — not quite `%.4f` (see below).
//!
//! Differences: Redis asserts (crashes) when a *STORE would insert the same member twice or a
//! NaN distance; neither can come from a search here, and the playground would keep the first.
//! On wasm32 distances can differ in the last bit (src/ds/geohash.rs).

use crate::command::call::Call;
use crate::command::zset::{check_zset_read, store_nothing, zadd, zset_from_pairs, zset_ref};
use crate::command::{c_str, is_opt, parse_i64, syntax_error, NOT_FLOAT};
use crate::ds::geohash::{self, Shape, ShapeKind, GEO_LAT_MAX, GEO_LAT_MIN, GEO_LONG_MAX, GEO_LONG_MIN};
use crate::ds::long_double::LongDouble;
use crate::ds::pqsort::{pqsort, qsort};
use crate::ds::skiplist::ScoreRange;
use crate::engine::Engine;
use crate::object::{Value, Zset};
use crate::reply::Reply;
use crate::util::{fmt_fixed, string2d};
use crate::zset;

const UNSUPPORTED_UNIT: &str = "ERR unsupported unit provided. please use M, KM, FT, MI";
const NO_MEMBER: &str = "ERR could not decode requested zset member";

// ---------------------------------------------------------------------------------------------
// Argument helpers
// ---------------------------------------------------------------------------------------------

/// object.c `getDoubleFromObjectOrReply()` with an optional custom message.
fn parse_double(arg: &[u8], msg: Option<&str>) -> Result<f64, Reply> {
    string2d(arg).ok_or_else(|| Reply::err(msg.map(|m| format!("ERR {m}")).unwrap_or_else(|| NOT_FLOAT.to_string())))
}

/// geo.c `extractLongLatOrReply()`: two floats, longitude first, inside the WGS84 limits.
fn extract_long_lat(lon: &[u8], lat: &[u8]) -> Result<(f64, f64), Reply> {
    let x = parse_double(lon, None)?;
    let y = parse_double(lat, None)?;
    if !(GEO_LONG_MIN..=GEO_LONG_MAX).contains(&x) || !(GEO_LAT_MIN..=GEO_LAT_MAX).contains(&y) {
        return Err(Reply::err(format!("ERR invalid longitude,latitude pair {},{}", fmt_fixed(x, 6), fmt_fixed(y, 6))));
    }
    Ok((x, y))
}

/// geo.c `extractUnitOrReply()`: meters per unit, case-insensitive.
fn extract_unit(unit: &[u8]) -> Result<f64, Reply> {
    [("m", 1.0), ("km", 1000.0), ("ft", 0.3048), ("mi", 1609.34)]
        .iter()
        .find(|(name, _)| is_opt(unit, name))
        .map(|&(_, f)| f)
        .ok_or_else(|| Reply::err(UNSUPPORTED_UNIT))
}

/// geo.c `extractDistanceOrReply()`: `<radius> <unit>` → (radius, meters per unit).
fn extract_distance(radius: &[u8], unit: &[u8]) -> Result<(f64, f64), Reply> {
    let r = parse_double(radius, Some("need numeric radius"))?;
    if r < 0.0 {
        return Err(Reply::err("ERR radius cannot be negative"));
    }
    Ok((r, extract_unit(unit)?))
}

/// geo.c `extractBoxOrReply()`: `<width> <height> <unit>` → (width, height, meters per unit).
fn extract_box(width: &[u8], height: &[u8], unit: &[u8]) -> Result<(f64, f64, f64), Reply> {
    let w = parse_double(width, Some("need numeric width"))?;
    let h = parse_double(height, Some("need numeric height"))?;
    if h < 0.0 || w < 0.0 {
        return Err(Reply::err("ERR height or width cannot be negative"));
    }
    Ok((w, h, extract_unit(unit)?))
}

/// networking.c `addReplyHumanLongDouble()`: `%.17Lf`, trimmed — a bulk over RESP2, a
/// double with that text over RESP3.
fn coord_reply(v: f64) -> Reply {
    Reply::HumanDouble(LongDouble::from_f64(v).to_human().into_bytes())
}

/// geo.c `addReplyDoubleDistance()`: util.c `fixedpoint_d2string(d, 4)`.
fn distance_reply(d: f64) -> Reply {
    Reply::bulk(fixedpoint_d2string(d, 4))
}

/// util.c `fixedpoint_d2string()`, which 7.0.15 formats distances with instead of `%.4f`:
/// `llrint(d × 10^digits)` — the product rounded to a double first, then to an integer half to
/// even — printed with the dot put back. So 15600109.92905000038 prints as "15600109.9290"
/// where `%.4f` says "…9291". A NaN or a product beyond the long long range reads as
/// LLONG_MIN (x86-64's `cvtsd2si`), printed negative.
fn fixedpoint_d2string(d: f64, digits: usize) -> String {
    if d == 0.0 {
        return format!("0.{}", "0".repeat(digits));
    }
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    let scaled = (d * 10f64.powi(digits as i32)).round_ties_even();
    let svalue = if (-TWO63..TWO63).contains(&scaled) { scaled as i64 } else { i64::MIN };
    let mut text = format!("{:0>width$}", svalue.unsigned_abs(), width = digits + 1);
    text.insert(text.len() - digits, '.');
    if svalue < 0 {
        text.insert(0, '-');
    }
    text
}

/// geo.c `longLatFromMember()`: the position of a member of the stored zset.
fn member_position(e: &Engine, db: usize, key: &[u8], member: &[u8]) -> Option<(f64, f64)> {
    let score = zset::score(zset_ref(e, db, key)?, member)?;
    geohash::decode_score(score)
}

// ---------------------------------------------------------------------------------------------
// GEOADD
// ---------------------------------------------------------------------------------------------

/// `GEOADD key [NX|XX] [CH] longitude latitude member [longitude latitude member ...]`
///
/// Integer reply: members added (with CH, added or moved) — ZADD's reply, because after its
/// own checks GEOADD runs as ZADD with each position's 52-bit geohash as the score.
pub fn geoadd(e: &mut Engine, c: &Call) -> Reply {
    let (mut xx, mut nx) = (false, false);
    let mut longidx = 2;
    while longidx < c.argc() {
        let opt = c.arg(longidx);
        if is_opt(opt, "nx") {
            nx = true;
        } else if is_opt(opt, "xx") {
            xx = true;
        } else if !is_opt(opt, "ch") {
            break;
        }
        longidx += 1;
    }
    if !(c.argc() - longidx).is_multiple_of(3) || (xx && nx) {
        return syntax_error();
    }
    let mut argv: Vec<Vec<u8>> = vec![b"zadd".to_vec()];
    argv.extend(c.argv[1..longidx].iter().cloned());
    for triple in c.argv[longidx..].chunks(3) {
        let (lon, lat) = match extract_long_lat(&triple[0], &triple[1]) {
            Ok(xy) => xy,
            Err(r) => return r,
        };
        let bits = geohash::score_bits(lon, lat).unwrap_or(0);
        argv.push(bits.to_string().into_bytes());
        argv.push(triple[2].clone());
    }
    let Some(cmd) = c.table.get(b"zadd") else { return Reply::err("ERR zadd is missing") };
    zadd(e, &Call { client: c.client, db: c.db, argv: &argv, cmd, table: c.table })
}

// ---------------------------------------------------------------------------------------------
// GEOPOS / GEOHASH / GEODIST
// ---------------------------------------------------------------------------------------------

/// `GEOPOS key [member ...]`
///
/// Array reply: `[longitude, latitude]` of each member's cell centre, or nil.
pub fn geopos(e: &mut Engine, c: &Call) -> Reply {
    let exists = match check_zset_read(e, c.db, c.arg(1)) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let items = c.argv[2..]
        .iter()
        .map(|m| match exists.then(|| member_position(e, c.db, c.arg(1), m)).flatten() {
            Some((lon, lat)) => Reply::Array(vec![coord_reply(lon), coord_reply(lat)]),
            None => Reply::NilArray,
        })
        .collect();
    Reply::Array(items)
}

/// `GEOHASH key [member ...]`
///
/// Array reply: each member's 11-character standard geohash, or nil.
pub fn geohash(e: &mut Engine, c: &Call) -> Reply {
    let exists = match check_zset_read(e, c.db, c.arg(1)) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let items = c.argv[2..]
        .iter()
        .map(|m| {
            exists
                .then(|| member_position(e, c.db, c.arg(1), m))
                .flatten()
                .and_then(|(lon, lat)| geohash::standard_string(lon, lat))
                .map_or(Reply::Nil, Reply::bulk)
        })
        .collect();
    Reply::Array(items)
}

/// `GEODIST key member1 member2 [M|KM|FT|MI]`
///
/// Bulk reply: the distance with four decimals, or nil when a member (or the key) is missing.
pub fn geodist(e: &mut Engine, c: &Call) -> Reply {
    let mut to_meter = 1.0;
    if c.argc() == 5 {
        to_meter = match extract_unit(c.arg(4)) {
            Ok(f) => f,
            Err(r) => return r,
        };
    } else if c.argc() > 5 {
        return syntax_error();
    }
    match check_zset_read(e, c.db, c.arg(1)) {
        Err(r) => return r,
        Ok(false) => return Reply::Nil,
        Ok(true) => {}
    }
    let Some(z) = zset_ref(e, c.db, c.arg(1)) else { return Reply::Nil };
    let (Some(s1), Some(s2)) = (zset::score(z, c.arg(2)), zset::score(z, c.arg(3))) else { return Reply::Nil };
    match (geohash::decode_score(s1), geohash::decode_score(s2)) {
        (Some(a), Some(b)) => distance_reply(geohash::distance(a.0, a.1, b.0, b.1) / to_meter),
        _ => Reply::Nil,
    }
}

// ---------------------------------------------------------------------------------------------
// The searches: georadiusGeneric()
// ---------------------------------------------------------------------------------------------

/// Which command is searching (geo.c's RADIUS_* / GEOSEARCH* flags).
#[derive(Clone, Copy, PartialEq)]
enum Variant {
    /// GEORADIUS, GEORADIUS_RO: `key lon lat radius unit`.
    Coords,
    /// GEORADIUSBYMEMBER, GEORADIUSBYMEMBER_RO: `key member radius unit`.
    Member,
    /// GEOSEARCH: `key FROM… BY…`.
    Search,
    /// GEOSEARCHSTORE: `dst key FROM… BY…`.
    SearchStore,
}

#[derive(Clone, Copy, PartialEq)]
enum Sort {
    None,
    Asc,
    Desc,
}

/// One member found by a search (geo.h `geoPoint`).
#[derive(Clone)]
struct GeoPoint {
    longitude: f64,
    latitude: f64,
    dist: f64,
    score: f64,
    member: Vec<u8>,
}

/// geo.c `sort_gp_asc()`.
fn by_distance(a: &GeoPoint, b: &GeoPoint) -> i32 {
    if a.dist > b.dist {
        1
    } else if a.dist == b.dist {
        0
    } else {
        -1
    }
}

/// geo.c `geoAppendIfWithinShape()` over one cell's score range [min, max)
/// (`geoGetPointsInRange()`), stopping once `limit` points (if any) were collected.
fn points_in_range(z: &Zset, min: f64, max: f64, shape: &Shape, out: &mut Vec<GeoPoint>, limit: usize) {
    let range = ScoreRange { min, max, minex: false, maxex: true };
    for (member, score) in zset::range_by_score(z, &range, false, 0, -1, None) {
        let Some((lon, lat)) = geohash::decode_score(score) else { continue };
        let (cx, cy) = shape.xy;
        let dist = match shape.kind {
            ShapeKind::Radius(r) => geohash::distance_if_in_radius(cx, cy, lon, lat, r * shape.conversion),
            ShapeKind::Box { width, height } => {
                geohash::distance_if_in_rectangle(width * shape.conversion, height * shape.conversion, cx, cy, lon, lat)
            }
        };
        let Some(dist) = dist else { continue };
        out.push(GeoPoint { longitude: lon, latitude: lat, dist, score, member });
        if limit > 0 && out.len() >= limit {
            break;
        }
    }
}

/// geo.c `membersOfAllNeighbors()`: the nine cells in their fixed order, skipping excluded
/// ones and a cell equal to the last one read (huge radii make neighbours coincide).
fn members_of_all_neighbors(z: &Zset, shape: &Shape, limit: usize) -> Vec<GeoPoint> {
    let cells = geohash::areas_by_shape(shape).cells();
    let mut out = Vec::new();
    let mut last_processed = 0;
    for (i, cell) in cells.iter().enumerate() {
        if cell.is_zero() {
            continue;
        }
        if last_processed != 0 && *cell == cells[last_processed] {
            continue;
        }
        if !out.is_empty() && limit > 0 && out.len() >= limit {
            break;
        }
        let (min, max) = geohash::cell_score_range(*cell);
        points_in_range(z, min as f64, max as f64, shape, &mut out, limit);
        last_processed = i;
    }
    out
}

/// What the options said.
struct Options {
    withdist: bool,
    withhash: bool,
    withcoords: bool,
    sort: Sort,
    any: bool,
    count: i64,
    storekey: Option<Vec<u8>>,
    storedist: bool,
}

/// geo.c `georadiusGeneric()`.
fn georadius_generic(e: &mut Engine, c: &Call, src_index: usize, variant: Variant, nostore: bool) -> Reply {
    let key = c.arg(src_index);
    let exists = match check_zset_read(e, c.db, key) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let geosearch = matches!(variant, Variant::Search | Variant::SearchStore);
    let mut opts = Options {
        withdist: false,
        withhash: false,
        withcoords: false,
        sort: Sort::None,
        any: false,
        count: 0,
        storekey: None,
        storedist: false,
    };
    let mut xy = (0.0, 0.0);
    let mut conversion = 0.0;
    let mut kind = ShapeKind::Radius(0.0);
    let base_args = match variant {
        Variant::Coords => {
            xy = match extract_long_lat(c.arg(2), c.arg(3)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            let (r, conv) = match extract_distance(c.arg(4), c.arg(5)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            (kind, conversion) = (ShapeKind::Radius(r), conv);
            6
        }
        // No source key: the options are still parsed, so the reply can depend on STORE.
        Variant::Member if !exists => 5,
        Variant::Member => {
            xy = match member_position(e, c.db, key, c.arg(2)) {
                Some(v) => v,
                None => return Reply::err(NO_MEMBER),
            };
            let (r, conv) = match extract_distance(c.arg(3), c.arg(4)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            (kind, conversion) = (ShapeKind::Radius(r), conv);
            5
        }
        Variant::Search => 2,
        Variant::SearchStore => {
            opts.storekey = Some(c.arg(1).to_vec());
            3
        }
    };

    let (mut frommember, mut fromloc, mut byradius, mut bybox) = (false, false, false, false);
    let remaining = c.argc().saturating_sub(base_args);
    let mut i = 0;
    while i < remaining {
        let at = base_args + i;
        let arg = c.arg(at);
        if is_opt(arg, "withdist") {
            opts.withdist = true;
        } else if is_opt(arg, "withhash") {
            opts.withhash = true;
        } else if is_opt(arg, "withcoord") {
            opts.withcoords = true;
        } else if is_opt(arg, "any") {
            opts.any = true;
        } else if is_opt(arg, "asc") {
            opts.sort = Sort::Asc;
        } else if is_opt(arg, "desc") {
            opts.sort = Sort::Desc;
        } else if is_opt(arg, "count") && i + 1 < remaining {
            opts.count = match parse_i64(c.arg(at + 1)) {
                Ok(n) => n,
                Err(r) => return r,
            };
            if opts.count <= 0 {
                return Reply::err("ERR COUNT must be > 0");
            }
            i += 1;
        } else if (is_opt(arg, "store") || is_opt(arg, "storedist")) && i + 1 < remaining && !nostore && !geosearch {
            opts.storekey = Some(c.arg(at + 1).to_vec());
            opts.storedist = is_opt(arg, "storedist");
            i += 1;
        } else if is_opt(arg, "storedist") && variant == Variant::SearchStore {
            opts.storedist = true;
        } else if is_opt(arg, "frommember") && i + 1 < remaining && geosearch && !fromloc {
            // Without a source key the member can't be looked up; the reply comes later.
            if exists {
                xy = match member_position(e, c.db, key, c.arg(at + 1)) {
                    Some(v) => v,
                    None => return Reply::err(NO_MEMBER),
                };
            }
            frommember = true;
            i += 1;
        } else if is_opt(arg, "fromlonlat") && i + 2 < remaining && geosearch && !frommember {
            xy = match extract_long_lat(c.arg(at + 1), c.arg(at + 2)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            fromloc = true;
            i += 2;
        } else if is_opt(arg, "byradius") && i + 2 < remaining && geosearch && !bybox {
            let (r, conv) = match extract_distance(c.arg(at + 1), c.arg(at + 2)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            (kind, conversion) = (ShapeKind::Radius(r), conv);
            byradius = true;
            i += 2;
        } else if is_opt(arg, "bybox") && i + 3 < remaining && geosearch && !byradius {
            let (width, height, conv) = match extract_box(c.arg(at + 1), c.arg(at + 2), c.arg(at + 3)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            (kind, conversion) = (ShapeKind::Box { width, height }, conv);
            bybox = true;
            i += 3;
        } else {
            return syntax_error();
        }
        i += 1;
    }

    if opts.storekey.is_some() && (opts.withdist || opts.withhash || opts.withcoords) {
        let what = if variant == Variant::SearchStore { "GEOSEARCHSTORE" } else { "STORE option in GEORADIUS" };
        return Reply::err(format!("ERR {what} is not compatible with WITHDIST, WITHHASH and WITHCOORD options"));
    }
    if geosearch && !(frommember || fromloc) {
        return name_error(b"ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for ", c.arg(0));
    }
    if geosearch && !(byradius || bybox) {
        return name_error(b"ERR exactly one of BYRADIUS and BYBOX can be specified for ", c.arg(0));
    }
    if opts.any && opts.count == 0 {
        return Reply::err("ERR the ANY argument requires COUNT argument");
    }

    if !exists {
        return match &opts.storekey {
            Some(dst) => store_nothing(e, c.db, dst),
            None => Reply::Array(vec![]),
        };
    }

    // COUNT without ASC/DESC (and without ANY) means the closest ones.
    if opts.count != 0 && opts.sort == Sort::None && !opts.any {
        opts.sort = Sort::Asc;
    }

    let shape = Shape { xy, conversion, kind };
    // COUNT is a long long; where usize is 32 bits a count past it is "no limit" all the same.
    let count = usize::try_from(opts.count).unwrap_or(usize::MAX);
    let limit = if opts.any { count } else { 0 };
    let mut points = match zset_ref(e, c.db, key) {
        Some(z) => members_of_all_neighbors(z, &shape, limit),
        None => vec![],
    };
    if points.is_empty() && opts.storekey.is_none() {
        return Reply::Array(vec![]);
    }

    let result_length = points.len();
    let returned = if count == 0 || result_length < count { result_length } else { count };
    if opts.sort != Sort::None {
        let desc = |a: &GeoPoint, b: &GeoPoint| -by_distance(a, b);
        match (opts.sort, returned == result_length) {
            (Sort::Asc, true) => qsort(&mut points, &by_distance),
            (Sort::Asc, false) => pqsort(&mut points, &by_distance, 0, returned - 1),
            (_, true) => qsort(&mut points, &desc),
            (_, false) => pqsort(&mut points, &desc, 0, returned - 1),
        }
    }
    points.truncate(returned);
    for p in &mut points {
        p.dist /= conversion;
    }

    let Some(dst) = opts.storekey else {
        let with = opts.withdist || opts.withhash || opts.withcoords;
        let items = points
            .into_iter()
            .map(|p| {
                if !with {
                    return Reply::Bulk(p.member);
                }
                let mut item = vec![Reply::Bulk(p.member)];
                if opts.withdist {
                    item.push(distance_reply(p.dist));
                }
                if opts.withhash {
                    item.push(Reply::Integer(geohash::i64_from_score(p.score)));
                }
                if opts.withcoords {
                    item.push(Reply::Array(vec![coord_reply(p.longitude), coord_reply(p.latitude)]));
                }
                Reply::Array(item)
            })
            .collect();
        return Reply::Array(items);
    };

    if points.is_empty() {
        return store_nothing(e, c.db, &dst);
    }
    let z =
        zset_from_pairs(e, points.iter().map(|p| (p.member.as_slice(), if opts.storedist { p.dist } else { p.score })));
    let obj = e.new_obj(Value::Zset(z));
    e.dbs[c.db].set_key(dst.clone(), obj, false);
    e.notify(if geosearch { "geosearchstore" } else { "georadiusstore" }, c.db, &dst);
    e.dirty(returned as u64);
    Reply::Integer(returned as i64)
}

/// An error that ends with the command name as typed (`%s` of argv[0]).
fn name_error(prefix: &[u8], name: &[u8]) -> Reply {
    let mut msg = prefix.to_vec();
    msg.extend_from_slice(c_str(name));
    Reply::Error(msg)
}

/// `GEORADIUS key longitude latitude radius M|KM|FT|MI [WITHCOORD] [WITHDIST] [WITHHASH]
/// [COUNT count [ANY]] [ASC|DESC] [STORE key] [STOREDIST key]`
pub fn georadius(e: &mut Engine, c: &Call) -> Reply {
    georadius_generic(e, c, 1, Variant::Coords, false)
}

/// `GEORADIUSBYMEMBER key member radius M|KM|FT|MI [options as GEORADIUS]`
pub fn georadiusbymember(e: &mut Engine, c: &Call) -> Reply {
    georadius_generic(e, c, 1, Variant::Member, false)
}

/// `GEORADIUS_RO key longitude latitude radius unit [options without STORE/STOREDIST]`
pub fn georadius_ro(e: &mut Engine, c: &Call) -> Reply {
    georadius_generic(e, c, 1, Variant::Coords, true)
}

/// `GEORADIUSBYMEMBER_RO key member radius unit [options without STORE/STOREDIST]`
pub fn georadiusbymember_ro(e: &mut Engine, c: &Call) -> Reply {
    georadius_generic(e, c, 1, Variant::Member, true)
}

/// `GEOSEARCH key FROMMEMBER member|FROMLONLAT longitude latitude
/// BYRADIUS radius unit|BYBOX width height unit [ASC|DESC] [COUNT count [ANY]]
/// [WITHCOORD] [WITHDIST] [WITHHASH]`
///
/// Array reply: members, or per member `[member, dist?, hash?, [lon, lat]?]`.
pub fn geosearch(e: &mut Engine, c: &Call) -> Reply {
    georadius_generic(e, c, 1, Variant::Search, false)
}

/// `GEOSEARCHSTORE destination source FROM… BY… [ASC|DESC] [COUNT count [ANY]] [STOREDIST]`
///
/// Integer reply: the members stored (scores are geohashes, or distances with STOREDIST).
pub fn geosearchstore(e: &mut Engine, c: &Call) -> Reply {
    georadius_generic(e, c, 2, Variant::SearchStore, false)
}

#[cfg(test)]
mod tests {
    use crate::{EngineOptions, Session};

    fn run(lines: &[&str]) -> Vec<String> {
        let mut s = Session::new(EngineOptions { seed: 1, start_ms: 1_735_689_600_000 });
        lines.iter().map(|l| String::from_utf8(s.run_line(l.as_bytes()).text).unwrap()).collect()
    }

    #[test]
    fn sicily() {
        let out = run(&[
            "GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania",
            "GEODIST Sicily Palermo Catania km",
            "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ASC WITHDIST",
        ]);
        assert_eq!(out[0], "(integer) 2\n");
        assert_eq!(out[1], "\"166.2742\"\n");
        assert_eq!(out[2], "1) 1) \"Catania\"\n   2) \"56.4413\"\n2) 1) \"Palermo\"\n   2) \"190.4424\"\n");
    }

    #[test]
    #[allow(clippy::excessive_precision)] // the literal spells the double's exact decimal value
    fn distances_print_like_fixedpoint_d2string() {
        use super::fixedpoint_d2string as f;
        assert_eq!(f(0.0, 4), "0.0000");
        assert_eq!(f(-0.0, 4), "0.0000");
        assert_eq!(f(0.00004, 4), "0.0000");
        assert_eq!(f(0.0005, 4), "0.0005");
        assert_eq!(f(0.7750, 4), "0.7750");
        assert_eq!(f(166274.15156960033, 4), "166274.1516");
        // %.4f would round this one up (its exact value is above ...905); Redis gives 9290.
        assert_eq!(f(15600109.92905000038444995880126953125, 4), "15600109.9290");
        assert_eq!(f(f64::NAN, 4), "-922337203685477.5808");
    }
}
