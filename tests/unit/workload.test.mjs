// The workload generator (www/workload.js): its seeded random source and key choosers, the
// form's parsing, one run against a cache-shaped fake (requests at their virtual times,
// whatever the frames), hit ratios, and "compare policies".

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  createComparison,
  createKeyChooser,
  createWorkloadDriver,
  createWorkloadRun,
  DEFAULT_SPEC,
  describeSpec,
  hitRatio,
  keyName,
  parseWorkloadSpec,
  SAMPLE_EVERY,
  seededRandom,
} from "../../www/workload.js";

const T0 = 1_735_689_600_000;

/**
 * A cache that answers as Redis would for GET and SET: a Map, INFO's hit and miss counters, a
 * clock with a 100 ms cron tick, OOM once `maxKeys` keys are held. Records every command.
 */
function fakeCache({ maxKeys = Infinity, start = T0 } = {}) {
  const data = new Map();
  const log = [];
  let now = start;
  let hits = 0;
  let misses = 0;
  const config = {};
  return {
    log,
    data,
    config,
    now: () => now,
    advanceTo(target, maxTicks = 10_000) {
      const ticks = Math.floor(target / 100) - Math.floor(now / 100);
      if (ticks > maxTicks) {
        now = (Math.floor(now / 100) + maxTicks) * 100;
        return { ticks: maxTicks, lagMs: target - now, now };
      }
      now = Math.max(now, target);
      return { ticks: Math.max(0, ticks), lagMs: 0, now };
    },
    command(args) {
      log.push([now, ...args]);
      const [name, key, value] = args;
      if (name === "GET") {
        if (data.has(key)) {
          hits += 1;
          return { text: "", reply: { type: "bulk", value: data.get(key) } };
        }
        misses += 1;
        return { text: "(nil)\n", reply: { type: "nil" } };
      }
      if (name === "SET") {
        if (!data.has(key) && data.size >= maxKeys) return { text: "", reply: { type: "error", value: "OOM command not allowed when used memory > 'maxmemory'." } };
        data.set(key, value);
        return { text: "OK\n", reply: { type: "status", value: "OK" } };
      }
      if (name === "CONFIG" && key === "SET") {
        if (value === "bad-param") return { text: "(error) ERR Unknown option\n", reply: { type: "error", value: "ERR Unknown option" } };
        config[value] = args[3];
        return { text: "OK\n", reply: { type: "status", value: "OK" } };
      }
      return { text: "", reply: { type: "error", value: "ERR unknown" } };
    },
    info: () => ({
      keyspace_hits: String(hits),
      keyspace_misses: String(misses),
      evicted_keys: "0",
      used_memory: String(1000 + data.size),
      maxmemory: "0",
      maxmemory_policy: config["maxmemory-policy"] ?? "noeviction",
      ...(data.size > 0 ? { db0: `keys=${data.size},expires=0,avg_ttl=0` } : {}),
    }),
    drainEvents: () => ({ events: [], dropped: 0, unreadable: false }),
    freed: false,
    free() {
      this.freed = true;
    },
  };
}

const spec = (o = {}) => ({ ...DEFAULT_SPEC, ...o });

test("seededRandom: the same seed gives the same doubles in [0, 1); another seed others", () => {
  const a = seededRandom(7);
  const b = seededRandom(7);
  const xs = Array.from({ length: 1000 }, () => a());
  assert.deepEqual(
    xs,
    Array.from({ length: 1000 }, () => b()),
  );
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  assert.notDeepEqual(
    xs.slice(0, 10),
    Array.from({ length: 10 }, seededRandom(8)),
  );
});

test("key choosers: a scan wraps, new keys never repeat, uniform stays in range", () => {
  const scan = createKeyChooser({ distribution: "scan", keys: 3, skew: 1, random: seededRandom(1) });
  assert.deepEqual(Array.from({ length: 7 }, () => scan.next()), [0, 1, 2, 0, 1, 2, 0]);
  const fresh = createKeyChooser({ distribution: "new", keys: 3, skew: 1, random: seededRandom(1) });
  assert.deepEqual(Array.from({ length: 5 }, () => fresh.next()), [0, 1, 2, 3, 4]);
  const uniform = createKeyChooser({ distribution: "uniform", keys: 10, skew: 1, random: seededRandom(1) });
  const seen = new Set(Array.from({ length: 2000 }, () => uniform.next()));
  assert.deepEqual([...seen].sort((x, y) => x - y), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.throws(() => createKeyChooser({ distribution: "gaussian", keys: 3, skew: 1, random: Math.random }), /unknown distribution/);
});

test("Zipf: key k is asked for in proportion to 1/(k+1)^skew", () => {
  const keys = 10;
  const n = 50_000;
  const zipf = createKeyChooser({ distribution: "zipf", keys, skew: 1, random: seededRandom(3) });
  const counts = new Array(keys).fill(0);
  for (let i = 0; i < n; i += 1) counts[zipf.next()] += 1;
  const harmonic = Array.from({ length: keys }, (_, k) => 1 / (k + 1)).reduce((s, x) => s + x, 0);
  for (const k of [0, 1, 9]) {
    const expected = 1 / (k + 1) / harmonic;
    assert.ok(Math.abs(counts[k] / n - expected) < 0.01, `key ${k}: ${counts[k] / n} vs ${expected}`);
  }
});

test("parseWorkloadSpec: the form as typed, with k/M suffixes and separators", () => {
  const r = parseWorkloadSpec({ distribution: "zipf", skew: "1.2", keys: "10k", rate: "1,000", requests: "", valueBytes: "100", ttl: "1h", seed: "9", flush: true });
  assert.deepEqual(r, {
    ok: true,
    value: { distribution: "zipf", skew: 1.2, keys: 10_000, rate: 1000, requests: 0, valueBytes: 100, ttl: "1h", seed: 9, flush: true },
  });
  // Only Zipf reads the skew.
  const uniform = parseWorkloadSpec({ distribution: "uniform", skew: "nonsense", keys: "1M", rate: "5", requests: "2k", valueBytes: "1", ttl: "none", seed: "0" });
  assert.equal(uniform.ok, true);
  assert.equal(uniform.value.keys, 1_000_000);
  assert.equal(uniform.value.requests, 2000);
  assert.equal(uniform.value.skew, DEFAULT_SPEC.skew);
});

test("parseWorkloadSpec: a bad field is named, with a sentence", () => {
  const base = { distribution: "zipf", skew: "1", keys: "100", rate: "10", requests: "0", valueBytes: "10", ttl: "none", seed: "1" };
  const cases = [
    [{ distribution: "normal" }, "distribution", /Access pattern/],
    [{ skew: "5" }, "skew", /from 0\.1 to 3/],
    [{ keys: "0" }, "keys", /Distinct keys: a whole number from 1 to 1,000,000, like 10000 or 10k/],
    [{ keys: "1.5" }, "keys", /Distinct keys/],
    [{ rate: "200k" }, "rate", /from 1 to 100,000/],
    [{ requests: "-3" }, "requests", /Requests/],
    [{ valueBytes: "1M" }, "valueBytes", /Value size/],
    [{ ttl: "2h" }, "ttl", /TTL/],
    [{ seed: "4294967296" }, "seed", /Seed: a whole number from 0 to 4,294,967,295/],
  ];
  for (const [patch, field, why] of cases) {
    const r = parseWorkloadSpec({ ...base, ...patch });
    assert.equal(r.ok, false, JSON.stringify(patch));
    assert.equal(r.field, field);
    assert.match(r.message, why);
  }
});

test("describeSpec: a line for the charts' legend", () => {
  assert.equal(describeSpec(spec()), "Zipf(1.0) over 10,000 keys, 1,000 req/s, seed 1");
  assert.equal(describeSpec(spec({ skew: 1.25 })), "Zipf(1.25) over 10,000 keys, 1,000 req/s, seed 1");
  assert.equal(describeSpec(spec({ distribution: "scan", keys: 500, rate: 20, seed: 4 })), "a scan of 500 keys, 20 req/s, seed 4");
  assert.equal(describeSpec(spec({ distribution: "new" })), "new keys only, 1,000 req/s, seed 1");
});

test("a run: GET, and on a miss SET, each request at start + (i+1)·1000/rate", () => {
  const cache = fakeCache();
  const run = createWorkloadRun(spec({ distribution: "scan", keys: 3, rate: 4, requests: 6, ttl: "1h", valueBytes: 2 }), cache, { startMs: T0 });
  assert.equal(run.nextAt(), T0 + 250);
  const r = run.runUntil(Infinity);
  assert.deepEqual(r, { requests: 6, ticks: 10 + 5, stoppedShort: false });
  assert.deepEqual(cache.log, [
    [T0 + 250, "GET", "key:0"],
    [T0 + 250, "SET", "key:0", "vv", "EX", "3600"],
    [T0 + 500, "GET", "key:1"],
    [T0 + 500, "SET", "key:1", "vv", "EX", "3600"],
    [T0 + 750, "GET", "key:2"],
    [T0 + 750, "SET", "key:2", "vv", "EX", "3600"],
    [T0 + 1000, "GET", "key:0"],
    [T0 + 1250, "GET", "key:1"],
    [T0 + 1500, "GET", "key:2"],
  ]);
  const st = run.status();
  assert.equal(st.done, true);
  assert.deepEqual(st.counts, { gets: 6, hits: 3, misses: 3, sets: 3, oom: 0, errors: 0 });
  assert.equal(hitRatio(st.samples), 0.5);
  assert.equal(run.nextAt(), Infinity);
});

test("a run does the same requests at the same times however it is cut into frames", () => {
  const s = spec({ distribution: "zipf", keys: 50, rate: 1000, requests: 700, ttl: "random", seed: 5 });
  const whole = fakeCache();
  createWorkloadRun(s, whole, { startMs: T0 }).runUntil(Infinity);
  const cut = fakeCache();
  const run = createWorkloadRun(s, cut, { startMs: T0 });
  for (let t = T0; !run.done(); t += 37) run.runUntil(t);
  assert.deepEqual(cut.log, whole.log);
  // Random TTLs are 10 to 60 minutes, from their own seeded source.
  const ttls = whole.log.filter((c) => c[1] === "SET").map((c) => Number(c[5]));
  assert.ok(ttls.length > 0 && ttls.every((t) => t >= 600 && t <= 3600));
  assert.ok(new Set(ttls).size > 1);
});

test("a run reads INFO every SAMPLE_EVERY requests and at its end; OOM is counted, not fatal", () => {
  const cache = fakeCache({ maxKeys: 10 });
  const run = createWorkloadRun(spec({ distribution: "new", rate: 1000, requests: SAMPLE_EVERY * 2 + 10, ttl: "none" }), cache, { startMs: T0 });
  run.runUntil(Infinity);
  const st = run.status();
  assert.deepEqual(
    st.samples.map((x) => x.requests),
    [0, SAMPLE_EVERY, SAMPLE_EVERY * 2, SAMPLE_EVERY * 2 + 10],
  );
  assert.equal(st.counts.sets, SAMPLE_EVERY * 2 + 10);
  assert.equal(st.counts.oom, SAMPLE_EVERY * 2);
  assert.match(st.lastError, /^OOM /);
  assert.equal(st.memory.keys, 10, "the latest INFO keyspace reading");
  // ttl "none": a plain SET.
  assert.deepEqual(cache.log[1], [T0 + 1, "SET", "key:0", "v".repeat(100)]);
});

test("a run stops short when the tick budget runs out, and goes on from there", () => {
  const cache = fakeCache();
  const run = createWorkloadRun(spec({ distribution: "scan", keys: 5, rate: 1, requests: 3 }), cache, { startMs: T0 });
  const first = run.runUntil(Infinity, { maxTicks: 15 });
  assert.deepEqual(first, { requests: 1, ticks: 15, stoppedShort: true });
  assert.equal(run.status().requests, 1);
  const rest = run.runUntil(Infinity);
  assert.equal(rest.requests, 2);
  assert.deepEqual(
    cache.log.filter((c) => c[1] === "GET").map((c) => c[0] - T0),
    [1000, 2000, 3000],
  );
});

test("a run stopped by hand takes a last INFO reading", () => {
  const cache = fakeCache();
  const run = createWorkloadRun(spec({ requests: 0, rate: 100, ttl: "none" }), cache, { startMs: T0 });
  run.runUntil(T0 + 1000);
  assert.equal(run.done(), false, "requests 0: until stopped");
  run.stop();
  assert.equal(run.done(), true);
  assert.equal(run.status().samples.at(-1).requests, 100);
});

test("hitRatio: cumulative, or over the last `window` requests; null without data", () => {
  const samples = [
    { requests: 0, atMs: 0, hits: 0, misses: 0, evicted: 0 },
    { requests: 100, atMs: 1, hits: 10, misses: 90, evicted: 0 },
    { requests: 200, atMs: 2, hits: 100, misses: 100, evicted: 0 },
  ];
  assert.equal(hitRatio(samples), 0.5);
  assert.equal(hitRatio(samples, 100), 0.9);
  assert.equal(hitRatio(samples.slice(0, 1)), null);
  assert.equal(hitRatio([samples[0], { ...samples[0], requests: 5 }]), null);
});

test("compare policies: the same workload on a fresh engine per policy, each freed after", () => {
  const engines = [];
  const job = createComparison({
    spec: spec({ distribution: "scan", keys: 4, rate: 100, requests: 8, ttl: "none" }),
    policies: ["allkeys-lru", "noeviction"],
    config: { maxmemory: "1mb" },
    startMs: T0,
    makeEngine() {
      const e = fakeCache({ maxKeys: engines.length === 0 ? 100 : 2 });
      engines.push(e);
      return e;
    },
  });
  while (job.work(Infinity)) {}
  const st = job.status();
  assert.equal(st.running, false);
  assert.equal(st.failed, null);
  assert.equal(st.progress, 1);
  assert.deepEqual(
    st.results.map((r) => [r.policy, r.requests, r.hits, r.misses, r.oom]),
    [
      ["allkeys-lru", 8, 4, 4, 0],
      // Two keys fit: key:0 and key:1 are set, then hit; key:2 and key:3 miss and are refused.
      ["noeviction", 8, 2, 6, 4],
    ],
  );
  assert.deepEqual(engines[0].config, { "maxmemory-policy": "allkeys-lru", maxmemory: "1mb" });
  assert.ok(engines.every((e) => e.freed));
});

test("compare policies: a refused CONFIG SET ends the job with the engine's words", () => {
  const engines = [];
  const job = createComparison({
    spec: spec({ requests: 5 }),
    config: { "bad-param": 1 },
    startMs: T0,
    makeEngine: () => {
      const e = fakeCache();
      engines.push(e);
      return e;
    },
  });
  assert.equal(job.work(Infinity), false);
  assert.equal(job.status().failed, "CONFIG SET bad-param 1: (error) ERR Unknown option");
  assert.ok(engines[0].freed);
});

test("the driver starts a live run on a whole second and drives it within the frame's budget", () => {
  const engine = { ...fakeCache({ start: T0 + 1234 }), createScratchEngine: () => fakeCache() };
  const driver = createWorkloadDriver({ engine, realNow: () => 0 });
  assert.equal(driver.active(), false);
  const run = driver.start(spec({ distribution: "scan", keys: 2, rate: 10, requests: 4, ttl: "none" }));
  assert.equal(run.startMs, T0 + 2000);
  assert.equal(run.id, 1);
  assert.equal(driver.active(), true);
  const d = driver.drive(T0 + 2200, { deadline: Infinity, maxTicks: 10_000 });
  assert.equal(d.requests, 2);
  assert.equal(driver.status().run.requests, 2);
  driver.drive(Infinity, { deadline: Infinity, maxTicks: 10_000 });
  assert.equal(driver.active(), false);
  driver.forget();
  assert.equal(driver.status().run, null);
  assert.equal(keyName(3), "key:3");
});
