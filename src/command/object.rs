//! object.c `objectCommand()`: OBJECT ENCODING, REFCOUNT, IDLETIME, FREQ (HELP is the recorded
//! reply). The key is looked up without touching its LRU/LFU field (LOOKUP_NOTOUCH), as Redis
//! does, so asking doesn't change the answer.

use crate::command::table::Call;
use crate::engine::{lookup, Engine, LRU_CLOCK_MAX, LRU_CLOCK_RESOLUTION};
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

/// evict.c `estimateObjectIdleTime()` in ms.
pub fn estimate_idle_ms(lruclock: u32, lru: u32) -> i64 {
    let ticks = if lruclock >= lru { lruclock - lru } else { lruclock + (LRU_CLOCK_MAX - lru) };
    ticks as i64 * LRU_CLOCK_RESOLUTION
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
