// @ts-check
// The expiry view's running history, over virtual time: what the engine reported, binned (100 ms
// bins, one hour of them in typed arrays) — keys expired by the active cycle and lazily, the
// cycle's CPU time — plus sparse level samples (keys with a TTL, stale keys) taken when the view
// read them. Pure data: no DOM, no engine; expiry-charts.js draws from it. It is the one mutable
// part of the expiry model (appending a bin per frame beats copying an hour of them).

import { number } from "../format.js";
import { t } from "../i18n.js";

/** Width of one history bin, in virtual ms. */
export const BIN_MS = 100;
/** Bins kept: one hour of virtual time. */
export const HISTORY_BINS = 36_000;
/** Level samples kept per series. */
export const MAX_POINTS = 6000;

/** The spans the charts offer, in virtual ms. */
export const CHART_SPANS = Object.freeze([
  { ms: 10_000, label: "10 s" },
  { ms: 60_000, label: "1 min" },
  { ms: 600_000, label: "10 min" },
  { ms: 3_600_000, label: "1 h" },
]);

/** @typedef {"active" | "lazy" | "cpu"} BinKind */
/** @typedef {"volatile" | "stale"} LevelName */
/** @typedef {[number, number]} LevelPoint  [virtual ms, value] */
/** @typedef {ReturnType<typeof createExpiryHistory>} ExpiryHistory */

/**
 * @param {number} a
 * @param {number} n
 */
const mod = (a, n) => ((a % n) + n) % n;

export function createExpiryHistory() {
  const bins = { active: new Float64Array(HISTORY_BINS), lazy: new Float64Array(HISTORY_BINS), cpu: new Float64Array(HISTORY_BINS) };
  /** @type {number | null} absolute index of the newest bin written */
  let head = null;
  /** @type {Record<LevelName, LevelPoint[]>} */
  let levels = { volatile: [], stale: [] };
  let version = 0;

  /**
   * The slot for a virtual time (clearing the bins skipped since the newest), or -1 if it is
   * older than the hour kept.
   * @param {number} atMs
   */
  function slot(atMs) {
    const b = Math.floor(atMs / BIN_MS);
    if (head === null) head = b;
    if (b > head) {
      const gap = Math.min(b - head, HISTORY_BINS);
      for (let i = 1; i <= gap; i += 1) {
        const s = mod(head + i, HISTORY_BINS);
        bins.active[s] = 0;
        bins.lazy[s] = 0;
        bins.cpu[s] = 0;
      }
      head = b;
    }
    if (b <= head - HISTORY_BINS) return -1;
    return mod(b, HISTORY_BINS);
  }

  /**
   * @param {Float64Array} arr
   * @param {number} fromMs
   * @param {number} toMs
   */
  function sumRange(arr, fromMs, toMs) {
    if (head === null) return 0;
    const b0 = Math.max(Math.floor(fromMs / BIN_MS), head - HISTORY_BINS + 1);
    const b1 = Math.min(Math.floor((toMs - 1) / BIN_MS), head);
    let s = 0;
    for (let b = b0; b <= b1; b += 1) s += arr[mod(b, HISTORY_BINS)];
    return s;
  }

  return {
    /**
     * An `expire_cycle` event: the keys it expired and the CPU time it used.
     * @param {number} atMs
     * @param {{expired: number, time_used_us: number}} report
     */
    addCycle(atMs, report) {
      const s = slot(atMs);
      if (s < 0) return;
      bins.active[s] += Number(report.expired) || 0;
      bins.cpu[s] += Number(report.time_used_us) || 0;
      version += 1;
    },

    /**
     * A lazy expiry (`expired` event with by "lazy").
     * @param {number} atMs
     */
    addLazy(atMs) {
      const s = slot(atMs);
      if (s < 0) return;
      bins.lazy[s] += 1;
      version += 1;
    },

    /**
     * A level sample; a second one at the same time replaces the first, an older one is ignored.
     * @param {LevelName} name
     * @param {number} atMs
     * @param {number} value
     */
    addLevel(name, atMs, value) {
      const list = levels[name];
      const last = list[list.length - 1];
      if (last && last[0] === atMs) last[1] = value;
      else if (last && last[0] > atMs) return;
      else list.push([atMs, value]);
      if (list.length > MAX_POINTS) list.splice(0, list.length - MAX_POINTS / 2);
      version += 1;
    },

    /**
     * The newest sample of a level, or null.
     * @param {LevelName} name
     * @returns {LevelPoint | null}
     */
    latest(name) {
      const list = levels[name];
      return list.length === 0 ? null : list[list.length - 1];
    },

    /**
     * Sums of `kind` over `columns` equal slices of [from, to).
     * @param {BinKind} kind
     * @param {number} fromMs
     * @param {number} toMs
     * @param {number} columns
     */
    columns(kind, fromMs, toMs, columns) {
      const out = new Float64Array(columns);
      const w = (toMs - fromMs) / columns;
      for (let c = 0; c < columns; c += 1) out[c] = sumRange(bins[kind], fromMs + c * w, fromMs + (c + 1) * w);
      return out;
    },

    /**
     * @param {BinKind} kind
     * @param {number} fromMs
     * @param {number} toMs
     */
    sum(kind, fromMs, toMs) {
      return sumRange(bins[kind], fromMs, toMs);
    },

    /** @param {LevelName} name */
    points(name) {
      return levels[name];
    },

    /** Forget the level samples (another db is shown). */
    clearLevels() {
      levels = { volatile: [], stale: [] };
      version += 1;
    },

    /** Forget everything (engine reset, clock set backwards). */
    clear() {
      bins.active.fill(0);
      bins.lazy.fill(0);
      bins.cpu.fill(0);
      head = null;
      levels = { volatile: [], stale: [] };
      version += 1;
    },

    /** Bumped on every change: the charts redraw when it moved. */
    version: () => version,
    /** The end of the newest bin (virtual ms), or null. */
    newestMs: () => (head === null ? null : (head + 1) * BIN_MS),
  };
}

// ---------------------------------------------------------------------------------------------
// Scales and numbers for the charts
// ---------------------------------------------------------------------------------------------

/**
 * 1, 2, 5 × 10^k at or above `v` (1 for nothing).
 * @param {number} v
 */
export function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

/**
 * "1.2M", "340k", "12".
 * @param {number} v
 */
export function shortNumber(v) {
  if (v >= 1e6) return `${(v / 1e6).toFixed(v >= 1e7 ? 0 : 1)}M`;
  if (v >= 1e4) return `${Math.round(v / 1e3)}k`;
  if (v >= 1e3) return `${(v / 1e3).toFixed(1)}k`;
  return v >= 10 || v === 0 ? String(Math.round(v)) : v.toFixed(1);
}

/**
 * The largest level sample from a minute before `from` on (the y scale of a level chart).
 * @param {readonly LevelPoint[]} points
 * @param {number} from
 */
export function maxIn(points, from) {
  let m = 0;
  for (const [at, v] of points) if (at >= from - 60_000 && v > m) m = v;
  return m;
}

/**
 * The figure next to a level chart's title: "120,000", or for stale keys "12,000 (3.4%)" (their
 * share of the keys with a TTL); "–" before any sample.
 * @param {ExpiryHistory} history
 * @param {LevelName} name
 */
export function levelValue(history, name) {
  const latest = history.latest(name);
  if (!latest) return "–";
  if (name === "volatile") return number(latest[1]);
  const vol = history.latest("volatile");
  const pct = vol && vol[1] > 0 ? ` (${((latest[1] / vol[1]) * 100).toFixed(1)}%)` : "";
  return `${number(latest[1])}${pct}`;
}

/**
 * The window the "now" figures of the rate and CPU charts average over: a second, or the span.
 * @param {number} spanMs
 */
export const recentMs = (spanMs) => Math.max(BIN_MS, Math.min(1000, spanMs));

/**
 * Keys expired per second (active + lazy) over the recent window.
 * @param {ExpiryHistory} history
 * @param {number} now
 * @param {number} spanMs
 */
export function expiredRate(history, now, spanMs) {
  const w = recentMs(spanMs);
  return (history.sum("active", now - w, now) + history.sum("lazy", now - w, now)) / (w / 1000);
}

/**
 * The active cycle's CPU use in percent of a core over the recent window.
 * @param {ExpiryHistory} history
 * @param {number} now
 * @param {number} spanMs
 */
export function cpuPercent(history, now, spanMs) {
  const w = recentMs(spanMs);
  return (history.sum("cpu", now - w, now) / (w * 1000)) * 100;
}

/**
 * @param {number} cpu  percent
 * @param {number} budget  percent
 */
export const cpuValue = (cpu, budget) => t("{cpu}% · budget {budget}%", { cpu: cpu.toFixed(cpu < 10 ? 2 : 1), budget });
