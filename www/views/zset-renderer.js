// @ts-check
// The sorted-set view's renderer: builds the panel's elements and draws a model state
// (zset-model.js) into them — the header, the empty panel, the conversion banner, the listpack
// panel or the skiplist canvas with its tooltip, the pager and zoom controls, the legend. DOM
// only: every word comes from the model, and user data (key and member names) goes in through
// textContent or canvas text, never markup. Input is bound by zset-input.js.

import { el, setText, showBidiControls } from "../dom.js";
import { t } from "../i18n.js";
import { drawSkiplist } from "./zset-skiplist-canvas.js";
import { createListpackPanel } from "./zset-listpack-panel.js";
import { createZsetLegend } from "./zset-legend.js";
import {
  FLASH_MS,
  ZOOM_STEPS,
  bannerText,
  cols,
  controlsText,
  datasetOf,
  emptyText,
  flashOf,
  headText,
  isSkiplist,
  searchReveal,
  skiplistDescription,
  skiplistLabel,
  tooltipLines,
} from "./zset-model.js";

/** @typedef {import("./zset-model.js").ZsetState} ZsetState */
/** @typedef {import("./zset-skiplist-canvas.js").SkiplistLayout} SkiplistLayout */
/** @typedef {ReturnType<typeof createZsetDom>} ZsetDom */
/**
 * What the renderer and the input handlers keep between frames (not view state): the canvas
 * box, the layout of the last drawing (hit testing), a drag in progress, wheel pixels not yet
 * turned into columns, and which window the listpack panel shows.
 * @typedef {{size: {width: number, height: number, dpr: number}, layout: SkiplistLayout | null,
 *            drag: {x: number, start: number, id: number} | null, wheel: number, renderedListpack: number}} ZsetUi
 */

/** @returns {ZsetUi} */
export function createZsetUi() {
  return { size: { width: 0, height: 0, dpr: 1 }, layout: null, drag: null, wheel: 0, renderedListpack: -1 };
}

/**
 * A small button with a tooltip that is also its accessible name.
 * @param {string} text
 * @param {string} label
 * @param {string} id
 */
function button(text, label, id) {
  const b = el("button", "btn btn-small", text);
  b.type = "button";
  b.title = label;
  b.setAttribute("aria-label", label);
  b.id = id;
  return b;
}

function createHead() {
  const head = el("header", "panel-head");
  const keyEl = el("span", "zset-key");
  keyEl.id = "zset-key";
  const encodingEl = el("span", "badge");
  encodingEl.id = "zset-encoding";
  const statsEl = el("span", "zset-stats");
  statsEl.id = "zset-stats";
  head.append(el("h2", "panel-title", t("Sorted set")), keyEl, encodingEl, statsEl);
  return { head, keyEl, encodingEl, statsEl };
}

function createBanner() {
  const banner = el("div", "zset-banner");
  banner.id = "zset-banner";
  banner.setAttribute("role", "status");
  banner.hidden = true;
  const bannerText = el("span", "zset-banner-text");
  const bannerClose = el("button", "zset-banner-close", "×");
  bannerClose.type = "button";
  bannerClose.setAttribute("aria-label", t("Dismiss"));
  banner.append(bannerText, bannerClose);
  return { banner, bannerText, bannerClose };
}

function createEmpty() {
  const empty = el("div", "zset-empty");
  empty.id = "zset-empty";
  const emptyTitle = el("p", "zset-empty-title");
  const emptyHint = el("p", "zset-empty-hint");
  const emptyExample = el("code", "zset-empty-example");
  empty.append(emptyTitle, emptyHint, emptyExample);
  return { empty, emptyTitle, emptyHint, emptyExample };
}

/** The skiplist: a canvas and a tooltip. */
function createSkiplist() {
  const skiplist = el("div", "zset-skiplist");
  skiplist.id = "zset-skiplist";
  skiplist.hidden = true;
  const canvasWrap = el("div", "zset-canvas-wrap");
  canvasWrap.tabIndex = 0;
  canvasWrap.setAttribute("role", "img");
  canvasWrap.setAttribute("aria-label", skiplistLabel());
  const canvas = el("canvas", "zset-canvas");
  canvas.id = "zset-canvas";
  const tooltip = el("div", "zset-tooltip");
  tooltip.hidden = true;
  canvasWrap.append(canvas, tooltip);
  skiplist.append(canvasWrap);
  return { skiplist, canvasWrap, canvas, tooltip };
}

/** Controls: pan, go to rank, zoom. */
function createControls() {
  const controls = el("div", "zset-controls");
  controls.id = "zset-controls";
  const firstBtn = button("«", t("First ranks"), "zset-first");
  const prevBtn = button("◀", t("Previous page"), "zset-prev");
  const nextBtn = button("▶", t("Next page"), "zset-next");
  const lastBtn = button("»", t("Last ranks"), "zset-last");
  const rangeEl = el("span", "zset-range");
  rangeEl.id = "zset-range";
  const gotoForm = el("form", "zset-goto");
  gotoForm.noValidate = true;
  const gotoLabel = el("label", "zset-goto-label", t("go to rank "));
  const gotoInput = el("input", "zset-goto-input");
  gotoInput.id = "zset-goto-rank";
  gotoInput.type = "text";
  gotoInput.inputMode = "numeric";
  gotoInput.autocomplete = "off";
  gotoInput.size = 9;
  gotoInput.placeholder = t("0 or -1");
  gotoLabel.append(gotoInput);
  const gotoBtn = el("button", "btn btn-small", t("Go"));
  gotoBtn.type = "submit";
  const gotoError = el("span", "zset-goto-error");
  gotoError.setAttribute("role", "alert");
  gotoForm.append(gotoLabel, gotoBtn, gotoError);
  const zoomBox = el("span", "zset-zoom");
  const zoomOut = button("−", t("Zoom out (more columns)"), "zset-zoom-out");
  const zoomRange = el("input", "zset-zoom-range");
  zoomRange.id = "zset-zoom";
  zoomRange.type = "range";
  zoomRange.min = "0";
  zoomRange.max = String(ZOOM_STEPS.length - 1);
  zoomRange.step = "1";
  zoomRange.setAttribute("aria-label", t("Columns visible"));
  const zoomIn = button("+", t("Zoom in (fewer columns)"), "zset-zoom-in");
  const zoomText = el("span", "zset-zoom-text");
  zoomText.id = "zset-zoom-text";
  zoomBox.append(zoomOut, zoomRange, zoomIn, zoomText);
  controls.append(firstBtn, prevBtn, rangeEl, nextBtn, lastBtn, gotoForm, zoomBox);
  return { controls, firstBtn, prevBtn, nextBtn, lastBtn, rangeEl, gotoForm, gotoInput, gotoError, zoomBox, zoomOut, zoomRange, zoomIn, zoomText };
}

/**
 * Empties `root` and builds the panel in it.
 * @param {HTMLElement} root
 */
export function createZsetDom(root) {
  root.replaceChildren();
  root.classList.add("zset-view");
  const statusEl = el("div", "zset-status");
  statusEl.id = "zset-status";
  statusEl.setAttribute("aria-live", "polite");
  const dom = {
    root,
    ...createHead(),
    ...createBanner(),
    statusEl,
    ...createEmpty(),
    listpack: createListpackPanel(),
    ...createSkiplist(),
    ...createControls(),
    legend: createZsetLegend(),
  };
  const body = el("div", "zset-body");
  body.append(dom.empty, dom.listpack.root, dom.skiplist);
  root.append(dom.head, dom.banner, statusEl, body, dom.controls, dom.legend.legend, dom.legend.pathBox);
  return dom;
}

// ---------------------------------------------------------------------------------------------
// Drawing a state
// ---------------------------------------------------------------------------------------------

/**
 * @param {ZsetDom} dom
 * @param {ZsetState} s
 */
function drawHead(dom, s) {
  const h = headText(s);
  setText(dom.keyEl, h.key);
  if (h.title !== null) dom.keyEl.title = h.title;
  dom.encodingEl.hidden = h.encoding === null;
  if (h.encoding !== null) {
    dom.encodingEl.textContent = h.encoding;
    dom.encodingEl.className = `badge badge-${h.encoding}`;
  }
  dom.statsEl.textContent = h.stats;
}

/**
 * @param {ZsetDom} dom
 * @param {ZsetState} s
 */
function drawEmpty(dom, s) {
  const text = emptyText(s);
  dom.empty.hidden = text === null;
  if (text === null) return;
  setText(dom.emptyTitle, text.title);
  dom.emptyHint.textContent = text.hint;
  dom.emptyExample.textContent = text.example;
}

/**
 * @param {ZsetDom} dom
 * @param {ZsetState} s
 */
function drawBanner(dom, s) {
  if (s.conversion !== null) {
    const text = bannerText(s.conversion);
    if (dom.bannerText.textContent !== text) {
      setText(dom.bannerText, text);
      dom.banner.classList.remove("is-new");
      void dom.banner.offsetWidth; // restart the entrance transition
      dom.banner.classList.add("is-new");
    }
  }
  dom.banner.hidden = s.conversion === null;
}

/**
 * @param {ZsetDom} dom
 * @param {ZsetState} s
 * @param {ZsetUi} ui
 * @param {number} now  real ms (the landed flash, the search reveal)
 */
function drawCanvas(dom, s, ui, now) {
  const { width, height, dpr } = ui.size;
  const win = s.win;
  if (win === null || width < 10 || height < 10) return;
  const { canvas } = dom;
  const pw = Math.round(width * dpr);
  const ph = Math.round(height * dpr);
  if (canvas.width !== pw || canvas.height !== ph) {
    canvas.width = pw;
    canvas.height = ph;
  }
  const ctx = canvas.getContext("2d");
  if (ctx === null) return;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const placed = s.search?.placed ?? null;
  const result = drawSkiplist(ctx, width, height, {
    window: win,
    start: win.start,
    cols: cols(s),
    landed: s.landed ? { member: s.landed.member, flash: flashOf(s.landed.at, FLASH_MS, now) } : null,
    hover: s.hover,
    path: placed ? { placed, reveal: searchReveal(s.search, now) } : null,
  });
  ui.layout = result.layout;
  // What the picture shows, in words (bidi controls in member names shown as marks).
  const described = showBidiControls(skiplistDescription(s));
  if (dom.canvasWrap.getAttribute("aria-label") !== described) dom.canvasWrap.setAttribute("aria-label", described);
  canvas.dataset.lanes = String(result.lanes);
  canvas.dataset.columns = String(result.columns);
  canvas.dataset.links = String(result.links);
  canvas.dataset.pathShown = String(result.pathShown);
  canvas.dataset.colWidth = result.layout.colW.toFixed(1);
}

/**
 * @param {ZsetDom} dom
 * @param {ZsetState} s
 * @param {ZsetUi} ui
 */
function drawTooltip(dom, s, ui) {
  const e = s.hover >= 0 ? s.win?.entries?.[s.hover] : null;
  dom.tooltip.hidden = !e || ui.drag !== null;
  if (!e) return;
  const lines = tooltipLines(e);
  dom.tooltip.replaceChildren(
    el("div", "tooltip-member", lines.member),
    el("div", "tooltip-line", lines.line),
    el("div", "tooltip-line tooltip-spans", lines.spans),
  );
}

/**
 * @param {ZsetDom} dom
 * @param {ZsetState} s
 */
function drawControls(dom, s) {
  const c = controlsText(s);
  dom.controls.hidden = c.hidden;
  for (const b of [dom.firstBtn, dom.prevBtn, dom.nextBtn, dom.lastBtn]) b.hidden = !c.pager;
  dom.prevBtn.disabled = dom.firstBtn.disabled = c.atStart;
  dom.nextBtn.disabled = dom.lastBtn.disabled = c.atEnd;
  dom.rangeEl.textContent = c.range;
  dom.rangeEl.title = t("ranks shown (0 = lowest score)");
  dom.zoomBox.hidden = !c.zoomShown;
  dom.zoomRange.value = String(c.zoom);
  dom.zoomOut.disabled = c.zoomOutDisabled;
  dom.zoomIn.disabled = c.zoomInDisabled;
  dom.zoomText.textContent = c.zoomText;
}

/**
 * Draws the whole panel for `s`.
 * @param {ZsetDom} dom
 * @param {ZsetState} s
 * @param {ZsetUi} ui
 * @param {number} now  real ms
 */
export function renderZset(dom, s, ui, now) {
  drawHead(dom, s);
  drawEmpty(dom, s);
  const mode = s.win === null ? "none" : s.win.encoding;
  dom.listpack.root.hidden = mode !== "listpack";
  dom.skiplist.hidden = mode !== "skiplist";
  dom.root.dataset.mode = mode;
  drawBanner(dom, s);
  setText(dom.statusEl, s.status);
  if (s.win !== null && mode === "listpack" && ui.renderedListpack !== s.dataVersion) {
    ui.renderedListpack = s.dataVersion;
    dom.listpack.render(s.win, s.landed?.member ?? null);
  }
  if (mode === "skiplist") {
    drawCanvas(dom, s, ui, now);
    drawTooltip(dom, s, ui);
  } else {
    dom.tooltip.hidden = true;
  }
  drawControls(dom, s);
  dom.legend.render(isSkiplist(s) ? s.win : null, s.search);
  Object.assign(dom.root.dataset, datasetOf(s));
}
