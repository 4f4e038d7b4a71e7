// The virtual clock and its controls: pause really stops it (and the page stops redrawing),
// step runs exactly to the next cron tick, jump lets a PX key expire without waiting, speed speeds
// up, bad input and bad URL parameters give clear messages.

import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, newPage, openPlayground, runLine, lastEntry, clockMs, cronTicks, pause, frames, settled, clickReset } from "./harness.mjs";

const START = 1735689600000; // 2025-01-01T00:00:00Z
const QUERY = `?seed=11&t=${START}`;

const env = useBrowser();

/** Waits until the page's clock shows exactly `ms`. */
async function waitForClock(page, ms) {
  await page.waitForFunction((ms) => document.querySelector("#clock-time")?.dataset.ms === String(ms), ms);
}

test("the clock runs at 1× by default, and pause stops it and the redrawing", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    const t0 = await clockMs(page);
    await page.waitForFunction((t0) => Number(document.querySelector("#clock-time").dataset.ms) > t0, t0);

    await pause(page);
    await settled(page);
    const paused = await clockMs(page);
    // Nothing in the clock bar may change while paused: count DOM mutations over some frames.
    await page.evaluate(() => {
      const target = document.getElementById("clock");
      const seen = { count: 0 };
      new MutationObserver((records) => (seen.count += records.length)).observe(target, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
      target.mutationsSeen = seen;
    });
    await frames(page, 20);
    assert.equal(await clockMs(page), paused);
    assert.equal(await page.evaluate(() => document.getElementById("clock").mutationsSeen.count), 0);
    // The engine's own clock agrees.
    assert.equal((await runLine(page, "CLOCK GET")).out, `(integer) ${paused}\n`);

    // Play again: time moves again.
    await page.click("#clock-play");
    await page.waitForFunction((p) => Number(document.querySelector("#clock-time").dataset.ms) > p, paused);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("step advances to the next cron tick (one cron period once on a tick) and runs one tick", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await pause(page);
    // hz 10 → 100 ms per serverCron run.
    assert.equal((await runLine(page, "CONFIG GET hz")).out, '1) "hz"\n2) "10"\n');
    assert.match(await page.textContent("#clock-hz"), /every 100 ms/);
    const ticks0 = await cronTicks(page);
    // Paused between two ticks, the first step goes to the next one (the button says how far):
    // ticks fall every 100 ms from the start.
    const t0 = await clockMs(page);
    const next = START + Math.floor((t0 - START) / 100) * 100 + 100;
    assert.equal(await page.textContent("#clock-step"), `Step 1 tick (+${next - t0} ms)`);

    await page.click("#clock-step");
    await waitForClock(page, next);
    await page.waitForFunction((n) => document.querySelector("#clock-cron").dataset.ticks === String(n), ticks0 + 1);

    await page.click("#clock-step");
    await waitForClock(page, next + 100);
    await page.waitForFunction((n) => document.querySelector("#clock-cron").dataset.ticks === String(n), ticks0 + 2);

    // Still paused, and the engine agrees with the page.
    assert.match(await page.textContent("#clock-play"), /Play/);
    assert.equal((await runLine(page, "CLOCK GET")).out, `(integer) ${next + 100}\n`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("step pauses a running clock first", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await page.click("#clock-step");
    await page.waitForFunction(() => document.querySelector("#clock-play").textContent.includes("Play"));
    await settled(page); // the step ran
    const t = await clockMs(page);
    await frames(page, 10);
    assert.equal(await clockMs(page), t);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("jump +30 s lets a key set with PX 1500 expire", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await pause(page);
    await runLine(page, "SET k v PX 1500");
    assert.equal((await runLine(page, "PTTL k")).out, "(integer) 1500\n");
    const t0 = await clockMs(page);

    assert.equal(await page.inputValue("#clock-jump-seconds"), "30");
    await page.click("#clock-jump");
    await waitForClock(page, t0 + 30_000);

    assert.equal((await runLine(page, "GET k")).out, "(nil)\n");
    assert.equal((await runLine(page, "TTL k")).out, "(integer) -2\n");
    assert.equal((await runLine(page, "CLOCK GET")).out, `(integer) ${t0 + 30_000}\n`);
    // The engine reported the expiry, and the page counted it.
    await page.waitForFunction(() => document.querySelector("#clock-expired").textContent === "expired 1");
    // 300 cron runs at hz 10.
    assert.ok((await cronTicks(page)) >= 300);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("jumps land on the exact millisecond: PX 1500 is alive at +1.5 s and gone at +1.501 s", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await pause(page);
    await runLine(page, "SET k v PX 1500");
    const t0 = await clockMs(page);
    await page.fill("#clock-jump-seconds", "1");
    await page.click("#clock-jump");
    await waitForClock(page, t0 + 1000);
    assert.equal((await runLine(page, "PTTL k")).out, "(integer) 500\n");
    await page.fill("#clock-jump-seconds", "0.5");
    await page.click("#clock-jump");
    await waitForClock(page, t0 + 1500);
    // Redis deletes a key only once now > its expire time (db.c keyIsExpired).
    assert.equal((await runLine(page, "PTTL k")).out, "(integer) 0\n");
    assert.equal((await runLine(page, "GET k")).out, '"v"\n');
    await page.fill("#clock-jump-seconds", "0.001");
    await page.click("#clock-jump");
    await waitForClock(page, t0 + 1501);
    assert.equal((await runLine(page, "GET k")).out, "(nil)\n");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("invalid jump input gets a clear message and does not move the clock", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await pause(page);
    const t0 = await clockMs(page);
    for (const bad of ["abc", "-5", "0", "1e3", ""]) {
      await page.fill("#clock-jump-seconds", bad);
      await page.click("#clock-jump");
      await page.waitForFunction(() => document.querySelector("#clock-jump-error").textContent !== "");
      assert.match(await page.textContent("#clock-jump-error"), /Enter (a number of seconds|between)/, `for ${JSON.stringify(bad)}`);
      assert.equal(await page.getAttribute("#clock-jump-seconds", "aria-invalid"), "true");
    }
    await page.fill("#clock-jump-seconds", "99999999999");
    await page.click("#clock-jump");
    assert.match(await page.textContent("#clock-jump-error"), /one year/);
    await frames(page, 3);
    assert.equal(await clockMs(page), t0);
    // Typing again clears the message; a valid value jumps.
    await page.fill("#clock-jump-seconds", "2");
    assert.equal(await page.textContent("#clock-jump-error"), "");
    await page.click("#clock-jump");
    await waitForClock(page, t0 + 2000);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("speed 3600× runs an hour of virtual time per real second", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await runLine(page, "SET session alive EX 60");
    const t0 = await clockMs(page);
    const real0 = Date.now();
    await page.selectOption("#clock-speed", "3600");
    // A minute of virtual time needs ~17 ms of real time at 3600×; allow generous slack.
    await page.waitForFunction((t0) => Number(document.querySelector("#clock-time").dataset.ms) > t0 + 61_000, t0);
    assert.ok(Date.now() - real0 < 5000, "a virtual minute took more than 5 real seconds");
    assert.equal((await runLine(page, "GET session")).out, "(nil)\n");
    assert.match(await page.textContent("#clock-lag"), /^lag 0 ms$/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("a hidden tab stops the clock; it resumes when visible again", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    const setHidden = (hidden) =>
      page.evaluate((hidden) => {
        Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
        document.dispatchEvent(new Event("visibilitychange"));
      }, hidden);
    await setHidden(true);
    await settled(page); // the frame already scheduled runs, sees the tab hidden, stops
    const t = await clockMs(page);
    await frames(page, 15);
    assert.equal(await clockMs(page), t);
    await setHidden(false);
    await page.waitForFunction((t) => Number(document.querySelector("#clock-time").dataset.ms) > t, t);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("when a frame needs more cron runs than its budget, the lag is shown", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    // hz 500 at 3600×: 30,000 serverCron runs per 60 fps frame, over the 10,000 budget.
    assert.equal((await runLine(page, "CONFIG SET hz 500")).out, "OK\n");
    await page.selectOption("#clock-speed", "3600");
    await page.waitForSelector("#clock-lag.is-lagging");
    assert.match(await page.textContent("#clock-lag"), /^lag \d+(\.\d)? (ms|s|min|h)$/);
    assert.match(await page.textContent("#clock-hz"), /hz 500 · every 2 ms/);
    // Back to 1×: the engine keeps up again.
    await page.selectOption("#clock-speed", "1");
    await page.waitForSelector("#clock-lag:not(.is-lagging)");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("reset gives a fresh engine: no keys, clock back at the start, db 0", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await pause(page);
    await runLine(page, "SELECT 3");
    await runLine(page, "SET x 1");
    await page.click("#clock-jump");
    await page.waitForFunction((t) => Number(document.querySelector("#clock-time").dataset.ms) >= t, START + 30_000);
    await clickReset(page);
    await page.waitForFunction((t) => document.querySelector("#clock-time").dataset.ms === String(t), START);
    assert.match((await lastEntry(page)).notes.join(" "), /reset: a fresh engine with seed 11/);
    assert.equal(await page.textContent(".input-line .prompt"), "127.0.0.1:6379> ");
    assert.equal((await runLine(page, "SELECT 3")).out, "OK\n");
    assert.equal((await runLine(page, "GET x")).out, "(nil)\n");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("bad ?seed= and ?t= give a clear message (as text) and the page still boots", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    const hostile = "<img src=x onerror=alert(1)>";
    const query = `?seed=banana&t=${encodeURIComponent(hostile)}`;
    assert.equal(await openPlayground(page, env.server.url, query), "ready");
    const notices = await page.locator(".notice").allTextContents();
    assert.equal(notices.length, 2, notices.join(" | "));
    assert.match(notices[0], /Ignored seed="banana": a seed is a whole number/);
    assert.ok(notices[1].includes(`Ignored t="${hostile}"`), notices[1]);
    assert.equal(await page.locator("img").count(), 0);
    // Defaults were used: a random seed and a clock near the real time.
    const now = await clockMs(page);
    assert.ok(Math.abs(now - Date.now()) < 60_000, `clock ${now} is not near now`);
    assert.equal((await runLine(page, "SET a 1")).out, "OK\n");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("?t= accepts an ISO date, and the same ?seed= gives the same engine", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    const runId = async (query) => {
      await openPlayground(page, env.server.url, query);
      return /run_id:(\w+)/.exec((await runLine(page, "INFO server")).out)[1];
    };
    const first = await runId("?seed=5&t=2030-06-01T12:00:00Z");
    await pause(page);
    assert.match(await page.textContent("#clock-time"), /^2030-06-01 12:00:0\d\.\d{3} UTC$/);
    assert.match(await page.textContent(".scrollback"), /Seed 5\b/);
    assert.equal(await runId("?seed=5"), first);
    assert.notEqual(await runId("?seed=6"), first);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
