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
import { t } from "../i18n.js";

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
  return past ? t("{time} ago", { time: text }) : text;
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
  if (report.algorithm === "classic") return t("repeat a db while more than 5 of the 20 were expired (> 25%)");
  return t("repeat a db while more than {n}% were expired", { n: report.acceptable_stale });
}

/**
 * What one loop does, in words.
 * @param {ExpireCycleReport} report
 */
export function loopRule(report) {
  if (report.algorithm === "classic") return t("each loop: 20 random picks (with replacement)");
  return t("each loop: whole buckets from the cursor until {keys} keys (at most {buckets} buckets)", {
    keys: number(report.keys_per_loop),
    buckets: number(report.keys_per_loop * 20),
  });
}

/**
 * How the budget is set, in words: "25% of a 100 ms tick" / "a fast cycle's budget".
 * @param {ExpireCycleReport} report
 * @param {number} hz
 */
export function budgetRule(report, hz) {
  if (report.kind === "fast") return t("a fast cycle's budget");
  const periodUs = 1_000_000 / hz;
  const percent = Math.round((report.budget_us / periodUs) * 100);
  return t("{percent}% of a {ms} ms tick", { percent, ms: number(Math.round(periodUs / 1000)) });
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
  if (sweep.count === 0) return t("no bucket");
  if (sweep.whole) {
    const n = number(sweep.size);
    return sweep.count > sweep.size ? t("all {n} buckets (and round again)", { n }) : t("all {n} buckets", { n });
  }
  if (sweep.from === sweep.to) return `#${number(sweep.from)}`;
  const range = { from: number(sweep.from), to: number(sweep.to) };
  return sweep.wrapped ? t("#{from}–#{to} (wrapping)", range) : `#${range.from}–#${range.to}`;
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
  const nb = number(round.buckets);
  const buckets = round.buckets === 1 ? t("{n} bucket", { n: nb }) : t("{n} buckets", { n: nb });
  const sweepText = classic
    ? round.buckets === 1
      ? t("{n} random pick", { n: nb })
      : t("{n} random picks", { n: nb })
    : sweep === null
      ? buckets // an empty table (no sweep to place)
      : `${buckets} ${bucketRange(sweep)}`;
  const counts = [
    sampled === 1 ? t("{n} key examined", { n: number(sampled) }) : t("{n} keys examined", { n: number(sampled) }),
    expired > 0 ? t("{n} expired → deleted", { n: number(expired) }) : t("{n} expired", { n: number(expired) }),
  ].join(" · ");
  const staleText = t("{pct}% stale", { pct: stale.toFixed(1) });
  let note = "";
  if (!classic && sampled > 0) {
    const whole = Math.floor((expired * 100) / sampled);
    if (stale > report.acceptable_stale && whole <= report.acceptable_stale) {
      note = t("Redis compares whole percents: {expired}×100/{sampled} = {whole}, not above {acceptable}.", {
        expired,
        sampled,
        whole,
        acceptable: report.acceptable_stale,
      });
    }
  }
  if (/time limit/.test(round.reason)) note = t("Every 16th loop checks the clock: over budget, so the cycle stops here.");
  return {
    title: t("db {db} · loop {n}", { db: round.db, n: number(round.iteration) }),
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
  const algorithm = report.algorithm === "classic" ? t("classic ≤5.0") : t("7.0, effort {effort}", { effort });
  const kind = report.kind === "fast" ? t("Fast cycle") : t("Slow cycle");
  const why =
    report.kind === "fast" ? t("beforeSleep runs it only because the previous cycle hit its time limit") : t("serverCron runs it every tick");
  const rounds = report.rounds.length;
  const iterations = Number(report.round_count);
  const dbs = report.dbs_visited;
  const dbText = dbs.length === 0 ? t("no db") : dbs.length === 1 ? `db ${dbs[0]}` : t("{n} dbs from db {db}", { n: dbs.length, db: dbs[0] });
  const loops = { n: number(iterations), dbs: dbText };
  let iterationsText = iterations === 1 ? t("{n} loop over {dbs}", loops) : t("{n} loops over {dbs}", loops);
  if (rounds < iterations) {
    iterationsText += ` · ${
      rounds >= 64 ? t("the first {n} rounds listed", { n: rounds }) : t("{n} found no key with a TTL", { n: number(iterations - rounds) })
    }`;
  }
  return {
    kind,
    algorithm,
    why,
    params: t("{loop}; {repeat}", { loop: loopRule(report), repeat: repeatRule(report) }),
    budget: t("{used} of {budget} ({rule})", { used: formatUs(report.time_used_us), budget: formatUs(report.budget_us), rule: budgetRule(report, hz) }),
    capped: report.cap_reached ? t("time limit reached: the next cycle visits every db, and a fast cycle may run before sleeping") : "",
    iterations: iterationsText,
    totals: t("{sampled} keys examined · {expired} deleted · stale estimate now {pct}%", {
      sampled: number(report.sampled),
      expired: number(report.expired),
      pct: Number(report.stale_perc_after).toFixed(2),
    }),
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
  const who = e.command ? e.command.toUpperCase().replace("|", " ") : t("An access");
  const late = Number(e.late_ms);
  const key = `${e.key}${e.db === 0 ? "" : ` (db ${e.db})`}`;
  return t("{who} touched {key}, {late} late: lazy expiry deleted it on access.", { who, key, late: formatTtl(late) });
}

/**
 * A stall in words (a big value freed on the main thread).
 * @param {StallEvent} e
 */
export function describeStall(e) {
  return t(
    "Freeing {key} ({cause}) held the main thread for {us}: nothing else was served meanwhile. CONFIG SET lazyfree-lazy-expire yes frees big values in the background.",
    { key: e.key, cause: e.cause, us: formatUs(e.us) },
  );
}

/**
 * The engine's reason for a round's decision (src/expire.rs writes it in English) in the page's
 * language; a reason of another shape is shown as the engine wrote it.
 * @param {string} reason
 */
export function reasonText(reason) {
  let m = /^time limit: (\d+) µs used of (\d+) µs$/.exec(reason);
  if (m) return t("time limit: {used} µs used of {limit} µs", { used: m[1], limit: m[2] });
  m = /^(\d+) of (\d+) expired: (more|not more) than 5 \(25%\)$/.exec(reason);
  if (m) {
    const vars = { expired: m[1], sampled: m[2] };
    return m[3] === "more" ? t("{expired} of {sampled} expired: more than 5 (25%)", vars) : t("{expired} of {sampled} expired: not more than 5 (25%)", vars);
  }
  m = /^(\d+) of (\d+) expired: (\d+)% \(whole percent\) (above|within) the acceptable (\d+)%$/.exec(reason);
  if (m) {
    const vars = { expired: m[1], sampled: m[2], whole: m[3], acceptable: m[5] };
    return m[4] === "above"
      ? t("{expired} of {sampled} expired: {whole}% (whole percent) above the acceptable {acceptable}%", vars)
      : t("{expired} of {sampled} expired: {whole}% (whole percent) within the acceptable {acceptable}%", vars);
  }
  if (reason === "no key examined: look again") return t("no key examined: look again");
  return reason;
}
