// The docs page (docs/index.html): every embedded widget boots when scrolled to, and the HTML
// shown beside each is the markup that made it — as written in docs/index.html.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { useBrowser, REPO_ROOT, newPage } from "./harness.mjs";

const env = useBrowser();

const squash = (s) => s.replace(/\s+/g, " ").trim();

test("the docs page boots every widget and shows the HTML of each as written", async () => {
  const source = squash(await readFile(path.join(REPO_ROOT, "docs/index.html"), "utf8"));
  const { page, context, errors } = await newPage(env.browser, { viewport: { width: 1200, height: 900 } });
  try {
    await page.goto(`${env.server.url}/docs/index.html`);
    await page.waitForSelector("html[data-docs=ready]", { state: "attached" });
    const ids = await page.$$eval(".example", (sections) => sections.map((s) => s.id));
    assert.ok(ids.length >= 5, `examples: ${ids.join(", ")}`);
    for (const id of ids) {
      const widget = `#${id} redis-playground`;
      await page.locator(widget).scrollIntoViewIfNeeded();
      await page.waitForFunction((sel) => ["ready", "failed"].includes(document.querySelector(sel).dataset.state), widget, { timeout: 20_000 });
      assert.equal(await page.getAttribute(widget, "data-state"), "ready", `${id} started`);
      const shown = await page.textContent(`#${id} .snippet code`);
      assert.match(shown, /^<redis-playground[ >][\s\S]*<\/redis-playground>$/, id);
      assert.ok(source.includes(squash(shown)), `${id}: the snippet shown is in docs/index.html as written:\n${shown}`);
      // No widget complains about its attributes.
      const notices = await page.evaluate((sel) => document.querySelector(sel).shadowRoot.querySelectorAll(".notice").length, widget);
      assert.equal(notices, 0, `${id} has no messages`);
    }
    // What the examples promise: the kinds of widget the page says it shows.
    const kinds = await page.evaluate(() =>
      [...document.querySelectorAll(".example redis-playground")].map((w) => ({
        views: w.getAttribute("views") ?? "console",
        readOnly: w.hasAttribute("read-only"),
        autorun: w.hasAttribute("autorun"),
        themed: (w.getAttribute("style") ?? "").includes("--rp-"),
        lab: w.getAttribute("lab"),
      })),
    );
    assert.ok(kinds.some((k) => k.views === "console" && !k.lab && !k.themed), "a plain console");
    assert.ok(kinds.some((k) => k.views.includes("zset")), "a sorted-set view");
    assert.ok(kinds.some((k) => k.views.includes("expiry")), "the expiry view");
    assert.ok(kinds.some((k) => k.readOnly && k.autorun), "read-only autorun");
    assert.ok(kinds.some((k) => k.themed), "a themed one");
    // The read-only example ran its commands; the zset one drew its listpack.
    assert.equal(await page.evaluate(() => document.querySelector("#ex-read-only redis-playground").shadowRoot.querySelectorAll(".scrollback .typed").length), 6);
    assert.ok(await page.evaluate(() => document.querySelector("#ex-zset redis-playground").shadowRoot.querySelectorAll(".lp-entry").length) === 4);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the docs page opened as a file says why the widgets cannot start and how to see them", async () => {
  const { page, context } = await newPage(env.browser, { viewport: { width: 1200, height: 900 } });
  try {
    await page.goto(pathToFileURL(path.join(REPO_ROOT, "docs/index.html")).href);
    await page.waitForSelector("#file-notice", { state: "visible" });
    const notice = await page.textContent("#file-notice");
    assert.match(notice, /file:\/\//);
    assert.match(notice, /scripts\/serve\.sh/);
    assert.match(notice, /redisplay-single\.html/);
    // The samples beside the widgets still show their HTML, and each widget still takes room
    // and says what it is.
    const snippets = await page.$$eval(".example .snippet code", (l) => l.map((c) => c.textContent));
    assert.ok(snippets.length >= 5 && snippets.every((s) => s.startsWith("<redis-playground")), snippets.join("\n"));
    const boxes = await page.$$eval(".example redis-playground", (l) => l.map((w) => Math.round(w.getBoundingClientRect().height)));
    assert.ok(boxes.every((h) => h >= 40), `widget boxes ${boxes.join(", ")} px`);
  } finally {
    await context.close();
  }
});

test("the page itself opened as a file says why it cannot start and how to open it", async () => {
  const { page, context } = await newPage(env.browser);
  try {
    await page.goto(pathToFileURL(path.join(REPO_ROOT, "index.html")).href);
    await page.waitForSelector("html[data-boot=failed]", { state: "attached" });
    const text = await page.textContent("#boot-status");
    assert.match(text, /file:\/\//);
    assert.match(text, /scripts\/serve\.sh/);
    assert.match(text, /redisplay-single\.html/);
  } finally {
    await context.close();
  }
});
