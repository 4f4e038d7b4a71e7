// The persistence view in the page: the AOF turned on from the console, its files with their
// sizes, and the propagation stream — a relative TTL rewritten to an absolute PXAT, the DEL an
// active-expiry round propagates for a key nobody deleted, a lazy expiry's DEL inside the
// command that found it — plus screenshots at laptop and phone size (test-results/persistence-*.png).

import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, newPage, openPlayground, runLine, pause, drained, clockMs, screenshot } from "./harness.mjs";

const START = 1735689600000; // 2025-01-01T00:00:00Z
const QUERY = `?seed=3&t=${START}`;
const env = useBrowser();

/** The stream's rows as the view shows them, newest first. */
async function rows(page) {
  return page.locator("#persistence .persistence-row").evaluateAll((lis) =>
    lis.map((li) => ({
      cmd: li.querySelector(".cmd")?.textContent ?? "",
      origin: li.querySelector(".origin")?.textContent ?? "",
      why: li.querySelector(".why")?.textContent ?? "",
      rewritten: li.classList.contains("rewritten"),
    })),
  );
}

/** The file list: name → size text. */
async function files(page) {
  return page.locator("#persistence .persistence-file").evaluateAll((trs) =>
    Object.fromEntries(trs.map((tr) => [tr.querySelector(".name")?.textContent, tr.querySelector(".size")?.textContent])),
  );
}

for (const [label, viewport] of [
  ["laptop", { width: 1280, height: 800 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test(`the AOF and the propagation stream, shown as they happen (${label})`, async () => {
    const { page, context, errors } = await newPage(env.browser, { viewport });
    try {
      assert.equal(await openPlayground(page, env.server.url, QUERY), "ready");
      await pause(page);
      await page.click("#tab-persistence");
      await page.waitForSelector("#persistence:not([hidden]) .persistence-status");
      assert.match(await page.textContent("#persistence .persistence-status"), /^AOF off/);

      assert.equal((await runLine(page, "CONFIG SET appendonly yes")).out, "OK\n");
      // The first rewrite writes the base file when cron sees its child done.
      await runLine(page, "CLOCK ADVANCE 1000");
      await drained(page);
      const now = await clockMs(page);
      assert.equal((await runLine(page, "SET session:1 v EX 2")).out, "OK\n");
      await runLine(page, "SET cart:9 x PX 100");
      await drained(page);
      await page.waitForFunction(() => document.querySelector("#persistence")?.dataset.aof === "on");
      const f = await files(page);
      assert.ok("appendonly.aof.manifest" in f, JSON.stringify(f));
      assert.ok("appendonly.aof.1.base.rdb" in f, JSON.stringify(f));
      assert.match(f["appendonly.aof.1.incr.aof"] ?? "", /^\d+ B$/, JSON.stringify(f));

      let r = await rows(page);
      const pxat = now + 2000;
      assert.equal(r[1].cmd, `SET session:1 v PXAT ${pxat}`);
      assert.equal(r[1].rewritten, true);
      assert.match(r[1].why, /rewritten from client \d+: SET session:1 v EX 2/);

      // cart:9 has expired: GET finds it (lazy expiry: a DEL, from the active cycle or not).
      await runLine(page, "CLOCK ADVANCE 5000");
      await drained(page);
      r = await rows(page);
      const dels = r.filter((x) => x.cmd === "DEL session:1" || x.cmd === "DEL cart:9");
      assert.equal(dels.length, 2, JSON.stringify(r));
      for (const d of dels) assert.equal(d.origin, "active expiry");

      // Found dead by a command before any tick did: lazy expiry's DEL, from that command.
      await runLine(page, "SET flash:2 x PX 10");
      await runLine(page, "CLOCK ADVANCE 20");
      assert.equal((await runLine(page, "GET flash:2")).out, "(nil)\n");
      await drained(page);
      r = await rows(page);
      assert.equal(r[0].cmd, "DEL flash:2");
      assert.equal(r[0].origin, "lazy expiry");
      assert.match(r[0].why, /found expired by client \d+: GET flash:2/);

      // A hostile key name is text, not markup.
      await runLine(page, 'SET "<img src=x onerror=alert(1)>" 1');
      await drained(page);
      r = await rows(page);
      assert.equal(r[0].cmd, 'SET "<img src=x onerror=alert(1)>" 1');
      assert.equal(await page.locator("#persistence img").count(), 0);

      await screenshot(page, `persistence-${label}.png`);
      await screenshot(page.locator("#persistence"), `persistence-panel-${label}.png`);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}
