// @ts-check
// The LRU-approximation figure for the eviction view: the Redis docs' experiment ("Approximated
// LRU algorithm") run by the engine (src/sim/lru_experiment.rs, `lru_experiment`) on separate
// engines — N old keys written one virtual second apart, then N/2 new keys under a maxmemory
// that forces as many old ones out. Per tenth of the old keys by age, the share evicted by true
// LRU and by the sampled pool at maxmemory-samples 5, 10 and a value of the user's: bars like
// the docs' figure, and the same numbers as a table. The page never computes them itself. DOM
// only: the form's parsing and the words are in eviction-forms.js.

import { el } from "../dom.js";
import { number } from "../format.js";
import { t } from "../i18n.js";
import { LRU_DEFAULTS, decileLabels, lruCaption, parseLruParams, seriesName } from "./eviction-forms.js";

export { LRU_DEFAULTS, MAX_LRU_KEYS } from "./eviction-forms.js";

/**
 * One series of the experiment (engine.lruExperiment): `samples` 0 is true LRU.
 * @typedef {{keys: number, samples: number, evictedByDecile: number[], newKeysEvicted: number}} LruResult
 */

export const LRU_SERIES_COLORS = Object.freeze(["#d4d7dd", "#7fb4ff", "#7ec699", "#ff8a4c"]);

/** @param {number} i */
const colorOf = (i) => LRU_SERIES_COLORS[i % LRU_SERIES_COLORS.length];

/**
 * The bars: one group per tenth of the old keys, one bar per series.
 * @param {HTMLElement} chart
 * @param {readonly LruResult[]} results
 */
function renderBars(chart, results) {
  const groups = [];
  for (let d = 0; d < 10; d += 1) {
    const g = el("div", "ev-lru-group");
    g.dataset.decile = String(d);
    const bars = el("div", "ev-lru-bars");
    results.forEach((r, i) => {
      const v = r.evictedByDecile[d] ?? 0;
      const b = el("span", "ev-lru-bar");
      b.style.height = `${(v * 100).toFixed(2)}%`;
      b.style.background = colorOf(i);
      b.title = t("{series}: {share}% of the keys {from}–{to}% oldest evicted", { series: seriesName(r), share: (v * 100).toFixed(1), from: d * 10, to: (d + 1) * 10 });
      b.dataset.samples = String(r.samples);
      b.dataset.share = String(v);
      bars.append(b);
    });
    g.append(bars, el("span", "ev-lru-tick", decileLabels(d).tick));
    groups.push(g);
  }
  const axis = el("div", "ev-lru-axis");
  axis.setAttribute("aria-hidden", "true");
  for (const v of ["100%", "50%", "0%"]) axis.append(el("span", "", v));
  chart.replaceChildren(axis, ...groups);
}

/**
 * The same numbers as a table, plus the share of the new keys evicted.
 * @param {HTMLTableElement} table
 * @param {readonly LruResult[]} results
 */
function renderTable(table, results) {
  const head = el("thead");
  const hr = el("tr");
  hr.append(el("th", "", t("old keys by age")));
  for (const r of results) hr.append(el("th", "", seriesName(r)));
  head.append(hr);
  const body = el("tbody");
  for (let d = 0; d < 10; d += 1) {
    const tr = el("tr");
    tr.append(el("th", "", decileLabels(d).row));
    for (const r of results) {
      const td = el("td", "", `${(r.evictedByDecile[d] * 100).toFixed(1)}%`);
      td.dataset.samples = String(r.samples);
      td.dataset.decile = String(d);
      td.dataset.share = String(r.evictedByDecile[d]);
      tr.append(td);
    }
    body.append(tr);
  }
  const tr = el("tr", "ev-lru-newrow");
  tr.append(el("th", "", t("new keys")));
  for (const r of results) {
    const td = el("td", "", `${(r.newKeysEvicted * 100).toFixed(1)}%`);
    td.dataset.samples = String(r.samples);
    td.dataset.newShare = String(r.newKeysEvicted);
    tr.append(td);
  }
  body.append(tr);
  table.replaceChildren(head, body);
}

/**
 * @param {HTMLElement} chart  gets the bars
 * @param {HTMLTableElement} table  gets the numbers
 * @param {HTMLElement} legend
 * @param {readonly LruResult[]} results  engine.lruExperiment results, true LRU first
 */
export function renderLruFigure(chart, table, legend, results) {
  legend.replaceChildren(
    ...results.map((r, i) => {
      const li = el("li", "ev-lru-key");
      const sw = el("span", "ev-swatch");
      sw.style.background = colorOf(i);
      li.append(sw, document.createTextNode(seriesName(r)));
      return li;
    }),
  );
  renderBars(chart, results);
  renderTable(table, results);
}

/**
 * The form: the user's samples value and the old keys.
 * @param {HTMLElement} box
 */
function createForm(box) {
  const form = el("form", "xc-row ev-lru-form");
  form.noValidate = true;
  const keysLabel = el("label", "xc-label", t("keys "));
  const keysInput = el("input", "xc-input");
  keysInput.id = "eviction-lru-keys";
  keysInput.value = String(LRU_DEFAULTS.keys);
  keysInput.size = 7;
  keysInput.setAttribute("aria-label", t("Old keys in the experiment"));
  keysLabel.append(keysInput);
  const samplesLabel = el("label", "xc-label", `${t("and samples")} `);
  const samplesInput = el("input", "xc-input");
  samplesInput.id = "eviction-lru-samples";
  samplesInput.value = String(LRU_DEFAULTS.samples);
  samplesInput.size = 3;
  samplesInput.setAttribute("aria-label", t("Your maxmemory-samples value to compare"));
  samplesLabel.append(samplesInput);
  const runButton = el("button", "btn btn-small", t("Run"));
  runButton.type = "submit";
  runButton.id = "eviction-lru-run";
  form.append(el("span", "xc-label", t("true LRU, samples 5 and 10")), samplesLabel, keysLabel, runButton);
  const message = el("p", "xc-message");
  message.id = "eviction-lru-message";
  message.setAttribute("role", "status");
  const caption = el("p", "expiry-caption");
  caption.id = "eviction-lru-caption";
  const legend = el("ul", "ev-lru-legend");
  const chart = el("div", "ev-lru-chart");
  chart.id = "eviction-lru-chart";
  chart.setAttribute("role", "img");
  chart.setAttribute("aria-label", t("Share of each tenth of the old keys evicted, oldest first (the numbers are in the table below)"));
  const table = el("table", "ev-lru-table");
  table.id = "eviction-lru-table";
  box.append(form, message, caption, legend, chart, table);
  return { form, keysInput, samplesInput, runButton, message, caption, legend, chart, table };
}

/**
 * The figure's form, caption, chart and table, appended to `box`.
 * @param {HTMLElement} box
 * @param {{lruExperiment(keys: number, samples: number, seed: number): LruResult | null,
 *          now(): number, done(): void}} deps  `done` is called when new results are in
 */
export function createLruFigure(box, { lruExperiment, now, done }) {
  const ui = createForm(box);
  /** @type {LruResult[] | null} */
  let results = null;
  let ran = false;

  /**
   * @param {string} text
   * @param {string} kind
   */
  function say(text, kind) {
    ui.message.textContent = text;
    ui.message.className = `xc-message is-${kind}`;
  }

  function run() {
    ran = true;
    const p = parseLruParams(ui.keysInput.value, ui.samplesInput.value);
    if (!p.ok) {
      (p.field === "keys" ? ui.keysInput : ui.samplesInput).setAttribute("aria-invalid", "true");
      say(p.message, "error");
      return;
    }
    ui.keysInput.removeAttribute("aria-invalid");
    ui.samplesInput.removeAttribute("aria-invalid");
    ui.runButton.disabled = true;
    say(t("Running the experiment with {n} keys on separate engines…", { n: number(p.keys) }), "info");
    // One series per task, after the message painted: each takes tens of ms at 10,000 keys,
    // and the page stays responsive in between.
    /** @type {LruResult[]} */
    const got = [];
    let spent = 0;
    const next = () => {
      const t0 = now();
      const r = lruExperiment(p.keys, p.series[got.length], LRU_DEFAULTS.seed);
      spent += now() - t0;
      if (r === null) {
        ui.runButton.disabled = false;
        say(t("The experiment could not run (the engine is restarting)."), "error");
        return;
      }
      got.push(r);
      if (got.length < p.series.length) {
        setTimeout(next, 0);
        return;
      }
      ui.runButton.disabled = false;
      results = got;
      say(t("Done in {ms} ms (seed {seed}).", { ms: number(Math.round(spent)), seed: LRU_DEFAULTS.seed }), "ok");
      done();
    };
    setTimeout(next, 30);
  }

  ui.form.addEventListener("submit", (event) => {
    event.preventDefault();
    run();
  });

  return {
    /** Runs the experiment (the first time the view is shown, and on "Run"). */
    run() {
      if (!ran) run();
    },

    draw() {
      if (!results) {
        ui.caption.textContent = "";
        return;
      }
      const keys = results[0].keys;
      ui.caption.textContent = lruCaption(keys);
      renderLruFigure(ui.chart, ui.table, ui.legend, results);
      box.dataset.keys = String(keys);
    },

    results: () => results,
  };
}
