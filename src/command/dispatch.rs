//! Running a command: models server.c `processCommand()` (lookup, existence and arity checks
//! with Redis's errors, NOAUTH, the ACL check, the OOM rule, the Pub/Sub-mode restriction, MULTI queueing) and
//! `call()` (the handler, then stats, the memory peak, the event log), for a client's command,
//! for EXEC's queue and for a script's `redis.call`. `Engine::execute` is the entry point every
//! host uses; `Engine::call` is the re-entrant part (EXEC, scripts), as in Redis.

use std::borrow::Cow;

use crate::engine::{CallInfo, ClientId, Engine};
use crate::events::Event;
use crate::reply::Reply;

use super::call::{role, sanitize, Call, Command, Lookup};
use super::table::table;

impl Engine {
    /// Runs one command for `client` and returns its reply (server.c `processCommand()` then
    /// `call()`), then serves clients blocked on keys the command made ready. When the command
    /// blocks (BLPOP on an empty list…), `is_blocked(client)` is true and the returned reply is a
    /// placeholder: the real one arrives later in the client's outbox.
    ///
    /// With CLIENT REPLY OFF/SKIP (or a second MONITOR) the reply is not to be sent:
    /// `reply_dropped(client)` says so. Outbox entries queued before the reply was made come
    /// before it (`take_outbox_before_reply`), the rest after.
    pub fn execute(&mut self, client: ClientId, argv: &[Vec<u8>]) -> Reply {
        if self.repl_hooks.is_none() {
            self.repl_hooks = Some(repl_hooks());
        }
        let outer = self.current_client.replace(client);
        if let Some(c) = self.clients.get_mut(&client) {
            c.reply_dropped = false;
            c.reply_pos = c.outbox.len();
        }
        let reply = self.process_command(client, argv);
        // server.c afterCommand(): the invalidations the client caused for itself follow its reply.
        self.tracking_handle_pending_key_invalidations();
        self.after_command();
        // replicationFeedSlaves(), then `c->woff` (WAIT waits for what the client wrote).
        self.replication_feed();
        let woff = self.repl.master_repl_offset;
        if let Some(c) = self.clients.get_mut(&client) {
            c.woff = woff;
        }
        // CLIENT_CLOSE_AFTER_COMMAND (its user deleted by its own command): closed now, the
        // reply still goes out.
        if self.clients.get(&client).is_some_and(|c| c.close_after_command) {
            self.disconnect(client);
        }
        self.command_processed(client, argv, &reply);
        self.current_client = outer;
        reply
    }

    /// A postponed command run when the pause ended (blocked.c `processUnblockedClients()`):
    /// as `execute`, its reply (unless dropped, or the command blocks again) to the outbox.
    fn execute_late(&mut self, client: ClientId, argv: &[Vec<u8>]) {
        let reply = self.execute(client, argv);
        if self.is_blocked(client) || self.reply_dropped(client) {
            return;
        }
        if let Some(c) = self.clients.get_mut(&client) {
            let at = std::mem::take(&mut c.reply_pos).min(c.outbox.len());
            c.outbox.insert(at, reply);
        }
    }

    /// networking.c `commandProcessed()` → `resetClient()` for what a reply depends on: whether
    /// this one is sent (CLIENT REPLY OFF/SKIP spare push replies, 7.0's `CLIENT_PUSHING`), SKIP
    /// moving on to the next command, CLIENT CACHING's flag lasting one command (CLIENT commands
    /// and MULTI queueing keep it). A blocked client is reset when it is unblocked.
    fn command_processed(&mut self, client: ClientId, argv: &[Vec<u8>], reply: &Reply) {
        let Some(c) = self.clients.get_mut(&client) else { return };
        if c.is_blocked() {
            return;
        }
        let push = matches!(reply, Reply::Push(_));
        c.reply_dropped |= (c.reply_off || c.reply_skip) && !push;
        let client_cmd = argv.first().is_some_and(|n| n.eq_ignore_ascii_case(b"client"));
        c.reset_after_command(client_cmd);
    }

    fn reject(
        &mut self,
        client: ClientId,
        db: usize,
        argv: &[Vec<u8>],
        base: Option<&'static Command>,
        err: Reply,
    ) -> Reply {
        if let Reply::Error(msg) = &err {
            self.count_error_reply(msg);
        }
        if let Some(base) = base {
            self.stats.command(base.name.as_str()).rejected_calls += 1;
        }
        // multi.c flagTransaction(): a command refused while queueing dooms the EXEC.
        if let Some(c) = self.clients.get_mut(&client) {
            if c.in_multi {
                c.dirty_exec = true;
            }
            c.reply_pos = c.outbox.len();
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

    /// networking.c `afterErrorReply()`: one more error reply, counted in `total_error_replies`
    /// and under its prefix in INFO errorstats — the code before the first space when it shows
    /// within the first 31 bytes (`WRONGTYPE`, `NOSCRIPT`, a script's own `MY_CODE x`), else `ERR`.
    pub(crate) fn count_error_reply(&mut self, msg: &[u8]) {
        self.stats.total_error_replies += 1;
        let window = &msg[..msg.len().min(31)];
        let prefix: &[u8] = match window.iter().position(|&b| b == b' ') {
            Some(n) => &msg[..n],
            None => b"ERR",
        };
        *self.stats.errors.entry(prefix.to_vec()).or_default() += 1;
    }

    /// server.c `processCommand()`: lookup, existence and arity checks with Redis's errors, the
    /// OOM rule, the Pub/Sub-mode restriction, MULTI queueing, then `call()`.
    fn process_command(&mut self, client: ClientId, argv: &[Vec<u8>]) -> Reply {
        let Some(db) = self.client_db(client) else {
            return Reply::err("ERR no such client");
        };
        // A script is running and has not timed out: Redis reads nothing from other clients
        // (nor more from the script's own); the command runs when it times out or ends.
        if self.must_wait_for_script(client) {
            self.scripts.parked.push_back((client, argv.to_vec()));
            return Reply::Array(vec![]);
        }
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
        // `c->lastcmd` is the command found, whether it then runs or is refused.
        if let Some(c) = self.clients.get_mut(&client) {
            c.last_cmd = cmd.name.as_str();
            c.argv_mem = argv.iter().map(|a| a.len()).sum();
        }
        // server.c processCommand(): CMD_PROTECTED commands (DEBUG, MODULE LOAD/LOADEX/UNLOAD)
        // run only when enable-debug-command / enable-module-command allows them — checked
        // before authentication (an unauthenticated DEBUG gets this error, not NOAUTH).
        if let Some(option) = protected_by(cmd) {
            let local = self.clients.get(&client).is_none_or(|c| c.is_local());
            let allowed = match self.config.str(option) {
                "yes" => true,
                "local" => local,
                _ => false,
            };
            if !allowed {
                let what = if option == "enable-debug-command" { "DEBUG" } else { "MODULE" };
                let msg = format!(
                    "ERR {what} command not allowed. If the {option} option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."
                );
                return self.reject(client, db, argv, Some(cmd), Reply::err(msg));
            }
        }
        // server.c processCommand(): `authRequired(c)` and the command lacks CMD_NO_AUTH.
        if !cmd.has_flag("no_auth") && self.auth_required(client) {
            return self.reject(client, db, argv, Some(cmd), Reply::err("NOAUTH Authentication required."));
        }
        // CMD_NO_MULTI (SAVE, SHUTDOWN…): refused inside MULTI (the transaction is doomed).
        if cmd.has_flag("no_multi") && self.clients.get(&client).is_some_and(|c| c.in_multi) {
            return self.reject(
                client,
                db,
                argv,
                Some(cmd),
                Reply::err("ERR Command not allowed inside a transaction"),
            );
        }
        // ACLCheckAllPerm(): NOPERM, and an ACL LOG entry.
        if let Err(denied) = self.acl_check(client, cmd, argv) {
            let context = self.acl_context(client);
            self.acl_log_denied(client, cmd, argv, denied, context);
            return self.reject(client, db, argv, Some(cmd), super::acl::noperm(cmd, denied));
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
        let is_exec = cmd.is(role::EXEC);
        let tx_control = cmd.is(role::TX_CONTROL);
        // Evict before every command while over maxmemory; when nothing can be evicted, refuse
        // commands that may grow memory — and, inside MULTI, any queueing but EXEC/DISCARD/QUIT/RESET.
        if self.hot.maxmemory != 0
            && !self.scripts.busy()
            && self.perform_evictions() == crate::evict::EvictResult::Fail
        {
            let denyoom = cmd.has_flag("denyoom") || (is_exec && queued_denyoom);
            let queueing = in_multi && !cmd.is(role::ENDS_TX);
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
        // Make sure to use a reasonable amount of memory for client side caching metadata.
        if self.tracking.clients > 0 {
            self.tracking_limit_used_slots();
        }
        // A write needs enough good replicas (min-replicas-to-write), and a read-only replica
        // takes writes from its master only.
        let is_write = cmd.has_flag("write")
            || (is_exec
                && self.clients.get(&client).is_some_and(|c| {
                    c.queued.iter().any(|q| matches!(table().lookup(q), Lookup::Found(qc) if qc.has_flag("write")))
                }));
        // (good_replicas_ok() holds whenever min-replicas-to-write is 0, the default.)
        if is_write && self.hot.min_replicas_to_write != 0 && !self.good_replicas_ok() {
            return self.reject(
                client,
                db,
                argv,
                Some(cmd),
                Reply::err("NOREPLICAS Not enough good replicas to write."),
            );
        }
        if is_write && self.is_replica() && self.config.bool("replica-read-only") && !self.is_master_client(client) {
            return self.reject(
                client,
                db,
                argv,
                Some(cmd),
                Reply::err("READONLY You can't write against a read only replica."),
            );
        }
        if in_pubsub && !cmd.is(role::PUBSUB_OK) {
            let msg = format!(
                "ERR Can't execute '{}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context",
                cmd.name
            );
            return self.reject(client, db, argv, Some(cmd), Reply::err(msg));
        }
        // A timed-out script runs: only `allow_busy` commands (SCRIPT KILL…) run; EXEC aborts
        // its transaction (multi.c execCommandAbort()).
        if let Some(busy) = self.busy_error(cmd) {
            let err = if is_exec {
                self.discard_transaction(client);
                Reply::err(format!("EXECABORT Transaction discarded because of: {busy}"))
            } else {
                Reply::err(busy)
            };
            return self.reject(client, db, argv, Some(cmd), err);
        }
        // Clients are paused: the command waits for the end of the pause (ALL: any command;
        // WRITE: one that may write or propagate — for EXEC, any it queued).
        if self.pause.kind.is_some() {
            let may_write = self.command_may_replicate(cmd, argv)
                || (is_exec
                    && self.clients.get(&client).is_some_and(|c| {
                        c.queued.iter().any(
                            |q| matches!(table().lookup(q), Lookup::Found(qc) if self.command_may_replicate(qc, q)),
                        )
                    }));
            if self.must_postpone(client, may_write) {
                return self.postpone(client, cmd, argv, |e, id, argv| e.execute_late(id, argv));
            }
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

    /// server.c `call()`'s propagation: a command that changed the dataset (or forced it)
    /// propagates its argv — or what it rewrote it to — unless it propagated its effects
    /// instead (EXEC, scripts: their commands did); the top-level command's ops then go out
    /// (propagatePendingCommands()), unless a script still runs between slices.
    fn propagate_call(
        &mut self,
        cmd: &Command,
        argv: &[Vec<u8>],
        db: usize,
        dirty: bool,
        state: crate::propagate::CallState,
        top_level: bool,
    ) {
        let effects_only = cmd.is(role::BY_EFFECTS);
        let targets = if dirty { Some(crate::propagate::Targets::BOTH) } else { state.force };
        if let (Some(targets), false, false) = (targets, effects_only, state.prevent) {
            let argv = state.rewrite.unwrap_or_else(|| argv.to_vec());
            self.prop.also(db, argv, targets);
        }
        if top_level && !self.in_script && !self.scripts.busy() {
            self.prop.flush_pending();
            let client = self.current_client;
            self.trace_propagated(|| Some(crate::propagate::cause_text(client, argv)));
        }
    }

    /// server.c `call()`: runs a command that passed the checks — directly, from EXEC or from a
    /// script — and keeps the stats, the memory accounting and the event log. The command's
    /// duration is the whole microseconds the virtual CPU clock crossed while it ran (its own
    /// cost from src/cost.rs, its frees, the commands it ran itself), as Redis measures
    /// `ustime()` around the call.
    pub(crate) fn call(&mut self, client: ClientId, cmd: &'static Command, argv: &[Vec<u8>]) -> Reply {
        let Some(db) = self.client_db(client) else {
            return Reply::err("ERR no such client");
        };
        let Some(handler) = cmd.handler else {
            return Reply::err("ERR command has no handler");
        };
        let call = Call { client, db, argv, cmd, table: table() };
        let outer = self.current_command.replace(cmd.name.as_str());
        if let Some(c) = self.clients.get_mut(&client) {
            // `c->lastcmd` stays the client's own command (EXEC, EVAL) while it runs others.
            if outer.is_none() {
                c.last_cmd = cmd.name.as_str();
            }
            c.argv_mem = argv.iter().map(|a| a.len()).sum();
            if outer.is_none() {
                c.reply_pos = c.outbox.len();
            }
        }
        // Tracking remembers the keys of the command a client sent — inside a script, the
        // script's caller's (tracking.c 7.0 reads the caller's argv).
        if !self.in_script && self.tracking.clients > 0 && self.tracks_reads(client) {
            self.tracking_caller_keys = crate::command::server::command_key_names(cmd, argv);
        }
        // The script commands feed MONITOR before they run, so their commands follow them.
        if cmd.has_flag("skip_monitor") && !self.monitors.is_empty() {
            self.feed_monitors(client, db, argv);
        }
        let cpu_before = self.cpu.ns;
        let outer_cron = std::mem::take(&mut self.cron_in_command_ns);
        let outer_counted = std::mem::replace(&mut self.error_already_counted, false);
        let dirty_before = self.stats.dirty;
        let outer_prop = std::mem::take(&mut self.prop.call);
        let reply = handler(self, &call);
        let error_counted = std::mem::replace(&mut self.error_already_counted, outer_counted);
        if self.errno_erange.is_some() {
            crate::command::sort::after_command(self, &cmd.name, argv);
        }
        self.current_command = outer;
        let db_after = self.client_db(client).unwrap_or(db);
        let prop = std::mem::replace(&mut self.prop.call, outer_prop);
        if self.prop.listening {
            self.propagate_call(cmd, argv, db_after, self.stats.dirty > dirty_before, prop, outer.is_none());
        }
        if cmd.has_flag("readonly") && self.tracking.clients > 0 && self.tracks_reads(client) {
            let keys = self.tracking_caller_keys.clone();
            self.tracking_remember_keys(client, keys);
        }
        if !self.monitors.is_empty() && !cmd.has_flag("skip_monitor") && !cmd.has_flag("admin") {
            self.feed_monitors(client, db_after, argv);
        }
        // Values the command may have changed in place get their size recomputed.
        for d in self.dbs.iter_mut() {
            d.refresh_dirty();
        }
        self.flush_new_key_events();
        let used = self.used_memory();
        if used > self.stats.peak_memory {
            self.stats.peak_memory = used;
        }
        // The command's own cost: replies built by the commands it ran were charged by them.
        let nested_reply = cmd.is(role::BY_EFFECTS);
        let mut own = crate::cost::command_cost_ns(argv, if nested_reply { None } else { Some(&reply) });
        if nested_reply && !cmd.is(role::EXEC) {
            own += crate::cost::SCRIPT_RUN_NS;
        }
        self.charge_cpu(crate::cost::scaled(own, self.hot.cost_percent));
        // Cron work a CLOCK ADVANCE ran inside this command is not its duration (nor its
        // caller's, EXEC or a script: handed up; a top-level command keeps nothing).
        let cron = std::mem::replace(&mut self.cron_in_command_ns, if outer.is_some() { outer_cron } else { 0 });
        if outer.is_some() {
            self.cron_in_command_ns += cron;
        }
        let duration = (self.cpu.ns - cron) / 1000 - cpu_before / 1000;
        let blocked = self.clients.get(&client).is_some_and(|c| c.blocked.is_some());
        let stat = self.stats.command(cmd.name.as_str());
        stat.calls += 1;
        stat.usec += duration;
        let reply = match reply {
            Reply::Error(msg) => {
                stat.failed_calls += 1;
                let msg = sanitize(msg);
                if !error_counted {
                    self.count_error_reply(&msg);
                }
                Reply::Error(msg)
            }
            other => other,
        };
        let info = CallInfo {
            name: cmd.name.as_str(),
            fast: cmd.has_flag("fast"),
            skip_slowlog: cmd.has_flag("skip_slowlog"),
        };
        if blocked {
            // blocked.c: the histogram, the slow log and the latency sample wait for the reply.
            if let Some(b) = self.clients.get_mut(&client).and_then(|c| c.blocked.as_mut()) {
                b.duration_us = duration;
                b.call = info;
            }
        } else {
            let event = if info.fast { "fast-command" } else { "command" };
            self.record_call(client, info, argv, duration, event, duration);
        }
        self.stats.total_commands_processed += 1;
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
        handler(self, &Call { client, db, argv, cmd, table: table() })
    }

    /// After each top-level command: serve clients blocked on keys it made ready.
    fn after_command(&mut self) {
        self.flush_new_key_events();
        self.handle_clients_blocked_on_keys();
        // A script that timed out in its first slice: the commands parked meanwhile run now.
        if !self.scripts.parked.is_empty() {
            self.serve_parked();
        }
    }

    /// Reads (for tests and views) the virtual CPU clock in ns.
    pub fn cpu_ns(&self) -> u64 {
        self.cpu.ns
    }

    fn log_command(&mut self, client: ClientId, db: usize, name: Cow<'static, str>, argc: usize, error: bool) {
        let at_ms = self.now_ms;
        self.events.push(Event::Command { at_ms, client, db, name, argc, error });
    }
}

/// What replication/ runs through the command layer: the master's commands, the RDB of the
/// dataset, a master's payload loaded.
fn repl_hooks() -> crate::engine::ReplHooks {
    crate::engine::ReplHooks {
        execute: |e, client, argv| e.execute(client, argv),
        rdb_image: |e| e.rdb_image(),
        load: |e, image| e.rdb_load_for_replica(image).map(|_| ()).map_err(|err| err.to_string()),
    }
}

impl Engine {
    /// Makes this engine a replica of `host:port`, as REPLICAOF does (`redisplay serve
    /// --replicaof`, the page's second engine); the host then drives the link with the
    /// `repl_link_*` calls (replication/mod.rs).
    pub fn become_replica_of(&mut self, host: &str, port: u16) {
        self.repl_hooks = Some(repl_hooks());
        self.replication_set_master(host, port);
    }
}

/// The config option that guards a CMD_PROTECTED command (commands/*.json `PROTECTED`).
fn protected_by(cmd: &Command) -> Option<&'static str> {
    if !cmd.name.starts_with(['d', 'm']) {
        return None;
    }
    match cmd.name.as_str() {
        "debug" => Some("enable-debug-command"),
        "module|load" | "module|loadex" | "module|unload" => Some("enable-module-command"),
        _ => None,
    }
}
