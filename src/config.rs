//! The config table: models config.c's `standardConfig` table (`static_configs`) with every
//! parameter redis-server 7.0.15 has — `CONFIG GET *` lists the same 192 names — and
//! `configGetCommand()`, `configSetCommand()` and the parsing behind them
//! (`numericParseString()`, `numericBoundaryCheck()`, `numericConfigGet()`, `enumConfigSet()`,
//! util.c `memtoull()`, the special parameters' setters: `save`, `client-output-buffer-limit`,
//! `oom-score-adj-values`, `notify-keyspace-events`, `bind`, `latency-tracking-info-percentiles`).
//!
//! Each parameter has Redis 7.0's type, bounds, flags (immutable, protected, hidden, sensitive,
//! multi-argument), default and, where Redis has one, an alias — which, as in Redis, is a
//! parameter entry of its own that shares the value (so `CONFIG SET hash-max-ziplist-entries 1
//! hash-max-listpack-entries 2` is not a duplicate). CONFIG SET of several pairs is
//! all-or-nothing: every name is resolved first (unknown, immutable, protected or duplicate),
//! then every value parsed, then the apply checks run. Hidden parameters need their exact name.
//!
//! What the engine honours: hz, dynamic-hz, databases (at startup), maxmemory and its policy,
//! samples and tenacity, the LFU knobs, lazyfree-*, active-expire-effort, notify-keyspace-events,
//! the listpack/intset thresholds, proto-max-bulk-len, client-query-buffer-limit, maxclients,
//! requirepass, slowlog-*, latency-monitor-threshold, latency-tracking and its percentiles,
//! enable-debug-command / enable-module-command, busy-reply-threshold, and for the RDB file
//! (command/rdb.rs) dir, dbfilename, save (whether SHUTDOWN and FLUSHALL save; serverCron's
//! save points are not modelled yet), rdbcompression, rdbchecksum. The rest are validated and
//! stored like Redis's and read back by CONFIG GET, but change nothing (no AOF, no
//! replication, no cluster, no TLS). Values that describe the process rather than a setting are
//! plausible constants: `dir` is /var/lib/redis (Debian's; `redisplay serve` sets the real
//! directory, where its RDB file goes), `pidfile` and `logfile` are empty (a
//! server started in the foreground), `port` follows the engine's port (6379 in the page, the
//! real one under `redisplay serve`) and CONFIG SET of another port answers Redis's "Unable to
//! listen on this port" as a server that cannot bind it would; `bind` is stored, not re-bound.
//!
//! Differences: `CONFIG GET` lists matches in table order where Redis uses its dict's hash order
//! (random per process); a parameter name with a NUL byte is unknown here (Redis's answer
//! depends on its per-process hash seed, as for command names). Playground-only parameters
//! (`playground-*`) are hidden: `CONFIG GET *` doesn't list them, `CONFIG GET playground-*`
//! does not match them either, only their exact names do.

use crate::util::{c_str, eq_ic, glob_match, string2d, string2ll, strtol};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Bool,
    /// A config.c numeric config. `unsigned`: unsigned int / size_t / unsigned long long storage,
    /// whose bounds are compared (and printed) unsigned. `memory`: MEMORY_CONFIG (units
    /// accepted, printed unsigned). `percent`: PERCENT_CONFIG (`10%`, stored negative).
    /// `octal`: OCTAL_CONFIG (parsed and printed in base 8).
    Num {
        min: i64,
        max: i64,
        unsigned: bool,
        memory: bool,
        percent: bool,
        octal: bool,
    },
    Enum(&'static [&'static str]),
    /// An enum whose values are bit flags, several of them space-separated (`shutdown-on-*`):
    /// the names in order, the first (value 0) being `default`.
    FlagEnum(&'static [&'static str]),
    /// A string (config.c string and sds configs; `""` reads back for NULL).
    Str,
    /// `notify-keyspace-events` flags (notify.c).
    KeyspaceEvents,
    /// `save`: `seconds changes` pairs (config.c `setConfigSaveOption()`).
    Save,
    /// `client-output-buffer-limit`: `class hard soft seconds` quadruples.
    ClientOutputBufferLimit,
    /// `oom-score-adj-values`: three integers in -2000..2000.
    OomScoreAdjValues,
    /// `bind`: up to 16 addresses.
    Bind,
    /// `replicaof`: `host port` or empty (immutable here, as in Redis's table).
    ReplicaOf,
    /// `latency-tracking-info-percentiles`: doubles in 0..100.
    Percentiles,
    /// `dir`: the working directory.
    Dir,
}

/// A parameter's own check of a value (config.c's `is_valid_fn`s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Check {
    None,
    /// `isValidDBfilename()`.
    DbFilename,
    /// `isValidAOFfilename()`.
    AofFilename,
    /// `isValidAOFdirname()`.
    AofDirname,
    /// `isValidAnnouncedHostname()`.
    Hostname,
    /// `isValidProcTitleTemplate()`.
    ProcTitle,
    /// `isValidActiveDefrag()` on a build without jemalloc's defrag hint (Debian's).
    ActiveDefrag,
    /// `isValidShutdownOnSigFlags()`.
    ShutdownFlags,
}

pub struct ParamDef {
    pub name: &'static str,
    pub alias: Option<&'static str>,
    pub kind: Kind,
    pub default: &'static str,
    pub flags: u8,
    pub check: Check,
}

/// config.c flag bits (the ones that change what CONFIG does).
pub const IMMUTABLE: u8 = 1 << 0;
pub const PROTECTED: u8 = 1 << 1;
pub const HIDDEN: u8 = 1 << 2;
pub const SENSITIVE: u8 = 1 << 3;

impl ParamDef {
    pub fn immutable(&self) -> bool {
        self.flags & IMMUTABLE != 0
    }
}

const INT_MIN: i64 = i32::MIN as i64;
const INT_MAX: i64 = i32::MAX as i64;
const UINT_MAX: i64 = u32::MAX as i64;
const LONG_MAX: i64 = i64::MAX;
const LLONG_MAX: i64 = i64::MAX;
/// ULLONG_MAX as config.c stores it in its `long long` bounds.
const ULLONG_MAX: i64 = -1;

/// createIntConfig / createLongConfig / createLongLongConfig / createULongConfig /
/// createTimeTConfig / createOffTConfig / createSSizeTConfig: bounds compared signed.
const fn int(min: i64, max: i64) -> Kind {
    Kind::Num { min, max, unsigned: false, memory: false, percent: false, octal: false }
}
/// createSizeTConfig / createUIntConfig / createULongLongConfig: bounds compared unsigned.
const fn uint(min: i64, max: i64) -> Kind {
    Kind::Num { min, max, unsigned: true, memory: false, percent: false, octal: false }
}
/// A MEMORY_CONFIG numeric config, `unsigned` per its storage type.
const fn mem(min: i64, max: i64, unsigned: bool) -> Kind {
    Kind::Num { min, max, unsigned, memory: true, percent: false, octal: false }
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
const PROTECTED_ACTION: &[&str] = &["no", "yes", "local"];
const SHUTDOWN_FLAGS: &[&str] = &["default", "save", "nosave", "now", "force"];

const fn def(
    name: &'static str,
    alias: Option<&'static str>,
    kind: Kind,
    default: &'static str,
    flags: u8,
) -> ParamDef {
    ParamDef { name, alias, kind, default, flags, check: Check::None }
}
const fn p(name: &'static str, kind: Kind, default: &'static str) -> ParamDef {
    def(name, None, kind, default, 0)
}
const fn a(name: &'static str, alias: &'static str, kind: Kind, default: &'static str) -> ParamDef {
    def(name, Some(alias), kind, default, 0)
}
const fn fixed(name: &'static str, kind: Kind, default: &'static str) -> ParamDef {
    def(name, None, kind, default, IMMUTABLE)
}
const fn hidden(name: &'static str, kind: Kind, default: &'static str) -> ParamDef {
    def(name, None, kind, default, HIDDEN)
}
const fn checked(name: &'static str, kind: Kind, default: &'static str, flags: u8, check: Check) -> ParamDef {
    ParamDef { name, alias: None, kind, default, flags, check }
}

/// Every parameter of redis-server 7.0.15, in config.c's table order, with its type, bounds,
/// flags and default (the defaults of a server started as `redis-server --save '' --appendonly
/// no`), then the playground's own.
pub const PARAMS: &[ParamDef] = &[
    // Bool configs
    fixed("rdbchecksum", Kind::Bool, "yes"),
    fixed("daemonize", Kind::Bool, "no"),
    fixed("io-threads-do-reads", Kind::Bool, "no"),
    fixed("always-show-logo", Kind::Bool, "no"),
    p("protected-mode", Kind::Bool, "yes"),
    // DUMP compresses strings of more than 20 bytes with LZF (rdb.c rdbSaveRawString()).
    p("rdbcompression", Kind::Bool, "yes"),
    p("rdb-del-sync-files", Kind::Bool, "no"),
    p("activerehashing", Kind::Bool, "yes"),
    p("stop-writes-on-bgsave-error", Kind::Bool, "yes"),
    fixed("set-proc-title", Kind::Bool, "yes"),
    p("dynamic-hz", Kind::Bool, "yes"),
    p("lazyfree-lazy-eviction", Kind::Bool, "no"),
    p("lazyfree-lazy-expire", Kind::Bool, "no"),
    p("lazyfree-lazy-server-del", Kind::Bool, "no"),
    p("lazyfree-lazy-user-del", Kind::Bool, "no"),
    p("lazyfree-lazy-user-flush", Kind::Bool, "no"),
    p("repl-disable-tcp-nodelay", Kind::Bool, "no"),
    p("repl-diskless-sync", Kind::Bool, "yes"),
    p("aof-rewrite-incremental-fsync", Kind::Bool, "yes"),
    p("no-appendfsync-on-rewrite", Kind::Bool, "no"),
    p("cluster-require-full-coverage", Kind::Bool, "yes"),
    p("rdb-save-incremental-fsync", Kind::Bool, "yes"),
    p("aof-load-truncated", Kind::Bool, "yes"),
    p("aof-use-rdb-preamble", Kind::Bool, "yes"),
    p("aof-timestamp-enabled", Kind::Bool, "no"),
    a("cluster-replica-no-failover", "cluster-slave-no-failover", Kind::Bool, "no"),
    a("replica-lazy-flush", "slave-lazy-flush", Kind::Bool, "no"),
    a("replica-serve-stale-data", "slave-serve-stale-data", Kind::Bool, "yes"),
    a("replica-read-only", "slave-read-only", Kind::Bool, "yes"),
    a("replica-ignore-maxmemory", "slave-ignore-maxmemory", Kind::Bool, "yes"),
    p("jemalloc-bg-thread", Kind::Bool, "yes"),
    checked("activedefrag", Kind::Bool, "no", 0, Check::ActiveDefrag),
    fixed("syslog-enabled", Kind::Bool, "no"),
    fixed("cluster-enabled", Kind::Bool, "no"),
    p("appendonly", Kind::Bool, "no"),
    p("cluster-allow-reads-when-down", Kind::Bool, "no"),
    p("cluster-allow-pubsubshard-when-down", Kind::Bool, "yes"),
    p("crash-log-enabled", Kind::Bool, "yes"),
    p("crash-memcheck-enabled", Kind::Bool, "yes"),
    hidden("use-exit-on-panic", Kind::Bool, "no"),
    fixed("disable-thp", Kind::Bool, "yes"),
    p("cluster-allow-replica-migration", Kind::Bool, "yes"),
    p("replica-announced", Kind::Bool, "yes"),
    p("latency-tracking", Kind::Bool, "yes"),
    p("aof-disable-auto-gc", Kind::Bool, "no"),
    p("replica-ignore-disk-write-errors", Kind::Bool, "no"),
    // String configs
    fixed("aclfile", Kind::Str, ""),
    fixed("unixsocket", Kind::Str, ""),
    fixed("pidfile", Kind::Str, ""),
    a("replica-announce-ip", "slave-announce-ip", Kind::Str, ""),
    def("masteruser", None, Kind::Str, "", SENSITIVE),
    p("cluster-announce-ip", Kind::Str, ""),
    fixed("cluster-config-file", Kind::Str, "nodes.conf"),
    checked("cluster-announce-hostname", Kind::Str, "", 0, Check::Hostname),
    fixed("syslog-ident", Kind::Str, "redis"),
    checked("dbfilename", Kind::Str, "dump.rdb", PROTECTED, Check::DbFilename),
    checked("appendfilename", Kind::Str, "appendonly.aof", IMMUTABLE, Check::AofFilename),
    checked("appenddirname", Kind::Str, "appendonlydir", IMMUTABLE, Check::AofDirname),
    fixed("server_cpulist", Kind::Str, ""),
    fixed("bio_cpulist", Kind::Str, ""),
    fixed("aof_rewrite_cpulist", Kind::Str, ""),
    fixed("bgsave_cpulist", Kind::Str, ""),
    p("ignore-warnings", Kind::Str, ""),
    checked("proc-title-template", Kind::Str, "{title} {listen-addr} {server-mode}", 0, Check::ProcTitle),
    p("bind-source-addr", Kind::Str, ""),
    fixed("logfile", Kind::Str, ""),
    def("masterauth", None, Kind::Str, "", SENSITIVE),
    // The default user's password (ACL `>pass`); "" = nopass. Clients connected before it is
    // set stay authenticated, as in Redis.
    def("requirepass", None, Kind::Str, "", SENSITIVE),
    // Enum configs
    fixed("supervised", Kind::Enum(&["upstart", "systemd", "auto", "no"]), "no"),
    fixed(
        "syslog-facility",
        Kind::Enum(&["user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"]),
        "local0",
    ),
    p("repl-diskless-load", Kind::Enum(&["disabled", "on-empty-db", "swapdb"]), "disabled"),
    p("loglevel", Kind::Enum(&["debug", "verbose", "notice", "warning"]), "notice"),
    p("maxmemory-policy", Kind::Enum(POLICIES), "noeviction"),
    p("appendfsync", Kind::Enum(&["everysec", "always", "no"]), "everysec"),
    p("oom-score-adj", Kind::Enum(&["no", "yes", "relative", "absolute"]), "no"),
    p("acl-pubsub-default", Kind::Enum(&["allchannels", "resetchannels"]), "resetchannels"),
    // Stored and validated; RESTORE here always checks payloads as `yes` does (persist/rdb.rs).
    p("sanitize-dump-payload", Kind::Enum(&["no", "yes", "clients"]), "no"),
    fixed("enable-protected-configs", Kind::Enum(PROTECTED_ACTION), "no"),
    fixed("enable-debug-command", Kind::Enum(PROTECTED_ACTION), "no"),
    fixed("enable-module-command", Kind::Enum(PROTECTED_ACTION), "no"),
    p("cluster-preferred-endpoint-type", Kind::Enum(&["ip", "hostname", "unknown-endpoint"]), "ip"),
    p("propagation-error-behavior", Kind::Enum(&["ignore", "panic", "panic-on-replicas"]), "ignore"),
    checked("shutdown-on-sigint", Kind::FlagEnum(SHUTDOWN_FLAGS), "default", 0, Check::ShutdownFlags),
    checked("shutdown-on-sigterm", Kind::FlagEnum(SHUTDOWN_FLAGS), "default", 0, Check::ShutdownFlags),
    // Integer configs
    fixed("databases", int(1, INT_MAX), "16"),
    p("port", int(0, 65535), "6379"),
    fixed("io-threads", int(1, 128), "1"),
    p("auto-aof-rewrite-percentage", int(0, INT_MAX), "100"),
    a("cluster-replica-validity-factor", "cluster-slave-validity-factor", int(0, INT_MAX), "10"),
    a("list-max-listpack-size", "list-max-ziplist-size", int(INT_MIN, INT_MAX), "-2"),
    p("tcp-keepalive", int(0, INT_MAX), "300"),
    p("cluster-migration-barrier", int(0, INT_MAX), "1"),
    p("active-defrag-cycle-min", int(1, 99), "1"),
    p("active-defrag-cycle-max", int(1, 99), "25"),
    p("active-defrag-threshold-lower", int(0, 1000), "10"),
    p("active-defrag-threshold-upper", int(0, 1000), "100"),
    p("lfu-log-factor", int(0, INT_MAX), "10"),
    p("lfu-decay-time", int(0, INT_MAX), "1"),
    a("replica-priority", "slave-priority", int(0, INT_MAX), "100"),
    p("repl-diskless-sync-delay", int(0, INT_MAX), "5"),
    p("maxmemory-samples", int(1, INT_MAX), "5"),
    p("maxmemory-eviction-tenacity", int(0, 100), "10"),
    p("timeout", int(0, INT_MAX), "0"),
    a("replica-announce-port", "slave-announce-port", int(0, 65535), "0"),
    fixed("tcp-backlog", int(0, INT_MAX), "511"),
    fixed("cluster-port", int(0, 65535), "0"),
    p("cluster-announce-bus-port", int(0, 65535), "0"),
    p("cluster-announce-port", int(0, 65535), "0"),
    p("cluster-announce-tls-port", int(0, 65535), "0"),
    p("repl-timeout", int(1, INT_MAX), "60"),
    a("repl-ping-replica-period", "repl-ping-slave-period", int(1, INT_MAX), "10"),
    p("list-compress-depth", int(0, INT_MAX), "0"),
    hidden("rdb-key-save-delay", int(INT_MIN, INT_MAX), "0"),
    hidden("key-load-delay", int(INT_MIN, INT_MAX), "0"),
    p("active-expire-effort", int(1, 10), "1"),
    p("hz", int(0, INT_MAX), "10"),
    a("min-replicas-to-write", "min-slaves-to-write", int(0, INT_MAX), "0"),
    a("min-replicas-max-lag", "min-slaves-max-lag", int(0, INT_MAX), "10"),
    hidden("watchdog-period", int(0, INT_MAX), "0"),
    p("shutdown-timeout", int(0, INT_MAX), "10"),
    p("repl-diskless-sync-max-replicas", int(0, INT_MAX), "0"),
    // Unsigned int configs
    p("maxclients", uint(1, UINT_MAX), "10000"),
    fixed(
        "unixsocketperm",
        Kind::Num { min: 0, max: 0o777, unsigned: true, memory: false, percent: false, octal: true },
        "0",
    ),
    fixed("socket-mark-id", uint(0, UINT_MAX), "0"),
    // Unsigned long configs (compared signed, as config.c does for them)
    p("active-defrag-max-scan-fields", int(1, LONG_MAX), "1000"),
    p("slowlog-max-len", int(0, LONG_MAX), "128"),
    p("acllog-max-len", int(0, LONG_MAX), "128"),
    // Long long configs
    a("busy-reply-threshold", "lua-time-limit", int(0, LONG_MAX), "5000"),
    p("cluster-node-timeout", int(0, LLONG_MAX), "15000"),
    p("slowlog-log-slower-than", int(-1, LLONG_MAX), "10000"),
    p("latency-monitor-threshold", int(0, LLONG_MAX), "0"),
    p("proto-max-bulk-len", mem(1024 * 1024, LONG_MAX, false), "536870912"),
    p("stream-node-max-entries", int(0, LLONG_MAX), "100"),
    p("repl-backlog-size", mem(1, LLONG_MAX, false), "1048576"),
    // Unsigned long long configs
    p("maxmemory", mem(0, ULLONG_MAX, true), "0"),
    p("cluster-link-sendbuf-limit", mem(0, ULLONG_MAX, true), "0"),
    // Size_t configs
    a("hash-max-listpack-entries", "hash-max-ziplist-entries", uint(0, LONG_MAX), "512"),
    p("set-max-intset-entries", uint(0, LONG_MAX), "512"),
    a("zset-max-listpack-entries", "zset-max-ziplist-entries", uint(0, LONG_MAX), "128"),
    p("active-defrag-ignore-bytes", mem(1, LLONG_MAX, true), "104857600"),
    a("hash-max-listpack-value", "hash-max-ziplist-value", mem(0, LONG_MAX, true), "64"),
    p("stream-node-max-bytes", mem(0, LONG_MAX, true), "4096"),
    a("zset-max-listpack-value", "zset-max-ziplist-value", mem(0, LONG_MAX, true), "64"),
    p("hll-sparse-max-bytes", mem(0, LONG_MAX, true), "3000"),
    p("tracking-table-max-keys", uint(0, LONG_MAX), "1000000"),
    p("client-query-buffer-limit", mem(1024 * 1024, LONG_MAX, true), "1073741824"),
    p(
        "maxmemory-clients",
        Kind::Num { min: -100, max: LONG_MAX, unsigned: false, memory: true, percent: true, octal: false },
        "0",
    ),
    // Other configs
    p("repl-backlog-ttl", int(0, LONG_MAX), "3600"),
    p("auto-aof-rewrite-min-size", mem(0, LLONG_MAX, false), "67108864"),
    hidden("loading-process-events-interval-bytes", int(1024, INT_MAX), "2097152"),
    // TLS configs (Debian builds with TLS)
    p("tls-port", int(0, 65535), "0"),
    p("tls-session-cache-size", int(0, INT_MAX), "20480"),
    p("tls-session-cache-timeout", int(0, INT_MAX), "300"),
    p("tls-cluster", Kind::Bool, "no"),
    p("tls-replication", Kind::Bool, "no"),
    p("tls-auth-clients", Kind::Enum(&["no", "yes", "optional"]), "yes"),
    p("tls-prefer-server-ciphers", Kind::Bool, "no"),
    p("tls-session-caching", Kind::Bool, "yes"),
    p("tls-cert-file", Kind::Str, ""),
    p("tls-key-file", Kind::Str, ""),
    p("tls-key-file-pass", Kind::Str, ""),
    p("tls-client-cert-file", Kind::Str, ""),
    p("tls-client-key-file", Kind::Str, ""),
    p("tls-client-key-file-pass", Kind::Str, ""),
    p("tls-dh-params-file", Kind::Str, ""),
    p("tls-ca-cert-file", Kind::Str, ""),
    p("tls-ca-cert-dir", Kind::Str, ""),
    p("tls-protocols", Kind::Str, ""),
    p("tls-ciphers", Kind::Str, ""),
    p("tls-ciphersuites", Kind::Str, ""),
    // Special configs
    def("dir", None, Kind::Dir, "/var/lib/redis", PROTECTED),
    p("save", Kind::Save, ""),
    p(
        "client-output-buffer-limit",
        Kind::ClientOutputBufferLimit,
        "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
    ),
    p("oom-score-adj-values", Kind::OomScoreAdjValues, "0 200 800"),
    p("notify-keyspace-events", Kind::KeyspaceEvents, ""),
    p("bind", Kind::Bind, "* -::*"),
    def("replicaof", Some("slaveof"), Kind::ReplicaOf, "", IMMUTABLE),
    p("latency-tracking-info-percentiles", Kind::Percentiles, "50 99 99.9"),
    // Playground-only (not Redis), hidden from patterns: the largest single allocation a
    // command may make — one string value or LCS's table. Redis allows up to
    // proto-max-bulk-len (512mb); a browser tab should not be made to allocate that much by
    // one typed line.
    hidden("playground-max-alloc", mem(1024, LONG_MAX, false), "33554432"),
    // Playground-only: which active-expire algorithm serverCron runs — Redis 7.0's bucket
    // cursor, or the classic ≤5.0 random sampling that tutorials describe (src/expire.rs).
    hidden("playground-expire-algorithm", Kind::Enum(&["7.0", "classic"]), "7.0"),
    // Playground-only: scales every virtual CPU cost of src/cost.rs (100 = as calibrated
    // against redis-server 7.0.15); time caps, stalls and command durations move with it.
    hidden("playground-cost-percent", int(0, 100_000), "100"),
    // Playground-only: the virtual ms a script may run before the playground ends it (Redis
    // lets it run until SCRIPT KILL or SHUTDOWN NOSAVE; BUSY and SCRIPT KILL work until then).
    hidden("playground-script-time-limit", int(1, LONG_MAX), "60000"),
];

/// Whether `name` is a parameter (or an alias of one).
pub fn is_parameter(name: &str) -> bool {
    find(name.as_bytes()).is_some()
}

/// Whether CONFIG SET's value for this parameter name is kept out of the slow log.
pub fn is_sensitive(name: &[u8]) -> bool {
    find(name).is_some_and(|i| PARAMS[i].flags & SENSITIVE != 0)
}

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
    /// A string, or a special parameter's normalized text (what CONFIG GET prints).
    Str(String),
    Flags(u32),
}

/// The current values, one per `PARAMS` row.
#[derive(Clone, Debug)]
pub struct Config {
    values: Vec<Val>,
}

/// Row index by lowercase name or alias.
/// Name → parameter, hashed with the maps' fixed foldhash (ds/map.rs): commands read a few
/// parameters each, where SipHash showed in profiles.
type Index = std::collections::HashMap<String, usize, crate::ds::map::Hasher>;

fn index() -> &'static Index {
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut m = Index::default();
        for (i, d) in PARAMS.iter().enumerate() {
            m.insert(d.name.to_string(), i);
            if let Some(al) = d.alias {
                m.insert(al.to_string(), i);
            }
        }
        m
    })
}

fn find(name: &[u8]) -> Option<usize> {
    let lower = std::str::from_utf8(name).ok()?.to_ascii_lowercase();
    index().get(&lower).copied()
}

impl Default for Config {
    fn default() -> Self {
        let values =
            PARAMS.iter().map(|d| parse_value(d, d.default.as_bytes()).unwrap_or(Val::Str(d.default.into()))).collect();
        Config { values }
    }
}

/// The words of a MULTI_ARG_CONFIG value: `sdssplitlen(value, " ")`, so two spaces make an
/// empty word and an empty value has none.
fn words(v: &[u8]) -> Vec<&[u8]> {
    if v.is_empty() {
        return vec![];
    }
    v.split(|&b| b == b' ').collect()
}

/// Parses and validates one value; the error is the text after "- " in CONFIG SET's reply.
fn parse_value(def: &ParamDef, v: &[u8]) -> Result<Val, String> {
    let val = match def.kind {
        Kind::Bool => {
            if eq_ic(c_str(v), "yes") {
                Val::Bool(true)
            } else if eq_ic(c_str(v), "no") {
                Val::Bool(false)
            } else {
                return Err("argument must be 'yes' or 'no'".into());
            }
        }
        Kind::Num { min, max, unsigned, memory, percent, octal } => {
            let n = parse_numeric(v, memory, percent, octal)?;
            check_bounds(n, min, max, unsigned, percent, octal)?;
            Val::Int(n)
        }
        Kind::Enum(options) => match options.iter().find(|o| eq_ic(c_str(v), o)) {
            Some(o) => Val::Str((*o).into()),
            None => return Err(enum_error(options)),
        },
        Kind::FlagEnum(options) => {
            let mut flags = 0u32;
            let ws = words(v);
            if ws.is_empty() {
                return Err(enum_error(options));
            }
            for w in ws {
                match options.iter().position(|o| eq_ic(c_str(w), o)) {
                    Some(0) => {}
                    Some(i) => flags |= 1 << (i - 1),
                    None => return Err(enum_error(options)),
                }
            }
            Val::Flags(flags)
        }
        Kind::Str => Val::Str(String::from_utf8_lossy(v).into_owned()),
        Kind::Dir => Val::Str(String::from_utf8_lossy(v).into_owned()),
        Kind::KeyspaceEvents => match keyspace_events_from_str(c_str(v)) {
            Some(f) => Val::Flags(f),
            None => return Err("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.".into()),
        },
        Kind::Save => Val::Str(parse_save(v).ok_or("Invalid save parameters")?),
        Kind::ClientOutputBufferLimit => Val::Str(parse_obuf_limits(v)?),
        Kind::OomScoreAdjValues => Val::Str(parse_oom_score_adj_values(v)?),
        Kind::Bind => {
            let ws = words(v);
            if ws.len() > 16 {
                return Err("Too many bind addresses specified.".into());
            }
            let ws: Vec<&[u8]> = if ws.len() == 1 && ws[0].is_empty() { vec![] } else { ws };
            Val::Str(ws.iter().map(|w| String::from_utf8_lossy(w).into_owned()).collect::<Vec<_>>().join(" "))
        }
        Kind::ReplicaOf => {
            let ws = words(v);
            if ws.len() != 2 {
                return Err("wrong number of arguments".into());
            }
            if eq_ic(ws[0], "no") && eq_ic(ws[1], "one") {
                Val::Str(String::new())
            } else {
                let (port, _, rest) = strtol(ws[1]);
                if !(0..=65535).contains(&port) || !rest.is_empty() {
                    return Err("Invalid master port".into());
                }
                Val::Str(format!("{} {}", String::from_utf8_lossy(ws[0]), port))
            }
        }
        Kind::Percentiles => Val::Str(parse_percentiles(v)?),
    };
    run_check(def.check, v, &val)?;
    Ok(val)
}

/// `enumConfigSet()`'s error: every accepted name.
fn enum_error(options: &[&str]) -> String {
    format!("argument(s) must be one of the following: {}", options.join(", "))
}

/// A parameter's own validity check (config.c's `is_valid_fn`s).
fn run_check(check: Check, v: &[u8], val: &Val) -> Result<(), String> {
    let s = c_str(v);
    match check {
        Check::None => Ok(()),
        Check::DbFilename if s.contains(&b'/') => Err("dbfilename can't be a path, just a filename".into()),
        Check::AofFilename if s.is_empty() => Err("appendfilename can't be empty".into()),
        Check::AofFilename if s.contains(&b'/') => Err("appendfilename can't be a path, just a filename".into()),
        Check::AofDirname if s.is_empty() => Err("appenddirname can't be empty".into()),
        Check::AofDirname if s.contains(&b'/') => Err("appenddirname can't be a path, just a dirname".into()),
        Check::Hostname => {
            if s.len() >= 256 {
                Err("Hostnames must be less than 256 characters".into())
            } else if s.iter().any(|&c| !(c.is_ascii_alphanumeric() || c == b'-' || c == b'.')) {
                Err("Hostnames may only contain alphanumeric characters, hyphens or dots".into())
            } else {
                Ok(())
            }
        }
        Check::ProcTitle if !valid_proc_title(s) => {
            Err("template format is invalid or contains unknown variables".into())
        }
        Check::ActiveDefrag if *val == Val::Bool(true) => Err("Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution".into()),
        // SAVE (bit 0) with NOSAVE (bit 1).
        Check::ShutdownFlags if matches!(val, Val::Flags(f) if f & 3 == 3) => {
            Err("shutdown options SAVE and NOSAVE can't be used simultaneously".into())
        }
        _ => Ok(()),
    }
}

/// server.c `validateProcTitleTemplate()`: sds.c `sdstemplate()` must expand it (`{{` is a
/// literal brace, a variable must be one of the known names and closed) to something that is
/// not blank once trimmed, with an empty title.
fn valid_proc_title(t: &[u8]) -> bool {
    let mut out: Vec<u8> = Vec::new();
    let mut p = 0;
    while p < t.len() {
        let Some(sv) = t[p..].iter().position(|&c| c == b'{').map(|i| p + i) else {
            out.extend_from_slice(&t[p..]);
            break;
        };
        out.extend_from_slice(&t[p..sv]);
        let name_start = sv + 1;
        if name_start >= t.len() {
            return false;
        }
        if t[name_start] == b'{' {
            out.push(b'{');
            p = name_start + 1;
            continue;
        }
        let Some(ev) = t[name_start..].iter().position(|&c| c == b'}').map(|i| name_start + i) else {
            return false;
        };
        let value: &[u8] = match &t[name_start..ev] {
            b"title" | b"server-mode" | b"unixsocket" | b"config-file" => b"",
            b"listen-addr" => b"*:6379",
            b"port" => b"6379",
            b"tls-port" => b"0",
            _ => return false,
        };
        out.extend_from_slice(value);
        p = ev + 1;
    }
    out.iter().any(|&c| c != b' ')
}

/// config.c `updateClientOutputBufferLimit()`: `class hard soft seconds` quadruples, all checked
/// before any is applied; the result is the full normalized text (all three classes).
fn parse_obuf_limits(v: &[u8]) -> Result<String, String> {
    let ws = words(v);
    if !ws.len().is_multiple_of(4) {
        return Err("Wrong number of arguments in buffer limit configuration.".into());
    }
    for q in ws.chunks(4) {
        let class = c_str(q[0]);
        if !(eq_ic(class, "normal") || eq_ic(class, "slave") || eq_ic(class, "replica") || eq_ic(class, "pubsub")) {
            return Err("Invalid client class specified in buffer limit configuration.".into());
        }
        let (secs, _, rest) = strtol(q[3]);
        if parse_memory(q[1]).is_none() || parse_memory(q[2]).is_none() || secs < 0 || !rest.is_empty() {
            return Err("Error in hard, soft or soft_seconds setting in buffer limit configuration.".into());
        }
    }
    Ok(String::from_utf8_lossy(v).into_owned())
}

/// Applies checked quadruples to the current three classes (config.c keeps the classes not
/// named).
fn merge_obuf_limits(current: &str, v: &str) -> String {
    let mut classes: Vec<(String, u64, u64, i64)> = Vec::new();
    let cur: Vec<&str> = current.split(' ').collect();
    for q in cur.chunks(4) {
        if let [c, h, s, t] = q {
            classes.push((c.to_string(), h.parse().unwrap_or(0), s.parse().unwrap_or(0), t.parse().unwrap_or(0)));
        }
    }
    let ws = words(v.as_bytes());
    for q in ws.chunks(4) {
        let class = String::from_utf8_lossy(c_str(q[0])).to_ascii_lowercase();
        let class = if class == "replica" { "slave".to_string() } else { class };
        let hard = parse_memory(q[1]).unwrap_or(0);
        let soft = parse_memory(q[2]).unwrap_or(0);
        let secs = strtol(q[3]).0;
        if let Some(c) = classes.iter_mut().find(|c| c.0 == class) {
            *c = (class, hard, soft, secs);
        }
    }
    classes.iter().map(|(c, h, s, t)| format!("{c} {h} {s} {t}")).collect::<Vec<_>>().join(" ")
}

/// config.c `setConfigOOMScoreAdjValuesOption()`.
fn parse_oom_score_adj_values(v: &[u8]) -> Result<String, String> {
    let ws = words(v);
    if ws.len() != 3 {
        return Err("wrong number of arguments".into());
    }
    let mut out = Vec::new();
    for w in ws {
        let (n, _, rest) = strtol(w);
        if !rest.is_empty() || !(-2000..=2000).contains(&n) {
            return Err("Invalid oom-score-adj-values, elements must be between -2000 and 2000.".into());
        }
        out.push(n.to_string());
    }
    Ok(out.join(" "))
}

/// config.c `setConfigLatencyTrackingInfoPercentilesOutputOption()` and its getter (`%f`, then
/// trailing zeros trimmed).
fn parse_percentiles(v: &[u8]) -> Result<String, String> {
    let ws = words(v);
    if ws.len() == 1 && ws[0].is_empty() {
        return Ok(String::new());
    }
    let mut out = Vec::new();
    for w in ws {
        let Some(p) = string2d(w) else {
            return Err("Invalid latency-tracking-info-percentiles parameters".into());
        };
        if !(0.0..=100.0).contains(&p) {
            return Err("latency-tracking-info-percentiles parameters should sit between [0.0,100.0]".into());
        }
        out.push(trim_double(&format!("{p:.6}")));
    }
    Ok(out.join(" "))
}

/// util.c `trimDoubleString()`: drop a fraction's trailing zeros (and the dot).
pub fn trim_double(s: &str) -> String {
    if !s.contains('.') {
        return s.to_string();
    }
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The configured percentiles (INFO latencystats).
pub fn percentiles(text: &str) -> Vec<f64> {
    text.split(' ').filter(|w| !w.is_empty()).filter_map(|w| w.parse().ok()).collect()
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
/// (PERCENT_CONFIG, stored negative), then an octal number (OCTAL_CONFIG), then — only for plain
/// integer configs — an int64.
fn parse_numeric(v: &[u8], memory: bool, percent: bool, octal: bool) -> Result<i64, String> {
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
    if octal {
        let s = c_str(v);
        let (neg, digits) = match s.first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        if !digits.is_empty() && digits.iter().all(|c| (b'0'..=b'7').contains(c)) && s.len() == v.len() {
            let mut n: i64 = 0;
            let mut ok = true;
            for &d in digits {
                match n.checked_mul(8).and_then(|n| n.checked_add((d - b'0') as i64)) {
                    Some(x) => n = x,
                    None => ok = false,
                }
            }
            if ok {
                return Ok(if neg { -n } else { n });
            }
        }
    }
    if !memory && !percent && !octal {
        if let Some(n) = string2ll(v) {
            return Ok(n);
        }
    }
    Err(match (memory, percent, octal) {
        (true, true, _) => "argument must be a memory or percent value",
        (true, false, _) => "argument must be a memory value",
        (_, _, true) => "argument couldn't be parsed as an octal number",
        _ => "argument couldn't be parsed into an integer",
    }
    .into())
}

/// config.c `numericBoundaryCheck()`: unsigned storage compares (and prints) unsigned.
fn check_bounds(n: i64, min: i64, max: i64, unsigned: bool, percent: bool, octal: bool) -> Result<(), String> {
    if unsigned {
        let (v, lo, hi) = (n as u64, min as u64, max as u64);
        if v > hi || v < lo {
            return Err(if octal {
                format!("argument must be between {lo:o} and {hi:o} inclusive")
            } else {
                format!("argument must be between {lo} and {hi} inclusive")
            });
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
        index().get(name).map(|&i| &self.values[i])
    }

    /// An integer-like parameter; 0 if unknown. Unsigned memory values above LLONG_MAX (a
    /// `maxmemory` of 16 exabytes) read as LLONG_MAX.
    pub fn int(&self, name: &str) -> i64 {
        let Some(&i) = index().get(name) else { return 0 };
        let unsigned = matches!(PARAMS[i].kind, Kind::Num { unsigned: true, .. });
        match &self.values[i] {
            Val::Int(n) if unsigned && *n < 0 => i64::MAX,
            Val::Int(n) => *n,
            Val::Bool(b) => *b as i64,
            Val::Flags(f) => *f as i64,
            Val::Str(_) => 0,
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
            (Val::Int(n), Kind::Num { octal: true, .. }) => format!("{:o}", *n),
            (Val::Int(n), _) => n.to_string(),
            (Val::Str(s), _) => s.clone(),
            (Val::Flags(f), Kind::FlagEnum(options)) => {
                if *f == 0 {
                    options[0].to_string()
                } else {
                    let names: Vec<&str> = options
                        .iter()
                        .skip(1)
                        .enumerate()
                        .filter(|(b, _)| f & (1 << b) != 0)
                        .map(|(_, o)| *o)
                        .collect();
                    names.join(" ")
                }
            }
            (Val::Flags(f), _) => keyspace_events_to_string(*f),
        }
    }

    /// A parameter's current text, as CONFIG GET prints it.
    pub fn render_name(&self, name: &str) -> Option<String> {
        index().get(name).map(|&i| self.render(i))
    }

    /// config.c `configGetCommand()`: exact names are echoed as typed; patterns match names
    /// and aliases case-insensitively, hidden parameters excepted. Each name (an alias is a
    /// name of its own) appears once, compared without case, as in Redis's case-insensitive
    /// `matches` dict.
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
                if def.flags & HIDDEN != 0 {
                    continue;
                }
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

    /// config.c `configSetCommand()`: resolves every name (the first unknown one is the
    /// error; then the first immutable, protected or duplicate one, named as typed), then
    /// parses the values in order (a bad one is named by its entry's own name), then runs
    /// `apply` for each changed parameter (a failure undoes everything, named by the entry's
    /// name), then keeps all or none. `protected_ok`: whether this client may set
    /// PROTECTED_CONFIG parameters (enable-protected-configs). The error is the full message
    /// after `ERR `.
    pub fn set(
        &mut self,
        pairs: &[(Vec<u8>, Vec<u8>)],
        protected_ok: bool,
        apply: impl Fn(&str, &str) -> Result<(), String>,
    ) -> Result<Vec<&'static str>, Vec<u8>> {
        let mut entries: Vec<(usize, &'static str)> = Vec::with_capacity(pairs.len());
        let mut first_error: Option<Vec<u8>> = None;
        for (name, _) in pairs {
            // The first problem in argument order is the one reported.
            if first_error.is_some() {
                continue;
            }
            let Some(entry) = lookup(name) else {
                let mut msg = b"Unknown option or number of arguments for CONFIG SET - '".to_vec();
                msg.extend_from_slice(c_str(name));
                msg.push(b'\'');
                first_error = Some(msg);
                continue;
            };
            let def = &PARAMS[entry.0];
            if def.immutable() {
                first_error = Some(set_error(name, "can't set immutable config"));
            } else if def.flags & PROTECTED != 0 && !protected_ok {
                first_error = Some(set_error(name, "can't set protected config"));
            } else if entries.iter().any(|e| e.0 == entry.0 && e.1 == entry.1) {
                // Redis compares entries: an alias and its original are different entries.
                first_error = Some(set_error(name, "duplicate parameter"));
            }
            entries.push(entry);
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        let mut parsed = Vec::with_capacity(pairs.len());
        for ((_, value), &(i, entry_name)) in pairs.iter().zip(&entries) {
            let mut v = match parse_value(&PARAMS[i], value) {
                Ok(v) => apply_bounds(PARAMS[i].name, v),
                Err(e) => return Err(set_error(entry_name.as_bytes(), &e)),
            };
            if PARAMS[i].kind == Kind::ClientOutputBufferLimit {
                // The classes named replace theirs; the others are kept (an earlier pair for
                // the same parameter in this call counts, as Redis sets them in order).
                let current = parsed
                    .iter()
                    .zip(&entries)
                    .rev()
                    .find(|(_, e): &(_, &(usize, &str))| e.0 == i)
                    .map(|(v, _): (&Val, _)| v.clone())
                    .unwrap_or_else(|| self.values[i].clone());
                if let (Val::Str(cur), Val::Str(new)) = (&current, &v) {
                    v = Val::Str(merge_obuf_limits(cur, new));
                }
            }
            parsed.push(v);
        }
        for (v, &(i, entry_name)) in parsed.iter().zip(&entries) {
            if *v != self.values[i] {
                let text = {
                    let mut probe = self.clone();
                    probe.values[i] = v.clone();
                    probe.render(i)
                };
                if let Err(e) = apply(PARAMS[i].name, &text) {
                    return Err(set_error(entry_name.as_bytes(), &e));
                }
            }
        }
        let mut changed = Vec::new();
        for (v, &(i, _)) in parsed.into_iter().zip(&entries) {
            self.values[i] = v;
            changed.push(PARAMS[i].name);
        }
        Ok(changed)
    }

    #[cfg(test)]
    fn set_plain(&mut self, pairs: &[(Vec<u8>, Vec<u8>)]) -> Result<Vec<&'static str>, Vec<u8>> {
        self.set(pairs, true, |_, _| Ok(()))
    }

    /// A value set as redis-server's command line sets it: immutable parameters too.
    pub fn set_at_startup(&mut self, name: &[u8], value: &[u8]) -> Result<(), Vec<u8>> {
        let Some((i, entry_name)) = lookup(name) else {
            let mut msg = b"Bad directive or wrong number of arguments - '".to_vec();
            msg.extend_from_slice(name);
            msg.push(b'\'');
            return Err(msg);
        };
        let v = parse_value(&PARAMS[i], value).map_err(|e| set_error(entry_name.as_bytes(), &e))?;
        self.values[i] = apply_bounds(PARAMS[i].name, v);
        Ok(())
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
        let err = c.set_plain(&[(b"hz".to_vec(), b"20".to_vec()), (b"maxmemory".to_vec(), b"x".to_vec())]);
        assert!(err.is_err());
        assert_eq!(c.int("hz"), 10);
        c.set_plain(&[(b"HZ".to_vec(), b"1000".to_vec())]).unwrap();
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
        let err = |c: &mut Config, k: &str, v: &str| {
            String::from_utf8(c.set_plain(&[(k.into(), v.into())]).unwrap_err()).unwrap()
        };
        // size_t: -1 is huge when compared unsigned.
        assert!(err(&mut c, "set-max-intset-entries", "-1")
            .ends_with("argument must be between 0 and 9223372036854775807 inclusive"));
        // A memory-typed size_t rejects the sign before any bound.
        assert!(err(&mut c, "hash-max-listpack-value", "-1").ends_with("argument must be a memory value"));
        // long long memory: a memtoull result above LLONG_MAX is negative.
        assert!(err(&mut c, "proto-max-bulk-len", "9223372036854775808")
            .ends_with("between 1048576 and 9223372036854775807 inclusive"));
        // Percentages are stored negative and printed back with `%`.
        c.set_plain(&[(b"maxmemory-clients".to_vec(), b"10%".to_vec())]).unwrap();
        assert_eq!(c.get(&[b"maxmemory-clients".to_vec()])[0].1, "10%");
        assert!(err(&mut c, "maxmemory-clients", "101%").ends_with("percentage argument must be less or equal to 100"));
        // maxmemory is unsigned long long: 2^64-1 reads back as such.
        c.set_plain(&[(b"maxmemory".to_vec(), b"18446744073709551615".to_vec())]).unwrap();
        assert_eq!(c.get(&[b"maxmemory".to_vec()])[0].1, "18446744073709551615");
        assert_eq!(c.int("maxmemory"), i64::MAX);
        // A bad value is named by the entry's own name, not as typed.
        assert!(err(&mut c, "HZ", "abc").contains("argument 'hz'"));
        assert!(err(&mut c, "LUA-TIME-LIMIT", "abc").contains("argument 'lua-time-limit'"));
    }

    #[test]
    fn an_alias_is_an_entry_of_its_own() {
        let mut c = Config::default();
        c.set_plain(&[
            (b"hash-max-ziplist-entries".to_vec(), b"10".to_vec()),
            (b"hash-max-listpack-entries".to_vec(), b"20".to_vec()),
        ])
        .unwrap();
        assert_eq!(c.int("hash-max-listpack-entries"), 20);
        assert!(c.set_plain(&[(b"hz".to_vec(), b"1".to_vec()), (b"HZ".to_vec(), b"2".to_vec())]).is_err());
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
    fn the_table_lists_what_redis_7_0_15_lists() {
        // CONFIG GET * on redis-server 7.0.15 lists 192 names (aliases included), hidden ones
        // excepted.
        let c = Config::default();
        assert_eq!(c.get(&[b"*".to_vec()]).len(), 192);
        assert!(c.get(&[b"playground*".to_vec()]).is_empty());
        assert_eq!(c.get(&[b"playground-cost-percent".to_vec()]).len(), 1);
        assert_eq!(c.get(&[b"watchdog-period".to_vec()])[0].1, "0");
    }

    #[test]
    fn special_parameters() {
        let mut c = Config::default();
        let err = |c: &mut Config, k: &str, v: &str| {
            String::from_utf8(c.set_plain(&[(k.into(), v.into())]).unwrap_err()).unwrap()
        };
        c.set_plain(&[(b"client-output-buffer-limit".to_vec(), b"pubsub 1mb 2k 3 replica 5gb 1kb 0".to_vec())])
            .unwrap();
        assert_eq!(
            c.get(&[b"client-output-buffer-limit".to_vec()])[0].1,
            "normal 0 0 0 slave 5368709120 1024 0 pubsub 1048576 2000 3"
        );
        assert!(err(&mut c, "client-output-buffer-limit", "normal 1 2")
            .ends_with("Wrong number of arguments in buffer limit configuration."));
        assert!(err(&mut c, "oom-score-adj-values", "1 2").ends_with("- wrong number of arguments"));
        c.set_plain(&[(b"shutdown-on-sigint".to_vec(), b"force save now".to_vec())]).unwrap();
        assert_eq!(c.get(&[b"shutdown-on-sigint".to_vec()])[0].1, "save now force");
        assert!(err(&mut c, "shutdown-on-sigint", "save nosave").ends_with("can't be used simultaneously"));
        c.set_plain(&[(b"latency-tracking-info-percentiles".to_vec(), b"0.5 99.99999 100".to_vec())]).unwrap();
        assert_eq!(c.get(&[b"latency-tracking-info-percentiles".to_vec()])[0].1, "0.5 99.99999 100");
        assert!(err(&mut c, "proc-title-template", "{title}").ends_with("unknown variables"));
        assert!(c.set_plain(&[(b"proc-title-template".to_vec(), b"x {port}".to_vec())]).is_ok());
        assert!(err(&mut c, "databases", "3").ends_with("can't set immutable config"));
        assert!(String::from_utf8(c.set(&[(b"dir".to_vec(), b"/tmp".to_vec())], false, |_, _| Ok(())).unwrap_err())
            .unwrap()
            .ends_with("can't set protected config"));
        // The first problem in argument order wins.
        let e = err(&mut c, "databases", "3");
        assert!(e.contains("'databases'"));
        let e = String::from_utf8(
            c.set_plain(&[(b"databases".to_vec(), b"3".to_vec()), (b"nosuch".to_vec(), b"1".to_vec())]).unwrap_err(),
        )
        .unwrap();
        assert!(e.ends_with("can't set immutable config"), "{e}");
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
