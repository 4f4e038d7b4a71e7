// @ts-check
// The page's URL parameters: `?seed=` (the engine's RNG seed) and `?t=` (the virtual clock's
// start, Unix ms or an ISO 8601 date). Pure — a bad value becomes a sentence for the page and
// the default is used instead; nothing here can throw on user input.

import { t } from "./i18n.js";

/** The engine clamps its clock to 0..2^52 ms (src/engine/mod.rs MAX_CLOCK_MS). */
export const MAX_CLOCK_MS = 2 ** 52;

const MAX_SHOWN = 40;

/** @param {string} value */
function quote(value) {
  const shown = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
  return JSON.stringify(shown);
}

/** @typedef {{ok: true, value: number} | {ok: false}} Parsed */

/**
 * `"123"` → `{ok: true, value: 123}`; anything else → `{ok: false}`.
 * @param {string} text
 * @returns {Parsed}
 */
export function parseSeed(text) {
  const t = text.trim();
  if (!/^\d{1,16}$/.test(t)) return { ok: false };
  const value = Number(t);
  return Number.isSafeInteger(value) ? { ok: true, value } : { ok: false };
}

/**
 * Unix ms (`1735689600000`) or an ISO date (`2025-01-01`, `2025-01-01T12:00:00Z`).
 * @param {string} text
 * @returns {Parsed}
 */
export function parseStartTime(text) {
  const t = text.trim();
  let value;
  if (/^\d{1,16}$/.test(t)) value = Number(t);
  else if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(t)) value = Date.parse(t.replace(" ", "T"));
  else return { ok: false };
  if (!Number.isFinite(value) || value < 0 || value > MAX_CLOCK_MS) return { ok: false };
  return { ok: true, value };
}

/**
 * @param {string} search   location.search
 * @param {object} defaults
 * @param {number} defaults.nowMs    the clock's start when `?t=` is absent or bad
 * @param {() => number} defaults.randomSeed
 * @returns {{seed: number, startMs: number, seedFromUrl: boolean, startFromUrl: boolean, problems: string[]}}
 */
export function parseBootParams(search, { nowMs, randomSeed }) {
  const params = new URLSearchParams(search);
  /** @type {string[]} */
  const problems = [];
  /** @type {number | null} */
  let seed = null;
  /** @type {number | null} */
  let startMs = null;

  if (params.has("seed")) {
    const raw = params.get("seed") ?? "";
    const r = parseSeed(raw);
    if (r.ok) seed = r.value;
    else problems.push(t("Ignored seed={value}: a seed is a whole number from 0 to {max}. A random seed is used instead.", { value: quote(raw), max: Number.MAX_SAFE_INTEGER }));
  }
  if (params.has("t")) {
    const raw = params.get("t") ?? "";
    const r = parseStartTime(raw);
    if (r.ok) startMs = r.value;
    else problems.push(t("Ignored t={value}: the start time is Unix milliseconds (0 to {max}) or a date like 2025-01-01T00:00:00Z. The clock starts now instead.", { value: quote(raw), max: MAX_CLOCK_MS }));
  }
  return {
    seed: seed ?? randomSeed(),
    startMs: startMs ?? Math.floor(nowMs),
    seedFromUrl: seed !== null,
    startFromUrl: startMs !== null,
    problems,
  };
}
