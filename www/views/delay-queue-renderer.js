// @ts-check
// The delay-queue panel's renderer: its elements (header, intro, the form's box, the player,
// the status, the axis bar and the legend, one box per run, the strategy's code and "what
// happened") and the writing of the panel's words into them. DOM only: every word comes from
// delay-queue-panel-model.js, and everything from the run goes in through textContent.

import { el } from "../dom.js";
import { t } from "../i18n.js";
import { number } from "../format.js";
import { DQ_SPEEDS } from "../labs/delay-queue-runner.js";
import { LANE_COLORS } from "./delay-queue-lanes-canvas.js";
import { FATES } from "./delay-queue-model.js";
import { clockText, laneColumns, fatesOf, laneRows, logLines, playerState, runTitle, statusText, summaryText } from "./delay-queue-panel-model.js";

/** @typedef {import("./delay-queue-model.js").RunModel} RunModel */
/** @typedef {import("./delay-queue-panel-model.js").RunnerFrame} RunnerFrame */
/** @typedef {ReturnType<typeof createDelayQueueDom>} DelayQueueDom */
/** @typedef {ReturnType<typeof createRunBox>} RunBox */

/**
 * @param {string} id
 * @param {string} text
 * @param {string} title
 * @param {string} [className]
 */
function button(id, text, title, className = "btn btn-small") {
  const b = el("button", className, text);
  b.type = "button";
  b.id = id;
  if (title) b.title = title;
  return b;
}

/** The player: the lab's clock, play/pause, step, reset, speed and "skip to". */
function createPlayer() {
  const player = el("div", "dq-player");
  player.setAttribute("role", "group");
  player.setAttribute("aria-label", t("Lab clock"));
  const clockBox = el("div", "dq-clock");
  const clockTime = el("span", "dq-clock-time", "12:00:00.000");
  clockTime.id = "dq-clock";
  const clockSub = el("span", "dq-clock-sub");
  clockSub.id = "dq-clock-sub";
  clockBox.append(clockTime, clockSub);
  const playBtn = button("dq-play", t("▶ Play"), t("Play the lab's clock at the chosen speed (Space on the timeline)"), "btn btn-small btn-play");
  const stepBtn = button("dq-step", t("Step"), t("Pause and run to the next thing that happens (a command arriving, a reply, a message, an order…)"));
  const resetBtn = button("dq-reset", t("Reset"), t("The same settings again from the start, paused"));
  const speedLabel = el("label", "xc-label", `${t("speed")} `);
  const speedSel = el("select", "xc-select");
  speedSel.id = "dq-speed";
  for (const s of DQ_SPEEDS) {
    const o = el("option", "", s === "max" ? t("max") : `${s}×`);
    o.value = String(s);
    o.title = s === "max" ? t("As fast as the page can run it (about 8 ms of work per frame)") : t("{n} virtual seconds per real second", { n: s });
    speedSel.append(o);
  }
  speedLabel.append(speedSel);
  const skipForm = el("form", "dq-skip");
  skipForm.noValidate = true;
  const skipLabel = el("label", "xc-label", `${t("skip to")} `);
  const skipInput = el("input", "xc-input");
  skipInput.id = "dq-skip";
  skipInput.size = 9;
  skipInput.autocomplete = "off";
  skipInput.spellcheck = false;
  skipInput.title = t("A wall-clock time (12:29:58) or a time since the start (+29m58s); the lab runs there and pauses");
  const skipMsg = el("p", "dq-field-msg");
  skipMsg.id = "dq-skip-msg";
  skipMsg.hidden = true;
  skipInput.setAttribute("aria-describedby", skipMsg.id);
  skipLabel.append(skipInput);
  const skipGo = button("dq-skip-go", t("Go"), t("Run to that time and pause"));
  skipGo.type = "submit";
  skipForm.append(skipLabel, skipGo, skipMsg);
  player.append(clockBox, playBtn, stepBtn, resetBtn, speedLabel, skipForm);
  return { player, clockTime, clockSub, playBtn, stepBtn, resetBtn, speedSel, skipForm, skipInput, skipMsg, skipGo };
}

/** The axis controls. */
function createAxisBar() {
  const axisBar = el("div", "dq-axis-bar");
  axisBar.setAttribute("role", "group");
  axisBar.setAttribute("aria-label", t("Timeline window"));
  /**
   * @param {string} id
   * @param {string} text
   * @param {string} title
   * @param {string} label
   */
  const labelled = (id, text, title, label) => {
    const b = button(id, text, title);
    b.setAttribute("aria-label", label);
    return b;
  };
  const zoomOut = labelled("dq-zoom-out", "−", t("Zoom out (− on the timeline; or the mouse wheel)"), t("Zoom out"));
  const zoomIn = labelled("dq-zoom-in", "+", t("Zoom in (+ on the timeline; or the mouse wheel)"), t("Zoom in"));
  const panLeft = labelled("dq-pan-left", "◀", t("Earlier (← on the timeline; or drag)"), t("Pan to earlier"));
  const panRight = labelled("dq-pan-right", "▶", t("Later (→ on the timeline; or drag)"), t("Pan to later"));
  const fitBtn = button("dq-fit", t("Whole run"), t("Show the whole run (0 on the timeline)"));
  const followBtn = button("dq-follow", t("Follow now"), t("Keep the moving now in view while the lab plays (F on the timeline)"));
  followBtn.setAttribute("aria-pressed", "true");
  const windowText = el("span", "dq-window-text");
  windowText.id = "dq-window";
  axisBar.append(zoomOut, zoomIn, panLeft, panRight, fitBtn, followBtn, windowText);
  return { axisBar, zoomOut, zoomIn, panLeft, panRight, fitBtn, followBtn, windowText };
}

function createLegend() {
  const legend = el("div", "dq-legend");
  legend.id = "dq-legend";
  legend.setAttribute("aria-label", t("Legend"));
  /**
   * @param {string} color
   * @param {string} text
   * @param {string} [shape]
   */
  const legendItem = (color, text, shape = "box") => {
    const item = el("span", "dq-legend-item");
    const sw = el("span", `dq-swatch dq-swatch-${shape}`);
    sw.style.setProperty("--c", color);
    item.append(sw, document.createTextNode(text));
    return item;
  };
  const fateLegend = el("span", "dq-legend-group");
  fateLegend.append(el("span", "dq-legend-head", t("Tasks at their due time:")));
  for (const f of FATES) fateLegend.append(legendItem(f.color, f.label));
  const laneLegend = el("span", "dq-legend-group");
  laneLegend.append(
    el("span", "dq-legend-head", t("Consumer lanes:")),
    legendItem(LANE_COLORS.empty, t("empty poll"), "tick"),
    legendItem(LANE_COLORS.poll, t("poll that found tasks"), "bar"),
    legendItem(LANE_COLORS.claim, t("ZREM/DEL → removed it (claim)"), "tri"),
    legendItem(LANE_COLORS.missed, t("→ removed nothing"), "x"),
    legendItem(LANE_COLORS.process, t("processing")),
    legendItem(LANE_COLORS.again, t("processing a task again")),
    legendItem(LANE_COLORS.cut, t("cut by a crash")),
    legendItem(LANE_COLORS.sleep, t("sleep"), "line"),
    legendItem(LANE_COLORS.message, t("pub/sub message"), "dot"),
    legendItem(LANE_COLORS.crashEdge, t("consumer down"), "crash"),
  );
  const legendNote = el(
    "span",
    "dq-legend-note",
    t("Marks show what the events so far say; “{lost}” and the final fates come when the run ends.", { lost: FATES.find((f) => f.id === "lost")?.label ?? "" }),
  );
  legend.append(fateLegend, laneLegend, legendNote);
  return legend;
}

/** The strategy's code and "what happened". */
function createBottom() {
  const bottom = el("div", "dq-bottom");
  const codeBox = el("section", "dq-code");
  codeBox.id = "dq-code";
  codeBox.append(el("h3", "expiry-subtitle", t("The strategy's client code")));
  const logBox = el("section", "dq-log-box");
  const logHead = el("div", "expiry-subhead");
  const logRunSel = el("select", "xc-select");
  logRunSel.id = "dq-log-run";
  logRunSel.setAttribute("aria-label", t("Which run's events to list"));
  logHead.append(el("h3", "expiry-subtitle", t("What happened (latest first)")), logRunSel);
  const logList = el("ol", "dq-log");
  logList.id = "dq-log";
  logList.setAttribute("aria-label", t("The lab's events in words, latest first"));
  logBox.append(logHead, logList);
  bottom.append(codeBox, logBox);
  return { bottom, codeBox, logRunSel, logList };
}

/**
 * Empties `root` and builds the panel in it.
 * @param {HTMLElement} root
 */
export function createDelayQueueDom(root) {
  root.replaceChildren();
  root.classList.add("dq-view");
  const head = el("header", "panel-head");
  const summary = el("span", "expiry-summary");
  summary.id = "dq-summary";
  head.append(el("h2", "panel-title", t("Delay queue")), summary);
  const intro = el(
    "p",
    "expiry-caption",
    t(
      "“Close the order if it is unpaid after 30 minutes”, six ways: a producer adds orders, consumers look for the due ones. Each is a real client of a Redis engine and every command runs at its virtual arrival time, so races come from timing. The lab has its own engine and its own clock (the buttons below), apart from the clock bar and the console.",
    ),
  );
  intro.id = "dq-intro";
  const controlsBox = el("div", "dq-controls");
  controlsBox.id = "dq-controls";
  const status = el("p", "dq-status");
  status.id = "dq-status";
  const announce = el("p", "visually-hidden");
  announce.id = "dq-announce";
  announce.setAttribute("aria-live", "polite");
  const runsBox = el("div", "dq-runs");
  runsBox.id = "dq-runs";
  const dom = { root, summary, controlsBox, status, announce, runsBox, ...createPlayer(), ...createAxisBar(), ...createBottom() };
  root.append(head, intro, controlsBox, dom.player, status, announce, dom.axisBar, createLegend(), runsBox, dom.bottom);
  return dom;
}

// ---------------------------------------------------------------------------------------------
// One box per run
// ---------------------------------------------------------------------------------------------

/** The consumer lanes in numbers: a table with the LANE_COLUMNS. */
function createLanesTable() {
  const details = el("details", "dq-lanes-details");
  details.append(el("summary", "", t("The consumer lanes in numbers")));
  const table = el("table", "dq-lanes");
  const thead = el("thead");
  const hr = el("tr");
  for (const h of laneColumns()) {
    const th = el("th", "", h);
    th.scope = "col";
    hr.append(th);
  }
  thead.append(hr);
  const lanesBody = el("tbody");
  table.append(thead, lanesBody);
  details.append(table);
  return { details, table, lanesBody };
}

/**
 * A run's box (title, fates, the timeline's and the metrics' boxes, the lanes table) and its
 * code, appended to the panel.
 * @param {DelayQueueDom} dom
 * @param {RunnerFrame["runs"][number]} run
 * @param {number} runs  how many runs there are
 */
export function createRunBox(dom, run, runs) {
  const box = el("section", "dq-run");
  box.id = `dq-run-${run.label.toLowerCase()}`;
  box.dataset.run = run.label;
  box.dataset.strategy = String(run.strategy);
  const title = el("h3", "dq-run-title", runTitle(run, runs));
  title.id = `${box.id}-title`;
  box.setAttribute("aria-labelledby", title.id);
  const fates = el("p", "dq-fates");
  fates.id = `${box.id}-fates`;
  const row = el("div", "dq-run-row");
  const tlBox = el("div", "dq-timeline-box");
  const metricsBox = el("div");
  metricsBox.id = `${box.id}-metrics`;
  row.append(tlBox, metricsBox);
  const lanes = createLanesTable();
  lanes.table.id = `${box.id}-lanes`;
  box.append(title, fates, row, lanes.details);
  dom.runsBox.append(box);

  const code = el("details", "dq-code-item");
  code.open = true;
  code.append(el("summary", "", runTitle(run, runs)));
  const pre = el("pre", "dq-pre");
  pre.id = `dq-code-${run.label.toLowerCase()}`;
  // It scrolls: reachable from the keyboard, named by its strategy.
  pre.tabIndex = 0;
  pre.setAttribute("role", "region");
  pre.setAttribute("aria-label", t("Client code of run {label}", { label: run.label }));
  pre.textContent = run.code;
  code.append(pre);
  dom.codeBox.append(code);
  return { box, fates, lanesBody: lanes.lanesBody, tlBox, metricsBox };
}

/**
 * Empties the runs and their code.
 * @param {DelayQueueDom} dom
 */
export function clearRuns(dom) {
  dom.runsBox.replaceChildren();
  dom.codeBox.replaceChildren(el("h3", "expiry-subtitle", t("The strategy's client code")));
}

/**
 * The select of the runs whose events "what happened" lists (hidden with one run).
 * @param {DelayQueueDom} dom
 * @param {readonly string[]} labels
 */
export function showLogRuns(dom, labels) {
  dom.logRunSel.replaceChildren(
    ...labels.map((label, i) => {
      const o = el("option", "", t("run {label}", { label }));
      o.value = String(i);
      return o;
    }),
  );
  dom.logRunSel.hidden = labels.length < 2;
}

/**
 * A run's fates line and data-* attributes.
 * @param {RunBox} box
 * @param {RunModel} model
 */
export function showFates(box, model) {
  const f = fatesOf(model);
  box.fates.textContent = f.text;
  Object.assign(box.box.dataset, f.dataset);
}

/**
 * The lanes table, cells rewritten only when they change.
 * @param {RunBox} box
 * @param {RunModel} model
 */
export function showLanes(box, model) {
  const rows = laneRows(model);
  const body = box.lanesBody;
  const columns = laneColumns().length;
  while (body.rows.length < rows.length) {
    const tr = el("tr");
    for (let k = 0; k < columns; k += 1) tr.append(el(k === 0 ? "th" : "td"));
    /** @type {HTMLTableCellElement} */ (tr.cells[0]).scope = "row";
    body.append(tr);
  }
  rows.forEach((values, r) => {
    const tr = body.rows[r];
    tr.dataset.lane = String(r);
    values.forEach((val, k) => {
      const text = typeof val === "number" ? number(val) : val;
      const cell = tr.cells[k];
      if (cell.textContent !== text) cell.textContent = text;
      if (k > 0) cell.dataset.value = String(val);
    });
  });
}

/**
 * "What happened" for one run, latest first.
 * @param {DelayQueueDom} dom
 * @param {RunModel} model
 * @param {(ms: number) => string} timeText
 */
export function showLog(dom, model, timeText) {
  dom.logList.replaceChildren(
    ...logLines(model, timeText).map((line) => {
      const li = el("li", `dq-log-line is-${line.kind}`);
      li.append(el("time", "dq-log-time", line.time), document.createTextNode(` ${line.text}`));
      return li;
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// The player, the status, the window
// ---------------------------------------------------------------------------------------------

/**
 * @param {DelayQueueDom} dom
 * @param {number} now
 * @param {number} startMs
 * @param {number} durationMs
 */
export function showClock(dom, now, startMs, durationMs) {
  const c = clockText(now, startMs, durationMs);
  dom.clockTime.textContent = c.time;
  dom.clockTime.dataset.ms = String(now);
  dom.clockTime.dataset.wall = String(c.wall);
  dom.clockSub.textContent = c.sub;
}

/**
 * The player's buttons, the status line and the header.
 * @param {DelayQueueDom} dom
 * @param {RunnerFrame} s
 * @param {{startMs: number, durationMs: number, dropped: number}} o
 */
export function showStatus(dom, s, { startMs, durationMs, dropped }) {
  const p = playerState(s);
  dom.playBtn.textContent = p.play;
  dom.playBtn.setAttribute("aria-pressed", String(s.playing));
  dom.playBtn.disabled = p.playDisabled;
  dom.stepBtn.disabled = p.stepDisabled;
  dom.skipGo.disabled = p.skipDisabled;
  const { text, kind } = statusText(s, startMs, durationMs, dropped);
  dom.status.textContent = text;
  dom.status.className = `dq-status is-${kind}`;
  Object.assign(dom.root.dataset, { playing: String(s.playing), done: String(s.done), now: String(s.now), generation: String(s.generation) });
  dom.summary.textContent = summaryText(s.runs);
}

/**
 * @param {DelayQueueDom} dom
 * @param {boolean} on
 */
export function showFollow(dom, on) {
  dom.followBtn.setAttribute("aria-pressed", String(on));
  dom.followBtn.classList.toggle("is-on", on);
}

/**
 * The sentence under "skip to" (null: none).
 * @param {DelayQueueDom} dom
 * @param {string | null} problem
 */
export function showSkipProblem(dom, problem) {
  dom.skipMsg.hidden = problem === null;
  dom.skipMsg.textContent = problem ?? "";
  dom.skipMsg.classList.toggle("is-error", problem !== null);
  if (problem) dom.skipInput.setAttribute("aria-invalid", "true");
  else dom.skipInput.removeAttribute("aria-invalid");
}
