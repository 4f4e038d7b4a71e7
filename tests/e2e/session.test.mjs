// Shareable sessions: the Share menu's link reopens the same session — seed, every line typed
// on every console, the controls' CONFIG SETs, the clock's position — on a fresh page, and the
// state is the same (the engine is deterministic); a session exported to a file and imported
// again is the same too; `?commands=` (a base64url JSON list, redis.io style) runs lines at
// start; a damaged link gives a message and a fresh playground.

import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, newPage, openPlayground, pause, runLine } from "./harness.mjs";

const env = useBrowser();

/** The same inspection in any page: what a user would look at, as engine replies. */
async function inspect(page) {
  return page.evaluate(async () => {
    const { pageParts } = await import("/www/main.js");
    const e = pageParts.engine;
    const lines = ["CLOCK GET", "DBSIZE", "KEYS *", "TTL cart:1", "ZRANGE board 0 -1 WITHSCORES", "CONFIG GET hz", "INFO stats", "INFO memory", "CLIENT LIST", "OBJECT ENCODING board"];
    // peek-free: the same commands in the same order on both pages (they count, identically)
    return lines.map((l) => e.command(l.split(" ")).text);
  });
}

async function shareLink(page) {
  await page.click(".share-menu > summary");
  await page.waitForFunction(() => document.getElementById("share-url").value !== "" || document.getElementById("share-status").textContent !== "");
  return page.inputValue("#share-url");
}

const HOSTILE = "<img src=x onerror=alert(1)>";

/** Every console's lines and what they printed, in order. */
async function consoleText(page) {
  return page.$$eval(".console-pane", (panes) =>
    panes.map((pane) =>
      [...pane.querySelectorAll(".scrollback > .entry")]
        .filter((e) => e.querySelector(".typed"))
        .map((e) => `${e.querySelector(".typed").textContent} → ${e.querySelector(".out")?.textContent ?? ""}`),
    ),
  );
}

async function buildSession(page) {
  assert.equal(await openPlayground(page, env.server.url, "?seed=42&t=1735732800000"), "ready");
  await pause(page);
  await runLine(page, "ZADD board 10 a 20 b 30 c");
  await runLine(page, `SET "${HOSTILE}" v`);
  await runLine(page, "SET cart:1 x EX 100");
  await runLine(page, "SET cart:2 y PX 1500");
  await runLine(page, "10 INCR n");
  // A second client.
  await page.click(".console-add");
  await page.fill("#console-input-2", "RPUSH q 1 2 3");
  await page.press("#console-input-2", "Enter");
  // A control: hz through the expiry view's form (a CONFIG SET on the user's behalf).
  await page.evaluate(async () => {
    const { pageParts } = await import("/www/main.js");
    pageParts.engine.command(["CONFIG", "SET", "hz", "50"]);
  });
  // Time passes (cron runs: cart:2 is reclaimed by the active cycle, or not yet).
  await page.evaluate(async () => {
    const { pageParts } = await import("/www/main.js");
    pageParts.loop.advanceBy(2500);
  });
  await page.waitForFunction(() => Number(document.querySelector("#clock-time").dataset.ms) >= 1735732802500);
  await runLine(page, "SET late 1");
}

test("a shared link reopens the same session: same keys, TTLs, stats, memory, clients and clock", async () => {
  const a = await newPage(env.browser);
  const b = await newPage(env.browser);
  try {
    await buildSession(a.page);
    await a.page.click("#tab-expiry");
    const link = await shareLink(a.page);
    assert.match(link, /#expiry$/);
    const text = await consoleText(a.page);
    assert.match(link, /\?session=1\.[A-Za-z0-9_-]+/);
    assert.match(await a.page.textContent("#share-status"), /recorded steps/);
    const want = await inspect(a.page);
    await b.page.goto(link);
    await b.page.waitForSelector("html[data-boot]");
    assert.equal(await b.page.getAttribute("html", "data-boot"), "ready");
    assert.equal(await b.page.locator("#notices .notice").count(), 0);
    // Both consoles came back, each with the same lines and outputs; the same view on show.
    assert.equal(await b.page.locator(".console-pane").count(), 2);
    assert.deepEqual(await consoleText(b.page), text);
    assert.equal(await b.page.isVisible("#expiry"), true);
    assert.equal(await b.page.isVisible("#zset"), false);
    // The hostile key name is text wherever it shows.
    assert.match(await b.page.textContent("#keyspace"), /<img src=x onerror=alert\(1\)>/);
    assert.equal(await b.page.locator("img").count(), 0);
    const got = await inspect(b.page);
    assert.deepEqual(got, want);
    assert.ok(Number(/\d+/.exec(want[0])[0]) >= 1735732802500, want[0]);
    assert.deepEqual(a.errors, []);
    assert.deepEqual(b.errors, []);
  } finally {
    await a.context.close();
    await b.context.close();
  }
});

test("a session exported to a file and imported again is the same session", async () => {
  const a = await newPage(env.browser);
  try {
    await buildSession(a.page);
    await a.page.click(".share-menu > summary");
    const [download] = await Promise.all([a.page.waitForEvent("download"), a.page.click("#share-export")]);
    const path = await download.path();
    const want = await inspect(a.page);
    const b = await newPage(env.browser);
    try {
      assert.equal(await openPlayground(b.page, env.server.url, "?seed=7"), "ready");
      await b.page.click(".share-menu > summary");
      await Promise.all([b.page.waitForURL(/session=/), b.page.setInputFiles("#share-import", path)]);
      await b.page.waitForSelector('html[data-boot="ready"]');
      assert.deepEqual(await inspect(b.page), want);
      assert.deepEqual(b.errors, []);
    } finally {
      await b.context.close();
    }
  } finally {
    await a.context.close();
  }
});

test("?commands= runs a base64url JSON list of lines at start; damaged links give a message", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    const lines = ["SET greeting hello", "APPEND greeting \" world\"", "GET greeting"];
    const b64 = Buffer.from(JSON.stringify(lines)).toString("base64url");
    assert.equal(await openPlayground(page, env.server.url, `?seed=1&commands=${b64}`), "ready");
    const outs = await page.$$eval(".scrollback > .entry .out", (n) => n.map((x) => x.textContent));
    assert.deepEqual(outs.slice(-3), ["OK\n", "(integer) 11\n", '"hello world"\n']);
    // (More lines than the page takes, yet a URL the test server accepts.)
    const huge = Buffer.from(JSON.stringify(Array.from({ length: 1200 }, () => "PING"))).toString("base64url");
    for (const q of ["?session=1.AAAA", "?session=%3Cscript%3E", "?commands=notjson", `?commands=${Buffer.from('{"a":1}').toString("base64url")}`, `?commands=${huge}`]) {
      assert.equal(await openPlayground(page, env.server.url, q), "ready");
      assert.match(await page.textContent("#notices"), /could not be (opened|read)/);
      if (q.includes(huge)) assert.match(await page.textContent("#notices"), /at most 1000 command lines/);
      assert.equal(await page.locator("#notices script").count(), 0);
    }
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
