// The cache-aside lab (www/labs/data/cache-aside.json) in Simplified Chinese: `?lab=cache-aside
// &lang=zh-CN` shows its zh-CN text, each step's simulations give the lab's numbers (the wasm
// engine, as tests/labs.rs holds them natively), the sim table names each metric in Chinese
// beside its name, and the article's claims are boxes in Chinese. Screenshots of the local-cache
// step at laptop and phone width: test-results/cache-aside-zh-{laptop,phone}.png.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { useBrowser, newPage, openPlayground, screenshot } from "./harness.mjs";

const ROOT = new URL("../../", import.meta.url);
const read = (p) => JSON.parse(readFileSync(new URL(p, ROOT), "utf8"));
const lab = read("www/labs/data/cache-aside.json");
const zh = read("www/labs/data/zh-CN/cache-aside.json");
const ZH = { right: "正确", wrong: "错误", outdated: "已过时", partly: "部分正确" };
const han = /\p{Script=Han}/u;

const env = useBrowser();

test("the cache-aside lab in zh-CN: Chinese steps, claims and metric names, the lab's numbers", async () => {
  const { page, context, errors } = await newPage(env.browser, { viewport: { width: 1280, height: 800 } });
  try {
    assert.equal(await openPlayground(page, env.server.url, "?lab=cache-aside&lang=zh-CN"), "ready");
    await page.waitForSelector(".lab-player");
    assert.equal(await page.getAttribute("html", "lang"), "zh-CN");
    assert.equal(await page.textContent(".lab-title"), zh.title);
    let shot = false;
    for (const [n, step] of lab.steps.entries()) {
      const zstep = zh.steps[n];
      assert.equal(await page.textContent(".lab-step-title"), zstep.title);
      const boxes = await page.$$eval(".lab-claims:not([hidden]) .lab-claim", (els) =>
        els.map((b) => ({
          verdict: b.getAttribute("data-verdict"),
          badge: b.querySelector(".lab-claim-badge")?.textContent,
          says: b.querySelector(".lab-claim-says")?.textContent,
          does: b.querySelector(".lab-claim-does")?.textContent,
          why: b.querySelector(".lab-claim-why")?.textContent ?? null,
        })),
      );
      assert.equal(boxes.length, (step.claims ?? []).length, `step ${n + 1}: a box per claim`);
      boxes.forEach((box, k) => {
        assert.equal(box.verdict, step.claims[k].verdict);
        assert.equal(box.badge, ZH[step.claims[k].verdict]);
        assert.deepEqual([box.says, box.does, box.why], [zstep.claims[k].says, zstep.claims[k].does, zstep.claims[k].why]);
      });
      const sims = (step.lines ?? []).filter((i) => typeof i.sim === "string");
      if ((step.lines ?? []).length > 0) {
        await page.click(".lab-run");
        await page.waitForSelector('.lab-player[data-ran="true"]');
      }
      if (sims.length > 0) {
        // One table per simulation: each quoted metric, its value and its words in Chinese.
        const tables = await page.$$eval(".lab-sim", (ts) =>
          ts.map((table) =>
            [...table.querySelectorAll("tr[data-metric]")].map((tr) => ({
              metric: tr.getAttribute("data-metric"),
              label: tr.querySelector(".lab-sim-label")?.textContent ?? null,
              key: tr.querySelector(".lab-sim-key")?.textContent ?? null,
              value: JSON.parse(tr.querySelector("td")?.dataset.value ?? "null"),
            })),
          ),
        );
        assert.equal(tables.length, sims.length, `step ${n + 1}: a table per simulation`);
        sims.forEach((sim, k) => {
          assert.deepEqual(
            tables[k].map((r) => [r.metric, r.value]),
            Object.entries(sim.expect),
            `step ${n + 1}: simulation ${k + 1} shows the lab's numbers`,
          );
          for (const row of tables[k]) {
            assert.match(row.label ?? "", han, `step ${n + 1}: ${row.metric} is named in Chinese`);
            assert.equal(row.key, row.metric);
          }
        });
      }
      if (step.notice) assert.equal(await page.textContent(".lab-notice"), zstep.notice);
      if (!shot && step.lines?.some((i) => i.config?.localSize > 0)) {
        shot = true;
        await page.locator(".lab-sim").first().scrollIntoViewIfNeeded();
        await screenshot(page, "cache-aside-zh-laptop.png");
        await page.setViewportSize({ width: 390, height: 844 });
        await page.evaluate(() => document.querySelector(".lab-sim")?.scrollIntoView({ block: "start" }));
        await screenshot(page, "cache-aside-zh-phone.png");
        // Nothing of the table or the claim box is wider than the phone's screen.
        const widest = await page.$$eval(".lab-sim, .lab-claim", (els) => Math.max(...els.map((e) => e.getBoundingClientRect().right)));
        assert.ok(widest <= 390, `a sim table or claim box reaches ${widest}px at 390px`);
        await page.setViewportSize({ width: 1280, height: 800 });
      }
      if (n + 1 < lab.steps.length) await page.click(".lab-next");
    }
    assert.ok(shot, "a step with a local cache was shown");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
