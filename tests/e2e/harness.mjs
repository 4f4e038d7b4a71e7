// Shared by the e2e test files: a static server for the repo root, Debian's Chromium through
// playwright-core, and small page helpers. Each test file starts its own server and browser.
//
// The page under test is the *built* one: run ./scripts/build-web.sh first (www/pkg/).

import { before, after } from "node:test";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { mkdir, readFile, stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/** Fails early with a useful message when the wasm package was not built. */
export function assertBuilt() {
  for (const f of ["www/pkg/redisplay.js", "www/pkg/redisplay_bg.wasm"]) {
    if (!existsSync(path.join(REPO_ROOT, f))) {
      throw new Error(`${f} is missing: run ./scripts/build-web.sh before the e2e tests`);
    }
  }
}

/**
 * A static file server for the repo root on a free loopback port: `{url, close()}`. `headers`
 * are added to every response (the bench serves its page cross-origin isolated).
 */
export async function startServer({ headers = {} } = {}) {
  assertBuilt();
  const server = createServer(async (req, res) => {
    try {
      const { pathname } = new URL(req.url, "http://localhost");
      let file = path.normalize(path.join(REPO_ROOT, decodeURIComponent(pathname)));
      if (!file.startsWith(REPO_ROOT)) {
        res.writeHead(403).end();
        return;
      }
      if ((await stat(file).catch(() => null))?.isDirectory()) file = path.join(file, "index.html");
      const body = await readFile(file);
      res.writeHead(200, {
        "content-type": MIME[path.extname(file)] ?? "application/octet-stream",
        "cache-control": "no-store",
        ...headers,
      });
      res.end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

export async function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/**
 * One static server and one headless Chromium for a test file, started before its tests and
 * closed after them: `const env = useBrowser();` then `env.server.url`, `newPage(env.browser)`.
 */
export function useBrowser() {
  const env = { server: null, browser: null };
  before(async () => {
    env.server = await startServer();
    env.browser = await launchBrowser();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  return env;
}

/**
 * A fresh page with its problems recorded: `{page, context, errors}` where `errors` collects
 * console errors, uncaught exceptions, failed requests and dialogs (an alert means injected
 * markup ran).
 */
export async function newPage(browser, { viewport = { width: 1280, height: 800 } } = {}) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console.error: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("requestfailed", (r) => errors.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  page.on("dialog", (d) => {
    errors.push(`dialog: ${d.type()} ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  return { page, context, errors };
}

/** Loads the page and waits until boot ended; returns "ready" or "failed". */
export async function openPlayground(page, baseUrl, query = "") {
  await page.goto(`${baseUrl}/${query}`);
  await page.waitForSelector("html[data-boot]");
  return page.getAttribute("html", "data-boot");
}

/**
 * Types a line into the console and presses Enter; returns what the new entry shows:
 * `{prompt, typed, out, more, notes}` (out is null when the command printed nothing).
 */
export async function runLine(page, line) {
  // Mark the current last entry so the new one can be told apart (the scrollback is capped,
  // so counting entries is not enough).
  await page.evaluate(() => document.querySelector(".scrollback > .entry:last-child")?.setAttribute("data-seen", ""));
  await page.fill("#console-input", line);
  await page.press("#console-input", "Enter");
  await page.waitForSelector(".scrollback > .entry:last-child:not([data-seen])", { state: "attached" });
  return lastEntry(page);
}

/** What the last console entry shows. */
export async function lastEntry(page) {
  return page.locator(".scrollback > .entry").last().evaluate((entry) => ({
    prompt: entry.querySelector(".echo .prompt")?.textContent ?? null,
    typed: entry.querySelector(".echo .typed")?.textContent ?? null,
    out: entry.querySelector(".out")?.textContent ?? null,
    more: entry.querySelector(".more")?.textContent ?? null,
    notes: [...entry.querySelectorAll(".note-text")].map((n) => n.textContent),
  }));
}

/** The virtual clock as the page shows it (Unix ms). */
export async function clockMs(page) {
  return Number(await page.getAttribute("#clock-time", "data-ms"));
}

/** Cron ticks the page has counted. */
export async function cronTicks(page) {
  return Number(await page.getAttribute("#clock-cron", "data-ticks"));
}

/** Pauses the clock (if running) and waits until the page shows it paused. */
export async function pause(page) {
  const label = await page.textContent("#clock-play");
  if (label.includes("Pause")) await page.click("#clock-play");
  await page.waitForFunction(() => document.querySelector("#clock-play").textContent.includes("Play"));
}

/**
 * Waits until the playground's loop has gone to sleep (loop.js `sleeping()`): nothing pending,
 * not playing, no view in a transition — so the clock stands still and every view has drawn
 * what the engine did. `selector` names a <redis-playground>; without it, the page's own.
 */
export async function settled(page, selector = null, { timeout = 30_000 } = {}) {
  await fetchParts(page, selector);
  await page.waitForFunction(
    (sel) => {
      const parts = sel ? document.querySelector(sel)?.playground : window.__pageParts;
      return parts?.loop?.sleeping() === true;
    },
    selector,
    { timeout },
  );
}

/**
 * Waits until everything the engine did so far has been drained and handed to the views: the
 * loop is asleep (nothing was pending) or has run a frame since. Unlike `settled`, it also
 * returns while something keeps the loop awake (a workload run in progress, a transition).
 */
export async function drained(page, selector = null, { timeout = 30_000 } = {}) {
  await fetchParts(page, selector);
  const seen = await page.evaluate((sel) => (sel ? document.querySelector(sel).playground : window.__pageParts).loop.frameCount(), selector);
  await page.waitForFunction(
    ([sel, n]) => {
      const loop = (sel ? document.querySelector(sel)?.playground : window.__pageParts)?.loop;
      return loop !== undefined && (loop.sleeping() || loop.frameCount() > n);
    },
    [selector, seen],
    { timeout },
  );
}

/**
 * page.waitForFunction does not await a promise (an async predicate would pass at once), so the
 * page's parts are fetched into `window.__pageParts` first and the predicates stay synchronous.
 */
async function fetchParts(page, selector) {
  if (selector !== null) return;
  await page.evaluate(async () => {
    window.__pageParts ??= (await import("/www/main.js")).pageParts;
  });
}

/**
 * Resolves after `n` animation frames in the page. Not a way to wait for something (use
 * `settled` or `page.waitForFunction`): it is the window over which a test checks that nothing
 * moves — a loop that would advance or redraw does so on every frame.
 */
export async function frames(page, n) {
  await page.evaluate(
    (n) =>
      new Promise((resolve) => {
        let left = n;
        const tick = () => (--left <= 0 ? resolve() : requestAnimationFrame(tick));
        requestAnimationFrame(tick);
      }),
    n,
  );
}

/** What redis-cli's output looks like once its terminal controls are applied. */
export function terminalText(text) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: SGR codes are what it removes
  return text.replace(/\x1b\[[0-9;]*m/g, "").replace(/\r\n/g, "\n");
}

/**
 * Clicks the clock bar's Reset and, when the page asks first (there was work in the session),
 * confirms it.
 */
export async function clickReset(page) {
  await page.click("#clock-reset");
  const dialog = page.locator("dialog.confirm-dialog[open]");
  if ((await dialog.count()) > 0) await dialog.locator("button[value=confirm]").click();
}

/** A free loopback port (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Saves a screenshot of a page or a locator as test-results/<name> (looked at by people, not
 * compared).
 * @param {{screenshot(options: {path: string}): Promise<unknown>}} target
 * @param {string} name
 */
export async function screenshot(target, name) {
  const dir = path.join(REPO_ROOT, "test-results");
  await mkdir(dir, { recursive: true });
  await target.screenshot({ path: path.join(dir, name) });
}

/**
 * Per console pane: the outputs of the lines typed there, the text it received without input
 * (messages, late replies), in order, and whether its --raw switch is on — what a lab's lines
 * are checked against (tests/e2e/labs.test.mjs, articles.test.mjs).
 * @param {import("playwright-core").Page} page
 */
export async function consoleRecord(page) {
  return page.$$eval(".console-pane", (panes) =>
    panes.map((pane) => {
      const entries = [...pane.querySelectorAll(".scrollback > .entry")];
      return {
        typed: entries.filter((e) => e.querySelector(".typed")).map((e) => e.querySelector(".out")?.textContent ?? ""),
        received: entries.filter((e) => e.classList.contains("received")).map((e) => e.textContent ?? ""),
        raw: pane.querySelector(".console-raw")?.getAttribute("aria-pressed") === "true",
      };
    }),
  );
}

/** A console output as a lab's `expect` holds it (the console shows a bulk's \r\n as a line break). */
export const stripOutput = (s) => s.replace(/\r\n/g, "\n").replace(/\r?\n?$/, "");
