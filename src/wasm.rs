//! The WebAssembly boundary — the only file that knows wasm-bindgen, js-sys or
//! serde-wasm-bindgen. It exports one opaque handle, `Playground`: a redis-cli session on its
//! own engine (own seed, clock and config; a page may hold many). Results crossing the
//! boundary are small plain JS objects copied out of Rust; Rust never calls into JavaScript.
//!
//! ```js
//! import init, { Playground } from "./pkg/redisplay.js";
//! await init();
//! const pg = new Playground(42, Date.now());    // seed and start time, both optional
//! pg.execute("SET order:1 pending EX 1800");    // { text: "OK\n", prompt, reply, quit, clear }
//! pg.hint(0, "SET k");                          // " value [NX|XX] [GET] …" (redis-cli's grey hint)
//! pg.set_raw(0, true);                          // console 0 prints as `redis-cli --raw`
//! pg.advance_to(pg.now() + 1000);               // { ticks, lagMs, now }: serverCron per tick
//! pg.drain_events();                            // { events: [...], dropped }
//! pg.rdb_image();                               // Uint8Array: dump.rdb as SAVE writes it now
//! pg.load_rdb(bytes);                           // {ok, keysLoaded, keysExpired, …} | {ok: false, error}
//! ```

use wasm_bindgen::prelude::*;

use js_sys::{Array, Object, Reflect};

use crate::command::table::table;
use crate::engine::{EngineOptions, MAX_CLOCK_MS};
use crate::reply::Reply;
use crate::session::servers::Servers;

/// Ticks `advance_to` runs per call unless told otherwise: a frame's worth of cron at most.
const DEFAULT_FRAME_TICKS: u64 = 10_000;

fn set(obj: &Object, key: &str, value: impl Into<JsValue>) {
    // Setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(obj, &JsValue::from_str(key), &value.into());
}

fn int_to_js(n: i64) -> JsValue {
    if n.unsigned_abs() <= (1u64 << 53) {
        JsValue::from_f64(n as f64)
    } else {
        JsValue::bigint_from_str(&n.to_string())
    }
}

/// A reply as `{type, value}`: status/error/bulk as strings (bulk also as `bytes` when it is
/// not valid UTF-8), integer as a number (BigInt beyond 2^53), double as a number, nil,
/// nil-array, array of replies.
fn reply_to_js(r: &Reply) -> JsValue {
    let o = Object::new();
    match r {
        Reply::Status(s) => {
            set(&o, "type", "status");
            set(&o, "value", s.as_str());
        }
        Reply::Error(e) => {
            set(&o, "type", "error");
            set(&o, "value", String::from_utf8_lossy(e).as_ref());
        }
        Reply::Integer(n) => {
            set(&o, "type", "integer");
            set(&o, "value", int_to_js(*n));
        }
        Reply::Bulk(b) => {
            set(&o, "type", "bulk");
            set(&o, "value", String::from_utf8_lossy(b).as_ref());
            if std::str::from_utf8(b).is_err() {
                set(&o, "bytes", js_sys::Uint8Array::from(b.as_slice()));
            }
        }
        Reply::Double(d) => {
            set(&o, "type", "double");
            set(&o, "value", *d);
        }
        Reply::Nil => set(&o, "type", "nil"),
        Reply::NilArray => set(&o, "type", "nil-array"),
        Reply::Array(items) => {
            set(&o, "type", "array");
            let arr = Array::new();
            for item in items {
                arr.push(&reply_to_js(item));
            }
            set(&o, "value", arr);
        }
        // RESP3 shapes (maps, sets, pairs…) reach JS as a RESP2 client sees them.
        rich => return reply_to_js(&rich.as_resp2()),
    }
    o.into()
}

/// `{text, reply}`: what redis-cli would print, and the reply as data, both as a RESP2 client
/// gets them (maps flat, sets as arrays…): what the views read, even after a `HELLO 3` typed
/// in console 0, whose client this is (the console itself prints per its protocol).
fn reply_object(reply: &Reply) -> JsValue {
    let o = Object::new();
    set(&o, "text", String::from_utf8_lossy(&reply.to_cli()).as_ref());
    set(&o, "reply", reply_to_js(reply));
    o.into()
}

/// A simulation's config object from the page (absent → all defaults); a bad one becomes a JS
/// `Error("<what>: …")`.
fn sim_input<T: serde::de::DeserializeOwned + Default>(config: JsValue, what: &str) -> Result<T, JsValue> {
    if config.is_undefined() || config.is_null() {
        return Ok(T::default());
    }
    serde_wasm_bindgen::from_value(config).map_err(|e| sim_error(what, format!("bad config: {e}")))
}

fn sim_error(what: &str, message: String) -> JsValue {
    JsValue::from(js_sys::Error::new(&format!("{what}: {message}")))
}

/// Plain data (events, snapshots) as plain JS objects.
fn to_js<T: serde::Serialize>(v: &T) -> JsValue {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    serde::Serialize::serialize(v, &serializer).unwrap_or(JsValue::NULL)
}

fn clock_ms(v: f64) -> i64 {
    if v.is_finite() {
        (v as i64).clamp(0, MAX_CLOCK_MS)
    } else {
        0
    }
}

/// `{text}` for console output, plus `bytes` when it is not valid UTF-8.
fn text_object(text: &[u8]) -> Object {
    let o = Object::new();
    set(&o, "text", String::from_utf8_lossy(text).as_ref());
    if std::str::from_utf8(text).is_err() {
        set(&o, "bytes", js_sys::Uint8Array::from(text));
    }
    o
}

/// A redis-cli session on a private engine.
#[wasm_bindgen]
pub struct Playground {
    servers: Servers,
}

/// The engine options a constructor's JS arguments give: `seed` any number (default: random
/// from the browser), `start_ms` the clock's start in Unix ms (default: the engine's fixed
/// default, 2025-01-01T00:00:00Z).
fn engine_options(seed: Option<f64>, start_ms: Option<f64>) -> EngineOptions {
    let seed = match seed {
        Some(s) if s.is_finite() => s.abs() as u64,
        _ => {
            let mut b = [0u8; 8];
            getrandom::fill(&mut b).map(|_| u64::from_le_bytes(b)).unwrap_or(0)
        }
    };
    let start_ms = start_ms.map(clock_ms).unwrap_or(EngineOptions::default().start_ms);
    EngineOptions { seed, start_ms }
}

#[wasm_bindgen]
impl Playground {
    /// `seed`: any number (default: random from the browser); `start_ms`: the clock's start in
    /// Unix ms (default: the engine's fixed default, 2025-01-01T00:00:00Z).
    #[wasm_bindgen(constructor)]
    pub fn new(seed: Option<f64>, start_ms: Option<f64>) -> Playground {
        let mut servers = Servers::new(engine_options(seed, start_ms));
        // The consoles are redis-cli in a terminal: RESP3 pushes (invalidations) are shown.
        servers.set_show_pushes(true);
        // The persistence view draws the propagation stream (Event::Propagated).
        servers.set_propagation_trace(true);
        Playground { servers }
    }

    /// Runs one console line as redis-cli would: `{text, prompt, reply, quit, clear}` where
    /// `text` is what redis-cli prints and `reply` the last reply (or null). redis-cli escapes
    /// reply bytes as `\xNN`, but an error can echo raw input bytes: when the output is not
    /// valid UTF-8, `text` shows U+FFFD (as a terminal would) and `bytes` has the exact bytes.
    pub fn execute(&mut self, line: &str) -> JsValue {
        self.execute_on(0, line)
    }

    /// `execute` on console `console` (0 is the first; see `open_console`). Also says whether
    /// the console now waits for a blocked command (`blocked`) or reads messages in subscribe
    /// mode (`subscribed`); what arrives later comes from `poll`.
    pub fn execute_on(&mut self, console: u32, line: &str) -> JsValue {
        let console = console as usize;
        let out = self.servers.run_line_on(console, line.as_bytes());
        let o = text_object(&out.text);
        set(&o, "prompt", self.servers.prompt_of(console));
        set(&o, "reply", out.reply.as_ref().map(reply_to_js).unwrap_or(JsValue::NULL));
        set(&o, "quit", out.quit);
        set(&o, "clear", out.clear);
        set(&o, "shutdown", out.shutdown);
        set(&o, "blocked", self.servers.is_waiting(console));
        set(&o, "subscribed", self.servers.is_subscribed(console));
        o.into()
    }

    /// What console `console` prints without input — Pub/Sub messages, a blocked command's late
    /// reply: `{text, prompt, blocked, subscribed, client}`.
    pub fn poll(&mut self, console: u32) -> JsValue {
        let console = console as usize;
        let text = self.servers.poll(console);
        let o = text_object(&text);
        set(&o, "prompt", self.servers.prompt_of(console));
        set(&o, "blocked", self.servers.is_waiting(console));
        set(&o, "subscribed", self.servers.is_subscribed(console));
        set(&o, "client", self.servers.client_of(console).unwrap_or(0) as f64);
        o.into()
    }

    /// Opens a console on server `server`: 0 is the page's Redis (127.0.0.1:6379), 1 a second
    /// one (127.0.0.1:6380), made on first use — make it a replica with `REPLICAOF 127.0.0.1
    /// 6379` there. Returns the console's number (numbers run across both servers).
    pub fn open_console_on(&mut self, server: u32) -> u32 {
        self.servers.open_console_on(server as usize) as u32
    }

    /// The server (0 or 1) console `console` talks to.
    pub fn console_server(&self, console: u32) -> u32 {
        self.servers.server_of(console as usize).unwrap_or(0) as u32
    }

    /// Whether the second server exists.
    pub fn has_second(&self) -> bool {
        self.servers.has_second()
    }

    /// The replica lane's snapshot: each server's side of replication (role, link, offsets,
    /// keys and those logically expired but not reclaimed, used_memory) and the network
    /// between them (latency, cut, the chunks on the wire and the last ones that arrived).
    pub fn replication(&self) -> JsValue {
        to_js(&self.servers.replication())
    }

    /// One-way latency of the link between the two servers, in virtual ms (0 ..= 1 hour).
    pub fn set_link_latency(&mut self, ms: f64) {
        self.servers.set_link_latency(if ms.is_finite() { ms as i64 } else { 0 });
    }

    /// Cuts the link between the servers (true: both ends see their connection close, what is
    /// in flight is lost, reconnections are refused) or restores it (false).
    pub fn set_link_down(&mut self, down: bool) {
        self.servers.set_link_down(down);
    }

    /// Opens another console: a new client of the same engine. Returns its number.
    pub fn open_console(&mut self) -> u32 {
        self.servers.open_console() as u32
    }

    /// Closes the last console (never the first): its client disconnects.
    pub fn close_console(&mut self) -> bool {
        self.servers.close_console()
    }

    pub fn console_count(&self) -> u32 {
        self.servers.console_count() as u32
    }

    /// The client id console `console` is connected as (CLIENT ID), 0 if none.
    pub fn console_client(&self, console: u32) -> f64 {
        self.servers.client_of(console as usize).unwrap_or(0) as f64
    }

    /// Ctrl-C on a console: as redis-cli exits, its connection closes (subscriptions and a
    /// blocked command end) and the console reconnects as a new client. Returns the prompt.
    pub fn interrupt(&mut self, console: u32) -> String {
        self.servers.interrupt(console as usize);
        self.servers.prompt_of(console as usize)
    }

    /// The prompt of console `console`.
    pub fn prompt_of(&self, console: u32) -> String {
        self.servers.prompt_of(console as usize)
    }

    /// Console `console` prints its replies as `redis-cli --raw` does (true) or as
    /// `redis-cli --no-raw` (false, the default) from its next line on.
    pub fn set_raw(&mut self, console: u32, raw: bool) {
        self.servers.set_raw(console as usize, raw);
    }

    /// Whether console `console` prints as `redis-cli --raw`.
    pub fn raw_of(&self, console: u32) -> bool {
        self.servers.prefs_of(console as usize).raw
    }

    /// The grey argument hint redis-cli would draw after `line` typed in console `console`
    /// (` value [NX|XX] …` after `SET k`), or undefined (no hint, or `:set nohints`).
    pub fn hint(&self, console: u32, line: &str) -> Option<String> {
        self.servers.hint_of(console as usize, line.as_bytes())
    }

    /// Runs one command given as separate arguments (no redis-cli parsing): `{text, reply}`.
    pub fn command(&mut self, args: Vec<String>) -> JsValue {
        let argv: Vec<Vec<u8>> = args.into_iter().map(String::into_bytes).collect();
        let reply = if argv.is_empty() {
            Reply::err("ERR empty command")
        } else {
            let client = self.servers.main.client;
            let r = self.servers.main.engine.execute(client, &argv);
            // The event loop goes back to sleep after serving it (beforeSleep: the fast expire
            // cycle, an eviction a CONFIG SET maxmemory started), as after a console line.
            self.servers.main.engine.before_sleep();
            self.servers.settle();
            r
        };
        reply_object(&reply)
    }

    /// INFO or CONFIG GET for a view, on the first console's client, not counted as a command
    /// (Engine::peek): `{text, reply}` like `command`.
    pub fn peek(&mut self, args: Vec<String>) -> JsValue {
        let argv: Vec<Vec<u8>> = args.into_iter().map(String::into_bytes).collect();
        let client = self.servers.main.client;
        let reply = self.servers.main.engine.peek(client, &argv);
        reply_object(&reply)
    }

    /// Moves virtual time forward to `now_ms`, running serverCron for each tick crossed, at most
    /// `max_ticks` (default 10000) of them: `{ticks, lagMs, now}`. Earlier times set the clock.
    /// While a script runs (past its first slice) no timer runs: `ticks` is 0 and the lag is
    /// kept until `run_script_slice` has run it to its end.
    pub fn advance_to(&mut self, now_ms: f64, max_ticks: Option<f64>) -> JsValue {
        let max = max_ticks.filter(|m| m.is_finite() && *m >= 1.0).map(|m| m as u64).unwrap_or(DEFAULT_FRAME_TICKS);
        let adv = self.servers.advance_to(clock_ms(now_ms), max);
        let o = Object::new();
        set(&o, "ticks", adv.ticks as f64);
        set(&o, "lagMs", adv.lag_ms as f64);
        set(&o, "now", self.servers.main.engine.now_ms() as f64);
        o.into()
    }

    /// Runs up to `max_steps` Lua instructions (cost.rs `LUA_STEP_NS` of virtual time each) of
    /// a script that outlived its first slice; whether one still runs. The page calls it each
    /// frame within its time budget; a console's `poll` prints the script's reply when it ends.
    pub fn run_script_slice(&mut self, max_steps: f64) -> bool {
        let steps = if max_steps.is_finite() && max_steps >= 1.0 { max_steps as u64 } else { 1 };
        if self.servers.main.engine.busy_script().is_some() {
            self.servers.main.engine.run_script_slice(steps);
            self.servers.settle();
        }
        self.servers.main.engine.busy_script().is_some()
    }

    /// Whether a script is running (past its first slice): other consoles' commands wait for
    /// it, or get BUSY once it passed busy-reply-threshold.
    pub fn script_busy(&self) -> bool {
        self.servers.main.engine.busy_script().is_some()
    }

    /// Sets the clock without running cron (it may go backwards).
    pub fn set_time(&mut self, now_ms: f64) {
        self.servers.set_time(clock_ms(now_ms));
    }

    /// When the next serverCron tick runs (Unix ms): "step one tick" advances to it.
    pub fn next_cron_ms(&self) -> f64 {
        self.servers.main.engine.next_cron_ms() as f64
    }

    /// The virtual clock, Unix ms.
    pub fn now(&self) -> f64 {
        self.servers.main.engine.now_ms() as f64
    }

    /// The effective `hz` and the cron period it gives.
    pub fn hz(&self) -> f64 {
        self.servers.main.engine.hz() as f64
    }

    pub fn cron_period_ms(&self) -> f64 {
        self.servers.main.engine.cron_period_ms() as f64
    }

    /// `127.0.0.1:6379> `, `127.0.0.1:6379[2]> `, `127.0.0.1:6379(TX)> `.
    pub fn prompt(&self) -> String {
        self.servers.main.prompt()
    }

    /// Everything the engine did since the last call: `{events: [...], dropped}`.
    pub fn drain_events(&mut self) -> JsValue {
        let (events, dropped) = self.servers.main.engine.drain_events();
        let o = Object::new();
        set(&o, "events", to_js(&events));
        set(&o, "dropped", dropped as f64);
        o.into()
    }

    /// The persistence view's snapshot: the RDB and AOF files with their sizes, the AOF's state,
    /// the children at work (src/introspect.rs `persistence`).
    pub fn persistence(&self) -> JsValue {
        to_js(&crate::introspect::persistence(&self.servers.main.engine))
    }

    /// The server's RDB file as SAVE would write it now (`Engine::rdb_image`): every db, TTL
    /// and function library, byte-compatible with redis-server 7.0's (the page's download).
    pub fn rdb_image(&self) -> Vec<u8> {
        self.servers.main.engine.rdb_image()
    }

    /// Loads an RDB file as the server's own (`Session::load_rdb_file`): `{ok: true, version,
    /// keysLoaded, keysExpired, emptyKeysSkipped, libraries}`, or `{ok: false, error}` with
    /// Redis's words for why it doesn't load — and then nothing changed.
    pub fn load_rdb(&mut self, image: &[u8]) -> JsValue {
        let o = Object::new();
        match self.servers.main.load_rdb_file(image) {
            Ok(r) => {
                set(&o, "ok", true);
                set(&o, "version", r.version as f64);
                set(&o, "keysLoaded", r.keys_loaded as f64);
                set(&o, "keysExpired", r.keys_expired as f64);
                set(&o, "emptyKeysSkipped", r.empty_keys_skipped as f64);
                set(&o, "libraries", r.libraries as f64);
            }
            Err(e) => {
                set(&o, "ok", false);
                set(&o, "error", e);
            }
        }
        self.servers.settle();
        o.into()
    }

    /// A fresh engine with the same seed and start time.
    pub fn reset(&mut self) {
        self.servers.reset();
    }

    /// The command table for completion and docs: `[{name, summary, group, since, arity,
    /// playground}]`, subcommands as `config|get`.
    pub fn commands(&self) -> JsValue {
        let arr = Array::new();
        for c in &table().commands {
            for cmd in std::iter::once(c).chain(c.subcommands.iter()) {
                let o = Object::new();
                set(&o, "name", cmd.name.as_str());
                set(&o, "summary", cmd.summary.as_str());
                set(&o, "group", cmd.group.as_str());
                set(&o, "since", cmd.since.as_str());
                set(&o, "arity", cmd.arity as f64);
                set(&o, "playground", cmd.playground);
                arr.push(&o);
            }
        }
        arr.into()
    }

    /// Keys in a database (live and not yet reclaimed).
    pub fn dbsize(&self, db: u32) -> f64 {
        self.servers.main.engine.dbsize(db as usize) as f64
    }

    /// The database the console is using (SELECT).
    pub fn current_db(&self) -> u32 {
        self.servers.main.engine.client_db(self.servers.main.client).unwrap_or(0) as u32
    }

    /// A page of keys for the keyspace view: `{db, total, volatile, offset, keys: [{key, type,
    /// encoding, len, expire_at_ms, expired}]}`. `pattern` is a Redis glob (optional).
    pub fn keyspace(&self, db: u32, offset: u32, count: u32, pattern: Option<String>) -> JsValue {
        let page = crate::introspect::keyspace_page(
            &self.servers.main.engine,
            db as usize,
            offset as usize,
            count as usize,
            pattern.as_deref().map(str::as_bytes),
        );
        to_js(&page)
    }

    /// The expires table of a db folded into `cells` cells (bucket order) with the active
    /// expire cursor: `{db, table_size, volatile, stale, keys, cursor_bucket, buckets_per_cell,
    /// cells: [{live, stale}]}`. O(keys with a TTL): call it when something changed.
    pub fn expire_field(&self, db: u32, cells: u32) -> JsValue {
        match crate::introspect::expire_field(&self.servers.main.engine, db as usize, cells as usize) {
            Some(f) => to_js(&f),
            None => JsValue::NULL,
        }
    }

    /// Buckets `start..start+count` of a db's expires table with their chains:
    /// `[{bucket, keys: [{key, ttl_ms, expired}]}]`.
    pub fn expire_buckets(&self, db: u32, start: u32, count: u32) -> JsValue {
        to_js(&crate::introspect::expire_buckets(
            &self.servers.main.engine,
            db as usize,
            start as usize,
            count as usize,
        ))
    }

    /// Creates `count` keys `<prefix><n>` with TTLs drawn (seeded) between `min_ms` and `max_ms`,
    /// `distribution` "uniform" or "exponential". Not a Redis command. Returns the number made.
    pub fn populate(&mut self, db: u32, count: u32, prefix: &str, min_ms: f64, max_ms: f64, distribution: &str) -> u32 {
        let (lo, hi) = (clock_ms(min_ms), clock_ms(max_ms));
        let made = self.servers.main.engine.populate_volatile(
            db as usize,
            count as usize,
            prefix.as_bytes(),
            lo,
            hi,
            distribution == "exponential",
        ) as u32;
        self.servers.settle();
        made
    }

    /// The LRU-approximation experiment on a separate engine: `{keys, samples,
    /// evicted_by_decile: [10 shares, oldest tenth first], new_keys_evicted, evicted_total}`;
    /// `samples` 0 is true LRU.
    pub fn lru_experiment(&self, keys: u32, samples: u32, seed: f64) -> JsValue {
        let seed = if seed.is_finite() { seed.abs() as u64 } else { 1 };
        to_js(&crate::sim::lru_experiment::run(keys as usize, samples as usize, seed))
    }

    /// A window of a sorted set for the sorted-set view: `{key, encoding, len, max_level,
    /// header_spans, start, entries: [{rank, member, score, level, spans}], max_entries,
    /// max_value}`, or null if `key` is not a sorted set.
    pub fn zset_window(&self, db: u32, key: &str, start: f64, count: u32) -> JsValue {
        let start = if start.is_finite() && start > 0.0 { start as u64 } else { 0 };
        match crate::introspect::zset_window(
            &self.servers.main.engine,
            db as usize,
            key.as_bytes(),
            start,
            count as usize,
        ) {
            Some(w) => to_js(&w),
            None => JsValue::NULL,
        }
    }
}

/// An engine served over RESP without sockets (`net::batch`): the binding under the JS client
/// (`www/client/redis.js`). Each connection is an engine client; one call carries any number of
/// commands as RESP requests (arrays of bulk strings, or inline lines) and returns everything
/// the connection received as RESP (RESP2, or RESP3 after HELLO 3) — one crossing per batch.
///
/// ```js
/// const server = new RespServer(42, Date.now());   // seed and start time, both optional
/// const c = server.connect();
/// server.call(c, bytes);          // Uint8Array of requests → Uint8Array of replies and pushes
/// server.pending();               // connections with output waiting (messages, late replies)
/// server.take(c);                 // that output
/// server.advance(1000);           // the virtual clock: cron runs, blocked clients time out
/// ```
/// A protocol error is replied to (`-ERR Protocol error: …`) and closes the connection, as
/// redis-server does; so does QUIT. A closed connection takes no input (`closed(c)` says so).
#[wasm_bindgen]
pub struct RespServer {
    engine: crate::engine::Engine,
    conns: crate::net::batch::Connections,
    /// `call_input`'s requests, written by the host straight into linear memory (`input`).
    input: Vec<u8>,
    /// `call_input`'s last output, read by the host from linear memory (`output_ptr`).
    output: Vec<u8>,
}

/// Lua instructions a call runs of a script that outlived its first slice, before it returns
/// (the rest runs in later calls, or from `run_script_slice`).
const CALL_SCRIPT_STEPS: u64 = 1_000_000;

#[wasm_bindgen]
impl RespServer {
    /// `seed`: any number (default: random); `start_ms`: the clock's start in Unix ms (default:
    /// the engine's fixed default, 2025-01-01T00:00:00Z).
    #[wasm_bindgen(constructor)]
    pub fn new(seed: Option<f64>, start_ms: Option<f64>) -> RespServer {
        let mut engine = crate::engine::Engine::new(engine_options(seed, start_ms));
        // No view reads this engine's event log: it is not kept (as in benches/engine.rs).
        engine.set_event_recording(false);
        RespServer { engine, conns: crate::net::batch::Connections::new(), input: Vec::new(), output: Vec::new() }
    }

    /// The engine's linear memory (a `WebAssembly.Memory`): where `input` and `output_ptr`
    /// point. Its `buffer` is replaced when it grows; a host re-reads it then.
    pub fn memory(&self) -> JsValue {
        wasm_bindgen::memory()
    }

    /// `call` without a copy or an allocation per call on the host's side: the host writes `len`
    /// bytes of requests at the address this returns (room for them, valid until the next
    /// `input` or `call_input`), calls `call_input(conn, len)`, and reads its result's length
    /// at `output_ptr()`. A buffer grown past 1 MB for one big call is given back after it.
    pub fn input(&mut self, len: u32) -> u32 {
        let len = len as usize;
        if self.input.capacity() > (1 << 20) && len < self.input.capacity() / 4 {
            self.input = Vec::new();
        }
        // Zeroed, so the host never reads uninitialised memory as requests.
        self.input.resize(len, 0);
        self.input.as_mut_ptr() as u32
    }

    /// `call` on the first `len` bytes `input` made room for; the output's length (its bytes
    /// are at `output_ptr()` until the next call of this server).
    pub fn call_input(&mut self, conn: u32, len: u32) -> u32 {
        // The last output is read by now: freed before this call allocates its own.
        self.output = Vec::new();
        let len = (len as usize).min(self.input.len());
        let mut out = self.conns.call(&mut self.engine, conn, &self.input[..len]);
        if self.engine.busy_script().is_some() {
            self.settle_script();
            out.extend(self.conns.take(&mut self.engine, conn));
        }
        self.output = out;
        self.output.len() as u32
    }

    /// Where `call_input`'s output is.
    pub fn output_ptr(&self) -> u32 {
        self.output.as_ptr() as u32
    }

    /// A new connection (a new client of the engine): its number.
    pub fn connect(&mut self) -> u32 {
        self.conns.open(&mut self.engine)
    }

    /// Feeds `requests` to connection `conn`, runs every command that can run, and returns
    /// what `conn` received (replies and pushes, in order).
    pub fn call(&mut self, conn: u32, requests: &[u8]) -> Vec<u8> {
        let mut out = self.conns.call(&mut self.engine, conn, requests);
        if self.engine.busy_script().is_some() {
            self.settle_script();
            out.extend(self.conns.take(&mut self.engine, conn));
        }
        out
    }

    /// What connection `conn` received outside its own calls.
    pub fn take(&mut self, conn: u32) -> Vec<u8> {
        self.conns.take(&mut self.engine, conn)
    }

    /// The connections with output waiting.
    pub fn pending(&mut self) -> Vec<u32> {
        self.conns.pending(&mut self.engine)
    }

    /// Whether connection `conn` is closed (QUIT, a protocol error, CLIENT KILL, `close`).
    pub fn closed(&self, conn: u32) -> bool {
        self.conns.is_closed(conn)
    }

    /// Closes connection `conn`: its client leaves the engine.
    pub fn close(&mut self, conn: u32) {
        self.conns.close(&mut self.engine, conn);
    }

    /// The CLIENT ID connection `conn` has (0 when closed).
    pub fn client_id(&self, conn: u32) -> f64 {
        self.conns.client_of(conn).unwrap_or(0) as f64
    }

    /// Moves the virtual clock `ms` forward (serverCron for each tick crossed, blocked clients
    /// timing out, their waiting commands run); returns the new time.
    pub fn advance(&mut self, ms: f64) -> f64 {
        let ms = if ms.is_finite() && ms > 0.0 { ms as i64 } else { 0 };
        let to = self.engine.now_ms().saturating_add(ms).min(MAX_CLOCK_MS);
        self.engine.advance_to(to, u64::MAX);
        self.conns.serve(&mut self.engine);
        self.settle_script();
        self.engine.now_ms() as f64
    }

    /// Sets the virtual clock (Unix ms), without running cron.
    pub fn set_time(&mut self, now_ms: f64) {
        self.engine.set_time(clock_ms(now_ms));
        self.conns.serve(&mut self.engine);
    }

    /// The virtual clock, Unix ms.
    pub fn now(&self) -> f64 {
        self.engine.now_ms() as f64
    }

    /// Whether a script still runs (past `call`'s budget): `run_script_slice` goes on with it.
    pub fn script_busy(&self) -> bool {
        self.engine.busy_script().is_some()
    }

    /// Runs up to `max_steps` more Lua instructions of a busy script, then whatever waited for
    /// it; whether one still runs.
    pub fn run_script_slice(&mut self, max_steps: f64) -> bool {
        let steps = if max_steps.is_finite() && max_steps >= 1.0 { max_steps as u64 } else { 1 };
        if self.engine.busy_script().is_some() {
            self.engine.run_script_slice(steps);
            self.conns.serve(&mut self.engine);
        }
        self.engine.busy_script().is_some()
    }
}

impl RespServer {
    /// A script past its first slice runs on within a budget; commands that waited for it run.
    fn settle_script(&mut self) {
        if self.engine.busy_script().is_some() {
            self.engine.run_script_slice(CALL_SCRIPT_STEPS);
            self.conns.serve(&mut self.engine);
        }
    }
}

/// The delay-queue lab (src/sim/delay_queue/): producers and consumers racing on a ZSET in
/// virtual time, on an engine of its own.
///
/// ```js
/// const lab = new DelayQueueLab({ strategy: 2, consumers: 2, rttMs: 2, seed: 7 });
/// lab.run_until(60_000, 5_000);   // {now, done}: at most 5000 sim events per call
/// lab.drain();                    // {events: [...], dropped}
/// lab.metrics();                  // {now, tasks, paid, onTime, late, duplicates, lost, …}
/// ```
/// Times are ms since the start of the run. Events are emitted when they are complete, so
/// a `process` or `sleep` event arrives at its end carrying its start (`start`/`from`); the
/// order of events is the order things completed. For strategy 5 a `message`'s `task` is the
/// announced due time (Unix ms), for strategy 4 the expired key.
#[wasm_bindgen]
pub struct DelayQueueLab {
    sim: crate::sim::delay_queue::Sim,
}

#[wasm_bindgen]
impl DelayQueueLab {
    /// Throws `Error("delay-queue: …")` naming the bad field.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<DelayQueueLab, JsValue> {
        use crate::sim::delay_queue::{input::ConfigInput, Sim};
        let fail = |m: String| sim_error("delay-queue", m);
        let cfg = sim_input::<ConfigInput>(config, "delay-queue")?.into_config().map_err(fail)?;
        Ok(DelayQueueLab { sim: Sim::new(cfg).map_err(fail)? })
    }

    /// Runs up to `t_ms` (capped at the duration), at most `max_steps` sim events (default:
    /// no cap); `{now, done}`.
    pub fn run_until(&mut self, t_ms: f64, max_steps: Option<f64>) -> JsValue {
        let t = if t_ms.is_nan() { 0 } else { t_ms.clamp(0.0, 1e15) as i64 };
        let steps = max_steps.filter(|s| s.is_finite() && *s >= 1.0).map_or(u64::MAX, |s| s as u64);
        let done = self.sim.run_until(t, steps);
        let o = Object::new();
        set(&o, "now", self.sim.now() as f64);
        set(&o, "done", done);
        o.into()
    }

    /// The sim events since the last drain: `{events, dropped}`.
    pub fn drain(&mut self) -> JsValue {
        let (events, dropped) = self.sim.drain();
        let o = Object::new();
        set(&o, "events", to_js(&events));
        set(&o, "dropped", dropped as f64);
        o.into()
    }

    pub fn metrics(&mut self) -> JsValue {
        to_js(self.sim.metrics())
    }

    /// When the next thing happens (ms since start), or -1 once the run is over.
    pub fn next_event_ms(&self) -> f64 {
        self.sim.next_event_ms().map_or(-1.0, |t| t as f64)
    }

    pub fn now(&self) -> f64 {
        self.sim.now() as f64
    }

    pub fn duration_ms(&self) -> f64 {
        self.sim.config().duration_ms as f64
    }

    pub fn start_ms(&self) -> f64 {
        self.sim.config().start_ms as f64
    }

    pub fn done(&self) -> bool {
        self.sim.is_done()
    }

    /// The client code of strategy `n` (1–6), or "" for another number.
    pub fn strategy_code(n: f64) -> String {
        crate::sim::strategies::Strategy::from_number(n as i64).map_or(String::new(), |s| s.code())
    }

    /// The short name of strategy `n` (1–6), or "".
    pub fn strategy_name(n: f64) -> String {
        crate::sim::strategies::Strategy::from_number(n as i64).map_or(String::new(), |s| s.name().to_string())
    }
}

/// The labs' small simulations (src/sim/pipeline.rs, src/sim/cache_aside.rs), each on an engine
/// of its own: `LabSims.pipeline({commands, batch, network, rttUs, server, serviceNs})`,
/// `LabSims.set_burst(n)` (n SETs on a fresh engine, for the page to time),
/// `LabSims.cache_aside({keys, skew, ratePerS, durationMs, dbLatencyMs, dbQps, redisQps, redis,
/// rttMs, ttlS, maxmemory, policy, valueBytes, localSize, localTtlMs, instances, writeRatio,
/// prewarm, seed})`. Both throw `Error("<sim>: …")` on a bad config.
#[wasm_bindgen]
pub struct LabSims;

#[wasm_bindgen]
impl LabSims {
    pub fn pipeline(config: JsValue) -> Result<JsValue, JsValue> {
        use crate::sim::pipeline::{run, ConfigInput};
        let cfg = sim_input::<ConfigInput>(config, "pipeline")?.into_config().map_err(|m| sim_error("pipeline", m))?;
        Ok(to_js(&run(&cfg)))
    }

    /// Runs `n` SETs (at most 1,000,000) on a fresh engine; returns the keys it holds. The page
    /// times this call to measure its engine's cost per command.
    pub fn set_burst(n: f64) -> f64 {
        let n = if n.is_finite() { n.clamp(0.0, 1e6) as u64 } else { 0 };
        crate::sim::pipeline::set_burst(n, 1) as f64
    }

    pub fn cache_aside(config: JsValue) -> Result<JsValue, JsValue> {
        use crate::sim::cache_aside::{run, ConfigInput};
        let cfg =
            sim_input::<ConfigInput>(config, "cache-aside")?.into_config().map_err(|m| sim_error("cache-aside", m))?;
        Ok(to_js(&run(&cfg)))
    }
}
