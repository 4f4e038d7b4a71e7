// @ts-check
// What a production dashboard would plot about expiry, from INFO alone, and the alert on it.
//
// A monitoring system does not see the expires table: it scrapes `INFO stats` and `INFO keyspace`
// every few seconds and plots counters as rates. This module is that scraper's model, on the
// virtual clock: samples of expired_keys, expired_stale_perc, expired_time_cap_reached_count,
// expire_cycle_cpu_milliseconds and the keys with a TTL (`expires=` of each db), the per-interval
// series the charts draw, and two rules evaluated over them:
//
//   - "throttled": expired_stale_perc (the cycle's running estimate of the share of dead keys
//     among those it samples) has stayed at or above a threshold at every scrape for a duration
//     (Prometheus' `FOR`), said with the evidence: the time-cap hits and the expiry rate meanwhile;
//   - the source article's rule (004: `rate(expired_keys[1m]) < 0.5 * rate(expired_keys[5m]
//     offset 1m)`), scaled to the same duration: the expired-keys rate fell below a share of the
//     rate before. It fires too when fewer keys are due (or none are left), which the first rule
//     does not; the lab shows both.
//
// Pure: no DOM, no engine. expiry-view.js reads INFO through its source (a peek, not counted as a
// command) and hands the parsed fields in; counters that go down (CONFIG RESETSTAT) count as a
// reset, as Prometheus' rate() does.

import { number } from "../format.js";
import { t } from "../i18n.js";

/** The scrape interval (virtual ms): at most one INFO read per this much virtual time. */
export const SCRAPE_MS = 1000;
/** Samples kept (a few hours at one a second is more than any span the charts offer). */
export const MAX_SAMPLES = 4000;
/** The rule's inputs as the page starts. */
export const DEFAULT_RULE = Object.freeze({ stalePercent: 15, forSeconds: 10, dropRatio: 0.5 });

/**
 * One scrape.
 * @typedef {{at: number, expiredKeys: number, stalePerc: number, capCount: number, cpuMs: number, expires: number, keys: number}} MonitorSample
 */
/** One cycle's or lazy expiry's share of the counters. @typedef {{at: number, expired: number, cpuUs: number, cap: number, stalePerc: number | null}} Activity */
/** @typedef {{stalePercent: number, forSeconds: number, dropRatio: number}} AlertRule */
/**
 * One interval between two scrapes, as a dashboard plots it: rates over the interval, levels at its end.
 * @typedef {{from: number, to: number, expiredPerSec: number, cpuMsPerSec: number, capHits: number, stalePerc: number,
 *            expires: number}} MonitorPoint
 */
/**
 * @typedef {object} AlertResult
 * @property {"firing" | "pending" | "ok" | "nodata"} state
 * @property {string} text        the sentence saying why
 * @property {number | null} since  virtual ms the condition has held since (pending, firing)
 * @property {{state: "firing" | "ok" | "nodata", text: string}} article  the article's rate-drop rule
 */

/**
 * A number from an INFO field (0 when missing or not a number).
 * @param {string | undefined} v
 */
const num = (v) => {
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
};

/**
 * The fields a dashboard reads, from `INFO stats keyspace` parsed (`{expired_keys: "46", db0: "keys=…"}`).
 * @param {Record<string, string>} info
 * @param {number} at  virtual ms
 * @returns {MonitorSample}
 */
export function sampleFromInfo(info, at) {
  let expires = 0;
  let keys = 0;
  for (const [field, value] of Object.entries(info)) {
    if (!/^db\d+$/.test(field)) continue;
    for (const part of String(value).split(",")) {
      const [k, v] = part.split("=");
      if (k === "expires") expires += num(v);
      else if (k === "keys") keys += num(v);
    }
  }
  return {
    at,
    expiredKeys: num(info.expired_keys),
    stalePerc: num(info.expired_stale_perc),
    capCount: num(info.expired_time_cap_reached_count),
    cpuMs: num(info.expire_cycle_cpu_milliseconds),
    expires,
    keys,
  };
}

/**
 * Whether to scrape now: nothing yet, the clock crossed a whole scrape interval, or it went back.
 * @param {readonly MonitorSample[]} samples
 * @param {number} now  virtual ms
 * @param {number} [everyMs]
 */
export function scrapeDue(samples, now, everyMs = SCRAPE_MS) {
  const last = samples[samples.length - 1];
  return last === undefined || now < last.at || Math.floor(now / everyMs) > Math.floor(last.at / everyMs);
}

/**
 * What a frame's events say about the INFO counters between scrapes: each expire cycle's keys,
 * CPU µs, time-cap hit and expired_stale_perc after it; each lazy expiry.
 * @param {readonly import("./engine-types.js").EngineEvent[]} events
 * @returns {Activity[]}
 */
export function activityOf(events) {
  /** @type {Activity[]} */
  const out = [];
  for (const e of events) {
    if (e.kind === "expire_cycle") {
      const r = e.report;
      out.push({ at: e.at_ms, expired: Number(r.expired) || 0, cpuUs: Number(r.time_used_us) || 0, cap: r.cap_reached ? 1 : 0, stalePerc: Number(r.stale_perc_after) });
    } else if (e.kind === "expired" && e.by === "lazy") {
      out.push({ at: e.at_ms, expired: 1, cpuUs: 0, cap: 0, stalePerc: null });
    }
  }
  return out;
}

/**
 * The scrapes a dashboard would have taken at each whole scrape interval crossed since `prev`,
 * reconstructed from INFO read at the end of the frame (`end`) and the frame's activity: a
 * counter at a scrape is its value at the end less what the cycles after the scrape added, and
 * expired_stale_perc the value the last cycle before it left. (The clock moves by whole `CLOCK
 * ADVANCE`s and frames, so INFO itself can only be read between them.) After the frame's last
 * cycle it is INFO's own (cron decays it with no cycle when no key has a TTL). Keys set or deleted by
 * commands inside the frame are counted at its end. At most `maxScrapes` (the interval widens).
 * @param {MonitorSample | null} prev  the last scrape
 * @param {MonitorSample} end          INFO at the end of the frame
 * @param {readonly Activity[]} activity  the frame's, oldest first
 * @param {{everyMs?: number, maxScrapes?: number, staleBefore?: number | null}} [o]  staleBefore: expired_stale_perc
 *   as the last cycle before this frame left it (default: the last scrape's)
 * @returns {MonitorSample[]}
 */
export function scrapesBetween(prev, end, activity, { everyMs = SCRAPE_MS, maxScrapes = 600, staleBefore = null } = {}) {
  if (prev === null || end.at < prev.at) return [{ ...end, at: Math.floor(end.at / everyMs) * everyMs }];
  const first = Math.floor(prev.at / everyMs) + 1;
  const last = Math.floor(end.at / everyMs);
  if (last < first) return [];
  const stride = Math.max(1, Math.ceil((last - first + 1) / maxScrapes));
  /** @type {MonitorSample[]} */
  const out = [];
  for (let k = last; k >= first; k -= stride) {
    const b = k * everyMs;
    let expired = 0;
    let cpuUs = 0;
    let caps = 0;
    /** @type {number | null} */
    let stale = null;
    let cycleAfter = false;
    for (const a of activity) {
      if (a.at > b) {
        expired += a.expired;
        cpuUs += a.cpuUs;
        caps += a.cap;
        if (a.stalePerc !== null) cycleAfter = true;
      } else if (a.stalePerc !== null) {
        stale = a.stalePerc;
      }
    }
    out.push({
      at: b,
      expiredKeys: Math.max(0, end.expiredKeys - expired),
      stalePerc: cycleAfter ? (stale ?? staleBefore ?? prev.stalePerc) : end.stalePerc,
      capCount: Math.max(0, end.capCount - caps),
      cpuMs: Math.max(0, end.cpuMs - Math.round(cpuUs / 1000)),
      expires: end.expires + expired,
      keys: end.keys + expired,
    });
  }
  return out.reverse();
}

/**
 * The samples with one more: a scrape at the same time replaces the last, one from the past
 * (the clock was set back) starts a new series.
 * @param {readonly MonitorSample[]} samples
 * @param {MonitorSample} sample
 * @returns {MonitorSample[]}
 */
export function addSample(samples, sample) {
  const last = samples[samples.length - 1];
  if (last !== undefined && sample.at < last.at) return [sample];
  const kept = last !== undefined && last.at === sample.at ? samples.slice(0, -1) : samples.slice();
  kept.push(sample);
  return kept.length > MAX_SAMPLES ? kept.slice(kept.length - MAX_SAMPLES / 2) : kept;
}

/**
 * A counter's increase between two scrapes; a counter that went down was reset (CONFIG RESETSTAT)
 * and counts from zero.
 * @param {number} before
 * @param {number} after
 */
export const counterDelta = (before, after) => (after >= before ? after - before : after);

/**
 * The intervals between consecutive scrapes.
 * @param {readonly MonitorSample[]} samples
 * @returns {MonitorPoint[]}
 */
export function seriesOf(samples) {
  /** @type {MonitorPoint[]} */
  const out = [];
  for (let i = 1; i < samples.length; i += 1) {
    const a = samples[i - 1];
    const b = samples[i];
    const secs = (b.at - a.at) / 1000;
    if (!(secs > 0)) continue;
    out.push({
      from: a.at,
      to: b.at,
      expiredPerSec: counterDelta(a.expiredKeys, b.expiredKeys) / secs,
      cpuMsPerSec: counterDelta(a.cpuMs, b.cpuMs) / secs,
      capHits: counterDelta(a.capCount, b.capCount),
      stalePerc: b.stalePerc,
      expires: b.expires,
    });
  }
  return out;
}

/**
 * The increase of a counter over [from, to] per second, from the scrapes (Prometheus' rate()
 * without extrapolation): from the last scrape at or before `from` to the last at or before `to`.
 * Null when no scrape is that old.
 * @param {readonly MonitorSample[]} samples
 * @param {"expiredKeys" | "cpuMs" | "capCount"} field
 * @param {number} from
 * @param {number} to
 * @returns {number | null}
 */
export function rateOver(samples, field, from, to) {
  let first = -1;
  let last = -1;
  for (let i = 0; i < samples.length; i += 1) {
    if (samples[i].at <= from) first = i;
    if (samples[i].at <= to) last = i;
  }
  if (first < 0 || last <= first) return null;
  let sum = 0;
  for (let i = first + 1; i <= last; i += 1) sum += counterDelta(samples[i - 1][field], samples[i][field]);
  const secs = (samples[last].at - samples[first].at) / 1000;
  return secs > 0 ? sum / secs : null;
}

/**
 * The rule's inputs from the form's text: numbers in range, or an error sentence.
 * @param {{stalePercent: string, forSeconds: string, dropRatio: string}} text
 * @returns {{ok: true, rule: AlertRule} | {ok: false, error: string}}
 */
export function parseRule(text) {
  const stale = Number(text.stalePercent);
  const forS = Number(text.forSeconds);
  const ratio = Number(text.dropRatio);
  if (String(text.stalePercent).trim() === "" || !(stale > 0 && stale <= 100)) return { ok: false, error: t("The stale threshold is a percentage above 0, at most 100.") };
  if (String(text.forSeconds).trim() === "" || !Number.isInteger(forS) || forS < 1 || forS > 3600) return { ok: false, error: t("The duration is a whole number of seconds from 1 to 3600.") };
  if (String(text.dropRatio).trim() === "" || !(ratio > 0 && ratio < 1)) return { ok: false, error: t("The drop ratio is a number between 0 and 1, such as 0.5.") };
  return { ok: true, rule: { stalePercent: stale, forSeconds: forS, dropRatio: ratio } };
}

/**
 * A rate for a sentence: "1,234/s", "0.4/s".
 * @param {number} v
 */
const perSec = (v) => (v >= 10 || v === 0 ? `${number(Math.round(v))}/s` : `${v.toFixed(1)}/s`);

/**
 * The article's rule over the scrapes: the rate of the last `forSeconds` against `dropRatio` of
 * the rate over the five durations before.
 * @param {readonly MonitorSample[]} samples
 * @param {AlertRule} rule
 * @param {number} now
 * @returns {AlertResult["article"]}
 */
export function articleRule(samples, rule, now) {
  const d = rule.forSeconds * 1000;
  const recent = rateOver(samples, "expiredKeys", now - d, now);
  const before = rateOver(samples, "expiredKeys", now - 6 * d, now - d);
  const vars = { s: rule.forSeconds, long: rule.forSeconds * 5, ratio: rule.dropRatio };
  if (recent === null || before === null) return { state: "nodata", text: t("The article's rule (expired/s over the last {s} s below {ratio} × the {long} s before): not enough scrapes yet.", vars) };
  const words = { ...vars, recent: perSec(recent), before: perSec(before) };
  return recent < rule.dropRatio * before
    ? { state: "firing", text: t("The article's rule fires: {recent} expired over the last {s} s, below {ratio} × the {before} of the {long} s before.", words) }
    : { state: "ok", text: t("The article's rule is quiet: {recent} expired over the last {s} s, {before} the {long} s before.", words) };
}

/**
 * The throttling alert: expired_stale_perc at or above the threshold at every scrape since
 * `since`, for at least `forSeconds`; with why, in a sentence.
 * @param {readonly MonitorSample[]} samples
 * @param {AlertRule} rule
 * @param {number} now  virtual ms (the article's rule is evaluated at it)
 * @returns {AlertResult}
 */
export function evaluateAlert(samples, rule, now) {
  const article = articleRule(samples, rule, now);
  const latest = samples[samples.length - 1];
  if (latest === undefined) return { state: "nodata", text: t("No INFO scrape yet: the monitor reads INFO once a virtual second while the clock moves."), since: null, article };
  const stale = latest.stalePerc.toFixed(2);
  if (latest.stalePerc < rule.stalePercent) {
    return { state: "ok", text: t("No alert: expired_stale_perc is {stale}%, under {threshold}%.", { stale, threshold: rule.stalePercent }), since: null, article };
  }
  // The first scrape of the run of scrapes at or above the threshold that ends with the latest.
  let first = samples.length - 1;
  while (first > 0 && samples[first - 1].stalePerc >= rule.stalePercent) first -= 1;
  const since = samples[first].at;
  const heldS = (latest.at - since) / 1000;
  const vars = { stale, threshold: rule.stalePercent, held: number(Math.round(heldS)), s: rule.forSeconds };
  if (heldS < rule.forSeconds) {
    return { state: "pending", text: t("Pending: expired_stale_perc is {stale}%, at or above {threshold}% for {held} s of the {s} s the rule needs.", vars), since, article };
  }
  // The evidence over the run: time-cap hits and the expiry rate (from the scrape before it, if any).
  const base = samples[Math.max(0, first - 1)];
  let capHits = 0;
  for (let i = samples.indexOf(base) + 1; i < samples.length; i += 1) capHits += counterDelta(samples[i - 1].capCount, samples[i].capCount);
  const rate = rateOver(samples, "expiredKeys", base.at, latest.at) ?? 0;
  const words = { ...vars, caps: number(capHits), rate: perSec(rate), expires: number(latest.expires) };
  const text =
    capHits > 0
      ? t(
          "Active expiry is throttled: expired_stale_perc has stayed at or above {threshold}% for {held} s (now {stale}%) and the cycle hit its time cap {caps} times meanwhile — it runs out of CPU budget before the dead keys are gone. {rate} expired; {expires} keys with a TTL, dead ones included.",
          words,
        )
      : t(
          "Active expiry is falling behind: expired_stale_perc has stayed at or above {threshold}% for {held} s (now {stale}%) without the time cap being hit — each cycle stops on its own while dead keys remain (active-expire-effort makes it go on longer). {rate} expired; {expires} keys with a TTL, dead ones included.",
          words,
        );
  return { state: "firing", text, since, article };
}
