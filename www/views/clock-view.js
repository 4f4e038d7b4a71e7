// @ts-check
// The virtual clock and its controls: play/pause, speed, step one cron tick, jump +N seconds,
// and what the cron did (ticks, lag, pending jump time, expired keys).
//
// A view like every other: it gets the store's state each frame and never calls the
// engine; the buttons call the `actions` main.js gives it. `update` says whether anything it
// shows changed, and `draw` touches only the text that did. The texts come from clock-model.js
// (pure), the elements from clock-renderer.js.

import { clockTexts, textsChanged } from "./clock-model.js";
import { createClockDom, drawClock } from "./clock-renderer.js";

export { MAX_JUMP_SECONDS, formatClock, parseJumpSeconds } from "./clock-model.js";

/** @typedef {import("./clock-model.js").ClockTexts} ClockTexts */
/** @typedef {import("./clock-model.js").ClockStoreState} ClockStoreState */

/**
 * @param {HTMLElement} root
 * @param {import("./clock-renderer.js").ClockActions} actions
 */
export function createClockView(root, actions) {
  const dom = createClockDom(root, actions);
  /** @type {Partial<ClockTexts>} what is on screen, to skip unchanged writes */
  const shown = {};
  /** @type {ClockTexts | null} */
  let next = null;

  return {
    /**
     * @param {unknown} _events
     * @param {ClockStoreState} state
     */
    update(_events, state) {
      next = clockTexts(state);
      return textsChanged(shown, next);
    },

    /** @param {ClockStoreState} state */
    draw(state) {
      const texts = next ?? clockTexts(state);
      next = null;
      drawClock(dom, shown, texts, state.clock);
    },
  };
}
