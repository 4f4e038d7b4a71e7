//! pubsub.c's commands: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH and PUBSUB
//! CHANNELS/NUMSUB/NUMPAT/SHARDCHANNELS/SHARDNUMSUB. The tables and the delivery are in
//! ../pubsub.rs. Shard channels are not modelled yet: their introspection answers as a server
//! with none.

use crate::command::call::Call;
use crate::engine::Engine;
use crate::pubsub::{
    kind_reply, publish, reply_many, subscribe_channel, subscribe_pattern, subscriptions, unsubscribe_channel,
    unsubscribe_pattern,
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
