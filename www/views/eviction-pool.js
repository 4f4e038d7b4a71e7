// One eviction, drawn: why the engine picked its victim. From a report read by
// eviction-report.js: the keys sampled with their scores, the 16 pool slots before the sampling
// and after the victim was taken (worst on the left, best on the right; bars show the scores),
// the victim with the bytes it freed, and the ghosts skipped on the way. Random policies have no
// pool: the report names the key dictGetRandomKey() returned.

import { formatBytes, scoreBig, scoreNumber } from "./eviction-report.js";

const number = (n) => Number(n).toLocaleString("en-US");
const U64_MAX = (1n << 64n) - 1n;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** What a bar shows for a score: a number that grows with "better candidate". */
function barValue(kind, score) {
  if (kind === "ttl") {
    const b = scoreBig(score);
    return b === null ? 0 : -Number(U64_MAX - b); // sooner expiry = higher
  }
  return scoreNumber(score);
}

function scale(kind, values) {
  if (values.length === 0) return () => 0;
  let lo = Math.min(...values);
  const hi = Math.max(...values);
  if (kind === "lru") lo = Math.min(0, lo);
  else lo -= Math.max(1, (hi - lo) * 0.25);
  const span = hi - lo || 1;
  return (v) => Math.max(0.04, (v - lo) / span);
}

const SCORE_MEANING = {
  lru: "score = idle time (ms, from the 1-second LRU clock): the longer unused, the better a victim",
  lfu: "score = 255 − the LFU counter (decayed): the less used, the better a victim",
  ttl: "score = ULLONG_MAX − the expire time: the sooner it expires, the better a victim",
};

const MARK_TEXT = { victim: "victim", ghost: "ghost", new: "new", left: "left", out: "pushed out" };
const MARK_TITLE = {
  victim: "The victim: the best entry whose key still existed, taken out of the pool and evicted",
  ghost: "A ghost: its key no longer existed (deleted, expired or already evicted), so it was taken out and skipped",
  new: "A sampled key that entered the pool in this eviction",
  left: "This entry is not in the pool after: the victim, a ghost, or pushed out on the left by better samples",
  out: "Pushed out on the left: the pool was full and better candidates were sampled",
};

/**
 * The prefix every key shares up to a separator (`key:` for key:1, key:22…), so that narrow
 * slots can show what differs; "" when there is none worth dropping.
 */
export function commonPrefix(keys) {
  if (keys.length < 2) return "";
  let p = keys[0];
  for (const k of keys) {
    while (!k.startsWith(p)) p = p.slice(0, -1);
    if (p === "") return "";
  }
  const cut = Math.max(p.lastIndexOf(":"), p.lastIndexOf("_"), p.lastIndexOf("-"), p.lastIndexOf("/"), p.lastIndexOf("."));
  if (cut < 1) return "";
  p = p.slice(0, cut + 1);
  return keys.every((k) => k.length > p.length) ? p : "";
}

function renderSlots(list, slots, kind, norm, rowName, prefix) {
  const items = slots.map((slot) => {
    const li = el("li", "ev-slot");
    li.dataset.slot = String(slot.index);
    if (slot.mark) {
      li.classList.add(`is-${slot.mark}`);
      li.dataset.mark = slot.mark;
    }
    const barBox = el("span", "ev-slot-barbox");
    if (slot.entry === null) {
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
    const e = slot.entry;
    li.dataset.key = e.key;
    li.dataset.db = String(e.db);
    li.dataset.score = String(e.idle);
    const bar = el("span", "ev-slot-bar");
    bar.style.height = `${(norm(barValue(kind, e.idle)) * 100).toFixed(1)}%`;
    barBox.append(bar);
    li.append(barBox, el("span", "ev-slot-score", slot.text.short), el("span", "ev-slot-key", prefix ? e.key.slice(prefix.length) : e.key));
    if (slot.mark) li.append(el("span", "ev-slot-tag", MARK_TEXT[slot.mark]));
    li.title =
      `${rowName} slot ${slot.index}: ${e.key}${e.db ? ` (db ${e.db})` : ""} — ${slot.text.long}` + (slot.mark ? `. ${MARK_TITLE[slot.mark]}` : "");
    return li;
  });
  list.replaceChildren(...items);
}

/**
 * Fills `root` with one eviction read by readReport(); `context` = `{index, total, samplesConfig,
 * formatTime}` for the caption.
 */
export function renderEviction(root, r, { samplesConfig, formatTime }) {
  root.replaceChildren();
  root.dataset.policy = r.policy;
  root.dataset.victim = r.victim;
  root.dataset.victimDb = String(r.victimDb);
  root.dataset.ghosts = String(r.ghosts);
  root.dataset.at = String(r.at);
  root.dataset.bytesFreed = String(r.bytesFreed);

  const cause = el("p", "ev-cause");
  cause.id = "eviction-cause";
  cause.textContent =
    `At ${formatTime(r.at)} used_memory was ${number(r.usedBefore)} B (${formatBytes(r.usedBefore)}), above maxmemory ` +
    `${number(r.maxmemory)} B (${formatBytes(r.maxmemory)}): before running the next command, ${r.policy} evicted`;
  const victim = el("p", "ev-victim");
  victim.id = "eviction-victim";
  const name = el("strong", "ev-victim-key", r.victim);
  victim.append(name);
  const facts = [];
  if (r.victimDb !== 0) facts.push(`db ${r.victimDb}`);
  if (r.victimText) facts.push(r.victimText.long.replace(/ \(.*\)$/, ""));
  facts.push(`freed ${number(r.bytesFreed)} B`);
  if (r.usesPool) facts.push(r.ghosts === 0 ? "no ghosts" : `${r.ghosts} ghost${r.ghosts === 1 ? "" : "s"} skipped`);
  victim.append(document.createTextNode(` — ${facts.join(" · ")}`));
  root.append(cause, victim);

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
  const norm = scale(kind, values);

  // 1 · the samples
  const sampledDbs = new Set(r.samples.map((s) => s.db));
  root.append(
    el(
      "h3",
      "ev-step",
      `1 · Sampled ${r.samples.length} key${r.samples.length === 1 ? "" : "s"} (maxmemory-samples ${samplesConfig ?? "?"} per db` +
        `${sampledDbs.size > 1 ? `, ${sampledDbs.size} dbs` : ""}) — ${SCORE_MEANING[kind]}`,
    ),
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
  root.append(samples);

  // 2 · the pool before, 3 · after
  const poolKeys = [...r.before, ...r.after].filter((s) => s.entry).map((s) => s.entry.key);
  const prefix = commonPrefix(poolKeys);
  root.append(
    el(
      "h3",
      "ev-step",
      `2 · The pool before: 16 slots sorted by score, worst on the left, best on the right${prefix ? ` (keys shown without their common “${prefix}”)` : ""}`,
    ),
  );
  const before = el("ol", "ev-pool");
  before.id = "eviction-pool-before";
  before.dataset.sorted = String(r.sortedBefore);
  before.dataset.prefix = prefix;
  renderSlots(before, r.before, kind, norm, "Before", prefix);
  root.append(before);

  const afterTitle =
    r.ghosts > 0
      ? `3 · After: samples inserted, then from the right: ${r.ghosts} ghost${r.ghosts === 1 ? "" : "s"} skipped (key gone), the victim taken`
      : "3 · After: samples inserted in order, then the best entry (rightmost, key still alive) taken as the victim";
  root.append(el("h3", "ev-step", afterTitle));
  const after = el("ol", "ev-pool");
  after.id = "eviction-pool-after";
  after.dataset.sorted = String(r.sortedAfter);
  after.dataset.prefix = prefix;
  renderSlots(after, r.after, kind, norm, "After", prefix);
  root.append(after);

  if (!r.layoutOk) {
    root.append(el("p", "ev-note", "The slots the victim and ghosts were taken from could not be placed: the pool after is not a sorted prefix."));
  }
}
