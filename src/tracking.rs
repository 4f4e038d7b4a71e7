//! Client-side caching: models tracking.c — `enableTracking()`, `disableTracking()`,
//! `enableBcastTrackingForPrefix()`, `checkPrefixCollisionsOrReply()`, `trackingRememberKeys()`,
//! `sendTrackingMessage()`, `trackingInvalidateKey()` (with `trackingRememberKeyToBroadcast()`),
//! `trackingHandlePendingKeyInvalidations()`, `trackingInvalidateKeysOnFlush()`,
//! `trackingLimitUsedSlots()` and `trackingBroadcastInvalidationMessages()`. The CLIENT
//! subcommands that drive it are in command/tracking.rs.
//!
//! A tracking client (CLIENT TRACKING on) has the keys of every read-only command it runs
//! remembered in one table, key → client ids; the first change of such a key — a write, an
//! expiry, an eviction, a flush — sends each of them an invalidation and forgets the key, so the
//! next read remembers it again. In BCAST mode nothing is remembered: every key changed under
//! one of the client's prefixes is collected, and the collected keys go out once per event-loop
//! iteration (`before_sleep`), sorted, one message per prefix. Messages are RESP3 pushes
//! (`invalidate` + an array of keys, or a null after FLUSHDB/FLUSHALL) to the client itself, or
//! — REDIRECT — to another client, which over RESP2 gets them as Pub/Sub `message`s on
//! `__redis__:invalidate` if it is in Pub/Sub mode. Invalidations for the client whose command
//! causes them wait until that command has replied (`tracking_pending_keys`).
//!
//! The keys tracked are those of the command as tracking.c sees it in 7.0: for a `redis.call`
//! inside a script, the keys of the script's caller (EVAL's KEYS), not the call's own.
//!
//! Deviations: the table is an insertion-ordered map, not a rax, and trackingLimitUsedSlots'
//! random walk picks uniformly with the engine's RNG; the ids of one key are visited in numeric
//! order (Redis: the byte order of their in-memory form); a flush's null is encoded in the
//! protocol of the client that receives it (Redis writes the tracking client's own null, so a
//! RESP3 tracking client redirecting to a RESP2 one sends it `_`).

use std::collections::BTreeSet;

use crate::engine::{ClientId, ClientTracking, Engine};
use crate::reply::Reply;
use crate::util::text;

/// The channel RESP2 redirection targets receive invalidations on.
pub const INVALIDATION_CHANNEL: &[u8] = b"__redis__:invalidate";

/// CLIENT TRACKING's mode options.
#[derive(Debug, Clone, Copy, Default)]
pub struct TrackingOptions {
    pub bcast: bool,
    pub optin: bool,
    pub optout: bool,
    pub noloop: bool,
}

/// `stringCheckPrefix()`: one is a prefix of the other.
fn overlaps(a: &[u8], b: &[u8]) -> bool {
    let n = a.len().min(b.len());
    a[..n] == b[..n]
}

/// `%s` of an sds in an error: up to its first NUL.
fn c_text(b: &[u8]) -> String {
    text(crate::command::c_str(b))
}

/// tracking.c `checkPrefixCollisionsOrReply()`: the error for the first prefix that overlaps one
/// the client has or one given after it, and whether tracking is still enabled. Redis 7.0
/// returns the index of the colliding prefix from the inner loop, so a collision among the given
/// prefixes found for any but the first one answers the error *and* enables tracking (a second
/// reply, `+OK`) — kept, as the wire shows it.
pub fn check_prefix_collisions(existing: &BTreeSet<Vec<u8>>, prefixes: &[Vec<u8>]) -> (Option<Reply>, bool) {
    for (i, p) in prefixes.iter().enumerate() {
        if let Some(old) = existing.iter().find(|old| overlaps(old, p)) {
            let msg = format!(
                "ERR Prefix '{}' overlaps with an existing prefix '{}'. Prefixes for a single client must not overlap.",
                c_text(p),
                c_text(old)
            );
            return (Some(Reply::err(msg)), false);
        }
        if let Some(other) = prefixes[i + 1..].iter().find(|q| overlaps(p, q)) {
            let msg = format!(
                "ERR Prefix '{}' overlaps with another provided prefix '{}'. Prefixes for a single client must not overlap.",
                c_text(p),
                c_text(other)
            );
            return (Some(Reply::err(msg)), i != 0);
        }
    }
    (None, true)
}

impl Engine {
    /// tracking.c `enableTracking()`: turns tracking on (or changes its mode: the mode flags are
    /// reset, CLIENT CACHING's flag and BCAST prefixes already registered stay).
    pub(crate) fn enable_tracking(
        &mut self,
        client: ClientId,
        redirect: ClientId,
        opts: TrackingOptions,
        prefixes: &[Vec<u8>],
    ) {
        let Some(c) = self.clients.get_mut(&client) else { return };
        if c.tracking.is_none() {
            self.tracking.clients += 1;
        }
        let t = c.tracking.get_or_insert_with(ClientTracking::default);
        t.broken_redir = false;
        t.redirect = redirect;
        t.bcast = opts.bcast;
        t.optin = opts.optin;
        t.optout = opts.optout;
        t.noloop = opts.noloop;
        if opts.bcast {
            if prefixes.is_empty() {
                self.enable_bcast_tracking_for_prefix(client, b"");
            }
            for p in prefixes {
                self.enable_bcast_tracking_for_prefix(client, p);
            }
        }
    }

    /// tracking.c `enableBcastTrackingForPrefix()`.
    fn enable_bcast_tracking_for_prefix(&mut self, client: ClientId, prefix: &[u8]) {
        let bs = self.tracking.prefixes.entry(prefix.to_vec()).or_default();
        if bs.clients.insert(client) {
            if let Some(t) = self.clients.get_mut(&client).and_then(|c| c.tracking.as_mut()) {
                t.prefixes.insert(prefix.to_vec());
            }
        }
    }

    /// tracking.c `disableTracking()`: the client's ids stay in the table (dropped lazily when
    /// their keys are invalidated), its BCAST prefixes go.
    pub(crate) fn disable_tracking(&mut self, client: ClientId) {
        let Some(t) = self.clients.get_mut(&client).and_then(|c| c.tracking.take()) else { return };
        if t.bcast {
            for p in &t.prefixes {
                if let Some(bs) = self.tracking.prefixes.get_mut(p) {
                    bs.clients.remove(&client);
                    if bs.clients.is_empty() {
                        self.tracking.prefixes.remove(p);
                    }
                }
            }
        }
        self.tracking.clients -= 1;
    }

    /// Whether `client` remembers the keys of its read-only commands: tracking on, not BCAST.
    pub(crate) fn tracks_reads(&self, client: ClientId) -> bool {
        self.clients.get(&client).and_then(|c| c.tracking.as_ref()).is_some_and(|t| !t.bcast)
    }

    /// tracking.c `trackingRememberKeys()`: `keys` were read by `client` (OPTIN: only right
    /// after CLIENT CACHING yes; OPTOUT: unless right after CLIENT CACHING no).
    pub(crate) fn tracking_remember_keys(&mut self, client: ClientId, keys: Vec<Vec<u8>>) {
        let Some(t) = self.clients.get(&client).and_then(|c| c.tracking.as_ref()) else { return };
        if (t.optin && !t.caching) || (t.optout && t.caching) {
            return;
        }
        for key in keys {
            if self.tracking.table.entry(key).or_default().insert(client) {
                self.tracking.total_items += 1;
            }
        }
    }

    /// tracking.c `sendTrackingMessage()`: `payload` (an array of keys, or a null) to the client
    /// or its redirection target.
    fn send_tracking_message(&mut self, client: ClientId, payload: Reply) {
        let Some(redirect) = self.clients.get(&client).and_then(|c| c.tracking.as_ref()).map(|t| t.redirect) else {
            return;
        };
        let mut target = client;
        if redirect != 0 {
            if !self.clients.contains_key(&redirect) {
                let Some(c) = self.clients.get_mut(&client) else { return };
                if let Some(t) = c.tracking.as_mut() {
                    t.broken_redir = true;
                }
                // Only a RESP3 connection can be told, with a push of its own.
                if c.resp > 2 {
                    c.outbox.push_back(Reply::Push(vec![
                        Reply::bulk("tracking-redir-broken"),
                        Reply::Integer(redirect as i64),
                    ]));
                }
                return;
            }
            target = redirect;
        }
        let Some(to) = self.clients.get_mut(&target) else { return };
        let message = if to.resp > 2 {
            Reply::Push(vec![Reply::bulk("invalidate"), payload])
        } else if redirect != 0 && to.in_pubsub() {
            Reply::Push(vec![Reply::bulk("message"), Reply::bulk(INVALIDATION_CHANNEL), payload])
        } else {
            // RESP2 without a redirection has no way to receive it.
            return;
        };
        to.outbox.push_back(message);
    }

    /// tracking.c `trackingInvalidateKey()` for a key that changed: the clients that may cache
    /// it are told (the current client after its command replies) and the key is forgotten;
    /// with `bcast`, the key is also collected for the BCAST prefixes it falls under.
    /// `modifier` is the client whose command changed it (None: expiry, eviction, a script).
    pub(crate) fn tracking_invalidate_key(&mut self, modifier: Option<ClientId>, key: &[u8], bcast: bool) {
        if bcast && !self.tracking.prefixes.is_empty() {
            for (prefix, bs) in self.tracking.prefixes.iter_mut() {
                if key.starts_with(prefix) {
                    bs.keys.insert(key.to_vec(), modifier);
                }
            }
        }
        if self.tracking.table.is_empty() {
            return;
        }
        let Some(ids) = self.tracking.table.swap_remove(key) else { return };
        self.tracking.total_items -= ids.len() as u64;
        let executing = self.current_command.is_some();
        for id in ids {
            let Some(t) = self.clients.get(&id).and_then(|c| c.tracking.as_ref()) else { continue };
            // A client that switched to BCAST since it read the key is not told.
            if t.bcast {
                continue;
            }
            let current = self.current_client == Some(id);
            if t.noloop && current {
                continue;
            }
            if current && executing {
                self.tracking.pending.push(Some(key.to_vec()));
            } else {
                self.send_tracking_message(id, Reply::Array(vec![Reply::bulk(key)]));
            }
        }
    }

    /// tracking.c `trackingHandlePendingKeyInvalidations()`: after the current client's
    /// top-level command, the invalidations it caused for itself.
    pub(crate) fn tracking_handle_pending_key_invalidations(&mut self) {
        if self.tracking.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.tracking.pending);
        let Some(current) = self.current_client.filter(|id| self.clients.contains_key(id)) else { return };
        for key in pending {
            let payload = match key {
                Some(k) => Reply::Array(vec![Reply::bulk(k)]),
                None => Reply::Nil,
            };
            self.send_tracking_message(current, payload);
        }
    }

    /// tracking.c `trackingInvalidateKeysOnFlush()`: FLUSHDB/FLUSHALL tell every tracking client
    /// (BCAST ones too) that everything is invalid — a null — and empty the table.
    pub(crate) fn tracking_invalidate_keys_on_flush(&mut self) {
        if self.tracking.clients > 0 {
            let ids: Vec<ClientId> = self.clients.values().filter(|c| c.tracking.is_some()).map(|c| c.id).collect();
            for id in ids {
                if self.current_client == Some(id) {
                    self.tracking.pending.push(None);
                } else {
                    self.send_tracking_message(id, Reply::Nil);
                }
            }
        }
        self.tracking.table = Default::default();
        self.tracking.total_items = 0;
    }

    /// tracking.c `trackingLimitUsedSlots()`: over `tracking-table-max-keys`, forget random keys
    /// (telling their clients, as if they had changed) — at most 100 × (consecutive calls still
    /// over the limit) per call.
    pub(crate) fn tracking_limit_used_slots(&mut self) {
        let max = self.config.int("tracking-table-max-keys");
        if max <= 0 {
            return;
        }
        let max = max as usize;
        if self.tracking.table.len() <= max {
            self.tracking.timeout_counter = 0;
            return;
        }
        let mut effort = 100u64.saturating_mul(self.tracking.timeout_counter + 1);
        while effort > 0 {
            effort -= 1;
            let n = self.tracking.table.len();
            if n == 0 {
                break;
            }
            let i = self.random_index(n);
            let Some(key) = self.tracking.table.get_index(i).map(|(k, _)| k.clone()) else { break };
            self.tracking_invalidate_key(None, &key, false);
            if self.tracking.table.len() <= max {
                self.tracking.timeout_counter = 0;
                return;
            }
        }
        self.tracking.timeout_counter += 1;
    }

    /// tracking.c `trackingBroadcastInvalidationMessages()` (beforeSleep): for each prefix with
    /// changed keys, one message with them (sorted) to each of its clients — without the keys a
    /// NOLOOP client changed itself, and none if that leaves nothing.
    pub(crate) fn tracking_broadcast_invalidation_messages(&mut self) {
        if self.tracking.clients == 0 {
            return;
        }
        let mut messages: Vec<(ClientId, Vec<Vec<u8>>)> = Vec::new();
        for bs in self.tracking.prefixes.values_mut() {
            if bs.keys.is_empty() {
                continue;
            }
            let keys = std::mem::take(&mut bs.keys);
            for &id in &bs.clients {
                let noloop = self.clients.get(&id).and_then(|c| c.tracking.as_ref()).is_some_and(|t| t.noloop);
                let list: Vec<Vec<u8>> =
                    keys.iter().filter(|(_, by)| !(noloop && **by == Some(id))).map(|(k, _)| k.clone()).collect();
                if !list.is_empty() {
                    messages.push((id, list));
                }
            }
        }
        for (id, keys) in messages {
            self.send_tracking_message(id, Reply::Array(keys.into_iter().map(Reply::Bulk).collect()));
        }
    }

    /// INFO `tracking_clients`.
    pub fn tracking_clients(&self) -> usize {
        self.tracking.clients
    }

    /// INFO `tracking_total_keys`, `tracking_total_items`, `tracking_total_prefixes`.
    pub fn tracking_totals(&self) -> (usize, u64, usize) {
        (self.tracking.table.len(), self.tracking.total_items, self.tracking.prefixes.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> BTreeSet<Vec<u8>> {
        items.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    fn list(items: &[&str]) -> Vec<Vec<u8>> {
        items.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    #[test]
    fn prefix_collisions_follow_redis_including_its_second_reply() {
        assert!(matches!(check_prefix_collisions(&set(&[]), &list(&["a", "b"])), (None, true)));
        let (err, go) = check_prefix_collisions(&set(&["user:"]), &list(&["us"]));
        assert!(!go);
        assert_eq!(
            err,
            Some(Reply::err(
                "ERR Prefix 'us' overlaps with an existing prefix 'user:'. Prefixes for a single client must not overlap."
            ))
        );
        assert!(matches!(check_prefix_collisions(&set(&[]), &list(&["a", "ab"])), (Some(_), false)));
        // Found for the second prefix: the error, and tracking enabled all the same.
        assert!(matches!(check_prefix_collisions(&set(&[]), &list(&["z", "a", "ab"])), (Some(_), true)));
        // The empty prefix overlaps everything.
        assert!(matches!(check_prefix_collisions(&set(&[""]), &list(&["x"])), (Some(_), false)));
    }

    fn run(e: &mut Engine, c: ClientId, args: &[&str]) -> Reply {
        e.execute(c, &args.iter().map(|a| a.as_bytes().to_vec()).collect::<Vec<_>>())
    }

    #[test]
    fn thousands_of_prefixes_and_keys_stay_bounded() {
        use crate::engine::EngineOptions;
        let mut e = Engine::new(EngineOptions::default());
        let (a, b) = (e.connect(), e.connect());
        run(&mut e, a, &["HELLO", "3"]);
        let prefixes: Vec<String> = (0..3000).map(|i| format!("p{i:05}:")).collect();
        let mut args = vec!["CLIENT", "TRACKING", "on", "BCAST"];
        for p in &prefixes {
            args.extend(["PREFIX", p.as_str()]);
        }
        assert_eq!(run(&mut e, a, &args), Reply::ok());
        assert_eq!(e.tracking_totals().2, 3000);
        let keys: Vec<String> = (0..300).map(|i| format!("p{:05}:k", i * 7)).collect();
        let mut mset = vec!["MSET"];
        for k in &keys {
            mset.extend([k.as_str(), "v"]);
        }
        run(&mut e, b, &mset);
        e.before_sleep();
        assert_eq!(e.take_outbox(a).len(), 300, "one message per prefix that saw a change");
        run(&mut e, a, &["CLIENT", "TRACKING", "off"]);
        assert_eq!(e.tracking_totals().2, 0, "the prefix table empties with its last client");

        // The key table stays under tracking-table-max-keys, a few commands after it grows.
        run(&mut e, b, &["CONFIG", "SET", "tracking-table-max-keys", "100"]);
        run(&mut e, a, &["CLIENT", "TRACKING", "on"]);
        let many: Vec<String> = (0..1000).map(|i| format!("key:{i}")).collect();
        let mut mget = vec!["MGET"];
        mget.extend(many.iter().map(String::as_str));
        run(&mut e, a, &mget);
        assert_eq!(e.tracking_totals().0, 1000);
        let mut commands = 0;
        while e.tracking_totals().0 > 100 {
            run(&mut e, b, &["PING"]);
            commands += 1;
            assert!(commands < 10, "still {} keys", e.tracking_totals().0);
        }
        // Each key forgotten was invalidated, as if it had changed.
        let told: usize = e
            .take_outbox(a)
            .iter()
            .filter_map(|r| match r {
                Reply::Push(items) => match items.get(1) {
                    Some(Reply::Array(keys)) => Some(keys.len()),
                    _ => None,
                },
                _ => None,
            })
            .sum();
        assert_eq!(told as u64 + e.tracking_totals().1, 1000);
    }
}
