//! Clients coming and going: networking.c `createClient()` and `freeClient()` (a client's
//! subscriptions, watches, blocking, tracking and MONITOR go with it), replies that reach a
//! client outside its own command, and what hosts read of them.

use super::{Client, ClientId, Engine};
use crate::reply::Reply;

impl Engine {
    pub fn connect(&mut self) -> ClientId {
        let id = self.next_client_id;
        self.next_client_id += 1;
        self.stats.total_connections_received += 1;
        let mut client = Client::new(id, self.now_ms);
        client.authenticated = self.default_user_open();
        self.clients.insert(id, client);
        id
    }

    /// Closes a client: its subscriptions, watches, blocking, tracking and MONITOR go with it
    /// (networking.c `freeClient()`); messages published later are simply missed.
    pub fn disconnect(&mut self, id: ClientId) {
        crate::pubsub::unsubscribe_all(self, id);
        self.unwatch_all(id);
        self.unblock(id);
        self.forget_postponed(id);
        self.disable_tracking(id);
        // replication.c: a monitor is removed from server.monitors.
        self.monitors.retain(|&m| m != id);
        self.clients.remove(&id);
    }

    /// The outbox entries that arrived before the last command's reply (an invalidation sent
    /// while the command waited to run, for one): a host writes them, then the reply, then the
    /// rest of the outbox (`take_outbox`).
    pub fn take_outbox_before_reply(&mut self, client: ClientId) -> Vec<Reply> {
        let Some(c) = self.clients.get_mut(&client) else { return vec![] };
        let n = std::mem::take(&mut c.reply_pos).min(c.outbox.len());
        c.outbox.drain(..n).collect()
    }

    /// Whether the last command's reply is not to be sent (CLIENT REPLY OFF or SKIP, MONITOR
    /// twice): the host writes nothing for it.
    pub fn reply_dropped(&self, client: ClientId) -> bool {
        self.clients.get(&client).is_some_and(|c| c.reply_dropped)
    }

    /// acl.c `clientSetDefaultAuth()`'s test: the default user is on and needs no password, so
    /// a client running as it is authenticated from the start.
    pub(crate) fn default_user_open(&self) -> bool {
        let d = self.acl.default_user();
        d.nopass() && d.enabled()
    }

    /// server.c `authRequired()`: the client must AUTH first — it is not authenticated and the
    /// default user is not open to all (even a client whose user was deleted runs as an open
    /// default user).
    pub fn auth_required(&self, client: ClientId) -> bool {
        self.clients.get(&client).is_some_and(|c| !c.authenticated) && !self.default_user_open()
    }

    /// Records where a network client connects from (CLIENT LIST addr/laddr, CLIENT KILL).
    pub fn set_client_addr(&mut self, id: ClientId, addr: String, laddr: String) {
        if let Some(c) = self.clients.get_mut(&id) {
            c.addr = Some((addr, laddr));
        }
    }

    /// Takes the replies that arrived for `client` without a command of its own.
    pub fn take_outbox(&mut self, client: ClientId) -> Vec<Reply> {
        self.clients.get_mut(&client).map(|c| c.outbox.drain(..).collect()).unwrap_or_default()
    }

    /// Whether the client waits: in a blocking command, postponed by CLIENT PAUSE, or for a
    /// running script (its own, or one that holds its command back); the reply then arrives in
    /// its outbox.
    pub fn is_blocked(&self, client: ClientId) -> bool {
        self.clients.get(&client).is_some_and(|c| c.is_blocked()) || self.scripts.holds(client)
    }

    pub fn client(&self, client: ClientId) -> Option<&Client> {
        self.clients.get(&client)
    }

    pub fn client_ids(&self) -> Vec<ClientId> {
        self.clients.keys().copied().collect()
    }

    pub fn client_db(&self, id: ClientId) -> Option<usize> {
        self.clients.get(&id).map(|c| c.db)
    }
}

/// The connected clients by id, in id order (CLIENT LIST's order, as Redis's list of clients
/// is in connection order). A hash index over an ordered vector: every command looks its
/// client up several times, which a B-tree of 50 clients made ~15 % of a pipelined GET.
#[derive(Default)]
pub struct ClientTable {
    map: indexmap::IndexMap<ClientId, Client, crate::ds::map::Hasher>,
    /// Where the last client looked up sits: a command asks for its own client a dozen
    /// times, so most lookups end here without hashing.
    hint: std::cell::Cell<usize>,
}

impl ClientTable {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    fn index_of(&self, id: &ClientId) -> Option<usize> {
        let hint = self.hint.get();
        if self.map.get_index(hint).is_some_and(|(k, _)| k == id) {
            return Some(hint);
        }
        let at = self.map.get_index_of(id)?;
        self.hint.set(at);
        Some(at)
    }

    #[inline]
    pub fn get(&self, id: &ClientId) -> Option<&Client> {
        self.index_of(id).map(|at| &self.map[at])
    }

    #[inline]
    pub fn get_mut(&mut self, id: &ClientId) -> Option<&mut Client> {
        self.index_of(id).map(|at| &mut self.map[at])
    }

    pub fn contains_key(&self, id: &ClientId) -> bool {
        self.index_of(id).is_some()
    }

    /// Adds (or replaces) a client, keeping id order (ids only grow, but a restored client,
    /// such as a cached master, may come back with an old one).
    pub fn insert(&mut self, id: ClientId, client: Client) -> Option<Client> {
        if let Some(slot) = self.map.get_mut(&id) {
            return Some(std::mem::replace(slot, client));
        }
        match self.map.last() {
            Some((&last, _)) if last > id => {
                let at = self.map.binary_search_keys(&id).unwrap_or_else(|at| at);
                self.map.shift_insert(at, id, client);
            }
            _ => {
                self.map.insert(id, client);
            }
        }
        None
    }

    pub fn remove(&mut self, id: &ClientId) -> Option<Client> {
        self.map.shift_remove(id)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Client> {
        self.map.values()
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &ClientId> {
        self.map.keys()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}
