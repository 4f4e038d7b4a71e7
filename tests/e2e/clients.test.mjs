// Two consoles on one engine: a second redis-cli opens beside the first; SUBSCRIBE on one and
// the other's writes show the keyevent `expired` arriving when the key is reclaimed (not when its
// TTL reaches zero); BLPOP waits until the other console pushes; Ctrl-C leaves subscribe mode.
// MONITOR in one console streams the other's commands; CLIENT PAUSE holds the other's write;
// a RESP3 console tracking keys shows invalidations as redis-cli prints them in a terminal.

import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, newPage, openPlayground, pause, clockMs } from "./harness.mjs";

const QUERY = "?seed=3&t=1735689600000";

const env = useBrowser();

/** The pane of console `n` (0-based). */
const pane = (n) => `.console-pane[data-console="${n}"]`;
const inputOf = (n) => `${pane(n)} input.cmdline`;

/** Types a line into console `n`; returns the text of its newest entry's output. */
async function run(page, n, line) {
  await page.evaluate((sel) => document.querySelector(`${sel} .scrollback > .entry:last-child`)?.setAttribute("data-seen", ""), pane(n));
  await page.fill(inputOf(n), line);
  await page.press(inputOf(n), "Enter");
  await page.waitForSelector(`${pane(n)} .scrollback > .entry:last-child:not([data-seen])`, { state: "attached" });
  return page.locator(`${pane(n)} .scrollback > .entry`).last().evaluate((e) => e.querySelector(".out")?.textContent ?? "");
}

/** Everything console `n` printed without input (messages, late replies), in order. */
async function received(page, n) {
  return page.$$eval(`${pane(n)} .scrollback > .entry.received .out`, (nodes) => nodes.map((x) => x.textContent).join(""));
}

async function openSecond(page) {
  await page.click(".console-add");
  await page.waitForSelector(pane(1));
}

test("a second console is another client of the same engine", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    assert.equal(await openPlayground(page, env.server.url, QUERY), "ready");
    await pause(page);
    await openSecond(page);
    assert.equal(await page.evaluate(() => document.activeElement?.id), "console-input-2");
    // As on a fresh redis-server 7.0: its Lua clients took ids 1 and 2.
    assert.equal(await run(page, 0, "CLIENT ID"), "(integer) 3\n");
    assert.equal(await run(page, 1, "CLIENT ID"), "(integer) 4\n");
    await run(page, 0, "SET shared 42");
    assert.equal(await run(page, 1, "GET shared"), '"42"\n');
    assert.equal(await run(page, 1, "SELECT 3"), "OK\n");
    assert.equal(await page.textContent(`${pane(1)} .input-line .prompt`), "127.0.0.1:6379[3]> ");
    assert.equal(await page.textContent(`${pane(0)} .input-line .prompt`), "127.0.0.1:6379> ");
    // A WATCH race by hand: the other client's write makes EXEC fail.
    await run(page, 0, "WATCH shared");
    await run(page, 1, "SELECT 0");
    await run(page, 1, "SET shared 43");
    await run(page, 0, "MULTI");
    assert.equal(await page.textContent(`${pane(0)} .input-line .prompt`), "127.0.0.1:6379(TX)> ");
    assert.equal(await run(page, 0, "INCR shared"), "QUEUED\n");
    assert.equal(await run(page, 0, "EXEC"), "(nil)\n");
    assert.match(await run(page, 1, "CLIENT LIST"), /^id=3 .*\nid=4 .*cmd=client\|list/);
    // Closing it disconnects the client.
    await page.click(".console-close");
    await page.waitForSelector(pane(1), { state: "detached" });
    assert.equal(await run(page, 0, "INFO clients").then((t) => /connected_clients:(\d+)/.exec(t)[1]), "1");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the expired event arrives when the key is reclaimed, not at TTL zero", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await pause(page);
    await openSecond(page);
    assert.equal(await run(page, 1, "CONFIG SET notify-keyspace-events Ex"), "OK\n");
    const sub = await run(page, 0, "SUBSCRIBE __keyevent@0__:expired");
    assert.equal(sub, 'Reading messages... (press Ctrl-C to quit)\n1) "subscribe"\n2) "__keyevent@0__:expired"\n3) (integer) 1\n');
    assert.equal(await page.getAttribute(`${pane(0)} .console-pane-body`, "data-mode"), "subscribed");
    // A subscribed redis-cli reads no commands.
    await page.fill(inputOf(0), "GET x");
    await page.press(inputOf(0), "Enter");
    assert.equal(await page.inputValue(inputOf(0)), "GET x");
    await page.fill(inputOf(0), "");

    assert.equal(await run(page, 1, "SET order:1 unpaid PX 1000"), "OK\n");
    const start = await clockMs(page);
    // Jump the clock past the TTL without running cron: logically expired, not reclaimed.
    await run(page, 1, `CLOCK SET ${start + 1500}`);
    assert.equal(await received(page, 0), "");
    assert.equal(await run(page, 1, "DBSIZE"), "(integer) 1\n");
    // One cron tick: the active expire cycle reclaims it, and only now is `expired` published.
    await page.click("#clock-step");
    await page.waitForFunction((sel) => document.querySelector(sel)?.textContent.includes("order:1"), `${pane(0)} .scrollback`);
    assert.equal(await received(page, 0), '1) "message"\n2) "__keyevent@0__:expired"\n3) "order:1"\n');
    assert.equal(await run(page, 1, "DBSIZE"), "(integer) 0\n");
    // A key read after its TTL is reclaimed by the read itself: the message comes with it.
    await run(page, 1, "SET order:2 unpaid PX 10");
    await run(page, 1, `CLOCK SET ${(await clockMs(page)) + 50}`);
    assert.equal(await run(page, 1, "GET order:2"), "(nil)\n");
    await page.waitForFunction((sel) => document.querySelector(sel)?.textContent.includes("order:2"), `${pane(0)} .scrollback`);
    // Ctrl-C: redis-cli would exit; the console reconnects as a new client, no longer subscribed.
    await page.focus(inputOf(0));
    await page.keyboard.press("Control+c");
    await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.mode === "ready", `${pane(0)} .console-pane-body`);
    assert.equal(await run(page, 1, "PUBSUB NUMSUB __keyevent@0__:expired"), '1) "__keyevent@0__:expired"\n2) (integer) 0\n');
    assert.equal(await run(page, 0, "CLIENT ID"), "(integer) 5\n");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("BLPOP waits until the other console pushes, and times out in virtual time", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await pause(page);
    await openSecond(page);
    await page.fill(inputOf(0), "BLPOP jobs 0");
    await page.press(inputOf(0), "Enter");
    await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.mode === "blocked", `${pane(0)} .console-pane-body`);
    assert.match(await page.textContent(`${pane(0)} .console-status`), /waiting for the reply/);
    assert.equal(await run(page, 1, "RPUSH jobs j1 j2"), "(integer) 2\n");
    await page.waitForFunction((sel) => document.querySelector(sel)?.textContent.includes("j1"), `${pane(0)} .scrollback`);
    assert.equal(await received(page, 0), '1) "jobs"\n2) "j1"\n');
    assert.equal(await page.getAttribute(`${pane(0)} .console-pane-body`, "data-mode"), "ready");
    assert.equal(await run(page, 1, "LRANGE jobs 0 -1"), '1) "j2"\n');
    // A timeout of 2 s: nothing happens until virtual time passes it.
    await page.fill(inputOf(0), "BLPOP empty 2");
    await page.press(inputOf(0), "Enter");
    await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.mode === "blocked", `${pane(0)} .console-pane-body`);
    await page.fill("#clock-jump-seconds", "3");
    await page.click("#clock-jump");
    await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.mode === "ready", `${pane(0)} .console-pane-body`);
    assert.equal(await received(page, 0), '1) "jobs"\n2) "j1"\n(nil)\n');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("Lua in the consoles: a lock taken with SET NX PX and released by compare-and-delete; an endless script runs in slices, the other console gets BUSY and SCRIPT KILL ends it, frames keep coming", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    assert.equal(await openPlayground(page, env.server.url, QUERY), "ready");
    await pause(page);
    await openSecond(page);
    const acquire = (owner) => `EVAL "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', 30000)" 1 lock ${owner}`;
    const release = (owner) => `EVAL "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end" 1 lock ${owner}`;
    assert.equal(await run(page, 0, acquire("one")), "OK\n");
    assert.equal(await run(page, 1, acquire("two")), "(nil)\n");
    assert.equal(await run(page, 1, release("two")), "(integer) 0\n");
    assert.equal(await run(page, 0, release("one")), "(integer) 1\n");
    assert.equal(await run(page, 1, acquire("two")), "OK\n");
    // 10 ms of the script's virtual time: its first slice already passes it.
    assert.equal(await run(page, 0, "CONFIG SET busy-reply-threshold 10"), "OK\n");
    await page.fill(inputOf(0), 'EVAL "while true do end" 0');
    await page.press(inputOf(0), "Enter");
    await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.mode === "blocked", `${pane(0)} .console-pane-body`);
    // The page runs the script in slices, paused or not, and keeps drawing frames.
    const frames = await page.evaluate(
      () =>
        new Promise((resolve) => {
          let n = 0;
          const t0 = performance.now();
          const count = () => {
            n += 1;
            if (performance.now() - t0 < 1000) requestAnimationFrame(count);
            else resolve(n);
          };
          requestAnimationFrame(count);
        }),
    );
    assert.ok(frames >= 15, `frames in the second the script ran: ${frames}`);
    const busy = "(error) BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\n";
    assert.equal(await run(page, 1, "GET lock"), busy);
    assert.equal(await run(page, 1, "SCRIPT KILL"), "OK\n");
    await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.mode === "ready", `${pane(0)} .console-pane-body`);
    assert.match(await received(page, 0), /^\(error\) ERR Script killed by user with SCRIPT KILL\.\.\. script: [0-9a-f]{40}, on @user_script:1\.\n$/);
    assert.equal(await run(page, 1, "GET lock"), '"two"\n');
    assert.equal(await run(page, 0, "SCRIPT KILL"), "(error) NOTBUSY No scripts in execution right now.\n");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("MONITOR streams the other console's commands; PAUSE holds a write; tracking shows invalidations", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    assert.equal(await openPlayground(page, env.server.url, QUERY), "ready");
    await pause(page);
    await openSecond(page);
    assert.equal(await run(page, 1, "MONITOR"), "OK\n");
    assert.equal(await page.getAttribute(`${pane(1)} .console-pane-body`, "data-mode"), "subscribed");
    assert.equal(await run(page, 0, 'SET k "a b"'), "OK\n");
    await run(page, 0, "AUTH secret");
    await page.waitForFunction((sel) => document.querySelector(sel)?.textContent.includes("AUTH"), `${pane(1)} .scrollback`);
    // The time is the virtual clock's, in seconds with microseconds; AUTH's password is hidden.
    const seconds = Math.floor((await clockMs(page)) / 1000);
    const line = (cmd) => new RegExp(`^${seconds}\\.\\d{6} \\[0 127\\.0\\.0\\.1:\\d+\\] ${cmd}$`);
    const lines = (await received(page, 1)).split("\n").filter(Boolean);
    assert.equal(lines.length, 2, lines.join("\n"));
    assert.match(lines[0], line('"SET" "k" "a b"'));
    assert.match(lines[1], line('"AUTH" "\\(redacted\\)"'));
    // Ctrl-C: the console leaves MONITOR (reconnecting as a new client).
    await page.focus(inputOf(1));
    await page.keyboard.press("Control+c");
    await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.mode === "ready", `${pane(1)} .console-pane-body`);

    // A paused write waits for CLIENT UNPAUSE; reads go on.
    assert.equal(await run(page, 0, "CLIENT PAUSE 100000 WRITE"), "OK\n");
    assert.equal(await run(page, 1, "GET k"), '"a b"\n');
    await page.fill(inputOf(1), "SET k c");
    await page.press(inputOf(1), "Enter");
    await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.mode === "blocked", `${pane(1)} .console-pane-body`);
    assert.equal(await run(page, 0, "GET k"), '"a b"\n');
    assert.equal(await run(page, 0, "CLIENT UNPAUSE"), "OK\n");
    await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.mode === "ready", `${pane(1)} .console-pane-body`);
    assert.match(await received(page, 1), /OK\n$/);
    assert.equal(await run(page, 0, "GET k"), '"c"\n');

    // Client-side caching over RESP3: the invalidation push shows as redis-cli prints it in a
    // terminal, as soon as it arrives (the page reads every console, as a subscribed one).
    await run(page, 0, "HELLO 3");
    assert.equal(await run(page, 0, "CLIENT TRACKING on"), "OK\n");
    assert.equal(await run(page, 0, "GET k"), '"c"\n');
    assert.equal(await received(page, 0), "");
    assert.equal(await run(page, 1, "SET k d"), "OK\n");
    await page.waitForFunction((sel) => document.querySelector(sel)?.textContent.includes("invalidate"), `${pane(0)} .scrollback`);
    assert.equal(await received(page, 0), "-> invalidate: 'k'\n");
    assert.equal(await run(page, 0, "PING"), "PONG\n");
    // Told once: the key is no longer tracked until read again.
    assert.equal(await run(page, 1, "SET k e"), "OK\n");
    assert.equal(await run(page, 0, "PING"), "PONG\n");
    assert.equal(await received(page, 0), "-> invalidate: 'k'\n");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
