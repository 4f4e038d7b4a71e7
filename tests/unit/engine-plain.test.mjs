// What the wasm methods return, as the page reads it (www/engine/plain.js), and the one INFO
// parser.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  infoArgs,
  infoFromReply,
  parseInfo,
  plainAdvance,
  plainCommands,
  plainEvents,
  plainExperiment,
  plainLine,
  plainLineOn,
  plainPoll,
} from "../../www/engine/plain.js";

// INFO as redis-server 7.0 prints it: CRLF line ends, `# Section` headers, blank lines between.
const INFO = "# Memory\r\nused_memory:914704\r\nused_memory_human:893.27K\r\nmaxmemory_policy:noeviction\r\n\r\n# Keyspace\r\ndb0:keys=3,expires=1,avg_ttl=1200\r\n";

test("parseInfo: field:value lines, headers and blank lines skipped, values kept as text", () => {
  assert.deepEqual(parseInfo(INFO), {
    used_memory: "914704",
    used_memory_human: "893.27K",
    maxmemory_policy: "noeviction",
    db0: "keys=3,expires=1,avg_ttl=1200",
  });
});

test("parseInfo: a value may hold colons; a line without one, or starting with one, is skipped", () => {
  assert.deepEqual(parseInfo("executable:/usr/bin/redis-server\nnot a field\n:orphan\nrole:master"), {
    executable: "/usr/bin/redis-server",
    role: "master",
  });
  assert.deepEqual(parseInfo(""), {});
});

test("infoArgs and infoFromReply: sections as arguments; only a bulk reply is parsed", () => {
  assert.deepEqual(infoArgs("  memory   stats "), ["INFO", "memory", "stats"]);
  assert.deepEqual(infoArgs(""), ["INFO"]);
  assert.deepEqual(infoFromReply({ text: "", reply: { type: "bulk", value: "a:1\r\n" } }), { a: "1" });
  assert.deepEqual(infoFromReply({ text: "", reply: { type: "error", value: "ERR restarting" } }), {});
  assert.deepEqual(infoFromReply(null), {});
});

test("a line's result: text and prompt as strings, flags as booleans, no reply → null", () => {
  assert.deepEqual(plainLine({ text: "OK\n", prompt: "127.0.0.1:6379> ", reply: { type: "status", value: "OK" }, quit: 0, clear: undefined }), {
    text: "OK\n",
    prompt: "127.0.0.1:6379> ",
    reply: { type: "status", value: "OK" },
    quit: false,
    clear: false,
    shutdown: false,
  });
  assert.equal(plainLine({ text: "", prompt: "p" }).reply, null);
  assert.equal(plainLine({ text: "", prompt: "not connected> ", shutdown: 1 }).shutdown, true);
  assert.deepEqual(plainLineOn({ text: "", prompt: "p", blocked: 1 }), {
    text: "",
    prompt: "p",
    reply: null,
    quit: false,
    clear: false,
    shutdown: false,
    blocked: true,
    subscribed: false,
  });
});

test("a drain the engine could not hand over is `unreadable`, with no events", () => {
  const e = { kind: "cron", at_ms: 1, ticks: 1, hz: 10 };
  assert.deepEqual(plainEvents({ events: [e], dropped: 2 }), { events: [e], dropped: 2, unreadable: false });
  assert.deepEqual(plainEvents({ events: null, dropped: 0 }), { events: [], dropped: 0, unreadable: true });
  assert.deepEqual(plainEvents(undefined), { events: [], dropped: 0, unreadable: true });
});

test("advance, poll, experiment and command table are coerced to plain numbers and strings", () => {
  assert.deepEqual(plainAdvance({ ticks: 3, lagMs: 0, now: 1000 }), { ticks: 3, lagMs: 0, now: 1000 });
  assert.deepEqual(plainPoll({ text: "x", prompt: "p", blocked: false, subscribed: true, client: 4 }), {
    text: "x",
    prompt: "p",
    blocked: false,
    subscribed: true,
    client: 4,
  });
  assert.deepEqual(plainExperiment({ keys: 10, samples: 5, evicted_by_decile: [0.5, 0.25], new_keys_evicted: 0.1, evicted_total: 7 }), {
    keys: 10,
    samples: 5,
    evictedByDecile: [0.5, 0.25],
    newKeysEvicted: 0.1,
    evictedTotal: 7,
  });
  assert.deepEqual(plainExperiment(null), { keys: 0, samples: 0, evictedByDecile: [], newKeysEvicted: 0, evictedTotal: 0 });
  assert.deepEqual(plainCommands([{ name: "get", summary: "s", group: "string", since: "1.0.0", arity: 2, playground: 0 }]), [
    { name: "get", summary: "s", group: "string", since: "1.0.0", arity: 2, playground: false },
  ]);
  assert.deepEqual(plainCommands(undefined), []);
});
