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
// as are the heavier redraws. Hidden, it keeps the events and draws nothing: what it keeps lives
// in eviction-tracker.js, which the page makes at the start (this module is imported when the
// panel is first shown).
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
 * @param {import("./eviction-tracker.js").EvictionTracker} deps.tracker  what the page kept from the start (eviction-tracker.js)
 * @param {() => number} [deps.now]     real time in ms
 */
export function createEvictionView(root, { store, actions, invalidate, tracker, now = () => performance.now() }) {
  const dom = render.createEvictionDom(root);
  /** @type {import("./eviction-renderer.js").EvictionUi} */
  const ui = { shownKey: "", runEnded: null };
  const tk = tracker;
  /** @type {Set<Part>} */
  let plan = new Set();
  let pending = false;
  let draws = 0;

  /** @param {(s: EvictionState) => EvictionState} fn */
  function act(fn) {
    tk.state = fn(tk.state);
    invalidate();
  }

  const memoryControls = createMemoryControls(dom.controlsBox, {
    config(name, value) {
      const r = actions.configSet(name, value);
      memoryControls.say(`CONFIG SET ${name} ${value} → ${r.ok ? "OK" : r.text.trim()}`, r.ok ? "ok" : "error");
      readConfig();
      act((s) => model.touch({ ...s, memStale: true }, "controls"));
    },
    suggest: () => (tk.state.memory ? model.suggestMaxmemory(tk.state.memory) : null),
  });

  const workloadControls = createWorkloadControls(dom.workloadBox, {
    start(spec) {
      const s = /** @type {{flush: boolean, requests: number}} */ (spec);
      if (s.flush) actions.run(["FLUSHALL"]);
      const label = `${tk.state.config.policy ?? "?"} · ${describeSpec(spec)}`;
      const run = actions.workload.start(spec, { label });
      const said = model.runStarted(s, label, run.startMs, tk.state.config.maxmemory);
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
      const request = model.compareRequest(s, describeSpec(spec), tk.state.config.maxmemory, actions.configGet);
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

  const readConfig = () => tk.readConfig();

  /** @type {Record<Part, () => void>} */
  const DRAWERS = {
    head: () => render.drawHead(dom, tk.state),
    gauge: () => render.drawGauge(dom, tk.state, memoryControls),
    controls: () => render.drawControls(tk.state, memoryControls),
    callouts: () => render.drawCallouts(dom, tk.state, store.get().clock.unreadableDrains ?? 0),
    detail: () => render.drawDetail(dom, tk.state, ui),
    workload: () => render.drawWorkload(dom, tk.state, ui, workloadControls, store.get().paused),
    ratio: () => ratioChart.draw(tk.state.runs),
    compare: () => {
      if (tk.state.compareStatus) tk.state = { ...tk.state, compareSeenResults: tk.state.compareStatus.results.length };
      render.drawCompare(dom, tk.state, workloadControls);
    },
    lru: () => lruFigure.draw(),
  };

  return {
    /**
     * @param {readonly EngineEvent[]} events
     * @param {StoreState} store
     */
    update(events, store) {
      const begun = tk.follow(events, store);
      plan = new Set();
      pending = false;
      if (tk.state.visible) {
        if (begun.becameVisible) {
          const first = !tk.state.everVisible;
          tk.state = model.showAll(tk.state);
          ui.shownKey = "";
          if (first) lruFigure.run();
        }
        // While a run is live its own INFO readings stand in for ours (see workload.js).
        const run = tk.state.runStatus;
        if (run && !run.done) tk.state = model.useRunMemory(tk.state, run.memory);
        else if (model.memoryDue(tk.state, now())) tk.state = model.acceptMemory(tk.state, model.memoryFromInfo(actions.info("memory stats keyspace"), tk.state.config.policy), now());
        ({ plan, pending } = model.planFrame(tk.state, now()));
      }
      return tk.state.visible && plan.size > 0;
    },

    draw() {
      if (!tk.state.visible) return;
      draws += 1;
      if (plan.size === 0) ({ plan, pending } = model.planFrame(tk.state, now()));
      const t = now();
      for (const part of model.PARTS) {
        if (!plan.has(part)) continue;
        tk.state = model.drawn(tk.state, part, t);
        DRAWERS[part]();
      }
      plan = new Set();
      root.dataset.draws = String(draws);
      root.dataset.memReads = String(tk.state.memReads);
    },

    /** A throttled part waits for its turn, or memory must be read again. */
    animating() {
      return tk.state.visible && pending;
    },

    /**
     * A console reply: an OOM error puts the view in the OOM state.
     * @param {{type?: string, value?: unknown} | null | undefined} reply
     * @param {string} line
     */
    noteReply(reply, line) {
      tk.noteReply(reply, line);
    },

    /** Start over (after an engine reset or recovery). */
    refresh() {
      tk.restart();
      ui.shownKey = "";
      actions.workload.forget();
      memoryControls.forget();
      invalidate();
    },

    /** What the view shows, as data (tests, devtools). */
    debug() {
      return { ...model.debugOf(tk.state), lruResults: lruFigure.results() };
    },
  };
}
