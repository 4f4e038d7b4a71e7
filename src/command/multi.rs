//! Transactions: models multi.c's commands — MULTI, EXEC, DISCARD, WATCH (`watchForKey()`,
//! `isWatchedKeyExpired()`), UNWATCH. `queueMultiCommand()` and `flagTransaction()` are in
//! dispatch.rs (`process_command()`, `reject()`); the WATCH bookkeeping every write reaches
//! (`touchWatchedKey()`, `touchAllWatchedKeysInDb()`, `unwatchAllKeys()`) is ../multi.rs.
//!
//! 7.0 rules kept: an error while queueing dooms the EXEC (`EXECABORT`); runtime errors appear in
//! place and nothing is rolled back; a touched WATCHed key — or one that logically expired since
//! WATCH — makes EXEC answer a null array; a key already expired when WATCHed does not count as
//! changed when it is then deleted, and (Redis's loop quirk, kept) a watcher of an expired-at-WATCH
//! key that is now present stops the touch loop for the watchers after it. The virtual clock does
//! not move during a command, so the whole EXEC sees one time.

use crate::command::call::{Call, Lookup};
use crate::engine::Engine;
use crate::reply::Reply;

pub fn multi(e: &mut Engine, c: &Call) -> Reply {
    let Some(cl) = e.clients.get_mut(&c.client) else { return Reply::err("ERR no such client") };
    if cl.in_multi {
        return Reply::err("ERR MULTI calls can not be nested");
    }
    cl.in_multi = true;
    Reply::ok()
}

pub fn discard(e: &mut Engine, c: &Call) -> Reply {
    if !e.clients.get(&c.client).is_some_and(|cl| cl.in_multi) {
        return Reply::err("ERR DISCARD without MULTI");
    }
    e.discard_transaction(c.client);
    Reply::ok()
}

pub fn exec(e: &mut Engine, c: &Call) -> Reply {
    let now = e.now_ms;
    let Some(cl) = e.clients.get_mut(&c.client) else { return Reply::err("ERR no such client") };
    if !cl.in_multi {
        return Reply::err("ERR EXEC without MULTI");
    }
    // isWatchedKeyExpired(): keys that expired since WATCH (but were alive then) abort too.
    let dbs = &e.dbs;
    if cl.watched.iter().any(|(db, key, was_expired)| !was_expired && dbs[*db].is_expired(key, now)) {
        cl.dirty_cas = true;
    }
    if cl.dirty_exec || cl.dirty_cas {
        let reply = if cl.dirty_exec {
            Reply::err("EXECABORT Transaction discarded because of previous errors.")
        } else {
            Reply::NilArray
        };
        e.discard_transaction(c.client);
        return reply;
    }
    let queued = std::mem::take(&mut cl.queued);
    e.unwatch_all(c.client);
    let mut replies = Vec::with_capacity(queued.len());
    e.exec_running = true;
    for argv in &queued {
        let reply = match c.table.lookup(argv) {
            // ACLs are checked again: the rules may have changed since the command was queued.
            Lookup::Found(cmd) => match e.acl_check(c.client, cmd, argv) {
                Ok(()) => e.call(c.client, cmd, argv),
                Err(denied) => {
                    e.acl_log_denied(c.client, cmd, argv, denied, crate::acl::Context::Multi);
                    e.stats.total_error_replies += 1;
                    super::acl::noperm_at_exec(denied)
                }
            },
            Lookup::Rejected(err) => err,
        };
        replies.push(reply);
    }
    // The queue is freed: values stored from its arguments are theirs alone again.
    e.exec_running = false;
    for db in e.dbs.iter_mut() {
        db.release_exec_argv();
    }
    e.discard_transaction(c.client);
    Reply::Array(replies)
}

pub fn watch(e: &mut Engine, c: &Call) -> Reply {
    let now = e.now_ms;
    let Some(cl) = e.clients.get(&c.client) else { return Reply::err("ERR no such client") };
    if cl.in_multi {
        return Reply::err("ERR WATCH inside MULTI is not allowed");
    }
    // No point in watching once the client is already dirty.
    if cl.dirty_cas {
        return Reply::ok();
    }
    let db = c.db;
    for key in &c.argv[1..] {
        let expired = e.dbs[db].is_expired(key, now);
        let Some(cl) = e.clients.get_mut(&c.client) else { break };
        if cl.watched.iter().any(|(d, k, _)| *d == db && k == key) {
            continue;
        }
        cl.watched.push((db, key.clone(), expired));
        e.watched_keys.entry((db, key.clone())).or_default().push(c.client);
    }
    Reply::ok()
}

pub fn unwatch(e: &mut Engine, c: &Call) -> Reply {
    e.unwatch_all(c.client);
    if let Some(cl) = e.clients.get_mut(&c.client) {
        cl.dirty_cas = false;
    }
    Reply::ok()
}
