// @ts-check
// The eviction view's charts:
//   - the hit ratio of workload runs over their requests (a canvas; several runs overlaid, so
//     policies can be compared on the same seed), from INFO's keyspace_hits/keyspace_misses;
//   - "compare policies": one row per policy with its hit ratio, evictions and refusals.
// Each draws only when asked; values are written with textContent, bars sized with style. The
// numbers come from eviction-model.js.

import { el } from "../dom.js";
import { number } from "../format.js";
import { t } from "../i18n.js";
import { hitRatio } from "../workload.js";
import { comparisonCaption, comparisonScale, pct, ratioAxis, ratioSeries } from "./eviction-model.js";

export { RATIO_WINDOW, RUN_COLORS, pct, ratioSeries } from "./eviction-model.js";

/** @typedef {import("./eviction-model.js").Run} Run */
/** @typedef {import("./eviction-model.js").CompareStatus} CompareStatus */

// ---------------------------------------------------------------------------------------------
// Hit ratio over requests
// ---------------------------------------------------------------------------------------------

/** Room around the plot (px). */
const PAD = { left: 36, right: 8, top: 8, bottom: 18 };

/**
 * The grid, the axes' labels and one line per run.
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} w
 * @param {number} h
 * @param {readonly Run[]} runs
 */
function plotRuns(ctx, w, h, runs) {
  const { left, right, top, bottom } = PAD;
  const { maxX, label } = ratioAxis(runs);
  const x = (/** @type {number} */ v) => left + (v / maxX) * (w - left - right);
  const y = (/** @type {number} */ v) => top + (1 - v) * (h - top - bottom);
  ctx.font = "10px ui-monospace, monospace";
  ctx.textBaseline = "middle";
  for (const g of [0, 0.25, 0.5, 0.75, 1]) {
    ctx.strokeStyle = g === 0 ? "#3a4250" : "#252b36";
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(left, Math.round(y(g)) + 0.5);
    ctx.lineTo(w - right, Math.round(y(g)) + 0.5);
    ctx.stroke();
    ctx.fillStyle = "#8a919c";
    ctx.textAlign = "right";
    ctx.fillText(`${g * 100}%`, left - 4, y(g));
  }
  ctx.textAlign = "left";
  ctx.textBaseline = "bottom";
  ctx.fillText("0", left, h - 2);
  ctx.textAlign = "right";
  ctx.fillText(label, w - right, h - 2);
  for (const r of runs) {
    const pts = ratioSeries(r.samples);
    if (pts.length === 0) continue;
    ctx.strokeStyle = r.color;
    ctx.lineWidth = r.current ? 2 : 1.5;
    ctx.globalAlpha = r.current ? 1 : 0.8;
    ctx.beginPath();
    pts.forEach(([req, v], i) => {
      if (i === 0) ctx.moveTo(x(req), y(v));
      else ctx.lineTo(x(req), y(v));
    });
    ctx.stroke();
    ctx.globalAlpha = 1;
  }
}

/**
 * A run in the legend: its colour, label, hit ratio and refusals.
 * @param {Run} r
 */
function legendItem(r) {
  const li = el("li", "ev-ratio-item");
  li.dataset.run = String(r.id);
  const ratio = hitRatio(r.samples);
  li.dataset.ratio = ratio === null ? "" : String(ratio);
  li.dataset.requests = String(r.requests);
  li.dataset.points = String(Math.max(0, r.samples.length - 1));
  const swatch = el("span", "ev-swatch");
  swatch.style.background = r.color;
  const value = { ratio: pct(ratio), n: number(r.requests) };
  li.append(
    swatch,
    el("span", "ev-ratio-label", t("run {id}: {label}", { id: r.id, label: r.label })),
    el("span", "ev-ratio-value", r.done ? t("{ratio} of {n} requests", value) : t("{ratio} of {n} requests (running)", value)),
  );
  if (r.oom > 0) li.append(el("span", "ev-ratio-oom", ` · ${t("{n} SETs refused (OOM)", { n: number(r.oom) })}`));
  return li;
}

/**
 * @param {HTMLElement} root  gets a canvas and a legend
 * @param {() => void} onResize
 */
export function createHitRatioChart(root, onResize) {
  root.replaceChildren();
  const canvas = el("canvas", "ev-ratio-canvas");
  canvas.id = "eviction-ratio-canvas";
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", t("Hit ratio over the run's requests"));
  const legend = el("ul", "ev-ratio-legend");
  legend.id = "eviction-ratio-legend";
  root.append(canvas, legend);
  let size = { width: 0, height: 0, dpr: 1 };
  new ResizeObserver(() => {
    const rect = canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    if (rect.width !== size.width || rect.height !== size.height || dpr !== size.dpr) {
      size = { width: rect.width, height: rect.height, dpr };
      onResize();
    }
  }).observe(canvas);

  /** @param {readonly Run[]} runs */
  function drawCanvas(runs) {
    const { width: w, height: h, dpr } = size;
    if (w < 40 || h < 40) return;
    const pw = Math.round(w * dpr);
    const ph = Math.round(h * dpr);
    if (canvas.width !== pw || canvas.height !== ph) {
      canvas.width = pw;
      canvas.height = ph;
    }
    const ctx = canvas.getContext("2d");
    if (ctx === null) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    plotRuns(ctx, w, h, runs);
  }

  return {
    /** @param {readonly Run[]} runs */
    draw(runs) {
      drawCanvas(runs);
      legend.replaceChildren(...runs.map(legendItem));
      root.dataset.runs = String(runs.length);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Compare policies
// ---------------------------------------------------------------------------------------------

/**
 * One policy's row: its hit ratio as a bar on the zoomed scale, the last quarter's ratio,
 * evictions and refusals — or "running…" / waiting.
 * @param {string} policy
 * @param {CompareStatus} status
 * @param {{lo: number, hi: number, best: number}} scale
 */
function comparisonRow(policy, status, { lo, hi, best }) {
  const r = status.results.find((x) => x.policy === policy);
  const li = el("li", "ev-cmp-row");
  li.dataset.policy = policy;
  const name = el("span", "ev-cmp-name", policy);
  const bar = el("span", "ev-cmp-bar");
  const fill = el("span", "ev-cmp-fill");
  bar.append(fill);
  const value = el("span", "ev-cmp-value");
  const note = el("span", "ev-cmp-note");
  if (r) {
    const steady = hitRatio(r.samples, Math.max(1, Math.floor(r.requests / 4)));
    Object.assign(li.dataset, {
      ratio: String(r.ratio),
      hits: String(r.hits),
      misses: String(r.misses),
      steady: String(steady),
      evicted: String(r.evicted),
      oom: String(r.oom),
    });
    const share = Math.min(1, Math.max(0, ((r.ratio ?? 0) - lo) / (hi - lo)));
    fill.style.width = `${(share * 100).toFixed(2)}%`;
    if (r.ratio === best) li.classList.add("is-best");
    value.textContent = pct(r.ratio);
    const parts = [t("last quarter {ratio}", { ratio: pct(steady) }), t("{n} evicted", { n: number(r.evicted) })];
    if (r.oom > 0) parts.push(t("{n} SETs refused", { n: number(r.oom) }));
    note.textContent = parts.join(" · ");
  } else {
    li.classList.add(status.policy === policy ? "is-running" : "is-waiting");
    value.textContent = status.policy === policy ? t("running…") : "";
  }
  li.append(name, bar, value, note);
  return li;
}

/**
 * Renders a comparison's status into `root`: the scale above the bars and one row per policy;
 * `caption` says what noeviction's row means.
 * @param {HTMLElement} root
 * @param {CompareStatus & {policiesOrder?: readonly string[]}} status
 * @param {HTMLElement} caption
 */
export function renderComparison(root, status, caption) {
  const scale = comparisonScale(status.results);
  const axis = el("li", "ev-cmp-axis");
  axis.setAttribute("aria-hidden", "true");
  const ticks = el("span", "ev-cmp-scale");
  ticks.append(...scale.ticks.map((tick) => el("span", "", tick)));
  axis.append(el("span", ""), ticks, el("span", "", t("hit ratio")), el("span", "", ""));
  const order = status.policiesOrder ?? status.results.map((r) => r.policy);
  root.replaceChildren(axis, ...order.map((policy) => comparisonRow(policy, status, scale)));
  caption.textContent = comparisonCaption(status.results, {
    finished: !status.running && !status.failed,
    maxmemory: status.config?.maxmemory ?? null,
    keys: status.spec?.keys ?? null,
  });
}

export { describeSpec } from "../workload.js";
