//! Blocking operations: models blocked.c — `blockForKeys()`, `unblockClient()`,
//! `signalKeyAsReady()`, `handleClientsBlockedOnKeys()`, `replyToBlockedClientTimedOut()` and
//! timeout.c `getTimeoutFromObjectOrReply()` / `handleBlockedClientsTimeout()`.
//!
//! A blocking command (BLPOP, BLMOVE, BZPOPMIN…) that finds nothing to pop parks its client
//! here: the client waits on each key in a FIFO list (the order Redis serves them in). When a
//! command creates one of those keys, db.c `dbAdd()` signals it as ready (notify.rs); after the
//! command, the ready keys are served in signal order, and each waiting client, oldest first,
//! gets its reply in its outbox — from a serve function of its command's family that pops from
//! that one key. A client whose command cannot use the key's type stays blocked and moves to
//! the back of the line, as in Redis. Timeouts are in virtual time: `before_sleep` (and the
//! clock, see `Engine::next_block_timeout`) answers a null array to clients whose time is up.
//!
//! When a blocked client is served or times out, its command's statistics are completed as
//! blocked.c `updateStatsOnUnblock()` does (its duration counted again with the reply's, the
//! latency histogram and the slow log; dispatch.rs). Deviation: a blocked client's reply is
//! produced when its key is served rather than by re-running its command (7.2's approach); the
//! effect is the same.

use crate::engine::{Blocked, ClientId, Engine, ServeFn};
use crate::reply::Reply;

/// Reads a blocking command's timeout (seconds, a long double): the absolute time in ms, or 0
/// for "forever". timeout.c `getTimeoutFromObjectOrReply(…, UNIT_SECONDS)`.
pub fn parse_timeout(e: &Engine, arg: &[u8]) -> Result<i64, Reply> {
    let not_float = || Reply::err("ERR timeout is not a float or out of range");
    if arg.first().is_some_and(|&b| crate::util::is_c_space(b)) {
        return Err(not_float());
    }
    crate::ds::long_double::LongDouble::parse(arg).ok_or_else(not_float)?;
    let secs = crate::ds::long_double::parse_c_float(arg).map(|f| f.to_f64_lenient()).ok_or_else(not_float)?;
    let ms = secs * 1000.0;
    // A C cast of a value outside `long long` (infinities too) gives LLONG_MIN on x86-64.
    let tval = if ms.is_finite() && ms > -9.223_372_036_854_775e18 && ms < 9.223_372_036_854_775e18 {
        ms as i64
    } else {
        i64::MIN
    };
    if tval < 0 {
        return Err(Reply::err("ERR timeout is negative"));
    }
    if tval > 0 {
        let now = e.now_ms();
        if tval > i64::MAX - now {
            return Err(Reply::err("ERR timeout is out of range"));
        }
        return Ok(tval + now);
    }
    Ok(0)
}

/// timeout.c `getTimeoutFromObjectOrReply(…, UNIT_MILLISECONDS)` (XREAD BLOCK): an integer
/// number of ms; the absolute time, or 0 for "forever". 7.0.15 adds the time without an
/// overflow check: a huge timeout wraps negative and the client never times out (checked on
/// redis-server 7.0.15, where BLPOP's seconds behave the same).
pub fn parse_timeout_ms(e: &Engine, arg: &[u8]) -> Result<i64, Reply> {
    let tval =
        crate::util::string2ll(arg).ok_or_else(|| Reply::err("ERR timeout is not an integer or out of range"))?;
    if tval < 0 {
        return Err(Reply::err("ERR timeout is negative"));
    }
    if tval > 0 {
        return Ok(tval.wrapping_add(e.now_ms()));
    }
    Ok(0)
}

impl Engine {
    /// Whether blocking is refused for this client now (inside MULTI/EXEC or a script): the
    /// command answers as if it had timed out (`CLIENT_DENY_BLOCKING`).
    pub(crate) fn deny_blocking(&self, client: ClientId) -> bool {
        self.in_script || self.clients.get(&client).is_none_or(|c| c.in_multi)
    }

    /// blocked.c `blockForKeys()`. Returns the placeholder the caller gives as its reply; the
    /// real reply comes later through the client's outbox.
    pub(crate) fn block_for_keys(
        &mut self,
        client: ClientId,
        db: usize,
        keys: &[Vec<u8>],
        timeout_ms: i64,
        argv: &[Vec<u8>],
        serve: ServeFn,
    ) -> Reply {
        let mut unique: Vec<Vec<u8>> = Vec::new();
        for k in keys {
            if !unique.contains(k) {
                unique.push(k.clone());
            }
        }
        for k in &unique {
            self.blocking.keys.entry((db, k.clone())).or_default().push_back(client);
        }
        let since_ms = self.now_ms;
        if let Some(c) = self.clients.get_mut(&client) {
            c.blocked = Some(Blocked {
                db,
                keys: unique,
                timeout_ms,
                argv: argv.to_vec(),
                serve,
                since_ms,
                duration_us: 0,
                call: Default::default(),
            });
        }
        Reply::Array(vec![])
    }

    /// blocked.c `unblockClient()` (the client's reply is the caller's business).
    pub(crate) fn unblock(&mut self, client: ClientId) {
        let Some(b) = self.clients.get_mut(&client).and_then(|c| c.blocked.take()) else { return };
        for k in b.keys {
            let slot = (b.db, k);
            if let Some(list) = self.blocking.keys.get_mut(&slot) {
                list.retain(|&id| id != client);
                if list.is_empty() {
                    self.blocking.keys.remove(&slot);
                }
            }
        }
    }

    /// Clients currently blocked (INFO `blocked_clients`), CLIENT PAUSE's postponed ones too.
    pub fn blocked_clients(&self) -> usize {
        self.clients.values().filter(|c| c.is_blocked()).count()
    }

    /// blocked.c `signalKeyAsReady()`: remember the key if a client waits on it.
    pub(crate) fn signal_key_as_ready(&mut self, db: usize, key: &[u8]) {
        self.blocking.signal(db, key);
    }

    /// Checks every key of a db for waiting clients (db.c `scanDatabaseForReadyKeys()`, after
    /// SWAPDB) — and, as `scanDatabaseForDeletedStreams()`, the keys that are gone, so clients
    /// blocked in XREADGROUP on a stream that left learn it.
    pub(crate) fn scan_database_for_ready_keys(&mut self, db: usize) {
        let waiting: Vec<Vec<u8>> =
            self.blocking.keys.keys().filter(|(d, _)| *d == db).map(|(_, k)| k.clone()).collect();
        for k in waiting {
            self.signal_key_as_ready(db, &k);
        }
    }

    /// blocked.c `unblockDeletedStreamReadgroupClients()`: clients blocked in XREADGROUP on a
    /// key that is no longer a stream get an error (the group can't come back with it).
    fn unblock_deleted_stream_readgroup_clients(&mut self, db: usize, key: &[u8]) {
        let Some(waiting) = self.blocking.keys.get(&(db, key.to_vec())) else { return };
        let readgroup: Vec<ClientId> = waiting
            .iter()
            .copied()
            .filter(|id| {
                self.clients
                    .get(id)
                    .and_then(|c| c.blocked.as_ref())
                    .is_some_and(|b| b.argv.first().is_some_and(|n| n.eq_ignore_ascii_case(b"xreadgroup")))
            })
            .collect();
        for id in readgroup {
            self.unblock(id);
            self.stats.total_error_replies += 1;
            if let Some(c) = self.clients.get_mut(&id) {
                c.outbox.push_back(Reply::err("UNBLOCKED the stream key no longer exists"));
            }
        }
    }

    /// blocked.c `handleClientsBlockedOnKeys()`: serve the ready keys in signal order; serving
    /// may make more keys ready (BLMOVE's destination), which are served in the same loop.
    pub(crate) fn handle_clients_blocked_on_keys(&mut self) {
        while !self.blocking.ready.is_empty() {
            let ready = std::mem::take(&mut self.blocking.ready);
            for slot in ready {
                self.blocking.ready_set.remove(&slot);
                let (db, key) = slot;
                // A key that expired meanwhile is gone for the waiting clients too.
                let is_stream = self
                    .lookup(db, &key, crate::engine::lookup::NONOTIFY | crate::engine::lookup::NOSTATS)
                    .map(|o| matches!(o.value, crate::object::Value::Stream(_)));
                if is_stream != Some(true) {
                    self.unblock_deleted_stream_readgroup_clients(db, &key);
                }
                if is_stream.is_none() {
                    continue;
                }
                let Some(waiting) = self.blocking.keys.get(&(db, key.clone())) else { continue };
                let mut turns = waiting.len();
                while turns > 0 {
                    turns -= 1;
                    if !self.dbs[db].contains(&key) {
                        break;
                    }
                    let Some(&id) = self.blocking.keys.get(&(db, key.clone())).and_then(|l| l.front()) else { break };
                    let Some((serve, argv)) =
                        self.clients.get(&id).and_then(|c| c.blocked.as_ref()).map(|b| (b.serve, b.argv.clone()))
                    else {
                        break;
                    };
                    let outer = self.current_command.take();
                    let cpu_before = self.cpu.ns;
                    let outer_prop = std::mem::take(&mut self.prop.call);
                    let dirty_before = self.stats.dirty;
                    let served = serve(self, id, db, &key, &argv);
                    let prop = std::mem::replace(&mut self.prop.call, outer_prop);
                    // The served command propagates in its non-blocking form (what `serve`
                    // rewrote it to), on its own, after the command that woke it.
                    if served.is_some() && self.prop.listening {
                        if let (Some(argv), true) = (prop.rewrite, self.stats.dirty > dirty_before) {
                            self.prop.also(db, argv, crate::propagate::Targets::BOTH);
                        }
                        self.prop.flush_pending();
                        let cause = crate::propagate::cause_text(Some(id), &argv);
                        self.trace_propagated(|| Some(cause));
                    }
                    self.current_command = outer;
                    match served {
                        Some(reply) => {
                            self.update_stats_on_unblock(id, &argv, Some(&reply), cpu_before);
                            self.unblock(id);
                            self.add_reply(id, reply);
                            if let Some(c) = self.clients.get_mut(&id) {
                                c.reset_after_command(false);
                            }
                            self.flush_new_key_events();
                        }
                        None => {
                            // Not for this client: to the back of the line.
                            if let Some(l) = self.blocking.keys.get_mut(&(db, key.clone())) {
                                l.rotate_left(1);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The earliest timeout among blocked clients (0 when none waits with a timeout).
    pub fn next_block_timeout(&self) -> i64 {
        self.clients
            .values()
            .filter_map(|c| c.blocked.as_ref())
            .map(|b| b.timeout_ms)
            .filter(|&t| t > 0)
            .min()
            .unwrap_or(0)
    }

    /// timeout.c `handleBlockedClientsTimeout()`: clients whose time is up get a null array.
    pub(crate) fn handle_blocked_clients_timeout(&mut self) {
        let now = self.now_ms;
        let due: Vec<ClientId> = self
            .clients
            .values()
            .filter(|c| c.blocked.as_ref().is_some_and(|b| b.timeout_ms > 0 && b.timeout_ms < now))
            .map(|c| c.id)
            .collect();
        for id in due {
            if let Some(argv) = self.clients.get(&id).and_then(|c| c.blocked.as_ref()).map(|b| b.argv.clone()) {
                let cpu_before = self.cpu.ns;
                self.update_stats_on_unblock(id, &argv, None, cpu_before);
            }
            self.unblock(id);
            let reply = self.repl.wait_timed_out(id).unwrap_or(Reply::NilArray);
            self.add_reply(id, reply);
            if let Some(c) = self.clients.get_mut(&id) {
                c.reset_after_command(false);
            }
        }
    }
}
