// @ts-check
// The expires table as a field, drawn on a canvas: the engine folds the table's buckets, in
// bucket order, into cells (src/introspect.rs `expire_field`); each cell is a square, read left
// to right and top to bottom like text. Its colour is the share of its keys already past their
// TTL that nothing has reclaimed yet — what the active cycle is there to find — from blue (none)
// to orange (all); its brightness, how many keys it holds. The 7.0 cursor is a white square; the
// buckets the latest tick's rounds swept are marked in yellow, so the wake behind the cursor
// (clean, blue) and the build-up ahead of it (orange) can be seen.

/** @typedef {import("./engine-types.js").ExpireField} ExpireField */
/** @typedef {{cols: number, rows: number, cell: number}} FieldGrid */
/** @typedef {FieldGrid & {gap: number, n: number, size: number}} DrawnGrid */

const COLORS = {
  empty: "#1f2530",
  live: [127, 180, 255],
  staleRgb: [255, 138, 76],
  cursor: "#ffffff",
  sweep: "#ffd166",
};

/** The largest square drawn for one cell, in CSS px. */
export const MAX_CELL = 24;

/**
 * The grid for `n` cells in a `width`×`height` box: `{cols, rows, cell}` with square cells.
 * @param {number} n
 * @param {number} width
 * @param {number} height
 * @returns {FieldGrid}
 */
export function fieldGrid(n, width, height) {
  if (n <= 0 || width <= 0 || height <= 0) return { cols: 0, rows: 0, cell: 0 };
  // Square cells filling the box, but no bigger than MAX_CELL: a 4-bucket table stays 4 squares.
  let cell = Math.max(2, Math.min(MAX_CELL, Math.floor(Math.sqrt((width * height) / n))));
  for (;;) {
    const cols = Math.max(1, Math.floor(width / cell));
    const rows = Math.ceil(n / cols);
    if (rows * cell <= height || cell <= 2) return { cols, rows, cell };
    cell -= 1;
  }
}

/**
 * How many cells to ask the engine for, for a canvas of this size (about 6 px a cell).
 * @param {number} width
 * @param {number} height
 */
export function cellsFor(width, height) {
  return Math.max(16, Math.min(4096, Math.floor(width / 6) * Math.floor(height / 6)));
}

/**
 * The cell holding bucket `b` when `size` buckets are folded into `n` cells (as the engine folds them).
 * @param {number} b
 * @param {number} size
 * @param {number} n
 */
export function cellOf(b, size, n) {
  return Math.floor((b * n) / size);
}

/**
 * Draws the field's cells (the part that changes only when the field is read again).
 * Returns the grid `{cols, rows, cell, gap, n, size}` for the overlay and hit-testing.
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} width
 * @param {number} height
 * @param {ExpireField | null} field
 * @returns {DrawnGrid}
 */
export function drawFieldCells(ctx, width, height, field) {
  ctx.clearRect(0, 0, width, height);
  const cells = field?.cells ?? [];
  const n = cells.length;
  const grid = fieldGrid(n, width, height);
  const { cols, cell } = grid;
  const gap = cell >= 5 ? 1 : 0;
  const size = field?.table_size ?? 0;

  // Colour: the share of stale keys, from blue (none) to orange (all); brightness: how many
  // keys the cell holds, against a cell half again as full as the average non-empty one.
  let total = 0;
  let used = 0;
  for (const c of cells) {
    const k = c.live + c.stale;
    if (k > 0) {
      total += k;
      used += 1;
    }
  }
  const ref = used === 0 ? 1 : Math.max(1, (total / used) * 1.5);
  const s = cell - gap;
  // Group the squares by colour: a few dozen fillStyle changes for thousands of squares.
  const SHARES = 8;
  const DENSITIES = 4;
  /** @type {Map<string, number[]>} */
  const groups = new Map();
  /**
   * @param {string} key
   * @param {number} x
   * @param {number} y
   */
  const add = (key, x, y) => {
    const list = groups.get(key);
    if (list) list.push(x, y);
    else groups.set(key, [x, y]);
  };
  for (let i = 0; i < n; i += 1) {
    const x = (i % cols) * cell;
    const y = Math.floor(i / cols) * cell;
    const { live, stale } = cells[i];
    const k = live + stale;
    if (k === 0) {
      add("empty", x, y);
      continue;
    }
    // Any stale key at all shows: the first step of the ramp is reserved for "none".
    const share = stale === 0 ? 0 : Math.max(1, Math.round((stale / k) * SHARES));
    const density = Math.max(1, Math.min(DENSITIES, Math.ceil((k / ref) * DENSITIES)));
    add(`${share}:${density}`, x, y);
  }
  const [lr, lg, lb] = COLORS.live;
  const [sr, sg, sb] = COLORS.staleRgb;
  for (const [key, list] of groups) {
    if (key === "empty") {
      ctx.fillStyle = COLORS.empty;
    } else {
      const [share, density] = key.split(":").map(Number);
      const f = share / SHARES;
      const a = 0.35 + (0.65 * density) / DENSITIES;
      const mix = (/** @type {number} */ p, /** @type {number} */ q) => Math.round(p + (q - p) * f);
      ctx.fillStyle = `rgba(${mix(lr, sr)},${mix(lg, sg)},${mix(lb, sb)},${a.toFixed(3)})`;
    }
    for (let j = 0; j < list.length; j += 2) ctx.fillRect(list[j], list[j + 1], s, s);
  }
  return { ...grid, gap, n, size };
}

/**
 * Draws what moves over the cells: the latest tick's sweep (bucket ranges `{from, count, size}`),
 * a highlighted cell, and the cursor. Returns `cellAt(x, y)` for hit-testing.
 * @param {CanvasRenderingContext2D} ctx
 * @param {DrawnGrid} grid
 * @param {{cursorBucket: number | null, sweeps: ReadonlyArray<{from: number, count: number, size: number}>, highlightCell?: number}} o
 */
export function drawFieldOverlay(ctx, grid, { cursorBucket, sweeps, highlightCell = -1 }) {
  const { cols, cell, gap, n, size } = grid;
  if (size > 0 && n > 0 && sweeps.length > 0) {
    /** @type {Set<number>} */
    const marked = new Set();
    for (const sw of sweeps) {
      if (sw.size !== size) continue;
      const count = Math.min(sw.count, size);
      // A cell's worth of buckets at a time.
      const step = Math.max(1, Math.floor(size / n));
      for (let j = 0; j < count; j += step) marked.add(cellOf((sw.from + j) % size, size, n));
      marked.add(cellOf((sw.from + count - 1) % size, size, n));
    }
    ctx.fillStyle = COLORS.sweep;
    for (const i of marked) {
      const x = (i % cols) * cell;
      const y = Math.floor(i / cols) * cell;
      ctx.fillRect(x, y, cell - gap, Math.max(1, Math.round((cell - gap) / 4)));
    }
  }
  if (highlightCell >= 0 && highlightCell < n) {
    const x = (highlightCell % cols) * cell;
    const y = Math.floor(highlightCell / cols) * cell;
    ctx.strokeStyle = "#7ec699";
    ctx.lineWidth = 2;
    ctx.strokeRect(x - 1, y - 1, cell - gap + 2, cell - gap + 2);
  }
  if (cursorBucket !== null && size > 0 && n > 0) {
    const i = cellOf(cursorBucket, size, n);
    const x = (i % cols) * cell;
    const y = Math.floor(i / cols) * cell;
    ctx.strokeStyle = "#000";
    ctx.lineWidth = 3;
    ctx.strokeRect(x - 1.5, y - 1.5, cell - gap + 3, cell - gap + 3);
    ctx.strokeStyle = COLORS.cursor;
    ctx.lineWidth = 2;
    ctx.strokeRect(x - 1, y - 1, cell - gap + 2, cell - gap + 2);
  }
  return {
    /**
     * The cell under a point, or -1.
     * @param {number} px
     * @param {number} py
     */
    cellAt(px, py) {
      if (cell === 0) return -1;
      const cx = Math.floor(px / cell);
      const cy = Math.floor(py / cell);
      if (cx < 0 || cx >= cols || cy < 0) return -1;
      const i = cy * cols + cx;
      return i < n ? i : -1;
    },
  };
}
