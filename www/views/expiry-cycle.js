// @ts-check
// Words and numbers for one active expire cycle, from the engine's `expire_cycle` event — pure
// functions, no DOM. The expiry view's tick panel (expiry-tick-panel.js) and bucket list use them.
//
// The engine reports each call of activeExpireCycle() (src/expire.rs): its kind (slow from
// serverCron, fast from beforeSleep), the algorithm (7.0's bucket cursor or the classic ≤5.0
// random picks), the time budget and the time used (virtual µs, from the cost model), and each
// round (one pass of the do-while over one db) with the keys it examined, whether it went on and
// why. Nothing here re-decides anything: the decision and its reason are the engine's.

import { number } from "../format.js";

/** @typedef {import("./engine-types.js").ExpireCycleReport} ExpireCycleReport */
/** @typedef {import("./engine-types.js").ExpireRound} ExpireRound */
/** @typedef {import("./engine-types.js").ExpireCycleEvent} ExpireCycleEvent */
/** @typedef {import("./engine-types.js").ExpiredEvent} ExpiredEvent */
/** @typedef {import("./engine-types.js").StallEvent} StallEvent */
/**
 * The buckets a 7.0 round visited (see sweepOf).
 * @typedef {{size: number, count: number, from: number, to: number, cursorBucket: number, wrapped: boolean, whole: boolean}} BucketSweep
 */

/**
 * "3 µs", "24,826 µs".
 * @param {number} us
 */
export function formatUs(us) {
  return `${number(Math.round(us))} µs`;
}

/**
 * Time left on a key: "340 ms", "1.6 s", "42 s", "12 min", "1.5 h", "3 d"; past: "340 ms ago".
 * @param {number} ms
 */
export function formatTtl(ms) {
  const past = ms < 0;
  const a = Math.abs(ms);
  let text;
  if (a < 1000) text = `${Math.round(a)} ms`;
  else if (a < 10_000) text = `${(Math.floor(a / 100) / 10).toFixed(1)} s`;
  else if (a < 120_000) text = `${Math.floor(a / 1000)} s`;
  else if (a < 7_200_000) text = `${Math.floor(a / 60_000)} min`;
  else if (a < 172_800_000) text = `${(Math.floor(a / 360_000) / 10).toFixed(1)} h`;
  else text = `${number(Math.floor(a / 86_400_000))} d`;
  return past ? `${text} ago` : text;
}

/**
 * `active-expire-effort` as the report's per-loop parameters show it (7.0; null for classic).
 * @param {ExpireCycleReport} report
 */
export function effortOf(report) {
  if (report.algorithm !== "7.0") return null;
  return Math.round((Number(report.keys_per_loop) - 20) / 5) + 1;
}

/**
 * The rule that decides whether a db is examined again, in words.
 * @param {ExpireCycleReport} report
 */
export function repeatRule(report) {
  if (report.algorithm === "classic") return "repeat a db while more than 5 of the 20 were expired (> 25%)";
  return `repeat a db while more than ${report.acceptable_stale}% were expired`;
}

/**
 * What one loop does, in words.
 * @param {ExpireCycleReport} report
 */
export function loopRule(report) {
  if (report.algorithm === "classic") return "each loop: 20 random picks (with replacement)";
  return `each loop: whole buckets from the cursor until ${number(report.keys_per_loop)} keys (at most ${number(report.keys_per_loop * 20)} buckets)`;
}

/**
 * How the budget is set, in words: "25% of a 100 ms tick" / "a fast cycle's budget".
 * @param {ExpireCycleReport} report
 * @param {number} hz
 */
export function budgetRule(report, hz) {
  if (report.kind === "fast") return "a fast cycle's budget";
  const periodUs = 1_000_000 / hz;
  const percent = Math.round((report.budget_us / periodUs) * 100);
  return `${percent}% of a ${number(Math.round(periodUs / 1000))} ms tick`;
}

/**
 * @param {number} a
 * @param {number} n
 */
const mod = (a, n) => ((a % n) + n) % n;

/**
 * The buckets a 7.0 round visited: `{from, to, count, cursorBucket, size}` (bucket indexes in a
 * table of `size`, `from`..`to` possibly wrapping past the end), or null for a classic round.
 * The engine reports the cursor after the round and the number of buckets visited; the cursor
 * walks one bucket at a time.
 * @param {ExpireRound} round
 * @param {string} algorithm
 * @returns {BucketSweep | null}
 */
export function sweepOf(round, algorithm) {
  if (algorithm === "classic") return null;
  const size = Number(round.table_size);
  const count = Number(round.buckets);
  if (!(size > 0)) return null;
  const cursor = Number(round.cursor);
  return {
    size,
    count,
    from: mod(cursor - count, size),
    to: mod(cursor - 1, size),
    cursorBucket: mod(cursor, size),
    wrapped: count > 0 && mod(cursor - count, size) > mod(cursor - 1, size),
    whole: count >= size,
  };
}

/**
 * "#1,543–#1,603", "#1,020–#3 (wrapping)", "#7".
 * @param {BucketSweep} sweep
 */
export function bucketRange(sweep) {
  if (sweep.count === 0) return "no bucket";
  if (sweep.whole) return `all ${number(sweep.size)} buckets${sweep.count > sweep.size ? " (and round again)" : ""}`;
  if (sweep.from === sweep.to) return `#${number(sweep.from)}`;
  return `#${number(sweep.from)}–#${number(sweep.to)}${sweep.wrapped ? " (wrapping)" : ""}`;
}

/**
 * One round in words: `{title, sweep, counts, stale, decision, note}`. `note` explains the
 * cases where the numbers and the decision look at odds: Redis compares whole percents
 * (`expired*100/sampled`, integer division), so 2 of 19 (10.5%) is "not above 10".
 * @param {ExpireRound} round
 * @param {ExpireCycleReport} report
 */
export function describeRound(round, report) {
  const classic = report.algorithm === "classic";
  const sampled = Number(round.sampled);
  const expired = Number(round.expired);
  const stale = Number(round.stale_percent);
  const sweep = sweepOf(round, report.algorithm);
  const buckets = `${number(round.buckets)} bucket${round.buckets === 1 ? "" : "s"}`;
  const sweepText = classic
    ? `${number(round.buckets)} random pick${round.buckets === 1 ? "" : "s"}`
    : sweep === null
      ? buckets // an empty table (no sweep to place)
      : `${buckets} ${bucketRange(sweep)}`;
  const counts =
    `${number(sampled)} key${sampled === 1 ? "" : "s"} examined · ` +
    `${number(expired)} expired${expired > 0 ? " → deleted" : ""}`;
  const staleText = `${stale.toFixed(1)}% stale`;
  let note = "";
  if (!classic && sampled > 0) {
    const whole = Math.floor((expired * 100) / sampled);
    if (stale > report.acceptable_stale && whole <= report.acceptable_stale) {
      note = `Redis compares whole percents: ${expired}×100/${sampled} = ${whole}, not above ${report.acceptable_stale}.`;
    }
  }
  if (/time limit/.test(round.reason)) note = "Every 16th loop checks the clock: over budget, so the cycle stops here.";
  return {
    title: `db ${round.db} · loop ${number(round.iteration)}`,
    sweep: sweepText,
    counts,
    stale: staleText,
    decision: round.repeat ? "repeat" : "stop",
    note,
  };
}

/**
 * How often each key was picked in a round (classic picks with replacement): Map key → count.
 * @param {ExpireRound} round
 */
export function pickCounts(round) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const k of round.keys) counts.set(k.key, (counts.get(k.key) ?? 0) + 1);
  return counts;
}

/**
 * The cycle in one line: kind, algorithm and its parameters.
 * @param {ExpireCycleReport} report
 * @param {number} hz
 */
export function describeCycle(report, hz) {
  const effort = effortOf(report);
  const algorithm = report.algorithm === "classic" ? "classic ≤5.0" : `7.0, effort ${effort}`;
  const kind = report.kind === "fast" ? "Fast cycle" : "Slow cycle";
  const why =
    report.kind === "fast"
      ? "beforeSleep runs it only because the previous cycle hit its time limit"
      : "serverCron runs it every tick";
  const rounds = report.rounds.length;
  const iterations = Number(report.round_count);
  const dbs = report.dbs_visited;
  const dbText = dbs.length === 0 ? "no db" : dbs.length === 1 ? `db ${dbs[0]}` : `${dbs.length} dbs from db ${dbs[0]}`;
  let iterationsText = `${number(iterations)} loop${iterations === 1 ? "" : "s"} over ${dbText}`;
  if (rounds < iterations) {
    iterationsText +=
      rounds >= 64
        ? ` · the first ${rounds} rounds listed`
        : ` · ${number(iterations - rounds)} found no key with a TTL`;
  }
  return {
    kind,
    algorithm,
    why,
    params: `${loopRule(report)}; ${repeatRule(report)}`,
    budget: `${formatUs(report.time_used_us)} of ${formatUs(report.budget_us)} (${budgetRule(report, hz)})`,
    capped: report.cap_reached
      ? "time limit reached: the next cycle visits every db, and a fast cycle may run before sleeping"
      : "",
    iterations: iterationsText,
    totals: `${number(report.sampled)} keys examined · ${number(report.expired)} deleted · stale estimate now ${Number(report.stale_perc_after).toFixed(2)}%`,
  };
}

/**
 * The tick a cycle belongs to: cycles with the same `at_ms` ran in the same serverCron tick.
 * @param {readonly {at_ms: number, report: ExpireCycleReport}[]} cycles
 */
export function groupTicks(cycles) {
  /** @type {{at: number, cycles: ExpireCycleReport[]}[]} */
  const ticks = [];
  for (const c of cycles) {
    const last = ticks[ticks.length - 1];
    if (last && last.at === c.at_ms) last.cycles.push(c.report);
    else ticks.push({ at: c.at_ms, cycles: [c.report] });
  }
  return ticks;
}

/**
 * A lazy expiry in words: "GET touched k:17, 340 ms late: lazy expiry deleted it on access."
 * @param {ExpiredEvent} e
 */
export function describeLazy(e) {
  const who = e.command ? e.command.toUpperCase().replace("|", " ") : "An access";
  const late = Number(e.late_ms);
  return `${who} touched ${e.key}${e.db === 0 ? "" : ` (db ${e.db})`}, ${formatTtl(late)} late: lazy expiry deleted it on access.`;
}

/**
 * A stall in words (a big value freed on the main thread).
 * @param {StallEvent} e
 */
export function describeStall(e) {
  return (
    `Freeing ${e.key} (${e.cause}) held the main thread for ${formatUs(e.us)}: nothing else was served meanwhile. ` +
    "CONFIG SET lazyfree-lazy-expire yes frees big values in the background."
  );
}
