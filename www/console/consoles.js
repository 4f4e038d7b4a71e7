// @ts-check
// The console area: one redis-cli console, and on demand a second one beside it — another
// client of the same engine — so a learner can race two clients by hand (WATCH, BLPOP against
// RPUSH, SUBSCRIBE against PUBLISH, a key's `expired` event arriving when it is reclaimed).
//
// Each console is a console-view.js; this module owns the engine calls for them: running a
// line on console n, redis-cli's hint for what is typed there, the `--raw` switch of each, and
// polling every console for what arrives without input (messages, a blocked command's late
// reply) after any line and on every frame. One job runner (jobs.js) is shared by the consoles:
// pastes, a link's commands and a session's replay run through it in slices, one after another,
// each showing its progress in the console it types into.

import { el } from "../dom.js";
import { t } from "../i18n.js";
import { createConsole } from "./console-view.js";
import { createJobRunner } from "./jobs.js";

/** @typedef {ReturnType<typeof createConsole>} ConsoleView */

/** Consoles shown at most: three clients race by hand side by side (a lock's owner, a second
 * client and a third that takes the lock the first deleted by mistake). */
export const MAX_CONSOLES = 3;

/**
 * Where each console's `--raw` choice is remembered (the page: localStorage), or null.
 * @typedef {{get(key: string): string | null, set(key: string, value: string): void}} PrefsStorage
 */

/**
 * @param {HTMLElement} root  the console area (emptied)
 * @param {object} options
 * @param {Pick<import("../engine").Engine, "consoleClient" | "poll" | "executeOn" | "promptOf" | "interrupt" | "openConsole" | "closeConsole"> & Partial<Pick<import("../engine").Engine, "hintOf" | "setRaw" | "openConsoleOn" | "consoleServer">>} options.engine  the engine API (engine.js)
 * @param {import("./completion").CompletionEntry[]} options.completions    from buildCompletionEntries
 * @param {string[]} options.welcome     lines the first console prints first
 * @param {(result: import("../engine/plain").LineResult, line: string, n: number) => void} [options.onRun]  after each line
 * @param {PrefsStorage | null} [options.storage]  remembers each console's raw switch
 */
export function createConsoles(root, { engine, completions, welcome, onRun = () => {}, storage = null }) {
  root.replaceChildren();
  root.classList.add("consoles");
  const bar = el("div", "console-bar");
  const addButton = el("button", "console-add", t("+ Another client"));
  addButton.type = "button";
  addButton.title = t("Open another redis-cli: a second client of the same engine, side by side");
  const replicaButton = el("button", "console-add-replica", t("+ Replica"));
  replicaButton.type = "button";
  replicaButton.title = t("Open redis-cli on the page's second server (127.0.0.1:6380) with REPLICAOF 127.0.0.1 6379 typed, ready to send: it becomes a replica of this one");
  const closeButton = el("button", "console-close", t("Close the last client"));
  closeButton.type = "button";
  closeButton.hidden = true;
  bar.append(el("span", "console-bar-title", "redis-cli"), addButton, replicaButton, closeButton);
  const panes = el("div", "console-panes");
  root.append(bar, panes);

  /** @type {Array<{view: ConsoleView, pane: HTMLElement, label: HTMLElement, rawSwitch: HTMLButtonElement}>} */
  const consoles = [];

  // Many lines in slices, one job after another; each shows its progress in its own console
  // (a job for every console — a replay — in the first).
  const jobs = createJobRunner({
    onProgress(p) {
      consoles.forEach((c, n) => {
        c.view.showProgress(p !== null && (p.console ?? 0) === n ? p : null);
      });
    },
  });

  /** Each console's `--raw` switch: remembered per console number. */
  const rawKey = (/** @type {number} */ n) => `redisplay.console.${n + 1}.raw`;
  /** @param {number} n */
  function rememberedRaw(n) {
    try {
      return storage?.get(rawKey(n)) === "1";
    } catch {
      return false;
    }
  }
  /**
   * @param {number} n
   * @param {boolean} raw
   */
  function setRaw(n, raw) {
    const c = consoles[n];
    engine.setRaw?.(n, raw);
    if (c) c.rawSwitch.setAttribute("aria-pressed", String(raw));
    try {
      storage?.set(rawKey(n), raw ? "1" : "0");
    } catch {
      // Storage refused (a private window): the choice lasts for this page.
    }
  }

  /** The server console `n` talks to (0: 127.0.0.1:6379, 1: the second server). */
  const serverOf = (/** @type {number} */ n) => engine.consoleServer?.(n) ?? 0;
  /**
   * @param {number} n
   * @param {number} [client]
   */
  function labelText(n, client = engine.consoleClient(n)) {
    return serverOf(n) === 1
      ? t("console {n} · 127.0.0.1:6380 · client {id}", { n: n + 1, id: client })
      : t("console {n} · client {id}", { n: n + 1, id: client });
  }

  /** @type {Set<(n: number, text: string) => void>} who wants to know what a console printed without input (the lab player) */
  const receiveListeners = new Set();

  function pollAll() {
    consoles.forEach((c, n) => {
      const p = engine.poll(n);
      if (p.text !== "") {
        c.view.receive(p.text);
        for (const fn of receiveListeners) fn(n, p.text);
      }
      c.view.setState(p);
      const text = labelText(n, p.client);
      if (c.label.textContent !== text) c.label.textContent = text;
    });
  }

  /**
   * @param {number} n
   * @param {string[]} lines  printed first
   */
  function mount(n, lines) {
    const pane = el("div", "console-pane");
    pane.dataset.console = String(n);
    pane.dataset.server = String(serverOf(n));
    const head = el("div", "console-pane-label");
    const label = el("span", "console-pane-client", labelText(n));
    // `redis-cli --raw`: replies printed as they are (北京, not "\xe5\x8c\x97…").
    const rawSwitch = el("button", "console-raw", "--raw");
    rawSwitch.type = "button";
    rawSwitch.title = t("Print replies as redis-cli --raw does: strings as they are (北京, not \"\\xe5\\x8c\\x97…\"), one element per line, no (integer) or (nil)");
    rawSwitch.setAttribute("aria-label", n > 0 ? t("Raw output (redis-cli --raw), console {n}", { n: n + 1 }) : t("Raw output (redis-cli --raw)"));
    rawSwitch.setAttribute("aria-pressed", "false");
    head.append(label, rawSwitch);
    const body = el("div", "console-pane-body");
    pane.append(head, body);
    panes.append(pane);
    const view = createConsole(body, {
      run(line) {
        const result = engine.executeOn(n, line);
        onRun(result, line, n);
        // Another console may have received something (PUBLISH, RPUSH for a BLPOP…).
        queueMicrotask(pollAll);
        return result;
      },
      completions,
      prompt: engine.promptOf(n),
      welcome: lines,
      inputId: n === 0 ? "console-input" : `console-input-${n + 1}`,
      inputLabel: n === 0 ? t("redis-cli command") : t("redis-cli command, console {n}", { n: n + 1 }),
      hint: (line) => engine.hintOf?.(n, line) ?? null,
      jobs,
      index: n,
      interrupt() {
        const prompt = engine.interrupt(n);
        label.textContent = labelText(n);
        return {
          prompt,
          note: t("(redisplay) redis-cli would exit on Ctrl-C, closing its connection; this console reconnected as {client}.", { client: labelText(n) }),
        };
      },
    });
    consoles[n] = { view, pane, label, rawSwitch };
    rawSwitch.addEventListener("click", () => {
      setRaw(n, rawSwitch.getAttribute("aria-pressed") !== "true");
      view.focus();
    });
    if (rememberedRaw(n)) setRaw(n, true);
    return view;
  }

  function syncButtons() {
    addButton.hidden = consoles.length >= MAX_CONSOLES;
    replicaButton.hidden = consoles.length >= MAX_CONSOLES || typeof engine.openConsoleOn !== "function";
    closeButton.hidden = consoles.length < 2;
    root.dataset.consoles = String(consoles.length);
  }

  /**
   * Opens a console: on the first server (another client), or on the second (server 1).
   * @param {number} [server]
   */
  function open(server = 0) {
    if (consoles.length >= MAX_CONSOLES) return null;
    const n = server === 1 && engine.openConsoleOn ? engine.openConsoleOn(1) : engine.openConsole();
    if (n !== consoles.length) return null;
    const welcomeText =
      server === 1
        ? [
            t("redis-cli connected to the page's second server, 127.0.0.1:6380 (its own keyspace, clock shared)."),
            t("REPLICAOF 127.0.0.1 6379 makes it a replica of the first; the Persistence view's Replica lane shows the link."),
          ]
        : [t("Another redis-cli (console {n}, client {id}) on the same engine. Try SUBSCRIBE here and PUBLISH in console 1.", { n: n + 1, id: engine.consoleClient(n) })];
    const view = mount(n, welcomeText);
    syncButtons();
    view.focus();
    return view;
  }

  function close() {
    if (consoles.length < 2) return;
    // Its pasted lines go with it.
    jobs.cancel(consoles.length - 1);
    engine.closeConsole();
    consoles.pop()?.pane.remove();
    syncButtons();
    consoles[0].view.focus();
  }

  addButton.addEventListener("click", () => open());
  replicaButton.addEventListener("click", () => {
    const view = open(1);
    // Typed, not sent: the learner sees the command that makes a replica and sends it.
    if (view && !consoles.slice(0, -1).some((_, i) => serverOf(i) === 1)) view.type("REPLICAOF 127.0.0.1 6379");
  });
  closeButton.addEventListener("click", () => close());

  const primary = mount(0, welcome);
  syncButtons();

  return {
    primary,
    open,
    close,
    pollAll,
    count: () => consoles.length,
    /**
     * Opens consoles until console `n` exists (a lab step on the second client), the last on
     * `server`; false if it can't, or console `n` is on the other server.
     * @param {number} n
     * @param {number} [server]
     */
    ensure(n, server = undefined) {
      while (consoles.length <= n) {
        if (open(consoles.length === n ? (server ?? 0) : 0) === null) return false;
      }
      return server === undefined || serverOf(n) === server;
    },
    /**
     * Runs a line on console `n` as if typed there; its result (`{text, …}`), or null.
     * @param {number} n
     * @param {string} line
     */
    submitOn(n, line) {
      return consoles[n]?.view.submit(line) ?? null;
    },
    /**
     * Calls `fn(n, text)` whenever console `n` prints something that arrived without input.
     * @param {(n: number, text: string) => void} fn
     */
    onReceive(fn) {
      receiveListeners.add(fn);
      return () => receiveListeners.delete(fn);
    },
    /**
     * Types a line into console `n`'s input for the learner to send.
     * @param {number} n
     * @param {string} line
     */
    typeOn(n, line) {
      consoles[n]?.view.type(line);
    },
    /**
     * The console view of console `n`.
     * @param {number} n
     */
    viewOf: (n) => consoles[n]?.view ?? null,
    /** A recreated engine has only its first client: drop the other panes. */
    engineRecreated() {
      while (consoles.length > 1) {
        jobs.cancel(consoles.length - 1);
        consoles.pop()?.pane.remove();
      }
      syncButtons();
      consoles[0].label.textContent = labelText(0);
      consoles[0].view.setState({ prompt: engine.promptOf(0), blocked: false, subscribed: false });
      // The new engine's consoles print as the switch says.
      engine.setRaw?.(0, consoles[0].rawSwitch.getAttribute("aria-pressed") === "true");
    },
    /**
     * Runs lines on console `n` one after another in slices, with progress (a link's
     * commands); resolves "done" or "cancelled".
     * @param {number} n
     * @param {string[]} lines
     * @param {string} label  what they are ("lines from the link")
     */
    runLines(n, lines, label) {
      const view = consoles[n]?.view;
      return view ? view.runLines(lines, label) : Promise.resolve("cancelled");
    },
    /**
     * Runs a job for every console (a session's replay) in slices, after what is queued; its
     * progress shows in the first console, and lines typed meanwhile wait for it.
     * @param {Omit<import("./jobs").Job, "console">} job
     */
    runJob: (job) => jobs.add({ ...job, console: undefined }),
    /** Lines or a replay are running (or queued). */
    busy: () => jobs.busy(),
    /**
     * Whether console `n` prints as `redis-cli --raw`; `setRaw(n, on)` switches it.
     * @param {number} n
     */
    rawOf: (n) => consoles[n]?.rawSwitch.getAttribute("aria-pressed") === "true",
    setRaw,
    /** The loop's view interface: poll once per frame (time may have released or delivered). */
    update() {
      pollAll();
      return false;
    },
    draw() {},
  };
}
