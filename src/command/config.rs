//! config.c commands: CONFIG GET, SET, RESETSTAT, REWRITE (HELP is the recorded reply).
//! Validation and messages live in the config table (src/config.rs).

use crate::command::call::Call;
use crate::command::syntax_error;
use crate::engine::{Engine, Stats};
use crate::events::Event;
use crate::reply::Reply;

pub fn config_get(e: &mut Engine, c: &Call) -> Reply {
    let pairs = e.config.get(&c.argv[2..]);
    Reply::Map(pairs.into_iter().map(|(name, value)| (Reply::Bulk(name), Reply::Bulk(value.into_bytes()))).collect())
}

pub fn config_set(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() % 2 == 1 {
        return syntax_error();
    }
    let pairs: Vec<(Vec<u8>, Vec<u8>)> = c.argv[2..].chunks(2).map(|p| (p[0].clone(), p[1].clone())).collect();
    match e.config.set(&pairs) {
        Ok(changed) => {
            for name in changed {
                let value = e.config.get(&[name.as_bytes().to_vec()]).pop().map(|(_, v)| v).unwrap_or_default();
                let at_ms = e.now_ms();
                e.events.push(Event::Config { at_ms, name: name.to_string(), value });
            }
            e.config_changed();
            Reply::ok()
        }
        Err(msg) => {
            let mut err = b"ERR ".to_vec();
            err.extend(msg);
            Reply::Error(err)
        }
    }
}

/// server.c `resetServerStats()`: counters back to zero (keyspace and config untouched).
pub fn config_resetstat(e: &mut Engine, _c: &Call) -> Reply {
    let dirty = e.stats.dirty;
    e.stats = Stats { dirty, ..Stats::default() };
    Reply::ok()
}

/// The playground, like a server started without a config file, has nothing to rewrite.
pub fn config_rewrite(_e: &mut Engine, _c: &Call) -> Reply {
    Reply::err("ERR The server is running without a config file")
}
