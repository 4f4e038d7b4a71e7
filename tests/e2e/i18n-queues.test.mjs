// The eviction and delay-queue views in Simplified Chinese (index.html?lang=zh-CN): a workload
// run in the eviction view and a delay-queue comparison show their headings, forms, status
// lines, explanations, legends and canvas labels in Chinese, with the run's own data (key names,
// commands, policy names) as they are — plus the screenshots
// test-results/i18n-{eviction,delay-queue}-{laptop,phone}.png, for people to look at.

import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, newPage, openPlayground, drained, runLine, screenshot } from "./harness.mjs";

const START = 1735689600000; // 2025-01-01T00:00:00Z
const VIEWPORTS = { laptop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
const CJK = /[\u4e00-\u9fff]/;

const env = useBrowser();

/**
 * Pauses the page's clock bar and waits until it shows paused. By the button's aria-pressed,
 * not its caption (which is translated).
 * @param {import("playwright-core").Page} page
 */
async function pauseClock(page) {
  if ((await page.getAttribute("#clock-play", "aria-pressed")) === "true") await page.click("#clock-play");
  await page.waitForFunction(() => document.querySelector("#clock-play").getAttribute("aria-pressed") !== "true");
}

/**
 * @param {import("playwright-core").Page} page
 * @param {string} selector
 */
const text = (page, selector) => page.textContent(selector).then((s) => s ?? "");

/**
 * The eviction view in Chinese: maxmemory and a policy set through the form, a Zipf workload
 * run to its end at 10×.
 * @param {keyof typeof VIEWPORTS} name
 */
async function evictionRun(name) {
  const { page, context, errors } = await newPage(env.browser, { viewport: VIEWPORTS[name] });
  try {
    assert.equal(await openPlayground(page, env.server.url, `?lang=zh-CN&seed=7&t=${START}#eviction`), "ready");
    assert.equal(await page.getAttribute("html", "lang"), "zh-CN");
    await pauseClock(page);
    assert.ok(await page.isVisible("#eviction"));
    assert.equal(await text(page, "#eviction .panel-title"), "内存淘汰");

    await page.fill("#eviction-maxmemory", "1200kb");
    await page.click("#eviction-maxmemory-set");
    await page.waitForFunction(() => document.getElementById("eviction-controls-message").textContent === "CONFIG SET maxmemory 1200kb → OK");
    await page.selectOption("#eviction-policy", "allkeys-lru");
    await page.waitForFunction(() => document.getElementById("eviction-policy-help").textContent.startsWith("allkeys-lru："));
    assert.equal(await text(page, "#eviction-policy-help"), "allkeys-lru：所有键，最近最少使用的优先（采样）。");

    // A bad field: the sentence under the form is Chinese, the field is marked.
    await page.fill("#eviction-wl-keys", "lots");
    await page.click("#eviction-wl-start");
    assert.match(await text(page, "#eviction-workload-message"), /^不同键的数量：1 到 1,000,000 的整数，如 10000 或 10k。$/);
    assert.equal(await page.getAttribute("#eviction-wl-keys", "aria-invalid"), "true");

    await page.fill("#eviction-wl-keys", "5000");
    await page.fill("#eviction-wl-rate", "2000");
    await page.fill("#eviction-wl-requests", "6000");
    await page.click("#eviction-wl-start");
    assert.match(await text(page, "#eviction-workload-message"), /^已开始。/);
    // The button follows the run on the view's next frame.
    await page.waitForFunction(() => document.getElementById("eviction-wl-start")?.textContent === "▶ 重新开始", null, { timeout: 10_000 });
    await page.selectOption("#clock-speed", "10");
    await page.click("#clock-play");
    await page.waitForFunction(() => document.getElementById("eviction").dataset.runDone === "true", null, { timeout: 60_000 });
    await pauseClock(page);
    await drained(page);
    await page.waitForFunction(() => document.getElementById("eviction-lru-caption").textContent !== "", null, { timeout: 30_000 });

    // The run's line, the gauge, the head: Chinese around the numbers and INFO field names.
    const run = await text(page, "#eviction-run-text");
    assert.match(run, /^allkeys-lru · Zipf\(1\.0\)，共 5,000 个键，2,000 req\/s，种子 1：6,000 \/ 6,000 个请求，已完成 · 命中率 \d+\.\d%（INFO：命中 [\d,]+，未命中 [\d,]+） · 淘汰 [\d,]+ 个$/);
    assert.match(await text(page, "#eviction-gauge-text"), /^used_memory .* \/ maxmemory .*（\d+\.\d%） · [\d,]+ 个键，其中 [\d,]+ 个设置了 TTL/);
    assert.match(await text(page, "#eviction-summary"), /^allkeys-lru · 采样 5 · 已见 [\d,]+ 次淘汰/);

    // Why this victim: the cause, the steps, the pool's marks; key names as they are.
    assert.match(await text(page, "#eviction-cause"), /^\d\d:\d\d:\d\d\.\d{3} 时 used_memory 为 [\d,]+ B（.*），超过了 maxmemory 1,228,800 B（1\.17 MB）：在执行下一条命令之前，allkeys-lru 淘汰了$/);
    assert.match(await text(page, "#eviction-victim"), /^key:\d+ — 空闲 .* · 释放 [\d,]+ B · (没有幽灵|跳过 \d+ 个幽灵)$/);
    const steps = await page.$$eval("#eviction-detail .ev-step", (l) => l.map((x) => x.textContent));
    assert.match(steps[0], /^1 · 采样了 5 个键（每个库 maxmemory-samples 5）— 分数 = 空闲时间/);
    assert.match(steps[1], /^2 · 之前的淘汰池：16 个槽位按分数排序/);
    assert.match(steps[2], /^3 · 之后：/);
    assert.match(await page.getAttribute("#eviction-pool-after .ev-slot.is-victim", "title"), /^槽位 \d+：被淘汰者：/);
    assert.match(await text(page, "#eviction-nav-text"), /^第 [\d,]+ 次淘汰，共 [\d,]+ 次（最新）/);

    // The chart's legend and the LRU figure.
    assert.match(await text(page, "#eviction-ratio-legend"), /^第 1 次运行：allkeys-lru · .*\d+\.\d%，共 6,000 个请求$/);
    assert.match(await page.getAttribute("#eviction-ratio-canvas", "aria-label"), /^命中率/);
    assert.match(await text(page, "#eviction-lru-caption"), /^先每隔 1 秒（虚拟时间）写入一个旧键，共 10,000 个/);
    assert.match(await text(page, "#eviction-lru-table thead"), /^旧键（按年龄）真正的 LRU采样 5采样 10采样 3$/);

    // No English sentence left in the view's own words.
    const all = await text(page, "#eviction");
    for (const english of ["Why this victim", "Workload:", "Hit ratio over", "Compare policies", "requests,", "Sampled", "The pool before", "old keys", "Not running"]) {
      assert.ok(!all.includes(english), `English left in the eviction view: ${english}`);
    }
    assert.match(all, CJK);
    await screenshot(page, `i18n-eviction-${name}.png`);
    for (const part of ["why", "workload-section", "lru-section"]) {
      await page.locator(`#eviction-${part}`).scrollIntoViewIfNeeded();
      await screenshot(page.locator(`#eviction-${part}`), `i18n-eviction-${name}-${part}.png`);
    }

    if (name === "phone") {
      // The OOM state: noeviction under a limit below what is used; the console's SET refused.
      await page.selectOption("#eviction-policy", "noeviction");
      await page.fill("#eviction-maxmemory", "600kb");
      await page.click("#eviction-maxmemory-set");
      await page.waitForFunction(() => document.getElementById("eviction-controls-message").textContent === "CONFIG SET maxmemory 600kb → OK");
      assert.equal((await runLine(page, "SET fresh value")).out, "(error) OOM command not allowed when used memory > 'maxmemory'.\n");
      await page.waitForFunction(() => document.getElementById("eviction").dataset.oom === "true");
      await drained(page);
      const banner = await text(page, "#eviction-oom");
      assert.match(banner, /^OOM：可能增加内存的命令被拒绝 used_memory [\d,]+ B > maxmemory 614,400 B。当前策略是 noeviction：Redis 从不淘汰。SET、LPUSH、INCR… 会收到下面的错误/);
      assert.match(banner, /\(error\) OOM command not allowed when used memory > 'maxmemory'\. — 最近一次被拒绝：SET fresh（控制台），时间 \d\d:\d\d:\d\d\.\d{3}$/);
      await page.locator("#eviction-oom").scrollIntoViewIfNeeded();
      await screenshot(page.locator("#eviction-oom"), `i18n-eviction-${name}-oom.png`);
    }

    if (name === "laptop") {
      // Compare policies: the line, the rows, the caption.
      await page.click("#eviction-wl-compare");
      await page.waitForFunction(() => document.getElementById("eviction-compare-section").dataset.done === "true", null, { timeout: 120_000 });
      await drained(page);
      assert.match(await text(page, "#eviction-compare-text"), /^Zipf\(1\.0\)，共 5,000 个键，2,000 req\/s，种子 1，6,000 个请求，maxmemory 1,228,800，采样 5。命中率按整次运行计算/);
      assert.match(await text(page, "#eviction-compare"), /命中率/);
      assert.match(await text(page, '#eviction-compare [data-policy="allkeys-lru"] .ev-cmp-note'), /^末 1\/4 \d+\.\d% · 淘汰 [\d,]+ 个$/);
      assert.match(await text(page, "#eviction-compare-caption"), /^noeviction 不淘汰任何键：/);
      await page.locator("#eviction-compare-section").scrollIntoViewIfNeeded();
      await screenshot(page.locator("#eviction-compare-section"), `i18n-eviction-${name}-compare-section.png`);
    }
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
}

test("eviction view in Chinese, laptop: a workload run, the victim explained, the charts", async () => {
  await evictionRun("laptop");
});

test("eviction view in Chinese, phone", async () => {
  await evictionRun("phone");
});

/**
 * The delay-queue view in Chinese: the "race" preset (naive polling against the ZREM check, two
 * consumers) run to its end at full speed.
 * @param {keyof typeof VIEWPORTS} name
 */
async function delayQueueRun(name) {
  const { page, context, errors } = await newPage(env.browser, { viewport: VIEWPORTS[name] });
  try {
    assert.equal(await openPlayground(page, env.server.url, `?lang=zh-CN&seed=7&t=${START}#delay-queue`), "ready");
    await pauseClock(page);
    assert.ok(await page.isVisible("#delay-queue"));
    assert.equal(await text(page, "#delay-queue .panel-title"), "延时队列");
    // The walkthrough is loaded the first time the tab is shown, paused.
    assert.equal(await text(page, "#dq-status"), "已暂停。");
    assert.equal(await text(page, "#dq-preset-note"), "一个订单，12:00:00 创建，12:30:00 到期；一个消费者每秒轮询一次。可以单步执行，也可以跳到 12:30 前一点再开始单步。");
    assert.equal(await text(page, "#dq-run"), "运行");

    // A bad field: its sentence under it, in Chinese; nothing runs.
    await page.selectOption("#dq-preset", "custom");
    await page.fill("#dq-consumers", "99");
    await page.click("#dq-run");
    assert.equal(await text(page, "#dq-consumers-msg"), "消费者数：1 到 16 的整数。");
    assert.equal(await text(page, "#dq-form-msg"), "未运行：有一个字段需要修改（已在上方标出）。");

    await page.selectOption("#dq-preset", "race");
    assert.equal(await text(page, "#dq-preset-note"), "两个消费者看到的是同一批到期任务；朴素的做法是先处理、后删除。");
    await page.selectOption("#dq-speed", "max");
    await page.click("#dq-run");
    assert.equal(await text(page, "#dq-form-msg"), "正在用相同的订单运行策略 2 和策略 1（种子 7）。");
    await page.waitForFunction(
      () => {
        const root = document.getElementById("delay-queue");
        return root.dataset.done === "true" && root.dataset.drawnNow === root.dataset.now;
      },
      null,
      { timeout: 60_000, polling: 50 },
    );

    assert.match(await text(page, "#dq-status"), /^运行已在 00:10:00 结束：任务结局和指标都已是最终结果。$/);
    assert.equal(await text(page, "#dq-summary"), "A: 2 · 朴素轮询 vs B: 1 · 轮询 + ZREM 检查");
    assert.equal(await text(page, "#dq-run-a .dq-run-title"), "A · 策略 2 · 朴素轮询");
    assert.match(await text(page, "#dq-run-a-fates"), /^[\d,]+ 个任务（[\d,]+ 次支付） · 准时 [\d,]+ · 逾期 [\d,]+ · 重复消费 [1-9][\d,]* · 丢失（未处理） 0 · 已支付 [\d,]+ · 待处理 [\d,]+ · 死信 0$/);
    assert.equal(await text(page, "#dq-run-a-metrics caption"), "指标 A");
    assert.match(await text(page, "#dq-run-a-metrics"), /重复处理/);
    assert.match(await text(page, "#dq-legend"), /^任务（画在到期时间处）：.*消费者通道：空轮询/);
    assert.match(await page.getAttribute("#dq-run-a canvas", "aria-label"), /^运行 A 的时间线，.*：[\d,]+ 个任务——准时 \d+，/);
    const log = await page.$$eval("#dq-log li", (l) => l.map((x) => x.textContent));
    assert.ok(log.length > 0);
    assert.ok(log.some((line) => /消费者 \d：(ZRANGEBYSCORE|ZREM|EVAL)/.test(line)), log.slice(0, 5).join("\n"));
    assert.match(await text(page, "#dq-run-a-lanes thead"), /^通道命令空轮询认领/);

    // The tooltip over a consumer lane: a sentence in Chinese around the command and its reply.
    const said = await page.evaluate(async () => {
      const { pageParts } = await import("/www/main.js");
      const [timeline] = pageParts.views.delayQueue.timelines();
      const w = timeline.width();
      for (let x = 110; x < w; x += 2) {
        const s = timeline.describeAt(x, 130); // consumer 1's lane (delay-queue-timeline-model.js timelineLayout)
        if (s) return s;
      }
      return null;
    });
    assert.match(said ?? "", /^消费者 1/);

    const all = await text(page, "#delay-queue");
    for (const english of ["Delay queue", "What happened", "Consumer lanes", "Metrics A", "tasks (", "strategy 2", "Playing", "The run ended"]) {
      assert.ok(!all.includes(english), `English left in the delay-queue view: ${english}`);
    }
    await screenshot(page, `i18n-delay-queue-${name}.png`);
    for (const part of ["dq-controls", "dq-legend", "dq-run-a", "dq-log"]) {
      await page.locator(`#${part}`).scrollIntoViewIfNeeded();
      await screenshot(page.locator(`#${part}`), `i18n-delay-queue-${name}-${part.replace("dq-", "")}.png`);
    }
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
}

test("delay-queue view in Chinese, laptop: the race preset run, its status, fates, metrics, log and timeline", async () => {
  await delayQueueRun("laptop");
});

test("delay-queue view in Chinese, phone", async () => {
  await delayQueueRun("phone");
});
