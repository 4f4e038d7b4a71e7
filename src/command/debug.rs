//! debug.c's DEBUG command, behind `enable-debug-command` as in 7.0 (dispatch.rs refuses it
//! with Redis's text unless the option is `yes`, or `local` for a console or a loopback
//! connection; hosts set it at startup: `redisplay serve --enable-debug-command yes|local`, or
//! `Engine::configure_startup("enable-debug-command", …)` for the page).
//!
//! Supported, as 7.0.15 answers them: HELP, OBJECT (the address is a stand-in; the serialized
//! length follows rdb.c `rdbSaveObject()` without LZF compression), DIGEST and DIGEST-VALUE
//! (debug.c `computeDatasetDigest()`/`xorObjectDigest()`: SHA1 mixing of keys and values,
//! equal to the real server's for the same dataset), PROTOCOL (every type, RESP2 and RESP3,
//! attributes and pushes included), SLEEP (virtual time: the clock jumps and the command takes
//! that long, no cron runs meanwhile, as in a stalled server), SET-ACTIVE-EXPIRE,
//! QUICKLIST-PACKED-THRESHOLD, LISTPACK and QUICKLIST (the structure is "printed on stdout":
//! there is none here), STRINGMATCH-TEST (fuzzes the playground's own glob matcher),
//! CHANGE-REPL-ID, SDSLEN, HTSTATS (the main table of each db's dicts, never rehashing here),
//! POPULATE, STRUCTSIZE, ERROR, LOG, REPLICATE, PAUSE-CRON, AOF-FLUSH-SLEEP,
//! SET-SKIP-CHECKSUM-VALIDATION, REPLYBUFFER, LEAK, CLIENT-EVICTION (disabled case),
//! CONFIG-REWRITE-FORCE-ALL (fails as a server without a config file does), RELOAD [MERGE]
//! [NOFLUSH] [NOSAVE] (save, empty the dataset and the libraries, load the file back — through
//! command/rdb.rs; a file that doesn't load is the error reply where Redis would exit, or panic
//! on a duplicate key).
//!
//! Answered "not supported by the playground": what crashes or restarts a process or needs
//! files or jemalloc (SEGFAULT, PANIC, ASSERT, OOM, RESTART, CRASH-AND-RECOVER,
//! LOADAOF, MALLCTL, MALLCTL-STR), cluster links (CLUSTERLINK, DROP-CLUSTER-PACKET-FILTER),
//! HTSTATS-KEY of a hashtable value (its chains aren't modelled), CLIENT-EVICTION with
//! maxmemory-clients set.

use crate::command::call::Call;
use crate::command::{c_str, is_opt, parse_i64};
use crate::ds::stream::StreamId;
use crate::engine::{lookup, Engine};
use crate::memory::{lp_entry_size, lp_score_size, quicklist_nodes, sds_alloc, size_class};
use crate::object::{Hash, Set, StrValue, Value, Zset};
use crate::reply::Reply;

/// DEBUG HELP as redis-server 7.0.15 answers it (recorded).
const HELP: &[&str] = &[
    "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "AOF-FLUSH-SLEEP <microsec>",
    "    Server will sleep before flushing the AOF, this is used for testing.",
    "ASSERT",
    "    Crash by assertion failed.",
    "CHANGE-REPL-ID",
    "    Change the replication IDs of the instance.",
    "    Dangerous: should be used only for testing the replication subsystem.",
    "CONFIG-REWRITE-FORCE-ALL",
    "    Like CONFIG REWRITE but writes all configuration options, including",
    "    keywords not listed in original configuration file or default values.",
    "CRASH-AND-RECOVER [<milliseconds>]",
    "    Hard crash and restart after a <milliseconds> delay (default 0).",
    "DIGEST",
    "    Output a hex signature representing the current DB content.",
    "DIGEST-VALUE <key> [<key> ...]",
    "    Output a hex signature of the values of all the specified keys.",
    "ERROR <string>",
    "    Return a Redis protocol error with <string> as message. Useful for clients",
    "    unit tests to simulate Redis errors.",
    "LEAK <string>",
    "    Create a memory leak of the input string.",
    "LOG <message>",
    "    Write <message> to the server log.",
    "HTSTATS <dbid>",
    "    Return hash table statistics of the specified Redis database.",
    "HTSTATS-KEY <key>",
    "    Like HTSTATS but for the hash table stored at <key>'s value.",
    "LOADAOF",
    "    Flush the AOF buffers on disk and reload the AOF in memory.",
    "REPLICATE <string>",
    "    Replicates the provided string to replicas, allowing data divergence.",
    "MALLCTL <key> [<val>]",
    "    Get or set a malloc tuning integer.",
    "MALLCTL-STR <key> [<val>]",
    "    Get or set a malloc tuning string.",
    "OBJECT <key>",
    "    Show low level info about `key` and associated value.",
    "DROP-CLUSTER-PACKET-FILTER <packet-type>",
    "    Drop all packets that match the filtered type. Set to -1 allow all packets.",
    "OOM",
    "    Crash the server simulating an out-of-memory error.",
    "PANIC",
    "    Crash the server simulating a panic.",
    "POPULATE <count> [<prefix>] [<size>]",
    "    Create <count> string keys named key:<num>. If <prefix> is specified then",
    "    it is used instead of the 'key' prefix. These are not propagated to",
    "    replicas. Cluster slots are not respected so keys not belonging to the",
    "    current node can be created in cluster mode.",
    "PROTOCOL <type>",
    "    Reply with a test value of the specified type. <type> can be: string,",
    "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
    "    true, false.",
    "RELOAD [option ...]",
    "    Save the RDB on disk and reload it back to memory. Valid <option> values:",
    "    * MERGE: conflicting keys will be loaded from RDB.",
    "    * NOFLUSH: the existing database will not be removed before load, but",
    "      conflicting keys will generate an exception and kill the server.",
    "    * NOSAVE: the database will be loaded from an existing RDB file.",
    "    Examples:",
    "    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
    "      the database.",
    "    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
    "      existing RDB file.",
    "    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
    "      file to the database.",
    "RESTART [<milliseconds>]",
    "    Graceful restart: save config, db, restart after a <milliseconds> delay (default 0).",
    "SDSLEN <key>",
    "    Show low level SDS string info representing `key` and value.",
    "SEGFAULT",
    "    Crash the server with sigsegv.",
    "SET-ACTIVE-EXPIRE <0|1>",
    "    Setting it to 0 disables expiring keys in background when they are not",
    "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
    "    default.",
    "QUICKLIST-PACKED-THRESHOLD <size>",
    "    Sets the threshold for elements to be inserted as plain vs packed nodes",
    "    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
    "SET-SKIP-CHECKSUM-VALIDATION <0|1>",
    "    Enables or disables checksum checks for RDB files and RESTORE's payload.",
    "SLEEP <seconds>",
    "    Stop the server for <seconds>. Decimals allowed.",
    "STRINGMATCH-TEST",
    "    Run a fuzz tester against the stringmatchlen() function.",
    "STRUCTSIZE",
    "    Return the size of different Redis core C structures.",
    "LISTPACK <key>",
    "    Show low level info about the listpack encoding of <key>.",
    "QUICKLIST <key> [<0|1>]",
    "    Show low level info about the quicklist encoding of <key>.",
    "    The optional argument (0 by default) sets the level of detail",
    "CLIENT-EVICTION",
    "    Show low level client eviction pools info (maxmemory-clients).",
    "PAUSE-CRON <0|1>",
    "    Stop periodic cron job processing.",
    "REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
    "    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
    "    In case NEVER is provided the last observed peak will never be reset",
    "    In case RESET is provided the peak reset time will be restored to the default value",
    "REPLYBUFFER RESIZING <0|1>",
    "    Enable or disable the reply buffer resize cron job",
    "CLUSTERLINK KILL <to|from|all> <node-id>",
    "    Kills the link based on the direction to/from (both) with the provided node.",
    "HELP",
    "    Prints this help.",
];

fn syntax_error(c: &Call) -> Reply {
    let mut msg = b"ERR unknown subcommand or wrong number of arguments for '".to_vec();
    let sub = c_str(c.arg(1));
    msg.extend_from_slice(&sub[..sub.len().min(128)]);
    msg.extend_from_slice(b"'. Try DEBUG HELP.");
    Reply::Error(msg)
}

/// `DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]`: SAVE (unless NOSAVE), empty the dataset and the
/// libraries (unless NOFLUSH), load the file (MERGE: its keys and libraries replace those of
/// the same name).
fn reload(e: &mut Engine, c: &Call) -> Reply {
    let (mut merge, mut flush, mut save) = (false, true, true);
    for opt in &c.argv[2..] {
        if is_opt(opt, "merge") {
            merge = true;
        } else if is_opt(opt, "noflush") {
            flush = false;
        } else if is_opt(opt, "nosave") {
            save = false;
        } else {
            return Reply::err("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
        }
    }
    if save && !e.rdb_save() {
        return Reply::err("ERR");
    }
    if flush {
        e.empty_data(true);
    }
    match e.rdb_load_from_store(merge) {
        Ok(_) => {
            e.server_log(crate::engine::LogLevel::Warning, "DB reloaded by DEBUG RELOAD");
            Reply::ok()
        }
        Err(failure) => {
            e.server_log(crate::engine::LogLevel::Warning, failure.to_string());
            Reply::err("ERR Error trying to load the RDB dump")
        }
    }
}

fn unsupported(c: &Call) -> Reply {
    Reply::err(format!(
        "ERR DEBUG {} is not supported by the playground",
        String::from_utf8_lossy(c_str(c.arg(1))).to_ascii_uppercase()
    ))
}

/// C `atoi()`: an optional sign and leading digits, 0 when there are none.
fn atoi(s: &[u8]) -> i64 {
    let s = c_str(s);
    let t: &[u8] = {
        let start = s.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(s.len());
        &s[start..]
    };
    let (neg, digits) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for &d in digits.iter().take_while(|d| d.is_ascii_digit()) {
        v = v.wrapping_mul(10).wrapping_add((d - b'0') as i64);
    }
    if neg {
        -v
    } else {
        v
    }
}

/// C `strtod(s, NULL)`: the longest prefix that reads as a number, 0 when none does.
fn strtod(s: &[u8]) -> f64 {
    let s = String::from_utf8_lossy(c_str(s)).into_owned();
    let t = s.trim_start();
    (1..=t.len()).rev().find_map(|n| t.get(..n).and_then(|p| p.parse::<f64>().ok())).unwrap_or(0.0)
}

pub fn debug(e: &mut Engine, c: &Call) -> Reply {
    let sub = String::from_utf8_lossy(c_str(c.arg(1))).to_ascii_lowercase();
    let argc = c.argc();
    match (sub.as_str(), argc) {
        ("help", 2) => Reply::Array(HELP.iter().map(|l| Reply::Status(l.to_string())).collect()),
        ("object", 3) => object(e, c),
        ("digest", 2) => {
            let d = dataset_digest(e);
            Reply::Status(hex(&d))
        }
        ("digest-value", _) => {
            let mut out = Vec::new();
            for key in &c.argv[2..] {
                let mut d = [0u8; 20];
                if e.lookup(c.db, key, lookup::NOTOUCH | lookup::NONOTIFY).is_some() {
                    if let Some(o) = e.dbs[c.db].get(key) {
                        let expires = e.dbs[c.db].expire_of(key).is_some();
                        object_digest(&mut d, &o.value, expires);
                    }
                }
                out.push(Reply::Status(hex(&d)));
            }
            Reply::Array(out)
        }
        ("protocol", 3) => protocol(e, c),
        ("sleep", 3) => {
            let us = strtod(c.arg(2)) * 1_000_000.0;
            if us.is_finite() && us >= 1.0 {
                sleep_us(e, us as u64);
            }
            Reply::ok()
        }
        ("set-active-expire", 3) => {
            e.debug.active_expire = atoi(c.arg(2)) != 0;
            Reply::ok()
        }
        ("quicklist-packed-threshold", 3) => {
            let limit = (1u64 << 32) - (1 << 20);
            match crate::config::parse_memory(c.arg(2)) {
                Some(sz) if sz <= limit => {
                    e.debug.quicklist_packed_threshold = if sz == 0 { 1 << 30 } else { sz };
                    Reply::ok()
                }
                _ => Reply::err("ERR argument must be a memory value bigger than 1 and smaller than 4gb"),
            }
        }
        ("listpack", 3) | ("quicklist", 3) | ("quicklist", 4) => {
            let Some(o) = e.lookup(c.db, c.arg(2), lookup::NOTOUCH | lookup::NONOTIFY) else {
                return Reply::err(crate::command::NO_SUCH_KEY);
            };
            let enc = o.value.encoding();
            if sub == "listpack" {
                if enc != "listpack" {
                    return Reply::err("ERR Not a listpack encoded object.");
                }
                Reply::Status("Listpack structure printed on stdout".into())
            } else {
                if enc != "quicklist" {
                    return Reply::err("ERR Not a quicklist encoded object.");
                }
                Reply::Status("Quicklist structure printed on stdout".into())
            }
        }
        ("stringmatch-test", 2) => {
            stringmatch_fuzz(e);
            Reply::Status("Apparently Redis did not crash: test passed".into())
        }
        ("change-repl-id", 2) => {
            e.debug.replid_changes += 1;
            e.replid = crate::engine::replication_id(e.seed, e.debug.replid_changes);
            Reply::ok()
        }
        ("sdslen", 3) => sdslen(e, c),
        ("htstats", n) if n >= 3 => htstats(e, c),
        ("htstats-key", n) if n >= 3 => {
            let Some(o) = e.lookup(c.db, c.arg(2), lookup::NOTOUCH | lookup::NONOTIFY) else {
                return Reply::err(crate::command::NO_SUCH_KEY);
            };
            if o.value.encoding() != "hashtable" && o.value.encoding() != "skiplist" {
                return Reply::err("ERR The value stored at the specified key is not represented using an hash table");
            }
            unsupported(c)
        }
        ("populate", 3..=5) => populate(e, c),
        ("structsize", 2) => {
            Reply::bulk("bits:64 robj:16 dictentry:24 sdshdr5:1 sdshdr8:3 sdshdr16:5 sdshdr32:9 sdshdr64:17 ")
        }
        ("error", 3) => Reply::Error(c.arg(2).to_vec()),
        ("log", 3) | ("leak", 3) | ("replicate", 3) | ("aof-flush-sleep", 3) => Reply::ok(),
        ("set-skip-checksum-validation", 3) => {
            e.debug.skip_checksum_validation = atoi(c.arg(2)) != 0;
            Reply::ok()
        }
        ("pause-cron", 3) => {
            e.debug.pause_cron = atoi(c.arg(2)) != 0;
            Reply::ok()
        }
        ("replybuffer", 4) => {
            if is_opt(c.arg(2), "peak-reset-time") || is_opt(c.arg(2), "resizing") {
                Reply::ok()
            } else {
                syntax_error(c)
            }
        }
        ("client-eviction", 2) => {
            if e.config.int("maxmemory-clients") == 0 {
                Reply::err("ERR maxmemory-clients is disabled.")
            } else {
                unsupported(c)
            }
        }
        ("config-rewrite-force-all", 2) => Reply::err("ERR CONFIG-REWRITE-FORCE-ALL failed: Bad address"),
        ("segfault", 2) | ("panic", 2) | ("oom", 2) | ("restart", 2..=3) | ("crash-and-recover", 2..=3) => {
            unsupported(c)
        }
        ("reload", _) => reload(e, c),
        ("loadaof", 2) => match e.debug_loadaof() {
            Ok(()) => Reply::ok(),
            Err(msg) => {
                e.server_log(crate::engine::LogLevel::Warning, msg);
                Reply::err("ERR Error trying to load the AOF files")
            }
        },
        ("assert", _) | ("mallctl", 3..=4) | ("mallctl-str", 3..=4) => unsupported(c),
        ("drop-cluster-packet-filter", 3) | ("clusterlink", 5) => unsupported(c),
        _ => syntax_error(c),
    }
}

// ---------------------------------------------------------------------------------------------
// DEBUG SLEEP
// ---------------------------------------------------------------------------------------------

/// The server stops for `us` µs: the command takes that long (the CPU clock), and the virtual
/// clock jumps by it without serverCron running meanwhile; the first tick after it is due at
/// once (one tick, not one per period missed, as a stalled event loop runs its timer once).
fn sleep_us(e: &mut Engine, us: u64) {
    e.charge_cpu(us.saturating_mul(1000));
    let ms = (us / 1000).min(crate::engine::MAX_CLOCK_MS as u64) as i64;
    let to = e.now_ms.saturating_add(ms).min(crate::engine::MAX_CLOCK_MS);
    e.now_ms = to;
    if e.next_cron_ms < to {
        e.next_cron_ms = to;
    }
}

// ---------------------------------------------------------------------------------------------
// DEBUG DIGEST / DIGEST-VALUE (debug.c xorDigest, mixDigest, xorObjectDigest)
// ---------------------------------------------------------------------------------------------

fn sha1(data: &[u8]) -> [u8; 20] {
    sha1_smol::Sha1::from(data).digest().bytes()
}

/// `xorDigest()`: digest ^= SHA1(data) — order-independent.
fn xor_digest(digest: &mut [u8; 20], data: &[u8]) {
    for (d, h) in digest.iter_mut().zip(sha1(data)) {
        *d ^= h;
    }
}

/// `mixDigest()`: digest = SHA1(digest ^ SHA1(data)) — order-dependent.
fn mix_digest(digest: &mut [u8; 20], data: &[u8]) {
    xor_digest(digest, data);
    *digest = sha1(digest);
}

fn hex(d: &[u8; 20]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// server.h OBJ_* type numbers, as `htonl()` feeds them to the digest.
fn type_code(v: &Value) -> u32 {
    match v {
        Value::Str(_) => 0,
        Value::List(_) => 1,
        Value::Set(_) => 2,
        Value::Zset(_) => 3,
        Value::Hash(_) => 4,
        Value::Stream(_) => 6,
    }
}

/// `%.17g` of a score, as debug.c prints it before mixing.
fn score_text(s: f64) -> String {
    crate::util::fmt_g(s, 17)
}

/// debug.c `xorObjectDigest()`: the value's type, its contents (ordered for lists, xored
/// element digests for sets, hashes and sorted sets) and whether it has a TTL.
fn object_digest(digest: &mut [u8; 20], v: &Value, expires: bool) {
    mix_digest(digest, &type_code(v).to_be_bytes());
    match v {
        Value::Str(s) => mix_digest(digest, &s.to_bytes()),
        Value::List(l) => {
            for ele in l {
                mix_digest(digest, ele);
            }
        }
        Value::Set(Set::Intset(i)) => {
            for m in i.iter() {
                xor_digest(digest, m.to_string().as_bytes());
            }
        }
        Value::Set(Set::Table(s)) => {
            for m in s.iter() {
                xor_digest(digest, m);
            }
        }
        Value::Zset(z) => {
            for (m, score) in z.iter() {
                let mut ele = [0u8; 20];
                mix_digest(&mut ele, m);
                mix_digest(&mut ele, score_text(score).as_bytes());
                xor_digest(digest, &ele);
            }
        }
        Value::Hash(h) => {
            let mut add = |f: &[u8], x: &[u8]| {
                let mut ele = [0u8; 20];
                mix_digest(&mut ele, f);
                mix_digest(&mut ele, x);
                xor_digest(digest, &ele);
            };
            match h {
                Hash::Listpack(v) => v.iter().for_each(|(f, x)| add(f, x)),
                Hash::Table(m) => m.iter().for_each(|(f, x)| add(f, x)),
            }
        }
        // Each entry's `<ms>.<seq>`, then its fields and values, in order.
        Value::Stream(st) => st.range(StreamId::MIN, StreamId::MAX, false, true, |entry| {
            mix_digest(digest, format!("{}.{}", entry.id.ms, entry.id.seq).as_bytes());
            for (f, x) in entry.fields() {
                mix_digest(digest, &f.to_bytes());
                mix_digest(digest, &x.to_bytes());
            }
            true
        }),
    }
    if expires {
        xor_digest(digest, b"!!expire!!");
    }
}

/// debug.c `computeDatasetDigest()`: each non-empty db mixes its number in, then xors in each
/// key's digest (the key mixed, then its value). Keys past their TTL still count (a raw walk
/// of the dict, as in Redis). All zeros for an empty dataset.
pub(crate) fn dataset_digest(e: &Engine) -> [u8; 20] {
    let mut fin = [0u8; 20];
    for (j, db) in e.dbs.iter().enumerate() {
        if db.is_empty() {
            continue;
        }
        mix_digest(&mut fin, &(j as u32).to_be_bytes());
        for (key, o) in db.dict.iter() {
            let mut d = [0u8; 20];
            mix_digest(&mut d, key);
            object_digest(&mut d, &o.value, db.expires.contains_key(key));
            xor_digest(&mut fin, &d);
        }
    }
    fin
}

// ---------------------------------------------------------------------------------------------
// DEBUG OBJECT, SDSLEN, HTSTATS, POPULATE
// ---------------------------------------------------------------------------------------------

/// rdb.c `rdbSaveLen()`'s size.
fn rdb_len_size(n: u64) -> u64 {
    if n < 1 << 6 {
        1
    } else if n < 1 << 14 {
        2
    } else if n <= u32::MAX as u64 {
        5
    } else {
        9
    }
}

/// rdb.c `rdbEncodeInteger()`'s size when `v` fits 32 bits.
fn rdb_int_size(v: i64) -> Option<u64> {
    if (i8::MIN as i64..=i8::MAX as i64).contains(&v) {
        Some(2)
    } else if (i16::MIN as i64..=i16::MAX as i64).contains(&v) {
        Some(3)
    } else if (i32::MIN as i64..=i32::MAX as i64).contains(&v) {
        Some(5)
    } else {
        None
    }
}

/// rdb.c `rdbSaveRawString()` without LZF: short canonical integers are int-encoded.
fn rdb_string_size(s: &[u8]) -> u64 {
    if s.len() <= 11 {
        if let Some(n) = crate::util::string2ll(s).and_then(rdb_int_size) {
            return n;
        }
    }
    rdb_len_size(s.len() as u64) + s.len() as u64
}

/// rdb.c `rdbSavedObjectLen()` (a deviation: LZF compression, which Redis applies to strings
/// and listpacks longer than 20 bytes when it saves space, is not modelled).
fn serialized_length(v: &Value) -> u64 {
    let lp = |entries: usize| (6 + entries + 1) as u64;
    let blob = |n: u64| rdb_len_size(n) + n;
    match v {
        Value::Str(StrValue::Int { value, .. }) => {
            rdb_int_size(*value).unwrap_or_else(|| rdb_string_size(value.to_string().as_bytes()))
        }
        Value::Str(s) => rdb_string_size(&s.to_bytes()),
        Value::List(l) => {
            let nodes = quicklist_nodes(l);
            rdb_len_size(nodes.len() as u64) + nodes.iter().map(|&sz| 1 + blob(sz as u64)).sum::<u64>()
        }
        Value::Set(Set::Intset(i)) => blob(i.blob_len() as u64),
        Value::Set(Set::Table(s)) => rdb_len_size(s.len() as u64) + s.iter().map(|m| rdb_string_size(m)).sum::<u64>(),
        Value::Hash(Hash::Listpack(v)) => blob(lp(v.iter().map(|(f, x)| lp_entry_size(f) + lp_entry_size(x)).sum())),
        Value::Hash(Hash::Table(m)) => {
            rdb_len_size(m.len() as u64) + m.iter().map(|(f, x)| rdb_string_size(f) + rdb_string_size(x)).sum::<u64>()
        }
        Value::Zset(Zset::Listpack(v)) => blob(lp(v.iter().map(|(m, s)| lp_entry_size(m) + lp_score_size(*s)).sum())),
        Value::Zset(z) => rdb_len_size(z.len() as u64) + z.iter().map(|(m, _)| rdb_string_size(m) + 8).sum::<u64>(),
        // The payload DUMP writes without LZF, less its type byte and footer.
        Value::Stream(_) => {
            let opts = crate::persist::rdb::SaveOptions { compression: false, ..Default::default() };
            crate::persist::rdb::create_dump_payload(v, &opts).len() as u64 - 11
        }
    }
}

/// A stand-in for the value's address (`%p`): stable for a key, shaped like a heap pointer.
fn address(key: &[u8]) -> String {
    let h = sha1(key);
    format!("0x7f{:02x}{:02x}{:02x}{:02x}{:01x}0", h[0], h[1], h[2], h[3], h[4] & 0xf)
}

/// `DEBUG OBJECT key`: a raw dict lookup (no lazy expiry, no touch).
fn object(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(2);
    let Some(o) = e.dbs[c.db].get(key) else {
        return Reply::err(crate::command::NO_SUCH_KEY);
    };
    let mut extra = String::new();
    if let Value::List(l) = &o.value {
        let nodes = quicklist_nodes(l);
        let n = nodes.len().max(1);
        extra = format!(
            " ql_nodes:{} ql_avg_node:{:.2} ql_listpack_max:{} ql_compressed:{} ql_uncompressed_size:{}",
            nodes.len(),
            l.len() as f64 / n as f64,
            e.config.int("list-max-listpack-size"),
            (e.config.int("list-compress-depth") != 0) as u8,
            nodes.iter().sum::<usize>()
        );
    }
    let idle = crate::evict::estimate_idle_ms(e.lruclock, o.lru()) / 1000;
    Reply::Status(format!(
        "Value at:{} refcount:{} encoding:{} serializedlength:{} lru:{} lru_seconds_idle:{}{}",
        address(key),
        o.refcount(),
        o.value.encoding(),
        serialized_length(&o.value),
        o.lru(),
        idle,
        extra
    ))
}

fn sdslen(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(2);
    let Some(o) = e.lookup(c.db, key, lookup::NOTOUCH | lookup::NONOTIFY) else {
        return Reply::err(crate::command::NO_SUCH_KEY);
    };
    let (len, avail, zmalloc) = match &o.value {
        Value::Str(StrValue::Embstr(b)) => (b.len(), 0, size_class(16 + 3 + b.len() + 1) - 16),
        Value::Str(StrValue::Raw(b, room)) if *room > b.len() => {
            // sdsMakeRoomFor() keeps all the allocation's usable size.
            let alloc = crate::memory::sds_grown_alloc(*room);
            let hdr = crate::memory::sds_header(*room).max(3);
            (b.len(), alloc - hdr - 1 - b.len(), alloc)
        }
        Value::Str(StrValue::Raw(b, _)) => (b.len(), 0, sds_alloc(b.len())),
        _ => return Reply::err("ERR Not an sds encoded string."),
    };
    Reply::Status(format!(
        "key_sds_len:{}, key_sds_avail:0, key_zmalloc: {}, val_sds_len:{len}, val_sds_avail:{avail}, val_zmalloc: {zmalloc}",
        key.len(),
        sds_alloc(key.len())
    ))
}

/// dict.c `_dictGetStatsHt()` for a table of `size` buckets with these chain lengths.
fn ht_stats(out: &mut String, size: usize, used: usize, chains: impl Iterator<Item = usize>) {
    use std::fmt::Write;
    out.push_str("Hash table 0 stats (main hash table):\n");
    if used == 0 {
        out.push_str("No stats available for empty dictionaries\n");
        return;
    }
    const VECTLEN: usize = 50;
    let mut clvector = [0u64; VECTLEN];
    let (mut slots, mut maxchain, mut total) = (0u64, 0usize, 0usize);
    for len in chains {
        if len == 0 {
            clvector[0] += 1;
            continue;
        }
        slots += 1;
        clvector[len.min(VECTLEN - 1)] += 1;
        maxchain = maxchain.max(len);
        total += len;
    }
    let _ = write!(
        out,
        " table size: {size}\n number of elements: {used}\n different slots: {slots}\n max chain length: {maxchain}\n avg chain length (counted): {:.2}\n avg chain length (computed): {:.2}\n Chain length distribution:\n",
        (total as f32 / slots as f32) as f64,
        (used as f32 / slots as f32) as f64
    );
    for (i, &n) in clvector.iter().enumerate().take(VECTLEN - 1) {
        if n == 0 {
            continue;
        }
        let _ = writeln!(out, "   {i}: {n} ({:.2}%)", ((n as f32 / size as f32) * 100.0) as f64);
    }
}

fn htstats(e: &mut Engine, c: &Call) -> Reply {
    let dbid = match parse_i64(c.arg(2)) {
        Ok(n) => n,
        Err(r) => return r,
    };
    if dbid < 0 || dbid as usize >= e.dbs.len() {
        return Reply::err("ERR Out of range database");
    }
    let db = &e.dbs[dbid as usize];
    let mut out = String::from("[Dictionary HT]\n");
    let b = &db.dict_buckets;
    ht_stats(&mut out, b.size(), db.len(), (0..b.size()).map(|i| b.chain(i).count()));
    out.push_str("[Expires HT]\n");
    let b = &db.expires_buckets;
    ht_stats(&mut out, b.size(), db.expires.len(), (0..b.size()).map(|i| b.chain(i).count()));
    Reply::Verbatim(out.into_bytes())
}

/// `DEBUG POPULATE count [prefix] [size]`: `prefix:N` keys (`key` by default) holding
/// `value:N`, padded with NULs or cut to `size`; existing keys are skipped. Not a write in the
/// replication sense: no dirty count, no notifications.
fn populate(e: &mut Engine, c: &Call) -> Reply {
    let positive = |a: &[u8]| -> Result<i64, Reply> {
        let n = parse_i64(a)?;
        if n < 0 {
            return Err(Reply::err("ERR value is out of range, must be positive"));
        }
        Ok(n)
    };
    let keys = match positive(c.arg(2)) {
        Ok(n) => n as u64,
        Err(r) => return r,
    };
    let valsize = if c.argc() == 5 {
        match positive(c.arg(4)) {
            Ok(n) => n as u64,
            Err(r) => return r,
        }
    } else {
        0
    };
    let prefix: Vec<u8> = if c.argc() == 3 { b"key".to_vec() } else { c_str(c.arg(3)).to_vec() };
    // The playground's cap: a key and a value of at least 16 bytes each.
    let limit = e.config.int("playground-max-alloc") as u64;
    let estimate = keys.saturating_mul(valsize.max(16) + prefix.len() as u64 + 64);
    if estimate > limit {
        return Reply::err(format!(
            "ERR playground limit: this would allocate about {estimate} bytes; playground-max-alloc is {limit}"
        ));
    }
    for j in 0..keys {
        // `snprintf(buf, 128, "%s:%lu", …)`: at most 127 bytes.
        let mut key = prefix.clone();
        key.extend_from_slice(format!(":{j}").as_bytes());
        key.truncate(127);
        if e.lookup(c.db, &key, lookup::WRITE).is_some() {
            continue;
        }
        let mut val = format!("value:{j}").into_bytes();
        if valsize > 0 {
            val.resize(valsize as usize, 0);
        }
        let obj = e.new_obj(Value::Str(StrValue::from_bytes(val)));
        e.dbs[c.db].insert(key, obj);
    }
    Reply::ok()
}

// ---------------------------------------------------------------------------------------------
// DEBUG PROTOCOL, STRINGMATCH-TEST
// ---------------------------------------------------------------------------------------------

fn protocol(e: &mut Engine, c: &Call) -> Reply {
    let resp = e.clients.get(&c.client).map_or(2, |cl| cl.resp);
    let name = c.arg(2);
    let ints = || (0..3).map(Reply::Integer).collect::<Vec<_>>();
    if is_opt(name, "string") {
        Reply::bulk("Hello World")
    } else if is_opt(name, "integer") {
        Reply::Integer(12345)
    } else if is_opt(name, "double") {
        #[allow(clippy::approx_constant)]
        Reply::Double(3.141)
    } else if is_opt(name, "bignum") {
        Reply::BigNumber(b"1234567999999999999999999999999999999".to_vec())
    } else if is_opt(name, "null") {
        Reply::Nil
    } else if is_opt(name, "array") {
        Reply::Array(ints())
    } else if is_opt(name, "set") {
        Reply::Set(ints())
    } else if is_opt(name, "map") {
        Reply::Map((0..3).map(|j| (Reply::Integer(j), Reply::Bool(j == 1))).collect())
    } else if is_opt(name, "attrib") {
        let attribute = Reply::Map(vec![(
            Reply::bulk("key-popularity"),
            Reply::Array(vec![Reply::bulk("key:123"), Reply::Integer(90)]),
        )]);
        Reply::Preceded(Box::new(attribute), Box::new(Reply::bulk("Some real reply following the attribute")))
    } else if is_opt(name, "push") {
        if resp < 3 {
            return Reply::err("ERR RESP2 is not supported by this command");
        }
        let push = Reply::Push(vec![Reply::bulk("server-cpu-usage"), Reply::Integer(42)]);
        Reply::Preceded(Box::new(push), Box::new(Reply::bulk("Some real reply following the push reply")))
    } else if is_opt(name, "verbatim") {
        Reply::Verbatim(b"This is a verbatim\nstring".to_vec())
    } else if is_opt(name, "true") {
        Reply::Bool(true)
    } else if is_opt(name, "false") {
        Reply::Bool(false)
    } else {
        Reply::err("ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false")
    }
}

/// util.c `stringmatchlen_fuzz_test()`: random patterns against random strings, checking only
/// that matching terminates (here: the playground's own matcher, with the engine's RNG).
fn stringmatch_fuzz(e: &mut Engine) {
    const CHARS: &[u8] = b"*?[]^-\\abcAB ";
    for _ in 0..1000 {
        let plen = e.random_index(32);
        let slen = e.random_index(32);
        let pat: Vec<u8> = (0..plen).map(|_| CHARS[e.random_index(CHARS.len())]).collect();
        let s: Vec<u8> = (0..slen).map(|_| CHARS[e.random_index(CHARS.len())]).collect();
        let nocase = e.random_index(2) == 1;
        let _ = crate::util::glob_match(&pat, &s, nocase);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_mix_in_order_and_xor_without() {
        let mut a = [0u8; 20];
        mix_digest(&mut a, b"x");
        mix_digest(&mut a, b"y");
        let mut b = [0u8; 20];
        mix_digest(&mut b, b"y");
        mix_digest(&mut b, b"x");
        assert_ne!(a, b);
        let mut a = [0u8; 20];
        xor_digest(&mut a, b"x");
        xor_digest(&mut a, b"y");
        let mut b = [0u8; 20];
        xor_digest(&mut b, b"y");
        xor_digest(&mut b, b"x");
        assert_eq!(a, b);
    }

    #[test]
    fn c_number_parsing() {
        assert_eq!(atoi(b"12x"), 12);
        assert_eq!(atoi(b"x"), 0);
        assert_eq!(atoi(b" -3"), -3);
        assert_eq!(strtod(b"0.5s"), 0.5);
        assert_eq!(strtod(b"abc"), 0.0);
    }

    #[test]
    fn serialized_lengths_match_rdb_save_object() {
        // Values from DEBUG OBJECT on redis-server 7.0.15.
        assert_eq!(serialized_length(&Value::Str(StrValue::Embstr(b"bar".to_vec().into()))), 4);
        assert_eq!(serialized_length(&Value::Str(StrValue::Int { value: 12, shared: true })), 2);
        let l: crate::object::List = [b"b".to_vec(), b"a".to_vec()].into_iter().collect();
        assert_eq!(serialized_length(&Value::List(l)), 16);
        let l: crate::object::List = [b"a".to_vec(), b"b".to_vec(), b"c".to_vec()].into_iter().collect();
        assert_eq!(serialized_length(&Value::List(l)), 19);
    }
}
