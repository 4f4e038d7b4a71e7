// @ts-check
// What the eviction view remembers while nobody looks: the model's state (eviction-model.js) —
// the last evictions with their pools, the OOM state, the workload runs and their hit ratios —
// kept from the engine's events and the console's replies from the page's start.
//
// The view itself (eviction-view.js: the DOM, the charts, the controls) is imported the first
// time its panel is shown (playground.js); until then this tracker stands in for it in the loop
// and takes the console's replies, so the panel shows what happened before it was opened.
// No DOM here.

import * as model from "./eviction-model.js";

/** @typedef {import("./engine-types.js").EngineEvent} EngineEvent */
/** @typedef {import("./eviction-view.js").StoreState} StoreState */

/**
 * @param {object} deps
 * @param {(name: string) => string | null} deps.configGet
 * @param {() => {run: any, compare: any}} deps.workloadStatus  the workload driver's status (www/workload.js)
 * @param {{get(): StoreState}} deps.store
 * @param {() => void} deps.invalidate  asks the loop for a frame
 */
export function createEvictionTracker({ configGet, workloadStatus, store, invalidate }) {
  const tracker = {
    /** @type {import("./eviction-model.js").EvictionState} */
    state: model.initialState(),

    readConfig() {
      tracker.state = model.configRead(tracker.state, {
        maxmemory: configGet("maxmemory"),
        policy: configGet("maxmemory-policy"),
        samples: configGet("maxmemory-samples"),
      });
    },

    /**
     * One frame's events, whether or not the panel is shown. `shown` false: as a hidden view
     * (no view drawn yet).
     * @param {readonly EngineEvent[]} events
     * @param {StoreState} s
     * @param {boolean} [shown]
     */
    follow(events, s, shown = true) {
      const begun = model.beginFrame(tracker.state, shown ? s : { ...s, panelView: "" });
      tracker.state = model.reduceEvents(begun.state, events);
      tracker.state = model.noteUnreadable(tracker.state, s.clock.unreadableDrains ?? 0);
      tracker.state = model.followRuns(tracker.state, workloadStatus(), s.clock.now);
      return { becameVisible: begun.becameVisible };
    },

    /**
     * The loop's view until the eviction view is made: follows, draws nothing.
     * @param {readonly EngineEvent[]} events
     * @param {StoreState} s
     */
    update(events, s) {
      tracker.follow(events, s, false);
      return false;
    },
    draw() {},

    /**
     * A console reply: an OOM error puts the view in the OOM state.
     * @param {{type?: string, value?: unknown} | null | undefined} reply
     * @param {string} line
     */
    noteReply(reply, line) {
      const before = tracker.state;
      tracker.state = model.noteReply(tracker.state, reply, line, store.get().clock.now);
      if (tracker.state.oom !== before.oom) invalidate();
    },

    /** Start over (after an engine reset or recovery); the config read again. */
    restart() {
      tracker.state = model.restart(tracker.state);
      tracker.readConfig();
    },
  };
  return tracker;
}

/** @typedef {ReturnType<typeof createEvictionTracker>} EvictionTracker */
