// Scenarios for the in-process client, written against ioredis's API so the same code runs on
// ioredis + redis-server 7.0.15 (record.mjs writes what they give to expected.json) and on
// redisplay's `Redis` (client.test.mjs compares). Each takes `(redis, other, wait)`: two clients
// of one server and a way to let time pass — real sleeping when recording, the virtual clock
// (`redis.clock.advance`) in the test.
//
// Results are made comparable by `plain()`: errors become {error, name, previousErrors?}, bytes
// become {bytes: hex}.

/** @param {unknown} v */
export function plain(v) {
  if (v instanceof Error) {
    const o = { error: v.message, name: v.name };
    if (Array.isArray(v.previousErrors)) o.previousErrors = v.previousErrors.map(plain);
    return o;
  }
  if (v instanceof Uint8Array) return { bytes: Buffer.from(v).toString("hex") };
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v === undefined ? "(undefined)" : v;
}

/** A promise's outcome, rejections included. @param {Promise<unknown>} p */
export async function settle(p) {
  try {
    return plain(await p);
  } catch (err) {
    return { rejected: plain(err) };
  }
}

export const scenarios = {
  async strings(r) {
    return [
      await settle(r.set("s:k", "v")),
      await settle(r.get("s:k")),
      await settle(r.get("s:missing")),
      await settle(r.set("s:n", 10)),
      await settle(r.incr("s:n")),
      await settle(r.incrby("s:n", -20)),
      await settle(r.incrbyfloat("s:n", "1.5")),
      await settle(r.append("s:k", "alue")),
      await settle(r.strlen("s:k")),
      await settle(r.mset({ "s:a": 1, "s:b": "two" })),
      await settle(r.mget("s:a", ["s:b", "s:missing"])),
      await settle(r.set("s:k", "x", "NX")),
      await settle(r.set("s:u", "héllo ✓ \u{1F600}")),
      await settle(r.get("s:u")),
      await settle(r.strlen("s:u")),
      await settle(r.set("s:bin", Buffer.from([0xff, 0x00, 0x0d, 0x0a]))),
      await settle(r.getBuffer("s:bin")),
      await settle(r.getBuffer("s:missing")),
      await settle(r.exists("s:a", "s:b", "s:missing")),
      await settle(r.del("s:a", "s:b")),
      await settle(r.set("s:null", null)),
      await settle(r.get("s:null")),
    ];
  },

  async collections(r) {
    return [
      await settle(r.rpush("c:l", ["a", "b"], "c", 4)),
      await settle(r.lrange("c:l", 0, -1)),
      await settle(r.lpop("c:l", 2)),
      await settle(r.lrangeBuffer("c:l", 0, -1)),
      await settle(r.hset("c:h", { f1: "v1", f2: 2 })),
      await settle(r.hset("c:h", new Map([["f3", "v3"]]))),
      await settle(r.hgetall("c:h")),
      await settle(r.hgetall("c:none")),
      await settle(r.hmget("c:h", "f1", "nope", "f3")),
      await settle(r.zadd("c:z", 1, "one", 2, "two", 3, "three")),
      await settle(r.zadd("c:z", "INCR", 2.5, "one")),
      await settle(r.zrange("c:z", 0, -1, "WITHSCORES")),
      await settle(r.zrank("c:z", "one")),
      await settle(r.zrank("c:z", "nobody")),
      await settle(r.zscore("c:z", "two")),
      await settle(r.sadd("c:s", [3, 1, 2])),
      await settle(r.smembers("c:s")),
      await settle(r.sismember("c:s", 2)),
      await settle(r.expire("c:s", 100)),
      await settle(r.ttl("c:s")),
      await settle(r.ttl("c:missing")),
      await settle(r.type("c:z")),
    ];
  },

  async errors(r) {
    await r.set("e:str", "x");
    return [
      await settle(r.call("NOSUCHCOMMAND", "a", "b")),
      await settle(r.lpush("e:str", "x")),
      await settle(r.incr("e:str")),
      await settle(r.get()),
      await settle(r.set("e:k", "v", "BOGUS")),
      await settle(r.zadd("e:z", "notanumber", "m")),
      await settle(r.call("config", "get", "maxmemory-policy")),
      await settle(r.config("GET", "hz")),
    ];
  },

  async pipelines(r) {
    return [
      await settle(r.pipeline().set("p:a", 1).incr("p:a").get("p:a").lpush("p:a", "x").call("NOPE").hgetall("p:h").exec()),
      await settle(
        r
          .pipeline([
            ["set", "p:b", "v"],
            ["get", "p:b"],
            ["getBuffer", "p:b"],
          ])
          .exec(),
      ),
      await settle(r.pipeline().exec()),
    ];
  },

  async transactions(r, other) {
    const out = [];
    out.push(await settle(r.multi().set("t:a", 1).incr("t:a").lpush("t:a", "x").get("t:a").exec()));
    out.push(await settle(r.multi().set("t:b", 1).call("NOPE").incr("t:b").exec()));
    out.push(await settle(r.get("t:b")));
    out.push(await settle(r.multi([["set", "t:c", "v"], ["hset", "t:h", { f: 1 }], ["hgetall", "t:h"]]).exec()));
    // WATCH, then another client writes: EXEC gives null.
    out.push(await settle(r.watch("t:w")));
    out.push(await settle(other.set("t:w", "changed")));
    out.push(await settle(r.multi().set("t:w", "mine").exec()));
    out.push(await settle(r.get("t:w")));
    // MULTI as a plain command.
    out.push(await settle(r.multi({ pipeline: false })));
    out.push(await settle(r.set("t:d", "v")));
    out.push(await settle(r.get("t:d")));
    out.push(await settle(r.exec()));
    return out;
  },

  async pubsub(r, other) {
    const events = [];
    r.on("message", (channel, message) => events.push(["message", channel, message]));
    r.on("messageBuffer", (channel, message) => events.push(["messageBuffer", plain(channel), plain(message)]));
    r.on("pmessage", (pattern, channel, message) => events.push(["pmessage", pattern, channel, message]));
    const out = [];
    out.push(await settle(r.subscribe("ps:a", "ps:b")));
    out.push(await settle(r.psubscribe("ps:*")));
    out.push(await settle(other.publish("ps:a", "hello")));
    out.push(await settle(other.publish("ps:nobody", "x")));
    out.push(await settle(other.publish("other", "x")));
    out.push(await settle(r.get("ps:k")));
    out.push(await settle(r.ping()));
    out.push(await settle(r.unsubscribe("ps:a")));
    out.push(await settle(other.publish("ps:a", "after")));
    // (No bare UNSUBSCRIBE while a pattern remains: ioredis 5 waits on it for a count of 0.)
    out.push(await settle(r.unsubscribe("ps:b")));
    out.push(await settle(r.punsubscribe("ps:*")));
    out.push(await settle(r.set("ps:k", "back to normal")));
    out.push(await settle(r.get("ps:k")));
    return { out, events };
  },

  async scripts(r) {
    r.defineCommand("echoKeys", { numberOfKeys: 2, lua: "return {KEYS[1], KEYS[2], ARGV[1], #ARGV}" });
    r.defineCommand("countArgs", { lua: "return #KEYS * 100 + #ARGV" });
    r.defineCommand("fail", { numberOfKeys: 0, lua: "return redis.error_reply('MYERR custom failure')" });
    r.defineCommand("incrTwice", { numberOfKeys: 1, lua: "redis.call('INCR', KEYS[1]); return redis.call('INCR', KEYS[1])" });
    return [
      await settle(r.echoKeys("k1", "k2", "a1", "a2")),
      await settle(r.echoKeysBuffer("k1", "k2", "a1")),
      await settle(r.countArgs(1, "k", "a", "b")),
      await settle(r.fail()),
      await settle(r.incrTwice("sc:n")),
      await settle(r.pipeline().incrTwice("sc:n").echoKeys("x", "y", "z").exec()),
      await settle(r.eval("return redis.call('GET', KEYS[1])", 1, "sc:n")),
    ];
  },

  async blocking(r, other, wait) {
    const popped = settle(r.blpop("b:q", 5));
    const pushed = await settle(other.lpush("b:q", "job"));
    const out = [pushed, await popped, await settle(r.get("b:after"))];
    // Times out: null.
    const late = settle(r.blpop("b:empty", 1));
    await wait(1100);
    out.push(await late);
    const zpop = settle(r.bzpopmin("b:z", 1));
    await wait(1100);
    out.push(await zpop);
    return out;
  },

  async expiry(r, _other, wait) {
    const out = [
      await settle(r.set("x:k", "v", "PX", 1000)),
      await settle(r.pttl("x:k")),
      await settle(r.get("x:k")),
    ];
    await wait(1001);
    out.push(await settle(r.get("x:k")), await settle(r.exists("x:k")), await settle(r.pttl("x:k")));
    return out;
  },

  async duplicates(r, other) {
    return [
      await settle(r.select(1)),
      await settle(r.set("d:k", "db1")),
      await settle(other.get("d:k")),
      await settle(other.select(1)),
      await settle(other.get("d:k")),
      await settle(r.client("SETNAME", "first")),
      await settle(r.client("GETNAME")),
      await settle(other.client("GETNAME")),
    ];
  },

  async quitting(r) {
    const out = [await settle(r.set("q:k", "v")), await settle(r.quit())];
    out.push(await settle(r.get("q:k")));
    out.push(await settle(r.set("q:k", "w")));
    return out;
  },
};
