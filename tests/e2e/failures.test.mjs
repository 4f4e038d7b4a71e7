// When things break: the wasm is garbage or missing, the page's own scripts are missing, or the
// engine traps mid-command. Each must end in a readable message, never a blank or dead page.

import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, newPage, openPlayground, runLine, clockMs, pause } from "./harness.mjs";

const env = useBrowser();

async function bootMessage(page) {
  assert.ok(await page.isVisible("#boot-status"), "the boot message is visible");
  return page.textContent("#boot-status");
}

test("a .wasm that is not WebAssembly gives a readable message", async () => {
  const { page, context } = await newPage(env.browser);
  try {
    await page.route("**/www/pkg/redisplay_bg.wasm", (route) =>
      route.fulfill({ status: 200, contentType: "application/wasm", body: "<!doctype html><p>not wasm</p>" }),
    );
    assert.equal(await openPlayground(page, env.server.url), "failed");
    const message = await bootMessage(page);
    assert.match(message, /^The playground could not start\. The engine file \(\/www\/pkg\/redisplay_bg\.wasm\) is not valid WebAssembly/);
    assert.match(message, /rebuild it with \.\/scripts\/build-web\.sh/);
    assert.equal(await page.locator("#console-input").count(), 0);
  } finally {
    await context.close();
  }
});

test("a missing .wasm (HTTP 404) gives a readable message", async () => {
  const { page, context } = await newPage(env.browser);
  try {
    await page.route("**/www/pkg/redisplay_bg.wasm", (route) => route.fulfill({ status: 404, body: "not found" }));
    assert.equal(await openPlayground(page, env.server.url), "failed");
    assert.match(await bootMessage(page), /could not be loaded: the server answered HTTP 404/);
  } finally {
    await context.close();
  }
});

test("missing page scripts give a readable message, not an endless 'Loading'", async () => {
  const { page, context } = await newPage(env.browser);
  try {
    await page.route("**/www/engine.js", (route) => route.fulfill({ status: 404, body: "not found" }));
    assert.equal(await openPlayground(page, env.server.url), "failed");
    assert.match(await bootMessage(page), /page's scripts \(www\/main\.js and its modules\) could not be loaded/);
  } finally {
    await context.close();
  }
});

test("an engine trap shows a message and the engine is recreated at the same virtual time", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    // Serve the real glue with one extra line: a magic console line throws the way a Rust panic
    // (compiled to `unreachable`) does. Every instance of the glue gets it, the recreated too.
    await page.route("**/www/pkg/redisplay.js*", async (route) => {
      const response = await route.fetch();
      const body =
        (await response.text()) +
        "\nconst realExecuteOn = Playground.prototype.execute_on;\n" +
        "Playground.prototype.execute_on = function (n, line) {\n" +
        '  if (line === "TRAP FOR TEST") throw new WebAssembly.RuntimeError("unreachable");\n' +
        "  return realExecuteOn.call(this, n, line);\n" +
        "};\n";
      await route.fulfill({ response, body });
    });
    assert.equal(await openPlayground(page, env.server.url, "?seed=3&t=1735689600000"), "ready");
    await pause(page);
    await runLine(page, "SET before 1");
    const t = await clockMs(page);

    await runLine(page, "TRAP FOR TEST");
    // (The restart note may already follow it, so find the entry by its echo.)
    const trapped = page.locator(".scrollback > .entry", { has: page.locator(".typed", { hasText: "TRAP FOR TEST" }) });
    assert.match(await trapped.locator(".out").textContent(), /engine is restarting after an internal error/);
    const notice = page.locator(".notice-error");
    await notice.waitFor();
    assert.match(await notice.textContent(), /internal error \(RuntimeError: unreachable\).*same seed at the same virtual time/);
    await page.waitForFunction(() => document.querySelector(".scrollback").textContent.includes("the engine was restarted"));

    // A working engine again: fresh keyspace, same clock.
    assert.equal((await runLine(page, "GET before")).out, "(nil)\n");
    assert.equal((await runLine(page, "SET after 2")).out, "OK\n");
    assert.equal((await runLine(page, "GET after")).out, '"2"\n');
    assert.equal((await runLine(page, "CLOCK GET")).out, `(integer) ${t}\n`);
    await page.click("#clock-step");
    await page.waitForFunction((t) => document.querySelector("#clock-time").dataset.ms === String(t + 100), t);
    // The only error is the one the page logged about the trap itself.
    assert.equal(errors.length, 1, errors.join("\n"));
    assert.match(errors[0], /the engine failed in execute/);
  } finally {
    await context.close();
  }
});
