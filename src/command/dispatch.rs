//! Running a command: models server.c `processCommand()` (lookup, existence and arity checks
//! with Redis's errors, NOAUTH, the OOM rule, the Pub/Sub-mode restriction, MULTI queueing) and
//! `call()` (the handler, then stats, the memory peak, the event log), for a client's command,
//! for EXEC's queue and for a script's `redis.call`. `Engine::execute` is the entry point every
//! host uses; `Engine::call` is the re-entrant part (EXEC, scripts), as in Redis.

use std::borrow::Cow;

use crate::engine::{ClientId, Engine};
use crate::events::Event;
use crate::reply::Reply;

use super::call::{sanitize, Call, Command, Lookup};
use super::table::table;

impl Engine {
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
        if self.hot.maxmemory != 0
            && !self.scripts.busy()
            && self.perform_evictions() == crate::evict::EvictResult::Fail
        {
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
        let call = Call { client, db, argv, cmd, table: table() };
        let outer = self.current_command.replace(cmd.name.as_str());
        if let Some(c) = self.clients.get_mut(&client) {
            c.last_cmd = cmd.name.as_str();
            c.argv_mem = argv.iter().map(|a| a.len()).sum();
        }
        let reply = handler(self, &call);
        if self.errno_erange.is_some() {
            crate::command::sort::after_command(self, &cmd.name, argv);
        }
        self.current_command = outer;
        // Values the command may have changed in place get their size recomputed.
        for d in self.dbs.iter_mut() {
            d.refresh_dirty();
        }
        self.flush_new_key_events();
        let used = self.used_memory();
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
                Reply::Error(sanitize(msg))
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

    fn log_command(&mut self, client: ClientId, db: usize, name: Cow<'static, str>, argc: usize, error: bool) {
        let at_ms = self.now_ms;
        self.events.push(Event::Command { at_ms, client, db, name, argc, error });
    }
}
