// The expires table zoomed in: a run of consecutive buckets, each a row with its chain of keys
// (head first, as dict.c chains them) and their time left. Rows the latest tick's rounds swept
// are tinted and tagged with the round; keys a round examined are outlined, keys it deleted are
// struck through. Runs of empty buckets are folded into one row — the 7.0 cycle still visits
// (and pays for) every one of them.
//
// Two pictures, and the caption says which one is shown:
//   - "as the tick found them": the buckets fetched just before a single tick ran (a step, or
//     slow playback), so every key a round examined sits in its own bucket, deleted ones too;
//   - "now": the buckets as they are, around the cursor (fast playback: many ticks per frame,
//     so there is no before-picture); examined survivors are outlined, deleted keys are gone
//     from the table and only listed in the rounds.

import { number, formatTtl } from "./expiry-cycle.js";

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Empty buckets in a row of at least this many are folded into one row. */
export const FOLD_EMPTY = 3;

/**
 * Rows for a run of buckets: `{kind: "bucket", bucket, keys, round}` or `{kind: "empty", from,
 * to, count, round}`. `marks` maps a bucket to the (1-based) round that swept it; `keep` holds
 * buckets that must stay rows of their own (the cursor).
 */
export function bucketRows(buckets, marks, keep) {
  const rows = [];
  let run = null;
  const flush = () => {
    if (run === null) return;
    if (run.items.length >= FOLD_EMPTY) {
      rows.push({ kind: "empty", from: run.items[0].bucket, to: run.items[run.items.length - 1].bucket, count: run.items.length, round: run.round });
    } else {
      for (const b of run.items) rows.push({ kind: "bucket", bucket: b.bucket, keys: b.keys, round: run.round });
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
 * Renders the rows into `list` (an <ol>).
 *
 * @param {HTMLElement} list
 * @param {object} m
 * @param {Array<{bucket: number, keys: Array<{key: string, ttl_ms: number, expired: boolean}>}>} m.buckets
 * @param {number} m.fetchedAt      virtual ms the buckets were read at
 * @param {number} m.at             virtual ms the TTLs are shown for
 * @param {Map<number, number>} m.marks      bucket → round (1-based) that swept it
 * @param {Map<string, {round: number, deleted: boolean, ttl: number}>} m.examined  keys the tick examined
 * @param {number|null} m.cursorBucket       the cursor now
 * @param {number|null} m.startBucket        where the tick's first round began ("before" picture)
 * @param {boolean} m.before                 the picture is "as the tick found them"
 */
export function renderBuckets(list, m) {
  const keep = new Set([m.cursorBucket, m.startBucket].filter((b) => b !== null && b !== undefined));
  const rows = bucketRows(m.buckets, m.marks, keep);
  const age = m.at - m.fetchedAt;
  const items = [];
  for (const row of rows) {
    if (m.before && row.kind === "bucket" && row.bucket === m.startBucket) {
      items.push(el("li", "bk-marker bk-start", "▷ this tick's first round began here"));
    }
    if (row.kind === "bucket" && row.bucket === m.cursorBucket) {
      items.push(
        el("li", "bk-marker bk-cursor", m.before ? "▶ cursor after the tick: the next cycle starts here" : "▶ cursor: the next cycle starts here"),
      );
    }
    const li = el("li", `bk-row${row.round > 0 ? ` is-swept round-${((row.round - 1) % 6) + 1}` : ""}`);
    if (row.round > 0) li.dataset.round = String(row.round);
    if (row.kind === "empty") {
      li.classList.add("bk-empty");
      li.dataset.from = String(row.from);
      li.dataset.to = String(row.to);
      li.append(
        el("span", "bk-index", `#${number(row.from)}–${number(row.to)}`),
        el("span", "bk-round", row.round > 0 ? `R${row.round}` : ""),
        el("span", "bk-none", `${number(row.count)} empty buckets${row.round > 0 ? ", visited" : ""}`),
      );
      items.push(li);
      continue;
    }
    li.dataset.bucket = String(row.bucket);
    const chain = el("span", "bk-chain");
    if (row.keys.length === 0) chain.append(el("span", "bk-none", row.round > 0 ? "empty, visited" : "empty"));
    row.keys.forEach((k, i) => {
      if (i > 0) chain.append(el("span", "bk-link", "→"));
      const seen = m.examined.get(k.key);
      const ttl = seen && m.before ? seen.ttl : k.ttl_ms - age;
      let cls = ttl < 0 ? "is-stale" : "is-live";
      let text = ttl < 0 ? `stale ${formatTtl(-ttl)}` : formatTtl(ttl);
      if (seen && seen.deleted) {
        cls = "is-deleted";
        text = `deleted, ${formatTtl(-seen.ttl)} late`;
      } else if (seen) {
        cls += " is-examined";
      }
      const chip = el("span", `bk-key ${cls}`);
      chip.dataset.key = k.key;
      if (seen) chip.dataset.round = String(seen.round);
      chip.title = seen ? `${k.key}: examined by round ${seen.round}${seen.deleted ? " and deleted" : ""}` : k.key;
      chip.append(el("span", "bk-name", k.key), el("span", "bk-ttl", text));
      chain.append(chip);
    });
    li.append(el("span", "bk-index", `#${number(row.bucket)}`), el("span", "bk-round", row.round > 0 ? `R${row.round}` : ""), chain);
    items.push(li);
  }
  list.replaceChildren(...items);
}
