// @ts-check
// What the expiry view remembers while nobody looks: the model's state (expiry-model.js), the
// charts' history (expiry-history.js) and the monitor's INFO scrapes (expiry-monitor-model.js),
// kept from the engine's events frame by frame from the page's start.
//
// The view itself (expiry-view.js: the DOM, the canvases, the controls) is imported the first
// time its panel is shown (playground.js); until then this tracker stands in for it in the loop,
// so the charts and the monitor show the run from its start however late the panel is opened.
// No DOM here.

import * as model from "./expiry-model.js";
import * as monitorModel from "./expiry-monitor-model.js";
import { createExpiryHistory } from "./expiry-history.js";

/** @typedef {import("./engine-types.js").EngineEvent} EngineEvent */
/** @typedef {{panelView: string, paused: boolean, clock: {now: number, hz: number, frameTicks: number, droppedEvents: number}}} StoreState */

/**
 * @param {object} deps
 * @param {import("./expiry-view.js").ExpirySource} deps.source
 * @param {(name: string) => string | null} deps.configGet
 * @param {() => number} [deps.now]     real time in ms
 */
export function createExpiryTracker({ source, configGet, now = () => performance.now() }) {
  const history = createExpiryHistory();
  const tracker = {
    /** @type {import("./expiry-model.js").ExpiryState} */
    state: model.initialState(source.currentDb()),
    history,
    /** @type {import("./expiry-monitor-model.js").MonitorSample[]} the monitor's scrapes */
    samples: [],
    /** @type {number | null} expired_stale_perc as the latest cycle seen left it */
    staleSeen: null,
    /** Real ms spent reducing events since the start (the frame-time benchmark reports them). */
    eventsMs: 0,

    readConfig() {
      tracker.state = model.configRead(tracker.state, {
        hz: configGet("hz"),
        effort: configGet("active-expire-effort"),
        algorithm: configGet("playground-expire-algorithm"),
      });
    },

    sampleLevels() {
      tracker.state = model.levelsRead(tracker.state, source.keyspace(tracker.state.db, 0, 0), history);
    },

    /**
     * One frame's events and clock, whether or not the panel is shown: the model's state, the
     * history, the monitor's scrapes. `shown` false: as a hidden view (no view drawn yet).
     * @param {readonly EngineEvent[]} events
     * @param {StoreState} store
     * @param {boolean} [shown]
     * @returns {{changed: boolean, becameVisible: boolean}}
     */
    follow(events, store, shown = true) {
      const begun = model.beginFrame(tracker.state, shown ? store : { ...store, panelView: "" });
      tracker.state = begun.state;
      let changed = false;
      if (events.length > 0) {
        const t0 = now();
        const r = model.reduceEvents(tracker.state, events, { history, currentDb: source.currentDb(), frameTicks: store.clock.frameTicks });
        tracker.state = r.state;
        if (r.changed) tracker.sampleLevels();
        changed = r.changed;
        tracker.eventsMs += now() - t0;
      }
      if (scrape(events, store.clock.now)) tracker.state = model.touch(tracker.state, "charts");
      tracker.state = model.noteDropped(tracker.state, store.clock.droppedEvents);
      if (!changed) tracker.state = model.settleSnapshot(tracker.state, events);
      return { changed, becameVisible: begun.becameVisible };
    },

    /**
     * The loop's view until the expiry view is made: follows, draws nothing.
     * @param {readonly EngineEvent[]} events
     * @param {StoreState} store
     */
    update(events, store) {
      tracker.follow(events, store, false);
      tracker.state = { ...tracker.state, snapshotFresh: false };
      return false;
    },
    draw() {},

    /** Start over (after an engine reset or recovery): no history, the engine's config. */
    restart() {
      history.clear();
      tracker.samples = [];
      tracker.staleSeen = null;
      tracker.state = model.restart(tracker.state, source.currentDb());
      tracker.readConfig();
    },

    /** Reads the engine's config and levels (once the engine is up). */
    start() {
      tracker.readConfig();
      tracker.sampleLevels();
    },
  };

  /**
   * Scrapes INFO when the clock crossed a scrape interval (after this frame's events, which fill
   * in the scrapes between the previous frame and this one).
   * @param {readonly EngineEvent[]} events
   * @param {number} clockNow
   */
  function scrape(events, clockNow) {
    const activity = monitorModel.activityOf(events);
    const before = tracker.staleSeen;
    for (const a of activity) if (a.stalePerc !== null) tracker.staleSeen = a.stalePerc;
    if (!source.info || !monitorModel.scrapeDue(tracker.samples, clockNow)) return false;
    const end = monitorModel.sampleFromInfo(source.info("stats keyspace"), clockNow);
    const prev = tracker.samples[tracker.samples.length - 1] ?? null;
    for (const s of monitorModel.scrapesBetween(prev, end, activity, { staleBefore: before })) tracker.samples = monitorModel.addSample(tracker.samples, s);
    return true;
  }

  return tracker;
}

/** @typedef {ReturnType<typeof createExpiryTracker>} ExpiryTracker */
