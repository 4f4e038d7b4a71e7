// @ts-check
// One eviction, drawn: why the engine picked its victim. From a report read by
// eviction-report.js: the keys sampled with their scores, the 16 pool slots before the sampling
// and after the victim was taken (worst on the left, best on the right; bars show the scores),
// the victim with the bytes it freed, and the ghosts skipped on the way. Random policies have no
// pool: the report names the key dictGetRandomKey() returned. DOM only; key names as text.

import { el } from "../dom.js";
import { number } from "../format.js";
import { t } from "../i18n.js";
import { barScale, barValue, commonPrefix, formatBytes } from "./eviction-report.js";

export { commonPrefix } from "./eviction-report.js";

/** @typedef {import("./eviction-report.js").ReadReport} ReadReport */
/** @typedef {import("./eviction-report.js").Slot} Slot */

// The words are getters: in the page's language when read.
/** @type {Record<string, string>} */
const SCORE_MEANING = {
  get lru() {
    return t("score = idle time (ms, from the 1-second LRU clock): the longer unused, the better a victim");
  },
  get lfu() {
    return t("score = 255 − the LFU counter (decayed): the less used, the better a victim");
  },
  get ttl() {
    return t("score = ULLONG_MAX − the expire time: the sooner it expires, the better a victim");
  },
};

/** @type {Record<string, string>} */
const MARK_TEXT = {
  get victim() {
    return t("victim");
  },
  get ghost() {
    return t("ghost");
  },
  get new() {
    return t("new");
  },
  get left() {
    return t("left");
  },
  get out() {
    return t("pushed out");
  },
};
/** @type {Record<string, string>} */
const MARK_TITLE = {
  get victim() {
    return t("The victim: the best entry whose key still existed, taken out of the pool and evicted");
  },
  get ghost() {
    return t("A ghost: its key no longer existed (deleted, expired or already evicted), so it was taken out and skipped");
  },
  get new() {
    return t("A sampled key that entered the pool in this eviction");
  },
  get left() {
    return t("This entry is not in the pool after: the victim, a ghost, or pushed out on the left by better samples");
  },
  get out() {
    return t("Pushed out on the left: the pool was full and better candidates were sampled");
  },
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
      li.append(barBox, el("span", "ev-slot-score", slot.mark === "victim" ? t("taken") : t("gone")), el("span", "ev-slot-key", MARK_TEXT[slot.mark]));
      li.title = t("Slot {i}: {what}", { i: slot.index, what: MARK_TITLE[slot.mark] });
    } else {
      li.append(barBox, el("span", "ev-slot-score", ""), el("span", "ev-slot-key", t("empty")));
      li.title = t("Slot {i}: empty", { i: slot.index });
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
  const about = { row: rowName, i: slot.index, key: `${e.key}${e.db ? ` (db ${e.db})` : ""}`, score: slot.text.long };
  li.title = slot.mark
    ? t("{row} slot {i}: {key} — {score}. {mark}", { ...about, mark: MARK_TITLE[slot.mark] })
    : t("{row} slot {i}: {key} — {score}", about);
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
  cause.textContent = t(
    "At {time} used_memory was {used} B ({usedText}), above maxmemory {max} B ({maxText}): before running the next command, {policy} evicted",
    { time: formatTime(r.at), used: number(r.usedBefore), usedText: formatBytes(r.usedBefore), max: number(r.maxmemory), maxText: formatBytes(r.maxmemory), policy: r.policy },
  );
  const victim = el("p", "ev-victim");
  victim.id = "eviction-victim";
  victim.append(el("strong", "ev-victim-key", r.victim));
  const facts = [];
  if (r.victimDb !== 0) facts.push(`db ${r.victimDb}`);
  // The score in words without its parenthesis (ASCII or full-width).
  if (r.victimText) facts.push(r.victimText.long.replace(/\s*[(（].*[)）]$/, ""));
  facts.push(t("freed {n} B", { n: number(r.bytesFreed) }));
  if (r.usesPool) facts.push(r.ghosts === 0 ? t("no ghosts") : r.ghosts === 1 ? t("{n} ghost skipped", { n: r.ghosts }) : t("{n} ghosts skipped", { n: r.ghosts }));
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
  const per =
    sampledDbs.size > 1
      ? t("maxmemory-samples {n} per db, {dbs} dbs", { n: samplesConfig ?? "?", dbs: sampledDbs.size })
      : t("maxmemory-samples {n} per db", { n: samplesConfig ?? "?" });
  const about = { n: r.samples.length, per, meaning: SCORE_MEANING[r.kind] };
  const title = el("h3", "ev-step", r.samples.length === 1 ? t("1 · Sampled {n} key ({per}) — {meaning}", about) : t("1 · Sampled {n} keys ({per}) — {meaning}", about));
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
      li.append(el("span", "ev-sample-fate", s.fate === "victim" ? t("→ evicted") : s.fate === "pool" ? t("→ in pool") : t("not kept")));
      li.title = `${s.key}${s.db ? ` (db ${s.db})` : ""}: ${s.text.long}`;
      return li;
    }),
  );
  if (r.samples.length === 0) samples.append(el("li", "ev-sample is-none", t("none (the pool already held candidates)")));
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
        t("{policy} does not sample or keep a pool: dictGetRandomKey() picked one key of {from} at random, db by db in turn.", {
          policy: r.policy,
          from: r.policy.startsWith("volatile") ? t("the keys with a TTL (the expires table)") : t("the whole keyspace"),
        }),
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
      prefix
        ? t("2 · The pool before: 16 slots sorted by score, worst on the left, best on the right (keys shown without their common “{prefix}”)", { prefix })
        : t("2 · The pool before: 16 slots sorted by score, worst on the left, best on the right"),
    ),
    poolRow("eviction-pool-before", r.before, { kind, norm, prefix, sorted: r.sortedBefore }, t("Before")),
  );
  const afterTitle =
    r.ghosts > 0
      ? r.ghosts === 1
        ? t("3 · After: samples inserted, then from the right: {n} ghost skipped (key gone), the victim taken", { n: r.ghosts })
        : t("3 · After: samples inserted, then from the right: {n} ghosts skipped (key gone), the victim taken", { n: r.ghosts })
      : t("3 · After: samples inserted in order, then the best entry (rightmost, key still alive) taken as the victim");
  root.append(el("h3", "ev-step", afterTitle), poolRow("eviction-pool-after", r.after, { kind, norm, prefix, sorted: r.sortedAfter }, t("After")));

  if (!r.layoutOk) {
    root.append(el("p", "ev-note", t("The slots the victim and ghosts were taken from could not be placed: the pool after is not a sorted prefix.")));
  }
}
