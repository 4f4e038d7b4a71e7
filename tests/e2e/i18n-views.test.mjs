// The views in Simplified Chinese (index.html?lang=zh-CN): the clock bar, the sorted-set view
// (a listpack of Chinese members, then a skiplist after the conversion), the keyspace list, the
// expiry view (a populate from its form, a form error naming its field, a stepped tick, a lazy
// expiry, the classic algorithm) and the persistence view (the AOF on, a rewritten TTL, a replica)
// show their text in Chinese, and none of a few known English strings of theirs is left in the
// visible panel — plus the screenshots test-results/i18n-views-<view>-{laptop,phone}.png.

import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, newPage, openPlayground, runLine, clockMs, drained, screenshot } from "./harness.mjs";

const START = 1735689600000; // 2025-01-01T00:00:00Z
const QUERY = `?lang=zh-CN&seed=7&t=${START}`;
const CJK = /[\u4e00-\u9fff]/;

const env = useBrowser();

/**
 * The visible text of a panel (what a reader sees, not hidden parts).
 * @param {import("playwright-core").Page} page
 * @param {string} selector
 */
// biome-ignore lint/performance/useDomNodeTextContent: what a reader sees (hidden parts left out) is the point
const visibleText = (page, selector) => page.locator(selector).innerText();

/**
 * Asserts `text` holds every string of `want` and none of `english`.
 * @param {string} text
 * @param {string[]} want
 * @param {string[]} english
 * @param {string} where
 */
function assertChinese(text, want, english, where) {
  assert.match(text, CJK, `${where}: no Chinese at all`);
  for (const w of want) assert.ok(text.includes(w), `${where}: "${w}" missing in:\n${text}`);
  for (const e of english) assert.ok(!text.includes(e), `${where}: English "${e}" left in:\n${text}`);
}

/**
 * The viewport with `selector` at its top (on a phone the panel sits below the console), saved
 * as test-results/i18n-views-<name>.png.
 * @param {import("playwright-core").Page} page
 * @param {string} selector
 * @param {string} name
 */
async function shoot(page, selector, name) {
  await page.evaluate((sel) => document.querySelector(sel)?.scrollIntoView({ block: "start" }), selector);
  await screenshot(page, `i18n-views-${name}.png`);
}

/** @param {import("playwright-core").Page} page  pauses the clock (the button's state, not its words) */
async function pauseClock(page) {
  if ((await page.getAttribute("#clock-play", "aria-pressed")) === "true") await page.click("#clock-play");
  await page.waitForSelector("#clock-play[aria-pressed=false]");
}

/**
 * @param {import("playwright-core").Page} page
 * @param {string} view
 */
async function showView(page, view) {
  await page.click(`#tab-${view}`);
  await page.waitForFunction((v) => document.documentElement.dataset.panelView === v, view);
  await drained(page);
}

for (const [device, viewport] of [
  ["laptop", { width: 1280, height: 800 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test(`the views in Chinese (${device})`, { timeout: 180_000 }, async () => {
    const { page, context, errors } = await newPage(env.browser, { viewport });
    try {
      assert.equal(await openPlayground(page, env.server.url, QUERY), "ready");
      assert.equal(await page.getAttribute("html", "lang"), "zh-CN");
      await pauseClock(page);

      // The clock bar.
      const clockText = await visibleText(page, "#clock");
      assertChinese(clockText, ["播放", "速度", "快进", "重置", "每 100 ms"], ["Play", "Reset", "Jump", "speed", "ticks"], "clock");
      assert.match(clockText, /cron [\d,]+ 次/);
      await page.fill("#clock-jump-seconds", "abc");
      await page.click("#clock-jump");
      assert.equal(await page.textContent("#clock-jump-error"), "请输入秒数，如 30 或 0.5。");
      await shoot(page, "body", `clock-${device}`);

      // The sorted-set view: a listpack with Chinese members.
      assert.equal((await runLine(page, "ZADD 城市 10 北京 20 上海 30 zhangsan 40 lisi")).out, "(integer) 4\n");
      await drained(page);
      await page.waitForFunction(() => document.querySelector("#zset")?.dataset.mode === "listpack");
      assertChinese(
        await visibleText(page, "#zset"),
        ["有序集合", "4 个成员", "4 / 128 个条目", "最长成员 8 / 64 字节", "落在 listpack 的排名 3 处", "扁平的 listpack", "北京"],
        ["Sorted set", "members", "entries", "landed at", "longest member", "A small sorted set"],
        "zset listpack",
      );
      await shoot(page, "#zset", `zset-listpack-${device}`);

      // Past zset-max-listpack-entries: a skiplist, the conversion banner, a search path.
      await runLine(page, "CONFIG SET zset-max-listpack-entries 4");
      await runLine(page, "ZADD 城市 50 广州 60 深圳 70 wangwu 80 杭州 90 成都 100 zhaoliu");
      await drained(page);
      await page.waitForFunction(() => document.querySelector("#zset")?.dataset.mode === "skiplist");
      await runLine(page, "ZRANK 城市 杭州");
      await drained(page);
      await page.waitForFunction(() => document.querySelector("#zset")?.dataset.searchSteps !== "");
      const zsetText = await visibleText(page, "#zset");
      assertChinese(
        zsetText,
        ["已从 listpack 转换为 skiplist", "成员数达到 5", "跳到排名", "前进指针", "节点高度", "的查找路径，从最高层开始", "个节点", "列"],
        ["Converted", "go to rank", "forward link", "node height", "search path", "examined", "cols", "members"],
        "zset skiplist",
      );
      assert.match(await page.getAttribute("#zset .zset-canvas-wrap", "aria-label"), /^跳表：10 个成员，\d+ 层。/);
      await shoot(page, "#zset", `zset-${device}`);

      // The keyspace list, with a key that has a TTL and one that is not a sorted set.
      await runLine(page, "SET session:1 v EX 60");
      await runLine(page, "HSET 用户:1 name 张三");
      await showView(page, "keyspace");
      await page.waitForFunction(() => document.querySelector("#keyspace")?.dataset.total === "3");
      await page.click('#keyspace .keyspace-row[data-key="用户:1"]');
      await page.waitForFunction(() => document.querySelector("#keyspace-info")?.textContent !== "");
      assertChinese(
        await visibleText(page, "#keyspace"),
        ["键空间", "db 0 · 3 个键 · 1 个设置了 TTL", "1 个字段", "10 个成员", "1m 0s", "用户:1：hash 类型（listpack，1 个字段）。有序集合视图只展示有序集合"],
        ["Keyspace", "keys", "with a TTL", "members", "field", "try ZADD"],
        "keyspace",
      );
      assert.equal(await page.getAttribute("#keyspace-filter", "placeholder"), "过滤：如 user:* 或 *board*");
      await shoot(page, "#keyspace", `keyspace-${device}`);

      // The expiry view: a form error names its field, a populate, a stepped tick, a lazy expiry.
      await showView(page, "expiry");
      await page.fill("#expiry-pop-count", "很多");
      await page.click("#expiry-pop-go");
      await page.waitForFunction(() => document.getElementById("expiry-controls-message")?.textContent?.startsWith("键的数量："));
      assert.equal(await page.getAttribute("#expiry-pop-count", "aria-invalid"), "true");
      await page.fill("#expiry-pop-count", "2000");
      await page.fill("#expiry-pop-min", "1");
      await page.fill("#expiry-pop-max", "20");
      await page.click("#expiry-pop-go");
      await page.waitForFunction(() => /^已在 db 0 中创建 2,000 个键/.test(document.getElementById("expiry-controls-message")?.textContent ?? ""), null, { timeout: 60_000 });
      await runLine(page, `CLOCK SET ${(await clockMs(page)) + 4000}`); // no cron: some keys go stale
      await page.click("#clock-step");
      await drained(page);
      await page.waitForFunction(() => document.querySelector("#expiry .tk-cycle") !== null);
      await runLine(page, "SET flash:1 x PX 10");
      await runLine(page, `CLOCK SET ${(await clockMs(page)) + 50}`);
      assert.equal((await runLine(page, "GET flash:1")).out, "(nil)\n");
      await drained(page);
      await page.waitForSelector("#expiry-callouts .callout-lazy");
      // INFO's field names (expired_stale_perc…) stay as Redis spells them: not English left over.
      const expiryText = (await visibleText(page, "#expiry")).replace(/\b[a-z]+(?:_[a-z]+)+\b/g, "<info field>");
      assertChinese(
        expiryText,
        ["定期删除", "带 TTL 的键", "expires 表：", "游标位于 #", "慢速", "采样", "过期比例", "惰性删除在访问时把它删掉了", "GET 访问了 flash:1", "填充", "最近一次 tick 做了什么"],
        ["Active expiry", "keys with a TTL", "Expires table", "cursor at", "examined", "stale", "lazy expiry", "Populate", "What the latest tick did", "Slow cycle", "each loop"],
        "expiry",
      );
      // The engine's reason for each round, in Chinese.
      const reasons = await page.locator("#expiry .tk-reason").allInnerTexts();
      assert.ok(reasons.length > 0);
      for (const r of reasons) assert.match(r, CJK, r);
      await shoot(page, "#expiry", `expiry-${device}`);
      await shoot(page, "#expiry-tick", `expiry-tick-${device}`);

      // The classic (≤5.0) algorithm: random picks, no cursor.
      await page.click("#expiry-algo-classic");
      await page.waitForFunction(() => document.querySelector("#expiry")?.dataset.algorithm === "classic");
      await page.click("#clock-step");
      await drained(page);
      await page.waitForSelector('#expiry .tk-cycle[data-algorithm="classic"]');
      assertChinese(
        await visibleText(page, "#expiry"),
        ["经典 ≤5.0", "每轮：随机采样 20 次（有放回）", "经典算法没有游标", "经典算法随机采样键：没有游标"],
        ["classic ≤5.0", "random picks", "Classic has no cursor", "each loop"],
        "expiry classic",
      );
      await page.click("#expiry-algo-70");

      // The persistence view: the AOF on, a relative TTL rewritten.
      await runLine(page, "CONFIG SET appendonly yes");
      await runLine(page, "CLOCK ADVANCE 1000"); // the first rewrite's base file is written by cron
      await showView(page, "persistence");
      await page.waitForFunction(() => document.querySelector("#persistence")?.dataset.aof === "on", null, { timeout: 30_000 });
      await runLine(page, "SET 会话:2 v EX 30");
      await drained(page);
      await page.waitForFunction(() => [...document.querySelectorAll("#persistence .persistence-row .why")].some((n) => n.textContent.includes("改写而来")));
      assertChinese(
        await visibleText(page, "#persistence"),
        ["持久化：文件与命令传播流", "AOF 已开启", "传播的写命令（最新的在前）", "客户端", "改写而来", "还没有从节点", "用途", "大小"],
        ["Persistence:", "AOF on", "Propagated writes", "rewritten from", "No replica yet", "What it is", "client\n"],
        "persistence",
      );
      await shoot(page, "#persistence", `persistence-${device}`);

      // The replica lane: a second server, its full sync, the link.
      await page.click(".console-add-replica");
      const replicaInput = page.locator('.console-pane[data-console="1"]').locator("input, textarea").first();
      await replicaInput.waitFor();
      assert.equal(await replicaInput.inputValue(), "REPLICAOF 127.0.0.1 6379");
      await replicaInput.press("Enter");
      await page.waitForFunction(() => document.querySelector("#persistence")?.dataset.replica === "yes");
      await page.locator('.console-pane[data-console="0"]').locator("input, textarea").first().fill("CLOCK ADVANCE 6000");
      await page.locator('.console-pane[data-console="0"]').locator("input, textarea").first().press("Enter");
      await page.waitForFunction(() => /主节点偏移量/.test(document.querySelector("#persistence .replica-offsets")?.textContent ?? ""), null, { timeout: 30_000 });
      await page.waitForFunction(() => document.querySelector("#persistence .replica-chunk.fate-delivered") !== null);
      // The handshake ends in the frames after the jump (the link delivers as the page's loop
      // walks both servers): wait for the link to be up rather than read it mid-sync.
      await page.waitForFunction(() => /链路 connected/.test(document.querySelector("#persistence .persistence-replica")?.textContent ?? ""), null, { timeout: 30_000 });
      assertChinese(
        await visibleText(page, "#persistence .persistence-replica"),
        ["127.0.0.1:6380 — 127.0.0.1:6379 的从节点（链路 connected）", "的主节点", "主节点偏移量", "全量同步 1 次", "链路正常 · 单向延迟 0 ms", "延迟", "0 ms（同一台主机）", "断开链路", "已送达", "RDB 数据（"],
        ["replica of", "master of", "Master offset", "Link up", "each way", "Cut the link", "same host", "delivered", "RDB payload", "keep-alive"],
        "replica lane",
      );
      await shoot(page, "#persistence .persistence-replica", `replica-${device}`);

      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}
