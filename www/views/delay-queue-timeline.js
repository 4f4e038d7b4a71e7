// One delay-queue run's timeline on a canvas: the time axis (wall-clock), the tasks as marks at
// their due time in one row per fate, the producer's lane and one lane per consumer with its
// commands (empty polls short and grey), claims, processing spans, sleeps, pub/sub messages and
// crashes (shaded), and the moving "now".
//
// Only the visible window is drawn: each list in the run model is sorted by start time, so a
// draw walks just the items on screen, and marks that fall on the same pixel are drawn once —
// hours of virtual time with thousands of tasks cost a frame little. The axis window is shared
// (the view owns it); wheel, drag and the keyboard ask the view to zoom or pan it.
//
// Text on the canvas is the view's own (labels, times); what came from the run (task names,
// commands, replies) reaches the page only through the tooltip's textContent.

import { FATES } from "./delay-queue-model.js";

const FATE_COLOR = Object.fromEntries(FATES.map((f) => [f.id, f.color]));
const FATE_ROW = Object.fromEntries(FATES.map((f, i) => [f.id, i]));

export const GUTTER = 104;
const AXIS_H = 20;
const FATE_ROW_H = 12;
const PRODUCER_H = 16;
const RIGHT_PAD = 10;

/** Colours of a consumer lane's marks (the legend uses the same). */
export const LANE_COLORS = Object.freeze({
  empty: "#5d6470",
  poll: "#7fb4ff",
  claim: "#7ec699",
  missed: "#ffa657",
  subscribe: "#8a919c",
  other: "#b9bec7",
  message: "#c792ea",
  process: "#3fa86b",
  again: "#f778ba",
  cut: "#ff5f56",
  sleep: "#4a5160",
  crash: "rgba(255, 95, 86, 0.20)",
  crashEdge: "#ff5f56",
  now: "#dc382d",
  future: "rgba(255, 255, 255, 0.025)",
});

const TICK_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000,
  900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000,
];

/** A tick step (ms) giving about one label per `minPx` pixels. */
export function tickStep(spanMs, widthPx, minPx = 90) {
  const want = (spanMs * minPx) / Math.max(1, widthPx);
  return TICK_STEPS.find((s) => s >= want) ?? TICK_STEPS[TICK_STEPS.length - 1];
}

/** Unix ms → "HH:MM:SS" (with ".mmm" when `ms` is true), UTC. */
export function wallClock(unixMs, ms = false) {
  const iso = new Date(unixMs).toISOString();
  return ms ? iso.slice(11, 23) : iso.slice(11, 19);
}

function laneHeight(consumers) {
  if (consumers <= 4) return 30;
  if (consumers <= 8) return 24;
  return 18;
}

/**
 * @param {HTMLElement} root       an empty box for the canvas
 * @param {object} opts
 * @param {string} opts.label      "A" / "B" (for the canvas's accessible name)
 * @param {() => {from: number, to: number}} opts.viewport   the shared window, sim ms
 * @param {(centerMs: number, factor: number) => void} opts.onZoom
 * @param {(deltaMs: number) => void} opts.onPan
 * @param {(key: string) => boolean} opts.onKey   the view's keyboard shortcuts (fit, follow…)
 */
export function createDelayQueueTimeline(root, { label, viewport, onZoom, onPan, onKey }) {
  root.replaceChildren();
  root.classList.add("dq-timeline");
  const canvas = document.createElement("canvas");
  canvas.className = "dq-canvas";
  canvas.tabIndex = 0;
  canvas.setAttribute("role", "img");
  canvas.dataset.run = label;
  const tip = document.createElement("div");
  tip.className = "dq-tip";
  tip.hidden = true;
  tip.setAttribute("role", "tooltip");
  root.append(canvas, tip);

  let model = null;
  let modelSerial = 0; // changes with the model (a new run), so the lane layer is redrawn
  let layerDraws = 0;
  let info = { now: 0, startMs: 0, durationMs: 1, consumers: 1 };
  let width = 0;
  let height = 0;
  let drawn = { tasks: 0, marks: 0 };

  function layout() {
    const consumers = Math.max(info.consumers, model?.lanes.length ?? 1);
    const laneH = laneHeight(consumers);
    const fatesTop = AXIS_H;
    const producerTop = fatesTop + FATES.length * FATE_ROW_H + 4;
    const lanesTop = producerTop + PRODUCER_H + 2;
    return { laneH, fatesTop, producerTop, lanesTop, consumers, total: lanesTop + consumers * laneH + 4 };
  }

  // The box's width as the ResizeObserver last reported it: reading clientWidth in draw() would
  // force a layout after the view's DOM updates of the same frame.
  let boxWidth = 0;
  function resize() {
    const w = Math.floor(boxWidth);
    const { total } = layout();
    if (w === width && total === height) return;
    width = w;
    height = total;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(width * dpr));
    canvas.height = Math.max(1, Math.round(height * dpr));
    canvas.style.height = `${height}px`;
  }

  new ResizeObserver((entries) => {
    boxWidth = entries[entries.length - 1].contentRect.width;
    resize();
    draw();
  }).observe(root);

  const plotW = () => Math.max(10, width - GUTTER - RIGHT_PAD);
  const xOf = (t, vp) => GUTTER + ((t - vp.from) / (vp.to - vp.from)) * plotW();
  const tOf = (x, vp) => vp.from + ((x - GUTTER) / plotW()) * (vp.to - vp.from);

  function draw() {
    if (!model || width === 0) return false;
    resize();
    const vp = viewport();
    const ctx = canvas.getContext("2d");
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.fillStyle = "#07090c";
    ctx.fillRect(0, 0, width, height);
    const L = layout();
    const x0 = GUTTER;
    const x1 = GUTTER + plotW();
    const pxMs = plotW() / (vp.to - vp.from);

    // What has not happened yet, lightly shaded; beyond the end of the run, darker.
    const nowX = xOf(info.now, vp);
    if (nowX < x1) {
      ctx.fillStyle = LANE_COLORS.future;
      ctx.fillRect(Math.max(x0, nowX), AXIS_H, x1 - Math.max(x0, nowX), height - AXIS_H);
    }
    const endX = xOf(info.durationMs, vp);
    if (endX < x1) {
      ctx.fillStyle = "rgba(0, 0, 0, 0.45)";
      ctx.fillRect(Math.max(x0, endX), AXIS_H, x1 - Math.max(x0, endX), height - AXIS_H);
    }

    // The axis: wall-clock ticks.
    const step = tickStep(vp.to - vp.from, plotW());
    ctx.font = "10px ui-monospace, 'DejaVu Sans Mono', monospace";
    ctx.textBaseline = "middle";
    ctx.textAlign = "center";
    const firstTick = Math.ceil((info.startMs + vp.from) / step) * step - info.startMs;
    for (let t = firstTick; t <= vp.to; t += step) {
      const x = Math.round(xOf(t, vp)) + 0.5;
      ctx.strokeStyle = "rgba(255, 255, 255, 0.06)";
      ctx.beginPath();
      ctx.moveTo(x, AXIS_H - 4);
      ctx.lineTo(x, height);
      ctx.stroke();
      ctx.fillStyle = "#8a919c";
      const text = wallClock(info.startMs + t, step < 1000);
      const half = ctx.measureText(text).width / 2;
      ctx.fillText(text, Math.min(Math.max(x, GUTTER + half), width - half - 2), AXIS_H / 2);
    }

    // Gutter labels.
    ctx.textAlign = "left";
    ctx.font = "10px system-ui, 'DejaVu Sans', sans-serif";
    ctx.fillStyle = "#07090c";
    ctx.fillRect(0, AXIS_H, GUTTER, height - AXIS_H);
    for (const f of FATES) {
      const y = L.fatesTop + FATE_ROW[f.id] * FATE_ROW_H;
      ctx.fillStyle = f.color;
      ctx.fillRect(6, y + 2, 6, FATE_ROW_H - 3);
      ctx.fillStyle = "#b9bec7";
      ctx.fillText(`${f.label} ${model.counts[f.id] ?? 0}`, 16, y + FATE_ROW_H / 2);
    }
    ctx.fillStyle = "#8a919c";
    ctx.fillText("producer", 6, L.producerTop + PRODUCER_H / 2);
    for (let c = 0; c < L.consumers; c += 1) {
      const y = L.lanesTop + c * L.laneH;
      ctx.fillStyle = model.lanes[c]?.down ? LANE_COLORS.crashEdge : "#b9bec7";
      ctx.fillText(`consumer ${c + 1}${model.lanes[c]?.down ? " ✕" : ""}`, 6, y + L.laneH / 2);
      ctx.strokeStyle = "rgba(255, 255, 255, 0.05)";
      ctx.beginPath();
      ctx.moveTo(0, y + 0.5);
      ctx.lineTo(width, y + 0.5);
      ctx.stroke();
    }

    ctx.save();
    ctx.beginPath();
    ctx.rect(x0, AXIS_H, x1 - x0, height - AXIS_H);
    ctx.clip();

    // Tasks: a mark at the due time in the row of its fate; late ones with a line to when they
    // were done.
    let marks = 0;
    const lastPx = new Float64Array(FATES.length).fill(-Infinity);
    model.byDue.forEachIn(vp.from - 2 / pxMs, vp.to + 2 / pxMs, (m) => {
      const t = m.task;
      const row = FATE_ROW[t.fate] ?? FATE_ROW.pending;
      const y = L.fatesTop + row * FATE_ROW_H;
      const x = xOf(m.t0, vp);
      if (m.t1 > m.t0 && (m.t1 - m.t0) * pxMs >= 2) {
        ctx.fillStyle = "rgba(229, 192, 123, 0.35)";
        ctx.fillRect(x, y + FATE_ROW_H / 2 - 0.5, (m.t1 - m.t0) * pxMs, 1);
      }
      marks += 1;
      const px = Math.round(x);
      if (px === lastPx[row]) return;
      lastPx[row] = px;
      ctx.fillStyle = FATE_COLOR[t.fate] ?? FATE_COLOR.pending;
      ctx.fillRect(px - 1, y + 1, Math.max(2, Math.min(6, pxMs * 20)), FATE_ROW_H - 2);
    });
    drawn = { tasks: model.tasks.size, marks };

    drawLanes(ctx, vp, L, pxMs, x0, x1);
    for (let c = 0; c < L.consumers; c += 1) {
      const lane = model.lanes[c];
      if (lane) drawCrashes(ctx, lane, L.lanesTop + c * L.laneH, L.laneH, vp);
    }
    ctx.restore();

    // Now.
    if (nowX >= x0 - 1 && nowX <= x1 + 1) {
      ctx.strokeStyle = LANE_COLORS.now;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(nowX, AXIS_H - 6);
      ctx.lineTo(nowX, height);
      ctx.stroke();
      ctx.lineWidth = 1;
      ctx.fillStyle = LANE_COLORS.now;
      ctx.beginPath();
      ctx.moveTo(nowX - 5, AXIS_H - 8);
      ctx.lineTo(nowX + 5, AXIS_H - 8);
      ctx.lineTo(nowX, AXIS_H - 2);
      ctx.fill();
    }
    ctx.strokeStyle = "rgba(255, 255, 255, 0.1)";
    ctx.strokeRect(x0 + 0.5, AXIS_H + 0.5, x1 - x0 - 1, height - AXIS_H - 1);

    canvas.setAttribute(
      "aria-label",
      `Timeline of run ${label}, ${wallClock(info.startMs + vp.from)} to ${wallClock(info.startMs + vp.to)}: ` +
        `${model.tasks.size} tasks — ${FATES.map((f) => `${model.counts[f.id] ?? 0} ${f.label}`).join(", ")}. ` +
        "Arrow keys pan, + and − zoom, 0 fits the whole run, F follows now.",
    );
    canvas.dataset.marks = String(marks);
    return true;
  }

  // The lanes are drawn through a cached layer. A lane item is complete when its event arrives
  // (a processing at its end, a command when executed), so what lies further back than the
  // longest item seen cannot change: while the window stays put, the layer keeps the lanes up
  // to there and each draw adds only the stretch since, clipped to the right of it. The layer
  // is redrawn whole when the window, the size or the run changes, when an item longer than the
  // margin arrives, or once the fresh stretch grows past a twentieth of the window.
  const layer = document.createElement("canvas");
  const fresh = document.createElement("canvas");
  let layerKey = "";
  let layerUpTo = -Infinity;
  let layerReach = 0;

  function reachOf() {
    let r = 0;
    for (const lane of [model.producer, ...model.lanes]) {
      r = Math.max(r, lane.sleeps.maxSpan, lane.processes.maxSpan, lane.commands.maxSpan, lane.messages.maxSpan);
    }
    return r;
  }

  function drawLanesIn(ctx, vp, L, pxMs, from, to) {
    drawProducer(ctx, model.producer, L.producerTop, PRODUCER_H, vp, pxMs, from, to);
    for (let c = 0; c < L.consumers; c += 1) {
      const lane = model.lanes[c];
      if (lane) drawLane(ctx, lane, L.lanesTop + c * L.laneH, L.laneH, vp, pxMs, from, to);
    }
  }

  function drawLanes(ctx, vp, L, pxMs, x0, x1) {
    const dpr = window.devicePixelRatio || 1;
    // A mark reaches up to 5 px either side of its time (the claim triangle): each side of the
    // layer's edge also draws the marks just across it, and the layer keeps clear of where an
    // item still to come could reach.
    const spill = 6 / pxMs;
    const margin = 8 / pxMs;
    const span = vp.to - vp.from;
    const reach = reachOf() + margin;
    const key = `${vp.from}|${vp.to}|${width}|${height}|${dpr}|${modelSerial}`;
    const stale = key !== layerKey || reach > layerReach || info.now - layerUpTo > span / 20 + reach;
    if (stale) {
      if (layer.width !== canvas.width || layer.height !== canvas.height) {
        layer.width = canvas.width;
        layer.height = canvas.height;
      }
      const lctx = layer.getContext("2d");
      lctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      lctx.clearRect(0, 0, width, height);
      // The layer's edge on a whole pixel, so the layer and the fresh stretch split pixels
      // exactly (no pixel half from each).
      const edgeX = Math.floor(xOf(Math.min(info.now - reach, vp.to + margin), vp));
      layerUpTo = tOf(edgeX, vp);
      layerReach = Math.max(reach, layerReach === 0 ? reach : layerReach);
      layerKey = key;
      lctx.save();
      lctx.beginPath();
      lctx.rect(x0, AXIS_H, Math.max(0, Math.min(x1, Math.round(xOf(layerUpTo, vp))) - x0), height - AXIS_H);
      lctx.clip();
      drawLanesIn(lctx, vp, L, pxMs, vp.from - margin, layerUpTo + spill);
      lctx.restore();
      layerDraws += 1;
    }
    // The fresh stretch, right of the layer's edge — drawn on a transparent canvas too, so
    // that every lane pixel is composited the same way whichever side of the edge it is on.
    if (fresh.width !== canvas.width || fresh.height !== canvas.height) {
      fresh.width = canvas.width;
      fresh.height = canvas.height;
    }
    const fctx = fresh.getContext("2d");
    fctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    fctx.clearRect(0, 0, width, height);
    const edge = Math.max(x0, Math.round(xOf(layerUpTo, vp)));
    if (edge < x1) {
      fctx.save();
      fctx.beginPath();
      fctx.rect(edge, AXIS_H, x1 - edge, height - AXIS_H);
      fctx.clip();
      drawLanesIn(fctx, vp, L, pxMs, Math.max(vp.from, layerUpTo) - reach - spill, vp.to + margin);
      fctx.restore();
    }
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(layer, 0, 0);
    ctx.drawImage(fresh, 0, 0);
    ctx.restore();
  }

  /** A lane's crashes, shaded (over the layer: an open crash grows with now). */
  function drawCrashes(ctx, lane, top, h, vp) {
    const endOfCrash = (c) => (c.until === null ? Math.max(info.now, c.at) : c.until);
    for (const c of lane.crashes) {
      const a = xOf(c.at, vp);
      const b = xOf(endOfCrash(c), vp);
      if (b < GUTTER || a > GUTTER + plotW()) continue;
      ctx.fillStyle = LANE_COLORS.crash;
      ctx.fillRect(a, top + 1, Math.max(2, b - a), h - 2);
      ctx.fillStyle = LANE_COLORS.crashEdge;
      ctx.fillRect(a, top + 1, 2, h - 2);
      if (b - a > 60) {
        ctx.font = "10px system-ui, 'DejaVu Sans', sans-serif";
        ctx.fillText(c.until === null ? "down" : "crashed", Math.max(a, GUTTER) + 5, top + h - 6);
      }
    }
  }

  /** A consumer lane's items overlapping [from, to] (sim ms). */
  function drawLane(ctx, lane, top, h, vp, pxMs, from, to) {
    // Sleeps: a thin line along the bottom of the lane (thinned, one sleep stands for its
    // whole pixel, so short sleeps in a row still make a line).
    ctx.fillStyle = LANE_COLORS.sleep;
    const msPerPx = 1 / pxMs;
    lane.sleeps.forEachThinned(
      from,
      to,
      msPerPx,
      (s) => {
        const a = Math.max(GUTTER - 2, Math.round(xOf(s.t0, vp)));
        const b = Math.max(Math.round(xOf(s.t1, vp)), a + 1);
        ctx.fillRect(a, top + h - 4, b - a, 1);
      },
      vp.from,
    );

    // Processing spans.
    // Whole pixels: a lane's marks overlap a lot when zoomed out, and opaque whole-pixel fills
    // look the same however many of them cover a pixel.
    const py = Math.round(top + h * 0.42);
    const ph = Math.max(4, Math.round(h * 0.3));
    const drawProcess = (p) => {
      const a = Math.round(xOf(p.t0, vp));
      const w = Math.max(2, Math.round(xOf(p.t1, vp)) - a);
      ctx.fillStyle = !p.completed ? LANE_COLORS.cut : p.again ? LANE_COLORS.again : LANE_COLORS.process;
      ctx.fillRect(a, py, w, ph);
      if (!p.completed && w > 4) {
        ctx.strokeStyle = "#07090c";
        ctx.beginPath();
        for (let x = a + 3; x < a + w; x += 4) {
          ctx.moveTo(x, py);
          ctx.lineTo(x - 3, py + ph);
        }
        ctx.stroke();
      }
    };
    for (const kind of ["done", "again", "cut"]) lane.procByKind[kind].forEachThinned(from, to, msPerPx, drawProcess, vp.from);

    // Commands: a tick when Redis executed it; its round trip as a thin line when wide enough.
    const cy = top + 3;
    const drawCommand = (cmd) => {
      const x = xOf(cmd.executed, vp);
      const px = Math.round(x);
      const rtt = (cmd.t1 - cmd.t0) * pxMs;
      if (rtt >= 3) {
        ctx.fillStyle = "rgba(127, 180, 255, 0.35)";
        ctx.fillRect(xOf(cmd.t0, vp), cy + 2, rtt, 1);
      }
      switch (cmd.kind) {
        case "empty":
          ctx.fillStyle = LANE_COLORS.empty;
          ctx.fillRect(px, cy, 1, Math.max(3, Math.round(h * 0.22)));
          break;
        case "poll":
          ctx.fillStyle = LANE_COLORS.poll;
          ctx.fillRect(px, cy, 2, Math.round(h * 0.55));
          break;
        case "claim":
          ctx.fillStyle = LANE_COLORS.claim;
          triangle(ctx, px, cy, 4);
          break;
        case "missed":
          ctx.strokeStyle = LANE_COLORS.missed;
          ctx.beginPath();
          ctx.moveTo(px - 3, cy);
          ctx.lineTo(px + 3, cy + 6);
          ctx.moveTo(px + 3, cy);
          ctx.lineTo(px - 3, cy + 6);
          ctx.stroke();
          break;
        default:
          ctx.fillStyle = LANE_COLORS.other;
          ctx.fillRect(px, cy, 1, Math.round(h * 0.4));
      }
    };
    // The rarer, more telling marks last, on top.
    for (const kind of ["empty", "other", "subscribe", "poll", "missed", "claim"]) lane.byKind[kind].forEachThinned(from, to, msPerPx, drawCommand, vp.from);

    // Pub/sub messages: a dot when delivered, a line back to when they were published.
    const drawMessage = (m) => {
      const x = xOf(m.t1, vp);
      if ((m.t1 - m.t0) * pxMs >= 3) {
        ctx.strokeStyle = "rgba(199, 146, 234, 0.5)";
        ctx.beginPath();
        ctx.moveTo(xOf(m.t0, vp), top + h - 6);
        ctx.lineTo(x, top + h - 6);
        ctx.stroke();
      }
      ctx.fillStyle = LANE_COLORS.message;
      ctx.beginPath();
      ctx.arc(x, top + h - 6, 2.5, 0, 2 * Math.PI);
      ctx.fill();
    };
    lane.messages.forEachThinned(from, to, msPerPx, drawMessage, vp.from);
  }

  /** The producer's lane: a tick per order created, a taller blue one per payment. */
  function drawProducer(ctx, lane, top, h, vp, pxMs, from, to) {
    const each = (kind, fn) => lane.marks[kind].forEachThinned(from, to, 1 / pxMs, fn, vp.from);
    const mark = (m) => {
      const px = Math.round(xOf(m.t0, vp));
      if (m.kind === "order") {
        ctx.fillStyle = "#8a919c";
        ctx.fillRect(px, top + Math.round(h * 0.45), 1, Math.round(h * 0.45));
      } else if (m.kind === "paid") {
        ctx.fillStyle = FATE_COLOR.paid;
        ctx.fillRect(px, top + 2, 2, Math.round(h * 0.5));
      } else {
        ctx.strokeStyle = FATE_COLOR.paid;
        ctx.strokeRect(px - 1.5, top + 2.5, 3, h * 0.4);
      }
    };
    each("order", mark);
    each("paid", mark);
    each("paid-late", mark);
  }

  function triangle(ctx, x, y, r) {
    ctx.beginPath();
    ctx.moveTo(x, y);
    ctx.lineTo(x + r, y + 2 * r);
    ctx.lineTo(x - r, y + 2 * r);
    ctx.closePath();
    ctx.fill();
  }

  // -----------------------------------------------------------------------------------------
  // What is under the pointer (tooltip)
  // -----------------------------------------------------------------------------------------

  function near(list, t, tolMs, key = (it) => it.t0) {
    let best = null;
    let bestD = Infinity;
    list.forEachIn(t - tolMs, t + tolMs, (it) => {
      const d = Math.min(Math.abs(key(it) - t), it.t0 <= t && t <= it.t1 ? 0 : Infinity);
      if (d < bestD) {
        bestD = d;
        best = it;
      }
    });
    return best;
  }

  const fmt = (t) => wallClock(info.startMs + t, true);

  /** A sentence about what is drawn at (x, y) in CSS px, or null. */
  function describeAt(x, y) {
    if (!model || x < GUTTER) return null;
    const vp = viewport();
    const t = tOf(x, vp);
    const tol = 5 * ((vp.to - vp.from) / plotW());
    const L = layout();
    if (y < AXIS_H) return `${fmt(t)} (t = ${Math.round(t).toLocaleString("en-US")} ms)`;
    if (y < L.fatesTop + FATES.length * FATE_ROW_H) {
      const row = Math.floor((y - L.fatesTop) / FATE_ROW_H);
      const fate = FATES[row]?.id;
      let best = null;
      let bestD = Infinity;
      model.byDue.forEachIn(t - tol, t + tol, (m) => {
        if (m.task.fate !== fate) return;
        const d = Math.abs(m.t0 - t);
        if (d < bestD) {
          bestD = d;
          best = m.task;
        }
      });
      if (!best) return null;
      const done = best.processings.filter((p) => p.completed);
      const parts = [`${best.id}: created ${fmt(best.at)}, due ${fmt(best.due)}`];
      if (best.paidAt !== null) parts.push(`paid ${fmt(best.paidAt)}${best.removedByPayment ? "" : " (too late)"}`);
      for (const p of best.processings) parts.push(`processed by consumer ${p.consumer + 1} ${fmt(p.t0)}–${fmt(p.t1)}${p.completed ? "" : " (cut by a crash)"}`);
      if (best.lateness !== null) parts.push(`lateness ${best.lateness.toLocaleString("en-US")} ms`);
      else if (done.length > 0) parts.push(`lateness so far ${(best.firstDone - best.due).toLocaleString("en-US")} ms`);
      parts.push(best.final ? `fate: ${best.fate.replace("_", " ")}` : `so far: ${best.fate.replace("_", " ")}`);
      return parts.join(" · ");
    }
    if (y < L.lanesTop) {
      let m = null;
      for (const list of Object.values(model.producer.marks)) {
        const c = near(list, t, tol);
        if (c && (!m || Math.abs(c.t0 - t) < Math.abs(m.t0 - t))) m = c;
      }
      if (!m || Math.abs(m.t0 - t) > tol) return null;
      const what = m.kind === "order" ? "created" : m.kind === "paid" ? "paid: the payment removed its task" : "paid too late: the task was already taken";
      return `producer ${fmt(m.t0)}: ${m.task} ${what}`;
    }
    const c = Math.floor((y - L.lanesTop) / L.laneH);
    const lane = model.lanes[c];
    if (!lane) return null;
    const who = `consumer ${c + 1}`;
    const crash = lane.crashes.find((k) => k.at <= t && t <= (k.until ?? info.now));
    const p = near(lane.processes, t, tol);
    if (p && p.t0 - tol <= t && t <= p.t1 + tol) {
      return `${who} processing ${p.task}, ${fmt(p.t0)}–${fmt(p.t1)}${p.completed ? "" : " (cut by a crash)"}${p.again ? " — a task already processed" : ""}`;
    }
    const cmd = near(lane.commands, t, tol, (it) => it.executed);
    if (cmd && Math.abs(cmd.executed - t) <= tol) {
      return `${who}: ${cmd.cmd} → ${cmd.reply} (sent ${fmt(cmd.t0)}, executed ${fmt(cmd.executed)}, reply ${fmt(cmd.t1)})${cmd.empty ? " — empty poll" : ""}`;
    }
    const m = near(lane.messages, t, tol, (it) => it.t1);
    if (m && Math.abs(m.t1 - t) <= tol) return `${who}: pub/sub message${m.task ? ` for ${m.task}` : ""}, published ${fmt(m.t0)}, delivered ${fmt(m.t1)}`;
    if (crash) return `${who} is down from ${fmt(crash.at)}${crash.until === null ? "" : ` until ${fmt(crash.until)}`}`;
    const s = near(lane.sleeps, t, 0);
    if (s && s.t0 <= t && t <= s.t1) return `${who} sleeps ${fmt(s.t0)} → ${fmt(s.t1)}`;
    return null;
  }

  // -----------------------------------------------------------------------------------------
  // Pointer and keyboard
  // -----------------------------------------------------------------------------------------

  let drag = null;
  canvas.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    drag = { x: e.clientX, moved: false };
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener("pointermove", (e) => {
    const rect = canvas.getBoundingClientRect();
    if (drag) {
      const dx = e.clientX - drag.x;
      if (Math.abs(dx) >= 1) {
        const vp = viewport();
        drag.moved = true;
        drag.x = e.clientX;
        onPan((-dx / plotW()) * (vp.to - vp.from));
      }
      tip.hidden = true;
      return;
    }
    const text = describeAt(e.clientX - rect.left, e.clientY - rect.top);
    tip.hidden = text === null;
    if (text !== null) {
      tip.textContent = text;
      const x = e.clientX - rect.left;
      tip.style.left = `${Math.min(Math.max(0, x + 12), Math.max(0, width - 320))}px`;
      tip.style.top = `${e.clientY - rect.top + 14}px`;
    }
  });
  const endDrag = () => {
    drag = null;
  };
  canvas.addEventListener("pointerup", endDrag);
  canvas.addEventListener("pointercancel", endDrag);
  canvas.addEventListener("pointerleave", () => {
    tip.hidden = true;
  });
  canvas.addEventListener(
    "wheel",
    (e) => {
      e.preventDefault();
      const vp = viewport();
      const rect = canvas.getBoundingClientRect();
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        const d = e.shiftKey ? e.deltaY : e.deltaX;
        onPan((d / plotW()) * (vp.to - vp.from));
        return;
      }
      const center = tOf(e.clientX - rect.left, vp);
      onZoom(center, Math.exp(e.deltaY * 0.002));
    },
    { passive: false },
  );
  canvas.addEventListener("keydown", (e) => {
    const vp = viewport();
    const span = vp.to - vp.from;
    let handled = true;
    switch (e.key) {
      case "ArrowLeft":
        onPan(-span * 0.1);
        break;
      case "ArrowRight":
        onPan(span * 0.1);
        break;
      case "+":
      case "=":
        onZoom(info.now >= vp.from && info.now <= vp.to ? info.now : (vp.from + vp.to) / 2, 0.5);
        break;
      case "-":
      case "_":
        onZoom(info.now >= vp.from && info.now <= vp.to ? info.now : (vp.from + vp.to) / 2, 2);
        break;
      default:
        handled = onKey(e.key);
    }
    if (handled) e.preventDefault();
  });

  return {
    /** The model to draw and the clock it is at. */
    setRun(nextModel, nextInfo) {
      if (nextModel !== model) modelSerial += 1;
      model = nextModel;
      info = { ...info, ...nextInfo };
    },
    draw,
    drawn: () => drawn,
    /** How often the lane layer was redrawn whole (tests, profiling). */
    layerDraws: () => layerDraws,
    /** Where the lane layer ends (sim ms; tests, profiling). */
    layerEdge: () => layerUpTo,
    /** Forget the lane layer: the next draw draws every lane whole. */
    forgetLayer() {
      layerKey = "";
    },
    describeAt,
    canvas,
    width: () => width,
  };
}
