// @ts-check
// The page's one requestAnimationFrame loop.
//
// Each frame: virtual time += real dt × speed (plus any pending jump/step) → engine.advanceTo →
// drain the engine's events → update the store → redraw the views that say they changed.
//
// A script that runs long (EVAL of an endless loop) gets the frame's budget in slices, paused or
// not, until it ends or another console's SCRIPT KILL stops it.
//
// It only runs while there is something to do. Paused (or the tab hidden) and nothing pending,
// it schedules no frame at all, so an idle page costs no CPU; `wake()` (an input, a control)
// runs one frame to pick up what changed.
//
// A frame also bounds the real time it spends in the engine (ENGINE_BUDGET_MS): it asks for a
// few ticks at a time, drains their events, and stops once the budget is spent, so a tick-heavy
// stretch (a million keys expiring at 60×) slows the virtual clock — shown as lag — instead of
// freezing the page for seconds. Ticks run at the same virtual times however they are split,
// so the run is the same; only how fast it plays changes. (Draining after each slice also keeps
// the engine's bounded event log from overflowing within a frame.)
//
// Two kinds of requested time are treated differently when a frame cannot run all the cron
// ticks it would need (the engine bounds ticks per call and reports the rest as lag):
//   - playback (dt × speed) is not carried over: the clock simply runs slower than asked and
//     the shortfall is shown as lag;
//   - an explicit jump or step is a target the user asked for: it is carried across frames
//     until it is reached, shown as "pending" (and its progress). A jump is bounded by real
//     time only, not by a count of ticks: idle ticks cost nothing (the engine fast-forwards
//     them), so thirty idle days land in one frame, while an hour over 100,000 volatile keys
//     runs in slices of ENGINE_BUDGET_MS, frame after frame.

// A workload driver (www/workload.js) may run requests at their own virtual times: the frame
// then lets it advance the clock request by request (cron ticks in between run where they fall),
// within the same real-time and tick budgets, and lets the clock run on to the frame's target
// once the requests due are done. Its "compare policies" jobs (fresh engines, not this one) get
// a slice of each frame of their own (COMPARE_BUDGET_MS) while they last.

import { reduceEvents } from "./store.js";

/** Cron runs one frame of playback may ask for (the engine's own default per call). A jump
 *  or step has no tick cap: only the real-time budget bounds it. */
export const FRAME_TICK_BUDGET = 10_000;

/** The tick cap of a frame that serves a jump: none (the engine takes an f64 count). */
const JUMP_TICK_BUDGET = Number.MAX_SAFE_INTEGER;

/** A frame longer than this (a debugger pause, a slow machine) counts as this long. */
export const MAX_FRAME_DT_MS = 250;

/** Real ms a frame may spend running cron ticks and draining their events before it leaves
 *  the rest as lag or pending (a single tick is never split, so one heavy tick can exceed it). */
export const ENGINE_BUDGET_MS = 8;

/** Lua instructions per call while a script runs (0.5 ms of its virtual time): a frame runs
 *  such slices until ENGINE_BUDGET_MS of real time is spent, paused or not. */
export const SCRIPT_SLICE_STEPS = 250_000;

/** Real ms a frame gives a workload driver's background job ("compare policies"). */
export const COMPARE_BUDGET_MS = 8;

/** @typedef {import("./types/events").Event} Event */

/**
 * What the loop drives each frame: `update` takes the frame's events and says whether to
 * redraw; `animating` asks for more frames while a transition runs.
 * @typedef {object} LoopView
 * @property {(events: Event[], state: Readonly<import("./store").State>) => boolean} update
 * @property {(state: Readonly<import("./store").State>) => void} draw
 * @property {() => boolean} [animating]
 */

/**
 * What says whether the page is out of sight: `document`, or a widget's visibility.
 * @typedef {Pick<Document, "hidden" | "addEventListener" | "removeEventListener">} Visibility
 */

/**
 * @param {object} deps
 * @param {Pick<import("./engine").Engine, "advanceTo" | "drainEvents" | "now" | "nextCronMs" | "hz" | "cronPeriodMs"> & Partial<Pick<import("./engine").Engine, "runScriptSlice" | "scriptBusy">>} deps.engine  from engine.js
 * @param {import("./store").Store} deps.store    from store.js
 * @param {LoopView[]} deps.views
 * @param {ReturnType<typeof import("./workload").createWorkloadDriver> | null} [deps.driver]  a workload driver (www/workload.js), or null
 * @param {Visibility} [deps.doc]
 * @param {(cb: FrameRequestCallback) => number} [deps.requestFrame]
 * @param {() => number} [deps.realNow]  real time in ms (tests may pin it)
 */
export function createLoop({
  engine,
  store,
  views,
  driver = null,
  doc = document,
  requestFrame = (cb) => requestAnimationFrame(cb),
  realNow = () => performance.now(),
}) {
  let scheduled = false;
  let started = false;
  /** @type {number | null} real time of the previous playing frame, or null */
  let lastFrameTime = null;
  let fractionMs = 0; // sub-millisecond playback carried to the next frame
  let pendingMs = 0; // jump/step time not yet run
  let jumpMs = 0; // the whole of the jump being run (pendingMs of it left), for its progress
  let forceDraw = true;
  let frameCount = 0; // frames run so far

  /**
   * Runs cron ticks towards `target` a few at a time, draining the events of each slice, until
   * it is reached, FRAME_TICK_BUDGET ticks ran, or ENGINE_BUDGET_MS of real time went by. The
   * first slice is one tick; each next one about as many as the time left allows at the cost
   * per tick seen so far (at most twice as many as ran so far, so a cheap start cannot hide an
   * expensive stretch). Returns `{ticks, lagMs, now, events, dropped, unreadable}`.
   */
  function advanceWithinBudget(target, budgetMs = ENGINE_BUDGET_MS, tickBudget = FRAME_TICK_BUDGET) {
    const t0 = realNow();
    let ticks = 0;
    let chunk = 1;
    /** @type {Event[]} */
    let events = [];
    let dropped = 0;
    let unreadable = 0;
    for (;;) {
      const r = engine.advanceTo(target, Math.max(1, Math.min(chunk, tickBudget - ticks)));
      ticks += r.ticks;
      const drained = engine.drainEvents();
      events = events.length === 0 ? drained.events : events.concat(drained.events);
      dropped += drained.dropped;
      if (drained.unreadable) unreadable += 1;
      const done = { ticks, lagMs: r.lagMs, now: r.now, events, dropped, unreadable };
      if (r.lagMs <= 0 || ticks >= tickBudget || r.ticks === 0) return done;
      const spent = realNow() - t0;
      if (spent >= budgetMs) return done;
      const perTick = spent / Math.max(1, ticks);
      const fits = Math.floor((budgetMs - spent) / Math.max(perTick, 1e-4));
      chunk = Math.max(1, Math.min(fits, 2 * ticks));
    }
  }

  /**
   * As advanceWithinBudget, with a live workload first: its requests due by `target` run at
   * their virtual times; if they use up the budget the clock stops at the last one (the rest
   * is lag or pending, as for ticks), otherwise the clock runs on to `target`.
   */
  function advanceFrame(target, tickBudget = FRAME_TICK_BUDGET) {
    if (driver === null || !driver.active()) return advanceWithinBudget(target, ENGINE_BUDGET_MS, tickBudget);
    const t0 = realNow();
    const d = driver.drive(target, { deadline: t0 + ENGINE_BUDGET_MS, maxTicks: tickBudget });
    const spent = realNow() - t0;
    if (d.stoppedShort || spent >= ENGINE_BUDGET_MS || d.ticks >= tickBudget) {
      const now = engine.now();
      return { ticks: d.ticks, lagMs: Math.max(0, target - now), now, events: d.events, dropped: d.dropped, unreadable: d.unreadable };
    }
    const rest = advanceWithinBudget(target, ENGINE_BUDGET_MS - spent, tickBudget - d.ticks);
    return {
      ...rest,
      ticks: d.ticks + rest.ticks,
      events: d.events.length === 0 ? rest.events : d.events.concat(rest.events),
      dropped: d.dropped + rest.dropped,
      unreadable: d.unreadable + rest.unreadable,
    };
  }

  function schedule() {
    if (!started || scheduled) return;
    scheduled = true;
    requestFrame(frame);
  }

  function playing() {
    return !store.get().paused && !doc.hidden;
  }

  /** @param {number} time */
  function frame(time) {
    scheduled = false;
    frameCount += 1;
    const state = store.get();
    const isPlaying = playing();

    let playWholeMs = 0;
    if (isPlaying) {
      const dt = lastFrameTime === null ? 0 : Math.min(Math.max(time - lastFrameTime, 0), MAX_FRAME_DT_MS);
      const play = dt * state.speed + fractionMs;
      playWholeMs = Math.floor(play);
      fractionMs = play - playWholeMs;
      lastFrameTime = time;
    } else {
      lastFrameTime = null;
      fractionMs = 0;
    }

    // A script that outlived its first slice runs in slices within the frame's budget, paused
    // or not (no timer runs meanwhile: the clock waits for it, as Redis's does).
    let scripting = false;
    if (engine.scriptBusy?.()) {
      const t0 = realNow();
      do scripting = engine.runScriptSlice?.(SCRIPT_SLICE_STEPS) ?? false;
      while (scripting && realNow() - t0 < ENGINE_BUDGET_MS);
    }

    const before = engine.now();
    let frameTicks = 0;
    let lagMs = 0;
    /** @type {Event[] | null} */
    let events = null;
    let dropped = 0;
    let unreadable = 0;
    const wantMs = pendingMs + playWholeMs;
    if (wantMs >= 1) {
      // A jump is bounded by real time alone; playback also by FRAME_TICK_BUDGET.
      const result = advanceFrame(before + wantMs, pendingMs >= 1 ? JUMP_TICK_BUDGET : FRAME_TICK_BUDGET);
      frameTicks = result.ticks;
      ({ events, dropped, unreadable } = result);
      if (result.lagMs > 0) {
        // Jumps are served first; whatever playback could not run is reported as lag.
        const ran = Math.max(0, result.now - before);
        const pendingBefore = pendingMs;
        pendingMs = Math.max(0, pendingBefore - ran);
        lagMs = Math.max(0, playWholeMs - Math.max(0, ran - pendingBefore));
        fractionMs = 0;
      } else {
        // Target reached (or clamped at the end of the clock's range).
        pendingMs = 0;
      }
      if (pendingMs < 1) jumpMs = 0;
    }

    if (events === null) {
      const drained = engine.drainEvents();
      ({ events, dropped } = drained);
      unreadable = drained.unreadable ? 1 : 0;
    }
    // A comparison job runs on engines of its own, a slice of every frame until it is done.
    let working = false;
    if (driver?.busy()) working = driver.work(realNow() + COMPARE_BUDGET_MS);
    const clock = store.get().clock;
    store.setClock({
      ...reduceEvents(clock, events, dropped, unreadable),
      now: engine.now(),
      nextCronMs: engine.nextCronMs(),
      hz: engine.hz(),
      cronPeriodMs: engine.cronPeriodMs(),
      frameTicks,
      lagMs,
      pendingMs,
      jumpMs,
    });

    const current = store.get();
    let animating = false;
    for (const view of views) {
      if (view.update(events, current) || forceDraw) view.draw(current);
      // A view in the middle of a short transition (a highlight fading) asks for more frames;
      // once it is over the loop goes back to sleeping.
      if (view.animating?.()) animating = true;
    }
    forceDraw = false;

    if (isPlaying || pendingMs >= 1 || animating || working || scripting) schedule();
  }

  // Any change to the UI part of the state (pause, speed, the selected key…) needs a frame;
  // the loop's own clock updates do not.
  let previous = store.get();
  store.subscribe((s) => {
    if (s.clock === previous.clock || s.paused !== previous.paused || s.speed !== previous.speed) schedule();
    previous = s;
  });

  function onVisibility() {
    lastFrameTime = null;
    if (!doc.hidden) schedule();
  }

  return {
    start() {
      started = true;
      doc.addEventListener("visibilitychange", onVisibility);
      schedule();
    },

    stop() {
      started = false;
      doc.removeEventListener("visibilitychange", onVisibility);
    },

    /** Run one frame soon: something outside the loop (a command, a control) changed the engine. */
    wake() {
      schedule();
    },

    /** Ask for `ms` more virtual time, run as fast as the tick budget allows (jump, step). */
    advanceBy(ms) {
      if (!(ms > 0)) return;
      if (pendingMs < 1) jumpMs = 0;
      pendingMs += Math.round(ms);
      jumpMs += Math.round(ms);
      schedule();
    },

    /** Forget any pending jump (after a reset). */
    cancelPending() {
      pendingMs = 0;
      jumpMs = 0;
      fractionMs = 0;
      schedule();
    },

    /** Draw every view on the next frame whether or not it thinks it changed. */
    redrawAll() {
      forceDraw = true;
      schedule();
    },

    /**
     * No frame is scheduled: the clock stands still, every view drew what the engine did and no
     * transition is running (the e2e tests wait for this instead of sleeping).
     */
    sleeping() {
      return !scheduled;
    },

    /** Frames run so far: one more has drained everything the engine did before it. */
    frameCount() {
      return frameCount;
    },
  };
}
