// @ts-check
// Drawing a delay-queue timeline on a canvas: pure functions of the run model
// (delay-queue-model.js), the window and the layout (delay-queue-timeline-model.js) — the
// shading of what has not happened yet, the wall-clock axis, the gutter's labels, the tasks at
// their due time, each lane's marks, crashes and "now". No state, no DOM besides the 2D
// context; the text drawn is the view's own (labels, times), never the run's data.
//
// Only the visible window is walked: each list is sorted by start time and marks that fall on
// the same pixel are drawn once (SpanList.forEachThinned).

import { t } from "../i18n.js";
import { FATES } from "./delay-queue-model.js";
import { AXIS_H, FATE_COLOR, FATE_ROW, FATE_ROW_H, GUTTER, PRODUCER_H, tickStep, wallClock } from "./delay-queue-timeline-model.js";

/** @typedef {import("./delay-queue-model.js").RunModel} RunModel */
/** @typedef {import("./delay-queue-model.js").Lane} Lane */
/** @typedef {import("./delay-queue-model.js").Processing} Processing */
/** @typedef {import("./delay-queue-model.js").CommandItem} CommandItem */
/** @typedef {import("./delay-queue-model.js").MessageItem} MessageItem */
/** @typedef {import("./delay-queue-model.js").ProducerMark} ProducerMark */
/** @typedef {import("./delay-queue-timeline-model.js").TimelineLayout} TimelineLayout */
/** @typedef {import("./delay-queue-timeline-model.js").TimelineInfo} TimelineInfo */
/** @typedef {{from: number, to: number}} Window */
/** @typedef {CanvasRenderingContext2D} Ctx */
/**
 * Where to draw: the canvas's CSS size, the window and its time scale.
 * @typedef {{width: number, height: number, vp: Window, xOf: (t: number) => number, pxMs: number, x0: number, x1: number}} Frame
 */

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

const BACKGROUND = "#07090c";
const LABEL_FONT = "10px system-ui, 'DejaVu Sans', sans-serif";

/**
 * The background, what has not happened yet (lightly shaded) and what lies past the end of the
 * run (darker).
 * @param {Ctx} ctx
 * @param {Frame} f
 * @param {TimelineInfo} info
 */
export function drawBackground(ctx, f, info) {
  ctx.clearRect(0, 0, f.width, f.height);
  ctx.fillStyle = BACKGROUND;
  ctx.fillRect(0, 0, f.width, f.height);
  const nowX = f.xOf(info.now);
  if (nowX < f.x1) {
    ctx.fillStyle = LANE_COLORS.future;
    ctx.fillRect(Math.max(f.x0, nowX), AXIS_H, f.x1 - Math.max(f.x0, nowX), f.height - AXIS_H);
  }
  const endX = f.xOf(info.durationMs);
  if (endX < f.x1) {
    ctx.fillStyle = "rgba(0, 0, 0, 0.45)";
    ctx.fillRect(Math.max(f.x0, endX), AXIS_H, f.x1 - Math.max(f.x0, endX), f.height - AXIS_H);
  }
}

/**
 * The axis: wall-clock ticks and their grid lines.
 * @param {Ctx} ctx
 * @param {Frame} f
 * @param {number} startMs
 */
export function drawAxis(ctx, f, startMs) {
  const { vp } = f;
  const step = tickStep(vp.to - vp.from, f.x1 - f.x0);
  ctx.font = "10px ui-monospace, 'DejaVu Sans Mono', monospace";
  ctx.textBaseline = "middle";
  ctx.textAlign = "center";
  const firstTick = Math.ceil((startMs + vp.from) / step) * step - startMs;
  for (let t = firstTick; t <= vp.to; t += step) {
    const x = Math.round(f.xOf(t)) + 0.5;
    ctx.strokeStyle = "rgba(255, 255, 255, 0.06)";
    ctx.beginPath();
    ctx.moveTo(x, AXIS_H - 4);
    ctx.lineTo(x, f.height);
    ctx.stroke();
    ctx.fillStyle = "#8a919c";
    const text = wallClock(startMs + t, step < 1000);
    const half = ctx.measureText(text).width / 2;
    ctx.fillText(text, Math.min(Math.max(x, GUTTER + half), f.width - half - 2), AXIS_H / 2);
  }
}

/**
 * The gutter: each fate with its count, "producer", each consumer (✕ while down).
 * @param {Ctx} ctx
 * @param {Frame} f
 * @param {TimelineLayout} L
 * @param {RunModel} model
 */
export function drawGutter(ctx, f, L, model) {
  ctx.textAlign = "left";
  ctx.font = LABEL_FONT;
  ctx.fillStyle = BACKGROUND;
  ctx.fillRect(0, AXIS_H, GUTTER, f.height - AXIS_H);
  for (const fate of FATES) {
    const y = L.fatesTop + FATE_ROW[fate.id] * FATE_ROW_H;
    ctx.fillStyle = fate.color;
    ctx.fillRect(6, y + 2, 6, FATE_ROW_H - 3);
    ctx.fillStyle = "#b9bec7";
    ctx.fillText(`${fate.label} ${model.counts[fate.id] ?? 0}`, 16, y + FATE_ROW_H / 2);
  }
  ctx.fillStyle = "#8a919c";
  ctx.fillText(t("producer"), 6, L.producerTop + PRODUCER_H / 2);
  for (let c = 0; c < L.consumers; c += 1) {
    const y = L.lanesTop + c * L.laneH;
    const down = model.lanes[c]?.down;
    ctx.fillStyle = down ? LANE_COLORS.crashEdge : "#b9bec7";
    ctx.fillText(`${t("consumer {n}", { n: c + 1 })}${down ? " ✕" : ""}`, 6, y + L.laneH / 2);
    ctx.strokeStyle = "rgba(255, 255, 255, 0.05)";
    ctx.beginPath();
    ctx.moveTo(0, y + 0.5);
    ctx.lineTo(f.width, y + 0.5);
    ctx.stroke();
  }
}

/**
 * Tasks: a mark at the due time in the row of its fate (one per pixel and row); late ones with a
 * line to when they were done. Returns how many marks were in the window.
 * @param {Ctx} ctx
 * @param {Frame} f
 * @param {TimelineLayout} L
 * @param {RunModel} model
 */
export function drawTasks(ctx, f, L, model) {
  const { vp, pxMs } = f;
  let marks = 0;
  const lastPx = new Float64Array(FATES.length).fill(Number.NEGATIVE_INFINITY);
  model.byDue.forEachIn(vp.from - 2 / pxMs, vp.to + 2 / pxMs, (m) => {
    const t = m.task;
    const row = FATE_ROW[t.fate] ?? FATE_ROW.pending;
    const y = L.fatesTop + row * FATE_ROW_H;
    const x = f.xOf(m.t0);
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
  return marks;
}

/**
 * A lane's crashes, shaded (over the layer: an open crash grows with now).
 * @param {Ctx} ctx
 * @param {Frame} f
 * @param {Lane} lane
 * @param {number} top
 * @param {number} h
 * @param {number} now
 */
export function drawCrashes(ctx, f, lane, top, h, now) {
  for (const c of lane.crashes) {
    const a = f.xOf(c.at);
    const b = f.xOf(c.until === null ? Math.max(now, c.at) : c.until);
    if (b < GUTTER || a > f.x1) continue;
    ctx.fillStyle = LANE_COLORS.crash;
    ctx.fillRect(a, top + 1, Math.max(2, b - a), h - 2);
    ctx.fillStyle = LANE_COLORS.crashEdge;
    ctx.fillRect(a, top + 1, 2, h - 2);
    if (b - a > 60) {
      ctx.font = LABEL_FONT;
      ctx.fillText(c.until === null ? t("down") : t("crashed"), Math.max(a, GUTTER) + 5, top + h - 6);
    }
  }
}

/**
 * "Now": a line with a marker on the axis, and the plot's frame.
 * @param {Ctx} ctx
 * @param {Frame} f
 * @param {number} now
 */
export function drawNow(ctx, f, now) {
  const nowX = f.xOf(now);
  if (nowX >= f.x0 - 1 && nowX <= f.x1 + 1) {
    ctx.strokeStyle = LANE_COLORS.now;
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(nowX, AXIS_H - 6);
    ctx.lineTo(nowX, f.height);
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
  ctx.strokeRect(f.x0 + 0.5, AXIS_H + 0.5, f.x1 - f.x0 - 1, f.height - AXIS_H - 1);
}

/**
 * @param {Ctx} ctx
 * @param {number} x
 * @param {number} y
 * @param {number} r
 */
function triangle(ctx, x, y, r) {
  ctx.beginPath();
  ctx.moveTo(x, y);
  ctx.lineTo(x + r, y + 2 * r);
  ctx.lineTo(x - r, y + 2 * r);
  ctx.closePath();
  ctx.fill();
}

/**
 * One command: a tick when Redis executed it (by kind), its round trip as a thin line when wide
 * enough.
 * @param {Ctx} ctx
 * @param {Frame} f
 * @param {CommandItem} cmd
 * @param {number} cy  the marks' top
 * @param {number} h   the lane's height
 */
function drawCommand(ctx, f, cmd, cy, h) {
  const px = Math.round(f.xOf(cmd.executed));
  const rtt = (cmd.t1 - cmd.t0) * f.pxMs;
  if (rtt >= 3) {
    ctx.fillStyle = "rgba(127, 180, 255, 0.35)";
    ctx.fillRect(f.xOf(cmd.t0), cy + 2, rtt, 1);
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
}

/**
 * A consumer lane's items overlapping [from, to] (sim ms): sleeps, processings, commands,
 * pub/sub messages.
 * @param {Ctx} ctx
 * @param {Frame} f
 * @param {Lane} lane
 * @param {number} top
 * @param {number} h
 * @param {number} from
 * @param {number} to
 */
export function drawLane(ctx, f, lane, top, h, from, to) {
  const { vp, pxMs, xOf } = f;
  const msPerPx = 1 / pxMs;
  // Sleeps: a thin line along the bottom of the lane (thinned, one sleep stands for its
  // whole pixel, so short sleeps in a row still make a line).
  ctx.fillStyle = LANE_COLORS.sleep;
  lane.sleeps.forEachThinned(
    from,
    to,
    msPerPx,
    (s) => {
      const a = Math.max(GUTTER - 2, Math.round(xOf(s.t0)));
      const b = Math.max(Math.round(xOf(s.t1)), a + 1);
      ctx.fillRect(a, top + h - 4, b - a, 1);
    },
    vp.from,
  );

  // Processing spans. Whole pixels: a lane's marks overlap a lot when zoomed out, and opaque
  // whole-pixel fills look the same however many of them cover a pixel.
  const py = Math.round(top + h * 0.42);
  const ph = Math.max(4, Math.round(h * 0.3));
  /** @param {Processing} p */
  const drawProcess = (p) => {
    const a = Math.round(xOf(p.t0));
    const w = Math.max(2, Math.round(xOf(p.t1)) - a);
    ctx.fillStyle = !p.completed ? LANE_COLORS.cut : p.again ? LANE_COLORS.again : LANE_COLORS.process;
    ctx.fillRect(a, py, w, ph);
    if (!p.completed && w > 4) {
      ctx.strokeStyle = BACKGROUND;
      ctx.beginPath();
      for (let x = a + 3; x < a + w; x += 4) {
        ctx.moveTo(x, py);
        ctx.lineTo(x - 3, py + ph);
      }
      ctx.stroke();
    }
  };
  for (const kind of /** @type {const} */ (["done", "again", "cut"])) lane.procByKind[kind].forEachThinned(from, to, msPerPx, drawProcess, vp.from);

  // Commands; the rarer, more telling marks last, on top.
  const cy = top + 3;
  for (const kind of /** @type {const} */ (["empty", "other", "subscribe", "poll", "missed", "claim"])) {
    lane.byKind[kind].forEachThinned(from, to, msPerPx, (cmd) => drawCommand(ctx, f, cmd, cy, h), vp.from);
  }

  // Pub/sub messages: a dot when delivered, a line back to when they were published.
  /** @param {MessageItem} m */
  const drawMessage = (m) => {
    const x = xOf(m.t1);
    if ((m.t1 - m.t0) * pxMs >= 3) {
      ctx.strokeStyle = "rgba(199, 146, 234, 0.5)";
      ctx.beginPath();
      ctx.moveTo(xOf(m.t0), top + h - 6);
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

/**
 * The producer's lane: a tick per order created, a taller blue one per payment.
 * @param {Ctx} ctx
 * @param {Frame} f
 * @param {Lane} lane
 * @param {number} top
 * @param {number} h
 * @param {number} from
 * @param {number} to
 */
export function drawProducer(ctx, f, lane, top, h, from, to) {
  /** @param {ProducerMark} m */
  const mark = (m) => {
    const px = Math.round(f.xOf(m.t0));
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
  for (const kind of /** @type {const} */ (["order", "paid", "paid-late"])) lane.marks[kind].forEachThinned(from, to, 1 / f.pxMs, mark, f.vp.from);
}

/**
 * The producer's lane and every consumer lane, for items in [from, to].
 * @param {Ctx} ctx
 * @param {Frame} f
 * @param {TimelineLayout} L
 * @param {RunModel} model
 * @param {number} from
 * @param {number} to
 */
export function drawLanesIn(ctx, f, L, model, from, to) {
  drawProducer(ctx, f, model.producer, L.producerTop, PRODUCER_H, from, to);
  for (let c = 0; c < L.consumers; c += 1) {
    const lane = model.lanes[c];
    if (lane) drawLane(ctx, f, lane, L.lanesTop + c * L.laneH, L.laneH, from, to);
  }
}

/**
 * The longest item any lane holds (sim ms): how far back a new item can still reach.
 * @param {RunModel} model
 */
export function laneReach(model) {
  let r = 0;
  for (const lane of [model.producer, ...model.lanes]) {
    r = Math.max(r, lane.sleeps.maxSpan, lane.processes.maxSpan, lane.commands.maxSpan, lane.messages.maxSpan);
  }
  return r;
}
