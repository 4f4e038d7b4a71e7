//! cluster.c's commands on a server that is not a cluster: DUMP and RESTORE (and RESTORE-ASKING,
//! the same handler: `dumpCommand()`, `restoreCommand()`), MIGRATE, and CLUSTER, READONLY,
//! READWRITE and ASKING, which answer as redis-server 7.0 does with `cluster-enabled no`. The
//! payload format is persist/rdb.rs.
//!
//! MIGRATE (`migrateCommand()`) parses and checks its arguments in Redis's order and answers
//! NOKEY when none of its keys exists; the playground has no network, so a migration that would
//! start answers as a server whose target cannot be reached does (`IOERR error or timeout
//! connecting to the client`) and moves nothing.
//!
//! RESTORE follows restoreCommand()'s order of checks: options (REPLACE, ABSTTL, IDLETIME s and
//! FREQ f — not both, IDLETIME ≥ 0, 0 ≤ FREQ ≤ 255), the key must not exist unless REPLACE
//! (`BUSYKEY`; a logically expired key is expired first), TTL ≥ 0, then the payload's footer
//! (`DUMP payload version or checksum are wrong`), then its value (`Bad data format`). A TTL
//! already past (relative TTL + now, wrapping on overflow as C does, or an ABSTTL time ≤ now)
//! creates nothing and answers OK — deleting the old value when REPLACE found one (a `del`
//! event, a write). Otherwise the key is added (`new`), its TTL set, its LRU field set from
//! IDLETIME under a non-LFU policy or its LFU counter from FREQ under an LFU policy
//! (object.c `objectSetLRUOrLFU()`), WATCHers touched, `restore` fired, one write counted.
//!
//! Differences: a payload is always checked as `sanitize-dump-payload yes` checks it (with a
//! few checks beyond it, persist/rdb_load.rs), and a payload whose strings decompress past
//! `playground-max-alloc` is refused with a `playground` error. DUMP of a hashtable set or hash
//! lists members in our order, and a list's nodes are cut as RPUSH would have filled them, so
//! those payloads can differ from a real server's bytes while restoring to the same value
//! everywhere.

use crate::command::call::Call;
use crate::command::{is_opt, parse_i64, syntax_error};
use crate::ds::skiplist::random_level;
use crate::engine::{uniform, Engine};
use crate::object::{lfu_time_in_minutes, LRU_CLOCK_MAX};
use crate::persist::rdb::{self, SaveOptions};
use crate::persist::rdb_load::{self, LoadError, LoadOptions};
use crate::reply::Reply;

/// The DUMP settings from the config.
pub(crate) fn save_options(e: &Engine) -> SaveOptions {
    SaveOptions {
        compression: e.config.bool("rdbcompression"),
        list_fill: e.config.int("list-max-listpack-size"),
        list_compress_depth: e.config.int("list-compress-depth"),
    }
}

/// The limits rdbLoadObject converts encodings by.
pub(crate) fn load_options(e: &Engine) -> LoadOptions {
    let int = |name: &str| e.config.int(name).max(0) as usize;
    LoadOptions {
        hash_max_listpack_entries: int("hash-max-listpack-entries"),
        hash_max_listpack_value: int("hash-max-listpack-value"),
        zset_max_listpack_entries: int("zset-max-listpack-entries"),
        zset_max_listpack_value: int("zset-max-listpack-value"),
        set_max_intset_entries: int("set-max-intset-entries"),
        shared_integers: e.shared_integers_ok(),
        max_alloc: e.config.int("playground-max-alloc").max(0) as u64,
    }
}

/// cluster.c `dumpCommand()`: the value's payload, or nil.
pub fn dump(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    if e.lookup_read(c.db, key).is_none() {
        return Reply::Nil;
    }
    let opts = save_options(e);
    let Some(obj) = e.dbs[c.db].get(key) else { return Reply::Nil };
    Reply::Bulk(rdb::create_dump_payload(&obj.value, &opts))
}

/// cluster.c `restoreCommand()`.
pub fn restore(e: &mut Engine, c: &Call) -> Reply {
    let (mut replace, mut absttl) = (false, false);
    let (mut lfu_freq, mut lru_idle) = (-1i64, -1i64);
    let mut j = 4;
    while j < c.argc() {
        let additional = c.argc() - j - 1;
        if is_opt(c.arg(j), "replace") {
            replace = true;
        } else if is_opt(c.arg(j), "absttl") {
            absttl = true;
        } else if is_opt(c.arg(j), "idletime") && additional >= 1 && lfu_freq == -1 {
            lru_idle = match parse_i64(c.arg(j + 1)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            if lru_idle < 0 {
                return Reply::err("ERR Invalid IDLETIME value, must be >= 0");
            }
            j += 1;
        } else if is_opt(c.arg(j), "freq") && additional >= 1 && lru_idle == -1 {
            lfu_freq = match parse_i64(c.arg(j + 1)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            if !(0..=255).contains(&lfu_freq) {
                return Reply::err("ERR Invalid FREQ value, must be >= 0 and <= 255");
            }
            j += 1;
        } else {
            return syntax_error();
        }
        j += 1;
    }
    let key = c.arg(1);
    if !replace && e.lookup_write(c.db, key).is_some() {
        return Reply::err("BUSYKEY Target key name already exists.");
    }
    let mut ttl = match parse_i64(c.arg(2)) {
        Ok(v) => v,
        Err(r) => return r,
    };
    if ttl < 0 {
        return Reply::err("ERR Invalid TTL value, must be >= 0");
    }
    let payload = c.arg(3);
    if rdb::verify_dump_payload(payload).is_none() {
        return Reply::err("ERR DUMP payload version or checksum are wrong");
    }
    let opts = load_options(e);
    let rng = &mut e.rng;
    let mut level = || random_level(|| uniform(rng));
    let value = match rdb_load::restore_payload(payload, &opts, &mut level) {
        Ok(v) => v,
        Err(LoadError::BadFormat | LoadError::EmptyKey) => return Reply::err("ERR Bad data format"),
        Err(LoadError::TooBig { bytes }) => {
            return Reply::Error(
                format!(
                    "ERR playground limit: this payload decompresses to more than {bytes} bytes; playground-max-alloc is {} (Redis would restore it)",
                    opts.max_alloc
                )
                .into_bytes(),
            )
        }
    };
    let mut deleted = false;
    if replace {
        let lazy = e.config.bool("lazyfree-lazy-server-del");
        e.account_free(c.db, key, lazy, "RESTORE");
        deleted = e.dbs[c.db].delete(key);
    }
    if ttl != 0 && !absttl {
        ttl = ttl.wrapping_add(e.now_ms());
    }
    // db.c checkAlreadyExpired(): never a replica or loading here.
    if ttl != 0 && ttl <= e.now_ms() {
        if deleted {
            e.notify("del", c.db, key);
            e.dirty(1);
            let del: &[u8] = if e.config.bool("lazyfree-lazy-server-del") { b"UNLINK" } else { b"DEL" };
            e.propagate_as(vec![del.to_vec(), key.to_vec()]);
        }
        return Reply::ok();
    }
    let mut obj = e.new_obj(value);
    let mut lru = obj.lru();
    set_lru_or_lfu(e, &mut lru, lfu_freq, lru_idle);
    obj.set_lru(lru);
    e.dbs[c.db].insert(key.to_vec(), obj);
    if ttl != 0 {
        e.dbs[c.db].set_expire(key, ttl);
        // The TTL propagates as an absolute time.
        if !absttl {
            let mut argv = c.argv.to_vec();
            argv[2] = ttl.to_string().into_bytes();
            argv.push(b"ABSTTL".to_vec());
            e.propagate_as(argv);
        }
    }
    e.notify("restore", c.db, key);
    e.dirty(1);
    Reply::ok()
}

/// object.c `objectSetLRUOrLFU()` with an LRU multiplier of 1000 (IDLETIME is in seconds):
/// under an LFU policy FREQ sets the counter (stamped now); otherwise IDLETIME sets the access
/// time that many seconds before the LRU clock, wrapping as the 24-bit field does (an idle time
/// past the clock adds LRU_CLOCK_MAX once, then the field keeps its low 24 bits).
pub(crate) fn set_lru_or_lfu(e: &Engine, lru: &mut u32, lfu_freq: i64, lru_idle: i64) {
    if e.lfu_policy() {
        if lfu_freq >= 0 {
            *lru = (lfu_time_in_minutes(e.now_ms()) << 8) | lfu_freq as u32;
        }
    } else if lru_idle >= 0 {
        let idle = lru_idle.wrapping_mul(1000) / 1000;
        let mut abs = (e.lruclock as i64).wrapping_sub(idle);
        if abs < 0 {
            abs = abs.wrapping_add(LRU_CLOCK_MAX as i64);
        }
        *lru = (abs as u64 & LRU_CLOCK_MAX as u64) as u32;
    }
}

/// Every CLUSTER subcommand on a server started without `cluster-enabled` (`clusterCommand()`
/// refuses before dispatching; unknown subcommands and arity were checked by the table).
pub fn cluster_disabled(_e: &mut Engine, _c: &Call) -> Reply {
    Reply::err("ERR This instance has cluster support disabled")
}

/// READONLY, READWRITE and ASKING (`readonlyCommand()`…): cluster-only.
pub fn cluster_only(_e: &mut Engine, _c: &Call) -> Reply {
    Reply::err("ERR This instance has cluster support disabled")
}

/// cluster.c `migrateCommand()`: options, then timeout and db, then which keys exist.
pub fn migrate(e: &mut Engine, c: &Call) -> Reply {
    let (mut first_key, mut num_keys) = (3, 1);
    let mut j = 6;
    while j < c.argc() {
        let more = c.argc() - 1 - j;
        let a = c.arg(j);
        if is_opt(a, "copy") || is_opt(a, "replace") {
        } else if is_opt(a, "auth") {
            if more == 0 {
                return syntax_error();
            }
            j += 1;
        } else if is_opt(a, "auth2") {
            if more < 2 {
                return syntax_error();
            }
            j += 2;
        } else if is_opt(a, "keys") {
            if !c.arg(3).is_empty() {
                return Reply::err(
                    "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string",
                );
            }
            first_key = j + 1;
            num_keys = c.argc() - j - 1;
            break;
        } else {
            return syntax_error();
        }
        j += 1;
    }
    if let Err(r) = parse_i64(c.arg(5)) {
        return r;
    }
    if let Err(r) = parse_i64(c.arg(4)) {
        return r;
    }
    let present = (first_key..first_key + num_keys).filter(|&k| e.lookup_read(c.db, c.arg(k)).is_some()).count();
    if present == 0 {
        return Reply::Status("NOKEY".into());
    }
    Reply::err("IOERR error or timeout connecting to the client")
}
