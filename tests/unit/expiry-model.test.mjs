// Unit tests of the expiry view's model (www/views/expiry-model.js), its running history
// (expiry-history.js) and the words for a cycle (expiry-cycle.js): pure, no DOM, no engine.
// Reports are built here in the shapes src/expire.rs and src/events.rs give them.

import { test } from "node:test";
import assert from "node:assert/strict";

import * as model from "../../www/views/expiry-model.js";
import * as forms from "../../www/views/expiry-forms.js";
import * as table from "../../www/views/expiry-table-model.js";
import { BIN_MS, HISTORY_BINS, createExpiryHistory, cpuPercent, expiredRate, levelValue, niceMax, shortNumber } from "../../www/views/expiry-history.js";
import { bucketRange, describeCycle, describeLazy, describeRound, effortOf, formatTtl, groupTicks, reasonText, sweepOf } from "../../www/views/expiry-cycle.js";
import { setLanguage } from "../../www/i18n.js";

const m = { ...model, ...forms, ...table };
const HOSTILE = '<img src=x onerror=alert(1)> "\n';

/** A 7.0 round in db `db` that swept `buckets` buckets ending before `cursor` in a table of `size`. */
function round({ db = 0, iteration = 1, sampled = 20, expired = 5, buckets = 10, cursor = 10, size = 64, keys = [], repeat = false } = {}) {
  return {
    db,
    iteration,
    sampled,
    expired,
    buckets,
    cursor,
    table_size: size,
    keys,
    stale_percent: sampled > 0 ? (expired / sampled) * 100 : 0,
    repeat,
    reason: repeat ? "above" : "below",
    elapsed_us: 10,
  };
}

/** An `expire_cycle` event. */
function cycle(atMs, rounds, extra = {}) {
  return {
    kind: "expire_cycle",
    at_ms: atMs,
    report: {
      kind: "slow",
      algorithm: "7.0",
      budget_us: 25_000,
      time_used_us: 100,
      cap_reached: false,
      dbs_visited: [...new Set(rounds.map((r) => r.db))],
      sampled: rounds.reduce((n, r) => n + r.sampled, 0),
      expired: rounds.reduce((n, r) => n + r.expired, 0),
      round_count: rounds.length,
      rounds,
      cursors_after: [],
      stale_perc_after: 1.5,
      keys_per_loop: 20,
      acceptable_stale: 10,
      ...extra,
    },
  };
}

const ctx = (history = createExpiryHistory(), patch = {}) => ({ history, currentDb: 0, frameTicks: 1, ...patch });
const lazy = (key, db = 0) => ({ kind: "expired", at_ms: 5, db, key, by: "lazy", late_ms: 340, command: "get" });
const buckets = (from, n) => Array.from({ length: n }, (_, i) => ({ bucket: from + i, keys: [] }));

// ---------------------------------------------------------------------------------------------
// Frames and events
// ---------------------------------------------------------------------------------------------

test("a frame's store state: visibility, play, clock and hz", () => {
  const s0 = m.initialState(0);
  const { state, becameVisible } = m.beginFrame({ ...s0, dirty: { ...s0.dirty, head: false } }, { panelView: "expiry", paused: false, clock: { now: 99, hz: 50 } });
  assert.equal(becameVisible, true);
  assert.equal(state.playing, true);
  assert.equal(state.clockNow, 99);
  assert.equal(state.hz, 50);
  assert.equal(state.dirty.head, true);
  assert.equal(m.beginFrame(state, { panelView: "expiry", paused: true, clock: { now: 99, hz: 50 } }).becameVisible, false);
});

test("a cycle becomes the latest tick, with this db's sweeps and the cursor where it left it", () => {
  const history = createExpiryHistory();
  const e = cycle(1000, [round({ buckets: 10, cursor: 30 }), round({ db: 1, buckets: 4, cursor: 4 }), round({ iteration: 2, buckets: 8, cursor: 38 })]);
  const { state, changed } = m.reduceEvents(m.initialState(0), [e], ctx(history, { frameTicks: 3 }));
  assert.equal(changed, true);
  assert.deepEqual(state.tick, { at: 1000, cycles: [e.report] });
  assert.equal(state.tickTicks, 3);
  assert.deepEqual(
    state.sweeps.map((w) => [w.from, w.count, w.round]),
    [
      [20, 10, 1],
      [30, 8, 3],
    ],
  );
  assert.deepEqual(state.cursor, { bucket: 38, size: 64, approx: false });
  assert.equal(state.fieldStale, true);
  assert.equal(state.bucketsWanted, true, "no snapshot: the buckets are read now");
  assert.equal(history.sum("active", 0, 2000), 15);
});

test("one tick after a quiet frame is shown on the buckets as it found them", () => {
  const snapshot = { db: 0, start: 17, buckets: buckets(17, 160), at: 900 };
  const s0 = { ...m.initialState(0), snapshot, snapshotFresh: true };
  const e = cycle(1000, [round({ buckets: 10, cursor: 30 })]);
  const { state } = m.reduceEvents(s0, [{ kind: "cron", at_ms: 1000, ticks: 1, hz: 10 }, e], ctx());
  assert.deepEqual(state.display, { buckets: snapshot.buckets, fetchedAt: 900, at: 1000, before: true, startBucket: 20 });
  assert.equal(state.bucketsWanted, false);
  // Anything else before the cycle (a command) spoils the before-picture.
  const spoiled = m.reduceEvents(s0, [{ kind: "command", at_ms: 999, client: 1, db: 0, name: "set", argc: 3, error: false }, e], ctx()).state;
  assert.equal(spoiled.display, null);
  assert.equal(spoiled.bucketsWanted, true);
  // So does a snapshot that does not hold the bucket the tick began at.
  const far = { ...s0, snapshot: { ...snapshot, buckets: buckets(500, 10) } };
  assert.equal(m.reduceEvents(far, [e], ctx()).state.display, null);
});

test("the cursor is approximate when the engine listed only the first 64 rounds", () => {
  const rounds = Array.from({ length: 64 }, (_, i) => round({ iteration: i + 1, buckets: 1, cursor: i + 1 }));
  const e = cycle(1000, rounds, { round_count: 200 });
  assert.deepEqual(m.cursorAfter(null, [e], 0), { bucket: 64 % 64, size: 64, approx: true });
  assert.deepEqual(m.cursorAfter(null, [cycle(1000, rounds)], 0)?.approx, false);
  assert.deepEqual(m.cursorAfter({ bucket: 5, size: 8, approx: false }, [cycle(1000, [round({ db: 3 })])], 0), { bucket: 5, size: 8, approx: false });
});

test("lazy expiries and stalls are called out, newest first, five at most", () => {
  const history = createExpiryHistory();
  const events = [1, 2, 3, 4, 5, 6].map((i) => lazy(`k:${i}`));
  events.push({ kind: "stall", at_ms: 6, db: 0, key: HOSTILE, cause: "del", us: 25_000 });
  const { state } = m.reduceEvents(m.initialState(0), events, ctx(history));
  assert.equal(state.lazySeen, 6);
  assert.deepEqual(
    state.callouts.map((c) => [c.kind, c.key]),
    [
      ["stall", HOSTILE],
      ["lazy", "k:6"],
      ["lazy", "k:5"],
      ["lazy", "k:4"],
      ["lazy", "k:3"],
    ],
  );
  assert.equal(state.callouts[1].text, "GET touched k:6, 340 ms late: lazy expiry deleted it on access.");
  assert.match(state.callouts[0].text, /^Freeing <img src=x onerror=alert\(1\)> "\n \(del\) held the main thread for 25,000 µs/);
  assert.equal(history.sum("lazy", 0, 100), 6);
});

test("a command in another db switches the view to it and forgets the old db's picture", () => {
  const history = createExpiryHistory();
  history.addLevel("volatile", 0, 10);
  const s0 = { ...m.initialState(0), field: { table_size: 8 }, cursor: { bucket: 1, size: 8, approx: false }, pinned: 3, snapshot: { db: 0 } };
  const { state, changed } = m.reduceEvents(s0, [{ kind: "command", at_ms: 1, client: 1, db: 2, name: "select", argc: 2, error: false }], ctx(history, { currentDb: 2 }));
  assert.equal(changed, true);
  assert.equal(state.db, 2);
  assert.equal(state.field, null);
  assert.equal(state.cursor, null);
  assert.equal(state.pinned, null);
  assert.equal(state.snapshot, null);
  assert.equal(history.latest("volatile"), null);
});

test("config events update the controls; the clock set backwards clears the history", () => {
  const history = createExpiryHistory();
  history.addCycle(5000, { expired: 3, time_used_us: 1 });
  const events = [
    { kind: "config", at_ms: 1, name: "hz", value: "50" },
    { kind: "config", at_ms: 1, name: "active-expire-effort", value: "10" },
    { kind: "config", at_ms: 1, name: "playground-expire-algorithm", value: "classic" },
    { kind: "clock_set", from_ms: 5000, to_ms: 1000 },
  ];
  const { state } = m.reduceEvents(m.initialState(0), events, ctx(history));
  assert.deepEqual(state.config, { hz: 50, effort: 10, algorithm: "classic" });
  assert.equal(history.sum("active", 0, 10_000), 0);
  assert.equal(m.budgetPercent(state.config), 25);
  assert.equal(m.budgetPercent({ ...state.config, algorithm: "7.0" }), 43);
});

test("other dbs' expiries change nothing of this db", () => {
  const s0 = m.initialState(0);
  const { state, changed } = m.reduceEvents(s0, [{ kind: "keyspace", at_ms: 1, db: 4, event: "expired", key: "x" }], ctx());
  assert.equal(changed, false);
  assert.equal(state.fieldStale, s0.fieldStale);
});

test("dropped events are said once and kept up to date", () => {
  let s = m.noteDropped(m.initialState(0), 0);
  assert.equal(s.callouts.length, 0);
  s = m.noteDropped(s, 12_345);
  assert.match(s.callouts[0].text, /^12,345 engine events were dropped so far/);
  s = m.noteDropped({ ...s, callouts: [...s.callouts, { kind: "lazy", text: "", key: "", command: "" }] }, 20_000);
  assert.deepEqual(
    s.callouts.map((c) => c.kind),
    ["dropped", "lazy"],
  );
  assert.match(s.callouts[0].text, /^20,000 /);
  assert.equal(m.noteDropped(s, 20_000), s);
});

// ---------------------------------------------------------------------------------------------
// Snapshots: when to read, what came back
// ---------------------------------------------------------------------------------------------

test("the field is read when stale, within its cost budget while playing", () => {
  const s = { ...m.initialState(0), fieldStale: true, fieldCostMs: 40, fieldReadAt: 1000 };
  assert.equal(m.fieldDue(s, 1001), true, "paused: at once");
  assert.equal(m.fieldDue({ ...s, playing: true }, 1999), false, "40 ms × 25 = 1 s between reads");
  assert.equal(m.fieldDue({ ...s, playing: true }, 2000), true);
  assert.equal(m.fieldDue({ ...s, playing: true, fieldCostMs: 1 }, 1250), true, "at least 250 ms");
  assert.equal(m.fieldDue({ ...s, fieldStale: false, field: { table_size: 0 } }, 5000), false);
});

test("a field read sets the exact cursor and the levels", () => {
  const history = createExpiryHistory();
  const field = { db: 0, table_size: 1024, volatile: 1_000_000, stale: 250_000, keys: 1_000_000, cursor_bucket: 77, buckets_per_cell: 0.5, cells: [] };
  const s = m.acceptField({ ...m.initialState(0), clockNow: 500, cursor: { bucket: 3, size: 1024, approx: true } }, field, { costMs: 12, readAt: 9, history });
  assert.deepEqual(s.cursor, { bucket: 77, size: 1024, approx: false });
  assert.equal(s.fieldReads, 1);
  assert.equal(s.fieldAt, 500);
  assert.deepEqual(history.latest("stale"), [500, 250_000]);
  assert.equal(levelValue(history, "stale"), "250,000 (25.0%)");
  assert.equal(levelValue(history, "volatile"), "1,000,000");
  assert.deepEqual(m.summaryText(s, 1_000_000), {
    text: "db 0 · 1,000,000 keys with a TTL · 250,000 stale (25.0%) · 7.0, effort 1",
    title: "Stale count as of 00:00:00.500 (the field is read at most a few times a second while playing)",
  });
  assert.equal(m.acceptField(s, { ...field, table_size: 0 }, { costMs: 1, readAt: 1, history }).cursor, null);
});

test("the bucket window starts a few before the cursor, wrapping, or before the picked bucket", () => {
  const s = { ...m.initialState(0), cursor: { bucket: 1, size: 64, approx: false } };
  assert.equal(m.windowStart(s), 62);
  assert.equal(m.windowStart({ ...s, pinned: 1 }), 0);
  assert.equal(m.windowStart({ ...s, pinned: 100 }), 97);
  assert.deepEqual(m.windowFor({ ...s, playing: true }), { db: 0, start: 62, count: m.PLAYING_WINDOW_BUCKETS });
  assert.equal(m.windowFor(s).count, m.WINDOW_BUCKETS);
  assert.equal(m.windowStart(m.initialState(0)), 0);
});

test("the snapshot for the next tick is read only on slow frames with an exact cursor", () => {
  const s = { ...m.initialState(0), cursor: { bucket: 0, size: 16, approx: false } };
  assert.equal(m.snapshotStart(s, false, 1), 13);
  assert.equal(m.snapshotStart(s, false, 3), null, "many ticks a frame: no before-picture");
  assert.equal(m.snapshotStart({ ...s, cursor: { ...s.cursor, approx: true } }, true, 1), null);
  const fresh = m.acceptSnapshot({ ...s, clockNow: 7 }, 13, buckets(13, 3));
  assert.equal(fresh.snapshotFresh, true);
  assert.equal(m.snapshotStart(fresh, false, 1), null, "still fresh");
  assert.equal(m.snapshotStart(fresh, true, 1), 13, "the db changed");
  assert.equal(m.settleSnapshot(fresh, [{ kind: "cron", at_ms: 1, ticks: 1, hz: 10 }]).snapshotFresh, true);
  assert.equal(m.settleSnapshot(fresh, [{ kind: "config", at_ms: 1, name: "x", value: "y" }]).snapshotFresh, false);
});

// ---------------------------------------------------------------------------------------------
// What to draw
// ---------------------------------------------------------------------------------------------

test("paused, every dirty part is drawn; playing, one heavy part per frame, the most overdue", () => {
  const s = { ...m.initialState(0), fieldStale: false };
  const paused = m.planFrame(s, 0);
  assert.deepEqual([...paused.plan].sort(), [...m.PARTS].sort());
  assert.equal(paused.pending, false);
  const playing = { ...s, playing: true, drawnAt: { field: 0, tick: 100, buckets: 50, charts: 200 } };
  const p = m.planFrame(playing, 400);
  assert.deepEqual([...p.plan].sort(), ["buckets", "callouts", "controls", "field", "head"]);
  assert.equal(p.pending, true);
  const early = m.planFrame(playing, 60);
  assert.equal(early.plan.has("field"), false, "the canvas waits 66 ms");
  const drawn = m.drawn(playing, "buckets", 400);
  assert.equal(drawn.dirty.buckets, false);
  assert.equal(drawn.drawnAt.buckets, 400);
});

test("markDue: the charts follow the history and playing time; the buckets a wanted read", () => {
  const s = { ...m.initialState(0), dirty: Object.fromEntries(m.PARTS.map((p) => [p, false])), bucketsWanted: false, chartsVersion: 3, chartsNow: 10, clockNow: 10 };
  assert.equal(m.markDue(s, 3), s);
  assert.equal(m.markDue(s, 4).dirty.charts, true);
  assert.equal(m.markDue({ ...s, playing: true, clockNow: 11 }, 3).dirty.charts, true);
  assert.equal(m.markDue({ ...s, bucketsWanted: true }, 3).dirty.buckets, true);
  assert.deepEqual(m.chartsShown({ ...s, clockNow: 99 }, 7), { ...s, clockNow: 99, chartsVersion: 7, chartsNow: 99 });
});

test("the bucket picture: rounds that swept each bucket, keys examined, the caption", () => {
  const keys = [
    { key: "k:1", bucket: 21, ttl_ms: -300, expired: true },
    { key: HOSTILE, bucket: 22, ttl_ms: 1500, expired: false },
  ];
  const e = cycle(3600, [round({ buckets: 10, cursor: 30, keys })]);
  const snapshot = { db: 0, start: 17, buckets: buckets(17, 20), at: 3500 };
  const { state } = m.reduceEvents({ ...m.initialState(0), snapshot, snapshotFresh: true, clockNow: 3600 }, [e], ctx());
  const p = m.bucketsPicture(state);
  assert.ok(p);
  assert.equal(p.marks.get(19), undefined);
  assert.equal(p.marks.get(20), 1);
  assert.equal(p.marks.get(29), 1);
  assert.equal(p.marks.get(30), undefined);
  assert.deepEqual(p.examined.get("k:1"), { round: 1, deleted: true, ttl: -300 });
  assert.equal(p.examined.get(HOSTILE)?.round, 1);
  assert.equal(p.before, true);
  assert.equal(p.startBucket, 20);
  assert.equal(p.mode, "before");
  assert.equal(p.caption, "As the tick at 00:00:03.600 found them: outlined = examined, struck through = deleted.");
  assert.equal(p.title, "Buckets around the cursor");
  assert.equal(m.bucketsPicture(m.pin(state, 1234))?.title, "Buckets from #1,234");
  const classic = m.bucketsPicture({ ...state, config: { ...state.config, algorithm: "classic" } });
  assert.match(classic?.caption ?? "", /^Classic has no cursor/);
  assert.equal(classic?.cursorBucket, null);
  const now = m.acceptBuckets({ ...state, tickTicks: 40 }, buckets(0, 3));
  assert.match(m.bucketsPicture(now)?.caption ?? "", /^Now \(00:00:03\.600\), after 40 ticks in one frame/);
  assert.equal(m.bucketsPicture(m.initialState(0)), null);
});

test("runs of empty buckets fold into one row, except the cursor's", () => {
  const b = [
    { bucket: 0, keys: [{ key: "a", ttl_ms: 1, expired: false }] },
    ...buckets(1, 4),
    { bucket: 5, keys: [] },
    ...buckets(6, 2),
  ];
  const rows = m.bucketRows(b, new Map([[6, 2], [7, 2]]), new Set([5]));
  assert.deepEqual(
    rows.map((r) => (r.kind === "empty" ? `empty ${r.from}-${r.to} R${r.round}` : `#${r.bucket} R${r.round}`)),
    ["#0 R0", "empty 1-4 R0", "#5 R0", "#6 R2", "#7 R2"],
  );
});

test("a key chip: live, stale, examined, deleted", () => {
  const k = { key: "k", ttl_ms: 500, expired: false };
  assert.deepEqual(m.keyChip(k, undefined, false, 0), { cls: "is-live", text: "500 ms" });
  assert.deepEqual(m.keyChip(k, undefined, false, 800), { cls: "is-stale", text: "stale 300 ms" });
  assert.deepEqual(m.keyChip(k, { round: 1, deleted: false, ttl: 900 }, true, 800), { cls: "is-live is-examined", text: "900 ms" });
  assert.deepEqual(m.keyChip(k, { round: 1, deleted: true, ttl: -1500 }, true, 0), { cls: "is-deleted", text: "deleted, 1.5 s late" });
});

// ---------------------------------------------------------------------------------------------
// The field, the controls, the attributes
// ---------------------------------------------------------------------------------------------

test("the field's caption, and which buckets a cell covers", () => {
  const field = { db: 0, table_size: 1000, volatile: 5, stale: 1, keys: 5, cursor_bucket: 10, buckets_per_cell: 250, cells: [{ live: 3, stale: 1 }, { live: 0, stale: 0 }, { live: 1, stale: 0 }, { live: 0, stale: 0 }] };
  const s = { ...m.initialState(3), field, cursor: { bucket: 10, size: 1000, approx: false } };
  assert.equal(m.fieldCaption(s), "Expires table: 1,000 buckets (250 per square, in order) · cursor at #10");
  assert.equal(m.fieldCaption({ ...s, cursor: { bucket: 10, size: 1000, approx: true } }), "Expires table: 1,000 buckets (250 per square, in order) · cursor past #10 (the cycle went on past the 64 rounds the engine lists)");
  assert.equal(m.fieldCaption({ ...s, config: { ...s.config, algorithm: "classic" } }), "Expires table: 1,000 buckets (250 per square, in order) · classic picks keys at random: no cursor");
  assert.equal(m.fieldCursor({ ...s, cursor: { bucket: 10, size: 512, approx: false } }), null, "a cursor of another table");
  assert.equal(m.fieldCaption(m.initialState(3)), "db 3 has no key with a TTL: the expires table is empty. Populate it above, or SET k v EX 30 in the console.");
  assert.deepEqual(m.cellBuckets(field, 1), { from: 250, to: 499 });
  assert.equal(m.cellTip(field, 0), "buckets #0–#249: 3 with TTL ahead, 1 stale. Click to list them.");
  assert.equal(m.cellTip(field, -1), null);
  assert.equal(m.cellTip({ ...field, table_size: 4 }, 2), "bucket #2: 1 with TTL ahead, 0 stale. Click to list them.");
  assert.equal(m.cellBuckets(null, 0), null);
});

test("the controls parse what is typed into sentences, never exceptions", () => {
  assert.deepEqual(m.parseHz(" 50 "), { ok: true, value: 50 });
  for (const bad of ["0", "501", "1.5", "", "ten"]) assert.equal(m.parseHz(bad).ok, false, bad);
  assert.deepEqual(m.parseCount("100k"), { ok: true, value: 100_000 });
  assert.deepEqual(m.parseCount("1,000,000"), { ok: true, value: 1_000_000 });
  assert.deepEqual(m.parseCount("1e5"), { ok: true, value: 100_000 });
  assert.equal(m.parseCount("2M").ok, false);
  assert.equal(m.parseCount("0.5").ok, false);
  const p = m.parsePopulate({ count: "300", prefix: HOSTILE, min: "1", max: "6", distribution: "uniform" });
  assert.deepEqual(p, { ok: true, value: { count: 300, prefix: HOSTILE, minMs: 1000, maxMs: 6000, distribution: "uniform" } });
  const swapped = m.parsePopulate({ count: "3", prefix: "k:", min: "9", max: "6", distribution: "uniform" });
  assert.deepEqual(swapped, { ok: false, message: "The shortest TTL is longer than the longest: swap them." });
  assert.equal(m.populateFieldOf(swapped.ok ? "" : swapped.message), "min");
  const noPrefix = m.parsePopulate({ count: "3", prefix: "", min: "1", max: "6", distribution: "uniform" });
  assert.equal(m.populateFieldOf(noPrefix.ok ? "" : noPrefix.message), "prefix");
  const bigTtl = m.parsePopulate({ count: "3", prefix: "k", min: "1", max: "31536001", distribution: "uniform" });
  assert.equal(bigTtl.ok ? "" : m.populateFieldOf(bigTtl.message), "max");
  assert.equal(m.parsePopulate({ count: "3", prefix: "k", min: "1", max: "2", distribution: "normal" }).ok, false);
});

test("long-lived batches get fresh prefixes; populate messages count what was skipped", () => {
  const a = m.longLivedBatch(m.initialState(0));
  const b = m.longLivedBatch(a.state);
  assert.equal(a.spec.prefix, "long1:");
  assert.equal(b.spec.prefix, "long2:");
  assert.equal(b.spec.label, "long2:0 … long2:9999");
  assert.equal(
    m.populateMessage({ count: 1_000_000, minMs: 1000, maxMs: 60_000, distribution: "uniform", label: "k:0 … k:999999" }, 0, 999_000, 2237.4),
    "Created 999,000 keys k:0 … k:999999 in db 0, TTLs 1–60 s (uniform), in 2,237 ms. 1,000 names already existed and were skipped: use another prefix.",
  );
});

test("the view's attributes; restart keeps the span", () => {
  const s = { ...m.initialState(0), spanMs: 10_000, callouts: [{ kind: "lazy", text: "", key: "", command: "" }], lazySeen: 4 };
  assert.deepEqual(m.datasetOf(s), { db: "0", algorithm: "7.0", cursorBucket: "", fieldReads: "0", fieldMs: "0.00", stale: "", volatile: "" });
  const r = m.restart(s, 5);
  assert.equal(r.db, 5);
  assert.equal(r.spanMs, 10_000);
  assert.equal(r.lazySeen, 0);
  assert.deepEqual(r.callouts, []);
  assert.equal(m.configRead(r, { hz: "100", effort: null, algorithm: null }).config.hz, 100);
});

// ---------------------------------------------------------------------------------------------
// The history
// ---------------------------------------------------------------------------------------------

test("the history bins by virtual time and forgets what is older than an hour", () => {
  const h = createExpiryHistory();
  h.addCycle(0, { expired: 5, time_used_us: 2500 });
  h.addCycle(150, { expired: 7, time_used_us: 2500 });
  h.addLazy(199);
  assert.equal(h.sum("active", 0, 200), 12);
  assert.deepEqual([...h.columns("active", 0, 200, 2)], [5, 7]);
  assert.equal(h.newestMs(), 200);
  const v = h.version();
  h.addCycle(HISTORY_BINS * BIN_MS + 150, { expired: 1, time_used_us: 0 });
  assert.ok(h.version() > v);
  assert.equal(h.sum("active", 0, 200), 0, "an hour later the old bins were reused");
  h.addCycle(0, { expired: 100, time_used_us: 0 });
  assert.equal(h.sum("active", 0, 200), 0, "too old to record");
});

test("level samples: the same instant replaces, an older one is ignored", () => {
  const h = createExpiryHistory();
  assert.equal(levelValue(h, "volatile"), "–");
  h.addLevel("volatile", 10, 1);
  h.addLevel("volatile", 10, 2);
  h.addLevel("volatile", 5, 3);
  assert.deepEqual(h.points("volatile"), [[10, 2]]);
  h.clearLevels();
  assert.equal(h.latest("volatile"), null);
});

test("the rate and CPU figures average the last second, excluding the instant's own bin", () => {
  const h = createExpiryHistory();
  h.addCycle(3716, { expired: 164, time_used_us: 166 });
  assert.equal(expiredRate(h, 3716, 60_000), 164);
  assert.equal(cpuPercent(h, 3800, 60_000), 0.0166);
  const onBoundary = createExpiryHistory();
  onBoundary.addCycle(3800, { expired: 164, time_used_us: 166 });
  assert.equal(expiredRate(onBoundary, 3800, 60_000), 0, "a tick at the current instant counts from the next frame on");
  assert.equal(expiredRate(h, 3716, 200), 820, "a span shorter than a second is the window");
});

test("chart scales", () => {
  assert.deepEqual([0, 0.3, 1, 3, 7, 12, 1e6 + 1].map(niceMax), [1, 0.5, 1, 5, 10, 20, 2e6]);
  assert.deepEqual([0, 0.5, 12.4, 1234, 34_567, 1_234_567, 12_345_678].map(shortNumber), ["0", "0.5", "12", "1.2k", "35k", "1.2M", "12M"]);
});

// ---------------------------------------------------------------------------------------------
// The words for a cycle (expiry-cycle.js)
// ---------------------------------------------------------------------------------------------

test("a sweep that wraps past the end of the table", () => {
  const sw = sweepOf(round({ buckets: 6, cursor: 2, size: 16 }), "7.0");
  assert.deepEqual(sw, { size: 16, count: 6, from: 12, to: 1, cursorBucket: 2, wrapped: true, whole: false });
  assert.equal(sw && bucketRange(sw), "#12–#1 (wrapping)");
  assert.equal(sweepOf(round(), "classic"), null);
  assert.equal(sweepOf(round({ size: 0 }), "7.0"), null);
  const whole = sweepOf(round({ buckets: 40, cursor: 8, size: 16 }), "7.0");
  assert.equal(whole && bucketRange(whole), "all 16 buckets (and round again)");
});

test("a round in words, with Redis's whole-percent comparison explained", () => {
  const report = cycle(0, []).report;
  const r = describeRound(round({ sampled: 19, expired: 2, buckets: 1, cursor: 8, repeat: false }), report);
  assert.deepEqual(r, {
    title: "db 0 · loop 1",
    sweep: "1 bucket #7",
    counts: "19 keys examined · 2 expired → deleted",
    stale: "10.5% stale",
    decision: "stop",
    note: "Redis compares whole percents: 2×100/19 = 10, not above 10.",
  });
  assert.equal(describeRound(round({ buckets: 3 }), { ...report, algorithm: "classic" }).sweep, "3 random picks");
  assert.equal(describeRound(round({ size: 0 }), report).sweep, "10 buckets");
});

test("a cycle in words; effort from its parameters; ticks group cycles of the same instant", () => {
  const report = { ...cycle(0, [round()]).report, round_count: 3, keys_per_loop: 65, kind: "fast", cap_reached: true };
  assert.equal(effortOf(report), 10);
  const d = describeCycle(report, 10);
  assert.equal(d.kind, "Fast cycle");
  assert.equal(d.algorithm, "7.0, effort 10");
  assert.equal(d.iterations, "3 loops over db 0 · 2 found no key with a TTL");
  assert.match(d.capped, /^time limit reached/);
  assert.equal(d.budget, "100 µs of 25,000 µs (a fast cycle's budget)");
  assert.equal(describeCycle({ ...report, kind: "slow" }, 10).budget, "100 µs of 25,000 µs (25% of a 100 ms tick)");
  const ticks = groupTicks([cycle(100, []), cycle(100, []), cycle(200, [])]);
  assert.deepEqual(
    ticks.map((t) => [t.at, t.cycles.length]),
    [
      [100, 2],
      [200, 1],
    ],
  );
});

test("TTLs and lateness in the largest unit that reads well", () => {
  assert.deepEqual(
    [340, 1649, 42_000, 720_000, 5_400_000, 9_000_000, 3 * 86_400_000, 1e15].map(formatTtl),
    ["340 ms", "1.6 s", "42 s", "12 min", "90 min", "2.5 h", "3 d", "11,574,074 d"],
  );
  assert.equal(formatTtl(-340), "340 ms ago");
  assert.equal(describeLazy({ ...lazy(HOSTILE, 3), command: "object|freq" }), `OBJECT FREQ touched ${HOSTILE} (db 3), 340 ms late: lazy expiry deleted it on access.`);
  assert.equal(describeLazy({ ...lazy("k"), command: null }), "An access touched k, 340 ms late: lazy expiry deleted it on access.");
});

test("in Chinese: each shape of the engine's round reasons is translated, and a form message still names its field", async () => {
  // The shapes src/expire.rs writes (its English stays as written in English).
  const reasons = [
    "time limit: 25013 µs used of 25000 µs",
    "6 of 20 expired: more than 5 (25%)",
    "5 of 20 expired: not more than 5 (25%)",
    "5 of 20 expired: 25% (whole percent) above the acceptable 10%",
    "2 of 19 expired: 10% (whole percent) within the acceptable 10%",
    "no key examined: look again",
  ];
  for (const r of reasons) assert.equal(reasonText(r), r);
  await setLanguage("zh-CN");
  try {
    for (const r of reasons) assert.match(reasonText(r), /[\u4e00-\u9fff]/, r);
    assert.equal(reasonText("2 of 19 expired: 10% (whole percent) within the acceptable 10%"), "19 个中 2 个已过期：按整数百分比为 10%，在可接受的 10% 以内");
    assert.equal(reasonText("a reason of another shape"), "a reason of another shape");
    const field = (form) => {
      const r = m.parsePopulate({ count: "3", prefix: "k", min: "1", max: "6", distribution: "uniform", ...form });
      return r.ok ? "" : m.populateFieldOf(r.message);
    };
    assert.deepEqual([field({ count: "many" }), field({ prefix: "" }), field({ min: "x" }), field({ max: "31536001" }), field({ min: "9" })], ["count", "prefix", "min", "max", "min"]);
  } finally {
    await setLanguage("en");
  }
});
