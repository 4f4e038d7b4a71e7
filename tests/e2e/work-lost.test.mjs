// Work is never lost silently: choosing a lab or Reset asks first when the session has work,
// a reload brings the session back, Back after opening a lab brings it back, and the eviction
// view's workload does not wipe the console's keys unless asked to.

import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, newPage, openPlayground, runLine, pause, settled } from "./harness.mjs";

const START = 1735689600000;
const env = useBrowser();

async function openWithWork(page) {
  await openPlayground(page, env.server.url, `?seed=5&t=${START}`);
  await pause(page);
  await runLine(page, "SET mywork 42");
  await runLine(page, "RPUSH list a b c");
}

test("opening a lab asks first; Stay keeps the work, and Back after opening it brings the work back", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openWithWork(page);
    await page.click(".lab-picker > summary");
    await page.waitForSelector(".lab-picker li a");
    await page.click(".lab-picker li:nth-child(2) a");
    await page.waitForSelector("dialog.confirm-dialog[open]");
    assert.match(await page.textContent("dialog.confirm-dialog"), /Back brings it back/);
    await page.click("dialog.confirm-dialog button[value=cancel]");
    await page.waitForSelector("dialog.confirm-dialog", { state: "detached" });
    assert.equal((await runLine(page, "GET mywork")).out, '"42"\n', "still here");

    await page.click(".lab-picker > summary");
    await page.click(".lab-picker li:nth-child(2) a");
    await page.click("dialog.confirm-dialog button[value=confirm]");
    await page.waitForURL(/\?lab=/);
    await page.waitForSelector("html[data-boot=ready]");
    await page.goBack();
    await page.waitForSelector("html[data-boot=ready]");
    assert.equal((await runLine(page, "GET mywork")).out, '"42"\n', "back with Back");
    assert.equal((await runLine(page, "LRANGE list 0 -1")).out, '1) "a"\n2) "b"\n3) "c"\n');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("without work, a lab opens at once", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, `?seed=5&t=${START}`);
    await page.click(".lab-picker > summary");
    await page.click(".lab-picker li:nth-child(1) a");
    await page.waitForURL(/\?lab=/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("Reset asks first when there is work; Keep working keeps it", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openWithWork(page);
    await page.click("#clock-reset");
    await page.waitForSelector("dialog.confirm-dialog[open]");
    await page.click("dialog.confirm-dialog button[value=cancel]");
    assert.equal((await runLine(page, "GET mywork")).out, '"42"\n');
    await page.click("#clock-reset");
    await page.click("dialog.confirm-dialog button[value=confirm]");
    await page.waitForFunction(() => /reset: a fresh engine/.test(document.querySelector(".scrollback").textContent));
    assert.equal((await runLine(page, "GET mywork")).out, "(nil)\n");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("a reload brings the session back, and “Start fresh” really starts fresh", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openWithWork(page);
    await page.evaluate(() => window.dispatchEvent(new Event("pagehide")));
    await page.reload();
    await page.waitForSelector("html[data-boot=ready]");
    assert.equal((await runLine(page, "GET mywork")).out, '"42"\n');
    assert.match(await page.textContent("#notices"), /Your session in this tab is back/);
    await page.click("#notices .notice-action");
    await page.waitForSelector("html[data-boot=ready]");
    await page.waitForFunction(() => !/Your session in this tab is back/.test(document.querySelector("#notices").textContent));
    assert.equal((await runLine(page, "GET mywork")).out, "(nil)\n");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the eviction view's workload does not FLUSHALL the console's keys by default", async () => {
  const { page, context, errors } = await newPage(env.browser);
  try {
    await openPlayground(page, env.server.url, `?seed=5&t=${START}#eviction`);
    await pause(page);
    await settled(page);
    assert.equal(await page.isChecked("#eviction-wl-flush"), false);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
