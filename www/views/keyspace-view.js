// @ts-check
// The keyspace picker: a page of the console's current database — key, type, encoding,
// length, TTL — with a glob filter. Clicking a sorted set shows it in the sorted-set view
// (the selection lives in the store); other types get a one-line description.
//
// It asks the engine (through main.js's read-only `source`) for one page at a time, and only
// when something could have changed it: a keyspace event in its db, an expiry, a command (which
// may SELECT another db or FLUSHDB), a new filter or page. While the clock plays, a page changed
// by the engine is fetched again at most every PLAYING_REFETCH_MS (a workload or an expiry wave
// changes it every frame); paused, or after the user's own input, at once. TTLs count down from
// the snapshot's absolute expire times as the virtual clock moves, without asking the engine.
//
// The parts: keyspace-model.js decides (pure), keyspace-renderer.js draws; this file reads the
// pages and wires them to the store and the loop.

import { createKeyspaceDom, drawPage, drawTtls, renderRows, ttlsChanged } from "./keyspace-renderer.js";
import * as model from "./keyspace-model.js";

export { PAGE_SIZE, PLAYING_REFETCH_MS, formatLength, formatTtl } from "./keyspace-model.js";

/** @typedef {import("./keyspace-model.js").KeyspaceState} KeyspaceState */
/** @typedef {import("./engine-types.js").EngineEvent} EngineEvent */
/** @typedef {import("./engine-types.js").KeyspacePage} KeyspacePage */
/** @typedef {{selectedDb: number, selectedKey: string | null, paused: boolean, clock: {now: number}}} StoreState */

/**
 * @param {HTMLElement} root
 * @param {object} deps
 * @param {{keyspace(db: number, offset: number, count: number, pattern?: string | null): KeyspacePage,
 *          currentDb(): number}} deps.source
 * @param {{get(): object, set(patch: object): boolean}} deps.store
 * @param {() => void} deps.invalidate  asks the loop for a frame (after input)
 * @param {() => number} [deps.now]     real time in ms (tests may pin it)
 */
export function createKeyspaceView(root, { source, store, invalidate, now = () => performance.now() }) {
  const dom = createKeyspaceDom(root);
  let state = model.initialState(source.currentDb());
  let dirty = true;
  /** @type {import("./keyspace-renderer.js").TtlCells} */
  let ttlCells = [];
  /** @type {KeyspacePage | null} the page the rows were built from */
  let rendered = null;
  let renderedSelection = "";

  /** @param {KeyspaceState} next */
  function act(next) {
    state = next;
    dirty = true;
    invalidate();
  }

  dom.filterForm.addEventListener("submit", (event) => event.preventDefault());
  dom.filter.addEventListener("input", () => act(model.setFilter(state, dom.filter.value)));
  dom.prev.addEventListener("click", () => act(model.previousPage(state)));
  dom.next.addEventListener("click", () => act(model.nextPage(state)));

  /** @param {import("./engine-types.js").KeyInfo} k */
  function pick(k) {
    const r = model.pick(state, k);
    state = r.state;
    if (r.select) store.set(r.select);
    dirty = true;
    invalidate();
  }

  function fetchPage() {
    for (let retried = false; ; retried = true) {
      const want = model.pageRequest(state);
      const r = model.acceptPage(state, source.keyspace(want.db, want.offset, want.count, want.pattern), now(), retried);
      state = r.state;
      if (!r.retry) break;
    }
    root.dataset.fetches = String(state.fetches);
    dirty = true;
  }

  return {
    /**
     * @param {readonly EngineEvent[]} events
     * @param {StoreState} store
     */
    update(events, store) {
      const r = model.reduceEvents(state, events);
      state = r.state;
      // A command may have SELECTed another db (asked once per batch, not per command).
      if (r.askDb) state = model.currentDb(state, source.currentDb());
      if (store.selectedKey !== state.selected.key || store.selectedDb !== state.selected.db) {
        state = { ...state, selected: { db: store.selectedDb, key: store.selectedKey } };
        dirty = true;
      }
      state = { ...state, playing: !store.paused };
      if (model.fetchDue(state, now())) fetchPage();
      state = { ...state, clockMs: store.clock.now };
      if (!dirty && state.page !== null && ttlsChanged(ttlCells, state.clockMs)) dirty = true;
      return dirty;
    },

    draw() {
      dirty = false;
      const page = state.page;
      if (page === null) return;
      const selection = `${state.selected.db}\u0000${state.selected.key}`;
      if (rendered !== page || renderedSelection !== selection) {
        rendered = page;
        renderedSelection = selection;
        ttlCells = renderRows(dom, state, page, pick);
      } else {
        drawTtls(ttlCells, state.clockMs);
      }
      drawPage(dom, state, page);
    },

    /** A refetch waits for its turn (the loop keeps running frames until it is done). */
    animating() {
      return state.needFetch;
    },

    /** Fetch again (after an engine reset). */
    refresh() {
      act(model.refetch(state, { db: source.currentDb(), offset: 0 }));
    },
  };
}
