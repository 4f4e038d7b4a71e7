// The "articles" lab track (www/labs/data/index.json `tracks`) played in Chromium in Simplified
// Chinese: `?lab=<id>&lang=zh-CN` loads the lab with its zh-CN text, every step is run, what the
// consoles print must be exactly the lab's `expect` (tests/labs.rs holds the same lines to the
// engine natively), each claim shows as a box with the article's words, what Redis 7.0 does,
// the verdict as a badge and why — in Chinese. A `raw` item switches the console's --raw
// output, so the GEO members print as 北京, not "\xe5\x8c\x97…". Screenshots of every lab at
// laptop and phone width go to test-results/articles-<id>-{laptop,phone}.png.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { useBrowser, newPage, openPlayground, screenshot, consoleRecord, stripOutput as strip } from "./harness.mjs";

const ROOT = new URL("../../", import.meta.url);
const read = (p) => JSON.parse(readFileSync(new URL(p, ROOT), "utf8"));
const index = read("www/labs/data/index.json");
const track = (index.tracks ?? []).find((t) => t.id === "articles");
const ZH = { right: "正确", wrong: "错误", outdated: "已过时", partly: "部分正确" };

const env = useBrowser();


test("the index has the articles track, and each of its labs has a zh-CN text", () => {
  assert.ok(track, "index.json has a track with id articles");
  assert.ok(track.labs.length >= 1);
  assert.match(track["zh-CN"], /\p{Script=Han}/u);
  for (const id of track.labs) {
    assert.ok(index.labs.includes(id), id);
    assert.equal(read(`www/labs/data/zh-CN/${id}.json`).id, id);
  }
});

for (const id of track?.labs ?? []) {
  const lab = read(`www/labs/data/${id}.json`);
  const zh = read(`www/labs/data/zh-CN/${id}.json`);
  test(`articles lab ${id} in zh-CN: every step prints what the lab says, every claim is a box in Chinese`, async () => {
    const { page, context, errors } = await newPage(env.browser, { viewport: { width: 1280, height: 800 } });
    try {
      assert.equal(await openPlayground(page, env.server.url, `?lab=${id}&lang=zh-CN`), "ready");
      await page.waitForSelector(".lab-player");
      assert.equal(await page.getAttribute("html", "lang"), "zh-CN");
      assert.equal(await page.textContent(".lab-title"), zh.title);
      assert.equal(await page.getAttribute("#clock-time", "data-ms"), String(lab.startMs));
      let shot = false;
      for (const [n, step] of lab.steps.entries()) {
        const zstep = zh.steps[n];
        assert.equal(await page.getAttribute(".lab-player", "data-step"), String(n));
        assert.equal(await page.textContent(".lab-step-title"), zstep.title);
        // The claims: one box each, the article's words, Redis's, the badge and why, in Chinese.
        const boxes = await page.$$eval(".lab-claims:not([hidden]) .lab-claim", (els) =>
          els.map((b) => ({
            verdict: b.getAttribute("data-verdict"),
            kicker: b.querySelector(".lab-claim-kicker")?.textContent,
            badge: b.querySelector(".lab-claim-badge")?.textContent,
            says: b.querySelector(".lab-claim-says")?.textContent,
            does: b.querySelector(".lab-claim-does")?.textContent,
            why: b.querySelector(".lab-claim-why")?.textContent ?? null,
          })),
        );
        assert.equal(boxes.length, (step.claims ?? []).length, `${id} step ${n + 1}: a box per claim`);
        boxes.forEach((box, k) => {
          const claim = step.claims[k];
          const words = zstep.claims[k];
          assert.equal(box.verdict, claim.verdict);
          assert.equal(box.badge, ZH[claim.verdict]);
          assert.equal(box.kicker, "原文说法");
          assert.equal(box.says, words.says);
          assert.equal(box.does, words.does);
          assert.equal(box.why, claim.why ? words.why : null);
          for (const text of [box.says, box.does]) assert.match(text, /\p{Script=Han}/u, `${id} step ${n + 1}: claim ${k + 1} is in Chinese`);
        });
        const before = await consoleRecord(page);
        const items = step.lines ?? [];
        if (items.length > 0) {
          await page.click(".lab-run");
          await page.waitForSelector('.lab-player[data-ran="true"]');
        }
        const after = await consoleRecord(page);
        const next = after.map((c, i) => c.typed.slice(before[i]?.typed.length ?? 0));
        const used = after.map(() => 0);
        const recorded = await page.evaluate(async (step) => {
          const { pageParts } = await import("/www/main.js");
          return pageParts.lab.outputs().filter((o) => o.step === step);
        }, n);
        /** The --raw switch of each console, as the step's items leave it. */
        const raw = before.map((c) => c.raw);
        for (const [k, item] of items.entries()) {
          const c = Number.isInteger(item.console) ? item.console : 0;
          if (typeof item.line === "string") {
            const out = next[c]?.[used[c]++];
            assert.notEqual(out, undefined, `${id} step ${n + 1}: no output for ${item.line}`);
            if ("expect" in item) assert.equal(strip(out), strip(item.expect), `${id} step ${n + 1}: ${item.line}`);
          } else if (item.receive) {
            const rec = recorded.find((o) => o.item === k);
            assert.ok(rec, `${id} step ${n + 1}: the receive item ran`);
            if ("expect" in item) assert.equal(strip(rec.text), strip(item.expect), `${id} step ${n + 1}: client ${c + 1} receives`);
          } else if (typeof item.raw === "boolean") {
            raw[c] = item.raw;
          }
        }
        assert.deepEqual(
          after.map((c) => c.raw),
          raw.concat(after.slice(raw.length).map(() => false)),
          `${id} step ${n + 1}: the consoles' --raw switches`,
        );
        if (step.notice) assert.equal(await page.textContent(".lab-notice"), zstep.notice);
        // A step that turns --raw on: the Chinese members as they print.
        if (items.some((i) => i.raw === true)) await screenshot(page, `articles-${id}-raw-laptop.png`);
        // The first step with a claim of each verdict other than "right" (or else the first
        // with claims), once run: laptop and phone.
        if (!shot && boxes.some((b) => b.verdict !== "right")) {
          shot = true;
          await page.locator(".lab-claims").scrollIntoViewIfNeeded();
          await screenshot(page, `articles-${id}-laptop.png`);
          await page.setViewportSize({ width: 390, height: 844 });
          await page.locator(".lab-claim").first().scrollIntoViewIfNeeded();
          await page.evaluate(() => document.querySelector(".lab-step-title")?.scrollIntoView({ block: "start" }));
          await screenshot(page, `articles-${id}-phone.png`);
          // No claim box is wider than the phone's screen.
          const widest = await page.$$eval(".lab-claim", (els) => Math.max(...els.map((e) => e.getBoundingClientRect().right)));
          assert.ok(widest <= 390, `${id}: a claim box reaches ${widest}px at 390px`);
          await page.setViewportSize({ width: 1280, height: 800 });
        }
        if (n + 1 < lab.steps.length) await page.click(".lab-next");
      }
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

test("the Labs menu in zh-CN shows the articles' labs under their own heading", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    assert.equal(await openPlayground(page, env.server.url, "?lang=zh-CN"), "ready");
    await page.click(".lab-picker > summary");
    await page.waitForSelector(".lab-picker li.lab-track");
    const items = await page.$$eval(".lab-picker li", (lis) =>
      lis.map((li) => (li.classList.contains("lab-track") ? { heading: li.textContent } : { href: li.querySelector("a")?.getAttribute("href") ?? "", title: li.querySelector("strong")?.textContent ?? "" })),
    );
    const at = items.findIndex((i) => i.heading === track["zh-CN"]);
    assert.ok(at >= 0, "the track's heading is shown in Chinese");
    const under = items.slice(at + 1, at + 1 + track.labs.length);
    assert.deepEqual(
      under.map((i) => i.href?.replace(/^.*lab=/, "")),
      track.labs,
    );
    for (const [k, labId] of track.labs.entries()) assert.equal(under[k].title, read(`www/labs/data/zh-CN/${labId}.json`).title);
    await page.locator(".lab-picker li.lab-track").scrollIntoViewIfNeeded();
    await screenshot(page, "articles-menu-laptop.png");
    // Every lab is still listed once.
    assert.equal(items.filter((i) => i.href).length, index.labs.length);
    // (A lab with no zh-CN text yet is a 404 the browser logs; it is listed in English.)
    assert.deepEqual(errors.filter((e) => !/status of 404/.test(e)), []);
  } finally {
    await context.close();
  }
});
