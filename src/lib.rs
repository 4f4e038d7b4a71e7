//! redisplay — a Redis 7.0 playground engine that runs in the browser.
//!
//! The engine is pure and deterministic: time and randomness are inputs, replies are data,
//! and what it does is reported as plain events. The same code runs natively (the
//! `redisplay` CLI, `redisplay serve`, the tests against a live redis-server) and as
//! WebAssembly (`wasm`, the only module that knows about wasm-bindgen).
//!
//! ## Map
//!
//! Each module below is named after the Redis file it models where there is one; each file's
//! header names the Redis functions it models and its deviations. (tests/module_graph.rs checks
//! that this list names every module and no other.)
//!
//! The server and its state:
//! - `engine`: server.h — the `Engine` (dbs, clients, config, the virtual clock, the seeded RNG,
//!   stats, the event log) and the state each subsystem keeps; clients, keyspace lookups with
//!   lazy expiry, serverCron.
//! - `command`: the command table (metadata recorded from Redis + handlers), dispatch
//!   (`processCommand()` → `call()`) and one file per command family.
//! - `db`: one database (its dict and expires tables); `object`: values, their encodings, LRU/LFU fields.
//! - `config`: every config parameter, its validation and default (config.c).
//! - `memory`: the used_memory model (zmalloc/jemalloc size classes, `objectComputeSize()`);
//!   `cost`: the CPU cost model behind every time budget.
//! - `expire`: the active expire cycle; `evict`: maxmemory and its policies.
//! - `slowlog`: the slow log; `latency`: the latency monitor (LATENCY DOCTOR, GRAPH).
//! - `notify`: keyspace notifications; `pubsub`: channels, patterns, shard channels, delivery;
//!   `multi`: the WATCH bookkeeping; `blocked`: blocking commands in virtual time.
//! - `tracking`: client-side caching (CLIENT TRACKING's table, BCAST prefixes, invalidations);
//!   `pause`: CLIENT PAUSE (postponed commands, the dataset standing still); `monitor`: MONITOR's
//!   feed.
//! - `script`: Lua — the state, `redis.call`, the conversions.
//! - `acl`: users, their rules and selectors, the permission check, the ACL log (acl.c).
//! - `persist`: the RDB value encoding behind DUMP/RESTORE (and RDB files), LZF, CRC64.
//! - `propagate`: the stream of writes an AOF and replicas get (`alsoPropagate()`, the
//!   rewrites that make a replay give the same data, MULTI/EXEC wrapping, SELECT insertion).
//! - `replication`: both roles of replication.c — the backlog, SYNC/PSYNC, the replicas' stream,
//!   WAIT; REPLICAOF's handshake, the master's stream applied, a replica's expiry rules.
//! - `zset`: the sorted-set type (listpack ↔ skiplist) shared by ZSET and GEO commands.
//! - `events`: what the engine did, as plain data for the views.
//!
//! Around it:
//! - `reply`: replies, redis-cli's formatter, RESP2/RESP3; `tokenize`: redis-cli's line
//!   splitting; `session`: the redis-cli REPL the page and the CLI share.
//! - `introspect`: windowed snapshots for the views (playground-only).
//! - `sim`: simulated clients and workloads (the delay queue, cache-aside, pipelining, LRU).
//! - `ds`: data structures that know nothing of commands (skiplist, intset, listpack, ziplist,
//!   dict shape, geohash, pqsort, long double); `util`: Redis's number parsing/printing, glob matching, SHA1.
//! - `net`: the query buffer and socketless batched connections (everywhere), `redisplay
//!   serve` (native only); `wasm`: the browser bindings, wasm32 only.
//!
//! ## The circle
//!
//! The module graph (imports, and calls of `Engine` methods) has one circle, and it is Redis's
//! own re-entrancy: a command that runs commands. EXEC runs its queue through `call()`, and
//! EVAL (and FCALL) runs a script whose `redis.call` goes through `call()` to any handler —
//! EVAL included. Loading an AOF runs the file's commands through `call()` too, and DEBUG
//! LOADAOF is a command that does it. tests/module_graph.rs fails if the circle changes; these
//! are its modules: `command::dispatch`, `command::table`, `command::multi`, `command::eval`,
//! `command::functions`, `script::call`, `command::aof_load`, `command::debug`.

pub mod acl;
pub mod blocked;
pub mod command;
pub mod config;
pub mod cost;
pub mod db;
pub mod ds;
pub mod engine;
pub mod events;
pub mod evict;
pub mod expire;
pub mod introspect;
pub mod latency;
pub mod memory;
pub mod monitor;
pub mod multi;
pub mod notify;
pub mod object;
pub mod pause;
pub mod persist;
pub mod propagate;
pub mod pubsub;
pub mod replication;
pub mod reply;
pub mod script;
pub mod session;
pub mod sim;
pub mod slowlog;
pub mod tokenize;
pub mod tracking;
pub mod util;
pub mod zset;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

/// Query parsing and batched connections everywhere; the network server (`redisplay serve`:
/// sockets and an event loop) not in the wasm build.
pub mod net;

pub use engine::{Advance, ClientId, Engine, EngineOptions};
pub use events::Event;
pub use reply::Reply;
pub use session::{LineOutput, Session};
