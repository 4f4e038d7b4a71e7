// The page's one requestAnimationFrame loop (www/loop.js), driven frame by frame with a fake
// engine and a fake real clock: virtual time follows real time × speed, jumps are carried
// across frames, what a frame cannot run is lag (never hidden), and an idle loop sleeps.

import assert from "node:assert/strict";
import { test } from "node:test";
import { createLoop, ENGINE_BUDGET_MS, FRAME_TICK_BUDGET, MAX_FRAME_DT_MS } from "../../www/loop.js";
import { createInitialState, createStore } from "../../www/store.js";

const T0 = 1_735_689_600_000;

/** An engine with a 100 ms cron tick; each tick "costs" `msPerTick` of fake real time. */
function fakeEngine(real, { msPerTick = 0 } = {}) {
  let now = T0;
  let pending = [];
  const engine = {
    calls: 0,
    now: () => now,
    nextCronMs: () => (Math.floor(now / 100) + 1) * 100,
    hz: () => 10,
    cronPeriodMs: () => 100,
    advanceTo(target, maxTicks = 10_000) {
      engine.calls += 1;
      let ticks = 0;
      while (ticks < maxTicks && (Math.floor(now / 100) + 1) * 100 <= target) {
        now = (Math.floor(now / 100) + 1) * 100;
        ticks += 1;
        real.t += msPerTick;
      }
      const lagMs = ticks === maxTicks && (Math.floor(now / 100) + 1) * 100 <= target ? target - now : 0;
      if (lagMs === 0) now = target;
      if (ticks > 0) pending.push({ kind: "cron", at_ms: now, ticks, hz: 10 });
      return { ticks, lagMs, now };
    },
    drainEvents() {
      const events = pending;
      pending = [];
      return { events, dropped: 0, unreadable: false };
    },
  };
  return engine;
}

function harness({ paused = false, speed = 1, msPerTick = 0 } = {}) {
  const real = { t: 0 };
  const engine = fakeEngine(real, { msPerTick });
  const store = createStore(createInitialState({ seed: 1, startMs: T0, paused, speed }));
  const frames = [];
  const doc = Object.assign(new EventTarget(), { hidden: false });
  const drawn = [];
  const view = { update: (events) => events.length > 0, draw: (s) => drawn.push(s.clock.now) };
  const loop = createLoop({ engine, store, views: [view], doc, requestFrame: (cb) => frames.push(cb), realNow: () => real.t });
  /** Runs the one scheduled frame at real time `t` (ms); false when none was scheduled. */
  const frame = (t) => {
    const cb = frames.shift();
    if (!cb) return false;
    real.t = t;
    cb(t);
    return true;
  };
  return { engine, store, loop, frame, frames, doc, drawn, real };
}

test("playing: virtual time moves by real dt × speed; each frame's cron ticks are counted", () => {
  const h = harness({ speed: 10 });
  h.loop.start();
  assert.ok(h.frame(1000), "the first frame only sets the reference time");
  assert.equal(h.store.get().clock.now, T0);
  h.frame(1016);
  assert.equal(h.store.get().clock.now, T0 + 160);
  h.frame(1032);
  assert.equal(h.store.get().clock.now, T0 + 320);
  assert.equal(h.store.get().clock.cronTicks, 3);
  assert.equal(h.frames.length, 1, "still playing: another frame is scheduled");
});

test("a long frame (a debugger pause) counts as MAX_FRAME_DT_MS", () => {
  const h = harness();
  h.loop.start();
  h.frame(0);
  h.frame(60_000);
  assert.equal(h.store.get().clock.now, T0 + MAX_FRAME_DT_MS);
});

test("paused and nothing pending: the loop schedules no frame at all", () => {
  const h = harness({ paused: true });
  h.loop.start();
  h.frame(0);
  assert.equal(h.frames.length, 0, "asleep");
  assert.equal(h.loop.sleeping(), true);
  h.loop.wake();
  assert.equal(h.frames.length, 1);
  assert.equal(h.loop.sleeping(), false, "a frame is on its way");
  h.frame(16);
  assert.equal(h.frames.length, 0);
  assert.equal(h.loop.sleeping(), true);
  assert.equal(h.loop.frameCount(), 2);
  assert.equal(h.store.get().clock.now, T0);
});

test("a jump is a target bounded by real time, not by a count of ticks: cheap ticks run at once", () => {
  const h = harness({ paused: true });
  h.loop.start();
  h.frame(0);
  h.loop.advanceBy(30 * 60_000); // 18,000 ticks, more than a frame of playback may run
  h.frame(16);
  const first = h.store.get().clock;
  assert.ok(FRAME_TICK_BUDGET < 18_000);
  assert.equal(first.frameTicks, 18_000);
  assert.equal(first.now, T0 + 30 * 60_000);
  assert.equal(first.pendingMs, 0);
  assert.equal(first.jumpMs, 0, "done: no progress to show");
  assert.equal(h.frames.length, 0, "reached: asleep again");
});

test("a jump over expensive ticks is carried across frames, with its size kept for the progress", () => {
  const h = harness({ paused: true, msPerTick: 1 });
  h.loop.start();
  h.frame(0);
  h.loop.advanceBy(30 * 60_000);
  h.frame(16);
  const first = h.store.get().clock;
  assert.ok(first.frameTicks >= ENGINE_BUDGET_MS && first.frameTicks <= 2 * ENGINE_BUDGET_MS, `${first.frameTicks} ticks`);
  assert.equal(first.pendingMs, 30 * 60_000 - first.frameTicks * 100);
  assert.equal(first.jumpMs, 30 * 60_000);
  assert.equal(first.lagMs, 0, "a jump is pending, not lag");
  for (let t = 32; h.frame(t); t += 16) {
    // until it lands
  }
  assert.equal(h.store.get().clock.now, T0 + 30 * 60_000);
  assert.equal(h.store.get().clock.pendingMs, 0);
  assert.equal(h.store.get().clock.jumpMs, 0);
  assert.equal(h.store.get().clock.cronTicks, 18_000);
});

test("expensive ticks: a frame stops after its real-time budget, and playback shows the shortfall as lag", () => {
  const h = harness({ speed: 3600, msPerTick: 1 });
  h.loop.start();
  h.frame(0);
  h.frame(16); // asks for 57,600 ms: 576 ticks, at 1 ms each
  const c = h.store.get().clock;
  assert.ok(c.frameTicks >= ENGINE_BUDGET_MS && c.frameTicks <= 2 * ENGINE_BUDGET_MS, `${c.frameTicks} ticks`);
  assert.equal(c.now, T0 + c.frameTicks * 100);
  assert.equal(c.lagMs, 57_600 - c.frameTicks * 100);
  assert.equal(c.pendingMs, 0, "playback is not carried over");
});

test("cancelPending forgets a jump; a hidden page stops playing", () => {
  const h = harness({ paused: true });
  h.loop.start();
  h.frame(0);
  h.loop.advanceBy(10 * 60_000);
  h.loop.cancelPending();
  h.frame(16);
  assert.equal(h.store.get().clock.now, T0);

  const p = harness();
  p.loop.start();
  p.frame(0);
  p.doc.hidden = true;
  p.frame(16);
  assert.equal(p.store.get().clock.now, T0);
  assert.equal(p.frames.length, 0, "hidden and nothing pending: asleep");
  p.doc.hidden = false;
  p.doc.dispatchEvent(new Event("visibilitychange"));
  assert.equal(p.frames.length, 1, "visible again: wakes up");
});

test("views redraw when their update says so, and all of them after redrawAll", () => {
  const h = harness({ paused: true });
  h.loop.start();
  h.frame(0);
  assert.equal(h.drawn.length, 1, "the first frame draws everything");
  h.loop.wake();
  h.frame(16);
  assert.equal(h.drawn.length, 1, "no events: no redraw");
  h.loop.advanceBy(100);
  h.frame(32);
  assert.equal(h.drawn.length, 2, "a cron event: redraw");
  h.loop.redrawAll();
  h.frame(48);
  assert.equal(h.drawn.length, 3);
});
