//! Pub/Sub: models pubsub.c — `pubsubSubscribeChannel()`, `pubsubUnsubscribeChannel()`,
//! `pubsubSubscribePattern()`, `pubsubUnsubscribePattern()`, their shard-channel forms (7.0's
//! sharded Pub/Sub: SSUBSCRIBE, SPUBLISH), the `...All...()` variants, `pubsubPublishMessage()`:
//! the server's channel, pattern and shard-channel tables and each client's subscriptions. The commands (SUBSCRIBE, PUBLISH, PUBSUB…) are in command/pubsub.rs.
//! Confirmations and messages are arrays for RESP2 clients and push messages for RESP3 ones.
//!
//! Messages are fire-and-forget: PUBLISH appends `message`/`pmessage` replies to each
//! subscriber's outbox at that instant; a client that is gone (or not yet subscribed) never sees
//! them. A subscription command answers one reply per channel: the first is the command's reply,
//! the others follow in the client's outbox, which the console prints right after it.
//!
//! Deviations: Redis keeps a client's channels, the server's channel table and its pattern
//! table in hash tables, so UNSUBSCRIBE without arguments, PUBSUB CHANNELS and the order in which
//! several matching patterns deliver one message follow hash order there; here they follow
//! subscription order (SUNSUBSCRIBE and PUBSUB SHARDCHANNELS likewise).

use indexmap::IndexMap;

use crate::engine::{ClientId, Engine};
use crate::reply::Reply;
use crate::util::glob_match;

/// `addReplyPubsubSubscribed()` and friends: a push message over RESP3, an array over RESP2.
pub(crate) fn kind_reply(kind: &str, name: Option<&[u8]>, count: usize) -> Reply {
    Reply::Push(vec![
        Reply::bulk(kind.as_bytes()),
        name.map(Reply::bulk).unwrap_or(Reply::Nil),
        Reply::Integer(count as i64),
    ])
}

pub(crate) fn subscriptions(e: &Engine, client: ClientId) -> usize {
    e.clients.get(&client).map(|c| c.channels.len() + c.patterns.len()).unwrap_or(0)
}

/// Gives a client the replies of a multi-reply command: the first is returned, the rest queue.
pub(crate) fn reply_many(e: &mut Engine, client: ClientId, mut replies: Vec<Reply>) -> Reply {
    if replies.is_empty() {
        return Reply::Array(vec![]);
    }
    let first = replies.remove(0);
    if let Some(c) = e.clients.get_mut(&client) {
        c.outbox.extend(replies);
    }
    first
}

pub(crate) fn subscribe_channel(e: &mut Engine, client: ClientId, channel: &[u8]) -> Reply {
    if let Some(c) = e.clients.get_mut(&client) {
        if !c.channels.iter().any(|ch| ch == channel) {
            c.channels.push(channel.to_vec());
            e.pubsub.channels.entry(channel.to_vec()).or_default().push(client);
        }
    }
    kind_reply("subscribe", Some(channel), subscriptions(e, client))
}

pub(crate) fn unsubscribe_channel(e: &mut Engine, client: ClientId, channel: &[u8]) -> Reply {
    if let Some(c) = e.clients.get_mut(&client) {
        if let Some(pos) = c.channels.iter().position(|ch| ch == channel) {
            c.channels.remove(pos);
            remove_subscriber(&mut e.pubsub.channels, channel, client);
        }
    }
    kind_reply("unsubscribe", Some(channel), subscriptions(e, client))
}

pub(crate) fn subscribe_pattern(e: &mut Engine, client: ClientId, pattern: &[u8]) -> Reply {
    if let Some(c) = e.clients.get_mut(&client) {
        if !c.patterns.iter().any(|p| p == pattern) {
            c.patterns.push(pattern.to_vec());
            e.pubsub.patterns.entry(pattern.to_vec()).or_default().push(client);
        }
    }
    kind_reply("psubscribe", Some(pattern), subscriptions(e, client))
}

pub(crate) fn unsubscribe_pattern(e: &mut Engine, client: ClientId, pattern: &[u8]) -> Reply {
    if let Some(c) = e.clients.get_mut(&client) {
        if let Some(pos) = c.patterns.iter().position(|p| p == pattern) {
            c.patterns.remove(pos);
            remove_subscriber(&mut e.pubsub.patterns, pattern, client);
        }
    }
    kind_reply("punsubscribe", Some(pattern), subscriptions(e, client))
}

fn remove_subscriber(table: &mut IndexMap<Vec<u8>, Vec<ClientId>>, name: &[u8], client: ClientId) {
    if let Some(list) = table.get_mut(name) {
        list.retain(|&id| id != client);
        if list.is_empty() {
            table.shift_remove(name);
        }
    }
}

/// Drops every subscription of a client that goes away (networking.c `freeClient()`) or
/// resets, shard channels included, silently.
pub fn unsubscribe_all(e: &mut Engine, client: ClientId) {
    let (channels, patterns, shard) = match e.clients.get_mut(&client) {
        Some(c) => {
            (std::mem::take(&mut c.channels), std::mem::take(&mut c.patterns), std::mem::take(&mut c.shard_channels))
        }
        None => return,
    };
    for ch in channels {
        remove_subscriber(&mut e.pubsub.channels, &ch, client);
    }
    for p in patterns {
        remove_subscriber(&mut e.pubsub.patterns, &p, client);
    }
    for ch in shard {
        remove_subscriber(&mut e.shard_channels, &ch, client);
    }
}

// -------------------------------------------------------------------------------------------
// Sharded Pub/Sub (7.0): shard channels live in a table of their own; a subscription's count is
// the client's shard channels only; keyspace notifications never go there. A server that is
// not a cluster is one shard holding every channel.
// -------------------------------------------------------------------------------------------

/// How many shard channels a client is subscribed to (`clientShardSubscriptionsCount()`).
pub(crate) fn shard_subscriptions(e: &Engine, client: ClientId) -> usize {
    e.clients.get(&client).map(|c| c.shard_channels.len()).unwrap_or(0)
}

/// pubsub.c `pubsubSubscribeShardChannel()`.
pub(crate) fn subscribe_shard_channel(e: &mut Engine, client: ClientId, channel: &[u8]) -> Reply {
    if let Some(c) = e.clients.get_mut(&client) {
        if !c.shard_channels.iter().any(|ch| ch == channel) {
            c.shard_channels.push(channel.to_vec());
            e.shard_channels.entry(channel.to_vec()).or_default().push(client);
        }
    }
    kind_reply("ssubscribe", Some(channel), shard_subscriptions(e, client))
}

/// pubsub.c `pubsubUnsubscribeShardChannel()`.
pub(crate) fn unsubscribe_shard_channel(e: &mut Engine, client: ClientId, channel: &[u8]) -> Reply {
    if let Some(c) = e.clients.get_mut(&client) {
        if let Some(pos) = c.shard_channels.iter().position(|ch| ch == channel) {
            c.shard_channels.remove(pos);
            remove_subscriber(&mut e.shard_channels, channel, client);
        }
    }
    kind_reply("sunsubscribe", Some(channel), shard_subscriptions(e, client))
}

/// pubsub.c `pubsubPublishMessage(…, sharded)`: `smessage` to the shard channel's subscribers
/// (no patterns); how many received it.
pub fn spublish(e: &mut Engine, channel: &[u8], message: &[u8]) -> i64 {
    let self_delivery = own_command(e);
    let mut receivers = 0;
    if let Some(subs) = e.shard_channels.get(channel) {
        for &id in subs {
            if let Some(c) = e.clients.get_mut(&id) {
                c.outbox.push_back(Reply::Push(vec![
                    Reply::bulk(b"smessage"),
                    Reply::bulk(channel),
                    Reply::bulk(message),
                ]));
                receivers += 1;
                before_own_reply(c, self_delivery);
            }
        }
    }
    receivers
}

/// The client whose command is running, if one is: a message it publishes to itself (a RESP3
/// subscriber) is written into its output during the command, before the command's reply.
fn own_command(e: &Engine) -> Option<ClientId> {
    e.current_command.and(e.current_client)
}

fn before_own_reply(c: &mut crate::engine::Client, self_delivery: Option<ClientId>) {
    if self_delivery == Some(c.id) {
        c.reply_pos += 1;
    }
}

/// pubsub.c `pubsubPublishMessage()`: delivers to the channel's subscribers, then to every
/// client whose pattern matches; returns how many deliveries were made.
pub fn publish(e: &mut Engine, channel: &[u8], message: &[u8]) -> i64 {
    let self_delivery = own_command(e);
    let mut receivers = 0;
    if let Some(subs) = e.pubsub.channels.get(channel) {
        for &id in subs {
            if let Some(c) = e.clients.get_mut(&id) {
                c.outbox.push_back(Reply::Push(vec![
                    Reply::bulk(b"message"),
                    Reply::bulk(channel),
                    Reply::bulk(message),
                ]));
                receivers += 1;
                before_own_reply(c, self_delivery);
            }
        }
    }
    for (pattern, subs) in e.pubsub.patterns.iter() {
        if !glob_match(pattern, channel, false) {
            continue;
        }
        for &id in subs {
            if let Some(c) = e.clients.get_mut(&id) {
                c.outbox.push_back(Reply::Push(vec![
                    Reply::bulk(b"pmessage"),
                    Reply::bulk(pattern),
                    Reply::bulk(channel),
                    Reply::bulk(message),
                ]));
                receivers += 1;
                before_own_reply(c, self_delivery);
            }
        }
    }
    receivers
}
