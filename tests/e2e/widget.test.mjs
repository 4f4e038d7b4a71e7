// <redis-playground> (www/widget.js): several widgets on one page with engines of their own;
// started only when scrolled into view; attributes honoured (commands from the attribute or a
// child <pre>, views, seed, start, autorun, read-only, height, lab); bad and hostile attributes
// explained inside the widget, never run as markup; theming through --rp-* properties; the
// keyboard; reduced motion; removal frees the engine — plus test-results/widget.png.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { useBrowser, REPO_ROOT, newPage, terminalText, frames, settled } from "./harness.mjs";

const START = 1735689600000; // 2025-01-01T00:00:00Z

const env = useBrowser();

/** A page at /tests/e2e/widget-page.html with `body` and the one module script. */
async function widgetPage(body, { viewport, reducedMotion } = {}) {
  const opened = await newPage(env.browser, viewport ? { viewport } : undefined);
  const url = `${env.server.url}/tests/e2e/widget-page.html`;
  await opened.page.route(url, (route) =>
    route.fulfill({
      contentType: "text/html; charset=utf-8",
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>widgets</title>
<style>body { margin: 0; padding: 16px; background: #fff; font: 16px system-ui; }</style></head>
<body>${body}<script type="module" src="/www/widget.js"></script></body></html>`,
    }),
  );
  if (reducedMotion) await opened.page.emulateMedia({ reducedMotion });
  await opened.page.goto(url);
  await opened.page.waitForFunction(() => customElements.get("redis-playground") !== undefined);
  return opened;
}

/** Scrolls the widget into view and waits until it started (or failed): its data-state. */
async function started(page, selector) {
  await page.locator(selector).scrollIntoViewIfNeeded();
  await page.waitForFunction((sel) => ["ready", "failed"].includes(document.querySelector(sel)?.dataset.state), selector, { timeout: 20_000 });
  return page.getAttribute(selector, "data-state");
}

/** Types a line into a widget's console and sends it; returns the new entry's output text. */
async function runIn(page, selector, line) {
  const input = page.locator(`${selector} #console-input`);
  await input.fill(line);
  return sendInput(page, selector);
}

/** Presses Enter in a widget's input; returns the output of the entry it made. */
async function sendInput(page, selector) {
  await page.evaluate((sel) => document.querySelector(sel).shadowRoot.querySelector(".scrollback > .entry:last-child")?.setAttribute("data-seen", ""), selector);
  await page.locator(`${selector} #console-input`).press("Enter");
  await page.waitForFunction((sel) => document.querySelector(sel).shadowRoot.querySelector(".scrollback > .entry:last-child:not([data-seen])"), selector);
  return lastOut(page, selector);
}

async function lastOut(page, selector) {
  const text = await page.evaluate((sel) => document.querySelector(sel).shadowRoot.querySelector(".scrollback > .entry:last-child .out")?.textContent ?? null, selector);
  return text === null ? null : terminalText(text);
}

/** The typed lines and outputs of a widget's first console, in order. */
async function transcript(page, selector) {
  return page.evaluate((sel) =>
    [...document.querySelector(sel).shadowRoot.querySelectorAll('.console-pane[data-console="0"] .scrollback > .entry')]
      .filter((e) => e.querySelector(".typed"))
      .map((e) => ({ typed: e.querySelector(".typed").textContent, out: e.querySelector(".out")?.textContent ?? "" })),
  selector);
}

/** The notices a widget shows (bad attributes and the like). */
async function messages(page, selector) {
  return page.evaluate((sel) => [...document.querySelector(sel).shadowRoot.querySelectorAll(".notice .notice-text")].map((n) => n.textContent), selector);
}

test("three widgets on one page run independent engines (own seed, clock, keys)", async () => {
  const { page, context, errors } = await widgetPage(`
    <redis-playground id="a" seed="1" start="2025-01-01T00:00:00Z" paused views="console clock"></redis-playground>
    <redis-playground id="b" seed="2" start="1800000000000" paused views="console clock"></redis-playground>
    <redis-playground id="c" seed="1" start="2025-01-01T00:00:00Z" paused views="console clock"></redis-playground>`);
  try {
    for (const id of ["#a", "#b", "#c"]) assert.equal(await started(page, id), "ready");
    assert.equal(await runIn(page, "#a", "SET owner a"), "OK\n");
    assert.equal(await runIn(page, "#b", "GET owner"), "(nil)\n");
    assert.equal(await runIn(page, "#b", "SET owner b"), "OK\n");
    assert.equal(await runIn(page, "#a", "GET owner"), '"a"\n');
    assert.equal(await runIn(page, "#c", "DBSIZE"), "(integer) 0\n");
    // Each clock is its own: the start attribute, paused.
    assert.equal(await runIn(page, "#a", "CLOCK GET"), `(integer) ${START}\n`);
    assert.equal(await runIn(page, "#b", "CLOCK GET"), "(integer) 1800000000000\n");
    assert.equal(await runIn(page, "#a", "CLOCK ADVANCE 5000"), `(integer) ${START + 5000}\n`);
    assert.equal(await runIn(page, "#c", "CLOCK GET"), `(integer) ${START}\n`);
    // Same seed, same random choices; another seed, its own.
    const picks = async (id) => {
      await runIn(page, id, "SADD s a b c d e f g h i j k l m n o p");
      return [await runIn(page, id, "SRANDMEMBER s 5"), await runIn(page, id, "SPOP s 3")];
    };
    assert.deepEqual(await picks("#a"), await picks("#c"));
    const engines = await page.evaluate(() => {
      const [a, b, c] = ["#a", "#b", "#c"].map((s) => document.querySelector(s).playground.engine);
      return { ab: a === b, ac: a === c, seeds: [a.seed, b.seed, c.seed] };
    });
    assert.deepEqual(engines, { ab: false, ac: false, seeds: [1, 2, 1] });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("a widget starts only when scrolled into view (a placeholder with the <pre> until then), and plays only while on screen", async () => {
  const { page, context, errors } = await widgetPage(`
    <p>Above the fold.</p>
    <div style="height: 2600px"></div>
    <redis-playground id="late" views="console clock"><pre>SET seen yes
GET seen</pre></redis-playground>
    <div style="height: 2600px"></div>`);
  const wasm = [];
  page.on("request", (r) => {
    if (r.url().endsWith(".wasm")) wasm.push(r.url());
  });
  try {
    // The widget's IntersectionObserver (made when it showed its placeholder) has reported
    // "out of view" once one made after it has: observers are notified in the order made.
    await page.waitForFunction(() => document.querySelector("#late")?.dataset.state !== undefined);
    const inView = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const io = new IntersectionObserver((entries) => {
            io.disconnect();
            resolve(entries[0].isIntersecting);
          });
          io.observe(document.querySelector("#late"));
        }),
    );
    assert.equal(inView, false);
    assert.equal(await page.getAttribute("#late", "data-state"), "waiting");
    assert.deepEqual(wasm, [], "the engine is not downloaded before the widget is in view");
    const placeholder = await page.evaluate(() => {
      const root = document.querySelector("#late").shadowRoot;
      const slot = root.querySelector("slot");
      return {
        console: root.querySelector("#console") !== null,
        slotted: slot?.assignedElements().map((e) => e.textContent) ?? [],
        button: root.querySelector(".rp-start")?.textContent ?? null,
      };
    });
    assert.deepEqual(placeholder, { console: false, slotted: ["SET seen yes\nGET seen"], button: "Start the playground" });

    assert.equal(await started(page, "#late"), "ready");
    assert.equal(wasm.length, 1);
    // The <pre>'s first command waits in the input.
    assert.equal(await page.inputValue("#late #console-input"), "SET seen yes");

    // Scrolled away, its clock stops; back in view, it runs again.
    const clock = () => page.evaluate(() => document.querySelector("#late").playground.engine.now());
    await page.evaluate(() => window.scrollTo(0, 0));
    // Out of view (the widget's own observer was made before this one, so it knew first), its
    // loop goes to sleep; then the clock must not move over the frames that follow.
    const stillInView = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const io = new IntersectionObserver((entries) => {
            io.disconnect();
            resolve(entries[0].isIntersecting);
          });
          io.observe(document.querySelector("#late"));
        }),
    );
    assert.equal(stillInView, false);
    await settled(page, "#late");
    const away = await clock();
    await frames(page, 20);
    assert.equal(await clock(), away, "the clock stands still while the widget is off screen");
    await page.locator("#late").scrollIntoViewIfNeeded();
    await page.waitForFunction((t) => document.querySelector("#late").playground.engine.now() > t + 100, away);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("attributes: commands (`;` outside quotes), autorun, views, seed and start, height, label", async () => {
  const { page, context, errors } = await widgetPage(`
    <redis-playground id="auto" autorun seed="42" start="2025-06-01T12:00:00Z" views="zset keyspace" height="480" label="Leaderboard demo"
      commands='ZADD board 100 alice 85 bob; SET note "a;b"; GET note; # a comment
ZRANK board bob'></redis-playground>
    <redis-playground id="manual" commands="SET a 1;GET a"></redis-playground>`);
  try {
    assert.equal(await started(page, "#auto"), "ready");
    const t = await transcript(page, "#auto");
    assert.deepEqual(t.map((e) => e.typed), ["ZADD board 100 alice 85 bob", 'SET note "a;b"', "GET note", "ZRANK board bob"]);
    assert.deepEqual(t.map((e) => terminalText(e.out)), ["(integer) 2\n", "OK\n", '"a;b"\n', "(integer) 0\n"]);
    const shape = await page.evaluate(() => {
      const host = document.querySelector("#auto");
      const root = host.shadowRoot;
      return {
        parts: ["console", "clock", "keyspace", "zset", "expiry", "eviction", "delay-queue"].filter((id) => root.getElementById(id) !== null),
        tabs: root.querySelector(".view-tabs") !== null,
        height: root.querySelector(".rp").getBoundingClientRect().height,
        label: host.getAttribute("aria-label"),
        role: host.getAttribute("role"),
        title: root.querySelector(".rp-title").textContent,
        progress: root.querySelector(".rp-progress").textContent,
        seed: host.playground.engine.seed,
        startMs: host.playground.engine.startMs,
      };
    });
    assert.deepEqual(shape, {
      parts: ["console", "clock", "keyspace", "zset"],
      tabs: false,
      height: 480,
      label: "Leaderboard demo",
      role: "region",
      title: "Leaderboard demo",
      progress: "All 4 commands ran",
      seed: 42,
      startMs: Date.parse("2025-06-01T12:00:00Z"),
    });
    // The keyspace shows the key the commands made.
    await page.waitForFunction(() => document.querySelector("#auto").shadowRoot.querySelector('.keyspace-row[data-type="zset"]') !== null);

    // Without autorun, commands wait in the input one by one: Enter, Step, Run all.
    assert.equal(await started(page, "#manual"), "ready");
    assert.deepEqual(await transcript(page, "#manual"), []);
    assert.equal(await page.inputValue("#manual #console-input"), "SET a 1");
    assert.equal(await sendInput(page, "#manual"), "OK\n");
    assert.equal(await page.inputValue("#manual #console-input"), "GET a");
    // A line of the reader's own in between leaves the next command waiting.
    assert.equal(await runIn(page, "#manual", "INCR a"), "(integer) 2\n");
    assert.equal(await page.inputValue("#manual #console-input"), "GET a");
    await page.click("#manual .rp-step");
    assert.equal(await lastOut(page, "#manual"), '"2"\n');
    assert.equal(await page.inputValue("#manual #console-input"), "");
    assert.ok(await page.isDisabled("#manual .rp-run"));
    assert.equal(await page.textContent("#manual .rp-progress"), "All 2 commands ran");
    // Reset: a fresh engine, the commands from the top.
    await page.click("#manual .rp-reset");
    assert.equal(await page.inputValue("#manual #console-input"), "SET a 1");
    await page.click("#manual .rp-run");
    assert.deepEqual((await transcript(page, "#manual")).map((e) => terminalText(e.out)), ["OK\n", '"1"\n']);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the same seed gives the engine's own random picks: a widget matches a fresh Playground with that seed", async () => {
  const { page, context, errors } = await widgetPage(`<redis-playground id="w" seed="9001" start="1735689600000" paused autorun commands="SADD s a b c d e f g h i j; SRANDMEMBER s 4; SPOP s 2; RANDOMKEY"></redis-playground>`);
  try {
    assert.equal(await started(page, "#w"), "ready");
    const shown = (await transcript(page, "#w")).map((e) => e.out);
    const oracle = await page.evaluate(async () => {
      const pkg = await import("/www/pkg/redisplay.js");
      await pkg.default();
      const pg = new pkg.Playground(9001, 1735689600000);
      const out = ["SADD s a b c d e f g h i j", "SRANDMEMBER s 4", "SPOP s 2", "RANDOMKEY"].map((l) => String(pg.execute(l).text));
      pg.free();
      return out;
    });
    assert.deepEqual(shown.map(terminalText), oracle.map(terminalText));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("bad and hostile attributes: a message inside the widget, the default used, no markup run", async () => {
  const hostile = "<img src=x onerror=alert(1)>";
  const esc = (s) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const { page, context, errors } = await widgetPage(`
    <redis-playground id="bad" views="console zset bogus ${esc(hostile)}" seed="12abc" start="yesterday" height="10px;background:url(x)" commands="${esc(`SET "${hostile}" 1; KEYS *`)}" autorun></redis-playground>
    <redis-playground id="nolab" lab="no-such-lab"></redis-playground>
    <redis-playground id="badlab" lab="../../etc/passwd"></redis-playground>`);
  try {
    assert.equal(await started(page, "#bad"), "ready");
    const bad = await messages(page, "#bad");
    assert.ok(bad.some((m) => m.includes('"bogus"') && m.includes("are not views")), bad.join(" | "));
    assert.ok(bad.some((m) => m.startsWith('seed="12abc" is not a seed') && m.includes("Seed 1 is used")), bad.join(" | "));
    assert.ok(bad.some((m) => m.startsWith('start="yesterday" is not a time')), bad.join(" | "));
    assert.ok(bad.some((m) => m.startsWith("height=") && m.includes("not a CSS length")), bad.join(" | "));
    const state = await page.evaluate(() => {
      const host = document.querySelector("#bad");
      const root = host.shadowRoot;
      return {
        seed: host.playground.engine.seed,
        startMs: host.playground.engine.startMs,
        zset: root.getElementById("zset") !== null,
        images: root.querySelectorAll("img").length + document.querySelectorAll("img").length,
        height: root.querySelector(".rp").style.height,
      };
    });
    assert.deepEqual(state, { seed: 1, startMs: START, zset: true, images: 0, height: "" });
    // The hostile key name is data: set, listed, printed as text.
    const t = await transcript(page, "#bad");
    assert.equal(t[0].typed, `SET "${hostile}" 1`);
    assert.equal(terminalText(t[1].out), `1) "${hostile}"\n`);

    assert.equal(await started(page, "#nolab"), "ready");
    assert.deepEqual(await messages(page, "#nolab"), ['There is no lab called "no-such-lab" (HTTP 404).']);
    assert.equal(await runIn(page, "#nolab", "PING"), "PONG\n");
    assert.equal(await started(page, "#badlab"), "ready");
    const badlab = await messages(page, "#badlab");
    assert.equal(badlab.length, 1);
    assert.match(badlab[0], /^lab="\.\.\/\.\.\/etc\/passwd" is not a lab name/);
    // The 404 of the missing lab is the only thing the browser complained about.
    assert.deepEqual(errors.filter((e) => !/404/.test(e)), []);
  } finally {
    await context.close();
  }
});

test("read-only: nothing can be typed or pasted; Step, Run all and Enter run the commands shown", async () => {
  const { page, context, errors } = await widgetPage(`
    <button id="before">before</button>
    <redis-playground id="ro" read-only commands="SET a 1; INCR a; GET a"></redis-playground>
    <redis-playground id="roa" read-only autorun commands="RPUSH l x y; LRANGE l 0 -1"></redis-playground>`);
  try {
    assert.equal(await started(page, "#ro"), "ready");
    const input = page.locator("#ro #console-input");
    assert.equal(await input.inputValue(), "SET a 1");
    await input.focus();
    assert.equal(await input.evaluate((i) => i.readOnly), true);
    await page.keyboard.type("FLUSHALL");
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Tab"); // moves the focus on: no completion
    assert.equal(await input.inputValue(), "SET a 1");
    await input.evaluate((i) => {
      const data = new DataTransfer();
      data.setData("text/plain", "FLUSHALL\nSET b 2\n");
      i.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    });
    assert.deepEqual(await transcript(page, "#ro"), []);
    assert.equal(await page.locator("#ro .console-add").isVisible(), false, "no second client to type into");
    await page.click("#ro .rp-step");
    assert.equal(await input.inputValue(), "INCR a");
    assert.equal(await sendInput(page, "#ro"), "(integer) 2\n");
    await page.click("#ro .rp-run");
    assert.deepEqual((await transcript(page, "#ro")).map((e) => [e.typed, terminalText(e.out)]), [
      ["SET a 1", "OK\n"],
      ["INCR a", "(integer) 2\n"],
      ["GET a", '"2"\n'],
    ]);
    assert.ok(await page.isDisabled("#ro .rp-step"));

    assert.equal(await started(page, "#roa"), "ready");
    assert.deepEqual((await transcript(page, "#roa")).map((e) => e.typed), ["RPUSH l x y", "LRANGE l 0 -1"]);
    assert.equal(await page.inputValue("#roa #console-input"), "");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("theming: --rp-* properties on the element or an ancestor reach the shadow root", async () => {
  const { page, context, errors } = await widgetPage(`
    <div style="--rp-fg: rgb(9, 8, 7); --rp-font: monospace">
      <redis-playground id="t" style="--rp-bg: rgb(1, 2, 3); --rp-accent: rgb(200, 0, 100); --rp-radius: 3px" commands="PING"></redis-playground>
    </div>
    <redis-playground id="plain" commands="PING"></redis-playground>`);
  try {
    assert.equal(await started(page, "#t"), "ready");
    assert.equal(await started(page, "#plain"), "ready");
    const look = (sel) =>
      page.evaluate((s) => {
        const root = document.querySelector(s).shadowRoot;
        const frame = getComputedStyle(root.querySelector(".rp"));
        return {
          bg: frame.backgroundColor,
          radius: frame.borderTopLeftRadius,
          fg: getComputedStyle(root.querySelector(".rp-title")).color,
          run: getComputedStyle(root.querySelector(".rp-run")).backgroundColor,
          prompt: getComputedStyle(root.querySelector(".input-line .prompt")).fontFamily,
        };
      }, sel);
    assert.deepEqual(await look("#t"), { bg: "rgb(1, 2, 3)", radius: "3px", fg: "rgb(9, 8, 7)", run: "rgb(200, 0, 100)", prompt: "monospace" });
    const plain = await look("#plain");
    assert.equal(plain.bg, "rgb(12, 14, 18)");
    assert.equal(plain.run, "rgb(220, 56, 45)");
    // The page's own styles stay outside: the widget's do not leak into the document.
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), "rgb(255, 255, 255)");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("keyboard and labels: Tab reaches the buttons and the input, Enter runs, arrows switch view tabs", async () => {
  const { page, context, errors } = await widgetPage(`
    <button id="before">before</button>
    <redis-playground id="k" views="zset expiry" commands="ZADD z 1 a"></redis-playground>`);
  try {
    assert.equal(await started(page, "#k"), "ready");
    await page.focus("#before");
    const focused = () =>
      page.evaluate(() => {
        const a = document.activeElement;
        const inner = a?.shadowRoot?.activeElement ?? null;
        return inner ? inner.id || inner.className || inner.textContent : a?.id ?? null;
      });
    await page.keyboard.press("Tab");
    assert.equal(await focused(), "rp-step");
    const seen = [];
    for (let i = 0; i < 30 && (await focused()) !== "console-input"; i += 1) {
      await page.keyboard.press("Tab");
      seen.push(await focused());
    }
    assert.equal(await focused(), "console-input", `Tab order: ${seen.join(", ")}`);
    assert.equal(await page.evaluate(() => document.querySelector("#k").shadowRoot.activeElement.value), "ZADD z 1 a");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelector("#k").shadowRoot.querySelector(".scrollback .typed")?.textContent === "ZADD z 1 a");
    // No keyboard trap: Tab completes a partial command, but leaves an empty line or after Escape.
    await page.keyboard.type("ZRAN");
    await page.keyboard.press("Tab");
    assert.equal(await focused(), "console-input");
    assert.match(await page.inputValue("#k #console-input"), /^ZRAN/);
    await page.keyboard.press("Escape");
    await page.keyboard.press("Tab");
    assert.notEqual(await focused(), "console-input", "Escape then Tab leaves the console");
    await page.locator("#k #console-input").fill("");
    await page.locator("#k #console-input").focus();
    await page.keyboard.press("Shift+Tab");
    assert.notEqual(await focused(), "console-input", "Shift+Tab on an empty line leaves the console");
    // Labels: the input has its prompt as a label and a name; the region is named.
    const labels = await page.evaluate(() => {
      const root = document.querySelector("#k").shadowRoot;
      const input = root.getElementById("console-input");
      return {
        label: input.labels[0]?.textContent,
        aria: input.getAttribute("aria-label"),
        console: root.getElementById("console").getAttribute("aria-label"),
        tabs: [...root.querySelectorAll("[role=tab]")].map((t) => t.textContent),
      };
    });
    assert.deepEqual(labels, { label: "127.0.0.1:6379> ", aria: "redis-cli command", console: "redis-cli console", tabs: ["Sorted set", "Expiry"] });
    // View tabs follow the WAI-ARIA pattern, inside the shadow root.
    await page.locator("#k #tab-zset").focus();
    await page.keyboard.press("ArrowRight");
    const shown = await page.evaluate(() => {
      const root = document.querySelector("#k").shadowRoot;
      return {
        selected: root.getElementById("tab-expiry").getAttribute("aria-selected"),
        zsetHidden: root.getElementById("zset").hidden,
        expiryHidden: root.getElementById("expiry").hidden,
        view: document.querySelector("#k").dataset.panelView,
        page: document.documentElement.dataset.panelView ?? null,
      };
    });
    assert.deepEqual(shown, { selected: "true", zsetHidden: true, expiryHidden: false, view: "expiry", page: null });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("prefers-reduced-motion: the widget's animations are off", async () => {
  for (const reducedMotion of ["reduce", "no-preference"]) {
    const { page, context, errors } = await widgetPage(`<redis-playground id="m"></redis-playground>`, { reducedMotion });
    try {
      assert.equal(await started(page, "#m"), "ready");
      const animation = await page.evaluate(() => {
        const input = document.querySelector("#m").shadowRoot.getElementById("console-input");
        input.classList.add("no-match");
        return getComputedStyle(input).animationName;
      });
      assert.equal(animation, reducedMotion === "reduce" ? "none" : "no-match");
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});

test("a lab widget plays the lab: its seed, start time and views, the clock paused, steps run in the console", async () => {
  const lab = JSON.parse(await readFile(path.join(REPO_ROOT, "www/labs/data/leaderboard.json"), "utf8"));
  const { page, context, errors } = await widgetPage(`<redis-playground id="lab" lab="leaderboard"></redis-playground>`, { viewport: { width: 1400, height: 900 } });
  try {
    assert.equal(await started(page, "#lab"), "ready");
    const info = await page.evaluate(() => {
      const host = document.querySelector("#lab");
      const root = host.shadowRoot;
      return {
        title: root.querySelector(".lab-title")?.textContent,
        seed: host.playground.engine.seed,
        now: host.playground.engine.now(),
        paused: host.playground.store.get().paused,
        zset: root.getElementById("zset") !== null,
      };
    });
    assert.deepEqual(info, { title: lab.title, seed: lab.seed, now: lab.startMs, paused: true, zset: lab.views.includes("zset") });
    const step = lab.steps[0];
    await page.click("#lab .lab-run");
    await page.waitForSelector('#lab .lab-player[data-ran="true"]');
    const t = await transcript(page, "#lab");
    const lines = step.lines.filter((l) => typeof l.line === "string");
    assert.deepEqual(t.map((e) => e.typed), lines.map((l) => l.line));
    lines.forEach((l, i) => {
      if (l.expect !== undefined) assert.equal(terminalText(t[i].out).replace(/\n$/, ""), l.expect);
    });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("three lab widgets on one page play their labs independently, start to finish", async () => {
  const ids = ["leaderboard", "lock", "lists"];
  const labs = await Promise.all(ids.map(async (id) => JSON.parse(await readFile(path.join(REPO_ROOT, `www/labs/data/${id}.json`), "utf8"))));
  const body = ids.map((id) => `<redis-playground id="w-${id}" lab="${id}"></redis-playground>`).join("\n");
  const { page, context, errors } = await widgetPage(body, { viewport: { width: 1400, height: 900 } });
  try {
    for (const [k, lab] of labs.entries()) {
      const sel = `#w-${ids[k]}`;
      await page.locator(sel).scrollIntoViewIfNeeded();
      assert.equal(await started(page, sel), "ready");
      // Each widget's engine is its own: the lab's seed and clock.
      const own = await page.evaluate((s) => ({ seed: document.querySelector(s).playground.engine.seed, now: document.querySelector(s).playground.engine.now() }), sel);
      assert.deepEqual(own, { seed: lab.seed, now: lab.startMs });
    }
    // Play the three labs interleaved, step by step: each console prints exactly its lab's expects.
    const steps = Math.max(...labs.map((l) => l.steps.length));
    for (let n = 0; n < steps; n += 1) {
      for (const [k, lab] of labs.entries()) {
        const step = lab.steps[n];
        if (!step) continue;
        const sel = `#w-${ids[k]}`;
        const items = (step.lines ?? []).filter((l) => typeof l.line === "string" && (l.console ?? 0) === 0);
        const before = (await transcript(page, sel)).length;
        if ((step.lines ?? []).length > 0 && step.type !== true) {
          await page.locator(`${sel} .lab-run`).click();
          await page.waitForSelector(`${sel} .lab-player[data-ran="true"]`);
          const t = (await transcript(page, sel)).slice(before);
          assert.deepEqual(t.map((e) => e.typed), items.map((l) => l.line), `${lab.id} step ${n + 1}`);
          items.forEach((l, i) => {
            if (l.expect !== undefined) assert.equal(terminalText(t[i].out).replace(/\r\n/g, "\n").replace(/\r?\n$/, ""), l.expect.replace(/\r\n/g, "\n").replace(/\r$/, ""), `${lab.id} step ${n + 1}: ${l.line}`);
          });
        }
        if (n + 1 < lab.steps.length) await page.locator(`${sel} .lab-next`).click();
      }
    }
    // Three separate keyspaces: only the leaderboard's engine has the board.
    const boards = await Promise.all(
      ids.map((id) => page.evaluate((s) => document.querySelector(s).playground.engine.command(["EXISTS", "board"]).text, `#w-${id}`)),
    );
    assert.deepEqual(boards, ["(integer) 1\n", "(integer) 0\n", "(integer) 0\n"]);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("taken off the page, a widget frees its engine; put back, it starts again; a changed attribute restarts it", async () => {
  const { page, context, errors } = await widgetPage(`<div id="holder"><redis-playground id="w" seed="5" commands="PING"></redis-playground></div>`);
  try {
    assert.equal(await started(page, "#w"), "ready");
    const kept = await page.evaluate(async () => {
      const w = document.querySelector("#w");
      window.moved = { w, engine: w.playground.engine };
      // Moving it (disconnect + connect in one task) keeps it running. disconnectedCallback
      // looks again in a zero-delay timer: one set after it runs after it.
      document.body.append(w);
      await new Promise((r) => setTimeout(r, 0));
      return w.playground !== null && !window.moved.engine.isRecovering();
    });
    await page.evaluate(() => window.moved.w.remove());
    await page.waitForFunction(() => window.moved.w.dataset.state === "idle");
    const freed = await page.evaluate(() => {
      const { w, engine } = window.moved;
      return { freed: engine.isRecovering(), playground: w.playground, state: w.dataset.state };
    });
    assert.deepEqual({ kept, ...freed }, { kept: true, freed: true, playground: null, state: "idle" });
    await page.evaluate(() => document.querySelector("#holder").append(document.createElement("redis-playground")));
    await page.evaluate(() => document.querySelector("#holder redis-playground").setAttribute("id", "again"));
    assert.equal(await started(page, "#again"), "ready");
    await page.evaluate(() => document.querySelector("#again").setAttribute("seed", "77"));
    await page.waitForFunction(() => document.querySelector("#again").playground?.engine.seed === 77);
    assert.match(await page.evaluate(() => document.querySelector("#again").shadowRoot.querySelector(".scrollback").textContent), /seed 77/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("screenshot of a page with widgets (test-results/widget.png)", async () => {
  const { page, context, errors } = await widgetPage(
    `<h1 style="margin: 0 0 8px">Sorted sets</h1>
     <redis-playground id="s1" views="zset" seed="7" autorun paused commands="ZADD board 100 alice 85 bob 120 carol; ZREVRANGE board 0 -1 WITHSCORES"></redis-playground>
     <redis-playground id="s2" read-only autorun height="200" style="--rp-bg: #fdf6e3; --rp-fg: #073642; --rp-accent: #268bd2; --rp-panel: #eee8d5; --rp-border: #d3cbb7; --rp-muted: #657b83; --rp-color-scheme: light" commands="SET greeting hello EX 60; TTL greeting"></redis-playground>`,
    { viewport: { width: 1100, height: 900 } },
  );
  try {
    assert.equal(await started(page, "#s1"), "ready");
    assert.equal(await started(page, "#s2"), "ready");
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForFunction(() => document.querySelector("#s1").shadowRoot.querySelector(".lp-entry") !== null);
    await mkdir(path.join(REPO_ROOT, "test-results"), { recursive: true });
    await page.screenshot({ path: path.join(REPO_ROOT, "test-results", "widget.png"), fullPage: true });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
