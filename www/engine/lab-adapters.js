// @ts-check
// Engines beside the page's: the simulations and experiments the views and labs run on engines
// of their own (src/sim/), made from the same wasm module instance as the page's engine.
//
// They share that instance's memory, so a trap in one of them is a trap of the module: the
// page's engine is restarted too (recovery.js), and whatever was made before the restart is
// dead — a scratch engine then answers with fallbacks, a delay-queue lab throws.

import { describeError } from "../format.js";
import { t } from "../i18n.js";
import { infoArgs, infoFromReply, plainAdvance, plainCommandResult, plainEvents, plainExperiment } from "./plain.js";

/** @typedef {import("./plain").CommandResult} CommandResult */
/** @typedef {import("./plain").Advance} Advance */
/** @typedef {import("./plain").Drain} Drain */
/** @typedef {import("./plain").Experiment} Experiment */
/** @typedef {import("../types/events").DelayQueueEvent} DelayQueueEvent */
/** @typedef {import("../types/snapshots").DelayQueueMetrics} DelayQueueMetrics */

/**
 * A separate engine for "compare policies": commands, time, INFO and events, nothing more.
 * @typedef {object} ScratchEngine
 * @property {(args: string[]) => CommandResult} command
 * @property {(nowMs: number, maxTicks?: number) => Advance} advanceTo
 * @property {() => number} now
 * @property {(sections: string) => Record<string, string>} info  INFO as a peek
 * @property {() => Drain} drainEvents
 * @property {() => void} free
 */

/**
 * A delay-queue lab (src/sim/delay_queue*.rs) on an engine of its own; its calls throw an Error
 * once the lab is gone.
 * @typedef {object} DelayQueueLab
 * @property {(tMs: number, maxSteps?: number) => {now: number, done: boolean}} runUntil
 * @property {() => {events: DelayQueueEvent[], dropped: number}} drain
 * @property {() => DelayQueueMetrics} metrics
 * @property {() => number} nextEventMs  ms since the start, -1 once the run is over
 * @property {() => number} now
 * @property {() => void} free
 */

/**
 * @typedef {{ok: true, result: any} | {ok: false, error: string}} SimOutcome
 */

/** SETs per timed burst, and bursts (the fastest counts: the first warms the engine up). */
const BURST_SETS = 20_000;
const BURSTS = 3;

/**
 * This page's engine's real time per command: `LabSims.set_burst(n)` runs n SETs on a fresh
 * engine (the ones the pipeline simulation sends), timed with performance.now(); the fastest of
 * a few bursts. Null when the build has no set_burst.
 * @param {any} Sims  the wasm module's LabSims
 * @returns {{sets: number, ms: number} | null}
 */
function measureEngineSets(Sims) {
  if (typeof Sims.set_burst !== "function") return null;
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < BURSTS; i += 1) {
    const t0 = performance.now();
    const keys = Sims.set_burst(BURST_SETS);
    const ms = performance.now() - t0;
    if (keys !== BURST_SETS) return null;
    best = Math.min(best, ms);
  }
  // performance.now() may be coarsened (to 0.1 ms or more); a burst takes tens of ms.
  return { sets: BURST_SETS, ms: Math.max(best, 0.001) };
}

/**
 * @param {import("./recovery").Recovery} recovery
 * @param {{seed: number, startMs: number}} defaults  the page engine's (scratch engines start from them)
 */
export function createLabAdapters(recovery, { seed, startMs }) {
  const { guarded, crash } = recovery;

  /**
   * @param {{seed?: number, startMs?: number}} [options]
   * @returns {ScratchEngine}
   */
  function createScratchEngine({ seed: scratchSeed = seed, startMs: scratchStart = startMs } = {}) {
    const pkg = recovery.pkg();
    let pg = guarded("scratch", () => new pkg.Playground(scratchSeed, scratchStart), () => null);
    const mine = recovery.generation();
    /**
     * @template T
     * @param {string} operation
     * @param {(p: any) => T} run
     * @param {() => T} fallback
     * @returns {T}
     */
    function call(operation, run, fallback) {
      if (pg === null || !recovery.alive(mine)) return fallback();
      try {
        return run(pg);
      } catch (error) {
        pg = null;
        crash(`scratch ${operation}`, error);
        return fallback();
      }
    }
    return {
      command(args) {
        return call(
          "command",
          (p) => plainCommandResult(p.command(args.map(String))),
          () => ({ text: "", reply: { type: "error", value: "the scratch engine is gone" } }),
        );
      },
      advanceTo(nowMs, maxTicks) {
        return call("advance_to", (p) => plainAdvance(p.advance_to(nowMs, maxTicks)), () => ({ ticks: 0, lagMs: 0, now: nowMs }));
      },
      now() {
        return call("now", (p) => p.now(), () => 0);
      },
      /** INFO as a peek (not counted, no eviction before it), as on the page's engine. */
      info(sections) {
        const args = infoArgs(sections);
        const r = call("peek", (p) => (typeof p.peek === "function" ? p.peek(args) : p.command(args)), () => null);
        return infoFromReply(r);
      },
      drainEvents() {
        return call("drain_events", (p) => plainEvents(p.drain_events()), () => ({ events: [], dropped: 0, unreadable: false }));
      },
      free() {
        if (pg !== null && recovery.alive(mine)) {
          try {
            pg.free();
          } catch {
            // Freed either way.
          }
        }
        pg = null;
      },
    };
  }

  /**
   * The delay-queue lab: simulated producer and consumers on an engine of their own, with
   * their own virtual clock — not this engine. `config` as src/sim/delay_queue/input.rs reads it. A
   * refused config throws an Error with the lab's message.
   * @param {object} config
   * @returns {DelayQueueLab}
   */
  function createDelayQueueLab(config) {
    if (recovery.recovering()) throw new Error(t("delay-queue: the engine is restarting after an internal error; try again in a moment."));
    const pkg = recovery.pkg();
    if (typeof pkg.DelayQueueLab !== "function") {
      throw new Error(t("delay-queue: this build of the engine has no delay-queue lab; rebuild it with ./scripts/build-web.sh."));
    }
    /** @type {any} */
    let lab;
    try {
      lab = new pkg.DelayQueueLab(config);
    } catch (error) {
      if (error instanceof WebAssembly.RuntimeError) {
        crash("delay-queue new", error);
        throw new Error(t("delay-queue: the engine hit an internal error creating the lab (a bug in redisplay); it is being restarted."));
      }
      throw error instanceof Error ? error : new Error(`delay-queue: ${String(error)}`);
    }
    const mine = recovery.generation();
    /**
     * @template T
     * @param {string} operation
     * @param {(l: any) => T} run
     * @returns {T}
     */
    function call(operation, run) {
      if (lab === null || !recovery.alive(mine)) {
        throw new Error(t("delay-queue: the lab is gone (the engine was restarted after an internal error); press Reset or Run."));
      }
      try {
        return run(lab);
      } catch (error) {
        lab = null;
        crash(`delay-queue ${operation}`, error);
        throw new Error(t("delay-queue: the lab hit an internal error in {operation} ({error}); a bug in redisplay.", { operation, error: describeError(error) }));
      }
    }
    return {
      runUntil(tMs, maxSteps) {
        return call("run_until", (l) => {
          const r = l.run_until(tMs, maxSteps);
          return { now: Number(r?.now ?? l.now()), done: Boolean(r?.done) };
        });
      },
      drain() {
        return call("drain", (l) => {
          const r = l.drain();
          return { events: Array.isArray(r?.events) ? r.events : [], dropped: Number(r?.dropped ?? 0) };
        });
      },
      metrics: () => call("metrics", (l) => l.metrics()),
      nextEventMs: () => call("next_event_ms", (l) => Number(l.next_event_ms())),
      now: () => call("now", (l) => Number(l.now())),
      free() {
        if (lab !== null && recovery.alive(mine)) {
          try {
            lab.free();
          } catch {
            // Freed either way.
          }
        }
        lab = null;
      },
    };
  }

  return {
    /**
     * The LRU-approximation experiment (src/sim/lru_experiment.rs), run on a separate engine;
     * null while the engine is restarting.
     * @param {number} keys
     * @param {number} samples  0: true LRU
     * @param {number} experimentSeed
     * @returns {Experiment | null}
     */
    lruExperiment(keys, samples, experimentSeed) {
      return guarded("lru_experiment", (pg) => plainExperiment(pg.lru_experiment(keys, samples, experimentSeed)), () => null);
    },

    /**
     * A separate engine on the same module (for "compare policies"). It shares the module's
     * memory with the page's engine, so an internal error in it restarts the page's engine
     * too. Call `free()` when done.
     */
    createScratchEngine,

    createDelayQueueLab,

    /**
     * A delay-queue strategy's short name and client code (1..5), from the engine.
     * @param {number} n
     * @returns {{name: string, code: string}}
     */
    delayQueueStrategy(n) {
      const Lab = recovery.pkg().DelayQueueLab;
      if (typeof Lab !== "function") return { name: t("strategy {n}", { n }), code: "" };
      return { name: String(Lab.strategy_name(n)), code: String(Lab.strategy_code(n)) };
    },

    /**
     * A lab's simulation step, run to its end on an engine of its own: `kind` "delay-queue"
     * (DelayQueueLab's config), "pipeline" or "cache-aside" (LabSims). → `{ok, result}` with
     * the metrics as plain data, or `{ok: false, error}` in words.
     * @param {string} kind
     * @param {object} config
     * @returns {SimOutcome}
     */
    runLabSim(kind, config) {
      try {
        if (kind === "delay-queue") {
          const lab = createDelayQueueLab(config);
          try {
            lab.runUntil(Number.MAX_SAFE_INTEGER);
            return { ok: true, result: lab.metrics() };
          } finally {
            lab.free();
          }
        }
        const Sims = recovery.pkg().LabSims;
        if (typeof Sims !== "function") return { ok: false, error: t("this build of the engine has no lab simulations; rebuild it with ./scripts/build-web.sh.") };
        if (kind === "pipeline") {
          if (/** @type {Record<string, unknown>} */ (config)?.server !== "this-page") return { ok: true, result: Sims.pipeline(config) };
          // The server's time per SET is this page's engine's, measured now.
          const measured = measureEngineSets(Sims);
          if (!measured) return { ok: false, error: t("this build of the engine cannot time its SETs; rebuild it with ./scripts/build-web.sh.") };
          const result = Sims.pipeline({ ...config, serviceNs: (measured.ms * 1e6) / measured.sets });
          return { ok: true, result: { ...result, measuredSets: measured.sets, measuredMs: measured.ms } };
        }
        if (kind === "cache-aside") return { ok: true, result: Sims.cache_aside(config) };
        return { ok: false, error: t("unknown simulation \"{kind}\"", { kind }) };
      } catch (error) {
        if (error instanceof WebAssembly.RuntimeError) crash(`lab sim ${kind}`, error);
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}
