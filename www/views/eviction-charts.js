// The eviction view's charts:
//   - the hit ratio of workload runs over their requests (a canvas; several runs overlaid, so
//     policies can be compared on the same seed), from INFO's keyspace_hits/keyspace_misses;
//   - "compare policies": one row per policy with its hit ratio, evictions and refusals.
// Each draws only when asked; values are written with textContent, bars sized with style.

import { hitRatio, describeSpec } from "../workload.js";

export const RUN_COLORS = Object.freeze(["#7fb4ff", "#ff8a4c", "#7ec699", "#e5c07b", "#b48cff", "#ff7b72"]);
/** The hit ratio plotted at each INFO reading: over the last this many requests. */
export const RATIO_WINDOW = 1000;

const number = (n) => Number(n).toLocaleString("en-US");
const pct = (v, digits = 1) => (v === null || v === undefined || Number.isNaN(v) ? "–" : `${(v * 100).toFixed(digits)}%`);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// ---------------------------------------------------------------------------------------------
// Hit ratio over requests
// ---------------------------------------------------------------------------------------------

/** The windowed hit ratio at each INFO reading: `[[requests, ratio]]`. */
export function ratioSeries(samples, window = RATIO_WINDOW) {
  const out = [];
  let j = 0;
  for (let i = 1; i < samples.length; i += 1) {
    const s = samples[i];
    while (j < i - 1 && s.requests - samples[j + 1].requests >= window) j += 1;
    const f = samples[j];
    const h = s.hits - f.hits;
    const m = s.misses - f.misses;
    if (h + m > 0) out.push([s.requests, h / (h + m)]);
  }
  return out;
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
  canvas.setAttribute("aria-label", "Hit ratio over the run's requests");
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
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const left = 36;
    const right = 8;
    const top = 8;
    const bottom = 18;
    const pw2 = w - left - right;
    const ph2 = h - top - bottom;
    let maxX = 1000;
    for (const r of runs) maxX = Math.max(maxX, r.total > 0 ? r.total : r.requests);
    const x = (v) => left + (v / maxX) * pw2;
    const y = (v) => top + (1 - v) * ph2;
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
    // Requests come at a fixed rate, so the axis is also virtual time when the runs share one.
    const rates = new Set(runs.map((r) => r.rate));
    const rate = rates.size === 1 ? [...rates][0] : null;
    const secs = rate ? maxX / rate : null;
    const time = secs === null ? "" : ` = ${secs < 120 ? `${Number(secs.toFixed(1))} s` : `${Number((secs / 60).toFixed(1))} min`} of virtual time`;
    ctx.fillText(`${number(maxX)} requests${time}`, w - right, h - 2);
    for (const r of runs) {
      const pts = ratioSeries(r.samples);
      if (pts.length === 0) continue;
      ctx.strokeStyle = r.color;
      ctx.lineWidth = r.current ? 2 : 1.5;
      ctx.globalAlpha = r.current ? 1 : 0.8;
      ctx.beginPath();
      pts.forEach(([req, v], i) => (i === 0 ? ctx.moveTo(x(req), y(v)) : ctx.lineTo(x(req), y(v))));
      ctx.stroke();
      ctx.globalAlpha = 1;
    }
  }

  return {
    /**
     * @param {Array<{id, label, color, samples, requests, total, current, done, oom}>} runs
     */
    draw(runs) {
      drawCanvas(runs);
      legend.replaceChildren(
        ...runs.map((r) => {
          const li = el("li", "ev-ratio-item");
          li.dataset.run = String(r.id);
          const ratio = hitRatio(r.samples);
          li.dataset.ratio = ratio === null ? "" : String(ratio);
          li.dataset.requests = String(r.requests);
          li.dataset.points = String(Math.max(0, r.samples.length - 1));
          const swatch = el("span", "ev-swatch");
          swatch.style.background = r.color;
          const state = r.done ? "" : " (running)";
          li.append(
            swatch,
            el("span", "ev-ratio-label", `run ${r.id}: ${r.label}`),
            el("span", "ev-ratio-value", `${pct(ratio)} of ${number(r.requests)} requests${state}`),
          );
          if (r.oom > 0) li.append(el("span", "ev-ratio-oom", ` · ${number(r.oom)} SETs refused (OOM)`));
          return li;
        }),
      );
      root.dataset.runs = String(runs.length);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Compare policies
// ---------------------------------------------------------------------------------------------

/**
 * Renders a comparison's status into `root`: one row per policy — its hit ratio as a bar on a
 * scale zoomed to the results (labelled above the bars), the ratio over the last quarter of
 * the run, evictions and refusals — and `caption` says what noeviction's row means.
 */
export function renderComparison(root, status, caption) {
  const rows = [];
  const results = status.results;
  const ratios = results.map((r) => r.ratio).filter((v) => v !== null);
  const best = ratios.length ? Math.max(...ratios) : -1;
  let lo = ratios.length ? Math.floor(Math.min(...ratios) * 10) / 10 : 0;
  let hi = ratios.length ? Math.ceil(Math.max(...ratios) * 10) / 10 : 1;
  if (hi - lo < 0.1) hi = Math.min(1, lo + 0.1);
  if (hi - lo < 0.1) lo = hi - 0.1;
  const axis = el("li", "ev-cmp-axis");
  axis.setAttribute("aria-hidden", "true");
  const scale = el("span", "ev-cmp-scale");
  scale.append(el("span", "", `${Math.round(lo * 100)}%`), el("span", "", `${Math.round(((lo + hi) / 2) * 100)}%`), el("span", "", `${Math.round(hi * 100)}%`));
  axis.append(el("span", ""), scale, el("span", "", "hit ratio"), el("span", "", ""));
  rows.push(axis);
  for (const policy of status.policiesOrder ?? results.map((r) => r.policy)) {
    const r = results.find((x) => x.policy === policy);
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
      li.dataset.ratio = String(r.ratio);
      li.dataset.hits = String(r.hits);
      li.dataset.misses = String(r.misses);
      li.dataset.steady = String(steady);
      li.dataset.evicted = String(r.evicted);
      li.dataset.oom = String(r.oom);
      const share = Math.min(1, Math.max(0, ((r.ratio ?? 0) - lo) / (hi - lo)));
      fill.style.width = `${(share * 100).toFixed(2)}%`;
      if (r.ratio === best) li.classList.add("is-best");
      value.textContent = pct(r.ratio);
      const parts = [`last quarter ${pct(steady)}`, `${number(r.evicted)} evicted`];
      if (r.oom > 0) parts.push(`${number(r.oom)} SETs refused`);
      note.textContent = parts.join(" · ");
    } else {
      li.classList.add(status.policy === policy ? "is-running" : "is-waiting");
      value.textContent = status.policy === policy ? "running…" : "";
    }
    li.append(name, bar, value, note);
    rows.push(li);
  }
  root.replaceChildren(...rows);
  const ne = results.find((r) => r.policy === "noeviction");
  caption.textContent =
    ne && ne.oom > 0
      ? `noeviction evicts nothing: once memory is full it refuses new keys (${number(ne.oom)} SETs got the OOM error) and keeps the first ` +
        "keys that fit — with a skewed workload mostly hot ones, so its hit ratio can look good while the application sees errors."
      : "";
}

export { describeSpec, pct };
