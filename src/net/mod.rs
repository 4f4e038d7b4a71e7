//! Redis's networking without the network where it can be:
//! - `query.rs`: a client's query buffer parsed as networking.c does (inline and multibulk);
//! - `batch.rs`: connections without sockets — RESP bytes in, RESP bytes out, many commands a
//!   call (the in-process JS client's binding);
//! - `server.rs` (native only): `redisplay serve`, one event loop (mio/epoll, as ae.c) owning
//!   the engine and every socket;
//! - `disk.rs` (native only): files on disk — the RDB file's store, and the server log's format.

pub mod batch;
#[cfg(not(target_arch = "wasm32"))]
pub mod disk;
pub mod query;
#[cfg(not(target_arch = "wasm32"))]
pub mod server;
