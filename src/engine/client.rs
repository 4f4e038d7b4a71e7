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
