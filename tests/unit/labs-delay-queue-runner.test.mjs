// The delay-queue lab's controller (www/labs/delay-queue-runner.js) on fake labs and a fake
// frame clock: run, compare, play, step, seek, speed, and a lab that fails mid-run.

import assert from "node:assert/strict";
import { test } from "node:test";
import { createDelayQueueRunner, DEFAULT_SPEED } from "../../www/labs/delay-queue-runner.js";

/** A lab whose producer orders one task every `every` ms (from t = 0) until `durationMs`. */
function fakeLab(config, world) {
  const every = config.every ?? 100;
  const duration = config.durationMs ?? 1000;
  let now = 0;
  let drained = -1;
  const lab = {
    runUntil(t) {
      if (world.failAt !== undefined && t >= world.failAt) throw new Error("delay-queue: the lab hit an internal error in run_until");
      now = Math.min(t, duration);
      return { now, done: now >= duration };
    },
    drain() {
      const events = [];
      for (let at = (Math.floor(drained / every) + 1) * every; at <= now; at += every) events.push({ kind: "order", task: `o${at}`, at, due: at + 10 });
      drained = now;
      return { events, dropped: 0 };
    },
    metrics: () => ({ now, tasks: Math.floor(now / every) + 1, strategy: config.strategy }),
    nextEventMs: () => (now >= duration ? -1 : (Math.floor(now / every) + 1) * every),
    now: () => now,
    free() {
      world.freed += 1;
    },
  };
  return lab;
}

function harness() {
  const world = { freed: 0, made: [] };
  const frames = [];
  const real = { t: 0 };
  const doc = Object.assign(new EventTarget(), { hidden: false });
  const runner = createDelayQueueRunner({
    labs: {
      create(config) {
        if (config.consumers === 0) throw new Error("delay-queue: consumers must be 1 to 8");
        world.made.push(config);
        return fakeLab(config, world);
      },
      strategyName: (n) => `strategy ${n}`,
      strategyCode: (n) => `code ${n}`,
    },
    requestFrame: (cb) => frames.push(cb),
    realNow: () => real.t,
    doc,
  });
  const seen = [];
  runner.onFrame((f) => seen.push(f));
  const frame = (t) => {
    const cb = frames.shift();
    if (!cb) return false;
    real.t = t;
    cb(t);
    return true;
  };
  return { runner, world, frames, frame, seen };
}

test("run without playing: the labs are made, what happens at t = 0 is drained, nothing plays", () => {
  const h = harness();
  assert.deepEqual(h.runner.run({ config: { strategy: 2, durationMs: 1000 }, compareStrategy: 4 }, { play: false }), { ok: true });
  assert.deepEqual(
    h.world.made.map((c) => c.strategy),
    [2, 4],
  );
  const s = h.runner.state();
  assert.equal(s.generation, 1);
  assert.equal(s.playing, false);
  assert.equal(s.speed, DEFAULT_SPEED);
  assert.deepEqual(
    s.runs.map((r) => [r.label, r.strategy, r.name, r.code]),
    [
      ["A", 2, "strategy 2", "code 2"],
      ["B", 4, "strategy 4", "code 4"],
    ],
  );
  const reset = h.seen.at(-1);
  assert.equal(reset.reset, true);
  assert.deepEqual(
    reset.events.map((list) => list.map((e) => e.at)),
    [[0], [0]],
  );
  assert.equal(h.frames.length, 0);
});

test("a refused config changes nothing and says why, without the lab's prefix", () => {
  const h = harness();
  h.runner.run({ config: { durationMs: 1000 } }, { play: false });
  assert.deepEqual(h.runner.run({ config: { consumers: 0 } }), { ok: false, error: "consumers must be 1 to 8" });
  assert.equal(h.runner.state().generation, 1);
  assert.equal(h.world.freed, 0);
});

test("playing: both labs advance to the same virtual time, speed × real dt", () => {
  const h = harness();
  h.runner.run({ config: { durationMs: 10_000 }, compareStrategy: 3 });
  h.runner.setSpeed(10);
  h.frame(1000);
  h.frame(1016);
  const s = h.runner.state();
  assert.equal(s.now, 160);
  assert.deepEqual(
    s.runs.map((r) => r.now),
    [160, 160],
  );
  assert.deepEqual(
    h.seen.at(-1).events[0].map((e) => e.at),
    [100],
  );
  h.runner.pause();
  assert.equal(h.runner.state().playing, false);
});

test("step runs exactly to the next thing that happens; seek runs to a time over frames", () => {
  const h = harness();
  h.runner.run({ config: { durationMs: 10_000, every: 250 } }, { play: false });
  assert.equal(h.runner.step(), 250);
  assert.equal(h.runner.state().now, 250);
  assert.equal(h.seen.at(-1).stepped, true);
  h.runner.seek(5_000);
  assert.equal(h.runner.state().seeking, true);
  while (h.frame(0)) {}
  assert.equal(h.runner.state().now, 5_000);
  assert.equal(h.runner.state().seeking, false);
  assert.equal(h.runner.nextEventMs(), 5_250);
});

test("the run plays to its end and stops there; reset starts again from 0", () => {
  const h = harness();
  h.runner.run({ config: { durationMs: 1000 } });
  h.runner.setSpeed("max");
  while (h.frame(0)) {}
  const s = h.runner.state();
  assert.equal(s.done, true);
  assert.equal(s.playing, false);
  assert.equal(s.now, 1000);
  assert.deepEqual(h.runner.metrics(), [{ now: 1000, tasks: 11, strategy: undefined }]);
  assert.deepEqual(h.runner.reset(), { ok: true });
  assert.equal(h.runner.state().now, 0);
  assert.equal(h.runner.state().generation, 2);
  assert.equal(h.world.freed, 1, "the old lab was freed");
});

test("an unknown speed is ignored", () => {
  const h = harness();
  h.runner.setSpeed(7);
  assert.equal(h.runner.state().speed, DEFAULT_SPEED);
  h.runner.setSpeed("max");
  assert.equal(h.runner.state().speed, "max");
});

test("a lab that fails mid-run stops the run with a sentence and is freed", () => {
  const h = harness();
  h.world.failAt = 500;
  h.runner.run({ config: { durationMs: 10_000 } });
  h.runner.setSpeed("max");
  while (h.frame(0)) {}
  const s = h.runner.state();
  assert.equal(s.playing, false);
  assert.equal(s.error, "The lab stopped: the lab hit an internal error in run_until");
  assert.equal(h.world.freed, 1);
  h.runner.play();
  assert.equal(h.runner.state().playing, false, "a stopped lab does not play again");
});
