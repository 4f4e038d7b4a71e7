// Every lab (www/labs/data/*.json) played in the page: `?lab=<id>` boots the engine with the
// lab's seed and start time and the clock paused; each step's Run button runs its lines in the
// consoles, and what the consoles print — and each simulation's numbers — must be exactly the
// lab's `expect` (which tests/labs.rs holds to the engine natively). So a learner reading
// "at step 3 you will see…" sees it, in the browser.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { useBrowser, newPage, openPlayground } from "./harness.mjs";

const ROOT = new URL("../../", import.meta.url);
const index = JSON.parse(readFileSync(new URL("www/labs/data/index.json", ROOT), "utf8"));
const labs = index.labs.map((id) => JSON.parse(readFileSync(new URL(`www/labs/data/${id}.json`, ROOT), "utf8")));

const env = useBrowser();

/** Per console: the outputs of the lines typed there, and the text it received, in order. */
async function consoleRecord(page) {
  return page.$$eval(".console-pane", (panes) =>
    panes.map((pane) => {
      const entries = [...pane.querySelectorAll(".scrollback > .entry")];
      return {
        typed: entries.filter((e) => e.querySelector(".typed")).map((e) => e.querySelector(".out")?.textContent ?? ""),
        received: entries.filter((e) => e.classList.contains("received")).map((e) => e.textContent ?? ""),
      };
    }),
  );
}

// (The console shows a bulk reply's \r\n as a line break.)
const strip = (s) => s.replace(/\r\n/g, "\n").replace(/\r?\n?$/, "");

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
            // The panel's table shows the numbers the lab quotes.
            const shown = await page.$$eval(".lab-sim tr[data-metric] td", (tds) => tds.map((td) => JSON.parse(td.dataset.value)));
            for (const want of Object.values(item.expect)) assert.ok(shown.some((v) => JSON.stringify(v) === JSON.stringify(want)), `${lab.id} step ${n + 1}: the table shows ${want}`);
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
