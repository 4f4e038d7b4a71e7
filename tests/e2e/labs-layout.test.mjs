// Labs as a person meets them at laptop (1366×768) and phone (390×844) size: every lab opens on
// a view that shows something; two or three consoles never squeeze one below a readable width;
// key names are not cut where there is room; step numbers sit by the first line of their title;
// nothing claims "not a sorted set (any more)" or "lost 1" before anything ran; and no lab text
// says "on the left" where a phone shows it above.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { useBrowser, newPage, openPlayground, settled } from "./harness.mjs";

const ROOT = new URL("../../", import.meta.url);
const index = JSON.parse(readFileSync(new URL("www/labs/data/index.json", ROOT), "utf8"));
const labs = index.labs.map((id) => JSON.parse(readFileSync(new URL(`www/labs/data/${id}.json`, ROOT), "utf8")));
const consolesOf = (lab) => 1 + Math.max(0, ...lab.steps.flatMap((s) => (s.lines ?? []).map((i) => i.console ?? 0)));

const env = useBrowser();
const LAPTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };

/** What fills the column under the view tabs: the panel there, its size and whether it says something. */
function viewUnderTabs() {
  const tabs = document.querySelector(".view-tabs").getBoundingClientRect();
  const workspace = document.querySelector(".workspace").getBoundingClientRect();
  const candidates = [...document.querySelectorAll(".views > .panel, #keyspace")].filter((n) => n.checkVisibility());
  const under = candidates.find((n) => {
    const r = n.getBoundingClientRect();
    return Math.abs(r.top - tabs.bottom) <= 6 && r.left < tabs.right && r.right > tabs.left;
  });
  if (!under) return { id: null };
  const r = under.getBoundingClientRect();
  return { id: under.id, height: r.height, share: r.height / workspace.height, text: under.textContent.trim().length };
}

for (const lab of labs) {
  test(`lab ${lab.id} opens on a view that shows something, its steps numbered by their first line`, async () => {
    const { page, context, errors } = await newPage(env.browser, { viewport: LAPTOP });
    try {
      await openPlayground(page, env.server.url, `?lab=${lab.id}`);
      await settled(page);
      const v = await page.evaluate(viewUnderTabs);
      assert.ok(v.id !== null, "a panel under the view tabs");
      assert.ok(v.share >= 0.5 && v.text > 20, `${v.id}: ${Math.round(v.height)} px, ${v.text} characters`);
      const misaligned = await page.evaluate(() =>
        [...document.querySelectorAll(".lab-steps li")].flatMap((li, i) => {
          const n = li.querySelector(".lab-step-n");
          const title = li.querySelector(".lab-step-title-text");
          if (!n || !title) return [`step ${i + 1}: no number or title`];
          const range = document.createRange();
          range.setStart(title.firstChild, 0);
          range.setEnd(title.firstChild, 1);
          const first = range.getBoundingClientRect();
          const num = n.getBoundingClientRect();
          return Math.abs(num.top - first.top) <= 3 ? [] : [`step ${i + 1}: number at ${num.top}, title's first line at ${first.top}`];
        }),
      );
      assert.deepEqual(misaligned, []);
      // Nothing says a key is gone before anything ran.
      assert.doesNotMatch(await page.evaluate(() => document.querySelector(".workspace").textContent), /any more/);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

for (const viewport of [LAPTOP, PHONE]) {
  for (const lab of labs.filter((l) => consolesOf(l) >= 2)) {
    test(`lab ${lab.id} at ${viewport.width}×${viewport.height}: each of its ${consolesOf(lab)} consoles is wide enough to read`, async () => {
      const { page, context, errors } = await newPage(env.browser, { viewport });
      try {
        await openPlayground(page, env.server.url, `?lab=${lab.id}`);
        await page.evaluate(async (n) => {
          const { pageParts } = await import("/www/main.js");
          pageParts.consoles.ensure(n - 1);
        }, consolesOf(lab));
        await settled(page);
        const panes = await page.$$eval(".console-pane", (list) =>
          list.map((p) => {
            const r = p.getBoundingClientRect();
            const ch = parseFloat(getComputedStyle(p.querySelector(".terminal") ?? p).fontSize) * 0.6;
            return { w: Math.round(r.width), h: Math.round(r.height), cols: Math.floor((r.width - 28) / ch) };
          }),
        );
        assert.equal(panes.length, consolesOf(lab));
        for (const p of panes) {
          assert.ok(p.cols >= 38, `a console ${p.w} px wide holds ${p.cols} columns`);
          assert.ok(p.h >= 120, `a console ${p.h} px high`);
        }
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    });
  }
}

for (const id of ["sliding-expiration", "logical-expiry", "lock", "why-no-expire"]) {
  test(`lab ${id} at 1366×768: key names are not cut where there is room`, async () => {
    const { page, context, errors } = await newPage(env.browser, { viewport: LAPTOP });
    try {
      await openPlayground(page, env.server.url, `?lab=${id}`);
      // Run the steps that make keys.
      const steps = labs.find((l) => l.id === id).steps.length;
      for (let i = 0; i < steps; i += 1) {
        if (await page.isEnabled(".lab-run")) await page.click(".lab-run");
        if (i < steps - 1) await page.click(".lab-next");
      }
      await settled(page);
      const cut = await page.$$eval(".ks-key", (keys) =>
        keys.filter((k) => k.textContent.length <= 24 && k.scrollWidth > k.clientWidth + 1).map((k) => `${k.textContent} (${k.clientWidth} px)`),
      );
      assert.ok((await page.$$eval(".ks-key", (k) => k.length)) > 0, "keys listed");
      assert.deepEqual(cut, []);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

test("the leaderboard lab does not greet with a key that is “not a sorted set (any more)”", async () => {
  const { page, context, errors } = await newPage(env.browser, { viewport: LAPTOP });
  try {
    await openPlayground(page, env.server.url, "?lab=leaderboard");
    await settled(page);
    const text = await page.textContent("#zset");
    assert.doesNotMatch(text, /any more/);
    assert.match(text, /“board” does not exist yet/);
    await page.click(".lab-run");
    await settled(page);
    await page.waitForFunction(() => document.querySelector("#zset-encoding")?.textContent === "listpack");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the delay-queue walkthrough's metrics lose nothing before the first order exists", async () => {
  const { page, context, errors } = await newPage(env.browser, { viewport: LAPTOP });
  try {
    await openPlayground(page, env.server.url, "?seed=1&t=1735689600000#delay-queue");
    await page.waitForSelector('#delay-queue td[data-metric="lost"]');
    await page.waitForFunction(() => document.querySelector('#delay-queue td[data-metric="tasks"]').textContent === "1");
    assert.equal(await page.textContent('#delay-queue td[data-metric="lost"]'), "0");
    assert.equal(await page.textContent('#delay-queue td[data-metric="pending"]'), "1");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("at 390×844 no lab text (nor the lab's welcome) points left or right", async () => {
  const { page, context, errors } = await newPage(env.browser, { viewport: PHONE });
  try {
    for (const lab of labs) {
      await openPlayground(page, env.server.url, `?lab=${lab.id}`);
      const texts = [
        await page.evaluate(() => document.querySelector("#console .scrollback").textContent),
        ...lab.steps.flatMap((s) => [s.text, s.notice ?? ""]),
        lab.summary ?? "",
      ];
      for (const t of texts) assert.doesNotMatch(t, /\b(on|to|at) the (left|right)\b|\b(left|right)-hand (panel|side|console)\b|\bpanel on the\b/i, `${lab.id}: ${t.slice(0, 120)}`);
    }
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
