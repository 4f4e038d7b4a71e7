// @ts-check
// Reading one `eviction` event for the eviction view — pure functions, no DOM.
//
// The engine reports, per evicted key (src/evict.rs `EvictionReport`): the policy, the keys it
// sampled with their scores, the 16 pool slots before the sampling and after the victim was
// taken out, the victim, how many pool entries were skipped as ghosts (their key was already
// gone), the bytes freed and used_memory/maxmemory. This module turns scores into words (idle
// time, LFU counter, time to live) and says what became of each slot. It never decides which
// key should have been evicted: that is the engine's report.
//
// What it relies on (evict.c's pool, which src/evict.rs keeps as Redis does): filled slots form
// a prefix of the pool, sorted by ascending score, and taking an entry empties its slot without
// moving the others. So in `pool_after` the victim's slot is the first empty one, and the
// `ghosts` entries skipped before it are the next ones.

import { number } from "../format.js";
import { t } from "../i18n.js";

/** @typedef {import("./engine-types.js").EvictionEvent} EvictionEvent */
/** @typedef {import("./engine-types.js").PoolEntry} PoolEntry */
/** @typedef {import("./engine-types.js").EvictionSample} EvictionSample */
/** @typedef {number | string | bigint} Score */
/** @typedef {{short: string, long: string}} ScoreText */
/** @typedef {"" | "victim" | "ghost" | "out" | "left" | "new"} SlotMark */
/**
 * A pool slot as drawn: its entry (null: empty), the entry's score in words, and what became of it.
 * @typedef {{index: number, entry: PoolEntry | null, text: ScoreText | null, mark: SlotMark}} Slot
 */
/**
 * A sampled key and its fate: evicted, kept in the pool, or not kept.
 * @typedef {{db: number, key: string, score: Score, text: ScoreText, fate: "victim" | "pool" | "out"}} ReadSample
 */
/** @typedef {ReturnType<typeof readReport>} ReadReport */

export const POOL_SIZE = 16;

const U64_MAX = (1n << 64n) - 1n;

/**
 * The kind of score a policy uses: "lru", "lfu", "ttl", "random" (no pool), or "none".
 * @param {unknown} policy
 */
export function scoreKind(policy) {
  const p = String(policy);
  if (p.endsWith("-lru")) return "lru";
  if (p.endsWith("-lfu")) return "lfu";
  if (p === "volatile-ttl") return "ttl";
  if (p.endsWith("-random")) return "random";
  return "none";
}

/**
 * A score as a BigInt (the engine may send a number, a decimal string or a BigInt).
 * @param {unknown} score
 * @returns {bigint | null}
 */
export function scoreBig(score) {
  if (typeof score === "bigint") return score;
  if (typeof score === "string" && /^\d+$/.test(score)) return BigInt(score);
  if (typeof score === "number" && Number.isFinite(score)) return BigInt(Math.round(score));
  return null;
}

/**
 * A score as a plain number for drawing bars (precision beyond 2^53 does not matter there).
 * @param {unknown} score
 */
export function scoreNumber(score) {
  if (typeof score === "number") return score;
  const b = scoreBig(score);
  return b === null ? 0 : Number(b);
}

/**
 * "850 ms", "14 s", "3 min 20 s", "2 h 5 min", "3 d".
 * @param {number} ms
 */
export function formatDuration(ms) {
  const a = Math.abs(ms);
  const sign = ms < 0 ? "−" : "";
  if (a < 1000) return `${sign}${Math.round(a)} ms`;
  if (a < 60_000) return sign + t("{n} s", { n: Math.floor(a / 1000) });
  if (a < 3_600_000) {
    const s = Math.floor((a % 60_000) / 1000);
    const m = Math.floor(a / 60_000);
    return sign + (s ? t("{m} min {s} s", { m, s }) : t("{n} min", { n: m }));
  }
  if (a < 86_400_000) {
    const m = Math.floor((a % 3_600_000) / 60_000);
    const h = Math.floor(a / 3_600_000);
    return sign + (m ? t("{h} h {m} min", { h, m }) : t("{n} h", { n: h }));
  }
  return sign + t("{n} d", { n: number(Math.floor(a / 86_400_000)) });
}

/**
 * "850ms", "14s", "3m20s", "2h5m", "3d".
 * @param {number} ms
 */
export function shortDuration(ms) {
  const a = Math.abs(ms);
  const sign = ms < 0 ? "−" : "";
  if (a < 1000) return `${sign}${Math.round(a)}ms`;
  if (a < 60_000) return `${sign}${Math.floor(a / 1000)}s`;
  if (a < 3_600_000) return `${sign}${Math.floor(a / 60_000)}m${Math.floor((a % 60_000) / 1000)}s`;
  if (a < 86_400_000) return `${sign}${Math.floor(a / 3_600_000)}h${Math.floor((a % 3_600_000) / 60_000)}m`;
  return `${sign}${Math.floor(a / 86_400_000)}d`;
}

/**
 * A score in words for `policy` at virtual time `atMs`: `{short, long}` — "14s" / "idle 14 s
 * (score 14000)"; "freq 6" / "LFU counter 6 (score 249 = 255 − 6)"; "ttl 3m12s" / "expires in
 * 3 min 12 s (score ULLONG_MAX − expire time)".
 * @param {string} policy
 * @param {unknown} score
 * @param {number} atMs
 * @returns {ScoreText}
 */
export function describeScore(policy, score, atMs) {
  const kind = scoreKind(policy);
  const big = scoreBig(score);
  if (big === null) return { short: "?", long: t("score {score}", { score: String(score) }) };
  if (kind === "lru") {
    const ms = Number(big);
    return { short: shortDuration(ms), long: t("idle {time} (score {score}: idle ms from the 1-second LRU clock)", { time: formatDuration(ms), score: number(ms) }) };
  }
  if (kind === "lfu") {
    const counter = 255 - Number(big);
    return { short: t("freq {n}", { n: counter }), long: t("LFU counter {n}, decayed (score {score} = 255 − {n})", { n: counter, score: Number(big) }) };
  }
  if (kind === "ttl") {
    const expireMs = Number(U64_MAX - big);
    const left = expireMs - atMs;
    return {
      short: `ttl ${shortDuration(left)}`,
      long:
        left >= 0
          ? t("expires in {time} (score ULLONG_MAX − {at})", { time: formatDuration(left), at: number(expireMs) })
          : t("expired {time} ago (score ULLONG_MAX − {at})", { time: formatDuration(-left), at: number(expireMs) }),
    };
  }
  return { short: String(big), long: t("score {score}", { score: String(big) }) };
}

/**
 * Pool slots as 16 entries (`null` = empty); the engine sends [] before the pool existed.
 * @param {unknown} pool
 * @returns {Array<PoolEntry | null>}
 */
export function poolSlots(pool) {
  /** @type {Array<PoolEntry | null>} */
  const slots = new Array(POOL_SIZE).fill(null);
  if (Array.isArray(pool)) for (let i = 0; i < Math.min(POOL_SIZE, pool.length); i += 1) slots[i] = pool[i] ?? null;
  return slots;
}

/**
 * True when the filled slots' scores never go down from left to right.
 * @param {ReadonlyArray<PoolEntry | null>} slots
 */
export function isSorted(slots) {
  /** @type {bigint | null} */
  let last = null;
  for (const s of slots) {
    if (s === null) continue;
    const b = scoreBig(s.idle);
    if (last !== null && b !== null && b < last) return false;
    if (b !== null) last = b;
  }
  return true;
}

/** @param {{db: number, key: string}} e */
const entryId = (e) => `${e.db}\u0000${e.key}`;

/**
 * What the view draws for one eviction report:
 * `{policy, kind, usesPool, at, victim, victimDb, ghosts, bytesFreed, usedBefore, maxmemory,
 *   samples: [{db, key, score, text, fate}], before: [slot], after: [slot], victimScore,
 *   victimSlot, ghostSlots: [slot indexes], layoutOk}` where a slot is
 * `{index, entry|null, text, mark}` and `mark` is one of "" | "victim" | "ghost" (in the after
 * row: the empty slots the victim and the ghosts were taken from; in the before row: those
 * entries) | "out" (before: pushed out on the left by better samples) | "left" (before: gone,
 * reason not known) | "new" (after: one of the samples, not there before).
 * @param {{at_ms?: number, report?: Partial<import("./engine-types.js").EvictionReport>}} event
 */
export function readReport(event) {
  /** @type {Partial<import("./engine-types.js").EvictionReport>} */
  const r = event.report ?? {};
  const policy = String(r.policy ?? "");
  const kind = scoreKind(policy);
  const at = Number(event.at_ms ?? 0);
  const usesPool = kind === "lru" || kind === "lfu" || kind === "ttl";
  const beforeSlots = poolSlots(r.pool_before);
  const afterSlots = poolSlots(r.pool_after);
  const ghosts = Number(r.ghosts ?? 0);
  const victim = String(r.victim ?? "");
  const victimDb = Number(r.victim_db ?? 0);

  // Multisets of entries on each side, to say which left the pool and which are new.
  /** @param {ReadonlyArray<PoolEntry | null>} slots */
  const count = (slots) => {
    /** @type {Map<string, number>} */
    const m = new Map();
    for (const s of slots) if (s) m.set(entryId(s), (m.get(entryId(s)) ?? 0) + 1);
    return m;
  };
  const afterCount = count(afterSlots);
  const beforeCount = count(beforeSlots);

  const filledAfter = afterSlots.indexOf(null);
  const prefix = filledAfter === -1 ? POOL_SIZE : filledAfter;
  const layoutOk = usesPool && afterSlots.slice(prefix).every((s) => s === null);
  const victimSlot = usesPool && layoutOk && prefix < POOL_SIZE ? prefix : null;
  /** @type {number[]} */
  const ghostSlots = [];
  if (victimSlot !== null) for (let i = 1; i <= ghosts && victimSlot + i < POOL_SIZE; i += 1) ghostSlots.push(victimSlot + i);

  const text = (/** @type {unknown} */ score) => describeScore(policy, score, at);
  /** @type {Map<string, number>} */
  const seenBefore = new Map();
  /** @type {Slot[]} */
  const before = beforeSlots.map((entry, index) => {
    if (entry === null) return { index, entry: null, text: null, mark: "" };
    const id = entryId(entry);
    const n = (seenBefore.get(id) ?? 0) + 1;
    seenBefore.set(id, n);
    const stays = n <= (afterCount.get(id) ?? 0);
    return { index, entry, text: text(entry.idle), mark: stays ? "" : "left" };
  });
  markGhostsBefore(before, { victim, victimDb, ghosts, samples: r.samples });
  /** @type {Map<string, number>} */
  const seenAfter = new Map();
  /** @type {Slot[]} */
  const after = afterSlots.map((entry, index) => {
    if (entry === null) {
      const mark = index === victimSlot ? "victim" : ghostSlots.includes(index) ? "ghost" : "";
      return { index, entry: null, text: null, mark };
    }
    const id = entryId(entry);
    const n = (seenAfter.get(id) ?? 0) + 1;
    seenAfter.set(id, n);
    return { index, entry, text: text(entry.idle), mark: n > (beforeCount.get(id) ?? 0) ? "new" : "" };
  });

  /** @type {ReadSample[]} */
  const samples = (Array.isArray(r.samples) ? r.samples : []).map((s) => {
    const id = entryId(s);
    /** @type {ReadSample["fate"]} */
    let fate = "out";
    if (s.key === victim && Number(s.db) === victimDb) fate = "victim";
    else if (afterCount.has(id)) fate = "pool";
    return { db: Number(s.db), key: String(s.key), score: s.score, text: text(s.score), fate };
  });

  // The victim's score: from the samples, or from the pool before (a candidate kept from an
  // earlier call), whichever names it.
  /** @type {Score | null} */
  let victimScore = null;
  const fromSample = samples.find((s) => s.fate === "victim");
  if (fromSample) victimScore = fromSample.score;
  else {
    const fromPool = beforeSlots.filter((s) => s && s.key === victim && Number(s.db) === victimDb).pop();
    if (fromPool) victimScore = fromPool.idle;
  }

  return {
    policy,
    kind,
    usesPool,
    at,
    victim,
    victimDb,
    victimScore,
    victimText: victimScore === null ? null : text(victimScore),
    ghosts,
    bytesFreed: Number(r.bytes_freed ?? 0),
    usedBefore: Number(r.used_before ?? 0),
    maxmemory: Number(r.maxmemory ?? 0),
    samples,
    before,
    after,
    victimSlot,
    ghostSlots,
    layoutOk,
    sortedBefore: isSorted(beforeSlots),
    sortedAfter: isSorted(afterSlots),
  };
}

/**
 * Names the entries of the pool before that left it. Samples are inserted without moving the
 * existing entries' order, and entries are taken from the right: so the ghosts are the entries
 * that left to the right of the victim (the victim's own slot if it was already in the pool,
 * else any with a score at least the victim sample's — an insert goes left of equal scores),
 * and the others were pushed out on the left by better samples. Marks "victim", "ghost" and
 * "out"; when that does not account for exactly `ghosts` ghosts (the pool was emptied and
 * refilled within one eviction) every leaver stays "left".
 * @param {Slot[]} before
 * @param {{victim: string, victimDb: number, ghosts: number, samples: unknown}} report
 */
function markGhostsBefore(before, { victim, victimDb, ghosts, samples }) {
  const leavers = /** @type {Array<Slot & {entry: PoolEntry}>} */ (before.filter((s) => s.mark === "left" && s.entry !== null));
  if (leavers.length === 0) return;
  const isVictim = (/** @type {Slot & {entry: PoolEntry}} */ s) => s.entry.key === victim && Number(s.entry.db) === victimDb;
  /** @type {EvictionSample[]} */
  const list = Array.isArray(samples) ? samples : [];
  const victimSample = list.find((s) => s.key === victim && Number(s.db) === victimDb);
  const inPool = leavers.filter(isVictim).pop();
  /** @type {Map<Slot, SlotMark>} */
  const marks = new Map();
  if (inPool && !victimSample) {
    marks.set(inPool, "victim");
    for (const s of leavers) if (s !== inPool) marks.set(s, s.index > inPool.index ? "ghost" : "out");
  } else if (victimSample && !inPool) {
    const v = scoreBig(victimSample.score);
    for (const s of leavers) {
      const b = scoreBig(s.entry.idle);
      marks.set(s, v !== null && b !== null && b >= v ? "ghost" : "out");
    }
  } else {
    return;
  }
  const counted = [...marks.values()].filter((m) => m === "ghost").length;
  if (counted !== ghosts) return;
  for (const [slot, mark] of marks) slot.mark = mark;
}

/**
 * "1.52 MB", "934 KB", "512 B" (1024-based, as redis-cli's *_human fields).
 * @param {unknown} n
 */
export function formatBytes(n) {
  const v = Number(n);
  if (!(v >= 0)) return "–";
  if (v < 1024) return `${v} B`;
  if (v < 1024 * 1024) return `${(v / 1024).toFixed(v < 10 * 1024 ? 2 : 1)} KB`;
  if (v < 1024 ** 3) return `${(v / 1024 / 1024).toFixed(2)} MB`;
  return `${(v / 1024 ** 3).toFixed(2)} GB`;
}

// ---------------------------------------------------------------------------------------------
// Bars and names for drawing a report
// ---------------------------------------------------------------------------------------------

/**
 * What a bar shows for a score: a number that grows with "better candidate" (for volatile-ttl,
 * the sooner the expiry, the higher).
 * @param {string} kind  scoreKind()
 * @param {unknown} score
 */
export function barValue(kind, score) {
  if (kind === "ttl") {
    const b = scoreBig(score);
    return b === null ? 0 : -Number(U64_MAX - b);
  }
  return scoreNumber(score);
}

/**
 * Bar heights (0.04…1) for values of one report: from 0 for idle times, else from a little
 * below the smallest, so that close scores still differ.
 * @param {string} kind
 * @param {readonly number[]} values
 * @returns {(v: number) => number}
 */
export function barScale(kind, values) {
  if (values.length === 0) return () => 0;
  let lo = Math.min(...values);
  const hi = Math.max(...values);
  if (kind === "lru") lo = Math.min(0, lo);
  else lo -= Math.max(1, (hi - lo) * 0.25);
  const span = hi - lo || 1;
  return (v) => Math.max(0.04, (v - lo) / span);
}

/**
 * The prefix every key shares up to a separator (`key:` for key:1, key:22…), so that narrow
 * slots can show what differs; "" when there is none worth dropping.
 * @param {readonly string[]} keys
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
