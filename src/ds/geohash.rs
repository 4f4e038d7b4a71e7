//! Geohashes as Redis computes them: models geohash.c (`geohashEncode`, `geohashDecode`,
//! `geohashDecodeAreaToLongLat`, `geohashNeighbors` and its `geohash_move_x/y`,
//! `interleave64`/`deinterleave64`) and geohash_helper.c (`geohashEstimateStepsByRadius`,
//! `geohashBoundingBox`, `geohashCalculateAreasByShapeWGS84`, `geohashAlign52Bits`,
//! `geohashGetDistance`, `geohashGetDistanceIfInRadius`, `geohashGetDistanceIfInRectangle`).
//! Knows nothing of commands or replies.
//!
//! A position is two fixed-point offsets of `step` bits each — latitude over
//! −85.05112878..85.05112878 (the Web-Mercator limit), longitude over −180..180 — interleaved
//! with latitude in the even bit positions and longitude in the odd ones. At the full
//! `GEO_STEP_MAX` of 26 that is a 52-bit integer, which a double (a sorted-set score) holds
//! exactly. Decoding yields the cell, and positions are reported at the cell's centre.
//!
//! A radius or box search picks a step from the radius so that the centre cell plus its eight
//! neighbours cover the area, then (in geo.rs) reads each cell's score range out of the sorted
//! set and filters by exact distance. Everything here is arithmetic on `f64` and `u64` in the
//! same order as the C, so results agree with redis-server bit for bit where glibc's libm and
//! Rust's agree (natively they are the same functions).
//!
//! Checked against redis-server 7.0.15 (live, and its exported `geohashGetDistance`,
//! `geohashGetLatDistance` and `geohashGetDistanceIfInRectangle` disassembled): when the
//! longitudes are equal (the haversine's `v` is exactly 0) the distance is `R·|Δlatitude|` in
//! radians rather than the haversine (the two differ in the last bits, which shows in some
//! GEODIST replies), and the BYBOX test measures the north-south distance the same way.
//!
//! `bits_from_score` spells out what the C cast `(uint64_t)score` compiles to on x86-64 (the
//! target Debian's redis-server 7.0.15 was checked on), since the cast is undefined for
//! negative or huge scores.
//!
//! Deviation: `sin`, `cos` and `asin` are Rust's. Natively they are glibc's, as in
//! redis-server; on wasm32 they are Rust's portable libm, which differs from glibc in the last
//! bit for a few percent of arguments. A reply changes only when a distance falls within about
//! 1e-10 of a 4th-decimal rounding point or of a radius or box edge (about one distance in a
//! million); porting glibc's table-driven implementations was judged not worth it.

// C's comparisons, kept as written: a NaN falls through them as it does in geohash.c, where
// `contains()` would reject it.
#![allow(clippy::manual_range_contains)]

use std::f64::consts::PI;

pub const GEO_STEP_MAX: u8 = 26;
pub const GEO_LAT_MIN: f64 = -85.05112878;
pub const GEO_LAT_MAX: f64 = 85.05112878;
pub const GEO_LONG_MIN: f64 = -180.0;
pub const GEO_LONG_MAX: f64 = 180.0;
/// geohash_helper.c: Earth's quadratic mean radius for WGS-84.
pub const EARTH_RADIUS_IN_METERS: f64 = 6372797.560856;
pub const MERCATOR_MAX: f64 = 20037726.37;

const D_R: f64 = PI / 180.0;

fn deg_rad(ang: f64) -> f64 {
    ang * D_R
}

fn rad_deg(ang: f64) -> f64 {
    ang / D_R
}

/// A hash of `step` bits per axis. `step == 0 && bits == 0` is geohash.h's "zero" hash: a
/// neighbour excluded from a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HashBits {
    pub bits: u64,
    pub step: u8,
}

impl HashBits {
    pub fn is_zero(&self) -> bool {
        self.bits == 0 && self.step == 0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Range {
    pub min: f64,
    pub max: f64,
}

/// A decoded cell: its hash and its extent on both axes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Area {
    pub hash: HashBits,
    pub longitude: Range,
    pub latitude: Range,
}

/// The WGS84 ranges Redis indexes with (geohash.c `geohashGetCoordRange`).
pub const LONG_RANGE: Range = Range { min: GEO_LONG_MIN, max: GEO_LONG_MAX };
pub const LAT_RANGE: Range = Range { min: GEO_LAT_MIN, max: GEO_LAT_MAX };
/// The ranges of a standard geohash string (GEOHASH re-encodes with these).
pub const STANDARD_LAT_RANGE: Range = Range { min: -90.0, max: 90.0 };

// ---------------------------------------------------------------------------------------------
// Bit interleaving
// ---------------------------------------------------------------------------------------------

/// Spreads the 32 bits of `v` over the even bit positions of a u64.
fn spread(v: u32) -> u64 {
    let mut x = v as u64;
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    (x | (x << 1)) & 0x5555_5555_5555_5555
}

/// Gathers the even bit positions of `v` into a u32 (the inverse of `spread`).
fn gather(v: u64) -> u32 {
    let mut x = v & 0x5555_5555_5555_5555;
    x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
    x = (x | (x >> 2)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x >> 16)) & 0x0000_0000_FFFF_FFFF;
    x as u32
}

/// `lat` in the even positions, `lon` in the odd ones (geohash.c `interleave64`).
pub fn interleave(lat: u32, lon: u32) -> u64 {
    spread(lat) | (spread(lon) << 1)
}

/// (lat, lon) back from an interleaved hash (geohash.c `deinterleave64`).
pub fn deinterleave(bits: u64) -> (u32, u32) {
    (gather(bits), gather(bits >> 1))
}

/// C's `(uint32_t)d` for a non-negative double below 2^32 (what the offsets always are).
fn to_u32(d: f64) -> u32 {
    d as u64 as u32
}

// ---------------------------------------------------------------------------------------------
// Encoding and decoding
// ---------------------------------------------------------------------------------------------

/// geohash.c `geohashEncode()`: `None` for a step outside 1..=32 or a position outside the
/// WGS84 limits or the given ranges.
pub fn encode(long_range: Range, lat_range: Range, longitude: f64, latitude: f64, step: u8) -> Option<HashBits> {
    if step > 32 || step == 0 {
        return None;
    }
    if longitude > GEO_LONG_MAX || longitude < GEO_LONG_MIN || latitude > GEO_LAT_MAX || latitude < GEO_LAT_MIN {
        return None;
    }
    if latitude < lat_range.min || latitude > lat_range.max || longitude < long_range.min || longitude > long_range.max
    {
        return None;
    }
    let mut lat_offset = (latitude - lat_range.min) / (lat_range.max - lat_range.min);
    let mut long_offset = (longitude - long_range.min) / (long_range.max - long_range.min);
    let scale = (1u64 << step) as f64;
    lat_offset *= scale;
    long_offset *= scale;
    Some(HashBits { bits: interleave(to_u32(lat_offset), to_u32(long_offset)), step })
}

/// Encodes with Redis's WGS84 ranges (geohash.c `geohashEncodeWGS84()`).
pub fn encode_wgs84(longitude: f64, latitude: f64, step: u8) -> Option<HashBits> {
    encode(LONG_RANGE, LAT_RANGE, longitude, latitude, step)
}

/// geohash.c `geohashDecode()`: the cell a hash names. `None` for the zero hash.
pub fn decode(long_range: Range, lat_range: Range, hash: HashBits) -> Option<Area> {
    if hash.is_zero() {
        return None;
    }
    let (ilato, ilono) = deinterleave(hash.bits);
    let lat_scale = lat_range.max - lat_range.min;
    let long_scale = long_range.max - long_range.min;
    let cells = (1u64 << hash.step) as f64;
    // `ilato + 1` is 32-bit unsigned arithmetic in C: it wraps for an all-ones offset.
    let (lat_lo, lat_hi) = (ilato as f64, ilato.wrapping_add(1) as f64);
    let (lon_lo, lon_hi) = (ilono as f64, ilono.wrapping_add(1) as f64);
    Some(Area {
        hash,
        latitude: Range {
            min: lat_range.min + (lat_lo * 1.0 / cells) * lat_scale,
            max: lat_range.min + (lat_hi * 1.0 / cells) * lat_scale,
        },
        longitude: Range {
            min: long_range.min + (lon_lo * 1.0 / cells) * long_scale,
            max: long_range.min + (lon_hi * 1.0 / cells) * long_scale,
        },
    })
}

pub fn decode_wgs84(hash: HashBits) -> Option<Area> {
    decode(LONG_RANGE, LAT_RANGE, hash)
}

/// geohash.c `geohashDecodeAreaToLongLat()`: the cell's centre, clamped to the WGS84 limits.
pub fn area_center(area: &Area) -> (f64, f64) {
    let lon = ((area.longitude.min + area.longitude.max) / 2.0).clamp(GEO_LONG_MIN, GEO_LONG_MAX);
    let lat = ((area.latitude.min + area.latitude.max) / 2.0).clamp(GEO_LAT_MIN, GEO_LAT_MAX);
    (lon, lat)
}

/// geo.c `decodeGeohash()`: the (longitude, latitude) a sorted-set score stands for.
pub fn decode_score(score: f64) -> Option<(f64, f64)> {
    let area = decode_wgs84(HashBits { bits: bits_from_score(score), step: GEO_STEP_MAX })?;
    Some(area_center(&area))
}

/// The score GEOADD stores for a position (`geohashEncodeWGS84` at step 26, then
/// `geohashAlign52Bits`); `None` outside the limits.
pub fn score_bits(longitude: f64, latitude: f64) -> Option<u64> {
    encode_wgs84(longitude, latitude, GEO_STEP_MAX).map(align52)
}

/// C's `(uint64_t)score` as gcc compiles it for x86-64: below 2^63 a signed truncation
/// (`cvttsd2si`, whose out-of-range result is 0x8000000000000000) reinterpreted, so -1.0
/// becomes all ones; from 2^63 up, the truncation of `score - 2^63` with the top bit flipped,
/// so 2^64 and +inf become 0.
pub fn bits_from_score(score: f64) -> u64 {
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    fn cvttsd2si(d: f64) -> i64 {
        if d >= -TWO63 && d < TWO63 {
            d as i64
        } else {
            i64::MIN
        }
    }
    if score >= TWO63 {
        (cvttsd2si(score - TWO63) as u64) ^ (1 << 63)
    } else {
        cvttsd2si(score) as u64
    }
}

/// C's `(long long)score` on x86-64 (`cvttsd2si`): out of range gives i64::MIN.
pub fn i64_from_score(score: f64) -> i64 {
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    if score >= -TWO63 && score < TWO63 {
        score as i64
    } else {
        i64::MIN
    }
}

/// geohash_helper.c `geohashAlign52Bits()`: a hash of any step as a 52-bit score prefix.
pub fn align52(hash: HashBits) -> u64 {
    hash.bits << (52 - hash.step as u32 * 2)
}

/// The 11-character standard geohash of a position (geo.c `geohashCommand`): re-encoded over
/// latitude ±90 at 26 steps, 5 bits per character; there are only 52 bits, so the 11th
/// character is always '0'.
pub fn standard_string(longitude: f64, latitude: f64) -> Option<[u8; 11]> {
    const ALPHABET: &[u8; 32] = b"0123456789bcdefghjkmnpqrstuvwxyz";
    let hash = encode(LONG_RANGE, STANDARD_LAT_RANGE, longitude, latitude, 26)?;
    let mut out = [b'0'; 11];
    for (i, c) in out.iter_mut().enumerate().take(10) {
        let idx = (hash.bits >> (52 - (i + 1) * 5)) & 0x1f;
        *c = ALPHABET[idx as usize];
    }
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// Neighbours
// ---------------------------------------------------------------------------------------------

/// The eight cells around a hash, at the same step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Neighbors {
    pub north: HashBits,
    pub east: HashBits,
    pub west: HashBits,
    pub south: HashBits,
    pub north_east: HashBits,
    pub south_east: HashBits,
    pub north_west: HashBits,
    pub south_west: HashBits,
}

const EVEN: u64 = 0x5555_5555_5555_5555;
const ODD: u64 = 0xaaaa_aaaa_aaaa_aaaa;

/// One cell east (`d > 0`) or west along the longitude bits (odd positions), wrapping around:
/// the even positions of `zz` let the carry or borrow ripple past the latitude bits.
fn move_x(hash: &mut HashBits, d: i8) {
    if d == 0 {
        return;
    }
    let mut x = hash.bits & ODD;
    let y = hash.bits & EVEN;
    let shift = 64 - hash.step as u32 * 2;
    let zz = EVEN.checked_shr(shift).unwrap_or(0);
    if d > 0 {
        x = x.wrapping_add(zz.wrapping_add(1));
    } else {
        x |= zz;
        x = x.wrapping_sub(zz.wrapping_add(1));
    }
    x &= ODD.checked_shr(shift).unwrap_or(0);
    hash.bits = x | y;
}

/// One cell north (`d > 0`) or south along the latitude bits (even positions), wrapping.
fn move_y(hash: &mut HashBits, d: i8) {
    if d == 0 {
        return;
    }
    let x = hash.bits & ODD;
    let mut y = hash.bits & EVEN;
    let shift = 64 - hash.step as u32 * 2;
    let zz = ODD.checked_shr(shift).unwrap_or(0);
    if d > 0 {
        y = y.wrapping_add(zz.wrapping_add(1));
    } else {
        y |= zz;
        y = y.wrapping_sub(zz.wrapping_add(1));
    }
    y &= EVEN.checked_shr(shift).unwrap_or(0);
    hash.bits = x | y;
}

/// geohash.c `geohashNeighbors()`.
pub fn neighbors(hash: HashBits) -> Neighbors {
    let at = |dx: i8, dy: i8| {
        let mut h = hash;
        move_x(&mut h, dx);
        move_y(&mut h, dy);
        h
    };
    Neighbors {
        east: at(1, 0),
        west: at(-1, 0),
        south: at(0, -1),
        north: at(0, 1),
        north_west: at(-1, 1),
        north_east: at(1, 1),
        south_east: at(1, -1),
        south_west: at(-1, -1),
    }
}

// ---------------------------------------------------------------------------------------------
// Search areas
// ---------------------------------------------------------------------------------------------

/// geohash_helper.c `geohashEstimateStepsByRadius()`: the step whose cells are about the
/// radius, one or two coarser towards the poles, within 1..=26.
pub fn estimate_steps_by_radius(mut range_meters: f64, lat: f64) -> u8 {
    if range_meters == 0.0 {
        return 26;
    }
    let mut step: i32 = 1;
    while range_meters < MERCATOR_MAX {
        range_meters *= 2.0;
        step += 1;
    }
    step -= 2;
    if lat > 66.0 || lat < -66.0 {
        step -= 1;
        if lat > 80.0 || lat < -80.0 {
            step -= 1;
        }
    }
    step.clamp(1, 26) as u8
}

/// What a search covers (geohash.h `GeoShape`): a circle or an axis-aligned box around a
/// centre, in a unit that `conversion` turns into meters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// (longitude, latitude) of the centre.
    pub xy: (f64, f64),
    /// Meters per unit (m 1, km 1000, ft 0.3048, mi 1609.34).
    pub conversion: f64,
    pub kind: ShapeKind,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ShapeKind {
    Radius(f64),
    Box { width: f64, height: f64 },
}

/// geohash_helper.c `geohashBoundingBox()`: `[min_lon, min_lat, max_lon, max_lat]`. The
/// longitude span is taken at the edge nearer the pole (the wider one in degrees): the top
/// edge in the northern hemisphere, the bottom one in the southern.
pub fn bounding_box(shape: &Shape) -> [f64; 4] {
    let (height, width) = match shape.kind {
        ShapeKind::Radius(r) => (shape.conversion * r, shape.conversion * r),
        ShapeKind::Box { width, height } => (shape.conversion * height / 2.0, shape.conversion * width / 2.0),
    };
    let (longitude, latitude) = shape.xy;
    let lat_delta = rad_deg(height / EARTH_RADIUS_IN_METERS);
    let long_delta_top = rad_deg(width / EARTH_RADIUS_IN_METERS / deg_rad(latitude + lat_delta).cos());
    let long_delta_bottom = rad_deg(width / EARTH_RADIUS_IN_METERS / deg_rad(latitude - lat_delta).cos());
    let southern = latitude < 0.0;
    let long_delta = if southern { long_delta_bottom } else { long_delta_top };
    [longitude - long_delta, latitude - lat_delta, longitude + long_delta, latitude + lat_delta]
}

/// The centre cell and the neighbours a search reads (geohash.h `GeoHashRadius`); excluded
/// neighbours are zero hashes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchArea {
    pub hash: HashBits,
    pub neighbors: Neighbors,
    pub area: Area,
}

impl SearchArea {
    /// The nine cells in the order geo.c `membersOfAllNeighbors()` reads them.
    pub fn cells(&self) -> [HashBits; 9] {
        let n = &self.neighbors;
        [self.hash, n.north, n.south, n.east, n.west, n.north_east, n.north_west, n.south_east, n.south_west]
    }
}

/// geohash_helper.c `geohashCalculateAreasByShapeWGS84()`: estimate the step from the radius
/// (a box's half diagonal), take one step coarser when a side neighbour doesn't reach the
/// bounding box, then drop the neighbours the bounding box doesn't reach (only from step 2
/// on: at step 1 the wrapped neighbours are the whole world).
pub fn areas_by_shape(shape: &Shape) -> SearchArea {
    let [min_lon, min_lat, max_lon, max_lat] = bounding_box(shape);
    let (longitude, latitude) = shape.xy;
    let mut radius_meters = match shape.kind {
        ShapeKind::Radius(r) => r,
        ShapeKind::Box { width, height } => ((width / 2.0) * (width / 2.0) + (height / 2.0) * (height / 2.0)).sqrt(),
    };
    radius_meters *= shape.conversion;

    let mut steps = estimate_steps_by_radius(radius_meters, latitude);
    let around = |steps: u8| {
        let hash =
            encode(LONG_RANGE, LAT_RANGE, longitude, latitude, steps).unwrap_or(HashBits { bits: 0, step: steps });
        let neighbors = neighbors(hash);
        let area = decode(LONG_RANGE, LAT_RANGE, hash).unwrap_or_default();
        (hash, neighbors, area)
    };
    let (mut hash, mut neighbors, mut area) = around(steps);

    let cell = |h: HashBits| decode(LONG_RANGE, LAT_RANGE, h).unwrap_or_default();
    let (north, south, east, west) =
        (cell(neighbors.north), cell(neighbors.south), cell(neighbors.east), cell(neighbors.west));
    let decrease_step = north.latitude.max < max_lat
        || south.latitude.min > min_lat
        || east.longitude.max < max_lon
        || west.longitude.min > min_lon;
    if steps > 1 && decrease_step {
        steps -= 1;
        (hash, neighbors, area) = around(steps);
    }

    if steps >= 2 {
        let zero = HashBits::default();
        if area.latitude.min < min_lat {
            neighbors.south = zero;
            neighbors.south_west = zero;
            neighbors.south_east = zero;
        }
        if area.latitude.max > max_lat {
            neighbors.north = zero;
            neighbors.north_east = zero;
            neighbors.north_west = zero;
        }
        if area.longitude.min < min_lon {
            neighbors.west = zero;
            neighbors.south_west = zero;
            neighbors.north_west = zero;
        }
        if area.longitude.max > max_lon {
            neighbors.east = zero;
            neighbors.south_east = zero;
            neighbors.north_east = zero;
        }
    }
    SearchArea { hash, neighbors, area }
}

/// The score range `[min, max)` of the members inside a cell (geo.c `scoresOfGeoHashBox()`).
pub fn cell_score_range(hash: HashBits) -> (u64, u64) {
    let min = align52(hash);
    let max = align52(HashBits { bits: hash.bits.wrapping_add(1), step: hash.step });
    (min, max)
}

// ---------------------------------------------------------------------------------------------
// Distances
// ---------------------------------------------------------------------------------------------

/// geohash_helper.c `geohashGetDistance()`: the haversine great-circle distance in meters,
/// or the distance along the meridian when the longitudes are the same.
pub fn distance(lon1d: f64, lat1d: f64, lon2d: f64, lat2d: f64) -> f64 {
    let lon1r = deg_rad(lon1d);
    let lon2r = deg_rad(lon2d);
    let v = ((lon2r - lon1r) / 2.0).sin();
    if v == 0.0 {
        return lat_distance(lat1d, lat2d);
    }
    let lat1r = deg_rad(lat1d);
    let lat2r = deg_rad(lat2d);
    let u = ((lat2r - lat1r) / 2.0).sin();
    2.0 * EARTH_RADIUS_IN_METERS * (u * u + lat1r.cos() * lat2r.cos() * v * v).sqrt().asin()
}

/// geohash_helper.c `geohashGetDistanceIfInRadius()`: the distance from the centre (x1, y1)
/// to the point (x2, y2) if it is at most `radius` meters.
pub fn distance_if_in_radius(x1: f64, y1: f64, x2: f64, y2: f64, radius: f64) -> Option<f64> {
    let d = distance(x1, y1, x2, y2);
    // `distance > radius` rejects; a NaN distance (nearly antipodal points) is kept, as in C.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    (!(d > radius)).then_some(d)
}

/// geohash_helper.c `geohashGetLatDistance()`: the distance along a meridian.
pub fn lat_distance(lat1d: f64, lat2d: f64) -> f64 {
    EARTH_RADIUS_IN_METERS * (deg_rad(lat2d) - deg_rad(lat1d)).abs()
}

/// geohash_helper.c `geohashGetDistanceIfInRectangle()`: the point (x2, y2) is in the box
/// centred on (x1, y1) when its north-south distance along a meridian and its east-west
/// distance along its own parallel are within half the height and width.
pub fn distance_if_in_rectangle(width_m: f64, height_m: f64, x1: f64, y1: f64, x2: f64, y2: f64) -> Option<f64> {
    if lat_distance(y2, y1) > height_m / 2.0 {
        return None;
    }
    if distance(x2, y2, x1, y2) > width_m / 2.0 {
        return None;
    }
    Some(distance(x1, y1, x2, y2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleave_round_trips() {
        for (lat, lon) in [(0u32, 0u32), (1, 0), (0, 1), (0x3ff_ffff, 0x2aa_aaaa), (u32::MAX, 12345)] {
            assert_eq!(deinterleave(interleave(lat, lon)), (lat, lon));
        }
        assert_eq!(interleave(1, 0), 1);
        assert_eq!(interleave(0, 1), 2);
    }

    #[test]
    fn palermo_as_redis_stores_and_prints_it() {
        // GEOADD Sicily 13.361389 38.115556 Palermo → ZSCORE 3479099956230698 (redis-server 7.0.15).
        let bits = score_bits(13.361389, 38.115556).unwrap();
        assert_eq!(bits, 3479099956230698);
        let (lon, lat) = decode_score(bits as f64).unwrap();
        assert_eq!(crate::ds::long_double::LongDouble::from_f64(lon).to_human(), "13.36138933897018433");
        assert_eq!(crate::ds::long_double::LongDouble::from_f64(lat).to_human(), "38.11555639549629859");
        assert_eq!(&standard_string(lon, lat).unwrap(), b"sqc8b49rny0");
    }

    #[test]
    fn palermo_catania_distance() {
        let (a, b) = (decode_score(3479099956230698.0).unwrap(), decode_score(3479447370796909.0).unwrap());
        assert_eq!(format!("{:.4}", distance(a.0, a.1, b.0, b.1)), "166274.1516");
    }

    /// Equal longitudes take the meridian formula: the haversine would print ...5551 here
    /// (GEOADD -94.258661 69.59409299999999 / -94.258661 -18.930262999999997, GEODIST →
    /// "9846236.5550" from redis-server 7.0.15).
    #[test]
    fn equal_longitudes_measure_along_the_meridian() {
        let a = decode_score(score_bits(-94.258661, 69.59409299999999).unwrap() as f64).unwrap();
        let b = decode_score(score_bits(-94.258661, -18.930262999999997).unwrap() as f64).unwrap();
        assert_eq!(distance(a.0, a.1, b.0, b.1), lat_distance(a.1, b.1));
    }

    #[test]
    fn casts_as_x86_64_gcc() {
        assert_eq!(bits_from_score(-1.0), u64::MAX);
        assert_eq!(bits_from_score(f64::INFINITY), 0);
        assert_eq!(bits_from_score(-1e19), 1 << 63);
        assert_eq!(bits_from_score(1.5), 1);
        assert_eq!(i64_from_score(1e19), i64::MIN);
    }

    #[test]
    fn neighbours_wrap_around() {
        let h = encode_wgs84(179.9, 0.0, 4).unwrap();
        let east = decode_wgs84(neighbors(h).east).unwrap();
        assert_eq!(east.longitude.min, -180.0);
        // At step 1 north and south are the same (the other half of the world).
        let h = encode_wgs84(10.0, 10.0, 1).unwrap();
        let n = neighbors(h);
        assert_eq!(n.north, n.south);
        assert_eq!(n.east, n.west);
    }

    #[test]
    fn steps_from_radius() {
        assert_eq!(estimate_steps_by_radius(0.0, 0.0), 26);
        assert_eq!(estimate_steps_by_radius(200_000.0, 38.0), 6);
        assert_eq!(estimate_steps_by_radius(200_000.0, 70.0), 5);
        assert_eq!(estimate_steps_by_radius(200_000.0, -85.0), 4);
        assert_eq!(estimate_steps_by_radius(f64::INFINITY, 0.0), 1);
    }
}
