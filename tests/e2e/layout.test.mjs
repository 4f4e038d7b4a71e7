// The page's layout as a person meets it: controls that stay where they are when their text
// changes (Step clicked four times at one point runs four ticks), and a phone-sized screen
// (390×844) that gives the content the room: a compact top bar and footer, one scrolling
// document instead of a box scrolling inside it, labels clear of the console's text, inputs
// at 16 px or more (iOS zooms into smaller ones).

import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, newPage, openPlayground, pause, settled, cronTicks } from "./harness.mjs";

const START = 1735689600000;
const env = useBrowser();

/**
 * Clicks the Step button's first position four times (the mouse, not the element: a button
 * that moved is missed) and returns how many cron ticks ran and where the workspace moved.
 */
async function stepFourTimesAtOnePoint(page) {
  const box = await page.locator("#clock-step").boundingBox();
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  const top0 = await page.evaluate(() => document.querySelector(".workspace").getBoundingClientRect().top);
  const ticks0 = await cronTicks(page);
  for (let i = 0; i < 4; i += 1) {
    await page.mouse.click(x, y);
    await settled(page);
  }
  const top1 = await page.evaluate(() => document.querySelector(".workspace").getBoundingClientRect().top);
  return { ticks: (await cronTicks(page)) - ticks0, moved: top1 - top0 };
}

for (const [width, height, query] of [
  [1366, 768, `?seed=11&t=${START}`],
  [1024, 768, `?seed=11&t=${START}`],
  [1280, 800, `?seed=11&t=${START}`],
  [1366, 768, "?lab=lock"],
  [390, 844, `?seed=11&t=${START}`],
]) {
  test(`at ${width}×${height} (${query}), Step clicked 4 times at one point runs 4 ticks and nothing moves`, async () => {
    const { page, context, errors } = await newPage(env.browser, { viewport: { width, height } });
    try {
      await openPlayground(page, env.server.url, query);
      await pause(page);
      await settled(page);
      const { ticks, moved } = await stepFourTimesAtOnePoint(page);
      assert.equal(ticks, 4, "every click hit the Step button");
      assert.equal(moved, 0, "the workspace did not move");
      // A wrong jump value gets its message without moving the bar either.
      const top = await page.evaluate(() => document.querySelector(".workspace").getBoundingClientRect().top);
      await page.fill("#clock-jump-seconds", "x");
      await page.press("#clock-jump-seconds", "Enter");
      await page.waitForFunction(() => document.querySelector("#clock-jump-error").textContent !== "");
      assert.equal(await page.evaluate(() => document.querySelector(".workspace").getBoundingClientRect().top), top);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

test("at 390×844 the top bar and the footer leave the screen to the playground", async () => {
  const { page, context, errors } = await newPage(env.browser, { viewport: { width: 390, height: 844 } });
  try {
    await openPlayground(page, env.server.url, `?seed=11&t=${START}`);
    await pause(page);
    const m = await page.evaluate(() => {
      const vh = window.innerHeight;
      const visible = (node) => {
        const r = node.getBoundingClientRect();
        return Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
      };
      return {
        topbar: visible(document.querySelector(".topbar")),
        footer: visible(document.querySelector(".footnote")),
        consoleTop: document.querySelector("#console").getBoundingClientRect().top,
      };
    });
    assert.ok(m.topbar + m.footer <= 170, `top bar ${m.topbar} px + footer ${m.footer} px of 844`);
    assert.ok(m.consoleTop <= 180, `the console starts at ${m.consoleTop} px`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("at 390×844 the page scrolls as one document: no box scrolls the views inside it", async () => {
  const { page, context, errors } = await newPage(env.browser, { viewport: { width: 390, height: 844 } });
  try {
    await openPlayground(page, env.server.url, `?seed=11&t=${START}`);
    await pause(page);
    // Every ancestor of the views is laid out in the document's own scrolling, not in a box
    // that scrolls by itself.
    const scrollers = await page.evaluate(() => {
      const out = [];
      for (let node = document.querySelector(".views"); node && node !== document.documentElement; node = node.parentElement) {
        const s = getComputedStyle(node);
        if (/(auto|scroll)/.test(s.overflowY) && node.scrollHeight > node.clientHeight + 1) out.push(node.className || node.tagName);
      }
      return out;
    });
    assert.deepEqual(scrollers, []);
    assert.ok(await page.evaluate(() => document.scrollingElement.scrollHeight > window.innerHeight), "the document scrolls");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("at 390×844 inputs are 16 px or larger and a console's label stays clear of its text", async () => {
  const { page, context, errors } = await newPage(env.browser, { viewport: { width: 390, height: 844 } });
  try {
    await openPlayground(page, env.server.url, "?lab=lock");
    // Three consoles, as the lab's later steps open.
    await page.evaluate(async () => {
      const { pageParts } = await import("/www/main.js");
      pageParts.consoles.ensure(2);
    });
    await settled(page);
    const small = await page.evaluate(() =>
      [...document.querySelectorAll("input, select, textarea")]
        .filter((n) => n.getClientRects().length > 0 && n.type !== "file")
        .map((n) => ({ id: n.id || n.className, size: parseFloat(getComputedStyle(n).fontSize) }))
        .filter((n) => n.size < 16),
    );
    assert.deepEqual(small, [], "inputs under 16 px");
    const overlaps = await page.evaluate(() =>
      [...document.querySelectorAll(".console-pane")].flatMap((pane) => {
        const label = pane.querySelector(".console-pane-label").getBoundingClientRect();
        const terminal = pane.querySelector(".terminal") ?? pane.querySelector(".console-pane-body");
        const first = terminal.querySelector(".entry, .input-line");
        const r = (first ?? terminal).getBoundingClientRect();
        return r.top < label.bottom - 0.5 ? [`${pane.dataset.console}: label bottom ${label.bottom}, text top ${r.top}`] : [];
      }),
    );
    assert.deepEqual(overlaps, []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("at 390×844 nothing is wider than the screen", async () => {
  const { page, context, errors } = await newPage(env.browser, { viewport: { width: 390, height: 844 } });
  try {
    for (const q of [`?seed=11&t=${START}`, "?lab=lock", "?lab=eviction"]) {
      await openPlayground(page, env.server.url, q);
      const wide = await page.evaluate(() => document.scrollingElement.scrollWidth);
      assert.ok(wide <= 390, `${q}: the page is ${wide} px wide`);
    }
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the theme toggle switches light and dark, and the choice stays after a reload", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await page.emulateMedia({ colorScheme: "dark" });
    await openPlayground(page, env.server.url, `?seed=11&t=${START}`);
    const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const dark = await bg();
    assert.equal(await page.getAttribute("#theme-toggle", "aria-pressed"), "false");
    await page.click("#theme-toggle");
    assert.equal(await page.getAttribute("#theme-toggle", "aria-pressed"), "true");
    const light = await bg();
    assert.notEqual(light, dark);
    await page.reload();
    await page.waitForSelector("html[data-boot]");
    assert.equal(await bg(), light, "still light after a reload, whatever the system says");
    await page.click("#theme-toggle");
    assert.equal(await bg(), dark);
    // With no choice stored, the system's scheme decides.
    await page.evaluate(() => localStorage.removeItem("redisplay-theme"));
    await page.emulateMedia({ colorScheme: "light" });
    await page.reload();
    await page.waitForSelector("html[data-boot]");
    assert.equal(await bg(), light);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
