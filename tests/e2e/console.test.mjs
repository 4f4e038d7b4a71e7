// The console: boot, output identical to the engine's redis-cli text, prompt changes, history,
// Tab completion, clear/quit, long outputs, hostile key names — plus the page screenshot.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { useBrowser, REPO_ROOT, newPage, openPlayground, runLine, lastEntry, pause, terminalText } from "./harness.mjs";

const SEED = 7;
const START = 1735689600000; // 2025-01-01T00:00:00Z
const QUERY = `?seed=${SEED}&t=${START}`;

const env = useBrowser();

test("boots with no console errors, the engine's prompt and the clock at ?t=", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    assert.equal(await openPlayground(page, env.server.url, QUERY), "ready");
    assert.equal(await page.textContent(".input-line .prompt"), "127.0.0.1:6379> ");
    assert.ok(await page.isHidden("#boot-status"));
    assert.match(await page.textContent("#clock-time"), /^2025-01-01 00:00:\d\d\.\d{3} UTC$/);
    assert.match(await page.textContent(".scrollback"), new RegExp(`Seed ${SEED}\\b`));
    // The input has the focus: typing goes to the console straight away.
    assert.equal(await page.evaluate(() => document.activeElement?.id), "console-input");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("each line's output is exactly the engine's redis-cli text", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await pause(page);
    const lines = [
      "SET a 1",
      "GET a",
      "MGET a nosuch", // array reply with a nil
      "INCR a",
      "SET a", // wrong number of arguments
      "foo bar", // unknown command
      "3 INCR counter", // redis-cli repeat prefix
      '"unterminated', // redis-cli's own "Invalid argument(s)"
      "help get", // ANSI colours and \r\n
      "select 2",
      "GET a",
    ];
    const shown = [];
    for (const line of lines) shown.push(await runLine(page, line));

    // The oracle: the same lines on a fresh engine from the same package, seed and start.
    const expected = await page.evaluate(
      async ({ lines, seed, start }) => {
        const pkg = await import("/www/pkg/redisplay.js");
        await pkg.default();
        const pg = new pkg.Playground(seed, start);
        const prompts = [pg.prompt()];
        const out = lines.map((l) => {
          const r = pg.execute(l);
          prompts.push(r.prompt);
          return r.text;
        });
        pg.free();
        return { out, prompts };
      },
      { lines, seed: SEED, start: START },
    );

    lines.forEach((line, i) => {
      assert.equal(shown[i].typed, line, `echo of ${line}`);
      assert.equal(shown[i].prompt, expected.prompts[i], `prompt before ${line}`);
      assert.equal(shown[i].out ?? "", terminalText(expected.out[i]), `output of ${line}`);
    });
    // Plain replies need no terminal processing at all: byte-for-byte the same string.
    assert.equal(shown[0].out, "OK\n");
    assert.equal(shown[1].out, '"1"\n');
    assert.equal(shown[2].out, '1) "1"\n2) (nil)\n');
    assert.equal(shown[6].out, "(integer) 1\n(integer) 2\n(integer) 3\n");
    assert.equal(shown[7].out, "Invalid argument(s)\n");
    assert.match(shown[4].out, /^\(error\) ERR wrong number of arguments for 'set' command\n$/);
    // help: colours became styled spans, no escape characters or carriage returns are left.
    assert.match(shown[8].out, /GET key\n {2}summary: Get the value of a key\n/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no terminal escape may reach the page
    assert.doesNotMatch(shown[8].out, /[\x1b\r]/);
    const helpStyles = await page.locator(".scrollback > .entry").nth(-3).evaluate((e) =>
      [...e.querySelectorAll(".out span")].map((s) => `${s.className}:${s.textContent}`),
    );
    assert.ok(helpStyles.includes("sgr-bold:GET"), helpStyles.join(" | "));
    assert.ok(helpStyles.includes("sgr-grey:key"), helpStyles.join(" | "));
    assert.ok(helpStyles.includes("sgr-yellow:summary:"), helpStyles.join(" | "));
    // SELECT 2 changed the prompt, and db 2 has no `a`.
    assert.equal(await page.textContent(".input-line .prompt"), "127.0.0.1:6379[2]> ");
    assert.equal(shown[10].prompt, "127.0.0.1:6379[2]> ");
    assert.equal(shown[10].out, "(nil)\n");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("ArrowUp/ArrowDown walk the history and bring the draft back", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await runLine(page, "SET h 1");
    await runLine(page, "GET h");
    await runLine(page, "GET h"); // a repeat is remembered once, as in linenoise
    const input = page.locator("#console-input");
    await input.fill("half typed");
    await input.press("ArrowUp");
    assert.equal(await input.inputValue(), "GET h");
    await input.press("ArrowUp");
    assert.equal(await input.inputValue(), "SET h 1");
    await input.press("ArrowUp"); // the oldest: stays
    assert.equal(await input.inputValue(), "SET h 1");
    await input.press("ArrowDown");
    assert.equal(await input.inputValue(), "GET h");
    await input.press("ArrowDown");
    assert.equal(await input.inputValue(), "half typed");
    // A recalled line runs like a typed one.
    await input.press("ArrowUp");
    await input.press("Enter");
    assert.equal((await lastEntry(page)).out, '"1"\n');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("Tab completes command names from the engine's command table", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    const input = page.locator("#console-input");

    await input.fill("getr");
    await input.press("Tab");
    assert.equal(await input.inputValue(), "GETRANGE");
    assert.match(await page.textContent("#console-completions"), /GETRANGE — Get a substring/);

    // Several candidates: Tab cycles in order, Escape restores what was typed.
    await input.fill("conf");
    await input.press("Tab");
    assert.equal(await input.inputValue(), "CONFIG");
    const listed = await page.locator("#console-completions .candidate").allTextContents();
    assert.ok(listed.includes("CONFIG GET") && listed.includes("CONFIG SET"), listed.join(", "));
    await input.press("Tab");
    assert.equal(await input.inputValue(), listed[1]);
    await input.press("Escape");
    assert.equal(await input.inputValue(), "conf");
    assert.ok(await page.isHidden("#console-completions"));

    // After "help ", groups complete too.
    await input.fill("help @stri");
    await input.press("Tab");
    assert.equal(await input.inputValue(), "help @string");

    // No match: the line is left alone.
    await input.fill("xyzzy");
    await input.press("Tab");
    assert.equal(await input.inputValue(), "xyzzy");

    // A completed name runs.
    await input.fill("set comp hello");
    await input.press("Enter");
    await input.fill("getr");
    await input.press("Tab");
    await input.pressSequentially(" comp 0 2");
    await input.press("Enter");
    const entry = await lastEntry(page);
    assert.equal(entry.typed, "GETRANGE comp 0 2");
    assert.equal(entry.out, '"hel"\n');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("a multi-line paste runs each complete line and keeps the last one in the input", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await page.fill("#console-input", "SET p1");
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.setData("text/plain", " one\r\nSET p2 two\nGET p");
      document.getElementById("console-input").dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    });
    // The pasted lines run as a job, from the next frame on (console/jobs.js).
    await page.waitForFunction(() => [...document.querySelectorAll(".scrollback > .entry .typed")].some((t) => t.textContent === "SET p2 two"));
    const typed = await page.locator(".scrollback > .entry .typed").allTextContents();
    assert.deepEqual(typed.slice(-2), ["SET p1 one", "SET p2 two"]);
    assert.equal(await page.locator("#console-input").inputValue(), "GET p");
    await page.locator("#console-input").pressSequentially("2");
    await page.press("#console-input", "Enter");
    assert.equal((await lastEntry(page)).out, '"two"\n');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("clear empties the screen; quit says the playground keeps running", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await runLine(page, "SET q 1");
    await page.fill("#console-input", "clear");
    await page.press("#console-input", "Enter");
    await page.waitForFunction(() => document.querySelectorAll(".scrollback > .entry").length === 0);

    const quit = await runLine(page, "quit");
    assert.equal(quit.out, null);
    assert.match(quit.notes.join(" "), /keeps running/);
    // Still running: the engine answers the next line.
    assert.equal((await runLine(page, "GET q")).out, '"1"\n');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("SHUTDOWN ends the server; connect starts it again from the RDB file it saved", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await runLine(page, "SET kept 1");
    const down = await runLine(page, "SHUTDOWN SAVE");
    assert.equal(down.out, null, "redis-cli prints nothing for SHUTDOWN");
    assert.match(down.notes.join(" "), /Type connect to start it again/);
    assert.equal(await page.textContent(".input-line .prompt"), "not connected> ");
    assert.match((await runLine(page, "GET kept")).out, /Could not connect to Redis/);
    assert.match((await runLine(page, "connect")).out, /started again and loaded its RDB file: 1 keys/);
    assert.equal(await page.textContent(".input-line .prompt"), "127.0.0.1:6379> ");
    assert.equal((await runLine(page, "GET kept")).out, '"1"\n');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("a long output is cut at 1000 lines with a note, and the page stays responsive", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    const entry = await runLine(page, "1500 INCR n");
    const lines = entry.out.split("\n");
    assert.equal(lines.length, 1001); // 1000 lines, each ending in \n
    assert.equal(lines[999], "(integer) 1000");
    assert.match(entry.more, /^… 500 more lines/);
    // All 1500 ran in the engine.
    assert.equal((await runLine(page, "GET n")).out, '"1500"\n');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("hostile key names and values stay literal text", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    const hostile = "<img src=x onerror=alert(1)>";
    const set = await runLine(page, `SET "${hostile}" "<b>bold</b>"`);
    assert.equal(set.typed, `SET "${hostile}" "<b>bold</b>"`);
    assert.equal((await runLine(page, "KEYS *")).out, `1) "${hostile}"\n`);
    assert.equal((await runLine(page, `GET "${hostile}"`)).out, '"<b>bold</b>"\n');
    // Completion does not interpret it either.
    await page.fill("#console-input", hostile);
    await page.press("#console-input", "Tab");
    assert.equal(await page.locator("#console-input").inputValue(), hostile);
    assert.equal(await page.locator("img").count(), 0);
    assert.equal(await page.locator(".terminal b").count(), 0);
    assert.deepEqual(errors, []); // includes: no alert dialog
  } finally {
    await context.close();
  }
});

test("screenshot of the page (test-results/page.png)", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    for (const line of ["SET greeting hello", "GET greeting", "SET session:42 alice PX 1500", "PTTL session:42", "MGET greeting nosuch", "help get", "INCR greeting", "select 2"]) {
      await runLine(page, line);
    }
    await page.fill("#console-input", "conf");
    await page.press("#console-input", "Tab");
    await pause(page);
    const dir = path.join(REPO_ROOT, "test-results");
    await mkdir(dir, { recursive: true });
    await page.screenshot({ path: path.join(dir, "page.png") });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("HELLO 3: the console prints RESP3 as redis-cli does, and the views still read their keys", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, QUERY);
    await pause(page);
    await runLine(page, "HSET h f1 v1 f2 v2");
    const hello = await runLine(page, "HELLO 3");
    assert.match(hello.out, /^1# "server" => "redis"\n2# "version" => "7\.0\.15"\n3# "proto" => \(integer\) 3\n/);
    // As tests/scripts/resp3.out recorded from redis-cli 7.0.15: maps, sets, doubles, pairs.
    assert.equal((await runLine(page, "HGETALL h")).out, '1# "f1" => "v1"\n2# "f2" => "v2"\n');
    await runLine(page, "SADD st 3 1 2");
    assert.equal((await runLine(page, "SMEMBERS st")).out, '1~ "1"\n2~ "2"\n3~ "3"\n');
    await runLine(page, "ZADD board 1 x 2.5 y");
    assert.equal((await runLine(page, "ZSCORE board y")).out, "(double) 2.5\n");
    assert.equal((await runLine(page, "ZRANGE board 0 -1 WITHSCORES")).out, '1) 1) "x"\n   2) (double) 1\n2) 1) "y"\n   2) (double) 2.5\n');
    // The keyspace view reads through the same client: it still sees RESP2 shapes.
    await page.waitForFunction(() => document.getElementById("keyspace")?.dataset.total === "3");
    const rows = await page.locator(".keyspace-row").evaluateAll((rs) => rs.map((r) => [...r.children].map((c) => c.textContent)));
    const byKey = Object.fromEntries(rows.map((r) => [r[0], r.slice(1)]));
    assert.deepEqual(byKey.board.slice(0, 3), ["zset", "listpack", "2 members"]);
    assert.deepEqual(byKey.h.slice(0, 1), ["hash"]);
    await runLine(page, "HELLO 2");
    assert.equal((await runLine(page, "HGETALL h")).out, '1) "f1"\n2) "v1"\n3) "f2"\n4) "v2"\n');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
