// Running charts for the expiry view, over virtual time: keys with a TTL, stale keys (past
// their TTL, not yet reclaimed), keys expired per second (active cycle vs lazy), and the active
// expire cycle's CPU time (virtual, from the engine's cost model) against its budget.
//
// `createExpiryHistory()` keeps what the engine reported, binned by virtual time (100 ms bins,
// one hour of them in typed arrays), plus sparse level samples (keys, stale) taken when the
// view read them. `createExpiryCharts(root)` draws four small canvases from it; it draws only
// when asked, and `draw` returns false when there was nothing new to draw.

import { number } from "./expiry-cycle.js";

/** Width of one history bin, in virtual ms. */
export const BIN_MS = 100;
/** Bins kept: one hour of virtual time. */
export const HISTORY_BINS = 36_000;
/** Level samples kept per series. */
const MAX_POINTS = 6000;

/** The spans the charts offer, in virtual ms. */
export const CHART_SPANS = Object.freeze([
  { ms: 10_000, label: "10 s" },
  { ms: 60_000, label: "1 min" },
  { ms: 600_000, label: "10 min" },
  { ms: 3_600_000, label: "1 h" },
]);

const mod = (a, n) => ((a % n) + n) % n;

export function createExpiryHistory() {
  const active = new Float64Array(HISTORY_BINS);
  const lazy = new Float64Array(HISTORY_BINS);
  const cpu = new Float64Array(HISTORY_BINS);
  let head = null; // absolute index of the newest bin written
  let levels = { volatile: [], stale: [] };
  let version = 0;

  function slot(atMs) {
    const b = Math.floor(atMs / BIN_MS);
    if (head === null) head = b;
    if (b > head) {
      const gap = Math.min(b - head, HISTORY_BINS);
      for (let i = 1; i <= gap; i += 1) {
        const s = mod(head + i, HISTORY_BINS);
        active[s] = 0;
        lazy[s] = 0;
        cpu[s] = 0;
      }
      head = b;
    }
    if (b <= head - HISTORY_BINS) return -1;
    return mod(b, HISTORY_BINS);
  }

  function sumRange(arr, fromMs, toMs) {
    if (head === null) return 0;
    const b0 = Math.max(Math.floor(fromMs / BIN_MS), head - HISTORY_BINS + 1);
    const b1 = Math.min(Math.floor((toMs - 1) / BIN_MS), head);
    let s = 0;
    for (let b = b0; b <= b1; b += 1) s += arr[mod(b, HISTORY_BINS)];
    return s;
  }

  return {
    /** An `expire_cycle` event. */
    addCycle(atMs, report) {
      const s = slot(atMs);
      if (s < 0) return;
      active[s] += Number(report.expired) || 0;
      cpu[s] += Number(report.time_used_us) || 0;
      version += 1;
    },

    /** A lazy expiry (`expired` event with by "lazy"). */
    addLazy(atMs) {
      const s = slot(atMs);
      if (s < 0) return;
      lazy[s] += 1;
      version += 1;
    },

    /** A level sample: `name` is "volatile" or "stale". */
    addLevel(name, atMs, value) {
      const list = levels[name];
      const last = list[list.length - 1];
      if (last && last[0] === atMs) last[1] = value;
      else if (last && last[0] > atMs) return;
      else list.push([atMs, value]);
      if (list.length > MAX_POINTS) list.splice(0, list.length - MAX_POINTS / 2);
      version += 1;
    },

    latest(name) {
      const list = levels[name];
      return list.length === 0 ? null : list[list.length - 1];
    },

    /** Sums of `kind` ("active", "lazy", "cpu") over `columns` equal slices of [from, to). */
    columns(kind, fromMs, toMs, columns) {
      const arr = kind === "active" ? active : kind === "lazy" ? lazy : cpu;
      const out = new Float64Array(columns);
      const w = (toMs - fromMs) / columns;
      for (let c = 0; c < columns; c += 1) out[c] = sumRange(arr, fromMs + c * w, fromMs + (c + 1) * w);
      return out;
    },

    sum(kind, fromMs, toMs) {
      return sumRange(kind === "active" ? active : kind === "lazy" ? lazy : cpu, fromMs, toMs);
    },

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
      active.fill(0);
      lazy.fill(0);
      cpu.fill(0);
      head = null;
      levels = { volatile: [], stale: [] };
      version += 1;
    },

    version: () => version,
    newestMs: () => (head === null ? null : (head + 1) * BIN_MS),
  };
}

// ---------------------------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------------------------

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

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** 1, 2, 5 × 10^k at or above `v`. */
function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

/** "1.2M", "340k", "12". */
export function shortNumber(v) {
  if (v >= 1e6) return `${(v / 1e6).toFixed(v >= 1e7 ? 0 : 1)}M`;
  if (v >= 1e4) return `${Math.round(v / 1e3)}k`;
  if (v >= 1e3) return `${(v / 1e3).toFixed(1)}k`;
  return v >= 10 || v === 0 ? String(Math.round(v)) : v.toFixed(1);
}

const CHARTS = [
  { id: "volatile", title: "keys with a TTL" },
  { id: "stale", title: "stale keys (not yet deleted)" },
  { id: "rate", title: "expired/s: active · lazy" },
  { id: "cpu", title: "expire cycle CPU (% of a core)" },
];

/**
 * @param {HTMLElement} root  emptied; gets four small charts
 * @param {() => void} onResize  a chart's box changed size (the view asks for a redraw)
 */
export function createExpiryCharts(root, onResize) {
  root.replaceChildren();
  const charts = CHARTS.map(({ id, title }) => {
    const fig = el("figure", "xchart");
    fig.dataset.chart = id;
    const cap = el("figcaption", "xchart-head");
    const value = el("span", "xchart-value");
    value.id = `expiry-chart-${id}`;
    cap.append(el("span", "xchart-title", title), value);
    const canvas = el("canvas", "xchart-canvas");
    canvas.setAttribute("aria-hidden", "true");
    fig.append(cap, canvas);
    root.append(fig);
    return { id, fig, value, canvas, size: { width: 0, height: 0, dpr: 1 }, shownValue: "" };
  });

  const resizeObserver = new ResizeObserver(() => {
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
  for (const c of charts) resizeObserver.observe(c.canvas);

  function prepare(c) {
    const { width, height, dpr } = c.size;
    if (width < 20 || height < 20) return null;
    const pw = Math.round(width * dpr);
    const ph = Math.round(height * dpr);
    if (c.canvas.width !== pw || c.canvas.height !== ph) {
      c.canvas.width = pw;
      c.canvas.height = ph;
    }
    const ctx = c.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    return ctx;
  }

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

  function drawLine(ctx, w, h, points, from, to, max, color, fill) {
    const x = (t) => ((t - from) / (to - from)) * w;
    const y = (v) => h - 1 - (v / max) * (h - 14);
    let started = false;
    let lastX = 0;
    ctx.beginPath();
    for (let i = 0; i < points.length; i += 1) {
      const [t, v] = points[i];
      if (t < from) {
        // Start at the left edge from the last sample before the window.
        const next = points[i + 1];
        if (!next || next[0] < from) continue;
      }
      const px = Math.max(0, x(t));
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
    if (fill) {
      ctx.lineTo(lastX, h);
      ctx.lineTo(Math.max(0, x(points.find((p) => p[0] >= from)?.[0] ?? from)), h);
      ctx.closePath();
      ctx.fillStyle = fill;
      ctx.fill();
    }
  }

  function maxIn(points, from) {
    let m = 0;
    for (const [t, v] of points) if (t >= from - 60_000 && v > m) m = v;
    return m;
  }

  function setValue(c, text) {
    if (c.shownValue !== text) {
      c.shownValue = text;
      c.value.textContent = text;
    }
  }

  return {
    /**
     * @param {ReturnType<typeof createExpiryHistory>} history
     * @param {{now: number, spanMs: number, budgetPercent: number}} opts
     */
    draw(history, { now, spanMs, budgetPercent }) {
      const from = now - spanMs;
      const to = now;
      for (const c of charts) {
        const ctx = prepare(c);
        const w = c.size.width;
        const h = c.size.height;
        if (c.id === "volatile" || c.id === "stale") {
          const points = history.points(c.id);
          const latest = history.latest(c.id);
          if (c.id === "volatile") {
            setValue(c, latest ? number(latest[1]) : "–");
          } else {
            const vol = history.latest("volatile");
            const pct = latest && vol && vol[1] > 0 ? ` (${((latest[1] / vol[1]) * 100).toFixed(1)}%)` : "";
            setValue(c, latest ? `${number(latest[1])}${pct}` : "–");
          }
          if (!ctx) continue;
          const max = niceMax(Math.max(maxIn(points, from), c.id === "stale" ? 1 : 10));
          frame(ctx, w, h, shortNumber(max));
          drawLine(ctx, w, h, points, from, to, max, c.id === "stale" ? COLORS.stale : COLORS.live, c.id === "stale" ? "rgba(255,138,76,0.18)" : "rgba(127,180,255,0.14)");
        } else {
          const cols = Math.max(10, Math.min(150, Math.floor(w / 3)));
          const colMs = spanMs / cols;
          const oneSecond = Math.max(BIN_MS, Math.min(1000, spanMs));
          if (c.id === "rate") {
            const a = history.columns("active", from, to, cols);
            const l = history.columns("lazy", from, to, cols);
            const rateNow = (history.sum("active", now - oneSecond, now) + history.sum("lazy", now - oneSecond, now)) / (oneSecond / 1000);
            setValue(c, `${number(Math.round(rateNow))}/s`);
            if (!ctx) continue;
            let max = 0;
            for (let i = 0; i < cols; i += 1) max = Math.max(max, (a[i] + l[i]) / (colMs / 1000));
            max = niceMax(Math.max(max, 1));
            frame(ctx, w, h, `${shortNumber(max)}/s`);
            const bw = w / cols;
            for (let i = 0; i < cols; i += 1) {
              const ha = ((a[i] / (colMs / 1000)) / max) * (h - 14);
              const hl = ((l[i] / (colMs / 1000)) / max) * (h - 14);
              if (ha > 0) {
                ctx.fillStyle = COLORS.active;
                ctx.fillRect(i * bw, h - 1 - ha, Math.max(1, bw - 1), ha);
              }
              if (hl > 0) {
                ctx.fillStyle = COLORS.lazy;
                ctx.fillRect(i * bw, h - 1 - ha - Math.max(1, hl), Math.max(1, bw - 1), Math.max(1, hl));
              }
            }
          } else {
            const u = history.columns("cpu", from, to, cols);
            const cpuNow = (history.sum("cpu", now - oneSecond, now) / (oneSecond * 1000)) * 100;
            setValue(c, `${cpuNow.toFixed(cpuNow < 10 ? 2 : 1)}% · budget ${budgetPercent}%`);
            if (!ctx) continue;
            let max = budgetPercent * 1.25;
            for (let i = 0; i < cols; i += 1) max = Math.max(max, (u[i] / (colMs * 1000)) * 100);
            max = niceMax(max);
            frame(ctx, w, h, `${shortNumber(max)}%`);
            const bw = w / cols;
            ctx.fillStyle = COLORS.cpu;
            for (let i = 0; i < cols; i += 1) {
              const v = (u[i] / (colMs * 1000)) * 100;
              if (v <= 0) continue;
              const hh = Math.max(1, (v / max) * (h - 14));
              ctx.fillRect(i * bw, h - 1 - hh, Math.max(1, bw - 1), hh);
            }
            const by = h - 1 - (budgetPercent / max) * (h - 14);
            ctx.strokeStyle = COLORS.budget;
            ctx.setLineDash([4, 3]);
            ctx.beginPath();
            ctx.moveTo(0, by);
            ctx.lineTo(w, by);
            ctx.stroke();
            ctx.setLineDash([]);
          }
        }
      }
    },
  };
}
