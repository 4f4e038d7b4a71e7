// @ts-check
// The redis-cli-like console: a scrollback of `prompt + line` echoes and outputs, and an input
// line with the engine's prompt, history (ArrowUp/ArrowDown), Tab completion and redis-cli's
// grey argument hint after the typed text.
//
// It never talks to the engine itself: `run(line)` (given by consoles.js) executes a line and
// returns `{text, prompt, reply, quit, clear, blocked, subscribed}`, `hint(line)` gives the hint
// redis-cli would draw. Like redis-cli, a console whose command blocked (BLPOP…) waits for the
// reply, and one that subscribed only prints messages; `receive(text)` prints what arrives later
// and Ctrl-C (`interrupt`) gives up, as quitting redis-cli would. Everything shown is built with
// createElement and textContent — key names and values are user data.
//
// Keyboard (no trap): Tab completes only when the line has text and something to complete it to
// (then Tab/Shift+Tab cycle and Escape restores the line); otherwise — an empty line, arguments
// typed, no command starting so, or right after Escape — Tab and Shift+Tab move the focus on,
// as anywhere on the page. Enter runs the line; while a paste runs in this console the line waits
// its turn; Ctrl-C stops the paste (or a wait, or abandons the line).
//
// Nothing here blocks a frame: many lines (a paste) run as a job in slices (jobs.js, shared by
// the consoles of one engine), output is appended as it comes and the scrollback is scrolled to
// its end once per frame, not once per line (reading the layout after every line made a
// 1,000-line paste take seconds).
//
// Screen readers: the scrollback is a log that is not read out as a whole; a polite live region
// says the latest reply (its first lines), and after a job how it ended.

import { el } from "../dom.js";
import { number } from "../format.js";
import { t } from "../i18n.js";
import { complete } from "./completion.js";
import { createHistory } from "./history.js";
import { createJobRunner } from "./jobs.js";
import { announcement, capOutput, normalizeNewlines, parseSgr } from "./output-text.js";

/** @typedef {import("../engine/plain").LineResult} LineResult */
/** @typedef {import("./completion").CompletionEntry} CompletionEntry */
/** @typedef {import("./jobs").JobRunner} JobRunner */
/** @typedef {import("./jobs").JobProgress} JobProgress */

/** Entries kept in the scrollback; older ones are removed so the page stays light. */
export const MAX_ENTRIES = 500;

/** Lines of one multi-line paste that are run; the rest is reported, not run. */
export const MAX_PASTED_LINES = 1000;

/** What the hint copies from the input so its copy of the typed text lines up with it. */
const HINT_FONT_PROPERTIES = ["font-family", "font-size", "font-weight", "font-style", "letter-spacing", "padding-left", "text-indent"];

/** Candidates listed under the input at once. */
const MAX_LISTED_COMPLETIONS = 40;

// Functions, not constants: t() reads the language, which is set after this module loads.
const waitingNote = () => t("waiting for the reply — another client can serve it; Ctrl-C stops waiting");
const subscribedNote = () => t("reading messages — Ctrl-C quits subscribe mode");

const shutdownNote = () =>
  t("(redisplay) the server shut down. Type connect to start it again: it loads the RDB file it saved, as redis-server does at start.");

const quitNote = () =>
  t("(redisplay) redis-cli would exit here. The playground keeps running: type another command, or reload the page for a new engine.");

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
    if (capped.hiddenLines > 0) parts.push(t("{n} more lines", { n: number(capped.hiddenLines) }));
    if (capped.hiddenChars > 0) parts.push(t("{n} more characters", { n: number(capped.hiddenChars) }));
    const what = parts.length === 2 ? t("{a} and {b}", { a: parts[0], b: parts[1] }) : parts[0];
    nodes.push(el("div", "more", t("… {what} not shown (the page shows at most the first part of long outputs)", { what })));
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
 * @param {string} [options.inputLabel]  the input's accessible name
 * @param {(() => {prompt: string, note: string}) | null} [options.interrupt]  Ctrl-C while waiting or
 *        subscribed: closes the connection and reconnects; returns the new prompt and a note
 * @param {(line: string) => string | null} [options.hint]  redis-cli's grey hint for a line, or null
 * @param {JobRunner} [options.jobs]  the runner many lines go through (shared by an engine's consoles)
 * @param {number} [options.index]  this console's number (which jobs are its own)
 */
export function createConsole(
  root,
  {
    run,
    completions,
    prompt,
    welcome = [],
    inputId = "console-input",
    inputLabel = t("redis-cli command"),
    interrupt = null,
    hint = () => null,
    jobs = createJobRunner(),
    index = 0,
  },
) {
  const history = createHistory();
  /** @type {{original: string, candidates: ReturnType<typeof complete>, index: number} | null} while Tab-cycling */
  let completion = null;
  /** @type {"ready" | "blocked" | "subscribed"} */
  let mode = "ready";
  // Escape was the last key: the next Tab leaves the console whatever the line holds.
  let escaped = false;

  root.replaceChildren();
  const terminal = el("div", "terminal");
  const scrollback = el("div", "scrollback");
  // A log, but not a live region: every echo, note and output would be read out. The latest
  // reply is said by `announcer` instead.
  scrollback.setAttribute("role", "log");
  scrollback.setAttribute("aria-live", "off");
  scrollback.setAttribute("aria-label", t("Console output"));

  const inputLine = el("div", "input-line");
  const promptEl = el("label", "prompt", prompt);
  promptEl.htmlFor = inputId;
  const field = el("div", "cmdline-field");
  const input = el("input", "cmdline");
  input.id = inputId;
  input.type = "text";
  input.autocomplete = "off";
  input.spellcheck = false;
  input.setAttribute("autocapitalize", "off");
  input.setAttribute("autocorrect", "off");
  input.setAttribute("aria-label", inputLabel);
  const completionsId = inputId === "console-input" ? "console-completions" : `${inputId}-completions`;
  const hintId = `${inputId}-hint`;
  // redis-cli's hint, drawn after the typed text: an invisible copy of the text, then the hint.
  const hintEl = el("div", "cmdline-hint");
  hintEl.setAttribute("aria-hidden", "true");
  const hintTyped = el("span", "cmdline-hint-typed");
  const hintText = el("span", "cmdline-hint-text");
  hintEl.append(hintTyped, hintText);
  hintEl.hidden = true;
  // The same hint for assistive technology, as the input's description.
  const hintDescription = el("span", "visually-hidden");
  hintDescription.id = hintId;
  const statusEl = el("div", "console-status");
  statusEl.hidden = true;
  statusEl.setAttribute("role", "status");
  input.setAttribute("aria-describedby", `${completionsId} ${hintId}`);
  field.append(input, hintEl);
  inputLine.append(promptEl, field, hintDescription);

  // Many lines running (a paste, a link's commands, a replay): what, how far, how to stop it.
  const progressEl = el("div", "console-progress");
  progressEl.hidden = true;
  const progressBar = el("progress", "console-progress-bar");
  progressBar.setAttribute("aria-label", t("Lines run"));
  const progressText = el("span", "console-progress-text");
  progressEl.append(progressBar, progressText);

  const completionsEl = el("div", "completions");
  completionsEl.id = completionsId;
  completionsEl.setAttribute("aria-live", "polite");
  completionsEl.hidden = true;

  // What a screen reader is told: the latest reply (a polite live region of its own).
  const announcer = el("div", "console-announce visually-hidden");
  announcer.setAttribute("aria-live", "polite");
  announcer.setAttribute("aria-atomic", "true");

  terminal.append(scrollback, progressEl, statusEl, inputLine, completionsEl, announcer);
  root.append(terminal);

  // -------------------------------------------------------------------------------------------
  // Scrollback
  // -------------------------------------------------------------------------------------------

  // Scrolling reads the layout: once per frame, however many entries were appended in it.
  // Entries out of sight are not laid out (content-visibility), so the last ones may grow once
  // they are drawn: the next frames look again until the end stays in view.
  let scrollQueued = false;
  function scrollToEnd(settle = 3) {
    if (scrollQueued) return;
    scrollQueued = true;
    requestAnimationFrame(() => {
      scrollQueued = false;
      terminal.scrollTop = terminal.scrollHeight;
      if (settle === 0) return;
      requestAnimationFrame(() => {
        const atEnd = terminal.scrollTop + terminal.clientHeight >= terminal.scrollHeight - 1;
        if (!scrollQueued && !atEnd) scrollToEnd(settle - 1);
      });
    });
  }

  /** Says `text` to a screen reader (politely), replacing what it said last. */
  function announce(text) {
    if (text !== "" && announcer.textContent !== text) announcer.textContent = text;
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
    statusEl.textContent = mode === "blocked" ? waitingNote() : mode === "subscribed" ? subscribedNote() : "";
    promptEl.hidden = busy;
    input.classList.toggle("is-busy", busy);
    root.dataset.mode = mode;
    refreshHint();
  }

  /** Prints what arrived without a line of input (messages, a late reply). */
  function receive(text) {
    if (text === "") return;
    const entry = el("div", "entry received");
    entry.append(...renderOutput(text, false));
    appendEntry(entry);
    scrollToEnd();
    announce(announcement(text));
  }

  /**
   * Runs a line now, as Enter does when nothing else is running.
   * @param {string} line
   * @param {{quiet?: boolean}} [options]  quiet: not announced (a line of a job)
   */
  function submit(line, { quiet = false } = {}) {
    if (mode !== "ready") {
      // redis-cli doesn't read input while it waits or reads messages.
      input.value = line;
      input.classList.remove("no-match");
      void input.offsetWidth;
      input.classList.add("no-match");
      refreshHint();
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
    if (result.quit) entry.append(el("div", "note-text", quitNote()));
    if (result.shutdown) entry.append(el("div", "note-text", shutdownNote()));
    appendEntry(entry);
    scrollToEnd();
    setMode(result.blocked ? "blocked" : result.subscribed ? "subscribed" : "ready");
    if (!quiet) announce(result.quit ? quitNote() : result.shutdown ? shutdownNote() : announcement(result.text));
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

  /**
   * Lines run one after another as a job in slices (jobs.js): each waits while the console
   * waits for a blocked command's reply or reads messages. Resolves when they ran or were stopped.
   * @param {string[]} lines
   * @param {string} label  what they are, for the progress line and the notes ("pasted lines"), in the page's language
   * @returns {Promise<"done" | "cancelled">}
   */
  function runLines(lines, label) {
    let next = 0;
    const total = lines.length;
    return jobs
      .add({
        label,
        total,
        console: index,
        step() {
          if (mode !== "ready") return "wait";
          submit(lines[next], { quiet: total > 1 });
          next += 1;
          return next < total ? "more" : "done";
        },
        onCancel(done) {
          printNote(t("(redisplay) stopped: {left} of {total} {label} not run.", { left: number(total - done), total: number(total), label }));
        },
      })
      .then((how) => {
        if (how === "done" && total > 1) announce(`${t("Ran {n} {label}.", { n: number(total), label })} ${announcement(lastOutput())}`.trim());
        return how;
      });
  }

  /** The output of the newest entry (for the announcement after many lines). */
  function lastOutput() {
    const out = scrollback.lastElementChild?.querySelector(".out");
    return out?.textContent ?? "";
  }

  /** Whether a line typed now must wait: a job of this console (or of all of them) is queued. */
  function mustWait() {
    return jobs.pendingFor(index);
  }

  function runPasted(text) {
    const lines = normalizeNewlines(text.replace(/\r(?!\n)/g, "\n")).split("\n");
    const last = lines.pop() ?? ""; // no newline after it: it stays in the input
    const first = input.value.slice(0, input.selectionStart ?? input.value.length);
    const after = input.value.slice(input.selectionEnd ?? input.value.length);
    lines[0] = first + lines[0];
    const runnable = lines.slice(0, MAX_PASTED_LINES);
    if (lines.length > runnable.length) {
      printNote(t("(redisplay) only the first {max} pasted lines are run; {skipped} were skipped.", { max: MAX_PASTED_LINES, skipped: lines.length - runnable.length }));
    }
    input.value = last + after;
    refreshHint();
    if (runnable.length === 1 && !mustWait()) submit(runnable[0]);
    else void runLines(runnable, runnable.length === 1 ? t("pasted line") : t("pasted lines"));
  }

  // -------------------------------------------------------------------------------------------
  // redis-cli's hint (linenoise's hintsCallback): grey, after the typed text
  // -------------------------------------------------------------------------------------------

  let shownHint = "";
  function refreshHint() {
    const text = mode === "ready" && input.value !== "" ? (hint(input.value) ?? "") : "";
    if (text !== shownHint) {
      shownHint = text;
      hintDescription.textContent = text.trim() === "" ? "" : t("Arguments: {hint}", { hint: text.trim() });
    }
    // As linenoise: no hint once the line no longer fits.
    const show = text !== "" && input.scrollWidth <= input.clientWidth;
    if (show) {
      // The copy of the typed text must measure exactly as the input draws it (whatever a
      // theme or a phone's larger type says).
      const style = getComputedStyle(input);
      for (const prop of HINT_FONT_PROPERTIES) {
        const value = style.getPropertyValue(prop);
        if (hintEl.style.getPropertyValue(prop) !== value) hintEl.style.setProperty(prop, value);
      }
      if (hintTyped.textContent !== input.value) hintTyped.textContent = input.value;
      if (hintText.textContent !== text) hintText.textContent = text;
    }
    if (hintEl.hidden === show) hintEl.hidden = !show;
  }

  // -------------------------------------------------------------------------------------------
  // Progress of a job running in this console
  // -------------------------------------------------------------------------------------------

  /** @param {JobProgress | null} p */
  function showProgress(p) {
    if (p === null) {
      if (!progressEl.hidden) progressEl.hidden = true;
      return;
    }
    progressBar.max = Math.max(1, p.total);
    progressBar.value = Math.min(p.done, p.total);
    const parts = [t("{label}: {done} of {total}", { label: p.label, done: number(p.done), total: number(p.total) })];
    if (p.waiting) parts.push(t("waiting for a reply"));
    if (p.queued > 0) parts.push(t("{n} more waiting", { n: number(p.queued) }));
    if (p.cancellable) parts.push(t("Ctrl-C stops"));
    const text = parts.join(" · ");
    if (progressText.textContent !== text) progressText.textContent = text;
    if (progressEl.hidden) {
      progressEl.hidden = false;
      announce(t("Running {n} {label}.", { n: number(p.total), label: p.label }));
    }
    scrollToEnd();
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
    if (hidden > 0) list.append(el("span", "candidate-more", t("(+{n} more)", { n: hidden })));
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

  /**
   * What Tab would complete the line to: nothing on an empty line, when no command starts so,
   * or when the only candidate is the line itself.
   */
  function candidatesFor(line) {
    if (line.trim() === "") return [];
    const candidates = complete(completions, line);
    if (candidates.length === 1 && candidates[0].line === line) return [];
    return candidates;
  }

  /**
   * Tab or Shift+Tab: cycles through the candidates, starting a cycle if there is something to
   * complete. Returns false when there is not (the key then moves the focus on).
   * @param {boolean} backwards
   */
  function tab(backwards) {
    if (completion === null) {
      if (backwards) return false;
      const candidates = candidatesFor(input.value);
      if (candidates.length === 0) return false;
      completion = { original: input.value, candidates, index: 0 };
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
    refreshHint();
    return true;
  }

  // -------------------------------------------------------------------------------------------
  // Keys
  // -------------------------------------------------------------------------------------------

  input.addEventListener("keydown", (event) => {
    if (event.isComposing) return;
    if (event.key === "Tab") {
      // No trap: only a completion keeps Tab in the console.
      const wasEscaped = escaped;
      escaped = false;
      if (event.ctrlKey || event.altKey || event.metaKey || wasEscaped) return;
      if (tab(event.shiftKey)) event.preventDefault();
      return;
    }
    if (event.key === "Shift") return;
    if (event.key === "Escape") {
      escaped = true;
      if (completion !== null) {
        event.preventDefault();
        input.value = completion.original;
        endCompletion();
        refreshHint();
      }
      return;
    }
    escaped = false;
    completion = null;
    completionsEl.hidden = true;
    if (event.key === "Enter") {
      event.preventDefault();
      const line = input.value;
      input.value = "";
      refreshHint();
      // A job of this console runs: the line waits its turn, as typed-ahead input does.
      if (mustWait()) void runLines([line], t("typed line"));
      else submit(line);
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      const line = history.previous(input.value);
      if (line !== null) input.value = line;
      input.setSelectionRange(input.value.length, input.value.length);
      refreshHint();
    } else if (event.key === "ArrowDown") {
      event.preventDefault();
      const line = history.next();
      if (line !== null) input.value = line;
      input.setSelectionRange(input.value.length, input.value.length);
      refreshHint();
    } else if (event.ctrlKey && (event.key === "l" || event.key === "L")) {
      event.preventDefault();
      clearScreen();
    } else if (event.ctrlKey && (event.key === "c" || event.key === "C") && mode !== "ready" && interrupt !== null) {
      event.preventDefault();
      // The lines pasted behind the command go with it, as redis-cli's would.
      jobs.cancel(index);
      interruptWait();
    } else if (event.ctrlKey && (event.key === "c" || event.key === "C") && jobs.cancellableFor(index) && input.selectionStart === input.selectionEnd) {
      event.preventDefault();
      appendEntry(echo("", "^C"));
      jobs.cancel(index);
    } else if (event.ctrlKey && (event.key === "c" || event.key === "C") && input.selectionStart === input.selectionEnd) {
      // As in a terminal: abandon the line (with a selection, Ctrl+C still copies).
      event.preventDefault();
      appendEntry(echo(promptEl.textContent, `${input.value}^C`));
      input.value = "";
      refreshHint();
      scrollToEnd();
    }
  });

  input.addEventListener("input", () => {
    // The line changed since Escape: Tab completes it again.
    escaped = false;
    refreshHint();
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
    /**
     * Runs lines one after another in slices, with progress (a link's commands); resolves
     * "done" or "cancelled" (Ctrl-C).
     */
    runLines,
    /** Shows a job's progress in this console (consoles.js routes it), or hides it (null). */
    showProgress,
    /** Says something to a screen reader. */
    announce,
    /** Puts a line in the input for the learner to send (a lab step that says "type it"). */
    type(line) {
      input.value = line;
      input.focus();
      input.setSelectionRange(line.length, line.length);
      refreshHint();
    },
    /** Draws the hint again (the hints were turned on or off). */
    refreshHint,
    /** What is in the input now. */
    inputValue: () => input.value,
  };
}
