// @ts-check
// Tab completion from the engine's command table, modelled on redis-cli.c
// `completionCallback()`: the whole line typed so far is matched, case-insensitively, against
// the start of every command's full name ("GET", "CONFIG GET"); after "help " command groups
// ("@string") are offered too. Candidates come back in upper case, as redis-cli shows them.
// Pure — no DOM.

import { t } from "../i18n.js";

/**
 * One thing Tab can complete to: a command's full name, or (after "help ") a group.
 * @typedef {object} CompletionEntry
 * @property {string} full     as shown: "CONFIG GET", "@string"
 * @property {string} match    `full` in upper case, for case-blind matching
 * @property {string} summary
 * @property {"command" | "group"} kind
 */

/**
 * `[{name, summary, group}]` from engine.commands() → sorted completion entries.
 * @param {ReadonlyArray<{name: string, summary: string, group?: string}>} commands
 * @returns {CompletionEntry[]}
 */
export function buildCompletionEntries(commands) {
  /** @type {CompletionEntry[]} */
  const entries = [];
  /** @type {Set<string>} */
  const groups = new Set();
  for (const c of commands) {
    const full = c.name.split("|").join(" ").toUpperCase();
    entries.push({ full, match: full, summary: c.summary, kind: "command" });
    if (c.group) groups.add(c.group);
  }
  for (const g of groups) {
    entries.push({ full: `@${g}`, match: `@${g}`.toUpperCase(), summary: t("commands in the {group} group", { group: g }), kind: "group" });
  }
  entries.sort((a, b) => (a.full < b.full ? -1 : a.full > b.full ? 1 : 0));
  return entries;
}

/**
 * Completions for `line`: `[{line, full, summary}]` where `line` is the whole new input.
 * Leading spaces are ignored as redis-cli's tokenizer would.
 * @param {ReadonlyArray<CompletionEntry>} entries
 * @param {string} line
 * @returns {Array<{line: string, full: string, summary: string}>}
 */
export function complete(entries, line) {
  let head = "";
  let typed = line.replace(/^\s+/, "");
  /** @type {Array<CompletionEntry["kind"]>} */
  let kinds = ["command"];
  const help = /^help\s+/i.exec(typed);
  if (help) {
    head = help[0];
    typed = typed.slice(head.length);
    kinds = ["command", "group"];
  }
  if (typed === "" && !help) return [];
  const prefix = typed.toUpperCase();
  return entries
    .filter((e) => kinds.includes(e.kind) && e.match.startsWith(prefix))
    .map((e) => ({ line: head + e.full, full: e.full, summary: e.summary }));
}
