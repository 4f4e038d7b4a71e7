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
// What it must remember while its panel is hidden — or before this module is even loaded (the
// page imports it when the panel is first shown) — lives in expiry-tracker.js, which the page
// makes at the start: the model's state, the charts' history, the monitor's scrapes.
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
import { createExpiryCharts } from "./expiry-charts.js";
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
 * @param {import("./expiry-tracker.js").ExpiryTracker} deps.tracker  what the page kept from the start (expiry-tracker.js)
 * @param {() => number} [deps.now]     real time in ms
 */
export function createExpiryView(root, { source, actions, invalidate, tracker, now = () => performance.now() }) {
  const dom = createExpiryDom(root);
  const tk = tracker;
  const history = tk.history;
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
    tk.state = model.touch(tk.state, part);
    invalidate();
  }

  const charts = createExpiryCharts(dom.chartsGrid, () => touch("charts"));
  // The monitor: INFO scraped on the virtual clock, and the alert rule on it.
  /** @type {import("./expiry-monitor-model.js").AlertRule} */
  let rule = { ...monitorModel.DEFAULT_RULE };
  const monitor = createExpiryMonitor(dom.monitorBox, {
    rule,
    ruleChanged(r) {
      rule = r;
      touch("charts");
    },
    resized: () => touch("charts"),
  });

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
      const batch = model.longLivedBatch(tk.state);
      tk.state = batch.state;
      runPopulate(batch.spec);
    },
  });
  const fieldPanel = createFieldPanel(dom.fieldBox, {
    resized(cellsChanged) {
      if (cellsChanged) tk.state = { ...tk.state, fieldStale: true };
      touch("field");
    },
    pick(bucket) {
      tk.state = model.pin(tk.state, bucket);
      invalidate();
    },
  });
  dom.spanSelect.addEventListener("change", () => {
    tk.state = { ...tk.state, spanMs: Number(dom.spanSelect.value) };
    touch("charts");
  });
  dom.follow.addEventListener("click", () => {
    tk.state = model.pin(tk.state, null);
    invalidate();
  });

  /** @param {import("./expiry-forms.js").PopulateSpec & {label: string}} p */
  function runPopulate(p) {
    const target = tk.state.db;
    controls.busy(true);
    controls.say(t("Creating {n} keys in db {db}…", { n: number(p.count), db: target }), "info");
    // Let the message paint before the engine works (a million keys take a few seconds).
    setTimeout(() => {
      const t0 = now();
      const made = actions.populate({ db: target, ...p });
      const ms = now() - t0;
      controls.busy(false);
      controls.say(model.populateMessage(p, target, made, ms), made > 0 ? "ok" : "error");
      tk.state = model.keysAdded(tk.state);
      sampleLevels();
      invalidate();
    }, 30);
  }

  const readConfig = () => tk.readConfig();
  const sampleLevels = () => tk.sampleLevels();

  function readField() {
    const t0 = now();
    const field = source.expireField(tk.state.db, fieldPanel.cellsWanted());
    const costMs = now() - t0;
    tk.state = model.acceptField(tk.state, field, { costMs, readAt: now(), history });
  }

  /**
   * While visible: read the field (within its cost budget) and the next tick's snapshot, then
   * plan what to draw.
   * @param {boolean} changed
   * @param {number} frameTicks
   */
  function prepareVisible(changed, frameTicks) {
    if (model.fieldDue(tk.state, now())) timed("field", readField);
    tk.state = model.markDue(tk.state, history.version());
    const start = model.snapshotStart(tk.state, changed, frameTicks);
    if (start !== null) tk.state = model.acceptSnapshot(tk.state, start, source.expireBuckets(tk.state.db, start, model.WINDOW_BUCKETS));
    else if (changed) tk.state = { ...tk.state, snapshotFresh: false };
    ({ plan, pending } = model.planFrame(tk.state, now()));
  }

  /** @type {Record<Part, () => void>} */
  const DRAWERS = {
    controls: () => controls.setValues(tk.state.config),
    head: () => drawSummary(dom, tk.state, history.latest("volatile")?.[1] ?? 0),
    callouts: () => drawCallouts(dom, tk.state),
    field: () => timed("canvas", () => fieldPanel.draw(tk.state)),
    tick: () => timed("tick", () => drawTick(dom, tk.state)),
    buckets: () =>
      timed("buckets", () => {
        if (tk.state.bucketsWanted) {
          const w = model.windowFor(tk.state);
          tk.state = model.acceptBuckets(tk.state, source.expireBuckets(w.db, w.start, w.count));
        }
        drawBuckets(dom, tk.state);
      }),
    charts: () =>
      timed("charts", () => {
        tk.state = model.chartsShown(tk.state, history.version());
        charts.draw(history, { now: tk.state.clockNow, spanMs: tk.state.spanMs, budgetPercent: model.budgetPercent(tk.state.config) });
        monitor.draw(tk.samples, monitorModel.evaluateAlert(tk.samples, rule, tk.state.clockNow), { now: tk.state.clockNow, spanMs: tk.state.spanMs, rule });
      }),
  };

  return {
    /**
     * @param {readonly EngineEvent[]} events
     * @param {StoreState} store
     */
    update(events, store) {
      const t0 = now();
      const begun = tk.follow(events, store);
      const changed = begun.changed;
      plan = new Set();
      pending = false;
      if (tk.state.visible) {
        if (begun.becameVisible) tk.state = model.showAll(tk.state);
        prepareVisible(changed, store.clock.frameTicks);
      } else {
        tk.state = { ...tk.state, snapshotFresh: false };
      }
      workMs = now() - t0;
      return tk.state.visible && plan.size > 0;
    },

    draw() {
      if (!tk.state.visible) return;
      const t0 = now();
      draws += 1;
      if (plan.size === 0) ({ plan, pending } = model.planFrame(tk.state, now())); // a forced redraw
      const at = now();
      for (const part of model.PARTS) {
        if (!plan.has(part)) continue;
        tk.state = model.drawn(tk.state, part, at);
        DRAWERS[part]();
      }
      plan = new Set();
      Object.assign(root.dataset, model.datasetOf(tk.state));
      root.dataset.draws = String(draws);
      workMs += now() - t0;
      root.dataset.workMs = workMs.toFixed(2);
    },

    /** True while a throttled part still waits for its turn (the loop keeps running frames). */
    animating() {
      return tk.state.visible && pending;
    },

    /** Start over (after an engine reset or recovery): no history, the engine's config. */
    refresh() {
      tk.restart();
      controls.forget();
      invalidate();
    },

    /** What the view currently shows, as data (tests, devtools). */
    debug() {
      const { db, tick, cursor, field, display, sweeps, config, fieldReads } = tk.state;
      return {
        db,
        tick,
        cursor,
        field,
        display: display && { ...display, buckets: display.buckets.length },
        sweeps,
        config: { ...config },
        timings: { ...timings, events: tk.eventsMs },
        fieldReads,
      };
    },
  };
}
