// @ts-check
// The expiry view's monitoring panel: what a production dashboard plots from INFO (scraped on the
// virtual clock, expiry-monitor-model.js) — expired_keys/s, expired_stale_perc against the rule's
// threshold, expire_cycle_cpu_milliseconds/s, time-cap hits, keys with a TTL — the rule's inputs,
// and the alert with its sentence. DOM and canvas only: the numbers and the words come from the
// model; nothing here reads the engine.

import { el } from "../dom.js";
import { number } from "../format.js";
import { t } from "../i18n.js";
import { observeCanvasSizes } from "./expiry-charts.js";
import { niceMax, shortNumber } from "./expiry-history.js";
import { parseRule, seriesOf } from "./expiry-monitor-model.js";

/** @typedef {import("./expiry-monitor-model.js").MonitorSample} MonitorSample */
/** @typedef {import("./expiry-monitor-model.js").MonitorPoint} MonitorPoint */
/** @typedef {import("./expiry-monitor-model.js").AlertRule} AlertRule */
/** @typedef {import("./expiry-monitor-model.js").AlertResult} AlertResult */
/** @typedef {"rate" | "stale" | "cpu" | "cap" | "expires"} MonitorChartId */
/** @typedef {{id: MonitorChartId, value: HTMLElement, canvas: HTMLCanvasElement, size: {width: number, height: number, dpr: number}}} MonitorChart */

const COLORS = { grid: "#252b36", axis: "#8a919c", rate: "#7fb4ff", stale: "#ff8a4c", cpu: "#b48cff", cap: "#ff7b72", expires: "#7fb4ff", rule: "#ff7b72" };
const TOP = 14;

/**
 * The charts and their titles (INFO's field names stay as they are; built when the panel is).
 * @returns {ReadonlyArray<{id: MonitorChartId, title: string}>}
 */
const chartList = () => [
  { id: "rate", title: t("expired_keys per second") },
  { id: "stale", title: "expired_stale_perc" },
  { id: "cpu", title: t("expire_cycle_cpu_milliseconds per second") },
  { id: "cap", title: t("expired_time_cap_reached_count (hits per scrape)") },
  { id: "expires", title: t("keys with a TTL (expires=)") },
];

/**
 * A number input with its label.
 * @param {string} id
 * @param {string} label
 * @param {string} value
 */
function field(id, label, value) {
  const wrap = el("label", "xmon-field");
  const input = /** @type {HTMLInputElement} */ (el("input", "xmon-input"));
  input.id = id;
  input.type = "text";
  input.inputMode = "decimal";
  input.value = value;
  input.size = 4;
  wrap.append(el("span", "xmon-label", label), input);
  return { wrap, input };
}

/**
 * @param {HTMLElement} root  emptied; gets the panel
 * @param {{rule: AlertRule, ruleChanged: (rule: AlertRule) => void, resized: () => void}} o
 */
export function createExpiryMonitor(root, { rule, ruleChanged, resized }) {
  root.replaceChildren();
  const head = el("div", "expiry-subhead");
  head.append(el("span", "expiry-subtitle", t("Monitoring from INFO (scraped every virtual second)")));
  const form = el("form", "xmon-rule");
  form.id = "expiry-monitor-rule";
  form.setAttribute("aria-label", t("Alert rule"));
  const stale = field("expiry-alert-stale", t("alert when expired_stale_perc ≥ (%)"), String(rule.stalePercent));
  const forS = field("expiry-alert-for", t("for (virtual s)"), String(rule.forSeconds));
  const ratio = field("expiry-alert-ratio", t("article's rule: drop below (× earlier rate)"), String(rule.dropRatio));
  const message = el("span", "xmon-message");
  message.id = "expiry-alert-message";
  message.setAttribute("aria-live", "polite");
  form.append(stale.wrap, forS.wrap, ratio.wrap, message);
  const alert = el("p", "xmon-alert");
  alert.id = "expiry-alert";
  alert.setAttribute("role", "status");
  const article = el("p", "xmon-article");
  article.id = "expiry-alert-article";
  const grid = el("div", "xchart-grid xmon-grid");
  grid.id = "expiry-monitor-charts";
  root.append(head, form, alert, article, grid);

  const onInput = () => {
    const r = parseRule({ stalePercent: stale.input.value, forSeconds: forS.input.value, dropRatio: ratio.input.value });
    message.textContent = r.ok ? "" : r.error;
    for (const f of [stale, forS, ratio]) f.input.setAttribute("aria-invalid", String(!r.ok));
    if (r.ok) ruleChanged(r.rule);
  };
  form.addEventListener("input", onInput);
  form.addEventListener("submit", (event) => event.preventDefault());

  /** @type {MonitorChart[]} */
  const charts = chartList().map(({ id, title }) => {
    const fig = el("figure", "xchart");
    fig.dataset.chart = `monitor-${id}`;
    const cap = el("figcaption", "xchart-head");
    const titleEl = el("span", "xchart-title", title);
    titleEl.title = title;
    const value = el("span", "xchart-value");
    value.id = `expiry-monitor-${id}`;
    cap.append(titleEl, value);
    const canvas = el("canvas", "xchart-canvas");
    canvas.setAttribute("aria-hidden", "true");
    fig.append(cap, canvas);
    grid.append(fig);
    return { id, value, canvas, size: { width: 0, height: 0, dpr: 1 } };
  });
  observeCanvasSizes(charts, resized);

  /**
   * @param {MonitorChart} c
   * @param {readonly MonitorPoint[]} points
   * @param {{from: number, to: number, threshold: number}} o
   */
  function drawChart(c, points, { from, to, threshold }) {
    const { width: w, height: h, dpr } = c.size;
    if (w < 20 || h < 20) return;
    const pw = Math.round(w * dpr);
    const ph = Math.round(h * dpr);
    if (c.canvas.width !== pw || c.canvas.height !== ph) {
      c.canvas.width = pw;
      c.canvas.height = ph;
    }
    const ctx = c.canvas.getContext("2d");
    if (ctx === null) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const shown = points.filter((p) => p.to > from);
    /** @param {MonitorPoint} p */
    const pick = (p) =>
      c.id === "rate" ? p.expiredPerSec : c.id === "stale" ? p.stalePerc : c.id === "cpu" ? p.cpuMsPerSec : c.id === "cap" ? p.capHits : p.expires;
    let max = c.id === "stale" ? threshold * 1.25 : 1;
    for (const p of shown) max = Math.max(max, pick(p));
    max = niceMax(max);
    ctx.strokeStyle = COLORS.grid;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(0, h - 0.5);
    ctx.lineTo(w, h - 0.5);
    ctx.stroke();
    ctx.fillStyle = COLORS.axis;
    ctx.font = "10px ui-monospace, monospace";
    ctx.textBaseline = "top";
    ctx.fillText(c.id === "stale" ? `${shortNumber(max)}%` : shortNumber(max), 2, 2);
    const x = (/** @type {number} */ at) => Math.max(0, ((at - from) / (to - from)) * w);
    const y = (/** @type {number} */ v) => h - 1 - (v / max) * (h - TOP);
    ctx.fillStyle = COLORS[c.id];
    // Rates and hits are bars over their scrape interval; levels are steps at each scrape.
    for (const p of shown) {
      const v = pick(p);
      if (v <= 0) continue;
      const x0 = x(p.from);
      const bw = Math.max(1, x(p.to) - x0 - (c.id === "stale" || c.id === "expires" ? 0 : 1));
      const bh = Math.max(1, (v / max) * (h - TOP));
      ctx.globalAlpha = c.id === "stale" || c.id === "expires" ? 0.55 : 1;
      ctx.fillRect(x0, y(v), bw, bh);
    }
    ctx.globalAlpha = 1;
    if (c.id === "stale") {
      ctx.strokeStyle = COLORS.rule;
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.moveTo(0, y(threshold));
      ctx.lineTo(w, y(threshold));
      ctx.stroke();
      ctx.setLineDash([]);
    }
  }

  return {
    /**
     * @param {readonly MonitorSample[]} samples
     * @param {AlertResult} result
     * @param {{now: number, spanMs: number, rule: AlertRule}} o
     */
    draw(samples, result, { now, spanMs, rule: r }) {
      const points = seriesOf(samples);
      const last = samples[samples.length - 1];
      const lastPoint = points[points.length - 1];
      const values = {
        rate: lastPoint ? `${number(Math.round(lastPoint.expiredPerSec))}/s` : "–",
        stale: last ? `${last.stalePerc.toFixed(2)}% (≥ ${r.stalePercent}%)` : "–",
        cpu: lastPoint ? `${lastPoint.cpuMsPerSec.toFixed(1)} ms/s` : "–",
        cap: last ? number(last.capCount) : "–",
        expires: last ? number(last.expires) : "–",
      };
      for (const c of charts) {
        if (c.value.textContent !== values[c.id]) c.value.textContent = values[c.id];
        drawChart(c, points, { from: now - spanMs, to: now, threshold: r.stalePercent });
      }
      alert.textContent = result.text;
      alert.dataset.state = result.state;
      article.textContent = result.article.text;
      article.dataset.state = result.article.state;
      root.dataset.alert = result.state;
      root.dataset.samples = String(samples.length);
    },
  };
}
