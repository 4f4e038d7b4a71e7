// Accessibility, checked by axe-core (npm, pinned): no serious or critical violation on the
// page, on every lab, on docs/index.html (its widgets started) and on a widget with every view,
// in the dark and the light theme. Colour contrast (WCAG AA) is one of the rules.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { useBrowser, newPage, openPlayground, pause, settled } from "./harness.mjs";

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const ROOT = new URL("../../", import.meta.url);
const labs = JSON.parse(readFileSync(new URL("www/labs/data/index.json", ROOT), "utf8")).labs;

const env = useBrowser();

/** axe's serious and critical violations on the page, one line each (rule, impact, where, why). */
async function violations(page) {
  await page.addScriptTag({ content: AXE });
  const result = await page.evaluate(async () => {
    // axe is a global the script tag defined.
    const axe = window.axe;
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 4).map((n) => `${n.target.join(" ")} — ${n.failureSummary.split("\n").slice(1, 2).join(" ").trim()}`),
      count: v.nodes.length,
    }));
  });
  return result
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}, ${v.count}×): ${v.nodes.join(" | ")}`);
}

for (const scheme of ["dark", "light"]) {
  test(`axe: the page (${scheme})`, async () => {
    const { page, context } = await newPage(env.browser);
    try {
      await page.emulateMedia({ colorScheme: scheme });
      await openPlayground(page, env.server.url, "?seed=1&t=1735689600000");
      await pause(page);
      // Something in every part: keys, a sorted set on show, a line with an error.
      await page.fill("#console-input", "ZADD board 1 a 2 b 3 c");
      await page.press("#console-input", "Enter");
      await page.fill("#console-input", "NOSUCHCOMMAND");
      await page.press("#console-input", "Enter");
      await page.click('.keyspace-row[data-key="board"]');
      await settled(page);
      assert.deepEqual(await violations(page), []);
      for (const view of ["keyspace", "expiry", "eviction", "delay-queue"]) {
        await page.click(`#tab-${view}`);
        await settled(page);
        if (view === "delay-queue") await page.waitForSelector('#delay-queue td[data-metric="tasks"]');
        assert.deepEqual(await violations(page), [], `with the ${view} tab`);
      }
    } finally {
      await context.close();
    }
  });

  test(`axe: every lab (${scheme})`, async () => {
    const { page, context } = await newPage(env.browser);
    try {
      await page.emulateMedia({ colorScheme: scheme });
      const found = [];
      for (const id of labs) {
        await openPlayground(page, env.server.url, `?lab=${id}`);
        await settled(page);
        // The first step run, so its output and notice are checked too.
        if (await page.isEnabled(".lab-run")) await page.click(".lab-run");
        await settled(page);
        for (const v of await violations(page)) found.push(`${id}: ${v}`);
      }
      assert.deepEqual(found, []);
    } finally {
      await context.close();
    }
  });

  test(`axe: docs/index.html with its widgets started (${scheme})`, async () => {
    const { page, context } = await newPage(env.browser, { viewport: { width: 1200, height: 900 } });
    try {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${env.server.url}/docs/index.html`);
      await page.waitForSelector("html[data-docs=ready]", { state: "attached" });
      for (const w of await page.$$(".example redis-playground")) {
        await w.scrollIntoViewIfNeeded();
        await page.waitForFunction((el) => ["ready", "failed"].includes(el.dataset.state), w);
      }
      assert.deepEqual(await violations(page), []);
    } finally {
      await context.close();
    }
  });

  test(`axe: a widget with every view and a lab (${scheme})`, async () => {
    const { page, context } = await newPage(env.browser, { viewport: { width: 1300, height: 900 } });
    try {
      await page.emulateMedia({ colorScheme: scheme });
      const url = `${env.server.url}/tests/e2e/a11y-widget.html`;
      await page.route(url, (route) =>
        route.fulfill({
          contentType: "text/html; charset=utf-8",
          body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>widgets</title><link rel="icon" href="data:,"></head><body><main>
            <redis-playground id="all" views="console clock keyspace zset expiry eviction delay-queue" seed="3" autorun commands="ZADD board 1 a 2 b; SET k v EX 100"></redis-playground>
            <redis-playground id="lab" lab="leaderboard"></redis-playground>
          </main><script type="module" src="/www/widget.js"></script></body></html>`,
        }),
      );
      await page.goto(url);
      await page.waitForFunction(() => customElements.get("redis-playground") !== undefined);
      for (const id of ["all", "lab"]) {
        await page.locator(`#${id}`).scrollIntoViewIfNeeded();
        await page.waitForFunction((sel) => ["ready", "failed"].includes(document.querySelector(sel)?.dataset.state), `#${id}`);
        assert.equal(await page.getAttribute(`#${id}`, "data-state"), "ready");
      }
      assert.deepEqual(await violations(page), []);
    } finally {
      await context.close();
    }
  });
}

test("the views' pictures are described in words: every canvas has a text alternative, the skiplist's says what it shows", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, "?seed=1&t=1735689600000");
    await pause(page);
    const members = Array.from({ length: 200 }, (_, i) => `${i} m${i}`).join(" ");
    await page.fill("#console-input", `ZADD big ${members}`);
    await page.press("#console-input", "Enter");
    await page.click('.keyspace-row[data-key="big"]');
    await settled(page);
    await page.waitForFunction(() => document.getElementById("zset").dataset.encoding === "skiplist");
    await settled(page);
    const label = await page.getAttribute(".zset-canvas-wrap", "aria-label");
    assert.match(label, /^Skiplist of 200 members in \d+ levels\. Ranks (\d+)–\d+ shown: m(\d+) \(score \2, level \d+\), /);
    // Every canvas the views drew, in every tab: a label of its own or of the picture around it,
    // or hidden beside a caption that says the same in text.
    const missing = [];
    for (const view of ["zset", "expiry", "eviction", "delay-queue"]) {
      await page.click(`#tab-${view}`);
      await settled(page);
      missing.push(
        ...(await page.evaluate(() =>
          [...document.querySelectorAll(".views canvas")]
            .filter((c) => c.checkVisibility())
            .filter((c) => {
              const img = c.closest("[role=img]");
              if (img && (img.getAttribute("aria-label") ?? "").length > 20) return false;
              const fig = c.closest("figure");
              return !(c.getAttribute("aria-hidden") === "true" && fig?.querySelector("figcaption")?.textContent.trim());
            })
            .map((c) => `${c.className || c.id} in ${c.closest(".panel")?.id}`),
        )),
      );
    }
    assert.deepEqual(missing, []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
