// The console's job runner (www/console/jobs.js): slices bounded by real time, one per frame, in
// order; a job that waits is asked again next frame; Ctrl-C stops a console's jobs but not a
// replay; progress after each slice.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createJobRunner } from "../../www/console/jobs.js";

/** A runner on a fake clock and fake frames: `frame()` runs what was requested. */
function setup(budgetMs = 8) {
  let t = 0;
  /** @type {Array<() => void>} */
  let frames = [];
  const progress = [];
  const runner = createJobRunner({
    requestFrame: (cb) => frames.push(cb),
    now: () => t,
    budgetMs,
    onProgress: (p) => progress.push(p),
  });
  return {
    runner,
    progress,
    advance: (ms) => {
      t += ms;
    },
    frame() {
      const due = frames;
      frames = [];
      for (const cb of due) cb();
      return due.length;
    },
    pending: () => frames.length,
  };
}

/** A job of `n` units, each costing `cost` ms of the fake clock. */
function units(env, n, { cost = 1, log = [], name = "j", ...rest } = {}) {
  let i = 0;
  return {
    label: name,
    total: n,
    step() {
      log.push(`${name}${i}`);
      env.advance(cost);
      i += 1;
      return i < n ? "more" : "done";
    },
    ...rest,
  };
}

test("a job runs in slices of the budget, one per frame, and resolves when done", async () => {
  const env = setup(8);
  const log = [];
  const done = env.runner.add(units(env, 20, { cost: 1, log }));
  assert.equal(env.runner.busy(), true);
  assert.equal(log.length, 0, "nothing runs before a frame");
  env.frame();
  assert.equal(log.length, 8, "8 units of 1 ms in an 8 ms slice");
  assert.deepEqual(env.progress.at(-1), { label: "j", done: 8, total: 20, queued: 0, waiting: false, console: undefined, cancellable: true });
  env.frame();
  env.frame();
  assert.equal(log.length, 20);
  assert.equal(await done, "done");
  assert.equal(env.runner.busy(), false);
  assert.equal(env.progress.at(-1), null);
  assert.equal(env.frame(), 0, "no frame is asked for once idle");
});

test("a slow unit is never split: one per slice when each exceeds the budget", () => {
  const env = setup(8);
  const log = [];
  env.runner.add(units(env, 3, { cost: 50, log }));
  env.frame();
  assert.equal(log.length, 1);
  env.frame();
  assert.equal(log.length, 2);
});

test("jobs run in the order they were added; a line typed meanwhile waits its turn", async () => {
  const env = setup(8);
  const log = [];
  const a = env.runner.add(units(env, 10, { log, name: "a" }));
  const b = env.runner.add(units(env, 2, { log, name: "b" }));
  assert.equal(env.progress.at(-1).queued, 1);
  env.frame();
  env.frame();
  assert.deepEqual(log, ["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "b0", "b1"]);
  assert.deepEqual([await a, await b], ["done", "done"]);
});

test("a job that waits is asked again next frame, without spinning in the slice", () => {
  const env = setup(8);
  let blocked = true;
  let calls = 0;
  let ran = 0;
  env.runner.add({
    label: "lines",
    total: 2,
    step() {
      calls += 1;
      if (blocked) return "wait";
      ran += 1;
      return ran < 2 ? "more" : "done";
    },
  });
  env.frame();
  assert.equal(calls, 1);
  assert.equal(env.progress.at(-1).waiting, true);
  env.frame();
  assert.equal(calls, 2);
  blocked = false;
  env.frame();
  assert.equal(ran, 2);
  assert.equal(env.runner.busy(), false);
});

test("cancel(n) stops console n's jobs, not another console's, and never a replay", async () => {
  const env = setup(8);
  const stoppedAt = [];
  const replay = env.runner.add(units(env, 5, { name: "replay", cancellable: false }));
  const paste0 = env.runner.add(units(env, 100, { name: "p0", console: 0, onCancel: (d) => stoppedAt.push(d) }));
  const paste1 = env.runner.add(units(env, 3, { name: "p1", console: 1 }));
  assert.equal(env.runner.cancel(0), 1);
  assert.equal(await paste0, "cancelled");
  assert.deepEqual(stoppedAt, [0]);
  env.frame();
  env.frame();
  assert.deepEqual([await replay, await paste1], ["done", "done"]);
  assert.equal(env.runner.cancel(), 0);
});

test("a job of nothing is done at once; a job that throws ends and the next runs", async () => {
  const env = setup(8);
  assert.equal(await env.runner.add({ label: "none", total: 0, step: () => "done" }), "done");
  assert.equal(env.runner.busy(), false);
  const original = console.error;
  console.error = () => {};
  try {
    const bad = env.runner.add({
      label: "bad",
      total: 2,
      step() {
        throw new Error("boom");
      },
    });
    const good = env.runner.add(units(env, 1));
    env.frame();
    assert.deepEqual([await bad, await good], ["cancelled", "done"]);
  } finally {
    console.error = original;
  }
});

test("pendingFor: a console's own jobs and the ones for every console; cancellableFor: its own", () => {
  const env = setup(8);
  env.runner.add(units(env, 3, { console: 1 }));
  assert.equal(env.runner.pendingFor(1), true);
  assert.equal(env.runner.pendingFor(0), false);
  assert.equal(env.runner.cancellableFor(1), true);
  env.runner.add(units(env, 3, { cancellable: false }));
  assert.equal(env.runner.pendingFor(0), true, "a replay holds every console's typing");
  assert.equal(env.runner.cancellableFor(0), false);
});

test("busy: work that is not a unit yet goes on while the budget lasts, uncounted", () => {
  const env = setup(8);
  let parts = 0;
  env.runner.add({
    label: "replay",
    total: 1,
    step() {
      env.advance(3);
      parts += 1;
      return parts < 5 ? "busy" : "done";
    },
  });
  env.frame();
  assert.equal(parts, 3, "three 3 ms parts fill an 8 ms slice");
  assert.equal(env.progress.at(-1).done, 0);
  env.frame();
  assert.equal(parts, 5);
  assert.equal(env.runner.busy(), false);
});
