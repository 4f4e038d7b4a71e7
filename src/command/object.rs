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
        Some(o) => Reply::Integer(o.refcount()),
        None => Reply::Nil,
    }
}

pub fn object_idletime(e: &mut Engine, c: &Call) -> Reply {
    let Some(o) = find(e, c) else { return Reply::Nil };
    if e.lfu_policy() {
        return Reply::err("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.");
    }
    Reply::Integer(estimate_idle_ms(e.lruclock, o.lru()) / 1000)
}

pub fn object_freq(e: &mut Engine, c: &Call) -> Reply {
    let Some(o) = find(e, c) else { return Reply::Nil };
    if !e.lfu_policy() {
        return Reply::err("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.");
    }
    Reply::Integer(lfu_decr_and_return(o.lru(), e.now_ms(), e.config.int("lfu-decay-time")) as i64)
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

/// object.c `getMemoryOverheadData()` on the memory model: what the server spends besides the
/// dataset, and the allocator's view of it. The allocator figures (jemalloc's allocated,
/// active and resident bytes, the process RSS) are a model too: a constant allocator overhead
/// over `used_memory`, 8% of it in partly used pages, and constant resident/RSS overheads, in
/// the proportions of an idle redis-server 7.0.15 on Debian (allocated − used ≈ 0.7 MB,
/// active/allocated ≈ 1.08, resident − active ≈ 2.5 MB, RSS − resident ≈ 2.2 MB).
pub struct MemOverhead {
    pub used: u64,
    pub peak: u64,
    pub startup: u64,
    pub clients_normal: u64,
    /// `lua_caches`: the scripts EVAL cached (eval.c `lua_scripts_mem`).
    pub lua_caches: u64,
    pub functions_caches: u64,
    /// (db index, main table overhead, expires table overhead) for each non-empty db.
    pub dbs: Vec<(usize, u64, u64)>,
    pub total: u64,
    pub keys: u64,
    pub allocated: u64,
    pub active: u64,
    pub resident: u64,
    pub rss: u64,
}

/// The allocator's overhead over `used_memory` (see `MemOverhead`).
const ALLOCATOR_OVERHEAD: u64 = 700_000;
const RESIDENT_OVERHEAD: u64 = 2_560 * 1024;
const RSS_OVERHEAD: u64 = 2_240 * 1024;
/// eval.c: each cached script costs its sha, its body object and its dict entry (measured on
/// 7.0.15: 120 bytes plus the body's sds).
const SCRIPT_OVERHEAD: u64 = 120;

impl MemOverhead {
    pub fn net(&self) -> u64 {
        self.used.saturating_sub(self.startup)
    }
    pub fn dataset(&self) -> u64 {
        self.used.saturating_sub(self.total)
    }
    /// `(float)dataset*100/net_usage`.
    pub fn dataset_perc(&self) -> f32 {
        if self.net() == 0 {
            0.0
        } else {
            self.dataset() as f32 * 100.0 / self.net() as f32
        }
    }
    /// `(float)zmalloc_used*100/peak_allocated`.
    pub fn peak_perc(&self) -> f32 {
        self.used as f32 * 100.0 / self.peak.max(1) as f32
    }
}

pub(crate) fn memory_overhead(e: &Engine) -> MemOverhead {
    use crate::memory::*;
    let used = e.used_memory();
    let peak = e.stats.peak_memory.max(used);
    let clients_normal = CLIENT_MEMORY * e.clients.len() as u64;
    let lua_caches: u64 =
        e.scripts.cache.values().map(|s| SCRIPT_OVERHEAD + sds_grown_alloc(s.body.len()) as u64).sum();
    let functions_caches = e.scripts.libs.memory();
    let mut total = USED_MEMORY_STARTUP + clients_normal + lua_caches + functions_caches;
    let mut keys = 0u64;
    let mut dbs = Vec::new();
    for (i, d) in e.dbs.iter().enumerate() {
        if d.is_empty() {
            continue;
        }
        keys += d.len() as u64;
        let main = (d.len() * (SIZEOF_DICT_ENTRY + SIZEOF_ROBJ) + d.dict_buckets.size() * 8) as u64;
        let expires = (d.expires.len() * SIZEOF_DICT_ENTRY + d.expires_buckets.size() * 8) as u64;
        total += main + expires;
        dbs.push((i, main, expires));
    }
    let allocated = used + ALLOCATOR_OVERHEAD;
    let active = (allocated + allocated / 12).div_ceil(4096) * 4096;
    let resident = active + RESIDENT_OVERHEAD;
    let rss = resident + RSS_OVERHEAD;
    MemOverhead {
        used,
        peak,
        startup: USED_MEMORY_STARTUP,
        clients_normal,
        lua_caches,
        functions_caches,
        dbs,
        total,
        keys,
        allocated,
        active,
        resident,
        rss,
    }
}

/// object.c `memoryCommand()` STATS: a map (an array of pairs over RESP2), each db's tables a
/// map of their own, ratios as doubles from Redis's `float`s.
pub fn memory_stats(e: &mut Engine, _c: &Call) -> Reply {
    let m = memory_overhead(e);
    let int = |n: u64| Reply::Integer(n as i64);
    let ratio = |a: u64, b: u64| Reply::Double(if b == 0 { 0.0 } else { (a as f32 / b as f32) as f64 });
    let mut out: Vec<(Reply, Reply)> = Vec::new();
    let mut kv = |k: &str, v: Reply| out.push((Reply::bulk(k), v));
    kv("peak.allocated", int(m.peak));
    kv("total.allocated", int(m.used));
    kv("startup.allocated", int(m.startup));
    kv("replication.backlog", int(0));
    kv("clients.slaves", int(0));
    kv("clients.normal", int(m.clients_normal));
    kv("cluster.links", int(0));
    kv("aof.buffer", int(0));
    kv("lua.caches", int(m.lua_caches));
    kv("functions.caches", int(m.functions_caches));
    for &(i, main, expires) in &m.dbs {
        kv(
            &format!("db.{i}"),
            Reply::Map(vec![
                (Reply::bulk("overhead.hashtable.main"), int(main)),
                (Reply::bulk("overhead.hashtable.expires"), int(expires)),
                (Reply::bulk("overhead.hashtable.slot-to-keys"), int(0)),
            ]),
        );
    }
    kv("overhead.total", int(m.total));
    kv("keys.count", int(m.keys));
    kv("keys.bytes-per-key", int(m.net().checked_div(m.keys).unwrap_or(0)));
    kv("dataset.bytes", int(m.dataset()));
    kv("dataset.percentage", Reply::Double(m.dataset_perc() as f64));
    kv("peak.percentage", Reply::Double(m.peak_perc() as f64));
    kv("allocator.allocated", int(m.allocated));
    kv("allocator.active", int(m.active));
    kv("allocator.resident", int(m.resident));
    kv("allocator-fragmentation.ratio", ratio(m.active, m.allocated));
    kv("allocator-fragmentation.bytes", int(m.active - m.allocated));
    kv("allocator-rss.ratio", ratio(m.resident, m.active));
    kv("allocator-rss.bytes", int(m.resident - m.active));
    kv("rss-overhead.ratio", ratio(m.rss, m.resident));
    kv("rss-overhead.bytes", int(m.rss - m.resident));
    kv("fragmentation", ratio(m.rss, m.used));
    kv("fragmentation.bytes", int(m.rss.saturating_sub(m.used)));
    Reply::Map(out)
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
