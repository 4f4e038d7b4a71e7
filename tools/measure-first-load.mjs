// Time to a working console on a slow phone: Chromium with DevTools' "Fast 3G" network profile
// (562.5 ms latency, 180,000 B/s down, 84,375 B/s up) and 4× CPU throttling, set through the
// DevTools protocol (Network.emulateNetworkConditions, Emulation.setCPUThrottlingRate), cache
// disabled. Prints, per run: ms from navigation to the page's first paint of the loading
// status, to `data-boot=ready`, and to a typed PING answered with PONG; the requests and the
// bytes on the wire (encodedDataLength, headers included) and of the bodies as decoded.
//
//   node tools/measure-first-load.mjs http://127.0.0.1:8080/ [runs]
//
// Not a test (it takes a minute); the numbers for the README come from it.

import { chromium } from "playwright-core";

const url = process.argv[2] ?? "http://127.0.0.1:8080/";
const runs = Number(process.argv[3] ?? 3);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const results = [];
for (let i = 0; i < runs; i += 1) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 562.5,
    downloadThroughput: 180_000,
    uploadThroughput: 84_375,
    connectionType: "cellular3g",
  });
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  let wire = 0;
  let requests = 0;
  const decoded = new Map();
  cdp.on("Network.dataReceived", (e) => decoded.set(e.requestId, (decoded.get(e.requestId) ?? 0) + e.dataLength));
  cdp.on("Network.loadingFinished", (e) => {
    wire += e.encodedDataLength;
    requests += 1;
  });
  const t0 = Date.now();
  await page.goto(`${url}${url.includes("?") ? "&" : "?"}seed=1&t=1735689600000`, { waitUntil: "commit" });
  await page.waitForSelector("#boot-status, html[data-boot]", { state: "attached", timeout: 120_000 });
  const status = Date.now() - t0;
  await page.waitForSelector("html[data-boot=ready]", { state: "attached", timeout: 180_000 });
  const ready = Date.now() - t0;
  await page.fill("#console-input", "PING");
  await page.press("#console-input", "Enter");
  await page.waitForFunction(() => /PONG/.test(document.querySelector(".scrollback")?.textContent ?? ""), null, { timeout: 60_000 });
  const pong = Date.now() - t0;
  const body = [...decoded.values()].reduce((a, b) => a + b, 0);
  results.push({ status, ready, pong, requests, wire, body });
  console.log(`run ${i + 1}: loading status ${status} ms · boot ready ${ready} ms · PONG ${pong} ms · ${requests} requests · ${wire} B on the wire · ${body} B decoded`);
  await context.close();
}
const med = (k) => results.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(results.length / 2)];
console.log(`median: boot ready ${med("ready")} ms · PONG ${med("pong")} ms · ${med("requests")} requests · ${med("wire")} B on the wire`);
await browser.close();
