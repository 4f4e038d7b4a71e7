// @ts-check
// From the text redis-cli prints to what the console shows — pure functions, no DOM.
//
// The engine's `text` is byte-for-byte redis-cli's output, written for a terminal: `\r\n` line
// ends (INFO, help), SGR colour codes in `help <command>` (bold 1, yellow 33, grey 90, reset 0)
// and `\x1b[H\x1b[2J` for `clear`. The console keeps the characters and turns the terminal
// controls into styling:
//   - `\r\n` → `\n`; any other `\r` is dropped (there is no cursor to move back);
//   - SGR sequences become styled segments; other escape sequences are dropped;
//   - other C0 control characters (never produced for user data, which redis-cli quotes)
//     are dropped rather than shown as boxes.
// So the console's visible text equals `text` minus terminal controls — the e2e tests check it.

import { t } from "../i18n.js";

/** Lines one command's output may render; the rest is summarised as "… N more lines". */
export const MAX_RENDERED_LINES = 1000;

/** Characters one command's output may render (a single huge line is as bad as many). */
export const MAX_RENDERED_CHARS = 200_000;

// ESC [ params final-byte (CSI), or ESC followed by one character.
// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal controls are what this module parses
const ESCAPE_SEQUENCE = /\x1b(?:\[([0-9;?]*)([@-~])|[@-_]?)/g;
// C0 controls except \t and \n (ESC is handled above).
// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal controls are what this module parses
const OTHER_CONTROLS = /[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f]/g;

/**
 * Line ends and stray carriage returns as a terminal would show them.
 * @param {string} text
 */
export function normalizeNewlines(text) {
  return text.replace(/\r\n/g, "\n").replace(/\r/g, "");
}

/** @typedef {{text: string, bold: boolean, color: "yellow" | "grey" | null}} Segment */

/**
 * Splits terminal text into styled segments: `[{text, bold, color}]` where color is null,
 * "yellow" (33) or "grey" (90). Unknown escape sequences are removed.
 * @param {string} text
 * @returns {Segment[]}
 */
export function parseSgr(text) {
  /** @type {Segment[]} */
  const segments = [];
  let bold = false;
  /** @type {Segment["color"]} */
  let color = null;
  let last = 0;
  /** @param {string} chunk */
  const push = (chunk) => {
    const clean = chunk.replace(OTHER_CONTROLS, "");
    if (clean === "") return;
    const prev = segments[segments.length - 1];
    if (prev && prev.bold === bold && prev.color === color) prev.text += clean;
    else segments.push({ text: clean, bold, color });
  };
  for (const m of text.matchAll(ESCAPE_SEQUENCE)) {
    push(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[2] !== "m") continue; // not SGR: cursor moves, screen clears…
    const codes = m[1] === "" ? [0] : m[1].split(";").map(Number);
    for (const code of codes) {
      if (code === 0) {
        bold = false;
        color = null;
      } else if (code === 1) bold = true;
      else if (code === 22) bold = false;
      else if (code === 33) color = "yellow";
      else if (code === 90) color = "grey";
      else if (code === 39) color = null;
    }
  }
  push(text.slice(last));
  return segments;
}

/**
 * The visible text of terminal output: what `parseSgr` segments add up to.
 * @param {string} text
 */
export function visibleText(text) {
  return parseSgr(normalizeNewlines(text))
    .map((s) => s.text)
    .join("");
}

/**
 * Cuts long output for rendering: `{text, hiddenLines, hiddenChars}`. `text` keeps whole lines
 * (at most MAX_RENDERED_LINES of them) and at most MAX_RENDERED_CHARS characters.
 * @param {string} text
 * @param {number} [maxLines]
 * @param {number} [maxChars]
 * @returns {{text: string, hiddenLines: number, hiddenChars: number}}
 */
export function capOutput(text, maxLines = MAX_RENDERED_LINES, maxChars = MAX_RENDERED_CHARS) {
  let end = -1;
  let lines = 0;
  // Find the end of line number maxLines without splitting the whole string.
  while (lines < maxLines) {
    const next = text.indexOf("\n", end + 1);
    if (next === -1) {
      end = text.length;
      break;
    }
    end = next;
    lines += 1;
  }
  let kept = end >= text.length ? text : text.slice(0, end + 1);
  let hiddenLines = 0;
  if (kept.length < text.length) {
    const rest = text.slice(kept.length);
    hiddenLines = countLines(rest);
  }
  let hiddenChars = 0;
  if (kept.length > maxChars) {
    hiddenChars = kept.length - maxChars;
    kept = kept.slice(0, maxChars);
  }
  return { text: kept, hiddenLines, hiddenChars };
}

/** @param {string} text */
function countLines(text) {
  if (text === "") return 0;
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n += 1;
  return text.endsWith("\n") ? n : n + 1;
}

/** Lines of a reply a screen reader is given at once; the rest is counted. */
export const ANNOUNCED_LINES = 3;

/** Characters of a reply a screen reader is given at once. */
export const ANNOUNCED_CHARS = 160;

/**
 * What the console's live region says for a reply: its visible text, the first few lines of it,
 * and how many more there are ("… 14 more lines"). Empty for an empty reply.
 * @param {string} text  redis-cli's output (terminal controls and all)
 * @returns {string}
 */
export function announcement(text) {
  const visible = visibleText(text).replace(/\n+$/, "");
  if (visible.trim() === "") return "";
  const lines = visible.split("\n");
  let said = lines.slice(0, ANNOUNCED_LINES).join("\n");
  let cut = said.length < visible.length;
  if (said.length > ANNOUNCED_CHARS) {
    said = `${said.slice(0, ANNOUNCED_CHARS)}…`;
    cut = true;
  }
  const more = lines.length - ANNOUNCED_LINES;
  if (more > 0) return `${said}\n${more === 1 ? t("… 1 more line") : t("… {n} more lines", { n: more })}`;
  return cut && !said.endsWith("…") ? `${said}…` : said;
}
