// UI state and what the page knows about the engine's clock, as plain data — no DOM, no engine.
//
// The loop is the only writer of the `clock` part (from advance_to results and drained events);
// controls write the UI part (paused, speed) through `set`. Views read `get()` when they draw.

/** The speeds the clock control offers: virtual ms per real ms. */
export const SPEEDS = Object.freeze([1, 10, 60, 600, 3600]);

/** The views the right-hand panel switches between (the tabs above it). */
export const PANEL_VIEWS = Object.freeze(["zset", "expiry", "eviction", "delay-queue"]);

/** The state the page starts with. */
export function createInitialState({ seed, startMs, paused = false, speed = 1, panelView = "zset" }) {
  return Object.freeze({
    paused,
    speed,
    seed,
    startMs,
    // Which view the right-hand panel shows: one of PANEL_VIEWS.
    panelView: PANEL_VIEWS.includes(panelView) ? panelView : "zset",
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
      expired: 0,
      droppedEvents: 0,
      // Drains whose events the engine could not hand over (lost, not just dropped).
      unreadableDrains: 0,
    }),
  });
}

function shallowEqual(a, b) {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.is(a[k], b[k]));
}

/**
 * Counts what the clock bar shows from a batch of drained events: cron ticks, expired keys,
 * dropped events, drains that could not be read. Pure: returns a new clock object.
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

/** A tiny observable store: `get()`, `set(patch)`, `setClock(patch)`, `subscribe(fn)`. */
export function createStore(initial) {
  let state = initial;
  const listeners = new Set();

  function commit(next) {
    state = Object.freeze(next);
    for (const fn of listeners) fn(state);
    return true;
  }

  return {
    get() {
      return state;
    },

    /** Merges a patch into the UI state; listeners run only when something changed. */
    set(patch) {
      const next = { ...state, ...patch };
      if (shallowEqual(next, state)) return false;
      return commit(next);
    },

    /** Merges a patch into the clock part. */
    setClock(patch) {
      const clock = { ...state.clock, ...patch };
      if (shallowEqual(clock, state.clock)) return false;
      return commit({ ...state, clock: Object.freeze(clock) });
    },

    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}
