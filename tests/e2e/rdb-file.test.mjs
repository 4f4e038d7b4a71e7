// The page's RDB file (www/rdb-actions.js) against a real redis-server 7.0: the dump.rdb the
// page downloads is loaded by redis-server with the same keys, values and TTLs; a file SAVEd
// by redis-server (every type, functions, a key that has expired by the page's clock) loads
// through the file picker and through a drop; a corrupt, truncated, foreign, newer or too
// large file is refused in Redis's words with nothing changed; a reload keeps a loaded file.
// Screenshots (laptop and phone) of the Share menu, the question and the drop target go to
// test-results/rdb-*.png.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { useBrowser, newPage, openPlayground, runLine, pause, settled, REPO_ROOT, freePort } from "./harness.mjs";

const OUT = path.join(REPO_ROOT, "test-results");
const DAY = 86_400_000;
const env = useBrowser();


/**
 * A real redis-server 7.0 in the foreground on a free port, its dir `dir` (dump.rdb there is
 * loaded at start): `{port, cli(...args), stop()}`. Resolves once it answers PING.
 */
async function startRedis(dir) {
  const version = execFileSync("redis-server", ["--version"], { encoding: "utf8" });
  assert.match(version, /v=7\.0\./, "redis-server 7.0 is the oracle");
  const port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--dbfilename", "dump.rdb", "--save", "", "--appendonly", "no", "--daemonize", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  child.stdout.on("data", (c) => {
    log += c;
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  // Ready once the log says so (or it exits: a file it refused).
  await Promise.race([
    new Promise((resolve) => {
      child.stdout.on("data", () => {
        if (log.includes("Ready to accept connections")) resolve();
      });
    }),
    exited.then((code) => {
      throw new Error(`redis-server exited (${code}):\n${log}`);
    }),
  ]);
  const cli = (...args) => execFileSync("redis-cli", ["-p", String(port), "--no-raw", ...args], { encoding: "utf8" });
  return {
    port,
    log: () => log,
    cli,
    /** redis-cli reading the last argument from stdin (-x): for a big value. */
    cliStdin: (input, ...args) => execFileSync("redis-cli", ["-p", String(port), "-x", ...args], { input, encoding: "utf8" }),
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The commands whose replies show a dataset (every type, db 3, the functions). */
const SHOW = [
  ["GET", "s"],
  ["GET", "bin"],
  ["LRANGE", "l", "0", "-1"],
  ["HGETALL", "h"],
  ["SORT", "set", "ALPHA"],
  ["ZRANGE", "z", "0", "-1", "WITHSCORES"],
  ["XRANGE", "x", "-", "+"],
  ["XINFO", "GROUPS", "x"],
  ["PFCOUNT", "hll"],
  ["GET", "counter"],
  ["FCALL", "hello", "0"],
  ["FUNCTION", "LIST"],
];

/** A dataset with every type, a function library and a key in db 3. */
const FILL = [
  ["SET", "s", "hello world"],
  ["SET", "bin", "a\\x00b\\xffc"],
  ["RPUSH", "l", "a", "b", "c", "1", "2"],
  ["HSET", "h", "name", "Ada", "visits", "10"],
  ["SADD", "set", "x", "y", "z", "10"],
  ["ZADD", "z", "3200", "alice", "2900", "bob", "4100.5", "carol"],
  ["XADD", "x", "1-1", "f", "v"],
  ["XADD", "x", "2-1", "g", "w"],
  ["XGROUP", "CREATE", "x", "grp", "0"],
  ["PFADD", "hll", "a", "b", "c"],
  ["SET", "counter", "41"],
  ["INCR", "counter"],
  ["FUNCTION", "LOAD", "#!lua name=greet\\nredis.register_function('hello', function() return 'hi' end)"],
  ["SELECT", "3"],
  ["SET", "in3", "three"],
  ["SELECT", "0"],
];
/** Keys FILL makes (db 0 and db 3). */
const FILLED = 10;

/** A line for the page's console from args (quoted as redis-cli splits them). */
function line(args) {
  return args.map((a) => (/^[A-Za-z0-9:.+\-*]+$/.test(a) ? a : `"${a.replace(/"/g, '\\"')}"`)).join(" ");
}

/** What the page's console prints for each of SHOW (and db 3's key). */
async function pageShows(page) {
  const out = [];
  for (const args of SHOW) out.push((await runLine(page, line(args))).out);
  await runLine(page, "SELECT 3");
  out.push((await runLine(page, "GET in3")).out);
  await runLine(page, "SELECT 0");
  return out;
}

/** What redis-cli prints for the same. */
function redisShows(redis) {
  const out = SHOW.map((args) => redis.cli(...args));
  out.push(redis.cli("-n", "3", "GET", "in3"));
  return out;
}

/** Opens the Share menu (where the RDB controls are). */
async function openShare(page) {
  if (!(await page.evaluate(() => document.querySelector(".share-menu").open))) await page.click(".share-menu > summary");
  await page.waitForSelector("#rdb-download", { state: "visible" });
}

/** Picks `bytes` as `name` with the Share menu's file input. */
async function pick(page, name, bytes) {
  await openShare(page);
  await page.setInputFiles("#rdb-load", { name, mimeType: "application/octet-stream", buffer: Buffer.from(bytes) });
}

/** The console's notes, all of them. */
async function notes(page) {
  return page.$$eval(".scrollback .note-text", (ns) => ns.map((n) => n.textContent).join("\n"));
}

/** Waits for a console note matching `re`; returns all notes. */
async function noteMatching(page, re) {
  await page.waitForFunction((src) => [...document.querySelectorAll(".scrollback .note-text")].some((n) => new RegExp(src).test(n.textContent)), re.source);
  return notes(page);
}

let tmp;
before(() => {
  tmp = mkdtempSync(path.join(tmpdir(), "redisplay-rdb-e2e-"));
  mkdirSync(OUT, { recursive: true });
});
after(() => rmSync(tmp, { recursive: true, force: true }));

/** An RDB file SAVEd by a real redis-server: every type, a function, db 3, a key that expires in an hour and one in a week. */
async function redisDump(name, extra = () => {}) {
  const dir = path.join(tmp, name);
  mkdirSync(dir);
  const redis = await startRedis(dir);
  try {
    // The lines as redis-cli reads them from a pipe (the same quoting as the console's).
    execFileSync("redis-cli", ["-p", String(redis.port)], { input: `${FILL.map(line).join("\n")}\n` });
    assert.equal(redis.cli("DBSIZE"), `(integer) ${FILLED - 1}\n`);
    redis.cli("SET", "soon", "gone", "EX", "3600");
    redis.cli("SET", "later", "kept", "EX", "604800");
    extra(redis);
    assert.equal(redis.cli("SAVE"), "OK\n");
    return { bytes: readFileSync(path.join(dir, "dump.rdb")), shows: redisShows(redis) };
  } finally {
    await redis.stop();
  }
}

test("Download dump.rdb: a real redis-server 7.0 starts on the file with the same keys, values and TTLs", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    const t0 = Date.now();
    assert.equal(await openPlayground(page, env.server.url, `?seed=3&t=${t0}`), "ready");
    await pause(page);
    for (const args of FILL) await runLine(page, line(args));
    await settled(page);
    // The first SAVE says where the file can be had; later ones don't repeat it.
    assert.equal((await runLine(page, "SAVE")).out, "OK\n");
    await noteMatching(page, /Share → Download dump\.rdb gives you the dataset/);
    await runLine(page, "BGSAVE");
    await runLine(page, "PING");
    assert.equal((await notes(page)).match(/Share → Download dump\.rdb gives you/g).length, 1);
    await runLine(page, "SET ttl:hour v EX 3600");
    await runLine(page, "SET ttl:week v PX 604800000");
    const want = await pageShows(page);
    const pttl = Number((await runLine(page, "PTTL ttl:hour")).out.replace(/\D/g, ""));

    await openShare(page);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#rdb-download")]);
    assert.equal(download.suggestedFilename(), "dump.rdb");
    const bytes = readFileSync(await download.path());
    assert.equal(bytes.subarray(0, 9).toString("latin1"), "REDIS0010");
    assert.match(await page.textContent("#rdb-status"), /Downloaded dump\.rdb \(\d/);
    // Exactly the engine's image, and downloading changed nothing (nothing recorded either).
    const image = await page.evaluate(async () => Array.from((await import("/www/main.js")).pageParts.engine.rdbImage()));
    assert.deepEqual([...bytes], image);

    const dir = path.join(tmp, "from-page");
    mkdirSync(dir);
    writeFileSync(path.join(dir, "dump.rdb"), bytes);
    const redis = await startRedis(dir);
    try {
      assert.match(redis.log(), /Done loading RDB, keys loaded: 12, keys expired: 0\./);
      assert.deepEqual(redisShows(redis), want);
      // The TTLs: the page's clock stood still at about the same wall time the server reads.
      const theirs = Number(redis.cli("PTTL", "ttl:hour").replace(/\D/g, ""));
      const drift = Date.now() - t0;
      assert.ok(theirs <= pttl && theirs >= pttl - drift - 60_000, `PTTL ${theirs} vs the page's ${pttl}`);
      const week = Number(redis.cli("PTTL", "ttl:week").replace(/\D/g, ""));
      assert.ok(week > 604_800_000 - drift - 60_000 && week <= 604_800_000, `PTTL ${week}`);
      assert.equal(redis.cli("TTL", "s"), "(integer) -1\n");
    } finally {
      await redis.stop();
    }
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("a file SAVEd by redis-server loads through the file picker after the question; expired keys are skipped and said", async () => {
  const { bytes, shows } = await redisDump("picked");
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ]) {
    const { page, context, errors } = await newPage(env.browser, { viewport: { width, height } });
    try {
      // The page's clock a day ahead of the server's: "soon" (an hour) has expired, "later" (a week) has not.
      assert.equal(await openPlayground(page, env.server.url, `?seed=4&t=${Date.now() + DAY}`), "ready");
      await pause(page);
      await runLine(page, "SET mine 1");
      await pick(page, "dump.rdb", bytes);
      await page.waitForSelector("dialog.confirm-dialog[open]");
      assert.match(await page.textContent("dialog.confirm-dialog"), /Load “dump\.rdb”\?.*\(1 key\)/s);
      await page.screenshot({ path: path.join(OUT, `rdb-confirm-${width}x${height}.png`) });
      await page.click("dialog.confirm-dialog button[value=confirm]");
      const all = await noteMatching(page, /loaded “dump\.rdb”/);
      assert.match(all, /loaded “dump\.rdb” \(RDB version 10\) as a restarted redis-server would: 11 keys, 1 function library; 1 key had expired: skipped, as a master does\./);
      assert.match(await page.textContent("#rdb-status"), /^Loaded “dump\.rdb”/);
      await settled(page);
      await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
      await openShare(page);
      assert.ok((await page.evaluate(() => document.scrollingElement.scrollWidth)) <= width, "nothing wider than the screen");
      const panel = await page.locator(".share-panel").boundingBox();
      assert.ok(panel.x >= 0 && panel.x + panel.width <= width, `the Share panel is on the screen: ${JSON.stringify(panel)}`);
      await page.screenshot({ path: path.join(OUT, `rdb-share-${width}x${height}.png`) });
      await page.click(".share-menu > summary");

      // As after a restart on the file: nothing to save.
      assert.match((await runLine(page, "INFO persistence")).out, /rdb_changes_since_last_save:0/);
      assert.equal((await runLine(page, "GET mine")).out, "(nil)\n", "the file replaced the data");
      assert.equal((await runLine(page, "EXISTS soon later")).out, "(integer) 1\n");
      assert.deepEqual(await pageShows(page), shows);
      const week = Number((await runLine(page, "PTTL later")).out.replace(/\D/g, ""));
      assert.ok(week < 604_800_000 - DAY + 60_000 && week > 604_800_000 - DAY - 60_000, `PTTL later ${week}`);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});

test("a file dropped on the page loads (the drop target shows while dragging); no question when the server is empty", async () => {
  const { bytes, shows } = await redisDump("dropped");
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ]) {
    const { page, context, errors } = await newPage(env.browser, { viewport: { width, height } });
    try {
      assert.equal(await openPlayground(page, env.server.url, `?seed=4&t=${Date.now()}`), "ready");
      await pause(page);
      assert.equal(await page.isVisible("#drop-target"), false);
      await page.evaluate((b64) => {
        const bin = atob(b64);
        const buf = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i += 1) buf[i] = bin.charCodeAt(i);
        const dt = new DataTransfer();
        dt.items.add(new File([buf], "backup-2024.rdb", { type: "application/octet-stream" }));
        window.__drag = dt;
        document.querySelector(".keyspace").dispatchEvent(new DragEvent("dragenter", { bubbles: true, cancelable: true, dataTransfer: dt }));
      }, bytes.toString("base64"));
      await page.waitForSelector("#drop-target", { state: "visible" });
      await page.screenshot({ path: path.join(OUT, `rdb-drop-${width}x${height}.png`) });
      // Leaving the window hides it; coming back shows it again; the drop loads.
      await page.evaluate(() => document.querySelector("#drop-target").dispatchEvent(new DragEvent("dragleave", { bubbles: true, dataTransfer: window.__drag })));
      await page.waitForSelector("#drop-target", { state: "hidden" });
      const prevented = await page.evaluate(() => {
        const dt = window.__drag;
        document.body.dispatchEvent(new DragEvent("dragenter", { bubbles: true, cancelable: true, dataTransfer: dt }));
        const over = new DragEvent("dragover", { bubbles: true, cancelable: true, dataTransfer: dt });
        document.querySelector("#drop-target").dispatchEvent(over);
        const drop = new DragEvent("drop", { bubbles: true, cancelable: true, dataTransfer: dt });
        document.querySelector("#drop-target").dispatchEvent(drop);
        return over.defaultPrevented && drop.defaultPrevented;
      });
      assert.ok(prevented, "the browser does not open the file in place of the page");
      await page.waitForSelector("#drop-target", { state: "hidden" });
      await noteMatching(page, /loaded “backup-2024\.rdb” \(RDB version 10\) as a restarted redis-server would: 12 keys, 1 function library\./);
      assert.equal(await page.$("dialog.confirm-dialog"), null, "no question: nothing to lose");
      assert.deepEqual(await pageShows(page), shows);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});

test("a corrupt, truncated, foreign, newer, empty or too large file is refused in Redis's words, and nothing changes", async () => {
  const { bytes } = await redisDump("bad");
  const { page, context, errors } = await newPage(env.browser);
  try {
    assert.equal(await openPlayground(page, env.server.url, `?seed=4&t=${Date.now()}`), "ready");
    await pause(page);
    await runLine(page, "SET mine 1");
    await runLine(page, "RPUSH mylist a b");
    const before = await page.evaluate(async () => Array.from((await import("/www/main.js")).pageParts.engine.rdbImage()));
    const flipped = Buffer.from(bytes);
    flipped[flipped.indexOf("hello world")] ^= 0x20; // "Hello world": only the checksum tells
    const newer = Buffer.from(bytes);
    newer.write("0011", 5, "latin1");
    const cases = [
      ["flipped.rdb", flipped, /“flipped\.rdb” did not load: Wrong RDB checksum expected: \([0-9a-f]+\) but got \([0-9a-f]+\)\. Aborting now\. Nothing changed\./],
      ["cut.rdb", bytes.subarray(0, bytes.length - 9), // no EOF opcode, no checksum: a download cut short
        /“cut\.rdb” did not load: .*Unexpected EOF reading RDB file\. Nothing changed\./],
      ["notes.txt", Buffer.from("just some text, not a database\n"), /“notes\.txt” did not load: Wrong signature trying to load DB from file\. Nothing changed\./],
      ["from-7.2.rdb", newer, /“from-7\.2\.rdb” did not load: Can't handle RDB format version 11\. Nothing changed\./],
      ["empty.rdb", Buffer.alloc(0), /“empty\.rdb” is empty: it is not an RDB file\. Nothing changed\./],
      ["huge.rdb", Buffer.alloc(4 * 1024 * 1024 + 1), /“huge\.rdb” is 4,194,305 bytes: the playground loads RDB files up to 4,194,304 bytes\. Nothing changed\./],
      ["huger.rdb", Buffer.alloc(12 * 1024 * 1024), /“huger\.rdb” is 12\.0 MB: the playground loads RDB files up to 4\.0 MB\. Nothing changed\./],
      // A name is text: markup in it stays text.
      ["<img src=x onerror=alert(1)>.rdb", Buffer.from("<html>not an RDB file at all</html>"), /“<img src=x onerror=alert\(1\)>\.rdb” did not load: Wrong signature/],
    ];
    for (const [name, file, want] of cases) {
      await pick(page, name, file);
      // Nothing to confirm for a file that is not read; the others ask (the server has data).
      if (file.length > 0 && file.length <= 4 * 1024 * 1024) {
        await page.waitForSelector("dialog.confirm-dialog[open]");
        await page.click("dialog.confirm-dialog button[value=confirm]");
      }
      await page.waitForFunction((src) => new RegExp(src).test(document.querySelector("#notices").textContent), want.source);
      assert.match(await page.textContent("#rdb-status"), want);
      assert.match(await notes(page), want);
    }
    assert.equal(await page.$$eval("#notices .notice-error", (ns) => ns.length), 5, "the latest five errors stay as notices");
    assert.equal(await page.$("#notices img"), null, "no markup from a file's name");
    // Nothing changed: the same image, the same keys.
    const now = await page.evaluate(async () => Array.from((await import("/www/main.js")).pageParts.engine.rdbImage()));
    assert.deepEqual(now, before);
    assert.equal((await runLine(page, "GET mine")).out, '"1"\n');
    // "Keep the current data" keeps it too.
    await pick(page, "dump.rdb", bytes);
    await page.waitForSelector("dialog.confirm-dialog[open]");
    await page.click("dialog.confirm-dialog button[value=cancel]");
    await page.waitForFunction(() => /Nothing loaded/.test(document.querySelector("#rdb-status").textContent));
    assert.equal((await runLine(page, "GET mine")).out, '"1"\n');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

/** A value of 3.5 MB that LZF cannot shrink: with it a file is close to the 4 MB cap. */
function bigValue() {
  let seed = 12345;
  const big = Buffer.alloc(3_500_000);
  for (let i = 0; i < big.length; i += 1) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    big[i] = 33 + (seed % 90);
  }
  return big;
}

test("a reload keeps a loaded file: the session replays it (a file near the size cap too)", async () => {
  const { bytes, shows } = await redisDump("reloaded", (redis) => {
    assert.equal(redis.cliStdin(bigValue(), "SET", "big"), "OK\n");
  });
  assert.ok(bytes.length > 3_000_000 && bytes.length < 4 * 1024 * 1024, `${bytes.length} bytes`);
  const { page, context, errors } = await newPage(env.browser);
  try {
    assert.equal(await openPlayground(page, env.server.url, `?seed=4&t=${Date.now()}`), "ready");
    await pause(page);
    await runLine(page, "SET before 1");
    await pick(page, "dump.rdb", bytes);
    await page.click("dialog.confirm-dialog button[value=confirm]");
    await noteMatching(page, /loaded “dump\.rdb”.*13 keys/);
    await runLine(page, "SET after 2");
    const want = await pageShows(page);
    assert.deepEqual(want, shows);
    assert.equal(await page.textContent("#notices"), "", "no warning: the tab keeps the file");
    await page.evaluate(() => window.dispatchEvent(new Event("pagehide")));
    await page.reload();
    await page.waitForSelector("html[data-boot=ready]");
    await noteMatching(page, /the RDB file loaded in this session, loaded again: 13 keys/);
    assert.match(await page.textContent("#notices"), /Your session in this tab is back/);
    assert.deepEqual(await pageShows(page), want);
    assert.equal((await runLine(page, "STRLEN big")).out, "(integer) 3500000\n");
    assert.equal((await runLine(page, "MGET before after")).out, '1) (nil)\n2) "2"\n');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("an exported session carries a loaded file: imported on another page, the data is there (too long for a link: handed over through IndexedDB)", async () => {
  const { bytes, shows } = await redisDump("exported", (redis) => {
    assert.equal(redis.cliStdin(bigValue(), "SET", "big"), "OK\n");
  });
  const a = await newPage(env.browser);
  try {
    assert.equal(await openPlayground(a.page, env.server.url, `?seed=4&t=${Date.now()}`), "ready");
    await pause(a.page);
    await pick(a.page, "dump.rdb", bytes);
    await noteMatching(a.page, /loaded “dump\.rdb”/);
    await runLine(a.page, "SET after 2");
    await openShare(a.page);
    const [download] = await Promise.all([a.page.waitForEvent("download"), a.page.click("#share-export")]);
    const file = await download.path();
    const b = await newPage(env.browser);
    try {
      assert.equal(await openPlayground(b.page, env.server.url, "?seed=9"), "ready");
      await openShare(b.page);
      await b.page.setInputFiles("#share-import", file);
      await b.page.waitForFunction(() => /RDB file loaded in this session, loaded again/.test(document.querySelector(".scrollback")?.textContent ?? ""));
      await noteMatching(b.page, /a shared session: 2 recorded steps replayed on seed 4/);
      assert.match(b.page.url(), /\?import=/);
      assert.deepEqual(await pageShows(b.page), shows);
      assert.equal((await runLine(b.page, "GET after")).out, '"2"\n');
      assert.equal((await runLine(b.page, "STRLEN big")).out, "(integer) 3500000\n");
      await runLine(b.page, "SET last 1");
      // Back: the page it was imported on, with its own session; Forward: the imported one,
      // with the last line typed there.
      await b.page.goBack();
      await b.page.waitForURL(/\?seed=9$/);
      await b.page.waitForSelector("html[data-boot=ready]");
      assert.equal((await runLine(b.page, "STRLEN big")).out, "(integer) 0\n");
      await b.page.goForward();
      await b.page.waitForURL(/\?import=/);
      await b.page.waitForSelector("html[data-boot=ready]");
      assert.equal((await runLine(b.page, "STRLEN big")).out, "(integer) 3500000\n");
      assert.equal((await runLine(b.page, "GET last")).out, '"1"\n');
      assert.deepEqual(b.errors, []);
    } finally {
      await b.context.close();
    }
    assert.deepEqual(a.errors, []);
  } finally {
    await a.context.close();
  }
});
