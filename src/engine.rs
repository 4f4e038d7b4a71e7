//! The engine: databases, clients, config, the virtual clock, the seeded RNG, stats and the
//! event log. Models the parts of server.c that hold state (`struct redisServer`), run a
//! command (`processCommand()` → `call()`), and run the timer (`serverCron()`), plus db.c's
//! lookups with lazy expiry (`lookupKey()`, `expireIfNeeded()`).
//!
//! Time and randomness are inputs: the host sets the clock (`advance_to`, `set_time`) and the
//! seed; nothing here reads a wall clock or global state, so the same seed and inputs give the
//! same run. Differences from Redis: one thread, no sockets; the cached command time is the
//! virtual clock, which cannot move during a command; `serverCron` runs once per `1000/hz` ms
//! of virtual time crossed (fast-forwarded in bulk while it has nothing observable to do).

use std::borrow::Cow;
use std::collections::BTreeMap;

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::command::table::{table, Call, Command, Lookup};
use crate::config::Config;
use crate::db::Db;
use crate::events::{Event, EventLog, ExpiredBy};
use crate::object::RObj;
use crate::reply::Reply;

pub type ClientId = u64;

/// Config values the engine reads per key or per command, refreshed on CONFIG SET.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct HotConfig {
    pub maxmemory: i64,
    pub cost_percent: i64,
    pub lazyfree_lazy_expire: bool,
    pub lfu_decay_time: i64,
    pub lfu_log_factor: i64,
    /// Read by the network server's query buffers (src/server.rs) for every command and read.
    pub proto_max_bulk_len: i64,
    pub client_query_buffer_limit: i64,
}

/// A uniform double in [0, 1) from 53 random bits.
pub(crate) fn uniform(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// The default start of the virtual clock: 2025-01-01T00:00:00Z, so labs are reproducible.
pub const DEFAULT_START_MS: i64 = 1_735_689_600_000;
/// Bounded event log size.
pub const EVENT_LOG_CAPACITY: usize = 50_000;
/// server.h LRU_CLOCK_MAX / LRU_CLOCK_RESOLUTION.
pub const LRU_CLOCK_MAX: u32 = (1 << 24) - 1;
pub const LRU_CLOCK_RESOLUTION: i64 = 1000;
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
    /// The peer and local `ip:port` of a network connection (`redisplay serve`); None for
    /// the page's consoles, which CLIENT LIST shows with stand-in addresses.
    pub addr: Option<(String, String)>,
    /// Replies that arrive without a command: Pub/Sub messages, a blocked command's late reply.
    pub outbox: std::collections::VecDeque<Reply>,
    /// Blocked on keys (blocked.c): what to re-run when a key becomes ready, and when to give up.
    pub blocked: Option<crate::blocked::Blocked>,
}

impl Client {
    fn new(id: ClientId, now: i64) -> Client {
        Client {
            id,
            created_ms: now,
            last_interaction_ms: now,
            last_cmd: "NULL",
            resp: 2,
            authenticated: true,
            ..Default::default()
        }
    }

    /// Subscribed to any channel or pattern (RESP2 Pub/Sub mode).
    pub fn in_pubsub(&self) -> bool {
        !self.channels.is_empty() || !self.patterns.is_empty()
    }
}

/// server.h counters shown by INFO stats.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Commands with `calls > 0`: each has a latency histogram allocated (used_memory counts
    /// them). Kept here so used_memory need not scan every command's stats after each call.
    pub histograms: u64,
    pub total_connections_received: u64,
    pub total_commands_processed: u64,
    pub keyspace_hits: u64,
    pub keyspace_misses: u64,
    pub expired_keys: u64,
    pub expired_stale_perc: f64,
    pub expired_time_cap_reached_count: u64,
    /// `stat_expire_cycle_time_used`, virtual µs (INFO shows ms).
    pub expire_cycle_time_used_us: u64,
    /// Main-thread ns spent freeing values synchronously (DEL, expiry, overwrites).
    pub free_time_ns: u64,
    /// Values handed to the lazyfree thread.
    pub lazyfreed_objects: u64,
    /// INFO `used_memory_peak`.
    pub peak_memory: u64,
    /// Virtual µs spent evicting.
    pub eviction_time_used_us: u64,
    pub evicted_keys: u64,
    pub total_error_replies: u64,
    pub unexpected_error_replies: u64,
    pub dirty: u64,
    /// Per-command counters (INFO commandstats), keyed by the table's full names.
    pub commands: BTreeMap<&'static str, CommandStat>,
}

#[derive(Debug, Clone, Default)]
pub struct CommandStat {
    pub calls: u64,
    pub rejected_calls: u64,
    pub failed_calls: u64,
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
    pub(crate) clients: BTreeMap<ClientId, Client>,
    next_client_id: ClientId,
    pub(crate) config: Config,
    pub(crate) now_ms: i64,
    pub(crate) start_ms: i64,
    next_cron_ms: i64,
    pub(crate) cronloops: u64,
    pub(crate) lruclock: u32,
    pub(crate) rng: Xoshiro256PlusPlus,
    pub(crate) seed: u64,
    pub(crate) stats: Stats,
    pub(crate) events: EventLog,
    pub(crate) run_id: String,
    /// activeExpireCycle()'s statics.
    pub(crate) expire: crate::expire::ExpireState,
    /// The eviction pool and performEvictions()'s statics.
    pub(crate) evict: crate::evict::EvictState,
    /// databasesCron()'s `resize_db` static.
    pub(crate) resize_db: usize,
    /// `server.hz`: the configured hz, doubled by dynamic-hz when clients are many.
    hz_effective: i64,
    /// The command being executed (for events such as lazy expiry).
    pub(crate) current_command: Option<&'static str>,
    /// Cached from `maxmemory-policy` (updated by `config_changed`): an LFU policy.
    lfu: bool,
    /// Config values read for every key on hot paths, cached by `config_changed`.
    pub(crate) hot: HotConfig,
    /// Cached: shared integers allowed (not with maxmemory + an LRU/LFU policy).
    shared_integers: bool,
    /// Pub/Sub channels and patterns (pubsub.c).
    pub(crate) pubsub: crate::pubsub::PubSub,
    /// WATCHed keys → watching clients, in WATCH order (multi.c `db->watched_keys`).
    pub(crate) watched_keys: BTreeMap<(usize, Vec<u8>), Vec<ClientId>>,
    /// Clients blocked on keys and the keys made ready (blocked.c).
    pub(crate) blocking: crate::blocked::BlockingState,
    /// A script is running: blocking commands answer at once (`CLIENT_DENY_BLOCKING`).
    pub(crate) in_script: bool,
    /// INFO's `tcp_port`: 6379 in the page, the real port under `redisplay serve`.
    pub tcp_port: u16,
    /// Lua scripting: the Lua state, the script cache, math.random's generator (script.rs).
    pub(crate) scripts: crate::script::Scripts,
}

impl Engine {
    pub fn new(opts: EngineOptions) -> Engine {
        let opts = EngineOptions { start_ms: opts.start_ms.clamp(0, MAX_CLOCK_MS), ..opts };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(opts.seed);
        let run_id: String = (0..40).map(|_| char::from_digit(rng.next_u32() % 16, 16).unwrap_or('0')).collect();
        let config = Config::default();
        let dbnum = config.int("databases").max(1) as usize;
        let mut e = Engine {
            dbs: (0..dbnum)
                .map(|i| Db::new(opts.seed.wrapping_add(i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)))
                .collect(),
            clients: BTreeMap::new(),
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
            tcp_port: 6379,
            scripts: Default::default(),
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
        *self = Engine::new(EngineOptions { seed: self.seed, start_ms: self.start_ms });
        for id in clients {
            self.clients.insert(id, Client::new(id, self.now_ms));
        }
        self.next_client_id = next;
        self.tcp_port = port;
    }

    // ---------------------------------------------------------------------------------------
    // Clients
    // ---------------------------------------------------------------------------------------

    pub fn connect(&mut self) -> ClientId {
        let id = self.next_client_id;
        self.next_client_id += 1;
        self.stats.total_connections_received += 1;
        let mut client = Client::new(id, self.now_ms);
        client.authenticated = self.config.str("requirepass").is_empty();
        self.clients.insert(id, client);
        id
    }

    /// Closes a client: its subscriptions, watches and blocking go with it (networking.c
    /// `freeClient()`); messages published later are simply missed.
    pub fn disconnect(&mut self, id: ClientId) {
        crate::pubsub::unsubscribe_all(self, id);
        self.unwatch_all(id);
        self.unblock(id);
        self.clients.remove(&id);
    }

    /// Records where a network client connects from (CLIENT LIST addr/laddr, CLIENT KILL).
    pub fn set_client_addr(&mut self, id: ClientId, addr: String, laddr: String) {
        if let Some(c) = self.clients.get_mut(&id) {
            c.addr = Some((addr, laddr));
        }
    }

    /// Takes the replies that arrived for `client` without a command of its own.
    pub fn take_outbox(&mut self, client: ClientId) -> Vec<Reply> {
        self.clients.get_mut(&client).map(|c| c.outbox.drain(..).collect()).unwrap_or_default()
    }

    /// Whether the client waits in a blocking command.
    pub fn is_blocked(&self, client: ClientId) -> bool {
        self.clients.get(&client).is_some_and(|c| c.blocked.is_some())
    }

    pub fn client(&self, client: ClientId) -> Option<&Client> {
        self.clients.get(&client)
    }

    pub fn client_ids(&self) -> Vec<ClientId> {
        self.clients.keys().copied().collect()
    }

    pub fn client_db(&self, id: ClientId) -> Option<usize> {
        self.clients.get(&id).map(|c| c.db)
    }

    // ---------------------------------------------------------------------------------------
    // Commands
    // ---------------------------------------------------------------------------------------

    /// Runs one command for `client` and returns its reply (server.c `processCommand()` then
    /// `call()`), then serves clients blocked on keys the command made ready. When the command
    /// blocks (BLPOP on an empty list…), `is_blocked(client)` is true and the returned reply is a
    /// placeholder: the real one arrives later in the client's outbox.
    pub fn execute(&mut self, client: ClientId, argv: &[Vec<u8>]) -> Reply {
        let reply = self.process_command(client, argv);
        self.after_command();
        reply
    }

    fn reject(
        &mut self,
        client: ClientId,
        db: usize,
        argv: &[Vec<u8>],
        base: Option<&'static Command>,
        err: Reply,
    ) -> Reply {
        self.stats.total_error_replies += 1;
        if let Some(base) = base {
            self.stats.commands.entry(base.name.as_str()).or_default().rejected_calls += 1;
        }
        // multi.c flagTransaction(): a command refused while queueing dooms the EXEC.
        if let Some(c) = self.clients.get_mut(&client) {
            if c.in_multi {
                c.dirty_exec = true;
            }
        }
        let name = match base {
            Some(b) => Cow::Borrowed(b.name.as_str()),
            None => {
                Cow::Owned(argv.first().map(|n| String::from_utf8_lossy(n).to_ascii_lowercase()).unwrap_or_default())
            }
        };
        self.log_command(client, db, name, argv.len(), true);
        err
    }

    /// server.c `processCommand()`: lookup, existence and arity checks with Redis's errors, the
    /// OOM rule, the Pub/Sub-mode restriction, MULTI queueing, then `call()`.
    fn process_command(&mut self, client: ClientId, argv: &[Vec<u8>]) -> Reply {
        let Some(db) = self.client_db(client) else {
            return Reply::err("ERR no such client");
        };
        if let Some(c) = self.clients.get_mut(&client) {
            c.last_interaction_ms = self.now_ms;
        }
        let cmd = match table().lookup(argv) {
            Lookup::Found(cmd) => cmd,
            Lookup::Rejected(err) => {
                let base = argv.first().and_then(|name| table().get(name));
                return self.reject(client, db, argv, base, err);
            }
        };
        if cmd.handler.is_none() {
            return Reply::err("ERR command has no handler");
        }
        // server.c processCommand(): `authRequired(c)` and the command lacks CMD_NO_AUTH.
        if !cmd.has_flag("no_auth") && self.clients.get(&client).is_some_and(|c| !c.authenticated) {
            return self.reject(client, db, argv, Some(cmd), Reply::err("NOAUTH Authentication required."));
        }
        let (in_multi, in_pubsub, queued_denyoom) = match self.clients.get(&client) {
            Some(c) => (
                c.in_multi,
                // Only RESP2 connections are restricted while subscribed (`c->resp == 2`).
                c.in_pubsub() && c.resp == 2,
                c.queued.iter().any(|q| matches!(table().lookup(q), Lookup::Found(q) if q.has_flag("denyoom"))),
            ),
            None => (false, false, false),
        };
        let base = cmd.name.split('|').next().unwrap_or("");
        let is_exec = base == "exec";
        let tx_control = matches!(base, "exec" | "discard" | "multi" | "watch" | "quit" | "reset");
        // Evict before every command while over maxmemory; when nothing can be evicted, refuse
        // commands that may grow memory — and, inside MULTI, any queueing but EXEC/DISCARD/QUIT/RESET.
        if self.hot.maxmemory != 0 && self.perform_evictions() == crate::evict::EvictResult::Fail {
            let denyoom = cmd.has_flag("denyoom") || (is_exec && queued_denyoom);
            let queueing = in_multi && !matches!(base, "exec" | "discard" | "quit" | "reset");
            if denyoom || queueing {
                return self.reject(
                    client,
                    db,
                    argv,
                    Some(cmd),
                    Reply::err("OOM command not allowed when used memory > 'maxmemory'."),
                );
            }
        }
        if in_pubsub
            && !matches!(
                base,
                "ping"
                    | "subscribe"
                    | "unsubscribe"
                    | "psubscribe"
                    | "punsubscribe"
                    | "ssubscribe"
                    | "sunsubscribe"
                    | "quit"
                    | "reset"
            )
        {
            let msg = format!(
                "ERR Can't execute '{}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context",
                cmd.name
            );
            return self.reject(client, db, argv, Some(cmd), Reply::err(msg));
        }
        if in_multi && !tx_control {
            if let Some(c) = self.clients.get_mut(&client) {
                // multi.c queueMultiCommand(): a doomed transaction stops storing commands.
                if !c.dirty_cas && !c.dirty_exec {
                    c.queued.push(argv.to_vec());
                }
            }
            return Reply::Status("QUEUED".into());
        }
        self.call(client, cmd, argv)
    }

    /// server.c `call()`: runs a command that passed the checks — directly, from EXEC or from a
    /// script — and keeps the stats, the memory accounting and the event log.
    pub(crate) fn call(&mut self, client: ClientId, cmd: &'static Command, argv: &[Vec<u8>]) -> Reply {
        let Some(db) = self.client_db(client) else {
            return Reply::err("ERR no such client");
        };
        let Some(handler) = cmd.handler else {
            return Reply::err("ERR command has no handler");
        };
        let call = Call { client, db, argv, cmd };
        let outer = self.current_command.replace(cmd.name.as_str());
        if let Some(c) = self.clients.get_mut(&client) {
            c.last_cmd = cmd.name.as_str();
            c.argv_mem = argv.iter().map(|a| a.len()).sum();
        }
        let reply = handler(self, &call);
        self.current_command = outer;
        // Values the command may have changed in place get their size recomputed.
        for d in self.dbs.iter_mut() {
            d.refresh_dirty();
        }
        self.flush_new_key_events();
        let used = crate::memory::used_memory(self);
        if used > self.stats.peak_memory {
            self.stats.peak_memory = used;
        }
        self.stats.total_commands_processed += 1;
        let stat = self.stats.commands.entry(cmd.name.as_str()).or_default();
        if stat.calls == 0 {
            self.stats.histograms += 1;
        }
        stat.calls += 1;
        let reply = match reply {
            Reply::Error(msg) => {
                stat.failed_calls += 1;
                self.stats.total_error_replies += 1;
                Reply::Error(crate::command::table::sanitize(msg))
            }
            other => other,
        };
        let db_after = self.client_db(client).unwrap_or(db);
        self.log_command(client, db_after, Cow::Borrowed(cmd.name.as_str()), argv.len(), reply.is_error());
        reply
    }

    /// A view's look at the server: INFO or CONFIG GET answered exactly as for a client, but not
    /// counted as a command — no stats, no client fields, no events — so a view refreshing its
    /// gauges never changes what the user sees in INFO, CLIENT LIST or the memory model. Other
    /// commands are refused (they go through `execute`).
    pub fn peek(&mut self, client: ClientId, argv: &[Vec<u8>]) -> Reply {
        let cmd = match table().lookup(argv) {
            Lookup::Found(cmd) => cmd,
            Lookup::Rejected(r) => return r,
        };
        if cmd.name != "info" && cmd.name != "config|get" {
            return Reply::err("ERR only INFO and CONFIG GET can be peeked at");
        }
        if cmd.arity > 0 && argv.len() != cmd.arity as usize || cmd.arity < 0 && argv.len() < (-cmd.arity) as usize {
            return Reply::err(format!("ERR wrong number of arguments for '{}' command", cmd.name));
        }
        let (Some(db), Some(handler)) = (self.client_db(client), cmd.handler) else {
            return Reply::err("ERR no such client");
        };
        handler(self, &Call { client, db, argv, cmd })
    }

    /// After each top-level command: serve clients blocked on keys it made ready.
    fn after_command(&mut self) {
        self.flush_new_key_events();
        self.handle_clients_blocked_on_keys();
    }

    /// Records events (default) or not: a host without views can switch it off.
    pub fn set_event_recording(&mut self, on: bool) {
        self.events.set_enabled(on);
    }

    fn log_command(&mut self, client: ClientId, db: usize, name: Cow<'static, str>, argc: usize, error: bool) {
        let at_ms = self.now_ms;
        self.events.push(Event::Command { at_ms, client, db, name, argc, error });
    }

    // ---------------------------------------------------------------------------------------
    // Keyspace access with lazy expiry (db.c)
    // ---------------------------------------------------------------------------------------

    /// db.c `expireIfNeeded()`: deletes the key if its time has passed; true if it did.
    pub(crate) fn expire_if_needed(&mut self, db: usize, key: &[u8]) -> bool {
        if !self.dbs[db].is_expired(key, self.now_ms) {
            return false;
        }
        self.delete_expired_key(db, key, ExpiredBy::Lazy);
        true
    }

    /// db.c `deleteExpiredKeyAndPropagate()`: delete, count, fire `expired`. Returns the
    /// main-thread ns spent freeing the value.
    pub(crate) fn delete_expired_key(&mut self, db: usize, key: &[u8], by: ExpiredBy) -> u64 {
        // One removal from each table; the value's free is charged from what was removed.
        let Some((obj, when)) = self.dbs[db].take(key) else { return 0 };
        let when = when.unwrap_or(self.now_ms);
        let lazy = self.hot.lazyfree_lazy_expire;
        let free_ns = self.charge_free(
            db,
            key,
            &obj.value,
            lazy,
            if by == ExpiredBy::Lazy { "lazy expiry" } else { "active expiry" },
        );
        self.stats.expired_keys += 1;
        if self.events.enabled() {
            self.events.push(Event::Expired {
                at_ms: self.now_ms,
                db,
                key: String::from_utf8_lossy(key).into_owned(),
                by,
                late_ms: self.now_ms - when,
                command: if by == ExpiredBy::Lazy { self.current_command } else { None },
            });
        }
        // The `expired` keyspace event (published, WATCHers touched); the Expired event above
        // is its record in the log.
        self.notify_logged("expired", db, key, false);
        free_ns
    }

    /// Charges freeing the value at `key` (about to be deleted) to the main thread, or hands it to
    /// the lazyfree thread when `lazy` applies and the value is big enough (lazyfree.c
    /// `dbAsyncDelete()`). Returns the main-thread ns; a free of a millisecond or more is
    /// reported as a stall.
    pub(crate) fn account_free(&mut self, db: usize, key: &[u8], lazy: bool, cause: &'static str) -> u64 {
        let Some(obj) = self.dbs[db].get(key) else { return 0 };
        let (background, ns) = (crate::cost::frees_in_background(&obj.value), crate::cost::free_cost_ns(&obj.value));
        self.record_free(db, key, lazy && background, ns, cause)
    }

    /// `account_free` for a value already removed.
    pub(crate) fn charge_free(
        &mut self,
        db: usize,
        key: &[u8],
        value: &crate::object::Value,
        lazy: bool,
        cause: &'static str,
    ) -> u64 {
        let (background, ns) = (crate::cost::frees_in_background(value), crate::cost::free_cost_ns(value));
        self.record_free(db, key, lazy && background, ns, cause)
    }

    fn record_free(&mut self, db: usize, key: &[u8], in_background: bool, ns: u64, cause: &'static str) -> u64 {
        if in_background {
            self.stats.lazyfreed_objects += 1;
            return 0;
        }
        let ns = crate::cost::scaled(ns, self.hot.cost_percent);
        self.stats.free_time_ns += ns;
        if ns >= 1_000_000 && self.events.enabled() {
            let at_ms = self.now_ms;
            self.events.push(Event::Stall { at_ms, db, key: crate::util::text(key), cause, us: ns / 1000 });
        }
        ns
    }

    /// db.c `lookupKey()`: lazy expiry, then LRU touch and hit/miss stats per `flags`.
    pub(crate) fn lookup(&mut self, db: usize, key: &[u8], flags: u32) -> Option<&mut RObj> {
        if self.dbs[db].contains(key) {
            self.expire_if_needed(db, key);
        }
        let lru = self.lruclock;
        let found = self.dbs[db].contains(key);
        if found {
            if flags & (lookup::WRITE | lookup::NOSTATS) == 0 {
                self.stats.keyspace_hits += 1;
            }
        } else {
            if flags & (lookup::WRITE | lookup::NONOTIFY) == 0 {
                self.notify("keymiss", db, key);
            }
            if flags & (lookup::WRITE | lookup::NOSTATS) == 0 {
                self.stats.keyspace_misses += 1;
            }
            return None;
        }
        let write = flags & lookup::WRITE != 0;
        fn get<'a>(d: &'a mut Db, k: &[u8], write: bool) -> Option<&'a mut RObj> {
            if write {
                d.get_mut(k)
            } else {
                d.get_mut_quiet(k)
            }
        }
        if flags & lookup::NOTOUCH != 0 {
            return get(&mut self.dbs[db], key, write);
        }
        if self.lfu {
            // db.c updateLFU(): decay, then a logarithmic increment, then restamp.
            let r = uniform(&mut self.rng);
            let (now, decay, factor) = (self.now_ms, self.hot.lfu_decay_time, self.hot.lfu_log_factor);
            let obj = get(&mut self.dbs[db], key, write)?;
            let counter = crate::object::lfu_decr_and_return(obj.lru, now, decay);
            let counter = crate::object::lfu_log_incr(counter, r, factor);
            obj.lru = (crate::object::lfu_time_in_minutes(now) << 8) | counter;
            return Some(obj);
        }
        let obj = get(&mut self.dbs[db], key, write)?;
        obj.lru = lru;
        Some(obj)
    }

    pub(crate) fn lookup_read(&mut self, db: usize, key: &[u8]) -> Option<&mut RObj> {
        self.lookup(db, key, lookup::NONE)
    }

    pub(crate) fn lookup_write(&mut self, db: usize, key: &[u8]) -> Option<&mut RObj> {
        self.lookup(db, key, lookup::WRITE)
    }

    /// A new object stamped with the LRU clock, or the LFU initial value under an LFU policy
    /// (object.c `createObject()`).
    pub(crate) fn new_obj(&self, value: crate::object::Value) -> RObj {
        let lru = if self.lfu { crate::object::lfu_initial(self.now_ms) } else { self.lruclock };
        RObj { value, lru, mem: 0 }
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
    }

    pub(crate) fn lfu_policy(&self) -> bool {
        self.lfu
    }

    pub(crate) fn shared_integers_ok(&self) -> bool {
        self.shared_integers
    }

    /// Counts a write (server.dirty, INFO rdb_changes_since_last_save).
    pub(crate) fn dirty(&mut self, n: u64) {
        self.stats.dirty += n;
    }

    // ---------------------------------------------------------------------------------------
    // Time: the virtual clock and serverCron
    // ---------------------------------------------------------------------------------------

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

    /// How many serverCron ticks lie between now and `t`.
    pub fn ticks_until(&self, t: i64) -> u64 {
        if t < self.next_cron_ms {
            0
        } else {
            ((t - self.next_cron_ms) / self.cron_period_ms()) as u64 + 1
        }
    }

    /// Sets the clock without running cron (it may go backwards, like a real server's clock).
    /// Clamped to 0..=MAX_CLOCK_MS.
    pub fn set_time(&mut self, ms: i64) {
        let ms = ms.clamp(0, MAX_CLOCK_MS);
        let from = self.now_ms;
        self.now_ms = ms;
        self.next_cron_ms = ms.saturating_add(self.cron_period_ms());
        self.lruclock = self.lru_clock_at(ms);
        self.events.push(Event::ClockSet { from_ms: from, to_ms: ms });
    }

    /// Moves the clock forward to `t`, running serverCron for every tick crossed, at most
    /// `max_ticks` of them (then the clock stops at the last tick run and the lag is returned).
    pub fn advance_to(&mut self, t: i64, max_ticks: u64) -> Advance {
        let t = t.clamp(0, MAX_CLOCK_MS);
        if t < self.now_ms {
            self.set_time(t);
            return Advance::default();
        }
        let mut ticks = 0u64;
        let mut last_tick_ms = None;
        while self.next_cron_ms <= t {
            if ticks >= max_ticks {
                let at = last_tick_ms.unwrap_or(self.now_ms);
                self.now_ms = at;
                self.push_cron_event(ticks);
                return Advance { ticks, lag_ms: t - at };
            }
            if !self.cron_has_work() {
                // No volatile key and no table to shrink: a tick only bumps its counters and
                // decays the stale-percentage average, so jump to the last one.
                let period = self.cron_period_ms();
                let remaining = ((t - self.next_cron_ms) / period) as u64 + 1;
                let n = remaining.min(max_ticks - ticks);
                let at = self.next_cron_ms + (n as i64 - 1) * period;
                self.now_ms = at;
                self.cronloops += n;
                self.lruclock = self.lru_clock_at(at);
                self.next_cron_ms = at + period;
                self.stats.expired_stale_perc *= 0.95f64.powi(n.min(100_000) as i32);
                self.expire.timelimit_exit = false;
                ticks += n;
                last_tick_ms = Some(at);
                continue;
            }
            self.now_ms = self.next_cron_ms;
            self.server_cron();
            self.before_sleep();
            ticks += 1;
            last_tick_ms = Some(self.now_ms);
            self.next_cron_ms = self.now_ms + self.cron_period_ms();
        }
        self.now_ms = t;
        self.push_cron_event(ticks);
        Advance { ticks, lag_ms: 0 }
    }

    fn push_cron_event(&mut self, ticks: u64) {
        if ticks > 0 {
            let hz = self.hz();
            self.events.push(Event::Cron { at_ms: self.now_ms, ticks, hz });
        }
    }

    /// server.c `serverCron()`: one timer tick — the LRU clock, dynamic hz, and
    /// `databasesCron()` (the slow active-expire cycle, then shrinking tables).
    fn server_cron(&mut self) {
        self.lruclock = self.lru_clock_at(self.now_ms);
        self.update_hz();
        self.cronloops += 1;
        self.active_expire_cycle(crate::expire::CycleKind::Slow);
        self.try_resize_tables();
    }

    /// server.c `beforeSleep()`: the fast active-expire cycle (under its gating rules). Redis
    /// runs it on every event-loop iteration; the engine runs it after each cron tick and the
    /// console after each line it runs.
    pub fn before_sleep(&mut self) {
        self.handle_blocked_clients_timeout();
        // Keys made ready outside a command (a stream deleted by expiry or eviction).
        self.flush_new_key_events();
        self.handle_clients_blocked_on_keys();
        self.active_expire_cycle(crate::expire::CycleKind::Fast);
        // evict.c evictionTimeProc(): keep evicting between commands once started.
        if self.evict.timer_running {
            self.perform_evictions();
        }
    }

    // ---------------------------------------------------------------------------------------
    // Events and randomness
    // ---------------------------------------------------------------------------------------

    /// Takes every queued event and the number dropped since the last drain.
    pub fn drain_events(&mut self) -> (Vec<Event>, u64) {
        self.events.drain()
    }

    /// A uniform index in `0..n` (n > 0) from the engine's seeded RNG.
    pub(crate) fn random_index(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.rng.next_u64() % n as u64) as usize
    }

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
        let (lo, hi) = (min_ms.clamp(1, MAX_CLOCK_MS), max_ms.clamp(1, MAX_CLOCK_MS));
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
            let u = uniform(&mut self.rng);
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
