// @ts-check
// Crash recovery: the live `Playground` of one engine, and what happens when a call into it traps.
//
// A trap (a Rust panic is a bug, but must not kill the page) can leave the wasm instance's heap
// half-updated, so the broken Playground is dropped, `onCrash` is told, and the engine is
// recreated on a *fresh module instance* (`instantiate(generation)` — engine.js) with the same
// seed at the virtual time it had reached. Until it is back, every call gets its fallback, so the
// page keeps answering ("the engine is restarting…") instead of throwing.
//
// The facade (facade.js) and the lab adapters (lab-adapters.js) make every call through
// `guarded`; objects made from this engine (scratch engines, delay-queue labs) remember the
// generation they were made in and are dead once it changes (`alive`).

/**
 * @typedef {object} CrashInfo
 * @property {string} operation  the call that failed ("execute", "restart", "scratch command"…)
 * @property {unknown} error
 */

/**
 * @typedef {object} RecoveryOptions
 * @property {any} pkg  the glue module (www/pkg/redisplay.js) instance the first Playground uses
 * @property {(generation: number) => Promise<any>} instantiate  a fresh glue instance (engine.js)
 * @property {number} seed
 * @property {number} startMs
 * @property {(info: CrashInfo) => void} onCrash
 * @property {() => void} onRecovered
 * @property {string} defaultPrompt
 */

/**
 * @param {RecoveryOptions} options
 */
export function createRecovery({ pkg, instantiate, seed, startMs, onCrash, onRecovered, defaultPrompt }) {
  let generation = 0;
  let currentPkg = pkg;
  /** @type {any} the live Playground, or null while it is being recreated (or after free) */
  let playground = new currentPkg.Playground(seed, startMs);
  let freed = false;
  // Kept up to date by the facade, so a recreated engine resumes where the clock was and calls
  // made while it is being recreated still get sensible answers.
  const memo = { now: Number(playground.now()), prompt: defaultPrompt };

  function recreate() {
    if (freed) return;
    generation += 1;
    const mine = generation;
    instantiate(mine)
      .then((fresh) => {
        if (mine !== generation) return;
        currentPkg = fresh;
        playground = new currentPkg.Playground(seed, memo.now);
        memo.prompt = playground.prompt();
        onRecovered();
      })
      .catch((error) => {
        onCrash({ operation: "restart", error });
      });
  }

  /**
   * Drops the broken Playground, says so, and starts recreating it.
   * @param {string} operation
   * @param {unknown} error
   */
  function crash(operation, error) {
    const broken = playground;
    playground = null;
    try {
      broken?.free();
    } catch {
      // The broken instance is discarded either way.
    }
    onCrash({ operation, error });
    recreate();
  }

  /**
   * Runs `run(playground)`; while there is none, or when it throws (the engine is then
   * recreated), the fallback's answer.
   * @template T
   * @param {string} operation
   * @param {(pg: any) => T} run
   * @param {() => T} fallback
   * @returns {T}
   */
  function guarded(operation, run, fallback) {
    if (playground === null) return fallback();
    try {
      return run(playground);
    } catch (error) {
      crash(operation, error);
      return fallback();
    }
  }

  return {
    memo,
    guarded,
    crash,
    /** The glue module the live Playground comes from (its other classes: DelayQueueLab…). */
    pkg: () => currentPkg,
    /** Bumped by every crash and by free(): objects made before are gone. */
    generation: () => generation,
    /**
     * Whether something made in generation `mine` may still be used.
     * @param {number} mine
     */
    alive: (mine) => mine === generation && playground !== null,
    /** True while a crashed engine is being recreated (and after free). */
    recovering: () => playground === null,
    /** Frees the engine for good: nothing is recreated, later calls get their fallbacks. */
    free() {
      generation += 1; // scratch engines and labs made from this one are gone too
      const pg = playground;
      playground = null;
      freed = true;
      try {
        pg?.free();
      } catch {
        // Freed either way.
      }
    },
  };
}

/** @typedef {ReturnType<typeof createRecovery>} Recovery */
