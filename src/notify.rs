//! Keyspace notifications: models notify.c `notifyKeyspaceEvent()` — and, because every real
//! modification passes through it, db.c `signalModifiedKey()`: multi.c `touchWatchedKey()`
//! (WATCH) and tracking.c `trackingInvalidateKey()` (client-side caching) — and db.c `dbAdd()`'s
//! `new` event and ready-key signal (blocking pops).
//!
//! Each event belongs to a class (`g` generic, `$` string, `l` list, `s` set, `h` hash, `z` zset,
//! `x` expired, `e` evicted, `m` key-miss, `n` new). When `notify-keyspace-events` enables the
//! class and `K` and/or `E`, the event is published to `__keyspace@<db>__:<key>` (message: the
//! event) and then to `__keyevent@<db>__:<event>` (message: the key), as Redis does, at the moment
//! Redis emits it. Every event is also recorded in the engine's event log for the views.
//! Differences: the `new` event of keys a command creates is published right before that
//! command's next event (or when it ends) rather than inside dbAdd; the order seen by
//! subscribers is the same.

use crate::config::notify::*;
use crate::engine::Engine;
use crate::events::Event;

/// The class an event name belongs to (notify.c's callers pass it alongside the name).
pub fn event_class(event: &str) -> u32 {
    match event {
        "expired" => EXPIRED,
        "evicted" => EVICTED,
        "keymiss" => KEY_MISS,
        "new" => NEW,
        "del" | "expire" | "persist" | "rename_from" | "rename_to" | "copy_to" | "move_from" | "move_to"
        | "restore" => GENERIC,
        "set" | "setrange" | "incrby" | "incrbyfloat" | "append" | "setbit" | "pfadd" => STRING,
        "sortstore" => LIST,
        e if e.starts_with('l') || e.starts_with('r') || e.starts_with('b') => LIST,
        e if e.starts_with('h') => HASH,
        e if e.starts_with('z') => ZSET,
        e if e.starts_with('s') => SET,
        e if e.starts_with('x') => STREAM,
        _ => GENERIC,
    }
}

impl Engine {
    /// notify.c `notifyKeyspaceEvent()` plus `signalModifiedKey()`: records the event, touches
    /// WATCHers of the key (a read miss and a creation don't), publishes if enabled.
    pub(crate) fn notify(&mut self, event: &str, db: usize, key: &[u8]) {
        self.notify_logged(event, db, key, true);
    }

    /// `notify()` for an event the log already records in its own form (expiry's
    /// `Event::Expired`).
    pub(crate) fn notify_logged(&mut self, event: &str, db: usize, key: &[u8], log: bool) {
        if event != "new" {
            self.flush_new_key_events();
        }
        if event != "keymiss" && event != "new" {
            self.signal_modified_key(db, key, event == "expired" || event == "evicted");
        }
        self.publish_keyspace_event(event, db, key, log);
    }

    /// notify.c `notifyKeyspaceEvent()` alone, for the events Redis fires without
    /// `signalModifiedKey()` (XGROUP CREATE/SETID/DESTROY, XSETID, a consumer created by
    /// XREADGROUP…): WATCH is not touched.
    pub(crate) fn notify_unsignalled(&mut self, event: &str, db: usize, key: &[u8]) {
        self.flush_new_key_events();
        self.publish_keyspace_event(event, db, key, true);
    }

    /// db.c `signalModifiedKey()`: touches WATCHers of the key and invalidates it for tracking
    /// clients (tracking.c `trackingInvalidateKey()`), naming the client that made the change
    /// (none for expiry, eviction and a script's lua client). Also for a write with no
    /// keyspace event (PFCOUNT rewriting its cache).
    pub(crate) fn signal_modified_key(&mut self, db: usize, key: &[u8], by_the_server: bool) {
        self.touch_watched_key(db, key);
        // A fork child at work: the key's pages are copied (ForkCow).
        self.child_cow_touch(db, key);
        let by = if self.in_script || by_the_server { None } else { self.current_client };
        self.tracking_invalidate_key(by, key, true);
    }

    fn publish_keyspace_event(&mut self, event: &str, db: usize, key: &[u8], log: bool) {
        if log && self.events.enabled() {
            let at_ms = self.now_ms;
            self.events.push(Event::Keyspace { at_ms, db, event: event.to_string(), key: crate::util::text(key) });
        }
        let flags = self.hot.notify_keyspace_events;
        if flags & event_class(event) == 0 || flags & (KEYSPACE | KEYEVENT) == 0 {
            return;
        }
        if flags & KEYSPACE != 0 {
            let mut channel = format!("__keyspace@{db}__:").into_bytes();
            channel.extend_from_slice(key);
            crate::pubsub::publish(self, &channel, event.as_bytes());
        }
        if flags & KEYEVENT != 0 {
            let channel = format!("__keyevent@{db}__:{event}").into_bytes();
            crate::pubsub::publish(self, &channel, key);
        }
    }

    /// db.c `dbAdd()`'s `new` event and `signalKeyAsReady()`, for the keys created since the
    /// last call; `signalDeletedKeyAsReady()` for the streams deleted since.
    pub(crate) fn flush_new_key_events(&mut self) {
        // Runs several times per command: most find nothing.
        if !self.db_signals.take_news() {
            return;
        }
        for db in 0..self.dbs.len() {
            if !self.dbs[db].gone_streams.is_empty() {
                for key in std::mem::take(&mut self.dbs[db].gone_streams) {
                    self.blocking.signal(db, &key);
                }
            }
            if self.dbs[db].created.is_empty() {
                continue;
            }
            let created = std::mem::take(&mut self.dbs[db].created);
            for key in created {
                if self.dbs[db].contains(&key) {
                    self.blocking.signal(db, &key);
                    self.publish_keyspace_event("new", db, &key, true);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(event_class("lpush"), LIST);
        assert_eq!(event_class("rpop"), LIST);
        assert_eq!(event_class("hset"), HASH);
        assert_eq!(event_class("sinterstore"), SET);
        assert_eq!(event_class("zadd"), ZSET);
        assert_eq!(event_class("set"), STRING);
        assert_eq!(event_class("del"), GENERIC);
        assert_eq!(event_class("expired"), EXPIRED);
        assert_eq!(event_class("xadd"), STREAM);
        assert_eq!(event_class("xgroup-createconsumer"), STREAM);
    }
}
