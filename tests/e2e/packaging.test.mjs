// The packaged builds: dist/redisplay-single.html opened from file:// (no server, no network:
// every request stays inside the file), and the npm package in dist/npm/ (its manifest, its
// types, and its widget and engine working as installed). Each build script is run first; both
// are quick when nothing changed.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT, startServer, launchBrowser, newPage, terminalText } from "./harness.mjs";

const SINGLE = path.join(REPO_ROOT, "dist/redisplay-single.html");
const NPM = path.join(REPO_ROOT, "dist/npm");

let server;
let browser;

before(async () => {
  execFileSync(path.join(REPO_ROOT, "scripts/build-single.sh"), { cwd: REPO_ROOT, stdio: "inherit" });
  execFileSync(path.join(REPO_ROOT, "scripts/build-npm.sh"), { cwd: REPO_ROOT, stdio: "inherit" });
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function run(page, line) {
  await page.evaluate(() => document.querySelector(".scrollback > .entry:last-child")?.setAttribute("data-seen", ""));
  await page.fill("#console-input", line);
  await page.press("#console-input", "Enter");
  await page.waitForSelector(".scrollback > .entry:last-child:not([data-seen])", { state: "attached" });
  return terminalText(await page.locator(".scrollback > .entry").last().locator(".out").textContent());
}

test("the single-file build works from file:// with nothing but the file, and plays a lab in a widget", async () => {
  const size = statSync(SINGLE).size;
  console.log(`dist/redisplay-single.html: ${(size / 1024 / 1024).toFixed(2)} MB`);
  const { page, context, errors } = await newPage(browser, { viewport: { width: 1400, height: 900 } });
  const outside = [];
  page.on("request", (r) => {
    if (!/^(file|blob|data):/.test(r.url())) outside.push(r.url());
  });
  try {
    // (The dark theme, so the inline styles' background can be checked by its colour.)
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto(`${pathToFileURL(SINGLE).href}?seed=11&t=1735689600000`);
    await page.waitForSelector("html[data-boot]", { state: "attached", timeout: 30_000 });
    assert.equal(await page.getAttribute("html", "data-boot"), "ready");
    await page.click("#clock-play"); // pause
    assert.equal(await run(page, "ZADD board 100 alice 85 bob"), "(integer) 2\n");
    assert.equal(await run(page, "ZRANGE board 0 -1 WITHSCORES"), '1) "bob"\n2) "85"\n3) "alice"\n4) "100"\n');
    assert.match(await page.textContent(".scrollback"), /Seed 11\b/);
    // The page's styles are inline.
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), "rgb(12, 14, 18)");

    // The file defines the widget too; a lab widget plays its lab offline.
    const lab = JSON.parse(readFileSync(path.join(REPO_ROOT, "www/labs/data/leaderboard.json"), "utf8"));
    await page.evaluate(() => {
      const w = document.createElement("redis-playground");
      w.id = "lab";
      w.setAttribute("lab", "leaderboard");
      document.body.prepend(w);
      return w.start();
    });
    assert.equal(await page.getAttribute("#lab", "data-state"), "ready");
    assert.equal(await page.evaluate(() => document.querySelector("#lab").shadowRoot.querySelector(".lab-title").textContent), lab.title);
    await page.click("#lab .lab-run");
    await page.waitForSelector('#lab .lab-player[data-ran="true"]');
    const outs = await page.evaluate(() =>
      [...document.querySelector("#lab").shadowRoot.querySelectorAll(".scrollback > .entry .out")].map((o) => o.textContent),
    );
    const expected = lab.steps[0].lines.filter((l) => typeof l.line === "string").map((l) => l.expect);
    assert.deepEqual(outs.map((o) => terminalText(o).replace(/\n$/, "")), expected);
    // Its styles came from the file as well.
    assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector("#lab").shadowRoot.querySelector(".rp")).backgroundColor), "rgb(12, 14, 18)");
    assert.deepEqual(outside, [], "nothing was fetched from outside the file");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the npm package: manifest, types and files; its widget and engine work as installed", async () => {
  const manifest = JSON.parse(readFileSync(path.join(NPM, "package.json"), "utf8"));
  assert.equal(manifest.type, "module");
  assert.equal(manifest.name, "redisplay");
  const targets = [manifest.types, manifest.exports["."].types, manifest.exports["."].default, manifest.exports["./widget"].types, manifest.exports["./widget"].default, manifest.exports["./redisplay_bg.wasm"]];
  for (const t of targets) assert.ok(existsSync(path.join(NPM, t)), `${t} is in the package`);
  assert.match(readFileSync(path.join(NPM, manifest.exports["."].types), "utf8"), /export class Playground/);
  assert.match(readFileSync(path.join(NPM, manifest.exports["./widget"].types), "utf8"), /"redis-playground": RedisPlaygroundElement/);
  const pack = JSON.parse(readFileSync(path.join(REPO_ROOT, "dist/npm-pack.json"), "utf8"))[0];
  const files = pack.files.map((f) => f.path);
  for (const f of ["package.json", "README.md", "www/widget.js", "www/widget.d.ts", "www/pkg/redisplay_bg.wasm", "www/labs/data/leaderboard.json", "www/widget.css"]) {
    assert.ok(files.includes(f), `npm pack includes ${f}`);
  }

  const { page, context, errors } = await newPage(browser);
  const url = `${server.url}/dist/npm/demo.html`;
  await page.route(url, (route) =>
    route.fulfill({
      contentType: "text/html; charset=utf-8",
      body: `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>
<redis-playground id="w" autorun commands="SET installed yes; GET installed"></redis-playground>
<script type="module" src="./www/widget.js"></script></body></html>`,
    }),
  );
  try {
    await page.goto(url);
    const parts = await page.evaluate(async () => {
      await customElements.whenDefined("redis-playground");
      const w = document.querySelector("#w");
      await w.start();
      const outs = [...w.shadowRoot.querySelectorAll(".scrollback .out")].map((o) => o.textContent);
      // The engine entry ("."), as a library.
      const pkg = await import("./www/pkg/redisplay.js");
      await pkg.default();
      const pg = new pkg.Playground(1, 1735689600000);
      const direct = String(pg.execute("INCRBY n 41").text);
      pg.free();
      return { state: w.dataset.state, outs, direct };
    });
    assert.deepEqual(parts, { state: "ready", outs: ["OK\n", '"yes"\n'], direct: "(integer) 41\n" });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
