// What the built wasm package really returns, held to the page's types (www/types/*.d.ts): the
// hand-built results of src/wasm.rs to playground.d.ts, the drained events and the snapshots to
// events.d.ts and snapshots.d.ts — which tests/event_types.rs generates from serde_json, so this
// also checks that serde-wasm-bindgen gives JavaScript the shapes serde_json wrote. Runs the
// package in node (no browser): every reply type, every event kind a few commands produce, every
// snapshot, the delay-queue lab.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { before, test } from "node:test";
import { check, readTypes } from "./dts-shapes.mjs";
import { assertBuilt, REPO_ROOT } from "./harness.mjs";

const T0 = 1_735_689_600_000;
let pkg;
let types;

before(async () => {
  assertBuilt();
  pkg = await import(path.join(REPO_ROOT, "www/pkg/redisplay.js"));
  await pkg.default({ module_or_path: readFileSync(path.join(REPO_ROOT, "www/pkg/redisplay_bg.wasm")) });
  types = readTypes(["events", "snapshots", "playground"].map((f) => readFileSync(path.join(REPO_ROOT, `www/types/${f}.d.ts`), "utf8")));
});

/** Fails with every difference between `value` and the type named `type`. */
function fits(value, type, what = type) {
  const problems = check(types, value, type, what);
  assert.deepEqual(problems, [], `${what} is not a ${type}:\n  ${problems.join("\n  ")}`);
}

test("the .d.ts files are read whole: every type the test names is there", () => {
  for (const name of ["Event", "DelayQueueEvent", "Reply", "RawLineResult", "RawPollResult", "RawCommandResult", "RawAdvance", "RawDrain", "KeyspacePage", "ZsetWindow", "ExpireField", "ExpireBuckets", "LruExperimentResult", "DelayQueueMetrics", "CommandDoc"]) {
    assert.ok(types.has(name), name);
  }
  // And the checker refuses what does not fit.
  assert.notDeepEqual(check(types, { kind: "cron", at_ms: 1, ticks: 1, hz: 10, extra: true }, "Event"), []);
  assert.notDeepEqual(check(types, { type: "integer", value: "1" }, "Reply"), []);
});

test("console lines: every reply type, as execute and execute_on return them", () => {
  const pg = new pkg.Playground(1, T0);
  const replies = {};
  const line = (text, n = 0) => {
    const r = n === 0 ? pg.execute(text) : pg.execute_on(n, text);
    fits(r, "RawLineResult", text);
    if (r.reply) replies[r.reply.type] = r.reply;
    return r;
  };
  line("SET k v");
  line("INCR n");
  line("GET k");
  line("GET missing");
  line("NOSUCHCOMMAND");
  line("RPUSH l a b");
  line("LRANGE l 0 -1");
  line('SET raw "\\xff\\xfe"');
  const raw = line("GET raw");
  assert.ok(raw.reply.bytes instanceof Uint8Array, "a bulk that is not UTF-8 comes with its bytes");
  line("WATCH k");
  pg.command(["SET", "k", "changed"]);
  line("MULTI");
  line("GET k");
  assert.equal(line("EXEC").reply.type, "nil-array");
  line("ZADD z 1.5 m");
  line("HELLO 3");
  assert.equal(line("ZSCORE z m").reply.type, "double");
  line("");
  line("help GET");
  assert.deepEqual(Object.keys(replies).sort(), ["array", "bulk", "double", "error", "integer", "nil", "nil-array", "status"]);
  const n = pg.open_console();
  line("BLPOP nothing 0", n);
  const polled = pg.poll(n);
  fits(polled, "RawPollResult", "poll");
  assert.equal(polled.blocked, true);
  pg.free();
});

test("commands, peeks, time and the command table", () => {
  const pg = new pkg.Playground(1, T0);
  fits(pg.command(["SET", "a", "1"]), "RawCommandResult", "command");
  fits(pg.command([]), "RawCommandResult", "an empty command");
  fits(pg.peek(["INFO", "memory"]), "RawCommandResult", "peek INFO");
  fits(pg.peek(["CONFIG", "GET", "hz"]), "RawCommandResult", "peek CONFIG GET");
  fits(pg.advance_to(T0 + 1000, undefined), "RawAdvance", "advance_to");
  fits(pg.advance_to(T0 + 10_000_000, 3), "RawAdvance", "advance_to with lag");
  const table = pg.commands();
  assert.ok(table.length > 200);
  for (const c of table) fits(c, "CommandDoc", c.name);
  pg.free();
});

test("hints and raw mode: a string or undefined, a boolean", () => {
  const pg = new pkg.Playground(1, T0);
  assert.equal(pg.hint(0, "GET"), " key");
  assert.equal(pg.hint(0, "nosuch"), undefined);
  assert.equal(pg.hint(7, "GET"), undefined, "no such console");
  assert.equal(pg.raw_of(0), false);
  pg.set_raw(0, true);
  assert.equal(pg.raw_of(0), true);
  const r = pg.execute("GET nosuch");
  fits(r, "RawLineResult", "a raw line");
  assert.equal(r.text, "\n");
  pg.set_raw(9, true); // no such console: nothing happens
  assert.equal(pg.raw_of(9), false);
  pg.free();
});

test("drained events: every kind a few commands produce fits its type", () => {
  const pg = new pkg.Playground(3, T0);
  const cmd = (...args) => pg.command(args.map(String));
  const seen = new Map();
  const drain = (what) => {
    const d = pg.drain_events();
    fits(d, "RawDrain", `drain after ${what}`);
    for (const e of d.events) {
      fits(e, "Event", `${e.kind} event`);
      if (!seen.has(e.kind)) seen.set(e.kind, e);
    }
  };
  // Keyspace, config, sorted sets in both encodings (a conversion, a search), removals.
  cmd("SET", "a", "1");
  cmd("CONFIG", "SET", "hz", "10");
  cmd("ZADD", "board", 1, "a", 2, "b");
  cmd("ZADD", "board", ...Array.from({ length: 130 }, (_, i) => [i + 3, `m${i}`]).flat());
  cmd("ZRANK", "board", "m70");
  cmd("ZREM", "board", "a");
  drain("sorted sets");
  // A stall: a big sorted set freed synchronously.
  cmd("ZADD", "big", ...Array.from({ length: 20_000 }, (_, i) => [i, `x${i}`]).flat());
  cmd("DEL", "big");
  drain("DEL big");
  // Expiry, lazy and active; the clock set and advanced (cron, expire cycles).
  cmd("SET", "lazy", "v", "PX", "10");
  for (let i = 0; i < 50; i += 1) cmd("SET", `t${i}`, "v", "PX", "100");
  pg.set_time(T0 + 50);
  cmd("GET", "lazy");
  pg.advance_to(T0 + 5000, undefined);
  drain("expiry");
  // Eviction, with volatile-ttl's scores above 2^53 (written as text).
  cmd("CONFIG", "SET", "maxmemory-policy", "volatile-ttl");
  for (let i = 0; i < 200; i += 1) cmd("SET", `e${i}`, "x".repeat(500), "EX", 3600 + i);
  cmd("CONFIG", "SET", "maxmemory", "1mb");
  for (let i = 0; i < 200; i += 1) cmd("SET", `f${i}`, "x".repeat(5000), "EX", 3600 + i);
  drain("eviction");
  const kinds = [...seen.keys()].sort();
  for (const k of ["clock_set", "command", "config", "cron", "eviction", "expire_cycle", "expired", "keyspace", "stall", "zset_convert", "zset_insert", "zset_remove", "zset_search"]) {
    assert.ok(kinds.includes(k), `a ${k} event was produced (${kinds.join(", ")})`);
  }
  assert.equal(typeof seen.get("eviction").report.samples[0].score, "string", "volatile-ttl scores are above 2^53");
  pg.free();
});

test("snapshots: the keyspace, a sorted-set window, the expires table, the LRU experiment", () => {
  const pg = new pkg.Playground(5, T0);
  pg.command(["SET", "plain", "v"]);
  pg.command(["SET", "soon", "v", "PX", "10"]);
  pg.command(["ZADD", "z", "1", "a", "2", "b"]);
  pg.set_time(T0 + 100);
  fits(pg.keyspace(0, 0, 10, undefined), "KeyspacePage", "keyspace");
  fits(pg.keyspace(0, 0, 10, "z*"), "KeyspacePage", "keyspace with a pattern");
  fits(pg.zset_window(0, "z", 0, 10), "ZsetWindow", "zset_window");
  assert.equal(pg.zset_window(0, "plain", 0, 10), null);
  fits(pg.expire_field(0, 8), "ExpireField", "expire_field");
  fits(pg.expire_buckets(0, 0, 16), "ExpireBuckets", "expire_buckets");
  fits(pg.lru_experiment(200, 5, 1), "LruExperimentResult", "lru_experiment");
  pg.free();
});

test("the delay-queue lab: run, drain, metrics", () => {
  const lab = new pkg.DelayQueueLab({ strategy: 2, consumers: 2, seed: 7, durationMs: 600_000 });
  fits(lab.run_until(300_000, 5000), "RawDelayQueueRun", "run_until");
  const d = lab.drain();
  fits(d, "RawDelayQueueDrain", "drain");
  const kinds = new Set(d.events.map((e) => e.kind));
  for (const e of d.events.slice(0, 2000)) fits(e, "DelayQueueEvent", `${e.kind} event`);
  assert.ok(kinds.has("order") && kinds.has("command"), [...kinds].join(", "));
  lab.run_until(Number.MAX_SAFE_INTEGER, undefined);
  const fates = lab.drain().events.filter((e) => e.kind === "fate");
  assert.ok(fates.length > 0);
  for (const e of fates) fits(e, "DelayQueueEvent", "fate event");
  fits(lab.metrics(), "DelayQueueMetrics", "metrics");
  assert.throws(() => new pkg.DelayQueueLab({ consumers: 0 }), /delay-queue/);
  lab.free();
});

test("the RDB file: rdb_image's bytes, load_rdb's report and refusal", () => {
  const a = new pkg.Playground(1, T0);
  a.execute("SET k v");
  a.execute("SET gone v PX 10");
  const image = a.rdb_image();
  assert.ok(image instanceof Uint8Array);
  assert.equal(new TextDecoder().decode(image.subarray(0, 9)), "REDIS0010");
  const b = new pkg.Playground(2, T0 + 1000);
  const loaded = b.load_rdb(image);
  fits(loaded, "RawLoadResult", "load_rdb");
  assert.deepEqual([loaded.ok, loaded.keysLoaded, loaded.keysExpired], [true, 1, 1]);
  const refused = b.load_rdb(image.subarray(0, 20));
  fits(refused, "RawLoadResult", "load_rdb (cut)");
  assert.equal(refused.ok, false);
  assert.match(refused.error, /Unexpected EOF reading RDB file/);
  b.execute("SHUTDOWN NOSAVE");
  assert.match(b.load_rdb(image).error, /the server is shut down: type connect/);
  a.free();
  b.free();
});
