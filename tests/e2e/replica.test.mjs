// The page's replica: + Replica opens redis-cli on the second server (127.0.0.1:6380) with
// REPLICAOF typed; sent, it syncs, and the persistence view's replica lane shows both servers,
// the link and the chunks on it. A slow link holds the master's DEL of an expired key on the
// wire while the replica still counts the key; SCAN on the replica deletes nothing; a cut loses
// what was in flight and the replica catches up with a partial resync once the link is back.
// A shared session replays the replica and the link. Screenshots at laptop and phone size
// (test-results/replica-*.png).

import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, newPage, openPlayground, pause, drained, screenshot } from "./harness.mjs";

const START = 1735689600000; // 2025-01-01T00:00:00Z
const QUERY = `?seed=3&t=${START}`;
const env = useBrowser();

/** Sends a line in console pane `n` (0-based) and returns what it printed. */
async function runOn(page, n, line) {
  const pane = page.locator(`.console-pane[data-console="${n}"]`);
  await pane.evaluate((p) => p.querySelector(".scrollback > .entry:last-child")?.setAttribute("data-seen", ""));
  const input = pane.locator("input, textarea").first();
  await input.fill(line);
  await input.press("Enter");
  await pane.locator(".scrollback > .entry:last-child:not([data-seen])").waitFor({ state: "attached" });
  return pane.locator(".scrollback > .entry").last().evaluate((e) => e.querySelector(".out")?.textContent ?? null);
}

/** The replica lane as shown: each server's line with its key counts, the link, the chunks. */
async function lane(page) {
  return page.locator("#persistence .persistence-replica").evaluate((box) => ({
    servers: [...box.querySelectorAll(".replica-server")].map((li) => ({ text: li.textContent, keys: Number(li.dataset.keys), stale: Number(li.dataset.stale) })),
    link: box.querySelector(".replica-link-state")?.textContent ?? "",
    chunks: [...box.querySelectorAll(".replica-chunk")].map((tr) => ({ what: tr.querySelector(".what")?.textContent ?? "", fate: [...tr.classList].find((c) => c.startsWith("fate-")) })),
    notes: [...box.querySelectorAll(".replica-notes li")].map((li) => li.textContent),
  }));
}

/** Waits until the lane (read at most every 250 ms) satisfies `ok`. */
async function laneWhere(page, ok, what) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const l = await lane(page);
    if (ok(l)) return l;
    if (Date.now() > deadline) assert.fail(`the replica lane never showed ${what}: ${JSON.stringify(l).slice(0, 2000)}`);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  }
}

for (const [label, viewport] of [
  ["laptop", { width: 1280, height: 800 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test(`a replica in the page: sync, a slow link, SCAN on the replica, a cut and a partial resync (${label})`, async () => {
    const { page, context, errors } = await newPage(env.browser, { viewport });
    try {
      assert.equal(await openPlayground(page, env.server.url, QUERY), "ready");
      await pause(page);
      await page.click("#tab-persistence");
      await page.waitForSelector("#persistence:not([hidden]) .replica-empty:not([hidden])");

      assert.equal(await runOn(page, 0, "SET session:1 alice EX 3600"), "OK\n");
      await page.click(".console-add-replica");
      const replicaPane = page.locator('.console-pane[data-console="1"]');
      await replicaPane.waitFor();
      assert.equal(await replicaPane.getAttribute("data-server"), "1");
      assert.match(await replicaPane.locator(".console-pane-client").textContent(), /^console \d · 127\.0\.0\.1:6380 · client \d+$/);
      // Typed for the learner, not sent.
      assert.equal(await replicaPane.locator("input, textarea").first().inputValue(), "REPLICAOF 127.0.0.1 6379");
      await replicaPane.locator("input, textarea").first().press("Enter");
      await replicaPane.locator(".scrollback > .entry .out").last().waitFor();
      assert.equal(await replicaPane.locator(".scrollback > .entry .out").last().textContent(), "OK\n");

      // The diskless sync waits repl-diskless-sync-delay (5 s) of virtual time.
      await runOn(page, 0, "CLOCK ADVANCE 6000");
      assert.equal(await runOn(page, 1, "GET session:1"), '"alice"\n');
      let l = await laneWhere(page, (x) => x.servers.length === 2 && x.chunks.some((c) => c.what.includes("RDB payload")), "the full sync");
      assert.match(l.servers[1].text, /^127\.0\.0\.1:6380 — replica of 127\.0\.0\.1:6379 \(link connected\)/);
      assert.ok(l.chunks.some((c) => c.what.includes("+FULLRESYNC")), "the master's +FULLRESYNC is listed");
      assert.ok(l.notes.some((n) => n.includes("6380:S MASTER <-> REPLICA sync: Finished with success")), `the replica's log: ${l.notes.join(" | ")}`);

      // A slow link: the master's DEL of an expired key is on the wire, the replica counts it.
      await page.selectOption("#persistence .replica-latency", "1000");
      await runOn(page, 0, "SET flash:1 x PX 100");
      await runOn(page, 0, "CLOCK ADVANCE 1050");
      assert.equal(await runOn(page, 0, "DBSIZE"), "(integer) 1\n");
      assert.equal(await runOn(page, 1, "GET flash:1"), "(nil)\n");
      assert.equal(await runOn(page, 1, "DBSIZE"), "(integer) 2\n");
      assert.equal(await runOn(page, 1, "SCAN 0 MATCH flash:*"), '1) "0"\n2) (empty array)\n');
      assert.equal(await runOn(page, 1, "DBSIZE"), "(integer) 2\n", "SCAN on the replica deleted nothing");
      l = await laneWhere(page, (x) => x.servers[1]?.stale === 1 && x.chunks.some((c) => c.what.includes("DEL flash:1") && c.fate === "fate-in-flight"), "DEL flash:1 in flight");
      assert.match(l.servers[1].text, /2 keys, 1 past their deadline — kept until the master's DEL arrives/);
      assert.match(l.servers[1].text, /Past their deadline, still there: flash:1 \(dead 0\.9\d s\)/);
      assert.match(l.link, /latency 1000 ms each way/);
      await drained(page);
      await screenshot(page, `replica-${label}.png`);
      await screenshot(page.locator("#persistence"), `replica-panel-${label}.png`);
      await runOn(page, 0, "CLOCK ADVANCE 200");
      assert.equal(await runOn(page, 1, "DBSIZE"), "(integer) 1\n", "the DEL arrived");

      // A cut: what is in flight is lost; the replica catches up with +CONTINUE afterwards.
      await page.selectOption("#persistence .replica-latency", "1");
      await page.click("#persistence .replica-cut");
      await page.waitForSelector('#persistence[data-link="down"]');
      assert.equal(await page.textContent("#persistence .replica-cut"), "Restore the link");
      await runOn(page, 0, "SET order:9 paid");
      await runOn(page, 0, "CLOCK ADVANCE 3000");
      assert.equal(await runOn(page, 1, "GET order:9"), "(nil)\n");
      await page.click("#persistence .replica-cut");
      await page.waitForSelector('#persistence[data-link="up"]');
      await runOn(page, 0, "CLOCK ADVANCE 2000");
      assert.equal(await runOn(page, 1, "GET order:9"), '"paid"\n');
      await laneWhere(page, (x) => x.chunks.some((c) => c.what.includes("+CONTINUE")), "+CONTINUE");

      // Shared as a link, the session brings back the replica, its console and the link.
      if (label === "laptop") {
        await page.click(".share-menu > summary");
        await page.waitForFunction(() => document.getElementById("share-url").value !== "");
        const link = await page.inputValue("#share-url");
        const b = await newPage(env.browser, { viewport });
        try {
          await b.page.goto(link);
          await b.page.waitForSelector("html[data-boot]");
          assert.equal(await b.page.getAttribute("html", "data-boot"), "ready");
          await b.page.waitForSelector('.console-pane[data-console="1"][data-server="1"]');
          await b.page.waitForFunction(() => Number(document.querySelector("#clock-time").dataset.ms) >= 1735689612250);
          await drained(b.page);
          const state = await b.page.evaluate(async () => {
            const { pageParts } = await import("/www/main.js");
            const e = pageParts.engine;
            return { order: e.executeOn(1, "GET order:9").text, role: e.executeOn(1, "ROLE").text.split("\n")[0], latency: e.replication()?.network.latencyMs };
          });
          assert.deepEqual(state, { order: '"paid"\n', role: '1) "slave"', latency: 1 });
          assert.deepEqual(b.errors, []);
        } finally {
          await b.context.close();
        }
      }
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}
