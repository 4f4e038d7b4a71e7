// The page with a keyboard only, outside the console: Escape closes the Labs and Share menus
// (focus back on their button), and every control shows where the focus is.

import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, newPage, openPlayground, pause, settled } from "./harness.mjs";

const env = useBrowser();

for (const menu of [".lab-picker", ".share-menu"]) {
  test(`Escape closes the ${menu} menu and gives the focus back to its button`, async () => {
    const { page, context, errors } = await newPage(env.browser);
    try {
      await openPlayground(page, env.server.url, "?seed=1&t=1735689600000");
      await pause(page);
      await page.focus(`${menu} > summary`);
      await page.keyboard.press("Enter");
      await page.waitForFunction((sel) => document.querySelector(sel).open, menu);
      if (menu === ".lab-picker") await page.waitForSelector(".lab-picker li a");
      // Into the menu, then Escape.
      await page.keyboard.press("Tab");
      await page.keyboard.press("Escape");
      await page.waitForFunction((sel) => !document.querySelector(sel).open, menu);
      assert.equal(await page.evaluate((sel) => document.activeElement === document.querySelector(`${sel} > summary`), menu), true);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

/** Every focusable element outside the consoles that is on screen, by a selector to find it again. */
function focusables() {
  const selector = "a[href], button, input, select, textarea, summary, [tabindex]";
  return [...document.querySelectorAll(selector)]
    .filter((n) => !n.closest("#console") && !n.disabled && n.tabIndex >= 0 && n.checkVisibility({ visibilityProperty: true }))
    .map((n) => {
      n.dataset.focusProbe ??= String(Math.random()).slice(2);
      return `[data-focus-probe="${n.dataset.focusProbe}"]`;
    });
}

/** Whether the focused element draws a visible focus indicator (an outline or a ring). */
function focusShows(sel) {
  const n = document.querySelector(sel);
  n.focus();
  if (document.activeElement !== n) return `${n.tagName.toLowerCase()}#${n.id}.${n.className} "${(n.textContent ?? "").trim().slice(0, 30)}" did not take the focus (${document.activeElement?.tagName})`;
  // A visually hidden input (a file picker styled as its label) shows the focus on its label.
  const r = n.getBoundingClientRect();
  const shown = getComputedStyle(n).opacity === "0" || r.width <= 1 ? (n.closest("label") ?? n) : n;
  const s = getComputedStyle(shown);
  const outline = s.outlineStyle === "auto" || (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2);
  const ring = s.boxShadow !== "none" && /\d+px/.test(s.boxShadow);
  if (outline || ring) return null;
  return `${n.tagName.toLowerCase()}${n.id ? `#${n.id}` : ""}.${n.className} "${(n.textContent ?? "").trim().slice(0, 30)}" shows no focus (outline ${s.outlineStyle} ${s.outlineWidth})`;
}

for (const query of ["?seed=1&t=1735689600000", "?lab=leaderboard", "?lab=eviction#eviction", "?seed=1&t=1735689600000#expiry", "?seed=1&t=1735689600000#delay-queue"]) {
  test(`every control outside the console shows the keyboard focus (${query})`, async () => {
    const { page, context, errors } = await newPage(env.browser);
    try {
      await openPlayground(page, env.server.url, query);
      await pause(page);
      await settled(page);
      const problems = [];
      let count = 0;
      // With the menus closed, then with each one open.
      for (const menu of [null, ".lab-picker", ".share-menu"]) {
        if (menu) {
          await page.evaluate(async (sel) => {
            for (const d of document.querySelectorAll(".topbar-menus details")) d.open = d.matches(sel);
            // The menus' toggle events run in a task of their own.
            await new Promise((resolve) => setTimeout(resolve, 0));
          }, menu);
          if (menu === ".lab-picker") await page.waitForSelector(".lab-picker li a");
        }
        // Keyboard modality: the focus moved by a key before.
        await page.focus(".lab-picker > summary");
        await page.keyboard.press("Shift+Tab");
        const probes = await page.evaluate(focusables);
        count += probes.length;
        for (const sel of probes) {
          const p = await page.evaluate(focusShows, sel);
          if (p) problems.push(p);
        }
      }
      assert.ok(count > 10, `${count} controls`);
      assert.deepEqual(problems, []);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}
