// @ts-check
// The lab player: a guided scenario (www/labs/data/<id>.json, format in www/labs/README.md)
// beside the console — the steps, each step's text, the lines it runs (or types for the learner
// to send), the view to look at and what to notice. tests/labs.rs holds every `expect` to the
// engine natively; tests/e2e/labs.test.mjs plays every lab here and compares what the consoles
// print with the same `expect`s.
//
// Use (the page's lab mode, the <redis-playground lab="…"> widget):
//
//   const lab = await loadLab(id, { baseUrl });     // {ok, lab} | {ok: false, error}
//   const player = createLabPlayer(section, {
//     lab,
//     consoles,                      // console/consoles.js: ensure(n), submitOn(n, line), typeOn(n, line), pollAll()
//     showView(view, focusKey),      // bring a view forward (and open a key in it)
//     runSim(kind, config),          // engine.runLabSim → {ok, result} | {ok: false, error}
//     showDelayQueue(config),        // optional: load a delay-queue sim into its view
//     onChange(state),               // optional: {step, ran}
//   });
//   player.go(n); player.runStep(); player.destroy();
//
// The lab's seed and start time are the engine's (the host creates the engine with them) and
// the clock is paused: time passes only through the steps' CLOCK ADVANCE lines, so what the
// text says happens is what happens. Text from the lab file reaches the DOM as textContent.

import { INLINE_ASSETS } from "../assets.js";
import { el } from "../dom.js";
import { number } from "../format.js";
import { language, t } from "../i18n.js";
import { describePipeline, pipelineTable } from "./pipeline-table.js";
import { simMetricLabel } from "./sim-metrics.js";

/**
 * One item of a step's `lines`: a console line, a `receive` (print what arrived), or a sim.
 * @typedef {object} LabItem
 * @property {string} [line]
 * @property {number} [console]  0-based (client 1 is console 0)
 * @property {number} [server]   1: the console is on the page's second server (127.0.0.1:6380)
 * @property {boolean} [receive]
 * @property {boolean} [raw]     switches the console's `--raw` output on (true) or off (false)
 * @property {{latencyMs?: number, down?: boolean}} [link]  sets the link between the two servers
 * @property {string} [sim]      "delay-queue", "pipeline" or "cache-aside"
 * @property {Record<string, unknown>} [config]
 * @property {unknown} [expect]
 */

/**
 * @typedef {object} LabStep
 * @property {string} title
 * @property {string} text
 * @property {LabItem[]} [lines]
 * @property {boolean} [type]    type the lines for the learner instead of running them
 * @property {string} [view]     the view to bring forward
 * @property {string} [focus]    the key to open in it
 * @property {string} [notice]   what to notice, once run
 * @property {LabClaim[]} [claims]  what an article says next to what Redis 7.0 does
 */

/**
 * A claim of a source article, tried in the step's lines (www/labs/README.md).
 * @typedef {object} LabClaim
 * @property {string} says      the article's claim, in its words
 * @property {string} does      what Redis 7.0 does (what the step's lines show)
 * @property {string} [why]     why they differ, or where the claim comes from
 * @property {"right" | "wrong" | "outdated" | "partly"} verdict
 */

/**
 * A lab file (www/labs/README.md), as labProblem checks it.
 * @typedef {object} Lab
 * @property {string} [id]
 * @property {string} title
 * @property {string} [summary]
 * @property {number} seed
 * @property {number} startMs
 * @property {string[]} [views]
 * @property {LabStep[]} steps
 */

/** @typedef {{ok: true, lab: Lab, translationProblem?: string} | {ok: false, error: string}} LabLoad */

const ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

/**
 * Is this a lab id we would fetch (a file name, nothing else)?
 * @param {unknown} id
 * @returns {id is string}
 */
export function isLabId(id) {
  return typeof id === "string" && ID_PATTERN.test(id);
}

/**
 * Checks the shape the player relies on; returns a sentence, or null when it is fine.
 * @param {any} lab  parsed JSON
 * @returns {string | null}
 */
export function labProblem(lab) {
  if (!lab || typeof lab !== "object") return t("the lab file is not a JSON object");
  if (typeof lab.title !== "string" || lab.title === "") return t("the lab has no title");
  if (!Number.isSafeInteger(lab.seed) || lab.seed < 0) return t("the lab's seed is not a whole number");
  if (!Number.isSafeInteger(lab.startMs) || lab.startMs < 0) return t("the lab's startMs is not a time in Unix ms");
  if (!Array.isArray(lab.steps) || lab.steps.length === 0) return t("the lab has no steps");
  for (const [i, step] of lab.steps.entries()) {
    if (!step || typeof step.title !== "string" || typeof step.text !== "string") return t("step {n} has no title or text", { n: i + 1 });
    if (step.lines !== undefined && !Array.isArray(step.lines)) return t("step {n}'s lines are not a list", { n: i + 1 });
  }
  return null;
}

/**
 * A lab's translation (data/<lang>/<id>.json) laid over the lab: the same steps, in the same
 * order, with its own title, summary and each step's title, text, notice and claims' words.
 * Lines, expectations, seeds and views are the lab's own, so one run checks both languages.
 * Returns the translated lab, or a sentence saying why the translation does not fit.
 * @param {Lab} lab
 * @param {any} translation  parsed JSON
 * @returns {{ok: true, lab: Lab} | {ok: false, error: string}}
 */
export function translateLab(lab, translation) {
  if (!translation || typeof translation !== "object") return { ok: false, error: t("the translation is not a JSON object") };
  if (translation.id !== lab.id) return { ok: false, error: t("the translation is of \"{id}\"", { id: String(translation.id).slice(0, 80) }) };
  if (typeof translation.title !== "string" || translation.title === "") return { ok: false, error: t("the translation has no title") };
  if (!Array.isArray(translation.steps) || translation.steps.length !== lab.steps.length) {
    return { ok: false, error: t("the translation has {n} steps, the lab {total}", { n: Array.isArray(translation.steps) ? translation.steps.length : 0, total: lab.steps.length }) };
  }
  const steps = [];
  for (const [i, step] of lab.steps.entries()) {
    const tr = translation.steps[i];
    if (!tr || typeof tr.title !== "string" || typeof tr.text !== "string") return { ok: false, error: t("step {n} of the translation has no title or text", { n: i + 1 }) };
    /** @type {LabStep} */
    const out = { ...step, title: tr.title, text: tr.text };
    if (step.notice !== undefined) {
      if (typeof tr.notice !== "string") return { ok: false, error: t("step {n} of the translation has no notice", { n: i + 1 }) };
      out.notice = tr.notice;
    }
    if (Array.isArray(step.claims)) {
      if (!Array.isArray(tr.claims) || tr.claims.length !== step.claims.length) return { ok: false, error: t("step {n} of the translation has not as many claims", { n: i + 1 }) };
      out.claims = step.claims.map((c, j) => ({ ...c, ...pickStrings(tr.claims[j], CLAIM_TEXTS) }));
    }
    steps.push(out);
  }
  return { ok: true, lab: { ...lab, title: translation.title, summary: typeof translation.summary === "string" ? translation.summary : lab.summary, steps } };
}

/** A claim's words (www/labs/README.md); the rest of a claim is the lab's own. */
const CLAIM_TEXTS = ["says", "does", "why"];

/**
 * @param {any} o
 * @param {readonly string[]} names
 */
function pickStrings(o, names) {
  /** @type {Record<string, string>} */
  const out = {};
  if (o && typeof o === "object") for (const n of names) if (typeof o[n] === "string") out[n] = o[n];
  return out;
}

/**
 * Reads one JSON file of the labs' folder: the single-file build's inline copy, or a fetch.
 * `null` when there is none (HTTP 404 or not inline); throws a sentence on other failures.
 * @param {string} name  "lock", "zh-CN/lock"
 * @param {URL | null} baseUrl
 * @returns {Promise<any>}
 */
async function readLabFile(name, baseUrl) {
  if (INLINE_ASSETS) return INLINE_ASSETS.labs?.[name] ?? null;
  let response;
  try {
    response = await fetch(new URL(`data/${name}.json`, baseUrl ?? new URL("./", import.meta.url)));
  } catch (err) {
    throw new Error(t("could not be downloaded ({why})", { why: err instanceof Error ? err.message : String(err) }));
  }
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(t("could not be downloaded (HTTP {status})", { status: response.status }));
  try {
    return await response.json();
  } catch {
    throw new Error(t("is not valid JSON"));
  }
}

/**
 * Fetches a lab by id (`baseUrl`: the folder holding data/), in `lang` (default: the page's
 * language, www/i18n.js). A lab with no translation, or a translation that does not fit, plays
 * in English; `translationProblem` then says why.
 * @param {unknown} id
 * @param {{baseUrl?: URL | null, lang?: import("../i18n.js").Language}} [options]
 * @returns {Promise<LabLoad>}
 */
export async function loadLab(id, { baseUrl = null, lang = language() } = {}) {
  if (!isLabId(id)) return { ok: false, error: t("\"{id}\" is not a lab name (letters, digits and dashes).", { id: String(id).slice(0, 80) }) };
  let lab;
  try {
    lab = await readLabFile(id, baseUrl);
  } catch (err) {
    return { ok: false, error: t("The lab \"{id}\" {problem}.", { id, problem: err instanceof Error ? err.message : String(err) }) };
  }
  if (lab === null) {
    return { ok: false, error: INLINE_ASSETS ? t("There is no lab called \"{id}\" in this file.", { id }) : t("There is no lab called \"{id}\" (HTTP 404).", { id }) };
  }
  const problem = labProblem(lab);
  if (problem) return { ok: false, error: t("The lab \"{id}\" cannot be played: {problem}.", { id, problem }) };
  if (lang === "en") return { ok: true, lab };
  let translation;
  try {
    translation = await readLabFile(`${lang}/${id}`, baseUrl);
  } catch (err) {
    return { ok: true, lab, translationProblem: t("its {lang} text {problem}", { lang, problem: err instanceof Error ? err.message : String(err) }) };
  }
  if (translation === null) return { ok: true, lab, translationProblem: t("it has no {lang} text yet", { lang }) };
  const r = translateLab(lab, translation);
  return r.ok ? { ok: true, lab: r.lab } : { ok: true, lab, translationProblem: r.error };
}

/**
 * A group of labs the picker shows under its own heading (data/index.json `tracks`).
 * @typedef {{id: string, title: string}} LabTrack
 */

/**
 * The lab list (data/index.json) with each lab's title and summary, for a picker. A lab that
 * belongs to one of the index's `tracks` (`{id, title, "zh-CN"?: title, labs: [id…]}`) carries
 * `track` (its title in `lang`); the labs come in the index's order.
 * @param {{baseUrl?: URL | null, lang?: import("../i18n.js").Language}} [options]
 * @returns {Promise<Array<{id: string, title: string, summary: string, track?: LabTrack}>>}
 */
export async function loadLabIndex({ baseUrl = null, lang = language() } = {}) {
  try {
    const index = INLINE_ASSETS
      ? (INLINE_ASSETS.labIndex ?? { labs: Object.keys(INLINE_ASSETS.labs ?? {}) })
      : await (await fetch(new URL("data/index.json", baseUrl ?? new URL("./", import.meta.url)))).json();
    const ids = Array.isArray(index?.labs) ? index.labs.filter(isLabId) : [];
    /** @type {Map<string, LabTrack>} */
    const trackOf = new Map();
    for (const track of Array.isArray(index?.tracks) ? index.tracks : []) {
      if (!track || typeof track.id !== "string" || typeof track.title !== "string" || !Array.isArray(track.labs)) continue;
      const title = typeof track[lang] === "string" && track[lang] !== "" ? track[lang] : track.title;
      for (const id of track.labs) if (isLabId(id) && !trackOf.has(id)) trackOf.set(id, { id: track.id, title });
    }
    const labs = await Promise.all(ids.map((id) => loadLab(id, { baseUrl, lang })));
    return labs.flatMap((r, i) => {
      if (!r.ok) return [];
      const track = trackOf.get(ids[i]);
      return [{ id: ids[i], title: r.lab.title, summary: String(r.lab.summary ?? ""), ...(track ? { track } : {}) }];
    });
  } catch {
    return [];
  }
}

/**
 * The console an item runs on (0 unless it names another).
 * @param {LabItem} item
 */
function consoleOf(item) {
  return typeof item.console === "number" && Number.isInteger(item.console) && item.console >= 0 ? item.console : 0;
}

/**
 * A line item as the panel shows it: `console 2> LINE`, `(console 2 receives)`, `simulation …`.
 * @param {LabItem} item
 */
function describeItem(item) {
  const n = consoleOf(item);
  const who = item.server === 1 ? t("replica 127.0.0.1:6380") : n > 0 ? t("console {n}", { n: n + 1 }) : "";
  if (item.link && typeof item.link === "object") {
    const parts = [];
    if (typeof item.link.latencyMs === "number") parts.push(t("latency {ms} ms each way", { ms: number(item.link.latencyMs) }));
    if (item.link.down === true) parts.push(t("cut"));
    if (item.link.down === false) parts.push(t("restored"));
    return t("(the link between the servers: {what})", { what: parts.join(t(", ")) });
  }
  if (typeof item.line === "string") return `${who ? `${who}> ` : "> "}${item.line}`;
  if (typeof item.raw === "boolean") {
    const client = n + 1;
    return item.raw
      ? t("(console {client} prints replies as redis-cli --raw: 北京, not \"\\xe5\\x8c\\x97…\")", { client })
      : t("(console {client} prints replies as redis-cli does by default)", { client });
  }
  if (item.receive) return t("({who} receives what arrived)", { who: who || t("console {n}", { n: 1 }) });
  if (item.sim === "pipeline") return describePipeline(item.config ?? {});
  if (typeof item.sim === "string") return t("simulation: {sim} {config}", { sim: item.sim, config: JSON.stringify(item.config ?? {}) });
  return "?";
}

/**
 * A simulation's result value as the table shows it.
 * @param {unknown} v
 * @returns {string}
 */
function formatValue(v) {
  if (typeof v === "number") return number(v);
  if (v === null || v === undefined) return "—";
  if (Array.isArray(v)) return v.map(formatValue).join(", ");
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/**
 * Flattens `{a: {b: 1}}` to `[["a.b", 1]]` (the sims' nested results).
 * @param {any} obj
 * @param {string} [prefix]
 * @returns {Array<[string, unknown]>}
 */
function flatten(obj, prefix = "") {
  return Object.entries(obj ?? {}).flatMap(([k, v]) =>
    v && typeof v === "object" && !Array.isArray(v) ? flatten(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]],
  );
}

/**
 * @param {any} obj
 * @param {string} path  "a.b"
 * @returns {unknown}
 */
function lookup(obj, path) {
  return path.split(".").reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), obj);
}

/**
 * A verdict's badge text.
 * @param {unknown} verdict
 */
function verdictLabel(verdict) {
  switch (verdict) {
    case "right":
      return t("Right");
    case "wrong":
      return t("Wrong");
    case "outdated":
      return t("Outdated");
    case "partly":
      return t("Partly right");
    default:
      return t("Not judged");
  }
}

/**
 * One claim of a source article beside what Redis 7.0 does: the article's words, Redis's
 * behaviour, the verdict as a badge and why (all textContent).
 * @param {LabClaim} claim
 */
function claimBox(claim) {
  const box = el("section", "lab-claim");
  const verdict = ["right", "wrong", "outdated", "partly"].includes(claim?.verdict) ? claim.verdict : "unknown";
  box.dataset.verdict = verdict;
  const head = el("p", "lab-claim-head");
  head.append(el("span", "lab-claim-kicker", t("The article says")), el("span", "lab-claim-badge", verdictLabel(verdict)));
  box.append(head, el("blockquote", "lab-claim-says", String(claim?.says ?? "")));
  const list = el("dl", "lab-claim-facts");
  list.append(el("dt", null, t("Redis 7.0 does")), el("dd", "lab-claim-does", String(claim?.does ?? "")));
  if (typeof claim?.why === "string" && claim.why !== "") list.append(el("dt", null, t("Why")), el("dd", "lab-claim-why", claim.why));
  box.append(list);
  return box;
}

/**
 * The consoles the player runs lines on (console/consoles.js).
 * @typedef {Pick<ReturnType<typeof import("../console/consoles").createConsoles>, "ensure" | "submitOn" | "typeOn" | "pollAll"> & {onReceive?: ReturnType<typeof import("../console/consoles").createConsoles>["onReceive"], setRaw?: ReturnType<typeof import("../console/consoles").createConsoles>["setRaw"]}} LabConsoles
 */

/**
 * @param {HTMLElement} root  the lab's section (emptied)
 * @param {object} options
 * @param {Lab} options.lab
 * @param {LabConsoles} options.consoles
 * @param {(view: string, focusKey: string | null) => void} [options.showView]  bring a view forward (and open a key in it)
 * @param {(kind: string, config: Record<string, unknown>) => import("../engine/lab-adapters").SimOutcome} options.runSim
 * @param {((config: Record<string, unknown>) => void) | null} [options.showDelayQueue]  load a delay-queue sim into its view
 * @param {(link: {latencyMs?: number, down?: boolean}) => void} [options.setLink]  a `link` item: the link between the servers
 * @param {(state: {step: number, ran: boolean}) => void} [options.onChange]
 * @param {() => boolean} [options.scriptBusy]  a script outlived its first slice (the page's loop runs the rest)
 */
export function createLabPlayer(root, { lab, consoles, showView = () => {}, runSim, showDelayQueue = null, setLink = () => {}, onChange = () => {}, scriptBusy = () => false }) {
  root.replaceChildren();
  root.classList.add("lab-player");
  root.setAttribute("aria-label", t("Lab: {title}", { title: lab.title }));

  const header = el("header", "lab-header");
  const title = el("h2", "lab-title", lab.title);
  const summary = el("p", "lab-summary", String(lab.summary ?? ""));
  header.append(el("span", "lab-kicker", t("Lab")), title, summary);

  const nav = el("ol", "lab-steps");
  nav.setAttribute("aria-label", t("Steps"));
  const stepButtons = lab.steps.map((step, i) => {
    const li = el("li");
    // The number is drawn by the button itself, beside its first line (a list marker sits by
    // the last line of a wrapped inline button); the <ol> still tells screen readers the order.
    const b = el("button", "lab-step-link");
    const n = el("span", "lab-step-n", `${i + 1}.`);
    n.setAttribute("aria-hidden", "true");
    b.append(n, el("span", "lab-step-title-text", step.title));
    b.type = "button";
    b.addEventListener("click", () => go(i));
    li.append(b);
    nav.append(li);
    return b;
  });

  const body = el("section", "lab-step");
  const counter = el("p", "lab-counter");
  const stepTitle = el("h3", "lab-step-title");
  stepTitle.tabIndex = -1;
  const text = el("div", "lab-text");
  const claims = el("div", "lab-claims");
  const lines = el("ul", "lab-lines");
  lines.setAttribute("aria-label", t("What this step runs"));
  const actions = el("div", "lab-actions");
  const runButton = el("button", "lab-run", t("Run this step"));
  runButton.type = "button";
  const prevButton = el("button", "lab-prev", t("← Previous"));
  prevButton.type = "button";
  const nextButton = el("button", "lab-next", t("Next step →"));
  nextButton.type = "button";
  actions.append(prevButton, runButton, nextButton);
  const notice = el("div", "lab-notice");
  notice.setAttribute("role", "status");
  const results = el("div", "lab-results");
  body.append(counter, stepTitle, text, claims, lines, actions, notice, results);
  root.append(header, nav, body);

  // What each console printed without input and no `receive` item has read yet.
  /** @type {string[]} */
  const unread = [];
  const stopListening = consoles.onReceive?.((n, text) => {
    unread[n] = (unread[n] ?? "") + text;
  });
  /** What each item printed, in the order run: `{step, item, text}` (for tests and tools). */
  /** @type {Array<{step: number, item: number, text?: string | null, result?: unknown, error?: string | null}>} */
  const outputs = [];

  let current = 0;
  /** Steps already run (a step runs once; going back shows it, running again is refused). */
  const ran = new Set();
  /** A step's items are running (one waits for a script). */
  let running = false;
  /** For a `type: true` step: the index of the next line to type. */
  let typed = 0;

  function state() {
    return { step: current, ran: ran.has(current) };
  }

  function render() {
    const step = lab.steps[current];
    root.dataset.step = String(current);
    root.dataset.ran = String(ran.has(current));
    counter.textContent = t("Step {n} of {total}", { n: current + 1, total: lab.steps.length });
    stepTitle.textContent = step.title;
    text.replaceChildren(...String(step.text).split(/\n\s*\n/).map((p) => el("p", null, p)));
    claims.replaceChildren(...(Array.isArray(step.claims) ? step.claims : []).map(claimBox));
    claims.hidden = claims.childElementCount === 0;
    lines.replaceChildren(...(step.lines ?? []).map((item) => el("li", "lab-line", describeItem(item))));
    lines.hidden = !(step.lines ?? []).length;
    stepButtons.forEach((b, i) => {
      if (i === current) b.setAttribute("aria-current", "step");
      else b.removeAttribute("aria-current");
      b.classList.toggle("done", ran.has(i));
    });
    prevButton.disabled = current === 0;
    nextButton.disabled = current === lab.steps.length - 1;
    const typing = step.type === true && !ran.has(current);
    runButton.textContent = ran.has(current) ? t("Ran") : typing ? (typed === 0 ? t("Type the first line") : t("Type the next line")) : t("Run this step");
    runButton.disabled = running || ran.has(current) || !(step.lines ?? []).length;
    notice.textContent = ran.has(current) || !(step.lines ?? []).length ? String(step.notice ?? "") : "";
    notice.hidden = notice.textContent === "";
    if (!ran.has(current)) results.replaceChildren();
  }

  /** @param {number} n */
  function go(n) {
    if (!Number.isInteger(n) || n < 0 || n >= lab.steps.length) return;
    current = n;
    typed = 0;
    const step = lab.steps[n];
    if (typeof step.view === "string") showView(step.view, typeof step.focus === "string" ? step.focus : null);
    render();
    onChange(state());
  }

  /**
   * @param {LabItem} item
   * @param {import("../engine/lab-adapters").SimOutcome} outcome
   */
  function simTable(item, outcome) {
    if (item.sim === "pipeline" && outcome.ok) return pipelineTable(outcome.result);
    const table = el("table", "lab-sim");
    const caption = el("caption", null, t("{sim} simulation", { sim: item.sim }));
    table.append(caption);
    const body = el("tbody");
    if (!outcome.ok) {
      const tr = el("tr");
      tr.append(el("td", "lab-sim-error", outcome.error));
      body.append(tr);
    } else {
      const quoted = item.expect && typeof item.expect === "object" ? Object.keys(item.expect) : null;
      /** @type {Array<[string, unknown]>} */
      const rows = quoted
        ? quoted.flatMap((k) => {
            const v = lookup(outcome.result, k);
            return v && typeof v === "object" && !Array.isArray(v) ? flatten(v, `${k}.`) : [[k, v]];
          })
        : flatten(outcome.result);
      for (const [k, v] of rows) {
        const tr = el("tr");
        tr.dataset.metric = k;
        const td = el("td", null, formatValue(v));
        td.dataset.value = JSON.stringify(v ?? null);
        // The metric in words where known, with its name (the lab's texts quote it).
        const label = simMetricLabel(item.sim ?? "", k);
        const th = el("th");
        if (label) th.append(el("span", "lab-sim-label", label), " ");
        th.append(el(label ? "code" : "span", label ? "lab-sim-key" : null, k));
        tr.append(th, td);
        body.append(tr);
      }
    }
    table.append(body);
    return table;
  }

  /** Runs the current step's lines (or types the next one, for a `type: true` step). */
  function runStep() {
    const step = lab.steps[current];
    const items = step.lines ?? [];
    if (ran.has(current) || items.length === 0) return;
    if (step.type === true) {
      // Type the next line for the learner; items without a line (receive, sim) run at once.
      while (typed < items.length && typeof items[typed].line !== "string") runItem(items[typed++]);
      if (typed < items.length) {
        const item = items[typed++];
        const n = consoleOf(item);
        consoles.ensure(n, item.server === 1 ? 1 : 0);
        consoles.typeOn(n, String(item.line));
      }
      if (typed >= items.length) ran.add(current);
      render();
      onChange(state());
      return;
    }
    void runAll(current, items);
  }

  /** Resolves once no script is running (the page's loop runs it in slices, frame by frame). */
  function scriptDone() {
    return new Promise((resolve) => {
      const check = () => (scriptBusy() ? setTimeout(check, 20) : resolve(undefined));
      check();
    });
  }

  /**
   * Runs a step's items in order. A line whose script outlives its first slice (a script
   * building a big key) is answered only when the script ends: the next item waits for that,
   * as a second line typed into redis-cli would.
   * @param {number} at  the step
   * @param {LabItem[]} items
   */
  async function runAll(at, items) {
    if (running) return;
    running = true;
    runButton.disabled = true;
    try {
      for (const item of items) {
        if (scriptBusy()) await scriptDone();
        if (current !== at) return;
        runItem(item);
      }
      if (scriptBusy()) await scriptDone();
      consoles.pollAll();
    } finally {
      running = false;
    }
    if (current !== at) return;
    ran.add(at);
    render();
    onChange(state());
  }

  /** @param {LabItem} item */
  function runItem(item) {
    const n = consoleOf(item);
    const index = (lab.steps[current].lines ?? []).indexOf(item);
    if (item.link && typeof item.link === "object") {
      setLink(item.link);
      consoles.pollAll();
    } else if (typeof item.line === "string") {
      if (!consoles.ensure(n, item.server === 1 ? 1 : 0)) return;
      const r = consoles.submitOn(n, item.line);
      outputs.push({ step: current, item: index, text: r ? String(r.text) : null });
    } else if (typeof item.raw === "boolean") {
      if (consoles.ensure(n, item.server === 1 ? 1 : 0)) consoles.setRaw?.(n, item.raw);
    } else if (item.receive) {
      consoles.ensure(n);
      consoles.pollAll();
      outputs.push({ step: current, item: index, text: unread[n] ?? "" });
      unread[n] = "";
    } else if (typeof item.sim === "string") {
      const outcome = runSim(item.sim, item.config ?? {});
      results.append(simTable(item, outcome));
      outputs.push({ step: current, item: index, result: outcome.ok ? outcome.result : null, error: outcome.ok ? null : outcome.error });
      if (item.sim === "delay-queue" && outcome.ok && showDelayQueue) showDelayQueue(item.config ?? {});
    }
  }

  runButton.addEventListener("click", runStep);
  prevButton.addEventListener("click", () => go(current - 1));
  nextButton.addEventListener("click", () => {
    go(current + 1);
    stepTitle.focus();
  });

  go(0);
  return {
    go,
    runStep,
    state,
    lab,
    outputs: () => outputs.slice(),
    destroy() {
      stopListening?.();
      root.replaceChildren();
      root.classList.remove("lab-player");
    },
  };
}

/**
 * A lab player wired to a mounted playground's parts (playground.js): its consoles, its store
 * (the view a step names comes forward, the key it names opens), its engine's simulations, its
 * delay-queue view. The page's lab mode and the widget's `lab` attribute both use this.
 * @param {HTMLElement} labEl
 * @param {Lab} lab
 * @param {import("../playground").PlaygroundParts} parts
 */
export function attachLab(labEl, lab, parts) {
  return createLabPlayer(labEl, {
    lab,
    consoles: parts.consoles,
    showView(view, focusKey) {
      // A panel this playground has comes forward (its view made if need be: playground.js).
      if (parts.panels.includes(/** @type {any} */ (view))) parts.store.set({ panelView: view });
      if (focusKey) parts.store.set({ selectedDb: 0, selectedKey: focusKey });
    },
    runSim: (kind, simConfig) => parts.engine.runLabSim(kind, simConfig),
    scriptBusy: () => parts.engine.scriptBusy?.() ?? false,
    setLink(link) {
      if (typeof link.latencyMs === "number") parts.engine.setLinkLatency(link.latencyMs);
      if (typeof link.down === "boolean") parts.engine.setLinkDown(link.down);
      parts.loop.wake();
    },
    showDelayQueue: parts.panels.includes("delay-queue")
      ? (simConfig) => {
          void parts.loadViews(["delay-queue"]).then(() => parts.delayQueue?.run({ config: simConfig, compareStrategy: null }, { play: false }));
        }
      : null,
  });
}
