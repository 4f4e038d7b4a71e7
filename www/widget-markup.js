// @ts-check
// <redis-playground>'s shadow-root markup, for widget.js: the style sheets, the frame with its
// bar (title, progress, Step / Run all / Reset), the clock, the console, the keyspace and the
// panels (with tabs when there are several), and the visibility the loop plays by. Built with
// createElement only; the label and problems reach it as text.

import { INLINE_ASSETS } from "./assets.js";
import { el } from "./dom.js";
import { t } from "./i18n.js";

/** @typedef {import("./widget-attributes.js").WidgetConfig} WidgetConfig */
/** @typedef {import("./widget-attributes.js").PlaygroundView} PlaygroundView */

/** @type {readonly PlaygroundView[]} the views that go in the right-hand panel */
const PANEL_VIEWS = ["zset", "expiry", "eviction", "delay-queue", "persistence"];
/** The tabs' names, in the page's language (a function: t() reads the language set after load). */
const panelTitles = () =>
  /** @type {Record<string, string>} */ ({
    zset: t("Sorted set"),
    expiry: t("Expiry"),
    eviction: t("Eviction"),
    "delay-queue": t("Delay queue"),
    persistence: t("Persistence"),
  });

/** Where the widget's files are (its style sheets, labs and engine), or null when inline. */
export const WIDGET_BASE = INLINE_ASSETS ? null : new URL("./", import.meta.url);
const STYLE_SHEETS = ["style.css", "eviction.css", "labs/lab.css", "widget.css"];

/**
 * The widget's style sheets (`<style>` inline, else `<link>`s) and when they have loaded.
 * @param {boolean} withLab  the lab player's sheet too
 * @returns {{nodes: HTMLElement[], loaded: Promise<unknown>}}
 */
export function styleNodes(withLab) {
  const names = STYLE_SHEETS.filter((n) => withLab || n !== "labs/lab.css");
  const inline = INLINE_ASSETS;
  if (inline) {
    return { nodes: names.map((n) => el("style", null, inline.css?.[n] ?? "")), loaded: Promise.resolve() };
  }
  const nodes = names.map((n) => {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = new URL(n, /** @type {URL} */ (WIDGET_BASE)).href;
    return link;
  });
  // Shown once styled (a sheet that fails to load is not waited for).
  const loaded = Promise.all(nodes.map((l) => new Promise((resolve) => {
    l.addEventListener("load", resolve, { once: true });
    l.addEventListener("error", resolve, { once: true });
  })));
  return { nodes, loaded };
}

/**
 * @param {PlaygroundView} view
 * @param {boolean} withTabs
 */
function panelSection(view, withTabs) {
  const section = el("section", `panel ${view}`);
  section.id = view;
  if (withTabs) {
    section.setAttribute("role", "tabpanel");
    section.setAttribute("aria-labelledby", `tab-${view}`);
  } else {
    section.setAttribute("aria-label", panelTitles()[view]);
  }
  return section;
}

/**
 * The started widget's markup: `{frame, bar parts, messages, labEl, panels}`.
 * @param {WidgetConfig} config
 * @param {{withLab: boolean, hasCommands: boolean}} options
 */
export function buildPlayground(config, { withLab, hasCommands }) {
  const frame = el("div", "rp");
  frame.setAttribute("part", "frame");
  if (config.height) frame.style.height = config.height;

  const bar = el("div", "rp-bar");
  const title = el("span", "rp-title", config.label);
  const progress = el("span", "rp-progress");
  progress.setAttribute("role", "status");
  progress.setAttribute("aria-live", "polite");
  const stepBtn = el("button", "rp-step", t("Step"));
  stepBtn.type = "button";
  stepBtn.title = t("Run the next command");
  const runBtn = el("button", "rp-run", t("Run all"));
  runBtn.type = "button";
  runBtn.title = t("Run every command not run yet");
  const resetBtn = el("button", "rp-reset", t("Reset"));
  resetBtn.type = "button";
  resetBtn.title = t("A fresh engine with the same seed and start time; the commands from the top");
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
    clock.setAttribute("aria-label", t("Virtual clock"));
    frame.append(clock);
  }

  const workspace = el("div", "rp-workspace");
  /** @type {HTMLElement | null} */
  let labEl = null;
  if (withLab) {
    labEl = el("section", "lab rp-lab");
    labEl.setAttribute("aria-label", t("Lab"));
    workspace.classList.add("with-lab");
    workspace.append(labEl);
  }
  const consoleEl = el("div", "console rp-console");
  consoleEl.id = "console";
  consoleEl.setAttribute("role", "region");
  consoleEl.setAttribute("aria-label", t("redis-cli console"));
  workspace.append(consoleEl);
  if (config.views.includes("keyspace")) {
    const keyspace = el("section", "panel keyspace");
    keyspace.id = "keyspace";
    keyspace.setAttribute("aria-label", t("Keyspace"));
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
      tablist.setAttribute("aria-label", t("What the right-hand panel shows"));
      tablist.hidden = true;
      const titles = panelTitles();
      panels.forEach((v, i) => {
        const tab = el("button", null, titles[v]);
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

/**
 * Problems with the attributes, as warnings.
 * @param {string[]} problems
 */
export function problemList(problems) {
  const list = el("div", "rp-messages notices");
  for (const p of problems) {
    const item = el("div", "notice notice-warning");
    item.setAttribute("role", "status");
    item.append(el("span", "notice-text", p));
    list.append(item);
  }
  return list;
}

/**
 * Says when the widget is out of sight: the loop plays only while it is on screen. A
 * "visibilitychange" EventTarget with `hidden`, like `document`.
 * @param {Element} host
 * @returns {EventTarget & {readonly hidden: boolean, dispose(): void}}
 */
export function createVisibility(host) {
  const target = new EventTarget();
  let inView = true;
  const changed = () => target.dispatchEvent(new Event("visibilitychange"));
  const onDocument = () => changed();
  document.addEventListener("visibilitychange", onDocument);
  /** @type {IntersectionObserver | null} */
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
  return Object.assign(/** @type {EventTarget & {readonly hidden: boolean}} */ (target), {
    dispose() {
      observer?.disconnect();
      document.removeEventListener("visibilitychange", onDocument);
    },
  });
}
