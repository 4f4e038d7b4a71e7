// Spoofing with bidirectional-text controls: a key holding U+202E (right-to-left override) or
// another bidi control must not reorder what the page shows around it — the echoed command
// line, the keyspace list, the sorted-set view's title. Each character must be drawn left of
// the next one, as typed; the control itself is shown as a visible mark, and the text (what a
// copy gives) keeps every character.

import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, newPage, openPlayground, runLine, pause, settled } from "./harness.mjs";

const env = useBrowser();

/**
 * The printable characters of the element's text in the order they are drawn, left to right
 * (line by line), next to the order they are stored in.
 */
function drawnOrder(sel) {
  const root = document.querySelector(sel);
  const chars = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.data.length; i += 1) {
      const ch = node.data[i];
      if (!/[\p{L}\p{N}"'=:]/u.test(ch)) continue;
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const r = range.getBoundingClientRect();
      if (r.width === 0) continue;
      chars.push({ ch, x: r.left, y: Math.round(r.top) });
    }
  }
  const stored = chars.map((c) => c.ch).join("");
  const drawn = [...chars]
    .sort((a, b) => a.y - b.y || a.x - b.x)
    .map((c) => c.ch)
    .join("");
  return { stored, drawn, text: root.textContent };
}

const CONTROLS = ["\u202E", "\u202D", "\u2067", "\u200F", "\u061C"];

for (const control of CONTROLS) {
  const hex = control.codePointAt(0).toString(16).toUpperCase();
  test(`U+${hex} in a key does not reorder the echoed line, the keyspace list or the sorted-set title`, async () => {
    const { page, context, errors } = await newPage(env.browser);
    try {
      await openPlayground(page, env.server.url, "?seed=1&t=1735689600000");
      await pause(page);
      const key = `v${control}abc`;
      const line = `ZADD "${key}" 1 live`;
      const entry = await runLine(page, line);
      assert.equal(entry.typed, line, "the text keeps every character");
      const echo = await page.evaluate(drawnOrder, ".scrollback > .entry:last-child .typed");
      assert.equal(echo.drawn, echo.stored, `echo drawn as ${echo.drawn}`);
      // The control is shown as a visible mark in the echo.
      assert.ok(
        await page.evaluate(() => document.querySelector(".scrollback > .entry:last-child .typed .bidi-control") !== null),
        "a visible mark for the control",
      );
      await settled(page);
      await page.click(".keyspace-row");
      await settled(page);
      const row = await page.evaluate(drawnOrder, ".keyspace-row .ks-key");
      assert.equal(row.text, key);
      assert.equal(row.drawn, row.stored, `keyspace row drawn as ${row.drawn}`);
      const title = await page.evaluate(drawnOrder, ".zset-key");
      assert.equal(title.drawn, title.stored, `sorted-set title drawn as ${title.drawn}`);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}
