// The page and the widget in Simplified Chinese (www/i18n.js): `?lang=zh-CN` gives the top bar,
// the consoles, the notices and the lab panel in Chinese (and `<html lang="zh-CN">`), while
// Redis's replies stay as redis-cli prints them; the top bar's switch changes the language,
// is remembered, and keeps the work typed in the consoles; a browser whose language is Chinese
// gets Chinese with no choice made; a widget with lang="zh-CN" speaks Chinese; a language we
// do not have falls back to English. Plus test-results/i18n-shell-{laptop,phone}.png.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { useBrowser, REPO_ROOT, newPage, openPlayground, runLine, settled, terminalText } from "./harness.mjs";

const START = 1735689600000; // 2025-01-01T00:00:00Z
const PLAIN = `seed=11&t=${START}`;

const env = useBrowser();

/**
 * What a page in Chinese may log with a lab open: until www/labs/data/zh-CN/<lab>.json exists the
 * lab plays in English (with a notice) and the browser logs the 404 of the missing translation.
 * @param {string} lab
 */
function missingTranslation(lab) {
  return existsSync(path.join(REPO_ROOT, `www/labs/data/zh-CN/${lab}.json`))
    ? []
    : ["console.error: Failed to load resource: the server responded with a status of 404 (Not Found)"];
}

/** A page in a context with the browser language `locale` (no choice stored), errors recorded. */
async function pageWithLocale(locale, viewport = { width: 1280, height: 800 }) {
  const context = await env.browser.newContext({ viewport, locale });
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => m.type() === "error" && errors.push(`console.error: ${m.text()}`));
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  return { page, context, errors };
}

/** Picks a language in the top bar's switch and waits for the page to come back in it. */
async function switchTo(page, lang) {
  await Promise.all([page.waitForEvent("load"), page.selectOption("#lang-switch", lang)]);
  await page.waitForSelector("html[data-boot]");
  assert.equal(await page.getAttribute("html", "data-boot"), "ready");
}

/** The typed lines and outputs of the first console, in order. */
function transcript(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('.console-pane[data-console="0"] .scrollback > .entry')]
      .filter((e) => e.querySelector(".typed"))
      .map((e) => ({ typed: e.querySelector(".typed").textContent, out: e.querySelector(".out")?.textContent ?? "" })),
  );
}

/** Runs a line in the first console (runLine reads the last entry of any console); its output. */
async function runFirst(page, line) {
  const n = (await transcript(page)).length;
  await page.fill("#console-input", line);
  await page.press("#console-input", "Enter");
  await page.waitForFunction((n) => document.querySelectorAll('.console-pane[data-console="0"] .scrollback > .entry .typed').length > n, n);
  return terminalText((await transcript(page)).at(-1).out);
}

/** The top bar, the first console and the notices, as a person reads them. */
function frameText(page) {
  return page.evaluate(() => ({
    lang: document.documentElement.lang,
    title: document.title,
    tagline: document.querySelector(".brand-tagline").textContent,
    labs: document.querySelector(".lab-picker > summary").textContent,
    share: document.querySelector(".share-menu > summary").textContent,
    theme: document.querySelector("#theme-toggle").textContent,
    switchValue: document.querySelector("#lang-switch").value,
    switchName: document.querySelector("#lang-switch").getAttribute("aria-label"),
    tabs: [...document.querySelectorAll(".view-tabs [role=tab]")].map((b) => b.textContent),
    addClient: document.querySelector(".console-add").textContent,
    client: document.querySelector(".console-pane-client").textContent,
    inputName: document.querySelector("#console-input").getAttribute("aria-label"),
    welcome: [...document.querySelectorAll(".scrollback .welcome")].map((n) => n.textContent),
    notices: [...document.querySelectorAll("#notices .notice-text")].map((n) => n.textContent),
    dismiss: document.querySelector("#notices .notice-close")?.getAttribute("aria-label") ?? null,
  }));
}

test("?lang=zh-CN: the top bar, the consoles and the notices in Chinese; Redis's replies as redis-cli prints them", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    // A bad seed: a notice, in Chinese.
    assert.equal(await openPlayground(page, env.server.url, `?lang=zh-CN&seed=oops&t=${START}`), "ready");
    const f = await frameText(page);
    assert.equal(f.lang, "zh-CN");
    assert.equal(f.title, "redisplay — 浏览器里的 Redis 7.0 演练场");
    assert.equal(f.tagline, "浏览器里的 Redis 7.0 · 虚拟时间");
    assert.equal(f.labs, "实验");
    assert.equal(f.share, "分享");
    assert.equal(f.theme, "浅色主题");
    assert.equal(f.switchValue, "zh-CN");
    assert.equal(f.switchName, "语言");
    assert.deepEqual(f.tabs, ["键空间", "有序集合", "过期", "内存淘汰", "延时队列", "持久化"]);
    assert.equal(f.addClient, "+ 再开一个客户端");
    assert.match(f.client, /^控制台 1 · 客户端 \d+$/);
    assert.equal(f.inputName, "redis-cli 命令");
    assert.match(f.welcome[0], /^redisplay — 一个运行在本页面里的 Redis 7\.0 引擎。种子 \d+，时钟从 2025-01-01 00:00:00\.000 UTC 开始。$/);
    assert.ok(f.welcome.some((l) => l.startsWith("第一次来？右上角的「实验」菜单")), f.welcome.join("\n"));
    assert.deepEqual(f.notices, ["已忽略 seed=\"oops\"：种子应为 0 到 9007199254740991 之间的整数。改用随机种子。"]);
    assert.equal(f.dismiss, "关闭");
    // The footer, around the command name.
    assert.match(await page.textContent(".footnote"), /时间是虚拟的.*CLOCK\s+是演练场专用的命令。/s);
    // Redis speaks as redis-cli does: replies, errors and Chinese values untouched.
    assert.equal(terminalText((await runLine(page, "SET 城市 北京")).out), "OK\n");
    assert.equal(terminalText((await runLine(page, "GET 城市")).out), '"\\xe5\\x8c\\x97\\xe4\\xba\\xac"\n');
    assert.match(terminalText((await runLine(page, "NOSUCH")).out), /^\(error\) ERR unknown command 'NOSUCH'/);
    // A second console: its welcome and its labels.
    await page.click(".console-add");
    await page.waitForSelector('.console-pane[data-console="1"]');
    const second = await page.evaluate(() => ({
      welcome: document.querySelector('.console-pane[data-console="1"] .welcome').textContent,
      raw: document.querySelector('.console-pane[data-console="1"] .console-raw').getAttribute("aria-label"),
      close: document.querySelector(".console-close").textContent,
    }));
    assert.match(second.welcome, /^又开了一个 redis-cli（控制台 2，客户端 \d+），连的是同一个引擎。可以在这里 SUBSCRIBE，再到控制台 1 PUBLISH 试试。$/);
    assert.equal(second.raw, "原始输出（redis-cli --raw），控制台 2");
    assert.equal(second.close, "关闭最后一个客户端");
    // The Share menu.
    await page.click(".share-menu > summary");
    await page.waitForFunction(() => document.querySelector("#share-status").textContent !== "");
    assert.match(await page.textContent("#share-status"), /^已记录 \d+ 步；打开链接会用相同的种子重放它们/);
    assert.equal(await page.textContent("#share-copy"), "复制链接");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("?lang=zh-CN&lab=…: the lab panel's words in Chinese, its commands as they are", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    assert.equal(await openPlayground(page, env.server.url, "?lang=zh-CN&lab=lock"), "ready");
    const before = await page.evaluate(() => ({
      kicker: document.querySelector(".lab-kicker").textContent,
      counter: document.querySelector(".lab-counter").textContent,
      run: document.querySelector(".lab-run").textContent,
      prev: document.querySelector(".lab-prev").textContent,
      next: document.querySelector(".lab-next").textContent,
      region: document.querySelector("#lab").getAttribute("aria-label"),
      steps: document.querySelector(".lab-steps").getAttribute("aria-label"),
      firstLine: document.querySelector(".lab-line")?.textContent ?? "",
      total: document.querySelectorAll(".lab-step-link").length,
      welcome: document.querySelector(".scrollback .welcome").textContent,
    }));
    assert.equal(before.kicker, "实验");
    assert.equal(before.counter, `第 1 步，共 ${before.total} 步`);
    assert.equal(before.run, "运行这一步");
    assert.equal(before.prev, "← 上一步");
    assert.equal(before.next, "下一步 →");
    assert.match(before.region, /^实验：/);
    assert.equal(before.steps, "步骤");
    assert.match(before.firstLine, /^> [A-Z]/, "a command stays a command");
    assert.match(before.welcome, /^redisplay — 实验「.+」。种子 \d+，时钟停在 .+：只有步骤要求（CLOCK ADVANCE）或你播放时钟时，时间才会流逝。$/);
    await page.click(".lab-run");
    await page.waitForSelector('.lab-player[data-ran="true"]');
    assert.equal(await page.textContent(".lab-run"), "已运行");
    await page.click(".lab-next");
    assert.equal(await page.textContent(".lab-counter"), `第 2 步，共 ${before.total} 步`);
    assert.deepEqual(errors, missingTranslation("lock"));
  } finally {
    await context.close();
  }
});

test("the switch: changes the language, is remembered across a reload, and keeps the work typed in the consoles", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    assert.equal(await openPlayground(page, env.server.url, `?${PLAIN}`), "ready");
    assert.equal(await page.getAttribute("html", "lang"), "en");
    assert.equal(await page.inputValue("#lang-switch"), "en");
    assert.equal(await page.getAttribute("#lang-switch", "id"), "lang-switch");
    // Named, and reachable from the keyboard (a <select>, in the tab order after the theme toggle).
    assert.equal(await page.getByRole("combobox", { name: "Language", exact: true }).count(), 1);
    await page.focus("#theme-toggle");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "lang-switch");
    await runLine(page, "SET greeting hello");
    await runLine(page, "RPUSH queue a b c");
    await page.click(".console-add");
    await page.waitForSelector('.console-pane[data-console="1"]');
    await page.fill("#console-input-2", "INCR visits");
    await page.press("#console-input-2", "Enter");
    const typed = await transcript(page);

    await page.focus("#lang-switch");
    await switchTo(page, "zh-CN");
    assert.equal(await page.getAttribute("html", "lang"), "zh-CN");
    assert.equal(await page.textContent(".lab-picker > summary"), "实验");
    assert.match(page.url(), /[?&]lang=zh-CN/);
    // The work is back: the same lines and outputs in both consoles, the data in the engine.
    await settled(page);
    assert.deepEqual(await transcript(page), typed);
    assert.equal(await page.evaluate(() => document.querySelectorAll(".console-pane").length), 2);
    assert.equal(await runFirst(page, "GET greeting"), '"hello"\n');
    assert.equal(await runFirst(page, "LRANGE queue 0 -1"), '1) "a"\n2) "b"\n3) "c"\n');
    assert.equal(await runFirst(page, "GET visits"), '"1"\n');
    assert.match(await page.textContent("#notices"), /这个标签页的会话已恢复/);
    assert.equal(await page.evaluate(() => localStorage.getItem("redisplay.lang")), "zh-CN");

    // Remembered: a plain address (no ?lang=) opens in Chinese.
    assert.equal(await openPlayground(page, env.server.url, `?${PLAIN}`), "ready");
    assert.equal(await page.getAttribute("html", "lang"), "zh-CN");
    assert.equal(await page.inputValue("#lang-switch"), "zh-CN");
    // ?lang= wins over the remembered choice.
    assert.equal(await openPlayground(page, env.server.url, `?lang=en&${PLAIN}`), "ready");
    assert.equal(await page.getAttribute("html", "lang"), "en");
    assert.equal(await page.textContent(".lab-picker > summary"), "Labs");

    // Back to Chinese and to English with a lab open: ?lab= stays, the lab's progress too.
    assert.equal(await openPlayground(page, env.server.url, "?lab=lock"), "ready");
    await page.click(".lab-run");
    await page.waitForSelector('.lab-player[data-ran="true"]');
    const labWork = await transcript(page);
    await switchTo(page, "zh-CN");
    assert.match(page.url(), /[?&]lab=lock/);
    assert.equal(await page.textContent(".lab-kicker"), "实验");
    await settled(page);
    assert.deepEqual(await transcript(page), labWork);
    await switchTo(page, "en");
    assert.equal(await page.getAttribute("html", "lang"), "en");
    assert.equal(await page.textContent(".lab-kicker"), "Lab");
    assert.equal(await page.evaluate(() => localStorage.getItem("redisplay.lang")), "en");
    await settled(page);
    assert.deepEqual(await transcript(page), labWork);
    assert.deepEqual(errors, missingTranslation("lock"));
  } finally {
    await context.close();
  }
});

test("the switch with a session too large for the history entry hands it over through IndexedDB (?import=)", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    // As when a loaded RDB file makes the session too large to keep in history.state.
    await page.addInitScript(() => {
      const replace = History.prototype.replaceState;
      History.prototype.replaceState = function (state, ...rest) {
        if (state?.redisplay) throw new DOMException("The object is too large", "DataCloneError");
        return replace.call(this, state, ...rest);
      };
    });
    assert.equal(await openPlayground(page, env.server.url, `?${PLAIN}`), "ready");
    await runLine(page, "HSET user:1 name 张三 city 北京");
    await runLine(page, "EXPIRE user:1 900");
    const typed = await transcript(page);
    await switchTo(page, "zh-CN");
    assert.match(page.url(), /[?&]import=/);
    assert.equal(await page.getAttribute("html", "lang"), "zh-CN");
    await settled(page);
    assert.deepEqual(await transcript(page), typed);
    assert.equal(await runFirst(page, "HGET user:1 city"), '"\\xe5\\x8c\\x97\\xe4\\xba\\xac"\n');
    // (The English page's clock was playing: a little of the 900 s may have passed.)
    assert.match(await runFirst(page, "TTL user:1"), /^\(integer\) (8\d\d|900)\n$/);
    // Handed over once: the same address again has nothing to take.
    assert.equal(await openPlayground(page, env.server.url, new URL(page.url()).search), "ready");
    assert.match(await page.textContent("#notices"), /无法打开导入的会话：它已经被打开过了/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("a browser in Chinese with no choice made gets Chinese; one in another language gets English", async () => {
  for (const [locale, lang, labs] of [
    ["zh-CN", "zh-CN", "实验"],
    ["fr-FR", "en", "Labs"],
  ]) {
    const { page, context, errors } = await pageWithLocale(locale);
    try {
      assert.equal(await openPlayground(page, env.server.url, `?${PLAIN}`), "ready");
      assert.equal(await page.evaluate(() => navigator.language), locale);
      assert.equal(await page.getAttribute("html", "lang"), lang, locale);
      assert.equal(await page.textContent(".lab-picker > summary"), labs, locale);
      // Nothing was chosen, so nothing is remembered.
      assert.equal(await page.evaluate(() => localStorage.getItem("redisplay.lang")), null);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});

test("a language we do not have falls back: ?lang=klingon gives English (or the browser's), and is not remembered", async () => {
  for (const [locale, lang] of [
    ["en-US", "en"],
    ["zh-CN", "zh-CN"],
  ]) {
    const { page, context, errors } = await pageWithLocale(locale);
    try {
      assert.equal(await openPlayground(page, env.server.url, `?lang=klingon&${PLAIN}`), "ready");
      assert.equal(await page.getAttribute("html", "lang"), lang, locale);
      assert.equal(await page.inputValue("#lang-switch"), lang);
      assert.equal(await page.evaluate(() => localStorage.getItem("redisplay.lang")), null);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});

/** A page with widgets (`body`) and the one module script; `<html lang>` as a blog would set it. */
async function widgetPage(body, { locale = "en-US" } = {}) {
  const opened = await pageWithLocale(locale);
  const url = `${env.server.url}/tests/e2e/i18n-widget-page.html`;
  await opened.page.route(url, (route) =>
    route.fulfill({
      contentType: "text/html; charset=utf-8",
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>widgets</title></head>
<body>${body}<script type="module" src="/www/widget.js"></script></body></html>`,
    }),
  );
  await opened.page.goto(url);
  await opened.page.waitForFunction(() => customElements.get("redis-playground") !== undefined);
  return opened;
}

/** What a widget shows of its frame. */
function widgetText(page, sel) {
  return page.evaluate((sel) => {
    const host = document.querySelector(sel);
    const root = host.shadowRoot;
    return {
      label: host.getAttribute("aria-label"),
      frameLang: root.querySelector(".rp")?.lang ?? null,
      step: root.querySelector(".rp-step")?.textContent ?? null,
      run: root.querySelector(".rp-run")?.textContent ?? null,
      progress: root.querySelector(".rp-progress")?.textContent ?? null,
      welcome: root.querySelector(".scrollback .welcome")?.textContent ?? null,
      notices: [...root.querySelectorAll(".notice-text")].map((n) => n.textContent),
      tabs: [...root.querySelectorAll(".view-tabs [role=tab]")].map((b) => b.textContent),
    };
  }, sel);
}

async function started(page, sel) {
  await page.locator(sel).scrollIntoViewIfNeeded();
  await page.waitForFunction((s) => ["ready", "failed"].includes(document.querySelector(s)?.dataset.state), sel, { timeout: 20_000 });
  return page.getAttribute(sel, "data-state");
}

test('a widget with lang="zh-CN" speaks Chinese, and leaves the host page\'s <html lang> alone', async () => {
  const { page, context, errors } = await widgetPage(
    `<div style="height: 3000px"></div><redis-playground id="w" lang="zh-CN" views="console zset expiry" seed="3" paused commands="ZADD board 1 alice; ZRANGE board 0 -1"></redis-playground>`,
  );
  try {
    await page.waitForFunction(() => document.querySelector("#w").dataset.state === "waiting");
    // Out of sight: the placeholder, in Chinese.
    assert.deepEqual(
      await page.evaluate(() => [".rp-start", ".rp-progress"].map((s) => document.querySelector("#w").shadowRoot.querySelector(s).textContent)),
      ["启动演练场", "滚动到可见区域时启动"],
    );
    assert.equal(await started(page, "#w"), "ready");
    const w = await widgetText(page, "#w");
    assert.equal(w.label, "Redis 演练场");
    assert.equal(w.frameLang, "zh-CN");
    assert.equal(w.step, "单步");
    assert.equal(w.run, "全部执行");
    assert.equal(w.progress, "下一条（第 1 条，共 2 条）：ZADD board 1 alice");
    assert.equal(w.welcome, "redisplay — 运行在本页面里的 Redis 7.0（种子 3）。");
    assert.deepEqual(w.tabs, ["有序集合", "过期"]);
    assert.equal(await page.getAttribute("html", "lang"), "en", "the host page's language is its own");
    await page.evaluate(() => document.querySelector("#w").shadowRoot.querySelector(".rp-run").click());
    await page.waitForFunction(() => document.querySelector("#w").shadowRoot.querySelector(".rp-progress").textContent === "全部 2 条命令已执行");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a widget with an unknown lang says so and speaks English (or the browser\'s language)', async () => {
  for (const [locale, step, notice] of [
    ["en-US", "Step", 'lang="klingon" is not one of the playground\'s languages (en, zh-CN): it is not used.'],
    ["zh-CN", "单步", 'lang="klingon" 不是演练场支持的语言（en、zh-CN），已忽略。'],
  ]) {
    const { page, context, errors } = await widgetPage(`<redis-playground id="w" lang="klingon" paused></redis-playground>`, { locale });
    try {
      assert.equal(await started(page, "#w"), "ready");
      const w = await widgetText(page, "#w");
      assert.equal(w.step, step, locale);
      assert.deepEqual(w.notices, [notice]);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});

test("screenshots: test-results/i18n-shell-laptop.png (1280×800) and -phone.png (390×844), in Chinese", async () => {
  await mkdir(path.join(REPO_ROOT, "test-results"), { recursive: true });
  for (const [name, viewport, query] of [
    ["laptop", { width: 1280, height: 800 }, "?lang=zh-CN&lab=lock"],
    ["phone", { width: 390, height: 844 }, `?lang=zh-CN&${PLAIN}`],
  ]) {
    const { page, context, errors } = await newPage(env.browser, { viewport });
    try {
      assert.equal(await openPlayground(page, env.server.url, query), "ready");
      if (name === "laptop") {
        await page.click(".lab-run");
        await page.waitForSelector('.lab-player[data-ran="true"]');
      } else {
        await runLine(page, "SET 城市 北京");
        await runLine(page, "OBJECT ENCODING 城市");
      }
      // (The lab's clock is paused, so its page settles; the phone's clock plays.)
      if (name === "laptop") await settled(page);
      // Nothing wider than the screen in Chinese either.
      assert.ok((await page.evaluate(() => document.scrollingElement.scrollWidth)) <= viewport.width, name);
      // The top bar's menus stay clear of the brand (one row on a phone).
      const overlap = await page.evaluate(() => {
        const a = document.querySelector(".brand-name").getBoundingClientRect();
        const b = document.querySelector(".topbar-menus").getBoundingClientRect();
        return a.right > b.left && a.bottom > b.top && b.bottom > a.top;
      });
      assert.equal(overlap, false, `${name}: the menus overlap the brand`);
      await page.screenshot({ path: path.join(REPO_ROOT, `test-results/i18n-shell-${name}.png`) });
      assert.deepEqual(errors, name === "laptop" ? missingTranslation("lock") : []);
    } finally {
      await context.close();
    }
  }
});
