//! Clients coming and going: networking.c `createClient()` and `freeClient()` (a client's
//! subscriptions, watches and blocking go with it), and what hosts read of them.

use super::{Client, ClientId, Engine};
use crate::reply::Reply;

impl Engine {
    pub fn connect(&mut self) -> ClientId {
        let id = self.next_client_id;
        self.next_client_id += 1;
        self.stats.total_connections_received += 1;
        let mut client = Client::new(id, self.now_ms);
        client.authenticated = self.config.str("requirepass").is_empty();
        self.clients.insert(id, client);
        id
    }

    /// Closes a client: its subscriptions, watches and blocking go with it (networking.c
    /// `freeClient()`); messages published later are simply missed.
    pub fn disconnect(&mut self, id: ClientId) {
        crate::pubsub::unsubscribe_all(self, id);
        self.unwatch_all(id);
        self.unblock(id);
        self.clients.remove(&id);
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

    /// Whether the client waits: in a blocking command, or for a running script (its own, or
    /// one that holds its command back); the reply then arrives in its outbox.
    pub fn is_blocked(&self, client: ClientId) -> bool {
        self.clients.get(&client).is_some_and(|c| c.blocked.is_some()) || self.scripts.holds(client)
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
