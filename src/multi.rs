//! multi.c's bookkeeping below the commands: `touchWatchedKey()` (every write, expiry and
//! eviction reaches it through notify.rs), `touchAllWatchedKeysInDb()` (FLUSHDB, FLUSHALL,
//! SWAPDB), `unwatchAllKeys()` and `discardTransaction()`. The commands (MULTI, EXEC, WATCH…) and
//! the 7.0 rules they keep are in command/multi.rs.

use crate::engine::{ClientId, Engine};

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
