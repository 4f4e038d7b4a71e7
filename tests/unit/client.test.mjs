// The in-process client (`import { Redis } from "redisplay"`, www/client/redis.js) over the
// batched binding (src/wasm.rs RespServer, src/net/batch.rs), against the built wasm (www/pkg,
// scripts/build-web.sh).
//
// Reply shapes and values: client/scenarios.mjs run here and, by client/record.mjs, through
// ioredis 5 against redis-server 7.0.15 (client/expected.json) — the same code, compared whole.
// Time passes through the virtual clock (`redis.clock.advance`), never by sleeping. Raw RESP
// expectations below were recorded from redis-server 7.0.15 over a socket.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { COMMANDS, Redis } from "redisplay";
import { loadEnginePackage } from "../../www/engine.js";
import { encodeCommands, ReplyReader } from "../../www/client/resp.js";
import { plain, scenarios, settle } from "./client/scenarios.mjs";

const expected = JSON.parse(await readFile(new URL("./client/expected.json", import.meta.url), "utf8"));
const T0 = Date.UTC(2025, 0, 1);
const latin1 = (bytes) => Buffer.from(bytes).toString("latin1");

for (const [name, run] of Object.entries(scenarios)) {
  test(`scenario ${name}: what ioredis gets from redis-server 7.0.15`, async () => {
    const r = new Redis({ seed: 1, startMs: T0 });
    const other = r.duplicate();
    const wait = (ms) => {
      r.clock.advance(ms);
    };
    assert.deepEqual(await run(r, other, wait), expected.results[name]);
  });
}

test("every command of the engine is a method, with a Buffer variant, on clients and pipelines", async () => {
  const r = new Redis();
  assert.ok(COMMANDS.length > 200);
  // `clock` is the virtual clock's object; the playground's CLOCK command is `call("CLOCK", …)`.
  assert.ok(COMMANDS.includes("clock"));
  for (const c of COMMANDS) {
    if (c !== "clock") assert.equal(typeof r[c], "function", c);
    assert.equal(typeof r[`${c}Buffer`], "function", c);
    assert.equal(typeof r.pipeline()[c], "function", c);
  }
  assert.ok(!COMMANDS.some((c) => c.includes("|")));
  assert.deepEqual(await r.command("COUNT"), COMMANDS.length);
});

test("commands issued in one turn reach the engine in one call", async () => {
  const r = new Redis();
  const server = r._engine.server;
  const call = server.call_input.bind(server);
  let calls = 0;
  server.call_input = (conn, len) => {
    calls += 1;
    return call(conn, len);
  };
  const replies = await Promise.all(Array.from({ length: 500 }, (_, i) => r.incr(`n:${i % 10}`)));
  assert.equal(calls, 1);
  assert.deepEqual(replies.slice(0, 12), [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2]);
  assert.deepEqual(await r.pipeline().get("n:0").get("n:9").exec(), [
    [null, "50"],
    [null, "50"],
  ]);
  assert.equal(calls, 2);
  await r.get("n:1");
  await r.get("n:2");
  assert.equal(calls, 4);
});

test("TTLs expire as the clock advances, with no sleeping", async () => {
  const r = new Redis({ startMs: T0 });
  assert.equal(r.clock.now(), T0);
  await r.set("session", "s", "EX", 60);
  await r.set("forever", "f");
  assert.equal(r.clock.advance(59_999), T0 + 59_999);
  assert.equal(await r.get("session"), "s");
  assert.equal(await r.pttl("session"), 1);
  // At its expire time a key still exists (Redis expires keys whose time is past, not equal).
  r.clock.advance(1);
  assert.equal(await r.pttl("session"), 0);
  r.clock.advance(1);
  assert.equal(await r.get("session"), null);
  assert.equal(await r.ttl("session"), -2);
  // Active expiry too: the key is gone from the keyspace without being touched.
  await r.set("soon", "x", "PX", 10);
  r.clock.advance(5_000);
  assert.equal(await r.dbsize(), 1);
  assert.deepEqual(await r.time(), [String(Math.floor((T0 + 65_001) / 1000)), "1000"]);
});

test("BLPOP times out on the virtual clock, and a duplicate's LPUSH serves it", async () => {
  const r = new Redis({ startMs: T0 });
  const worker = r.duplicate();
  let settled = false;
  const pop = worker.blpop("jobs", 2).then((v) => {
    settled = true;
    return v;
  });
  r.clock.advance(1_999);
  await r.ping();
  assert.equal(settled, false);
  // The commands behind a blocked one wait for it, in order.
  const after = worker.incr("after");
  r.clock.advance(2);
  assert.equal(await pop, null);
  assert.equal(await after, 1);

  const served = worker.blpop("jobs", 0);
  const behind = worker.get("after");
  assert.equal(await r.lpush("jobs", "j1", "j2"), 2);
  assert.deepEqual(await served, ["jobs", "j2"]);
  assert.equal(await behind, "1");
  assert.equal(await r.llen("jobs"), 1);
});

test("pub/sub between two clients: message, pmessage and messageBuffer events, in order", async () => {
  const pub = new Redis();
  const sub = pub.duplicate();
  const seen = [];
  sub.on("message", (ch, msg) => seen.push(`${ch}:${msg}`));
  sub.on("pmessage", (pattern, ch, msg) => seen.push(`${pattern}>${ch}:${msg}`));
  sub.on("messageBuffer", (_ch, msg) => seen.push(Buffer.isBuffer(msg) ? `buffer ${msg.length}` : "not a buffer"));
  assert.equal(await sub.subscribe("news", "alerts"), 2);
  assert.equal(await sub.psubscribe("n*"), 3);
  assert.equal(sub.mode, "subscriber");
  assert.equal(await pub.publish("news", "héllo"), 2);
  assert.equal(await pub.publish("alerts", "a"), 1);
  assert.deepEqual(seen, ["news:héllo", "buffer 6", "n*>news:héllo", "alerts:a", "buffer 1"]);
  await assert.rejects(sub.get("k"), { message: "Connection in subscriber mode, only subscriber commands may be used" });
  assert.equal(await sub.unsubscribe("news", "alerts"), 1);
  assert.equal(await sub.punsubscribe(), 0);
  assert.equal(sub.mode, "normal");
  assert.equal(await pub.publish("news", "nobody"), 0);
  assert.equal(await sub.set("k", "v"), "OK");
});

test("RESP3 (HELLO 3): pushes are still events, replies still as ioredis shapes them", async () => {
  const r = new Redis();
  const other = r.duplicate();
  const hello = await r.hello(3);
  assert.ok(Array.isArray(hello) && hello.includes("proto"));
  await r.hset("h", "f", "v");
  assert.deepEqual(await r.hgetall("h"), { f: "v" });
  assert.equal(await r.get("missing"), null);
  const got = [];
  r.on("message", (ch, m) => got.push([ch, m]));
  assert.equal(await r.subscribe("c"), 1);
  await other.publish("c", "m1");
  assert.deepEqual(got, [["c", "m1"]]);
  // In RESP3 other commands are allowed while subscribed; ioredis's rule still refuses them.
  assert.equal(await r.ping(), "PONG");
});

test("quit(): resolves OK, the connection closes, later calls reject; disconnect() rejects what waits", async () => {
  const r = new Redis();
  const other = r.duplicate();
  const ids = [r.clientId, other.clientId];
  assert.ok(ids[0] > 0 && ids[1] > ids[0]);
  const closed = [];
  r.on("end", () => closed.push("end"));
  assert.equal(await r.quit(), "OK");
  assert.deepEqual(closed, ["end"]);
  assert.equal(r.status, "end");
  await assert.rejects(r.get("k"), { message: "Connection is closed." });
  assert.equal((await other.client("LIST")).split("\n").filter(Boolean).length, 1);
  const waiting = other.blpop("q", 0);
  await Promise.resolve();
  other.disconnect();
  await assert.rejects(waiting, { message: "Connection is closed." });
});

test("a client killed by another (CLIENT KILL) has its waiting commands rejected", async () => {
  const r = new Redis();
  const victim = r.duplicate();
  const waiting = victim.blpop("q", 0);
  await r.ping();
  assert.equal(await r.client("KILL", "ID", String(victim.clientId)), 1);
  await assert.rejects(waiting, { message: "Connection is closed." });
  assert.equal(victim.status, "end");
});

test("a 100 MB value goes through and back", async () => {
  const r = new Redis();
  const big = "x".repeat(100 * 1024 * 1024);
  assert.equal(await r.set("big", big), "OK");
  assert.equal(await r.strlen("big"), 104_857_600);
  assert.equal((await r.getrangeBuffer("big", -3, -1)).toString(), "xxx");
  assert.equal(await r.del("big"), 1);
});

test("replies read from a reused buffer: Buffers and strings outlive later calls, memory growth, and listeners that call in", async () => {
  const r = new Redis();
  const other = r.duplicate();
  await r.set("a", "aaaa");
  const a = await r.getBuffer("a");
  await r.set("b", "bbbb");
  const [b, s] = await Promise.all([r.getBuffer("b"), r.get("a")]);
  // A value far past linear memory's current size makes it grow between replies.
  const big = "y".repeat(32 * 1024 * 1024);
  assert.equal(await r.set("big", big), "OK");
  assert.equal((await r.get("big")).length, big.length);
  // …and its reply was copied apart: the buffer kept for replies stays small.
  assert.ok(r._engine.scratch.length <= 1 << 20);
  assert.deepEqual([a.toString(), b.toString(), s], ["aaaa", "bbbb", "aaaa"]);
  // A pipeline's replies, several of them Buffers, in order.
  const piped = await r.pipeline().getBuffer("a").incr("n").get("b").getBuffer("nope").call("NOSUCH").exec();
  assert.deepEqual(plain(piped), [
    [null, { bytes: "61616161" }],
    [null, 1],
    [null, "bbbb"],
    [null, null],
    [{ error: "ERR unknown command 'NOSUCH', with args beginning with: ", name: "ReplyError" }],
  ]);
  // A listener that moves the clock and awaits commands while its client's replies are read.
  const seen = [];
  other.on("message", (ch, m) => {
    other.clock.advance(1);
    r.get("a").then((v) => seen.push(`${ch}:${m}:${v}`));
  });
  await other.subscribe("c");
  assert.equal(await r.publish("c", "m1"), 1);
  assert.equal(await r.publish("c", "m2"), 1);
  await r.ping();
  assert.deepEqual(seen, ["c:m1:aaaa", "c:m2:aaaa"]);
});

test("bad input to the client: unknown commands and wrong arguments reject with Redis's text; calls after quit() reject", async () => {
  const r = new Redis();
  await assert.rejects(r.call("NOSUCH", "x"), { name: "ReplyError", message: "ERR unknown command 'NOSUCH', with args beginning with: 'x' " });
  await assert.rejects(r.get(), { message: "ERR wrong number of arguments for 'get' command" });
  // Values that are not strings are sent as ioredis sends them.
  assert.equal(await r.set("n", 5), "OK");
  assert.equal(await r.incrby("n", 2n), 7);
  assert.deepEqual(await r.sadd("s", [1, 2], 3), 3);
  assert.equal(await r.quit(), "OK");
  await assert.rejects(r.get("n"), { message: "Connection is closed." });
  assert.deepEqual(await r.pipeline().get("n").exec(), [[new Error("Connection is closed.")]]);
});

test("a script that runs long finishes in timer turns, not in one call; others wait for it", async () => {
  const r = new Redis();
  const other = r.duplicate();
  const script = r.eval("local n = 0 for i = 1, 2500000 do n = n + 1 end return n", 0);
  const behind = other.incr("x");
  await Promise.resolve();
  // Past the first call's budget: still running, and the other client's INCR waits for it.
  assert.equal(r._engine.server.script_busy(), true);
  assert.equal(await script, 2_500_000);
  assert.equal(await behind, 1);
});

test("the batched binding: many commands in, their replies out, errors as redis-server gives them", async () => {
  const pkg = await loadEnginePackage();
  const server = new pkg.RespServer(1, T0);
  const a = server.connect();
  const b = server.connect();
  const req = encodeCommands([
    ["SET", "k", "v"],
    ["GET", "k"],
    ["NOSUCH", "x"],
    ["INCR", "k"],
  ]);
  assert.equal(
    latin1(server.call(a, req)),
    "+OK\r\n$1\r\nv\r\n-ERR unknown command 'NOSUCH', with args beginning with: 'x' \r\n-ERR value is not an integer or out of range\r\n",
  );
  // Inline commands and empty requests, as redis-server reads them.
  assert.equal(latin1(server.call(a, new TextEncoder().encode("*1\r\n$4\r\nPING\r\n*-1\r\n*0\r\n"))), "+PONG\r\n");
  // Split anywhere: what is incomplete waits for the rest.
  const split = encodeCommands([["ECHO", "hello"]]);
  assert.equal(latin1(server.call(b, split.subarray(0, 9))), "");
  assert.equal(latin1(server.call(b, split.subarray(9))), "$5\r\nhello\r\n");
  // A bulk length past proto-max-bulk-len: the protocol error, and the connection closes.
  const tooBig = new TextEncoder().encode("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$600000000\r\n");
  assert.equal(latin1(server.call(b, tooBig)), "-ERR Protocol error: invalid bulk length\r\n");
  assert.equal(server.closed(b), true);
  assert.equal(latin1(server.call(b, encodeCommands([["PING"]]))), "");
  // Malformed: the replies before it, then the error; nothing after it runs.
  const bad = new TextEncoder().encode("PING\r\n*1\r\nfoo\r\nPING\r\n");
  assert.equal(latin1(server.call(a, bad)), "+PONG\r\n-ERR Protocol error: expected '$', got 'f'\r\n");
  assert.equal(server.closed(a), true);
  const c = server.connect();
  assert.equal(latin1(server.call(c, new TextEncoder().encode("*x\r\n"))), "-ERR Protocol error: invalid multibulk length\r\n");
  // The engine lives on for new connections, and kept what the closed ones did.
  const d = server.connect();
  assert.equal(latin1(server.call(d, encodeCommands([["GET", "k"]]))), "$1\r\nv\r\n");
  // Through linear memory (what the client uses): the same bytes, the same replies.
  const f = server.connect();
  const mem = () => new Uint8Array(server.memory().buffer);
  const staged = (conn, bytes) => {
    mem().set(bytes, server.input(bytes.length));
    const n = server.call_input(conn, bytes.length);
    const at = server.output_ptr();
    return latin1(mem().slice(at, at + n));
  };
  assert.equal(staged(f, encodeCommands([["GET", "k"], ["NOSUCH"]])), "$1\r\nv\r\n-ERR unknown command 'NOSUCH', with args beginning with: \r\n");
  // A length past what `input` made room for is cut to it; the rest waits as an incomplete request.
  const ping = encodeCommands([["PING"]]);
  mem().set(ping, server.input(ping.length));
  assert.equal(server.call_input(f, 1_000_000), 7);
  assert.equal(staged(f, new TextEncoder().encode("*1\r\n$4\r\nPI")), "");
  assert.equal(staged(f, new TextEncoder().encode("NG\r\n")), "+PONG\r\n");
  assert.equal(staged(f, new TextEncoder().encode("*1\r\n$-5\r\n")), "-ERR Protocol error: invalid bulk length\r\n");
  assert.equal(server.closed(f), true);
  assert.equal(staged(f, ping), "");
  // Garbage of every byte value never traps.
  for (let seed = 1; seed < 200; seed += 1) {
    const e = server.connect();
    const junk = new Uint8Array(64).map((_, i) => (seed * 7919 + i * 104_729) % 251);
    server.call(e, junk);
    server.close(e);
  }
  assert.equal(latin1(server.call(d, encodeCommands([["DBSIZE"]]))), ":1\r\n");
  server.free();
});

test("the binding: pushes wait for the host to take them; RESP3 after HELLO 3", async () => {
  const pkg = await loadEnginePackage();
  const server = new pkg.RespServer(1, T0);
  const sub = server.connect();
  const pub = server.connect();
  assert.equal(latin1(server.call(sub, encodeCommands([["SUBSCRIBE", "ch"]]))), "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n");
  assert.equal(latin1(server.call(pub, encodeCommands([["PUBLISH", "ch", "m"]]))), ":1\r\n");
  assert.deepEqual([...server.pending()], [sub]);
  assert.equal(latin1(server.take(sub)), "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$1\r\nm\r\n");
  assert.deepEqual([...server.pending()], []);
  const r3 = server.connect();
  const hello = new ReplyReader(server.call(r3, encodeCommands([["HELLO", "3"]]))).next();
  assert.equal(hello[hello.indexOf("proto") + 1], 3);
  assert.equal(latin1(server.call(r3, encodeCommands([["GET", "nope"]]))), "_\r\n");
  server.free();
});

test("RESP decoding: ioredis's conversions, RESP3 frames as a RESP2 client sees them", () => {
  const read = (s, asBytes) => plain(new ReplyReader(new Uint8Array(Buffer.from(s, "latin1"))).next(asBytes));
  assert.equal(read("+OK\r\n"), "OK");
  assert.equal(read(":-42\r\n"), -42);
  assert.equal(read("$-1\r\n"), null);
  assert.equal(read("*-1\r\n"), null);
  assert.deepEqual(read("$3\r\n\xff\x00a\r\n", true), { bytes: "ff0061" });
  assert.equal(read("$6\r\nh\xc3\xa9llo\r\n"), "héllo");
  assert.deepEqual(read("-ERR boom\r\n"), { error: "ERR boom", name: "ReplyError" });
  assert.deepEqual(read("*2\r\n$1\r\na\r\n*1\r\n:1\r\n"), ["a", [1]]);
  assert.deepEqual(read("%1\r\n+f\r\n,1.5\r\n"), ["f", "1.5"]);
  assert.deepEqual(read("~2\r\n#t\r\n#f\r\n"), [1, 0]);
  assert.equal(read("=8\r\ntxt:abcd\r\n"), "abcd");
  assert.equal(read("(12345678901234567890\r\n"), "12345678901234567890");
  assert.deepEqual(read("!5\r\nERR x\r\n"), { error: "ERR x", name: "ReplyError" });
  assert.equal(read("|1\r\n+a\r\n+b\r\n:7\r\n"), 7);
  assert.equal(read("_\r\n"), null);
  assert.deepEqual(
    latin1(encodeCommands([["SET", "ké", new Uint8Array([0, 255])]])),
    "*3\r\n$3\r\nSET\r\n$3\r\nk\xc3\xa9\r\n$2\r\n\x00\xff\r\n",
  );
});

test("settle() and plain() keep rejections and bytes comparable", async () => {
  assert.deepEqual(await settle(Promise.reject(new Error("x"))), { rejected: { error: "x", name: "Error" } });
  assert.deepEqual(plain([new Uint8Array([1]), undefined]), [{ bytes: "01" }, "(undefined)"]);
});
