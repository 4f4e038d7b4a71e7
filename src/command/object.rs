//! object.c `objectCommand()`: OBJECT ENCODING, REFCOUNT, IDLETIME, FREQ (HELP is the recorded
//! reply). The key is looked up without touching its LRU/LFU field (LOOKUP_NOTOUCH), as Redis
//! does, so asking doesn't change the answer.

use crate::command::call::Call;
use crate::engine::{lookup, Engine};
use crate::evict::estimate_idle_ms;
use crate::object::{lfu_decr_and_return, RObj};
use crate::reply::Reply;

fn find(e: &mut Engine, c: &Call) -> Option<RObj> {
    e.lookup(c.db, c.arg(2), lookup::NOTOUCH | lookup::NONOTIFY).cloned()
}

pub fn object_encoding(e: &mut Engine, c: &Call) -> Reply {
    match find(e, c) {
        Some(o) => Reply::bulk(o.value.encoding()),
        None => Reply::Nil,
    }
}

pub fn object_refcount(e: &mut Engine, c: &Call) -> Reply {
    match find(e, c) {
        Some(o) => Reply::Integer(o.value.refcount()),
        None => Reply::Nil,
    }
}

pub fn object_idletime(e: &mut Engine, c: &Call) -> Reply {
    let Some(o) = find(e, c) else { return Reply::Nil };
    if e.lfu_policy() {
        return Reply::err("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.");
    }
    Reply::Integer(estimate_idle_ms(e.lruclock, o.lru) / 1000)
}

pub fn object_freq(e: &mut Engine, c: &Call) -> Reply {
    let Some(o) = find(e, c) else { return Reply::Nil };
    if !e.lfu_policy() {
        return Reply::err("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.");
    }
    Reply::Integer(lfu_decr_and_return(o.lru, e.now_ms(), e.config.int("lfu-decay-time")) as i64)
}

// ---------------------------------------------------------------------------------------------
// MEMORY (object.c memoryCommand)
// ---------------------------------------------------------------------------------------------

/// object.c `memoryCommand()` USAGE: objectComputeSize + key sds + sizeof(dictEntry), no lazy
/// expiry (a raw dictFind).
pub fn memory_usage(e: &mut Engine, c: &Call) -> Reply {
    let mut samples: usize = 5;
    let mut j = 3;
    while j < c.argc() {
        if crate::command::is_opt(c.arg(j), "samples") && j + 1 < c.argc() {
            match crate::command::parse_i64(c.arg(j + 1)) {
                Ok(n) if n < 0 => return crate::command::syntax_error(),
                Ok(n) => samples = usize::try_from(n).unwrap_or(usize::MAX),
                Err(r) => return r,
            }
            j += 2;
        } else {
            return crate::command::syntax_error();
        }
    }
    let key = c.arg(2);
    match e.dbs[c.db].get(key) {
        None => Reply::Nil,
        Some(o) => {
            let usage = crate::memory::object_compute_size(&o.value, samples)
                + crate::memory::sds_alloc(key.len())
                + crate::memory::SIZEOF_DICT_ENTRY;
            Reply::Integer(usage as i64)
        }
    }
}

/// MEMORY STATS with the modelled numbers (the allocator fields report the model too).
pub fn memory_stats(e: &mut Engine, _c: &Call) -> Reply {
    use crate::memory::*;
    let used = e.used_memory();
    let peak = e.stats.peak_memory.max(used);
    let clients = CLIENT_MEMORY * e.clients.len() as u64;
    let mut out = vec![];
    let mut kv = |k: &str, v: Reply| {
        out.push(Reply::bulk(k));
        out.push(v);
    };
    kv("peak.allocated", Reply::Integer(peak as i64));
    kv("total.allocated", Reply::Integer(used as i64));
    kv("startup.allocated", Reply::Integer(USED_MEMORY_STARTUP as i64));
    kv("replication.backlog", Reply::Integer(0));
    kv("clients.slaves", Reply::Integer(0));
    kv("clients.normal", Reply::Integer(clients as i64));
    kv("cluster.links", Reply::Integer(0));
    kv("aof.buffer", Reply::Integer(0));
    kv("lua.caches", Reply::Integer(0));
    kv("functions.caches", Reply::Integer(0));
    let mut overhead = USED_MEMORY_STARTUP + clients;
    let mut keys = 0u64;
    for (i, d) in e.dbs.iter().enumerate() {
        if d.is_empty() {
            continue;
        }
        keys += d.len() as u64;
        let main = d.len() * (SIZEOF_DICT_ENTRY + SIZEOF_ROBJ) + d.dict_buckets.size() * 8;
        let expires = d.expires.len() * SIZEOF_DICT_ENTRY + d.expires_buckets.size() * 8;
        overhead += (main + expires) as u64;
        out.push(Reply::bulk(format!("db.{i}")));
        out.push(Reply::Array(vec![
            Reply::bulk("overhead.hashtable.main"),
            Reply::Integer(main as i64),
            Reply::bulk("overhead.hashtable.expires"),
            Reply::Integer(expires as i64),
            Reply::bulk("overhead.hashtable.slot-to-keys"),
            Reply::Integer(0),
        ]));
    }
    let net = used.saturating_sub(USED_MEMORY_STARTUP);
    let dataset = used.saturating_sub(overhead);
    let mut kv = |k: &str, v: Reply| {
        out.push(Reply::bulk(k));
        out.push(v);
    };
    kv("overhead.total", Reply::Integer(overhead as i64));
    kv("keys.count", Reply::Integer(keys as i64));
    kv("keys.bytes-per-key", Reply::Integer(net.checked_div(keys).unwrap_or(0) as i64));
    kv("dataset.bytes", Reply::Integer(dataset as i64));
    kv("dataset.percentage", Reply::Double(if net > 0 { dataset as f32 as f64 * 100.0 / net as f64 } else { 0.0 }));
    kv("peak.percentage", Reply::Double(used as f64 * 100.0 / peak.max(1) as f64));
    kv("allocator.allocated", Reply::Integer(used as i64));
    kv("allocator.active", Reply::Integer(used as i64));
    kv("allocator.resident", Reply::Integer(used as i64));
    Reply::Array(out)
}

/// object.c `memoryCommand()` DOCTOR, for the cases the model can tell.
pub fn memory_doctor(e: &mut Engine, _c: &Call) -> Reply {
    if e.used_memory() < 5 * 1024 * 1024 {
        return Reply::Verbatim(b"Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.".to_vec());
    }
    Reply::Verbatim(
        b"Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base."
            .to_vec(),
    )
}

pub fn memory_purge(_e: &mut Engine, _c: &Call) -> Reply {
    Reply::ok()
}

/// There is no allocator in the playground: memory is a model (src/memory.rs).
pub fn memory_malloc_stats(_e: &mut Engine, _c: &Call) -> Reply {
    Reply::bulk("Stats not supported for the current allocator (redisplay models jemalloc 5.3.0's size classes; see INFO memory)")
}
