//! config.c commands: CONFIG GET, SET, RESETSTAT, REWRITE (HELP is the recorded reply).
//! Validation and messages live in the config table (src/config.rs).

use crate::command::call::Call;
use crate::command::syntax_error;
use crate::engine::{Engine, Stats};
use crate::events::Event;
use crate::reply::Reply;

pub fn config_get(e: &mut Engine, c: &Call) -> Reply {
    let port = e.tcp_port.to_string();
    let pairs = e.config.get(&c.argv[2..]);
    Reply::Map(
        pairs
            .into_iter()
            .map(|(name, value)| {
                // `port` is the one the engine answers on.
                let value = if name.eq_ignore_ascii_case(b"port") { port.clone() } else { value };
                (Reply::Bulk(name), Reply::Bulk(value.into_bytes()))
            })
            .collect(),
    )
}

pub fn config_set(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() % 2 == 1 {
        return syntax_error();
    }
    let pairs: Vec<(Vec<u8>, Vec<u8>)> = c.argv[2..].chunks(2).map(|p| (p[0].clone(), p[1].clone())).collect();
    let local = e.clients.get(&c.client).is_none_or(|cl| cl.is_local());
    let protected_ok = match e.config.str("enable-protected-configs") {
        "yes" => true,
        "local" => local,
        _ => false,
    };
    let port = e.tcp_port.to_string();
    // The apply step of config.c: the playground cannot listen on another port (updatePort()
    // failing); everything else applies (Engine::config_changed).
    let apply = |name: &str, value: &str| -> Result<(), String> {
        if name == "port" && value != port {
            return Err("Unable to listen on this port. Check server logs.".into());
        }
        Ok(())
    };
    match e.config.set(&pairs, protected_ok, apply) {
        Ok(changed) => {
            for name in changed {
                let value = e.config.render_name(name).unwrap_or_default();
                let at_ms = e.now_ms();
                e.events.push(Event::Config { at_ms, name: name.to_string(), value });
            }
            e.config_changed();
            // config.c updateAppendonly(): the AOF follows `appendonly` (at runtime only: at
            // startup the AOF is loaded instead, Engine::load_data_from_disk).
            e.update_appendonly();
            Reply::ok()
        }
        Err(msg) => {
            let mut err = b"ERR ".to_vec();
            err.extend(msg);
            Reply::Error(err)
        }
    }
}

/// config.c `configResetStatCommand()`: server.c `resetServerStats()`, the command table's
/// counters and latency histograms (`resetCommandTableStats()`) and the error counters
/// (`resetErrorTableStats()`). The dataset's dirty counter and the memory peak stay.
pub fn config_resetstat(e: &mut Engine, _c: &Call) -> Reply {
    let (dirty, peak_memory) = (e.stats.dirty, e.stats.peak_memory);
    e.stats = Stats { dirty, peak_memory, ..Stats::default() };
    Reply::ok()
}

/// The playground, like a server started without a config file, has nothing to rewrite.
pub fn config_rewrite(_e: &mut Engine, _c: &Call) -> Reply {
    Reply::err("ERR The server is running without a config file")
}
