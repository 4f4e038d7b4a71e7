// @ts-check
// The expiry view's field panel: a caption, a legend and the canvas expiry-field.js draws on,
// with its size kept in step with its box (and the screen's pixel density), a tooltip naming the
// buckets under the pointer, and a click that asks the view to list those buckets. DOM only:
// the words come from expiry-table-model.js.
//
// The cells are drawn into an off-screen layer once per field read; each redraw copies that
// layer and draws the cursor and the latest sweep over it, so following the cursor costs a copy.

import { el } from "../dom.js";
import { t } from "../i18n.js";
import { drawFieldCells, drawFieldOverlay, cellsFor, cellOf } from "./expiry-field.js";
import { cellBuckets, cellTip, fieldCaption, fieldCursor } from "./expiry-table-model.js";

/** @typedef {import("./expiry-model.js").ExpiryState} ExpiryState */
/** @typedef {import("./engine-types.js").ExpireField} ExpireField */

/** Room around the squares, so the cursor's outline shows on the edge ones too (CSS px). */
const PAD = 2;

function createLegend() {
  const legend = el("span", "expiry-legend");
  for (const [cls, text] of [
    ["sw-ramp", t("no key stale → all stale (past TTL, not deleted yet)")],
    ["sw-cursor", t("cursor")],
    ["sw-sweep", t("swept by the latest tick")],
  ]) {
    const item = el("span", "legend-item");
    item.append(el("span", `swatch ${cls}`), document.createTextNode(text));
    legend.append(item);
  }
  return legend;
}

/**
 * @param {HTMLElement} box   emptied; gets the caption, legend and canvas
 * @param {object} handlers
 * @param {(cellsChanged: boolean) => void} handlers.resized  the canvas changed size
 * @param {(bucket: number) => void} handlers.pick            a cell was clicked: its first bucket
 */
export function createFieldPanel(box, { resized, pick }) {
  box.replaceChildren();
  const head = el("div", "expiry-field-head");
  const caption = el("span", "expiry-caption");
  caption.id = "expiry-field-caption";
  head.append(caption, createLegend());
  const wrap = el("div", "expiry-field-wrap");
  const canvas = el("canvas", "expiry-field-canvas");
  canvas.id = "expiry-field";
  canvas.setAttribute("role", "img");
  const tip = el("div", "expiry-tip");
  tip.hidden = true;
  wrap.append(canvas, tip);
  box.append(head, wrap);

  let size = { width: 0, height: 0, dpr: 1 };
  /** @type {ExpireField | null} the field last drawn */
  let field = null;
  /** @type {ReturnType<typeof drawFieldOverlay> | null} hit-testing for the last drawing */
  let layout = null;
  let hover = -1;
  const layer = document.createElement("canvas");
  /** @type {{field: ExpireField | null, width: number, height: number, dpr: number} | null} what the layer was drawn for */
  let layerOf = null;
  /** @type {ReturnType<typeof drawFieldCells> | null} */
  let grid = null;

  new ResizeObserver(() => {
    const rect = wrap.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    if (rect.width !== size.width || rect.height !== size.height || dpr !== size.dpr) {
      const before = cellsFor(size.width, size.height);
      size = { width: rect.width, height: rect.height, dpr };
      resized(cellsFor(rect.width, rect.height) !== before);
    }
  }).observe(wrap);

  wrap.addEventListener("pointermove", (event) => {
    if (!layout || !field) return;
    const i = layout.cellAt(event.offsetX - PAD, event.offsetY - PAD);
    if (i !== hover) {
      hover = i;
      const text = cellTip(field, i);
      tip.hidden = text === null;
      if (text !== null) tip.textContent = text;
    }
    if (!tip.hidden) {
      tip.style.left = `${Math.min(event.offsetX + 12, Math.max(0, size.width - 240))}px`;
      tip.style.top = `${event.offsetY + 14}px`;
    }
  });
  wrap.addEventListener("pointerleave", () => {
    hover = -1;
    tip.hidden = true;
  });
  wrap.addEventListener("click", (event) => {
    if (!layout) return;
    const i = layout.cellAt(event.offsetX - PAD, event.offsetY - PAD);
    const range = i >= 0 ? cellBuckets(field, i) : null;
    if (range) pick(range.from);
  });

  /**
   * The canvas at its box's size, the cells copied from the layer (redrawn when the field or
   * the size changed). Returns the context positioned for the overlay, or null.
   */
  function drawLayer() {
    const { width, height, dpr } = size;
    if (width < 10 || height < 10) return null;
    const pw = Math.round(width * dpr);
    const ph = Math.round(height * dpr);
    if (canvas.width !== pw || canvas.height !== ph) {
      canvas.width = pw;
      canvas.height = ph;
    }
    if (!layerOf || layerOf.field !== field || layerOf.width !== width || layerOf.height !== height || layerOf.dpr !== dpr) {
      layer.width = pw;
      layer.height = ph;
      const lctx = layer.getContext("2d");
      if (lctx === null) return null;
      lctx.setTransform(dpr, 0, 0, dpr, PAD * dpr, PAD * dpr);
      grid = drawFieldCells(lctx, width - 2 * PAD, height - 2 * PAD, field);
      layerOf = { field, width, height, dpr };
    }
    const ctx = canvas.getContext("2d");
    if (ctx === null) return null;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, pw, ph);
    ctx.drawImage(layer, 0, 0);
    ctx.setTransform(dpr, 0, 0, dpr, PAD * dpr, PAD * dpr);
    return ctx;
  }

  return {
    /** How many cells to ask the engine for, for the canvas as it is now. */
    cellsWanted() {
      return cellsFor((size.width || 600) - 2 * PAD, (size.height || 100) - 2 * PAD);
    },

    /**
     * Draws the field of `s` with the cursor, the latest sweeps and the bucket the user picked.
     * @param {ExpiryState} s
     */
    draw(s) {
      field = s.field;
      const tableSize = field?.table_size ?? 0;
      const cursorBucket = fieldCursor(s);
      const text = fieldCaption(s);
      if (caption.textContent !== text) {
        caption.textContent = text;
        canvas.setAttribute("aria-label", text);
      }
      canvas.dataset.cells = String(field?.cells.length ?? 0);
      canvas.dataset.cursorBucket = cursorBucket === null ? "" : String(cursorBucket);
      const ctx = drawLayer();
      if (ctx === null || grid === null) return;
      const highlight = s.pinned !== null && field !== null && tableSize > 0 ? cellOf(s.pinned % tableSize, tableSize, field.cells.length) : -1;
      layout = drawFieldOverlay(ctx, grid, { cursorBucket, sweeps: s.sweeps, highlightCell: highlight });
    },
  };
}
