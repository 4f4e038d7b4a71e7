//! pubsub.c's commands: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, the sharded
//! SSUBSCRIBE, SUNSUBSCRIBE, SPUBLISH, and PUBSUB CHANNELS/NUMSUB/NUMPAT/SHARDCHANNELS/
//! SHARDNUMSUB. The tables and the delivery are in ../pubsub.rs.

use crate::command::call::Call;
use crate::command::subcommand_syntax_error;
use crate::engine::Engine;
use crate::pubsub::{
    kind_reply, publish, reply_many, shard_subscriptions, spublish, subscribe_channel, subscribe_pattern,
    subscribe_shard_channel, subscriptions, unsubscribe_channel, unsubscribe_pattern, unsubscribe_shard_channel,
};
use crate::reply::Reply;
use crate::util::glob_match;

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
    // forceCommandPropagation(c, PROPAGATE_REPL): replicas publish it to their subscribers.
    e.prop.call.force = Some(crate::propagate::Targets::REPL);
    Reply::Integer(n)
}

pub fn pubsub_channels(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() > 3 {
        return subcommand_syntax_error("PUBSUB", c.arg(1));
    }
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

/// `PUBSUB SHARDCHANNELS [pattern]`: shard channels with at least one subscriber.
pub fn pubsub_shardchannels(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() > 3 {
        return subcommand_syntax_error("PUBSUB", c.arg(1));
    }
    let pattern = (c.argc() > 2).then(|| c.arg(2));
    Reply::Array(
        e.shard_channels
            .keys()
            .filter(|ch| pattern.is_none_or(|p| glob_match(p, ch, false)))
            .map(Reply::bulk)
            .collect(),
    )
}

/// `PUBSUB SHARDNUMSUB [channel …]`.
pub fn pubsub_shardnumsub(e: &mut Engine, c: &Call) -> Reply {
    let mut out = Vec::new();
    for ch in &c.argv[2..] {
        out.push(Reply::bulk(ch));
        out.push(Reply::Integer(e.shard_channels.get(ch).map_or(0, |l| l.len()) as i64));
    }
    Reply::Array(out)
}

/// `SSUBSCRIBE shardchannel …`: refused inside a transaction (`CLIENT_DENY_BLOCKING`), which
/// SUBSCRIBE allows.
pub fn ssubscribe(e: &mut Engine, c: &Call) -> Reply {
    if e.clients.get(&c.client).is_some_and(|cl| cl.in_multi) {
        return Reply::err("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
    }
    let replies = c.argv[1..].iter().map(|ch| subscribe_shard_channel(e, c.client, ch)).collect();
    reply_many(e, c.client, replies)
}

/// `SUNSUBSCRIBE [shardchannel …]`: without channels, every shard channel of the client.
pub fn sunsubscribe(e: &mut Engine, c: &Call) -> Reply {
    let names: Vec<Vec<u8>> = if c.argc() > 1 {
        c.argv[1..].to_vec()
    } else {
        e.clients.get(&c.client).map(|cl| cl.shard_channels.clone()).unwrap_or_default()
    };
    let mut replies: Vec<Reply> = names.iter().map(|ch| unsubscribe_shard_channel(e, c.client, ch)).collect();
    if replies.is_empty() {
        replies.push(kind_reply("sunsubscribe", None, shard_subscriptions(e, c.client)));
    }
    reply_many(e, c.client, replies)
}

/// `SPUBLISH shardchannel message`: how many subscribers received it.
pub fn spublish_command(e: &mut Engine, c: &Call) -> Reply {
    // Replicas publish it to their shard subscribers, as PUBLISH.
    e.prop.call.force = Some(crate::propagate::Targets::REPL);
    Reply::Integer(spublish(e, c.arg(1), c.arg(2)))
}
