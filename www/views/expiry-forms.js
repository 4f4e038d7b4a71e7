// @ts-check
// The expiry view's forms as data: what the controls accept (hz, a key count, TTLs in seconds,
// the populate form) parsed into values or a sentence saying what is wrong — never a thrown
// error. Pure: no DOM; expiry-controls.js shows the forms and their messages.

import { number } from "../format.js";
import { t } from "../i18n.js";

export const MAX_POPULATE = 1_000_000;
export const MAX_TTL_SECONDS = 365 * 86_400;
/** How many long-lived keys one press of the button adds, and their TTL range. */
export const LONG_LIVED = Object.freeze({ count: 10_000, minMs: 3_600_000, maxMs: 7_200_000 });

/**
 * @template T
 * @typedef {{ok: true, value: T} | {ok: false, message: string}} Parsed
 */
/** @typedef {{count: number, prefix: string, minMs: number, maxMs: number, distribution: string}} PopulateSpec */

/**
 * `hz` as typed (Redis accepts 1 to 500).
 * @param {unknown} text
 * @returns {Parsed<number>}
 */
export function parseHz(text) {
  const typed = String(text).trim();
  const n = /^\d{1,4}$/.test(typed) ? Number(typed) : Number.NaN;
  if (!(n >= 1 && n <= 500)) {
    return { ok: false, message: t("hz is a whole number from 1 to 500 (Redis's limits); the default is 10.") };
  }
  return { ok: true, value: n };
}

/**
 * A key count: "100000", "100,000", "1e5", "100k", "1M".
 * @param {unknown} text
 * @param {number} [max]
 * @returns {Parsed<number>}
 */
export function parseCount(text, max = MAX_POPULATE) {
  const typed = String(text).trim().replace(/[,_ ]/g, "");
  let n = Number.NaN;
  const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(typed);
  if (m) n = Number(m[1]) * (m[2] === "" ? 1 : /k/i.test(m[2]) ? 1e3 : 1e6);
  else if (/^\d+(\.\d+)?e\d+$/i.test(typed)) n = Number(typed);
  if (!(Number.isInteger(n) && n >= 1 && n <= max)) {
    return { ok: false, message: t("How many keys: a whole number from 1 to {max} (100k and 1e5 work too).", { max: number(max) }) };
  }
  return { ok: true, value: n };
}

/**
 * Seconds as typed ("1", "0.5", "60") → ms.
 * @param {unknown} text
 * @param {string} what  the field's name, for the message
 * @returns {Parsed<number>}
 */
export function parseSeconds(text, what) {
  const typed = String(text).trim();
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(typed)) return { ok: false, message: t("{what}: a number of seconds, like 1 or 0.5.", { what }) };
  const sec = Number(typed);
  const ms = Math.round(sec * 1000);
  if (!(ms >= 1) || sec > MAX_TTL_SECONDS) {
    return { ok: false, message: t("{what}: between 0.001 and {max} seconds (one year).", { what, max: number(MAX_TTL_SECONDS) }) };
  }
  return { ok: true, value: ms };
}

/**
 * The whole populate form.
 * @param {{count: unknown, prefix: unknown, min: unknown, max: unknown, distribution: unknown}} form
 * @returns {Parsed<PopulateSpec>}
 */
export function parsePopulate({ count, prefix, min, max, distribution }) {
  const c = parseCount(count);
  if (!c.ok) return c;
  const p = String(prefix);
  if (p.length === 0 || p.length > 64) return { ok: false, message: t("Key prefix: 1 to 64 characters, like k: or session:.") };
  const lo = parseSeconds(min, t("Shortest TTL"));
  if (!lo.ok) return lo;
  const hi = parseSeconds(max, t("Longest TTL"));
  if (!hi.ok) return hi;
  if (lo.value > hi.value) return { ok: false, message: t("The shortest TTL is longer than the longest: swap them.") };
  if (distribution !== "uniform" && distribution !== "exponential") {
    return { ok: false, message: t("Distribution: uniform or exponential.") };
  }
  return { ok: true, value: { count: c.value, prefix: p, minMs: lo.value, maxMs: hi.value, distribution } };
}

/**
 * Which populate field a message is about (it gets aria-invalid): each message starts with the
 * name of its field, in the page's language (the swap message is about the shortest TTL).
 * @param {string} message
 * @returns {"count" | "prefix" | "max" | "min"}
 */
export function populateFieldOf(message) {
  const about = (/** @type {string} */ field) => message.startsWith(field);
  return about(t("How many keys")) ? "count" : about(t("Key prefix")) ? "prefix" : about(t("Longest TTL")) ? "max" : "min";
}
