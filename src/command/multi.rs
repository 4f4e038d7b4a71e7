//! Transactions: models multi.c — MULTI, EXEC, DISCARD, WATCH, UNWATCH, `queueMultiCommand()`
//! (in engine.rs `process_command()`), `flagTransaction()` (engine.rs `reject()`),
//! `watchForKey()`, `unwatchAllKeys()`, `isWatchedKeyExpired()`, `touchWatchedKey()` and
//! `touchAllWatchedKeysInDb()`.
//!
//! 7.0 rules kept: an error while queueing dooms the EXEC (`EXECABORT`); runtime errors appear in
//! place and nothing is rolled back; a touched WATCHed key — or one that logically expired since
//! WATCH — makes EXEC answer a null array; a key already expired when WATCHed does not count as
//! changed when it is then deleted, and (Redis's loop quirk, kept) a watcher of an expired-at-WATCH
//! key that is now present stops the touch loop for the watchers after it. The virtual clock does
//! not move during a command, so the whole EXEC sees one time.

use crate::command::table::{table, Call, Lookup};
use crate::engine::{ClientId, Engine};
use crate::reply::Reply;

impl Engine {
    /// multi.c `touchWatchedKey()`: a modification of `key` dooms the EXEC of its watchers.
    pub(crate) fn touch_watched_key(&mut self, db: usize, key: &[u8]) {
        if self.watched_keys.is_empty() {
            return;
        }
        let Some(watchers) = self.watched_keys.get(&(db, key.to_vec())).cloned() else {
            return;
        };
        let exists = self.dbs[db].contains(key);
        for id in watchers {
            let Some(c) = self.clients.get_mut(&id) else { continue };
            let Some(wk) = c.watched.iter_mut().find(|(d, k, _)| *d == db && k == key) else { continue };
            if wk.2 {
                if !exists {
                    wk.2 = false;
                    continue;
                }
                break;
            }
            c.dirty_cas = true;
            self.unwatch_all(id);
        }
    }

    /// multi.c `touchAllWatchedKeysInDb()`: FLUSHDB/FLUSHALL (`replaced_with` None) and SWAPDB.
    /// Called before the db is emptied (or, for SWAPDB, with the contents still unswapped:
    /// `emptied` is the db whose current contents go away from its index).
    pub(crate) fn touch_all_watched_keys_in_db(&mut self, emptied: usize, replaced_with: Option<usize>) {
        let keys: Vec<(Vec<u8>, Vec<ClientId>)> = self
            .watched_keys
            .iter()
            .filter(|((d, _), _)| *d == emptied)
            .map(|((_, k), v)| (k.clone(), v.clone()))
            .collect();
        let now = self.now_ms;
        for (key, watchers) in keys {
            let exists_in_emptied = self.dbs[emptied].contains(&key);
            let in_replacement = replaced_with.is_some_and(|r| self.dbs[r].contains(&key));
            if !exists_in_emptied && !in_replacement {
                continue;
            }
            let replacement_expired = replaced_with.is_some_and(|r| self.dbs[r].is_expired(&key, now));
            for id in watchers {
                let Some(c) = self.clients.get_mut(&id) else { continue };
                let Some(wk) = c.watched.iter_mut().find(|(d, k, _)| *d == emptied && *k == key) else { continue };
                if wk.2 {
                    if !in_replacement {
                        wk.2 = false;
                        continue;
                    } else if replacement_expired {
                        continue;
                    }
                } else if !exists_in_emptied && replacement_expired {
                    wk.2 = true;
                    continue;
                }
                c.dirty_cas = true;
            }
        }
    }

    /// multi.c `unwatchAllKeys()` (the DIRTY_CAS flag is the caller's business).
    pub(crate) fn unwatch_all(&mut self, client: ClientId) {
        let Some(c) = self.clients.get_mut(&client) else { return };
        for (db, key, _) in std::mem::take(&mut c.watched) {
            let slot = (db, key);
            if let Some(list) = self.watched_keys.get_mut(&slot) {
                list.retain(|&id| id != client);
                if list.is_empty() {
                    self.watched_keys.remove(&slot);
                }
            }
        }
    }

    /// multi.c `discardTransaction()`.
    pub(crate) fn discard_transaction(&mut self, client: ClientId) {
        if let Some(c) = self.clients.get_mut(&client) {
            c.queued.clear();
            c.in_multi = false;
            c.dirty_cas = false;
            c.dirty_exec = false;
        }
        self.unwatch_all(client);
    }
}

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
    for argv in &queued {
        let reply = match table().lookup(argv) {
            Lookup::Found(cmd) => e.call(c.client, cmd, argv),
            Lookup::Rejected(err) => err,
        };
        replies.push(reply);
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
