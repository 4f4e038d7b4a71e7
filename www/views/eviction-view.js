// @ts-check
// The eviction view: why eviction picked its victim.
//
// With maxmemory set, Redis evicts before every command while used_memory is above the limit
// (src/evict.rs, evict.c performEvictions). This view shows that from the engine's own reports,
// never re-running the algorithm in JavaScript:
//   - used_memory against maxmemory (INFO memory), with controls for maxmemory, the policy and
//     maxmemory-samples (CONFIG SET, echoed in the console);
//   - for each eviction (the `eviction` event): the keys sampled with their scores, the 16 pool
//     slots before and after (best on the right, the ghosts skipped marked), the victim and the
//     bytes it freed — stepping back through the last MAX_KEPT (eviction-pool.js);
//   - the OOM state when nothing may be evicted (noeviction, or volatile-* without a key with
//     a TTL), with the refused command;
//   - a workload generator (www/workload.js, driven by the loop in virtual time) and the hit
//     ratio of its runs over their requests, several runs overlaid; "compare policies" runs the
//     same workload on a fresh engine per policy (eviction-charts.js);
//   - the LRU-approximation figure: true LRU against maxmemory-samples 5, 10 and a value of the
//     user's, per tenth of the keys by age (the engine's lru_experiment).
//
// Like every view it gets events from the loop and reads through main.js's `actions`; INFO is
// read only when something changed and, while the clock plays, at most every PLAYING_EVERY_MS,
// as are the heavier redraws. Hidden, it keeps the events and draws nothing.
//
// The parts: eviction-model.js decides (pure), eviction-renderer.js and the components draw;
// this file reads INFO and the workload's status and wires everything to the loop.

/** @typedef {import("../workload").WorkloadSpec} WorkloadSpec */
import { t } from "../i18n.js";
import { describeSpec } from "../workload.js";
import { createMemoryControls, createWorkloadControls } from "./eviction-controls.js";
import { createHitRatioChart } from "./eviction-charts.js";
import { createLruFigure } from "./eviction-lru-figure.js";
import * as render from "./eviction-renderer.js";
import * as model from "./eviction-model.js";

export { MAX_KEPT, MAX_RUNS, PLAYING_EVERY_MS } from "./eviction-model.js";

/** @typedef {import("./eviction-model.js").EvictionState} EvictionState */
/** @typedef {import("./eviction-model.js").Part} Part */
/** @typedef {import("./engine-types.js").EngineEvent} EngineEvent */
/**
 * @typedef {object} EvictionActions  from main.js
 * @property {(name: string) => string | null} configGet
 * @property {(name: string, value: string) => {ok: boolean, text: string}} configSet
 * @property {(sections: string) => Record<string, string>} info
 * @property {(argv: string[]) => unknown} run
 * @property {(text: string) => void} note
 * @property {{start(spec: WorkloadSpec, o: {label: string}): {startMs: number}, stop(): void, status(): {run: any, compare: any},
 *            compare(job: {spec: WorkloadSpec, config: Record<string, string>}): void, cancelCompare(): void, forget(): void}} workload
 * @property {(keys: number, samples: number, seed: number) => any} lruExperiment
 */
/** @typedef {{panelView: string, paused: boolean, clock: {now: number, unreadableDrains?: number}}} StoreState */

/**
 * @param {HTMLElement} root
 * @param {object} deps
 * @param {{get(): StoreState}} deps.store
 * @param {EvictionActions} deps.actions
 * @param {() => void} deps.invalidate  asks the loop for a frame
 * @param {() => number} [deps.now]     real time in ms
 */
export function createEvictionView(root, { store, actions, invalidate, now = () => performance.now() }) {
  const dom = render.createEvictionDom(root);
  /** @type {import("./eviction-renderer.js").EvictionUi} */
  const ui = { shownKey: "", runEnded: null };
  let state = model.initialState();
  /** @type {Set<Part>} */
  let plan = new Set();
  let pending = false;
  let draws = 0;

  /** @param {(s: EvictionState) => EvictionState} fn */
  function act(fn) {
    state = fn(state);
    invalidate();
  }

  const memoryControls = createMemoryControls(dom.controlsBox, {
    config(name, value) {
      const r = actions.configSet(name, value);
      memoryControls.say(`CONFIG SET ${name} ${value} → ${r.ok ? "OK" : r.text.trim()}`, r.ok ? "ok" : "error");
      readConfig();
      act((s) => model.touch({ ...s, memStale: true }, "controls"));
    },
    suggest: () => (state.memory ? model.suggestMaxmemory(state.memory) : null),
  });

  const workloadControls = createWorkloadControls(dom.workloadBox, {
    start(spec) {
      const s = /** @type {{flush: boolean, requests: number}} */ (spec);
      if (s.flush) actions.run(["FLUSHALL"]);
      const label = `${state.config.policy ?? "?"} · ${describeSpec(spec)}`;
      const run = actions.workload.start(spec, { label });
      const said = model.runStarted(s, label, run.startMs, state.config.maxmemory);
      actions.note(said.note);
      workloadControls.say(said.message, said.kind);
      act((st) => model.touch(st, "workload"));
    },
    stop() {
      actions.workload.stop();
      act((s) => model.touch(s, "workload"));
    },
    compare(spec) {
      const s = /** @type {{requests: number}} */ (spec);
      const request = model.compareRequest(s, describeSpec(spec), state.config.maxmemory, actions.configGet);
      if (request === null) {
        workloadControls.say(t("Set maxmemory first: the comparison gives every engine this page's maxmemory and samples."), "error");
        return;
      }
      actions.workload.compare({ spec, config: request.config });
      actions.note(request.note);
      act(model.compareStarted);
    },
    cancelCompare() {
      actions.workload.cancelCompare();
      act((s) => model.touch(s, "compare"));
    },
  });

  dom.older.addEventListener("click", () => act(model.older));
  dom.newer.addEventListener("click", () => act(model.newer));
  dom.latest.addEventListener("click", () => act(model.latest));
  dom.clearRuns.addEventListener("click", () => act(model.clearRuns));

  const lruFigure = createLruFigure(dom.lruBox, { lruExperiment: actions.lruExperiment, now, done: () => act((s) => model.touch(s, "lru")) });
  const ratioChart = createHitRatioChart(dom.ratioBox, () => act((s) => model.touch(s, "ratio")));

  function readConfig() {
    state = model.configRead(state, {
      maxmemory: actions.configGet("maxmemory"),
      policy: actions.configGet("maxmemory-policy"),
      samples: actions.configGet("maxmemory-samples"),
    });
  }

  /** @type {Record<Part, () => void>} */
  const DRAWERS = {
    head: () => render.drawHead(dom, state),
    gauge: () => render.drawGauge(dom, state, memoryControls),
    controls: () => render.drawControls(state, memoryControls),
    callouts: () => render.drawCallouts(dom, state, store.get().clock.unreadableDrains ?? 0),
    detail: () => render.drawDetail(dom, state, ui),
    workload: () => render.drawWorkload(dom, state, ui, workloadControls, store.get().paused),
    ratio: () => ratioChart.draw(state.runs),
    compare: () => {
      if (state.compareStatus) state = { ...state, compareSeenResults: state.compareStatus.results.length };
      render.drawCompare(dom, state, workloadControls);
    },
    lru: () => lruFigure.draw(),
  };

  return {
    /**
     * @param {readonly EngineEvent[]} events
     * @param {StoreState} store
     */
    update(events, store) {
      const begun = model.beginFrame(state, store);
      state = model.reduceEvents(begun.state, events);
      state = model.noteUnreadable(state, store.clock.unreadableDrains ?? 0);
      state = model.followRuns(state, actions.workload.status(), store.clock.now);
      plan = new Set();
      pending = false;
      if (state.visible) {
        if (begun.becameVisible) {
          const first = !state.everVisible;
          state = model.showAll(state);
          ui.shownKey = "";
          if (first) lruFigure.run();
        }
        // While a run is live its own INFO readings stand in for ours (see workload.js).
        const run = state.runStatus;
        if (run && !run.done) state = model.useRunMemory(state, run.memory);
        else if (model.memoryDue(state, now())) state = model.acceptMemory(state, model.memoryFromInfo(actions.info("memory stats keyspace"), state.config.policy), now());
        ({ plan, pending } = model.planFrame(state, now()));
      }
      return state.visible && plan.size > 0;
    },

    draw() {
      if (!state.visible) return;
      draws += 1;
      if (plan.size === 0) ({ plan, pending } = model.planFrame(state, now()));
      const t = now();
      for (const part of model.PARTS) {
        if (!plan.has(part)) continue;
        state = model.drawn(state, part, t);
        DRAWERS[part]();
      }
      plan = new Set();
      root.dataset.draws = String(draws);
      root.dataset.memReads = String(state.memReads);
    },

    /** A throttled part waits for its turn, or memory must be read again. */
    animating() {
      return state.visible && pending;
    },

    /**
     * A console reply: an OOM error puts the view in the OOM state.
     * @param {{type?: string, value?: unknown} | null | undefined} reply
     * @param {string} line
     */
    noteReply(reply, line) {
      const before = state;
      state = model.noteReply(state, reply, line, store.get().clock.now);
      if (state.oom !== before.oom) invalidate();
    },

    /** Start over (after an engine reset or recovery). */
    refresh() {
      state = model.restart(state);
      ui.shownKey = "";
      actions.workload.forget();
      memoryControls.forget();
      readConfig();
      invalidate();
    },

    /** What the view shows, as data (tests, devtools). */
    debug() {
      return { ...model.debugOf(state), lruResults: lruFigure.results() };
    },

    /** Reads the engine's config (once the engine is up). */
    start() {
      readConfig();
      invalidate();
    },
  };
}
