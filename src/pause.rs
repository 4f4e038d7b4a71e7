//! Pausing clients: models networking.c `pauseClients()`, `unpauseClients()`,
//! `areClientsPaused()`, `checkClientPauseTimeoutAndReturnIfPaused()`, and blocked.c's
//! `BLOCKED_POSTPONE` (processCommand's `blockClient(c, BLOCKED_POSTPONE)`, the postponed
//! clients' list, `processUnblockedClients()`). CLIENT PAUSE/UNPAUSE are in
//! command/networking.rs.
//!
//! While clients are paused (ALL: every command; WRITE: commands that may write or propagate —
//! write commands, PUBLISH, SPUBLISH, PFCOUNT, EVAL/EVALSHA/FCALL without `no-writes`, an EXEC
//! whose queue holds one) a client's command is not run: it waits, the client counted as
//! blocked, and its later input waits behind it. The dataset stands still: the active expire
//! cycle and eviction do nothing, and a key past its TTL reads as missing but is not deleted.
//! The pause ends when its time has passed — noticed by serverCron or by the next expiry or
//! eviction check, in virtual time — or with CLIENT UNPAUSE; the waiting commands then run in
//! the order they arrived, before the event loop sleeps. MONITOR clients (replicas to Redis)
//! are never paused.
//!
//! As in 7.0, a new pause keeps the stricter mode and the later end of the two; the end is the
//! timeout added to the clock without an overflow check, so a huge timeout wraps into the past
//! and the pause ends at the next check.

use crate::command::call::Command;
use crate::engine::{ClientId, Engine, PauseKind, Postponed, ResumeFn};
use crate::reply::Reply;

/// Commands Redis 7.0 flags `CMD_MAY_REPLICATE` (commands/*.json; COMMAND INFO doesn't list
/// the flag): they propagate though they may not write a key.
fn may_replicate(cmd: &Command) -> bool {
    cmd.has_flag("may_replicate")
        || matches!(
            cmd.name.as_str(),
            "publish"
                | "spublish"
                | "pfcount"
                | "eval"
                | "evalsha"
                | "fcall"
                | "function|load"
                | "function|delete"
                | "function|flush"
                | "function|restore"
        )
}

/// The flags processCommand() sees for EVAL/EVALSHA (eval.c `evalGetCommandFlags()`): a script
/// declaring flags (a shebang) writes unless `no-writes`, and no longer "may replicate".
fn script_may_write(e: &Engine, cmd: &Command, argv: &[Vec<u8>]) -> Option<bool> {
    let evalsha = matches!(cmd.name.as_str(), "evalsha" | "evalsha_ro");
    if !evalsha && !matches!(cmd.name.as_str(), "eval" | "eval_ro") {
        return None;
    }
    let body = argv.get(1)?;
    if evalsha && body.len() != 40 {
        return None;
    }
    let sha = if evalsha { String::from_utf8_lossy(body).to_ascii_lowercase() } else { crate::util::sha1hex(body) };
    let flags = match e.scripts.get(&sha) {
        Some(s) => s.flags,
        None if !evalsha => crate::script::extract_shebang(body).ok()?.0,
        None => return None,
    };
    flags.shebang.then_some(!flags.no_writes)
}

impl Engine {
    /// One command's part of processCommand()'s `is_may_replicate_command`: it may write or
    /// propagate (for EXEC, dispatch.rs asks this of each queued command too).
    pub(crate) fn command_may_replicate(&self, cmd: &Command, argv: &[Vec<u8>]) -> bool {
        match script_may_write(self, cmd, argv) {
            Some(writes) => writes,
            None => cmd.has_flag("write") || may_replicate(cmd),
        }
    }

    /// Whether processCommand() postpones a command now: clients are paused (ALL, or WRITE and
    /// the command `may_write`) and the client is not a monitor.
    pub(crate) fn must_postpone(&self, client: ClientId, may_write: bool) -> bool {
        let Some(kind) = self.pause.kind else { return false };
        if self.clients.get(&client).is_some_and(|c| c.monitor) {
            return false;
        }
        kind == PauseKind::All || may_write
    }

    /// blocked.c `blockClient(c, BLOCKED_POSTPONE)`: the command waits for the pause to end;
    /// `resume` runs it then (dispatch.rs hands in its entry point, as a blocking command hands
    /// blocked.rs its serve function: the client re-enters processCommand()).
    pub(crate) fn postpone(
        &mut self,
        client: ClientId,
        cmd: &'static Command,
        argv: &[Vec<u8>],
        resume: ResumeFn,
    ) -> Reply {
        if let Some(c) = self.clients.get_mut(&client) {
            c.last_cmd = cmd.name.as_str();
            c.argv_mem = argv.iter().map(|a| a.len()).sum();
            c.postponed = Some(Postponed { argv: argv.to_vec(), resume });
            self.pause.postponed.push(client);
        }
        Reply::Array(vec![])
    }

    /// networking.c `pauseClients()`: the stricter mode and the later end win.
    pub(crate) fn pause_clients(&mut self, end_ms: i64, kind: PauseKind) {
        self.pause.kind = Some(self.pause.kind.map_or(kind, |k| k.max(kind)));
        if end_ms > self.pause.end_ms {
            self.pause.end_ms = end_ms;
        }
    }

    /// networking.c `unpauseClients()`: the postponed clients are released; their commands run
    /// before the event loop sleeps (`process_unblocked_clients`).
    pub(crate) fn unpause_clients(&mut self) {
        self.pause.kind = None;
        self.pause.end_ms = 0;
        let released = std::mem::take(&mut self.pause.postponed);
        self.pause.unblocked.extend(released);
    }

    /// networking.c `checkClientPauseTimeoutAndReturnIfPaused()`: ends a pause whose time has
    /// passed; whether clients are still paused.
    pub(crate) fn check_client_pause_timeout(&mut self) -> bool {
        if self.pause.kind.is_none() {
            return false;
        }
        if self.pause.end_ms < self.now_ms {
            self.unpause_clients();
        }
        self.pause.kind.is_some()
    }

    /// blocked.c `unblockClient()` for one postponed client (CLIENT UNBLOCK … ERROR): its
    /// command runs again before the server sleeps — and waits again if clients are still paused.
    pub(crate) fn release_postponed(&mut self, client: ClientId) {
        if let Some(i) = self.pause.postponed.iter().position(|&id| id == client) {
            self.pause.postponed.remove(i);
            self.pause.unblocked.push(client);
        }
    }

    /// A client that goes away stops waiting.
    pub(crate) fn forget_postponed(&mut self, client: ClientId) {
        self.pause.postponed.retain(|&id| id != client);
        self.pause.unblocked.retain(|&id| id != client);
        if let Some(c) = self.clients.get_mut(&client) {
            c.postponed = None;
        }
    }

    /// blocked.c `processUnblockedClients()` (beforeSleep): the released clients' commands run,
    /// in the order they were postponed; each reply goes to the client's outbox. Not while a
    /// command runs (CLOCK ADVANCE ending a pause): they run after it, as after any command.
    pub(crate) fn process_unblocked_clients(&mut self) {
        if self.current_client.is_some() {
            return;
        }
        while !self.pause.unblocked.is_empty() {
            let id = self.pause.unblocked.remove(0);
            let Some(p) = self.clients.get_mut(&id).and_then(|c| c.postponed.take()) else { continue };
            (p.resume)(self, id, &p.argv);
        }
    }

    /// A pause that the first serverCron tick at `t` would end.
    pub(crate) fn pause_ends_by(&self, t: i64) -> bool {
        self.pause.kind.is_some() && self.pause.end_ms < t
    }

    /// When a pause ends if nothing ends it sooner (Unix ms), while clients are paused.
    pub fn pause_end_ms(&self) -> Option<i64> {
        self.pause.kind.map(|_| self.pause.end_ms)
    }

    /// Clients paused, WRITE or ALL (for views and hosts).
    pub fn pause_kind(&self) -> Option<PauseKind> {
        self.pause.kind
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::{Engine, EngineOptions};
    use crate::reply::Reply;

    fn run(e: &mut Engine, c: u64, args: &[&str]) -> Reply {
        e.execute(c, &args.iter().map(|a| a.as_bytes().to_vec()).collect::<Vec<_>>())
    }

    #[test]
    fn a_timeout_that_overflows_ends_the_pause_at_the_next_check() {
        for timeout in ["9223372036854775807", "9223372036854775000", "0"] {
            let mut e = Engine::new(EngineOptions::default());
            let (a, b) = (e.connect(), e.connect());
            assert_eq!(run(&mut e, a, &["CLIENT", "PAUSE", timeout, "WRITE"]), Reply::ok());
            // Until serverCron looks, clients are paused.
            run(&mut e, b, &["SET", "k", "v"]);
            assert!(e.is_blocked(b), "{timeout}");
            let next = e.next_cron_ms();
            e.advance_to(next, u64::MAX);
            assert!(!e.is_blocked(b), "{timeout}");
            assert_eq!(e.take_outbox(b), vec![Reply::ok()]);
        }
    }

    #[test]
    fn writes_wait_reads_pass_and_nothing_expires() {
        let mut e = Engine::new(EngineOptions::default());
        let (a, b) = (e.connect(), e.connect());
        run(&mut e, a, &["SET", "t", "v", "PX", "10"]);
        run(&mut e, a, &["CLIENT", "PAUSE", "60000", "WRITE"]);
        let now = e.now_ms();
        e.advance_to(now + 5000, u64::MAX);
        assert_eq!(run(&mut e, b, &["GET", "t"]), Reply::Nil);
        assert_eq!(run(&mut e, b, &["DBSIZE"]), Reply::Integer(1), "read as gone, not deleted");
        assert_eq!(run(&mut e, b, &["RANDOMKEY"]), Reply::bulk("t"), "gives up instead of looping");
        run(&mut e, b, &["MULTI"]);
        run(&mut e, b, &["GET", "t"]);
        run(&mut e, b, &["EXEC"]);
        assert!(!e.is_blocked(b), "a read-only transaction runs");
        run(&mut e, b, &["MULTI"]);
        run(&mut e, b, &["INCR", "n"]);
        assert!(e.is_blocked(b), "queueing a write waits");
        // The pause ends by itself, at the first serverCron tick after its end.
        e.advance_to(now + 60_000, u64::MAX);
        assert!(e.is_blocked(b));
        e.advance_to(now + 60_200, u64::MAX);
        assert!(!e.is_blocked(b));
        assert_eq!(e.take_outbox(b), vec![Reply::Status("QUEUED".into())]);
        assert_eq!(run(&mut e, b, &["EXEC"]), Reply::Array(vec![Reply::Integer(1)]));
        assert_eq!(run(&mut e, b, &["DBSIZE"]), Reply::Integer(1), "t expired once the pause ended");
    }
}
