//! The config table: models config.c's `standardConfig` table and `configSetCommand()` /
//! `configGetCommand()` validation for the parameters the playground has.
//!
//! Each parameter has a type (bool, bounded integer, memory size, enum, string, or the
//! keyspace-event flags), a Redis 7.0 default and, where Redis has one, an alias. CONFIG SET
//! of several pairs is all-or-nothing, as in 7.0. Differences: parameters Redis has and we
//! don't (network, persistence, cluster…) are unknown here; `CONFIG GET` with a pattern
//! lists matches in table order (Redis: its dict's hash order, which is random per process).

use crate::util::{eq_ic, glob_match, string2ll};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Bool,
    Int { min: i64, max: i64 },
    /// A byte count with units (`1k`=1000, `1kb`=1024, …); CONFIG GET prints bytes.
    Memory { min: u64, max: u64 },
    Enum(&'static [&'static str]),
    Str,
    /// `notify-keyspace-events` flags (notify.c).
    KeyspaceEvents,
}

pub struct ParamDef {
    pub name: &'static str,
    pub alias: Option<&'static str>,
    pub kind: Kind,
    pub default: &'static str,
    pub immutable: bool,
}

const INT_MAX: i64 = i32::MAX as i64;
const LLONG_MAX: i64 = i64::MAX;

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

/// Every parameter, with Redis 7.0's defaults.
pub const PARAMS: &[ParamDef] = &[
    fixed("databases", Kind::Int { min: 1, max: INT_MAX }, "16"),
    p("hz", Kind::Int { min: 0, max: INT_MAX }, "10"),
    p("dynamic-hz", Kind::Bool, "yes"),
    p("maxmemory", Kind::Memory { min: 0, max: u64::MAX }, "0"),
    p("maxmemory-policy", Kind::Enum(POLICIES), "noeviction"),
    p("maxmemory-samples", Kind::Int { min: 1, max: INT_MAX }, "5"),
    p("maxmemory-eviction-tenacity", Kind::Int { min: 0, max: 100 }, "10"),
    p("active-expire-effort", Kind::Int { min: 1, max: 10 }, "1"),
    p("lfu-log-factor", Kind::Int { min: 0, max: INT_MAX }, "10"),
    p("lfu-decay-time", Kind::Int { min: 0, max: INT_MAX }, "1"),
    p("lazyfree-lazy-eviction", Kind::Bool, "no"),
    p("lazyfree-lazy-expire", Kind::Bool, "no"),
    p("lazyfree-lazy-server-del", Kind::Bool, "no"),
    p("lazyfree-lazy-user-del", Kind::Bool, "no"),
    p("lazyfree-lazy-user-flush", Kind::Bool, "no"),
    p("notify-keyspace-events", Kind::KeyspaceEvents, ""),
    a("hash-max-listpack-entries", "hash-max-ziplist-entries", Kind::Int { min: 0, max: LLONG_MAX }, "512"),
    a("hash-max-listpack-value", "hash-max-ziplist-value", Kind::Int { min: 0, max: LLONG_MAX }, "64"),
    a("zset-max-listpack-entries", "zset-max-ziplist-entries", Kind::Int { min: 0, max: LLONG_MAX }, "128"),
    a("zset-max-listpack-value", "zset-max-ziplist-value", Kind::Int { min: 0, max: LLONG_MAX }, "64"),
    p("set-max-intset-entries", Kind::Int { min: 0, max: LLONG_MAX }, "512"),
    a("list-max-listpack-size", "list-max-ziplist-size", Kind::Int { min: i32::MIN as i64, max: INT_MAX }, "-2"),
    p("list-compress-depth", Kind::Int { min: 0, max: INT_MAX }, "0"),
    p("proto-max-bulk-len", Kind::Memory { min: 1024 * 1024, max: LLONG_MAX as u64 }, "536870912"),
    a("busy-reply-threshold", "lua-time-limit", Kind::Int { min: 0, max: LLONG_MAX }, "5000"),
    p("maxclients", Kind::Int { min: 1, max: u32::MAX as i64 }, "10000"),
    p("timeout", Kind::Int { min: 0, max: INT_MAX }, "0"),
    p("appendonly", Kind::Bool, "no"),
    p("save", Kind::Str, ""),
    a("replica-ignore-maxmemory", "slave-ignore-maxmemory", Kind::Bool, "yes"),
    // Playground-only (not Redis): the largest single allocation a command may make — one
    // string value or LCS's table. Redis allows up to proto-max-bulk-len (512mb); a browser
    // tab should not be made to allocate that much by one typed line.
    p("playground-max-alloc", Kind::Memory { min: 1024, max: LLONG_MAX as u64 }, "33554432"),
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

/// notify.c `keyspaceEventsFlagsToString()` (which never prints `n`).
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

/// util.c `memtoull()`: digits with an optional unit b/k/kb/m/mb/g/gb (any case).
pub fn parse_memory(s: &[u8]) -> Option<u64> {
    let split = s.iter().position(|c| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    if digits.is_empty() {
        return None;
    }
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
    let mut v: u64 = 0;
    for &d in digits {
        v = v.saturating_mul(10).saturating_add((d - b'0') as u64);
    }
    Some(v.saturating_mul(mul))
}

#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Bool(bool),
    Int(i64),
    Mem(u64),
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
        let values = PARAMS
            .iter()
            .map(|d| parse_value(d, d.default.as_bytes()).unwrap_or(Val::Str(d.default.into())))
            .collect();
        Config { values }
    }
}

/// Parses and validates one value; the error is the text after "- " in CONFIG SET's reply.
fn parse_value(def: &ParamDef, v: &[u8]) -> Result<Val, String> {
    match def.kind {
        Kind::Bool => {
            if eq_ic(v, "yes") {
                Ok(Val::Bool(true))
            } else if eq_ic(v, "no") {
                Ok(Val::Bool(false))
            } else {
                Err("argument must be 'yes' or 'no'".into())
            }
        }
        Kind::Int { min, max } => {
            let n = string2ll(v).ok_or("argument couldn't be parsed into an integer")?;
            if n < min || n > max {
                return Err(format!("argument must be between {min} and {max} inclusive"));
            }
            Ok(Val::Int(n))
        }
        Kind::Memory { min, max } => {
            let n = parse_memory(v).ok_or("argument must be a memory value")?;
            if n < min || n > max {
                return Err(format!("argument must be between {min} and {max} inclusive"));
            }
            Ok(Val::Mem(n))
        }
        Kind::Enum(options) => options
            .iter()
            .find(|o| eq_ic(v, o))
            .map(|o| Val::Str((*o).into()))
            .ok_or_else(|| format!("argument(s) must be one of the following: {}", options.join(", "))),
        Kind::Str => Ok(Val::Str(String::from_utf8_lossy(v).into_owned())),
        Kind::KeyspaceEvents => keyspace_events_from_str(v)
            .map(Val::Flags)
            .ok_or_else(|| "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.".into()),
    }
}

/// config.c `updateHZ()`: hz is stored clamped to 1..500.
fn apply_bounds(name: &str, v: Val) -> Val {
    match (name, v) {
        ("hz", Val::Int(n)) => Val::Int(n.clamp(1, 500)),
        (_, v) => v,
    }
}

impl Config {
    fn get_val(&self, name: &str) -> Option<&Val> {
        PARAMS.iter().position(|d| d.name == name).map(|i| &self.values[i])
    }

    /// An integer-like parameter (ints and memory sizes); 0 if unknown.
    pub fn int(&self, name: &str) -> i64 {
        match self.get_val(name) {
            Some(Val::Int(n)) => *n,
            Some(Val::Mem(n)) => (*n).min(i64::MAX as u64) as i64,
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

    /// What CONFIG GET prints for parameter `i`.
    fn render(&self, i: usize) -> String {
        match &self.values[i] {
            Val::Bool(b) => (if *b { "yes" } else { "no" }).into(),
            Val::Int(n) => n.to_string(),
            Val::Mem(n) => n.to_string(),
            Val::Str(s) => s.clone(),
            Val::Flags(f) => keyspace_events_to_string(*f),
        }
    }

    /// config.c `configGetCommand()`: exact names are echoed as typed; patterns match names
    /// and aliases case-insensitively. Each parameter appears once.
    pub fn get(&self, patterns: &[Vec<u8>]) -> Vec<(Vec<u8>, String)> {
        let mut out: Vec<(Vec<u8>, String)> = Vec::new();
        for pat in patterns {
            if !pat.iter().any(|c| matches!(c, b'[' | b'*' | b'?')) {
                if out.iter().any(|(n, _)| n == pat) {
                    continue;
                }
                if let Some(i) = find(pat) {
                    out.push((pat.clone(), self.render(i)));
                }
                continue;
            }
            for (i, def) in PARAMS.iter().enumerate() {
                for name in std::iter::once(def.name).chain(def.alias) {
                    let listed = out.iter().any(|(n, _)| n.as_slice() == name.as_bytes());
                    if !listed && glob_match(pat, name.as_bytes(), true) {
                        out.push((name.as_bytes().to_vec(), self.render(i)));
                    }
                }
            }
        }
        out
    }

    /// config.c `configSetCommand()`: validates every pair, then applies all or none. The
    /// error is the full message after `ERR `.
    pub fn set(&mut self, pairs: &[(Vec<u8>, Vec<u8>)]) -> Result<Vec<&'static str>, String> {
        let mut idx = Vec::with_capacity(pairs.len());
        for (name, _) in pairs {
            let Some(i) = find(name) else {
                return Err(format!(
                    "Unknown option or number of arguments for CONFIG SET - '{}'",
                    crate::util::text(name)
                ));
            };
            if PARAMS[i].immutable {
                return Err(format!(
                    "CONFIG SET failed (possibly related to argument '{}') - can't set immutable config",
                    crate::util::text(name)
                ));
            }
            if idx.contains(&i) {
                return Err(format!(
                    "CONFIG SET failed (possibly related to argument '{}') - duplicate parameter",
                    crate::util::text(name)
                ));
            }
            idx.push(i);
        }
        let mut parsed = Vec::with_capacity(pairs.len());
        for ((name, value), &i) in pairs.iter().zip(&idx) {
            match parse_value(&PARAMS[i], value) {
                Ok(v) => parsed.push(apply_bounds(PARAMS[i].name, v)),
                Err(e) => {
                    return Err(format!(
                        "CONFIG SET failed (possibly related to argument '{}') - {e}",
                        crate::util::text(name)
                    ))
                }
            }
        }
        let mut changed = Vec::new();
        for (v, &i) in parsed.into_iter().zip(&idx) {
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
