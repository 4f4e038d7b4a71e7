// First load as the README serves it (scripts/serve.sh): precompressed brotli from a real static
// file server, as a CDN would send it; a loading bar that shows the engine's bytes arriving; and
// a welcome that names the labs.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import path from "node:path";
import { REPO_ROOT, assertBuilt, launchBrowser, newPage, freePort } from "./harness.mjs";


const env = { url: "", child: null, browser: null };

before(async () => {
  assertBuilt();
  // As scripts/build-web.sh leaves it: every served file with a current .br/.gz (quick when so).
  execFileSync(process.execPath, [path.join(REPO_ROOT, "scripts/precompress.mjs")], { stdio: "ignore" });
  const port = await freePort();
  // What is built, served as the README's command serves it (without building again).
  env.child = spawn(path.join(REPO_ROOT, "scripts/serve.sh"), [String(port)], {
    cwd: REPO_ROOT,
    env: { ...process.env, REDISPLAY_NO_BUILD: "1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise((resolve, reject) => {
    env.child.once("exit", (code) => reject(new Error(`scripts/serve.sh exited (${code})`)));
    env.child.stdout.on("data", (chunk) => {
      if (String(chunk).includes(`:${port}/`)) resolve();
    });
  });
  env.url = `http://127.0.0.1:${port}`;
  env.browser = await launchBrowser();
});

after(async () => {
  await env.browser?.close();
  env.child?.kill("SIGTERM");
});

test("scripts/serve.sh sends the page and the engine precompressed (brotli), with their own content types", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    let wire = 0;
    cdp.on("Network.loadingFinished", (e) => {
      wire += e.encodedDataLength;
    });
    // Each response's headers as the network saw them (the engine's comes from its preload).
    const responses = new Map();
    cdp.on("Network.responseReceived", (e) => {
      const headers = Object.fromEntries(Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), v]));
      if (!responses.has(new URL(e.response.url).pathname)) responses.set(new URL(e.response.url).pathname, headers);
    });
    await page.goto(`${env.url}/?seed=1&t=1735689600000`);
    await page.waitForSelector("html[data-boot=ready]", { state: "attached" });
    const wasm = responses.get("/www/pkg/redisplay_bg.wasm");
    assert.ok(wasm, "the engine was fetched");
    const wasmHeaders = wasm;
    assert.equal(wasmHeaders["content-encoding"], "br");
    assert.equal(wasmHeaders["content-type"], "application/wasm");
    const main = responses.get("/www/main.js");
    assert.equal(main["content-encoding"], "br");
    assert.match(main["content-type"], /javascript/);
    assert.match(main.vary ?? "", /accept-encoding/i);
    // The whole first load, on the wire: under half of the 2.5 MB it was uncompressed.
    assert.ok(wire < 1_200_000, `${wire} bytes on the wire`);
    // And it works: a command, its reply.
    await page.fill("#console-input", "PING");
    await page.press("#console-input", "Enter");
    await page.waitForFunction(() => /PONG/.test(document.querySelector(".scrollback").textContent));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the loading bar counts the engine's bytes as they arrive, and the welcome names the labs", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    // Slow enough to watch: 300 KB/s.
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 40, downloadThroughput: 300_000, uploadThroughput: 300_000 });
    await page.addInitScript(() => {
      window.__progress = [];
      const watch = () => {
        const bar = document.getElementById("boot-progress");
        const status = document.getElementById("boot-status");
        if (bar && status && bar.isConnected) window.__progress.push({ value: bar.value, max: bar.max, text: status.textContent });
        if (!document.documentElement.dataset.boot) requestAnimationFrame(watch);
      };
      requestAnimationFrame(watch);
    });
    await page.goto(`${env.url}/?seed=1&t=1735689600000`);
    await page.waitForSelector("html[data-boot=ready]", { state: "attached", timeout: 60_000 });
    const seen = await page.evaluate(() => window.__progress);
    const counting = seen.filter((p) => /Loading the engine… [\d,]+ KB of [\d,]+ KB/.test(p.text));
    assert.ok(counting.length >= 3, `the status counted: ${JSON.stringify(seen.slice(-3))}`);
    const values = seen.map((p) => p.value);
    assert.ok(values.every((v, i) => i === 0 || v >= values[i - 1]), "the bar only grows");
    const last = counting[counting.length - 1];
    assert.ok(last.max > 1_000_000, `the total is the engine's size (${last.max} B)`);
    assert.ok(new Set(values).size >= 3, "the bar moved");
    const welcome = await page.textContent(".scrollback");
    assert.match(welcome, /Labs menu/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
