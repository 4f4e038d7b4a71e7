// The expiry view: which keys each active expire cycle looked at.
//
// Redis 7.0 does not "test 20 random keys ten times a second": its cycle walks the expires table
// bucket by bucket from a cursor (src/expire.rs). This view shows that walk from the engine's
// own reports, never re-running the algorithm in JavaScript:
//   - the expires table as a field of cells (expiry-field.js): live keys, stale keys (past their
//     TTL, not reclaimed yet), the cursor, and the buckets the latest tick swept;
//   - zoomed in, the buckets around the cursor with their chains (expiry-buckets.js);
//   - what the latest tick did (expiry-tick-panel.js): per cycle the budget bar, per round the
//     buckets and keys examined, the deletions, the stale % against the threshold, and the
//     engine's repeat/stop decision with its reason; fast cycles marked as such;
//   - lazy expirations and big synchronous frees as callouts;
//   - running charts over virtual time (expiry-charts.js);
//   - controls for hz, active-expire-effort, the algorithm, and a populate form (expiry-controls.js).
//
// Like every view it gets events and reads snapshots through main.js's read-only `source`; its
// buttons call `actions`. The expires field is O(keys with a TTL) to read, so it is read only
// when something changed, and while the clock plays no more often than its own cost allows
// (at most 4% of real time, and at most 4× a second). Nothing is drawn while the tab is hidden
// or nothing changed.

import { formatClock } from "./clock-view.js";
import { number, groupTicks, sweepOf, describeLazy, describeStall } from "./expiry-cycle.js";
import { createFieldPanel } from "./expiry-field-panel.js";
import { renderBuckets } from "./expiry-buckets.js";
import { renderTick } from "./expiry-tick-panel.js";
import { createExpiryHistory, createExpiryCharts, CHART_SPANS } from "./expiry-charts.js";
import { createExpiryControls, LONG_LIVED } from "./expiry-controls.js";

/** Buckets read around the cursor: a few behind it, the rest ahead (fewer while playing). */
export const WINDOW_BUCKETS = 160;
const PLAYING_WINDOW_BUCKETS = 40;
const BEHIND = 3;
/** Rounds the engine lists per cycle (src/expire.rs MAX_ROUNDS_IN_EVENT). */
const MAX_ROUNDS_LISTED = 64;
/** Callouts kept (newest first). */
const MAX_CALLOUTS = 5;
/**
 * While the clock plays, the DOM-heavy parts (the tick panel, the bucket list, the charts) are
 * redrawn at most this often each (real ms), and at most one of them per frame, so that no
 * frame pays for all three; the field canvas at most every FIELD_CANVAS_MS. Paused, everything
 * is drawn as soon as it changes.
 */
const HEAVY_EVERY_MS = 250;
const FIELD_CANVAS_MS = 66;
const FIELD_MIN_MS = 250;
/** The field may take at most 1/FIELD_COST_SHARE of real time while playing. */
const FIELD_COST_SHARE = 25;
/** While playing: rounds listed per cycle, and rounds whose keys are listed (all when paused). */
const PLAYING_ROUNDS = 8;
const PLAYING_KEY_ROUNDS = 2;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const timeOf = (ms) => formatClock(ms).slice(11, 23);

/**
 * @param {HTMLElement} root
 * @param {object} deps
 * @param {{currentDb(): number, keyspace(db: number, offset: number, count: number): object,
 *          expireField(db: number, cells: number): object|null,
 *          expireBuckets(db: number, start: number, count: number): object[]}} deps.source
 * @param {{get(): object}} deps.store
 * @param {{configGet(name: string): string|null,
 *          configSet(name: string, value: string): {ok: boolean, text: string},
 *          populate(p: {db: number, count: number, prefix: string, minMs: number, maxMs: number, distribution: string}): number}} deps.actions
 * @param {() => void} deps.invalidate  asks the loop for a frame
 * @param {() => number} [deps.now]     real time in ms
 */
export function createExpiryView(root, { source, store, actions, invalidate, now = () => performance.now() }) {
  root.replaceChildren();
  root.classList.add("expiry-view");

  // -------------------------------------------------------------------------------------------
  // DOM
  // -------------------------------------------------------------------------------------------

  const head = el("header", "panel-head");
  const summary = el("span", "expiry-summary");
  summary.id = "expiry-summary";
  head.append(el("h2", "panel-title", "Active expiry"), summary);

  const controlsBox = el("div", "expiry-controls");
  controlsBox.id = "expiry-controls";

  const fieldBox = el("section", "expiry-field");
  const columns = el("div", "expiry-columns");
  const bucketsBox = el("section", "expiry-buckets");
  const bucketsHead = el("div", "expiry-subhead");
  const bucketsTitle = el("span", "expiry-subtitle", "Buckets around the cursor");
  const follow = el("button", "btn btn-small", "Follow the cursor");
  follow.type = "button";
  follow.id = "expiry-follow";
  follow.hidden = true;
  bucketsHead.append(bucketsTitle, follow);
  const bucketsCaption = el("p", "expiry-caption");
  bucketsCaption.id = "expiry-buckets-caption";
  let bucketList = el("ol", "bk-list");
  bucketList.id = "expiry-buckets";
  bucketsBox.append(bucketsHead, bucketsCaption, bucketList);

  const tickBox = el("section", "expiry-tick");
  const tickHead = el("div", "expiry-subhead");
  tickHead.append(el("span", "expiry-subtitle", "What the latest tick did"));
  const tickPanel = el("div", "tk-panel");
  tickPanel.id = "expiry-tick";
  tickPanel.setAttribute("aria-live", "polite");
  tickBox.append(tickHead, tickPanel);
  columns.append(tickBox, bucketsBox);

  const callouts = el("ul", "expiry-callouts");
  callouts.id = "expiry-callouts";
  callouts.setAttribute("aria-live", "polite");

  const chartsBox = el("section", "expiry-charts");
  const chartsHead = el("div", "expiry-subhead");
  const spanSelect = el("select", "xc-select");
  spanSelect.id = "expiry-span";
  spanSelect.setAttribute("aria-label", "Chart span (virtual time)");
  for (const s of CHART_SPANS) {
    const o = el("option", "", `last ${s.label}`);
    o.value = String(s.ms);
    spanSelect.append(o);
  }
  spanSelect.value = "60000";
  chartsHead.append(el("span", "expiry-subtitle", "Over virtual time"), spanSelect);
  const chartsGrid = el("div", "xchart-grid");
  chartsGrid.id = "expiry-charts";
  chartsBox.append(chartsHead, chartsGrid);

  root.append(head, controlsBox, fieldBox, callouts, columns, chartsBox);

  // -------------------------------------------------------------------------------------------
  // State
  // -------------------------------------------------------------------------------------------

  const history = createExpiryHistory();
  const charts = createExpiryCharts(chartsGrid, () => touch("charts"));
  let db = source.currentDb();
  let visible = false;
  let playing = false;
  let clockNow = 0;
  let hz = 10;
  const config = { hz: 10, effort: 1, algorithm: "7.0" };

  let field = null; // the latest expire_field
  let fieldAt = 0; // virtual ms it was read at
  let fieldStale = true;
  let fieldCostMs = 0;
  let fieldReadAt = -Infinity; // real ms
  let fieldReads = 0;
  // {bucket, size, approx}: from the latest round in this db, or the field. `approx` when the
  // engine listed only the first 64 rounds of a cycle that went on (the field read fixes it).
  let cursor = null;
  let tick = null; // {at, cycles}
  let tickTicks = 1; // ticks run in the frame that produced it
  let sweeps = []; // this db's rounds in the tick: {from, count, size, round}
  let snapshot = null; // buckets read at the end of the latest quiet frame: {db, start, buckets, at}
  let snapshotFresh = false; // read at the end of the previous update (nothing ran since)
  let display = null; // {buckets, fetchedAt, at, before, startBucket}
  let bucketsWanted = true;
  let pinned = null; // a bucket the user clicked in the field, or null (follow the cursor)

  let calloutList = []; // {kind, text, key, command}
  let lazySeen = 0;
  let droppedSeen = null; // the store's dropped-events count when the view last looked
  let spanMs = 60_000;
  let longBatch = 0;

  const dirty = { head: true, field: true, buckets: true, tick: true, callouts: true, charts: true, controls: true };
  // When each throttled part was last drawn (real ms), and what this frame will draw.
  const drawnAt = { field: -Infinity, tick: -Infinity, buckets: -Infinity, charts: -Infinity };
  let plan = new Set();
  let pending = false; // something throttled is waiting for its turn
  let chartsVersion = -1;
  let chartsNow = -1;
  let draws = 0;
  let workMs = 0;
  // Real ms spent per part since the start (the frame-time benchmark reports them).
  const timings = { events: 0, field: 0, buckets: 0, tick: 0, charts: 0, canvas: 0 };
  function timed(part, fn) {
    const t0 = now();
    fn();
    timings[part] += now() - t0;
  }

  function touch(part) {
    dirty[part] = true;
    invalidate();
  }

  // -------------------------------------------------------------------------------------------
  // Controls
  // -------------------------------------------------------------------------------------------

  const controls = createExpiryControls(controlsBox, {
    config(name, value) {
      const r = actions.configSet(name, value);
      if (r.ok) controls.say(`CONFIG SET ${name} ${value} → OK`, "ok");
      else controls.say(`CONFIG SET ${name} ${value} → ${r.text.trim()}`, "error");
      readConfig();
      touch("controls");
    },
    populate(p) {
      runPopulate({ ...p, label: `${p.prefix}0 … ${p.prefix}${p.count - 1}` });
    },
    longLived() {
      longBatch += 1;
      const prefix = `long${longBatch}:`;
      runPopulate({
        count: LONG_LIVED.count,
        prefix,
        minMs: LONG_LIVED.minMs,
        maxMs: LONG_LIVED.maxMs,
        distribution: "uniform",
        label: `${prefix}0 … ${prefix}${LONG_LIVED.count - 1}`,
      });
    },
  });

  function runPopulate(p) {
    const target = db;
    controls.busy(true);
    controls.say(`Creating ${number(p.count)} keys in db ${target}…`, "info");
    // Let the message paint before the engine works (a million keys take a few seconds).
    setTimeout(() => {
      const t0 = now();
      const made = actions.populate({ db: target, ...p });
      const ms = now() - t0;
      controls.busy(false);
      const skipped = p.count - made;
      const ttl = `${number(p.minMs / 1000)}–${number(p.maxMs / 1000)} s (${p.distribution})`;
      controls.say(
        `Created ${number(made)} keys ${p.label} in db ${target}, TTLs ${ttl}, in ${number(Math.round(ms))} ms.` +
          (skipped > 0 ? ` ${number(skipped)} names already existed and were skipped: use another prefix.` : ""),
        made > 0 ? "ok" : "error",
      );
      fieldStale = true;
      snapshotFresh = false;
      bucketsWanted = true;
      sampleLevels();
      touch("head");
    }, 30);
  }

  function readConfig() {
    const hzText = actions.configGet("hz");
    const effortText = actions.configGet("active-expire-effort");
    const algo = actions.configGet("playground-expire-algorithm");
    if (hzText !== null) config.hz = Number(hzText);
    if (effortText !== null) config.effort = Number(effortText);
    if (algo !== null) config.algorithm = algo;
    dirty.controls = true;
  }

  spanSelect.addEventListener("change", () => {
    spanMs = Number(spanSelect.value);
    touch("charts");
  });

  follow.addEventListener("click", () => {
    pinned = null;
    bucketsWanted = true;
    touch("buckets");
  });

  // -------------------------------------------------------------------------------------------
  // The field: resized, or a cell clicked (list its buckets)
  // -------------------------------------------------------------------------------------------

  const fieldPanel = createFieldPanel(fieldBox, {
    resized(cellsChanged) {
      if (cellsChanged) fieldStale = true;
      touch("field");
    },
    pick(bucket) {
      pinned = bucket;
      bucketsWanted = true;
      touch("buckets");
    },
  });

  // -------------------------------------------------------------------------------------------
  // Reading snapshots
  // -------------------------------------------------------------------------------------------

  function sampleLevels() {
    const page = source.keyspace(db, 0, 0);
    history.addLevel("volatile", clockNow, Number(page.volatile) || 0);
    dirty.charts = true;
    return page;
  }

  function readField() {
    const t0 = now();
    field = source.expireField(db, fieldPanel.cellsWanted());
    fieldCostMs = now() - t0;
    fieldReadAt = now();
    fieldAt = clockNow;
    fieldReads += 1;
    fieldStale = false;
    if (field) {
      history.addLevel("stale", clockNow, Number(field.stale));
      history.addLevel("volatile", clockNow, Number(field.volatile));
      // The field is read after this frame's events: its cursor is the exact one.
      cursor = field.table_size > 0 ? { bucket: field.cursor_bucket, size: field.table_size, approx: false } : null;
    }
    dirty.field = dirty.head = dirty.charts = true;
  }

  /** The first bucket listed: a few before the cursor (or the bucket the user picked). */
  function windowStart() {
    if (pinned !== null) return Math.max(0, pinned - BEHIND);
    if (cursor === null) return 0;
    return (((cursor.bucket - BEHIND) % cursor.size) + cursor.size) % cursor.size;
  }

  function readWindow(start) {
    return source.expireBuckets(db, start, playing ? PLAYING_WINDOW_BUCKETS : WINDOW_BUCKETS);
  }

  // -------------------------------------------------------------------------------------------
  // Events
  // -------------------------------------------------------------------------------------------

  function handleEvents(events, state) {
    const cycles = [];
    let foreignBeforeCycle = false; // a change other than the cycle's own before its report
    let dbChanged = false;
    const fresh = []; // callouts from this batch, oldest first
    for (const e of events) {
      switch (e.kind) {
        case "expire_cycle":
          history.addCycle(e.at_ms, e.report);
          cycles.push(e);
          break;
        case "expired":
          if (e.by === "lazy") {
            history.addLazy(e.at_ms);
            lazySeen += 1;
            fresh.push({ kind: "lazy", text: describeLazy(e), key: e.key, command: e.command ?? "" });
            if (cycles.length === 0) foreignBeforeCycle = true;
          }
          if (e.db === db) dbChanged = true;
          break;
        case "stall":
          fresh.push({ kind: "stall", text: describeStall(e), key: e.key, command: "" });
          break;
        case "keyspace":
          if (e.db === db) dbChanged = true;
          if (e.event !== "expired" && cycles.length === 0) foreignBeforeCycle = true;
          break;
        case "command": {
          if (cycles.length === 0) foreignBeforeCycle = true;
          const current = source.currentDb();
          if (current !== db) {
            db = current;
            history.clearLevels();
            field = null;
            cursor = null;
            pinned = null;
            snapshot = null;
          }
          dbChanged = true;
          break;
        }
        case "config":
          if (e.name === "hz") config.hz = Number(e.value);
          else if (e.name === "active-expire-effort") config.effort = Number(e.value);
          else if (e.name === "playground-expire-algorithm") config.algorithm = e.value;
          dirty.controls = dirty.head = dirty.field = true;
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
      calloutList = fresh.slice(-MAX_CALLOUTS).reverse().concat(calloutList).slice(0, MAX_CALLOUTS);
      dirty.callouts = true;
    }

    if (cycles.length > 0) {
      const ticks = groupTicks(cycles);
      const latest = ticks[ticks.length - 1];
      let before = ticks.length === 1 && snapshotFresh && !foreignBeforeCycle && snapshot !== null && snapshot.db === db;
      tick = latest;
      tickTicks = Math.max(1, state.clock.frameTicks);
      // This db's rounds in the tick, and where its cursor is now.
      sweeps = [];
      let n = 0;
      let startBucket = null;
      for (const report of latest.cycles) {
        for (const round of report.rounds) {
          n += 1;
          if (round.db !== db) continue;
          const sw = sweepOf(round, report.algorithm);
          if (sw) {
            sweeps.push({ ...sw, round: n });
            startBucket ??= sw.from;
          }
        }
      }
      // The cursor: where this db's last round left it — unless the engine listed only the
      // first rounds of a cycle that went on in this db (then ask the field, which knows).
      for (const c of cycles) {
        for (const round of c.report.rounds) {
          const sw = round.db === db ? sweepOf(round, c.report.algorithm) : null;
          if (sw) cursor = { bucket: sw.cursorBucket, size: sw.size, approx: false };
        }
        const listed = c.report.rounds;
        if (cursor && listed.length >= MAX_ROUNDS_LISTED && c.report.round_count > listed.length && c.report.dbs_visited.includes(db)) {
          cursor = { ...cursor, approx: true };
        }
      }
      // The picture "as the tick found it" needs the snapshot to hold the bucket it began at.
      if (before && !snapshot.buckets.some((b) => b.bucket === startBucket)) before = false;
      if (before) {
        display = { buckets: snapshot.buckets, fetchedAt: snapshot.at, at: latest.at, before: true, startBucket };
        bucketsWanted = false;
      } else {
        display = display ? { ...display, before: false } : null;
        bucketsWanted = true;
      }
      dirty.tick = dirty.buckets = dirty.field = dirty.head = true;
    }
    if (dbChanged || cycles.length > 0) {
      fieldStale = true;
      if (cycles.length === 0) bucketsWanted = true;
      sampleLevels();
    }
    return dbChanged || cycles.length > 0;
  }

  // -------------------------------------------------------------------------------------------
  // Drawing
  // -------------------------------------------------------------------------------------------

  function drawHead() {
    const vol = history.latest("volatile");
    const volatileKeys = vol ? vol[1] : 0;
    const parts = [`db ${db}`, `${number(volatileKeys)} key${volatileKeys === 1 ? "" : "s"} with a TTL`];
    if (field) {
      const pct = field.volatile > 0 ? ` (${((field.stale / field.volatile) * 100).toFixed(1)}%)` : "";
      parts.push(`${number(field.stale)} stale${pct}`);
    }
    parts.push(config.algorithm === "classic" ? "classic ≤5.0" : `7.0, effort ${config.effort}`);
    summary.textContent = parts.join(" · ");
    summary.title = field ? `Stale count as of ${timeOf(fieldAt)} (the field is read at most a few times a second while playing)` : "";
  }

  function drawFieldCanvas() {
    fieldPanel.draw({ field, db, cursor, classic: config.algorithm === "classic", sweeps, pinned });
  }

  function drawBuckets() {
    if (bucketsWanted) {
      bucketsWanted = false;
      const start = windowStart();
      display = { buckets: readWindow(start), fetchedAt: clockNow, at: clockNow, before: false, startBucket: null };
    }
    if (display === null) {
      bucketList.replaceChildren();
      bucketsCaption.textContent = "";
      return;
    }
    // Which round swept each bucket shown (the first one, when a small table was swept twice),
    // and the keys the tick examined.
    const marks = new Map();
    const examined = new Map();
    if (tick !== null) {
      let n = 0;
      for (const report of tick.cycles) {
        for (const round of report.rounds) {
          n += 1;
          if (round.db !== db) continue;
          for (const k of round.keys) if (!examined.has(k.key)) examined.set(k.key, { round: n, deleted: k.expired, ttl: k.ttl_ms });
        }
      }
      for (const b of display.buckets) {
        const sw = sweeps.find((w) => w.size > 0 && (((b.bucket - w.from) % w.size) + w.size) % w.size < w.count);
        if (sw) marks.set(b.bucket, sw.round);
      }
    }
    const sweptTotal = sweeps.reduce((sum, w) => sum + w.count, 0);
    const classic = config.algorithm === "classic";
    const cursorBucket = cursor && !classic ? cursor.bucket : null;
    const fresh = bucketList.cloneNode(false);
    bucketList.replaceWith(fresh);
    bucketList = fresh;
    renderBuckets(bucketList, {
      buckets: display.buckets,
      fetchedAt: display.fetchedAt,
      at: display.before ? display.at : clockNow,
      marks,
      examined,
      cursorBucket,
      startBucket: display.before ? display.startBucket : null,
      before: display.before,
    });
    bucketsTitle.textContent = pinned !== null ? `Buckets from #${number(pinned)}` : "Buckets around the cursor";
    follow.hidden = pinned === null;
    let caption;
    if (classic) {
      caption =
        "Classic has no cursor: each pick is a random non-empty bucket, then a random key of its chain (dictGetRandomKey). Picked keys shown here are outlined; all of them are listed in the rounds.";
    } else if (display.before) {
      caption = `As the tick at ${timeOf(display.at)} found them: outlined = examined, struck through = deleted.`;
      if (sweptTotal > WINDOW_BUCKETS - BEHIND) {
        caption += ` It swept ${number(sweptTotal)} buckets; the first ${number(WINDOW_BUCKETS - BEHIND)} are here.`;
      }
    } else {
      caption =
        tick !== null && tickTicks > 1
          ? `Now (${timeOf(display.fetchedAt)}), after ${number(tickTicks)} ticks in one frame: the cursor and the buckets the next cycle will examine. Pause and step to see one tick's sweep.`
          : `Now (${timeOf(display.fetchedAt)}): the cursor and the buckets ahead of it. Step one tick to see which of them the next cycle examines.`;
    }
    bucketsCaption.textContent = caption;
    bucketList.dataset.mode = display.before ? "before" : "now";
    // The window starts a few buckets before the cursor (or where the tick began), so the list
    // is shown from its top: a fresh list element starts there without setting scrollTop
    // (which would force a layout in the middle of the frame).

  }

  function drawTick() {
    // Announce a tick to screen readers when it was stepped, not four times a second.
    tickPanel.setAttribute("aria-live", playing ? "off" : "polite");
    renderTick(tickPanel, tick, {
      hz,
      keysForRounds: playing ? PLAYING_KEY_ROUNDS : Infinity,
      maxRounds: playing ? PLAYING_ROUNDS : Infinity,
      formatTime: timeOf,
      ticksInFrame: tickTicks,
    });
    root.dataset.tickAt = tick ? String(tick.at) : "";
    root.dataset.cycles = tick ? String(tick.cycles.length) : "0";
  }

  function drawCallouts() {
    callouts.hidden = calloutList.length === 0;
    callouts.replaceChildren(
      ...calloutList.map((c, i) => {
        const li = el("li", `callout callout-${c.kind}${i === 0 ? " is-newest" : ""}`, c.text);
        li.dataset.kind = c.kind;
        li.dataset.key = c.key;
        li.dataset.command = c.command;
        return li;
      }),
    );
    root.dataset.lazy = String(lazySeen);
  }

  function budgetPercent() {
    return config.algorithm === "classic" ? 25 : 25 + 2 * (config.effort - 1);
  }

  function drawCharts() {
    chartsVersion = history.version();
    chartsNow = clockNow;
    charts.draw(history, { now: clockNow, spanMs, budgetPercent: budgetPercent() });
  }

  /**
   * What to draw this frame: every dirty part when paused; while playing, the cheap ones, the
   * field canvas if its interval passed, and the most overdue heavy part whose interval passed.
   */
  function planFrame() {
    const next = new Set();
    for (const part of ["controls", "head", "callouts"]) if (dirty[part]) next.add(part);
    const t = now();
    if (dirty.field && (!playing || t - drawnAt.field >= FIELD_CANVAS_MS)) next.add("field");
    const heavy = ["tick", "buckets", "charts"].filter((part) => dirty[part]);
    if (!playing) {
      for (const part of heavy) next.add(part);
    } else {
      const due = heavy.filter((part) => t - drawnAt[part] >= HEAVY_EVERY_MS);
      due.sort((a, b) => drawnAt[a] - drawnAt[b]);
      if (due.length > 0) next.add(due[0]);
    }
    pending = Object.keys(dirty).some((part) => dirty[part] && !next.has(part)) || fieldStale;
    return next;
  }

  const DRAWERS = {
    controls: () => controls.setValues(config),
    head: drawHead,
    callouts: drawCallouts,
    field: () => timed("canvas", drawFieldCanvas),
    tick: () => timed("tick", drawTick),
    buckets: () => timed("buckets", drawBuckets),
    charts: () => timed("charts", drawCharts),
  };

  return {
    update(events, state) {
      const t0 = now();
      const wasVisible = visible;
      visible = state.panelView === "expiry";
      playing = !state.paused;
      clockNow = state.clock.now;
      if (state.clock.hz !== hz) {
        hz = state.clock.hz;
        dirty.head = true;
      }
      let changed = false;
      if (events.length > 0) timed("events", () => (changed = handleEvents(events, state)));
      const dropped = state.clock.droppedEvents;
      if (droppedSeen !== null && dropped > droppedSeen) {
        // Say it once, and keep the count up to date: charts and ticks miss what was dropped.
        calloutList = calloutList.filter((c) => c.kind !== "dropped");
        calloutList.unshift({
          kind: "dropped",
          text: `${number(dropped)} engine events were dropped so far (its log holds 50,000 between frames): the charts and the ticks shown miss some cycles.`,
          key: "",
          command: "",
        });
        if (calloutList.length > MAX_CALLOUTS) calloutList.length = MAX_CALLOUTS;
        dirty.callouts = true;
      }
      droppedSeen = dropped;
      if (!changed) snapshotFresh = snapshotFresh && events.every((e) => e.kind === "cron");
      plan = new Set();
      pending = false;
      if (visible) {
        if (!wasVisible) {
          for (const k of Object.keys(dirty)) dirty[k] = true;
          bucketsWanted = true;
        }
        // The expires field: read it when something changed, within its cost budget.
        if (fieldStale || field === null) {
          const wait = Math.max(FIELD_MIN_MS, fieldCostMs * FIELD_COST_SHARE);
          if (!playing || now() - fieldReadAt >= wait) timed("field", readField);
        }
        if (bucketsWanted) dirty.buckets = true;
        if (history.version() !== chartsVersion || (playing && clockNow !== chartsNow)) dirty.charts = true;
        // For the next tick: the buckets as they are now, so that a single tick (a step, slow
        // playback) can be shown on the table as it found it.
        if ((changed || snapshot === null || !snapshotFresh) && state.clock.frameTicks <= 2 && cursor !== null && !cursor.approx) {
          const start = (((cursor.bucket - BEHIND) % cursor.size) + cursor.size) % cursor.size;
          snapshot = { db, start, buckets: source.expireBuckets(db, start, WINDOW_BUCKETS), at: clockNow };
          snapshotFresh = true;
        } else if (changed) {
          snapshotFresh = false;
        }
        plan = planFrame();
      } else {
        snapshotFresh = false;
      }
      workMs = now() - t0;
      return visible && plan.size > 0;
    },

    draw() {
      if (!visible) return;
      const t0 = now();
      draws += 1;
      if (plan.size === 0) plan = planFrame(); // a forced redraw
      const t = now();
      for (const part of ["controls", "head", "field", "callouts", "tick", "buckets", "charts"]) {
        if (!plan.has(part)) continue;
        dirty[part] = false;
        if (part in drawnAt) drawnAt[part] = t;
        DRAWERS[part]();
      }
      plan = new Set();
      const d = root.dataset;
      d.db = String(db);
      d.algorithm = config.algorithm;
      d.cursorBucket = cursor ? String(cursor.bucket) : "";
      d.fieldReads = String(fieldReads);
      d.fieldMs = fieldCostMs.toFixed(2);
      d.stale = field ? String(field.stale) : "";
      d.volatile = field ? String(field.volatile) : "";
      d.draws = String(draws);
      workMs += now() - t0;
      d.workMs = workMs.toFixed(2);
    },

    /** True while a throttled part still waits for its turn (the loop keeps running frames). */
    animating() {
      return visible && pending;
    },

    /** Start over (after an engine reset or recovery): no history, the engine's config. */
    refresh() {
      db = source.currentDb();
      history.clear();
      field = null;
      cursor = null;
      tick = null;
      sweeps = [];
      snapshot = null;
      snapshotFresh = false;
      display = null;
      pinned = null;
      calloutList = [];
      lazySeen = 0;
      fieldStale = true;
      bucketsWanted = true;
      controls.forget();
      readConfig();
      for (const k of Object.keys(dirty)) dirty[k] = true;
      invalidate();
    },

    /** What the view currently shows, as data (tests, devtools). */
    debug() {
      return {
        db,
        tick,
        cursor,
        field,
        display: display && { ...display, buckets: display.buckets.length },
        sweeps,
        config: { ...config },
        timings: { ...timings },
        fieldReads,
      };
    },

    /** Reads the engine's config for the controls (once the engine is up). */
    start() {
      readConfig();
      sampleLevels();
      invalidate();
    },
  };
}
