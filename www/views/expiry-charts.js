// @ts-check
// Running charts for the expiry view, over virtual time: keys with a TTL, stale keys (past
// their TTL, not yet reclaimed), keys expired per second (active cycle vs lazy), and the active
// expire cycle's CPU time (virtual, from the engine's cost model) against its budget.
//
// `createExpiryCharts(root)` draws four small canvases from the history (expiry-history.js);
// it draws only when asked. Canvas and DOM only: the numbers come from the history module.

import { el } from "../dom.js";
import { number } from "../format.js";
import { cpuPercent, cpuValue, expiredRate, levelValue, maxIn, niceMax, shortNumber } from "./expiry-history.js";
import { t } from "../i18n.js";

export { CHART_SPANS, createExpiryHistory } from "./expiry-history.js";

/** @typedef {import("./expiry-history.js").ExpiryHistory} ExpiryHistory */
/** @typedef {import("./expiry-history.js").LevelPoint} LevelPoint */
/** @typedef {"volatile" | "stale" | "rate" | "cpu"} ChartId */
/**
 * @typedef {{id: ChartId, value: HTMLElement, canvas: HTMLCanvasElement, size: {width: number, height: number, dpr: number},
 *            shownValue: string}} Chart
 */
/** What a chart is drawn for: the virtual time, the span shown, the cycle's budget in percent. */
/** @typedef {{now: number, spanMs: number, budgetPercent: number}} ChartOptions */
/** A prepared canvas: its context (null when too small to draw) and its CSS size. */
/** @typedef {{ctx: CanvasRenderingContext2D | null, w: number, h: number}} Surface */

const COLORS = {
  grid: "#252b36",
  axis: "#8a919c",
  live: "#7fb4ff",
  keys: "#4b5a73",
  stale: "#ff8a4c",
  active: "#7fb4ff",
  lazy: "#e5c07b",
  cpu: "#b48cff",
  budget: "#ff7b72",
};

/**
 * The four charts and their titles (in the page's language, so built when the charts are).
 * @returns {ReadonlyArray<{id: ChartId, title: string}>}
 */
const chartList = () => [
  { id: "volatile", title: t("keys with a TTL") },
  { id: "stale", title: t("stale keys (not yet deleted)") },
  { id: "rate", title: t("expired/s: active · lazy") },
  { id: "cpu", title: t("expire cycle CPU (% of a core)") },
];

/** Room above the bars for the scale's label (px). */
const TOP = 14;

/**
 * Sizes the canvas to its box and clears it; a null context when it is too small to draw.
 * @param {Chart} c
 * @returns {Surface}
 */
function prepare(c) {
  const { width, height, dpr } = c.size;
  if (width < 20 || height < 20) return { ctx: null, w: width, h: height };
  const pw = Math.round(width * dpr);
  const ph = Math.round(height * dpr);
  if (c.canvas.width !== pw || c.canvas.height !== ph) {
    c.canvas.width = pw;
    c.canvas.height = ph;
  }
  const ctx = c.canvas.getContext("2d");
  if (ctx === null) return { ctx: null, w: width, h: height };
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  return { ctx, w: width, h: height };
}

/**
 * The chart's frame: top and bottom lines, the scale's label.
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} w
 * @param {number} h
 * @param {string} maxLabel
 */
function frame(ctx, w, h, maxLabel) {
  ctx.strokeStyle = COLORS.grid;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(0, h - 0.5);
  ctx.lineTo(w, h - 0.5);
  ctx.moveTo(0, 0.5);
  ctx.lineTo(w, 0.5);
  ctx.stroke();
  ctx.fillStyle = COLORS.axis;
  ctx.font = "10px ui-monospace, monospace";
  ctx.textBaseline = "top";
  ctx.fillText(maxLabel, 2, 2);
}

/**
 * A level series as a line (and a fill under it) over [from, to].
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} w
 * @param {number} h
 * @param {readonly LevelPoint[]} points
 * @param {{from: number, to: number, max: number, color: string, fill: string}} o
 */
function drawLine(ctx, w, h, points, { from, to, max, color, fill }) {
  const x = (/** @type {number} */ t) => ((t - from) / (to - from)) * w;
  const y = (/** @type {number} */ v) => h - 1 - (v / max) * (h - TOP);
  let started = false;
  let lastX = 0;
  ctx.beginPath();
  for (let i = 0; i < points.length; i += 1) {
    const [at, v] = points[i];
    if (at < from) {
      // Start at the left edge from the last sample before the window.
      const next = points[i + 1];
      if (!next || next[0] < from) continue;
    }
    const px = Math.max(0, x(at));
    if (!started) {
      ctx.moveTo(px, y(v));
      started = true;
    } else {
      ctx.lineTo(px, y(v));
    }
    lastX = px;
  }
  if (!started) return;
  ctx.strokeStyle = color;
  ctx.lineWidth = 1.5;
  ctx.stroke();
  ctx.lineTo(lastX, h);
  ctx.lineTo(Math.max(0, x(points.find((p) => p[0] >= from)?.[0] ?? from)), h);
  ctx.closePath();
  ctx.fillStyle = fill;
  ctx.fill();
}

/**
 * Keys with a TTL, or stale keys: a line.
 * @param {Surface} surface
 * @param {"volatile" | "stale"} id
 * @param {ExpiryHistory} history
 * @param {ChartOptions} o
 */
function drawLevel({ ctx, w, h }, id, history, { now, spanMs }) {
  if (!ctx) return;
  const points = history.points(id);
  const from = now - spanMs;
  const max = niceMax(Math.max(maxIn(points, from), id === "stale" ? 1 : 10));
  frame(ctx, w, h, shortNumber(max));
  const stale = id === "stale";
  drawLine(ctx, w, h, points, {
    from,
    to: now,
    max,
    color: stale ? COLORS.stale : COLORS.live,
    fill: stale ? "rgba(255,138,76,0.18)" : "rgba(127,180,255,0.14)",
  });
}

/**
 * Columns over the span: as many as fit at ~3 px each, 10 to 150.
 * @param {number} w
 */
const columnsFor = (w) => Math.max(10, Math.min(150, Math.floor(w / 3)));

/**
 * Keys expired per second: active (blue) with lazy (yellow) stacked on top.
 * @param {Surface} surface
 * @param {ExpiryHistory} history
 * @param {ChartOptions} o
 */
function drawRate({ ctx, w, h }, history, { now, spanMs }) {
  if (!ctx) return;
  const cols = columnsFor(w);
  const perSecond = spanMs / cols / 1000;
  const a = history.columns("active", now - spanMs, now, cols);
  const l = history.columns("lazy", now - spanMs, now, cols);
  let max = 0;
  for (let i = 0; i < cols; i += 1) max = Math.max(max, (a[i] + l[i]) / perSecond);
  max = niceMax(Math.max(max, 1));
  frame(ctx, w, h, `${shortNumber(max)}/s`);
  const bw = w / cols;
  for (let i = 0; i < cols; i += 1) {
    const ha = (a[i] / perSecond / max) * (h - TOP);
    const hl = (l[i] / perSecond / max) * (h - TOP);
    if (ha > 0) {
      ctx.fillStyle = COLORS.active;
      ctx.fillRect(i * bw, h - 1 - ha, Math.max(1, bw - 1), ha);
    }
    if (hl > 0) {
      ctx.fillStyle = COLORS.lazy;
      ctx.fillRect(i * bw, h - 1 - ha - Math.max(1, hl), Math.max(1, bw - 1), Math.max(1, hl));
    }
  }
}

/**
 * The cycle's CPU use in percent of a core, with its budget as a dashed line.
 * @param {Surface} surface
 * @param {ExpiryHistory} history
 * @param {ChartOptions} o
 */
function drawCpu({ ctx, w, h }, history, { now, spanMs, budgetPercent }) {
  if (!ctx) return;
  const cols = columnsFor(w);
  const colMs = spanMs / cols;
  const u = history.columns("cpu", now - spanMs, now, cols);
  let max = budgetPercent * 1.25;
  for (let i = 0; i < cols; i += 1) max = Math.max(max, (u[i] / (colMs * 1000)) * 100);
  max = niceMax(max);
  frame(ctx, w, h, `${shortNumber(max)}%`);
  const bw = w / cols;
  ctx.fillStyle = COLORS.cpu;
  for (let i = 0; i < cols; i += 1) {
    const v = (u[i] / (colMs * 1000)) * 100;
    if (v <= 0) continue;
    const hh = Math.max(1, (v / max) * (h - TOP));
    ctx.fillRect(i * bw, h - 1 - hh, Math.max(1, bw - 1), hh);
  }
  const by = h - 1 - (budgetPercent / max) * (h - TOP);
  ctx.strokeStyle = COLORS.budget;
  ctx.setLineDash([4, 3]);
  ctx.beginPath();
  ctx.moveTo(0, by);
  ctx.lineTo(w, by);
  ctx.stroke();
  ctx.setLineDash([]);
}

/**
 * Keeps each chart's `size` (CSS px and device pixel ratio) current and calls `onResize` when any
 * canvas changed (the expiry charts and the monitor's charts both draw from it).
 * @param {ReadonlyArray<{canvas: HTMLCanvasElement, size: {width: number, height: number, dpr: number}}>} charts
 * @param {() => void} onResize
 */
export function observeCanvasSizes(charts, onResize) {
  const observer = new ResizeObserver(() => {
    let changed = false;
    for (const c of charts) {
      const rect = c.canvas.getBoundingClientRect();
      const dpr = window.devicePixelRatio || 1;
      if (rect.width !== c.size.width || rect.height !== c.size.height || dpr !== c.size.dpr) {
        c.size = { width: rect.width, height: rect.height, dpr };
        changed = true;
      }
    }
    if (changed) onResize();
  });
  for (const c of charts) observer.observe(c.canvas);
}

/**
 * @param {HTMLElement} root  emptied; gets four small charts
 * @param {() => void} onResize  a chart's box changed size (the view asks for a redraw)
 */
export function createExpiryCharts(root, onResize) {
  root.replaceChildren();
  /** @type {Chart[]} */
  const charts = chartList().map(({ id, title }) => {
    const fig = el("figure", "xchart");
    fig.dataset.chart = id;
    const cap = el("figcaption", "xchart-head");
    const value = el("span", "xchart-value");
    value.id = `expiry-chart-${id}`;
    const titleEl = el("span", "xchart-title", title);
    titleEl.title = title; // the whole title where a narrow chart cuts it
    cap.append(titleEl, value);
    const canvas = el("canvas", "xchart-canvas");
    canvas.setAttribute("aria-hidden", "true");
    fig.append(cap, canvas);
    root.append(fig);
    return { id, value, canvas, size: { width: 0, height: 0, dpr: 1 }, shownValue: "" };
  });

  observeCanvasSizes(charts, onResize);

  /**
   * @param {Chart} c
   * @param {string} text
   */
  function setValue(c, text) {
    if (c.shownValue !== text) {
      c.shownValue = text;
      c.value.textContent = text;
    }
  }

  return {
    /**
     * @param {ExpiryHistory} history
     * @param {ChartOptions} opts
     */
    draw(history, opts) {
      for (const c of charts) {
        const surface = prepare(c);
        if (c.id === "volatile" || c.id === "stale") {
          setValue(c, levelValue(history, c.id));
          drawLevel(surface, c.id, history, opts);
        } else if (c.id === "rate") {
          setValue(c, `${number(Math.round(expiredRate(history, opts.now, opts.spanMs)))}/s`);
          drawRate(surface, history, opts);
        } else {
          setValue(c, cpuValue(cpuPercent(history, opts.now, opts.spanMs), opts.budgetPercent));
          drawCpu(surface, history, opts);
        }
      }
    },
  };
}
