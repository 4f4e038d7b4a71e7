//! The engine's state: models server.h — `struct redisServer` (databases, clients, config, the
//! virtual clock, the seeded RNG, stats, the event log) and `struct client` — and declares the
//! state each subsystem keeps between calls, as server.h declares it for expire.c, evict.c,
//! pubsub.c and blocked.c. Behaviour lives beside it, one file per concern:
//! - `client.rs`: connecting and closing clients (networking.c `createClient()`/`freeClient()`);
//! - `keyspace.rs`: db.c's lookups with lazy expiry (`lookupKey()`, `expireIfNeeded()`) and
//!   the cost of freeing values (lazyfree.c);
//! - `cron.rs`: the virtual clock, `serverCron()` and `beforeSleep()`;
//! - `stats.rs`: the INFO counters;
//! - `log.rs`: the server log (server.c `serverLog()`), which hosts drain;
//! - running a command (`processCommand()` → `call()`) is command/dispatch.rs; the subsystems'
//!   algorithms are expire.rs, evict.rs, pubsub.rs, blocked.rs, notify.rs.
//!
//! Time and randomness are inputs: the host sets the clock (`advance_to`, `set_time`) and the
//! seed; nothing here reads a wall clock or global state, so the same seed and inputs give the
//! same run. Differences from Redis: one thread, no sockets; the cached command time is the
//! virtual clock, which cannot move during a command; `serverCron` runs once per `1000/hz` ms
//! of virtual time crossed (fast-forwarded in bulk while it has nothing observable to do).

pub mod client;
pub mod cron;
pub mod keyspace;
pub mod log;
pub mod stats;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use indexmap::IndexMap;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::config::Config;
use crate::db::Db;
use crate::events::{EventLog, PoolEntry};
use crate::object::{LRU_CLOCK_MAX, LRU_CLOCK_RESOLUTION};
use crate::reply::Reply;

pub use log::{LogLevel, LogLine};
pub use stats::{CallInfo, CommandStat, CpuClock, LatencyMonitor, SlowLog, Stats};

pub type ClientId = u64;

/// Config values the engine reads per key or per command, refreshed on CONFIG SET.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct HotConfig {
    pub maxmemory: i64,
    pub cost_percent: i64,
    pub lazyfree_lazy_expire: bool,
    pub lfu_decay_time: i64,
    pub lfu_log_factor: i64,
    /// Read by the network server's query buffers (net/server.rs) for every command and read.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub proto_max_bulk_len: i64,
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub client_query_buffer_limit: i64,
    /// Read by call() after every command (slowlog.c, latency.c, server.c).
    pub slowlog_log_slower_than: i64,
    pub slowlog_max_len: i64,
    pub latency_monitor_threshold: i64,
    pub latency_tracking: bool,
    /// Read for every write (processCommand()'s min-replicas check) and every keyspace event.
    pub min_replicas_to_write: i64,
    pub notify_keyspace_events: u32,
    /// `active-expire-effort` (1–10).
    pub active_expire_effort: i64,
    /// `playground-expire-algorithm classic`.
    pub classic_expiry: bool,
}

/// A uniform double in [0, 1) from 53 random bits.
pub(crate) fn uniform(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// The default start of the virtual clock: 2025-01-01T00:00:00Z, so labs are reproducible.
pub const DEFAULT_START_MS: i64 = 1_735_689_600_000;
/// Bounded event log size.
pub const EVENT_LOG_CAPACITY: usize = 50_000;
/// The virtual clock stays within 0..=this (year ~146,000), so time arithmetic never overflows.
pub const MAX_CLOCK_MS: i64 = 1 << 52;

/// The id of a fresh server's first client (see `Engine::new`).
pub const FIRST_CLIENT_ID: ClientId = 3;

#[derive(Debug, Clone, Copy)]
pub struct EngineOptions {
    pub seed: u64,
    pub start_ms: i64,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions { seed: 0, start_ms: DEFAULT_START_MS }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Client {
    pub id: ClientId,
    pub db: usize,
    pub created_ms: i64,
    pub last_interaction_ms: i64,
    pub name: Vec<u8>,
    /// The last command run (CLIENT LIST `cmd=`) and its arguments' bytes (`argv-mem=`).
    pub last_cmd: &'static str,
    pub argv_mem: usize,
    /// MULTI state (multi.c): in a transaction, its queue, and the DIRTY flags.
    pub in_multi: bool,
    pub queued: Vec<Vec<Vec<u8>>>,
    pub dirty_exec: bool,
    pub dirty_cas: bool,
    /// WATCHed keys: (db, key, was it already logically expired when watched).
    pub watched: Vec<(usize, Vec<u8>, bool)>,
    /// Pub/Sub subscriptions, in subscription order.
    pub channels: Vec<Vec<u8>>,
    pub patterns: Vec<Vec<u8>>,
    /// The protocol the client speaks: 2, or 3 after `HELLO 3` (`c->resp`).
    pub resp: u8,
    /// `c->authenticated`: set at connect when the default user has no password, by AUTH.
    pub authenticated: bool,
    /// The ACL user the client runs as (`c->user`): `default` until AUTH/HELLO name another.
    pub user: Vec<u8>,
    /// `CLIENT_CLOSE_AFTER_COMMAND`: its user was deleted by its own command; the connection
    /// closes once the reply is out.
    pub close_after_command: bool,
    /// The peer and local `ip:port` of a network connection (`redisplay serve`); None for
    /// the page's consoles, which CLIENT LIST shows with stand-in addresses.
    pub addr: Option<(String, String)>,
    /// Replies that arrive without a command: Pub/Sub messages, a blocked command's late reply.
    pub outbox: std::collections::VecDeque<Reply>,
    /// Blocked on keys (blocked.c): what to re-run when a key becomes ready, and when to give up.
    pub blocked: Option<Blocked>,
    /// Client-side caching (`CLIENT_TRACKING` and its mode flags); None while tracking is off.
    pub tracking: Option<ClientTracking>,
    /// CLIENT REPLY: `CLIENT_REPLY_OFF`, `CLIENT_REPLY_SKIP` (this command's reply is dropped)
    /// and `CLIENT_REPLY_SKIP_NEXT` (the next one's will be).
    pub reply_off: bool,
    pub reply_skip: bool,
    pub reply_skip_next: bool,
    /// The last command's reply was not sent (CLIENT REPLY OFF/SKIP): hosts must not print it.
    pub reply_dropped: bool,
    /// How many outbox entries the last command's reply comes after (see `take_outbox_before`).
    pub reply_pos: usize,
    /// A command held while clients are paused (blocked.c `BLOCKED_POSTPONE`), run on unpause.
    pub postponed: Option<Postponed>,
    /// In MONITOR mode (`CLIENT_MONITOR`).
    pub monitor: bool,
    /// CLIENT NO-EVICT on (`CLIENT_NO_EVICT`).
    pub no_evict: bool,
    /// Sharded Pub/Sub subscriptions (SSUBSCRIBE), in subscription order.
    pub shard_channels: Vec<Vec<u8>>,
    /// `c->woff`: the replication offset after the client's last command (WAIT).
    pub woff: i64,
}

impl Client {
    pub(crate) fn new(id: ClientId, now: i64) -> Client {
        Client {
            id,
            created_ms: now,
            last_interaction_ms: now,
            last_cmd: "NULL",
            resp: 2,
            authenticated: true,
            user: b"default".to_vec(),
            ..Default::default()
        }
    }

    /// The client's `ip:port` (CLIENT LIST `addr`, SLOWLOG, MONITOR): the real peer for a
    /// network client, a stand-in (port 40000 + id) for a console of the page.
    pub fn peer_addr(&self) -> String {
        match &self.addr {
            Some((addr, _)) => addr.clone(),
            None => format!("127.0.0.1:{}", 40000 + self.id),
        }
    }

    /// networking.c `islocalClient()`: a console of the page, or a loopback connection.
    pub fn is_local(&self) -> bool {
        match &self.addr {
            None => true,
            Some((peer, _)) => peer.starts_with("127.") || peer.starts_with("[::1]") || peer.starts_with("::1"),
        }
    }

    /// Subscribed to any channel, pattern or shard channel (`CLIENT_PUBSUB`: RESP2 Pub/Sub mode).
    pub fn in_pubsub(&self) -> bool {
        !self.channels.is_empty() || !self.patterns.is_empty() || !self.shard_channels.is_empty()
    }

    /// The address the client connected to (CLIENT LIST `laddr`).
    pub fn local_addr(&self) -> String {
        match &self.addr {
            Some((_, laddr)) => laddr.clone(),
            None => "127.0.0.1:6379".into(),
        }
    }

    /// networking.c `resetClient()`'s flags after a command (or when a blocked one is
    /// answered): CLIENT REPLY SKIP lasts one command (`SKIP_NEXT` → `SKIP`); CLIENT CACHING's
    /// flag lasts until a command other than CLIENT, outside MULTI.
    pub(crate) fn reset_after_command(&mut self, client_cmd: bool) {
        self.reply_skip = std::mem::take(&mut self.reply_skip_next);
        if !self.in_multi && !client_cmd {
            if let Some(t) = self.tracking.as_mut() {
                t.caching = false;
            }
        }
    }

    /// Waits for something: blocked on keys, or postponed by CLIENT PAUSE (`CLIENT_BLOCKED`).
    pub fn is_blocked(&self) -> bool {
        self.blocked.is_some() || self.postponed.is_some()
    }
}

/// A tracking client's mode (tracking.c; the `CLIENT_TRACKING_*` flags of server.h).
#[derive(Debug, Clone, Default)]
pub struct ClientTracking {
    /// `client_tracking_redirection`: the client invalidations go to (0: this one).
    pub redirect: ClientId,
    pub bcast: bool,
    pub optin: bool,
    pub optout: bool,
    pub noloop: bool,
    /// `CLIENT_TRACKING_CACHING`: CLIENT CACHING yes (OPTIN) / no (OPTOUT) for the next command.
    pub caching: bool,
    /// `CLIENT_TRACKING_BROKEN_REDIR`: the redirection target is gone.
    pub broken_redir: bool,
    /// BCAST prefixes (`client_tracking_prefixes`, a rax: byte order).
    pub prefixes: BTreeSet<Vec<u8>>,
}

/// db.c `lookupKey()` flags.
pub mod lookup {
    pub const NONE: u32 = 0;
    /// Don't update the LRU/LFU field.
    pub const NOTOUCH: u32 = 1 << 0;
    /// Don't fire `keymiss`.
    pub const NONOTIFY: u32 = 1 << 1;
    /// Don't count hits/misses.
    pub const NOSTATS: u32 = 1 << 2;
    /// A write lookup: no stats, no keymiss.
    pub const WRITE: u32 = 1 << 3;
}

/// What `advance_to` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Advance {
    /// serverCron runs.
    pub ticks: u64,
    /// Virtual ms the clock is behind the requested time because the tick budget ran out.
    pub lag_ms: i64,
}

pub struct Engine {
    pub(crate) dbs: Vec<Db>,
    /// The flags every db raises (shared with them: `Db::signals`).
    pub(crate) db_signals: std::sync::Arc<crate::db::DbSignals>,
    pub(crate) clients: crate::ds::id_table::IdTable<Client>,
    /// The last Σ of the dbs' memory (`dbs_memory`).
    dbs_memory: std::cell::Cell<u64>,
    pub(crate) next_client_id: ClientId,
    pub(crate) config: Config,
    pub(crate) now_ms: i64,
    pub(crate) start_ms: i64,
    pub(crate) next_cron_ms: i64,
    pub(crate) cronloops: u64,
    pub(crate) lruclock: u32,
    pub(crate) rng: Xoshiro256PlusPlus,
    pub(crate) seed: u64,
    pub(crate) stats: Stats,
    pub(crate) events: EventLog,
    pub(crate) run_id: String,
    /// activeExpireCycle()'s statics.
    pub(crate) expire: ExpireState,
    /// The eviction pool and performEvictions()'s statics.
    pub(crate) evict: EvictState,
    /// databasesCron()'s `resize_db` static.
    pub(crate) resize_db: usize,
    /// `server.hz`: the configured hz, doubled by dynamic-hz when clients are many.
    pub(crate) hz_effective: i64,
    /// The command being executed (for events such as lazy expiry).
    pub(crate) current_command: Option<&'static str>,
    /// Cached from `maxmemory-policy` (updated by `config_changed`): an LFU policy.
    pub(crate) lfu: bool,
    /// Config values read for every key on hot paths, cached by `config_changed`.
    pub(crate) hot: HotConfig,
    /// Cached: shared integers allowed (not with maxmemory + an LRU/LFU policy).
    pub(crate) shared_integers: bool,
    /// Pub/Sub channels and patterns (pubsub.c).
    pub(crate) pubsub: PubSub,
    /// WATCHed keys → watching clients, in WATCH order (multi.c `db->watched_keys`).
    pub(crate) watched_keys: BTreeMap<(usize, Vec<u8>), Vec<ClientId>>,
    /// Clients blocked on keys and the keys made ready (blocked.c).
    pub(crate) blocking: BlockingState,
    /// A script is running: blocking commands answer at once (`CLIENT_DENY_BLOCKING`).
    pub(crate) in_script: bool,
    /// `errno` left at ERANGE by SORT's strtod (command/sort.rs), with the connection count
    /// then: a new connection or a command that clears errno ends it.
    pub(crate) errno_erange: Option<u64>,
    /// INFO's `tcp_port`: 6379 in the page, the real port under `redisplay serve`.
    pub tcp_port: u16,
    /// Lua scripting: the Lua state, the script cache, math.random's generator (script/).
    pub(crate) scripts: crate::script::Scripts,
    /// The virtual CPU clock the cost model advances (stats.rs `CpuClock`).
    pub(crate) cpu: CpuClock,
    /// CPU ns of serverCron work that `CLOCK ADVANCE` ran inside the command being dispatched:
    /// left out of that command's duration (and its caller's), since on a server cron runs
    /// between commands, not inside one (commandstats, SLOWLOG and the `command` latency event
    /// would otherwise charge an expire cycle to CLOCK).
    pub(crate) cron_in_command_ns: u64,
    /// `server.slowlog` (slowlog.rs) and `server.latency_events` (latency.rs).
    pub(crate) slowlog: SlowLog,
    pub(crate) latency: LatencyMonitor,
    /// Set by a script whose error reply came from `redis.call`/`redis.pcall` and was counted
    /// there (script_lua.c's `ignore_error_stats_update`): call() then counts the failed call
    /// but not the error again (networking.c `ERR_REPLY_FLAG_NO_STATS_UPDATE`).
    pub(crate) error_already_counted: bool,
    /// What DEBUG changed (command/debug.rs).
    pub(crate) debug: DebugState,
    /// Parameters the host set at startup, as redis-server reads its command line — kept so
    /// `reset()` starts over with them (`configure_startup`).
    startup_config: Vec<(String, String)>,
    /// INFO replication's `master_replid` (DEBUG CHANGE-REPL-ID draws a new one).
    pub(crate) replid: String,
    /// EXEC is running its queue: values stored from a queued command's arguments are shared
    /// with the queue until it ends (`RObj::exec_argv`).
    pub(crate) exec_running: bool,
    /// `server.loading`: a file is being loaded — no key expires meanwhile.
    pub(crate) loading: bool,
    /// serverCron or beforeSleep runs (from the clock, or from a CLOCK command moving it).
    pub(crate) in_cron: bool,
    /// `server.current_client`: the client whose command runs now (None in cron, beforeSleep).
    pub(crate) current_client: Option<ClientId>,
    /// Client-side caching: the tracking table, BCAST prefixes, pending invalidations (tracking.c).
    pub(crate) tracking: TrackingState,
    /// CLIENT PAUSE: its type and end, and the clients whose commands wait (networking.c).
    pub(crate) pause: PauseState,
    /// `server.monitors`: clients in MONITOR mode, in the order they entered it.
    pub(crate) monitors: Vec<ClientId>,
    /// The propagation stream (propagate.rs), recorded while something listens.
    pub(crate) prop: crate::propagate::Propagation,
    /// Sharded Pub/Sub channels (`server.pubsubshard_channels`): name → subscribers.
    pub(crate) shard_channels: IndexMap<Vec<u8>, Vec<ClientId>>,
    /// The keys a tracking client's read remembers: those of the command the client sent (for
    /// a script's `redis.call`, the EVAL's — tracking.c 7.0 reads the caller's argv).
    pub(crate) tracking_caller_keys: Vec<Vec<u8>>,
    /// ACL users and the ACL log (acl.rs).
    pub(crate) acl: crate::acl::Acl,
    /// The RDB file, the last save and load, a requested shutdown (command/rdb.rs, server.rs).
    pub(crate) persist: PersistState,
    /// The server log (log.rs).
    pub(crate) log: log::ServerLog,
    /// Replication, both roles (replication/).
    pub(crate) repl: crate::replication::state::ReplState,
    /// What replication runs through the command layer (set by command/dispatch.rs).
    pub(crate) repl_hooks: Option<ReplHooks>,
}

/// rdb.c's and server.c's persistence state in `redisServer`: where the RDB file goes (the
/// host's store, persist/store.rs), `lastsave`, the counters INFO persistence shows, and whether
/// SHUTDOWN ended the server (the host then closes its connections and stops).
pub struct PersistState {
    pub(crate) store: Box<dyn crate::persist::store::FileStore>,
    /// `server.lastsave`: Unix seconds of the last successful save (the start, at first: "at
    /// startup we consider the DB saved").
    pub lastsave: i64,
    /// `server.lastbgsave_status`.
    pub lastbgsave_ok: bool,
    /// `server.stat_rdb_saves`: SAVE and BGSAVE commands (DEBUG RELOAD's and SHUTDOWN's saves
    /// aren't counted).
    pub rdb_saves: u64,
    /// `rdb_last_load_keys_loaded` / `rdb_last_load_keys_expired` of the last load.
    pub last_load_keys_loaded: u64,
    pub last_load_keys_expired: u64,
    /// SHUTDOWN succeeded: the server is gone (`Engine::has_shut_down`).
    pub shut_down: bool,
    /// A BGSAVE child at work (command/rdb.rs), `server.child_type == CHILD_TYPE_RDB`.
    pub(crate) bgsave: Option<Bgsave>,
    /// `server.rdb_bgsave_scheduled`.
    pub bgsave_scheduled: bool,
    /// `server.lastbgsave_try`: Unix seconds of the last BGSAVE started.
    pub lastbgsave_try: i64,
    /// `server.rdb_save_time_last`: how long the last BGSAVE took, in seconds (-1: none yet).
    pub last_bgsave_time_sec: i64,
    /// `server.stat_rdb_cow_bytes`, `stat_aof_cow_bytes`: the last children's copy-on-write.
    pub rdb_last_cow_size: u64,
    pub aof_last_cow_size: u64,
    /// The append only file (command/aof.rs).
    pub aof: AofState,
}

/// aof.c's state in `redisServer` (command/aof.rs).
#[derive(Debug)]
pub struct AofState {
    /// `server.aof_state`.
    pub status: AofStatus,
    /// `server.aof_manifest`.
    pub manifest: crate::persist::aof::Manifest,
    /// The file `server.aof_fd` appends to (an incr file, or the temp incr file while the first
    /// rewrite runs); None while the AOF is off.
    pub(crate) incr_name: Option<String>,
    /// `server.aof_current_size`, `aof_last_incr_size`, `aof_rewrite_base_size`,
    /// `aof_fsync_offset`.
    pub current_size: u64,
    pub last_incr_size: u64,
    pub rewrite_base_size: u64,
    pub fsync_offset: u64,
    /// `server.aof_last_fsync` (Unix seconds).
    pub(crate) last_fsync_s: i64,
    /// A rewrite child at work (`server.child_type == CHILD_TYPE_AOF`).
    pub(crate) rewrite: Option<AofRewrite>,
    /// `server.aof_rewrite_scheduled`.
    pub rewrite_scheduled: bool,
    /// `server.stat_aof_rewrites`, `aof_lastbgrewrite_status`,
    /// `stat_aofrw_consecutive_failures`, `aof_rewrite_time_last` (-1: none yet).
    pub rewrites: u64,
    pub lastbgrewrite_ok: bool,
    pub consecutive_failures: u64,
    pub rewrite_time_last: i64,
    /// `server.aof_last_write_status`.
    pub last_write_ok: bool,
}

/// `AOF_OFF`, `AOF_ON`, `AOF_WAIT_REWRITE` (on, waiting for the rewrite that makes its base).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AofStatus {
    Off,
    On,
    WaitRewrite,
}

/// An AOF rewrite child: the base file it writes (the dataset when it forked) and when it is
/// done.
#[derive(Debug)]
pub(crate) struct AofRewrite {
    pub(crate) image: Vec<u8>,
    pub(crate) start_ms: i64,
    pub(crate) done_ms: i64,
    pub(crate) cow: ForkCow,
}

/// A fork child's copy-on-write memory, modelled: the first change of a key while the child
/// works copies the pages its value lies on (its size rounded up to 4 KB pages, one page at
/// least) — what the child's smaps `Private_Dirty` would grow by. Also the keys it has to
/// write, for its progress (`current_save_keys_total`).
#[derive(Debug, Default)]
pub(crate) struct ForkCow {
    pub(crate) touched: std::collections::HashSet<(usize, Vec<u8>)>,
    pub(crate) bytes: u64,
    pub(crate) keys_total: u64,
}

impl ForkCow {
    pub(crate) fn new(keys_total: u64) -> ForkCow {
        ForkCow { keys_total, ..Default::default() }
    }

    /// A key changed (`mem`: its value's bytes, 0 when it is new or gone).
    pub(crate) fn touch(&mut self, db: usize, key: &[u8], mem: usize) {
        if self.touched.insert((db, key.to_vec())) {
            self.bytes += (mem.max(1) as u64).div_ceil(4096) * 4096;
        }
    }
}

impl Default for AofState {
    fn default() -> Self {
        AofState {
            status: AofStatus::Off,
            manifest: Default::default(),
            incr_name: None,
            current_size: 0,
            last_incr_size: 0,
            rewrite_base_size: 0,
            fsync_offset: 0,
            last_fsync_s: 0,
            rewrite: None,
            rewrite_scheduled: false,
            rewrites: 0,
            lastbgrewrite_ok: true,
            consecutive_failures: 0,
            rewrite_time_last: -1,
            last_write_ok: true,
        }
    }
}

/// A BGSAVE child (command/rdb.rs): the image it writes (the dataset when it forked) and when
/// it is done.
#[derive(Debug)]
pub(crate) struct Bgsave {
    pub(crate) image: Vec<u8>,
    pub(crate) start_ms: i64,
    pub(crate) done_ms: i64,
    /// `server.dirty_before_bgsave`.
    pub(crate) dirty_before: u64,
    pub(crate) cow: ForkCow,
}

impl PersistState {
    fn new(start_ms: i64) -> PersistState {
        PersistState {
            store: Box::new(crate::persist::store::MemoryStore::default()),
            lastsave: start_ms.div_euclid(1000),
            lastbgsave_ok: true,
            rdb_saves: 0,
            last_load_keys_loaded: 0,
            last_load_keys_expired: 0,
            shut_down: false,
            bgsave: None,
            bgsave_scheduled: false,
            lastbgsave_try: 0,
            last_bgsave_time_sec: -1,
            rdb_last_cow_size: 0,
            aof_last_cow_size: 0,
            aof: AofState::default(),
        }
    }
}

/// What the DEBUG command switches (debug.c's server fields).
#[derive(Debug, Clone)]
pub struct DebugState {
    /// `server.active_expire_enabled` (DEBUG SET-ACTIVE-EXPIRE).
    pub active_expire: bool,
    /// `packed_threshold` of quicklist.c (DEBUG QUICKLIST-PACKED-THRESHOLD).
    pub quicklist_packed_threshold: u64,
    /// How many times DEBUG CHANGE-REPL-ID ran (each draws the next replication id).
    pub replid_changes: u64,
    /// `server.pause_cron` (DEBUG PAUSE-CRON): serverCron's ticks do nothing.
    pub pause_cron: bool,
    /// `server.skip_checksum_validation` (DEBUG SET-SKIP-CHECKSUM-VALIDATION), for RESTORE.
    pub skip_checksum_validation: bool,
}

impl Default for DebugState {
    fn default() -> Self {
        DebugState {
            active_expire: true,
            quicklist_packed_threshold: 1 << 30,
            replid_changes: 0,
            pause_cron: false,
            skip_checksum_validation: false,
        }
    }
}

/// INFO replication's `master_replid` for a seed: 40 hex digits derived from the seed without
/// drawing from the engine's RNG (so every other random choice stays as it was).
pub(crate) fn replication_id(seed: u64, changes: u64) -> String {
    crate::util::sha1hex(format!("redisplay replid {seed} {changes}").as_bytes())
}

// -------------------------------------------------------------------------------------------
// The state subsystems keep between calls (server.h and the statics of their .c files)
// -------------------------------------------------------------------------------------------

/// The state `activeExpireCycle()` keeps in statics between calls.
#[derive(Debug, Clone, Default)]
pub struct ExpireState {
    pub current_db: usize,
    pub timelimit_exit: bool,
    pub last_fast_cycle_us: i64,
}

#[derive(Debug, Clone, Default)]
pub struct EvictState {
    pub pool: Vec<Option<PoolEntry>>,
    pub next_db: usize,
    /// evictionTimeProc is scheduled (the last call ran out of time while still over).
    pub timer_running: bool,
}

/// `server.pubsub_channels` and `server.pubsub_patterns`: name → subscribers in subscription order.
#[derive(Debug, Default, Clone)]
pub struct PubSub {
    pub channels: IndexMap<Vec<u8>, Vec<ClientId>>,
    pub patterns: IndexMap<Vec<u8>, Vec<ClientId>>,
}

/// tracking.c's globals: `TrackingTable` (key → ids of clients that may cache it),
/// `PrefixTable` (BCAST prefix → keys modified in this event-loop iteration and subscribed
/// clients), `server.tracking_pending_keys`, `server.tracking_clients`.
#[derive(Debug, Default, Clone)]
pub struct TrackingState {
    pub table: IndexMap<Vec<u8>, BTreeSet<ClientId>>,
    /// `TrackingTableTotalItems`: client ids stored across the table.
    pub total_items: u64,
    pub prefixes: BTreeMap<Vec<u8>, BcastState>,
    /// Invalidations for the current client, sent after its command (None: a flush's null).
    pub pending: Vec<Option<Vec<u8>>>,
    /// Clients with tracking on.
    pub clients: usize,
    /// trackingLimitUsedSlots()'s `timeout_counter` static.
    pub timeout_counter: u64,
}

/// tracking.c `bcastState`: keys modified since the last broadcast (→ the client that last
/// modified each, for NOLOOP; None when no client did: expiry, eviction, a script) and the
/// clients subscribed to the prefix.
#[derive(Debug, Default, Clone)]
pub struct BcastState {
    pub keys: BTreeMap<Vec<u8>, Option<ClientId>>,
    pub clients: BTreeSet<ClientId>,
}

/// networking.c's client pause (`server.client_pause_type`, `client_pause_end_time`) and
/// `server.postponed_clients`.
#[derive(Debug, Default, Clone)]
pub struct PauseState {
    /// `server.client_pause_type`: None when clients are not paused.
    pub kind: Option<PauseKind>,
    /// Unix ms at which the pause ends (may be in the past until the next check).
    pub end_ms: i64,
    /// Clients whose command waits for the pause to end, in the order they were postponed.
    pub postponed: Vec<ClientId>,
    /// `server.unblocked_clients`: postponed clients released, their commands run before sleep.
    pub unblocked: Vec<ClientId>,
}

/// What replication needs from the command layer, handed in by it (command/dispatch.rs) so
/// that this module depends on no command file: running the master's commands (`call()`), the
/// RDB of the dataset (`rdbSaveRio()`), loading a master's payload (`rdbLoad()`).
#[derive(Clone, Copy)]
pub struct ReplHooks {
    pub execute: fn(&mut Engine, ClientId, &[Vec<u8>]) -> Reply,
    pub rdb_image: fn(&Engine) -> Vec<u8>,
    pub load: fn(&mut Engine, &[u8]) -> Result<(), String>,
}

impl std::fmt::Debug for ReplHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReplHooks")
    }
}

/// Runs a postponed command when the pause ends (dispatch.rs's late `execute`).
pub type ResumeFn = fn(&mut Engine, ClientId, &[Vec<u8>]);

/// A command that waits for a pause to end, and how to run it then.
#[derive(Debug, Clone)]
pub struct Postponed {
    pub argv: Vec<Vec<u8>>,
    pub resume: ResumeFn,
}

/// CLIENT PAUSE's modes, the stricter last (`CLIENT_PAUSE_WRITE` < `CLIENT_PAUSE_ALL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PauseKind {
    /// Commands that may write or propagate wait; reads run; expiry and eviction stop.
    Write,
    /// Every command waits.
    All,
}

/// Serves one blocked client from the ready key `key` of db `db`: `Some(reply)` when it could
/// (the reply is what the client receives), `None` when the key's value is of no to it.
pub type ServeFn = fn(&mut Engine, ClientId, usize, &[u8], &[Vec<u8>]) -> Option<Reply>;

/// What a blocked client waits for.
#[derive(Debug, Clone)]
pub struct Blocked {
    pub db: usize,
    pub keys: Vec<Vec<u8>>,
    /// Absolute virtual time (Unix ms) at which it gives up; 0 = never.
    pub timeout_ms: i64,
    /// The command that blocked (for CLIENT LIST and the serve function).
    pub argv: Vec<Vec<u8>>,
    pub serve: ServeFn,
    pub since_ms: i64,
    /// The blocking call's own duration (µs), counted again when it is served (blocked.c
    /// `updateStatsOnUnblock()`), and its command.
    pub duration_us: u64,
    pub call: CallInfo,
}

/// `db->blocking_keys` for every db, and `server.ready_keys`.
#[derive(Debug, Default, Clone)]
pub struct BlockingState {
    pub keys: BTreeMap<(usize, Vec<u8>), VecDeque<ClientId>>,
    pub(crate) ready: Vec<(usize, Vec<u8>)>,
    pub(crate) ready_set: BTreeSet<(usize, Vec<u8>)>,
}

impl BlockingState {
    /// blocked.c `signalKeyAsReady()`: remember the key if a client waits on it (served after
    /// the command, by blocked.rs).
    pub(crate) fn signal(&mut self, db: usize, key: &[u8]) {
        if self.keys.is_empty() {
            return;
        }
        let slot = (db, key.to_vec());
        if self.keys.contains_key(&slot) && !self.ready_set.contains(&slot) {
            self.ready_set.insert(slot.clone());
            self.ready.push(slot);
        }
    }
}

impl Engine {
    pub fn new(opts: EngineOptions) -> Engine {
        let opts = EngineOptions { start_ms: opts.start_ms.clamp(0, MAX_CLOCK_MS), ..opts };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(opts.seed);
        let run_id: String = (0..40).map(|_| char::from_digit(rng.next_u32() % 16, 16).unwrap_or('0')).collect();
        let config = Config::default();
        let dbnum = config.int("databases").max(1) as usize;
        // What the dbs raise for the engine (db.rs DbSignals); the sum of their memory is due.
        let db_signals = std::sync::Arc::new(crate::db::DbSignals::default());
        db_signals.memory.store(true, std::sync::atomic::Ordering::Relaxed);
        let mut e = Engine {
            dbs: (0..dbnum)
                .map(|i| {
                    let mut db = Db::new(opts.seed.wrapping_add(i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
                    db.signals = db_signals.clone();
                    db
                })
                .collect(),
            db_signals,
            clients: crate::ds::id_table::IdTable::new(),
            dbs_memory: std::cell::Cell::new(0),
            // A fresh redis-server 7.0 hands its first connection id 3: ids 1 and 2 went to the
            // Lua clients of EVAL and FUNCTION created at startup (scriptingInit, functionsInit).
            next_client_id: FIRST_CLIENT_ID,
            config,
            now_ms: opts.start_ms,
            start_ms: opts.start_ms,
            next_cron_ms: opts.start_ms,
            cronloops: 0,
            lruclock: 0,
            rng,
            seed: opts.seed,
            stats: Stats::default(),
            events: EventLog::new(EVENT_LOG_CAPACITY),
            run_id,
            lfu: false,
            hot: HotConfig::default(),
            shared_integers: true,
            expire: Default::default(),
            evict: Default::default(),
            resize_db: 0,
            hz_effective: 10,
            current_command: None,
            pubsub: Default::default(),
            watched_keys: BTreeMap::new(),
            blocking: Default::default(),
            in_script: false,
            errno_erange: None,
            tcp_port: 6379,
            scripts: Default::default(),
            cpu: CpuClock::default(),
            cron_in_command_ns: 0,
            slowlog: SlowLog::default(),
            latency: LatencyMonitor::default(),
            error_already_counted: false,
            debug: DebugState::default(),
            startup_config: Vec::new(),
            replid: replication_id(opts.seed, 0),
            exec_running: false,
            loading: false,
            in_cron: false,
            current_client: None,
            tracking: Default::default(),
            pause: Default::default(),
            monitors: Vec::new(),
            prop: Default::default(),
            shard_channels: IndexMap::new(),
            tracking_caller_keys: Vec::new(),
            acl: Default::default(),
            persist: PersistState::new(opts.start_ms),
            log: Default::default(),
            repl: Default::default(),
            repl_hooks: None,
        };
        e.config_changed();
        e.lruclock = e.lru_clock_at(opts.start_ms);
        e.next_cron_ms = opts.start_ms + e.cron_period_ms();
        e
    }

    /// Back to a fresh engine with the same seed and start time; clients keep their ids
    /// (and go back to db 0).
    pub fn reset(&mut self) {
        let clients: Vec<ClientId> = self.clients.keys().copied().collect();
        let (next, port) = (self.next_client_id, self.tcp_port);
        let startup = std::mem::take(&mut self.startup_config);
        // The files outlive the server, as a disk's do.
        let store = std::mem::replace(&mut self.persist.store, Box::new(crate::persist::store::MemoryStore::default()));
        let (trace, recording) = (self.prop.trace, self.events.enabled());
        *self = Engine::new(EngineOptions { seed: self.seed, start_ms: self.start_ms });
        self.persist.store = store;
        // What the host asked to see stays asked for.
        self.set_event_recording(recording);
        self.set_propagation_trace(trace);
        for (name, value) in startup {
            let _ = self.configure_startup(&name, &value);
        }
        for id in clients {
            self.clients.insert(id, Client::new(id, self.now_ms));
        }
        self.next_client_id = next;
        self.tcp_port = port;
    }

    /// Records events (default) or not: a host without views can switch it off.
    pub fn set_event_recording(&mut self, on: bool) {
        self.events.set_enabled(on);
    }

    /// Shows the propagation stream in the event log (`Event::Propagated`), as the page's
    /// persistence view draws it; off by default (an argv copy per write).
    pub fn set_propagation_trace(&mut self, on: bool) {
        self.prop.trace = on;
        self.prop.refresh();
    }

    /// The ops propagated since the last call become `Event::Propagated`s, from `cause`.
    pub(crate) fn trace_propagated(&mut self, cause: impl FnOnce() -> Option<String>) {
        if self.prop.traced.is_empty() {
            return;
        }
        let ops = std::mem::take(&mut self.prop.traced);
        if !self.events.enabled() {
            return;
        }
        let cause = cause();
        let at_ms = self.now_ms;
        for op in ops {
            self.events.push(crate::events::Event::Propagated {
                at_ms,
                db: op.db,
                argv: op.argv.iter().map(|a| crate::util::text(a)).collect(),
                aof: op.targets.aof,
                repl: op.targets.repl,
                cause: cause.clone(),
            });
        }
    }

    /// Refreshes what the engine caches from the config after CONFIG SET.
    pub(crate) fn config_changed(&mut self) {
        self.hot = HotConfig {
            maxmemory: self.config.int("maxmemory"),
            cost_percent: self.config.int("playground-cost-percent"),
            lazyfree_lazy_expire: self.config.bool("lazyfree-lazy-expire"),
            lfu_decay_time: self.config.int("lfu-decay-time"),
            lfu_log_factor: self.config.int("lfu-log-factor"),
            proto_max_bulk_len: self.config.int("proto-max-bulk-len"),
            client_query_buffer_limit: self.config.int("client-query-buffer-limit"),
            slowlog_log_slower_than: self.config.int("slowlog-log-slower-than"),
            slowlog_max_len: self.config.int("slowlog-max-len"),
            latency_monitor_threshold: self.config.int("latency-monitor-threshold"),
            latency_tracking: self.config.bool("latency-tracking"),
            min_replicas_to_write: self.config.int("min-replicas-to-write"),
            notify_keyspace_events: self.config.int("notify-keyspace-events") as u32,
            active_expire_effort: self.config.int("active-expire-effort"),
            classic_expiry: self.config.str("playground-expire-algorithm") == "classic",
        };
        // config.c updateHZ(): server.hz follows config_hz at once.
        self.update_hz();
        // config.c updateMaxmemory(): start evicting (before the event loop sleeps).
        if self.config.int("maxmemory") != 0 {
            self.evict.timer_running = true;
        }
        let policy = self.config.str("maxmemory-policy");
        self.lfu = policy.ends_with("-lfu");
        let lru_or_lfu = self.lfu || policy.ends_with("-lru");
        self.shared_integers = !(self.config.int("maxmemory") != 0 && lru_or_lfu);
        // config.c updateRequirePass(): requirepass is the default user's password.
        let pass = self.config.str("requirepass").as_bytes().to_vec();
        self.acl.sync_requirepass(&pass);
    }

    /// Sets a parameter as redis-server's command line or config file does at startup
    /// (`redisplay serve --enable-debug-command yes`): immutable parameters included, with
    /// CONFIG SET's validation. `reset()` keeps what was set this way.
    pub fn configure_startup(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.config
            .set_at_startup(name.as_bytes(), value.as_bytes())
            .map_err(|m| String::from_utf8_lossy(&m).into_owned())?;
        self.startup_config.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.startup_config.push((name.to_string(), value.to_string()));
        self.config_changed();
        Ok(())
    }

    /// Whether a value stored now is a queued EXEC command's argument object (not from a
    /// script's `redis.call`, whose arguments are its own).
    pub(crate) fn storing_exec_argv(&self) -> bool {
        self.exec_running && !self.in_script
    }

    pub(crate) fn lfu_policy(&self) -> bool {
        self.lfu
    }

    pub(crate) fn shared_integers_ok(&self) -> bool {
        self.shared_integers
    }

    /// INFO `used_memory` (the model in memory.rs).
    pub fn used_memory(&self) -> u64 {
        debug_assert_eq!(
            self.stats.histograms,
            self.stats.commands.values().filter(|s| s.histogram.is_some()).count() as u64
        );
        crate::memory::used_memory(self.clients.len(), self.stats.histograms, self.dbs_memory())
    }

    /// Σ `Db::memory()`, summed again only after a db said it changed (`DbSignals::memory`):
    /// this runs after every command, and most change nothing.
    fn dbs_memory(&self) -> u64 {
        if self.db_signals.take_memory() {
            self.dbs_memory.set(self.dbs.iter().map(|d| d.memory()).sum());
        }
        debug_assert_eq!(self.dbs_memory.get(), self.dbs.iter().map(|d| d.memory()).sum::<u64>());
        self.dbs_memory.get()
    }

    /// Advances the virtual CPU clock by `ns` of work (already scaled by the cost model).
    pub(crate) fn charge_cpu(&mut self, ns: u64) {
        self.cpu.charge(self.now_ms, ns);
    }

    /// server.c `ustime()`: the virtual clock in µs (see `CpuClock::ustime`).
    pub fn ustime(&self) -> i64 {
        self.cpu.ustime(self.now_ms)
    }

    /// networking.c `addReply()` for a reply that comes without a command of the client's own
    /// (a monitor's line, a blocked command's late reply): to its outbox — unless CLIENT REPLY
    /// OFF/SKIP holds replies back, which in 7.0 spares push messages (`CLIENT_PUSHING`).
    pub(crate) fn add_reply(&mut self, client: ClientId, reply: Reply) {
        let Some(c) = self.clients.get_mut(&client) else { return };
        if (c.reply_off || c.reply_skip) && !matches!(reply, Reply::Push(_)) {
            return;
        }
        c.outbox.push_back(reply);
    }

    /// A key changed while a fork child works: its pages are copied (ForkCow).
    pub(crate) fn child_cow_touch(&mut self, db: usize, key: &[u8]) {
        let p = &mut self.persist;
        let Some(cow) = p.bgsave.as_mut().map(|b| &mut b.cow).or(p.aof.rewrite.as_mut().map(|r| &mut r.cow)) else {
            return;
        };
        cow.touch(db, key, self.dbs[db].get(key).map_or(0, |o| o.mem));
    }

    /// Records the propagation stream from now on (an AOF or a replica listens), or stops.
    pub fn set_propagation(&mut self, on: bool) {
        self.prop.external = on;
        self.prop.refresh();
    }

    /// aof.c `rewriteAppendOnlyFileRio()`: the dataset (and the function libraries) as the
    /// commands that rebuild it, in the AOF format (persist/aof.rs).
    pub fn aof_rewrite(&self) -> Vec<u8> {
        crate::persist::aof::rewrite(self.scripts.libs.libraries().map(|l| l.code.as_slice()), &self.dbs)
    }

    /// The ops propagated since the last call (propagate.rs), in order.
    pub fn take_propagated(&mut self) -> Vec<crate::propagate::Op> {
        self.prop.out.drain(..).collect()
    }

    /// `rewriteClientCommandVector()`: the running command propagates as `argv`.
    pub(crate) fn propagate_as(&mut self, argv: Vec<Vec<u8>>) {
        if self.prop.listening {
            self.prop.call.rewrite = Some(argv);
        }
    }

    /// `alsoPropagate()` of the running command, which then doesn't propagate itself
    /// (`preventCommandPropagation()`).
    pub(crate) fn propagate_instead(&mut self, db: usize, argv: Vec<Vec<u8>>) {
        if self.prop.listening {
            self.prop.also(db, argv, crate::propagate::Targets::BOTH);
            self.prop.call.prevent = true;
        }
    }

    /// db.c `propagateDeletion()`: a key expiry or eviction reclaimed goes out as `UNLINK` when
    /// it was freed lazily, else `DEL` — with the ops of the command that found it expired (in
    /// 7.0 a write that met an expired key propagates `MULTI`, `DEL`, itself, `EXEC`), or at
    /// once from the active expire cycle.
    pub(crate) fn propagate_deletion(&mut self, db: usize, key: &[u8], lazy: bool) {
        if self.prop.listening {
            let del: &[u8] = if lazy { b"UNLINK" } else { b"DEL" };
            let argv = vec![del.to_vec(), key.to_vec()];
            if (self.current_command.is_some() || self.in_script) && !self.in_cron {
                self.prop.also(db, argv, crate::propagate::Targets::BOTH);
            } else {
                self.prop.now(Some(db), argv, crate::propagate::Targets::BOTH);
                self.trace_propagated(|| None);
            }
        }
    }

    /// `serverLog()` (log.rs).
    pub(crate) fn server_log(&mut self, level: LogLevel, message: impl Into<String>) {
        let at_ms = self.now_ms;
        self.log.push(LogLine { at_ms, level, message: message.into() });
    }

    /// The server log's lines written since the last call, oldest first.
    pub fn take_log(&mut self) -> Vec<LogLine> {
        self.log.take()
    }

    /// Counts a write (server.dirty, INFO rdb_changes_since_last_save).
    pub(crate) fn dirty(&mut self, n: u64) {
        self.stats.dirty += n;
    }

    pub fn now_ms(&self) -> i64 {
        self.now_ms
    }

    /// `server.hz`: the configured hz (1..500), doubled by dynamic-hz while there are more than
    /// 200 clients per tick (server.c `serverCron()`).
    pub fn hz(&self) -> i64 {
        self.hz_effective.clamp(1, 500)
    }

    /// server.c's dynamic-hz adjustment, also applied when hz is configured.
    pub(crate) fn update_hz(&mut self) {
        let mut hz = self.config.int("hz").clamp(1, 500);
        if self.config.bool("dynamic-hz") {
            let clients = self.clients.len() as i64;
            while clients / hz > 200 {
                hz *= 2;
                if hz > 500 {
                    hz = 500;
                    break;
                }
            }
        }
        self.hz_effective = hz;
    }

    pub fn cron_period_ms(&self) -> i64 {
        (1000 / self.hz()).max(1)
    }

    /// server.c `getLRUClock()` at a given time: seconds, 24 bits.
    pub(crate) fn lru_clock_at(&self, ms: i64) -> u32 {
        ((ms / LRU_CLOCK_RESOLUTION) as u64 & LRU_CLOCK_MAX as u64) as u32
    }

    /// When the next serverCron tick runs (virtual Unix ms).
    pub fn next_cron_ms(&self) -> i64 {
        self.next_cron_ms
    }

    /// A uniform index in `0..n` (n > 0) from the engine's seeded RNG.
    pub(crate) fn random_index(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.rng.next_u64() % n as u64) as usize
    }

    pub fn dbnum(&self) -> usize {
        self.dbs.len()
    }

    /// Keys in a db (live and not-yet-reclaimed), for views and tests.
    pub fn dbsize(&self, db: usize) -> usize {
        self.dbs.get(db).map(|d| d.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(args: &[&str]) -> Vec<Vec<u8>> {
        args.iter().map(|a| a.as_bytes().to_vec()).collect()
    }

    #[test]
    fn clients_kept_by_reset_can_still_run_commands() {
        let mut e = Engine::new(EngineOptions::default());
        let c = e.connect();
        e.execute(c, &argv(&["SET", "k", "v"]));
        e.reset();
        assert_eq!(e.execute(c, &argv(&["DBSIZE"])), Reply::Integer(0));
        // With a password set, a client connecting later must AUTH first.
        e.execute(c, &argv(&["CONFIG", "SET", "requirepass", "pw"]));
        let d = e.connect();
        assert_eq!(e.execute(d, &argv(&["GET", "k"])), Reply::err("NOAUTH Authentication required."));
        assert_eq!(e.execute(d, &argv(&["AUTH", "pw"])), Reply::ok());
        assert_eq!(e.execute(d, &argv(&["GET", "k"])), Reply::Nil);
    }

    #[test]
    fn a_peek_answers_like_the_command_but_changes_nothing_the_user_can_see() {
        let mut e = Engine::new(EngineOptions::default());
        let c = e.connect();
        e.execute(c, &argv(&["SET", "k", "v"]));
        let info = |e: &mut Engine| e.execute(c, &argv(&["INFO", "stats", "memory"]));
        // (The first INFO allocates INFO's latency histogram after it ran, as in Redis: measure
        // from the second.)
        info(&mut e);
        let before = info(&mut e);
        for _ in 0..5 {
            assert_eq!(
                e.peek(c, &argv(&["CONFIG", "GET", "hz"])),
                Reply::Map(vec![(Reply::bulk("hz"), Reply::bulk("10"))])
            );
            assert!(matches!(e.peek(c, &argv(&["INFO", "memory"])), Reply::Verbatim(_)));
        }
        // Only the INFO we ran ourselves counts (1 more command), the peeks do not.
        let after = info(&mut e);
        let field = |r: &Reply, name: &str| -> String {
            let Reply::Verbatim(b) = r else { panic!() };
            String::from_utf8_lossy(b)
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{name}:")).map(str::to_string))
                .unwrap()
        };
        assert_eq!(
            field(&after, "total_commands_processed").parse::<u64>().unwrap(),
            field(&before, "total_commands_processed").parse::<u64>().unwrap() + 1
        );
        assert_eq!(field(&after, "used_memory"), field(&before, "used_memory"));
        assert!(e.peek(c, &argv(&["SET", "k", "x"])).is_error());
        assert!(e.peek(c, &argv(&["CONFIG", "GET"])).is_error());
        assert_eq!(e.execute(c, &argv(&["GET", "k"])), Reply::bulk("v"));
    }
}
