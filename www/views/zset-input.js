// @ts-check
// The sorted-set view's input: pan (drag, wheel, keys, buttons, go to rank), zoom, hover, and
// the canvas following its box. Each handler turns a DOM event into a model function
// (zset-model.js) and hands the new state to the view, which asks the loop for a frame; nothing
// here draws or reads the engine.

import { dismissConversion, gotoRank, isSkiplist, keyAction, maxStart, pageSize, setHover, setStart, setZoom, wheelPan } from "./zset-model.js";

/** @typedef {import("./zset-model.js").ZsetState} ZsetState */
/** @typedef {import("./zset-renderer.js").ZsetDom} ZsetDom */
/** @typedef {import("./zset-renderer.js").ZsetUi} ZsetUi */
/**
 * `get` reads the view's state; `set` replaces it (the view asks for a frame when it changed);
 * `touch` asks for a frame without a state change (the canvas was resized).
 * @typedef {{get(): ZsetState, set(next: ZsetState): void, touch(): void}} ZsetControl
 */

/** Wheel delta units (WheelEvent.deltaMode) in px: pixels, lines, pages. */
const LINE_PX = 16;
/** A column's width before the first drawing measured it. */
const DEFAULT_COL_W = 20;

/**
 * @param {ZsetDom} dom
 * @param {ZsetUi} ui
 * @param {ZsetControl} view
 */
function bindButtons(dom, ui, view) {
  /** @param {(s: ZsetState) => ZsetState} fn */
  const act = (fn) => view.set(fn(view.get()));
  dom.firstBtn.addEventListener("click", () => act((s) => setStart(s, 0)));
  dom.lastBtn.addEventListener("click", () => act((s) => setStart(s, maxStart(s))));
  dom.prevBtn.addEventListener("click", () => act((s) => setStart(s, s.start - pageSize(s))));
  dom.nextBtn.addEventListener("click", () => act((s) => setStart(s, s.start + pageSize(s))));
  dom.zoomOut.addEventListener("click", () => act((s) => setZoom(s, s.zoom + 1)));
  dom.zoomIn.addEventListener("click", () => act((s) => setZoom(s, s.zoom - 1)));
  dom.zoomRange.addEventListener("input", () => act((s) => setZoom(s, Number(dom.zoomRange.value))));
  dom.bannerClose.addEventListener("click", () => act(dismissConversion));
  dom.gotoForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const r = gotoRank(view.get(), dom.gotoInput.value);
    dom.gotoError.textContent = r.error;
    if (r.state !== null) view.set(r.state);
  });
  dom.canvasWrap.addEventListener("keydown", (event) => {
    const next = keyAction(view.get(), event.key, event.shiftKey);
    if (next === null) return;
    event.preventDefault();
    view.set(next);
  });
  dom.canvasWrap.addEventListener(
    "wheel",
    (event) => {
      const s = view.get();
      if (!isSkiplist(s)) return;
      event.preventDefault();
      const unit = event.deltaMode === 1 ? LINE_PX : event.deltaMode === 2 ? ui.size.width : 1;
      if (event.ctrlKey || event.altKey) {
        const anchor = ui.layout ? s.start + Math.max(0, ui.layout.indexAt(event.offsetX)) : undefined;
        view.set(setZoom(s, s.zoom + (event.deltaY > 0 ? 1 : -1), anchor));
        return;
      }
      const delta = (Math.abs(event.deltaX) > Math.abs(event.deltaY) ? event.deltaX : event.deltaY) * unit;
      const r = wheelPan(s, ui.wheel, delta, ui.layout?.colW ?? DEFAULT_COL_W);
      ui.wheel = r.accumulated;
      view.set(r.state);
    },
    { passive: false },
  );
}

/**
 * Dragging pans; hovering names the member under the pointer.
 * @param {ZsetDom} dom
 * @param {ZsetUi} ui
 * @param {ZsetControl} view
 */
function bindPointer(dom, ui, view) {
  const wrap = dom.canvasWrap;
  wrap.addEventListener("pointerdown", (event) => {
    const s = view.get();
    if (!isSkiplist(s) || event.button !== 0) return;
    ui.drag = { x: event.clientX, start: s.start, id: event.pointerId };
    wrap.setPointerCapture(event.pointerId);
    wrap.classList.add("is-dragging");
  });
  wrap.addEventListener("pointermove", (event) => {
    const drag = ui.drag;
    if (drag !== null && event.pointerId === drag.id) {
      const colW = ui.layout?.colW ?? DEFAULT_COL_W;
      view.set(setStart(view.get(), drag.start - Math.round((event.clientX - drag.x) / colW)));
      return;
    }
    if (!ui.layout) return;
    const next = setHover(view.get(), ui.layout.indexAt(event.offsetX));
    view.set(next);
    if (next.hover >= 0) {
      dom.tooltip.style.left = `${Math.min(event.offsetX + 14, Math.max(0, ui.size.width - 230))}px`;
      dom.tooltip.style.top = `${Math.max(4, event.offsetY - 70)}px`;
    }
  });
  /** @param {PointerEvent} event */
  const endDrag = (event) => {
    if (ui.drag !== null && event.pointerId === ui.drag.id) {
      ui.drag = null;
      wrap.classList.remove("is-dragging");
    }
  };
  wrap.addEventListener("pointerup", endDrag);
  wrap.addEventListener("pointercancel", endDrag);
  wrap.addEventListener("pointerleave", () => view.set(setHover(view.get(), -1)));
}

/**
 * Binds every input of the panel, and keeps `ui.size` in step with the canvas box (and the
 * screen's pixel density).
 * @param {ZsetDom} dom
 * @param {ZsetUi} ui
 * @param {ZsetControl} view
 */
export function bindZsetInput(dom, ui, view) {
  bindButtons(dom, ui, view);
  bindPointer(dom, ui, view);
  new ResizeObserver(() => {
    const rect = dom.canvasWrap.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const { size } = ui;
    if (rect.width !== size.width || rect.height !== size.height || dpr !== size.dpr) {
      ui.size = { width: rect.width, height: rect.height, dpr };
      view.touch();
    }
  }).observe(dom.canvasWrap);
}
