// Unit tests of the expiry monitor's model (www/views/expiry-monitor-model.js): INFO parsed into
// scrapes, scrapes filled in from a frame's cycle reports, the series a dashboard plots, and the
// throttling alert and the source article's rate-drop rule. Pure: no DOM, no engine.

import { test } from "node:test";
import assert from "node:assert/strict";

import * as m from "../../www/views/expiry-monitor-model.js";

const RULE = { stalePercent: 15, forSeconds: 10, dropRatio: 0.5 };

/** A scrape at `at` s with the given fields (counters default to 0). */
const sample = (at, o = {}) => ({ at: at * 1000, expiredKeys: 0, stalePerc: 0, capCount: 0, cpuMs: 0, expires: 0, keys: 0, ...o });

/** Scrapes once a second from `from` s: stale % and the expired counter from functions of the second. */
function run(from, to, stale, expired = () => 0, cap = () => 0) {
  let out = [];
  for (let s = from; s <= to; s += 1) out = m.addSample(out, sample(s, { stalePerc: stale(s), expiredKeys: expired(s), capCount: cap(s) }));
  return out;
}

test("INFO stats and keyspace become a scrape: counters, stale %, and keys with a TTL summed over the dbs", () => {
  const info = {
    expired_keys: "46",
    expired_stale_perc: "23.09",
    expired_time_cap_reached_count: "3",
    expire_cycle_cpu_milliseconds: "49",
    db0: "keys=53067,expires=53000,avg_ttl=10798",
    db3: "keys=10,expires=4,avg_ttl=1",
  };
  assert.deepEqual(m.sampleFromInfo(info, 5000), { at: 5000, expiredKeys: 46, stalePerc: 23.09, capCount: 3, cpuMs: 49, expires: 53004, keys: 53077 });
  assert.deepEqual(m.sampleFromInfo({}, 1), { at: 1, expiredKeys: 0, stalePerc: 0, capCount: 0, cpuMs: 0, expires: 0, keys: 0 });
});

test("a scrape is due when the clock crosses a whole second, or goes back", () => {
  assert.equal(m.scrapeDue([], 1234), true);
  const s = [sample(1)];
  assert.equal(m.scrapeDue(s, 1999), false);
  assert.equal(m.scrapeDue(s, 2000), true);
  assert.equal(m.scrapeDue(s, 500), true);
  // A scrape from the past starts a new series; one at the same time replaces the last.
  assert.deepEqual(m.addSample(s, sample(0.5)), [sample(0.5)]);
  assert.deepEqual(m.addSample(s, sample(1, { expiredKeys: 9 })), [sample(1, { expiredKeys: 9 })]);
});

test("a frame's cycles fill in the scrapes between two INFO reads", () => {
  const prev = sample(10, { expiredKeys: 100, stalePerc: 5, cpuMs: 10, expires: 1000, keys: 1000 });
  const end = sample(13.5, { expiredKeys: 400, stalePerc: 30, capCount: 2, cpuMs: 13, expires: 700, keys: 700 });
  end.at = 13_500;
  const activity = [
    { at: 11_000, expired: 100, cpuUs: 1000, cap: 0, stalePerc: 10 },
    { at: 12_000, expired: 100, cpuUs: 1000, cap: 1, stalePerc: 20 },
    { at: 12_500, expired: 1, cpuUs: 0, cap: 0, stalePerc: null },
    { at: 13_200, expired: 99, cpuUs: 1000, cap: 1, stalePerc: 30 },
  ];
  const got = m.scrapesBetween(prev, end, activity);
  assert.deepEqual(
    got.map((s) => [s.at, s.expiredKeys, s.stalePerc, s.capCount, s.cpuMs, s.expires]),
    [
      [11_000, 200, 10, 0, 11, 900],
      [12_000, 300, 20, 1, 12, 800],
      [13_000, 301, 20, 1, 12, 799],
    ],
  );
  // After the frame's last cycle, expired_stale_perc is INFO's at the end (cron decays it without a cycle).
  assert.equal(m.scrapesBetween(prev, { ...end, at: 14_500, stalePerc: 0 }, activity).at(-1)?.stalePerc, 0);
  // Nothing crossed: nothing to add; the first read is a scrape of its own, on the second.
  assert.deepEqual(m.scrapesBetween(sample(13), { ...end, at: 13_900 }, []), []);
  assert.deepEqual(m.scrapesBetween(null, end, activity).map((s) => s.at), [13_000]);
  // A long jump is thinned to at most maxScrapes.
  assert.ok(m.scrapesBetween(sample(0), sample(100_000), [], { maxScrapes: 50 }).length <= 50);
});

test("the series: rates over each interval, a counter reset counts from zero", () => {
  const s = [sample(0, { expiredKeys: 100, cpuMs: 5 }), sample(2, { expiredKeys: 300, cpuMs: 9, capCount: 2, stalePerc: 12, expires: 50 }), sample(3, { expiredKeys: 40 })];
  assert.deepEqual(m.seriesOf(s), [
    { from: 0, to: 2000, expiredPerSec: 100, cpuMsPerSec: 2, capHits: 2, stalePerc: 12, expires: 50 },
    { from: 2000, to: 3000, expiredPerSec: 40, cpuMsPerSec: 0, capHits: 0, stalePerc: 0, expires: 0 },
  ]);
  assert.equal(m.rateOver(s, "expiredKeys", 0, 3000), (200 + 40) / 3);
  assert.equal(m.rateOver(s, "expiredKeys", -1000, 3000), null);
});

test("the alert: pending while stale % is high for less than the duration, firing after, ok when it drops", () => {
  const high = run(0, 20, (s) => (s >= 5 ? 25 : 3), (s) => s * 100);
  const at = (n) => high.slice(0, n + 1);
  assert.equal(m.evaluateAlert([], RULE, 0).state, "nodata");
  assert.equal(m.evaluateAlert(at(4), RULE, 4000).state, "ok");
  const pending = m.evaluateAlert(at(9), RULE, 9000);
  assert.equal(pending.state, "pending");
  assert.match(pending.text, /for 4 s of the 10 s/);
  const firing = m.evaluateAlert(at(15), RULE, 15_000);
  assert.equal(firing.state, "firing");
  assert.equal(firing.since, 5000);
  assert.match(firing.text, /falling behind.*for 10 s \(now 25\.00%\) without the time cap/);
  assert.match(firing.text, /100\/s expired/);
  // The threshold is an input: at 30% the same scrapes raise nothing.
  assert.equal(m.evaluateAlert(at(15), { ...RULE, stalePercent: 30 }, 15_000).state, "ok");
  // It clears at the first scrape under the threshold.
  const cleared = m.addSample(at(15), sample(16, { stalePerc: 14.99, expiredKeys: 1600 }));
  assert.equal(m.evaluateAlert(cleared, RULE, 16_000).state, "ok");
});

test("the alert names the time cap when the cycle hit it", () => {
  const s = run(0, 12, () => 40, (x) => x * 10, (x) => x * 3);
  const r = m.evaluateAlert(s, RULE, 12_000);
  assert.equal(r.state, "firing");
  assert.match(r.text, /throttled.*hit its time cap 36 times/);
});

test("the article's rule fires when the expired rate drops — also when nothing is left to expire", () => {
  // 100/s for a minute, then nothing (every key gone): stale % is 0, the throttling alert is quiet.
  const s = run(0, 70, () => 0, (x) => Math.min(x, 60) * 100);
  const r = m.evaluateAlert(s, RULE, 70_000);
  assert.equal(r.state, "ok");
  assert.equal(r.article.state, "firing");
  assert.match(r.article.text, /0\/s expired over the last 10 s, below 0\.5 × the 100\/s of the 50 s before/);
  assert.equal(m.evaluateAlert(s, RULE, 62_000).article.state, "ok");
  assert.equal(m.evaluateAlert(s.slice(0, 30), RULE, 29_000).article.state, "nodata");
});

test("the rule's inputs are parsed or refused with a sentence", () => {
  assert.deepEqual(m.parseRule({ stalePercent: "15", forSeconds: "10", dropRatio: "0.5" }), { ok: true, rule: RULE });
  for (const bad of [{ stalePercent: "0" }, { stalePercent: "" }, { forSeconds: "1.5" }, { forSeconds: "0" }, { dropRatio: "1" }, { dropRatio: "x" }]) {
    const r = m.parseRule({ stalePercent: "15", forSeconds: "10", dropRatio: "0.5", ...bad });
    assert.equal(r.ok, false, JSON.stringify(bad));
    assert.ok(!r.ok && r.error.length > 10);
  }
});

test("a frame's events become activity: cycles and lazy expiries only", () => {
  const events = [
    { kind: "expire_cycle", at_ms: 5, report: { expired: 7, time_used_us: 900, cap_reached: true, stale_perc_after: 12.5 } },
    { kind: "expired", at_ms: 6, by: "lazy" },
    { kind: "expired", at_ms: 7, by: "active" },
    { kind: "cron", at_ms: 8 },
  ];
  assert.deepEqual(m.activityOf(/** @type {any} */ (events)), [
    { at: 5, expired: 7, cpuUs: 900, cap: 1, stalePerc: 12.5 },
    { at: 6, expired: 1, cpuUs: 0, cap: 0, stalePerc: null },
  ]);
});
