// <redis-playground>: the playground as an element for tutorials and blog posts. One module
// script defines it; every element on the page gets its own engine (its own seed, clock and
// config), its own styles in a shadow root, and starts only when it is scrolled into view.
//
//   <script type="module" src="https://…/www/widget.js"></script>
//   <redis-playground views="console zset" seed="7" start="2025-01-01T12:00:00Z" autorun>
//     <pre>ZADD board 100 alice 85 bob
//   ZREVRANGE board 0 -1 WITHSCORES</pre>
//   </redis-playground>
//
// Attributes (read when the widget starts; changing one later restarts it):
//   commands   redis-cli lines, separated by newlines or `;` (a `;` inside quotes stays); without
//              it, the text of a child <pre> — which stays readable where scripts don't run
//   views      which parts to show: console clock keyspace zset expiry eviction delay-queue
//              (default: console only; any view but the console brings the clock bar)
//   seed       the engine's RNG seed (default 1)            start  ISO time or Unix ms (default 2025-01-01T00:00:00Z)
//   autorun    run the commands at start; otherwise the next one waits in the input: Enter, Step or Run
//   read-only  no typing: the commands run only by Step/Run (or Enter on the one shown)
//   paused     start with the virtual clock paused         height a CSS length (a bare number is px)
//   lab        a lab from www/labs/data/ (its seed, start time, views and steps; the clock paused)
//   label      the region's accessible name (default "Redis playground")
//
// Keyboard: Tab completes a command in the console as in redis-cli, but leaves the console on
// an empty line, on the command the widget offered, or after Escape (no keyboard trap).
//
// Theming: custom properties set on the element or any ancestor reach into the shadow root —
// --rp-bg, --rp-fg, --rp-accent, --rp-font (monospace), --rp-font-sans, --rp-panel,
// --rp-border, --rp-muted, --rp-prompt, --rp-console-bg, --rp-radius (see widget.css).
//
// Nothing an attribute says can throw: a bad value becomes a sentence inside the widget and the
// default is used. Commands and lab text reach the DOM only through textContent.
//
// Script API: `el.ready` (a promise of the playground's parts, or null if it could not start),
// `el.start()` (start now), `el.playground`, and the events "playground-ready" and
// "playground-error" (detail: {message}).

import { parseSeed, parseStartTime } from "./params.js";
import { mountPlayground } from "./playground.js";
import { EngineLoadError } from "./engine.js";
import { createNotices } from "./notices.js";
import { INLINE_ASSETS } from "./assets.js";

/** The parts a widget can show, in the order they are laid out. */
export const WIDGET_VIEWS = Object.freeze(["console", "clock", "keyspace", "zset", "expiry", "eviction", "delay-queue"]);
const PANEL_VIEWS = ["zset", "expiry", "eviction", "delay-queue"];
const PANEL_TITLES = { zset: "Sorted set", expiry: "Expiry", eviction: "Eviction", "delay-queue": "Delay queue" };

export const DEFAULT_SEED = 1;
export const DEFAULT_START_MS = Date.UTC(2025, 0, 1);
/** Commands one widget takes; the rest are reported, not run. */
export const MAX_COMMANDS = 1000;
/** Characters of one command line kept. */
const MAX_LINE = 10_000;
const MAX_SHOWN = 40;

const BASE = INLINE_ASSETS ? null : new URL("./", import.meta.url);
const STYLE_SHEETS = ["style.css", "eviction.css", "labs/lab.css", "widget.css"];

function quote(value) {
  const text = String(value);
  return JSON.stringify(text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function describeError(err) {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

// ---------------------------------------------------------------------------------------------
// Attributes → a config and the problems found (pure)
// ---------------------------------------------------------------------------------------------

/**
 * Splits commands into lines: at newlines, and at `;` outside quotes when `semicolons`. Quotes
 * follow redis-cli (a `\` escapes in double quotes; `\'` in single quotes). Blank lines and
 * `#` comments are dropped.
 */
export function splitCommands(text, { semicolons = true } = {}) {
  const lines = [];
  let current = "";
  let quoteChar = null;
  const src = String(text ?? "").replace(/\r\n?/g, "\n");
  for (let i = 0; i < src.length; i += 1) {
    const c = src[i];
    if (c === "\n") {
      lines.push(current);
      current = "";
      quoteChar = null;
      continue;
    }
    if (quoteChar !== null) {
      if (c === "\\" && i + 1 < src.length && src[i + 1] !== "\n") {
        current += c + src[i + 1];
        i += 1;
        continue;
      }
      if (c === quoteChar) quoteChar = null;
      current += c;
      continue;
    }
    if (c === '"' || c === "'") quoteChar = c;
    if (c === ";" && semicolons) {
      lines.push(current);
      current = "";
      continue;
    }
    current += c;
  }
  lines.push(current);
  return lines.map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"));
}

/** `"console zset"` → `{views: ["console", "zset"], unknown: []}` (commas work too). */
export function parseViews(text) {
  const words = String(text ?? "")
    .split(/[\s,]+/)
    .map((w) => w.trim().toLowerCase())
    .filter(Boolean);
  const views = [];
  const unknown = [];
  for (const w of words) {
    if (WIDGET_VIEWS.includes(w)) {
      if (!views.includes(w)) views.push(w);
    } else if (!unknown.includes(w)) unknown.push(w);
  }
  return { views, unknown };
}

/** `"420"` → `"420px"`, `"30rem"` → `"30rem"`; null when it is not a CSS length. */
export function parseHeight(text) {
  const t = String(text ?? "").trim();
  if (/^\d{1,5}(\.\d+)?$/.test(t)) return `${t}px`;
  if (t.length > 60 || /[;{}<>\\]|url\(/i.test(t)) return null;
  if (typeof CSS !== "undefined" && CSS.supports?.("height", t) && !/^(auto|inherit|initial|unset|revert)/.test(t)) return t;
  return null;
}

/**
 * Reads a widget's attributes: `{config, problems}`. `pre` is the text of a child <pre> (or null).
 * Bad values are reported and replaced by the defaults; nothing here throws.
 */
export function readWidgetConfig(attr, pre) {
  const has = (name) => attr(name) !== null;
  const problems = [];
  const config = {
    seed: DEFAULT_SEED,
    startMs: DEFAULT_START_MS,
    views: ["console"],
    commands: [],
    autorun: has("autorun"),
    readOnly: has("read-only") || has("readonly"),
    paused: has("paused"),
    height: null,
    lab: null,
    label: (attr("label") ?? "").trim().slice(0, 200) || "Redis playground",
    seedGiven: false,
    startGiven: false,
    viewsGiven: false,
  };
  if (has("seed")) {
    const r = parseSeed(attr("seed"));
    if (r.ok) {
      config.seed = r.value;
      config.seedGiven = true;
    } else problems.push(`seed=${quote(attr("seed"))} is not a seed: a whole number from 0 to ${Number.MAX_SAFE_INTEGER}. Seed ${DEFAULT_SEED} is used.`);
  }
  if (has("start")) {
    const r = parseStartTime(attr("start"));
    if (r.ok) {
      config.startMs = r.value;
      config.startGiven = true;
    } else {
      problems.push(
        `start=${quote(attr("start"))} is not a time: use Unix milliseconds or an ISO date like 2025-01-01T12:00:00Z. The clock starts at ${new Date(DEFAULT_START_MS).toISOString()}.`,
      );
    }
  }
  if (has("views")) {
    const { views, unknown } = parseViews(attr("views"));
    if (unknown.length > 0) {
      problems.push(`views: ${unknown.map(quote).join(", ")} ${unknown.length === 1 ? "is not a view" : "are not views"}; the views are ${WIDGET_VIEWS.join(", ")}.`);
    }
    if (!views.includes("console")) views.unshift("console");
    config.views = views;
    config.viewsGiven = true;
  }
  if (config.views.some((v) => v !== "console") && !config.views.includes("clock")) config.views.splice(1, 0, "clock");
  if (has("height")) {
    const h = parseHeight(attr("height"));
    if (h === null) problems.push(`height=${quote(attr("height"))} is not a CSS length (like 420px or 30rem); the widget keeps its own height.`);
    config.height = h;
  }
  if (has("lab")) {
    const id = (attr("lab") ?? "").trim();
    if (/^[a-z0-9][a-z0-9-]{0,63}$/.test(id)) config.lab = id;
    else problems.push(`lab=${quote(attr("lab"))} is not a lab name (lower-case letters, digits and dashes).`);
  }
  let lines = [];
  if (has("commands")) lines = splitCommands(attr("commands"), { semicolons: true });
  else if (pre !== null && config.lab === null) lines = splitCommands(pre, { semicolons: false });
  if (has("commands") && config.lab !== null) {
    problems.push("This widget plays a lab: its commands attribute is not used.");
    lines = [];
  }
  if (lines.length > MAX_COMMANDS) {
    problems.push(`Only the first ${MAX_COMMANDS} of the ${lines.length} commands are used.`);
    lines = lines.slice(0, MAX_COMMANDS);
  }
  if (lines.some((l) => l.length > MAX_LINE)) {
    problems.push(`Commands longer than ${MAX_LINE.toLocaleString("en-US")} characters are cut.`);
    lines = lines.map((l) => l.slice(0, MAX_LINE));
  }
  config.commands = lines;
  return { config, problems };
}

// ---------------------------------------------------------------------------------------------
// The shadow root's markup (createElement only)
// ---------------------------------------------------------------------------------------------

function styleNodes(withLab) {
  const names = STYLE_SHEETS.filter((n) => withLab || n !== "labs/lab.css");
  if (INLINE_ASSETS) {
    return { nodes: names.map((n) => el("style", null, INLINE_ASSETS.css?.[n] ?? "")), loaded: Promise.resolve() };
  }
  const nodes = names.map((n) => {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = new URL(n, BASE).href;
    return link;
  });
  // Shown once styled (a sheet that fails to load is not waited for).
  const loaded = Promise.all(nodes.map((l) => new Promise((resolve) => {
    l.addEventListener("load", resolve, { once: true });
    l.addEventListener("error", resolve, { once: true });
  })));
  return { nodes, loaded };
}

function panelSection(view, withTabs) {
  const section = el("section", `panel ${view}`);
  section.id = view;
  if (withTabs) {
    section.setAttribute("role", "tabpanel");
    section.setAttribute("aria-labelledby", `tab-${view}`);
  } else {
    section.setAttribute("aria-label", PANEL_TITLES[view]);
  }
  return section;
}

/** The started widget's markup: `{frame, bar parts, messages, labEl}`. */
function buildPlayground(config, { withLab, hasCommands }) {
  const frame = el("div", "rp");
  frame.setAttribute("part", "frame");
  if (config.height) frame.style.height = config.height;

  const bar = el("div", "rp-bar");
  const title = el("span", "rp-title", config.label);
  const progress = el("span", "rp-progress");
  progress.setAttribute("role", "status");
  progress.setAttribute("aria-live", "polite");
  const stepBtn = el("button", "rp-step", "Step");
  stepBtn.type = "button";
  stepBtn.title = "Run the next command";
  const runBtn = el("button", "rp-run", "Run all");
  runBtn.type = "button";
  runBtn.title = "Run every command not run yet";
  const resetBtn = el("button", "rp-reset", "Reset");
  resetBtn.type = "button";
  resetBtn.title = "A fresh engine with the same seed and start time; the commands from the top";
  const controls = el("span", "rp-controls");
  controls.append(stepBtn, runBtn, resetBtn);
  if (!hasCommands || withLab) {
    stepBtn.hidden = true;
    runBtn.hidden = true;
  }
  bar.append(title, progress, controls);

  const messages = el("div", "rp-messages notices");
  frame.append(bar, messages);

  if (config.views.includes("clock")) {
    const clock = el("section", "clock rp-clock");
    clock.id = "clock";
    clock.setAttribute("aria-label", "Virtual clock");
    frame.append(clock);
  }

  const workspace = el("div", "rp-workspace");
  let labEl = null;
  if (withLab) {
    labEl = el("section", "lab rp-lab");
    labEl.setAttribute("aria-label", "Lab");
    workspace.classList.add("with-lab");
    workspace.append(labEl);
  }
  const consoleEl = el("div", "console rp-console");
  consoleEl.id = "console";
  consoleEl.setAttribute("role", "region");
  consoleEl.setAttribute("aria-label", "redis-cli console");
  workspace.append(consoleEl);
  if (config.views.includes("keyspace")) {
    const keyspace = el("section", "panel keyspace");
    keyspace.id = "keyspace";
    keyspace.setAttribute("aria-label", "Keyspace");
    workspace.append(keyspace);
    workspace.classList.add("with-keyspace");
  }
  const panels = config.views.filter((v) => PANEL_VIEWS.includes(v));
  if (panels.length > 0) {
    workspace.classList.add("with-views");
    const views = el("div", "views");
    const withTabs = panels.length > 1;
    if (withTabs) {
      const tablist = el("div", "view-tabs");
      tablist.setAttribute("role", "tablist");
      tablist.setAttribute("aria-label", "What the right-hand panel shows");
      tablist.hidden = true;
      panels.forEach((v, i) => {
        const tab = el("button", null, PANEL_TITLES[v]);
        tab.type = "button";
        tab.id = `tab-${v}`;
        tab.dataset.view = v;
        tab.setAttribute("role", "tab");
        tab.setAttribute("aria-controls", v);
        tab.setAttribute("aria-selected", String(i === 0));
        if (i > 0) tab.tabIndex = -1;
        tablist.append(tab);
      });
      views.append(tablist);
    }
    panels.forEach((v, i) => {
      const section = panelSection(v, withTabs);
      if (i > 0) section.hidden = true;
      views.append(section);
    });
    workspace.append(views);
  }
  frame.append(workspace);
  return { frame, progress, stepBtn, runBtn, resetBtn, messages, labEl, panels };
}

// ---------------------------------------------------------------------------------------------
// The element
// ---------------------------------------------------------------------------------------------

/** Says when the widget is out of sight: the loop plays only while it is on screen. */
function createVisibility(host) {
  const target = new EventTarget();
  let inView = true;
  const changed = () => target.dispatchEvent(new Event("visibilitychange"));
  const onDocument = () => changed();
  document.addEventListener("visibilitychange", onDocument);
  let observer = null;
  if (typeof IntersectionObserver === "function") {
    observer = new IntersectionObserver((entries) => {
      const now = entries[entries.length - 1].isIntersecting;
      if (now !== inView) {
        inView = now;
        changed();
      }
    });
    observer.observe(host);
  }
  Object.defineProperty(target, "hidden", { get: () => document.hidden || !inView });
  target.dispose = () => {
    observer?.disconnect();
    document.removeEventListener("visibilitychange", onDocument);
  };
  return target;
}

export class RedisPlaygroundElement extends HTMLElement {
  static get observedAttributes() {
    return ["commands", "views", "seed", "start", "autorun", "read-only", "readonly", "paused", "height", "lab", "label"];
  }

  #shadow = null;
  #state = "idle"; // idle | waiting | starting | ready | failed
  #parts = null;
  #observer = null;
  #visibility = null;
  #readyResolve = null;
  #generation = 0;
  #restartQueued = false;
  #disconnectTimer = null;
  /** The promise of the playground's parts (null if it could not start). */
  ready;

  constructor() {
    super();
    this.ready = new Promise((resolve) => (this.#readyResolve = resolve));
  }

  /** The parts of the running playground (playground.js), or null. */
  get playground() {
    return this.#parts;
  }

  connectedCallback() {
    clearTimeout(this.#disconnectTimer);
    if (!this.hasAttribute("role")) this.setAttribute("role", "region");
    this.#syncLabel();
    if (this.#state === "idle") this.#showPlaceholder();
  }

  disconnectedCallback() {
    // Moving the element fires disconnect then connect: only a real removal frees the engine.
    clearTimeout(this.#disconnectTimer);
    this.#disconnectTimer = setTimeout(() => {
      if (!this.isConnected) this.#teardown();
    }, 0);
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue) return;
    if (name === "label") this.#syncLabel();
    if (this.#state === "ready" || this.#state === "failed" || this.#state === "starting") this.#queueRestart();
    else if (this.#state === "waiting") this.#showPlaceholder();
  }

  /** Starts the playground now instead of when it scrolls into view. */
  start() {
    if (this.#state === "idle" || this.#state === "waiting") this.#boot();
    return this.ready;
  }

  #syncLabel() {
    if (!this.hasAttribute("aria-label") || this.dataset.rpLabel === "auto") {
      this.setAttribute("aria-label", (this.getAttribute("label") ?? "").trim().slice(0, 200) || "Redis playground");
      this.dataset.rpLabel = "auto";
    }
  }

  #root() {
    if (this.#shadow === null) this.#shadow = this.attachShadow({ mode: "open" });
    return this.#shadow;
  }

  #preText() {
    const pre = [...this.children].find((c) => c.localName === "pre");
    return pre ? pre.textContent : null;
  }

  #setState(state) {
    this.#state = state;
    this.dataset.state = state;
  }

  /** Until it is scrolled into view: the commands (or the child <pre>) and a Start button. */
  #showPlaceholder() {
    const root = this.#root();
    const { config, problems } = readWidgetConfig((n) => this.getAttribute(n), this.#preText());
    const { nodes } = styleNodes(false);
    const box = el("div", "rp rp-placeholder");
    box.setAttribute("part", "frame");
    if (config.height) box.style.height = config.height;
    const head = el("div", "rp-bar");
    const startBtn = el("button", "rp-start", "Start the playground");
    startBtn.type = "button";
    head.append(el("span", "rp-title", config.label), el("span", "rp-progress", "starts when scrolled into view"), startBtn);
    box.append(head);
    if (problems.length > 0) box.append(this.#problemList(problems));
    if (this.hasAttribute("commands") || config.lab !== null) {
      const listing = el("pre", "rp-listing", config.lab !== null ? `Lab: ${config.lab}` : config.commands.join("\n"));
      box.append(listing);
    } else {
      const slot = document.createElement("slot");
      slot.className = "rp-listing";
      box.append(slot);
    }
    startBtn.addEventListener("click", () => this.start());
    root.replaceChildren(...nodes, box);
    this.#setState("waiting");
    this.#observe();
  }

  #problemList(problems) {
    const list = el("div", "rp-messages notices");
    for (const p of problems) {
      const item = el("div", "notice notice-warning");
      item.setAttribute("role", "status");
      item.append(el("span", "notice-text", p));
      list.append(item);
    }
    return list;
  }

  #observe() {
    this.#observer?.disconnect();
    if (typeof IntersectionObserver !== "function") {
      queueMicrotask(() => this.start());
      return;
    }
    this.#observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) this.start();
      },
      { rootMargin: "200px 0px" },
    );
    this.#observer.observe(this);
  }

  #queueRestart() {
    if (this.#restartQueued) return;
    this.#restartQueued = true;
    queueMicrotask(() => {
      this.#restartQueued = false;
      if (!this.isConnected) return;
      this.#teardown();
      this.#boot();
    });
  }

  #teardown() {
    this.#generation += 1;
    this.#observer?.disconnect();
    this.#observer = null;
    this.#visibility?.dispose();
    this.#visibility = null;
    this.#labPlayer?.destroy();
    this.#labPlayer = null;
    this.#parts?.destroy();
    this.#parts = null;
    if (this.#state !== "idle") {
      this.#setState("idle");
      this.#readyResolve?.(null);
      this.ready = new Promise((resolve) => (this.#readyResolve = resolve));
    }
  }

  #labPlayer = null;

  #fail(message, frame) {
    const box = frame ?? el("div", "rp");
    const problem = el("p", "rp-failure boot-status boot-error", message);
    problem.setAttribute("role", "alert");
    box.append(problem);
    if (!frame) this.#root().append(box);
    this.#setState("failed");
    this.dispatchEvent(new CustomEvent("playground-error", { detail: { message } }));
    this.#readyResolve?.(null);
  }

  async #boot() {
    this.#observer?.disconnect();
    this.#observer = null;
    const generation = ++this.#generation;
    this.#setState("starting");
    const { config, problems } = readWidgetConfig((n) => this.getAttribute(n), this.#preText());

    let lab = null;
    let labModule = null;
    if (config.lab !== null) {
      const loaded = await this.#loadLab(config.lab);
      if (generation !== this.#generation) return;
      if (loaded.ok) {
        ({ lab, labModule } = loaded);
        config.seed = lab.seed;
        config.startMs = lab.startMs;
        config.paused = true;
        if (!config.viewsGiven && Array.isArray(lab.views)) {
          const { views } = parseViews(["console", ...lab.views].join(" "));
          if (views.some((v) => v !== "console") && !views.includes("clock")) views.splice(1, 0, "clock");
          config.views = views;
        }
        if (config.seedGiven || config.startGiven) problems.push("This widget plays a lab: the lab's own seed and start time are used.");
      } else {
        problems.push(loaded.error);
      }
    }

    const root = this.#root();
    const ui = buildPlayground(config, { withLab: lab !== null, hasCommands: config.commands.length > 0 });
    const { nodes, loaded } = styleNodes(lab !== null);
    ui.frame.dataset.loading = "true";
    const boot = el("p", "rp-boot boot-status", "Loading the engine…");
    boot.setAttribute("role", "status");
    root.replaceChildren(...nodes, ui.frame);
    const consoleEl = root.getElementById("console");
    consoleEl.append(boot);
    const notices = createNotices(ui.messages);
    for (const p of problems) notices.show(p, "warning");
    await loaded;
    if (generation !== this.#generation) return;
    delete ui.frame.dataset.loading;

    this.#visibility = createVisibility(this);
    let parts;
    const commands = config.commands;
    let next = 0; // the next command to run
    let ownRun = false;
    const input = () => root.getElementById("console-input");
    const offerNext = () => {
      const field = input();
      if (field && next < commands.length && field.value === "") field.value = commands[next];
    };
    const showProgress = () => {
      const left = commands.length - next;
      ui.stepBtn.disabled = left === 0;
      ui.runBtn.disabled = left === 0;
      if (commands.length === 0 || lab !== null) ui.progress.textContent = "";
      else if (left === 0) ui.progress.textContent = `${commands.length === 1 ? "The command" : `All ${commands.length} commands`} ran`;
      else ui.progress.textContent = `Next (${next + 1} of ${commands.length}): ${commands[next].length > 60 ? `${commands[next].slice(0, 60)}…` : commands[next]}`;
    };
    const runNext = () => {
      if (next >= commands.length || parts === undefined) return;
      const line = commands[next];
      next += 1;
      const field = input();
      if (field && field.value === line) field.value = "";
      ownRun = true;
      try {
        parts.run(line);
      } finally {
        ownRun = false;
      }
    };
    try {
      parts = await mountPlayground(root, {
        seed: config.seed,
        startMs: config.startMs,
        views: config.views,
        panelView: ui.panels[0] ?? "zset",
        paused: config.paused,
        readOnly: config.readOnly,
        doc: this.#visibility,
        notify: (text, kind) => notices.show(text, kind),
        welcome: [
          lab !== null
            ? `redisplay — Redis 7.0 in this page. Lab "${lab.title}": seed ${config.seed}, the clock paused at its start.`
            : `redisplay — Redis 7.0 in this page (seed ${config.seed}).${config.readOnly ? " Read-only: Step or Run all runs the commands." : ""}`,
        ],
        onRun: (result, line, n) => {
          if (ownRun || n !== 0) return;
          // The learner sent the command that was waiting in the input: offer the next one.
          if (next < commands.length && line.trim() === commands[next]) next += 1;
          showProgress();
          queueMicrotask(offerNext);
        },
      });
    } catch (err) {
      if (generation !== this.#generation) return;
      boot.remove();
      console.error("redisplay: a <redis-playground> could not start", err);
      const message =
        err instanceof EngineLoadError ? `The playground could not start. ${err.message}` : `The playground could not start: ${describeError(err)}.`;
      this.#fail(message, ui.frame);
      return;
    }
    if (generation !== this.#generation) {
      parts.destroy();
      return;
    }
    this.#parts = parts;

    const runAll = () => {
      while (next < commands.length) runNext();
      showProgress();
    };
    ui.stepBtn.addEventListener("click", () => {
      runNext();
      showProgress();
      offerNext();
    });
    ui.runBtn.addEventListener("click", runAll);
    ui.resetBtn.addEventListener("click", () => {
      parts.consoles.primary.clear();
      parts.reset();
      next = 0;
      if (lab !== null) {
        this.#labPlayer?.destroy();
        this.#labPlayer = this.#startLab(labModule, lab, ui.labEl, parts);
      }
      const field = input();
      if (field) field.value = "";
      if (config.autorun) runAll();
      showProgress();
      offerNext();
    });

    // No keyboard trap: Tab completes in the console, except on an empty line, on the command
    // the widget offered, or right after Escape — then it moves on, as anywhere on the page.
    let escaped = false;
    root.getElementById("console").addEventListener(
      "keydown",
      (event) => {
        if (!(event.target instanceof HTMLInputElement) || !event.target.classList.contains("cmdline")) return;
        if (event.key === "Escape") {
          escaped = true;
          return;
        }
        if (event.key === "Tab" && (escaped || event.target.value === "" || event.target.value === commands[next])) event.stopPropagation();
        if (event.key !== "Shift") escaped = false;
      },
      true,
    );
    if (lab !== null) this.#labPlayer = this.#startLab(labModule, lab, ui.labEl, parts);
    if (config.autorun) runAll();
    showProgress();
    offerNext();
    this.#setState("ready");
    this.dispatchEvent(new CustomEvent("playground-ready"));
    this.#readyResolve?.(parts);
  }

  /** The lab player module and the lab: `{ok, lab, labModule}` or `{ok: false, error}`. */
  async #loadLab(id) {
    let labModule;
    try {
      labModule = await import("./labs/lab-player.js");
    } catch (err) {
      return { ok: false, error: `Labs cannot be played here: the lab player could not be loaded (${describeError(err)}).` };
    }
    // (loadLab reads the single-file build's inline labs itself.)
    const r = await labModule.loadLab(id, BASE ? { baseUrl: new URL("./labs/", BASE) } : {});
    return r.ok ? { ok: true, lab: r.lab, labModule } : { ok: false, error: r.error };
  }

  #startLab(labModule, lab, labEl, parts) {
    return labModule.attachLab(labEl, lab, parts);
  }
}

if (typeof customElements !== "undefined" && !customElements.get("redis-playground")) {
  customElements.define("redis-playground", RedisPlaygroundElement);
}
