// @ts-check
// The expires table as the expiry view pictures it: the field's caption and what a cell covers,
// and the bucket list — which round of the latest tick swept each bucket shown, the keys it
// examined, runs of empty buckets folded, each key's chip, and the caption saying which picture
// it is ("as the tick found them" or "now"). Pure: state in (expiry-model.js), data out; the
// panels draw it.

import { number } from "../format.js";
import { t } from "../i18n.js";
import { formatTimeOfDay } from "./clock-model.js";
import { formatTtl } from "./expiry-cycle.js";
import { BEHIND, WINDOW_BUCKETS } from "./expiry-model.js";

/** @typedef {import("./expiry-model.js").ExpiryState} ExpiryState */
/** @typedef {import("./expiry-model.js").Display} Display */
/** @typedef {import("./engine-types.js").ExpireField} ExpireField */
/** @typedef {import("./engine-types.js").BucketView} BucketView */
/** @typedef {import("./engine-types.js").BucketKey} BucketKey */

/**
 * @param {number} a
 * @param {number} n
 */
const mod = (a, n) => ((a % n) + n) % n;

// ---------------------------------------------------------------------------------------------
// The field: its caption and a cell's buckets
// ---------------------------------------------------------------------------------------------

/**
 * The cursor to draw on the field: only when the field is of the same table, and not classic.
 * @param {ExpiryState} s
 */
export function fieldCursor(s) {
  const size = s.field?.table_size ?? 0;
  return s.cursor && s.field && s.cursor.size === size && s.config.algorithm !== "classic" ? s.cursor.bucket : null;
}

/**
 * The field's caption (also the canvas's accessible name).
 * @param {ExpiryState} s
 */
export function fieldCaption(s) {
  const f = s.field;
  if (!f || f.table_size === 0) {
    return t("db {db} has no key with a TTL: the expires table is empty. Populate it above, or SET k v EX 30 in the console.", { db: s.db });
  }
  const per = f.buckets_per_cell;
  const cells = per <= 1 ? t("1 per square") : t("{n} per square", { n: number(Math.round(per)) });
  const bucket = fieldCursor(s);
  const cur =
    s.config.algorithm === "classic"
      ? t("classic picks keys at random: no cursor")
      : bucket === null
        ? ""
        : s.cursor?.approx
          ? t("cursor past #{n} (the cycle went on past the 64 rounds the engine lists)", { n: number(bucket) })
          : t("cursor at #{n}", { n: number(bucket) });
  const table = t("Expires table: {n} buckets ({cells}, in order)", { n: number(f.table_size), cells });
  return cur ? `${table} · ${cur}` : table;
}

/**
 * The buckets cell `i` covers when `field.table_size` buckets are folded into its cells.
 * @param {ExpireField | null} field
 * @param {number} i
 */
export function cellBuckets(field, i) {
  if (!field || field.cells.length === 0) return null;
  const n = field.cells.length;
  const size = field.table_size;
  return { from: Math.ceil((i * size) / n), to: Math.ceil(((i + 1) * size) / n) - 1 };
}

/**
 * The tooltip over cell `i`, or null outside the field.
 * @param {ExpireField | null} field
 * @param {number} i
 */
export function cellTip(field, i) {
  const range = i >= 0 ? cellBuckets(field, i) : null;
  if (field === null || range === null) return null;
  const c = field.cells[i];
  const where =
    range.from === range.to ? t("bucket #{n}", { n: number(range.from) }) : t("buckets #{from}–#{to}", { from: number(range.from), to: number(range.to) });
  return t("{where}: {live} with TTL ahead, {stale} stale. Click to list them.", { where, live: number(c.live), stale: number(c.stale) });
}

// ---------------------------------------------------------------------------------------------
// The bucket list's rows
// ---------------------------------------------------------------------------------------------

/** Empty buckets in a row of at least this many are folded into one row. */
export const FOLD_EMPTY = 3;

/**
 * A bucket with its chain, or a folded run of empty buckets; `round`: the (1-based) round of the
 * tick that swept it, 0 for none.
 * @typedef {{kind: "bucket", bucket: number, keys: BucketKey[], round: number}
 *   | {kind: "empty", from: number, to: number, count: number, round: number}} BucketRow
 */

/**
 * Rows for a run of buckets. `marks` maps a bucket to the round that swept it; `keep` holds
 * buckets that must stay rows of their own (the cursor, where the tick began).
 * @param {readonly BucketView[]} buckets
 * @param {ReadonlyMap<number, number>} marks
 * @param {ReadonlySet<number>} keep
 * @returns {BucketRow[]}
 */
export function bucketRows(buckets, marks, keep) {
  /** @type {BucketRow[]} */
  const rows = [];
  /** @type {{round: number, items: BucketView[]} | null} */
  let run = null;
  const flush = () => {
    if (run === null) return;
    const items = run.items;
    if (items.length >= FOLD_EMPTY) {
      rows.push({ kind: "empty", from: items[0].bucket, to: items[items.length - 1].bucket, count: items.length, round: run.round });
    } else {
      for (const b of items) rows.push({ kind: "bucket", bucket: b.bucket, keys: b.keys, round: run.round });
    }
    run = null;
  };
  for (const b of buckets) {
    const round = marks.get(b.bucket) ?? 0;
    if (b.keys.length === 0 && !keep.has(b.bucket)) {
      if (run !== null && run.round !== round) flush();
      if (run === null) run = { round, items: [] };
      run.items.push(b);
      continue;
    }
    flush();
    rows.push({ kind: "bucket", bucket: b.bucket, keys: b.keys, round });
  }
  flush();
  return rows;
}

/**
 * One key in a bucket's chain: its class and text. In the "before" picture a key the tick
 * examined shows the TTL it had then; otherwise TTLs are aged from when the window was read.
 * @param {BucketKey} k
 * @param {{round: number, deleted: boolean, ttl: number} | undefined} seen  what the tick did to it
 * @param {boolean} before
 * @param {number} age  virtual ms between reading the window and the time shown
 */
export function keyChip(k, seen, before, age) {
  const ttl = seen && before ? seen.ttl : k.ttl_ms - age;
  if (seen?.deleted) return { cls: "is-deleted", text: t("deleted, {late} late", { late: formatTtl(-seen.ttl) }) };
  const cls = `${ttl < 0 ? "is-stale" : "is-live"}${seen ? " is-examined" : ""}`;
  return { cls, text: ttl < 0 ? t("stale {time}", { time: formatTtl(-ttl) }) : formatTtl(ttl) };
}

// ---------------------------------------------------------------------------------------------
// The bucket list
// ---------------------------------------------------------------------------------------------

/**
 * The bucket list to draw: the window, which round swept each bucket shown (the first, when a
 * small table was swept twice), the keys the tick examined, the cursor, and the words around it.
 * Null when no window was read.
 * @param {ExpiryState} s
 */
export function bucketsPicture(s) {
  const display = s.display;
  if (display === null) return null;
  /** @type {Map<number, number>} */
  const marks = new Map();
  /** @type {Map<string, {round: number, deleted: boolean, ttl: number}>} */
  const examined = new Map();
  if (s.tick !== null) {
    let n = 0;
    for (const report of s.tick.cycles) {
      for (const round of report.rounds) {
        n += 1;
        if (round.db !== s.db) continue;
        for (const k of round.keys) if (!examined.has(k.key)) examined.set(k.key, { round: n, deleted: k.expired, ttl: k.ttl_ms });
      }
    }
    for (const b of display.buckets) {
      const sw = s.sweeps.find((w) => w.size > 0 && mod(b.bucket - w.from, w.size) < w.count);
      if (sw) marks.set(b.bucket, sw.round);
    }
  }
  const classic = s.config.algorithm === "classic";
  return {
    buckets: display.buckets,
    fetchedAt: display.fetchedAt,
    at: display.before ? display.at : s.clockNow,
    marks,
    examined,
    cursorBucket: s.cursor && !classic ? s.cursor.bucket : null,
    startBucket: display.before ? display.startBucket : null,
    before: display.before,
    title: s.pinned !== null ? t("Buckets from #{n}", { n: number(s.pinned) }) : t("Buckets around the cursor"),
    following: s.pinned === null,
    caption: bucketsCaption(s, display),
    mode: display.before ? "before" : "now",
  };
}

/**
 * @param {ExpiryState} s
 * @param {Display} display
 */
function bucketsCaption(s, display) {
  if (s.config.algorithm === "classic") {
    return t(
      "Classic has no cursor: each pick is a random non-empty bucket, then a random key of its chain (dictGetRandomKey). Picked keys shown here are outlined; all of them are listed in the rounds.",
    );
  }
  if (display.before) {
    const sweptTotal = s.sweeps.reduce((sum, w) => sum + w.count, 0);
    const time = formatTimeOfDay(display.at);
    return sweptTotal > WINDOW_BUCKETS - BEHIND
      ? t("As the tick at {time} found them: outlined = examined, struck through = deleted. It swept {n} buckets; the first {shown} are here.", {
          time,
          n: number(sweptTotal),
          shown: number(WINDOW_BUCKETS - BEHIND),
        })
      : t("As the tick at {time} found them: outlined = examined, struck through = deleted.", { time });
  }
  const time = formatTimeOfDay(display.fetchedAt);
  return s.tick !== null && s.tickTicks > 1
    ? t(
        "Now ({time}), after {n} ticks in one frame: the cursor and the buckets the next cycle will examine. Pause and step to see one tick's sweep.",
        { time, n: number(s.tickTicks) },
      )
    : t("Now ({time}): the cursor and the buckets ahead of it. Step one tick to see which of them the next cycle examines.", { time });
}
