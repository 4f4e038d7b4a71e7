// @ts-check
// The page's language: English (the source text) or Simplified Chinese (zh-CN).
//
// Strings are looked up by their English text, gettext-style: `t("Play")`, `t("{n} keys", {n})`.
// English needs no table; zh-CN's (www/i18n/zh-cn.js, which gathers www/i18n/zh-cn/*.js) is
// loaded once, before the page or a widget builds anything (`setLanguage`). A text with no
// entry shows in English — tests/unit/i18n.test.mjs fails on any `t("…")` literal in www/ or
// any `data-i18n` text in index.html that has no zh-CN entry, and on entries nothing uses.
//
// Which language: `?lang=` (page) or the widget's `lang` attribute, else the one chosen before
// (localStorage), else the browser's languages (`navigator.languages`), else English.
// Deviation from a per-element design: the language is one per document — widgets on one page
// share the first one set.

/** @typedef {"en" | "zh-CN"} Language */

/** @type {readonly Language[]} */
export const LANGUAGES = ["en", "zh-CN"];

/** Each language's own name, for the switch. */
export const LANGUAGE_NAMES = /** @type {Record<Language, string>} */ ({ en: "English", "zh-CN": "简体中文" });

const STORE_KEY = "redisplay.lang";

/** @type {Language} */
let current = "en";
/** @type {Readonly<Record<string, string>>} */
let table = {};

/**
 * A language tag as one of ours: `zh`, `zh-cn`, `zh-Hans`, `zh-Hans-CN`, `zh-SG` → "zh-CN";
 * `en`, `en-GB` → "en"; anything else (Traditional Chinese included) → null.
 * @param {unknown} tag
 * @returns {Language | null}
 */
export function resolveLanguage(tag) {
  if (typeof tag !== "string" || tag.length > 35) return null;
  const t = tag.trim().toLowerCase().replace(/_/g, "-");
  if (t === "en" || t.startsWith("en-")) return "en";
  if (t === "zh" || t === "zh-cn" || t === "zh-sg" || t === "zh-hans" || t.startsWith("zh-hans-")) return "zh-CN";
  return null;
}

/**
 * The language to use: the first of `requested` (URL or attribute), `stored` (chosen before) and
 * `preferred` (the browser's, in order) that is one of ours; English when none is.
 * @param {{requested?: unknown, stored?: unknown, preferred?: ReadonlyArray<unknown>}} sources
 * @returns {Language}
 */
export function chooseLanguage({ requested = null, stored = null, preferred = [] }) {
  for (const tag of [requested, stored, ...preferred]) {
    const lang = resolveLanguage(tag);
    if (lang) return lang;
  }
  return "en";
}

/** The language chosen before on this browser, or null (storage may be refused). */
export function storedLanguage() {
  try {
    return resolveLanguage(globalThis.localStorage?.getItem(STORE_KEY));
  } catch {
    return null;
  }
}

/**
 * Remembers the language for the next visit (a no-op where storage is refused).
 * @param {Language} lang
 */
export function rememberLanguage(lang) {
  try {
    globalThis.localStorage?.setItem(STORE_KEY, lang);
  } catch {
    // private mode, a sandboxed frame: the choice lasts this page only
  }
}

/** The browser's languages, in its order of preference. */
export function browserLanguages() {
  const nav = globalThis.navigator;
  if (!nav) return [];
  return Array.isArray(nav.languages) && nav.languages.length > 0 ? [...nav.languages] : [nav.language];
}

/**
 * Loads `lang`'s table and makes it the one `t` reads; sets `<html lang>`. English loads nothing.
 * @param {Language} lang
 */
export async function setLanguage(lang) {
  if (lang === "zh-CN") {
    table = (await import("./i18n/zh-cn.js")).ZH_CN;
  } else {
    table = {};
  }
  current = lang;
  if (globalThis.document?.documentElement) globalThis.document.documentElement.lang = lang;
}

/** The language `t` translates into. */
export function language() {
  return current;
}

/**
 * `text` in the current language, with each `{name}` replaced by `vars[name]`.
 * @param {string} text  the English text (a literal, so the test can find it)
 * @param {Record<string, unknown>} [vars]
 */
export function t(text, vars) {
  const s = current === "en" ? text : (table[text] ?? text);
  if (!vars) return s;
  return s.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(vars, name) ? String(vars[name]) : whole));
}

/**
 * Translates the static markup under `root`: each `[data-i18n]` element's text (its English text
 * is the key), and each attribute named in `data-i18n-attr` ("title aria-label placeholder").
 * @param {ParentNode} root
 */
export function translateMarkup(root) {
  if (current === "en") return;
  for (const node of root.querySelectorAll("[data-i18n]")) {
    const key = node.textContent?.trim() ?? "";
    if (key) node.textContent = t(key);
  }
  for (const node of root.querySelectorAll("[data-i18n-attr]")) {
    for (const name of (node.getAttribute("data-i18n-attr") ?? "").split(/\s+/)) {
      const value = name ? node.getAttribute(name) : null;
      if (value) node.setAttribute(name, t(value));
    }
  }
}
