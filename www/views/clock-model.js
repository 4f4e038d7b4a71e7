// @ts-check
// The clock bar's model: the words for the virtual clock and what the cron did, from the
// store's state, and the jump input's parsing. Pure: no DOM, no engine. clock-renderer.js
// writes these texts; clock-view.js wires them to the loop.

import { number } from "../format.js";
import { t } from "../i18n.js";

/** The largest jump the control accepts, in seconds (one year). */
export const MAX_JUMP_SECONDS = 365 * 86_400;

/** Events the engine's log holds between two drains (src/engine/mod.rs EVENT_LOG_CAPACITY). */
export const EVENT_LOG_CAPACITY = 50_000;

/**
 * The part of the store's state the clock bar shows (www/store.js).
 * @typedef {{now: number, nextCronMs?: number, hz: number, cronPeriodMs: number, cronTicks: number, frameTicks: number,
 *            lagMs: number, pendingMs: number, jumpMs?: number, expired: number, droppedEvents: number, unreadableDrains: number}} ClockState
 * @typedef {{paused: boolean, speed: number, clock: ClockState}} ClockStoreState
 */

/**
 * Every text the bar shows, and the two flags that style it.
 * @typedef {{time: string, unix: string, play: string, speed: string, step: string, cron: string, hz: string, lag: string,
 *            pending: string, expired: string, dropped: string, paused: boolean, lagging: boolean, progress: number}} ClockTexts
 * (`progress`: the share of a jump done, 0–100, while one spans frames; -1 when none is running)
 */

/**
 * "2025-01-01 00:00:00.000 UTC" for a Unix ms time.
 * @param {number} ms
 */
export function formatClock(ms) {
  const iso = new Date(ms).toISOString(); // valid for the engine's whole range (0..2^52 ms)
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)} UTC`;
}

/**
 * "00:00:01.250": the time of day part of formatClock (the views' tick and bucket captions).
 * @param {number} ms
 */
export function formatTimeOfDay(ms) {
  return formatClock(ms).slice(11, 23);
}

/**
 * The jump input's text → `{ok: true, ms}` or `{ok: false, message}`.
 * @param {unknown} text
 * @returns {{ok: true, ms: number} | {ok: false, message: string}}
 */
export function parseJumpSeconds(text) {
  const typed = String(text).trim();
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(typed)) {
    return { ok: false, message: t("Enter a number of seconds, like 30 or 0.5.") };
  }
  const seconds = Number(typed);
  const ms = Math.round(seconds * 1000);
  if (!(ms >= 1) || seconds > MAX_JUMP_SECONDS) {
    return { ok: false, message: t("Enter between 0.001 and {max} seconds (one year).", { max: number(MAX_JUMP_SECONDS) }) };
  }
  return { ok: true, ms };
}

/**
 * A lag or a pending jump: "340 ms", "1.5 s", "2.0 min", "3.1 h".
 * @param {number} ms
 */
export function formatLag(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 7_200_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/**
 * The share of a jump done (0–99) while one is running, -1 when none is.
 * @param {number} pendingMs
 * @param {number} jumpMs
 */
function jumpProgress(pendingMs, jumpMs) {
  if (!(pendingMs >= 1 && jumpMs > 0)) return -1;
  return Math.min(99, Math.max(0, Math.floor((100 * (jumpMs - pendingMs)) / jumpMs)));
}

/**
 * @param {ClockStoreState} state
 * @returns {ClockTexts}
 */
export function clockTexts(state) {
  const c = state.clock;
  return {
    time: formatClock(c.now),
    unix: t("unix ms {ms}", { ms: c.now }),
    play: state.paused ? t("▶ Play") : t("❚❚ Pause"),
    speed: String(state.speed),
    // To the next tick, which after a CONFIG SET hz still falls on the old schedule.
    step: t("Step 1 tick (+{ms} ms)", { ms: number(Math.max(0, (c.nextCronMs ?? c.now + c.cronPeriodMs) - c.now)) }),
    cron:
      c.frameTicks > 0
        ? t("cron {ticks} ticks (+{more})", { ticks: number(c.cronTicks), more: number(c.frameTicks) })
        : t("cron {ticks} ticks", { ticks: number(c.cronTicks) }),
    hz: t("hz {hz} · every {ms} ms", { hz: number(c.hz), ms: number(c.cronPeriodMs) }),
    lag: t("lag {lag}", { lag: formatLag(c.lagMs) }),
    pending: c.pendingMs >= 1 ? t("catching up {left}", { left: formatLag(c.pendingMs) }) : "",
    expired: t("expired {n}", { n: number(c.expired) }),
    dropped: [
      // Not a fault: one command made more events than the log holds between two frames.
      c.droppedEvents > 0 ? t("{n} events not drawn", { n: number(c.droppedEvents) }) : "",
      c.unreadableDrains > 0 ? t("events lost {n}× (the engine could not hand them over)", { n: number(c.unreadableDrains) }) : "",
    ]
      .filter(Boolean)
      .join(" · "),
    paused: state.paused,
    lagging: c.lagMs > 0,
    progress: jumpProgress(c.pendingMs, c.jumpMs ?? 0),
  };
}

/**
 * Whether `next` differs from what is on screen (`shown`, possibly partial).
 * @param {Partial<ClockTexts>} shown
 * @param {ClockTexts} next
 */
export function textsChanged(shown, next) {
  return /** @type {(keyof ClockTexts)[]} */ (Object.keys(next)).some((k) => shown[k] !== next[k]);
}
