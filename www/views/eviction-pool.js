// @ts-check
// One eviction, drawn: why the engine picked its victim. From a report read by
// eviction-report.js: the keys sampled with their scores, the 16 pool slots before the sampling
// and after the victim was taken (worst on the left, best on the right; bars show the scores),
// the victim with the bytes it freed, and the ghosts skipped on the way. Random policies have no
// pool: the report names the key dictGetRandomKey() returned. DOM only; key names as text.

import { el } from "../dom.js";
import { number } from "../format.js";
import { barScale, barValue, commonPrefix, formatBytes } from "./eviction-report.js";

export { commonPrefix } from "./eviction-report.js";

/** @typedef {import("./eviction-report.js").ReadReport} ReadReport */
/** @typedef {import("./eviction-report.js").Slot} Slot */

/** @type {Record<string, string>} */
const SCORE_MEANING = {
  lru: "score = idle time (ms, from the 1-second LRU clock): the longer unused, the better a victim",
  lfu: "score = 255 − the LFU counter (decayed): the less used, the better a victim",
  ttl: "score = ULLONG_MAX − the expire time: the sooner it expires, the better a victim",
};

/** @type {Record<string, string>} */
const MARK_TEXT = { victim: "victim", ghost: "ghost", new: "new", left: "left", out: "pushed out" };
/** @type {Record<string, string>} */
const MARK_TITLE = {
  victim: "The victim: the best entry whose key still existed, taken out of the pool and evicted",
  ghost: "A ghost: its key no longer existed (deleted, expired or already evicted), so it was taken out and skipped",
  new: "A sampled key that entered the pool in this eviction",
  left: "This entry is not in the pool after: the victim, a ghost, or pushed out on the left by better samples",
  out: "Pushed out on the left: the pool was full and better candidates were sampled",
};

/**
 * One pool slot.
 * @param {Slot} slot
 * @param {string} kind
 * @param {(v: number) => number} norm
 * @param {string} rowName
 * @param {string} prefix  dropped from the key names
 */
function slotItem(slot, kind, norm, rowName, prefix) {
  const li = el("li", "ev-slot");
  li.dataset.slot = String(slot.index);
  if (slot.mark) {
    li.classList.add(`is-${slot.mark}`);
    li.dataset.mark = slot.mark;
  }
  const barBox = el("span", "ev-slot-barbox");
  const e = slot.entry;
  if (e === null || slot.text === null) {
    li.classList.add("is-empty");
    li.dataset.empty = "true";
    if (slot.mark === "victim" || slot.mark === "ghost") {
      li.append(barBox, el("span", "ev-slot-score", slot.mark === "victim" ? "taken" : "gone"), el("span", "ev-slot-key", slot.mark));
      li.title = `Slot ${slot.index}: ${MARK_TITLE[slot.mark]}`;
    } else {
      li.append(barBox, el("span", "ev-slot-score", ""), el("span", "ev-slot-key", "empty"));
      li.title = `Slot ${slot.index}: empty`;
    }
    return li;
  }
  li.dataset.key = e.key;
  li.dataset.db = String(e.db);
  li.dataset.score = String(e.idle);
  const bar = el("span", "ev-slot-bar");
  bar.style.height = `${(norm(barValue(kind, e.idle)) * 100).toFixed(1)}%`;
  barBox.append(bar);
  li.append(barBox, el("span", "ev-slot-score", slot.text.short), el("span", "ev-slot-key", prefix ? e.key.slice(prefix.length) : e.key));
  if (slot.mark) li.append(el("span", "ev-slot-tag", MARK_TEXT[slot.mark]));
  li.title = `${rowName} slot ${slot.index}: ${e.key}${e.db ? ` (db ${e.db})` : ""} — ${slot.text.long}${slot.mark ? `. ${MARK_TITLE[slot.mark]}` : ""}`;
  return li;
}

/**
 * A row of 16 slots.
 * @param {string} id
 * @param {Slot[]} slots
 * @param {{kind: string, norm: (v: number) => number, prefix: string, sorted: boolean}} o
 * @param {string} rowName
 */
function poolRow(id, slots, { kind, norm, prefix, sorted }, rowName) {
  const list = el("ol", "ev-pool");
  list.id = id;
  list.dataset.sorted = String(sorted);
  list.dataset.prefix = prefix;
  list.replaceChildren(...slots.map((slot) => slotItem(slot, kind, norm, rowName, prefix)));
  return list;
}

/**
 * The cause (over maxmemory) and the victim with what it freed.
 * @param {ReadReport} r
 * @param {(ms: number) => string} formatTime
 */
function causeAndVictim(r, formatTime) {
  const cause = el("p", "ev-cause");
  cause.id = "eviction-cause";
  cause.textContent =
    `At ${formatTime(r.at)} used_memory was ${number(r.usedBefore)} B (${formatBytes(r.usedBefore)}), above maxmemory ` +
    `${number(r.maxmemory)} B (${formatBytes(r.maxmemory)}): before running the next command, ${r.policy} evicted`;
  const victim = el("p", "ev-victim");
  victim.id = "eviction-victim";
  victim.append(el("strong", "ev-victim-key", r.victim));
  const facts = [];
  if (r.victimDb !== 0) facts.push(`db ${r.victimDb}`);
  if (r.victimText) facts.push(r.victimText.long.replace(/ \(.*\)$/, ""));
  facts.push(`freed ${number(r.bytesFreed)} B`);
  if (r.usesPool) facts.push(r.ghosts === 0 ? "no ghosts" : `${r.ghosts} ghost${r.ghosts === 1 ? "" : "s"} skipped`);
  victim.append(document.createTextNode(` — ${facts.join(" · ")}`));
  return [cause, victim];
}

/**
 * Step 1: the keys sampled, each with its fate.
 * @param {ReadReport} r
 * @param {string | null} samplesConfig
 */
function samplesPart(r, samplesConfig) {
  const sampledDbs = new Set(r.samples.map((s) => s.db));
  const title = el(
    "h3",
    "ev-step",
    `1 · Sampled ${r.samples.length} key${r.samples.length === 1 ? "" : "s"} (maxmemory-samples ${samplesConfig ?? "?"} per db` +
      `${sampledDbs.size > 1 ? `, ${sampledDbs.size} dbs` : ""}) — ${SCORE_MEANING[r.kind]}`,
  );
  const samples = el("ul", "ev-samples");
  samples.id = "eviction-samples";
  samples.append(
    ...r.samples.map((s) => {
      const li = el("li", `ev-sample is-${s.fate}`);
      li.dataset.key = s.key;
      li.dataset.db = String(s.db);
      li.dataset.score = String(s.score);
      li.dataset.fate = s.fate;
      li.append(el("span", "ev-sample-key", s.key), el("span", "ev-sample-score", s.text.short));
      li.append(el("span", "ev-sample-fate", s.fate === "victim" ? "→ evicted" : s.fate === "pool" ? "→ in pool" : "not kept"));
      li.title = `${s.key}${s.db ? ` (db ${s.db})` : ""}: ${s.text.long}`;
      return li;
    }),
  );
  if (r.samples.length === 0) samples.append(el("li", "ev-sample is-none", "none (the pool already held candidates)"));
  return [title, samples];
}

/**
 * Fills `root` with one eviction read by readReport().
 * @param {HTMLElement} root
 * @param {ReadReport} r
 * @param {{samplesConfig: string | null, formatTime: (ms: number) => string}} context
 */
export function renderEviction(root, r, { samplesConfig, formatTime }) {
  root.replaceChildren();
  Object.assign(root.dataset, {
    policy: r.policy,
    victim: r.victim,
    victimDb: String(r.victimDb),
    ghosts: String(r.ghosts),
    at: String(r.at),
    bytesFreed: String(r.bytesFreed),
  });
  root.append(...causeAndVictim(r, formatTime));

  if (!r.usesPool) {
    root.append(
      el(
        "p",
        "ev-note",
        `${r.policy} does not sample or keep a pool: dictGetRandomKey() picked one key of ` +
          `${r.policy.startsWith("volatile") ? "the keys with a TTL (the expires table)" : "the whole keyspace"} at random, db by db in turn.`,
      ),
    );
    return;
  }

  const kind = r.kind;
  const values = [];
  for (const s of r.before) if (s.entry) values.push(barValue(kind, s.entry.idle));
  for (const s of r.after) if (s.entry) values.push(barValue(kind, s.entry.idle));
  for (const s of r.samples) values.push(barValue(kind, s.score));
  const norm = barScale(kind, values);
  root.append(...samplesPart(r, samplesConfig));

  // 2 · the pool before, 3 · after
  const poolKeys = [...r.before, ...r.after].flatMap((s) => (s.entry ? [s.entry.key] : []));
  const prefix = commonPrefix(poolKeys);
  root.append(
    el(
      "h3",
      "ev-step",
      `2 · The pool before: 16 slots sorted by score, worst on the left, best on the right${prefix ? ` (keys shown without their common “${prefix}”)` : ""}`,
    ),
    poolRow("eviction-pool-before", r.before, { kind, norm, prefix, sorted: r.sortedBefore }, "Before"),
  );
  const afterTitle =
    r.ghosts > 0
      ? `3 · After: samples inserted, then from the right: ${r.ghosts} ghost${r.ghosts === 1 ? "" : "s"} skipped (key gone), the victim taken`
      : "3 · After: samples inserted in order, then the best entry (rightmost, key still alive) taken as the victim";
  root.append(el("h3", "ev-step", afterTitle), poolRow("eviction-pool-after", r.after, { kind, norm, prefix, sorted: r.sortedAfter }, "After"));

  if (!r.layoutOk) {
    root.append(el("p", "ev-note", "The slots the victim and ghosts were taken from could not be placed: the pool after is not a sorted prefix."));
  }
}
