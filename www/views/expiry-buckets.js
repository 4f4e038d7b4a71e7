// @ts-check
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
//
// DOM only: the rows and the words come from expiry-table-model.js; key names go in as text.

import { el } from "../dom.js";
import { number } from "../format.js";
import { t } from "../i18n.js";
import { bucketRows, keyChip } from "./expiry-table-model.js";

/** @typedef {import("./engine-types.js").BucketView} BucketView */
/** @typedef {import("./expiry-table-model.js").BucketRow} BucketRow */
/**
 * What to draw (expiry-table-model.js bucketsPicture).
 * @typedef {object} BucketsPicture
 * @property {BucketView[]} buckets
 * @property {number} fetchedAt      virtual ms the buckets were read at
 * @property {number} at             virtual ms the TTLs are shown for
 * @property {Map<number, number>} marks      bucket → round (1-based) that swept it
 * @property {Map<string, {round: number, deleted: boolean, ttl: number}>} examined  keys the tick examined
 * @property {number | null} cursorBucket     the cursor now
 * @property {number | null} startBucket      where the tick's first round began ("before" picture)
 * @property {boolean} before                 the picture is "as the tick found them"
 */

/**
 * @param {BucketRow & {kind: "empty"}} row
 * @param {HTMLElement} li
 */
function emptyRow(row, li) {
  li.classList.add("bk-empty");
  li.dataset.from = String(row.from);
  li.dataset.to = String(row.to);
  li.append(
    el("span", "bk-index", `#${number(row.from)}–${number(row.to)}`),
    el("span", "bk-round", row.round > 0 ? `R${row.round}` : ""),
    el("span", "bk-none", row.round > 0 ? t("{n} empty buckets, visited", { n: number(row.count) }) : t("{n} empty buckets", { n: number(row.count) })),
  );
}

/**
 * @param {BucketRow & {kind: "bucket"}} row
 * @param {HTMLElement} li
 * @param {BucketsPicture} m
 */
function bucketRow(row, li, m) {
  li.dataset.bucket = String(row.bucket);
  const chain = el("span", "bk-chain");
  if (row.keys.length === 0) chain.append(el("span", "bk-none", row.round > 0 ? t("empty, visited") : t("empty")));
  row.keys.forEach((k, i) => {
    if (i > 0) chain.append(el("span", "bk-link", "→"));
    const seen = m.examined.get(k.key);
    const { cls, text } = keyChip(k, seen, m.before, m.at - m.fetchedAt);
    const chip = el("span", `bk-key ${cls}`);
    chip.dataset.key = k.key;
    if (seen) chip.dataset.round = String(seen.round);
    chip.title = !seen
      ? k.key
      : seen.deleted
        ? t("{key}: examined by round {n} and deleted", { key: k.key, n: seen.round })
        : t("{key}: examined by round {n}", { key: k.key, n: seen.round });
    chip.append(el("span", "bk-name", k.key), el("span", "bk-ttl", text));
    chain.append(chip);
  });
  li.append(el("span", "bk-index", `#${number(row.bucket)}`), el("span", "bk-round", row.round > 0 ? `R${row.round}` : ""), chain);
}

/**
 * Renders the rows into `list` (an <ol>).
 * @param {HTMLElement} list
 * @param {BucketsPicture} m
 */
export function renderBuckets(list, m) {
  const keep = new Set(/** @type {number[]} */ ([m.cursorBucket, m.startBucket].filter((b) => b !== null && b !== undefined)));
  const items = [];
  for (const row of bucketRows(m.buckets, m.marks, keep)) {
    if (m.before && row.kind === "bucket" && row.bucket === m.startBucket) {
      items.push(el("li", "bk-marker bk-start", t("▷ this tick's first round began here")));
    }
    if (row.kind === "bucket" && row.bucket === m.cursorBucket) {
      items.push(
        el("li", "bk-marker bk-cursor", m.before ? t("▶ cursor after the tick: the next cycle starts here") : t("▶ cursor: the next cycle starts here")),
      );
    }
    const li = el("li", `bk-row${row.round > 0 ? ` is-swept round-${((row.round - 1) % 6) + 1}` : ""}`);
    if (row.round > 0) li.dataset.round = String(row.round);
    if (row.kind === "empty") emptyRow(row, li);
    else bucketRow(row, li, m);
    items.push(li);
  }
  list.replaceChildren(...items);
}
