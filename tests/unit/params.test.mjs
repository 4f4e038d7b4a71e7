// The page's URL parameters (www/params.js): ?seed= and ?t=, bad values as sentences.

import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_CLOCK_MS, parseBootParams, parseSeed, parseStartTime } from "../../www/params.js";

test("parseSeed: whole numbers up to 2^53−1, nothing else", () => {
  assert.deepEqual(parseSeed(" 42 "), { ok: true, value: 42 });
  assert.deepEqual(parseSeed("0"), { ok: true, value: 0 });
  assert.deepEqual(parseSeed(String(Number.MAX_SAFE_INTEGER)), { ok: true, value: Number.MAX_SAFE_INTEGER });
  for (const bad of ["", "-1", "1.5", "1e3", "0x10", "9007199254740992", "12345678901234567", "seven"]) {
    assert.deepEqual(parseSeed(bad), { ok: false }, bad);
  }
});

test("parseStartTime: Unix ms or an ISO date, within the engine's clock range", () => {
  assert.deepEqual(parseStartTime("1735689600000"), { ok: true, value: 1_735_689_600_000 });
  assert.deepEqual(parseStartTime("2025-01-01"), { ok: true, value: Date.UTC(2025, 0, 1) });
  assert.deepEqual(parseStartTime("2025-01-01T12:30:00Z"), { ok: true, value: Date.UTC(2025, 0, 1, 12, 30) });
  assert.deepEqual(parseStartTime("2025-01-01 12:30:00+02:00"), { ok: true, value: Date.UTC(2025, 0, 1, 10, 30) });
  assert.deepEqual(parseStartTime(String(MAX_CLOCK_MS)), { ok: true, value: 2 ** 52 });
  for (const bad of ["", "tomorrow", "2025-13-01", "2025-1-1", String(MAX_CLOCK_MS + 1), "-5", "1e12"]) {
    assert.deepEqual(parseStartTime(bad), { ok: false }, bad);
  }
});

test("parseBootParams: given values are used and said to come from the URL", () => {
  const p = parseBootParams("?seed=7&t=2025-01-01", { nowMs: 123.9, randomSeed: () => 99 });
  assert.deepEqual(p, { seed: 7, startMs: Date.UTC(2025, 0, 1), seedFromUrl: true, startFromUrl: true, problems: [] });
});

test("parseBootParams: absent → a random seed and now (whole ms)", () => {
  assert.deepEqual(parseBootParams("", { nowMs: 123.9, randomSeed: () => 99 }), {
    seed: 99,
    startMs: 123,
    seedFromUrl: false,
    startFromUrl: false,
    problems: [],
  });
});

test("parseBootParams: bad values → the defaults and one sentence each, the value quoted and cut", () => {
  const long = "x".repeat(100);
  const p = parseBootParams(`?seed=${long}&t=soon`, { nowMs: 5, randomSeed: () => 1 });
  assert.equal(p.seed, 1);
  assert.equal(p.startMs, 5);
  assert.equal(p.problems.length, 2);
  assert.match(p.problems[0], /^Ignored seed="x{40}…": a seed is a whole number/);
  assert.match(p.problems[1], /^Ignored t="soon": the start time is Unix milliseconds/);
});
