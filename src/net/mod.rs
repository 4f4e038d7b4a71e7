//! `redisplay serve`: the engine behind a TCP port, native only.
//! - `server.rs`: one event loop (mio/epoll, as ae.c) owning the engine and every socket;
//! - `query.rs`: a client's query buffer parsed as networking.c does (inline and multibulk);
//! - `disk.rs`: files on disk — the RDB file's store, and the server log's format.

pub mod disk;
pub mod query;
pub mod server;
