// @ts-check
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
// changed; pointer/keyboard input just changes the state and asks the loop for a frame.
//
// The parts: zset-model.js (state and every decision, pure), zset-renderer.js (DOM),
// zset-input.js (DOM events → model); this file wires them to the source, the store and the loop.

import { placeSearchPath } from "./zset-search-path.js";
import { createZsetDom, createZsetUi, renderZset } from "./zset-renderer.js";
import { bindZsetInput } from "./zset-input.js";
import {
  acceptWindow,
  animating,
  applySearch,
  cols,
  explainConversion,
  initialState,
  isSkiplist,
  listpackLookupStatus,
  reduceEvents,
  revealLanded,
  selectKey,
  windowFor,
} from "./zset-model.js";

export { FLASH_MS, LISTPACK_PAGE, ZOOM_STEPS } from "./zset-model.js";

/** @typedef {import("./zset-model.js").ZsetState} ZsetState */
/** @typedef {import("./engine-types.js").EngineEvent} EngineEvent */
/** @typedef {import("./engine-types.js").ZsetWindow} ZsetWindow */
/**
 * @typedef {object} ZsetSource
 * @property {(db: number, key: string, start: number, count: number) => ZsetWindow | null} zsetWindow
 */

/**
 * @param {HTMLElement} root
 * @param {object} deps
 * @param {ZsetSource} deps.source
 * @param {{get(): object, set(patch: object): boolean}} deps.store  selection lives in the store
 * @param {() => void} deps.invalidate  asks the loop for a frame (after input)
 * @param {() => number} [deps.now]     real time in ms (tests may pin it)
 */
export function createZsetView(root, { source, store, invalidate, now = () => performance.now() }) {
  const dom = createZsetDom(root);
  const ui = createZsetUi();
  let state = initialState();
  let dirty = true;
  let draws = 0;
  let workMs = 0;

  function touch() {
    dirty = true;
    invalidate();
  }

  bindZsetInput(dom, ui, {
    get: () => state,
    set(next) {
      if (next === state) return;
      state = next;
      touch();
    },
    touch,
  });

  /** Reads the window the state asks for (again, once, if the set shrank under the page). */
  function fetchWindow() {
    state = { ...state, needFetch: false };
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const want = windowFor(state);
      if (want === null) return;
      state = acceptWindow(state, source.zsetWindow(want.db, want.key, want.start, want.count), attempt === 1);
      if (!state.needFetch) break;
    }
    dirty = true;
  }

  /** @param {number} rank */
  function nodeAt(rank) {
    const key = state.sel.key;
    const e = key === null ? undefined : source.zsetWindow(state.sel.db, key, rank, 1)?.entries?.[0];
    return e ? { member: e.member, spans: e.spans } : null;
  }

  /** @param {readonly EngineEvent[]} events */
  function handleEvents(events) {
    const before = state;
    const r = reduceEvents(state, events, now());
    state = r.state;
    if (r.follow !== null) store.set({ selectedDb: r.follow.db, selectedKey: r.follow.key });
    if (state.needFetch) fetchWindow();
    if (r.inserted && state.landed !== null) {
      // Now that the encoding is known (it may have just changed), bring the member into view.
      state = revealLanded(state);
      if (state.needFetch) fetchWindow();
    }
    state = explainConversion(state);
    const win = state.win;
    if (r.searched !== null && win !== null && isSkiplist(state)) {
      const placed = placeSearchPath(r.searched, win.header_spans, win.len, nodeAt);
      state = applySearch(state, r.searched, placed, now());
      if (state.needFetch) fetchWindow();
    } else if (r.listpackLookup !== null && !r.inserted) {
      state = { ...state, status: listpackLookupStatus(r.listpackLookup) };
    }
    if (state !== before) dirty = true;
  }

  return {
    /**
     * @param {readonly EngineEvent[]} events
     * @param {{selectedDb: number, selectedKey: string | null}} store  the store's state
     */
    update(events, { selectedDb, selectedKey }) {
      const t0 = now();
      if (selectedKey !== state.sel.key || selectedDb !== state.sel.db) {
        state = selectKey(state, selectedDb, selectedKey);
        dirty = true;
      }
      if (events.length > 0) handleEvents(events);
      if (state.needFetch) fetchWindow();
      if (animating(state, now())) dirty = true;
      workMs = now() - t0;
      return dirty;
    },

    draw() {
      const t0 = now();
      dirty = false;
      draws += 1;
      renderZset(dom, state, ui, now());
      workMs += now() - t0;
      root.dataset.draws = String(draws);
      root.dataset.workMs = workMs.toFixed(2);
    },

    /** True while a highlight is fading or a search path is being revealed. */
    animating: () => animating(state, now()),

    /** Fetch again (after an engine reset). */
    refresh() {
      state = { ...state, needFetch: true };
      touch();
    },

    /** The visible window's first rank and column count (tests, labs). */
    viewport() {
      return { start: state.start, cols: cols(state), encoding: state.win?.encoding ?? null, len: state.win?.len ?? 0 };
    },
  };
}
