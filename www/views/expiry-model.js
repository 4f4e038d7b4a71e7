// @ts-check
// The expiry view's model: what the view knows about the active expire cycle and what to draw
// next, as plain data — the db shown, the config, the latest tick's cycles and where each db
// round swept, the cursor, the expires field and bucket window last read, the callouts, and
// which parts are dirty and when each was last drawn (the throttling while the clock plays).
// Pure: no DOM, no engine. Snapshots (the field, a bucket window, a keyspace page) are read by
// expiry-view.js and handed in; every function returns a new state.
//
// One part is mutable on purpose: the running history (expiry-charts.js createExpiryHistory,
// an hour of 100 ms bins in typed arrays) is passed in and appended to, not copied per frame.
//
// The words for a cycle and its rounds are in expiry-cycle.js; the pictures of the expires table
// (the field's caption, the bucket list's rows) in expiry-table-model.js; the controls' parsing
// in expiry-forms.js.

import { number } from "../format.js";
import { t } from "../i18n.js";
import { formatTimeOfDay } from "./clock-model.js";
import { describeLazy, describeStall, groupTicks, sweepOf } from "./expiry-cycle.js";
import { LONG_LIVED } from "./expiry-forms.js";

/** @typedef {import("./engine-types.js").EngineEvent} EngineEvent */
/** @typedef {import("./engine-types.js").ExpireCycleEvent} ExpireCycleEvent */
/** @typedef {import("./engine-types.js").ExpireCycleReport} ExpireCycleReport */
/** @typedef {import("./engine-types.js").ExpireField} ExpireField */
/** @typedef {import("./engine-types.js").BucketView} BucketView */
/** @typedef {import("./expiry-charts.js").ExpiryHistory} ExpiryHistory */

/**
 * Where the 7.0 cursor is in a table of `size` buckets; `approx` when the engine listed only
 * the first 64 rounds of a cycle that went on (the next field read fixes it).
 * @typedef {{bucket: number, size: number, approx: boolean}} Cursor
 */
/** @typedef {{at: number, cycles: ExpireCycleReport[]}} Tick */
/**
 * One of this db's rounds in the latest tick: the buckets it swept, numbered in the tick.
 * @typedef {import("./expiry-cycle.js").BucketSweep & {round: number}} Sweep
 */
/**
 * Buckets read around the cursor at the end of a quiet frame, for the next tick's "before" picture.
 * @typedef {{db: number, start: number, buckets: BucketView[], at: number}} Snapshot
 */
/**
 * The bucket window shown: read `fetchedAt`; TTLs shown for `at`; `before`: as the tick found
 * them, with `startBucket` where its first round began.
 * @typedef {{buckets: BucketView[], fetchedAt: number, at: number, before: boolean, startBucket: number | null}} Display
 */
/** @typedef {{kind: string, text: string, key: string, command: string}} Callout */
/** @typedef {{hz: number, effort: number, algorithm: string}} ExpiryConfig */
/** @typedef {"controls" | "head" | "field" | "callouts" | "tick" | "buckets" | "charts"} Part */
/** @typedef {"field" | "tick" | "buckets" | "charts"} ThrottledPart */

/**
 * @typedef {object} ExpiryState
 * @property {number} db               the db shown (the console's current db)
 * @property {boolean} visible         the panel shows this view
 * @property {boolean} playing
 * @property {number} clockNow         virtual ms
 * @property {number} hz               the store's hz (the tick panel's budget words)
 * @property {ExpiryConfig} config     the engine's config as last read or announced
 * @property {ExpireField | null} field  the latest expire_field
 * @property {number} fieldAt          virtual ms it was read at
 * @property {boolean} fieldStale      something changed since
 * @property {number} fieldCostMs      real ms the last read took
 * @property {number} fieldReadAt      real ms of the last read
 * @property {number} fieldReads
 * @property {Cursor | null} cursor
 * @property {Tick | null} tick
 * @property {number} tickTicks        ticks run in the frame that produced it
 * @property {Sweep[]} sweeps
 * @property {Snapshot | null} snapshot
 * @property {boolean} snapshotFresh   read at the end of the previous update (nothing ran since)
 * @property {Display | null} display
 * @property {boolean} bucketsWanted   the bucket window must be read again
 * @property {number | null} pinned    a bucket the user clicked in the field (null: follow the cursor)
 * @property {Callout[]} callouts      newest first
 * @property {number} lazySeen
 * @property {number | null} droppedSeen  the store's dropped-events count when last looked
 * @property {number} spanMs           the charts' span (virtual ms)
 * @property {number} longBatch        "long-lived" presses so far (their key prefixes)
 * @property {Record<Part, boolean>} dirty
 * @property {Record<ThrottledPart, number>} drawnAt  real ms each throttled part was last drawn
 * @property {number} chartsVersion    the history version the charts show
 * @property {number} chartsNow        the virtual time the charts show
 */

/** Buckets read around the cursor: a few behind it, the rest ahead (fewer while playing). */
export const WINDOW_BUCKETS = 160;
export const PLAYING_WINDOW_BUCKETS = 40;
export const BEHIND = 3;
/** Rounds the engine lists per cycle (src/expire.rs MAX_ROUNDS_IN_EVENT). */
export const MAX_ROUNDS_LISTED = 64;
/** Callouts kept (newest first). */
export const MAX_CALLOUTS = 5;
/**
 * While the clock plays, the DOM-heavy parts (the tick panel, the bucket list, the charts) are
 * redrawn at most this often each (real ms), and at most one of them per frame, so that no
 * frame pays for all three; the field canvas at most every FIELD_CANVAS_MS. Paused, everything
 * is drawn as soon as it changes.
 */
export const HEAVY_EVERY_MS = 250;
export const FIELD_CANVAS_MS = 66;
export const FIELD_MIN_MS = 250;
/** The field may take at most 1/FIELD_COST_SHARE of real time while playing. */
export const FIELD_COST_SHARE = 25;
/** While playing: rounds listed per cycle, and rounds whose keys are listed (all when paused). */
export const PLAYING_ROUNDS = 8;
export const PLAYING_KEY_ROUNDS = 2;

/** The parts in drawing order. */
export const PARTS = /** @type {const} */ (["controls", "head", "field", "callouts", "tick", "buckets", "charts"]);
const HEAVY = /** @type {const} */ (["tick", "buckets", "charts"]);

/**
 * @param {number} a
 * @param {number} n
 */
const mod = (a, n) => ((a % n) + n) % n;

/** @returns {Record<Part, boolean>} */
const allDirty = () => ({ head: true, field: true, buckets: true, tick: true, callouts: true, charts: true, controls: true });

/**
 * A copy to edit: the state and its dirty flags (the nested objects functions here change).
 * @param {ExpiryState} s
 * @returns {ExpiryState}
 */
const edit = (s) => ({ ...s, dirty: { ...s.dirty } });

// ---------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------

/**
 * @param {number} db  the console's current db
 * @returns {ExpiryState}
 */
export function initialState(db) {
  return {
    db,
    visible: false,
    playing: false,
    clockNow: 0,
    hz: 10,
    config: { hz: 10, effort: 1, algorithm: "7.0" },
    field: null,
    fieldAt: 0,
    fieldStale: true,
    fieldCostMs: 0,
    fieldReadAt: Number.NEGATIVE_INFINITY,
    fieldReads: 0,
    cursor: null,
    tick: null,
    tickTicks: 1,
    sweeps: [],
    snapshot: null,
    snapshotFresh: false,
    display: null,
    bucketsWanted: true,
    pinned: null,
    callouts: [],
    lazySeen: 0,
    droppedSeen: null,
    spanMs: 60_000,
    longBatch: 0,
    dirty: allDirty(),
    drawnAt: {
      field: Number.NEGATIVE_INFINITY,
      tick: Number.NEGATIVE_INFINITY,
      buckets: Number.NEGATIVE_INFINITY,
      charts: Number.NEGATIVE_INFINITY,
    },
    chartsVersion: -1,
    chartsNow: -1,
  };
}

/**
 * Start over (after an engine reset or recovery), keeping what the page set: the span, the
 * visibility, the clock, the dropped count.
 * @param {ExpiryState} s
 * @param {number} db
 * @returns {ExpiryState}
 */
export function restart(s, db) {
  return {
    ...s,
    db,
    field: null,
    cursor: null,
    tick: null,
    sweeps: [],
    snapshot: null,
    snapshotFresh: false,
    display: null,
    pinned: null,
    callouts: [],
    lazySeen: 0,
    fieldStale: true,
    bucketsWanted: true,
    dirty: allDirty(),
  };
}

/**
 * The engine's config as CONFIG GET returned it (null: not readable, keep the old value).
 * @param {ExpiryState} s
 * @param {{hz: string | null, effort: string | null, algorithm: string | null}} values
 * @returns {ExpiryState}
 */
export function configRead(s, { hz, effort, algorithm }) {
  const config = { ...s.config };
  if (hz !== null) config.hz = Number(hz);
  if (effort !== null) config.effort = Number(effort);
  if (algorithm !== null) config.algorithm = algorithm;
  return { ...s, config, dirty: { ...s.dirty, controls: true } };
}

/**
 * The store's state at the start of a frame.
 * @param {ExpiryState} s
 * @param {{panelView: string, paused: boolean, clock: {now: number, hz: number}}} store
 * @returns {{state: ExpiryState, becameVisible: boolean}}
 */
export function beginFrame(s, store) {
  const next = edit(s);
  next.visible = store.panelView === "expiry";
  next.playing = !store.paused;
  next.clockNow = store.clock.now;
  if (store.clock.hz !== s.hz) {
    next.hz = store.clock.hz;
    next.dirty.head = true;
  }
  return { state: next, becameVisible: next.visible && !s.visible };
}

/**
 * Everything is drawn again and the bucket window read again (the panel was just shown).
 * @param {ExpiryState} s
 */
export const showAll = (s) => ({ ...s, dirty: allDirty(), bucketsWanted: true });

/**
 * Marks parts to draw.
 * @param {ExpiryState} s
 * @param {...Part} parts
 * @returns {ExpiryState}
 */
export function touch(s, ...parts) {
  const next = edit(s);
  for (const p of parts) next.dirty[p] = true;
  return next;
}

// ---------------------------------------------------------------------------------------------
// Events → state
// ---------------------------------------------------------------------------------------------

/**
 * A lazy expiry or a big synchronous free as a callout; the dropped-events one is `droppedCallout`.
 * @param {EngineEvent} e
 * @returns {Callout | null}
 */
function calloutOf(e) {
  if (e.kind === "expired" && e.by === "lazy") return { kind: "lazy", text: describeLazy(e), key: e.key, command: e.command ?? "" };
  if (e.kind === "stall") return { kind: "stall", text: describeStall(e), key: e.key, command: "" };
  return null;
}

/**
 * One frame's events. Cycles and lazy expiries go into `history`; the latest tick's cycles,
 * this db's sweeps and its cursor into the state. `changed`: the db's keys or the cycle moved
 * (read the field and a keyspace page again).
 *
 * Whether the bucket window read at the end of the previous frame can show "the table as the
 * tick found it" depends on nothing else having run before the cycle in this frame.
 *
 * @param {ExpiryState} state
 * @param {readonly EngineEvent[]} events
 * @param {{history: ExpiryHistory, currentDb: number, frameTicks: number}} ctx
 * @returns {{state: ExpiryState, changed: boolean}}
 */
export function reduceEvents(state, events, { history, currentDb, frameTicks }) {
  const s = edit(state);
  /** @type {ExpireCycleEvent[]} */
  const cycles = [];
  let foreignBeforeCycle = false; // a change other than the cycle's own before its report
  let dbChanged = false;
  /** @type {Callout[]} */
  const fresh = []; // callouts from this batch, oldest first
  for (const e of events) {
    const callout = calloutOf(e);
    if (callout !== null) fresh.push(callout);
    switch (e.kind) {
      case "expire_cycle":
        history.addCycle(e.at_ms, e.report);
        cycles.push(e);
        break;
      case "expired":
        if (e.by === "lazy") {
          history.addLazy(e.at_ms);
          s.lazySeen += 1;
          if (cycles.length === 0) foreignBeforeCycle = true;
        }
        if (e.db === s.db) dbChanged = true;
        break;
      case "keyspace":
        if (e.db === s.db) dbChanged = true;
        if (e.event !== "expired" && cycles.length === 0) foreignBeforeCycle = true;
        break;
      case "command":
        if (cycles.length === 0) foreignBeforeCycle = true;
        if (currentDb !== s.db) {
          s.db = currentDb;
          history.clearLevels();
          s.field = null;
          s.cursor = null;
          s.pinned = null;
          s.snapshot = null;
        }
        dbChanged = true;
        break;
      case "config":
        if (e.name === "hz") s.config = { ...s.config, hz: Number(e.value) };
        else if (e.name === "active-expire-effort") s.config = { ...s.config, effort: Number(e.value) };
        else if (e.name === "playground-expire-algorithm") s.config = { ...s.config, algorithm: e.value };
        s.dirty.controls = s.dirty.head = s.dirty.field = true;
        break;
      case "clock_set":
        if (e.to_ms < e.from_ms) history.clear();
        dbChanged = true;
        if (cycles.length === 0) foreignBeforeCycle = true;
        break;
      default:
        break;
    }
  }
  if (fresh.length > 0) {
    // Newest first; a command that expired thousands of keys (a SCAN) keeps only the last few.
    s.callouts = fresh.slice(-MAX_CALLOUTS).reverse().concat(s.callouts).slice(0, MAX_CALLOUTS);
    s.dirty.callouts = true;
  }
  if (cycles.length > 0) applyCycles(s, cycles, foreignBeforeCycle, frameTicks);
  const changed = dbChanged || cycles.length > 0;
  if (changed) {
    s.fieldStale = true;
    if (cycles.length === 0) s.bucketsWanted = true;
  }
  return { state: s, changed };
}

/**
 * The latest tick, this db's sweeps in it, the cursor, and which bucket picture to show.
 * Edits `s` (a copy made by reduceEvents).
 * @param {ExpiryState} s
 * @param {ExpireCycleEvent[]} cycles  this frame's, in order
 * @param {boolean} foreignBeforeCycle
 * @param {number} frameTicks
 */
function applyCycles(s, cycles, foreignBeforeCycle, frameTicks) {
  const ticks = groupTicks(cycles);
  const latest = ticks[ticks.length - 1];
  const snapshot = s.snapshot;
  let before = ticks.length === 1 && s.snapshotFresh && !foreignBeforeCycle && snapshot !== null && snapshot.db === s.db;
  s.tick = latest;
  s.tickTicks = Math.max(1, frameTicks);
  // This db's rounds in the tick (numbered across the tick's cycles), and where they began.
  s.sweeps = [];
  let n = 0;
  /** @type {number | null} */
  let startBucket = null;
  for (const report of latest.cycles) {
    for (const round of report.rounds) {
      n += 1;
      if (round.db !== s.db) continue;
      const sw = sweepOf(round, report.algorithm);
      if (sw) {
        s.sweeps.push({ ...sw, round: n });
        startBucket ??= sw.from;
      }
    }
  }
  s.cursor = cursorAfter(s.cursor, cycles, s.db);
  // The picture "as the tick found it" needs the snapshot to hold the bucket it began at.
  if (before && !snapshot?.buckets.some((b) => b.bucket === startBucket)) before = false;
  if (before && snapshot !== null) {
    s.display = { buckets: snapshot.buckets, fetchedAt: snapshot.at, at: latest.at, before: true, startBucket };
    s.bucketsWanted = false;
  } else {
    s.display = s.display ? { ...s.display, before: false } : null;
    s.bucketsWanted = true;
  }
  s.dirty.tick = s.dirty.buckets = s.dirty.field = s.dirty.head = true;
}

/**
 * Where `db`'s last round left the cursor — marked approximate when the engine listed only the
 * first rounds of a cycle that went on in this db (the field, read next, knows).
 * @param {Cursor | null} cursor  before these cycles
 * @param {readonly ExpireCycleEvent[]} cycles
 * @param {number} db
 * @returns {Cursor | null}
 */
export function cursorAfter(cursor, cycles, db) {
  let c = cursor;
  for (const { report } of cycles) {
    for (const round of report.rounds) {
      const sw = round.db === db ? sweepOf(round, report.algorithm) : null;
      if (sw) c = { bucket: sw.cursorBucket, size: sw.size, approx: false };
    }
    const listed = report.rounds;
    if (c && listed.length >= MAX_ROUNDS_LISTED && report.round_count > listed.length && report.dbs_visited.includes(db)) {
      c = { ...c, approx: true };
    }
  }
  return c;
}

/**
 * The store's dropped-events count: said once in a callout, kept up to date.
 * @param {ExpiryState} s
 * @param {number} dropped
 * @returns {ExpiryState}
 */
export function noteDropped(s, dropped) {
  if (s.droppedSeen === null || dropped <= s.droppedSeen) return s.droppedSeen === dropped ? s : { ...s, droppedSeen: dropped };
  const callout = {
    kind: "dropped",
    text: t("{n} engine events were dropped so far (its log holds 50,000 between frames): the charts and the ticks shown miss some cycles.", { n: number(dropped) }),
    key: "",
    command: "",
  };
  const callouts = [callout, ...s.callouts.filter((c) => c.kind !== "dropped")].slice(0, MAX_CALLOUTS);
  return { ...s, callouts, droppedSeen: dropped, dirty: { ...s.dirty, callouts: true } };
}

/**
 * After a frame with no change to the db: the snapshot stays fresh only if nothing but cron ran.
 * @param {ExpiryState} s
 * @param {readonly EngineEvent[]} events
 */
export function settleSnapshot(s, events) {
  const fresh = s.snapshotFresh && events.every((e) => e.kind === "cron");
  return fresh === s.snapshotFresh ? s : { ...s, snapshotFresh: fresh };
}

// ---------------------------------------------------------------------------------------------
// Reading snapshots: when, and what came back
// ---------------------------------------------------------------------------------------------

/**
 * Whether to read the expires field now: something changed, and (playing) its cost budget allows.
 * @param {ExpiryState} s
 * @param {number} now  real ms
 */
export function fieldDue(s, now) {
  if (!s.fieldStale && s.field !== null) return false;
  const wait = Math.max(FIELD_MIN_MS, s.fieldCostMs * FIELD_COST_SHARE);
  return !s.playing || now - s.fieldReadAt >= wait;
}

/**
 * A field read (after this frame's events, so its cursor is the exact one).
 * @param {ExpiryState} s
 * @param {ExpireField | null} field
 * @param {{costMs: number, readAt: number, history: ExpiryHistory}} read
 * @returns {ExpiryState}
 */
export function acceptField(s, field, { costMs, readAt, history }) {
  const next = { ...s, field, fieldCostMs: costMs, fieldReadAt: readAt, fieldAt: s.clockNow, fieldReads: s.fieldReads + 1, fieldStale: false };
  if (field) {
    history.addLevel("stale", s.clockNow, Number(field.stale));
    history.addLevel("volatile", s.clockNow, Number(field.volatile));
    next.cursor = field.table_size > 0 ? { bucket: field.cursor_bucket, size: field.table_size, approx: false } : null;
  }
  return { ...next, dirty: { ...s.dirty, field: true, head: true, charts: true } };
}

/**
 * A keyspace page's count of keys with a TTL, as a level sample.
 * @param {ExpiryState} s
 * @param {{volatile: number}} page
 * @param {ExpiryHistory} history
 */
export function levelsRead(s, page, history) {
  history.addLevel("volatile", s.clockNow, Number(page.volatile) || 0);
  return { ...s, dirty: { ...s.dirty, charts: true } };
}

/**
 * Before planning a frame: the charts are dirty when the history grew or (playing) virtual time
 * moved; the bucket list when its window must be read again.
 * @param {ExpiryState} s
 * @param {number} historyVersion
 * @returns {ExpiryState}
 */
export function markDue(s, historyVersion) {
  const charts = historyVersion !== s.chartsVersion || (s.playing && s.clockNow !== s.chartsNow);
  if (!charts && !s.bucketsWanted) return s;
  const next = edit(s);
  if (s.bucketsWanted) next.dirty.buckets = true;
  if (charts) next.dirty.charts = true;
  return next;
}

/**
 * Where the bucket window starts: a few before the cursor, or before the bucket the user picked.
 * @param {ExpiryState} s
 */
export function windowStart(s) {
  if (s.pinned !== null) return Math.max(0, s.pinned - BEHIND);
  if (s.cursor === null) return 0;
  return mod(s.cursor.bucket - BEHIND, s.cursor.size);
}

/**
 * The bucket window to read for drawing (fewer buckets while playing).
 * @param {ExpiryState} s
 */
export function windowFor(s) {
  return { db: s.db, start: windowStart(s), count: s.playing ? PLAYING_WINDOW_BUCKETS : WINDOW_BUCKETS };
}

/**
 * A bucket window read for drawing: shown "now".
 * @param {ExpiryState} s
 * @param {BucketView[]} buckets
 * @returns {ExpiryState}
 */
export function acceptBuckets(s, buckets) {
  return { ...s, bucketsWanted: false, display: { buckets, fetchedAt: s.clockNow, at: s.clockNow, before: false, startBucket: null } };
}

/**
 * Where to read the snapshot for the next tick (the buckets as they are now, so that a single
 * tick — a step, slow playback — can be shown on the table as it found it), or null: not now.
 * @param {ExpiryState} s
 * @param {boolean} changed   this frame's events changed the db
 * @param {number} frameTicks
 * @returns {number | null}
 */
export function snapshotStart(s, changed, frameTicks) {
  const c = s.cursor;
  if ((changed || s.snapshot === null || !s.snapshotFresh) && frameTicks <= 2 && c !== null && !c.approx) {
    return mod(c.bucket - BEHIND, c.size);
  }
  return null;
}

/**
 * @param {ExpiryState} s
 * @param {number} start
 * @param {BucketView[]} buckets
 */
export const acceptSnapshot = (s, start, buckets) => ({ ...s, snapshot: { db: s.db, start, buckets, at: s.clockNow }, snapshotFresh: true });

/**
 * The user picked a bucket in the field (null: follow the cursor again).
 * @param {ExpiryState} s
 * @param {number | null} bucket
 */
export const pin = (s, bucket) => ({ ...s, pinned: bucket, bucketsWanted: true, dirty: { ...s.dirty, buckets: true } });

/**
 * After the populate form added keys: read everything again.
 * @param {ExpiryState} s
 */
export const keysAdded = (s) => ({ ...s, fieldStale: true, snapshotFresh: false, bucketsWanted: true, dirty: { ...s.dirty, head: true } });

// ---------------------------------------------------------------------------------------------
// What to draw this frame
// ---------------------------------------------------------------------------------------------

/**
 * Every dirty part when paused; while playing, the cheap ones, the field canvas if its interval
 * passed, and the most overdue heavy part whose interval passed. `pending`: something waits for
 * its turn (the loop keeps running frames).
 * @param {ExpiryState} s
 * @param {number} now  real ms
 * @returns {{plan: Set<Part>, pending: boolean}}
 */
export function planFrame(s, now) {
  /** @type {Set<Part>} */
  const plan = new Set();
  for (const part of /** @type {const} */ (["controls", "head", "callouts"])) if (s.dirty[part]) plan.add(part);
  if (s.dirty.field && (!s.playing || now - s.drawnAt.field >= FIELD_CANVAS_MS)) plan.add("field");
  const heavy = HEAVY.filter((part) => s.dirty[part]);
  if (!s.playing) {
    for (const part of heavy) plan.add(part);
  } else {
    const due = heavy.filter((part) => now - s.drawnAt[part] >= HEAVY_EVERY_MS);
    due.sort((a, b) => s.drawnAt[a] - s.drawnAt[b]);
    if (due.length > 0) plan.add(due[0]);
  }
  const pending = PARTS.some((part) => s.dirty[part] && !plan.has(part)) || s.fieldStale;
  return { plan, pending };
}

/**
 * A part is being drawn at real time `now`.
 * @param {ExpiryState} s
 * @param {Part} part
 * @param {number} now
 * @returns {ExpiryState}
 */
export function drawn(s, part, now) {
  const next = { ...s, dirty: { ...s.dirty, [part]: false } };
  if (part === "field" || part === "tick" || part === "buckets" || part === "charts") next.drawnAt = { ...s.drawnAt, [part]: now };
  return next;
}

/**
 * The charts now show the history at `version` and the current time.
 * @param {ExpiryState} s
 * @param {number} version
 */
export const chartsShown = (s, version) => ({ ...s, chartsVersion: version, chartsNow: s.clockNow });

// ---------------------------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------------------------

/**
 * The active cycle's CPU budget in percent of a tick (25%, +2 per effort step in 7.0).
 * @param {ExpiryConfig} config
 */
export function budgetPercent(config) {
  return config.algorithm === "classic" ? 25 : 25 + 2 * (config.effort - 1);
}

/**
 * The header: db, keys with a TTL, stale keys, the algorithm; and when the stale count was read.
 * @param {ExpiryState} s
 * @param {number} volatileKeys  the latest level sample
 */
export function summaryText(s, volatileKeys) {
  const n = number(volatileKeys);
  const parts = [`db ${s.db}`, volatileKeys === 1 ? t("{n} key with a TTL", { n }) : t("{n} keys with a TTL", { n })];
  const f = s.field;
  if (f) {
    const pct = f.volatile > 0 ? ` (${((f.stale / f.volatile) * 100).toFixed(1)}%)` : "";
    parts.push(`${t("{n} stale", { n: number(f.stale) })}${pct}`);
  }
  parts.push(s.config.algorithm === "classic" ? t("classic ≤5.0") : t("7.0, effort {effort}", { effort: s.config.effort }));
  return {
    text: parts.join(" · "),
    title: f ? t("Stale count as of {time} (the field is read at most a few times a second while playing)", { time: formatTimeOfDay(s.fieldAt) }) : "",
  };
}

/**
 * The tick panel's options: everything when paused; while playing, the first rounds only.
 * @param {ExpiryState} s
 */
export function tickOptions(s) {
  return {
    hz: s.hz,
    keysForRounds: s.playing ? PLAYING_KEY_ROUNDS : Number.POSITIVE_INFINITY,
    maxRounds: s.playing ? PLAYING_ROUNDS : Number.POSITIVE_INFINITY,
    formatTime: formatTimeOfDay,
    ticksInFrame: s.tickTicks,
  };
}

/**
 * Keys and TTLs for the populate form's message.
 * @param {{count: number, minMs: number, maxMs: number, distribution: string, label: string}} p
 * @param {number} db
 * @param {number} made   keys created
 * @param {number} ms     real ms it took
 */
export function populateMessage(p, db, made, ms) {
  const skipped = p.count - made;
  const distribution = p.distribution === "uniform" ? t("uniform") : p.distribution === "exponential" ? t("exponential") : p.distribution;
  const vars = {
    made: number(made),
    label: p.label,
    db,
    min: number(p.minMs / 1000),
    max: number(p.maxMs / 1000),
    distribution,
    ms: number(Math.round(ms)),
    skipped: number(skipped),
  };
  return skipped > 0
    ? t(
        "Created {made} keys {label} in db {db}, TTLs {min}–{max} s ({distribution}), in {ms} ms. {skipped} names already existed and were skipped: use another prefix.",
        vars,
      )
    : t("Created {made} keys {label} in db {db}, TTLs {min}–{max} s ({distribution}), in {ms} ms.", vars);
}

/**
 * The next "long-lived" batch: its number and the populate spec (a fresh prefix each press).
 * @param {ExpiryState} s
 */
export function longLivedBatch(s) {
  const longBatch = s.longBatch + 1;
  const prefix = `long${longBatch}:`;
  return {
    state: { ...s, longBatch },
    spec: {
      count: LONG_LIVED.count,
      prefix,
      minMs: LONG_LIVED.minMs,
      maxMs: LONG_LIVED.maxMs,
      distribution: "uniform",
      label: `${prefix}0 … ${prefix}${LONG_LIVED.count - 1}`,
    },
  };
}

/**
 * The view's state as data-* attributes (tests read them).
 * @param {ExpiryState} s
 * @returns {Record<string, string>}
 */
export function datasetOf(s) {
  return {
    db: String(s.db),
    algorithm: s.config.algorithm,
    cursorBucket: s.cursor ? String(s.cursor.bucket) : "",
    fieldReads: String(s.fieldReads),
    fieldMs: s.fieldCostMs.toFixed(2),
    stale: s.field ? String(s.field.stale) : "",
    volatile: s.field ? String(s.field.volatile) : "",
  };
}
