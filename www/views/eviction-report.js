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

export const POOL_SIZE = 16;

const U64_MAX = (1n << 64n) - 1n;

const number = (n) => Number(n).toLocaleString("en-US");

/** The kind of score a policy uses: "lru", "lfu", "ttl", or "random" (no pool). */
export function scoreKind(policy) {
  const p = String(policy);
  if (p.endsWith("-lru")) return "lru";
  if (p.endsWith("-lfu")) return "lfu";
  if (p === "volatile-ttl") return "ttl";
  if (p.endsWith("-random")) return "random";
  return "none";
}

/** A score as a BigInt (the engine may send a number, a decimal string or a BigInt). */
export function scoreBig(score) {
  if (typeof score === "bigint") return score;
  if (typeof score === "string" && /^\d+$/.test(score)) return BigInt(score);
  if (typeof score === "number" && Number.isFinite(score)) return BigInt(Math.round(score));
  return null;
}

/** A score as a plain number for drawing bars (precision beyond 2^53 does not matter there). */
export function scoreNumber(score) {
  if (typeof score === "number") return score;
  const b = scoreBig(score);
  return b === null ? 0 : Number(b);
}

/** "850 ms", "14 s", "3 min 20 s", "2 h 5 min", "3 d". */
export function formatDuration(ms) {
  const a = Math.abs(ms);
  const sign = ms < 0 ? "−" : "";
  if (a < 1000) return `${sign}${Math.round(a)} ms`;
  if (a < 60_000) return `${sign}${Math.floor(a / 1000)} s`;
  if (a < 3_600_000) {
    const s = Math.floor((a % 60_000) / 1000);
    return `${sign}${Math.floor(a / 60_000)} min${s ? ` ${s} s` : ""}`;
  }
  if (a < 86_400_000) {
    const m = Math.floor((a % 3_600_000) / 60_000);
    return `${sign}${Math.floor(a / 3_600_000)} h${m ? ` ${m} min` : ""}`;
  }
  return `${sign}${number(Math.floor(a / 86_400_000))} d`;
}

function shortDuration(ms) {
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
 */
export function describeScore(policy, score, atMs) {
  const kind = scoreKind(policy);
  const big = scoreBig(score);
  if (big === null) return { short: "?", long: `score ${String(score)}` };
  if (kind === "lru") {
    const ms = Number(big);
    return { short: shortDuration(ms), long: `idle ${formatDuration(ms)} (score ${number(ms)}: idle ms from the 1-second LRU clock)` };
  }
  if (kind === "lfu") {
    const counter = 255 - Number(big);
    return { short: `freq ${counter}`, long: `LFU counter ${counter}, decayed (score ${Number(big)} = 255 − ${counter})` };
  }
  if (kind === "ttl") {
    const expireMs = Number(U64_MAX - big);
    const left = expireMs - atMs;
    return {
      short: `ttl ${shortDuration(left)}`,
      long: `${left >= 0 ? `expires in ${formatDuration(left)}` : `expired ${formatDuration(-left)} ago`} (score ULLONG_MAX − ${number(expireMs)})`,
    };
  }
  return { short: String(big), long: `score ${String(big)}` };
}

/** Pool slots as 16 entries (`null` = empty); the engine sends [] before the pool existed. */
export function poolSlots(pool) {
  const slots = new Array(POOL_SIZE).fill(null);
  if (Array.isArray(pool)) for (let i = 0; i < Math.min(POOL_SIZE, pool.length); i += 1) slots[i] = pool[i] ?? null;
  return slots;
}

/** True when the filled slots' scores never go down from left to right. */
export function isSorted(slots) {
  let last = null;
  for (const s of slots) {
    if (s === null) continue;
    const b = scoreBig(s.idle);
    if (last !== null && b !== null && b < last) return false;
    if (b !== null) last = b;
  }
  return true;
}

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
 */
export function readReport(event) {
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
  const count = (slots) => {
    const m = new Map();
    for (const s of slots) if (s) m.set(entryId(s), (m.get(entryId(s)) ?? 0) + 1);
    return m;
  };
  const afterCount = count(afterSlots);
  const beforeCount = count(beforeSlots);

  const filledAfter = afterSlots.findIndex((s) => s === null);
  const prefix = filledAfter === -1 ? POOL_SIZE : filledAfter;
  const layoutOk = usesPool && afterSlots.slice(prefix).every((s) => s === null);
  const victimSlot = usesPool && layoutOk && prefix < POOL_SIZE ? prefix : null;
  const ghostSlots = [];
  if (victimSlot !== null) for (let i = 1; i <= ghosts && victimSlot + i < POOL_SIZE; i += 1) ghostSlots.push(victimSlot + i);

  const text = (score) => describeScore(policy, score, at);
  const seenBefore = new Map();
  const before = beforeSlots.map((entry, index) => {
    if (entry === null) return { index, entry: null, text: null, mark: "" };
    const id = entryId(entry);
    const n = (seenBefore.get(id) ?? 0) + 1;
    seenBefore.set(id, n);
    const stays = n <= (afterCount.get(id) ?? 0);
    return { index, entry, text: text(entry.idle), mark: stays ? "" : "left" };
  });
  markGhostsBefore(before, { victim, victimDb, ghosts, samples: r.samples });
  const seenAfter = new Map();
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

  const samples = (Array.isArray(r.samples) ? r.samples : []).map((s) => {
    const id = entryId(s);
    let fate = "out";
    if (s.key === victim && Number(s.db) === victimDb) fate = "victim";
    else if (afterCount.has(id)) fate = "pool";
    return { db: Number(s.db), key: String(s.key), score: s.score, text: text(s.score), fate };
  });

  // The victim's score: from the samples, or from the pool before (a candidate kept from an
  // earlier call), whichever names it.
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
 */
function markGhostsBefore(before, { victim, victimDb, ghosts, samples }) {
  const leavers = before.filter((s) => s.mark === "left");
  if (leavers.length === 0) return;
  const isVictim = (s) => s.entry.key === victim && Number(s.entry.db) === victimDb;
  const victimSample = (Array.isArray(samples) ? samples : []).find((s) => s.key === victim && Number(s.db) === victimDb);
  const inPool = leavers.filter(isVictim).pop();
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

/** "1.52 MB", "934 KB", "512 B" (1024-based, as redis-cli's *_human fields). */
export function formatBytes(n) {
  const v = Number(n);
  if (!(v >= 0)) return "–";
  if (v < 1024) return `${v} B`;
  if (v < 1024 * 1024) return `${(v / 1024).toFixed(v < 10 * 1024 ? 2 : 1)} KB`;
  if (v < 1024 ** 3) return `${(v / 1024 / 1024).toFixed(2)} MB`;
  return `${(v / 1024 ** 3).toFixed(2)} GB`;
}
