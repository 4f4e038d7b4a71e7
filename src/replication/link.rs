//! The network between two engines in one process (the page's master on port 6379 and its
//! second server on 6380): what carries a replica's connection to its master when no sockets
//! exist. It plays the host's part of the replica-side API (`repl_link_wanted`,
//! `repl_link_connected`, `repl_link_input`, `repl_link_take_output`, `repl_link_closed`,
//! see mod.rs) and serves the master side as a connection of `net::batch` (the replica's PING,
//! REPLCONF and PSYNC run there as any client's commands; the RDB and the command stream come
//! out of that connection's output), with every chunk of bytes in flight for `latency_ms` of
//! virtual time, one way.
//!
//! `redisplay serve` joins engines over TCP instead (net/server.rs); tests/replication.rs's
//! `Pair` pumps the same API with no latency.
//!
//! Differences from a real network: a connection opens at once (no SYN round trip), and a cut
//! (`set_down(true)`) is seen by both ends at once, as a reset connection is — a real partition
//! is noticed only when `repl-timeout` passes without data. While the link is down a
//! replica's connection attempts are refused. What was in flight when the link was cut is lost.
//! Only a master on one of the two ports can be reached: `REPLICAOF` another address retries
//! (and is refused) forever, as it would against a port nothing listens on.

use std::collections::VecDeque;

use crate::engine::Engine;
use crate::net::batch::{ConnId, Connections};

/// The two servers' ports: index 0 is the page's first server, 1 its second.
pub const PORTS: [u16; 2] = [6379, 6380];

/// Chunks the view's history keeps once they arrived (or were lost).
const HISTORY: usize = 200;
/// Notes kept (connections, cuts, refusals).
const NOTES: usize = 100;
/// Commands summarised per chunk; the rest are counted.
const ITEMS_PER_CHUNK: usize = 12;
/// Rounds of moving bytes in one `pump` (a zero-latency handshake takes a handful).
const MAX_ROUNDS: usize = 64;

/// Which way a chunk goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    ToReplica,
    ToMaster,
}

/// What became of a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fate {
    InFlight,
    Delivered,
    /// The link was cut, or the connection closed, while it was on the way.
    Lost,
}

/// One chunk of bytes written at once by one end, as the view shows it.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Chunk {
    pub id: u64,
    pub direction: Direction,
    /// The engine that reads it (0 or 1).
    pub to: usize,
    pub sent_ms: i64,
    pub deliver_ms: i64,
    pub bytes: usize,
    /// What it carries: commands as `SET k v PXAT 1735…`, replies, `RDB payload (N bytes)`.
    pub items: Vec<String>,
    /// Items beyond those in `items`.
    pub more: usize,
    pub fate: Fate,
}

/// Something that happened to a connection.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkNote {
    pub ms: i64,
    pub text: String,
}

#[derive(Debug)]
struct Flight {
    chunk: Chunk,
    data: Vec<u8>,
}

/// One replica's connection: engine `replica` to engine `1 - replica`, whose side of it is
/// connection `conn` of `conns[1 - replica]`.
#[derive(Debug)]
struct Connection {
    replica: usize,
    conn: ConnId,
}

/// What the view reads: the link's settings, the chunks on the wire and the last ones that
/// arrived, the notes.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkSnapshot {
    pub latency_ms: i64,
    pub down: bool,
    /// Open connections as (replica engine, master engine).
    pub connections: Vec<(usize, usize)>,
    /// Newest last: what is on the way, then (before it) what arrived or was lost.
    pub chunks: Vec<Chunk>,
    pub notes: Vec<LinkNote>,
    pub bytes_to_replica: u64,
    pub bytes_to_master: u64,
}

/// The network of the page's two servers. Engines are passed in on every call (they live in
/// their sessions); index 0 listens on `PORTS[0]`, 1 on `PORTS[1]`.
#[derive(Debug, Default)]
pub struct Network {
    latency_ms: i64,
    down: bool,
    conns: [Connections; 2],
    open: Vec<Connection>,
    flights: VecDeque<Flight>,
    history: VecDeque<Chunk>,
    notes: VecDeque<LinkNote>,
    next_chunk: u64,
    bytes_to_replica: u64,
    bytes_to_master: u64,
}

impl Network {
    pub fn new() -> Network {
        Network::default()
    }

    pub fn latency_ms(&self) -> i64 {
        self.latency_ms
    }

    /// One-way delay of every chunk from now on (0 ..= 1 hour; chunks on the way keep theirs).
    pub fn set_latency(&mut self, ms: i64) {
        self.latency_ms = ms.clamp(0, 3_600_000);
    }

    pub fn is_down(&self) -> bool {
        self.down
    }

    /// Cuts the link (every open connection closes at both ends, what is in flight is lost)
    /// or restores it (the replicas' next attempts connect). `engines` at the same time.
    pub fn set_down(&mut self, down: bool, engines: [&mut Engine; 2]) {
        let now = engines[0].now_ms();
        if !self.switch(down, now) || !down {
            return;
        }
        let mut es = engines;
        for c in std::mem::take(&mut self.open) {
            self.close_connection(c, &mut es, now, "cut");
        }
    }

    /// Flips the switch and notes it; whether it changed. (`set_down` also closes what is open.)
    pub fn switch(&mut self, down: bool, now: i64) -> bool {
        if down == self.down {
            return false;
        }
        self.down = down;
        let text = if down {
            "the link is cut: every connection between the servers closes at both ends"
        } else {
            "the link is back: a replica's next attempt connects"
        };
        self.note(now, text.into());
        true
    }

    /// The earliest time a chunk arrives, if any is on the way.
    pub fn next_delivery_ms(&self) -> Option<i64> {
        self.flights.iter().map(|f| f.chunk.deliver_ms).min()
    }

    /// Whether anything connects, waits on the wire or may still move.
    pub fn is_idle(&self) -> bool {
        self.open.is_empty() && self.flights.is_empty()
    }

    /// Forgets everything (both servers were reset or one went away).
    pub fn clear(&mut self, engines: [Option<&mut Engine>; 2]) {
        let [a, b] = engines;
        let mut es = [a, b];
        for c in std::mem::take(&mut self.open) {
            if let Some(m) = es[1 - c.replica].as_deref_mut() {
                self.conns[1 - c.replica].close(m, c.conn);
            }
        }
        let (latency, down) = (self.latency_ms, self.down);
        *self = Network::default();
        self.latency_ms = latency;
        self.down = down;
    }

    /// Moves what can move at the engines' current time (both must stand at the same `now`):
    /// connections the replicas ask for opened (or refused), connections an end dropped
    /// closed, what each end wrote sent, and what is due delivered — until nothing moves.
    pub fn pump(&mut self, engines: [&mut Engine; 2]) {
        let mut es = engines;
        let now = es[0].now_ms().max(es[1].now_ms());
        for _ in 0..MAX_ROUNDS {
            let mut moved = self.connect_and_close(&mut es, now);
            moved |= self.collect(&mut es, now);
            moved |= self.deliver(&mut es, now);
            if !moved {
                return;
            }
        }
    }

    fn connect_and_close(&mut self, es: &mut [&mut Engine; 2], now: i64) -> bool {
        let mut moved = false;
        // Connections an end let go of.
        let mut i = 0;
        while i < self.open.len() {
            let c = &self.open[i];
            let replica_gone = !es[c.replica].repl_link_active();
            let master_gone = self.conns[1 - c.replica].is_closed(c.conn);
            if replica_gone || master_gone {
                let c = self.open.remove(i);
                let why = if replica_gone { "replica-closed" } else { "master-closed" };
                self.close_connection(c, es, now, why);
                moved = true;
            } else {
                i += 1;
            }
        }
        // Connections asked for.
        for r in 0..2 {
            if self.open.iter().any(|c| c.replica == r) {
                continue;
            }
            let Some((host, port)) = es[r].repl_link_wanted() else { continue };
            moved = true;
            let local = matches!(host.as_str(), "127.0.0.1" | "localhost" | "::1");
            let m = 1 - r;
            if !local || port != PORTS[m] || self.down {
                let why =
                    if self.down && local && port == PORTS[m] { "the link is cut" } else { "nothing listens there" };
                self.note(now, format!("{}: connecting to {host}:{port} refused ({why})", name(r)));
                es[r].repl_link_closed();
                continue;
            }
            let conn = self.conns[m].open(es[m]);
            self.open.push(Connection { replica: r, conn });
            self.note(now, format!("{} connected to {}", name(r), name(m)));
            es[r].repl_link_connected();
        }
        moved
    }

    /// What each end wrote, onto the wire.
    fn collect(&mut self, es: &mut [&mut Engine; 2], now: i64) -> bool {
        let mut moved = false;
        for i in 0..self.open.len() {
            let (r, conn) = (self.open[i].replica, self.open[i].conn);
            let up = es[r].repl_link_take_output();
            if !up.is_empty() {
                self.send(Direction::ToMaster, 1 - r, up, now);
                moved = true;
            }
            let down = self.conns[1 - r].take(es[1 - r], conn);
            if !down.is_empty() {
                self.send(Direction::ToReplica, r, down, now);
                moved = true;
            }
        }
        moved
    }

    fn send(&mut self, direction: Direction, to: usize, data: Vec<u8>, now: i64) {
        let (items, more) = describe(&data, direction);
        self.next_chunk += 1;
        match direction {
            Direction::ToReplica => self.bytes_to_replica += data.len() as u64,
            Direction::ToMaster => self.bytes_to_master += data.len() as u64,
        }
        let chunk = Chunk {
            id: self.next_chunk,
            direction,
            to,
            sent_ms: now,
            deliver_ms: now.saturating_add(self.latency_ms),
            bytes: data.len(),
            items,
            more,
            fate: Fate::InFlight,
        };
        self.flights.push_back(Flight { chunk, data });
    }

    /// Chunks due by `now`, in the order they were sent.
    fn deliver(&mut self, es: &mut [&mut Engine; 2], now: i64) -> bool {
        let mut moved = false;
        while let Some(pos) = self.flights.iter().position(|f| f.chunk.deliver_ms <= now) {
            let Some(mut f) = self.flights.remove(pos) else { break };
            moved = true;
            let to = f.chunk.to;
            let conn = self.open.iter().find(|c| match f.chunk.direction {
                Direction::ToReplica => c.replica == to,
                Direction::ToMaster => c.replica == 1 - to,
            });
            let Some(conn) = conn.map(|c| c.conn) else {
                f.chunk.fate = Fate::Lost;
                self.remember(f.chunk);
                continue;
            };
            match f.chunk.direction {
                Direction::ToMaster => {
                    let out = self.conns[to].call(es[to], conn, &f.data);
                    if !out.is_empty() {
                        self.send(Direction::ToReplica, 1 - to, out, now);
                    }
                }
                Direction::ToReplica => {
                    es[to].repl_link_input(&f.data);
                    es[to].before_sleep();
                }
            }
            f.chunk.fate = Fate::Delivered;
            self.remember(f.chunk);
        }
        moved
    }

    fn close_connection(&mut self, c: Connection, es: &mut [&mut Engine; 2], now: i64, why: &str) {
        let (r, m) = (c.replica, 1 - c.replica);
        self.conns[m].close(es[m], c.conn);
        if es[r].repl_link_active() {
            es[r].repl_link_closed();
        }
        let lost: Vec<Flight> = {
            let (gone, kept): (VecDeque<Flight>, VecDeque<Flight>) =
                std::mem::take(&mut self.flights).into_iter().partition(|f| {
                    (f.chunk.direction == Direction::ToReplica && f.chunk.to == r)
                        || (f.chunk.direction == Direction::ToMaster && f.chunk.to == m)
                });
            self.flights = kept;
            gone.into_iter().collect()
        };
        for mut f in lost {
            f.chunk.fate = Fate::Lost;
            self.remember(f.chunk);
        }
        let text = match why {
            "cut" => format!("{}'s connection to {} closed by the cut", name(r), name(m)),
            "replica-closed" => format!("{} closed its connection to {}", name(r), name(m)),
            _ => format!("{} dropped its replica {}", name(m), name(r)),
        };
        self.note(now, text);
    }

    /// A server's log line among the notes (the page's two servers' serverLog).
    pub fn log_line(&mut self, ms: i64, text: String) {
        self.note(ms, text);
    }

    fn remember(&mut self, chunk: Chunk) {
        if self.history.len() >= HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(chunk);
    }

    fn note(&mut self, ms: i64, text: String) {
        if self.notes.len() >= NOTES {
            self.notes.pop_front();
        }
        self.notes.push_back(LinkNote { ms, text });
    }

    pub fn snapshot(&self) -> NetworkSnapshot {
        NetworkSnapshot {
            latency_ms: self.latency_ms,
            down: self.down,
            connections: self.open.iter().map(|c| (c.replica, 1 - c.replica)).collect(),
            chunks: self.history.iter().cloned().chain(self.flights.iter().map(|f| f.chunk.clone())).collect(),
            notes: self.notes.iter().cloned().collect(),
            bytes_to_replica: self.bytes_to_replica,
            bytes_to_master: self.bytes_to_master,
        }
    }
}

fn name(engine: usize) -> String {
    format!("127.0.0.1:{}", PORTS[engine])
}

/// A chunk's contents for people: each RESP command as its words (`SELECT 0`, `DEL k`), each
/// status or error line as itself, an RDB payload (`$<len>` then binary, or `$EOF:<mark>`) by
/// its size, the lone newlines a master sends while it prepares an RDB as "(keep-alive)".
/// Never fails: what does not parse is shown by its size.
pub fn describe(data: &[u8], direction: Direction) -> (Vec<String>, usize) {
    let mut items = Vec::new();
    let mut count = 0usize;
    let mut rest = data;
    let mut push = |s: String, items: &mut Vec<String>| {
        count += 1;
        if items.len() < ITEMS_PER_CHUNK {
            items.push(s);
        }
    };
    while !rest.is_empty() {
        match rest[0] {
            b'\n' => {
                push("(keep-alive newline)".into(), &mut items);
                rest = &rest[1..];
            }
            // The replica's own stream parser; at most proto-max-bulk-len's default per bulk.
            b'*' => match super::parse_frame(rest, 512 * 1024 * 1024) {
                super::Frame::Command(argv, used) => {
                    push(command_words(&argv), &mut items);
                    rest = &rest[used..];
                }
                _ => {
                    push(format!("({} bytes)", rest.len()), &mut items);
                    break;
                }
            },
            b'$' if direction == Direction::ToReplica => {
                let Some(nl) = rest.iter().position(|&b| b == b'\n') else {
                    push(format!("({} bytes)", rest.len()), &mut items);
                    break;
                };
                let header = String::from_utf8_lossy(&rest[1..nl]).trim_end().to_string();
                if let Some(_mark) = header.strip_prefix("EOF:") {
                    // Diskless: the payload runs to the end of what was sent with it.
                    push(format!("RDB payload ({} bytes, diskless)", rest.len() - nl - 1), &mut items);
                    break;
                }
                let len: usize = header.parse().unwrap_or(usize::MAX);
                let body = rest.len() - nl - 1;
                if len <= body {
                    push(format!("RDB payload ({len} bytes)"), &mut items);
                    rest = &rest[nl + 1 + len..];
                } else {
                    push(format!("RDB payload ({body} bytes)"), &mut items);
                    break;
                }
            }
            b'+' | b'-' | b':' | b'$' => {
                let end = rest.iter().position(|&b| b == b'\n').map_or(rest.len(), |p| p + 1);
                push(String::from_utf8_lossy(&rest[..end]).trim_end().to_string(), &mut items);
                rest = &rest[end..];
            }
            _ => {
                push(format!("({} bytes)", rest.len()), &mut items);
                break;
            }
        }
    }
    let more = count - items.len();
    (items, more)
}

/// A command's words joined by spaces (quoted as redis-cli quotes what is not printable), the
/// first 8 and then `…`.
fn command_words(argv: &[Vec<u8>]) -> String {
    let mut words: Vec<String> = argv.iter().take(8).map(|w| show_word(w)).collect();
    if argv.len() > 8 {
        words.push("…".to_string());
    }
    words.join(" ")
}

fn show_word(w: &[u8]) -> String {
    const MAX: usize = 40;
    let plain = w.iter().all(|&b| b.is_ascii_graphic()) && !w.is_empty();
    let mut s = if plain {
        String::from_utf8_lossy(&w[..w.len().min(MAX)]).into_owned()
    } else {
        let mut q = String::from("\"");
        for &b in w.iter().take(MAX) {
            match b {
                b'"' => q.push_str("\\\""),
                b'\\' => q.push_str("\\\\"),
                b'\n' => q.push_str("\\n"),
                b'\r' => q.push_str("\\r"),
                b'\t' => q.push_str("\\t"),
                0x20..=0x7e => q.push(b as char),
                _ => q.push_str(&format!("\\x{b:02x}")),
            }
        }
        q.push('"');
        q
    };
    if w.len() > MAX {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineOptions;

    const T0: i64 = 1_735_732_800_000;

    fn argv(line: &str) -> Vec<Vec<u8>> {
        line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
    }

    struct World {
        e: [Engine; 2],
        c: [crate::engine::ClientId; 2],
        net: Network,
    }

    impl World {
        fn new() -> World {
            let mut a = Engine::new(EngineOptions { seed: 1, start_ms: T0 });
            let mut b = Engine::new(EngineOptions { seed: 2, start_ms: T0 });
            b.tcp_port = 6380;
            let c = [a.connect(), b.connect()];
            World { e: [a, b], c, net: Network::new() }
        }
        fn run(&mut self, i: usize, line: &str) -> crate::reply::Reply {
            let r = self.e[i].execute(self.c[i], &argv(line));
            self.e[i].before_sleep();
            self.pump();
            r
        }
        fn pump(&mut self) {
            let [a, b] = &mut self.e;
            self.net.pump([a, b]);
        }
        /// Both clocks to `t`, stopping at each delivery and cron tick on the way.
        fn advance(&mut self, t: i64) {
            loop {
                let now = self.now();
                let next =
                    [self.net.next_delivery_ms().unwrap_or(t), self.e[0].next_cron_ms(), self.e[1].next_cron_ms()]
                        .into_iter()
                        .filter(|&d| d > now)
                        .fold(t, i64::min);
                for e in self.e.iter_mut() {
                    e.advance_to(next, u64::MAX);
                }
                self.pump();
                if next >= t {
                    return;
                }
            }
        }
        fn now(&self) -> i64 {
            self.e[0].now_ms()
        }
        fn cut(&mut self, down: bool) {
            let [a, b] = &mut self.e;
            self.net.set_down(down, [a, b]);
        }
    }

    fn bulk(r: crate::reply::Reply) -> Option<Vec<u8>> {
        match r {
            crate::reply::Reply::Bulk(b) => Some(b),
            _ => None,
        }
    }

    #[test]
    fn a_replica_syncs_and_follows_through_the_link_with_its_latency() {
        let mut w = World::new();
        w.net.set_latency(50);
        w.run(0, "CONFIG SET repl-diskless-sync-delay 0");
        w.run(0, "SET a 1");
        w.run(1, "REPLICAOF 127.0.0.1 6379");
        let t = w.now();
        w.advance(t + 2_000);
        assert_eq!(bulk(w.run(1, "GET a")), Some(b"1".to_vec()), "the full sync brought a");
        w.run(0, "SET b 2");
        let sent = w.net.snapshot();
        let flight = sent.chunks.iter().find(|c| c.fate == Fate::InFlight && c.items.iter().any(|i| i == "SET b 2"));
        let flight = flight.expect("SET b 2 is on the wire");
        assert_eq!(flight.deliver_ms - flight.sent_ms, 50);
        assert_eq!(w.run(1, "GET b"), crate::reply::Reply::Nil, "not there before the latency passed");
        let t = w.now();
        w.advance(t + 49);
        assert_eq!(w.run(1, "GET b"), crate::reply::Reply::Nil);
        w.advance(t + 50);
        assert_eq!(bulk(w.run(1, "GET b")), Some(b"2".to_vec()));
    }

    #[test]
    fn a_cut_loses_what_was_in_flight_and_the_replica_continues_from_the_backlog() {
        let mut w = World::new();
        w.net.set_latency(10);
        w.run(0, "CONFIG SET repl-diskless-sync-delay 0");
        w.run(1, "REPLICAOF 127.0.0.1 6379");
        let t = w.now();
        w.advance(t + 2_000);
        w.run(0, "SET x 1");
        w.cut(true);
        let snap = w.net.snapshot();
        assert!(snap.chunks.iter().any(|c| c.fate == Fate::Lost && c.items.iter().any(|i| i == "SET x 1")));
        assert!(snap.connections.is_empty());
        w.run(0, "SET y 2");
        let t = w.now();
        w.advance(t + 3_000);
        assert_eq!(w.run(1, "GET x"), crate::reply::Reply::Nil, "cut off: nothing arrives");
        w.cut(false);
        let t = w.now();
        w.advance(t + 3_000);
        assert_eq!(bulk(w.run(1, "GET x")), Some(b"1".to_vec()));
        assert_eq!(bulk(w.run(1, "GET y")), Some(b"2".to_vec()));
        let text = w.net.snapshot().chunks.iter().flat_map(|c| c.items.clone()).collect::<Vec<_>>().join("\n");
        assert!(text.contains("+CONTINUE"), "a partial resync: {text}");
        assert!(
            !text.contains("+FULLRESYNC") || text.matches("+FULLRESYNC").count() == 1,
            "one full sync only: {text}"
        );
    }

    #[test]
    fn a_master_elsewhere_is_refused() {
        let mut w = World::new();
        w.run(1, "REPLICAOF 10.0.0.9 6379");
        let t = w.now();
        w.advance(t + 1_500);
        assert!(w.net.snapshot().connections.is_empty());
        assert!(w.net.snapshot().notes.iter().any(|n| n.text.contains("refused (nothing listens there)")));
    }

    #[test]
    fn describe_never_fails() {
        let (items, more) = describe(b"*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n\n+OK\r\n", Direction::ToReplica);
        assert_eq!(items, vec!["DEL k", "(keep-alive newline)", "+OK"]);
        assert_eq!(more, 0);
        let (items, _) = describe(b"$5\r\nREDIS*1\r\n$4\r\nPING\r\n", Direction::ToReplica);
        assert_eq!(items, vec!["RDB payload (5 bytes)", "PING"]);
        for junk in [&b"*9999999999999\r\n"[..], b"*2\r\n$99\r\nab", b"$", b"\x00\xff", b"*1\r\n$-5\r\n"] {
            let (items, _) = describe(junk, Direction::ToReplica);
            assert!(!items.is_empty());
        }
        let (items, _) = describe(b"*1\r\n$3\r\n\x01\"\n\r\n", Direction::ToMaster);
        assert_eq!(items, vec!["\"\\x01\\\"\\n\""]);
    }
}
