//! Connections without sockets: RESP requests in, RESP replies out, many commands per call —
//! what an in-process client (the JS `Redis` class over `src/wasm.rs`'s `RespServer`) talks to.
//!
//! Each connection is an engine client (its own db, MULTI state, subscriptions, RESP version)
//! with a query buffer parsed as networking.c does (`query.rs`, the parser `redisplay serve`
//! uses) and an output buffer. Serving follows the server's event loop (`server.rs`
//! `run_clients()` / `run_command()`):
//! - a connection's commands run in order; a command that blocks (BLPOP, a client pause) keeps
//!   the rest of its input unparsed until it is served or times out, its reply arriving later;
//! - what reaches a client outside its own command (Pub/Sub messages, invalidations, a late
//!   blocked reply) comes from its outbox, before and after its replies as the server writes it;
//! - a protocol error replies `-ERR Protocol error: …` and closes the connection
//!   (`setProtocolError()`); so do QUIT (after its `+OK`) and CLIENT KILL;
//! - after each batch, `beforeSleep()` runs (blocked clients' timeouts, the fast expire cycle),
//!   and clients it unblocked run their waiting input.
//!
//! Deviation: no client-output-buffer-limit (a subscriber's unread output is the host's to take).

use std::collections::BTreeMap;

use super::query::{Parsed, QueryBuffer};
use crate::engine::{ClientId, Engine};

/// A connection's number (not its CLIENT ID).
pub type ConnId = u32;

#[derive(Debug, Default)]
struct Conn {
    client: ClientId,
    query: QueryBuffer,
    out: Vec<u8>,
    closed: bool,
}

/// The connections of one engine.
#[derive(Debug, Default)]
pub struct Connections {
    conns: BTreeMap<ConnId, Conn>,
    next: ConnId,
}

impl Connections {
    pub fn new() -> Connections {
        Connections::default()
    }

    /// A new client of the engine (createClient()).
    pub fn open(&mut self, engine: &mut Engine) -> ConnId {
        let client = engine.connect();
        let id = self.next;
        self.next += 1;
        self.conns.insert(id, Conn { client, ..Conn::default() });
        id
    }

    /// The connection's CLIENT ID, if it is open.
    pub fn client_of(&self, id: ConnId) -> Option<ClientId> {
        self.conns.get(&id).filter(|c| !c.closed).map(|c| c.client)
    }

    /// Whether the connection is closed (QUIT, a protocol error, CLIENT KILL, `close`) or unknown.
    pub fn is_closed(&self, id: ConnId) -> bool {
        self.conns.get(&id).is_none_or(|c| c.closed)
    }

    /// The client leaves the engine; what it had not read is dropped.
    pub fn close(&mut self, engine: &mut Engine, id: ConnId) {
        if let Some(c) = self.conns.remove(&id) {
            if engine.client(c.client).is_some() {
                engine.disconnect(c.client);
            }
        }
    }

    /// Feeds `bytes` to connection `id`, runs what can run, and returns the output `id` has
    /// (its replies and pushes, encoded per its RESP version). A closed connection takes no
    /// input and returns what was left for it.
    pub fn call(&mut self, engine: &mut Engine, id: ConnId, bytes: &[u8]) -> Vec<u8> {
        if let Some(c) = self.conns.get_mut(&id) {
            if !c.closed {
                c.query.feed(bytes);
            }
        }
        self.serve(engine);
        self.take(engine, id)
    }

    /// What connection `id` received since it last read (Pub/Sub messages, a blocked command's
    /// reply and the replies of the commands that waited behind it).
    pub fn take(&mut self, engine: &mut Engine, id: ConnId) -> Vec<u8> {
        self.take_outbox(engine, id);
        let Some(c) = self.conns.get_mut(&id) else { return Vec::new() };
        let out = std::mem::take(&mut c.out);
        if c.closed {
            // Closed and read: nothing more will come.
            self.conns.remove(&id);
        }
        out
    }

    /// The open or unread connections that have output waiting.
    pub fn pending(&mut self, engine: &mut Engine) -> Vec<ConnId> {
        let ids: Vec<ConnId> = self.conns.keys().copied().collect();
        for &id in &ids {
            self.take_outbox(engine, id);
        }
        self.conns.iter().filter(|(_, c)| !c.out.is_empty()).map(|(&id, _)| id).collect()
    }

    /// Runs beforeSleep() and every client that has input and may run, until nothing moves:
    /// after the clock moved (blocked clients time out) or another connection's commands.
    pub fn serve(&mut self, engine: &mut Engine) {
        loop {
            let mut progressed = false;
            let ids: Vec<ConnId> = self.conns.keys().copied().collect();
            for id in ids {
                progressed |= self.run_conn(engine, id);
            }
            let blocked = self.blocked(engine);
            engine.before_sleep();
            self.collect(engine);
            // Go on while commands ran or beforeSleep served someone (a timeout), and input waits.
            let runnable = self.conns.values().any(|c| {
                !c.closed && !c.query.is_empty() && !engine.is_blocked(c.client) && engine.client(c.client).is_some()
            });
            if !runnable || (!progressed && self.blocked(engine) == blocked) {
                return;
            }
        }
    }

    fn blocked(&self, engine: &Engine) -> usize {
        self.conns.values().filter(|c| engine.is_blocked(c.client)).count()
    }

    /// Every outbox into its output; clients gone from the engine (CLIENT KILL) closed.
    fn collect(&mut self, engine: &mut Engine) {
        let ids: Vec<ConnId> = self.conns.keys().copied().collect();
        for id in ids {
            self.take_outbox(engine, id);
            if let Some(c) = self.conns.get_mut(&id) {
                if engine.client(c.client).is_none() {
                    c.closed = true;
                }
            }
        }
    }

    /// processInputBuffer(): the connection's complete commands, in order, until it blocks.
    fn run_conn(&mut self, engine: &mut Engine, id: ConnId) -> bool {
        let mut progressed = false;
        loop {
            let Some(c) = self.conns.get_mut(&id) else { return progressed };
            let client = c.client;
            if c.closed || engine.is_blocked(client) || engine.client(client).is_none() {
                return progressed;
            }
            c.query.auth_required = engine.auth_required(client);
            c.query.max_bulk_len = engine.hot.proto_max_bulk_len;
            match c.query.next_request() {
                Parsed::Incomplete => return progressed,
                Parsed::Nothing => progressed = true,
                Parsed::Error(msg) => {
                    c.out.extend_from_slice(b"-ERR ");
                    c.out.extend_from_slice(msg.as_bytes());
                    c.out.extend_from_slice(b"\r\n");
                    c.closed = true;
                    c.query = QueryBuffer::new();
                    engine.disconnect(client);
                    return true;
                }
                Parsed::Command(argv) => {
                    progressed = true;
                    self.run_command(engine, id, client, &argv);
                }
            }
        }
    }

    /// server.rs `run_command()`: what arrived before, the reply (unless it waits or CLIENT
    /// REPLY drops it), what arrived after; QUIT closes.
    fn run_command(&mut self, engine: &mut Engine, id: ConnId, client: ClientId, argv: &[Vec<u8>]) {
        self.take_outbox(engine, id);
        let reply = engine.execute(client, argv);
        let quit = argv[0].eq_ignore_ascii_case(b"quit");
        let proto = engine.client(client).map_or(2, |c| c.resp);
        let before = engine.take_outbox_before_reply(client);
        let send = !engine.is_blocked(client) && !engine.reply_dropped(client);
        if let Some(c) = self.conns.get_mut(&id) {
            for r in &before {
                r.encode(proto, &mut c.out);
            }
            if send {
                reply.encode(proto, &mut c.out);
            }
        }
        self.take_outbox(engine, id);
        if quit || engine.client(client).is_none() {
            if let Some(c) = self.conns.get_mut(&id) {
                c.closed = true;
                c.query = QueryBuffer::new();
            }
            if engine.client(client).is_some() {
                engine.disconnect(client);
            }
        }
    }

    fn take_outbox(&mut self, engine: &mut Engine, id: ConnId) {
        let Some(c) = self.conns.get_mut(&id) else { return };
        let replies = engine.take_outbox(c.client);
        if replies.is_empty() {
            return;
        }
        let proto = engine.client(c.client).map_or(2, |cl| cl.resp);
        for r in &replies {
            r.encode(proto, &mut c.out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineOptions;

    fn resp(words: &[&str]) -> Vec<u8> {
        let mut out = format!("*{}\r\n", words.len()).into_bytes();
        for w in words {
            out.extend_from_slice(format!("${}\r\n{w}\r\n", w.len()).as_bytes());
        }
        out
    }

    fn setup() -> (Engine, Connections) {
        (Engine::new(EngineOptions { seed: 1, start_ms: 1_700_000_000_000 }), Connections::new())
    }

    #[test]
    fn a_batch_of_commands_gives_their_replies_in_order() {
        let (mut e, mut cs) = setup();
        let a = cs.open(&mut e);
        let mut req = resp(&["SET", "k", "v"]);
        req.extend(resp(&["GET", "k"]));
        req.extend(resp(&["INCR", "k"]));
        req.extend(b"PING\r\n");
        let out = cs.call(&mut e, a, &req);
        assert_eq!(out, b"+OK\r\n$1\r\nv\r\n-ERR value is not an integer or out of range\r\n+PONG\r\n".to_vec());
    }

    #[test]
    fn a_blocked_command_holds_the_rest_until_served_or_timed_out() {
        let (mut e, mut cs) = setup();
        let a = cs.open(&mut e);
        let b = cs.open(&mut e);
        let mut req = resp(&["BLPOP", "q", "1"]);
        req.extend(resp(&["PING"]));
        assert_eq!(cs.call(&mut e, a, &req), b"");
        assert_eq!(cs.call(&mut e, b, &resp(&["LPUSH", "q", "x"])), b":1\r\n");
        assert_eq!(cs.pending(&mut e), vec![a]);
        assert_eq!(cs.take(&mut e, a), b"*2\r\n$1\r\nq\r\n$1\r\nx\r\n+PONG\r\n".to_vec());
        // Timed out by the clock; what waited behind it runs then.
        let mut req = resp(&["BLPOP", "q", "1"]);
        req.extend(resp(&["ECHO", "next"]));
        assert_eq!(cs.call(&mut e, a, &req), b"");
        let now = e.now_ms();
        e.advance_to(now + 1000, u64::MAX);
        cs.serve(&mut e);
        assert_eq!(cs.take(&mut e, a), b"");
        e.advance_to(now + 1001, u64::MAX);
        cs.serve(&mut e);
        assert_eq!(cs.take(&mut e, a), b"*-1\r\n$4\r\nnext\r\n".to_vec());
    }

    #[test]
    fn a_protocol_error_replies_and_closes() {
        let (mut e, mut cs) = setup();
        let a = cs.open(&mut e);
        let mut req = resp(&["PING"]);
        req.extend(b"*1\r\nfoo\r\n");
        req.extend(resp(&["PING"]));
        assert_eq!(cs.call(&mut e, a, &req), b"+PONG\r\n-ERR Protocol error: expected '$', got 'f'\r\n".to_vec());
        assert!(cs.is_closed(a));
        assert_eq!(cs.call(&mut e, a, &resp(&["PING"])), b"");
    }

    #[test]
    fn quit_and_client_kill_close() {
        let (mut e, mut cs) = setup();
        let a = cs.open(&mut e);
        let b = cs.open(&mut e);
        let id = cs.client_of(b).unwrap();
        let kill = resp(&["CLIENT", "KILL", "ID", &id.to_string()]);
        assert_eq!(cs.call(&mut e, a, &kill), b":1\r\n");
        assert!(cs.is_closed(b));
        let mut req = resp(&["QUIT"]);
        req.extend(resp(&["PING"]));
        assert_eq!(cs.call(&mut e, a, &req), b"+OK\r\n");
        assert!(cs.is_closed(a));
    }
}
