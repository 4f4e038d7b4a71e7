// Unit tests of the eviction view's model (www/views/eviction-model.js), the reading of one
// eviction report (eviction-report.js) and the forms (eviction-forms.js): pure, no DOM, no
// engine. Reports are built here in the shapes src/evict.rs and src/events.rs give them.

import { test } from "node:test";
import assert from "node:assert/strict";

import * as m from "../../www/views/eviction-model.js";
import {
  barScale,
  barValue,
  commonPrefix,
  describeScore,
  formatBytes,
  formatDuration,
  isSorted,
  poolSlots,
  readReport,
  scoreBig,
  scoreKind,
} from "../../www/views/eviction-report.js";
import { decileLabels, lruCaption, parseLruParams, parseMaxmemory, parseSamples, policyHelp } from "../../www/views/eviction-forms.js";

const HOSTILE = '<img src=x onerror=alert(1)> "\n';

const entry = (key, idle, db = 0) => ({ key, idle, db });
const pool = (...entries) => [...entries, ...new Array(16 - entries.length).fill(null)];

/** An `eviction` event. */
function eviction({ at = 1000, policy = "allkeys-lru", samples = [], before = [], after = [], victim = "v", ghosts = 0 } = {}) {
  return {
    kind: "eviction",
    at_ms: at,
    report: {
      policy,
      samples,
      pool_before: before,
      pool_after: after,
      victim_db: 0,
      victim,
      ghosts,
      bytes_freed: 208,
      used_before: 1_228_952,
      maxmemory: 1_228_800,
    },
  };
}

const command = (name) => ({ kind: "command", at_ms: 0, client: 1, db: 0, name, argc: 1, error: false });
const memory = (patch = {}) => ({ used: 1000, maxmemory: 900, policy: "noeviction", keys: 10, expires: 0, evicted: 0, ...patch });

// ---------------------------------------------------------------------------------------------
// Events and readings
// ---------------------------------------------------------------------------------------------

test("evictions are kept (the last 256) and counted; reads of state do not make INFO stale", () => {
  const s0 = { ...m.initialState(), memStale: false };
  assert.equal(m.reduceEvents(s0, [command("info"), command("config|get")]), s0);
  assert.equal(m.reduceEvents(s0, [command("set")]).memStale, true);
  const many = Array.from({ length: 300 }, (_, i) => eviction({ at: i, victim: `k${i}` }));
  const s = m.reduceEvents(s0, many);
  assert.equal(s.seen, 300);
  assert.equal(s.kept.length, m.MAX_KEPT);
  assert.equal(s.kept[0].report.victim, "k44");
  assert.equal(s.lastEvictionSeq, 300);
  assert.equal(s.dirty.detail, true);
});

test("stepping back and forth through the kept evictions; the selection follows what is kept", () => {
  let s = m.reduceEvents(m.initialState(), [eviction({ victim: "a" }), eviction({ victim: "b" }), eviction({ victim: "c" })]);
  assert.deepEqual(m.detailNav(s), { n: 3, event: s.kept[2], olderDisabled: false, newerDisabled: true, text: "eviction 3 of 3 (latest)" });
  s = m.older(m.older(m.older(s)));
  assert.equal(s.selected, 1, "not before the first kept");
  assert.equal(m.detailNav(s).olderDisabled, true);
  assert.equal(m.detailNav(s).event?.report.victim, "a");
  s = m.newer(s);
  assert.equal(s.selected, 2);
  s = m.newer(s);
  assert.equal(s.selected, null, "the last one is the latest again");
  assert.equal(m.newer(s), s);
  s = m.older(s);
  const pushed = m.reduceEvents(s, Array.from({ length: 300 }, () => eviction()));
  assert.equal(pushed.selected, pushed.seen - m.MAX_KEPT + 1, "a selection that fell out is moved to the oldest kept");
  assert.match(m.detailNav(pushed).text, /^eviction 48 of 303 · the last 256 are kept$/);
  assert.equal(m.latest(pushed).selected, null);
});

test("config events update the settings; other parameters are ignored", () => {
  const s = m.reduceEvents({ ...m.initialState(), memStale: false }, [
    { kind: "config", at_ms: 0, name: "maxmemory-policy", value: "volatile-ttl" },
    { kind: "config", at_ms: 0, name: "maxmemory", value: "1mb" },
    { kind: "config", at_ms: 0, name: "toString", value: "x" },
  ]);
  assert.deepEqual(s.config, { maxmemory: "1mb", policy: "volatile-ttl", samples: null });
  assert.equal(m.policyNow(s), "volatile-ttl");
  assert.equal(m.policyNow(m.initialState()), "noeviction");
  assert.equal(m.reduceEvents(m.initialState(), [{ kind: "config", at_ms: 0, name: "hz", value: "50" }]).config.policy, null);
});

test("INFO is summed over the dbs; read at once when paused, every 250 ms while playing", () => {
  const info = {
    used_memory: "1228952",
    maxmemory: "1228800",
    maxmemory_policy: "allkeys-lru",
    evicted_keys: "587",
    keyspace_hits: "3268",
    db0: "keys=960,expires=960,avg_ttl=0",
    db3: "keys=2,expires=0,avg_ttl=0",
    dbx: "keys=100,expires=100",
  };
  const mem = m.memoryFromInfo(info, null);
  assert.deepEqual(mem, { used: 1_228_952, maxmemory: 1_228_800, policy: "allkeys-lru", keys: 962, expires: 960, evicted: 587, hits: 3268, misses: 0 });
  assert.equal(m.memoryFromInfo({}, "volatile-lru").policy, "volatile-lru");
  const s = { ...m.initialState(), memReadAt: 1000 };
  assert.equal(m.memoryDue(s, 1001), true);
  assert.equal(m.memoryDue({ ...s, playing: true }, 1249), false);
  assert.equal(m.memoryDue({ ...s, playing: true }, 1250), true);
  const read = m.acceptMemory(s, mem, 2000);
  assert.equal(read.memStale, false);
  assert.equal(read.memReads, 1);
  assert.equal(m.headText(read), "allkeys-lru · samples ? · 0 evictions seen · evicted_keys 587", "the policy INFO reports");
});

test("over the limit after an OOM refusal is the OOM state, until the next eviction", () => {
  let s = { ...m.initialState(), memory: memory() };
  assert.equal(m.inOom(s), false);
  s = m.noteReply(s, { type: "error", value: "OOM command not allowed when used memory > 'maxmemory'." }, "  SET   big:2 zzz ", 5000);
  assert.equal(m.inOom(s), true);
  assert.equal(s.oom?.command, "SET big:2");
  assert.equal(m.headText(s), "noeviction · samples ? · 0 evictions seen · evicted_keys 0 · OOM");
  const t = m.oomText(s);
  assert.equal(t.policy, "noeviction");
  assert.match(t.text, /used_memory 1,000 B > maxmemory 900 B\. The policy is noeviction: Redis never evicts\./);
  assert.equal(t.error, "(error) OOM command not allowed when used memory > 'maxmemory'.");
  assert.equal(t.from, " — last refused: SET big:2 (console) at 00:00:05.000");
  assert.match(m.oomText({ ...s, config: { ...s.config, policy: "volatile-lru" } }).text, /no key has one \(INFO keyspace: expires=0\)/);
  assert.match(m.noEvictionText(s), /^No eviction: noeviction can evict nothing here/);
  assert.equal(m.inOom(m.reduceEvents(s, [eviction()])), false);
  assert.equal(m.inOom({ ...s, memory: memory({ used: 800 }) }), false, "back under the limit");
  assert.equal(m.noteReply(s, { type: "integer", value: 1 }, "DEL x", 0).memStale, true);
  const quiet = { ...s, memStale: false };
  assert.equal(m.noteReply(quiet, null, "", 0), quiet);
});

test("the gauge: over the limit, at no limit (with a suggestion), read by the workload", () => {
  const over = m.gauge(memory({ used: 1_228_952, maxmemory: 1_228_800, keys: 961, expires: 961 }));
  assert.equal(over.over, true);
  assert.equal(over.fill, "92.59%");
  assert.equal(over.limit, "92.58%");
  assert.equal(over.text, "used_memory 1.17 MB of maxmemory 1.17 MB (100.0%) · 961 keys, 961 with a TTL · over the limit by 152 B");
  const none = m.gauge(memory({ used: 900_000, maxmemory: 0 }));
  assert.equal(none.unlimited, true);
  assert.equal(none.limit, null);
  assert.equal(none.suggestion, "1479kb");
  assert.match(none.text, /^used_memory 878.9 KB \(900,000 B\) · maxmemory 0: no limit/);
  assert.match(m.gauge(memory({ fromRun: {} })).text, / · as the workload last read INFO \(every 250 requests\)$/);
});

test("the workload's runs join the chart; a new run becomes the current one; six are kept", () => {
  const status = (id, patch = {}) => ({
    run: {
      id,
      label: `run ${id}`,
      spec: { rate: 50, requests: 0 },
      startMs: 1000,
      requests: 250,
      total: 0,
      done: false,
      stopped: false,
      counts: { oom: 0 },
      samples: [],
      info: { hits: 1, misses: 2, evicted: 3 },
      memory: null,
      lastError: "",
      ...patch,
    },
    compare: null,
  });
  let s = m.initialState();
  for (let id = 1; id <= 7; id += 1) s = m.followRuns(s, status(id), 0);
  assert.deepEqual(
    s.runs.map((r) => [r.id, r.current]),
    [
      [2, false],
      [3, false],
      [4, false],
      [5, false],
      [6, false],
      [7, true],
    ],
  );
  assert.equal(s.runs[5].color, m.RUN_COLORS[0], "colours go round");
  const quiet = { ...s, dirty: { ...s.dirty, ratio: false } };
  assert.equal(m.followRuns(quiet, status(7), 0).dirty.ratio, false, "nothing new");
  const refused = m.followRuns(s, status(7, { counts: { oom: 2 }, lastError: "OOM command not allowed" }), 4000);
  assert.deepEqual(refused.oom, { seq: 1, at: 4000, command: "SET (the workload)", text: "OOM command not allowed", from: "workload" });
  assert.equal(m.followRuns(refused, status(7, { counts: { oom: 2 } }), 5000).oom, refused.oom, "noted once");
  assert.deepEqual(
    m.clearRuns(s).runs.map((r) => r.id),
    [7],
  );
  assert.deepEqual(m.clearRuns(m.followRuns(s, status(7, { done: true }), 0)).runs, []);
});

test("what is drawn: throttled parts wait while playing; a running comparison at most 4× a second", () => {
  const s = { ...m.initialState(), visible: true, memStale: false };
  assert.deepEqual([...m.planFrame(s, 0).plan], [...m.PARTS]);
  const playing = { ...s, playing: true, drawnAt: { detail: 900, ratio: 900, gauge: 500, compare: 900 }, compareStatus: { running: true } };
  const p = m.planFrame(playing, 1000);
  assert.deepEqual([...p.plan], ["gauge", "head", "controls", "callouts", "workload", "lru"]);
  assert.equal(p.pending, true);
  const drawn = m.drawn(playing, "detail", 1000);
  assert.equal(drawn.dirty.detail, false);
  assert.equal(drawn.drawnAt.detail, 1000);
  assert.equal(m.planFrame({ ...s, dirty: Object.fromEntries(m.PARTS.map((k) => [k, false])), memStale: true }, 0).pending, true);
});

test("starting and comparing workloads: the notes and messages", () => {
  const started = m.runStarted({ requests: 0 }, "allkeys-lru · Zipf", 61_000, "0");
  assert.equal(started.kind, "error");
  assert.match(started.note, /^\(eviction view\) workload allkeys-lru · Zipf: unlimited requests — GET key, and SET key on a miss — from 00:01:01.000 virtual time\.$/);
  assert.equal(m.runStarted({ requests: 3000 }, "x", 0, null).kind, "error", "maxmemory not read yet");
  assert.equal(m.runStarted({ requests: 3000 }, "x", 0, "1228800").kind, "ok");
  assert.equal(m.compareRequest({ requests: 0 }, "spec", "0", () => null), null);
  const cfg = { "maxmemory-samples": "10", "lfu-log-factor": "10" };
  const req = m.compareRequest({ requests: 0 }, "spec", "1228800", (name) => cfg[name] ?? null);
  assert.deepEqual(req?.config, { maxmemory: "1228800", "maxmemory-samples": "10", "lfu-log-factor": "10" });
  assert.equal(req?.note, "(eviction view) compare policies: spec, 20,000 requests, on a fresh engine per policy with maxmemory 1,228,800 and samples 10.");
  const line = m.compareLine({ running: true, results: [], progress: 0.456, failed: null, policy: "allkeys-lfu", spec: { requests: 20_000 }, config: { maxmemory: "1228800" } }, "Zipf");
  assert.equal(line, "Zipf, 20,000 requests, maxmemory 1,228,800, samples 5: running allkeys-lfu (46%)…");
});

test("the hit ratio over a window of requests, and the axis", () => {
  const samples = [
    { requests: 0, hits: 0, misses: 0 },
    { requests: 500, hits: 100, misses: 400 },
    { requests: 1000, hits: 400, misses: 600 },
    { requests: 1500, hits: 800, misses: 700 },
    { requests: 2000, hits: 1250, misses: 750 },
  ];
  assert.deepEqual(m.ratioSeries(samples), [
    [500, 0.2],
    [1000, 0.4],
    [1500, 0.7],
    [2000, 0.85],
  ]);
  assert.deepEqual(m.ratioAxis([{ total: 0, requests: 2000, rate: 50 }]), { maxX: 2000, label: "2,000 requests = 40 s of virtual time" });
  assert.equal(m.ratioAxis([{ total: 30_000, requests: 5, rate: 50 }]).label, "30,000 requests = 10 min of virtual time");
  assert.equal(m.ratioAxis([]).label, "1,000 requests");
  assert.equal(m.ratioAxis([{ total: 0, requests: 1, rate: 50 }, { total: 0, requests: 1, rate: 60 }]).label, "1,000 requests");
});

test("the comparison's scale is zoomed to the results, at least 10 points wide", () => {
  assert.deepEqual(m.comparisonScale([{ ratio: 0.62 }, { ratio: 0.68 }, { ratio: null }]), { lo: 0.6, hi: 0.7, best: 0.68, ticks: ["60%", "65%", "70%"] });
  assert.deepEqual(m.comparisonScale([{ ratio: 1 }]), { lo: 0.9, hi: 1, best: 1, ticks: ["90%", "95%", "100%"] });
  assert.deepEqual(m.comparisonScale([]), { lo: 0, hi: 1, best: -1, ticks: ["0%", "50%", "100%"] });
  assert.match(m.comparisonCaption([{ policy: "noeviction", oom: 1234 }]), /^noeviction evicts nothing: .* \(1,234 SETs got the OOM error\)/);
  assert.equal(m.comparisonCaption([{ policy: "noeviction", oom: 0, evicted: 0 }, { policy: "allkeys-lru", oom: 0, evicted: 12 }]), "");
  // Nothing evicted or refused under any policy: the cache never filled, and the caption says so.
  const never = [{ policy: "noeviction", oom: 0, evicted: 0 }, { policy: "allkeys-lru", oom: 0, evicted: 0 }];
  assert.match(m.comparisonCaption(never, { maxmemory: 2_097_152, keys: 10_000 }), /^The cache never filled: .*\(of 10,000\) fit under maxmemory 2\.00 MB/);
  assert.equal(m.comparisonCaption(never, { finished: false }), "", "not while it runs");
});

test("restart forgets the evictions and the OOM, keeps the runs (none current)", () => {
  const s = m.restart({ ...m.reduceEvents(m.initialState(), [eviction()]), oom: { seq: 1, at: 0, command: "", text: "", from: "" }, runs: [{ id: 1, current: true }] });
  assert.equal(s.seen, 0);
  assert.deepEqual(s.kept, []);
  assert.equal(s.oom, null);
  assert.deepEqual(s.runs, [{ id: 1, current: false }]);
  assert.match(m.noEvictionText(s), /^No eviction yet\. Keys are evicted before a command runs/);
  assert.match(m.noEvictionText({ ...s, memory: memory({ maxmemory: 0 }) }), /^No eviction yet: maxmemory is 0\./);
  assert.equal(m.lostText(2, null).includes("(evicted_keys ?)"), true);
  assert.equal(m.pct(0.6875), "68.8%");
  assert.equal(m.pct(null), "–");
});

// ---------------------------------------------------------------------------------------------
// One eviction report (eviction-report.js)
// ---------------------------------------------------------------------------------------------

test("scores in words per policy; scores past 2^53 arrive as decimal strings", () => {
  assert.deepEqual(["allkeys-lru", "volatile-lfu", "volatile-ttl", "allkeys-random", "noeviction"].map(scoreKind), ["lru", "lfu", "ttl", "random", "none"]);
  assert.deepEqual(describeScore("allkeys-lru", 200_000, 0), { short: "3m20s", long: "idle 3 min 20 s (score 200,000: idle ms from the 1-second LRU clock)" });
  assert.deepEqual(describeScore("allkeys-lfu", 249, 0), { short: "freq 6", long: "LFU counter 6, decayed (score 249 = 255 − 6)" });
  const expireAt = 1_735_689_700_000n;
  const ttlScore = String((1n << 64n) - 1n - expireAt);
  assert.equal(scoreBig(ttlScore), (1n << 64n) - 1n - expireAt);
  assert.deepEqual(describeScore("volatile-ttl", ttlScore, 1_735_689_600_000), { short: "ttl 1m40s", long: "expires in 1 min 40 s (score ULLONG_MAX − 1,735,689,700,000)" });
  assert.deepEqual(describeScore("allkeys-lru", "not a number", 0), { short: "?", long: "score not a number" });
  assert.equal(formatDuration(-90_061_000), "−1 d");
  assert.equal(formatDuration(3_660_000), "1 h 1 min");
  assert.equal(formatBytes(1_228_800), "1.17 MB");
  assert.equal(formatBytes(-1), "–");
});

test("a report read: the victim's slot, the ghosts after it, the samples' fates", () => {
  const before = pool(entry("key:1", 10), entry("key:2", 20), entry("key:3", 30), entry("key:4", 40));
  const after = pool(entry("key:1", 10), entry("key:5", 15), entry("key:2", 20));
  const r = readReport(
    eviction({
      samples: [
        { db: 0, key: "key:5", score: 15 },
        { db: 0, key: "key:6", score: 1 },
      ],
      before,
      after,
      victim: "key:3",
      ghosts: 1,
    }),
  );
  assert.equal(r.kind, "lru");
  assert.equal(r.victimSlot, 3);
  assert.deepEqual(r.ghostSlots, [4]);
  assert.deepEqual(
    r.before.slice(0, 4).map((s) => s.mark),
    ["", "", "victim", "ghost"],
  );
  assert.deepEqual(
    r.after.slice(0, 5).map((s) => s.mark),
    ["", "new", "", "victim", "ghost"],
  );
  assert.deepEqual(
    r.samples.map((s) => s.fate),
    ["pool", "out"],
  );
  assert.equal(r.victimScore, 30);
  assert.equal(r.victimText?.short, "30ms");
  assert.equal(r.sortedBefore, true);
  assert.equal(r.layoutOk, true);
});

test("a random policy has no pool; a malformed report reads as empty, never throws", () => {
  const r = readReport(eviction({ policy: "allkeys-random", victim: HOSTILE }));
  assert.equal(r.usesPool, false);
  assert.equal(r.victim, HOSTILE);
  assert.equal(r.victimSlot, null);
  const empty = readReport({});
  assert.equal(empty.kind, "none");
  assert.equal(empty.before.length, 16);
  assert.deepEqual(poolSlots("nonsense"), new Array(16).fill(null));
  assert.equal(isSorted([entry("a", 5), null, entry("b", 3)]), false);
});

test("bars grow with the better candidate; key prefixes shared by all are dropped", () => {
  assert.equal(barValue("lru", 500), 500);
  assert.ok(barValue("ttl", String((1n << 64n) - 1n - 100n)) > barValue("ttl", String((1n << 64n) - 1n - 200n)), "sooner expiry, taller bar");
  const scale = barScale("lru", [0, 50, 100]);
  assert.equal(scale(100), 1);
  assert.equal(scale(0), 0.04);
  assert.equal(barScale("lfu", [])(5), 0);
  assert.equal(commonPrefix(["key:1", "key:22", "key:3"]), "key:");
  assert.equal(commonPrefix(["key:1", "key:"]), "", "a key that would be empty");
  assert.equal(commonPrefix(["a", "b"]), "");
  assert.equal(commonPrefix([`${HOSTILE}:1`, `${HOSTILE}:22`]), `${HOSTILE}:`, "a hostile prefix stays a plain string");
});

// ---------------------------------------------------------------------------------------------
// The forms (eviction-forms.js)
// ---------------------------------------------------------------------------------------------

test("maxmemory and samples as typed", () => {
  assert.deepEqual(parseMaxmemory(" 1600KB "), { ok: true, value: "1600kb" });
  assert.deepEqual(parseMaxmemory("0"), { ok: true, value: "0" });
  for (const bad of ["", "1.5mb", "-1", "lots", "1tb", "1234567890123456"]) assert.equal(parseMaxmemory(bad).ok, false, bad);
  assert.deepEqual(parseSamples("10"), { ok: true, value: 10 });
  assert.match(parseSamples("0").ok ? "" : parseSamples("0").message, /from 1 to 10,000 here/);
  assert.equal(policyHelp("volatile-ttl"), "volatile-ttl: only keys with a TTL, the soonest to expire first (sampled).");
  assert.equal(policyHelp(HOSTILE), `${HOSTILE}: .`);
});

test("the LRU experiment's form: series without repeats, bounds as sentences", () => {
  assert.deepEqual(parseLruParams("10,000", "3"), { ok: true, keys: 10_000, series: [0, 5, 10, 3] });
  assert.deepEqual(parseLruParams("5000", "5"), { ok: true, keys: 5000, series: [0, 5, 10] });
  assert.equal(parseLruParams("5", "3").ok ? "" : parseLruParams("5", "3").field, "keys");
  assert.equal(parseLruParams("5000", "65").ok ? "" : parseLruParams("5000", "65").field, "samples");
  assert.match(lruCaption(10_000), /^10,000 old keys .* then 5,000 new keys/);
  assert.deepEqual(
    [0, 4, 9].map((d) => decileLabels(d)),
    [
      { row: "0–10% (oldest)", tick: "oldest" },
      { row: "40–50%", tick: "40%" },
      { row: "90–100% (newest)", tick: "newest" },
    ],
  );
});
