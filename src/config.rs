//! The config table: models config.c's `standardConfig` table, `configGetCommand()`,
//! `configSetCommand()` and the numeric parsing behind it (`numericParseString()`,
//! `numericBoundaryCheck()`, `numericConfigGet()`, util.c `memtoull()`) for the parameters
//! the playground has.
//!
//! Each parameter has Redis 7.0's type, bounds, flags (a plain integer, a memory value with
//! units, a memory-or-percent value), default and, where Redis has one, an alias — which, as
//! in Redis, is a parameter entry of its own that shares the value (so `CONFIG SET
//! hash-max-ziplist-entries 1 hash-max-listpack-entries 2` is not a duplicate). CONFIG SET of
//! several pairs is all-or-nothing. Differences: parameters Redis has and we don't (network,
//! persistence, cluster, TLS…) are unknown here; `CONFIG GET` lists matches in table order
//! where Redis uses its dict's hash order (random per process); `save` and `appendonly` start
//! as a server run with `--save '' --appendonly no` and are validated and stored like Redis's,
//! but nothing is ever written to disk; a parameter name with a NUL byte is unknown here
//! (Redis's answer depends on its per-process hash seed, as for command names).

use crate::util::{c_str, eq_ic, glob_match, string2ll, strtol};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Bool,
    /// A config.c numeric config. `unsigned`: size_t/unsigned/unsigned long long storage,
    /// whose bounds are compared (and printed) unsigned. `memory`: MEMORY_CONFIG (units
    /// accepted, printed unsigned). `percent`: PERCENT_CONFIG (`10%`, stored negative).
    Num {
        min: i64,
        max: i64,
        unsigned: bool,
        memory: bool,
        percent: bool,
    },
    Enum(&'static [&'static str]),
    Str,
    /// `notify-keyspace-events` flags (notify.c).
    KeyspaceEvents,
    /// `save`: `seconds changes` pairs (config.c `setConfigSaveOption()`).
    Save,
}

pub struct ParamDef {
    pub name: &'static str,
    pub alias: Option<&'static str>,
    pub kind: Kind,
    pub default: &'static str,
    pub immutable: bool,
}

const INT_MIN: i64 = i32::MIN as i64;
const INT_MAX: i64 = i32::MAX as i64;
const UINT_MAX: i64 = u32::MAX as i64;
const LONG_MAX: i64 = i64::MAX;
/// ULLONG_MAX as config.c stores it in its `long long` bounds.
const ULLONG_MAX: i64 = -1;

/// createIntConfig / createLongLongConfig: signed, plain integer.
const fn int(min: i64, max: i64) -> Kind {
    Kind::Num { min, max, unsigned: false, memory: false, percent: false }
}
/// createSizeTConfig / createUIntConfig with INTEGER_CONFIG.
const fn uint(min: i64, max: i64) -> Kind {
    Kind::Num { min, max, unsigned: true, memory: false, percent: false }
}
/// A MEMORY_CONFIG numeric config, `unsigned` per its storage type.
const fn mem(min: i64, max: i64, unsigned: bool) -> Kind {
    Kind::Num { min, max, unsigned, memory: true, percent: false }
}

pub const POLICIES: &[&str] = &[
    "volatile-lru",
    "volatile-lfu",
    "volatile-random",
    "volatile-ttl",
    "allkeys-lru",
    "allkeys-lfu",
    "allkeys-random",
    "noeviction",
];

const fn p(name: &'static str, kind: Kind, default: &'static str) -> ParamDef {
    ParamDef { name, alias: None, kind, default, immutable: false }
}
const fn a(name: &'static str, alias: &'static str, kind: Kind, default: &'static str) -> ParamDef {
    ParamDef { name, alias: Some(alias), kind, default, immutable: false }
}
const fn fixed(name: &'static str, kind: Kind, default: &'static str) -> ParamDef {
    ParamDef { name, alias: None, kind, default, immutable: true }
}

/// Every parameter, with Redis 7.0's types, bounds and defaults (config.c `static_configs`).
pub const PARAMS: &[ParamDef] = &[
    fixed("databases", int(1, INT_MAX), "16"),
    p("hz", int(0, INT_MAX), "10"),
    p("dynamic-hz", Kind::Bool, "yes"),
    p("maxmemory", mem(0, ULLONG_MAX, true), "0"),
    p("maxmemory-policy", Kind::Enum(POLICIES), "noeviction"),
    p("maxmemory-samples", int(1, INT_MAX), "5"),
    p("maxmemory-eviction-tenacity", int(0, 100), "10"),
    p("maxmemory-clients", Kind::Num { min: -100, max: LONG_MAX, unsigned: false, memory: true, percent: true }, "0"),
    p("active-expire-effort", int(1, 10), "1"),
    p("lfu-log-factor", int(0, INT_MAX), "10"),
    p("lfu-decay-time", int(0, INT_MAX), "1"),
    p("lazyfree-lazy-eviction", Kind::Bool, "no"),
    p("lazyfree-lazy-expire", Kind::Bool, "no"),
    p("lazyfree-lazy-server-del", Kind::Bool, "no"),
    p("lazyfree-lazy-user-del", Kind::Bool, "no"),
    p("lazyfree-lazy-user-flush", Kind::Bool, "no"),
    p("notify-keyspace-events", Kind::KeyspaceEvents, ""),
    a("hash-max-listpack-entries", "hash-max-ziplist-entries", uint(0, LONG_MAX), "512"),
    a("hash-max-listpack-value", "hash-max-ziplist-value", mem(0, LONG_MAX, true), "64"),
    a("zset-max-listpack-entries", "zset-max-ziplist-entries", uint(0, LONG_MAX), "128"),
    a("zset-max-listpack-value", "zset-max-ziplist-value", mem(0, LONG_MAX, true), "64"),
    p("set-max-intset-entries", uint(0, LONG_MAX), "512"),
    p("hll-sparse-max-bytes", mem(0, LONG_MAX, true), "3000"),
    a("list-max-listpack-size", "list-max-ziplist-size", int(INT_MIN, INT_MAX), "-2"),
    p("list-compress-depth", int(0, INT_MAX), "0"),
    p("proto-max-bulk-len", mem(1024 * 1024, LONG_MAX, false), "536870912"),
    p("client-query-buffer-limit", mem(1024 * 1024, LONG_MAX, false), "1073741824"),
    a("busy-reply-threshold", "lua-time-limit", int(0, LONG_MAX), "5000"),
    p("maxclients", uint(1, UINT_MAX), "10000"),
    p("timeout", int(0, INT_MAX), "0"),
    // The default user's password (ACL `>pass`); "" = nopass. Clients connected before it is
    // set stay authenticated, as in Redis.
    p("requirepass", Kind::Str, ""),
    p("appendonly", Kind::Bool, "no"),
    p("save", Kind::Save, ""),
    a("replica-ignore-maxmemory", "slave-ignore-maxmemory", Kind::Bool, "yes"),
    // DUMP compresses strings of more than 20 bytes with LZF (rdb.c rdbSaveRawString()).
    p("rdbcompression", Kind::Bool, "yes"),
    // Stored and validated; RESTORE here always checks payloads as `yes` does (persist/rdb.rs).
    p("sanitize-dump-payload", Kind::Enum(&["no", "yes", "clients"]), "no"),
    // Playground-only (not Redis): the largest single allocation a command may make — one
    // string value or LCS's table. Redis allows up to proto-max-bulk-len (512mb); a browser
    // tab should not be made to allocate that much by one typed line.
    p("playground-max-alloc", mem(1024, LONG_MAX, false), "33554432"),
    // Playground-only: which active-expire algorithm serverCron runs — Redis 7.0's bucket
    // cursor, or the classic ≤5.0 random sampling that tutorials describe (src/expire.rs).
    p("playground-expire-algorithm", Kind::Enum(&["7.0", "classic"]), "7.0"),
    // Playground-only: scales every virtual CPU cost of src/cost.rs (100 = as calibrated
    // against redis-server 7.0.15); time caps and stalls move with it.
    p("playground-cost-percent", int(0, 100_000), "100"),
    // Playground-only: the virtual ms a script may run before the playground ends it (Redis
    // lets it run until SCRIPT KILL or SHUTDOWN NOSAVE; BUSY and SCRIPT KILL work until then).
    p("playground-script-time-limit", int(1, LONG_MAX), "60000"),
];

/// notify.c NOTIFY_* flag bits.
pub mod notify {
    pub const KEYSPACE: u32 = 1 << 0;
    pub const KEYEVENT: u32 = 1 << 1;
    pub const GENERIC: u32 = 1 << 2;
    pub const STRING: u32 = 1 << 3;
    pub const LIST: u32 = 1 << 4;
    pub const SET: u32 = 1 << 5;
    pub const HASH: u32 = 1 << 6;
    pub const ZSET: u32 = 1 << 7;
    pub const EXPIRED: u32 = 1 << 8;
    pub const EVICTED: u32 = 1 << 9;
    pub const STREAM: u32 = 1 << 10;
    pub const KEY_MISS: u32 = 1 << 11;
    pub const LOADED: u32 = 1 << 12;
    pub const MODULE: u32 = 1 << 13;
    pub const NEW: u32 = 1 << 14;
    pub const ALL: u32 = GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;
}

/// notify.c `keyspaceEventsStringToFlags()`; `None` on an unknown class character.
pub fn keyspace_events_from_str(s: &[u8]) -> Option<u32> {
    use notify::*;
    let mut flags = 0;
    for &c in s {
        flags |= match c {
            b'A' => ALL,
            b'g' => GENERIC,
            b'$' => STRING,
            b'l' => LIST,
            b's' => SET,
            b'h' => HASH,
            b'z' => ZSET,
            b'x' => EXPIRED,
            b'e' => EVICTED,
            b'K' => KEYSPACE,
            b'E' => KEYEVENT,
            b't' => STREAM,
            b'm' => KEY_MISS,
            b'd' => MODULE,
            b'n' => NEW,
            _ => return None,
        };
    }
    Some(flags)
}

/// notify.c `keyspaceEventsFlagsToString()`: `n` is printed only when `A` is not.
pub fn keyspace_events_to_string(flags: u32) -> String {
    use notify::*;
    let mut s = String::new();
    if flags & ALL == ALL {
        s.push('A');
    } else {
        for (bit, c) in [
            (GENERIC, 'g'),
            (STRING, '$'),
            (LIST, 'l'),
            (SET, 's'),
            (HASH, 'h'),
            (ZSET, 'z'),
            (EXPIRED, 'x'),
            (EVICTED, 'e'),
            (STREAM, 't'),
            (MODULE, 'd'),
            (NEW, 'n'),
        ] {
            if flags & bit != 0 {
                s.push(c);
            }
        }
    }
    for (bit, c) in [(KEYSPACE, 'K'), (KEYEVENT, 'E'), (KEY_MISS, 'm')] {
        if flags & bit != 0 {
            s.push(c);
        }
    }
    s
}

/// util.c `memtoull()`: digits with an optional unit b/k/kb/m/mb/g/gb (any case), read as a C
/// string. Quirks kept: no digits at all is 0 (`""`, `"kb"`), an overflowing number saturates
/// (strtoull's ERANGE is not checked) and the unit multiplication wraps.
pub fn parse_memory(s: &[u8]) -> Option<u64> {
    let s = c_str(s);
    if s.first() == Some(&b'-') {
        return None;
    }
    let split = s.iter().position(|c| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    let mul: u64 = match unit.to_ascii_lowercase().as_slice() {
        b"" | b"b" => 1,
        b"k" => 1000,
        b"kb" => 1024,
        b"m" => 1000 * 1000,
        b"mb" => 1024 * 1024,
        b"g" => 1000 * 1000 * 1000,
        b"gb" => 1024 * 1024 * 1024,
        _ => return None,
    };
    if digits.len() >= 128 {
        return None;
    }
    let mut v: u64 = 0;
    for &d in digits {
        v = v.checked_mul(10).and_then(|v| v.checked_add((d - b'0') as u64)).unwrap_or(u64::MAX);
    }
    Some(v.wrapping_mul(mul))
}

#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Bool(bool),
    /// A numeric config's value as config.c holds it in a `long long` (an unsigned one is
    /// its bit pattern; a percentage is negative).
    Int(i64),
    Str(String),
    Flags(u32),
}

/// The current values, one per `PARAMS` row.
#[derive(Clone, Debug)]
pub struct Config {
    values: Vec<Val>,
}

fn find(name: &[u8]) -> Option<usize> {
    PARAMS.iter().position(|d| eq_ic(name, d.name) || d.alias.is_some_and(|al| eq_ic(name, al)))
}

impl Default for Config {
    fn default() -> Self {
        let values =
            PARAMS.iter().map(|d| parse_value(d, d.default.as_bytes()).unwrap_or(Val::Str(d.default.into()))).collect();
        Config { values }
    }
}

/// Parses and validates one value; the error is the text after "- " in CONFIG SET's reply.
fn parse_value(def: &ParamDef, v: &[u8]) -> Result<Val, String> {
    match def.kind {
        Kind::Bool => {
            if eq_ic(c_str(v), "yes") {
                Ok(Val::Bool(true))
            } else if eq_ic(c_str(v), "no") {
                Ok(Val::Bool(false))
            } else {
                Err("argument must be 'yes' or 'no'".into())
            }
        }
        Kind::Num { min, max, unsigned, memory, percent } => {
            let n = parse_numeric(v, memory, percent)?;
            check_bounds(n, min, max, unsigned, percent)?;
            Ok(Val::Int(n))
        }
        Kind::Enum(options) => options
            .iter()
            .find(|o| eq_ic(c_str(v), o))
            .map(|o| Val::Str((*o).into()))
            .ok_or_else(|| format!("argument(s) must be one of the following: {}", options.join(", "))),
        Kind::Str => Ok(Val::Str(String::from_utf8_lossy(v).into_owned())),
        Kind::KeyspaceEvents => keyspace_events_from_str(c_str(v))
            .map(Val::Flags)
            .ok_or_else(|| "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.".into()),
        Kind::Save => parse_save(v).map(Val::Str).ok_or_else(|| "Invalid save parameters".into()),
    }
}

/// config.c `setConfigSaveOption()` + `getConfigSaveOption()`: the value is split on single
/// spaces (a multi-arg config); a lone `""` means no save points; there must be an even
/// number of words, each a `strtoll` number with nothing after it, seconds ≥ 1 and changes
/// ≥ 0. Returns the normalized `seconds changes …` text CONFIG GET prints (changes are a C
/// `int`).
fn parse_save(v: &[u8]) -> Option<String> {
    if v.is_empty() {
        return Some(String::new());
    }
    let words: Vec<&[u8]> = v.split(|&b| b == b' ').collect();
    if words.len() == 1 && words[0].is_empty() {
        return Some(String::new());
    }
    if words.len() % 2 == 1 {
        return None;
    }
    let mut nums = Vec::with_capacity(words.len());
    for (j, w) in words.iter().enumerate() {
        let (val, _, rest) = strtol(w);
        if !rest.is_empty() || (j % 2 == 0 && val < 1) || (j % 2 == 1 && val < 0) {
            return None;
        }
        nums.push(val);
    }
    let pairs: Vec<String> = nums.chunks(2).map(|p| format!("{} {}", p[0], p[1] as i32)).collect();
    Some(pairs.join(" "))
}

/// config.c `numericParseString()`: a memory value first (MEMORY_CONFIG), then `N%`
/// (PERCENT_CONFIG, stored negative), then — only for plain integer configs — an int64.
fn parse_numeric(v: &[u8], memory: bool, percent: bool) -> Result<i64, String> {
    if memory {
        if let Some(n) = parse_memory(v) {
            return Ok(n as i64);
        }
    }
    if percent && v.len() > 1 && v.last() == Some(&b'%') {
        if let Some(n) = string2ll(&v[..v.len() - 1]).filter(|&n| n >= 0) {
            return Ok(-n);
        }
    }
    if !memory && !percent {
        if let Some(n) = string2ll(v) {
            return Ok(n);
        }
    }
    Err(match (memory, percent) {
        (true, true) => "argument must be a memory or percent value",
        (true, false) => "argument must be a memory value",
        _ => "argument couldn't be parsed into an integer",
    }
    .into())
}

/// config.c `numericBoundaryCheck()`: unsigned storage compares (and prints) unsigned.
fn check_bounds(n: i64, min: i64, max: i64, unsigned: bool, percent: bool) -> Result<(), String> {
    if unsigned {
        let (v, lo, hi) = (n as u64, min as u64, max as u64);
        if v > hi || v < lo {
            return Err(format!("argument must be between {lo} and {hi} inclusive"));
        }
    } else if percent && n < 0 {
        if n < min {
            return Err(format!("percentage argument must be less or equal to {}", -min));
        }
    } else if n > max || n < min {
        return Err(format!("argument must be between {min} and {max} inclusive"));
    }
    Ok(())
}

/// config.c `updateHZ()`: hz is stored clamped to 1..500.
fn apply_bounds(name: &str, v: Val) -> Val {
    match (name, v) {
        ("hz", Val::Int(n)) => Val::Int(n.clamp(1, 500)),
        (_, v) => v,
    }
}

/// A CONFIG SET/GET name resolved to its table row and the entry's own name (the alias when
/// the alias was used, as config.c's alias entries carry it).
fn lookup(name: &[u8]) -> Option<(usize, &'static str)> {
    let i = find(name)?;
    let def = &PARAMS[i];
    Some((i, if eq_ic(name, def.name) { def.name } else { def.alias.unwrap_or(def.name) }))
}

fn set_error(arg: &[u8], why: &str) -> Vec<u8> {
    let mut msg = b"CONFIG SET failed (possibly related to argument '".to_vec();
    msg.extend_from_slice(c_str(arg));
    msg.extend_from_slice(b"') - ");
    msg.extend_from_slice(why.as_bytes());
    msg
}

impl Config {
    fn get_val(&self, name: &str) -> Option<&Val> {
        static INDEX: std::sync::OnceLock<std::collections::HashMap<&'static str, usize>> = std::sync::OnceLock::new();
        let index = INDEX.get_or_init(|| PARAMS.iter().enumerate().map(|(i, d)| (d.name, i)).collect());
        index.get(name).map(|&i| &self.values[i])
    }

    /// An integer-like parameter; 0 if unknown. Unsigned memory values above LLONG_MAX (a
    /// `maxmemory` of 16 exabytes) read as LLONG_MAX.
    pub fn int(&self, name: &str) -> i64 {
        let unsigned =
            matches!(PARAMS.iter().find(|d| d.name == name).map(|d| d.kind), Some(Kind::Num { unsigned: true, .. }));
        match self.get_val(name) {
            Some(Val::Int(n)) if unsigned && *n < 0 => i64::MAX,
            Some(Val::Int(n)) => *n,
            Some(Val::Bool(b)) => *b as i64,
            Some(Val::Flags(f)) => *f as i64,
            _ => 0,
        }
    }

    pub fn bool(&self, name: &str) -> bool {
        matches!(self.get_val(name), Some(Val::Bool(true)))
    }

    pub fn str(&self, name: &str) -> &str {
        match self.get_val(name) {
            Some(Val::Str(s)) => s,
            _ => "",
        }
    }

    /// What CONFIG GET prints for parameter `i` (config.c `numericConfigGet()` for numbers).
    fn render(&self, i: usize) -> String {
        match (&self.values[i], PARAMS[i].kind) {
            (Val::Bool(b), _) => (if *b { "yes" } else { "no" }).into(),
            (Val::Int(n), Kind::Num { percent: true, .. }) if *n < 0 => format!("{}%", -(*n as i128)),
            (Val::Int(n), Kind::Num { memory: true, .. }) => (*n as u64).to_string(),
            (Val::Int(n), _) => n.to_string(),
            (Val::Str(s), _) => s.clone(),
            (Val::Flags(f), _) => keyspace_events_to_string(*f),
        }
    }

    /// config.c `configGetCommand()`: exact names are echoed as typed; patterns match names
    /// and aliases case-insensitively. Each name (an alias is a name of its own) appears
    /// once, compared without case, as in Redis's case-insensitive `matches` dict.
    pub fn get(&self, patterns: &[Vec<u8>]) -> Vec<(Vec<u8>, String)> {
        let mut out: Vec<(Vec<u8>, String)> = Vec::new();
        for pat in patterns {
            if !pat.iter().any(|c| matches!(c, b'[' | b'*' | b'?')) {
                if out.iter().any(|(n, _)| n.eq_ignore_ascii_case(pat)) {
                    continue;
                }
                if let Some(i) = find(pat) {
                    out.push((pat.clone(), self.render(i)));
                }
                continue;
            }
            for (i, def) in PARAMS.iter().enumerate() {
                for name in std::iter::once(def.name).chain(def.alias) {
                    let listed = out.iter().any(|(n, _)| eq_ic(n, name));
                    if !listed && glob_match(pat, name.as_bytes(), true) {
                        out.push((name.as_bytes().to_vec(), self.render(i)));
                    }
                }
            }
        }
        out
    }

    /// config.c `configSetCommand()`: resolves every name (the first unknown, immutable or
    /// duplicate one is the error, named as typed), then parses the values in order (a bad
    /// one is named by its entry's own name), then applies all or none. The error is the
    /// full message after `ERR `.
    pub fn set(&mut self, pairs: &[(Vec<u8>, Vec<u8>)]) -> Result<Vec<&'static str>, Vec<u8>> {
        let mut entries: Vec<(usize, &'static str)> = Vec::with_capacity(pairs.len());
        for (name, _) in pairs {
            let Some(entry) = lookup(name) else {
                let mut msg = b"Unknown option or number of arguments for CONFIG SET - '".to_vec();
                msg.extend_from_slice(c_str(name));
                msg.push(b'\'');
                return Err(msg);
            };
            if PARAMS[entry.0].immutable {
                return Err(set_error(name, "can't set immutable config"));
            }
            // Redis compares entries: an alias and its original are different entries.
            if entries.contains(&entry) {
                return Err(set_error(name, "duplicate parameter"));
            }
            entries.push(entry);
        }
        let mut parsed = Vec::with_capacity(pairs.len());
        for ((_, value), &(i, entry_name)) in pairs.iter().zip(&entries) {
            match parse_value(&PARAMS[i], value) {
                Ok(v) => parsed.push(apply_bounds(PARAMS[i].name, v)),
                Err(e) => return Err(set_error(entry_name.as_bytes(), &e)),
            }
        }
        let mut changed = Vec::new();
        for (v, &(i, _)) in parsed.into_iter().zip(&entries) {
            self.values[i] = v;
            changed.push(PARAMS[i].name);
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_render_like_redis() {
        let c = Config::default();
        let got = c.get(&[b"maxmemory-policy".to_vec()]);
        assert_eq!(got, vec![(b"maxmemory-policy".to_vec(), "noeviction".to_string())]);
        assert_eq!(c.int("hz"), 10);
        assert_eq!(c.int("proto-max-bulk-len"), 512 * 1024 * 1024);
    }

    #[test]
    fn set_is_all_or_nothing() {
        let mut c = Config::default();
        let err = c.set(&[(b"hz".to_vec(), b"20".to_vec()), (b"maxmemory".to_vec(), b"x".to_vec())]);
        assert!(err.is_err());
        assert_eq!(c.int("hz"), 10);
        c.set(&[(b"HZ".to_vec(), b"1000".to_vec())]).unwrap();
        assert_eq!(c.int("hz"), 500);
    }

    #[test]
    fn keyspace_event_flags_round_trip() {
        assert_eq!(keyspace_events_to_string(keyspace_events_from_str(b"Kx").unwrap()), "xK");
        assert_eq!(keyspace_events_to_string(keyspace_events_from_str(b"KEA").unwrap()), "AKE");
        assert_eq!(keyspace_events_to_string(keyspace_events_from_str(b"AKEmn").unwrap()), "AKEm");
        assert!(keyspace_events_from_str(b"Q").is_none());
        // Without A, `n` is printed (after the classes, before K/E/m).
        assert_eq!(keyspace_events_to_string(keyspace_events_from_str(b"Kmn").unwrap()), "nKm");
    }

    #[test]
    fn memtoull_quirks() {
        // No digits at all is 0; overflow saturates; the unit multiplication wraps; NUL ends it.
        assert_eq!(parse_memory(b""), Some(0));
        assert_eq!(parse_memory(b"kb"), Some(0));
        assert_eq!(parse_memory(b"99999999999999999999"), Some(u64::MAX));
        assert_eq!(parse_memory(b"20000000000gb"), Some(20_000_000_000u64.wrapping_mul(1 << 30)));
        assert_eq!(parse_memory(b"5mb\x00junk"), Some(5 << 20));
        assert_eq!(parse_memory(&[b'1'; 128]), None);
        assert_eq!(parse_memory(b"1t"), None);
    }

    #[test]
    fn numeric_bounds_follow_the_storage_type() {
        let mut c = Config::default();
        let err =
            |c: &mut Config, k: &str, v: &str| String::from_utf8(c.set(&[(k.into(), v.into())]).unwrap_err()).unwrap();
        // size_t: -1 is huge when compared unsigned.
        assert!(err(&mut c, "set-max-intset-entries", "-1")
            .ends_with("argument must be between 0 and 9223372036854775807 inclusive"));
        // A memory-typed size_t rejects the sign before any bound.
        assert!(err(&mut c, "hash-max-listpack-value", "-1").ends_with("argument must be a memory value"));
        // long long memory: a memtoull result above LLONG_MAX is negative.
        assert!(err(&mut c, "proto-max-bulk-len", "9223372036854775808")
            .ends_with("between 1048576 and 9223372036854775807 inclusive"));
        // Percentages are stored negative and printed back with `%`.
        c.set(&[(b"maxmemory-clients".to_vec(), b"10%".to_vec())]).unwrap();
        assert_eq!(c.get(&[b"maxmemory-clients".to_vec()])[0].1, "10%");
        assert!(err(&mut c, "maxmemory-clients", "101%").ends_with("percentage argument must be less or equal to 100"));
        // maxmemory is unsigned long long: 2^64-1 reads back as such.
        c.set(&[(b"maxmemory".to_vec(), b"18446744073709551615".to_vec())]).unwrap();
        assert_eq!(c.get(&[b"maxmemory".to_vec()])[0].1, "18446744073709551615");
        assert_eq!(c.int("maxmemory"), i64::MAX);
        // A bad value is named by the entry's own name, not as typed.
        assert!(err(&mut c, "HZ", "abc").contains("argument 'hz'"));
        assert!(err(&mut c, "LUA-TIME-LIMIT", "abc").contains("argument 'lua-time-limit'"));
    }

    #[test]
    fn an_alias_is_an_entry_of_its_own() {
        let mut c = Config::default();
        c.set(&[
            (b"hash-max-ziplist-entries".to_vec(), b"10".to_vec()),
            (b"hash-max-listpack-entries".to_vec(), b"20".to_vec()),
        ])
        .unwrap();
        assert_eq!(c.int("hash-max-listpack-entries"), 20);
        assert!(c.set(&[(b"hz".to_vec(), b"1".to_vec()), (b"HZ".to_vec(), b"2".to_vec())]).is_err());
    }

    #[test]
    fn save_points() {
        assert_eq!(parse_save(b""), Some(String::new()));
        assert_eq!(parse_save(b"3600 1 300 100"), Some("3600 1 300 100".into()));
        assert_eq!(parse_save(b"007 +5"), Some("7 5".into()));
        assert_eq!(parse_save(b"60 4294967297"), Some("60 1".into()));
        assert_eq!(parse_save(b"3600 1  300 100"), None);
        assert_eq!(parse_save(b"0 1"), None);
        assert_eq!(parse_save(b"60 "), Some("60 0".into()));
    }

    #[test]
    fn memory_units() {
        assert_eq!(parse_memory(b"1k"), Some(1000));
        assert_eq!(parse_memory(b"1KB"), Some(1024));
        assert_eq!(parse_memory(b"2mb"), Some(2 * 1024 * 1024));
        assert_eq!(parse_memory(b"1.5mb"), None);
        assert_eq!(parse_memory(b"-1"), None);
    }
}
