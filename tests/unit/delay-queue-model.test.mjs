// Unit tests of the delay-queue view's models: what a run did (www/views/delay-queue-model.js),
// the panel's window and words (delay-queue-panel-model.js), the timeline's geometry and
// tooltip (delay-queue-timeline-model.js) and the form (delay-queue-forms.js). Pure: no DOM,
// no lab. Events are built here in the shapes src/sim/delay_queue.rs gives them.

import { test } from "node:test";
import assert from "node:assert/strict";

import { COMMAND_KINDS, FATES, LOG_KEPT, commandKind, createRunModel, createSpanList } from "../../www/views/delay-queue-model.js";
import * as panel from "../../www/views/delay-queue-panel-model.js";
import { GUTTER, describeAt, laneHeight, tickStep, timeScale, timelineLayout, wallClock } from "../../www/views/delay-queue-timeline-model.js";
import { PRESETS, DEFAULT_FORM, formatCrashes, formatDuration, parseCrashes, parseDuration, parseForm } from "../../www/views/delay-queue-forms.js";

const HOSTILE = '<img src=x onerror=alert(1)> "\n';
const START = Date.UTC(2025, 0, 1, 12, 0, 0);

const order = (task, at, due) => ({ kind: "order", task, at, due });
const command = (consumer, sent, cmd, reply, empty = false) => ({ kind: "command", consumer, sent, executed: sent + 1, replied: sent + 2, cmd, reply, empty });
const processed = (consumer, task, start, end, completed = true) => ({ kind: "process", consumer, task, start, end, completed });

// ---------------------------------------------------------------------------------------------
// Span lists
// ---------------------------------------------------------------------------------------------

test("a span list stays sorted by start and walks only the window", () => {
  const list = createSpanList();
  for (const t0 of [50, 10, 30, 30, 70]) list.add({ t0, t1: t0 + 5 });
  list.add({ t0: 0, t1: 40 });
  assert.deepEqual(
    list.items.map((i) => i.t0),
    [0, 10, 30, 30, 50, 70],
  );
  assert.equal(list.maxSpan, 40);
  const seen = [];
  list.forEachIn(33, 52, (i) => seen.push(i.t0));
  assert.deepEqual(seen, [0, 30, 30, 50], "the long one reaches into the window");
  const thinned = [];
  list.forEachThinned(0, 100, 50, (i) => thinned.push(i.t0));
  assert.deepEqual(thinned, [0, 50], "an item narrower than a pixel stands for the rest of its pixel");
});

// ---------------------------------------------------------------------------------------------
// A run's events
// ---------------------------------------------------------------------------------------------

test("commands are classified from the engine's own text", () => {
  assert.equal(commandKind({ empty: true, cmd: "ZRANGEBYSCORE q 0 1" }), "empty");
  assert.equal(commandKind({ cmd: "  zrangebyscore q -inf 100", reply: "1) t:1" }), "poll");
  assert.equal(commandKind({ cmd: "ZREM q t:1", reply: "(integer) 1" }), "claim");
  assert.equal(commandKind({ cmd: "ZREM q t:1", reply: "(integer) 0" }), "missed");
  assert.equal(commandKind({ cmd: "SUBSCRIBE __keyevent@0__:expired" }), "subscribe");
  assert.equal(commandKind({}), "other");
  assert.ok(COMMAND_KINDS.includes("claim"));
});

test("an order on time, a duplicate, a payment: provisional fates until the engine's verdict", () => {
  const m = createRunModel({ consumers: 2, startMs: START, timeText: (ms) => `t${ms}` });
  assert.equal(m.update([], 0), false, "nothing happened");
  m.update([order("t:1", 0, 1000), order("t:2", 0, 2000), order("t:3", 0, 3000), { kind: "paid", task: "t:3", at: 500, removed: true }]);
  assert.deepEqual(m.counts, { on_time: 0, late: 0, duplicate: 0, lost: 0, paid: 1, pending: 2, dead_letter: 0 });
  m.update([processed(0, "t:1", 1500, 1520), processed(0, "t:2", 4000, 4020), processed(1, "t:2", 4001, 4021)]);
  assert.equal(m.tasks.get("t:1")?.fate, "on_time");
  assert.equal(m.tasks.get("t:2")?.fate, "duplicate");
  assert.equal(m.tasks.get("t:2")?.mark?.t1, 4000, "the mark runs to the first completion");
  assert.equal(m.lanes[1].procByKind.again.items.length, 1);
  assert.equal(m.settled, false);
  m.update([
    { kind: "fate", task: "t:1", fate: "on_time", lateness: 500 },
    { kind: "fate", task: "t:2", fate: "duplicate", lateness: 2000 },
    { kind: "fate", task: "t:3", fate: "paid", lateness: null },
  ]);
  assert.equal(m.settled, true);
  assert.equal(m.finalFates, 3);
  assert.equal(m.events, 10);
  assert.equal(m.version, 3);
});

test("a task due and never processed is pending until the run says lost", () => {
  const m = createRunModel({ consumers: 1 });
  m.update([order("t:9", 0, 100)]);
  assert.equal(m.tasks.get("t:9")?.fate, "pending");
  m.update([{ kind: "fate", task: "t:9", fate: "lost", lateness: null }]);
  assert.equal(m.counts.lost, 1);
  m.update([{ kind: "fate", task: "t:10", fate: "made up", lateness: 5 }]);
  assert.equal(m.tasks.get("t:10")?.fate, "pending", "an unknown fate reads as pending");
});

test("a failed processing is not a completion; retries and dead letters are counted and logged", () => {
  const m = createRunModel({ consumers: 1, startMs: START, timeText: (ms) => `t${ms}` });
  m.update([
    order("t:1", 0, 1000),
    { ...processed(0, "t:1", 1000, 1020), failed: true },
    { kind: "retry", consumer: 0, task: "t:1", at: 1022, tries: 1, due: 11_022 },
    { ...processed(0, "t:1", 11_022, 11_042), failed: true },
    { kind: "retry", consumer: 0, task: "t:1", at: 11_044, tries: 2, due: null },
    { kind: "dead_letter", consumer: 0, task: "t:1", at: 12_000 },
  ]);
  const t1 = m.tasks.get("t:1");
  assert.equal(t1?.completed, 0);
  assert.equal(t1?.fate, "pending", "not processed until the engine says dead letter");
  assert.deepEqual([m.lanes[0].counts.failed, m.lanes[0].counts.cut, m.lanes[0].counts.retries, m.lanes[0].counts.deadLetters], [2, 0, 2, 1]);
  assert.ok(m.log.some((l) => l.text === "consumer 1: t:1 failed (1 so far) — back in the queue, due t11022"));
  assert.ok(m.log.some((l) => l.text === "consumer 1: t:1 failed (delivery 2) — left pending for XAUTOCLAIM"));
  assert.ok(m.log.some((l) => l.text === "consumer 1: t:1 gave up — into the dead-letter set"));
  m.update([{ kind: "fate", task: "t:1", fate: "dead_letter", lateness: null }]);
  assert.equal(m.counts.dead_letter, 1);
});

test("lanes: commands by kind, counts, crashes with their restarts, lanes growing on demand", () => {
  const m = createRunModel({ consumers: 1, startMs: START });
  m.update([
    command(0, 0, "ZRANGEBYSCORE q 0 1", "(empty array)", true),
    command(0, 10, "ZRANGEBYSCORE q 0 1", "1) t:1"),
    command(0, 20, "ZREM q t:1", "(integer) 1"),
    command(2, 20, "ZREM q t:1", "(integer) 0"),
    command(-1, 5, "ZADD q 100 t:1", "(integer) 1"),
    { kind: "sleep", consumer: 0, from: 30, until: 1030 },
    { kind: "message", consumer: 2, task: String(START + 60_000), published: 40, delivered: 41 },
    { kind: "crash", consumer: 2, at: 50 },
    { kind: "restart", consumer: 2, at: 90 },
    { kind: "crash", consumer: 2, at: 100 },
  ]);
  assert.equal(m.lanes.length, 3);
  assert.deepEqual(m.lanes[0].counts, { commands: 3, empty: 1, claims: 1, missed: 0, messages: 0, processes: 0, cut: 0, failed: 0, retries: 0, deadLetters: 0, sleeps: 1, crashes: 0, orders: 0, payments: 0 });
  assert.equal(m.lanes[2].counts.missed, 1);
  assert.deepEqual(m.lanes[2].crashes, [
    { at: 50, until: 90 },
    { at: 100, until: null },
  ]);
  assert.equal(m.lanes[2].down, true);
  assert.equal(m.producer.counts.commands, 1);
  assert.equal(m.lanes[0].byKind.empty.items.length, 1);
  assert.equal(m.lastAt, 100);
  assert.ok(m.log.some((l) => l.text === "consumer 3: pub/sub message — wake up, a task is due at 60000 ms (published 40 ms)"));
});

test("run data stays plain text in the log; the log keeps its last lines", () => {
  const m = createRunModel({ consumers: 1 });
  m.update([order(HOSTILE, 0, 1000)]);
  assert.equal(m.log[0].text, `producer: ${HOSTILE} created, due 1000 ms`);
  m.update(Array.from({ length: LOG_KEPT * 2 }, (_, i) => command(0, i, "GET x", "(nil)")));
  assert.ok(m.log.length <= LOG_KEPT * 1.25);
  assert.equal(m.logSerial(), LOG_KEPT * 2 + 1);
  assert.equal(m.log.at(-1)?.serial, LOG_KEPT * 2 + 1);
});

test("events of other kinds are not counted; dropped events are", () => {
  const m = createRunModel({ consumers: 1 });
  assert.equal(m.update([{ kind: "toString" }, { kind: "mystery" }]), true);
  assert.equal(m.events, 0);
  assert.equal(m.update([], 7), true);
  assert.equal(m.dropped, 7);
});

// ---------------------------------------------------------------------------------------------
// The panel's window and words
// ---------------------------------------------------------------------------------------------

test("the window: clamped to the run, zoomed around a time, panned, fitted", () => {
  const d = 1_860_000;
  assert.deepEqual(panel.fitWindow(d), { from: -18_600, to: -18_600 + d * 1.02 });
  assert.deepEqual(panel.clampWindow(-1e9, 5, d), { from: -1, to: 19 }, "at least MIN_SPAN_MS, a twentieth of it before the start");
  const vp = { from: 0, to: 20_000 };
  const zoomed = panel.zoomWindow(vp, 10_000, 0.5, d);
  assert.deepEqual(zoomed, { from: 5000, to: 15_000 });
  assert.deepEqual(panel.panWindow(vp, 1e12, d), { from: d + 1000 - 20_000, to: d + 1000 });
  assert.equal(panel.zoomCenter(vp, 5000, true), 5000);
  assert.equal(panel.zoomCenter(vp, 50_000, true), 10_000);
  assert.equal(panel.zoomCenter(vp, 5000, false), 10_000);
  assert.deepEqual(panel.initialWindow({ orders: [{ atMs: 0, delayMs: 1 }] }, d), { from: -1000, to: 19_000 });
});

test("following now: three quarters across, or a page turn with reduced motion", () => {
  const d = 3_600_000;
  const vp = { from: 0, to: 20_000 };
  assert.equal(panel.followNow(vp, 10_000, d, { reducedMotion: false }), null);
  assert.deepEqual(panel.followNow(vp, 16_000, d, { reducedMotion: false }), { from: 1000, to: 21_000 });
  assert.equal(panel.followNow(vp, 16_000, d, { reducedMotion: true }), null);
  assert.deepEqual(panel.followNow(vp, 25_000, d, { reducedMotion: true }), { from: 23_000, to: 43_000 });
  assert.equal(panel.followNow({ from: 0, to: d }, 25_000, d, { reducedMotion: false }), null, "the whole run is in view");
});

test("skip to: a wall-clock time (the next day if earlier) or an offset; problems as sentences", () => {
  assert.equal(panel.parseSkip("12:29:58", START), 1_798_000);
  assert.equal(panel.parseSkip("12:29:58.5", START), 1_798_500);
  assert.equal(panel.parseSkip("11:00", START), 23 * 3_600_000);
  assert.equal(panel.parseSkip("+29m58s", START), 1_798_000);
  assert.equal(panel.parseSkip("90", START), 90_000);
  assert.equal(panel.parseSkip("25:00", START), null);
  assert.equal(panel.parseSkip(HOSTILE, START), null);
  const run = { now: 1_000_000, startMs: START, durationMs: 1_860_000 };
  assert.match(panel.skipProblem(null, run) ?? "", /^skip to: a wall-clock time like/);
  assert.equal(panel.skipProblem(500, run), "skip to: 12:00:00.500 is not after now (12:16:40.000).");
  assert.equal(panel.skipProblem(2_000_000, run), "skip to: the run ends at 12:31:00.");
  assert.equal(panel.skipProblem(1_798_000, run), null);
});

test("keyboard shortcuts", () => {
  assert.deepEqual(["0", "Home", "f", "F", " ", ".", "x"].map(panel.keyCommand), ["fit", "fit", "follow", "follow", "toggle", "step", null]);
});

test("the lab's clock and status lines", () => {
  assert.deepEqual(panel.clockText(1_800_267, START, 1_860_000), { time: "12:30:00.267 UTC", wall: START + 1_800_267, sub: "2025-01-01 · +30m 00.267s of 31m" });
  assert.equal(panel.formatOffset(3_723_004), "+1h 02m 03.004s");
  assert.equal(panel.formatOffset(-5), "+0m 00.000s");
  const base = { now: 0, playing: false, seeking: false, seekTarget: 0, done: false, error: null, speed: 60, lagMs: 0, generation: 1, runs: [{ label: "A", strategy: 1, name: "poll", code: "", config: {}, metrics: null }] };
  assert.deepEqual(panel.statusText(base, START, 1_860_000, 0), { text: "Paused.", kind: "info" });
  assert.deepEqual(panel.statusText({ ...base, playing: true, lagMs: 1234.4 }, START, 1_860_000, 0), {
    text: "Playing at 60×. Lagging: this frame could not run 1,234 ms of virtual time within its budget — the lab is slower than 60× here.",
    kind: "warning",
  });
  assert.equal(panel.statusText({ ...base, done: true }, START, 1_860_000, 12_345).text, "The run ended at 12:31:00: the fates and metrics are final. 12,345 events were dropped by the lab's bounded log (the timeline misses them; the metrics do not).");
  assert.deepEqual(panel.statusText({ ...base, error: HOSTILE }, START, 1, 5), { text: `${HOSTILE} 5 events were dropped by the lab's bounded log (the timeline misses them; the metrics do not).`, kind: "error" });
  assert.equal(panel.statusText({ ...base, runs: [] }, START, 1, 0).text, "Set up a run and press Run.");
  assert.equal(panel.statusText({ ...base, seeking: true, seekTarget: 1_798_000 }, START, 1, 0).text, "Skipping to 12:29:58.000…");
  assert.deepEqual(panel.playerState({ ...base, done: true }), { play: "▶ Play", playDisabled: true, stepDisabled: true, skipDisabled: true });
  const two = [
    { label: "A", strategy: 2, name: "naive" },
    { label: "B", strategy: 1, name: "ZREM check" },
  ];
  assert.equal(panel.summaryText(two), "A: 2 · naive vs B: 1 · ZREM check");
  assert.equal(panel.runTitle(two[0], 2), "A · strategy 2 · naive");
  assert.equal(panel.runTitle(two[0], 1), "strategy 2 · naive");
  assert.equal(panel.windowText({ from: -1000, to: 19_000 }, START), "11:59:59 – 12:00:19 (20s)");
  assert.equal(panel.windowText({ from: 0, to: 5000 }, START), "12:00:00.000 – 12:00:05.000 (5s)");
});

test("a run's fates, lanes and log in words; big numbers grouped", () => {
  const m = createRunModel({ consumers: 1, timeText: (ms) => `t${ms}` });
  m.update([order("t:1", 0, 1000), processed(0, "t:1", 3000, 3020), ...Array.from({ length: 1500 }, (_, i) => command(0, i, "ZRANGEBYSCORE q", "(empty array)", true))]);
  const f = panel.fatesOf(m);
  assert.equal(f.text, "1 tasks (0 payments) · on time 0 · late 1 · processed twice 0 · never (lost) 0 · paid 0 · pending 0 · dead letter 0");
  assert.equal(f.dataset.fateOnTime, "0");
  assert.equal(f.dataset.fateLate, "1");
  assert.equal(f.dataset.events, "1502");
  assert.deepEqual(panel.laneRows(m)[0], ["consumer 1", 1500, 1500, 0, 0, 1, 0, 0, 0, 0]);
  const lines = panel.logLines(m, (ms) => `@${ms}`);
  assert.equal(lines.length, panel.LOG_SHOWN);
  assert.deepEqual(lines[0], { kind: "empty", time: "@1500", text: "consumer 1: ZRANGEBYSCORE q → (empty array) (empty poll)" });
  assert.equal(panel.steppedAnnouncement(0, START, undefined), "12:00:00.000. ");
  assert.equal(panel.fateAttribute("on_time"), "fateOnTime");
});

test("metrics as people read them", () => {
  assert.deepEqual([850, 12_400, 185_000, 1_085_000, 3_725_000, -850, null, Number.NaN].map(panel.formatMs), ["850 ms", "12.4 s", "185.0 s", "18m 05s", "1h 02m", "−850 ms", "—", "—"]);
  assert.equal(panel.formatMetric(1_234_567, "n"), "1,234,567");
  assert.equal(panel.formatMetric(2.3456, "rate"), "2.35");
  assert.equal(panel.formatMetric(undefined, "ms"), "—");
  assert.equal(panel.METRIC_ROWS.length, 20);
});

// ---------------------------------------------------------------------------------------------
// The timeline's geometry and tooltip
// ---------------------------------------------------------------------------------------------

test("the timeline's rows and scale", () => {
  assert.deepEqual([1, 4, 5, 8, 9, 16].map(laneHeight), [30, 30, 24, 24, 18, 18]);
  const L = timelineLayout(2, 1);
  assert.deepEqual(L, { laneH: 30, fatesTop: 20, producerTop: 20 + FATES.length * 12 + 4, lanesTop: 20 + FATES.length * 12 + 4 + 18, consumers: 2, total: 20 + FATES.length * 12 + 22 + 60 + 4 });
  assert.equal(timelineLayout(1, 5).consumers, 5, "lanes that appeared count");
  const s = timeScale(GUTTER + 10 + 1000, { from: 0, to: 10_000 });
  assert.equal(s.plotW, 1000);
  assert.equal(s.xOf(5000), GUTTER + 500);
  assert.equal(s.tOf(GUTTER + 250), 2500);
  assert.equal(tickStep(3_600_000, 1000), 600_000);
  assert.equal(tickStep(1000, 1000), 100);
  assert.equal(tickStep(1e12, 10), 21_600_000);
  assert.equal(wallClock(START + 1), "12:00:00");
  assert.equal(wallClock(START + 1, true), "12:00:00.001");
});

test("the tooltip says what is under the pointer, in plain text", () => {
  const m = createRunModel({ consumers: 1 });
  m.update([order(HOSTILE, 0, 5000), command(0, 4999, "ZREM q x", "(integer) 1"), processed(0, HOSTILE, 5500, 5600)]);
  const info = { now: 10_000, startMs: START, durationMs: 60_000, consumers: 1 };
  const vp = { from: 0, to: 10_000 };
  const width = GUTTER + 10 + 1000;
  const x = (t) => GUTTER + t / 10;
  const L = timelineLayout(1, 1);
  assert.equal(describeAt(m, info, vp, width, GUTTER - 1, 50), null, "the gutter");
  assert.equal(describeAt(m, info, vp, width, x(5000), 5), "12:00:05.000 (t = 5,000 ms)");
  const onTimeRow = L.fatesTop + 1;
  assert.equal(
    describeAt(m, info, vp, width, x(5000), onTimeRow),
    `${HOSTILE}: created 12:00:00.000, due 12:00:05.000 · processed by consumer 1 12:00:05.500–12:00:05.600 · lateness so far 500 ms · so far: on time`,
  );
  assert.equal(describeAt(m, info, vp, width, x(0), L.producerTop + 5), `producer 12:00:00.000: ${HOSTILE} created`);
  assert.equal(describeAt(m, info, vp, width, x(5550), L.lanesTop + 10), `consumer 1 processing ${HOSTILE}, 12:00:05.500–12:00:05.600`);
  assert.match(describeAt(m, info, vp, width, x(5000), L.lanesTop + 10) ?? "", /^consumer 1: ZREM q x → \(integer\) 1 \(sent 12:00:04.999, executed 12:00:05.000/);
  assert.equal(describeAt(m, info, vp, width, x(9000), L.lanesTop + 10), null);
  assert.equal(describeAt(null, info, vp, width, x(5000), 5), null);
});

// ---------------------------------------------------------------------------------------------
// The form
// ---------------------------------------------------------------------------------------------

test("durations as typed and back", () => {
  assert.deepEqual(["500", "500ms", "1.5s", "30m", "1h30m", "2 min", "", "1d", "-1s"].map((t) => parseDuration(t)), [500, 500, 1500, 1_800_000, 5_400_000, 120_000, null, null, null]);
  assert.equal(parseDuration("90", "s"), 90_000);
  assert.deepEqual([1_800_000, 3_600_000, 1500, 20, 0, Number.NaN].map(formatDuration), ["30m", "1h", "1.5s", "20ms", "0ms", ""]);
});

test("crash schedules: parsed against the consumers and the duration", () => {
  assert.deepEqual(parseCrashes("consumer 1 at 10m for 5m; c2 at 90 for 30s", { consumers: 2 }), {
    ok: true,
    value: [
      { consumer: 0, atMs: 600_000, forMs: 300_000 },
      { consumer: 1, atMs: 90_000, forMs: 30_000 },
    ],
  });
  assert.equal(formatCrashes([{ consumer: 0, atMs: 600_000, forMs: 300_000 }]), "consumer 1 at 10m for 5m");
  assert.match(parseCrashes("consumer 3 at 1m for 1m", { consumers: 2 }).message ?? "", /consumer 3 does not exist — consumers are numbered 1 to 2/);
  assert.match(parseCrashes("consumer 1 at 2h for 1m", { durationMs: 3_600_000 }).message ?? "", /is after the end of the run \(1h\)/);
  assert.match(parseCrashes(HOSTILE).message ?? "", /is not "consumer N at T for D"/);
  assert.deepEqual(parseCrashes("  "), { ok: true, value: [] });
});

test("the whole form: defaults parse, every bad field gets its sentence, presets add their orders", () => {
  const ok = parseForm(DEFAULT_FORM);
  assert.equal(ok.ok, true);
  assert.equal(ok.config.durationMs, 3_600_000);
  assert.equal(ok.compareStrategy, null);
  const bad = parseForm({ ...DEFAULT_FORM, strategy: 9, consumers: "0", ratePerS: "100", durationMs: "24h", compare: true, compareStrategy: "x" });
  assert.equal(bad.ok, false);
  assert.deepEqual(Object.keys(bad.errors).sort(), ["compareStrategy", "consumers", "ratePerS", "strategy"]);
  assert.match(bad.errors.ratePerS, /about 8,640,000 orders; the lab takes at most 200,000 a run/);
  const walk = PRESETS.find((p) => p.id === "walkthrough");
  const r = parseForm({ ...DEFAULT_FORM, ...walk?.form }, walk?.extra);
  assert.equal(r.ok, true);
  assert.deepEqual(r.config.orders, [{ atMs: 0, delayMs: 1_800_000 }]);
  assert.equal(r.config.startMs, START);
  assert.equal(r.config.ratePerS, undefined, "the producer's fields are not read");
});

