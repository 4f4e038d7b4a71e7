//! `redisplay serve`: the engine as a Redis server on a TCP port — RESP2 and RESP3 for
//! redis-cli, redis-benchmark and client libraries (networking.c on ae.c's event loop).
//!
//! A thin adapter, the only part of the crate that touches sockets or the wall clock:
//! - One thread, as Redis's main thread: it owns the `Engine` and every socket, waits on epoll
//!   (mio) for readable/writable sockets or the next serverCron tick, and never blocks.
//! - Per read (at most 16 KB, networking.c PROTO_IOBUF_LEN) the client's query buffer
//!   (`query.rs`) is fed and its complete commands run, one at a time, at the current
//!   time; each reply is encoded for the client's protocol (`Reply::encode`: 2, or 3 after
//!   HELLO 3) into its output buffer, written when the iteration ends (Redis's
//!   handleClientsWithPendingWrites in beforeSleep); what the socket doesn't take waits for a
//!   writable event. Replies that arrive without a command — Pub/Sub messages, a blocked pop
//!   served by another client's push — come from the engine's outbox and are written in the
//!   order Redis writes them (before the client's next reply).
//! - As in Redis, a blocked client's further input waits in its query buffer until it is
//!   served; a protocol error is answered `-ERR Protocol error: …` and the connection closed;
//!   QUIT answers +OK and closes; a killed client is closed; a client that closes its side
//!   has the commands it sent first run and answered.
//! - Time: the engine's clock follows the wall clock (serverCron runs at `hz` between
//!   commands) unless `--time` pins it; CLOCK SET/ADVANCE move it either way (under the wall
//!   clock the difference is kept as an offset).
//!
//! Limits, as Redis's defaults: proto-max-bulk-len and the 64 KB inline / count lines (in the
//! parser); client-query-buffer-limit (1 GB) closes a client without a reply; a Pub/Sub client
//! whose unread output passes 32 MB is closed (client-output-buffer-limit pubsub 32mb). A
//! normal client's unread output above 64 MB stops reading from it until the socket drains
//! (Redis has no limit for normal clients; we stop reading instead of growing without bound).
//! maxclients (10000) refuses further connections with Redis's error.
//!
//! - A script that runs past its first slice (script/call.rs) runs on between iterations, so
//!   other clients are read meanwhile: their commands wait for it, get BUSY once it timed out,
//!   or stop it (SCRIPT KILL); the script's client gets its reply when it ends.
//!
//! - Persistence (net/disk.rs): `dir` (the working directory unless `--dir` names one, made
//!   absolute) and `dbfilename` locate the RDB file; an existing one is loaded before the server
//!   answers (one that doesn't load stops the start, as it stops redis-server); SAVE, DEBUG
//!   RELOAD, FLUSHALL with save points and SHUTDOWN write it atomically. After a successful
//!   SHUTDOWN no reply is written: every connection closes and the server's thread ends (the
//!   binary then exits with status 0). With `log`, the server log goes to stderr.
//!
//! Deviations: no TLS, no unix sockets; the playground's memory model, not the process's,
//! answers INFO memory.

use std::io::{ErrorKind, Read, Write};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token, Waker};

use crate::command::rdb::LoadFailure;
use crate::engine::{ClientId, Engine, EngineOptions};
use crate::net::disk::{format_log_line, resolve_dir, DiskStore};
use crate::net::query::{Parsed, QueryBuffer};

/// Lua instructions a running script gets per event-loop iteration (10 ms of its virtual time).
const SCRIPT_SLICE_STEPS: u64 = 5_000_000;

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
    /// Any other Redis parameter given as `--name value`, as redis-server's command line takes
    /// it — immutable ones included (`--enable-debug-command yes|local`, `--databases 4`,
    /// `--dir D --dbfilename F --save "3600 1"`).
    pub config: Vec<(String, String)>,
    /// Print the server log (loading, saving, shutting down) on stderr, as redis-server does.
    pub log: bool,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            bind: "127.0.0.1".into(),
            port: 6379,
            seed: 0,
            time: None,
            requirepass: None,
            config: vec![],
            log: false,
        }
    }
}

impl ServeOptions {
    /// The last value given for a parameter.
    fn param(&self, name: &str) -> Option<&str> {
        self.config.iter().rev().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
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
    waker: Arc<Waker>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Server {
    /// Binds and starts serving on a background thread.
    pub fn start(opts: ServeOptions) -> std::io::Result<Server> {
        if !is_loopback(&opts.bind) && opts.requirepass.as_deref().unwrap_or("").is_empty() {
            return Err(std::io::Error::new(
                ErrorKind::InvalidInput,
                format!("binding to {} (beyond loopback) needs --requirepass", opts.bind),
            ));
        }
        // `dir` made absolute (redis-server chdir()s into it); the files in it are loaded before
        // the server answers, and files that don't load stop the start, as they stop redis-server.
        let invalid = |m: String| std::io::Error::new(ErrorKind::InvalidInput, m);
        let dir = resolve_dir(opts.param("dir")).map_err(invalid)?;
        let dir = dir.to_string_lossy().into_owned();
        let dbfilename = opts.param("dbfilename").unwrap_or("dump.rdb").to_string();
        let mut opts = opts;
        opts.config.retain(|(n, _)| !n.eq_ignore_ascii_case("dir"));
        opts.config.push(("dir".into(), dir));
        let std_listener = std::net::TcpListener::bind((opts.bind.as_str(), opts.port))?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        let mut listener = TcpListener::from_std(std_listener);
        let poll = Poll::new()?;
        poll.registry().register(&mut listener, LISTENER, Interest::READABLE)?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        let stop = Arc::new(AtomicBool::new(false));
        let loop_stop = stop.clone();
        let (loaded_tx, loaded_rx) = std::sync::mpsc::channel::<Result<(), String>>();
        // The engine (with its Lua VM) is not Send: it is made on the thread that owns it.
        let thread = thread::Builder::new().name("redisplay-serve".into()).spawn(move || {
            let mut engine = new_engine(&opts);
            engine.tcp_port = addr.port();
            engine.set_rdb_store(Box::new(DiskStore));
            // server.c loadDataFromDisk(): the AOF files with appendonly yes, else the RDB file.
            let started = std::time::Instant::now();
            let loaded = engine.load_data_from_disk();
            print_log(&mut engine, opts.log);
            match loaded {
                Ok(Some(_)) if opts.log => {
                    eprintln!(
                        "{}:M * DB loaded from disk: {:.3} seconds",
                        std::process::id(),
                        started.elapsed().as_secs_f64()
                    )
                }
                Ok(_) => {}
                Err(LoadFailure::Aof(msg)) => {
                    let _ = loaded_tx.send(Err(format!("Fatal error loading the AOF: {msg}")));
                    return;
                }
                Err(e) => {
                    let _ = loaded_tx.send(Err(format!("Fatal error loading the DB ({dbfilename}): {e}")));
                    return;
                }
            }
            let _ = loaded_tx.send(Ok(()));
            // `--replicaof HOST PORT`: a replica from the start (replicationSetMaster()).
            if let Some((host, port)) = opts.param("replicaof").and_then(parse_replicaof) {
                engine.become_replica_of(&host, port);
            }
            let mut ev = EventLoop::new(engine, opts.time.is_some(), poll, listener, opts.log);
            ev.run(&loop_stop);
        })?;
        let mut server = Server { addr, stop, waker, thread: Some(thread) };
        match loaded_rx.recv() {
            Ok(Ok(())) => Ok(server),
            Ok(Err(msg)) => {
                server.stop();
                Err(std::io::Error::new(ErrorKind::InvalidData, msg))
            }
            Err(_) => {
                server.stop();
                Err(std::io::Error::other("the server thread ended while starting"))
            }
        }
    }

    /// Blocks until the server stops (it runs until the process ends or `stop()`).
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }

    /// Closes every connection and ends the server's thread.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.waker.wake();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.thread.is_some() {
            self.stop();
        }
    }
}

/// `replicaof`'s value: `host port`.
fn parse_replicaof(v: &str) -> Option<(String, u16)> {
    let mut it = v.split_whitespace();
    let (host, port) = (it.next()?, it.next()?.parse().ok()?);
    Some((host.to_string(), port))
}

fn new_engine(opts: &ServeOptions) -> Engine {
    let start_ms = opts.time.unwrap_or_else(wall_ms);
    let mut engine = Engine::new(EngineOptions { seed: opts.seed, start_ms });
    // Nobody draws the event log here: don't keep one.
    engine.set_event_recording(false);
    if let Some(pass) = opts.requirepass.as_deref().filter(|p| !p.is_empty()) {
        // Set directly: no client (a fresh server's first connection gets the first id).
        let _ = engine.configure_startup("requirepass", pass);
    }
    // CONFIG GET bind answers what the server listens on, as redis-server's does.
    let _ = engine.configure_startup("bind", &opts.bind);
    for (name, value) in &opts.config {
        let _ = engine.configure_startup(name, value);
    }
    engine
}

/// The engine's log lines, on stderr when `on` (dropped otherwise).
fn print_log(engine: &mut Engine, on: bool) {
    for line in engine.take_log() {
        if on {
            eprintln!("{}", format_log_line(&line));
        }
    }
}

fn wall_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

// ---------------------------------------------------------------------------------------------
// The event loop (ae.c aeMain + networking.c readQueryFromClient/processInputBuffer/writeToClient)
// ---------------------------------------------------------------------------------------------

const LISTENER: Token = Token(0);
const WAKER: Token = Token(1);
/// The replica's connection to its master.
const LINK: Token = Token(usize::MAX - 1);

/// Bytes read per read() call (networking.c PROTO_IOBUF_LEN).
const PROTO_IOBUF_LEN: usize = 16 * 1024;
/// Unread output above which a normal client is not read from until the socket drains.
const OUTPUT_PAUSE_BYTES: usize = 64 * 1024 * 1024;
/// client-output-buffer-limit pubsub 32mb (hard limit).
const PUBSUB_OUTPUT_LIMIT: usize = 32 * 1024 * 1024;

type ConnId = usize;

struct Conn {
    stream: TcpStream,
    client: ClientId,
    query: QueryBuffer,
    /// Encoded replies not yet written, from `out_pos` on.
    out: Vec<u8>,
    out_pos: usize,
    /// Registered for writable events (the socket did not take everything).
    want_write: bool,
    /// The socket may hold unread bytes we did not read (paused on output, or closing).
    unread: bool,
    /// Input is waiting and the client may run (it was blocked and is served now).
    runnable: bool,
    /// CLIENT_CLOSE_AFTER_REPLY: write what is queued, then close.
    closing: bool,
}

impl Conn {
    fn pending_out(&self) -> usize {
        self.out.len() - self.out_pos
    }
}

/// A replica's link to its master (replication.rs drives the protocol; this moves bytes).
struct Link {
    stream: TcpStream,
    connected: bool,
    out: Vec<u8>,
}

struct EventLoop {
    link: Option<Link>,
    engine: Engine,
    poll: Poll,
    listener: TcpListener,
    conns: crate::ds::id_table::IdTable<Conn, ConnId>,
    next_conn: ConnId,
    /// The clock is pinned (`--time`): only CLOCK commands move it.
    pinned: bool,
    /// Engine time minus wall time, changed by CLOCK SET / ADVANCE under the wall clock.
    offset_ms: i64,
    /// Print the server log on stderr.
    log: bool,
}

impl EventLoop {
    fn new(engine: Engine, pinned: bool, poll: Poll, listener: TcpListener, log: bool) -> EventLoop {
        let offset_ms = if pinned { 0 } else { engine.now_ms() - wall_ms() };
        EventLoop {
            link: None,
            engine,
            poll,
            listener,
            conns: crate::ds::id_table::IdTable::new(),
            next_conn: 2,
            pinned,
            offset_ms,
            log,
        }
    }

    fn run(&mut self, stop: &AtomicBool) {
        let mut events = Events::with_capacity(1024);
        while !stop.load(Ordering::SeqCst) {
            let wait = self.wait_ms();
            if let Err(e) = self.poll.poll(&mut events, Some(Duration::from_millis(wait))) {
                if e.kind() == ErrorKind::Interrupted {
                    continue;
                }
                break;
            }
            self.tick_clock();
            for event in events.iter() {
                match event.token() {
                    LISTENER => self.accept(),
                    WAKER => {}
                    LINK => self.link_event(
                        event.is_writable(),
                        event.is_readable() || event.is_read_closed() || event.is_error(),
                    ),
                    Token(id) => {
                        if event.is_writable() {
                            self.write(id);
                        }
                        if event.is_readable() || event.is_read_closed() || event.is_error() {
                            self.read(id);
                        }
                    }
                }
            }
            self.run_clients();
            // A script that outlived its first slice runs on, one slice per iteration, so the
            // other clients are read between slices (parked, BUSY or served: script/call.rs).
            if self.engine.busy_script().is_some() {
                self.engine.run_script_slice(SCRIPT_SLICE_STEPS);
            }
            // SHUTDOWN: the process exits now — no reply is written, every connection closes.
            if self.engine.has_shut_down() {
                break;
            }
            // beforeSleep(): the fast expire cycle, blocked clients' timeouts, then replies.
            self.engine.before_sleep();
            self.pump_link();
            self.flush_all();
            print_log(&mut self.engine, self.log);
        }
        print_log(&mut self.engine, self.log);
        self.conns.clear();
    }

    /// The master link: dropped when the engine no longer wants it, opened when it asks,
    /// and what the engine wrote to the master sent.
    fn pump_link(&mut self) {
        if self.link.is_some() && !self.engine.repl_link_active() {
            self.drop_link();
        }
        if self.link.is_none() {
            if let Some((host, port)) = self.engine.repl_link_wanted() {
                use std::net::ToSocketAddrs;
                let addr = (host.as_str(), port).to_socket_addrs().ok().and_then(|mut a| a.next());
                let stream = addr.and_then(|a| TcpStream::connect(a).ok());
                match stream {
                    Some(mut stream) => {
                        let interest = Interest::READABLE | Interest::WRITABLE;
                        if self.poll.registry().register(&mut stream, LINK, interest).is_ok() {
                            self.link = Some(Link { stream, connected: false, out: Vec::new() });
                        } else {
                            self.engine.repl_link_closed();
                        }
                    }
                    None => self.engine.repl_link_closed(),
                }
            }
        }
        let Some(link) = self.link.as_mut() else { return };
        if !link.connected {
            return;
        }
        link.out.extend(self.engine.repl_link_take_output());
        let mut failed = false;
        while !link.out.is_empty() {
            match link.stream.write(&link.out) {
                Ok(0) => break,
                Ok(n) => {
                    link.out.drain(..n);
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => {
                    failed = true;
                    break;
                }
            }
        }
        if failed {
            self.drop_link();
            self.engine.repl_link_closed();
        }
    }

    fn drop_link(&mut self) {
        if let Some(mut l) = self.link.take() {
            let _ = self.poll.registry().deregister(&mut l.stream);
            let _ = l.stream.shutdown(std::net::Shutdown::Both);
        }
    }

    /// Readiness of the master link: the connect finishing, bytes from the master, its close.
    fn link_event(&mut self, writable: bool, readable: bool) {
        let Some(link) = self.link.as_mut() else { return };
        if !link.connected && (writable || readable) {
            let ok = matches!(link.stream.take_error(), Ok(None)) && link.stream.peer_addr().is_ok();
            if !ok {
                self.drop_link();
                self.engine.repl_link_closed();
                return;
            }
            link.connected = true;
            self.engine.repl_link_connected();
        }
        if !readable {
            return;
        }
        let mut buf = [0u8; PROTO_IOBUF_LEN];
        loop {
            let Some(link) = self.link.as_mut() else { return };
            match link.stream.read(&mut buf) {
                Ok(0) => {
                    self.drop_link();
                    self.engine.repl_link_closed();
                    return;
                }
                Ok(n) => {
                    self.engine.repl_link_input(&buf[..n]);
                    if !self.engine.repl_link_active() {
                        self.drop_link();
                        return;
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => {
                    self.drop_link();
                    self.engine.repl_link_closed();
                    return;
                }
            }
        }
    }

    /// The server is gone (SHUTDOWN): nothing more is read or run.
    fn gone(&self) -> bool {
        self.engine.has_shut_down()
    }

    /// How long to sleep: until the next serverCron tick under the wall clock; not at all
    /// while a client has input it may now run.
    fn wait_ms(&self) -> u64 {
        if self.engine.busy_script().is_some() || self.conns.values().any(|c| c.runnable && !c.closing) {
            return 0;
        }
        if self.pinned {
            return 1000;
        }
        let now = wall_ms() + self.offset_ms;
        (self.engine.next_cron_ms() - now).clamp(1, 1000) as u64
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

    /// networking.c acceptTcpHandler() → acceptCommonHandler().
    fn accept(&mut self) {
        loop {
            let (mut stream, peer) = match self.listener.accept() {
                Ok(s) => s,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => return, // EMFILE and the like: try again on the next event
            };
            let maxclients = self.engine.config.int("maxclients").max(1) as usize;
            if self.conns.values().filter(|c| !c.closing).count() >= maxclients {
                let _ = stream.write(b"-ERR max number of clients reached\r\n");
                continue;
            }
            let _ = stream.set_nodelay(true);
            let local = stream.local_addr().map(|a| a.to_string()).unwrap_or_default();
            let id = self.next_conn;
            self.next_conn += 1;
            if self.poll.registry().register(&mut stream, Token(id), Interest::READABLE).is_err() {
                continue;
            }
            let client = self.engine.connect();
            self.engine.set_client_addr(client, peer.to_string(), local);
            let query = QueryBuffer::new();
            let conn = Conn {
                stream,
                client,
                query,
                out: Vec::new(),
                out_pos: 0,
                want_write: false,
                unread: false,
                runnable: false,
                closing: false,
            };
            self.conns.insert(id, conn);
        }
    }

    /// networking.c readQueryFromClient(): read and run, one read at a time, until the socket
    /// has nothing more (epoll is edge-triggered here). EOF: what was read first still runs
    /// and is answered, then the connection closes.
    fn read(&mut self, id: ConnId) {
        let mut buf = [0u8; PROTO_IOBUF_LEN];
        loop {
            if self.gone() {
                return;
            }
            let Some(c) = self.conns.get_mut(&id) else { return };
            if c.closing {
                // Nothing more is read; a closing socket is shut once its output is written.
                return;
            }
            if c.pending_out() > OUTPUT_PAUSE_BYTES {
                c.unread = true;
                return;
            }
            c.unread = false;
            match c.stream.read(&mut buf) {
                Ok(0) => {
                    self.close(id);
                    return;
                }
                Ok(n) => {
                    c.query.feed(&buf[..n]);
                    let limit = self.engine.hot.client_query_buffer_limit.max(1024 * 1024) as usize;
                    // "Closing client that reached max query buffer length": no reply.
                    if c.query.len() > limit {
                        c.out.clear();
                        c.out_pos = 0;
                        self.close(id);
                        return;
                    }
                    c.runnable = true;
                    self.run_client(id);
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => {
                    self.close(id);
                    return;
                }
            }
        }
    }

    /// networking.c writeToClient(): as much as the socket takes; the rest on a writable event.
    fn write(&mut self, id: ConnId) {
        let Some(c) = self.conns.get_mut(&id) else { return };
        while c.out_pos < c.out.len() {
            match c.stream.write(&c.out[c.out_pos..]) {
                Ok(0) => break,
                Ok(n) => c.out_pos += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => {
                    // The peer is gone: drop the connection now.
                    self.drop_conn(id);
                    return;
                }
            }
        }
        if c.out_pos == c.out.len() {
            c.out.clear();
            c.out_pos = 0;
        } else if c.out_pos > (1 << 20) && c.out_pos > c.out.len() / 2 {
            c.out.drain(..c.out_pos);
            c.out_pos = 0;
        }
        let done = c.pending_out() == 0;
        if done && c.closing {
            self.drop_conn(id);
            return;
        }
        let want = !done;
        if want != c.want_write {
            let interest = if want { Interest::READABLE | Interest::WRITABLE } else { Interest::READABLE };
            let _ = self.poll.registry().reregister(&mut c.stream, Token(id), interest);
            c.want_write = want;
        }
        // Output drained below the pause line: read what waited.
        if c.unread && c.pending_out() <= OUTPUT_PAUSE_BYTES {
            self.read(id);
        }
    }

    /// Runs every client that has input and may run, until none can make progress.
    fn run_clients(&mut self) {
        loop {
            let ready: Vec<ConnId> =
                self.conns.iter().filter(|(_, c)| c.runnable && !c.closing).map(|(&id, _)| id).collect();
            if ready.is_empty() {
                return;
            }
            let mut progressed = false;
            for id in ready {
                progressed |= self.run_client(id);
            }
            self.collect_outboxes();
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
            if self.gone() {
                return false;
            }
            let Some(c) = self.conns.get_mut(&id) else { return progressed };
            let client = c.client;
            if c.closing || self.engine.is_blocked(client) {
                return progressed;
            }
            c.query.auth_required = self.engine.auth_required(client);
            c.query.max_bulk_len = self.engine.hot.proto_max_bulk_len;
            match c.query.next_request() {
                Parsed::Incomplete => {
                    c.runnable = false;
                    return progressed;
                }
                Parsed::Nothing => progressed = true,
                Parsed::Error(msg) => {
                    c.out.extend_from_slice(b"-ERR ");
                    c.out.extend_from_slice(msg.as_bytes());
                    c.out.extend_from_slice(b"\r\n");
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
        self.take_outbox(id);
        let before = self.engine.now_ms();
        let reply = self.engine.execute(client, argv);
        if !self.pinned && self.engine.now_ms() != before {
            // CLOCK SET / ADVANCE: keep following the wall clock from the new time.
            self.offset_ms = self.engine.now_ms() - wall_ms();
        }
        let quit = argv[0].eq_ignore_ascii_case(b"quit");
        let proto = self.engine.client(client).map_or(2, |c| c.resp);
        // What reached the client before its reply was made (an invalidation of a key evicted
        // before the command ran), then the reply — unless it waits (blocked, paused) or
        // CLIENT REPLY OFF/SKIP drops it.
        let before = self.engine.take_outbox_before_reply(client);
        let send = !self.engine.is_blocked(client) && !self.engine.reply_dropped(client);
        if let Some(c) = self.conns.get_mut(&id) {
            for r in &before {
                r.encode(proto, &mut c.out);
            }
            if send {
                reply.encode(proto, &mut c.out);
            }
        }
        self.take_outbox(id);
        if quit || self.engine.client(client).is_none() {
            self.close(id);
        }
    }

    /// Moves the client's outbox (Pub/Sub messages, a late blocked reply) into its output.
    fn take_outbox(&mut self, id: ConnId) {
        let Some(c) = self.conns.get_mut(&id) else { return };
        let replies = self.engine.take_outbox(c.client);
        if replies.is_empty() {
            return;
        }
        let (proto, subscribed) = self.engine.client(c.client).map_or((2, false), |cl| (cl.resp, cl.in_pubsub()));
        for r in &replies {
            r.encode(proto, &mut c.out);
        }
        if subscribed && c.pending_out() > PUBSUB_OUTPUT_LIMIT {
            c.out.clear();
            c.out_pos = 0;
            self.close(id);
        }
    }

    /// Every client's outbox; clients killed by others closed; clients served out of a
    /// blocking command made runnable.
    fn collect_outboxes(&mut self) {
        let ids: Vec<ConnId> = self.conns.keys().copied().collect();
        for id in ids {
            self.take_outbox(id);
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

    /// handleClientsWithPendingWrites(): outboxes collected, then every pending output written.
    fn flush_all(&mut self) {
        self.collect_outboxes();
        let ids: Vec<ConnId> =
            self.conns.iter().filter(|(_, c)| c.pending_out() > 0 || c.closing).map(|(&id, _)| id).collect();
        for id in ids {
            self.write(id);
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
            let client = c.client;
            if self.engine.client(client).is_some() {
                self.engine.disconnect(client);
            }
        }
    }

    /// freeClient(): the socket goes (closed on drop).
    fn drop_conn(&mut self, id: ConnId) {
        if let Some(mut c) = self.conns.remove(&id) {
            let _ = self.poll.registry().deregister(&mut c.stream);
            let _ = c.stream.shutdown(std::net::Shutdown::Both);
            if self.engine.client(c.client).is_some() {
                self.engine.disconnect(c.client);
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
            "--port" => {
                opts.port =
                    value("a port")?.parse().map_err(|_| "--port needs a number between 0 and 65535".to_string())?
            }
            "--bind" => opts.bind = value("an address")?,
            "--seed" => {
                opts.seed = value("a number")?.parse().map_err(|_| "--seed needs an unsigned integer".to_string())?
            }
            "--time" => {
                let t: i64 =
                    value("a time")?.parse().map_err(|_| "--time needs a Unix time in milliseconds".to_string())?;
                if !(0..=crate::engine::MAX_CLOCK_MS).contains(&t) {
                    return Err("--time needs a Unix time in milliseconds".into());
                }
                opts.time = Some(t);
            }
            "--requirepass" => opts.requirepass = Some(value("a password")?),
            // `--replicaof HOST PORT` (or one argument `"HOST PORT"`), as redis-server takes it.
            "--replicaof" | "--slaveof" => {
                let mut v = value("a host and a port")?;
                if !v.contains(' ') {
                    let port = args.next().ok_or_else(|| format!("{a} needs a host and a port"))?;
                    v = format!("{v} {port}");
                }
                if parse_replicaof(&v).is_none() {
                    return Err(format!("{a} needs a host and a port"));
                }
                opts.config.push(("replicaof".into(), v));
            }
            _ => match a.strip_prefix("--") {
                // A Redis parameter, checked as redis-server checks its command line.
                Some(name) if crate::config::is_parameter(name) => {
                    let v = value("a value")?;
                    crate::config::Config::default()
                        .set_at_startup(name.as_bytes(), v.as_bytes())
                        .map_err(|m| String::from_utf8_lossy(&m).into_owned())?;
                    opts.config.push((name.to_string(), v));
                }
                _ => return Err(format!("unknown serve option {a}")),
            },
        }
    }
    Ok(opts)
}
