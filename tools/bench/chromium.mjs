// The wasm build in headless Chromium (Debian's, through playwright-core, as the e2e tests drive
// it), three parts, each on a fresh page:
//
//   1. memory — 10⁶ `SET key:N val:NNNNNN` on a fresh wasm instance: linear memory and the
//      engine's INFO used_memory, bytes per key (ops.mjs `measureMemory`);
//   2. ops — the operations of wasm-node.mjs, the same loop (ops.mjs `runTarget`), in
//      tools/bench/bench.html;
//   3. page — the real playground (index.html) with 10⁵ / 10⁶ keys carrying TTLs (uniform 1–3600 s,
//      created through the expiry view's populate form: the engine's populate_volatile), the
//      expiry or the eviction view open, playing at 1× and at 60×: requestAnimationFrame
//      intervals (frame time), the real time the page's own rAF callbacks took each frame (the
//      loop: engine advance + event drain + the views' update/draw; style, layout and paint are
//      not in it), long animation frames (≥ 50 ms, rendering included), cron ticks run and how
//      fast the virtual clock really went.
//
//   node tools/bench/chromium.mjs [--ops N] [--sizes 1000,100000,1000000] [--memory-keys N]
//        [--page-sizes 100000,1000000] [--page-seconds S] [--only memory,ops,page] [--out f.json]
//
// The static server sends COOP/COEP headers: the page is then cross-origin isolated and
// performance.now() has 5 µs resolution instead of 100 µs (nothing here loads from elsewhere).
import { writeFile } from "node:fs/promises";
import { chromium } from "playwright-core";

// The same Chromium, flags and static server as the e2e tests (root needs --no-sandbox; the rest
// keeps it off the network).
import { CHROMIUM, CHROMIUM_ARGS, startServer as startStaticServer } from "../../tests/e2e/harness.mjs";
const START = 1735689600000; // 2025-01-01T00:00:00Z, the e2e tests' start
const TTL_MIN_S = 1;
const TTL_MAX_S = 3600;

function parseArgs(argv) {
  const o = {
    ops: 100_000,
    sizes: [1_000, 100_000, 1_000_000],
    memoryKeys: 1_000_000,
    pageSizes: [100_000, 1_000_000],
    pageSeconds: 6,
    only: ["memory", "ops", "page"],
    out: null,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (k === "--ops") o.ops = Number(v);
    else if (k === "--sizes") o.sizes = v.split(",").map(Number);
    else if (k === "--memory-keys") o.memoryKeys = Number(v);
    else if (k === "--page-sizes") o.pageSizes = v.split(",").map(Number);
    else if (k === "--page-seconds") o.pageSeconds = Number(v);
    else if (k === "--only") o.only = v.split(",");
    else if (k === "--out") o.out = v;
    else throw new Error(`unknown option ${k}`);
  }
  return o;
}

const log = (line) => process.stderr.write(`${line}\n`);

/** The e2e tests' static server, cross-origin isolated (performance.now() then has 5 µs resolution). */
const startServer = () =>
  startStaticServer({ headers: { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" } });

/** A fresh context and page; problems (console errors, exceptions, failed requests) collected. */
async function openPage(browser, _url, errors) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  page.on("console", (m) => m.type() === "error" && errors.push(`console.error: ${m.text()}`));
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("requestfailed", (r) => errors.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  return { context, page };
}

/** Loads ops.mjs and the wasm build into bench.html: `window.bench = {ops, pkg, wasm}`. */
async function loadBench(page, url) {
  await page.goto(`${url}/tools/bench/bench.html`);
  const isolated = await page.evaluate(async () => {
    const ops = await import("/tools/bench/ops.mjs");
    const pkg = await import("/www/pkg/redisplay.js");
    const wasm = await pkg.default();
    window.bench = { ops, pkg, wasm };
    return self.crossOriginIsolated;
  });
  return { isolated };
}

async function runMemory(browser, url, keys, errors) {
  const { context, page } = await openPage(browser, url, errors);
  try {
    await loadBench(page, url);
    const m = await page.evaluate((keys) => window.bench.ops.measureMemory(window.bench.pkg, window.bench.wasm, keys), keys);
    log(`[bench] chromium memory: ${keys} keys: linear memory +${m.linear_bytes_per_key} B/key, INFO used_memory +${m.used_memory_bytes_per_key} B/key (loaded in ${m.load_ms} ms)`);
    return m;
  } finally {
    await context.close();
  }
}

async function runOps(browser, url, sizes, ops, errors) {
  const { context, page } = await openPage(browser, url, errors);
  try {
    const { isolated } = await loadBench(page, url);
    const rows = [];
    for (const n of sizes) {
      const [row] = await page.evaluate(
        ({ n, ops }) => {
          const { ops: lib, pkg } = window.bench;
          return lib.runTarget("chromium", [n], ops, async () => lib.wasmFactory(pkg)());
        },
        { n, ops },
      );
      log(`[bench] chromium wasm ${n}: ${row.results.map((r) => `${r.op} ${r.ns_per_op} ns`).join(", ")}`);
      rows.push(row);
    }
    return { cross_origin_isolated: isolated, sizes: rows };
  } finally {
    await context.close();
  }
}

// --- the page ----------------------------------------------------------------------------------

/**
 * Before any page script: requestAnimationFrame is wrapped so the real time each callback takes
 * is summed per frame (keyed by the frame's timestamp) while `__bench.on`; the unwrapped one is
 * kept for the measurement's own frame clock. The page's loop looks requestAnimationFrame up
 * when it schedules a frame (www/loop.js), so it gets the wrapped one.
 */
function instrumentFrames() {
  const raw = window.requestAnimationFrame.bind(window);
  const bench = { raw, on: false, work: new Map() };
  window.__bench = bench;
  window.requestAnimationFrame = (cb) =>
    raw((t) => {
      const t0 = performance.now();
      try {
        cb(t);
      } finally {
        if (bench.on) bench.work.set(t, (bench.work.get(t) ?? 0) + performance.now() - t0);
      }
    });
}

/**
 * In the page: plays for `warmMs`, then records `seconds` of frames. Where the page's own work
 * goes is summed too, by wrapping (once) the engine calls the loop makes (advanceTo, drainEvents)
 * and every view's update/draw, as tests/e2e/expiry-view.test.mjs does; the expiry view's own
 * timings (its parts) are read before and after.
 */
async function measureFrames({ warmMs, seconds }) {
  const b = window.__bench;
  const { pageParts } = await import("/www/main.js");
  if (!b.spent) {
    b.spent = {};
    const wrap = (obj, name, bucket) => {
      const fn = obj[name].bind(obj);
      b.spent[bucket] = 0;
      obj[name] = (...args) => {
        const t0 = performance.now();
        try {
          return fn(...args);
        } finally {
          if (b.on) b.spent[bucket] += performance.now() - t0;
        }
      };
    };
    wrap(pageParts.engine, "advanceTo", "engine");
    wrap(pageParts.engine, "drainEvents", "engine");
    // The views the loop drives (the delay-queue lab has a loop of its own).
    for (const [name, view] of Object.entries(pageParts.views)) {
      if (typeof view?.update !== "function" || typeof view.draw !== "function") continue;
      wrap(view, "update", name);
      wrap(view, "draw", name);
    }
  }
  for (const k of Object.keys(b.spent)) b.spent[k] = 0;
  const expiryTimings = () => pageParts.views.expiry?.debug().timings ?? {};
  const data = (id, k) => Number(document.getElementById(id).dataset[k]);
  await new Promise((r) => setTimeout(r, warmMs));
  return new Promise((resolve) => {
    const loafs = [];
    let observer = null;
    if (PerformanceObserver.supportedEntryTypes?.includes("long-animation-frame")) {
      observer = new PerformanceObserver((list) => loafs.push(...list.getEntries().map((e) => e.duration)));
      observer.observe({ type: "long-animation-frame" });
    }
    const ticks0 = data("clock-cron", "ticks");
    const virtual0 = data("clock-time", "ms");
    const parts0 = expiryTimings();
    b.work = new Map();
    b.on = true;
    const stamps = [];
    const t0 = performance.now();
    const tick = (t) => {
      stamps.push(t);
      if (t - t0 < seconds * 1000) return void b.raw(tick);
      b.on = false;
      for (const e of observer?.takeRecords() ?? []) loafs.push(e.duration);
      observer?.disconnect();
      const parts1 = expiryTimings();
      const intervals = stamps.slice(1).map((s, i) => s - stamps[i]);
      // The work of each frame whose start is a stamp (the first frame's is before the interval).
      const work = stamps.slice(1).map((s) => b.work.get(s) ?? 0);
      resolve({
        realMs: stamps[stamps.length - 1] - stamps[0],
        intervals,
        work,
        spent: { ...b.spent },
        expiryParts: Object.fromEntries(Object.keys(parts1).map((k) => [k, parts1[k] - (parts0[k] ?? 0)])),
        fieldReadMs: Number(document.getElementById("expiry").dataset.fieldMs ?? NaN),
        loafs,
        ticks: data("clock-cron", "ticks") - ticks0,
        virtualMs: data("clock-time", "ms") - virtual0,
      });
    };
    b.raw(tick);
  });
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
const r1 = (x) => +x.toFixed(1);
const r2 = (x) => +x.toFixed(2);
function summary(values) {
  const s = [...values].sort((a, b) => a - b);
  return { p50: r2(pct(s, 50)), p95: r2(pct(s, 95)), p99: r2(pct(s, 99)), max: r2(s[s.length - 1]), mean: r2(s.reduce((a, b) => a + b, 0) / s.length) };
}

async function setPaused(page, paused) {
  const want = paused ? "Play" : "Pause"; // the button names what a click would do
  if (!(await page.textContent("#clock-play")).includes(want)) await page.click("#clock-play");
  await page.waitForFunction((w) => document.querySelector("#clock-play").textContent.includes(w), want);
}

async function runPageCell(browser, url, { view, keys, speeds, seconds }, errors) {
  const { context, page } = await openPage(browser, url, errors);
  try {
    await context.addInitScript(instrumentFrames);
    await page.goto(`${url}/?seed=7&t=${START}#expiry`);
    await page.waitForSelector("html[data-boot]");
    if ((await page.getAttribute("html", "data-boot")) !== "ready") throw new Error("the page did not boot");
    await setPaused(page, true);
    // The expiry view's populate form (the engine's populate_volatile, the fastest path the page has).
    await page.fill("#expiry-pop-count", String(keys));
    await page.fill("#expiry-pop-prefix", "k:");
    await page.fill("#expiry-pop-min", String(TTL_MIN_S));
    await page.fill("#expiry-pop-max", String(TTL_MAX_S));
    await page.selectOption("#expiry-pop-dist", "uniform");
    await page.click("#expiry-pop-go");
    await page.waitForFunction(() => /^Created /.test(document.getElementById("expiry-controls-message").textContent), null, { timeout: 180_000 });
    const made = await page.textContent("#expiry-controls-message");
    const populateMs = Number(/in ([\d,]+) ms/.exec(made)?.[1].replace(/,/g, "") ?? NaN);
    if (view !== "expiry") {
      await page.click(`#tab-${view}`);
      await page.waitForSelector(`#${view}:not([hidden])`);
    }
    const cells = [];
    for (const speed of speeds) {
      await page.selectOption("#clock-speed", String(speed));
      await setPaused(page, false);
      const m = await page.evaluate(measureFrames, { warmMs: 1000, seconds });
      await setPaused(page, true);
      const frame = summary(m.intervals);
      const work = summary(m.work);
      const cell = {
        view,
        keys,
        speed,
        populate_ms: populateMs,
        seconds: r1(m.realMs / 1000),
        frames: m.intervals.length,
        fps: r1((m.intervals.length * 1000) / m.realMs),
        frame_ms: frame,
        work_ms: work,
        // Frames that took longer than 1.5 vsync periods (at ~16.7 ms).
        over_25ms: m.intervals.filter((x) => x > 25).length,
        long_animation_frames: { count: m.loafs.length, max_ms: m.loafs.length ? r1(Math.max(...m.loafs)) : 0 },
        // Real ms a second of play spent in each part of the page's work (engine calls, views).
        spent_ms_per_s: Object.fromEntries(Object.entries(m.spent).filter(([, v]) => v > 0).map(([k, v]) => [k, r1((v * 1000) / m.realMs)])),
        expiry_parts_ms_per_s: Object.fromEntries(Object.entries(m.expiryParts).filter(([, v]) => v > 0).map(([k, v]) => [k, r1((v * 1000) / m.realMs)])),
        expiry_field_read_ms: Number.isFinite(m.fieldReadMs) ? r1(m.fieldReadMs) : null,
        cron_ticks: m.ticks,
        virtual_speed: r1(m.virtualMs / m.realMs),
      };
      log(
        `[bench] page ${view} ${keys} keys ${speed}×: ${cell.frames} frames in ${cell.seconds} s, frame p50/p95/p99 ` +
          `${frame.p50}/${frame.p95}/${frame.p99} ms (max ${frame.max}), page work p50/p95/p99 ${work.p50}/${work.p95}/${work.p99} ms, ` +
          `${cell.cron_ticks} cron ticks, clock at ${cell.virtual_speed}×; ms/s: ${JSON.stringify(cell.spent_ms_per_s)}`,
      );
      cells.push(cell);
    }
    return cells;
  } finally {
    await context.close();
  }
}

// --- main --------------------------------------------------------------------------------------
const opts = parseArgs(process.argv.slice(2));
const server = await startServer();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const out = { chromium: browser.version(), ops_per_cell: opts.ops, errors: [] };
try {
  if (opts.only.includes("memory")) out.memory = await runMemory(browser, server.url, opts.memoryKeys, out.errors);
  if (opts.only.includes("ops")) out.wasm = await runOps(browser, server.url, opts.sizes, opts.ops, out.errors);
  if (opts.only.includes("page")) {
    out.page = { ttl_s: [TTL_MIN_S, TTL_MAX_S], seconds_per_cell: opts.pageSeconds, cells: [] };
    for (const view of ["expiry", "eviction"])
      for (const keys of opts.pageSizes)
        out.page.cells.push(...(await runPageCell(browser, server.url, { view, keys, speeds: [1, 60], seconds: opts.pageSeconds }, out.errors)));
  }
} finally {
  await browser.close();
  await server.close();
}
for (const e of out.errors) log(`[bench] chromium: ${e}`);
const json = JSON.stringify(out, null, 1);
if (opts.out) await writeFile(opts.out, `${json}\n`);
else console.log(json);
