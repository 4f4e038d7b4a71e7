//! Read-only, windowed snapshots of engine state for the views (playground-only; Redis has no
//! equivalent). A view asks for what is on screen — a page of keys, a window of a sorted set —
//! so a million keys or members cost a frame nothing. Nothing here mutates the engine: keys
//! past their TTL are reported as `expired` rather than deleted, which is exactly what a view
//! of lazy expiry needs to show.

use serde::Serialize;

use crate::ds::skiplist::NIL;
use crate::engine::Engine;
use crate::object::{Hash, Set, Value, Zset};
use crate::util::text;

#[derive(Debug, Clone, Serialize)]
pub struct KeyInfo {
    pub key: String,
    #[serde(rename = "type")]
    pub type_name: &'static str,
    pub encoding: &'static str,
    /// Elements in a collection, bytes in a string.
    pub len: usize,
    /// Absolute expire time (Unix ms), if any.
    pub expire_at_ms: Option<i64>,
    /// Past its TTL but not yet reclaimed (lazy or active expiry will delete it).
    pub expired: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct KeyspacePage {
    pub db: usize,
    pub total: usize,
    pub volatile: usize,
    pub offset: usize,
    pub keys: Vec<KeyInfo>,
}

fn value_len(v: &Value) -> usize {
    match v {
        Value::Str(s) => s.len(),
        Value::List(l) => l.len(),
        Value::Hash(Hash::Listpack(v)) => v.len(),
        Value::Hash(Hash::Table(m)) => m.len(),
        Value::Set(Set::Intset(i)) => i.len(),
        Value::Set(Set::Table(t)) => t.len(),
        Value::Zset(z) => z.len(),
        Value::Stream(s) => s.length as usize,
    }
}

/// Keys `offset..offset+count` of a db in keyspace order, optionally only those matching a
/// glob pattern (then `offset` counts matches).
pub fn keyspace_page(e: &Engine, db: usize, offset: usize, count: usize, pattern: Option<&[u8]>) -> KeyspacePage {
    let Some(d) = e.dbs.get(db) else {
        return KeyspacePage { db, total: 0, volatile: 0, offset, keys: vec![] };
    };
    let now = e.now_ms();
    let keys = d
        .dict
        .iter()
        .filter(|(k, _)| pattern.is_none_or(|p| crate::util::glob_match(p, k, false)))
        .skip(offset)
        .take(count.min(10_000))
        .map(|(k, o)| {
            let expire_at_ms = d.expire_of(k);
            KeyInfo {
                key: text(k),
                type_name: o.value.type_name(),
                encoding: o.value.encoding(),
                len: value_len(&o.value),
                expire_at_ms,
                expired: expire_at_ms.is_some_and(|w| now > w),
            }
        })
        .collect();
    KeyspacePage { db, total: d.len(), volatile: d.expires.len(), offset, keys }
}

#[derive(Debug, Clone, Serialize)]
pub struct ZsetEntry {
    /// 0-based rank.
    pub rank: u64,
    pub member: String,
    pub score: f64,
    /// Skiplist levels of this node (0 in a listpack).
    pub level: usize,
    /// Span of each level's forward link (how many members it jumps); empty in a listpack.
    pub spans: Vec<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ZsetWindow {
    pub key: String,
    pub encoding: &'static str,
    pub len: usize,
    /// Highest level in use (`zsl->level`); 0 for a listpack.
    pub max_level: usize,
    /// Spans of the header's links, one per level in use.
    pub header_spans: Vec<u64>,
    pub start: u64,
    pub entries: Vec<ZsetEntry>,
    pub max_entries: i64,
    pub max_value: i64,
}

/// Members at ranks `start..start+count` of the sorted set at `key`, with their skiplist levels
/// and spans. `None` if the key is missing or not a sorted set.
pub fn zset_window(e: &Engine, db: usize, key: &[u8], start: u64, count: usize) -> Option<ZsetWindow> {
    let obj = e.dbs.get(db)?.get(key)?;
    let Value::Zset(z) = &obj.value else { return None };
    let count = count.min(10_000);
    let mut entries = Vec::with_capacity(count);
    let (max_level, header_spans) = match z {
        Zset::Listpack(v) => {
            for (i, (m, s)) in v.iter().enumerate().skip(start as usize).take(count) {
                entries.push(ZsetEntry { rank: i as u64, member: text(m), score: *s, level: 0, spans: vec![] });
            }
            (0, vec![])
        }
        Zset::Skiplist { zsl, .. } => {
            let mut n = zsl.by_rank(start + 1);
            let mut rank = start;
            while n != NIL && entries.len() < count {
                let node = zsl.node(n);
                entries.push(ZsetEntry {
                    rank,
                    member: text(&node.ele),
                    score: node.score,
                    level: node.levels.len(),
                    spans: node.levels.iter().map(|l| if l.forward == NIL { 0 } else { l.span }).collect(),
                });
                rank += 1;
                n = zsl.next(n);
            }
            let header = zsl.node(zsl.header());
            let spans =
                header.levels[..zsl.level()].iter().map(|l| if l.forward == NIL { 0 } else { l.span }).collect();
            (zsl.level(), spans)
        }
    };
    Some(ZsetWindow {
        key: text(key),
        encoding: obj.value.encoding(),
        len: z.len(),
        max_level,
        header_spans,
        start,
        entries,
        max_entries: e.config.int("zset-max-listpack-entries"),
        max_value: e.config.int("zset-max-listpack-value"),
    })
}

impl Engine {
    /// Fills a db with `count` string keys `<prefix><n>` whose TTLs are drawn from the engine's
    /// seeded RNG between `min_ms` and `max_ms` — uniformly, or (`exponential`) with most TTLs
    /// near `min_ms` and a long tail. A playground helper for the views, not a Redis command.
    /// Returns how many keys it created (existing names are skipped).
    pub fn populate_volatile(
        &mut self,
        db: usize,
        count: usize,
        prefix: &[u8],
        min_ms: i64,
        max_ms: i64,
        exponential: bool,
    ) -> usize {
        if db >= self.dbs.len() {
            return 0;
        }
        let (lo, hi) = (min_ms.clamp(1, crate::engine::MAX_CLOCK_MS), max_ms.clamp(1, crate::engine::MAX_CLOCK_MS));
        let (lo, hi) = (lo.min(hi), lo.max(hi));
        let span = (hi - lo) as f64;
        let mut made = 0;
        let was_recording = self.events.enabled();
        self.events.set_enabled(false);
        for n in 0..count.min(5_000_000) {
            let mut key = prefix.to_vec();
            key.extend_from_slice(n.to_string().as_bytes());
            if self.dbs[db].contains(&key) {
                continue;
            }
            let u = crate::engine::uniform(&mut self.rng);
            let ttl = if exponential {
                // Mean at a fifth of the range, capped at its top.
                lo + ((-(1.0 - u).ln()) * span / 5.0).min(span) as i64
            } else {
                lo + (u * span) as i64
            };
            let value = crate::object::StrValue::from_bytes(b"v".to_vec());
            let obj = self.new_obj(crate::object::Value::Str(value));
            self.dbs[db].insert(key.clone(), obj);
            self.dbs[db].set_expire(&key, self.now_ms + ttl);
            made += 1;
        }
        // A helper, not commands: no `new` events for the filler keys.
        self.dbs[db].created.clear();
        self.events.set_enabled(was_recording);
        made
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineOptions;
    use crate::session::Session;

    #[test]
    fn the_expire_field_counts_every_volatile_key_once() {
        let mut s = Session::new(EngineOptions { seed: 5, start_ms: 1_000_000 });
        assert_eq!(s.engine.populate_volatile(0, 10_000, b"k:", 100, 10_000, false), 10_000);
        assert_eq!(s.engine.populate_volatile(0, 100, b"k:", 100, 10_000, true), 0, "existing names are skipped");
        s.engine.set_time(1_000_000 + 5_000);
        let f = expire_field(&s.engine, 0, 64).unwrap();
        let (live, stale): (u32, u32) = f.cells.iter().fold((0, 0), |(a, b), c| (a + c.live, b + c.stale));
        assert_eq!((live + stale) as usize, f.volatile);
        assert_eq!(stale as usize, f.stale);
        assert!(f.stale > 4000 && f.stale < 6000, "about half are past their TTL: {}", f.stale);
        assert_eq!(f.table_size, 16384);
        let buckets = expire_buckets(&s.engine, 0, f.cursor_bucket, 8);
        assert_eq!(buckets.len(), 8);
        assert_eq!(buckets[0].bucket, f.cursor_bucket);
    }

    #[test]
    fn windows_report_levels_and_spans_that_add_up() {
        let mut s = Session::new(EngineOptions { seed: 3, start_ms: 0 });
        let args: Vec<String> = (0..300).map(|i| format!("{i} m{i}")).collect();
        s.run_line(format!("ZADD z {}", args.join(" ")).as_bytes());
        let w = zset_window(&s.engine, 0, b"z", 0, 300).unwrap();
        assert_eq!((w.encoding, w.len, w.entries.len()), ("skiplist", 300, 300));
        // Following level-0 spans visits every member; a node's span at level i reaches the
        // next node of height > i.
        for (i, e) in w.entries.iter().enumerate() {
            assert!(e.level >= 1);
            if i + 1 < 300 {
                assert_eq!(e.spans[0], 1);
            }
            for (lvl, span) in e.spans.iter().enumerate() {
                if *span > 0 {
                    let target = &w.entries[i + *span as usize];
                    assert!(target.level > lvl);
                }
            }
        }
        let mid = zset_window(&s.engine, 0, b"z", 100, 5).unwrap();
        assert_eq!(mid.entries[0].member, "m100");
        s.run_line(b"ZADD small 1 a 2 b");
        assert_eq!(zset_window(&s.engine, 0, b"small", 0, 10).unwrap().encoding, "listpack");
        s.run_line(b"SET k v PX 10");
        s.engine.advance_to(20, u64::MAX);
        let page = keyspace_page(&s.engine, 0, 0, 10, None);
        let k = page.keys.iter().find(|k| k.key == "k").unwrap();
        assert!(k.expired);
    }
}

// ---------------------------------------------------------------------------------------------
// The expires table, for the expiry view
// ---------------------------------------------------------------------------------------------

/// One cell of the expires field: a run of consecutive buckets.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct ExpireCell {
    /// Keys with a TTL still ahead.
    pub live: u32,
    /// Keys past their TTL, not yet reclaimed.
    pub stale: u32,
}

/// The whole expires table of a db folded into `cells` cells in bucket order, with the active
/// expire cycle's cursor: the field the 7.0 cursor sweeps. O(keys with a TTL).
#[derive(Debug, Clone, Serialize)]
pub struct ExpireField {
    pub db: usize,
    pub table_size: usize,
    pub volatile: usize,
    pub stale: usize,
    pub keys: usize,
    /// Bucket the cursor points at (`expires_cursor & mask`).
    pub cursor_bucket: usize,
    pub buckets_per_cell: f64,
    pub cells: Vec<ExpireCell>,
}

pub fn expire_field(e: &Engine, db: usize, cells: usize) -> Option<ExpireField> {
    let d = e.dbs.get(db)?;
    let size = d.expires_buckets.size();
    let n = cells.clamp(1, 100_000).min(size.max(1));
    let mut out = vec![ExpireCell::default(); n];
    let now = e.now_ms();
    let mut stale = 0;
    // Index order (sequential memory), placing each key by its bucket.
    for (i, (_, &when)) in d.expires.iter().enumerate() {
        let cell = d.expires_buckets.bucket_of_index(i) * n / size.max(1);
        if now > when {
            out[cell].stale += 1;
            stale += 1;
        } else {
            out[cell].live += 1;
        }
    }
    Some(ExpireField {
        db,
        table_size: size,
        volatile: d.expires.len(),
        stale,
        keys: d.len(),
        cursor_bucket: if size == 0 { 0 } else { d.expires_buckets.bucket_for_cursor(d.expires_cursor) },
        buckets_per_cell: if n == 0 { 0.0 } else { size as f64 / n as f64 },
        cells: out,
    })
}

/// One bucket of the expires table and its chain.
#[derive(Debug, Clone, Serialize)]
pub struct BucketView {
    pub bucket: usize,
    pub keys: Vec<BucketKey>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BucketKey {
    pub key: String,
    pub ttl_ms: i64,
    pub expired: bool,
}

/// Buckets `start..start+count` of a db's expires table (wrapping), chains head first.
pub fn expire_buckets(e: &Engine, db: usize, start: usize, count: usize) -> Vec<BucketView> {
    let Some(d) = e.dbs.get(db) else { return vec![] };
    let size = d.expires_buckets.size();
    if size == 0 {
        return vec![];
    }
    let now = e.now_ms();
    (0..count.min(size).min(4096))
        .map(|k| {
            let b = (start + k) % size;
            let keys = d
                .expires_buckets
                .chain(b)
                .filter_map(|i| d.expires.get_index(i as usize))
                .map(|(k, &when)| BucketKey { key: text(k), ttl_ms: when.saturating_sub(now), expired: now > when })
                .collect();
            BucketView { bucket: b, keys }
        })
        .collect()
}

/// One file of the persistence view: its name, what it is (`rdb`, `manifest`, `base`, `incr`,
/// `history`, `temp-incr`) and its size.
#[derive(Debug, Clone, Serialize)]
pub struct FileInfo {
    pub name: String,
    pub role: &'static str,
    pub size: Option<u64>,
}

/// What the persistence view shows of the files (playground-only): the RDB file and the AOF's,
/// the AOF's state, the children at work.
#[derive(Debug, Clone, Serialize)]
pub struct PersistenceSnapshot {
    /// `off`, `on` or `wait_rewrite` (on, its first rewrite not done).
    pub aof: &'static str,
    /// The AOF directory (`dir`/`appenddirname`).
    pub aof_dir: String,
    /// The RDB file, then the manifest and the files it names (base, history, incr), and the
    /// temp incr file while the AOF waits for its first rewrite.
    pub files: Vec<FileInfo>,
    /// Bytes fed to the AOF not yet written (`aof_buffer_length`).
    pub aof_buffer: usize,
    pub bgsave_in_progress: bool,
    pub aof_rewrite_in_progress: bool,
    /// `rdb_changes_since_last_save` and `lastsave` (Unix seconds).
    pub changes_since_save: u64,
    pub lastsave: i64,
}

/// The persistence view's snapshot.
pub fn persistence(e: &Engine) -> PersistenceSnapshot {
    let dir = e.config.str("dir");
    let aof_dir = format!("{dir}/{}", e.config.str("appenddirname"));
    let store = &e.persist.store;
    let rdb_name = e.config.str("dbfilename");
    let mut files = vec![FileInfo { name: rdb_name.to_string(), role: "rdb", size: store.size(dir, rdb_name) }];
    let a = &e.persist.aof;
    let manifest = format!("{}.manifest", e.config.str("appendfilename"));
    if let Some(size) = store.size(&aof_dir, &manifest) {
        files.push(FileInfo { name: manifest, role: "manifest", size: Some(size) });
    }
    for f in a.manifest.base.iter().chain(&a.manifest.history).chain(&a.manifest.incr) {
        let name = text(&f.name);
        let role = match f.kind {
            b'b' => "base",
            b'h' => "history",
            _ => "incr",
        };
        let size = store.size(&aof_dir, &name);
        files.push(FileInfo { name, role, size });
    }
    if let Some(name) = a.incr_name.as_ref().filter(|n| n.starts_with("temp-")) {
        files.push(FileInfo { name: name.clone(), role: "temp-incr", size: store.size(&aof_dir, name) });
    }
    PersistenceSnapshot {
        aof: match a.status {
            crate::engine::AofStatus::Off => "off",
            crate::engine::AofStatus::On => "on",
            crate::engine::AofStatus::WaitRewrite => "wait_rewrite",
        },
        aof_dir,
        files,
        aof_buffer: e.prop.aof.as_ref().map_or(0, |s| s.buf.len()),
        bgsave_in_progress: e.persist.bgsave.is_some(),
        aof_rewrite_in_progress: a.rewrite.is_some(),
        changes_since_save: e.stats.dirty,
        lastsave: e.persist.lastsave,
    }
}

/// One server's side of replication, for the persistence view's replica lane: what INFO
/// replication and DBSIZE say, and how many of its keys are logically expired but still there
/// (a replica keeps them until its master's DEL arrives; a master reclaims them).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicationSide {
    pub now_ms: i64,
    /// `master` or `slave`, as ROLE says.
    pub role: &'static str,
    /// A replica's master (`host:port`) and its link: `connect`, `connecting`, `sync`
    /// (handshake), `transfer` (reading the RDB), `connected`.
    pub master: Option<String>,
    pub link: Option<&'static str>,
    /// `master_repl_offset`; a replica's `slave_repl_offset` (what it applied).
    pub repl_offset: i64,
    pub replica_offset: Option<i64>,
    /// Attached replicas (a master's `connected_slaves`) with the offset each acked.
    pub replicas: Vec<ReplicaAck>,
    /// Keys in every db (DBSIZE summed), and of those the ones past their deadline.
    pub keys: usize,
    pub expired_not_reclaimed: usize,
    /// The first `STALE_KEYS_SHOWN` of those, with their deadline.
    pub expired_keys: Vec<ExpiredKey>,
    pub used_memory: u64,
    pub sync_full: u64,
    pub sync_partial_ok: u64,
}

/// A key past its deadline, still in the keyspace.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpiredKey {
    pub db: usize,
    pub key: String,
    pub expire_at_ms: i64,
}

/// Keys past their deadline a replication side names.
pub const STALE_KEYS_SHOWN: usize = 8;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaAck {
    pub port: i64,
    pub state: &'static str,
    pub ack_offset: i64,
}

/// The replica lane's numbers for one engine: O(keys with a TTL).
pub fn replication_side(e: &Engine) -> ReplicationSide {
    use crate::replication::{LinkState, ReplicaState};
    let now = e.now_ms();
    let master = e.repl.master.as_ref();
    let link = master.map(|m| match m.state {
        LinkState::Connect => "connect",
        LinkState::Connecting => "connecting",
        LinkState::Transfer => "transfer",
        LinkState::Connected => "connected",
        _ => "sync",
    });
    let replicas = e
        .repl
        .order
        .iter()
        .filter_map(|id| e.repl.peers.get(id))
        .filter_map(|p| {
            let state = match p.state? {
                ReplicaState::Online => "online",
                _ => "sync",
            };
            Some(ReplicaAck { port: p.listening_port, state, ack_offset: p.ack_off })
        })
        .collect();
    let mut expired_not_reclaimed = 0;
    let mut expired_keys = Vec::new();
    for (db, d) in e.dbs.iter().enumerate() {
        for (key, &when) in d.expires.iter() {
            if now > when {
                expired_not_reclaimed += 1;
                if expired_keys.len() < STALE_KEYS_SHOWN {
                    expired_keys.push(ExpiredKey { db, key: text(key), expire_at_ms: when });
                }
            }
        }
    }
    ReplicationSide {
        now_ms: now,
        role: if master.is_some() { "slave" } else { "master" },
        master: master.map(|m| format!("{}:{}", m.host, m.port)),
        link,
        repl_offset: e.repl.master_repl_offset,
        replica_offset: master.map(|m| m.reploff),
        replicas,
        keys: (0..e.dbs.len()).map(|db| e.dbsize(db)).sum(),
        expired_not_reclaimed,
        expired_keys,
        used_memory: e.used_memory(),
        sync_full: e.repl.sync_full,
        sync_partial_ok: e.repl.sync_partial_ok,
    }
}
