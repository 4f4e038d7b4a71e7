// Screenshots of the page and two labs at laptop (1366×768) and phone (390×844) size, in
// test-results/, to look at as a person would (the phone ones are the whole scrolling page).
// Each is checked for the basics too: booted, nothing wider than the screen, no errors.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { useBrowser, newPage, openPlayground, pause, settled, REPO_ROOT } from "./harness.mjs";

const OUT = path.join(REPO_ROOT, "test-results");
const env = useBrowser();

const CASES = [
  { name: "page", query: "?seed=1&t=1735689600000", lines: ["ZADD board 3200 alice 2900 bob 4100 carol", "SET session:1 ada EX 1800", "HSET user:1 name Ada visits 10"], pick: "board" },
  { name: "lab-leaderboard", query: "?lab=leaderboard", run: 2 },
  { name: "lab-lock", query: "?lab=lock", run: 3 },
];

for (const [width, height] of [
  [1366, 768],
  [390, 844],
]) {
  for (const c of CASES) {
    for (const scheme of ["dark", "light"]) {
      const file = `${c.name}-${width}x${height}-${scheme}.png`;
      test(`screenshot test-results/${file}`, async () => {
        const { page, context, errors } = await newPage(env.browser, { viewport: { width, height } });
        try {
          await page.emulateMedia({ colorScheme: scheme });
          assert.equal(await openPlayground(page, env.server.url, c.query), "ready");
          await pause(page);
          for (const line of c.lines ?? []) {
            await page.fill("#console-input", line);
            await page.press("#console-input", "Enter");
          }
          if (c.pick) await page.click(`.keyspace-row[data-key="${c.pick}"]`);
          for (let i = 0; i < (c.run ?? 0); i += 1) {
            await page.click(".lab-run");
            await settled(page);
            if (i < c.run - 1) await page.click(".lab-next");
          }
          await settled(page);
          await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
          assert.ok((await page.evaluate(() => document.scrollingElement.scrollWidth)) <= width, "nothing wider than the screen");
          mkdirSync(OUT, { recursive: true });
          await page.screenshot({ path: path.join(OUT, file), fullPage: width < 500 });
          assert.deepEqual(errors, []);
        } finally {
          await context.close();
        }
      });
    }
  }
}
