// The views made on demand (playground.js VIEW_MODULES): the first screen does not fetch the
// expiry, eviction, persistence and delay-queue views nor the lab player; a view opened later
// shows what happened before it was opened (its tracker kept it: expiry-tracker.js and the like);
// a link that opens a view shows it at boot.

import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, newPage, openPlayground, runLine, pause, drained } from "./harness.mjs";

const START = 1735689600000; // 2025-01-01T00:00:00Z
const QUERY = `?seed=5&t=${START}`;
const env = useBrowser();

/** The modules a view made on demand brings (one each is enough to tell). */
const ON_DEMAND = ["www/views/expiry-view.js", "www/views/eviction-view.js", "www/views/persistence-view.js", "www/views/delay-queue-view.js", "www/labs/lab-player.js"];

/** Which of ON_DEMAND the page has fetched so far. */
async function fetched(page) {
  const names = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname));
  return ON_DEMAND.filter((m) => names.includes(`/${m}`));
}

test("the first screen fetches none of the views it does not show; opened later, each shows what happened before", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    assert.equal(await openPlayground(page, env.server.url, QUERY), "ready");
    await pause(page);
    assert.deepEqual(await fetched(page), []);
    assert.equal(await page.getAttribute("html", "data-panel-view"), "zset");

    // Writes, an active-expiry round, evictions and a refused write, all with those views unmade.
    for (const line of ["CONFIG SET appendonly yes", "SET seen:1 v", "SET short:1 v PX 100", "SET short:2 v PX 100", "CLOCK ADVANCE 2000"]) await runLine(page, line);
    for (const line of ["SET a 1", "SET b 2", "SET c 3", "CONFIG SET maxmemory-policy allkeys-lru", "CONFIG SET maxmemory 1"]) await runLine(page, line);
    assert.match((await runLine(page, "SET d 4")).out, /^\(error\) OOM /);
    await drained(page);
    assert.deepEqual(await fetched(page), []);
    const now = await page.textContent("#clock-time");

    // The persistence view: the stream from before, with the expired keys' DELs.
    await page.click("#tab-persistence");
    await page.waitForSelector("#persistence:not([hidden]) .persistence-row");
    const rows = await page.locator("#persistence .persistence-row .cmd").allTextContents();
    assert.ok(rows.includes("SET seen:1 v"), JSON.stringify(rows));
    assert.ok(rows.includes("DEL short:1") && rows.includes("DEL short:2"), JSON.stringify(rows));

    // The expiry view: the latest tick's cycle, drawn without the clock moving.
    await page.click("#tab-expiry");
    await page.waitForSelector("#expiry:not([hidden]) .tk-cycle");

    // The eviction view: the evictions and the OOM the console met.
    await page.click("#tab-eviction");
    await page.waitForFunction(() => Number(document.getElementById("eviction")?.dataset.evictions) > 0);
    assert.equal(await page.getAttribute("#eviction", "data-oom"), "true");
    assert.equal(await page.getAttribute("html", "data-panel-view"), "eviction");

    // The delay-queue lab: set up when first shown, as always.
    await page.click("#tab-delay-queue");
    await page.waitForFunction(() => document.querySelector("#delay-queue:not([hidden]) canvas") !== null);
    assert.deepEqual(await fetched(page), ON_DEMAND.filter((m) => !m.includes("lab-player")));
    assert.equal(await page.textContent("#clock-time"), now, "opening views moved no clock");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("a link that opens a view shows it at boot, and tab keys still walk every tab", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    assert.equal(await openPlayground(page, env.server.url, `${QUERY}#expiry`), "ready");
    // Made before boot ended: shown, with its controls, on the first screen.
    assert.equal(await page.getAttribute("html", "data-panel-view"), "expiry");
    assert.equal(await page.isVisible("#expiry #expiry-pop-go"), true);
    assert.equal(await page.isHidden("#zset"), true);
    assert.deepEqual(await fetched(page), ["www/views/expiry-view.js"]);

    await page.focus("#tab-expiry");
    const seen = [];
    for (let i = 0; i < 6; i += 1) {
      await page.keyboard.press("ArrowRight");
      const id = await page.evaluate(() => document.activeElement?.id);
      await page.waitForFunction((tab) => document.getElementById(tab)?.getAttribute("aria-selected") === "true", id);
      const panel = await page.getAttribute(`#${id}`, "aria-controls");
      await page.waitForSelector(`#${panel}:not([hidden])`, { state: "attached" });
      seen.push(id);
    }
    assert.deepEqual(seen, ["tab-eviction", "tab-delay-queue", "tab-persistence", "tab-keyspace", "tab-zset", "tab-expiry"]);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
