// The expiry view's field panel: a caption, a legend and the canvas expiry-field.js draws on,
// with its size kept in step with its box (and the screen's pixel density), a tooltip naming the
// buckets under the pointer, and a click that asks the view to list those buckets.
//
// The cells are drawn into an off-screen layer once per field read; each redraw copies that
// layer and draws the cursor and the latest sweep over it, so following the cursor costs a copy.

import { number } from "./expiry-cycle.js";
import { drawFieldCells, drawFieldOverlay, cellsFor, cellOf } from "./expiry-field.js";

/** Room around the squares, so the cursor's outline shows on the edge ones too (CSS px). */
const PAD = 2;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The buckets cell `i` covers when `field.table_size` buckets are folded into its cells. */
export function cellBuckets(field, i) {
  if (!field || field.cells.length === 0) return null;
  const n = field.cells.length;
  const size = field.table_size;
  return { from: Math.ceil((i * size) / n), to: Math.ceil(((i + 1) * size) / n) - 1 };
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
  const legend = el("span", "expiry-legend");
  for (const [cls, text] of [
    ["sw-ramp", "no key stale → all stale (past TTL, not deleted yet)"],
    ["sw-cursor", "cursor"],
    ["sw-sweep", "swept by the latest tick"],
  ]) {
    const item = el("span", "legend-item");
    item.append(el("span", `swatch ${cls}`), document.createTextNode(text));
    legend.append(item);
  }
  head.append(caption, legend);
  const wrap = el("div", "expiry-field-wrap");
  const canvas = el("canvas", "expiry-field-canvas");
  canvas.id = "expiry-field";
  canvas.setAttribute("role", "img");
  const tip = el("div", "expiry-tip");
  tip.hidden = true;
  wrap.append(canvas, tip);
  box.append(head, wrap);

  let size = { width: 0, height: 0, dpr: 1 };
  let field = null; // the field last drawn
  let layout = null; // hit-testing for the last drawing
  let hover = -1;
  const layer = document.createElement("canvas");
  let layerOf = null; // {field, width, height, dpr} the layer was drawn for
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
      const range = i >= 0 ? cellBuckets(field, i) : null;
      tip.hidden = range === null;
      if (range) {
        const c = field.cells[i];
        const where = range.from === range.to ? `bucket #${number(range.from)}` : `buckets #${number(range.from)}–#${number(range.to)}`;
        tip.textContent = `${where}: ${number(c.live)} with TTL ahead, ${number(c.stale)} stale. Click to list them.`;
      }
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

  return {
    /** How many cells to ask the engine for, for the canvas as it is now. */
    cellsWanted() {
      return cellsFor((size.width || 600) - 2 * PAD, (size.height || 100) - 2 * PAD);
    },

    /**
     * @param {object} m
     * @param {object|null} m.field           the engine's expire_field, or null
     * @param {number} m.db
     * @param {{bucket: number, size: number, approx: boolean}|null} m.cursor
     * @param {boolean} m.classic             the classic algorithm has no cursor
     * @param {Array<{from: number, count: number, size: number}>} m.sweeps
     * @param {number|null} m.pinned          a bucket the user picked
     */
    draw({ field: f, db, cursor, classic, sweeps, pinned }) {
      field = f;
      const { width, height, dpr } = size;
      const tableSize = field?.table_size ?? 0;
      const cursorBucket = cursor && field && cursor.size === tableSize && !classic ? cursor.bucket : null;
      let text;
      if (!field || tableSize === 0) {
        text = `db ${db} has no key with a TTL: the expires table is empty. Populate it above, or SET k v EX 30 in the console.`;
      } else {
        const per = field.buckets_per_cell;
        const cells = per <= 1 ? "1 per square" : `${number(Math.round(per))} per square`;
        const cur = classic
          ? "classic picks keys at random: no cursor"
          : cursorBucket === null
            ? ""
            : cursor.approx
              ? `cursor past #${number(cursorBucket)} (the cycle went on past the 64 rounds the engine lists)`
              : `cursor at #${number(cursorBucket)}`;
        text = `Expires table: ${number(tableSize)} buckets (${cells}, in order)${cur ? ` · ${cur}` : ""}`;
      }
      if (caption.textContent !== text) {
        caption.textContent = text;
        canvas.setAttribute("aria-label", text);
      }
      canvas.dataset.cells = String(field?.cells.length ?? 0);
      canvas.dataset.cursorBucket = cursorBucket === null ? "" : String(cursorBucket);
      if (width < 10 || height < 10) return;
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
        lctx.setTransform(dpr, 0, 0, dpr, PAD * dpr, PAD * dpr);
        grid = drawFieldCells(lctx, width - 2 * PAD, height - 2 * PAD, field);
        layerOf = { field, width, height, dpr };
      }
      const ctx = canvas.getContext("2d");
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, pw, ph);
      ctx.drawImage(layer, 0, 0);
      ctx.setTransform(dpr, 0, 0, dpr, PAD * dpr, PAD * dpr);
      const highlight = pinned !== null && tableSize > 0 ? cellOf(pinned % tableSize, tableSize, field.cells.length) : -1;
      layout = drawFieldOverlay(ctx, grid, { cursorBucket, sweeps, highlightCell: highlight });
    },
  };
}
