// The sorted-set view: how a sorted set orders its members.
//
// For the key picked in the keyspace view it shows what the engine actually holds:
//   - a listpack as the flat array it is (member, score, member, score… in order) with its
//     limits (zset-max-listpack-entries / -value);
//   - a skiplist as lanes (level 1 at the bottom, the header on the left), one column per
//     member whose height is the level it drew, forward links labelled with their spans — drawn
//     on a canvas by zset-skiplist-canvas.js;
// and follows the engine's events: where a ZADD/ZINCRBY placed a member (`zset_insert`), what a
// ZREM removed, the listpack → skiplist conversion (`zset_convert`), and the nodes a ZRANK or
// ZRANGEBYSCORE visited (`zset_search`, placed in ranks by zset-search-path.js).
//
// Only the visible window is ever fetched (`zsetWindow(db, key, start, count)`), so panning and
// zooming a million members costs the same as ten. Like every view it never calls the engine
// itself: main.js hands it a read-only `source` (engine.js's snapshot calls), the loop calls
// `update(events, state)` once per frame and `draw(state)` only when `update` said something
// changed; pointer/keyboard input just marks what changed and asks the loop for a frame.

import { drawSkiplist } from "./zset-skiplist-canvas.js";
import { placeSearchPath } from "./zset-search-path.js";
import { createListpackPanel, formatScore } from "./zset-listpack-panel.js";
import { createZsetLegend } from "./zset-legend.js";

/** Entries a listpack page shows at once (the default limit is 128, but it is configurable). */
export const LISTPACK_PAGE = 256;

/** Zoom levels: how many skiplist columns are visible. */
export const ZOOM_STEPS = Object.freeze([4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 400]);
const DEFAULT_ZOOM = ZOOM_STEPS.indexOf(24);

/** How long a landed member flashes, in ms of real time. */
export const FLASH_MS = 1600;

const number = (n) => Number(n).toLocaleString("en-US");

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);

/**
 * @param {HTMLElement} root
 * @param {object} deps
 * @param {{zsetWindow(db: number, key: string, start: number, count: number): object|null}} deps.source
 * @param {{get(): object, set(patch: object): boolean}} deps.store  selection lives in the store
 * @param {() => void} deps.invalidate  asks the loop for a frame (after input)
 * @param {() => number} [deps.now]     real time in ms (tests may pin it)
 */
export function createZsetView(root, { source, store, invalidate, now = () => performance.now() }) {
  root.replaceChildren();
  root.classList.add("zset-view");

  // -------------------------------------------------------------------------------------------
  // DOM
  // -------------------------------------------------------------------------------------------

  const head = el("header", "panel-head");
  const title = el("h2", "panel-title", "Sorted set");
  const keyEl = el("span", "zset-key");
  keyEl.id = "zset-key";
  const encodingEl = el("span", "badge");
  encodingEl.id = "zset-encoding";
  const statsEl = el("span", "zset-stats");
  statsEl.id = "zset-stats";
  head.append(title, keyEl, encodingEl, statsEl);

  const banner = el("div", "zset-banner");
  banner.id = "zset-banner";
  banner.setAttribute("role", "status");
  banner.hidden = true;
  const bannerText = el("span", "zset-banner-text");
  const bannerClose = el("button", "zset-banner-close", "×");
  bannerClose.type = "button";
  bannerClose.setAttribute("aria-label", "Dismiss");
  banner.append(bannerText, bannerClose);

  const statusEl = el("div", "zset-status");
  statusEl.id = "zset-status";
  statusEl.setAttribute("aria-live", "polite");

  const empty = el("div", "zset-empty");
  empty.id = "zset-empty";
  const emptyTitle = el("p", "zset-empty-title");
  const emptyHint = el("p", "zset-empty-hint");
  const emptyExample = el("code", "zset-empty-example");
  empty.append(emptyTitle, emptyHint, emptyExample);

  const listpack = createListpackPanel();

  // Skiplist: a canvas and a tooltip.
  const skiplist = el("div", "zset-skiplist");
  skiplist.id = "zset-skiplist";
  skiplist.hidden = true;
  const canvasWrap = el("div", "zset-canvas-wrap");
  canvasWrap.tabIndex = 0;
  canvasWrap.setAttribute("role", "img");
  canvasWrap.setAttribute(
    "aria-label",
    "Skiplist lanes. Drag, scroll or use the arrow keys to pan; + and − zoom; Home and End jump to the ends.",
  );
  const canvas = el("canvas", "zset-canvas");
  canvas.id = "zset-canvas";
  const tooltip = el("div", "zset-tooltip");
  tooltip.hidden = true;
  canvasWrap.append(canvas, tooltip);
  skiplist.append(canvasWrap);

  // Controls: pan, go to rank, zoom.
  const controls = el("div", "zset-controls");
  controls.id = "zset-controls";
  const button = (text, label, id) => {
    const b = el("button", "btn btn-small", text);
    b.type = "button";
    b.title = label;
    b.setAttribute("aria-label", label);
    if (id) b.id = id;
    return b;
  };
  const firstBtn = button("«", "First ranks", "zset-first");
  const prevBtn = button("◀", "Previous page", "zset-prev");
  const nextBtn = button("▶", "Next page", "zset-next");
  const lastBtn = button("»", "Last ranks", "zset-last");
  const rangeEl = el("span", "zset-range");
  rangeEl.id = "zset-range";
  const gotoForm = el("form", "zset-goto");
  gotoForm.noValidate = true;
  const gotoLabel = el("label", "zset-goto-label", "go to rank ");
  const gotoInput = el("input", "zset-goto-input");
  gotoInput.id = "zset-goto-rank";
  gotoInput.type = "text";
  gotoInput.inputMode = "numeric";
  gotoInput.autocomplete = "off";
  gotoInput.size = 9;
  gotoInput.placeholder = "0 or -1";
  gotoLabel.append(gotoInput);
  const gotoBtn = el("button", "btn btn-small", "Go");
  gotoBtn.type = "submit";
  const gotoError = el("span", "zset-goto-error");
  gotoError.setAttribute("role", "alert");
  gotoForm.append(gotoLabel, gotoBtn, gotoError);
  const zoomBox = el("span", "zset-zoom");
  const zoomOut = button("−", "Zoom out (more columns)", "zset-zoom-out");
  const zoomRange = el("input", "zset-zoom-range");
  zoomRange.id = "zset-zoom";
  zoomRange.type = "range";
  zoomRange.min = "0";
  zoomRange.max = String(ZOOM_STEPS.length - 1);
  zoomRange.step = "1";
  zoomRange.setAttribute("aria-label", "Columns visible");
  const zoomIn = button("+", "Zoom in (fewer columns)", "zset-zoom-in");
  const zoomText = el("span", "zset-zoom-text");
  zoomText.id = "zset-zoom-text";
  zoomBox.append(zoomOut, zoomRange, zoomIn, zoomText);
  controls.append(firstBtn, prevBtn, rangeEl, nextBtn, lastBtn, gotoForm, zoomBox);

  const legend = createZsetLegend();

  const body = el("div", "zset-body");
  body.append(empty, listpack.root, skiplist);
  root.append(head, banner, statusEl, body, controls, legend.legend, legend.pathBox);

  // -------------------------------------------------------------------------------------------
  // State
  // -------------------------------------------------------------------------------------------

  let sel = { db: 0, key: null };
  let win = null; // the latest window (plain data from the engine), or null
  let missing = false; // selected, but not a sorted set (any more)
  let start = 0; // first visible rank
  let zoom = DEFAULT_ZOOM;
  let needFetch = false;
  let dirty = true;
  let dataVersion = 0;
  let renderedListpack = -1;
  let landed = null; // {member, rank, level, score, count, at}
  let search = null; // {event, placed, at}
  let conversion = null; // {from, to, len, reason}
  let status = ""; // one sentence about the latest change
  let hover = -1;
  let draws = 0;
  let workMs = 0;
  let size = { width: 0, height: 0, dpr: 1 };
  let layout = null;

  const cols = () => ZOOM_STEPS[zoom];
  const isSkiplist = () => win !== null && win.encoding === "skiplist";
  const pageSize = () => (isSkiplist() ? cols() : LISTPACK_PAGE);

  function touch() {
    dirty = true;
    invalidate();
  }

  function refetch() {
    needFetch = true;
    touch();
  }

  function select(db, key) {
    sel = { db, key };
    win = null;
    missing = false;
    start = 0;
    landed = null;
    search = null;
    conversion = null;
    status = "";
    hover = -1;
    needFetch = key !== null;
    dirty = true;
  }

  function maxStart(len = win?.len ?? 0) {
    return Math.max(0, len - pageSize());
  }

  function setStart(rank) {
    const next = clamp(Math.round(rank), 0, maxStart());
    if (next !== start) {
      start = next;
      refetch();
    }
  }

  /** Makes `rank` visible: centred in a skiplist, its page in a listpack. */
  function reveal(rank) {
    const size = pageSize();
    if (rank >= start && rank < start + size) return;
    start = isSkiplist() ? Math.max(0, rank - Math.floor(size / 2)) : Math.floor(rank / size) * size;
    needFetch = true;
  }

  function fetchWindow() {
    needFetch = false;
    if (sel.key === null) return;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const count = win?.encoding === "skiplist" ? cols() : Math.max(cols(), LISTPACK_PAGE);
      const w = source.zsetWindow(sel.db, sel.key, start, count);
      if (w === null) {
        win = null;
        missing = true;
        break;
      }
      missing = false;
      if (w.encoding === "skiplist" && w.entries.length > cols()) w.entries = w.entries.slice(0, cols());
      win = w;
      const limit = maxStart(w.len);
      if (start <= limit || attempt === 1) break;
      start = limit; // the set shrank (or zoom changed): fetch the last page instead
    }
    dataVersion += 1;
    dirty = true;
  }

  function nodeAt(rank) {
    const w = source.zsetWindow(sel.db, sel.key, rank, 1);
    const e = w?.entries?.[0];
    return e ? { member: e.member, spans: e.spans } : null;
  }

  const matches = (e) => sel.key !== null && e.db === sel.db && e.key === sel.key;

  // -------------------------------------------------------------------------------------------
  // Input: pan (drag, wheel, keys, buttons, go to rank) and zoom
  // -------------------------------------------------------------------------------------------

  function setZoom(index, anchorRank) {
    const next = clamp(index, 0, ZOOM_STEPS.length - 1);
    if (next === zoom) return;
    const anchor = anchorRank ?? start + cols() / 2;
    const fraction = anchorRank === undefined ? 0.5 : (anchorRank - start) / cols();
    zoom = next;
    start = clamp(Math.round(anchor - fraction * cols()), 0, maxStart());
    refetch();
  }

  firstBtn.addEventListener("click", () => setStart(0));
  lastBtn.addEventListener("click", () => setStart(maxStart()));
  prevBtn.addEventListener("click", () => setStart(start - pageSize()));
  nextBtn.addEventListener("click", () => setStart(start + pageSize()));
  zoomOut.addEventListener("click", () => setZoom(zoom + 1));
  zoomIn.addEventListener("click", () => setZoom(zoom - 1));
  zoomRange.addEventListener("input", () => setZoom(Number(zoomRange.value)));
  bannerClose.addEventListener("click", () => {
    conversion = null;
    touch();
  });

  gotoForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = gotoInput.value.trim();
    const len = win?.len ?? 0;
    if (!/^-?\d+$/.test(text)) {
      gotoError.textContent = "a rank: 0 is the lowest score, -1 the highest";
      return;
    }
    let rank = Number(text);
    if (rank < 0) rank += len;
    if (rank < 0 || rank >= len) {
      gotoError.textContent = len === 0 ? "no members" : `out of range (0 … ${number(len - 1)})`;
      return;
    }
    gotoError.textContent = "";
    // Put the rank at the left third: what comes after it is usually what one wants to see.
    const size = pageSize();
    start = isSkiplist() ? clamp(rank - Math.floor(size / 3), 0, maxStart()) : Math.floor(rank / size) * size;
    refetch();
  });

  canvasWrap.addEventListener("keydown", (event) => {
    const step = event.shiftKey ? Math.max(1, Math.floor(cols() / 2)) : 1;
    const keys = {
      ArrowLeft: () => setStart(start - step),
      ArrowRight: () => setStart(start + step),
      PageUp: () => setStart(start - cols()),
      PageDown: () => setStart(start + cols()),
      Home: () => setStart(0),
      End: () => setStart(maxStart()),
      "+": () => setZoom(zoom - 1),
      "=": () => setZoom(zoom - 1),
      "-": () => setZoom(zoom + 1),
      _: () => setZoom(zoom + 1),
    };
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });

  let wheelAccumulator = 0;
  canvasWrap.addEventListener(
    "wheel",
    (event) => {
      if (!isSkiplist()) return;
      event.preventDefault();
      const unit = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? size.width : 1;
      if (event.ctrlKey || event.altKey) {
        const anchor = layout ? start + Math.max(0, layout.indexAt(event.offsetX)) : undefined;
        setZoom(zoom + (event.deltaY > 0 ? 1 : -1), anchor);
        return;
      }
      const delta = (Math.abs(event.deltaX) > Math.abs(event.deltaY) ? event.deltaX : event.deltaY) * unit;
      wheelAccumulator += delta;
      const colW = layout?.colW ?? 20;
      const columns = Math.trunc(wheelAccumulator / colW);
      if (columns !== 0) {
        wheelAccumulator -= columns * colW;
        setStart(start + columns);
      }
    },
    { passive: false },
  );

  let drag = null; // {x, start, id}
  canvasWrap.addEventListener("pointerdown", (event) => {
    if (!isSkiplist() || event.button !== 0) return;
    drag = { x: event.clientX, start, id: event.pointerId };
    canvasWrap.setPointerCapture(event.pointerId);
    canvasWrap.classList.add("is-dragging");
  });
  canvasWrap.addEventListener("pointermove", (event) => {
    if (drag !== null && event.pointerId === drag.id) {
      const colW = layout?.colW ?? 20;
      setStart(drag.start - Math.round((event.clientX - drag.x) / colW));
      return;
    }
    if (!layout) return;
    const i = layout.indexAt(event.offsetX);
    const next = win && i >= 0 && i < win.entries.length ? i : -1;
    if (next !== hover) {
      hover = next;
      touch();
    }
    if (hover >= 0) {
      tooltip.style.left = `${Math.min(event.offsetX + 14, Math.max(0, size.width - 230))}px`;
      tooltip.style.top = `${Math.max(4, event.offsetY - 70)}px`;
    }
  });
  const endDrag = (event) => {
    if (drag !== null && event.pointerId === drag.id) {
      drag = null;
      canvasWrap.classList.remove("is-dragging");
    }
  };
  canvasWrap.addEventListener("pointerup", endDrag);
  canvasWrap.addEventListener("pointercancel", endDrag);
  canvasWrap.addEventListener("pointerleave", () => {
    if (hover !== -1) {
      hover = -1;
      touch();
    }
  });

  // The canvas follows its box (and the screen's pixel density).
  const resizeObserver = new ResizeObserver(() => {
    const rect = canvasWrap.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    if (rect.width !== size.width || rect.height !== size.height || dpr !== size.dpr) {
      size = { width: rect.width, height: rect.height, dpr };
      touch();
    }
  });
  resizeObserver.observe(canvasWrap);

  // -------------------------------------------------------------------------------------------
  // Events → state
  // -------------------------------------------------------------------------------------------

  function describeLanded(l) {
    const where = l.level > 0 ? `landed at rank ${number(l.rank)}, level ${l.level}` : `landed at rank ${number(l.rank)} of the listpack`;
    const more = l.count > 1 ? ` (the last of ${number(l.count)} members placed)` : "";
    return `${l.member} (score ${formatScore(l.score)}) ${where}${more}.`;
  }

  function handleEvents(events) {
    let insert = null;
    let inserts = 0;
    let removed = null;
    let searched = null;
    let listpackLookup = null;
    for (const e of events) {
      switch (e.kind) {
        case "zset_insert":
          if (sel.key === null) {
            // Nothing picked yet: follow the first sorted set the user writes to.
            select(e.db, e.key);
            store.set({ selectedDb: e.db, selectedKey: e.key });
          }
          if (matches(e)) {
            insert = e;
            inserts += 1;
            needFetch = true;
          }
          break;
        case "zset_remove":
          if (matches(e)) {
            removed = e;
            needFetch = true;
          }
          break;
        case "zset_convert":
          if (matches(e)) {
            conversion = { from: e.from, to: e.to, len: Number(e.len), at: now(), reason: null };
            needFetch = true;
          }
          break;
        case "zset_search":
          if (matches(e)) searched = e;
          break;
        case "keyspace":
        case "expired":
          if (matches(e)) needFetch = true;
          break;
        case "command":
          if (sel.key !== null) needFetch = true; // cheap; catches FLUSHDB, SWAPDB, RENAME…
          if (/^z(rev)?rank$|^z(range|count|rangebyscore|revrangebyscore)/.test(e.name) && win?.encoding === "listpack") {
            listpackLookup = e.name.toUpperCase();
          }
          break;
        default:
          break;
      }
    }

    if (insert !== null) {
      landed = {
        member: insert.member,
        score: insert.score,
        rank: Number(insert.rank),
        level: Number(insert.level),
        count: inserts,
        at: now(),
      };
      status = describeLanded(landed);
      search = null;
    }
    if (removed !== null) {
      const names = removed.members.slice(0, 5).join(", ");
      const more = removed.members.length > 5 ? ` and ${number(removed.members.length - 5)} more` : "";
      status = `removed ${number(removed.members.length)} member${removed.members.length === 1 ? "" : "s"}: ${names}${more}.`;
      if (landed && removed.members.includes(landed.member)) landed = null;
    }
    if (needFetch) fetchWindow();
    if (insert !== null && landed !== null) {
      // Now that the encoding is known (it may have just changed), bring the member into view.
      reveal(landed.rank);
      if (needFetch) fetchWindow();
    }

    if (conversion !== null && conversion.reason === null && win !== null) {
      const entries = win.max_entries;
      conversion.reason =
        conversion.len + 1 > entries
          ? `at ${number(conversion.len + 1)} members: zset-max-listpack-entries is ${number(entries)}`
          : `when a member longer than zset-max-listpack-value (${number(win.max_value)} bytes) arrived`;
    }

    if (searched !== null && isSkiplist()) {
      const placed = placeSearchPath(searched, win.header_spans, win.len, nodeAt);
      search = { event: searched, placed, at: now() };
      landed = null;
      if (placed !== null) {
        const r = placed.resultRank;
        const member = placed.steps.find((s) => s.rank === r)?.member;
        const verb = /rank$/.test(searched.command) ? "found" : "first in range:";
        status =
          `${searched.command.toUpperCase()} examined ${number(placed.steps.length)} nodes on ${placed.levels} ` +
          `level${placed.levels === 1 ? "" : "s"} of ${win.max_level}, then ${verb} ${member ?? "?"} at rank ${number(r)}` +
          (win.len > 1 ? ` — not ${number(win.len)} comparisons.` : ".");
        reveal(r);
        if (needFetch) fetchWindow();
      } else {
        status = `${searched.command.toUpperCase()} examined ${number(searched.path.length)} nodes (the set changed since, so they are not placed).`;
      }
    } else if (listpackLookup !== null && insert === null) {
      status = `${listpackLookup} on a listpack has no levels to descend: it reads the entries from the first one.`;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Drawing
  // -------------------------------------------------------------------------------------------

  function animating() {
    if (!isSkiplist()) return false;
    if (landed && now() - landed.at < FLASH_MS) return true;
    return search !== null && searchReveal() < 1;
  }

  function flashOf(at, duration) {
    if (at === undefined) return 0;
    const t = (now() - at) / duration;
    return t >= 1 ? 0 : 1 - t;
  }

  function searchReveal() {
    if (!search) return 1;
    const steps = search.placed?.steps.length ?? 0;
    const duration = Math.min(1400, 90 * steps);
    return duration === 0 ? 1 : Math.min(1, (now() - search.at) / duration);
  }

  function drawHead() {
    if (sel.key === null) {
      keyEl.textContent = "";
      encodingEl.hidden = true;
      statsEl.textContent = "";
      return;
    }
    keyEl.textContent = sel.key;
    keyEl.title = sel.db === 0 ? sel.key : `${sel.key} (db ${sel.db})`;
    encodingEl.hidden = win === null;
    if (win !== null) {
      encodingEl.textContent = win.encoding;
      encodingEl.className = `badge badge-${win.encoding}`;
      statsEl.textContent =
        win.encoding === "skiplist"
          ? `${number(win.len)} members · ${win.max_level} level${win.max_level === 1 ? "" : "s"}`
          : `${number(win.len)} member${win.len === 1 ? "" : "s"}`;
    } else {
      statsEl.textContent = "";
    }
  }

  function drawEmpty() {
    const show = sel.key === null || missing;
    empty.hidden = !show;
    if (!show) return;
    if (sel.key === null) {
      emptyTitle.textContent = "No sorted set selected.";
      emptyHint.textContent =
        "Add a few members in the console, then click the key in the keyspace list. Add more than 128 to watch it become a skiplist.";
      emptyExample.textContent = "ZADD leaderboard 10 alice 20 bob 30 carol";
    } else {
      emptyTitle.textContent = `“${sel.key}” is not a sorted set${sel.db === 0 ? "" : ` in db ${sel.db}`} (any more).`;
      emptyHint.textContent = "It was deleted, expired or replaced. Pick another key in the keyspace list, or create it again:";
      emptyExample.textContent = `ZADD ${/^[\w:.-]+$/.test(sel.key) ? sel.key : "myzset"} 1 one 2 two 3 three`;
    }
  }

  function drawListpack() {
    if (renderedListpack === dataVersion) return;
    renderedListpack = dataVersion;
    listpack.render(win, landed?.member ?? null);
  }

  function drawCanvas() {
    const { width, height, dpr } = size;
    if (width < 10 || height < 10) return;
    const pw = Math.round(width * dpr);
    const ph = Math.round(height * dpr);
    if (canvas.width !== pw || canvas.height !== ph) {
      canvas.width = pw;
      canvas.height = ph;
    }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const placed = search?.placed ?? null;
    const result = drawSkiplist(ctx, width, height, {
      window: win,
      start: win.start,
      cols: cols(),
      landed: landed ? { member: landed.member, flash: flashOf(landed.at, FLASH_MS) } : null,
      hover,
      path: placed ? { placed, reveal: searchReveal() } : null,
    });
    layout = result.layout;
    canvas.dataset.lanes = String(result.lanes);
    canvas.dataset.columns = String(result.columns);
    canvas.dataset.links = String(result.links);
    canvas.dataset.pathShown = String(result.pathShown);
    canvas.dataset.colWidth = layout.colW.toFixed(1);
  }

  function drawTooltip() {
    const e = hover >= 0 ? win?.entries?.[hover] : null;
    tooltip.hidden = !e || drag !== null;
    if (!e) return;
    const spans = e.spans.map((s, i) => `L${i + 1}→${s === 0 ? "NIL" : `+${number(s)}`}`).join("  ");
    tooltip.replaceChildren(
      el("div", "tooltip-member", e.member),
      el("div", "tooltip-line", `score ${formatScore(e.score)} · rank ${number(e.rank)} · level ${e.level}`),
      el("div", "tooltip-line tooltip-spans", spans),
    );
  }

  function drawControls() {
    const len = win?.len ?? 0;
    const skip = isSkiplist();
    const size = pageSize();
    const showPager = win !== null && (skip || len > LISTPACK_PAGE);
    controls.hidden = win === null;
    for (const b of [firstBtn, prevBtn, nextBtn, lastBtn]) b.hidden = !showPager;
    prevBtn.disabled = firstBtn.disabled = start <= 0;
    nextBtn.disabled = lastBtn.disabled = start + size >= len;
    const shownEnd = Math.min(len, (win?.start ?? 0) + (win?.entries.length ?? 0));
    rangeEl.textContent = len === 0 ? "" : `#${number(win.start)}–${number(Math.max(win.start, shownEnd - 1))} of ${number(len)}`;
    rangeEl.title = "ranks shown (0 = lowest score)";
    zoomBox.hidden = !skip;
    zoomRange.value = String(zoom);
    zoomOut.disabled = zoom >= ZOOM_STEPS.length - 1;
    zoomIn.disabled = zoom <= 0;
    zoomText.textContent = `${cols()} cols`;
  }

  function writeState() {
    const d = root.dataset;
    d.key = sel.key ?? "";
    d.encoding = win?.encoding ?? "";
    d.len = String(win?.len ?? 0);
    d.maxLevel = String(win?.max_level ?? 0);
    d.start = String(win?.start ?? 0);
    d.cols = String(cols());
    d.landedMember = landed?.member ?? "";
    d.landedRank = landed ? String(landed.rank) : "";
    d.landedLevel = landed ? String(landed.level) : "";
    d.searchCommand = search?.event.command ?? "";
    d.searchSteps = search?.placed ? String(search.placed.steps.length) : "";
    d.searchResultRank = search?.placed ? String(search.placed.resultRank) : "";
    d.converted = conversion ? `${conversion.from}->${conversion.to}` : "";
  }

  return {
    update(events, state) {
      const t0 = now();
      if (state.selectedKey !== sel.key || state.selectedDb !== sel.db) select(state.selectedDb, state.selectedKey);
      if (events.length > 0) handleEvents(events);
      if (needFetch) fetchWindow();
      if (animating()) dirty = true;
      workMs = now() - t0;
      return dirty;
    },

    draw() {
      const t0 = now();
      dirty = false;
      draws += 1;
      drawHead();
      drawEmpty();
      const mode = win === null ? "none" : win.encoding;
      listpack.root.hidden = mode !== "listpack";
      skiplist.hidden = mode !== "skiplist";
      root.dataset.mode = mode;
      if (conversion !== null) {
        const text = `Converted ${conversion.from} → ${conversion.to} ${conversion.reason ?? ""}. The skiplist keeps members in score order on level 1 and adds express lanes above it.`;
        if (bannerText.textContent !== text) {
          bannerText.textContent = text;
          banner.classList.remove("is-new");
          void banner.offsetWidth; // restart the entrance transition
          banner.classList.add("is-new");
        }
      }
      banner.hidden = conversion === null;
      statusEl.textContent = status;
      if (mode === "listpack") drawListpack();
      if (mode === "skiplist") {
        drawCanvas();
        drawTooltip();
      } else {
        tooltip.hidden = true;
      }
      drawControls();
      legend.render(isSkiplist() ? win : null, search);
      writeState();
      workMs += now() - t0;
      root.dataset.draws = String(draws);
      root.dataset.workMs = workMs.toFixed(2);
    },

    /** True while a highlight is fading or a search path is being revealed. */
    animating,

    /** Fetch again (after an engine reset). */
    refresh() {
      refetch();
    },

    /** The visible window's first rank and column count (tests, labs). */
    viewport() {
      return { start, cols: cols(), encoding: win?.encoding ?? null, len: win?.len ?? 0 };
    },
  };
}

