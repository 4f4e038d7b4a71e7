// @ts-check
// One delay-queue run's timeline on a canvas: the time axis (wall-clock), the tasks as marks at
// their due time in one row per fate, the producer's lane and one lane per consumer with its
// commands (empty polls short and grey), claims, processing spans, sleeps, pub/sub messages and
// crashes (shaded), and the moving "now".
//
// Only the visible window is drawn (delay-queue-lanes-canvas.js), and the lanes through a
// cached layer (below). The axis window is shared (the view owns it); wheel, drag and the
// keyboard ask the view to zoom or pan it. The geometry and the tooltip's sentences are
// delay-queue-timeline-model.js; what came from the run reaches the page only through the
// tooltip's textContent.

import { drawAxis, drawBackground, drawCrashes, drawGutter, drawLanesIn, drawNow, drawTasks, laneReach } from "./delay-queue-lanes-canvas.js";
import { AXIS_H, GUTTER, describeAt, timeScale, timelineLabel, timelineLayout } from "./delay-queue-timeline-model.js";

export { LANE_COLORS } from "./delay-queue-lanes-canvas.js";
export { GUTTER, tickStep, wallClock } from "./delay-queue-timeline-model.js";

/** @typedef {import("./delay-queue-model.js").RunModel} RunModel */
/** @typedef {import("./delay-queue-timeline-model.js").TimelineInfo} TimelineInfo */
/** @typedef {import("./delay-queue-lanes-canvas.js").Frame} Frame */
/** @typedef {{from: number, to: number}} Window */

/**
 * A 2D context of a canvas that has one (the page's canvases always do).
 * @param {HTMLCanvasElement} canvas
 */
const context2d = (canvas) => /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));

/**
 * The lanes are drawn through a cached layer. A lane item is complete when its event arrives
 * (a processing at its end, a command when executed), so what lies further back than the
 * longest item seen cannot change: while the window stays put, the layer keeps the lanes up to
 * there and each draw adds only the stretch since, clipped to the right of it. The layer is
 * redrawn whole when the window, the size or the run changes, when an item longer than the
 * margin arrives, or once the fresh stretch grows past a twentieth of the window.
 */
function createLaneLayer() {
  const layer = document.createElement("canvas");
  const fresh = document.createElement("canvas");
  let key = "";
  let upTo = Number.NEGATIVE_INFINITY;
  let reachSeen = 0;
  let draws = 0;

  /**
   * @param {HTMLCanvasElement} target
   * @param {HTMLCanvasElement} c
   */
  const sizeLike = (target, c) => {
    if (c.width !== target.width || c.height !== target.height) {
      c.width = target.width;
      c.height = target.height;
    }
  };

  return {
    /**
     * Draws the lanes onto `ctx` (the visible canvas, `canvas`).
     * @param {CanvasRenderingContext2D} ctx
     * @param {HTMLCanvasElement} canvas
     * @param {Frame} f
     * @param {import("./delay-queue-timeline-model.js").TimelineLayout} L
     * @param {RunModel} model
     * @param {{now: number, serial: number, dpr: number}} o
     */
    draw(ctx, canvas, f, L, model, { now, serial, dpr }) {
      const { vp, pxMs, x0, x1, width, height } = f;
      // A mark reaches up to 5 px either side of its time (the claim triangle): each side of
      // the layer's edge also draws the marks just across it, and the layer keeps clear of
      // where an item still to come could reach.
      const spill = 6 / pxMs;
      const margin = 8 / pxMs;
      const span = vp.to - vp.from;
      const reach = laneReach(model) + margin;
      const k = `${vp.from}|${vp.to}|${width}|${height}|${dpr}|${serial}`;
      const tOf = (/** @type {number} */ x) => vp.from + ((x - GUTTER) / (x1 - x0)) * span;
      if (k !== key || reach > reachSeen || now - upTo > span / 20 + reach) {
        sizeLike(canvas, layer);
        const lctx = context2d(layer);
        lctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        lctx.clearRect(0, 0, width, height);
        // The layer's edge on a whole pixel, so the layer and the fresh stretch split pixels
        // exactly (no pixel half from each).
        const edgeX = Math.floor(f.xOf(Math.min(now - reach, vp.to + margin)));
        upTo = tOf(edgeX);
        reachSeen = Math.max(reach, reachSeen === 0 ? reach : reachSeen);
        key = k;
        lctx.save();
        lctx.beginPath();
        lctx.rect(x0, AXIS_H, Math.max(0, Math.min(x1, Math.round(f.xOf(upTo))) - x0), height - AXIS_H);
        lctx.clip();
        drawLanesIn(lctx, f, L, model, vp.from - margin, upTo + spill);
        lctx.restore();
        draws += 1;
      }
      // The fresh stretch, right of the layer's edge — drawn on a transparent canvas too, so
      // that every lane pixel is composited the same way whichever side of the edge it is on.
      sizeLike(canvas, fresh);
      const fctx = context2d(fresh);
      fctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      fctx.clearRect(0, 0, width, height);
      const edge = Math.max(x0, Math.round(f.xOf(upTo)));
      if (edge < x1) {
        fctx.save();
        fctx.beginPath();
        fctx.rect(edge, AXIS_H, x1 - edge, height - AXIS_H);
        fctx.clip();
        drawLanesIn(fctx, f, L, model, Math.max(vp.from, upTo) - reach - spill, vp.to + margin);
        fctx.restore();
      }
      ctx.save();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.drawImage(layer, 0, 0);
      ctx.drawImage(fresh, 0, 0);
      ctx.restore();
    },
    /** How often the layer was redrawn whole. */
    draws: () => draws,
    /** Where the layer ends (sim ms). */
    edge: () => upTo,
    /** The next draw draws every lane whole. */
    forget() {
      key = "";
    },
  };
}

/**
 * Wheel, drag and keys on the canvas ask the view to zoom or pan the shared window; hovering
 * shows what is under the pointer.
 * @param {HTMLCanvasElement} canvas
 * @param {HTMLElement} tip
 * @param {object} o
 * @param {() => Window} o.viewport
 * @param {() => number} o.plotW   the plot's width (px)
 * @param {() => number} o.width   the canvas's CSS width
 * @param {() => number} o.now
 * @param {(x: number, y: number) => string | null} o.describe
 * @param {(centerMs: number, factor: number) => void} o.onZoom
 * @param {(deltaMs: number) => void} o.onPan
 * @param {(key: string) => boolean} o.onKey
 */
function bindInput(canvas, tip, { viewport, plotW, width, now, describe, onZoom, onPan, onKey }) {
  /** @type {{x: number, moved: boolean} | null} */
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
    const text = describe(e.clientX - rect.left, e.clientY - rect.top);
    tip.hidden = text === null;
    if (text !== null) {
      tip.textContent = text;
      const x = e.clientX - rect.left;
      tip.style.left = `${Math.min(Math.max(0, x + 12), Math.max(0, width() - 320))}px`;
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
      const center = vp.from + ((e.clientX - rect.left - GUTTER) / plotW()) * (vp.to - vp.from);
      onZoom(center, Math.exp(e.deltaY * 0.002));
    },
    { passive: false },
  );
  canvas.addEventListener("keydown", (e) => {
    const vp = viewport();
    const span = vp.to - vp.from;
    const t = now();
    const center = t >= vp.from && t <= vp.to ? t : (vp.from + vp.to) / 2;
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
        onZoom(center, 0.5);
        break;
      case "-":
      case "_":
        onZoom(center, 2);
        break;
      default:
        handled = onKey(e.key);
    }
    if (handled) e.preventDefault();
  });
}

/**
 * @param {HTMLElement} root       an empty box for the canvas
 * @param {object} opts
 * @param {string} opts.label      "A" / "B" (for the canvas's accessible name)
 * @param {() => Window} opts.viewport   the shared window, sim ms
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

  /** @type {RunModel | null} */
  let model = null;
  let modelSerial = 0; // changes with the model (a new run), so the lane layer is redrawn
  /** @type {TimelineInfo} */
  let info = { now: 0, startMs: 0, durationMs: 1, consumers: 1 };
  let width = 0;
  let height = 0;
  let drawn = { tasks: 0, marks: 0 };
  const lanes = createLaneLayer();

  const layout = () => timelineLayout(info.consumers, model?.lanes.length ?? 1);

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

  function draw() {
    if (!model || width === 0) return false;
    resize();
    const vp = viewport();
    const ctx = context2d(canvas);
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const L = layout();
    const scale = timeScale(width, vp);
    /** @type {Frame} */
    const f = { width, height, vp, xOf: scale.xOf, pxMs: scale.pxMs, x0: GUTTER, x1: GUTTER + scale.plotW };
    drawBackground(ctx, f, info);
    drawAxis(ctx, f, info.startMs);
    drawGutter(ctx, f, L, model);
    ctx.save();
    ctx.beginPath();
    ctx.rect(f.x0, AXIS_H, f.x1 - f.x0, height - AXIS_H);
    ctx.clip();
    const marks = drawTasks(ctx, f, L, model);
    drawn = { tasks: model.tasks.size, marks };
    lanes.draw(ctx, canvas, f, L, model, { now: info.now, serial: modelSerial, dpr });
    for (let c = 0; c < L.consumers; c += 1) {
      const lane = model.lanes[c];
      if (lane) drawCrashes(ctx, f, lane, L.lanesTop + c * L.laneH, L.laneH, info.now);
    }
    ctx.restore();
    drawNow(ctx, f, info.now);
    canvas.setAttribute("aria-label", timelineLabel(label, model, vp, info.startMs));
    canvas.dataset.marks = String(marks);
    return true;
  }

  const describe = (/** @type {number} */ x, /** @type {number} */ y) => describeAt(model, info, viewport(), width, x, y);
  bindInput(canvas, tip, {
    viewport,
    plotW: () => timeScale(width, viewport()).plotW,
    width: () => width,
    now: () => info.now,
    describe,
    onZoom,
    onPan,
    onKey,
  });

  return {
    /**
     * The model to draw and the clock it is at.
     * @param {RunModel} nextModel
     * @param {Partial<TimelineInfo>} nextInfo
     */
    setRun(nextModel, nextInfo) {
      if (nextModel !== model) modelSerial += 1;
      model = nextModel;
      info = { ...info, ...nextInfo };
    },
    draw,
    drawn: () => drawn,
    /** How often the lane layer was redrawn whole (tests, profiling). */
    layerDraws: lanes.draws,
    /** Where the lane layer ends (sim ms; tests, profiling). */
    layerEdge: lanes.edge,
    /** Forget the lane layer: the next draw draws every lane whole. */
    forgetLayer: lanes.forget,
    describeAt: describe,
    canvas,
    width: () => width,
  };
}
