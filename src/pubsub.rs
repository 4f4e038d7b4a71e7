//! Pub/Sub: models pubsub.c — `pubsubSubscribeChannel()`, `pubsubUnsubscribeChannel()`,
//! `pubsubSubscribePattern()`, `pubsubUnsubscribePattern()`, the `...All...()` variants,
//! `pubsubPublishMessage()` and the SUBSCRIBE/UNSUBSCRIBE/PSUBSCRIBE/PUNSUBSCRIBE/PUBLISH/PUBSUB
//! commands (RESP2 only, as redis-cli speaks it).
//!
//! Messages are fire-and-forget: PUBLISH appends `message`/`pmessage` replies to each
//! subscriber's outbox at that instant; a client that is gone (or not yet subscribed) never sees
//! them. A subscription command answers one reply per channel: the first is the command's reply,
//! the others follow in the client's outbox, which the console prints right after it.
//!
//! Deviations: Redis keeps a client's channels, the server's channel table and its pattern
//! table in hash tables, so UNSUBSCRIBE without arguments, PUBSUB CHANNELS and the order in which
//! several matching patterns deliver one message follow hash order there; here they follow
//! subscription order. Shard channels (SSUBSCRIBE, SPUBLISH) are not modelled.

use indexmap::IndexMap;

use crate::command::table::Call;
use crate::engine::{ClientId, Engine};
use crate::reply::Reply;
use crate::util::glob_match;

/// `server.pubsub_channels` and `server.pubsub_patterns`: name → subscribers in subscription order.
#[derive(Debug, Default, Clone)]
pub struct PubSub {
    pub channels: IndexMap<Vec<u8>, Vec<ClientId>>,
    pub patterns: IndexMap<Vec<u8>, Vec<ClientId>>,
}

/// `addReplyPubsubSubscribed()` and friends: a push message over RESP3, an array over RESP2.
fn kind_reply(kind: &str, name: Option<&[u8]>, count: usize) -> Reply {
    Reply::Push(vec![
        Reply::bulk(kind.as_bytes()),
        name.map(Reply::bulk).unwrap_or(Reply::Nil),
        Reply::Integer(count as i64),
    ])
}

fn subscriptions(e: &Engine, client: ClientId) -> usize {
    e.clients.get(&client).map(|c| c.channels.len() + c.patterns.len()).unwrap_or(0)
}

/// Gives a client the replies of a multi-reply command: the first is returned, the rest queue.
fn reply_many(e: &mut Engine, client: ClientId, mut replies: Vec<Reply>) -> Reply {
    if replies.is_empty() {
        return Reply::Array(vec![]);
    }
    let first = replies.remove(0);
    if let Some(c) = e.clients.get_mut(&client) {
        c.outbox.extend(replies);
    }
    first
}

fn subscribe_channel(e: &mut Engine, client: ClientId, channel: &[u8]) -> Reply {
    if let Some(c) = e.clients.get_mut(&client) {
        if !c.channels.iter().any(|ch| ch == channel) {
            c.channels.push(channel.to_vec());
            e.pubsub.channels.entry(channel.to_vec()).or_default().push(client);
        }
    }
    kind_reply("subscribe", Some(channel), subscriptions(e, client))
}

fn unsubscribe_channel(e: &mut Engine, client: ClientId, channel: &[u8]) -> Reply {
    if let Some(c) = e.clients.get_mut(&client) {
        if let Some(pos) = c.channels.iter().position(|ch| ch == channel) {
            c.channels.remove(pos);
            remove_subscriber(&mut e.pubsub.channels, channel, client);
        }
    }
    kind_reply("unsubscribe", Some(channel), subscriptions(e, client))
}

fn subscribe_pattern(e: &mut Engine, client: ClientId, pattern: &[u8]) -> Reply {
    if let Some(c) = e.clients.get_mut(&client) {
        if !c.patterns.iter().any(|p| p == pattern) {
            c.patterns.push(pattern.to_vec());
            e.pubsub.patterns.entry(pattern.to_vec()).or_default().push(client);
        }
    }
    kind_reply("psubscribe", Some(pattern), subscriptions(e, client))
}

fn unsubscribe_pattern(e: &mut Engine, client: ClientId, pattern: &[u8]) -> Reply {
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

/// Drops every subscription of a client that goes away (networking.c `freeClient()`), silently.
pub fn unsubscribe_all(e: &mut Engine, client: ClientId) {
    let (channels, patterns) = match e.clients.get_mut(&client) {
        Some(c) => (std::mem::take(&mut c.channels), std::mem::take(&mut c.patterns)),
        None => return,
    };
    for ch in channels {
        remove_subscriber(&mut e.pubsub.channels, &ch, client);
    }
    for p in patterns {
        remove_subscriber(&mut e.pubsub.patterns, &p, client);
    }
}

/// pubsub.c `pubsubPublishMessage()`: delivers to the channel's subscribers, then to every
/// client whose pattern matches; returns how many deliveries were made.
pub fn publish(e: &mut Engine, channel: &[u8], message: &[u8]) -> i64 {
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
            }
        }
    }
    receivers
}

pub fn subscribe(e: &mut Engine, c: &Call) -> Reply {
    let replies = c.argv[1..].iter().map(|ch| subscribe_channel(e, c.client, ch)).collect();
    reply_many(e, c.client, replies)
}

pub fn psubscribe(e: &mut Engine, c: &Call) -> Reply {
    let replies = c.argv[1..].iter().map(|p| subscribe_pattern(e, c.client, p)).collect();
    reply_many(e, c.client, replies)
}

pub fn unsubscribe(e: &mut Engine, c: &Call) -> Reply {
    let names: Vec<Vec<u8>> = if c.argc() > 1 {
        c.argv[1..].to_vec()
    } else {
        e.clients.get(&c.client).map(|cl| cl.channels.clone()).unwrap_or_default()
    };
    let mut replies: Vec<Reply> = names.iter().map(|ch| unsubscribe_channel(e, c.client, ch)).collect();
    if replies.is_empty() {
        replies.push(kind_reply("unsubscribe", None, subscriptions(e, c.client)));
    }
    reply_many(e, c.client, replies)
}

pub fn punsubscribe(e: &mut Engine, c: &Call) -> Reply {
    let names: Vec<Vec<u8>> = if c.argc() > 1 {
        c.argv[1..].to_vec()
    } else {
        e.clients.get(&c.client).map(|cl| cl.patterns.clone()).unwrap_or_default()
    };
    let mut replies: Vec<Reply> = names.iter().map(|p| unsubscribe_pattern(e, c.client, p)).collect();
    if replies.is_empty() {
        replies.push(kind_reply("punsubscribe", None, subscriptions(e, c.client)));
    }
    reply_many(e, c.client, replies)
}

pub fn publish_command(e: &mut Engine, c: &Call) -> Reply {
    let n = publish(e, c.arg(1), c.arg(2));
    Reply::Integer(n)
}

pub fn pubsub_channels(e: &mut Engine, c: &Call) -> Reply {
    let pattern = (c.argc() > 2).then(|| c.arg(2));
    Reply::Array(
        e.pubsub
            .channels
            .keys()
            .filter(|ch| pattern.is_none_or(|p| glob_match(p, ch, false)))
            .map(Reply::bulk)
            .collect(),
    )
}

pub fn pubsub_numsub(e: &mut Engine, c: &Call) -> Reply {
    let mut out = Vec::new();
    for ch in &c.argv[2..] {
        out.push(Reply::bulk(ch));
        out.push(Reply::Integer(e.pubsub.channels.get(ch).map_or(0, |l| l.len()) as i64));
    }
    Reply::Array(out)
}

pub fn pubsub_numpat(e: &mut Engine, _c: &Call) -> Reply {
    Reply::Integer(e.pubsub.patterns.len() as i64)
}

pub fn pubsub_shardchannels(_e: &mut Engine, _c: &Call) -> Reply {
    Reply::Array(vec![])
}

pub fn pubsub_shardnumsub(_e: &mut Engine, c: &Call) -> Reply {
    let mut out = Vec::new();
    for ch in &c.argv[2..] {
        out.push(Reply::bulk(ch));
        out.push(Reply::Integer(0));
    }
    Reply::Array(out)
}
