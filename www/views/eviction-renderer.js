// @ts-check
// The eviction view's renderer: the panel's elements (header, gauge, controls box, callouts,
// the "why this victim" detail with its navigation, the workload, the comparison, the LRU
// figure's box) and the drawing of the parts that are not components of their own. DOM only:
// the words come from eviction-model.js; key names go in through textContent.

import { el } from "../dom.js";
import { t } from "../i18n.js";
import { describeSpec, hitRatio, POLICIES } from "../workload.js";
import { formatTimeOfDay } from "./clock-model.js";
import { readReport } from "./eviction-report.js";
import { renderEviction } from "./eviction-pool.js";
import { renderComparison } from "./eviction-charts.js";
import * as model from "./eviction-model.js";

/** @typedef {import("./eviction-model.js").EvictionState} EvictionState */
/** @typedef {ReturnType<typeof createEvictionDom>} EvictionDom */
/** @typedef {ReturnType<typeof import("./eviction-controls.js").createMemoryControls>} MemoryControls */
/** @typedef {ReturnType<typeof import("./eviction-controls.js").createWorkloadControls>} WorkloadControls */
/**
 * What the renderer keeps between frames: what the detail panel shows (to redraw only on a
 * change), and the run whose end the workload message followed.
 * @typedef {{shownKey: string, runEnded: number | null}} EvictionUi
 */

/**
 * A section with a heading row.
 * @param {string} id
 * @param {string} title
 */
function section(id, title) {
  const box = el("section", "ev-section");
  box.id = id;
  const head = el("div", "expiry-subhead");
  head.append(el("h3", "expiry-subtitle", title));
  box.append(head);
  return { box, head };
}

/**
 * @param {string} text
 * @param {string} id
 */
function navButton(text, id) {
  const b = el("button", "btn btn-small", text);
  b.type = "button";
  b.id = id;
  return b;
}

function createGauge() {
  const gauge = el("div", "ev-gauge");
  gauge.id = "eviction-gauge";
  const gaugeBar = el("div", "ev-gauge-bar");
  const gaugeFill = el("div", "ev-gauge-fill");
  const gaugeLimit = el("div", "ev-gauge-limit");
  gaugeBar.append(gaugeFill, gaugeLimit);
  const gaugeText = el("p", "ev-gauge-text");
  gaugeText.id = "eviction-gauge-text";
  gauge.append(gaugeBar, gaugeText);
  return { gauge, gaugeFill, gaugeLimit, gaugeText };
}

function createCallouts() {
  const callouts = el("div", "ev-callouts");
  const oomBox = el("div", "ev-oom");
  oomBox.id = "eviction-oom";
  oomBox.setAttribute("role", "status");
  oomBox.hidden = true;
  const lostBox = el("p", "ev-lost");
  lostBox.id = "eviction-lost";
  lostBox.hidden = true;
  callouts.append(oomBox, lostBox);
  return { callouts, oomBox, lostBox };
}

function createDetail() {
  const detailSec = section("eviction-why", t("Why this victim"));
  const nav = el("div", "ev-nav");
  const older = navButton(t("◀ older"), "eviction-older");
  const newer = navButton(t("newer ▶"), "eviction-newer");
  const latest = navButton(t("latest"), "eviction-latest");
  const navText = el("span", "ev-nav-text");
  navText.id = "eviction-nav-text";
  nav.append(older, newer, latest, navText);
  detailSec.head.append(nav);
  const detail = el("div", "ev-detail");
  detail.id = "eviction-detail";
  detail.setAttribute("aria-live", "polite");
  detailSec.box.append(detail);
  return { detailBox: detailSec.box, older, newer, latest, navText, detail };
}

function createWorkload() {
  const workloadSec = section("eviction-workload-section", t("Workload: a cache in front of a slow store (GET; SET on a miss)"));
  const workloadBox = el("div", "expiry-controls");
  const runText = el("p", "ev-run-text");
  runText.id = "eviction-run-text";
  const ratioHead = el("div", "expiry-subhead");
  const clearRuns = el("button", "btn btn-small btn-quiet", t("Clear"));
  clearRuns.type = "button";
  clearRuns.id = "eviction-ratio-clear";
  ratioHead.append(el("span", "expiry-subtitle", t("Hit ratio over the run (keyspace_hits / (hits + misses), last 1,000 requests)")), clearRuns);
  const ratioBox = el("div", "ev-ratio");
  ratioBox.id = "eviction-ratio";
  workloadSec.box.append(workloadBox, runText, ratioHead, ratioBox);
  return { workloadSection: workloadSec.box, workloadBox, runText, clearRuns, ratioBox };
}

function createCompare() {
  const compareSec = section("eviction-compare-section", t("Compare policies: the same workload and seed, a fresh engine each"));
  const compareText = el("p", "expiry-caption");
  compareText.id = "eviction-compare-text";
  const progress = el("progress", "ev-progress");
  progress.id = "eviction-compare-progress";
  progress.max = 1;
  progress.value = 0;
  progress.hidden = true;
  const compareList = el("ol", "ev-cmp-list");
  compareList.id = "eviction-compare";
  const compareCaption = el("p", "expiry-caption");
  compareCaption.id = "eviction-compare-caption";
  compareSec.box.append(compareText, progress, compareList, compareCaption);
  return { compareBox: compareSec.box, compareText, progress, compareList, compareCaption };
}

/**
 * Empties `root` and builds the panel in it.
 * @param {HTMLElement} root
 */
export function createEvictionDom(root) {
  root.replaceChildren();
  root.classList.add("eviction-view");
  const head = el("header", "panel-head");
  const summary = el("span", "expiry-summary");
  summary.id = "eviction-summary";
  head.append(el("h2", "panel-title", t("Eviction")), summary);
  const controlsBox = el("div", "expiry-controls");
  controlsBox.id = "eviction-controls";
  const lruBox = section("eviction-lru-section", t("How good is approximated LRU? (the Redis docs' experiment)")).box;
  const dom = { root, summary, controlsBox, lruBox, ...createGauge(), ...createCallouts(), ...createDetail(), ...createWorkload(), ...createCompare() };
  root.append(head, dom.gauge, controlsBox, dom.callouts, dom.detailBox, dom.workloadSection, dom.compareBox, lruBox);
  return dom;
}

// ---------------------------------------------------------------------------------------------
// Drawing the parts
// ---------------------------------------------------------------------------------------------

/**
 * @param {EvictionDom} dom
 * @param {EvictionState} s
 */
export function drawHead(dom, s) {
  dom.summary.textContent = model.headText(s);
}

/**
 * used_memory against maxmemory; the memory form shows the limit (and a suggestion without one).
 * @param {EvictionDom} dom
 * @param {EvictionState} s
 * @param {MemoryControls} controls
 */
export function drawGauge(dom, s, controls) {
  const memory = s.memory;
  dom.root.dataset.used = memory ? String(memory.used) : "";
  dom.root.dataset.maxmemory = memory ? String(memory.maxmemory) : "";
  if (!memory) {
    dom.gaugeText.textContent = "";
    return;
  }
  const g = model.gauge(memory);
  dom.gauge.classList.toggle("is-over", g.over);
  dom.gauge.classList.toggle("is-unlimited", g.unlimited);
  dom.gaugeFill.style.width = g.fill;
  dom.gaugeLimit.hidden = g.limit === null;
  if (g.limit !== null) dom.gaugeLimit.style.left = g.limit;
  dom.gaugeText.textContent = g.text;
  controls.setValues({ maxmemory: s.config.maxmemory ?? String(memory.maxmemory), suggestion: g.suggestion });
}

/**
 * @param {EvictionState} s
 * @param {MemoryControls} controls
 */
export function drawControls(s, controls) {
  const { maxmemory, policy, samples } = s.config;
  controls.setValues({ maxmemory: maxmemory ?? undefined, policy: policy ?? undefined, samples: samples ?? undefined });
}

/**
 * The OOM state, and events lost by the engine.
 * @param {EvictionDom} dom
 * @param {EvictionState} s
 * @param {number} lost  drains whose events could not be read
 */
export function drawCallouts(dom, s, lost) {
  const on = model.inOom(s);
  dom.oomBox.hidden = !on;
  dom.root.dataset.oom = String(on);
  if (on) {
    const o = model.oomText(s);
    dom.oomBox.replaceChildren(
      el("strong", "ev-oom-title", o.title),
      el("span", "ev-oom-text", o.text),
      el("code", "ev-oom-error", o.error),
      el("span", "ev-oom-from", o.from),
    );
    dom.oomBox.dataset.policy = o.policy;
  }
  dom.lostBox.hidden = lost === 0;
  dom.root.dataset.lost = String(lost);
  if (lost > 0) dom.lostBox.textContent = model.lostText(lost, s.memory);
}

/**
 * The eviction shown (or why there is none), redrawn only when it changed.
 * @param {EvictionDom} dom
 * @param {EvictionState} s
 * @param {EvictionUi} ui
 */
export function drawDetail(dom, s, ui) {
  const nav = model.detailNav(s);
  dom.older.disabled = nav.olderDisabled;
  dom.newer.disabled = nav.newerDisabled;
  dom.latest.disabled = nav.newerDisabled;
  dom.root.dataset.evictions = String(s.seen);
  dom.root.dataset.shown = nav.event === null ? "" : String(nav.n);
  dom.navText.textContent = nav.text;
  if (nav.event === null) {
    const key = `none:${s.memory?.maxmemory ?? ""}:${model.policyNow(s)}:${model.inOom(s)}`;
    if (ui.shownKey === key) return;
    ui.shownKey = key;
    dom.detail.replaceChildren(el("p", "ev-empty", model.noEvictionText(s)));
    return;
  }
  const key = `${nav.n}:${s.config.samples}`;
  if (ui.shownKey === key) return;
  ui.shownKey = key;
  // Announce an eviction to screen readers when stepped or paused, not four times a second.
  dom.detail.setAttribute("aria-live", s.playing ? "off" : "polite");
  renderEviction(dom.detail, readReport(nav.event), { samplesConfig: s.config.samples, formatTime: formatTimeOfDay });
}

/**
 * The live run in one line (and its data-* attributes); the form's buttons follow it.
 * @param {EvictionDom} dom
 * @param {EvictionState} s
 * @param {EvictionUi} ui
 * @param {WorkloadControls} controls
 * @param {boolean} paused
 */
export function drawWorkload(dom, s, ui, controls, paused) {
  const st = s.runStatus;
  if (st?.done && ui.runEnded !== st.id) {
    ui.runEnded = st.id;
    controls.say("", "info");
  }
  controls.setRunning({ live: Boolean(st && !st.done), comparing: s.compareStatus?.running ?? false });
  const d = dom.root.dataset;
  if (!st) {
    dom.runText.textContent = t("Not running. Start sends GET key for each request and SET key on a miss, so the cache fills up to maxmemory and then evicts.");
    d.runRequests = "";
    return;
  }
  const ratio = hitRatio(st.samples);
  dom.runText.textContent = model.runLine(st, ratio, paused);
  d.runRequests = String(st.requests);
  d.runStart = String(st.startMs);
  d.runDone = String(st.done);
  d.runRatio = ratio === null ? "" : String(ratio);
  d.runHits = String(st.info.hits);
  d.runMisses = String(st.info.misses);
}

/**
 * The comparison: its line, progress and one row per policy.
 * @param {EvictionDom} dom
 * @param {EvictionState} s
 * @param {WorkloadControls} controls
 */
export function drawCompare(dom, s, controls) {
  const st = s.compareStatus;
  controls.setRunning({ live: s.runStatus !== null && !s.runStatus.done, comparing: st?.running ?? false });
  if (!st) {
    dom.compareText.textContent = t(
      "Runs the workload above (its requests, 20,000 if unlimited) once per policy, each on a fresh engine with this page's seed, maxmemory and samples — the same requests at the same virtual times.",
    );
    dom.compareList.replaceChildren();
    dom.compareCaption.textContent = "";
    dom.progress.hidden = true;
    return;
  }
  dom.progress.hidden = !st.running;
  dom.progress.value = st.progress;
  dom.compareBox.dataset.running = String(st.running);
  dom.compareBox.dataset.done = String(!st.running && !st.failed && st.results.length === POLICIES.length);
  dom.compareText.textContent = model.compareLine(st, describeSpec(st.spec));
  renderComparison(dom.compareList, { ...st, policiesOrder: POLICIES }, dom.compareCaption);
}
