// The console with a keyboard and a screen reader: Tab completes only when there is something to
// complete, so Tab and Shift+Tab always lead out of the console (no keyboard trap); Escape
// then Tab leaves even a line that could be completed; the input shows where the focus is; the
// input is labelled; the latest reply is announced politely (one live region with the last
// reply, not the whole log).

import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, newPage, openPlayground, runLine, pause } from "./harness.mjs";

const QUERY = "?seed=7&t=1735689600000";

const env = useBrowser();

/** Where the focus is: the console input (its id) or somewhere else ("elsewhere:<tag>"). */
async function focusIn(page) {
  return page.evaluate(() => {
    const a = document.activeElement;
    if (a?.classList.contains("cmdline")) return a.id;
    return `elsewhere:${a?.tagName.toLowerCase()}${a?.closest("#console") ? " in the console" : ""}`;
  });
}

test("Tab on an empty line moves the focus on, Shift+Tab back: no keyboard trap", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await pause(page);
    await page.focus("#console-input");
    await page.keyboard.press("Tab");
    assert.notEqual(await focusIn(page), "console-input", "Tab left the console input");
    await page.focus("#console-input");
    await page.keyboard.press("Shift+Tab");
    assert.notEqual(await focusIn(page), "console-input", "Shift+Tab left the console input");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("Tab completes when there is something to complete, else moves on; Escape then Tab leaves", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await pause(page);
    const input = page.locator("#console-input");

    // Something to complete: Tab completes and the focus stays.
    await input.fill("getr");
    await input.press("Tab");
    assert.equal(await input.inputValue(), "GETRANGE");
    assert.equal(await focusIn(page), "console-input");

    // Cycling: Tab forwards, Shift+Tab backwards, the focus stays while it cycles.
    await input.fill("conf");
    await input.press("Tab");
    const first = await input.inputValue();
    await input.press("Tab");
    const second = await input.inputValue();
    assert.notEqual(first, second);
    await input.press("Shift+Tab");
    assert.equal(await input.inputValue(), first);
    assert.equal(await focusIn(page), "console-input");

    // Escape ends the cycle (the typed text comes back); Tab then leaves.
    await input.press("Escape");
    assert.equal(await input.inputValue(), "conf");
    await page.keyboard.press("Tab");
    assert.notEqual(await focusIn(page), "console-input", "Escape then Tab leaves");
    assert.equal(await input.inputValue(), "conf", "and leaves the line alone");

    // Nothing to complete (arguments typed, or no command starts so): Tab moves on.
    await input.fill("SET key value");
    await input.focus();
    await page.keyboard.press("Tab");
    assert.notEqual(await focusIn(page), "console-input");
    assert.equal(await input.inputValue(), "SET key value");

    // Escape with nothing to cancel, then Tab, on a completable line: leaves too.
    await input.fill("GE");
    await input.focus();
    await page.keyboard.press("Escape");
    await page.keyboard.press("Tab");
    assert.notEqual(await focusIn(page), "console-input");
    assert.equal(await input.inputValue(), "GE");

    // Back in the console, Tab completes again.
    await input.focus();
    await page.keyboard.press("Tab");
    assert.match(await input.inputValue(), /^GE[A-Z]+$/);
    assert.equal(await focusIn(page), "console-input");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the console input shows a focus ring and is labelled", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await pause(page);
    // Keyboard modality: the focus arrives by Tab.
    await page.focus("#console-input");
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Tab");
    assert.equal(await focusIn(page), "console-input");
    const ring = await page.evaluate(() => {
      const input = document.getElementById("console-input");
      for (const n of [input, input.closest(".input-line")]) {
        const s = getComputedStyle(n);
        const outline = s.outlineStyle === "auto" || (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2);
        const shadow = s.boxShadow !== "none" && /\d+px/.test(s.boxShadow);
        if (outline || shadow) return { ok: true };
      }
      const s = getComputedStyle(input);
      return { ok: false, outline: `${s.outlineStyle} ${s.outlineWidth}` };
    });
    assert.ok(ring.ok, `no focus ring on the console input: ${JSON.stringify(ring)}`);
    // And none once the focus is elsewhere.
    await page.focus(".console-add");
    const after = await page.evaluate(() => {
      const line = document.getElementById("console-input").closest(".input-line");
      const s = getComputedStyle(line);
      return s.outlineStyle === "none" || parseFloat(s.outlineWidth) === 0 ? s.boxShadow : s.outlineStyle;
    });
    assert.ok(after === "none" || after === "", `the ring goes with the focus: ${after}`);

    // Labelled: an accessible name that says what it is.
    const named = page.getByRole("textbox", { name: /redis-cli command/i });
    assert.equal(await named.count(), 1);
    assert.equal(await named.getAttribute("id"), "console-input");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("screen readers: the latest reply is announced politely, not the whole log", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await pause(page);
    // The scrollback is not itself a live region (every echo and note would be read out).
    const log = await page.evaluate(() => {
      const s = document.querySelector(".scrollback");
      return { live: s.getAttribute("aria-live"), role: s.getAttribute("role") };
    });
    assert.ok(log.live === "off" || (log.role !== "log" && log.live === null), JSON.stringify(log));
    const live = page.locator('#console .console-pane[data-console="0"] [aria-live="polite"].console-announce');
    assert.equal(await live.count(), 1);
    await runLine(page, "SET k v");
    await page.waitForFunction(() => document.querySelector(".console-announce")?.textContent.includes("OK"));
    await runLine(page, "GET k");
    await page.waitForFunction(() => document.querySelector(".console-announce")?.textContent.includes('"v"'));
    const text = await live.textContent();
    assert.ok(!text.includes("OK"), `only the latest reply: ${text}`);
    assert.ok(text.length < 200, text);
    // A long reply is announced in short: its first lines and how many more.
    await runLine(page, "RPUSH l a b c d e f g h i j k l m n o p");
    await runLine(page, "LRANGE l 0 -1");
    await page.waitForFunction(() => /more lines/.test(document.querySelector(".console-announce")?.textContent ?? ""));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
