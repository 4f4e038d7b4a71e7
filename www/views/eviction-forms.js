// @ts-check
// The eviction view's forms as data: what the memory settings and the LRU experiment accept,
// parsed into values or a sentence saying what is wrong — never a thrown error — and the
// experiment's words. Pure: no DOM; eviction-controls.js and eviction-lru-figure.js show them.
// (The workload form's fields are parsed by www/workload.js parseWorkloadSpec.)

import { number } from "../format.js";
import { t } from "../i18n.js";

/** The eight policies with what each one evicts (getters: in the page's language when read). */
export const POLICY_HELP = Object.freeze({
  get noeviction() {
    return t("evict nothing: commands that may grow memory get an OOM error");
  },
  get "allkeys-lru"() {
    return t("any key, least recently used first (sampled)");
  },
  get "allkeys-lfu"() {
    return t("any key, least frequently used first (sampled)");
  },
  get "allkeys-random"() {
    return t("any key, at random");
  },
  get "volatile-lru"() {
    return t("only keys with a TTL, least recently used first (sampled)");
  },
  get "volatile-lfu"() {
    return t("only keys with a TTL, least frequently used first (sampled)");
  },
  get "volatile-random"() {
    return t("only keys with a TTL, at random");
  },
  get "volatile-ttl"() {
    return t("only keys with a TTL, the soonest to expire first (sampled)");
  },
});

export const MAX_SAMPLES_CONTROL = 10_000;

/** The LRU experiment's defaults: old keys, the user's samples value (beside 5 and 10), the seed. */
export const LRU_DEFAULTS = Object.freeze({ keys: 10_000, samples: 3, seed: 1 });
export const MAX_LRU_KEYS = 200_000;

/**
 * @template T
 * @typedef {{ok: true, value: T} | {ok: false, message: string}} Parsed
 */

/**
 * maxmemory as typed → the text to send, normalized to lower case. Redis's units: b, k = 1000,
 * kb = 1024, m, mb, g, gb; 0 means no limit.
 * @param {unknown} text
 * @returns {Parsed<string>}
 */
export function parseMaxmemory(text) {
  const v = String(text).trim().toLowerCase().replace(/\s+/g, "");
  if (!/^\d{1,15}(b|k|kb|m|mb|g|gb)?$/.test(v)) {
    return {
      ok: false,
      message: t("maxmemory: bytes, or a number with a unit as redis.conf writes it — 1600kb, 2mb, 1gb (k = 1000, kb = 1024); 0 means no limit."),
    };
  }
  return { ok: true, value: v };
}

/**
 * maxmemory-samples as typed.
 * @param {unknown} text
 * @returns {Parsed<number>}
 */
export function parseSamples(text) {
  const v = String(text).trim();
  const n = /^\d{1,6}$/.test(v) ? Number(v) : Number.NaN;
  if (!(n >= 1 && n <= MAX_SAMPLES_CONTROL)) {
    return {
      ok: false,
      message: t("maxmemory-samples: a whole number from 1 to {max} here (5 is the default; 10 comes close to true LRU and costs more CPU per eviction).", {
        max: number(MAX_SAMPLES_CONTROL),
      }),
    };
  }
  return { ok: true, value: n };
}

/** The help line under the policy select. */
/** @param {string} policy */
export const policyHelp = (policy) => t("{policy}: {help}.", { policy, help: /** @type {Record<string, string>} */ (POLICY_HELP)[policy] ?? "" });

/**
 * The LRU experiment's form: the old keys and the user's samples value, and the series to run
 * (true LRU = samples 0, then 5, 10 and the user's, without repeats).
 * @param {unknown} keysText
 * @param {unknown} samplesText
 * @returns {{ok: true, keys: number, series: number[]} | {ok: false, field: "keys" | "samples", message: string}}
 */
export function parseLruParams(keysText, samplesText) {
  const keys = Number(String(keysText).trim().replace(/[,_]/g, ""));
  if (!(Number.isInteger(keys) && keys >= 10 && keys <= MAX_LRU_KEYS)) {
    return { ok: false, field: "keys", message: t("Keys: a whole number from 10 to {max} (the docs' figure uses about 5,000–10,000).", { max: number(MAX_LRU_KEYS) }) };
  }
  const samples = Number(String(samplesText).trim());
  if (!(Number.isInteger(samples) && samples >= 1 && samples <= 64)) {
    return { ok: false, field: "samples", message: t("Samples: a whole number from 1 to 64 (5 and 10 are always shown).") };
  }
  return { ok: true, keys, series: [0, 5, 10, samples].filter((s, i, a) => a.indexOf(s) === i) };
}

/**
 * A series' name: "true LRU" or "samples 5".
 * @param {{samples: number}} r
 */
export const seriesName = (r) => (r.samples === 0 ? t("true LRU") : t("samples {n}", { n: r.samples }));

/**
 * What the figure shows, in words.
 * @param {number} keys  old keys in the experiment
 */
export function lruCaption(keys) {
  return t(
    "{keys} old keys were written one (virtual) second apart, so each has its own LRU clock value; then {half} new keys under a maxmemory that forces as many old ones out (allkeys-lru). Bars: the share of each tenth of the old keys that was evicted, oldest on the left. True LRU evicts exactly the older half; the sampled pool blurs the edge — more samples, sharper edge.",
    { keys: number(keys), half: number(keys / 2) },
  );
}

/**
 * A tenth of the old keys by age: "0–10% (oldest)" in the table, "oldest"/"40%"/"newest" under the bars.
 * @param {number} d  0…9
 */
export function decileLabels(d) {
  const range = { from: d * 10, to: (d + 1) * 10 };
  return {
    row: d === 0 ? t("{from}–{to}% (oldest)", range) : d === 9 ? t("{from}–{to}% (newest)", range) : `${range.from}–${range.to}%`,
    tick: d === 0 ? t("oldest") : d === 9 ? t("newest") : `${d * 10}%`,
  };
}
