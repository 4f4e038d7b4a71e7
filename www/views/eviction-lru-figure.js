// The LRU-approximation figure for the eviction view: the Redis docs' experiment ("Approximated
// LRU algorithm") run by the engine (src/sim/lru_experiment.rs, `lru_experiment`) on separate
// engines — N old keys written one virtual second apart, then N/2 new keys under a maxmemory
// that forces as many old ones out. Per tenth of the old keys by age, the share evicted by true
// LRU and by the sampled pool at maxmemory-samples 5, 10 and a value of the user's: bars like
// the docs' figure, and the same numbers as a table. The page never computes them itself.

/** Defaults: old keys, the user's samples value (shown beside 5 and 10), the seed. */
export const LRU_DEFAULTS = Object.freeze({ keys: 10_000, samples: 3, seed: 1 });
export const MAX_LRU_KEYS = 200_000;

const number = (n) => Number(n).toLocaleString("en-US");

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export const LRU_SERIES_COLORS = Object.freeze(["#d4d7dd", "#7fb4ff", "#7ec699", "#ff8a4c"]);

const seriesName = (r) => (r.samples === 0 ? "true LRU" : `samples ${r.samples}`);

/**
 * @param {HTMLElement} chart  gets the bars
 * @param {HTMLTableElement} table  gets the numbers
 * @param {HTMLElement} legend
 * @param {Array<object>} results  engine.lruExperiment results, true LRU first
 */
export function renderLruFigure(chart, table, legend, results) {
  legend.replaceChildren(
    ...results.map((r, i) => {
      const li = el("li", "ev-lru-key");
      const sw = el("span", "ev-swatch");
      sw.style.background = LRU_SERIES_COLORS[i % LRU_SERIES_COLORS.length];
      li.append(sw, document.createTextNode(seriesName(r)));
      return li;
    }),
  );
  const groups = [];
  for (let d = 0; d < 10; d += 1) {
    const g = el("div", "ev-lru-group");
    g.dataset.decile = String(d);
    const bars = el("div", "ev-lru-bars");
    results.forEach((r, i) => {
      const v = r.evictedByDecile[d] ?? 0;
      const b = el("span", "ev-lru-bar");
      b.style.height = `${(v * 100).toFixed(2)}%`;
      b.style.background = LRU_SERIES_COLORS[i % LRU_SERIES_COLORS.length];
      b.title = `${seriesName(r)}: ${(v * 100).toFixed(1)}% of the keys ${d * 10}–${(d + 1) * 10}% oldest evicted`;
      b.dataset.samples = String(r.samples);
      b.dataset.share = String(v);
      bars.append(b);
    });
    g.append(bars, el("span", "ev-lru-tick", d === 0 ? "oldest" : d === 9 ? "newest" : `${d * 10}%`));
    groups.push(g);
  }
  const axis = el("div", "ev-lru-axis");
  axis.setAttribute("aria-hidden", "true");
  for (const v of ["100%", "50%", "0%"]) axis.append(el("span", "", v));
  chart.replaceChildren(axis, ...groups);

  const head = el("thead");
  const hr = el("tr");
  hr.append(el("th", "", "old keys by age"));
  for (const r of results) hr.append(el("th", "", seriesName(r)));
  head.append(hr);
  const body = el("tbody");
  for (let d = 0; d < 10; d += 1) {
    const tr = el("tr");
    tr.append(el("th", "", `${d * 10}–${(d + 1) * 10}%${d === 0 ? " (oldest)" : d === 9 ? " (newest)" : ""}`));
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
  tr.append(el("th", "", "new keys"));
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
 * The figure's form, caption, chart and table, appended to `box`.
 * @param {HTMLElement} box
 * @param {{lruExperiment(keys: number, samples: number, seed: number): object|null,
 *          now(): number, done(): void}} deps  `done` is called when new results are in
 */
export function createLruFigure(box, { lruExperiment, now, done }) {
  const form = el("form", "xc-row ev-lru-form");
  form.noValidate = true;
  const keysLabel = el("label", "xc-label", "keys ");
  const keysInput = el("input", "xc-input");
  keysInput.id = "eviction-lru-keys";
  keysInput.value = String(LRU_DEFAULTS.keys);
  keysInput.size = 7;
  keysInput.setAttribute("aria-label", "Old keys in the experiment");
  keysLabel.append(keysInput);
  const samplesLabel = el("label", "xc-label", "and samples ");
  const samplesInput = el("input", "xc-input");
  samplesInput.id = "eviction-lru-samples";
  samplesInput.value = String(LRU_DEFAULTS.samples);
  samplesInput.size = 3;
  samplesInput.setAttribute("aria-label", "Your maxmemory-samples value to compare");
  samplesLabel.append(samplesInput);
  const runButton = el("button", "btn btn-small", "Run");
  runButton.type = "submit";
  runButton.id = "eviction-lru-run";
  form.append(el("span", "xc-label", "true LRU, samples 5 and 10"), samplesLabel, keysLabel, runButton);
  const message = el("p", "xc-message");
  message.id = "eviction-lru-message";
  message.setAttribute("role", "status");
  const caption = el("p", "expiry-caption");
  caption.id = "eviction-lru-caption";
  const legend = el("ul", "ev-lru-legend");
  const chart = el("div", "ev-lru-chart");
  chart.id = "eviction-lru-chart";
  chart.setAttribute("role", "img");
  chart.setAttribute("aria-label", "Share of each tenth of the old keys evicted, oldest first (the numbers are in the table below)");
  const table = el("table", "ev-lru-table");
  table.id = "eviction-lru-table";
  box.append(form, message, caption, legend, chart, table);

  let results = null;
  let ran = false;

  function say(text, kind) {
    message.textContent = text;
    message.className = `xc-message is-${kind}`;
  }

  function run() {
    ran = true;
    const keys = Number(String(keysInput.value).trim().replace(/[,_]/g, ""));
    if (!(Number.isInteger(keys) && keys >= 10 && keys <= MAX_LRU_KEYS)) {
      keysInput.setAttribute("aria-invalid", "true");
      say(`Keys: a whole number from 10 to ${number(MAX_LRU_KEYS)} (the docs' figure uses about 5,000–10,000).`, "error");
      return;
    }
    const samples = Number(String(samplesInput.value).trim());
    if (!(Number.isInteger(samples) && samples >= 1 && samples <= 64)) {
      samplesInput.setAttribute("aria-invalid", "true");
      say("Samples: a whole number from 1 to 64 (5 and 10 are always shown).", "error");
      return;
    }
    keysInput.removeAttribute("aria-invalid");
    samplesInput.removeAttribute("aria-invalid");
    runButton.disabled = true;
    say(`Running the experiment with ${number(keys)} keys on separate engines…`, "info");
    // One series per task, after the message painted: each takes tens of ms at 10,000 keys,
    // and the page stays responsive in between.
    const series = [0, 5, 10, samples].filter((s, i, a) => a.indexOf(s) === i);
    const got = [];
    let spent = 0;
    const next = () => {
      const t0 = now();
      const r = lruExperiment(keys, series[got.length], LRU_DEFAULTS.seed);
      spent += now() - t0;
      if (r === null) {
        runButton.disabled = false;
        say("The experiment could not run (the engine is restarting).", "error");
        return;
      }
      got.push(r);
      if (got.length < series.length) {
        setTimeout(next, 0);
        return;
      }
      runButton.disabled = false;
      results = got;
      say(`Done in ${number(Math.round(spent))} ms (seed ${LRU_DEFAULTS.seed}).`, "ok");
      done();
    };
    setTimeout(next, 30);
  }

  form.addEventListener("submit", (event) => {
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
        caption.textContent = "";
        return;
      }
      const keys = results[0].keys;
      caption.textContent =
        `${number(keys)} old keys were written one (virtual) second apart, so each has its own LRU clock value; then ${number(keys / 2)} new keys ` +
        "under a maxmemory that forces as many old ones out (allkeys-lru). Bars: the share of each tenth of the old keys that was evicted, oldest on the left. " +
        "True LRU evicts exactly the older half; the sampled pool blurs the edge — more samples, sharper edge.";
      renderLruFigure(chart, table, legend, results);
      box.dataset.keys = String(keys);
    },

    results: () => results,
  };
}
