// @ts-check
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
//   lang       the language of its words: en or zh-CN (default: the one chosen on the playground's
//              page before, else the browser's). One language per document: the first widget
//              to show sets it for every widget on the page; a later or different `lang` does
//              not change it. Commands, replies and key names are never translated.
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

import { EngineLoadError } from "./engine.js";
import { describeError } from "./format.js";
import { browserLanguages, chooseLanguage, language, setLanguage, storedLanguage, t } from "./i18n.js";
import { el } from "./dom.js";
import { createNotices } from "./notices.js";
import { mountPlayground } from "./playground.js";
import { applyLab, readWidgetConfig, widgetLabel } from "./widget-attributes.js";
import { buildPlayground, createVisibility, problemList, styleNodes, WIDGET_BASE } from "./widget-markup.js";

/** @typedef {import("./playground").PlaygroundParts} PlaygroundParts */
/** @typedef {typeof import("./labs/lab-player")} LabModule */
/** @typedef {import("./labs/lab-player").Lab} Lab */
/** @typedef {"idle" | "waiting" | "starting" | "ready" | "failed"} WidgetState */

/** @type {Promise<void> | null} the document's language, set once (by the first widget to show) */
let languageSet = null;

/**
 * Sets the document's language once, before a widget builds anything: its `lang` attribute,
 * else the one chosen on the playground's page before, else the browser's (www/i18n.js).
 * @param {string | null} requested
 */
function widgetLanguage(requested) {
  languageSet ??= (async () => {
    // setLanguage also sets <html lang>, which is the host page's to say: a widget's language is
    // on its own frame instead (see `lang` on the frames below).
    const root = document.documentElement;
    const hostLang = root.getAttribute("lang");
    try {
      await setLanguage(chooseLanguage({ requested, stored: storedLanguage(), preferred: browserLanguages() }));
    } catch (err) {
      // The table could not be loaded: the widget speaks English.
      console.error("redisplay: the widget's language could not be loaded", err);
    }
    if (hostLang === null) root.removeAttribute("lang");
    else root.setAttribute("lang", hostLang);
  })();
  return languageSet;
}

// The attribute parsing is public API (widget.d.ts).
export { DEFAULT_SEED, DEFAULT_START_MS, MAX_COMMANDS, parseHeight, parseViews, readWidgetConfig, splitCommands, WIDGET_VIEWS } from "./widget-attributes.js";

export class RedisPlaygroundElement extends HTMLElement {
  static get observedAttributes() {
    return ["commands", "views", "seed", "start", "autorun", "read-only", "readonly", "paused", "height", "lab", "label", "lang"];
  }

  /** @type {ShadowRoot | null} */
  #shadow = null;
  /** @type {WidgetState} */
  #state = "idle";
  /** @type {PlaygroundParts | null} */
  #parts = null;
  /** @type {IntersectionObserver | null} */
  #observer = null;
  /** @type {ReturnType<typeof createVisibility> | null} */
  #visibility = null;
  /** @type {((parts: PlaygroundParts | null) => void) | null} */
  #readyResolve = null;
  #generation = 0;
  #restartQueued = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #disconnectTimer = undefined;
  /** @type {ReturnType<LabModule["attachLab"]> | null} */
  #labPlayer = null;
  /** @type {Promise<PlaygroundParts | null>} the playground's parts (null if it could not start) */
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
    if (this.#state === "idle") void this.#prepare();
  }

  /** The language first (it is set once for the document), then the placeholder. */
  async #prepare() {
    const generation = this.#generation;
    await widgetLanguage(this.getAttribute("lang"));
    if (generation !== this.#generation || this.#state !== "idle" || !this.isConnected) return;
    this.#syncLabel();
    this.#showPlaceholder();
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
      this.setAttribute("aria-label", widgetLabel(this.getAttribute("label")));
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
    box.lang = language();
    if (config.height) box.style.height = config.height;
    const head = el("div", "rp-bar");
    const startBtn = el("button", "rp-start", t("Start the playground"));
    startBtn.type = "button";
    head.append(el("span", "rp-title", config.label), el("span", "rp-progress", t("starts when scrolled into view")), startBtn);
    box.append(head);
    if (problems.length > 0) box.append(problemList(problems));
    if (this.hasAttribute("commands") || config.lab !== null) {
      const listing = el("pre", "rp-listing", config.lab !== null ? t("Lab: {title}", { title: config.lab }) : config.commands.join("\n"));
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

  /**
   * @param {string} message
   * @param {HTMLElement} [frame]  the started markup, to show it in
   */
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
    await widgetLanguage(this.getAttribute("lang"));
    if (generation !== this.#generation) return;
    this.#syncLabel();
    const { config, problems } = readWidgetConfig((n) => this.getAttribute(n), this.#preText());

    /** @type {Lab | null} */
    let lab = null;
    /** @type {LabModule | null} */
    let labModule = null;
    if (config.lab !== null) {
      const loaded = await this.#loadLab(config.lab);
      if (generation !== this.#generation) return;
      if (loaded.ok) {
        ({ lab, labModule } = loaded);
        applyLab(config, lab, problems);
      } else {
        problems.push(loaded.error);
      }
    }

    const root = this.#root();
    const ui = buildPlayground(config, { withLab: lab !== null, hasCommands: config.commands.length > 0 });
    ui.frame.lang = language();
    const { nodes, loaded } = styleNodes(lab !== null);
    ui.frame.dataset.loading = "true";
    const boot = el("p", "rp-boot boot-status", t("Loading the engine…"));
    boot.setAttribute("role", "status");
    root.replaceChildren(...nodes, ui.frame);
    const consoleEl = root.getElementById("console");
    consoleEl?.append(boot);
    const notices = createNotices(ui.messages);
    for (const p of problems) notices.show(p, "warning");
    await loaded;
    if (generation !== this.#generation) return;
    delete ui.frame.dataset.loading;

    this.#visibility = createVisibility(this);
    /** @type {PlaygroundParts | undefined} */
    let parts;
    const commands = config.commands;
    let next = 0; // the next command to run
    let ownRun = false;
    const input = () => {
      const field = root.getElementById("console-input");
      return field instanceof HTMLInputElement ? field : null;
    };
    const offerNext = () => {
      const field = input();
      if (field && next < commands.length && field.value === "") field.value = commands[next];
    };
    const showProgress = () => {
      const left = commands.length - next;
      ui.stepBtn.disabled = left === 0;
      ui.runBtn.disabled = left === 0;
      if (commands.length === 0 || lab !== null) ui.progress.textContent = "";
      else if (left === 0) ui.progress.textContent = commands.length === 1 ? t("The command ran") : t("All {n} commands ran", { n: commands.length });
      else {
        const command = commands[next].length > 60 ? `${commands[next].slice(0, 60)}…` : commands[next];
        ui.progress.textContent = t("Next ({n} of {total}): {command}", { n: next + 1, total: commands.length, command });
      }
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
        // A widget shows few views: all made before it starts (none appears later than today).
        preload: ui.panels,
        paused: config.paused,
        readOnly: config.readOnly,
        doc: this.#visibility,
        notify: (text, kind) => notices.show(text, kind),
        welcome: [
          lab !== null
            ? t("redisplay — Redis 7.0 in this page. Lab “{title}”: seed {seed}, the clock paused at its start.", { title: lab.title, seed: config.seed })
            : config.readOnly
              ? t("redisplay — Redis 7.0 in this page (seed {seed}). Read-only: Step or Run all runs the commands.", { seed: config.seed })
              : t("redisplay — Redis 7.0 in this page (seed {seed}).", { seed: config.seed }),
        ],
        onRun: (_result, line, n) => {
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
        err instanceof EngineLoadError
          ? t("The playground could not start. {why}", { why: err.message })
          : t("The playground could not start: {error}.", { error: describeError(err) });
      this.#fail(message, ui.frame);
      return;
    }
    if (generation !== this.#generation) {
      parts.destroy();
      return;
    }
    const mounted = parts;
    this.#parts = mounted;

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
      mounted.consoles.primary.clear();
      mounted.reset();
      next = 0;
      if (lab !== null && labModule !== null && ui.labEl !== null) {
        this.#labPlayer?.destroy();
        this.#labPlayer = labModule.attachLab(ui.labEl, lab, mounted);
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
    root.getElementById("console")?.addEventListener(
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
    if (lab !== null && labModule !== null && ui.labEl !== null) this.#labPlayer = labModule.attachLab(ui.labEl, lab, mounted);
    if (config.autorun) runAll();
    showProgress();
    offerNext();
    this.#setState("ready");
    this.dispatchEvent(new CustomEvent("playground-ready"));
    this.#readyResolve?.(mounted);
  }

  /**
   * The lab player module and the lab: `{ok, lab, labModule}` or `{ok: false, error}`.
   * @param {string} id
   * @returns {Promise<{ok: true, lab: Lab, labModule: LabModule} | {ok: false, error: string}>}
   */
  async #loadLab(id) {
    let labModule;
    try {
      labModule = await import("./labs/lab-player.js");
    } catch (err) {
      return { ok: false, error: t("Labs cannot be played here: the lab player could not be loaded ({error}).", { error: describeError(err) }) };
    }
    // (loadLab reads the single-file build's inline labs itself.)
    const r = await labModule.loadLab(id, WIDGET_BASE ? { baseUrl: new URL("./labs/", WIDGET_BASE) } : {});
    return r.ok ? { ok: true, lab: r.lab, labModule } : { ok: false, error: r.error };
  }
}

if (typeof customElements !== "undefined" && !customElements.get("redis-playground")) {
  customElements.define("redis-playground", RedisPlaygroundElement);
}
