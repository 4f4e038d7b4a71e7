// The eviction view: for each of the eight policies it shows exactly what the engine's
// `eviction` events report (the samples with their scores, the 16 pool slots before and after,
// the victim, the ghosts), or the OOM state when nothing may be evicted; the pool stays sorted
// and ghosts are marked; the workload generator is reproducible (same seed after a reset → the
// same victims and hit ratio) and its hit-ratio chart follows it; "compare policies" prints the
// hit ratio of Zipf(1.0) under every policy; the LRU figure shows lru_experiment's numbers;
// "Step 1 tick" lands on next_cron_ms() even after CONFIG SET hz; the keyspace list refetches at
// most ~4× a second while a workload plays — plus the screenshots test-results/eviction-*.png.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { useBrowser, REPO_ROOT, newPage, openPlayground, runLine, pause, frames, settled, drained, clockMs, clickReset } from "./harness.mjs";

const START = 1735689600000; // 2025-01-01T00:00:00Z
const QUERY = `?seed=7&t=${START}#eviction`;
const POLICIES = [
  "allkeys-lru",
  "allkeys-lfu",
  "allkeys-random",
  "volatile-lru",
  "volatile-lfu",
  "volatile-random",
  "volatile-ttl",
  "noeviction",
];
const OOM_TEXT = "OOM command not allowed when used memory > 'maxmemory'.";

const env = useBrowser();

async function screenshot(target, name) {
  const dir = path.join(REPO_ROOT, "test-results");
  await mkdir(dir, { recursive: true });
  await target.screenshot({ path: path.join(dir, name) });
}

/** A paused page showing the eviction view, recording every eviction event the page drains. */
async function openEviction(viewport = { width: 1440, height: 900 }) {
  const opened = await newPage(env.browser, { viewport });
  const { page } = opened;
  assert.equal(await openPlayground(page, env.server.url, QUERY), "ready");
  await pause(page);
  assert.ok(await page.isVisible("#eviction"));
  assert.ok(await page.isHidden("#expiry"));
  await page.evaluate(async () => {
    const { pageParts } = await import("/www/main.js");
    const engine = pageParts.engine;
    const drain = engine.drainEvents;
    window.recorded = { evictions: [], unreadable: 0 };
    engine.drainEvents = () => {
      const r = drain();
      for (const e of r.events) if (e.kind === "eviction") window.recorded.evictions.push(e);
      if (r.unreadable) window.recorded.unreadable += 1;
      return r;
    };
  });
  return opened;
}

/** Sets a memory parameter through the view's controls and waits for the engine's answer. */
async function setMaxmemory(page, value) {
  await page.fill("#eviction-maxmemory", String(value));
  await page.click("#eviction-maxmemory-set");
  await page.waitForFunction(
    (v) => document.getElementById("eviction-controls-message").textContent.startsWith(`CONFIG SET maxmemory ${v} → `),
    String(value).toLowerCase(),
  );
  return page.textContent("#eviction-controls-message");
}

async function setPolicy(page, policy) {
  await page.selectOption("#eviction-policy", policy);
  await page.waitForFunction(
    (p) => document.getElementById("eviction-controls-message").textContent === `CONFIG SET maxmemory-policy ${p} → OK`,
    policy,
  );
}

async function setSamples(page, n) {
  await page.fill("#eviction-samples", String(n));
  await page.click("#eviction-samples-set");
  await page.waitForFunction(
    (n) => document.getElementById("eviction-controls-message").textContent === `CONFIG SET maxmemory-samples ${n} → OK`,
    n,
  );
}

/** Test data through the page's own engine: keys created in batches one virtual second apart. */
async function fill(page, { prefix, count, ttl = false, batch = 20, valueBytes = 100 }) {
  await page.evaluate(
    async ({ prefix, count, ttl, batch, valueBytes }) => {
      const { pageParts } = await import("/www/main.js");
      const e = pageParts.engine;
      const value = "v".repeat(valueBytes);
      for (let i = 0; i < count; i += 1) {
        const args = ["SET", `${prefix}${i}`, value];
        if (ttl) args.push("EX", String(3600 + ((i * 7919) % 5000)));
        e.command(args);
        if ((i + 1) % batch === 0) e.advanceTo(e.now() + 1000);
      }
      pageParts.loop.wake();
    },
    { prefix, count, ttl, batch, valueBytes },
  );
}

async function engineInfo(page, section) {
  return page.evaluate(async (s) => {
    const { pageParts } = await import("/www/main.js");
    return pageParts.engine.info(s);
  }, section);
}

/** Waits until the view has seen every eviction the page drained and nothing more comes. */
async function settle(page) {
  await drained(page);
  await page.waitForFunction(() => {
    const v = document.getElementById("eviction");
    return Number(v.dataset.evictions ?? 0) === window.recorded.evictions.length;
  });
  return page.evaluate(() => window.recorded);
}

/** What the "why this victim" panel shows, as data. */
function shownEviction(page) {
  return page.evaluate(() => {
    const root = document.getElementById("eviction");
    const d = document.getElementById("eviction-detail");
    const slots = (id) =>
      [...document.querySelectorAll(`#${id} .ev-slot`)].map((li) =>
        li.dataset.empty === "true"
          ? { empty: true, mark: li.dataset.mark ?? "" }
          : { key: li.dataset.key, db: Number(li.dataset.db), score: li.dataset.score, mark: li.dataset.mark ?? "" },
      );
    return {
      shown: Number(root.dataset.shown),
      policy: d.dataset.policy,
      victim: d.dataset.victim,
      victimDb: Number(d.dataset.victimDb),
      ghosts: Number(d.dataset.ghosts),
      at: Number(d.dataset.at),
      bytesFreed: Number(d.dataset.bytesFreed),
      samples: [...document.querySelectorAll("#eviction-samples .ev-sample[data-key]")].map((li) => ({
        key: li.dataset.key,
        db: Number(li.dataset.db),
        score: li.dataset.score,
        fate: li.dataset.fate,
      })),
      before: slots("eviction-pool-before"),
      after: slots("eviction-pool-after"),
      sortedBefore: document.getElementById("eviction-pool-before")?.dataset.sorted ?? null,
      sortedAfter: document.getElementById("eviction-pool-after")?.dataset.sorted ?? null,
      note: d.querySelector(".ev-note")?.textContent ?? "",
      victimText: document.getElementById("eviction-victim")?.textContent ?? "",
    };
  });
}

const big = (v) => BigInt(String(v));

function assertSorted(slots, what) {
  let last = null;
  for (const s of slots) {
    if (s.empty) continue;
    if (last !== null) assert.ok(big(s.score) >= last, `${what}: ${s.key} (${s.score}) after a score of ${last}`);
    last = big(s.score);
  }
}

/** The view shows exactly the engine's report `e`. */
function assertShows(shown, e, policy) {
  const r = e.report;
  assert.equal(shown.policy, policy);
  assert.equal(r.policy, policy);
  assert.equal(shown.victim, r.victim);
  assert.equal(shown.victimDb, r.victim_db);
  assert.equal(shown.at, e.at_ms);
  assert.equal(shown.bytesFreed, r.bytes_freed);
  assert.ok(r.bytes_freed > 0);
  assert.match(shown.victimText, new RegExp(`freed ${r.bytes_freed.toLocaleString("en-US")} B`));
  if (policy.endsWith("-random")) {
    assert.deepEqual(r.samples, []);
    assert.deepEqual(shown.samples, []);
    assert.deepEqual(shown.before, []);
    assert.match(shown.note, /does not sample or keep a pool: dictGetRandomKey\(\) picked one key/);
    return;
  }
  assert.equal(shown.ghosts, r.ghosts);
  assert.deepEqual(
    shown.samples.map(({ key, db, score }) => ({ key, db, score })),
    r.samples.map((s) => ({ key: s.key, db: s.db, score: String(s.score) })),
  );
  const slotOf = (entry) => (entry ? { key: entry.key, db: entry.db, score: String(entry.idle) } : { empty: true });
  for (const [row, pool] of [
    ["before", r.pool_before],
    ["after", r.pool_after],
  ]) {
    assert.equal(shown[row].length, 16, `${row}: 16 slots`);
    for (let i = 0; i < 16; i += 1) {
      const want = slotOf(pool[i] ?? null);
      const { mark, ...got } = shown[row][i];
      assert.deepEqual(got, want, `${row} slot ${i}`);
    }
  }
  assertSorted(shown.before, "pool before");
  assertSorted(shown.after, "pool after");
  assert.equal(shown.sortedBefore, "true");
  assert.equal(shown.sortedAfter, "true");
  // The victim's slot is the first empty one after; the ghosts skipped are the next ones.
  const firstEmpty = r.pool_after.indexOf(null);
  assert.equal(shown.after[firstEmpty].mark, "victim");
  assert.equal(shown.after.filter((s) => s.mark === "ghost").length, r.ghosts);
  assert.equal(shown.after.filter((s) => s.mark === "victim").length, 1);
  // In the row before, the entries that left are named (victim, ghosts, pushed out) when that
  // accounts for exactly the reported ghosts; otherwise they are only marked as gone.
  const named = shown.before.filter((s) => ["victim", "ghost", "out"].includes(s.mark));
  if (named.length > 0) assert.equal(shown.before.filter((s) => s.mark === "ghost").length, r.ghosts);
  else assert.ok(shown.before.every((s) => s.mark === "" || s.mark === "left"));
  const victimBefore = shown.before.find((s) => s.mark === "victim");
  if (victimBefore) assert.equal(victimBefore.key, r.victim);
  // The victim is the best candidate still alive: no live pool entry after it scores higher.
  const victimSample = r.samples.find((s) => s.key === r.victim);
  if (victimSample) assert.equal(shown.samples.find((s) => s.key === r.victim).fate, "victim");
}

/** Steps back through the last `n` evictions with the "older" button, checking each. */
async function checkHistory(page, recorded, policy, n) {
  const all = recorded.evictions;
  assert.ok(all.length > 0, "some evictions happened");
  let shown = await shownEviction(page);
  assert.equal(shown.shown, all.length);
  assertShows(shown, all[all.length - 1], policy);
  for (let k = 1; k < Math.min(n, all.length); k += 1) {
    await page.click("#eviction-older");
    await page.waitForFunction((want) => Number(document.getElementById("eviction").dataset.shown) === want, all.length - k);
    shown = await shownEviction(page);
    assertShows(shown, all[all.length - 1 - k], policy);
  }
  await page.click("#eviction-latest");
  await page.waitForFunction((want) => Number(document.getElementById("eviction").dataset.shown) === want, all.length);
}

const HOSTILE = "<img src=x onerror=alert(1)>";

/**
 * A hostile key name first (the oldest; with a TTL only when `ttlKeys`), then 200 keys without a TTL and 200 with one, some
 * read more often; then maxmemory 4 KB below what is used.
 */
async function crowd(page, { ttlKeys = true } = {}) {
  await page.evaluate(async ({ name, ttl }) => {
    const { pageParts } = await import("/www/main.js");
    pageParts.engine.command(["SET", name, "v".repeat(100), ...(ttl ? ["EX", "3000"] : [])]);
  }, { name: HOSTILE, ttl: ttlKeys });
  await fill(page, { prefix: "a:", count: 200 });
  if (ttlKeys) await fill(page, { prefix: "t:", count: 200, ttl: true });
  await page.evaluate(async () => {
    const { pageParts } = await import("/www/main.js");
    const e = pageParts.engine;
    for (let round = 0; round < 6; round += 1) {
      for (let i = 0; i < 40; i += 3) {
        e.command(["GET", `a:${i}`]);
        e.command(["GET", `t:${i}`]);
      }
    }
    e.advanceTo(e.now() + 2000);
  });
  const used = Number((await engineInfo(page, "memory")).used_memory);
  return setMaxmemory(page, used - 4000);
}

// -----------------------------------------------------------------------------------------------
// The eight policies
// -----------------------------------------------------------------------------------------------

for (const policy of ["allkeys-lru", "allkeys-lfu", "allkeys-random", "volatile-lru", "volatile-lfu", "volatile-random"]) {
  test(`${policy}: the view shows each eviction exactly as the engine's event reports it`, async () => {
    const { page, context, errors } = await openEviction();
    try {
      await setPolicy(page, policy);
      await crowd(page);
      // CONFIG SET maxmemory started the eviction timer: it evicted before the event loop slept.
      const recorded = await settle(page);
      assert.equal(recorded.unreadable, 0);
      assert.ok(recorded.evictions.length >= 5, `${recorded.evictions.length} evictions`);
      const info = await engineInfo(page, "stats");
      assert.equal(Number(info.evicted_keys), recorded.evictions.length);
      if (policy.startsWith("volatile")) {
        for (const e of recorded.evictions) {
          assert.ok(e.report.victim.startsWith("t:") || e.report.victim === HOSTILE, `volatile-* evicts only keys with a TTL (${e.report.victim})`);
        }
      }
      await checkHistory(page, recorded, policy, 4);
      assert.match(await page.textContent("#eviction-summary"), new RegExp(`^${policy} · samples 5 · ${recorded.evictions.length} evictions seen`));
      // A hostile key name stays text wherever it shows.
      const hostile = recorded.evictions.findIndex((e) => e.report.victim === HOSTILE || e.report.samples.some((s) => s.key === HOSTILE));
      if (hostile !== -1) {
        for (let k = recorded.evictions.length - 1; k > hostile; k -= 1) await page.click("#eviction-older");
        await page.waitForFunction((want) => Number(document.getElementById("eviction").dataset.shown) === want, hostile + 1);
        assert.ok((await page.textContent("#eviction-detail")).includes(HOSTILE));
      }
      assert.equal(await page.locator("#eviction img").count(), 0);
      assert.equal(await page.getAttribute("#eviction", "data-oom"), "false");
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

for (const policy of ["volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "noeviction"]) {
  test(`${policy} with ${policy === "noeviction" ? "any keys" : "no key with a TTL"}: no eviction, the OOM state, writes refused and reads served`, async () => {
    const { page, context, errors } = await openEviction();
    try {
      await setPolicy(page, policy);
      await crowd(page, { ttlKeys: false });
      const set = await runLine(page, "SET fresh value");
      assert.equal(set.out, `(error) ${OOM_TEXT}\n`);
      assert.equal((await runLine(page, "GET a:1")).out, `"${"v".repeat(100)}"\n`);
      await page.waitForFunction(() => document.getElementById("eviction").dataset.oom === "true");
      const recorded = await settle(page);
      assert.equal(recorded.evictions.length, 0);
      const banner = await page.textContent("#eviction-oom");
      assert.match(banner, /OOM: commands that may grow memory are refused/);
      assert.ok(banner.includes(`(error) ${OOM_TEXT}`), banner);
      assert.match(banner, /last refused: SET fresh \(console\)/);
      if (policy === "noeviction") assert.match(banner, /The policy is noeviction: Redis never evicts\./);
      else assert.match(banner, new RegExp(`${policy} evicts only keys with a TTL, and no key has one \\(INFO keyspace: expires=0\\)`));
      assert.match(await page.textContent("#eviction-detail"), /No eviction: .* can evict nothing here \(see above\), so Redis refuses commands that may grow memory instead\./);
      assert.match(await page.textContent("#eviction-summary"), /0 evictions seen · evicted_keys 0 · OOM$/);
      if (policy === "noeviction") await screenshot(page.locator("#eviction"), "eviction-oom.png");
      // DEL is allowed under OOM (though its first call allocates its own 24 KB latency
      // histogram, as in 7.0, so deleting a few keys does not get under the limit here).
      assert.equal((await runLine(page, "DEL a:1 a:2")).out, "(integer) 2\n");
      // Raising maxmemory ends the OOM state.
      const used = Number((await engineInfo(page, "memory")).used_memory);
      assert.equal(await setMaxmemory(page, used + 100_000), `CONFIG SET maxmemory ${used + 100_000} → OK`);
      assert.equal((await runLine(page, "SET fresh value")).out, "OK\n");
      await page.waitForFunction(() => document.getElementById("eviction").dataset.oom === "false");
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

test("volatile-ttl with keys that have a TTL: evictions happen (soonest expiry first), and their reports (scores above 2^53) reach the view", async () => {
  const { page, context, errors } = await openEviction();
  try {
    await setPolicy(page, "volatile-ttl");
    await crowd(page);
    await drained(page);
    const info = await engineInfo(page, "stats");
    const evicted = Number(info.evicted_keys);
    assert.ok(evicted >= 5, `${evicted} evicted`);
    await settle(page);
    const recorded = await page.evaluate(() => window.recorded);
    assert.equal(recorded.unreadable, 0);
    assert.equal(recorded.evictions.length, evicted);
    // ULLONG_MAX − expire ms does not fit a JavaScript number: it arrives as its decimal text.
    assert.ok(recorded.evictions.every((e) => e.report.samples.every((s) => typeof s.score === "string" && /^\d{17,}$/.test(s.score))));
    await checkHistory(page, recorded, "volatile-ttl", 4);
    for (const e of recorded.evictions) assert.ok(e.report.victim.startsWith("t:") || e.report.victim === HOSTILE);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("event drains the engine could not hand over: the view says evictions happened and their reports were lost", async () => {
  const { page, context, errors } = await openEviction();
  try {
    // Every drain that holds an eviction comes back unreadable, as when a serializer refuses a value.
    await page.evaluate(async () => {
      const { pageParts } = await import("/www/main.js");
      const engine = pageParts.engine;
      const drain = engine.drainEvents;
      engine.drainEvents = () => {
        const r = drain();
        return r.events.some((e) => e.kind === "eviction") ? { events: [], dropped: r.dropped, unreadable: true } : r;
      };
    });
    await setPolicy(page, "allkeys-lru");
    await crowd(page);
    await drained(page);
    assert.ok(Number((await engineInfo(page, "stats")).evicted_keys) > 0);
    await page.waitForFunction(() => document.getElementById("eviction").dataset.lost !== "0");
    assert.match(await page.textContent("#eviction-lost"), /The engine's events could not be read \d+× .*Evictions did happen \(evicted_keys \d+/);
    assert.match(await page.textContent("#clock-dropped"), /events lost \d+×/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// -----------------------------------------------------------------------------------------------
// Ghosts
// -----------------------------------------------------------------------------------------------

test("ghosts: pool entries whose key was deleted are skipped, marked, and the pool stays sorted", async () => {
  const { page, context, errors } = await openEviction();
  try {
    await setPolicy(page, "allkeys-lru");
    await crowd(page);
    let recorded = await settle(page);
    let withGhosts = null;
    for (let attempt = 0; attempt < 6 && withGhosts === null; attempt += 1) {
      // Delete the best candidates left in the pool: the next eviction finds them gone.
      const last = recorded.evictions[recorded.evictions.length - 1].report;
      const best = last.pool_after.filter(Boolean).slice(-4).map((e) => e.key);
      await runLine(page, `DEL ${best.join(" ")}`);
      await runLine(page, `SET big:${attempt} ${"x".repeat(3000)}`);
      await runLine(page, "PING"); // evicts before running
      recorded = await settle(page);
      withGhosts = recorded.evictions.findLastIndex((e) => e.report.ghosts > 0);
      if (withGhosts === -1) withGhosts = null;
    }
    assert.notEqual(withGhosts, null, "an eviction skipped ghosts");
    const event = recorded.evictions[withGhosts];
    // Step back to it.
    const steps = recorded.evictions.length - 1 - withGhosts;
    for (let k = 0; k < steps; k += 1) await page.click("#eviction-older");
    await page.waitForFunction((want) => Number(document.getElementById("eviction").dataset.shown) === want, withGhosts + 1);
    const shown = await shownEviction(page);
    assertShows(shown, event, "allkeys-lru");
    assert.ok(shown.ghosts > 0);
    assert.match(shown.victimText, new RegExp(`${event.report.ghosts} ghosts? skipped`));
    // The ghosts came from the pool before: the keys deleted are marked there too.
    const ghostsBefore = shown.before.filter((s) => s.mark === "ghost");
    assert.equal(ghostsBefore.length, event.report.ghosts);
    const deleted = await page.evaluate(() =>
      [...document.querySelectorAll(".scrollback .entry .typed")].map((t) => t.textContent).filter((t) => t.startsWith("DEL ")).join(" "),
    );
    // A ghost's key was deleted in the console, or evicted earlier (the pool may hold a key
    // twice, as Redis's does: the second copy becomes a ghost).
    const evictedEarlier = new Set(recorded.evictions.slice(0, withGhosts).map((e) => e.report.victim));
    for (const g of ghostsBefore) {
      assert.ok(deleted.split(" ").includes(g.key) || evictedEarlier.has(g.key), `${g.key} was deleted in the console or evicted before`);
    }
    assert.match(await page.textContent("#eviction-detail"), /ghosts? skipped \(key gone\), the victim taken/);
    await screenshot(page.locator("#eviction-why"), "eviction-ghosts.png");
    await page.click("#eviction-latest");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// -----------------------------------------------------------------------------------------------
// Controls
// -----------------------------------------------------------------------------------------------

test("controls: bad input is explained, changes go through CONFIG SET and are echoed in the console", async () => {
  const { page, context, errors } = await openEviction();
  try {
    await page.fill("#eviction-maxmemory", "lots");
    await page.click("#eviction-maxmemory-set");
    assert.match(await page.textContent("#eviction-controls-message"), /^maxmemory: bytes, or a number with a unit/);
    assert.equal(await page.getAttribute("#eviction-maxmemory", "aria-invalid"), "true");
    await page.fill("#eviction-samples", "0");
    await page.click("#eviction-samples-set");
    assert.match(await page.textContent("#eviction-controls-message"), /^maxmemory-samples: a whole number from 1 to 10,000/);
    await setSamples(page, 10);
    assert.equal((await runLine(page, "CONFIG GET maxmemory-samples")).out, '1) "maxmemory-samples"\n2) "10"\n');
    assert.equal(await setMaxmemory(page, "2mb"), "CONFIG SET maxmemory 2mb → OK");
    assert.equal((await runLine(page, "CONFIG GET maxmemory")).out, '1) "maxmemory"\n2) "2097152"\n');
    await setPolicy(page, "allkeys-lfu");
    const notes = await page.$$eval(".scrollback .note-text", (n) => n.map((x) => x.textContent));
    assert.ok(notes.includes("(eviction view) CONFIG SET maxmemory-samples 10 → OK"), notes.join("\n"));
    assert.ok(notes.includes("(eviction view) CONFIG SET maxmemory 2mb → OK"));
    assert.ok(notes.includes("(eviction view) CONFIG SET maxmemory-policy allkeys-lfu → OK"));
    // A change from the console shows in the controls.
    await runLine(page, "CONFIG SET maxmemory-policy volatile-ttl");
    await page.waitForFunction(() => document.getElementById("eviction-policy").value === "volatile-ttl");
    assert.match(await page.textContent("#eviction-gauge-text"), /used_memory .* of maxmemory 2\.00 MB/);
    // Bad workload input.
    await page.fill("#eviction-wl-skew", "9");
    await page.click("#eviction-wl-start");
    assert.match(await page.textContent("#eviction-workload-message"), /^Zipf skew: a number from 0\.1 to 3/);
    assert.equal(await page.getAttribute("#eviction-wl-skew", "aria-invalid"), "true");
    await page.fill("#eviction-wl-skew", "1.0");
    await page.fill("#eviction-wl-rate", "fast");
    await page.click("#eviction-wl-compare");
    assert.match(await page.textContent("#eviction-workload-message"), /^Requests per second \(virtual time\): a whole number from 1 to 100,000/);
    // Paused and nothing happening: the view neither redraws nor reads INFO.
    await settled(page);
    const idle = () => page.evaluate(() => ({ ...document.getElementById("eviction").dataset }));
    const before = await idle();
    await frames(page, 30);
    const after = await idle();
    assert.equal(after.draws, before.draws, "no redraw while idle");
    assert.equal(after.memReads, before.memReads, "no INFO while idle");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// -----------------------------------------------------------------------------------------------
// The workload generator
// -----------------------------------------------------------------------------------------------

async function configureWorkload(page, { distribution = "zipf", keys = 5000, rate = 2000, requests = 6000, seed = 42, ttl = "random" }) {
  await page.selectOption("#eviction-wl-dist", distribution);
  await page.fill("#eviction-wl-keys", String(keys));
  await page.fill("#eviction-wl-rate", String(rate));
  await page.fill("#eviction-wl-requests", String(requests));
  await page.fill("#eviction-wl-seed", String(seed));
  await page.selectOption("#eviction-wl-ttl", ttl);
}

/** Reset, configure, run the workload to its end at 10×; returns what the view and INFO say. */
async function resetAndRun(page, spec) {
  await clickReset(page);
  await pause(page);
  // The fresh engine's config shows in the controls.
  await page.waitForFunction(() => document.getElementById("eviction-policy").value === "noeviction" && document.getElementById("eviction-maxmemory").value === "0");
  await page.evaluate(() => (window.recorded.evictions = []));
  await setMaxmemory(page, "1200kb");
  await setPolicy(page, "allkeys-lru");
  await configureWorkload(page, spec);
  await page.click("#eviction-wl-start");
  await page.selectOption("#clock-speed", "10");
  await page.click("#clock-play");
  await page.waitForFunction(() => document.getElementById("eviction").dataset.runDone === "true", null, { timeout: 60_000 });
  await pause(page);
  await drained(page);
  const view = await page.evaluate(() => {
    const d = document.getElementById("eviction").dataset;
    return { ratio: Number(d.runRatio), hits: Number(d.runHits), misses: Number(d.runMisses), requests: Number(d.runRequests) };
  });
  const info = await engineInfo(page, "stats");
  const victims = await page.evaluate(() => window.recorded.evictions.map((e) => e.report.victim));
  return { view, info, victims, text: await page.textContent("#eviction-run-text") };
}

test("workload: the same seed after a reset gives the same requests, victims and hit ratio; the chart follows each run", async (t) => {
  const { page, context, errors } = await openEviction();
  try {
    const spec = { keys: 5000, rate: 2000, requests: 6000, seed: 42 };
    const a = await resetAndRun(page, spec);
    assert.equal(a.view.requests, 6000);
    assert.equal(a.view.hits + a.view.misses, 6000, "one GET per request");
    assert.equal(a.view.hits, Number(a.info.keyspace_hits));
    assert.equal(a.view.misses, Number(a.info.keyspace_misses));
    assert.ok(a.victims.length > 100, `${a.victims.length} evictions`);
    assert.equal(a.victims.length, Number(a.info.evicted_keys));
    assert.match(a.text, /^allkeys-lru · Zipf\(1\.0\) over 5,000 keys, 2,000 req\/s, seed 42: 6,000 of 6,000 requests, done · hit ratio \d+\.\d% \(INFO: [\d,]+ hits, [\d,]+ misses\)/);
    const points = Number(await page.getAttribute('#eviction-ratio-legend li[data-run="1"]', "data-points"));
    assert.equal(points, 6000 / 250, "an INFO reading every 250 requests");

    const b = await resetAndRun(page, spec);
    assert.deepEqual(b.view, a.view);
    assert.deepEqual(b.victims, a.victims);
    const c = await resetAndRun(page, { ...spec, seed: 43 });
    assert.notDeepEqual(c.victims, a.victims);
    t.diagnostic(`seed 42: hit ratio ${(a.view.ratio * 100).toFixed(2)}% twice (${a.victims.length} evictions, identical); seed 43: ${(c.view.ratio * 100).toFixed(2)}%`);

    // Three runs on the chart, each with its ratio; the canvas has lines on it.
    const legend = await page.$$eval("#eviction-ratio-legend li", (l) => l.map((x) => ({ run: x.dataset.run, ratio: Number(x.dataset.ratio), text: x.textContent })));
    assert.equal(legend.length, 3);
    assert.equal(legend[0].ratio, a.view.ratio);
    assert.equal(legend[1].ratio, b.view.ratio);
    // Runs 1 and 2 are the same line (the second, orange, over the first); run 3 is green.
    const inked = await page.$eval("#eviction-ratio-canvas", (c) => {
      const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      const px = { orange: 0, green: 0 };
      for (let i = 0; i < d.length; i += 4) {
        if (d[i] > 200 && d[i + 1] > 100 && d[i + 1] < 170 && d[i + 2] < 120) px.orange += 1;
        if (d[i] < 160 && d[i + 1] > 170 && d[i + 2] > 120 && d[i + 2] < 190) px.green += 1;
      }
      return px;
    });
    assert.ok(inked.orange > 50 && inked.green > 50, `the runs' lines are drawn (${JSON.stringify(inked)} px)`);
    await page.locator("#eviction-workload-section").scrollIntoViewIfNeeded();
    await screenshot(page.locator("#eviction-workload-section"), "eviction-workload.png");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("workload: the hit-ratio chart updates while a run plays, bounded per frame; the keyspace list refetches at most ~4× a second", async (t) => {
  const { page, context, errors } = await openEviction();
  try {
    await setMaxmemory(page, "1200kb");
    await setPolicy(page, "allkeys-lfu");
    await configureWorkload(page, { keys: 20000, rate: 20000, requests: 0, seed: 5 });
    await page.click("#eviction-wl-start");
    await page.selectOption("#clock-speed", "60");
    const fetches0 = Number((await page.getAttribute("#keyspace", "data-fetches")) ?? 0);
    const t0 = await clockMs(page);
    const playedFrom = Date.now();
    await page.click("#clock-play");
    // Played for three seconds of real time (what the budgets are measured over); meanwhile
    // each reading waits for the run to have moved on from the last one.
    const runRequests = () => page.evaluate(() => Number(document.getElementById("eviction").dataset.runRequests || 0));
    const samples = [await runRequests()];
    const started = Date.now();
    while (Date.now() - started < 3000) {
      await page.waitForFunction((n) => Number(document.getElementById("eviction").dataset.runRequests || 0) > n, samples.at(-1));
      samples.push(await runRequests());
    }
    const frameTimes = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const times = [];
          let last = performance.now();
          const tick = (now) => {
            times.push(now - last);
            last = now;
            if (times.length < 60) requestAnimationFrame(tick);
            else resolve(times);
          };
          requestAnimationFrame(tick);
        }),
    );
    await pause(page);
    const playedSeconds = (Date.now() - playedFrom) / 1000;
    const fetches = Number(await page.getAttribute("#keyspace", "data-fetches")) - fetches0;
    const virtualMs = (await clockMs(page)) - t0;
    const requests = await page.evaluate(() => Number(document.getElementById("eviction").dataset.runRequests));
    const runStart = await page.evaluate(() => Number(document.getElementById("eviction").dataset.runStart));
    const runMs = t0 + virtualMs - runStart;
    for (let i = 1; i < samples.length; i += 1) assert.ok(samples[i] > samples[i - 1], `the run advances: ${samples.join(", ")}`);
    // 20,000 req/s at 60× is more than a frame's budget: the clock runs slower and shows lag.
    assert.ok(virtualMs < 60 * 1000 * playedSeconds * 0.5, `virtual time ${virtualMs} ms`);
    assert.ok(requests >= Math.floor((runMs * 20000) / 1000) - 1, `${requests} requests in ${runMs} virtual ms of the run`);
    const sorted = [...frameTimes].sort((a, b) => a - b);
    const p50 = sorted[Math.floor(sorted.length / 2)];
    assert.ok(p50 < 40, `frame time median ${p50.toFixed(1)} ms`);
    // At most every 250 ms while playing (+1 for the frame after the pause).
    assert.ok(fetches <= Math.ceil(playedSeconds * 4) + 2, `keyspace refetched ${fetches}× in ${playedSeconds.toFixed(1)} s of play`);
    const points = Number(await page.getAttribute('#eviction-ratio-legend li[data-run="1"]', "data-points"));
    assert.ok(points >= 4, `${points} chart points`);
    t.diagnostic(
      `20,000 req/s at 60× for ${playedSeconds.toFixed(1)} s: ${requests.toLocaleString("en-US")} requests over ${virtualMs.toLocaleString("en-US")} virtual ms ` +
        `(${Math.round(requests / playedSeconds).toLocaleString("en-US")}/s real), frame time median ${p50.toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms; keyspace list fetched ${fetches}×`,
    );
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("compare policies: Zipf(1.0), the same seed, a fresh engine per policy — hit ratios side by side", async (t) => {
  const { page, context, errors } = await openEviction();
  try {
    await setMaxmemory(page, "1600kb");
    await configureWorkload(page, { keys: 10000, rate: 1000, requests: 20000, seed: 1 });
    const t0 = Date.now();
    await page.click("#eviction-wl-compare");
    await page.waitForFunction(() => document.getElementById("eviction-compare-section").dataset.done === "true", null, { timeout: 120_000 });
    const ms = Date.now() - t0;
    const rows = await page.$$eval("#eviction-compare .ev-cmp-row", (l) =>
      l.map((x) => ({
        policy: x.dataset.policy,
        ratio: Number(x.dataset.ratio),
        steady: Number(x.dataset.steady),
        hits: Number(x.dataset.hits),
        misses: Number(x.dataset.misses),
        evicted: Number(x.dataset.evicted),
        oom: Number(x.dataset.oom),
      })),
    );
    assert.deepEqual(
      rows.map((r) => r.policy),
      POLICIES,
    );
    for (const r of rows) assert.equal(r.hits + r.misses, 20000, r.policy);
    const byPolicy = Object.fromEntries(rows.map((r) => [r.policy, r]));
    assert.equal(byPolicy.noeviction.evicted, 0);
    assert.ok(byPolicy.noeviction.oom > 0);
    for (const p of POLICIES.filter((p) => p !== "noeviction")) assert.ok(byPolicy[p].evicted > 0, p);
    // LFU keeps the hot keys of a Zipf workload better than random eviction does.
    assert.ok(byPolicy["allkeys-lfu"].ratio > byPolicy["allkeys-random"].ratio);
    assert.ok(byPolicy["allkeys-lru"].ratio > byPolicy["allkeys-random"].ratio);
    t.diagnostic(`Zipf(1.0) over 10,000 keys, 20,000 requests at 1,000/s, seed 1, maxmemory 1600kb, samples 5 (fresh engines, page seed 7), ${(ms / 1000).toFixed(1)} s:`);
    for (const r of rows) {
      t.diagnostic(
        `  ${r.policy.padEnd(16)} hit ratio ${(r.ratio * 100).toFixed(2)}%  (last quarter ${(r.steady * 100).toFixed(2)}%)  evicted ${r.evicted}${r.oom ? `  SETs refused ${r.oom}` : ""}`,
      );
    }
    // The same workload again on a fresh engine gives the same numbers.
    const again = await page.evaluate(async () => {
      const { pageParts } = await import("/www/main.js");
      const { createComparison } = await import("/www/workload.js");
      const job = createComparison({
        spec: { distribution: "zipf", skew: 1, keys: 10000, rate: 1000, requests: 20000, valueBytes: 100, ttl: "random", seed: 1 },
        policies: ["allkeys-lru"],
        config: { maxmemory: "1638400", "maxmemory-samples": "5", "maxmemory-eviction-tenacity": "10", "lfu-log-factor": "10", "lfu-decay-time": "1" },
        startMs: 1735689600000,
        makeEngine: () => pageParts.engine.createScratchEngine({ seed: 7, startMs: 1735689600000 }),
      });
      while (job.work(Infinity));
      return job.status().results[0];
    });
    assert.equal(again.ratio, byPolicy["allkeys-lru"].ratio);
    assert.equal(again.evicted, byPolicy["allkeys-lru"].evicted);
    await page.locator("#eviction-compare-section").scrollIntoViewIfNeeded();
    await screenshot(page.locator("#eviction-compare-section"), "eviction-compare.png");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// -----------------------------------------------------------------------------------------------
// The LRU-approximation figure
// -----------------------------------------------------------------------------------------------

test("the LRU figure shows lru_experiment's numbers: true LRU, samples 5, 10 and the user's value", async (t) => {
  const { page, context, errors } = await openEviction();
  try {
    // It runs on its own the first time the view is shown.
    await page.waitForSelector("#eviction-lru-table td");
    const check = async (series) => {
      const shown = await page.$$eval("#eviction-lru-table td[data-decile]", (l) =>
        l.map((td) => ({ samples: Number(td.dataset.samples), decile: Number(td.dataset.decile), share: Number(td.dataset.share), text: td.textContent })),
      );
      const bars = await page.$$eval("#eviction-lru-chart .ev-lru-bar", (l) => l.map((b) => ({ samples: Number(b.dataset.samples), share: Number(b.dataset.share) })));
      const expected = await page.evaluate(async (series) => {
        const { pageParts } = await import("/www/main.js");
        return series.map((s) => pageParts.engine.lruExperiment(10000, s, 1));
      }, series);
      assert.deepEqual([...new Set(shown.map((s) => s.samples))], series);
      for (const exp of expected) {
        for (let d = 0; d < 10; d += 1) {
          const cell = shown.find((s) => s.samples === exp.samples && s.decile === d);
          assert.equal(cell.share, exp.evictedByDecile[d], `samples ${exp.samples}, tenth ${d}`);
          assert.equal(cell.text, `${(exp.evictedByDecile[d] * 100).toFixed(1)}%`);
          assert.equal(bars.filter((b) => b.samples === exp.samples)[d].share, exp.evictedByDecile[d]);
        }
      }
      return expected;
    };
    const results = await check([0, 5, 10, 3]);
    assert.deepEqual(results[0].evictedByDecile, [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]);
    for (const r of results) {
      t.diagnostic(`${r.samples === 0 ? "true LRU " : `samples ${String(r.samples).padEnd(2)}`}: ${r.evictedByDecile.map((v) => `${(v * 100).toFixed(1)}%`.padStart(6)).join(" ")}  new keys ${(r.newKeysEvicted * 100).toFixed(1)}%`);
    }
    await page.locator("#eviction-lru-section").scrollIntoViewIfNeeded();
    await screenshot(page.locator("#eviction-lru-section"), "eviction-lru.png");
    // The user's value.
    await page.fill("#eviction-lru-samples", "7");
    await page.click("#eviction-lru-run");
    await page.waitForSelector('#eviction-lru-table td[data-samples="7"]');
    await check([0, 5, 10, 7]);
    await page.fill("#eviction-lru-samples", "100");
    await page.click("#eviction-lru-run");
    assert.match(await page.textContent("#eviction-lru-message"), /^Samples: a whole number from 1 to 64/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// -----------------------------------------------------------------------------------------------
// The clock bar's step, and a page screenshot
// -----------------------------------------------------------------------------------------------

test("Step 1 tick goes exactly to next_cron_ms(): after CONFIG SET hz 50 the next tick is still on the old schedule", async () => {
  const { page, context, errors } = await openEviction();
  try {
    const nextCron = () =>
      page.evaluate(async () => {
        const { pageParts } = await import("/www/main.js");
        return pageParts.engine.nextCronMs();
      });
    // The clock was paused between two ticks: a step goes to the next one, not one period on.
    const t0 = await clockMs(page);
    let next = await nextCron();
    assert.ok(next > t0 && next <= t0 + 100);
    assert.equal(await page.textContent("#clock-step"), `Step 1 tick (+${next - t0} ms)`);
    await page.click("#clock-step");
    await page.waitForFunction((ms) => document.querySelector("#clock-time").dataset.ms === String(ms), next);
    assert.equal((await runLine(page, "CONFIG SET hz 50")).out, "OK\n");
    const t1 = await clockMs(page);
    next = await nextCron();
    assert.equal(next, t1 + 100, "the tick after hz 50 still falls on the 100 ms schedule");
    await page.waitForFunction(() => document.querySelector("#clock-step").textContent === "Step 1 tick (+100 ms)");
    await page.click("#clock-step");
    await page.waitForFunction((ms) => document.querySelector("#clock-time").dataset.ms === String(ms), t1 + 100);
    await page.waitForFunction(() => document.querySelector("#clock-step").textContent === "Step 1 tick (+20 ms)");
    await page.click("#clock-step");
    await page.waitForFunction((ms) => document.querySelector("#clock-time").dataset.ms === String(ms), t1 + 120);
    assert.equal((await runLine(page, "CLOCK GET")).out, `(integer) ${t1 + 120}\n`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("screenshot: one eviction under allkeys-lru with a workload's keys (test-results/eviction-page.png)", async () => {
  const { page, context, errors } = await openEviction();
  try {
    await setMaxmemory(page, "1200kb");
    await setPolicy(page, "allkeys-lru");
    await configureWorkload(page, { keys: 5000, rate: 50, requests: 0, seed: 3 });
    await page.click("#eviction-wl-start");
    await page.selectOption("#clock-speed", "600");
    await page.click("#clock-play");
    await page.waitForFunction(() => Number(document.getElementById("eviction").dataset.evictions || 0) > 40, null, { timeout: 60_000 });
    await pause(page);
    const recorded = await settle(page);
    const shown = await shownEviction(page);
    assertShows(shown, recorded.evictions[recorded.evictions.length - 1], "allkeys-lru");
    await page.locator("#eviction").evaluate((el) => (el.scrollTop = 0));
    await screenshot(page, "eviction-page.png");
    await screenshot(page.locator("#eviction-why"), "eviction-victim.png");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("compare policies at 2 MB: when the cache never fills, the view says so instead of eight equal bars", async () => {
  const { page, context, errors } = await openEviction();
  try {
    await setMaxmemory(page, "2mb");
    await page.click("#eviction-wl-compare");
    await page.waitForFunction(() => document.getElementById("eviction-compare-section").dataset.done === "true", null, { timeout: 120_000 });
    const evicted = await page.$$eval("#eviction-compare .ev-cmp-row", (l) => l.map((x) => Number(x.dataset.evicted) + Number(x.dataset.oom)));
    assert.equal(evicted.length, 8);
    assert.ok(evicted.every((n) => n === 0), "nothing evicted or refused under any policy");
    const caption = await page.textContent("#eviction-compare-caption");
    assert.match(caption, /never filled/);
    assert.match(caption, /maxmemory/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
