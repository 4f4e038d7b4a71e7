// Unit tests of the clock bar's model (www/views/clock-model.js): pure, no DOM.

import { test } from "node:test";
import assert from "node:assert/strict";

import { EVENT_LOG_CAPACITY, MAX_JUMP_SECONDS, clockTexts, formatClock, formatLag, formatTimeOfDay, parseJumpSeconds, textsChanged } from "../../www/views/clock-model.js";

/** A store state as www/store.js builds it. */
function storeState(clock = {}, ui = {}) {
  return {
    paused: false,
    speed: 1,
    ...ui,
    clock: {
      now: 1_735_689_600_000,
      nextCronMs: 1_735_689_600_100,
      hz: 10,
      cronPeriodMs: 100,
      cronTicks: 0,
      frameTicks: 0,
      lagMs: 0,
      pendingMs: 0,
      expired: 0,
      droppedEvents: 0,
      unreadableDrains: 0,
      ...clock,
    },
  };
}

test("the clock prints UTC to the millisecond over the engine's whole range", () => {
  assert.equal(formatClock(1_735_689_600_133), "2025-01-01 00:00:00.133 UTC");
  assert.equal(formatClock(0), "1970-01-01 00:00:00.000 UTC");
  assert.match(formatClock(2 ** 52), / UTC$/);
  assert.equal(formatTimeOfDay(1_735_689_601_250), "00:00:01.250");
});

test("jump seconds: decimals, a one-year cap, sentences for bad input", () => {
  assert.deepEqual(parseJumpSeconds(" 30 "), { ok: true, ms: 30_000 });
  assert.deepEqual(parseJumpSeconds(".5"), { ok: true, ms: 500 });
  assert.deepEqual(parseJumpSeconds("0.001"), { ok: true, ms: 1 });
  assert.deepEqual(parseJumpSeconds(String(MAX_JUMP_SECONDS)), { ok: true, ms: MAX_JUMP_SECONDS * 1000 });
  for (const bad of ["", "-1", "1e3", "abc", "30s", "<b>1</b>"]) {
    assert.deepEqual(parseJumpSeconds(bad), { ok: false, message: "Enter a number of seconds, like 30 or 0.5." }, bad);
  }
  assert.deepEqual(parseJumpSeconds("0.0001"), { ok: false, message: "Enter between 0.001 and 31,536,000 seconds (one year)." });
  assert.equal(parseJumpSeconds(String(MAX_JUMP_SECONDS + 1)).ok, false);
});

test("lag and pending time in the largest unit that reads well", () => {
  assert.equal(formatLag(0), "0 ms");
  assert.equal(formatLag(999.4), "999 ms");
  assert.equal(formatLag(1500), "1.5 s");
  assert.equal(formatLag(120_000), "2.0 min");
  assert.equal(formatLag(7_200_000), "2.0 h");
});

test("a fresh page: step to the next tick, nothing dropped", () => {
  const t = clockTexts(storeState());
  assert.deepEqual(t, {
    time: "2025-01-01 00:00:00.000 UTC",
    unix: "unix ms 1735689600000",
    play: "❚❚ Pause",
    speed: "1",
    step: "Step 1 tick (+100 ms)",
    cron: "cron 0 ticks",
    hz: "hz 10 · every 100 ms",
    lag: "lag 0 ms",
    pending: "",
    expired: "expired 0",
    dropped: "",
    paused: false,
    lagging: false,
    progress: -1,
  });
});

test("busy frames: ticks, lag, a jump catching up, dropped and lost events", () => {
  const t = clockTexts(
    storeState(
      { cronTicks: 1_234_567, frameTicks: 600, lagMs: 2500, pendingMs: 1_800_000, expired: 12_000_000, droppedEvents: 50_001, unreadableDrains: 2 },
      { paused: true, speed: 3600 },
    ),
  );
  assert.equal(t.play, "▶ Play");
  assert.equal(t.speed, "3600");
  assert.equal(t.cron, "cron 1,234,567 ticks (+600)");
  assert.equal(t.lag, "lag 2.5 s");
  assert.equal(t.lagging, true);
  assert.equal(t.pending, "catching up 30.0 min");
  assert.equal(t.progress, -1, "no progress without the jump's size");
  assert.equal(clockTexts(storeState({ pendingMs: 1_800_000, jumpMs: 3_600_000 })).progress, 50);
  assert.equal(clockTexts(storeState({ pendingMs: 1, jumpMs: 3_600_000 })).progress, 99, "never 100% before it is done");
  assert.equal(t.expired, "expired 12,000,000");
  assert.equal(t.dropped, "50,001 events not drawn · events lost 2× (the engine could not hand them over)");
});

test("the step goes to the next tick, even when it is on an old schedule or already due", () => {
  assert.equal(clockTexts(storeState({ nextCronMs: 1_735_689_600_034 })).step, "Step 1 tick (+34 ms)");
  assert.equal(clockTexts(storeState({ nextCronMs: 1_735_689_599_000 })).step, "Step 1 tick (+0 ms)");
  assert.equal(clockTexts(storeState({ nextCronMs: undefined, cronPeriodMs: 2 })).step, "Step 1 tick (+2 ms)");
});

test("textsChanged compares with what is on screen", () => {
  const t = clockTexts(storeState());
  assert.equal(textsChanged({}, t), true);
  assert.equal(textsChanged({ ...t }, t), false);
  assert.equal(textsChanged({ ...t, lag: "lag 1 ms" }, t), true);
});

test("the event log's capacity the clock bar names is the engine's", async () => {
  const { readFileSync } = await import("node:fs");
  const rust = readFileSync(new URL("../../src/engine/mod.rs", import.meta.url), "utf8");
  const m = /pub const EVENT_LOG_CAPACITY: usize = ([\d_]+);/.exec(rust);
  assert.ok(m, "EVENT_LOG_CAPACITY in src/engine/mod.rs");
  assert.equal(Number(m[1].replace(/_/g, "")), EVENT_LOG_CAPACITY);
});
