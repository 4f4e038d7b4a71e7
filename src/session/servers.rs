//! The page's servers: its Redis on 127.0.0.1:6379 and, once a console asks for it, a second
//! one on 127.0.0.1:6380 (typically made a replica of the first with `REPLICAOF 127.0.0.1
//! 6379`), joined by a network in virtual time (replication/link.rs: latency, cuts). Both live
//! on one clock: a line on either server, or a cron advance, brings the other to the same
//! time, stopping wherever a chunk arrives on the way, so a DEL sent at t with 50 ms of latency
//! lands at t + 50 exactly. The consoles are numbered across the servers: console 0 is the
//! first server's first; `open_console_on(1)` adds one on the second.
//!
//! `CLOCK ADVANCE <ms>` typed on either server's console moves the one clock: both servers
//! walk there together (then the console runs `CLOCK ADVANCE 0`, whose reply is the same
//! time). Deviation: inside MULTI, a script, or with a repeat prefix it moves its own server's
//! clock at once and the other catches up after it, so what was written to the wire during
//! the jump is stamped with the jump's end; so does `CLOCK SET`.

use super::{LineOutput, Session};
use crate::engine::{Advance, ClientId, EngineOptions};
use crate::replication::link::{Network, NetworkSnapshot, PORTS};

/// A console: which server, and which of that session's consoles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Target {
    server: usize,
    console: usize,
}

/// What the replica lane reads: each server's side and the network between them.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ReplicationSnapshot {
    pub servers: Vec<crate::introspect::ReplicationSide>,
    pub network: NetworkSnapshot,
}

pub struct Servers {
    pub main: Session,
    second: Option<Session>,
    net: Network,
    consoles: Vec<Target>,
    seed: u64,
    show_pushes: bool,
    trace: bool,
}

impl Servers {
    pub fn new(opts: EngineOptions) -> Servers {
        Servers {
            main: Session::new(opts),
            second: None,
            net: Network::new(),
            consoles: vec![Target { server: 0, console: 0 }],
            seed: opts.seed,
            show_pushes: false,
            trace: false,
        }
    }

    /// redis-cli's `--show-pushes` for every console (see Session::show_pushes).
    pub fn set_show_pushes(&mut self, on: bool) {
        self.show_pushes = on;
        self.main.show_pushes = on;
        if let Some(s) = self.second.as_mut() {
            s.show_pushes = on;
        }
    }

    /// Event::Propagated on both servers (the persistence view's stream).
    pub fn set_propagation_trace(&mut self, on: bool) {
        self.trace = on;
        self.main.engine.set_propagation_trace(on);
        if let Some(s) = self.second.as_mut() {
            s.engine.set_propagation_trace(on);
        }
    }

    pub fn has_second(&self) -> bool {
        self.second.is_some()
    }

    pub fn second(&self) -> Option<&Session> {
        self.second.as_ref()
    }

    /// The second server, made on first use: its own seed (so its replication ids differ from
    /// the first's), port 6380, the first's time.
    fn ensure_second(&mut self) -> &mut Session {
        if self.second.is_none() {
            let now = self.main.engine.now_ms();
            let seed = self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1);
            let mut s = Session::new(EngineOptions { seed, start_ms: now });
            s.engine.tcp_port = PORTS[1];
            s.port = PORTS[1];
            s.show_pushes = self.show_pushes;
            s.engine.set_propagation_trace(self.trace);
            // No view drains its events (the replica lane reads snapshots): none are kept.
            s.engine.set_event_recording(false);
            self.second = Some(s);
        }
        self.second.as_mut().expect("made above")
    }

    fn target(&self, console: usize) -> Option<Target> {
        self.consoles.get(console).copied()
    }

    fn session_of(&self, server: usize) -> Option<&Session> {
        if server == 0 {
            Some(&self.main)
        } else {
            self.second.as_ref()
        }
    }

    fn session_mut(&mut self, server: usize) -> Option<&mut Session> {
        if server == 0 {
            Some(&mut self.main)
        } else {
            self.second.as_mut()
        }
    }

    // ---- Consoles --------------------------------------------------------------------------

    /// Opens a console on the first server (a new client).
    pub fn open_console(&mut self) -> usize {
        self.open_console_on(0)
    }

    /// Opens a console on server `server` (0 or 1; 1 is made if needed): its number.
    pub fn open_console_on(&mut self, server: usize) -> usize {
        let server = server.min(1);
        let taken = self.consoles.iter().filter(|t| t.server == server).count();
        let session = if server == 0 { &mut self.main } else { self.ensure_second() };
        let console = if taken == 0 { 0 } else { session.open_console() };
        self.consoles.push(Target { server, console });
        self.consoles.len() - 1
    }

    /// Closes the last console (never the first). A second server's first console is only
    /// hidden: redis-cli goes, its client is not needed again until one opens there.
    pub fn close_console(&mut self) -> bool {
        if self.consoles.len() <= 1 {
            return false;
        }
        let Some(t) = self.consoles.pop() else { return false };
        if t.console > 0 {
            if let Some(s) = self.session_mut(t.server) {
                s.close_console();
            }
        }
        true
    }

    pub fn console_count(&self) -> usize {
        self.consoles.len()
    }

    /// The server (0 or 1) console `console` talks to.
    pub fn server_of(&self, console: usize) -> Option<usize> {
        self.target(console).map(|t| t.server)
    }

    pub fn run_line_on(&mut self, console: usize, line: &[u8]) -> LineOutput {
        let Some(t) = self.target(console) else {
            return LineOutput { text: b"(redisplay) no such console.\n".to_vec(), ..LineOutput::default() };
        };
        let line = match self.shared_advance(t, line) {
            Some(ms) => {
                let to = self.main.engine.now_ms().saturating_add(ms);
                self.walk_to(to, crate::command::clock::MAX_ADVANCE_TICKS);
                &b"CLOCK ADVANCE 0"[..]
            }
            None => line,
        };
        let out = match self.session_mut(t.server) {
            Some(s) => s.run_line_on(t.console, line),
            None => LineOutput::default(),
        };
        self.settle();
        out
    }

    /// `CLOCK ADVANCE <ms>` alone on a line, on an idle console outside MULTI, with a second
    /// server: the ms both servers walk (None: the line runs as typed).
    fn shared_advance(&self, t: Target, line: &[u8]) -> Option<i64> {
        self.second.as_ref()?;
        let args = crate::tokenize::split_args(line)?;
        let [cmd, sub, ms] = args.as_slice() else { return None };
        if !cmd.eq_ignore_ascii_case(b"clock") || !sub.eq_ignore_ascii_case(b"advance") {
            return None;
        }
        let ms: i64 = std::str::from_utf8(ms).ok()?.parse().ok()?;
        let session = self.session_of(t.server)?;
        let idle = !session.is_waiting(t.console) && !session.is_subscribed(t.console);
        let in_multi = session.prompt_of(t.console).contains("(TX)");
        let now = self.main.engine.now_ms();
        let fits = ms >= 0 && now.checked_add(ms).is_some_and(|to| to <= crate::engine::MAX_CLOCK_MS);
        let ticks_ok = self.main.engine.ticks_until(now.saturating_add(ms)) <= crate::command::clock::MAX_ADVANCE_TICKS;
        (idle && !in_multi && fits && ticks_ok && session.engine.busy_script().is_none()).then_some(ms)
    }

    pub fn poll(&mut self, console: usize) -> Vec<u8> {
        let Some(t) = self.target(console) else { return Vec::new() };
        let text = self.session_mut(t.server).map(|s| s.poll(t.console)).unwrap_or_default();
        self.settle();
        text
    }

    pub fn interrupt(&mut self, console: usize) {
        if let Some(t) = self.target(console) {
            if let Some(s) = self.session_mut(t.server) {
                s.interrupt(t.console);
            }
        }
        self.settle();
    }

    pub fn prompt_of(&self, console: usize) -> String {
        match self.target(console) {
            Some(t) => self.session_of(t.server).map_or_else(|| "not connected> ".into(), |s| s.prompt_of(t.console)),
            None => "not connected> ".into(),
        }
    }

    pub fn is_waiting(&self, console: usize) -> bool {
        self.target(console).is_some_and(|t| self.session_of(t.server).is_some_and(|s| s.is_waiting(t.console)))
    }

    pub fn is_subscribed(&self, console: usize) -> bool {
        self.target(console).is_some_and(|t| self.session_of(t.server).is_some_and(|s| s.is_subscribed(t.console)))
    }

    pub fn client_of(&self, console: usize) -> Option<ClientId> {
        let t = self.target(console)?;
        self.session_of(t.server)?.client_of(t.console)
    }

    pub fn prefs_of(&self, console: usize) -> super::CliPrefs {
        self.target(console).and_then(|t| self.session_of(t.server).map(|s| s.prefs_of(t.console))).unwrap_or_default()
    }

    pub fn set_raw(&mut self, console: usize, raw: bool) {
        if let Some(t) = self.target(console) {
            if let Some(s) = self.session_mut(t.server) {
                s.set_raw(t.console, raw);
            }
        }
    }

    pub fn hint_of(&self, console: usize, line: &[u8]) -> Option<String> {
        let t = self.target(console)?;
        self.session_of(t.server)?.hint_of(t.console, line)
    }

    // ---- Time and the network --------------------------------------------------------------

    /// After anything ran on either server: the lagging server brought to the other's time
    /// (stopping at each arrival on the way), and what can move on the network moved.
    pub fn settle(&mut self) {
        let Some(second) = self.second.as_ref() else { return };
        let (a, b) = (self.main.engine.now_ms(), second.engine.now_ms());
        if a != b {
            self.walk_to(a.max(b), u64::MAX);
        }
        self.pump();
    }

    /// Moves the network, then files both servers' log lines (serverLog: "Full resync from
    /// master", "Partial resynchronization request … accepted", …) among its notes as
    /// `6380:S <line>`, the way redis-server marks a master's (M) and a replica's (S) lines.
    fn pump(&mut self) {
        let Some(second) = self.second.as_mut() else { return };
        self.net.pump([&mut self.main.engine, &mut second.engine]);
        for (i, e) in [&mut self.main.engine, &mut second.engine].into_iter().enumerate() {
            let role = if e.is_replica() { 'S' } else { 'M' };
            for line in e.take_log() {
                self.net.log_line(line.at_ms, format!("{}:{role} {}", PORTS[i], line.message));
            }
        }
    }

    /// Both servers to `t` (the first within `max_ticks` cron ticks), stopping at each
    /// arrival on the way. Returns the first server's ticks and how far it stayed behind.
    fn walk_to(&mut self, t: i64, max_ticks: u64) -> Advance {
        let mut ticks = 0u64;
        loop {
            let now = self.main.engine.now_ms().max(self.second.as_ref().map_or(i64::MIN, |s| s.engine.now_ms()));
            // The next thing that can move the network: an arrival, or either server's cron tick
            // (a replica connects, acks and times out there; a master pings and expires keys).
            let mut next = self.net.next_delivery_ms().filter(|&d| d > now && d < t).unwrap_or(t);
            if let Some(s) = self.second.as_ref() {
                for cron in [self.main.engine.next_cron_ms(), s.engine.next_cron_ms()] {
                    if cron > now && cron < next {
                        next = cron;
                    }
                }
            }
            let adv = self.main.engine.advance_to(next, max_ticks.saturating_sub(ticks).max(1));
            ticks += adv.ticks;
            let reached = self.main.engine.now_ms();
            if let Some(s) = self.second.as_mut() {
                if s.engine.now_ms() < reached || reached >= t {
                    s.engine.advance_to(reached, u64::MAX);
                }
            }
            self.pump();
            if reached < next || reached >= t || ticks >= max_ticks {
                return Advance { ticks, lag_ms: t.saturating_sub(reached).max(0) };
            }
        }
    }

    /// serverCron for every tick crossed on both servers, at most `max_ticks` on the first.
    pub fn advance_to(&mut self, t: i64, max_ticks: u64) -> Advance {
        if self.second.is_none() {
            return self.main.engine.advance_to(t, max_ticks);
        }
        self.walk_to(t, max_ticks)
    }

    /// Sets both clocks without running cron.
    pub fn set_time(&mut self, t: i64) {
        self.main.engine.set_time(t);
        if let Some(s) = self.second.as_mut() {
            s.engine.set_time(t);
        }
        self.pump();
    }

    /// One-way latency of the link between the servers.
    pub fn set_link_latency(&mut self, ms: i64) {
        self.net.set_latency(ms);
    }

    /// Cuts the link (true) or restores it.
    pub fn set_link_down(&mut self, down: bool) {
        match self.second.as_mut() {
            Some(second) => self.net.set_down(down, [&mut self.main.engine, &mut second.engine]),
            // No second server yet: nothing is connected, the switch waits for it.
            None => {
                self.net.switch(down, self.main.engine.now_ms());
            }
        }
        self.pump();
    }

    /// Back to fresh servers (same seeds; the second, if there was one, fresh at the first's
    /// start time); the consoles stay, the network keeps its settings.
    pub fn reset(&mut self) {
        match self.second.as_mut() {
            Some(s) => self.net.clear([Some(&mut self.main.engine), Some(&mut s.engine)]),
            None => self.net.clear([Some(&mut self.main.engine), None]),
        }
        self.main.reset();
        if self.second.is_some() {
            let extra = self.consoles.iter().filter(|t| t.server == 1).count();
            self.second = None;
            let s = self.ensure_second();
            for _ in 1..extra {
                s.open_console();
            }
        }
    }

    pub fn replication(&self) -> ReplicationSnapshot {
        let mut servers = vec![crate::introspect::replication_side(&self.main.engine)];
        if let Some(s) = self.second.as_ref() {
            servers.push(crate::introspect::replication_side(&s.engine));
        }
        ReplicationSnapshot { servers, network: self.net.snapshot() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_735_732_800_000;

    fn text(s: &mut Servers, console: usize, line: &str) -> String {
        String::from_utf8_lossy(&s.run_line_on(console, line.as_bytes()).text).trim_end().to_string()
    }

    /// As the page builds it (pushes shown, the propagation stream traced).
    fn page() -> Servers {
        let mut s = Servers::new(EngineOptions { seed: 1, start_ms: T0 });
        s.set_show_pushes(true);
        s.set_propagation_trace(true);
        s
    }

    #[test]
    fn a_console_on_the_second_server_makes_it_a_replica_on_one_clock() {
        let mut s = page();
        assert_eq!(text(&mut s, 0, "SET a 1"), "OK");
        let r = s.open_console_on(1);
        assert_eq!(r, 1);
        assert_eq!(s.server_of(r), Some(1));
        assert_eq!(s.prompt_of(r), "127.0.0.1:6380> ");
        assert_eq!(s.prompt_of(0), "127.0.0.1:6379> ");
        assert_eq!(text(&mut s, r, "REPLICAOF 127.0.0.1 6379"), "OK");
        assert_eq!(text(&mut s, 0, "CLOCK ADVANCE 6000"), format!("(integer) {}", T0 + 6000));
        assert_eq!(s.second().map(|x| x.engine.now_ms()), Some(T0 + 6000), "one clock");
        assert_eq!(text(&mut s, r, "GET a"), "\"1\"");
        assert_eq!(text(&mut s, r, "DBSIZE"), "(integer) 1");
        // The page's loop: advance_to moves both.
        let adv = s.advance_to(T0 + 7000, 10_000);
        assert_eq!(adv.lag_ms, 0);
        assert_eq!(s.second().map(|x| x.engine.now_ms()), Some(T0 + 7000));
        assert_eq!(text(&mut s, 0, "SET b 2"), "OK");
        assert_eq!(text(&mut s, r, "GET b"), "\"2\"");
        let snap = s.replication();
        assert_eq!(snap.servers[1].role, "slave");
        assert_eq!(snap.servers[1].link, Some("connected"));
        // A reset: both servers fresh, the replica console still on the second.
        s.reset();
        assert_eq!(s.prompt_of(r), "127.0.0.1:6380> ");
        assert_eq!(text(&mut s, r, "DBSIZE"), "(integer) 0");
        assert_eq!(text(&mut s, r, "ROLE").lines().next(), Some("1) \"master\""));
    }
}
