// @ts-check
// Drawing a window of a skiplist on a <canvas>: pure functions of the data the engine gave
// (a `zset_window`, a placed search path) and the view's window/zoom. No state, no DOM besides
// the 2D context; the member names drawn here are canvas text, never markup.
//
// The picture, bottom up:
//
//   L3  head ────────────────────── 4 ─────────────────────▶ ▇ ──── 3 ───────▶ ⋯
//   L2  head ──── 2 ────▶ ▇ ────── 2 ─────▶ ▇ ─────────────▶ ▇ ──── 2 ──▶ ▇ ─▶ ⋯
//   L1  head ──▶ ▇ ──▶ ▇ ──▶ ▇ ──▶ ▇ ──▶ ▇ ──▶ ▇ ──▶ ▇ ──▶ ▇ ──▶ ▇ ──▶ ▇ ──▶ ▇ ─▶ NIL
//             alice  bob  …                                                   (member, score)
//
// One column per member in rank order; a column's height is the level the node drew when it
// was inserted. Each lane is a level; a link goes to the next node at least that tall and is
// labelled with its span (members it jumps). Links that leave the window end in an arrow at the
// edge with their span; links coming from before the window are dashed.

import { number } from "../format.js";
import { showBidiControls } from "../dom.js";
import { t } from "../i18n.js";

/** @typedef {import("./engine-types.js").ZsetWindow} ZsetWindow */
/** @typedef {import("./engine-types.js").ZsetEntry} ZsetEntry */
/** @typedef {import("./zset-search-path.js").PlacedPath} PlacedPath */
/** @typedef {CanvasRenderingContext2D} Ctx */
/** @typedef {ReturnType<typeof layoutSkiplist>} SkiplistLayout */
/**
 * What to draw: a `zset_window` (skiplist) covering ranks start..start+cols (may be shorter);
 * the member a command just placed with its flash (0..1); the window index under the pointer
 * (-1: none); a placed search path and how much of it is revealed (0..1).
 * @typedef {{window: ZsetWindow, start: number, cols: number, landed: {member: string, flash: number} | null,
 *            hover: number, path: {placed: PlacedPath, reveal: number} | null}} SkiplistPicture
 */

/** Node colours by height: ordinary nodes stay quiet, the rare tall ones stand out. */
const LEVEL_COLORS = ["#3d4b63", "#3f6f9f", "#2f95b5", "#34a88f", "#7db856", "#cbb34a", "#e08c45", "#e2603f", "#dc382d"];

const COLORS = {
  lane: "#1a2029",
  laneLabel: "#8a919c",
  link: "#6d7b90",
  linkIncoming: "#4a5566",
  span: "#b8c0cc",
  header: "#2a3140",
  headerText: "#d4d7dd",
  text: "#d4d7dd",
  muted: "#8a919c",
  landed: "#ff5a4e",
  hover: "rgba(127, 180, 255, 0.14)",
  path: "#ffd166",
  refused: "#ff7b72",
  found: "#7ee787",
};

export const FONT = '11px ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace';
const SMALL_FONT = '10px ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace';

const GUTTER = 34; // lane labels
const HEAD_W = 40; // the header node
const END_W = 42; // NIL, or "more" past the window
const TOP = 30; // room above the tallest tower for the landed tag

/** @param {number} height */
export function levelColor(height) {
  return LEVEL_COLORS[Math.min(Math.max(height, 1), LEVEL_COLORS.length) - 1];
}

/**
 * Where things go for a given canvas size and window. The view uses it for hit testing too.
 *
 * @param {number} width   CSS px
 * @param {number} height  CSS px
 * @param {{start: number, cols: number, maxLevel: number}} w
 */
export function layoutSkiplist(width, height, { start, cols, maxLevel }) {
  const breakW = start > 0 ? 30 : 10;
  const x0 = GUTTER + HEAD_W + breakW;
  const colW = Math.max(0.5, (width - x0 - END_W) / Math.max(1, cols));
  const labels = colW >= 64 ? "horizontal" : colW >= 13 ? "vertical" : "none";
  const rankRowH = 16;
  const labelH = rankRowH + (labels === "horizontal" ? 34 : labels === "vertical" ? Math.min(130, Math.max(40, height * 0.3)) : 2);
  const laneArea = Math.max(20, height - TOP - labelH - 6);
  const levels = Math.max(1, maxLevel);
  const laneH = Math.min(40, laneArea / levels);
  // Few levels leave room: centre the drawing instead of leaving a void above it.
  const slack = Math.max(0, laneArea - laneH * levels);
  const baseY = height - labelH - 6 - slack / 2; // bottom of lane 1
  const topY = baseY - laneH * levels; // top of the highest lane
  return {
    width,
    height,
    start,
    cols,
    x0,
    colW,
    breakW,
    labels,
    labelH,
    rankRowH,
    laneH,
    baseY,
    topY,
    levels,
    headX: GUTTER + 4,
    headW: HEAD_W - 10,
    endX: width - END_W,
    /** Centre y of a lane, 1-based level. */
    laneY: (/** @type {number} */ level) => baseY - (level - 0.5) * laneH,
    /**
     * Centre x of the column at a 0-based rank (clamped to the break / end areas).
     * @param {number} rank
     */
    rankX(rank) {
      if (rank < 0) return GUTTER + 4 + (HEAD_W - 10) / 2;
      if (rank < start) return x0 - breakW / 2;
      if (rank >= start + cols) return width - END_W / 2;
      return x0 + (rank - start + 0.5) * colW;
    },
    /**
     * The window index under an x, or -1.
     * @param {number} x
     */
    indexAt(x) {
      if (x < x0 || x >= x0 + cols * colW) return -1;
      return Math.floor((x - x0) / colW);
    },
  };
}

/**
 * @param {Ctx} ctx
 * @param {number} x
 * @param {number} y
 * @param {number} dir
 * @param {number} size
 */
function arrowHead(ctx, x, y, dir, size) {
  ctx.beginPath();
  ctx.moveTo(x, y);
  ctx.lineTo(x - dir * size, y - size * 0.6);
  ctx.lineTo(x - dir * size, y + size * 0.6);
  ctx.closePath();
  ctx.fill();
}

/**
 * `text` cut with an ellipsis to fit `maxWidth`.
 * @param {Ctx} ctx
 * @param {string} text
 * @param {number} maxWidth
 */
function fitText(ctx, text, maxWidth) {
  if (maxWidth <= 0) return "";
  if (ctx.measureText(text).width <= maxWidth) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(`${text.slice(0, mid)}…`).width <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? "" : `${text.slice(0, lo)}…`;
}

/**
 * A score short enough for a column label.
 * @param {number} score
 */
function formatScore(score) {
  if (Number.isInteger(score) && Math.abs(score) < 1e15) return String(score);
  const s = String(score);
  return s.length > 12 ? score.toPrecision(6) : s;
}

/**
 * A link along a lane from x1 to x2 with an arrow and (room permitting) its span.
 * @param {Ctx} ctx
 * @param {SkiplistLayout} L
 * @param {number} x1
 * @param {number} x2
 * @param {number} y
 * @param {{span: number, showSpan: boolean, dashed?: boolean, toEdge?: boolean}} link
 */
function drawLink(ctx, L, x1, x2, y, { span, showSpan, dashed = false, toEdge = false }) {
  const length = x2 - x1;
  if (length < 1) return;
  ctx.strokeStyle = dashed ? COLORS.linkIncoming : COLORS.link;
  ctx.fillStyle = ctx.strokeStyle;
  ctx.setLineDash(dashed ? [4, 3] : []);
  ctx.beginPath();
  ctx.moveTo(x1, y);
  ctx.lineTo(x2, y);
  ctx.stroke();
  ctx.setLineDash([]);
  const head = Math.min(6, Math.max(2.5, L.laneH * 0.22));
  if (length > head * 1.6) arrowHead(ctx, x2, y, 1, head);
  if (showSpan && span > 0) {
    const text = toEdge ? `+${number(span)}` : number(span);
    const w = ctx.measureText(text).width;
    if (length >= w + 10 || toEdge) {
      ctx.fillStyle = COLORS.span;
      const x = toEdge ? Math.min(x2 - w / 2 - 2, L.width - w / 2 - 2) : (x1 + x2) / 2;
      ctx.fillText(text, x, y - Math.min(8, L.laneH * 0.3) - 1);
    }
  }
}

/**
 * Draws the window (see SkiplistPicture). Returns what it drew, for the view's data attributes.
 * @param {Ctx} ctx
 * @param {number} width   CSS px
 * @param {number} height  CSS px
 * @param {SkiplistPicture} model
 */
export function drawSkiplist(ctx, width, height, model) {
  const { window: win, start, cols } = model;
  const entries = win.entries;
  const count = entries.length;
  const L = layoutSkiplist(width, height, { start, cols, maxLevel: win.max_level });

  ctx.clearRect(0, 0, width, height);
  ctx.font = FONT;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  drawLanes(ctx, L);

  const g = columnGeometry(L);
  // Hover band and the landed member's band.
  const landed = model.landed;
  const landedIndex = landed ? entries.findIndex((e) => e.member === landed.member) : -1;
  const bandTop = Math.max(0, L.topY - 24);
  const bandH = L.baseY + L.labelH - bandTop;
  if (model.hover >= 0 && model.hover < count) {
    ctx.fillStyle = COLORS.hover;
    ctx.fillRect(g.colLeft(model.hover), bandTop, L.colW, bandH);
  }
  if (landed && landedIndex >= 0) {
    const a = 0.14 + 0.3 * (landed.flash ?? 0);
    ctx.fillStyle = `rgba(255, 90, 78, ${a.toFixed(3)})`;
    ctx.fillRect(g.colLeft(landedIndex), bandTop, L.colW, bandH);
  }

  // The header node.
  ctx.fillStyle = COLORS.header;
  for (let level = 1; level <= L.levels; level += 1) {
    const y = L.laneY(level);
    ctx.fillRect(L.headX, y - g.boxH / 2, L.headW, g.boxH);
  }
  ctx.fillStyle = COLORS.headerText;
  ctx.fillText(t("head"), L.headX + L.headW / 2, L.baseY + 10);

  const links = drawLinks(ctx, L, g, win, start);

  // Towers.
  for (let i = 0; i < count; i += 1) {
    const e = entries[i];
    const x = g.colLeft(i) + g.cellInset;
    const w = Math.max(0.75, L.colW - 2 * g.cellInset);
    ctx.fillStyle = i === landedIndex ? COLORS.landed : levelColor(e.level);
    for (let level = 1; level <= e.level; level += 1) {
      const y = L.laneY(level);
      ctx.fillRect(x, y - g.boxH / 2, w, g.boxH);
    }
  }

  drawEnds(ctx, L, g, win, start);
  drawLabels(ctx, L, entries, landedIndex);
  if (landedIndex >= 0) drawLandedTag(ctx, L, g, entries[landedIndex], landedIndex);

  const pathShown = model.path ? drawSearchPath(ctx, L, model.path, start, start + count) : 0;
  return { lanes: L.levels, columns: count, links, pathShown, layout: L };
}

/**
 * Where a column's boxes go: their inset in the column and height in a lane.
 * @param {SkiplistLayout} L
 */
function columnGeometry(L) {
  return {
    cellInset: L.colW >= 8 ? Math.max(1, L.colW * 0.2) : L.colW >= 3 ? 0.5 : 0,
    boxH: Math.max(1, L.laneH * (L.laneH >= 8 ? 0.62 : 0.9)),
    colLeft: (/** @type {number} */ i) => L.x0 + i * L.colW,
  };
}

/**
 * Lanes and their labels.
 * @param {Ctx} ctx
 * @param {SkiplistLayout} L
 */
function drawLanes(ctx, L) {
  for (let level = 1; level <= L.levels; level += 1) {
    const y = L.laneY(level);
    ctx.fillStyle = level % 2 === 0 ? "rgba(255,255,255,0.025)" : "rgba(255,255,255,0)";
    ctx.fillRect(GUTTER, y - L.laneH / 2, L.width - GUTTER, L.laneH);
    if (L.laneH >= 9 || level === 1 || level === L.levels) {
      ctx.fillStyle = COLORS.laneLabel;
      ctx.textAlign = "right";
      ctx.fillText(`L${level}`, GUTTER - 6, y);
      ctx.textAlign = "center";
    }
  }
}

/**
 * Links, lane by lane: from the header (or from before the window), then from each node in the
 * window at least that tall. Returns how many were drawn.
 * @param {Ctx} ctx
 * @param {SkiplistLayout} L
 * @param {ReturnType<typeof columnGeometry>} g
 * @param {ZsetWindow} win
 * @param {number} start
 */
function drawLinks(ctx, L, g, win, start) {
  const entries = win.entries;
  const count = entries.length;
  const end = start + count; // first rank past what we have
  const reachesEnd = end >= win.len;
  const { cellInset, colLeft } = g;
  let links = 0;
  const headRight = L.headX + L.headW;
  for (let j = 0; j < L.levels; j += 1) {
    const y = L.laneY(j + 1);
    const showSpan = j >= 1;
    const headSpan = win.header_spans[j] ?? 0;
    const headTarget = headSpan - 1; // 0-based rank it points at
    const firstTall = entries.findIndex((e) => e.level > j);
    if (headSpan > 0 && headTarget >= start && headTarget < end) {
      const i = headTarget - start;
      drawLink(ctx, L, headRight + 1, colLeft(i) + cellInset - 1, y, { span: headSpan, showSpan });
      links += 1;
    } else if (headSpan > 0 && headTarget >= end) {
      drawLink(ctx, L, headRight + 1, L.endX + 8, y, { span: headSpan, showSpan, toEdge: true });
      links += 1;
    } else if (headSpan > 0) {
      // The header's link lands before the window; this lane enters from an earlier node.
      const x2 = firstTall >= 0 ? colLeft(firstTall) + cellInset - 1 : L.endX + 8;
      drawLink(ctx, L, L.x0 - L.breakW + 4, x2, y, { span: 0, showSpan: false, dashed: true });
    }
    for (let i = 0; i < count; i += 1) {
      const e = entries[i];
      if (e.level <= j) continue;
      const span = e.spans[j] ?? 0;
      const x1 = colLeft(i) + L.colW - cellInset + 1;
      if (span === 0) {
        // NIL: nothing taller follows.
        const x2 = reachesEnd ? L.endX + 6 : L.endX + 8;
        drawLink(ctx, L, x1, x2, y, { span: 0, showSpan: false });
        links += 1;
        continue;
      }
      const target = e.rank + span;
      if (target < end) {
        drawLink(ctx, L, x1, colLeft(target - start) + cellInset - 1, y, { span, showSpan });
      } else {
        drawLink(ctx, L, x1, L.endX + 8, y, { span, showSpan, toEdge: true });
      }
      links += 1;
    }
  }
  return links;
}

/**
 * The end of the list (NIL) or what lies past the window, and what lies before it.
 * @param {Ctx} ctx
 * @param {SkiplistLayout} L
 * @param {ReturnType<typeof columnGeometry>} g
 * @param {ZsetWindow} win
 * @param {number} start
 */
function drawEnds(ctx, L, g, win, start) {
  const end = start + win.entries.length;
  ctx.fillStyle = COLORS.muted;
  const endCx = L.endX + END_W / 2 + 2;
  if (end >= win.len) {
    const { boxH } = g;
    ctx.fillStyle = COLORS.header;
    ctx.fillRect(L.endX + 8, L.laneY(L.levels) - boxH / 2, END_W - 14, L.baseY - L.laneY(L.levels) + boxH / 2 - (L.laneH - boxH) / 2);
    ctx.fillStyle = COLORS.muted;
    ctx.fillText("NIL", endCx, L.baseY + 10);
  } else {
    ctx.fillText("⋯", endCx, L.baseY + 10);
    ctx.font = SMALL_FONT;
    ctx.fillText(`${number(win.len - end)}`, endCx, L.baseY + 24);
    ctx.fillText(t("more"), endCx, L.baseY + 35);
    ctx.font = FONT;
  }
  if (start > 0) {
    const bx = L.x0 - L.breakW / 2;
    ctx.fillText("⋯", bx, L.baseY + 10);
    ctx.font = SMALL_FONT;
    ctx.save();
    ctx.translate(bx, L.baseY + 20);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = "right";
    ctx.fillText(t("{n} before", { n: number(start) }), 0, 0);
    ctx.restore();
    ctx.textAlign = "center";
    ctx.font = FONT;
  }
}

/**
 * The landed member's tag above its tower.
 * @param {Ctx} ctx
 * @param {SkiplistLayout} L
 * @param {ReturnType<typeof columnGeometry>} g
 * @param {ZsetEntry} e
 * @param {number} index  its window index
 */
function drawLandedTag(ctx, L, g, e, index) {
  const cx = g.colLeft(index) + L.colW / 2;
  const topY = L.laneY(e.level) - g.boxH / 2 - 4;
  const tag = t("rank {rank} · level {level}", { rank: number(e.rank), level: e.level });
  ctx.font = FONT;
  const w = ctx.measureText(tag).width + 10;
  const tx = Math.min(Math.max(cx, L.x0 + w / 2), L.width - w / 2 - 2);
  const ty = Math.max(10, topY - 11);
  ctx.fillStyle = COLORS.landed;
  ctx.fillRect(tx - w / 2, ty - 8, w, 16);
  ctx.beginPath();
  ctx.moveTo(cx - 4, ty + 8);
  ctx.lineTo(cx + 4, ty + 8);
  ctx.lineTo(cx, Math.min(topY, ty + 13));
  ctx.fill();
  ctx.fillStyle = "#fff";
  ctx.fillText(tag, tx, ty);
}

/**
 * Rank ticks and member/score labels under the columns.
 * @param {Ctx} ctx
 * @param {SkiplistLayout} L
 * @param {readonly ZsetEntry[]} entries
 * @param {number} landedIndex
 */
function drawLabels(ctx, L, entries, landedIndex) {
  const count = entries.length;
  const rankY = L.baseY + L.labelH - L.rankRowH / 2 + 2;
  // Rank ticks, far enough apart to read.
  ctx.font = SMALL_FONT;
  ctx.fillStyle = COLORS.muted;
  const every = Math.max(1, Math.ceil(56 / L.colW));
  const step = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000].find((s) => s >= every) ?? every;
  for (let i = 0; i < count; i += 1) {
    const rank = entries[i].rank;
    if (rank % step !== 0 && !(L.colW >= 30)) continue;
    ctx.fillText(`#${number(rank)}`, L.x0 + (i + 0.5) * L.colW, rankY);
  }
  ctx.font = FONT;
  if (L.labels === "horizontal") {
    for (let i = 0; i < count; i += 1) {
      const e = entries[i];
      const cx = L.x0 + (i + 0.5) * L.colW;
      ctx.fillStyle = i === landedIndex ? COLORS.landed : COLORS.text;
      ctx.fillText(fitText(ctx, showBidiControls(e.member), L.colW - 6), cx, L.baseY + 10);
      ctx.fillStyle = COLORS.muted;
      ctx.fillText(fitText(ctx, formatScore(e.score), L.colW - 6), cx, L.baseY + 24);
    }
  } else if (L.labels === "vertical") {
    const room = L.labelH - L.rankRowH - 8;
    ctx.textAlign = "right";
    for (let i = 0; i < count; i += 1) {
      const e = entries[i];
      const cx = L.x0 + (i + 0.5) * L.colW;
      ctx.save();
      ctx.translate(cx, L.baseY + 6);
      ctx.rotate(-Math.PI / 2);
      ctx.fillStyle = i === landedIndex ? COLORS.landed : COLORS.text;
      const text = fitText(ctx, `${e.member} ${formatScore(e.score)}`, room);
      ctx.fillText(text, 0, 0);
      ctx.restore();
    }
    ctx.textAlign = "center";
  }
}

/**
 * The walk of a search: from the header at the top level, right along a lane while the next
 * node is smaller (solid), a dashed peek at the node that was too big (✗), down a level.
 * `path.reveal` (0..1) shows the first part only, so the order is visible as it plays.
 * @param {Ctx} ctx
 * @param {SkiplistLayout} L
 * @param {{placed: PlacedPath, reveal: number}} path
 * @param {number} start
 * @param {number} end
 */
function drawSearchPath(ctx, L, path, start, end) {
  const { steps } = path.placed;
  const shown = Math.max(1, Math.ceil(steps.length * Math.min(1, path.reveal ?? 1)));
  let x = L.rankX(-1);
  let level = steps[0].level + 1;
  let y = L.laneY(level);
  let drawn = 0;
  ctx.lineWidth = 2.5;
  ctx.lineCap = "round";
  /**
   * @param {number} px
   * @param {number} py
   * @param {string} color
   * @param {number} r
   */
  const mark = (px, py, color, r) => {
    ctx.strokeStyle = color;
    ctx.beginPath();
    ctx.arc(px, py, r, 0, Math.PI * 2);
    ctx.stroke();
  };
  const r = Math.max(3, Math.min(8, L.laneH * 0.36, L.colW * 0.45));
  for (let k = 0; k < shown; k += 1) {
    const s = steps[k];
    const lvl = s.level + 1;
    if (lvl !== level) {
      ctx.strokeStyle = COLORS.path;
      ctx.beginPath();
      ctx.moveTo(x, y);
      y = L.laneY(lvl);
      ctx.lineTo(x, y);
      ctx.stroke();
      level = lvl;
    }
    const nx = L.rankX(s.rank);
    const color = s.advanced ? COLORS.path : COLORS.refused;
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.setLineDash(s.advanced ? [] : [5, 4]);
    ctx.beginPath();
    ctx.moveTo(x, y);
    ctx.lineTo(nx - r, y);
    ctx.stroke();
    ctx.setLineDash([]);
    if (nx - x > 12) arrowHead(ctx, nx - r, y, 1, 5);
    mark(nx, y, color, r);
    if (!s.advanced && r >= 4) {
      const c = r * 0.55;
      ctx.beginPath();
      ctx.moveTo(nx - c, y - c);
      ctx.lineTo(nx + c, y + c);
      ctx.moveTo(nx + c, y - c);
      ctx.lineTo(nx - c, y + c);
      ctx.stroke();
    }
    if (s.rank >= start && s.rank < end) drawn += 1;
    if (s.advanced) x = nx;
  }
  if (shown === steps.length) {
    // Where it ended: the member found (rank lookups stop on the level where they stand on it)
    // or the first member in range.
    const fx = L.rankX(path.placed.resultRank);
    mark(fx, L.laneY(steps[steps.length - 1].level + 1), COLORS.found, r + 3);
  }
  ctx.lineWidth = 1;
  return drawn;
}
