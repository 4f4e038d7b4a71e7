// The delay-queue lab's timeline view (tab "Delay queue", #delay-queue): each of the six
// strategies runs in the page on a small fixed-seed config, and what the page shows — the task
// marks and their fates, every lane's commands, empty polls, claims, processings, messages and
// crashes, and the metrics — is checked against the events the runner drained from the lab
// (recorded through its onDrain hook) and against lab.metrics(); strategy 2 with two consumers
// shows duplicates; strategy 4 with a crash shows lost tasks; the walkthrough steps event by
// event to 12:30 and shows its one order processed; compare mode stacks two timelines on one
// axis; bad input gets a message next to its field; the axis zooms and pans from the keyboard;
// strategy 6 (a stream with a consumer group) loses nothing when its consumer crashes, shown in
// zh-CN; with a fail rate, retries and dead letters show; plus the screenshots test-results/delay-queue.png and dq-streams-zh-{laptop,phone}.png.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { useBrowser, REPO_ROOT, newPage, openPlayground, pause } from "./harness.mjs";

const START = 1735689600000; // 2025-01-01T00:00:00Z, the console engine's clock (not the lab's)
const QUERY = `?seed=7&t=${START}#delay-queue`;
const FATES = ["on_time", "late", "duplicate", "lost", "paid", "pending", "dead_letter"];
const fateKey = (f) => `fate${f.replace(/(^|_)(\w)/g, (_, __, c) => c.toUpperCase())}`;

/** A small run: three virtual minutes, two orders a second due 20 s later. */
const SMALL = {
  consumers: "2",
  pollMs: "500ms",
  limit: "10",
  workMs: "30ms",
  rttMs: "4ms",
  ratePerS: "2",
  delayMs: "20s",
  payProb: "0.3",
  payMeanMs: "10s",
  durationMs: "3m",
  crashes: "",
  seed: "5",
  hz: "10",
  volatileKeys: "0",
  claimIdleMs: "30s",
};

const env = useBrowser();

/** A page showing the lab (the walkthrough loaded, paused), recording every drained event. */
async function openLab({ viewport = { width: 1440, height: 1000 }, reducedMotion, lang } = {}) {
  const opened = await newPage(env.browser, { viewport });
  const { page } = opened;
  if (reducedMotion) await page.emulateMedia({ reducedMotion });
  const query = lang ? `?lang=${lang}&${QUERY.slice(1)}` : QUERY;
  assert.equal(await openPlayground(page, env.server.url, query), "ready");
  // The console engine's clock: the lab does not depend on it. (pause() reads the English
  // caption; aria-pressed is the same in every language.)
  if (lang) {
    if ((await page.getAttribute("#clock-play", "aria-pressed")) === "true") await page.click("#clock-play");
    await page.waitForFunction(() => document.querySelector("#clock-play").getAttribute("aria-pressed") === "false");
  } else {
    await pause(page);
  }
  assert.ok(await page.isVisible("#delay-queue"));
  assert.equal(await page.getAttribute("#tab-delay-queue", "aria-selected"), "true");
  await page.evaluate(async () => {
    const { pageParts } = await import("/www/main.js");
    // For waitForFunction, whose predicates must be synchronous.
    window.dqParts = pageParts;
    window.dq = { generation: -1, runs: [], dropped: [] };
    pageParts.delayQueue.onDrain((i, events, dropped, generation) => {
      if (generation !== window.dq.generation) window.dq = { generation, runs: [], dropped: [] };
      window.dq.runs[i] ??= [];
      window.dq.runs[i].push(...events);
      window.dq.dropped[i] = (window.dq.dropped[i] ?? 0) + dropped;
    });
  });
  return opened;
}

/** Fills the form (values as typed) and presses Run. */
async function runForm(page, { strategy, compareStrategy = null, speed = "max", ...fields }) {
  await page.selectOption("#dq-preset", "custom");
  await page.selectOption("#dq-strategy", String(strategy));
  await page.setChecked("#dq-compare", compareStrategy !== null);
  if (compareStrategy !== null) await page.selectOption("#dq-compare-strategy", String(compareStrategy));
  for (const [key, value] of Object.entries({ ...SMALL, ...fields })) await page.fill(`#dq-${key}`, value);
  await page.selectOption("#dq-speed", speed);
  await page.click("#dq-run");
}

/** Waits until the run ended and the page drew its final state. */
async function settle(page, timeout = 30_000) {
  await page.waitForFunction(
    () => {
      const root = document.getElementById("delay-queue");
      const s = window.dqParts.delayQueue.state();
      return root.dataset.done === "true" && root.dataset.drawnNow === String(s.now) && root.dataset.drawnGeneration === String(s.generation);
    },
    null,
    { timeout, polling: 50 },
  );
}

/** What the recorded events say, per run: tasks, fates, and each lane's counts. */
function summarize(events, consumers) {
  const lanes = Array.from({ length: consumers }, () => ({ commands: 0, empty: 0, claims: 0, missed: 0, processes: 0, cut: 0, messages: 0, sleeps: 0, crashes: 0 }));
  const lane = (c) => lanes[c];
  const out = { tasks: 0, payments: 0, fates: Object.fromEntries(FATES.map((f) => [f, 0])), finals: 0, lanes, dueTimes: [], spans: [], kinds: {} };
  /** @type {Map<string, number>} */
  const dueOf = new Map();
  for (const e of events) {
    out.kinds[e.kind] = (out.kinds[e.kind] ?? 0) + 1;
    switch (e.kind) {
      case "order":
        out.tasks += 1;
        out.dueTimes.push(e.due);
        dueOf.set(e.task, e.due);
        break;
      case "paid":
        out.payments += 1;
        break;
      case "fate": {
        out.fates[e.fate] += 1;
        out.finals += 1;
        // A task's mark runs from its due time to its first completed processing.
        const due = dueOf.get(e.task);
        out.spans.push([due, due + Math.max(0, e.lateness ?? 0)]);
        break;
      }
      case "command": {
        if (e.consumer < 0) {
          out.producerCommands = (out.producerCommands ?? 0) + 1;
          break;
        }
        const l = lane(e.consumer);
        l.commands += 1;
        if (e.empty) l.empty += 1;
        const name = e.cmd.split(" ", 1)[0].toUpperCase();
        if (!e.empty && ["ZREM", "DEL", "UNLINK", "GETDEL"].includes(name)) {
          if (/^\(integer\) 0\b/.test(e.reply)) l.missed += 1;
          else l.claims += 1;
        }
        break;
      }
      case "process":
        lane(e.consumer).processes += 1;
        if (!e.completed) lane(e.consumer).cut += 1;
        break;
      case "message":
        lane(e.consumer).messages += 1;
        break;
      case "sleep":
        lane(e.consumer).sleeps += 1;
        break;
      case "crash":
        lane(e.consumer).crashes += 1;
        break;
      default:
    }
  }
  return out;
}

/** What the page shows for run `label` ("a"/"b"). */
function shown(page, label) {
  return page.evaluate((label) => {
    const box = document.getElementById(`dq-run-${label}`);
    const lanes = [...box.querySelectorAll(".dq-lanes tbody tr")].map((tr) => {
      const v = (k) => Number(tr.cells[k].dataset.value);
      return { commands: v(1), empty: v(2), claims: v(3), missed: v(4), processes: v(5), cut: v(6), messages: v(7), sleeps: v(8), crashes: v(9) };
    });
    const metrics = Object.fromEntries(
      [...document.querySelectorAll(`#dq-run-${label}-metrics td[data-metric]`)].map((td) => [td.dataset.metric, td.dataset.value]),
    );
    const canvas = box.querySelector("canvas.dq-canvas");
    return {
      dataset: { ...box.dataset },
      fatesText: document.getElementById(`dq-run-${label}-fates`).textContent,
      lanes,
      metrics,
      marks: Number(canvas.dataset.marks),
      canvasWidth: canvas.getBoundingClientRect().width,
      code: document.getElementById(`dq-code-${label}`).textContent,
      title: box.querySelector(".dq-run-title").textContent,
    };
  }, label);
}

async function labState(page) {
  return page.evaluate(async () => {
    const { pageParts } = await import("/www/main.js");
    const r = pageParts.delayQueue;
    return { state: r.state(), metrics: r.metrics(), viewport: pageParts.views.delayQueue.viewport() };
  });
}

/** The page shows exactly what the events of run `i` say, and lab.metrics() as it is. */
async function assertRunMatches(page, i, consumers) {
  const label = "ab"[i];
  const rec = await page.evaluate(() => window.dq);
  const { metrics, viewport, state } = await labState(page);
  const events = rec.runs[i];
  assert.ok(events.length > 0, `run ${label}: events were recorded`);
  assert.equal(state.error, null);
  assert.equal(rec.dropped[i], 0, "no events dropped");
  const want = summarize(events, consumers);
  const got = await shown(page, label);

  // Tasks and fates: every order has a mark; once the run ended every task has the engine's fate.
  assert.equal(Number(got.dataset.tasks), want.tasks, `run ${label}: tasks shown`);
  assert.equal(want.finals, want.tasks, `run ${label}: a fate event per task`);
  assert.equal(Number(got.dataset.final), want.finals);
  for (const f of FATES) assert.equal(Number(got.dataset[fateKey(f)]), want.fates[f], `run ${label}: ${f}`);
  // The canvas walks the window plus 2 px either side (plot: the canvas less a 104 px gutter and
  // 10 px of margin), and a late task's mark spans from due to its first completion.
  const slack = (2 * (viewport.to - viewport.from)) / (got.canvasWidth - 114);
  const inWindow = want.spans.filter(([t0, t1]) => t0 <= viewport.to + slack && t1 >= viewport.from - slack).length;
  assert.equal(got.marks, inWindow, `run ${label}: marks drawn in the window`);
  assert.equal(Number(got.dataset.events), events.length, `run ${label}: the view took every event`);

  // Lanes: the producer's orders and payments, one lane per consumer.
  assert.equal(Number(got.dataset.orders), want.tasks);
  assert.equal(Number(got.dataset.payments), want.payments);
  assert.equal(got.lanes.length, consumers);
  assert.deepEqual(got.lanes, want.lanes, `run ${label}: lane counts`);

  // Metrics: shown exactly as lab.metrics() reports them, and consistent with the events.
  const m = metrics[i];
  for (const [key, value] of Object.entries(got.metrics)) {
    assert.equal(value, m[key] === null || m[key] === undefined ? "" : String(m[key]), `run ${label}: metric ${key}`);
  }
  assert.equal(m.now, state.now);
  assert.equal(m.tasks, want.tasks);
  assert.equal(m.onTime, want.fates.on_time);
  assert.equal(m.late, want.fates.late);
  assert.equal(m.duplicates, want.fates.duplicate);
  assert.equal(m.lost, want.fates.lost);
  assert.equal(m.paid, want.fates.paid);
  assert.equal(m.pending, want.fates.pending);
  const consumerCommands = want.lanes.reduce((n, l) => n + l.commands, 0);
  assert.equal(m.consumerCommands, consumerCommands, `run ${label}: consumer commands`);
  // The lab reports the producer's commands as a count only (no command events): an order
  // sends ZADD (SET for strategy 4; ZADD and PUBLISH for 5), a payment ZREM/DEL — one whose
  // reply would come after the end of the run is counted but has no `paid` event.
  const perOrder = state.runs[i].strategy === 5 ? 2 : 1;
  const producerCommands = want.tasks * perOrder + want.payments;
  assert.ok(m.producerCommands >= producerCommands && m.producerCommands <= producerCommands + 2, `run ${label}: producer commands ${m.producerCommands} for ${want.tasks} orders, ${want.payments} payments`);
  assert.equal(m.emptyPolls, want.lanes.reduce((n, l) => n + l.empty, 0), `run ${label}: empty polls`);
  assert.equal(m.messages, want.lanes.reduce((n, l) => n + l.messages, 0), `run ${label}: messages`);
  return { want, got, metrics: m };
}

async function screenshot(target, name) {
  const dir = path.join(REPO_ROOT, "test-results");
  await mkdir(dir, { recursive: true });
  await target.screenshot({ path: path.join(dir, name) });
}

// -------------------------------------------------------------------------------------------

test("each strategy runs in the page and the timeline and metrics show exactly its events", async () => {
  const { page, context, errors } = await openLab();
  try {
    const results = {};
    for (const strategy of [1, 2, 3, 4, 5, 6]) {
      await runForm(page, { strategy });
      await settle(page);
      const r = await assertRunMatches(page, 0, 2);
      results[strategy] = r;
      assert.match(r.got.title, new RegExp(`^strategy ${strategy} · `));
      assert.ok(r.got.code.length > 50, "the strategy's client code is shown");
      assert.ok(r.want.tasks > 200, `strategy ${strategy}: ${r.want.tasks} tasks`);
      assert.ok(r.want.fates.on_time + r.want.fates.late + r.want.fates.duplicate > 0, `strategy ${strategy}: some processed`);
      assert.match(await page.textContent("#dq-status"), /The run ended at 00:03:00/);
      assert.equal(await page.textContent("#dq-clock"), "00:03:00.000 UTC");
    }
    // What distinguishes them, on the same orders (same seed): only the naive poll processes
    // twice; polling sends empty polls, the wake-up and keyspace designs almost none.
    assert.ok(results[2].want.fates.duplicate > 0, "strategy 2 processes some tasks twice");
    for (const s of [1, 3, 5]) assert.equal(results[s].want.fates.duplicate, 0, `strategy ${s} never processes twice`);
    // Keyspace notifications are broadcast: with two consumers subscribed, both close every order.
    assert.ok(results[4].want.fates.duplicate > 0, "strategy 4 with two subscribers processes twice");
    assert.ok(results[2].want.lanes.some((l) => l.missed > 0), "strategy 2's unchecked ZREM often removes nothing");
    assert.ok(results[1].metrics.emptyPolls > 100);
    assert.ok(results[4].want.lanes.every((l) => l.messages > 0), "strategy 4 consumers get expired events");
    assert.ok(results[5].metrics.messages > 0 && results[5].metrics.emptyPolls < results[1].metrics.emptyPolls, "wake-ups instead of empty polls");
    // The stream: each task read by one consumer of the group, processed once.
    assert.equal(results[6].want.fates.duplicate, 0, "strategy 6 never processes twice");
    assert.equal(results[6].want.fates.lost, 0);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("strategy 2 with two consumers shows duplicates; strategy 4 with a crash shows lost tasks (compared on one axis)", async () => {
  const { page, context, errors } = await openLab();
  try {
    await runForm(page, { strategy: 2, compareStrategy: 1, rttMs: "5ms", workMs: "50ms" });
    await settle(page);
    // Two timelines stacked, sharing the axis: same width, both drawn, each with its metrics.
    assert.equal(await page.locator(".dq-run").count(), 2);
    const a = await assertRunMatches(page, 0, 2);
    const b = await assertRunMatches(page, 1, 2);
    assert.equal(a.got.canvasWidth, b.got.canvasWidth);
    assert.match(a.got.title, /^A · strategy 2 · /);
    assert.match(b.got.title, /^B · strategy 1 · /);
    assert.equal(a.want.tasks, b.want.tasks, "the same orders");
    assert.ok(a.want.fates.duplicate > 0, `duplicates shown: ${a.got.fatesText}`);
    assert.match(a.got.fatesText, /processed twice [1-9]/);
    assert.equal(b.want.fates.duplicate, 0);
    assert.ok(a.want.lanes[0].processes > 0 && a.want.lanes[1].processes > 0, "both consumers process");
    assert.ok((await page.locator("#dq-code-a").textContent()) !== (await page.locator("#dq-code-b").textContent()));
    assert.equal(await page.locator("#dq-log-run").isVisible(), true);

    // Strategy 4 loses what expires while its only consumer is down.
    await runForm(page, { strategy: 4, compareStrategy: 3, consumers: "1", crashes: "consumer 1 at 60s for 40s" });
    await settle(page);
    const k = await assertRunMatches(page, 0, 1);
    const l = await assertRunMatches(page, 1, 1);
    assert.equal(k.want.lanes[0].crashes, 1);
    assert.ok(k.want.fates.lost > 0, `lost shown: ${k.got.fatesText}`);
    assert.match(k.got.fatesText, /never \(lost\) [1-9]/);
    assert.equal(l.want.fates.lost, 0, "the Lua pop leaves the tasks in Redis until the consumer is back");
    assert.ok(l.want.fates.late > 0, "…and processes them late instead");
    // The crash is drawn: the shaded lane at the crash's time is reddish.
    const shade = await page.evaluate(async () => {
      const { pageParts } = await import("/www/main.js");
      const vp = pageParts.views.delayQueue.viewport();
      const canvas = document.querySelector("#dq-run-a canvas");
      const w = canvas.getBoundingClientRect().width;
      const x = 104 + ((80_000 - vp.from) / (vp.to - vp.from)) * (w - 104 - 10);
      const rect = canvas.getBoundingClientRect();
      const y = rect.height - 12;
      const dpr = window.devicePixelRatio || 1;
      const [r, g, b] = canvas.getContext("2d").getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data;
      return { r, g, b };
    });
    assert.ok(shade.r > shade.g + 10 && shade.r > shade.b + 10, `crash shading: ${JSON.stringify(shade)}`);
    // Tall enough to show both timelines, their metrics, the code and the events.
    await page.setViewportSize({ width: 1440, height: 1900 });
    await page.waitForFunction(() => window.innerHeight === 1900);
    await screenshot(page, "delay-queue.png");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the walkthrough: one order at 12:00, due 12:30, polled every second — stepped to 12:30 and processed", async () => {
  const { page, context, errors } = await openLab();
  try {
    assert.equal(await page.inputValue("#dq-preset"), "walkthrough");
    assert.equal(await page.textContent("#dq-clock"), "12:00:00.000 UTC");
    assert.match(await page.textContent("#dq-orders-note"), /one at \+0ms, due 30m later/);
    // Each step runs exactly to the lab's next event.
    for (let i = 0; i < 6; i += 1) {
      const next = await page.evaluate(async () => {
        const { pageParts } = await import("/www/main.js");
        return pageParts.delayQueue.nextEventMs();
      });
      await page.click("#dq-step");
      assert.equal((await labState(page)).state.now, next, `step ${i + 1} lands on next_event_ms()`);
    }
    await page.waitForFunction(() => document.getElementById("delay-queue").dataset.drawnNow !== "0");
    const early = await page.$$eval("#dq-log li", (l) => l.map((x) => x.textContent));
    assert.ok(early.some((t) => /12:00:00\.000 producer: order:1 created, due 12:30:00\.000/.test(t)), early.join("\n"));
    assert.ok(early.some((t) => /consumer 1: ZRANGEBYSCORE queue -inf \d+ LIMIT 0 10 → \(empty array\) \(empty poll\)/.test(t)));
    assert.match(await page.textContent("#dq-clock"), /^12:00:0\d\.\d{3} UTC$/);

    // Skip to two seconds before due, then step until the order is processed.
    assert.equal(await page.inputValue("#dq-skip"), "12:29:58");
    await page.click("#dq-skip-go");
    await page.waitForFunction(() => document.getElementById("dq-status").textContent.startsWith("Paused"));
    await page.waitForFunction(() => document.getElementById("delay-queue").dataset.drawnNow === String(29 * 60_000 + 58_000));
    assert.equal(await page.textContent("#dq-clock"), "12:29:58.000 UTC");
    let steps = 0;
    for (;;) {
      await page.click("#dq-step");
      steps += 1;
      const s = await labState(page);
      await page.waitForFunction((now) => document.getElementById("delay-queue").dataset.drawnNow === String(now), s.state.now);
      const onTime = Number(await page.getAttribute("#dq-run-a", "data-fate-on-time"));
      if (onTime === 1) break;
      assert.ok(steps < 40, "processed within 40 steps of 12:29:58");
    }
    const clock = await page.textContent("#dq-clock");
    assert.match(clock, /^12:30:0\d\.\d{3} UTC$/);
    const log = await page.$$eval("#dq-log li", (l) => l.map((x) => x.textContent));
    assert.match(log[0], /^12:30:0\d\.\d{3} consumer 1: processed order:1 \(20 ms\)$/);
    assert.ok(log.some((t) => / consumer 1: ZREM queue order:1 → \(integer\) 1$/.test(t)));
    assert.ok(log.some((t) => / consumer 1: ZRANGEBYSCORE queue -inf \d+ LIMIT 0 10 → 1 item: order:1$/.test(t)));
    assert.match(await page.textContent("#dq-announce"), /processed order:1/);
    // The metrics say the same, live.
    const { metrics } = await labState(page);
    assert.equal(metrics[0].processed, 1);
    assert.equal(metrics[0].onTime, 1);
    assert.equal(await page.getAttribute('#dq-run-a-metrics td[data-metric="processed"]', "data-value"), "1");
    assert.ok(metrics[0].latenessP50 >= 0 && metrics[0].latenessP50 <= 1000, `lateness ${metrics[0].latenessP50}`);
    // The window follows now: 12:30 is on screen.
    const { viewport } = await labState(page);
    assert.ok(viewport.from <= 1_800_000 && 1_800_000 <= viewport.to);
    await screenshot(page, "delay-queue-walkthrough.png");
    // Play to the end: the fate becomes final.
    await page.selectOption("#dq-speed", "max");
    await page.click("#dq-play");
    await settle(page);
    await assertRunMatches(page, 0, 1);
    assert.equal(await page.getAttribute("#dq-run-a", "data-fate-on-time"), "1");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("bad input gets a message next to its field, never an exception; the lab is not touched", async () => {
  const { page, context, errors } = await openLab();
  try {
    const generation = async () => (await labState(page)).state.generation;
    const before = await generation();
    await page.selectOption("#dq-preset", "custom");
    const cases = [
      ["consumers", "abc", /consumers: a whole number from 1 to 16/],
      ["consumers", "17", /consumers: a whole number from 1 to 16/],
      ["pollMs", "-5", /poll every: a duration like/],
      ["durationMs", "2 weeks", /duration: a duration like/],
      ["payProb", "1.5", /paid: a probability from 0 to 1/],
      ["crashes", "consumer 9 at 1m for 1m", /crashes: consumer 9 does not exist — consumers are numbered 1 to 2/],
      ["crashes", "boom", /crashes: "boom" is not "consumer N at T for D"/],
      ["seed", "<img src=x onerror=alert(1)>", /seed: a whole number/],
      ["crashes", "<img src=x onerror=alert(1)> at 1m", /crashes: "<img src=x onerror=alert\(1\)> at 1m" is not "consumer N at T for D"/],
    ];
    for (const [key, value, message] of cases) {
      await page.fill(`#dq-${key}`, value);
      await page.click("#dq-run");
      assert.match(await page.textContent(`#dq-${key}-msg`), message, `${key}=${value}`);
      assert.equal(await page.isVisible(`#dq-${key}-msg`), true);
      assert.equal(await page.getAttribute(`#dq-${key}`, "aria-invalid"), "true");
      assert.equal(await page.getAttribute(`#dq-${key}`, "aria-describedby"), `dq-${key}-msg`);
      assert.match(await page.textContent("#dq-form-msg"), /^Not run: /);
      assert.equal(await generation(), before, "the lab was not replaced");
      await page.fill(`#dq-${key}`, key === "crashes" ? "" : { consumers: "2", pollMs: "1000ms", durationMs: "31m", payProb: "0.5", seed: "1" }[key]);
    }
    // What was typed stays text.
    assert.equal(await page.locator("#delay-queue img").count(), 0);
    // Fixed, it runs.
    await page.click("#dq-run");
    await page.waitForFunction((g) => document.getElementById("delay-queue").dataset.drawnGeneration === String(g + 1), before);
    assert.match(await page.textContent("#dq-form-msg"), /^Running strategy 1/);
    for (const [key] of cases) assert.equal(await page.isVisible(`#dq-${key}-msg`), false);
    await page.click("#dq-play"); // pause

    // "Skip to" too.
    await page.fill("#dq-skip", "25:99");
    await page.click("#dq-skip-go");
    assert.match(await page.textContent("#dq-skip-msg"), /skip to: a wall-clock time like 12:29:58/);
    await page.fill("#dq-skip", "+2h");
    await page.click("#dq-skip-go");
    assert.match(await page.textContent("#dq-skip-msg"), /skip to: the run ends at 00:31:00/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the axis zooms and pans from the keyboard and the buttons, follows now while playing, and is labelled", async () => {
  const { page, context, errors } = await openLab();
  try {
    await runForm(page, { strategy: 1, speed: "10", durationMs: "10m" });
    await page.waitForFunction(() => document.getElementById("delay-queue").dataset.playing === "true");
    const vp0 = (await labState(page)).viewport;
    assert.ok(vp0.to - vp0.from >= 600_000, "a fresh run shows the whole run");
    // The tab is one of the panel's tabs, reached by the arrow keys like the others.
    await page.focus("#tab-delay-queue");
    await page.keyboard.press("Home");
    // (The first tab is the keyspace list's.)
    assert.equal(await page.getAttribute("#tab-keyspace", "aria-selected"), "true");
    assert.ok(await page.isHidden("#delay-queue"));
    // (The last is the persistence view's, just after the lab's.)
    await page.keyboard.press("End");
    assert.equal(await page.getAttribute("#tab-persistence", "aria-selected"), "true");
    await page.keyboard.press("ArrowLeft");
    assert.equal(await page.getAttribute("#tab-delay-queue", "aria-selected"), "true");
    assert.ok(await page.isVisible("#delay-queue"));
    // Zoom in around now: the window narrows and keeps following now as the lab plays.
    await page.focus("#dq-run-a canvas");
    for (let i = 0; i < 6; i += 1) await page.keyboard.press("+");
    const vp1 = (await labState(page)).viewport;
    assert.ok(vp1.to - vp1.from < (vp0.to - vp0.from) / 30, JSON.stringify(vp1));
    await page.waitForFunction(
      (from) => {
        const vp = window.dqParts.views.delayQueue.viewport();
        const now = window.dqParts.delayQueue.state().now;
        return vp.from > from && now >= vp.from && now <= vp.to;
      },
      vp1.from,
      { timeout: 10_000 },
    );
    // Panning leaves follow mode; F brings it back; 0 shows the whole run.
    await page.keyboard.press("ArrowLeft");
    assert.equal((await labState(page)).viewport.follow, false);
    assert.equal(await page.getAttribute("#dq-follow", "aria-pressed"), "false");
    await page.keyboard.press("f");
    assert.equal(await page.getAttribute("#dq-follow", "aria-pressed"), "true");
    await page.keyboard.press("0");
    const vp2 = (await labState(page)).viewport;
    assert.ok(vp2.to - vp2.from >= 600_000);
    // Space pauses; "." steps to the next event.
    await page.keyboard.press(" ");
    await page.waitForFunction(() => document.getElementById("delay-queue").dataset.playing === "false");
    const t0 = (await labState(page)).state.now;
    await page.keyboard.press(".");
    assert.ok((await labState(page)).state.now > t0);
    // Buttons.
    await page.click("#dq-zoom-in");
    assert.ok((await labState(page)).viewport.to - (await labState(page)).viewport.from < vp2.to - vp2.from);
    await page.click("#dq-fit");
    // Controls are labelled, the canvas says what it shows.
    const unlabelled = await page.$$eval("#delay-queue input, #delay-queue select", (els) =>
      els.filter((e) => !e.labels?.length && !e.getAttribute("aria-label")).map((e) => e.id),
    );
    assert.deepEqual(unlabelled, []);
    assert.match(await page.getAttribute("#dq-run-a canvas", "aria-label"), /^Timeline of run A, .* tasks — /);
    // The lab's clock is its own: the console engine's clock bar stayed paused.
    assert.match(await page.textContent("#clock-play"), /Play/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the timeline drawn while playing (lanes through the cached layer) equals a full redraw", async () => {
  const { page, context, errors } = await openLab();
  try {
    await runForm(page, { strategy: 2, speed: "600", durationMs: "30m", consumers: "3", pollMs: "300ms" });
    await page.waitForFunction(() => window.dqParts.delayQueue.state().now > 600_000, null, { timeout: 20_000 });
    await page.click("#dq-play"); // pause mid-run
    await page.waitForFunction(() => {
      const s = window.dqParts.delayQueue.state();
      const root = document.getElementById("delay-queue");
      return !s.playing && root.dataset.playing === "false" && root.dataset.drawnNow === String(s.now);
    });
    const same = await page.evaluate(async () => {
      const view = window.dqParts.views.delayQueue;
      const [timeline] = view.timelines();
      const pixels = () => {
        const c = timeline.canvas;
        return c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      };
      const before = timeline.layerDraws();
      view.draw();
      const layered = pixels();
      const layerDraws = timeline.layerDraws();
      const reused = layerDraws === before;
      timeline.forgetLayer();
      view.draw();
      const full = pixels();
      let differ = 0;
      const where = [];
      const w = timeline.canvas.width;
      for (let i = 0; i < full.length; i += 1) {
        if (full[i] !== layered[i]) {
          differ += 1;
          if (where.length < 12 && i % 4 === 0) where.push([(i / 4) % w, Math.floor(i / 4 / w), [...layered.slice(i, i + 4)], [...full.slice(i, i + 4)]]);
        }
      }
      return { differ, layerDraws, reused, size: full.length, where: JSON.stringify(where) };
    });
    assert.ok(same.layerDraws >= 2, `the layer was renewed while playing (${same.layerDraws} renewals)`);
    assert.ok(same.reused, "the first draw used the layer as it was");
    assert.equal(same.differ, 0, `${same.differ} of ${same.size} bytes differ: ${same.where}`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("with reduced motion the window turns a page only when now leaves it", async () => {
  const { page, context, errors } = await openLab({ reducedMotion: "reduce" });
  try {
    // The walkthrough's 20-second window; play at 10×: now runs off its right edge.
    const vp0 = (await labState(page)).viewport;
    assert.equal(vp0.to - vp0.from, 20_000);
    await page.selectOption("#dq-speed", "10");
    await page.click("#dq-play");
    const seen = await page.evaluate(async () => {
      const { pageParts } = await import("/www/main.js");
      const froms = new Set();
      await new Promise((resolve) => {
        const t0 = performance.now();
        const tick = () => {
          froms.add(pageParts.views.delayQueue.viewport().from);
          if (performance.now() - t0 < 3000) requestAnimationFrame(tick);
          else resolve();
        };
        requestAnimationFrame(tick);
      });
      return [...froms];
    });
    await page.click("#dq-play");
    // 3 s at 10× is 30 virtual seconds: the window jumped once or twice, never slid.
    assert.ok(seen.length >= 2 && seen.length <= 4, `window positions: ${seen}`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("strategy 6 in zh-CN: a crashed stream consumer's tasks are taken over by XAUTOCLAIM, none lost (the Lua pop loses them)", async () => {
  const { page, context, errors } = await openLab({ lang: "zh-CN", viewport: { width: 1280, height: 800 } });
  try {
    assert.equal(await page.getAttribute("html", "lang"), "zh-CN");
    // Long work, so the crash lands while consumer 1 holds tasks; it stays down to the end.
    await runForm(page, { strategy: 6, compareStrategy: 3, workMs: "3s", ratePerS: "1", crashes: "consumer 1 at 90s for 5m" });
    await settle(page);
    const s = await assertRunMatches(page, 0, 2);
    const l = await assertRunMatches(page, 1, 2);
    assert.match(s.got.title, /^A · 策略 6 · Stream \+ 消费者组/);
    assert.equal(s.want.lanes[0].crashes, 1);
    assert.equal(s.want.fates.lost, 0, `stream: nothing lost: ${s.got.fatesText}`);
    assert.ok(l.want.fates.lost > 0, `the Lua pop loses what the crashed consumer held: ${l.got.fatesText}`);
    // Consumer 2 took the crashed consumer's entries over with XAUTOCLAIM.
    const claimed = await page.evaluate(() =>
      window.dq.runs[0].filter((e) => e.kind === "command" && e.consumer === 1 && e.cmd.startsWith("XAUTOCLAIM") && / entr/.test(e.reply)).length,
    );
    assert.ok(claimed > 0, "an XAUTOCLAIM by consumer 2 took entries");
    assert.match(await page.textContent("#dq-code-a"), /xautoclaim/);
    await page.locator("#dq-run-a").scrollIntoViewIfNeeded();
    await screenshot(page, "dq-streams-zh-laptop.png");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForFunction(() => window.innerWidth === 390);
    await settle(page);
    await page.locator("#dq-run-a").scrollIntoViewIfNeeded();
    await screenshot(page, "dq-streams-zh-phone.png");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("retries: with a fail rate, failed tasks come back and, past max tries, land in the dead-letter set (shown as a fate and in the metrics)", async () => {
  const { page, context, errors } = await openLab();
  try {
    await runForm(page, { strategy: 3, compareStrategy: 6, failProb: "0.3", maxTries: "2", backoffMs: "5s" });
    await settle(page);
    for (const i of [0, 1]) {
      const r = await assertRunMatches(page, i, 2);
      assert.ok(r.want.fates.dead_letter > 0, `run ${i}: dead letters shown: ${r.got.fatesText}`);
      assert.equal(r.want.fates.lost, 0);
      assert.match(r.got.fatesText, /dead letter [1-9]/);
      assert.equal(Number(r.got.metrics.deadLettered), r.want.fates.dead_letter);
      assert.ok(Number(r.got.metrics.retried) > 0 && Number(r.got.metrics.failed) > 0);
    }
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
