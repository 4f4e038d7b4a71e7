//! redisplay — a Redis 7.0 playground engine that runs in the browser.
//!
//! The engine is pure and deterministic: time and randomness are inputs, replies are data,
//! and what it does is reported as plain events. The same code runs natively (the
//! `redisplay` CLI, the tests against a live redis-server) and as WebAssembly (src/wasm.rs,
//! the only file that knows about wasm-bindgen).
//!
//! Map:
//! - `engine`: databases, clients, config, the virtual clock and serverCron, lookups with lazy
//!   expiry, stats, the event log (server.c, db.c).
//! - `command`: the command table (recorded Redis metadata + handlers) and one file per
//!   family named after the Redis file it models.
//! - `db`, `object`, `config`, `memory`, `events`: keyspace, values, config table, used_memory
//!   model, event log.
//! - `reply`, `tokenize`, `cli`: replies and redis-cli's formatting, line splitting and REPL.
//! - `ds`: data structures that know nothing of commands (long double arithmetic so far).
//! - `util`: Redis's number parsing/printing and glob matching.

pub mod blocked;
pub mod cli;
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
pub mod memory;
pub mod notify;
pub mod object;
pub mod pubsub;
pub mod query;
pub mod reply;
pub mod script;
pub mod sim;
pub mod tokenize;
pub mod util;
pub mod zset;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

/// The network server (`redisplay serve`): sockets and threads, so not in the wasm build.
#[cfg(not(target_arch = "wasm32"))]
pub mod server;

pub use cli::{LineOutput, Session};
pub use engine::{Advance, ClientId, Engine, EngineOptions};
pub use events::Event;
pub use reply::Reply;
