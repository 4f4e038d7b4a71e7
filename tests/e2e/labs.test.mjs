// Every lab (www/labs/data/*.json) played in the page: `?lab=<id>` boots the engine with the
// lab's seed and start time and the clock paused; each step's Run button runs its lines in the
// consoles, and what the consoles print — and each simulation's numbers — must be exactly the
// lab's `expect` (which tests/labs.rs holds to the engine natively). So a learner reading
// "at step 3 you will see…" sees it, in the browser.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { useBrowser, newPage, openPlayground, REPO_ROOT, consoleRecord, stripOutput as strip } from "./harness.mjs";

const ROOT = new URL("../../", import.meta.url);
const index = JSON.parse(readFileSync(new URL("www/labs/data/index.json", ROOT), "utf8"));
const labs = index.labs.map((id) => JSON.parse(readFileSync(new URL(`www/labs/data/${id}.json`, ROOT), "utf8")));

const env = useBrowser();


for (const lab of labs) {
  test(`lab ${lab.id}: every step prints exactly what the lab says`, async () => {
    const { page, context, errors } = await newPage(env.browser, { viewport: { width: 1500, height: 950 } });
    try {
      assert.equal(await openPlayground(page, env.server.url, `?lab=${lab.id}`), "ready");
      await page.waitForSelector(".lab-player");
      assert.equal(await page.textContent(".lab-title"), lab.title);
      // The lab's clock: its start time, paused.
      assert.equal(await page.getAttribute("#clock-time", "data-ms"), String(lab.startMs));
      // What each console received and no `receive` item has read yet (the page prints
      // messages as they arrive; the lab reads them at its `receive` item).
      const unread = [];
      for (const [n, step] of lab.steps.entries()) {
        assert.equal(await page.getAttribute(".lab-player", "data-step"), String(n));
        assert.equal(await page.textContent(".lab-step-title"), step.title);
        const before = await consoleRecord(page);
        const items = step.lines ?? [];
        if (items.length > 0) {
          const clicks = step.type === true ? items.filter((i) => typeof i.line === "string").length : 1;
          for (let k = 0; k < clicks; k += 1) {
            await page.click(".lab-run");
            if (step.type === true) {
              // The line was typed for the learner: send it with Enter where it was typed.
              const input = await page.evaluateHandle(() => document.activeElement);
              await input.press("Enter");
            }
          }
          await page.waitForSelector('.lab-player[data-ran="true"]');
        }
        const after = await consoleRecord(page);
        const next = after.map((c, i) => ({
          typed: c.typed.slice(before[i]?.typed.length ?? 0),
          received: c.received.slice(before[i]?.received.length ?? 0).join(""),
        }));
        next.forEach((c, i) => {
          unread[i] = (unread[i] ?? "") + c.received;
        });
        const used = after.map(() => 0);
        // What the lab player recorded for each item of this step (receive items, sims).
        const recorded = await page.evaluate(async (step) => {
          const { pageParts } = await import("/www/main.js");
          return pageParts.lab.outputs().filter((o) => o.step === step);
        }, n);
        for (const [k, item] of items.entries()) {
          const c = Number.isInteger(item.console) ? item.console : 0;
          const rec = recorded.find((o) => o.item === k);
          if (typeof item.line === "string") {
            let out = next[c]?.typed[used[c]++];
            assert.notEqual(out, undefined, `${lab.id} step ${n + 1}: no output for ${item.line}`);
            // A reply that came later (a script that ran on in slices, a blocked command) is
            // printed as something the console received.
            if (out === "" && item.expect && next[c].received !== "") {
              out = next[c].received;
              unread[c] = (unread[c] ?? "").replace(out, "");
              next[c].received = "";
            }
            if ("expect" in item) assert.equal(strip(out), strip(item.expect), `${lab.id} step ${n + 1}: ${item.line}`);
          } else if (item.receive) {
            assert.ok(rec, `${lab.id} step ${n + 1}: the receive item ran`);
            if ("expect" in item) assert.equal(strip(rec.text), strip(item.expect), `${lab.id} step ${n + 1}: client ${c + 1} receives`);
            // …and the console shows it.
            if (rec.text !== "") assert.ok(strip(unread[c] ?? "").includes(strip(rec.text)), `${lab.id} step ${n + 1}: client ${c + 1} shows what it received`);
          } else if (typeof item.sim === "string" && item.expect) {
            assert.ok(rec?.result, `${lab.id} step ${n + 1}: ${item.sim} ran (${rec?.error ?? ""})`);
            for (const [metric, want] of Object.entries(item.expect)) {
              const got = metric.split(".").reduce((o, key) => o?.[key], rec.result);
              assert.deepEqual(got, want, `${lab.id} step ${n + 1}: ${item.sim} ${metric}`);
            }
            // The panel's table shows the numbers the lab quotes (each of a quoted object's too).
            const nth = items.slice(0, k).filter((i) => typeof i.sim === "string").length;
            const shown = await page.$$eval(
              ".lab-results .lab-sim",
              (tables, nth) => [...(tables[nth]?.querySelectorAll("[data-metric]") ?? [])].map((e) => [e.dataset.metric, e.dataset.value ?? e.querySelector("[data-value]")?.dataset.value]),
              nth,
            );
            const leaves = (o, prefix = "") =>
              Object.entries(o).flatMap(([k, v]) => (v && typeof v === "object" && !Array.isArray(v) ? leaves(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]]));
            for (const [metric, want] of leaves(item.expect)) {
              assert.ok(
                shown.some(([m, v]) => m === metric && v === JSON.stringify(want)),
                `${lab.id} step ${n + 1}: the table shows ${metric} = ${JSON.stringify(want)}`,
              );
            }
          }
        }
        unread.length = 0;
        if (step.view && step.view !== "keyspace") {
          assert.equal(await page.isVisible(`#${step.view}`), true, `${lab.id} step ${n + 1}: the ${step.view} view is shown`);
        }
        if (step.notice) assert.equal(await page.textContent(".lab-notice"), step.notice);
        if (n + 1 < lab.steps.length) await page.click(".lab-next");
      }
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

test("a lab that does not exist, or a hostile lab name, gives a message and a working playground", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    for (const q of ["?lab=nope", "?lab=..%2F..%2Fetc%2Fpasswd", "?lab=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"]) {
      assert.equal(await openPlayground(page, env.server.url, q), "ready");
      assert.match(await page.textContent("#notices"), /(no lab called|is not a lab name)/);
      assert.equal(await page.locator(".lab-player").count(), 0);
      assert.equal(await page.locator("#notices img").count(), 0);
    }
    // (The browser itself logs the 404 of the missing lab file.)
    assert.deepEqual(errors.filter((e) => !/status of 404/.test(e)), []);
  } finally {
    await context.close();
  }
});

test("the lab picker lists every lab and opens one", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    assert.equal(await openPlayground(page, env.server.url, ""), "ready");
    await page.click(".lab-picker > summary");
    await page.waitForSelector(".lab-picker li a");
    assert.equal(await page.locator(".lab-picker li a").count(), labs.length);
    await page.click(`.lab-picker a[href$="lab=${labs[0].id}"]`);
    await page.waitForSelector(".lab-player");
    assert.equal(await page.textContent(".lab-title"), labs[0].title);
    await page.screenshot({ path: "test-results/lab.png" });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the pipelining lab in zh-CN: the simulation's table says in Chinese what was assumed and where it was measured, and fits a phone (test-results/pipelining-zh-*.png)", async () => {
  await mkdir(path.join(REPO_ROOT, "test-results"), { recursive: true });
  const lab = labs.find((l) => l.id === "pipelining");
  const article = lab.steps.findIndex((s) => Array.isArray(s.claims));
  const measured = lab.steps.findIndex((s) => (s.lines ?? []).some((i) => i.config?.server === "this-page"));
  for (const [name, viewport] of [
    ["laptop", { width: 1280, height: 800 }],
    ["phone", { width: 390, height: 844 }],
  ]) {
    const { page, context, errors } = await newPage(env.browser, { viewport });
    try {
      assert.equal(await openPlayground(page, env.server.url, "?lang=zh-CN&lab=pipelining"), "ready");
      await page.waitForSelector(".lab-player");
      // The step that times this page's engine: the source in Chinese, with the count it timed.
      await page.click(`.lab-step-link >> nth=${measured}`);
      await page.click(".lab-run");
      await page.waitForSelector('.lab-player[data-ran="true"]');
      const sources = await page.$$eval('.lab-sim [data-metric="server"]', (els) => els.map((e) => e.textContent));
      assert.equal(sources.length, 2);
      assert.match(sources[0], /^成本模型（src\/cost\.rs）/);
      assert.match(sources[1], /^本页面的引擎（wasm），刚刚实测：20,000 条 SET 用时 [\d.,]+ ms$/);
      const perSet = await page.$$eval('.lab-sim [data-metric="serviceNs"]', (els) => els.map((e) => JSON.parse(e.dataset.value)));
      assert.ok(perSet[1] > 0 && perSet[1] < 1e6, `a SET in this page's engine took ${perSet[1]} ns`);
      // The article's step: its claim and both tables, in Chinese.
      await page.click(`.lab-step-link >> nth=${article}`);
      await page.click(".lab-run");
      await page.waitForSelector('.lab-player[data-ran="true"]');
      assert.equal(await page.textContent(".lab-claim-kicker"), "原文说法");
      assert.equal(await page.textContent(".lab-claim-badge"), "部分正确");
      const head = await page.$$eval(".lab-sim-pipeline >> nth=0 >> thead th", (ths) => ths.map((th) => th.textContent));
      assert.deepEqual(head, ["", "逐条发送", "每批 100,000 条"]);
      const rows = await page.$$eval(".lab-sim-pipeline >> nth=0 >> tbody th", (ths) => ths.map((th) => th.textContent));
      assert.deepEqual(rows, ["往返次数", "耗时", "每秒 SET 数", "等待网络", "结束时键数"]);
      assert.equal(await page.textContent('.lab-sim-pipeline >> nth=0 >> [data-metric="oneByOne.totalMs"]'), "12.05 秒");
      assert.equal(await page.textContent('.lab-sim-pipeline >> nth=1 >> [data-metric="server"]'), "按给定值");
      // Nothing wider than the screen: a table too wide for a phone scrolls inside the panel.
      assert.ok((await page.evaluate(() => document.scrollingElement.scrollWidth)) <= viewport.width, name);
      await page.locator(".lab-results").scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(REPO_ROOT, `test-results/pipelining-zh-${name}.png`) });
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});
