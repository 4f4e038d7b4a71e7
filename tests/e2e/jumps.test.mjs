// A jump takes as long as the work in it needs: idle time is free (+30 days on an empty engine
// lands within a second), and a jump over real work (100,000 keys with TTLs) runs in slices
// across frames with its progress shown, to the full distance asked.

import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, newPage, openPlayground, pause, settled, clockMs, cronTicks } from "./harness.mjs";

const START = 1735689600000;
const env = useBrowser();

/**
 * Jumps `seconds` with the clock bar's form and follows it frame by frame: how long it took
 * (real ms), the clock at each frame, whether the progress bar showed, the longest frame.
 */
function jumpAndWatch(seconds) {
  return new Promise((resolve) => {
    const clock = () => Number(document.querySelector("#clock-time").dataset.ms);
    const t0 = clock();
    const target = t0 + seconds * 1000;
    document.querySelector("#clock-jump-seconds").value = String(seconds);
    const start = performance.now();
    document.querySelector("#clock-jump").click();
    const seen = [];
    let progressShown = false;
    const progressValues = [];
    let last = start;
    let longest = 0;
    const frame = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      seen.push(clock() - t0);
      const bar = document.querySelector("#clock-progress");
      if (bar && !bar.hidden && bar.getClientRects().length > 0) {
        progressShown = true;
        progressValues.push(Number(bar.getAttribute("aria-valuenow")));
      }
      if (clock() >= target || now - start > 60_000) {
        resolve({ elapsed: now - start, reached: clock() - t0, seen, progressShown, progressValues, longest });
      } else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
}

test("+30 days on an idle engine lands within a second", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, `?seed=1&t=${START}`);
    await pause(page);
    await settled(page);
    const ticks0 = await cronTicks(page);
    const r = await page.evaluate(jumpAndWatch, 30 * 86_400);
    assert.equal(r.reached, 30 * 86_400_000);
    assert.ok(r.elapsed < 1000, `took ${Math.round(r.elapsed)} ms`);
    await settled(page);
    // Every tick of the 30 days ran (hz 10): 25,920,000, give or take the one the start sat on.
    const ran = (await cronTicks(page)) - ticks0;
    assert.ok(Math.abs(ran - 25_920_000) <= 1, `${ran} ticks`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("+3600 s over 100,000 keys with TTLs runs the whole hour in slices, with its progress shown", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, `?seed=1&t=${START}`);
    await pause(page);
    await settled(page);
    const made = await page.evaluate(async () => {
      const { pageParts } = await import("/www/main.js");
      const made = pageParts.engine.populate(0, 100_000, "k:", 1_000, 7_200_000, "uniform");
      pageParts.loop.wake();
      return made;
    });
    assert.equal(made, 100_000);
    await settled(page);
    const t0 = await clockMs(page);
    const r = await page.evaluate(jumpAndWatch, 3600);
    assert.equal(r.reached, 3_600_000, "the whole hour");
    assert.ok(r.progressShown, "the progress bar showed while the jump ran");
    const vals = r.progressValues;
    assert.ok(vals.every((v, i) => i === 0 || v >= vals[i - 1]), `progress only grows: ${vals.join(",")}`);
    // Slices: the clock moved over several frames, never backwards.
    assert.ok(r.seen.filter((v, i) => i > 0 && v > r.seen[i - 1]).length >= 2, "moved over several frames");
    assert.ok(r.seen.every((v, i) => i === 0 || v >= r.seen[i - 1]));
    // No freeze (a loaded machine can stall any one frame; the slicing itself is asserted above).
    assert.ok(r.longest < 750, `longest frame ${Math.round(r.longest)} ms`);
    await settled(page);
    assert.equal(await clockMs(page), t0 + 3_600_000);
    assert.equal(await page.evaluate(() => document.querySelector("#clock-progress").hidden), true, "the progress bar goes once done");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
