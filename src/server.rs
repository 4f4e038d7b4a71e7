//! `redisplay serve`: the engine as a Redis server on a TCP port — RESP2 and RESP3 for
//! redis-cli, redis-benchmark and client libraries (networking.c, ae.c's event loop).
//!
//! A thin adapter, the only part of the crate that touches sockets or the wall clock:
//! - One thread owns the `Engine` (single-threaded, as Redis's main thread). Each connection
//!   has a reader thread that only moves bytes from the socket into the engine thread's
//!   channel, and a writer thread that only moves encoded replies to the socket.
//! - The engine thread keeps each client's query buffer (`src/query.rs`), parses and runs one
//!   command at a time at the current time, and encodes every reply for the client's protocol
//!   (`Reply::encode`, 2 or 3 after HELLO 3). Replies that arrive without a command — Pub/Sub
//!   messages, a blocked pop served by another client's push — come from the engine's outbox
//!   and are written in the order Redis would write them (before the client's next reply).
//! - As in Redis, a blocked client's further input waits in its query buffer until it is
//!   served; a protocol error is answered `-ERR Protocol error: …` and the connection closed;
//!   QUIT answers +OK and closes; a killed client is closed.
//! - Time: the engine's clock follows the wall clock (serverCron runs at `hz` between
//!   commands) unless `--time` pins it; CLOCK SET/ADVANCE move it either way (under the wall
//!   clock the difference is kept as an offset).
//!
//! Limits, as Redis's defaults: proto-max-bulk-len and the 64 KB inline / count lines (in the
//! parser); client-query-buffer-limit (1 GB) closes a client without a reply; a Pub/Sub client
//! whose unread output passes 32 MB is closed (client-output-buffer-limit pubsub 32mb). A
//! normal client's unread output pauses its command processing at 64 MB until the socket
//! drains (Redis has no limit for normal clients; we stop reading instead of growing without
//! bound). maxclients (10000) refuses further connections with Redis's error.
//!
//! Deviations: no TLS, no unix sockets, no CLIENT TRACKING (RESP3 push messages are used for
//! Pub/Sub only); the playground's memory model, not the process's, answers INFO memory.

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::engine::{ClientId, Engine, EngineOptions};
use crate::query::{Parsed, QueryBuffer};

/// How a server is started (`redisplay serve` options).
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub bind: String,
    /// 0 picks a free port (tests).
    pub port: u16,
    pub seed: u64,
    /// Pin the clock at this Unix time in ms instead of following the wall clock.
    pub time: Option<i64>,
    /// requirepass at start (required when binding beyond loopback).
    pub requirepass: Option<String>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions { bind: "127.0.0.1".into(), port: 6379, seed: 0, time: None, requirepass: None }
    }
}

/// Whether `bind` is a loopback address (anything else needs a password).
pub fn is_loopback(bind: &str) -> bool {
    bind == "localhost" || bind.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// A running server: its address, and a way to stop it.
pub struct Server {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    engine_thread: Option<thread::JoinHandle<()>>,
    accept_thread: Option<thread::JoinHandle<()>>,
}

impl Server {
    /// Binds and starts serving in background threads.
    pub fn start(opts: ServeOptions) -> std::io::Result<Server> {
        if !is_loopback(&opts.bind) && opts.requirepass.as_deref().unwrap_or("").is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("binding to {} (beyond loopback) needs --requirepass", opts.bind),
            ));
        }
        let listener = TcpListener::bind((opts.bind.as_str(), opts.port))?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = sync_channel::<Msg>(1024);
        let engine_stop = stop.clone();
        // The engine (with its Lua VM) is not Send: it is made on the thread that owns it.
        let engine_thread = thread::Builder::new()
            .name("redisplay-engine".into())
            .spawn(move || EventLoop::new(new_engine(&opts), opts.time.is_some()).run(rx, engine_stop))?;
        let accept_stop = stop.clone();
        let accept_thread = thread::Builder::new().name("redisplay-accept".into()).spawn(move || accept_loop(listener, tx, accept_stop))?;
        Ok(Server { addr, stop, engine_thread: Some(engine_thread), accept_thread: Some(accept_thread) })
    }

    /// Blocks until the server stops (it runs until the process ends or `stop()`).
    pub fn wait(mut self) {
        if let Some(t) = self.engine_thread.take() {
            let _ = t.join();
        }
    }

    /// Stops accepting, closes every connection, ends the threads.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept() call.
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.accept_thread.take() {
            let _ = t.join();
        }
        if let Some(t) = self.engine_thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.engine_thread.is_some() || self.accept_thread.is_some() {
            self.stop();
        }
    }
}

fn new_engine(opts: &ServeOptions) -> Engine {
    let start_ms = opts.time.unwrap_or_else(wall_ms);
    let mut engine = Engine::new(EngineOptions { seed: opts.seed, start_ms });
    // Nobody draws the event log here: don't keep one.
    engine.set_event_recording(false);
    if let Some(pass) = opts.requirepass.as_deref().filter(|p| !p.is_empty()) {
        // Set directly: no client (a fresh server's first connection gets the first id).
        let _ = engine.config.set(&[(b"requirepass".to_vec(), pass.as_bytes().to_vec())]);
    }
    engine
}

fn wall_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

// ---------------------------------------------------------------------------------------------
// Threads around the engine
// ---------------------------------------------------------------------------------------------

type ConnId = u64;

enum Msg {
    Open { conn: ConnId, out: Sender<Out>, pending_out: Arc<AtomicUsize>, peer: SocketAddr, local: SocketAddr },
    Bytes { conn: ConnId, data: Vec<u8> },
    Closed { conn: ConnId },
}

enum Out {
    Data(Vec<u8>),
    /// Write what came before, then close the connection.
    Close,
}

/// Bytes read per read() call (networking.c PROTO_IOBUF_LEN).
const PROTO_IOBUF_LEN: usize = 16 * 1024;
/// Unread output above which a normal client's commands wait for the socket to drain.
const OUTPUT_PAUSE_BYTES: usize = 64 * 1024 * 1024;
/// client-output-buffer-limit pubsub 32mb (hard limit).
const PUBSUB_OUTPUT_LIMIT: usize = 32 * 1024 * 1024;

fn accept_loop(listener: TcpListener, tx: SyncSender<Msg>, stop: Arc<AtomicBool>) {
    let mut next: ConnId = 1;
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        let conn = next;
        next += 1;
        if spawn_connection(conn, stream, tx.clone()).is_err() {
            continue;
        }
    }
}

fn spawn_connection(conn: ConnId, stream: TcpStream, tx: SyncSender<Msg>) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let peer = stream.peer_addr()?;
    let local = stream.local_addr()?;
    let mut reader = stream.try_clone()?;
    let mut writer = stream;
    let (out_tx, out_rx) = channel::<Out>();
    let pending_out = Arc::new(AtomicUsize::new(0));
    if tx.send(Msg::Open { conn, out: out_tx, pending_out: pending_out.clone(), peer, local }).is_err() {
        return Ok(());
    }
    thread::Builder::new().name(format!("redisplay-w{conn}")).spawn(move || write_loop(&mut writer, out_rx, pending_out))?;
    thread::Builder::new().name(format!("redisplay-r{conn}")).spawn(move || {
        let mut buf = vec![0u8; PROTO_IOBUF_LEN];
        loop {
            match reader.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(Msg::Bytes { conn, data: buf[..n].to_vec() }).is_err() {
                        break;
                    }
                }
            }
        }
        let _ = tx.send(Msg::Closed { conn });
    })?;
    Ok(())
}

fn write_loop(stream: &mut TcpStream, rx: Receiver<Out>, pending: Arc<AtomicUsize>) {
    let mut batch = Vec::new();
    while let Ok(first) = rx.recv() {
        let mut close = false;
        let mut next = Some(first);
        // Everything already queued goes out in one write.
        while let Some(out) = next.take() {
            match out {
                Out::Data(d) => batch.extend_from_slice(&d),
                Out::Close => {
                    close = true;
                    break;
                }
            }
            if batch.len() < 1 << 20 {
                next = rx.try_recv().ok();
            }
        }
        let n = batch.len();
        let ok = stream.write_all(&batch).is_ok();
        pending.fetch_sub(n.min(pending.load(Ordering::SeqCst)), Ordering::SeqCst);
        batch.clear();
        if !ok || close {
            break;
        }
    }
    let _ = stream.flush();
    let _ = stream.shutdown(Shutdown::Both);
}

// ---------------------------------------------------------------------------------------------
// The event loop (ae.c aeMain + networking.c readQueryFromClient/processInputBuffer)
// ---------------------------------------------------------------------------------------------

struct Conn {
    client: ClientId,
    out: Sender<Out>,
    pending_out: Arc<AtomicUsize>,
    query: QueryBuffer,
    /// New bytes arrived (or the client was unblocked) since its buffer last ran dry.
    runnable: bool,
    closing: bool,
}

struct EventLoop {
    engine: Engine,
    conns: BTreeMap<ConnId, Conn>,
    by_client: HashMap<ClientId, ConnId>,
    /// The clock is pinned (`--time`): only CLOCK commands move it.
    pinned: bool,
    /// Engine time minus wall time, changed by CLOCK SET / ADVANCE under the wall clock.
    offset_ms: i64,
}

impl EventLoop {
    fn new(engine: Engine, pinned: bool) -> EventLoop {
        let offset_ms = if pinned { 0 } else { engine.now_ms() - wall_ms() };
        EventLoop { engine, conns: BTreeMap::new(), by_client: HashMap::new(), pinned, offset_ms }
    }

    fn run(mut self, rx: Receiver<Msg>, stop: Arc<AtomicBool>) {
        loop {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            let wait = self.wait_ms();
            match rx.recv_timeout(Duration::from_millis(wait)) {
                Ok(msg) => {
                    self.handle(msg);
                    // Whatever else has arrived is handled in the same iteration.
                    for _ in 0..256 {
                        match rx.try_recv() {
                            Ok(msg) => self.handle(msg),
                            Err(_) => break,
                        }
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            self.tick_clock();
            self.run_clients();
            self.engine.before_sleep();
            self.flush_all();
        }
        for (_, c) in std::mem::take(&mut self.conns) {
            let _ = c.out.send(Out::Close);
        }
    }

    /// How long to sleep: until the next serverCron tick under the wall clock, a short poll
    /// while a client waits for its output to drain.
    fn wait_ms(&self) -> u64 {
        let mut wait = 1000;
        if !self.pinned {
            let now = wall_ms() + self.offset_ms;
            wait = (self.engine.next_cron_ms() - now).clamp(1, 1000) as u64;
        }
        if self.conns.values().any(|c| c.runnable) {
            wait = wait.min(5);
        }
        wait
    }

    fn tick_clock(&mut self) {
        if self.pinned {
            return;
        }
        let target = wall_ms() + self.offset_ms;
        if target > self.engine.now_ms() {
            self.engine.advance_to(target, 10_000);
        }
    }

    fn handle(&mut self, msg: Msg) {
        match msg {
            Msg::Open { conn, out, pending_out, peer, local } => {
                let maxclients = self.engine.config.int("maxclients").max(1) as usize;
                if self.conns.len() >= maxclients {
                    let _ = out.send(Out::Data(b"-ERR max number of clients reached\r\n".to_vec()));
                    let _ = out.send(Out::Close);
                    return;
                }
                self.tick_clock();
                let client = self.engine.connect();
                self.engine.set_client_addr(client, peer.to_string(), local.to_string());
                let mut query = QueryBuffer::new();
                query.auth_required = self.engine.client(client).is_some_and(|c| !c.authenticated);
                self.by_client.insert(client, conn);
                self.conns.insert(conn, Conn { client, out, pending_out, query, runnable: false, closing: false });
            }
            Msg::Bytes { conn, data } => {
                let limit = self.engine.config.int("client-query-buffer-limit").max(1024 * 1024) as usize;
                let Some(c) = self.conns.get_mut(&conn) else { return };
                if c.closing {
                    return;
                }
                c.query.feed(&data);
                c.runnable = true;
                // networking.c readQueryFromClient(): "Closing client that reached max query
                // buffer length" — no reply.
                if c.query.len() > limit {
                    self.close(conn);
                    return;
                }
                // readQueryFromClient() → processInputBuffer(): what one read brought is parsed
                // before the next read is looked at. So the 64 KB line limits see the input in
                // steps of at most one read, as on redis-server (a 90 KB inline line is "too big
                // inline request" there, not a command), and commands followed by the client's
                // EOF (a half-close) run before `Closed` is handled, as they do there.
                self.tick_clock();
                self.run_client(conn);
            }
            Msg::Closed { conn } => {
                if let Some(c) = self.conns.remove(&conn) {
                    self.by_client.remove(&c.client);
                    if self.engine.client(c.client).is_some() {
                        self.engine.disconnect(c.client);
                    }
                    let _ = c.out.send(Out::Close);
                }
            }
        }
    }

    /// Runs every client that has input and may run, until none can make progress.
    fn run_clients(&mut self) {
        loop {
            let ready: Vec<ConnId> = self.conns.iter().filter(|(_, c)| c.runnable && !c.closing).map(|(&id, _)| id).collect();
            if ready.is_empty() {
                return;
            }
            let mut progressed = false;
            for id in ready {
                progressed |= self.run_client(id);
            }
            self.flush_all();
            if !progressed {
                return;
            }
        }
    }

    /// processInputBuffer(): runs the client's complete commands in order. Returns whether
    /// anything was run or consumed.
    fn run_client(&mut self, id: ConnId) -> bool {
        let mut progressed = false;
        loop {
            let Some(c) = self.conns.get_mut(&id) else { return progressed };
            let client = c.client;
            if c.closing || self.engine.is_blocked(client) {
                return progressed;
            }
            if c.pending_out.load(Ordering::SeqCst) > OUTPUT_PAUSE_BYTES {
                // Stays runnable: picked up again once the writer catches up.
                return progressed;
            }
            c.query.auth_required = self.engine.client(client).is_some_and(|cl| !cl.authenticated);
            c.query.max_bulk_len = self.engine.config.int("proto-max-bulk-len");
            match c.query.next() {
                Parsed::Incomplete => {
                    c.runnable = false;
                    return progressed;
                }
                Parsed::Nothing => progressed = true,
                Parsed::Error(msg) => {
                    let mut out = b"-ERR ".to_vec();
                    out.extend_from_slice(msg.as_bytes());
                    out.extend_from_slice(b"\r\n");
                    self.send(id, out);
                    self.close(id);
                    return true;
                }
                Parsed::Command(argv) => {
                    progressed = true;
                    self.run_command(id, client, &argv);
                }
            }
        }
    }

    fn run_command(&mut self, id: ConnId, client: ClientId, argv: &[Vec<u8>]) {
        // What arrived for the client before this command is written before its reply.
        self.flush_outbox(id);
        let before = self.engine.now_ms();
        let reply = self.engine.execute(client, argv);
        if !self.pinned && self.engine.now_ms() != before {
            // CLOCK SET / ADVANCE: keep following the wall clock from the new time.
            self.offset_ms = self.engine.now_ms() - wall_ms();
        }
        let quit = argv[0].eq_ignore_ascii_case(b"quit");
        if !self.engine.is_blocked(client) {
            let proto = self.engine.client(client).map_or(2, |c| c.resp);
            let mut out = Vec::new();
            reply.encode(proto, &mut out);
            self.send(id, out);
        }
        self.flush_outbox(id);
        if quit || self.engine.client(client).is_none() {
            self.close(id);
        }
    }

    fn send(&mut self, id: ConnId, data: Vec<u8>) {
        if let Some(c) = self.conns.get(&id) {
            if data.is_empty() {
                return;
            }
            c.pending_out.fetch_add(data.len(), Ordering::SeqCst);
            let _ = c.out.send(Out::Data(data));
        }
    }

    /// Writes the client's outbox (Pub/Sub messages, a late blocked reply).
    fn flush_outbox(&mut self, id: ConnId) {
        let Some(c) = self.conns.get(&id) else { return };
        let client = c.client;
        let replies = self.engine.take_outbox(client);
        if replies.is_empty() {
            return;
        }
        let proto = self.engine.client(client).map_or(2, |c| c.resp);
        let mut out = Vec::new();
        for r in &replies {
            r.encode(proto, &mut out);
        }
        let subscribed = self.engine.client(client).is_some_and(|c| c.in_pubsub());
        self.send(id, out);
        if subscribed && self.conns.get(&id).is_some_and(|c| c.pending_out.load(Ordering::SeqCst) > PUBSUB_OUTPUT_LIMIT) {
            self.close(id);
        }
    }

    /// After an iteration: every client's outbox, clients killed by others closed, clients
    /// served out of a blocking command run on.
    fn flush_all(&mut self) {
        let ids: Vec<ConnId> = self.conns.keys().copied().collect();
        for id in ids {
            self.flush_outbox(id);
            let Some(c) = self.conns.get_mut(&id) else { continue };
            if c.closing {
                continue;
            }
            if self.engine.client(c.client).is_none() {
                self.close(id);
            } else if !self.engine.is_blocked(c.client) && !c.query.is_empty() && !c.runnable {
                c.runnable = true;
            }
        }
    }

    /// CLIENT_CLOSE_AFTER_REPLY: what was queued is written, then the socket closes; the
    /// client leaves the engine now.
    fn close(&mut self, id: ConnId) {
        if let Some(c) = self.conns.get_mut(&id) {
            if c.closing {
                return;
            }
            c.closing = true;
            c.runnable = false;
            let _ = c.out.send(Out::Close);
            let client = c.client;
            if self.engine.client(client).is_some() {
                self.engine.disconnect(client);
            }
        }
    }
}

/// Parses `redisplay serve` options.
pub fn parse_args(args: impl Iterator<Item = String>) -> Result<ServeOptions, String> {
    let mut opts = ServeOptions::default();
    let mut args = args;
    while let Some(a) = args.next() {
        let mut value = |what: &str| args.next().ok_or_else(|| format!("{a} needs {what}"));
        match a.as_str() {
            "--port" => opts.port = value("a port")?.parse().map_err(|_| "--port needs a number between 0 and 65535".to_string())?,
            "--bind" => opts.bind = value("an address")?,
            "--seed" => opts.seed = value("a number")?.parse().map_err(|_| "--seed needs an unsigned integer".to_string())?,
            "--time" => {
                let t: i64 = value("a time")?.parse().map_err(|_| "--time needs a Unix time in milliseconds".to_string())?;
                if !(0..=crate::engine::MAX_CLOCK_MS).contains(&t) {
                    return Err("--time needs a Unix time in milliseconds".into());
                }
                opts.time = Some(t);
            }
            "--requirepass" => opts.requirepass = Some(value("a password")?),
            _ => return Err(format!("unknown serve option {a}")),
        }
    }
    Ok(opts)
}
