// @ts-check
// UI state and what the page knows about the engine's clock, as plain data — no DOM, no engine.
//
// The loop is the only writer of the `clock` part (from advance_to results and drained events);
// controls write the UI part (paused, speed) through `set`. Views read `get()` when they draw.

/** @typedef {"keyspace" | "zset" | "expiry" | "eviction" | "delay-queue" | "persistence"} PanelView */

/** The speeds the clock control offers: virtual ms per real ms. */
export const SPEEDS = Object.freeze([1, 10, 60, 600, 3600]);

/**
 * The views the right-hand panel switches between (the tabs above it). "keyspace" is the
 * keyspace list itself, moved into that panel's place (a lab about strings, hashes or locks
 * shows its keys there, and the console gets the column's full height).
 * @type {readonly PanelView[]}
 */
export const PANEL_VIEWS = Object.freeze(["keyspace", "zset", "expiry", "eviction", "delay-queue", "persistence"]);

/**
 * Whether `view` is one of PANEL_VIEWS.
 * @param {unknown} view
 * @returns {view is PanelView}
 */
export function isPanelView(view) {
  return PANEL_VIEWS.some((v) => v === view);
}

/**
 * What the page knows about the engine's clock (the loop writes it).
 * @typedef {object} ClockState
 * @property {number} now
 * @property {number} nextCronMs  when the next serverCron tick runs: "Step 1 tick" goes exactly there
 * @property {number} hz
 * @property {number} cronPeriodMs
 * @property {number} cronTicks   sums of the engine's `cron` events: serverCron runs since the page started
 * @property {number} frameTicks  ticks run by the latest frame
 * @property {number} lagMs       virtual ms the latest frame could not run within its tick budget (reported, never hidden)
 * @property {number} pendingMs   virtual ms requested by "jump"/"step" and not yet run (a big jump spans frames)
 * @property {number} jumpMs      the whole jump being run (pendingMs is what is left of it), for its progress; 0 when none
 * @property {number} expired
 * @property {number} droppedEvents
 * @property {number} unreadableDrains  drains whose events the engine could not hand over (lost, not just dropped)
 */

/**
 * The page's state: the UI part (controls write it) and the clock part (the loop writes it).
 * @typedef {object} State
 * @property {boolean} paused
 * @property {number} speed
 * @property {number} seed
 * @property {number} startMs
 * @property {string} panelView  which view the right-hand panel shows: one of PANEL_VIEWS, or (a
 *           lab step naming another view, such as "keyspace") none of them
 * @property {number} selectedDb
 * @property {string | null} selectedKey  the key the sorted-set view shows (picked in the keyspace view), or null
 * @property {Readonly<ClockState>} clock
 */

/**
 * The state the page starts with.
 * @param {{seed: number, startMs: number, paused?: boolean, speed?: number, panelView?: string}} options
 * @returns {Readonly<State>}
 */
export function createInitialState({ seed, startMs, paused = false, speed = 1, panelView = "zset" }) {
  return Object.freeze({
    paused,
    speed,
    seed,
    startMs,
    // Which view the right-hand panel shows: one of PANEL_VIEWS.
    panelView: isPanelView(panelView) ? panelView : "zset",
    // The key the sorted-set view shows (picked in the keyspace view), or null.
    selectedDb: 0,
    selectedKey: null,
    clock: Object.freeze({
      now: startMs,
      // When the next serverCron tick runs: "Step 1 tick" goes exactly there.
      nextCronMs: startMs + 100,
      hz: 10,
      cronPeriodMs: 100,
      // Sums of the engine's `cron` events: serverCron runs since the page started.
      cronTicks: 0,
      // Ticks run by the latest frame, and how many virtual ms that frame could not run
      // within its tick budget (reported, never hidden).
      frameTicks: 0,
      lagMs: 0,
      // Virtual ms requested by "jump"/"step" and not yet run (a big jump spans frames).
      pendingMs: 0,
      jumpMs: 0,
      expired: 0,
      droppedEvents: 0,
      // Drains whose events the engine could not hand over (lost, not just dropped).
      unreadableDrains: 0,
    }),
  });
}

/**
 * @param {object} a
 * @param {object} b
 */
function shallowEqual(a, b) {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.is(a[k], b[k]));
}

/**
 * Counts what the clock bar shows from a batch of drained events: cron ticks, expired keys,
 * dropped events, drains that could not be read. Pure: returns a new clock object.
 * @param {Readonly<ClockState>} clock
 * @param {ReadonlyArray<{kind: string, ticks?: number}>} events
 * @param {number} dropped
 * @param {number} [unreadable]
 * @returns {ClockState}
 */
export function reduceEvents(clock, events, dropped, unreadable = 0) {
  let cronTicks = clock.cronTicks;
  let expired = clock.expired;
  for (const e of events) {
    if (e.kind === "cron") cronTicks += Number(e.ticks) || 0;
    else if (e.kind === "expired") expired += 1;
  }
  return {
    ...clock,
    cronTicks,
    expired,
    droppedEvents: clock.droppedEvents + (Number(dropped) || 0),
    unreadableDrains: (clock.unreadableDrains ?? 0) + (Number(unreadable) || 0),
  };
}

/**
 * A tiny observable store: `get()`, `set(patch)`, `setClock(patch)`, `subscribe(fn)`.
 * @param {Readonly<State>} initial
 */
export function createStore(initial) {
  let state = initial;
  /** @type {Set<(state: Readonly<State>) => void>} */
  const listeners = new Set();

  /** @param {State} next */
  function commit(next) {
    state = Object.freeze(next);
    for (const fn of listeners) fn(state);
    return true;
  }

  return {
    get() {
      return state;
    },

    /**
     * Merges a patch into the UI state; listeners run only when something changed.
     * @param {Partial<Omit<State, "clock">>} patch
     */
    set(patch) {
      const next = { ...state, ...patch };
      if (shallowEqual(next, state)) return false;
      return commit(next);
    },

    /**
     * Merges a patch into the clock part.
     * @param {Partial<ClockState>} patch
     */
    setClock(patch) {
      const clock = { ...state.clock, ...patch };
      if (shallowEqual(clock, state.clock)) return false;
      return commit({ ...state, clock: Object.freeze(clock) });
    },

    /**
     * Calls `fn(state)` after every change; returns the unsubscribe.
     * @param {(state: Readonly<State>) => void} fn
     */
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}

/** @typedef {ReturnType<typeof createStore>} Store */
