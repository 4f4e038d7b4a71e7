// The expiry view's INFO monitor in the page: the tuning-expiry lab's monitoring steps make the
// throttling alert fire (20,000 carts at the defaults: expired_stale_perc stays above 15%) and
// clear (the same carts with active-expire-effort 10), and the article's rate-drop rule fire
// once every cart is gone while the stale alert stays quiet; a threshold typed in the rule's input is
// applied at once, and a bad one is refused with a sentence. In zh-CN, with the screenshots
// test-results/expiry-monitor-zh-{laptop,phone}.png.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { useBrowser, REPO_ROOT, newPage, openPlayground, screenshot } from "./harness.mjs";

const env = useBrowser();
const lab = JSON.parse(await readFile(path.join(REPO_ROOT, "www/labs/data/tuning-expiry.json"), "utf8"));
const FIRE = lab.steps.findIndex((s) => s.title.startsWith("Monitoring"));

/** Runs the lab's steps up to `n` (0-based) in order, as a learner would: the notices' numbers are for that run. */
async function runStep(page, n) {
  for (;;) {
    const at = Number(await page.getAttribute(".lab-player", "data-step"));
    if ((await page.getAttribute(".lab-player", "data-ran")) !== "true") {
      await page.click(".lab-run");
      await page.waitForSelector('.lab-player[data-ran="true"]');
    }
    if (at >= n) return;
    await page.click(".lab-next");
  }
}

/** The alert's state once the monitor has drawn the scrapes up to now. */
async function alertState(page) {
  await page.waitForFunction(() => Number(document.getElementById("expiry-monitor")?.dataset.samples ?? 0) > 0);
  return page.getAttribute("#expiry-alert", "data-state");
}

for (const [name, viewport] of [
  ["laptop", { width: 1280, height: 800 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test(`monitor (${name}, zh-CN): the alert fires at the defaults and clears with active-expire-effort 10`, async () => {
    assert.ok(FIRE > 0, "the lab has its monitoring step");
    const { page, errors } = await newPage(env.browser, { viewport });
    assert.equal(await openPlayground(page, env.server.url, "?lab=tuning-expiry&lang=zh-CN"), "ready");
    await runStep(page, FIRE);
    await page.waitForFunction(() => document.getElementById("expiry-alert")?.dataset.state === "firing", null, { timeout: 30_000 });
    const text = await page.textContent("#expiry-alert");
    assert.match(text, /定期删除跟不上了|定期删除被限流了/);
    assert.match(text, /expired_stale_perc/);
    // The threshold is an input: at 90% the same scrapes raise nothing; back at 15 it fires again.
    await page.fill("#expiry-alert-stale", "90");
    await page.waitForFunction(() => document.getElementById("expiry-alert")?.dataset.state === "ok");
    await page.fill("#expiry-alert-stale", "0");
    await page.waitForFunction(() => (document.getElementById("expiry-alert-message")?.textContent ?? "").length > 5);
    assert.equal(await page.getAttribute("#expiry-alert", "data-state"), "ok", "a refused input keeps the last good rule");
    await page.fill("#expiry-alert-stale", "15");
    await page.waitForFunction(() => document.getElementById("expiry-alert")?.dataset.state === "firing");
    assert.equal(await page.textContent("#expiry-alert-message"), "");
    await page.locator("#expiry-monitor").scrollIntoViewIfNeeded();
    await screenshot(page, `expiry-monitor-zh-${name}.png`);
    // Same carts, effort 10: expired_stale_perc stays under the threshold.
    await runStep(page, FIRE + 1);
    await page.waitForFunction(() => document.getElementById("expiry-alert")?.dataset.state === "ok", null, { timeout: 30_000 });
    assert.match(await page.textContent("#expiry-alert"), /无告警/);
    assert.equal(await alertState(page), "ok");
    // A minute later every cart is gone: the article's rate-drop rule fires, the stale alert does not.
    await page.evaluate(async () => {
      const { pageParts } = await import("/www/main.js");
      pageParts.loop.advanceBy(60_000);
    });
    await page.waitForFunction(() => document.getElementById("expiry-alert-article")?.dataset.state === "firing");
    assert.equal(await page.getAttribute("#expiry-alert", "data-state"), "ok");
    assert.match(await page.textContent("#expiry-alert-article"), /原文的规则触发了/);
    // Nothing overflows the phone's width.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
