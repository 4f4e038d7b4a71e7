// @ts-check
// The delay-queue lab's controller: it owns the DelayQueueLab instances (one, or two to compare
// strategies on the same seed) and plays them in virtual time. Views never call the engine:
// they get each frame's drained events and the metrics through `onFrame`, and call the
// runner's actions (run, play, pause, step, seek, reset, speed).
//
// The lab has its own simulated clients on its own engine and its own clock, so it is played by
// its own requestAnimationFrame callback, independent of the page's loop and clock bar (pausing
// the clock bar does not pause the lab, nor the other way round). Like the page's loop it only
// schedules frames while there is something to do, stops while the tab is hidden, and bounds
// the real time a frame spends in the simulation (FRAME_BUDGET_MS): `run_until` is called in
// slices sized from the cost seen so far, each slice drained at once. Playback that cannot keep
// up is not carried over: the lab runs slower than asked and the shortfall is reported as lag.
// A seek ("skip to") is a target: it is carried across frames until reached.
//
// Both labs of a comparison are always advanced to the same virtual time.

import { t } from "../i18n.js";

/** @typedef {number | "max"} DqSpeed */
/** @typedef {import("../engine/lab-adapters").DelayQueueLab} DelayQueueLab */
/** @typedef {import("../types/events").DelayQueueEvent} DelayQueueEvent */
/** @typedef {import("../types/snapshots").DelayQueueMetrics} DelayQueueMetrics */

/**
 * One lab of the run (B compares another strategy on the same seed).
 * @typedef {object} LabRun
 * @property {string} label  "A" or "B"
 * @property {number} strategy
 * @property {string} name
 * @property {string} code
 * @property {Record<string, any>} config
 * @property {DelayQueueLab | null} lab  null once freed
 * @property {DelayQueueMetrics | null} metrics
 * @property {number} now
 * @property {boolean} done
 */

/** @typedef {{config: Record<string, any>, compareStrategy?: number | null}} RunRequest */

/** @type {readonly DqSpeed[]} the speeds offered: virtual ms per real ms, or "max" (as fast as the frame budget allows) */
export const DQ_SPEEDS = Object.freeze([1, 10, 60, 600, "max"]);
/** @type {DqSpeed} */
export const DEFAULT_SPEED = 60;

/** Real ms a frame may spend in the simulation (a slice is never split, so one may run over). */
export const FRAME_BUDGET_MS = 8;
/** A frame longer than this (a debugger pause, a background tab) counts as this long. */
export const MAX_FRAME_DT_MS = 250;
/** While playing, metrics() is read at most this often (real ms); always when a frame stops. */
export const METRICS_EVERY_MS = 100;

/** Sim events one run_until call may handle: a slice stays short even where events crowd. */
export const MAX_STEPS_PER_CALL = 5000;

/** The API's default t = 0 (Unix ms), when a config does not say. */
export const DEFAULT_START_MS = 1735689600000;

/**
 * A strategy's name as the engine gives it (src/sim/strategies.rs), in the page's language; a
 * name this list does not know stays as it is.
 * @param {string} name
 */
export function strategyTitle(name) {
  switch (name) {
    case "poll + ZREM check":
      return t("poll + ZREM check");
    case "poll, naive":
      return t("poll, naive");
    case "Lua atomic pop":
      return t("Lua atomic pop");
    case "keyspace notifications":
      return t("keyspace notifications");
    case "ZSET + pub/sub wake-up":
      return t("ZSET + pub/sub wake-up");
    case "stream + consumer group":
      return t("stream + consumer group");
    default:
      return name;
  }
}

/** @param {unknown} err */
function messageOf(err) {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/^delay-queue:\s*/, "");
}

/**
 * @param {object} deps
 * @param {{create(config: object): DelayQueueLab, strategyName(n: number): string, strategyCode(n: number): string}} deps.labs
 *        the lab factory (engine.js): create() → {runUntil, drain, metrics, nextEventMs, now, free}
 * @param {(cb: FrameRequestCallback) => number} [deps.requestFrame]
 * @param {() => number} [deps.realNow]
 * @param {import("../loop").Visibility} [deps.doc]
 */
export function createDelayQueueRunner({
  labs,
  requestFrame = (cb) => requestAnimationFrame(cb),
  realNow = () => performance.now(),
  doc = document,
}) {
  /** @type {LabRun[]} */
  let runs = [];
  /** @type {RunRequest | null} */
  let request = null;
  let generation = 0;
  let now = 0;
  let playing = false;
  let speed = DEFAULT_SPEED;
  let lagMs = 0;
  /** @type {number | null} */
  let seekTarget = null;
  /** @type {string | null} */
  let error = null;
  let scheduled = false;
  /** @type {number | null} */
  let lastFrameTime = null;
  let fractionMs = 0;
  let lastMetricsAt = -Infinity;
  let virtualPerRealMs = 200; // the cost estimate that sizes the first slice of a frame
  /** @type {Set<(frame: ReturnType<typeof state> & {events: DelayQueueEvent[][], dropped: number[]}) => void>} */
  const frameListeners = new Set();
  /** @type {Set<(runIndex: number, events: DelayQueueEvent[], dropped: number, generation: number) => void>} */
  const drainTaps = new Set();

  /** @param {Record<string, any> | undefined} config */
  const durationOf = (config) => Number(config?.durationMs ?? 3_600_000);

  /**
   * A run's lab (an Error once it was freed: the frame that asks stops the lab with it).
   * @param {LabRun} r
   */
  function labOf(r) {
    if (r.lab === null) throw new Error(t("the lab is gone"));
    return r.lab;
  }
  const allDone = () => runs.length > 0 && runs.every((r) => r.done);

  function freeRuns() {
    for (const r of runs) {
      try {
        r.lab?.free();
      } catch {
        // already gone (the engine was restarted)
      }
      r.lab = null;
    }
  }

  /** @param {unknown} err */
  function fail(err) {
    error = t("The lab stopped: {error}", { error: messageOf(err) });
    playing = false;
    seekTarget = null;
    freeRuns();
  }

  /** @param {Record<string, unknown>} [extra] */
  function state(extra = {}) {
    const first = runs[0]?.config ?? request?.config ?? {};
    return {
      generation,
      runs: runs.map(({ label, strategy, name, code, config, metrics, done, now: n }) => ({ label, strategy, name, code, config, metrics, done, now: n })),
      now,
      startMs: Number(first.startMs ?? DEFAULT_START_MS),
      durationMs: durationOf(first),
      playing,
      speed,
      lagMs,
      seeking: seekTarget !== null,
      seekTarget,
      done: allDone(),
      error,
      stepped: false,
      ...extra,
    };
  }

  /**
   * @param {DelayQueueEvent[][]} events
   * @param {number[]} dropped
   * @param {Record<string, unknown>} [extra]
   */
  function notify(events, dropped, extra = {}) {
    const s = state(extra);
    for (const fn of frameListeners) fn({ ...s, events, dropped });
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    requestFrame(frame);
  }

  /**
   * Drains one run's lab into `events[i]`, telling the taps.
   * @param {number} i
   * @param {DelayQueueEvent[][]} events
   * @param {number[]} dropped
   */
  function drainRun(i, events, dropped) {
    const r = runs[i];
    const d = labOf(r).drain();
    const list = Array.isArray(d?.events) ? d.events : [];
    const lost = Number(d?.dropped ?? 0) || 0;
    if (list.length > 0) events[i] = events[i].length === 0 ? list : events[i].concat(list);
    dropped[i] += lost;
    for (const tap of drainTaps) tap(i, list, lost, generation);
  }

  function readMetrics() {
    for (const r of runs) if (r.lab) r.metrics = r.lab.metrics();
    lastMetricsAt = realNow();
  }

  /**
   * Runs every lab towards `target` in slices until it is reached (or every run ended) or
   * `budgetMs` of real time went by. Returns {events, dropped} per run.
   * @param {number} target
   * @param {number} budgetMs
   */
  function advance(target, budgetMs) {
    /** @type {DelayQueueEvent[][]} */
    const events = runs.map(() => []);
    const dropped = runs.map(() => 0);
    const t0 = realNow();
    const from = now;
    let chunk = Math.max(1, Math.round(virtualPerRealMs * Math.min(1, budgetMs / 4)));
    while (now < target && !allDone()) {
      const next = Math.min(target, now + chunk);
      for (let i = 0; i < runs.length; i += 1) {
        const r = runs[i];
        if (r.done) continue;
        const lab = labOf(r);
        const res = lab.runUntil(next, MAX_STEPS_PER_CALL);
        r.now = Number(res?.now ?? lab.now());
        r.done = Boolean(res?.done);
        drainRun(i, events, dropped);
      }
      const live = runs.filter((r) => !r.done);
      now = live.length > 0 ? Math.min(...live.map((r) => r.now)) : Math.max(now, ...runs.map((r) => r.now));
      const spent = realNow() - t0;
      const ran = Math.max(1, now - from);
      if (spent > 0.05) virtualPerRealMs = Math.max(1, ran / spent);
      if (spent >= budgetMs) break;
      chunk = Math.max(1, Math.min(Math.floor(((budgetMs - spent) * virtualPerRealMs) / 2), 4 * ran));
    }
    return { events, dropped };
  }

  /** @param {number} time */
  function frame(time) {
    scheduled = false;
    if (runs.length === 0 || error) return;
    if (doc.hidden) {
      lastFrameTime = null;
      return;
    }
    /** @type {number | null} */
    let target = null;
    let playWhole = 0;
    if (seekTarget !== null) {
      target = seekTarget;
      lastFrameTime = null;
    } else if (playing) {
      const dt = lastFrameTime === null ? 0 : Math.min(Math.max(time - lastFrameTime, 0), MAX_FRAME_DT_MS);
      lastFrameTime = time;
      if (speed === "max") target = Infinity;
      else {
        const play = dt * speed + fractionMs;
        playWhole = Math.floor(play);
        fractionMs = play - playWhole;
        target = now + playWhole;
      }
    }
    /** @type {{events: DelayQueueEvent[][], dropped: number[]}} */
    let result = { events: runs.map(() => []), dropped: runs.map(() => 0) };
    try {
      if (target !== null && target > now && !allDone()) result = advance(target, FRAME_BUDGET_MS);
      lagMs = speed !== "max" && seekTarget === null && playing && target !== null && !allDone() ? Math.max(0, target - now) : 0;
      if (lagMs > 0) fractionMs = 0;
      if (seekTarget !== null && (now >= seekTarget || allDone())) seekTarget = null;
      if (allDone()) playing = false;
      const stopped = !playing && seekTarget === null;
      if (stopped || realNow() - lastMetricsAt >= METRICS_EVERY_MS) readMetrics();
    } catch (err) {
      fail(err);
    }
    notify(result.events, result.dropped);
    if ((playing || seekTarget !== null) && !error) schedule();
  }

  function onVisibility() {
    lastFrameTime = null;
    if (!doc.hidden && (playing || seekTarget !== null)) schedule();
  }
  doc.addEventListener("visibilitychange", onVisibility);

  /**
   * Creates the labs of `req`; on a refused config nothing changes and the message is returned.
   * @param {RunRequest} req
   * @returns {{ok: true} | {ok: false, error: string}}
   */
  function create(req) {
    /** @type {Array<{label: string, config: Record<string, any>}>} */
    const configs = [{ label: "A", config: { ...req.config } }];
    if (req.compareStrategy !== null && req.compareStrategy !== undefined) {
      configs.push({ label: "B", config: { ...req.config, strategy: req.compareStrategy } });
    }
    /** @type {LabRun[]} */
    const made = [];
    try {
      for (const c of configs) {
        const strategy = Number(c.config.strategy ?? 1);
        made.push({
          label: c.label,
          strategy,
          name: strategyTitle(labs.strategyName(strategy)),
          code: labs.strategyCode(strategy),
          config: c.config,
          lab: labs.create(c.config),
          metrics: null,
          now: 0,
          done: false,
        });
      }
    } catch (err) {
      for (const m of made) m.lab?.free();
      return { ok: false, error: messageOf(err) };
    }
    freeRuns();
    runs = made;
    request = req;
    generation += 1;
    now = 0;
    lagMs = 0;
    seekTarget = null;
    fractionMs = 0;
    lastFrameTime = null;
    error = null;
    try {
      // Whatever happens at t = 0 (the producer's first order, the consumers' first polls) is
      // part of the run from the start.
      /** @type {DelayQueueEvent[][]} */
      const events = runs.map(() => []);
      const dropped = runs.map(() => 0);
      for (let i = 0; i < runs.length; i += 1) drainRun(i, events, dropped);
      readMetrics();
      notify(events, dropped, { reset: true });
    } catch (err) {
      fail(err);
      notify(runs.map(() => []), runs.map(() => 0), { reset: true });
    }
    return { ok: true };
  }

  return {
    /**
     * Fresh labs for `{config, compareStrategy}`; plays them unless `play` is false.
     * @param {RunRequest} req
     * @param {{play?: boolean}} [options]
     */
    run(req, { play = true } = {}) {
      playing = false;
      const r = create(req);
      if (r.ok && play) this.play();
      return r;
    },

    play() {
      if (error || runs.length === 0 || allDone()) return;
      playing = true;
      lastFrameTime = null;
      notify(runs.map(() => []), runs.map(() => 0));
      schedule();
    },

    pause() {
      if (!playing && seekTarget === null) return;
      playing = false;
      seekTarget = null;
      lagMs = 0;
      try {
        readMetrics();
      } catch (err) {
        fail(err);
      }
      notify(runs.map(() => []), runs.map(() => 0));
    },

    toggle() {
      if (playing) this.pause();
      else this.play();
    },

    /** Pauses and runs exactly to the next thing that happens (next_event_ms). */
    step() {
      if (error || runs.length === 0) return null;
      playing = false;
      seekTarget = null;
      lagMs = 0;
      /** @type {{events: DelayQueueEvent[][], dropped: number[]}} */
      let result = { events: runs.map(() => []), dropped: runs.map(() => 0) };
      /** @type {number | null} */
      let target = null;
      try {
        const nexts = runs.filter((r) => !r.done).map((r) => Number(labOf(r).nextEventMs())).filter((t) => t >= 0);
        if (nexts.length === 0) {
          // Nothing left to happen before the end: run to the end so the fates come in.
          target = Math.max(...runs.map((r) => durationOf(r.config)));
        } else {
          target = Math.max(now, Math.min(...nexts));
        }
        if (target === now) {
          // An event due at the current instant runs now: run_until(now) takes it.
          for (let i = 0; i < runs.length; i += 1) {
            const r = runs[i];
            if (r.done) continue;
            const res = labOf(r).runUntil(now);
            r.now = Number(res?.now ?? now);
            r.done = Boolean(res?.done);
            drainRun(i, result.events, result.dropped);
          }
        } else {
          result = advance(target, Infinity);
        }
        readMetrics();
      } catch (err) {
        fail(err);
      }
      notify(result.events, result.dropped, { stepped: true });
      return target;
    },

    /**
     * Runs (over as many frames as it takes) to virtual ms `t` since the start, then pauses.
     * @param {number} t
     */
    seek(t) {
      if (error || runs.length === 0 || !(t > now)) return;
      playing = false;
      seekTarget = t;
      notify(runs.map(() => []), runs.map(() => 0));
      schedule();
    },

    /** The same settings again from t = 0, paused. */
    reset() {
      if (!request) return { ok: false, error: t("nothing to reset yet") };
      playing = false;
      return create(request);
    },

    /** @param {unknown} s  one of DQ_SPEEDS (anything else is ignored) */
    setSpeed(s) {
      const known = DQ_SPEEDS.find((v) => v === s);
      if (known === undefined) return;
      speed = known;
      lastFrameTime = null;
      fractionMs = 0;
      notify(runs.map(() => []), runs.map(() => 0));
      if (playing) schedule();
    },

    state,

    /** The current metrics straight from the labs (tests compare the page with these). */
    metrics() {
      return runs.map((r) => (r.lab ? r.lab.metrics() : null));
    },

    /** When the next thing happens in any lab (sim ms), or -1 once every run ended. */
    nextEventMs() {
      const nexts = runs.filter((r) => r.lab && !r.done).map((r) => Number(labOf(r).nextEventMs())).filter((t) => t >= 0);
      return nexts.length === 0 ? -1 : Math.min(...nexts);
    },

    /** @param {number} n */
    strategyName: (n) => strategyTitle(labs.strategyName(n)),

    /**
     * fn(frame) after every frame that ran and after every action. Returns an unsubscribe.
     * @param {Parameters<typeof frameListeners.add>[0]} fn
     */
    onFrame(fn) {
      frameListeners.add(fn);
      return () => frameListeners.delete(fn);
    },

    /**
     * fn(runIndex, events, dropped, generation) for every drain, before the views see it (the
     * tests record with it); `generation` changes with every new set of labs (run, reset).
     * @param {Parameters<typeof drainTaps.add>[0]} fn
     */
    onDrain(fn) {
      drainTaps.add(fn);
      return () => drainTaps.delete(fn);
    },

    dispose() {
      playing = false;
      freeRuns();
      runs = [];
      doc.removeEventListener("visibilitychange", onVisibility);
    },
  };
}
