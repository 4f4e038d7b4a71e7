// @ts-check
// <redis-playground>'s attributes → a config and the problems found, for widget.js. Pure: no DOM
// (CSS.supports is asked only when present), nothing here throws — a bad value becomes a sentence
// and the default is used. The attributes themselves are listed at the top of widget.js.

import { number } from "./format.js";
import { resolveLanguage, t } from "./i18n.js";
import { parseSeed, parseStartTime } from "./params.js";

/** @typedef {"console" | "clock" | "keyspace" | "zset" | "expiry" | "eviction" | "delay-queue" | "persistence"} PlaygroundView */

/**
 * What the attributes say, once read (bad values replaced by the defaults).
 * @typedef {object} WidgetConfig
 * @property {number} seed
 * @property {number} startMs
 * @property {PlaygroundView[]} views
 * @property {string[]} commands
 * @property {boolean} autorun
 * @property {boolean} readOnly
 * @property {boolean} paused
 * @property {string | null} height  a CSS length, or null for the widget's own height
 * @property {string | null} lab
 * @property {string} label
 * @property {boolean} seedGiven
 * @property {boolean} startGiven
 * @property {boolean} viewsGiven
 */

/** @type {readonly PlaygroundView[]} the parts a widget can show, in the order they are laid out */
export const WIDGET_VIEWS = Object.freeze(["console", "clock", "keyspace", "zset", "expiry", "eviction", "delay-queue", "persistence"]);

export const DEFAULT_SEED = 1;
export const DEFAULT_START_MS = Date.UTC(2025, 0, 1);
/** Commands one widget takes; the rest are reported, not run. */
export const MAX_COMMANDS = 1000;
/** Characters of one command line kept. */
export const MAX_LINE = 10_000;
/** Characters of a bad value quoted back in a problem. */
const MAX_SHOWN = 40;
/** The widget's accessible name when `label` says none. */
export const DEFAULT_LABEL = "Redis playground";

/**
 * A value quoted for a problem sentence, cut at MAX_SHOWN characters.
 * @param {unknown} value
 */
function quote(value) {
  const text = String(value);
  return JSON.stringify(text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);
}

/**
 * The `label` attribute as the accessible name: trimmed, at most 200 characters, or the default.
 * @param {string | null} text
 */
export function widgetLabel(text) {
  return (text ?? "").trim().slice(0, 200) || t("Redis playground");
}

/**
 * Splits commands into lines: at newlines, and at `;` outside quotes when `semicolons`. Quotes
 * follow redis-cli (a `\` escapes in double quotes; `\'` in single quotes). Blank lines and
 * `#` comments are dropped.
 * @param {string | null | undefined} text
 * @param {{semicolons?: boolean}} [options]
 * @returns {string[]}
 */
export function splitCommands(text, { semicolons = true } = {}) {
  /** @type {string[]} */
  const lines = [];
  let current = "";
  /** @type {string | null} */
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

/**
 * `"console zset"` → `{views: ["console", "zset"], unknown: []}` (commas work too).
 * @param {string | null | undefined} text
 * @returns {{views: PlaygroundView[], unknown: string[]}}
 */
export function parseViews(text) {
  const words = String(text ?? "")
    .split(/[\s,]+/)
    .map((w) => w.trim().toLowerCase())
    .filter(Boolean);
  /** @type {PlaygroundView[]} */
  const views = [];
  /** @type {string[]} */
  const unknown = [];
  for (const w of words) {
    const view = WIDGET_VIEWS.find((v) => v === w);
    if (view !== undefined) {
      if (!views.includes(view)) views.push(view);
    } else if (!unknown.includes(w)) unknown.push(w);
  }
  return { views, unknown };
}

/**
 * Whether the browser takes `value` for `height` (false where there is no CSS object: node).
 * @param {string} value
 */
function cssHeightSupported(value) {
  return typeof CSS !== "undefined" && typeof CSS.supports === "function" && CSS.supports("height", value);
}

/**
 * `"420"` → `"420px"`, `"30rem"` → `"30rem"`; null when it is not a CSS length.
 * @param {string | null | undefined} text
 * @param {(value: string) => boolean} [supports]  asks the browser (tests give their own)
 * @returns {string | null}
 */
export function parseHeight(text, supports = cssHeightSupported) {
  const t = String(text ?? "").trim();
  if (/^\d{1,5}(\.\d+)?$/.test(t)) return `${t}px`;
  if (t.length > 60 || /[;{}<>\\]|url\(/i.test(t)) return null;
  if (supports(t) && !/^(auto|inherit|initial|unset|revert)/.test(t)) return t;
  return null;
}

/**
 * Reads a widget's attributes: `{config, problems}`. `pre` is the text of a child <pre> (or null).
 * Bad values are reported and replaced by the defaults; nothing here throws.
 * @param {(name: string) => string | null} attr
 * @param {string | null} pre
 * @param {{supports?: (value: string) => boolean}} [options]  `supports`: as parseHeight's
 * @returns {{config: WidgetConfig, problems: string[]}}
 */
export function readWidgetConfig(attr, pre, { supports = cssHeightSupported } = {}) {
  /** @param {string} name */
  const has = (name) => attr(name) !== null;
  /** @type {string[]} */
  const problems = [];
  /** @type {WidgetConfig} */
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
    label: widgetLabel(attr("label")),
    seedGiven: false,
    startGiven: false,
    viewsGiven: false,
  };
  if (has("seed")) {
    const r = parseSeed(attr("seed") ?? "");
    if (r.ok) {
      config.seed = r.value;
      config.seedGiven = true;
    } else {
      problems.push(
        t("seed={value} is not a seed: a whole number from 0 to {max}. Seed {seed} is used.", { value: quote(attr("seed")), max: Number.MAX_SAFE_INTEGER, seed: DEFAULT_SEED }),
      );
    }
  }
  if (has("start")) {
    const r = parseStartTime(attr("start") ?? "");
    if (r.ok) {
      config.startMs = r.value;
      config.startGiven = true;
    } else {
      problems.push(
        t("start={value} is not a time: use Unix milliseconds or an ISO date like 2025-01-01T12:00:00Z. The clock starts at {start}.", {
          value: quote(attr("start")),
          start: new Date(DEFAULT_START_MS).toISOString(),
        }),
      );
    }
  }
  if (has("views")) {
    const { views, unknown } = parseViews(attr("views"));
    if (unknown.length > 0) {
      const vars = { names: unknown.map(quote).join(", "), views: WIDGET_VIEWS.join(", ") };
      problems.push(unknown.length === 1 ? t("views: {names} is not a view; the views are {views}.", vars) : t("views: {names} are not views; the views are {views}.", vars));
    }
    if (!views.includes("console")) views.unshift("console");
    config.views = views;
    config.viewsGiven = true;
  }
  withClock(config.views);
  if (has("height")) {
    const h = parseHeight(attr("height"), supports);
    if (h === null) problems.push(t("height={value} is not a CSS length (like 420px or 30rem); the widget keeps its own height.", { value: quote(attr("height")) }));
    config.height = h;
  }
  if (has("lab")) {
    const id = (attr("lab") ?? "").trim();
    if (/^[a-z0-9][a-z0-9-]{0,63}$/.test(id)) config.lab = id;
    else problems.push(t("lab={value} is not a lab name (lower-case letters, digits and dashes).", { value: quote(attr("lab")) }));
  }
  if (has("lang") && resolveLanguage(attr("lang")) === null) {
    problems.push(t("lang={value} is not one of the playground's languages (en, zh-CN): it is not used.", { value: quote(attr("lang")) }));
  }
  let lines = [];
  if (has("commands")) lines = splitCommands(attr("commands"), { semicolons: true });
  else if (pre !== null && config.lab === null) lines = splitCommands(pre, { semicolons: false });
  if (has("commands") && config.lab !== null) {
    problems.push(t("This widget plays a lab: its commands attribute is not used."));
    lines = [];
  }
  if (lines.length > MAX_COMMANDS) {
    problems.push(t("Only the first {max} of the {n} commands are used.", { max: MAX_COMMANDS, n: lines.length }));
    lines = lines.slice(0, MAX_COMMANDS);
  }
  if (lines.some((l) => l.length > MAX_LINE)) {
    problems.push(t("Commands longer than {max} characters are cut.", { max: number(MAX_LINE) }));
    lines = lines.map((l) => l.slice(0, MAX_LINE));
  }
  config.commands = lines;
  return { config, problems };
}

/**
 * Any view but the console brings the clock bar (second, after the console). Changes `views`.
 * @param {PlaygroundView[]} views
 */
function withClock(views) {
  if (views.some((v) => v !== "console") && !views.includes("clock")) views.splice(1, 0, "clock");
  return views;
}

/**
 * A loaded lab takes over: its seed and start time, a paused clock, and its views unless the
 * `views` attribute named some. Changes `config`; adds a problem when seed/start were given.
 * @param {WidgetConfig} config
 * @param {{seed: number, startMs: number, views?: unknown}} lab
 * @param {string[]} problems
 */
export function applyLab(config, lab, problems) {
  config.seed = lab.seed;
  config.startMs = lab.startMs;
  config.paused = true;
  if (!config.viewsGiven && Array.isArray(lab.views)) {
    config.views = withClock(parseViews(["console", ...lab.views].join(" ")).views);
  }
  if (config.seedGiven || config.startGiven) problems.push(t("This widget plays a lab: the lab's own seed and start time are used."));
}
