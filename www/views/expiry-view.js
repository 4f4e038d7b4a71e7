// @ts-check
// The expiry view: which keys each active expire cycle looked at.
//
// Redis 7.0 does not "test 20 random keys ten times a second": its cycle walks the expires table
// bucket by bucket from a cursor (src/expire.rs). This view shows that walk from the engine's
// own reports, never re-running the algorithm in JavaScript:
//   - the expires table as a field of cells (expiry-field.js): live keys, stale keys (past their
//     TTL, not reclaimed yet), the cursor, and the buckets the latest tick swept;
//   - zoomed in, the buckets around the cursor with their chains (expiry-buckets.js);
//   - what the latest tick did (expiry-tick-panel.js): per cycle the budget bar, per round the
//     buckets and keys examined, the deletions, the stale % against the threshold, and the
//     engine's repeat/stop decision with its reason; fast cycles marked as such;
//   - lazy expirations and big synchronous frees as callouts;
//   - running charts over virtual time (expiry-charts.js, from expiry-history.js);
//   - the monitor: what a dashboard plots from INFO, scraped every virtual second, and the alert
//     when active expiry falls behind (expiry-monitor.js, expiry-monitor-model.js);
//   - controls for hz, active-expire-effort, the algorithm, and a populate form (expiry-controls.js).
//
// Like every view it gets events and reads snapshots through main.js's read-only `source`; its
// buttons call `actions`. The expires field is O(keys with a TTL) to read, so it is read only
// when something changed, and while the clock plays no more often than its own cost allows
// (at most 4% of real time, and at most 4× a second). Nothing is drawn while the tab is hidden
// or nothing changed.
//
// The parts: expiry-model.js decides (pure), expiry-renderer.js and the panels draw; this file
// reads the snapshots the model asks for and wires everything to the loop.

import { number } from "../format.js";
import { t } from "../i18n.js";
import { createFieldPanel } from "./expiry-field-panel.js";
import { createExpiryCharts, createExpiryHistory } from "./expiry-charts.js";
import { createExpiryControls } from "./expiry-controls.js";
import { createExpiryDom, drawBuckets, drawCallouts, drawSummary, drawTick } from "./expiry-renderer.js";
import * as model from "./expiry-model.js";
import * as monitorModel from "./expiry-monitor-model.js";
import { createExpiryMonitor } from "./expiry-monitor.js";

export { WINDOW_BUCKETS } from "./expiry-model.js";

/** @typedef {import("./expiry-model.js").ExpiryState} ExpiryState */
/** @typedef {import("./expiry-model.js").Part} Part */
/** @typedef {import("./engine-types.js").EngineEvent} EngineEvent */
/**
 * @typedef {object} ExpirySource
 * @property {() => number} currentDb
 * @property {(db: number, offset: number, count: number) => {volatile: number}} keyspace
 * @property {(db: number, cells: number) => import("./engine-types.js").ExpireField | null} expireField
 * @property {(db: number, start: number, count: number) => import("./engine-types.js").BucketView[]} expireBuckets
 * @property {(sections: string) => Record<string, string>} [info]  INFO parsed, as a peek (the monitor's scrapes)
 */
/**
 * @typedef {object} ExpiryActions
 * @property {(name: string) => string | null} configGet
 * @property {(name: string, value: string) => {ok: boolean, text: string}} configSet
 * @property {(p: {db: number} & import("./expiry-forms.js").PopulateSpec) => number} populate
 */
/** @typedef {{panelView: string, paused: boolean, clock: {now: number, hz: number, frameTicks: number, droppedEvents: number}}} StoreState */

/**
 * @param {HTMLElement} root
 * @param {object} deps
 * @param {ExpirySource} deps.source
 * @param {{get(): object}} deps.store
 * @param {ExpiryActions} deps.actions
 * @param {() => void} deps.invalidate  asks the loop for a frame
 * @param {() => number} [deps.now]     real time in ms
 */
export function createExpiryView(root, { source, actions, invalidate, now = () => performance.now() }) {
  const dom = createExpiryDom(root);
  const history = createExpiryHistory();
  let state = model.initialState(source.currentDb());
  /** @type {Set<Part>} what this frame will draw */
  let plan = new Set();
  let pending = false; // something throttled is waiting for its turn
  let draws = 0;
  let workMs = 0;
  // Real ms spent per part since the start (the frame-time benchmark reports them).
  const timings = { events: 0, field: 0, buckets: 0, tick: 0, charts: 0, canvas: 0 };

  /**
   * @param {keyof typeof timings} part
   * @param {() => void} fn
   */
  function timed(part, fn) {
    const t0 = now();
    fn();
    timings[part] += now() - t0;
  }

  /** @param {Part} part */
  function touch(part) {
    state = model.touch(state, part);
    invalidate();
  }

  const charts = createExpiryCharts(dom.chartsGrid, () => touch("charts"));
  // The monitor: INFO scraped on the virtual clock, and the alert rule on it.
  /** @type {import("./expiry-monitor-model.js").MonitorSample[]} */
  let samples = [];
  /** @type {import("./expiry-monitor-model.js").AlertRule} */
  let rule = { ...monitorModel.DEFAULT_RULE };
  /** @type {number | null} expired_stale_perc as the latest cycle seen left it */
  let staleSeen = null;
  const monitor = createExpiryMonitor(dom.monitorBox, {
    rule,
    ruleChanged(r) {
      rule = r;
      touch("charts");
    },
    resized: () => touch("charts"),
  });

  /**
   * Scrapes INFO when the clock crossed a scrape interval (after this frame's events, which fill
   * in the scrapes between the previous frame and this one).
   * @param {readonly EngineEvent[]} events
   * @param {number} clockNow
   */
  function scrape(events, clockNow) {
    const activity = monitorModel.activityOf(events);
    const before = staleSeen;
    for (const a of activity) if (a.stalePerc !== null) staleSeen = a.stalePerc;
    if (!source.info || !monitorModel.scrapeDue(samples, clockNow)) return false;
    const end = monitorModel.sampleFromInfo(source.info("stats keyspace"), clockNow);
    const prev = samples[samples.length - 1] ?? null;
    for (const s of monitorModel.scrapesBetween(prev, end, activity, { staleBefore: before })) samples = monitorModel.addSample(samples, s);
    return true;
  }
  const controls = createExpiryControls(dom.controlsBox, {
    config(name, value) {
      const r = actions.configSet(name, value);
      controls.say(`CONFIG SET ${name} ${value} → ${r.ok ? "OK" : r.text.trim()}`, r.ok ? "ok" : "error");
      readConfig();
      touch("controls");
    },
    populate(p) {
      runPopulate({ ...p, label: `${p.prefix}0 … ${p.prefix}${p.count - 1}` });
    },
    longLived() {
      const batch = model.longLivedBatch(state);
      state = batch.state;
      runPopulate(batch.spec);
    },
  });
  const fieldPanel = createFieldPanel(dom.fieldBox, {
    resized(cellsChanged) {
      if (cellsChanged) state = { ...state, fieldStale: true };
      touch("field");
    },
    pick(bucket) {
      state = model.pin(state, bucket);
      invalidate();
    },
  });
  dom.spanSelect.addEventListener("change", () => {
    state = { ...state, spanMs: Number(dom.spanSelect.value) };
    touch("charts");
  });
  dom.follow.addEventListener("click", () => {
    state = model.pin(state, null);
    invalidate();
  });

  /** @param {import("./expiry-forms.js").PopulateSpec & {label: string}} p */
  function runPopulate(p) {
    const target = state.db;
    controls.busy(true);
    controls.say(t("Creating {n} keys in db {db}…", { n: number(p.count), db: target }), "info");
    // Let the message paint before the engine works (a million keys take a few seconds).
    setTimeout(() => {
      const t0 = now();
      const made = actions.populate({ db: target, ...p });
      const ms = now() - t0;
      controls.busy(false);
      controls.say(model.populateMessage(p, target, made, ms), made > 0 ? "ok" : "error");
      state = model.keysAdded(state);
      sampleLevels();
      invalidate();
    }, 30);
  }

  function readConfig() {
    state = model.configRead(state, {
      hz: actions.configGet("hz"),
      effort: actions.configGet("active-expire-effort"),
      algorithm: actions.configGet("playground-expire-algorithm"),
    });
  }

  function sampleLevels() {
    state = model.levelsRead(state, source.keyspace(state.db, 0, 0), history);
  }

  function readField() {
    const t0 = now();
    const field = source.expireField(state.db, fieldPanel.cellsWanted());
    const costMs = now() - t0;
    state = model.acceptField(state, field, { costMs, readAt: now(), history });
  }

  /**
   * @param {readonly EngineEvent[]} events
   * @param {StoreState} store
   */
  function handleEvents(events, store) {
    const r = model.reduceEvents(state, events, { history, currentDb: source.currentDb(), frameTicks: store.clock.frameTicks });
    state = r.state;
    if (r.changed) sampleLevels();
    return r.changed;
  }

  /**
   * While visible: read the field (within its cost budget) and the next tick's snapshot, then
   * plan what to draw.
   * @param {boolean} changed
   * @param {number} frameTicks
   */
  function prepareVisible(changed, frameTicks) {
    if (model.fieldDue(state, now())) timed("field", readField);
    state = model.markDue(state, history.version());
    const start = model.snapshotStart(state, changed, frameTicks);
    if (start !== null) state = model.acceptSnapshot(state, start, source.expireBuckets(state.db, start, model.WINDOW_BUCKETS));
    else if (changed) state = { ...state, snapshotFresh: false };
    ({ plan, pending } = model.planFrame(state, now()));
  }

  /** @type {Record<Part, () => void>} */
  const DRAWERS = {
    controls: () => controls.setValues(state.config),
    head: () => drawSummary(dom, state, history.latest("volatile")?.[1] ?? 0),
    callouts: () => drawCallouts(dom, state),
    field: () => timed("canvas", () => fieldPanel.draw(state)),
    tick: () => timed("tick", () => drawTick(dom, state)),
    buckets: () =>
      timed("buckets", () => {
        if (state.bucketsWanted) {
          const w = model.windowFor(state);
          state = model.acceptBuckets(state, source.expireBuckets(w.db, w.start, w.count));
        }
        drawBuckets(dom, state);
      }),
    charts: () =>
      timed("charts", () => {
        state = model.chartsShown(state, history.version());
        charts.draw(history, { now: state.clockNow, spanMs: state.spanMs, budgetPercent: model.budgetPercent(state.config) });
        monitor.draw(samples, monitorModel.evaluateAlert(samples, rule, state.clockNow), { now: state.clockNow, spanMs: state.spanMs, rule });
      }),
  };

  return {
    /**
     * @param {readonly EngineEvent[]} events
     * @param {StoreState} store
     */
    update(events, store) {
      const t0 = now();
      const begun = model.beginFrame(state, store);
      state = begun.state;
      let changed = false;
      if (events.length > 0) timed("events", () => (changed = handleEvents(events, store)));
      if (scrape(events, store.clock.now)) state = model.touch(state, "charts");
      state = model.noteDropped(state, store.clock.droppedEvents);
      if (!changed) state = model.settleSnapshot(state, events);
      plan = new Set();
      pending = false;
      if (state.visible) {
        if (begun.becameVisible) state = model.showAll(state);
        prepareVisible(changed, store.clock.frameTicks);
      } else {
        state = { ...state, snapshotFresh: false };
      }
      workMs = now() - t0;
      return state.visible && plan.size > 0;
    },

    draw() {
      if (!state.visible) return;
      const t0 = now();
      draws += 1;
      if (plan.size === 0) ({ plan, pending } = model.planFrame(state, now())); // a forced redraw
      const at = now();
      for (const part of model.PARTS) {
        if (!plan.has(part)) continue;
        state = model.drawn(state, part, at);
        DRAWERS[part]();
      }
      plan = new Set();
      Object.assign(root.dataset, model.datasetOf(state));
      root.dataset.draws = String(draws);
      workMs += now() - t0;
      root.dataset.workMs = workMs.toFixed(2);
    },

    /** True while a throttled part still waits for its turn (the loop keeps running frames). */
    animating() {
      return state.visible && pending;
    },

    /** Start over (after an engine reset or recovery): no history, the engine's config. */
    refresh() {
      history.clear();
      samples = [];
      staleSeen = null;
      state = model.restart(state, source.currentDb());
      controls.forget();
      readConfig();
      invalidate();
    },

    /** What the view currently shows, as data (tests, devtools). */
    debug() {
      const { db, tick, cursor, field, display, sweeps, config, fieldReads } = state;
      return {
        db,
        tick,
        cursor,
        field,
        display: display && { ...display, buckets: display.buckets.length },
        sweeps,
        config: { ...config },
        timings: { ...timings },
        fieldReads,
      };
    },

    /** Reads the engine's config for the controls (once the engine is up). */
    start() {
      readConfig();
      sampleLevels();
      invalidate();
    },
  };
}
