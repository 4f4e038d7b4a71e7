// @ts-check
// The redis-cli-like console: a scrollback of `prompt + line` echoes and outputs, and an input
// line with the engine's prompt, history (ArrowUp/ArrowDown) and Tab completion.
//
// It never talks to the engine itself: `run(line)` (given by consoles.js) executes a line and
// returns `{text, prompt, reply, quit, clear, blocked, subscribed}`. Like redis-cli, a console
// whose command blocked (BLPOP…) waits for the reply, and one that subscribed only prints
// messages; `receive(text)` prints what arrives later and Ctrl-C (`interrupt`) gives up, as
// quitting redis-cli would. Everything shown is built with createElement and textContent — key
// names and values are user data.

import { el } from "../dom.js";
import { number } from "../format.js";
import { complete } from "./completion.js";
import { createHistory } from "./history.js";
import { capOutput, normalizeNewlines, parseSgr } from "./output-text.js";

/** @typedef {import("../engine/plain").LineResult} LineResult */
/** @typedef {import("./completion").CompletionEntry} CompletionEntry */

/** Entries kept in the scrollback; older ones are removed so the page stays light. */
export const MAX_ENTRIES = 500;

/** Lines of one multi-line paste that are run; the rest is reported, not run. */
export const MAX_PASTED_LINES = 1000;

/** Candidates listed under the input at once. */
const MAX_LISTED_COMPLETIONS = 40;

const WAITING_NOTE = "waiting for the reply — another client can serve it; Ctrl-C stops waiting";
const SUBSCRIBED_NOTE = "reading messages — Ctrl-C quits subscribe mode";

const QUIT_NOTE =
  "(redisplay) redis-cli would exit here. The playground keeps running: type another command, or reload the page for a new engine.";

/**
 * Terminal text → a <pre> of styled spans (bold, yellow, grey), plus a note when cut.
 * @param {string} text
 * @param {boolean} isError
 * @returns {HTMLElement[]}
 */
function renderOutput(text, isError) {
  const capped = capOutput(normalizeNewlines(text));
  const pre = el("pre", isError ? "out is-error" : "out");
  for (const seg of parseSgr(capped.text)) {
    if (!seg.bold && seg.color === null) {
      pre.append(document.createTextNode(seg.text));
    } else {
      const span = el("span", [seg.bold ? "sgr-bold" : "", seg.color ? `sgr-${seg.color}` : ""].join(" ").trim(), seg.text);
      pre.append(span);
    }
  }
  /** @type {HTMLElement[]} */
  const nodes = [pre];
  if (capped.hiddenLines > 0 || capped.hiddenChars > 0) {
    const parts = [];
    if (capped.hiddenLines > 0) parts.push(`${number(capped.hiddenLines)} more lines`);
    if (capped.hiddenChars > 0) parts.push(`${number(capped.hiddenChars)} more characters`);
    nodes.push(el("div", "more", `… ${parts.join(" and ")} not shown (the page shows at most the first part of long outputs)`));
  }
  return nodes;
}

/**
 * @param {HTMLElement} root    the console's container (emptied)
 * @param {object} options
 * @param {(line: string) => LineResult} options.run
 * @param {CompletionEntry[]} options.completions  from buildCompletionEntries
 * @param {string} options.prompt   the prompt to start with
 * @param {string[]} [options.welcome]  lines printed first
 * @param {string} [options.inputId]  the input's element id (unique per console)
 * @param {(() => {prompt: string, note: string}) | null} [options.interrupt]  Ctrl-C while waiting or
 *        subscribed: closes the connection and reconnects; returns the new prompt and a note
 */
export function createConsole(root, { run, completions, prompt, welcome = [], inputId = "console-input", interrupt = null }) {
  const history = createHistory();
  /** @type {{original: string, candidates: ReturnType<typeof complete>, index: number} | null} while Tab-cycling */
  let completion = null;
  /** @type {"ready" | "blocked" | "subscribed"} */
  let mode = "ready";

  root.replaceChildren();
  const terminal = el("div", "terminal");
  const scrollback = el("div", "scrollback");
  scrollback.setAttribute("role", "log");
  scrollback.setAttribute("aria-label", "Console output");

  const inputLine = el("div", "input-line");
  const promptEl = el("label", "prompt", prompt);
  promptEl.htmlFor = inputId;
  const input = el("input", "cmdline");
  input.id = inputId;
  input.type = "text";
  input.autocomplete = "off";
  input.spellcheck = false;
  input.setAttribute("autocapitalize", "off");
  input.setAttribute("autocorrect", "off");
  input.setAttribute("aria-label", "Command");
  const completionsId = inputId === "console-input" ? "console-completions" : `${inputId}-completions`;
  input.setAttribute("aria-describedby", completionsId);
  const statusEl = el("div", "console-status");
  statusEl.hidden = true;
  statusEl.setAttribute("role", "status");
  inputLine.append(promptEl, input);

  const completionsEl = el("div", "completions");
  completionsEl.id = completionsId;
  completionsEl.setAttribute("aria-live", "polite");
  completionsEl.hidden = true;

  terminal.append(scrollback, statusEl, inputLine, completionsEl);
  root.append(terminal);

  // -------------------------------------------------------------------------------------------
  // Scrollback
  // -------------------------------------------------------------------------------------------

  function scrollToEnd() {
    terminal.scrollTop = terminal.scrollHeight;
  }

  function appendEntry(entry) {
    scrollback.append(entry);
    while (scrollback.childElementCount > MAX_ENTRIES) scrollback.firstElementChild?.remove();
  }

  function echo(promptText, line) {
    const row = el("div", "echo");
    row.append(el("span", "prompt", promptText), el("span", "typed", line));
    return row;
  }

  function printNote(text, kind = "note") {
    const entry = el("div", `entry ${kind}`);
    entry.append(el("div", "note-text", text));
    appendEntry(entry);
    scrollToEnd();
  }

  function clearScreen() {
    scrollback.replaceChildren();
  }

  function setPrompt(text) {
    if (promptEl.textContent !== text) promptEl.textContent = text;
  }

  // -------------------------------------------------------------------------------------------
  // Running lines
  // -------------------------------------------------------------------------------------------

  /** Ready for input, waiting for a blocked command's reply, or reading messages. */
  function setMode(next) {
    if (next === mode) return;
    mode = next;
    const busy = mode !== "ready";
    statusEl.hidden = !busy;
    statusEl.textContent = mode === "blocked" ? WAITING_NOTE : mode === "subscribed" ? SUBSCRIBED_NOTE : "";
    promptEl.hidden = busy;
    input.classList.toggle("is-busy", busy);
    root.dataset.mode = mode;
  }

  /** Prints what arrived without a line of input (messages, a late reply). */
  function receive(text) {
    if (text === "") return;
    const entry = el("div", "entry received");
    entry.append(...renderOutput(text, false));
    appendEntry(entry);
    scrollToEnd();
  }

  function submit(line) {
    if (mode !== "ready") {
      // redis-cli doesn't read input while it waits or reads messages.
      input.value = line;
      input.classList.remove("no-match");
      void input.offsetWidth;
      input.classList.add("no-match");
      return;
    }
    const shownPrompt = promptEl.textContent;
    history.add(line);
    const result = run(line);
    setPrompt(result.prompt);
    if (result.clear) {
      clearScreen();
      return;
    }
    const entry = el("div", "entry");
    entry.append(echo(shownPrompt, line));
    if (result.text !== "") entry.append(...renderOutput(result.text, result.reply?.type === "error"));
    if (result.quit) entry.append(el("div", "note-text", QUIT_NOTE));
    appendEntry(entry);
    scrollToEnd();
    setMode(result.blocked ? "blocked" : result.subscribed ? "subscribed" : "ready");
    return result;
  }

  function interruptWait() {
    if (interrupt === null) return;
    appendEntry(echo("", "^C"));
    const r = interrupt();
    setPrompt(r.prompt);
    setMode("ready");
    printNote(r.note);
  }

  function runPasted(text) {
    const lines = normalizeNewlines(text.replace(/\r(?!\n)/g, "\n")).split("\n");
    const last = lines.pop(); // no newline after it: it stays in the input
    const first = input.value.slice(0, input.selectionStart ?? input.value.length);
    const after = input.value.slice(input.selectionEnd ?? input.value.length);
    lines[0] = first + lines[0];
    const runnable = lines.slice(0, MAX_PASTED_LINES);
    for (const line of runnable) submit(line);
    if (lines.length > runnable.length) {
      printNote(`(redisplay) only the first ${MAX_PASTED_LINES} pasted lines were run; ${lines.length - runnable.length} were skipped.`);
    }
    input.value = last + after;
  }

  // -------------------------------------------------------------------------------------------
  // Completion (linenoise style: Tab cycles through candidates, Escape restores the line)
  // -------------------------------------------------------------------------------------------

  function showCompletions() {
    completionsEl.replaceChildren();
    if (completion === null) {
      completionsEl.hidden = true;
      return;
    }
    const { candidates, index } = completion;
    const list = el("div", "completion-list");
    const start = Math.max(0, Math.min(index - Math.floor(MAX_LISTED_COMPLETIONS / 2), candidates.length - MAX_LISTED_COMPLETIONS));
    const shown = candidates.slice(start, start + MAX_LISTED_COMPLETIONS);
    shown.forEach((c, i) => {
      const item = el("span", start + i === index ? "candidate is-current" : "candidate", c.full);
      list.append(item);
    });
    const hidden = candidates.length - shown.length;
    if (hidden > 0) list.append(el("span", "candidate-more", `(+${hidden} more)`));
    const current = candidates[index];
    const summary = el("div", "completion-summary", `${current.full} — ${current.summary}`);
    completionsEl.append(list, summary);
    completionsEl.hidden = false;
  }

  function endCompletion() {
    if (completion !== null) {
      completion = null;
      showCompletions();
    }
  }

  function tab(backwards) {
    if (completion === null) {
      const candidates = complete(completions, input.value);
      if (candidates.length === 0) {
        input.classList.remove("no-match");
        void input.offsetWidth; // restart the flash animation
        input.classList.add("no-match");
        return;
      }
      completion = { original: input.value, candidates, index: backwards ? candidates.length - 1 : 0 };
    } else {
      const n = completion.candidates.length;
      completion.index = (completion.index + (backwards ? n - 1 : 1)) % n;
    }
    input.value = completion.candidates[completion.index].line;
    input.setSelectionRange(input.value.length, input.value.length);
    if (completion.candidates.length === 1) {
      // One match: done, but say what it is.
      showCompletions();
      completion = null;
    } else {
      showCompletions();
    }
  }

  // -------------------------------------------------------------------------------------------
  // Keys
  // -------------------------------------------------------------------------------------------

  input.addEventListener("keydown", (event) => {
    if (event.isComposing) return;
    if (event.key === "Tab") {
      event.preventDefault();
      tab(event.shiftKey);
      return;
    }
    if (event.key === "Shift") return;
    if (event.key === "Escape" && completion !== null) {
      event.preventDefault();
      input.value = completion.original;
      endCompletion();
      return;
    }
    completion = null;
    completionsEl.hidden = true;
    if (event.key === "Enter") {
      event.preventDefault();
      const line = input.value;
      input.value = "";
      submit(line);
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      const line = history.previous(input.value);
      if (line !== null) input.value = line;
      input.setSelectionRange(input.value.length, input.value.length);
    } else if (event.key === "ArrowDown") {
      event.preventDefault();
      const line = history.next();
      if (line !== null) input.value = line;
      input.setSelectionRange(input.value.length, input.value.length);
    } else if (event.ctrlKey && (event.key === "l" || event.key === "L")) {
      event.preventDefault();
      clearScreen();
    } else if (event.ctrlKey && (event.key === "c" || event.key === "C") && mode !== "ready" && interrupt !== null) {
      event.preventDefault();
      interruptWait();
    } else if (event.ctrlKey && (event.key === "c" || event.key === "C") && input.selectionStart === input.selectionEnd) {
      // As in a terminal: abandon the line (with a selection, Ctrl+C still copies).
      event.preventDefault();
      appendEntry(echo(promptEl.textContent, `${input.value}^C`));
      input.value = "";
      scrollToEnd();
    }
  });

  input.addEventListener("animationend", () => input.classList.remove("no-match"));

  input.addEventListener("paste", (event) => {
    const text = event.clipboardData?.getData("text/plain") ?? "";
    if (!/[\r\n]/.test(text)) return;
    event.preventDefault();
    runPasted(text);
  });

  terminal.addEventListener("mouseup", () => {
    // Clicking anywhere in the terminal types into it, unless the user is selecting text.
    const selection = window.getSelection();
    if (selection === null || selection.isCollapsed) input.focus();
  });

  for (const line of welcome) printNote(line, "welcome");

  return {
    focus() {
      input.focus();
    },
    setPrompt,
    printNote,
    receive,
    /** Follows the engine: `{prompt, blocked, subscribed}` (a blocked command may be answered). */
    setState({ prompt: p, blocked, subscribed }) {
      if (p !== undefined && !blocked && !subscribed) setPrompt(p);
      setMode(blocked ? "blocked" : subscribed ? "subscribed" : "ready");
    },
    mode: () => mode,
    clear: clearScreen,
    /** Runs a line as if typed and sent with Enter (a lab step). */
    submit,
    /** Puts a line in the input for the learner to send (a lab step that says "type it"). */
    type(line) {
      input.value = line;
      input.focus();
      input.setSelectionRange(line.length, line.length);
    },
    /** What is in the input now. */
    inputValue: () => input.value,
  };
}
