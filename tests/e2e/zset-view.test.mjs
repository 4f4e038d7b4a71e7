// The sorted-set view and the keyspace picker: a small set drawn as a listpack in order, a
// typed ZADD highlighted where it landed, the conversion at the 129th member, the skiplist's
// lanes, a ZRANK's search path, the keyspace list (types, TTL badge, filter), and a million
// members panned and zoomed at frame rate — plus the screenshots test-results/zset-*.png.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { useBrowser, REPO_ROOT, newPage, openPlayground, runLine, pause, frames, settled } from "./harness.mjs";

const START = 1735689600000; // 2025-01-01T00:00:00Z
const QUERY = `?seed=5&t=${START}`;

const env = useBrowser();

async function screenshot(page, name) {
  const dir = path.join(REPO_ROOT, "test-results");
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, name) });
}

/** The sorted-set view's state attributes (data-*). */
function zsetState(page) {
  return page.evaluate(() => ({ ...document.getElementById("zset").dataset }));
}

/** Waits until the sorted-set view's data-<name> equals `value`. */
async function waitZset(page, name, value) {
  await page.waitForFunction(
    ([name, value]) => document.getElementById("zset")?.dataset[name] === value,
    [name, String(value)],
  );
}

/** A paused page with the view ready. */
async function openPaused() {
  const opened = await newPage(env.browser);
  assert.equal(await openPlayground(opened.page, env.server.url, QUERY), "ready");
  await pause(opened.page);
  return opened;
}

function members(from, count, scoreOf = (i) => i) {
  const parts = [];
  for (let i = from; i < from + count; i += 1) parts.push(`${scoreOf(i)} player:${i}`);
  return parts.join(" ");
}

/** Fraction of the canvas's pixels that are not its background (something was drawn). */
function canvasInk(page) {
  return page.evaluate(() => {
    const c = document.getElementById("zset-canvas");
    const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) ink += 1;
    return ink / (data.length / 4);
  });
}

test("empty state, then a small set drawn as a listpack in order; a typed ZADD lands highlighted", async () => {
  const { page, context, errors } = await openPaused();
  try {
    assert.match(await page.textContent("#zset-empty"), /ZADD leaderboard 10 alice 20 bob/);
    assert.ok(await page.isVisible("#zset-empty"));

    await runLine(page, "SET greeting hello");
    await runLine(page, "ZADD leaderboard 10 alice 20 bob 30 carol 15 dave 25 erin");
    // Clicking the key in the keyspace list selects it.
    await page.click('.keyspace-row[data-key="leaderboard"]');
    await waitZset(page, "encoding", "listpack");
    assert.equal(await page.textContent("#zset-key"), "leaderboard");
    assert.equal(await page.textContent("#zset-encoding"), "listpack");
    assert.equal(await page.textContent("#zset-lp-count"), "5 / 128 entries");
    assert.match(await page.textContent("#zset-lp-value"), /longest member 5 \/ 64 bytes/);
    const order = await page.locator("#zset-lp-entries .lp-member").allTextContents();
    assert.deepEqual(order, ["alice", "dave", "bob", "erin", "carol"]);
    const scores = await page.locator("#zset-lp-entries .lp-score").allTextContents();
    assert.deepEqual(scores, ["10", "15", "20", "25", "30"]);
    assert.ok(await page.locator('.keyspace-row[data-key="leaderboard"]').evaluate((n) => n.classList.contains("is-selected")));

    // A ZADD typed in the console: the new member is highlighted where it landed.
    assert.equal((await runLine(page, "ZADD leaderboard 17 frank")).out, "(integer) 1\n");
    await waitZset(page, "landedMember", "frank");
    const state = await zsetState(page);
    assert.equal(state.landedRank, "2");
    assert.equal(state.landedLevel, "0");
    assert.equal(await page.textContent("#zset-landed-entry .lp-member"), "frank");
    assert.equal(await page.getAttribute("#zset-landed-entry", "data-rank"), "2");
    assert.match(await page.textContent("#zset-status"), /frank \(score 17\) landed at rank 2 of the listpack/);
    assert.deepEqual(await page.locator("#zset-lp-entries .lp-member").allTextContents(), [
      "alice",
      "dave",
      "frank",
      "bob",
      "erin",
      "carol",
    ]);
    // Hostile member names stay text.
    await runLine(page, `ZADD leaderboard 1 "<img src=x onerror=alert(1)>"`);
    await waitZset(page, "landedRank", "0");
    assert.equal(await page.textContent("#zset-landed-entry .lp-member"), "<img src=x onerror=alert(1)>");
    assert.equal(await page.locator("#zset img").count(), 0);
    await runLine(page, `ZREM leaderboard "<img src=x onerror=alert(1)>"`);
    await page.waitForFunction(() => /removed 1 member/.test(document.getElementById("zset-status").textContent));

    await settled(page); // the landing transition is over
    await runLine(page, "ZADD leaderboard 12 grace");
    await waitZset(page, "landedMember", "grace");
    await settled(page); // and this one too, before the picture
    await screenshot(page, "zset-listpack.png");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the 129th member converts it to a skiplist: banner, lanes, links, a landed level, a ZRANK path", async () => {
  const { page, context, errors } = await openPaused();
  try {
    await runLine(page, `ZADD leaderboard ${members(0, 128, (i) => i * 10)}`);
    // The first sorted set written to is followed even before it is clicked.
    await waitZset(page, "len", "128");
    assert.equal(await page.textContent("#zset-encoding"), "listpack");
    assert.equal(await page.textContent("#zset-lp-count"), "128 / 128 entries");
    assert.ok(await page.isHidden("#zset-banner"));

    await runLine(page, "ZADD leaderboard 555 newbie");
    await waitZset(page, "encoding", "skiplist");
    const state = await zsetState(page);
    assert.equal(state.len, "129");
    assert.equal(state.converted, "listpack->skiplist");
    assert.ok(await page.isVisible("#zset-banner"));
    assert.match(await page.textContent("#zset-banner"), /Converted listpack → skiplist at 129 members: zset-max-listpack-entries is 128/);
    assert.equal(await page.textContent("#zset-encoding"), "skiplist");

    // Where it landed, and the level it drew, as the engine says.
    assert.equal(state.landedMember, "newbie");
    assert.equal((await runLine(page, "ZRANK leaderboard newbie")).out, "(integer) 56\n");
    assert.equal(state.landedRank, "56");
    const level = Number(state.landedLevel);
    assert.ok(level >= 1 && level <= Number(state.maxLevel), `level ${level}`);
    const start = Number(state.start);
    assert.ok(start <= 56 && 56 < start + Number(state.cols), "the landed member is in view");

    // Lanes: the canvas drew one per level, with links and towers; the legend names them.
    await waitZset(page, "searchCommand", "zrank");
    const canvas = await page.evaluate(() => ({ ...document.getElementById("zset-canvas").dataset }));
    assert.equal(canvas.lanes, state.maxLevel);
    assert.ok(Number(state.maxLevel) >= 2, "129 members almost surely have 2+ levels");
    assert.equal(canvas.columns, state.cols);
    assert.ok(Number(canvas.links) >= Number(canvas.columns), `links ${canvas.links}`);
    assert.ok((await canvasInk(page)) > 0.05, "the canvas has a drawing on it");
    assert.match(await page.textContent("#zset-lanes"), new RegExp(`^${state.maxLevel} lanes: L1 \\(every member\\) … L${state.maxLevel}`));

    // The ZRANK typed above: its search path, top level first, ending on the member.
    const after = await zsetState(page);
    assert.equal(after.searchResultRank, "56");
    assert.ok(Number(after.searchSteps) >= 2);
    assert.match(await page.textContent("#zset-status"), /ZRANK examined \d+ nodes on \d+ levels? of \d+, then found newbie at rank 56/);
    const lanesListed = await page.locator("#zset-path .path-lane").allTextContents();
    assert.equal(lanesListed[0], `L${state.maxLevel}`, "the walk starts on the top level");
    assert.deepEqual([...lanesListed].sort().reverse(), lanesListed, "and only goes down");
    assert.ok(await page.locator("#zset-path .path-step.is-advanced .path-member", { hasText: "newbie" }).count() >= 1);
    // The path is revealed step by step.
    await page.waitForFunction(() => Number(document.getElementById("zset-canvas").dataset.pathShown) >= 1);
    assert.ok(Number(await page.getAttribute("#zset-canvas", "data-path-shown")) >= 1);

    // ZRANGEBYSCORE: a range lookup ends on the first member in range.
    await runLine(page, "ZRANGEBYSCORE leaderboard 300 +inf LIMIT 0 1");
    await waitZset(page, "searchCommand", "zrangebyscore");
    assert.equal((await zsetState(page)).searchResultRank, "30");
    assert.match(await page.textContent("#zset-status"), /first in range: player:30 at rank 30/);

    // ZREM says what went.
    await runLine(page, "ZREM leaderboard player:3 player:4");
    await page.waitForFunction(() => /removed 2 members: player:3, player:4/.test(document.getElementById("zset-status").textContent));
    await waitZset(page, "len", "127");
    assert.equal(await page.textContent("#zset-encoding"), "skiplist"); // no conversion back, as in Redis

    // Pan with the keyboard, zoom with the buttons, go to a rank.
    await page.click("#zset-first");
    await waitZset(page, "start", "0");
    await page.focus(".zset-canvas-wrap");
    await page.keyboard.press("ArrowRight");
    await waitZset(page, "start", "1");
    await page.click("#zset-zoom-in");
    await waitZset(page, "cols", "16");
    await page.fill("#zset-goto-rank", "-1");
    await page.press("#zset-goto-rank", "Enter");
    await waitZset(page, "start", String(127 - 16));

    // The picture: a fresh ZRANK on a mid-rank member at a comfortable zoom.
    await page.click("#zset-zoom-out");
    await runLine(page, "ZRANK leaderboard player:70"); // 70 players below it, 2 removed, and newbie
    await waitZset(page, "searchResultRank", "69");
    await settled(page);
    await screenshot(page, "zset-skiplist.png");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the keyspace list: types, lengths, TTLs and an expired badge, a glob filter, other types explained", async () => {
  const { page, context, errors } = await openPaused();
  try {
    for (const line of [
      "SET user:1 alice",
      "SET user:2 bob PX 1500",
      "SET counter 12345",
      "SET user:1:bio 'likes sorted sets'",
      "ZADD board 1 x 2 y",
      "SET <b>bold</b> html",
    ]) {
      await runLine(page, line);
    }
    await page.waitForFunction(() => document.getElementById("keyspace")?.dataset.total === "6");
    const rows = await page.locator(".keyspace-row").evaluateAll((rs) =>
      rs.map((r) => [...r.children].map((c) => c.textContent)),
    );
    const byKey = Object.fromEntries(rows.map((r) => [r[0], r.slice(1)]));
    assert.deepEqual(byKey.counter.slice(0, 3), ["string", "int", "5 bytes"]);
    assert.deepEqual(byKey.board.slice(0, 3), ["zset", "listpack", "2 members"]);
    assert.deepEqual(byKey["user:1"].slice(0, 4), ["string", "embstr", "5 bytes", ""]);
    assert.equal(byKey["user:2"][3], "1.5s");
    assert.ok("<b>bold</b>" in byKey, "a key that looks like markup is listed as text");
    assert.equal(await page.locator("#keyspace b").count(), 0);

    // Past its TTL but not yet reclaimed (CLOCK SET runs no cron): the badge says expired.
    await runLine(page, `CLOCK SET ${START + 5000}`);
    await page.waitForFunction(() =>
      [...document.querySelectorAll(".keyspace-row")].some((r) => r.dataset.key === "user:2" && r.querySelector(".ks-ttl.is-expired")?.textContent === "expired"),
    );

    await page.fill("#keyspace-filter", "user:*");
    await page.waitForFunction(() => document.querySelectorAll(".keyspace-row").length === 3);
    assert.deepEqual((await page.locator(".keyspace-row .ks-key").allTextContents()).sort(), ["user:1", "user:1:bio", "user:2"]);
    await page.fill("#keyspace-filter", "nomatch*");
    await page.waitForFunction(() => /No key matches nomatch\*/.test(document.getElementById("keyspace-empty").textContent));
    await page.fill("#keyspace-filter", "");

    // A string is described, not shown in the sorted-set view.
    await page.click('.keyspace-row[data-key="user:1"]');
    await page.waitForFunction(() => /user:1: a string \(embstr, 5 bytes\)/.test(document.getElementById("keyspace-info").textContent));
    // SELECT switches the list to the console's db.
    await runLine(page, "SELECT 3");
    await page.waitForFunction(() => document.getElementById("keyspace").dataset.db === "3");
    assert.match(await page.textContent("#keyspace-empty"), /db 3 is empty/);
    // Deleting the sorted set on display says so.
    await runLine(page, "SELECT 0");
    await page.click('.keyspace-row[data-key="board"]');
    await waitZset(page, "encoding", "listpack");
    await runLine(page, "DEL board");
    await waitZset(page, "encoding", "");
    assert.match(await page.textContent("#zset-empty"), /“board” is not a sorted set \(any more\)/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("a million members: panning and zooming stay at frame rate, and nothing redraws while idle", async () => {
  const { page, context, errors } = await openPaused();
  try {
    // Load through the page's own engine (pageParts), 5,000 members per ZADD.
    const loadMs = await page.evaluate(async () => {
      const { pageParts } = await import("/www/main.js");
      const t0 = performance.now();
      const batch = 5000;
      for (let b = 0; b < 1_000_000 / batch; b += 1) {
        const parts = ["ZADD million"];
        for (let i = b * batch; i < (b + 1) * batch; i += 1) parts.push(String(i * 3), `player:${i}`);
        const r = pageParts.engine.execute(parts.join(" "));
        if (r.text !== `(integer) ${batch}\n`) throw new Error(`batch ${b}: ${r.text}`);
      }
      pageParts.loop.wake();
      return performance.now() - t0;
    });
    await waitZset(page, "len", "1000000");
    assert.equal(await page.textContent("#zset-encoding"), "skiplist");
    const levels = Number((await zsetState(page)).maxLevel);
    assert.ok(levels >= 8, `levels ${levels}`);

    // Idle: paused, nothing happening (the last member's highlight has faded) → no redraws.
    await settled(page);
    const drawsBefore = Number((await zsetState(page)).draws);
    await frames(page, 30);
    assert.equal(Number((await zsetState(page)).draws), drawsBefore, "no redraw while idle");

    // The last member loaded is in view, at the very end: start from the beginning instead.
    await page.click("#zset-first");
    await waitZset(page, "start", "0");

    // One input per frame for ~1.2 s: wheel pans (a few columns each), a zoom step every 5
    // frames, a far jump every 30; frame times are the intervals between animation frames.
    const m = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const wrap = document.querySelector(".zset-canvas-wrap");
          const view = document.getElementById("zset");
          const frameTimes = [];
          const work = [];
          let last = null;
          let lastDraws = Number(view.dataset.draws);
          let i = 0;
          const t0 = performance.now();
          const starts = new Set();
          const cols = new Set();
          function tick(t) {
            if (last !== null) frameTimes.push(t - last);
            last = t;
            const draws = Number(view.dataset.draws);
            if (draws !== lastDraws) work.push(Number(view.dataset.workMs));
            lastDraws = draws;
            starts.add(view.dataset.start);
            cols.add(view.dataset.cols);
            if (i % 30 === 29) {
              const input = document.getElementById("zset-goto-rank");
              input.value = String(Math.floor(((i * 7919) % 1000) * 1000));
              input.form.requestSubmit();
            } else if (i % 5 === 2) {
              // Out to the widest zoom (400 columns) and back.
              const zoomOut = Math.floor(i / 5) % 16 < 8;
              wrap.dispatchEvent(new KeyboardEvent("keydown", { key: zoomOut ? "-" : "+", bubbles: true }));
            } else {
              wrap.dispatchEvent(new WheelEvent("wheel", { deltaY: 90, bubbles: true, cancelable: true }));
            }
            i += 1;
            if (t - t0 < 1200) requestAnimationFrame(tick);
            else resolve({ frameTimes, work, starts: starts.size, cols: [...cols] });
          }
          requestAnimationFrame(tick);
        }),
    );
    const sorted = [...m.frameTimes].sort((a, b) => a - b);
    const pct = (p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
    const workSorted = [...m.work].sort((a, b) => a - b);
    const workPct = (p) => workSorted[Math.min(workSorted.length - 1, Math.floor((workSorted.length * p) / 100))] ?? NaN;
    console.log(
      `# 1,000,000 members (${levels} levels), loaded in ${(loadMs / 1000).toFixed(1)} s; ` +
        `${m.frameTimes.length} frames panning/zooming: frame time median ${pct(50).toFixed(1)} ms, ` +
        `p95 ${pct(95).toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms; ` +
        `view work per redraw (fetch + draw) median ${workPct(50).toFixed(2)} ms, p95 ${workPct(95).toFixed(2)} ms ` +
        `over ${m.work.length} redraws; zooms seen ${m.cols.join("/")}`,
    );
    assert.ok(m.frameTimes.length >= 30, `only ${m.frameTimes.length} frames in 1.2 s`);
    assert.ok(pct(50) < 50, `median frame ${pct(50).toFixed(1)} ms`);
    assert.ok(m.starts > 20, "the window moved");
    assert.ok(m.cols.length >= 2, "the zoom changed");

    // The picture: somewhere in the middle, zoomed out, after a ZRANK.
    await page.fill("#zset-goto-rank", "500000");
    await page.press("#zset-goto-rank", "Enter");
    await runLine(page, "ZRANK million player:500020");
    await waitZset(page, "searchResultRank", "500020");
    assert.ok(Number((await zsetState(page)).searchSteps) < 200, "a search touches a few dozen nodes, not a million");
    await settled(page);
    await screenshot(page, "zset-million.png");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
