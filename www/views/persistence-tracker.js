// @ts-check
// What the persistence view remembers while nobody looks: the propagation stream's rows
// (persistence-model.js), kept from the engine's events from the page's start.
//
// The view itself (persistence-view.js) is imported the first time its panel is shown
// (playground.js); until then this tracker stands in for it in the loop, so the stream shows the
// writes made before the panel was opened. No DOM here.

import * as model from "./persistence-model.js";

/** @typedef {import("./engine-types.js").EngineEvent} EngineEvent */

export function createPersistenceTracker() {
  const tracker = {
    state: model.initialState(),

    /**
     * One frame's events: whether the stream changed.
     * @param {readonly EngineEvent[]} events
     */
    follow(events) {
      const r = model.applyEvents(tracker.state, events);
      tracker.state = r.state;
      return r.changed;
    },

    /**
     * The loop's view until the persistence view is made: follows, draws nothing.
     * @param {readonly EngineEvent[]} events
     */
    update(events) {
      tracker.follow(events);
      return false;
    },
    draw() {},

    /** Start over (after a reset or a restart). */
    restart() {
      tracker.state = model.initialState();
    },
  };
  return tracker;
}

/** @typedef {ReturnType<typeof createPersistenceTracker>} PersistenceTracker */
