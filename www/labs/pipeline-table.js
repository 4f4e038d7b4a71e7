// @ts-check
// The pipelining lab's simulation (src/sim/pipeline.rs) as the lab panel shows it: what was
// assumed (the round trip, its preset) and where the server's time per SET comes from (this
// machine's redis-server, the cost model, this page's engine timed now), then one row per way of
// sending — round trips, time, SETs per second, the share spent waiting, keys afterwards.
// Every number carries `data-metric` (its path in the result) and `data-value` (its JSON), which
// the e2e test compares with the lab's `expect`.

import { el } from "../dom.js";
import { number } from "../format.js";
import { t } from "../i18n.js";

/**
 * The simulation's result (src/sim/pipeline.rs Outcome, camelCase), plus what the page measured.
 * @typedef {object} PipelineMode
 * @property {number} roundTrips
 * @property {number} totalMs
 * @property {number} commandsPerSecond
 * @property {number} networkShare
 * @property {number} keys
 *
 * @typedef {object} PipelineResult
 * @property {number} commands
 * @property {number} batch
 * @property {string} network       "same-host" | "same-dc" | "cross-region" | "custom"
 * @property {number} rttUs
 * @property {string} server        "redis-server" | "model" | "this-page" | "given"
 * @property {number} serviceNs
 * @property {number} breakEvenBatch
 * @property {PipelineMode} oneByOne
 * @property {PipelineMode} pipelined
 * @property {number} speedup
 * @property {number} [measuredSets]  this-page: SETs timed
 * @property {number} [measuredMs]    this-page: how long they took (the fastest burst)
 */

/**
 * Rounds to `digits` decimals and formats with grouping.
 * @param {number} n
 * @param {number} digits
 */
function fixed(n, digits) {
  const f = 10 ** digits;
  return number(Math.round(n * f) / f);
}

/**
 * A span of time, in the unit that reads best: 0.79 ms, 79 ms, 2.55 s, 83.3 min.
 * @param {number} ms
 * @returns {string}
 */
export function duration(ms) {
  if (!Number.isFinite(ms)) return "—";
  if (ms < 1) return t("{n} µs", { n: fixed(ms * 1000, ms < 0.01 ? 2 : 1) });
  if (ms < 10) return t("{n} ms", { n: fixed(ms, 2) });
  if (ms < 1000) return t("{n} ms", { n: fixed(ms, 1) });
  if (ms < 120_000) return t("{n} s", { n: fixed(ms / 1000, 2) });
  return t("{n} min", { n: fixed(ms / 60_000, 1) });
}

/**
 * A share as a percentage with one decimal; just under 100% stays under (99.9%, not 100.0%).
 * @param {number} x  0..1
 */
function share(x) {
  const pct = x * 100;
  return `${x < 1 && pct >= 99.95 ? "99.9" : fixed(pct, 1)}%`;
}

/**
 * The server's time per SET: 157 ns → "0.157 µs", 2,040 ns → "2.04 µs".
 * @param {number} ns
 */
export function perSet(ns) {
  const digits = ns < 1000 ? 3 : ns < 10_000 ? 2 : 0;
  return t("{n} µs", { n: fixed(ns / 1000, digits) });
}

/** @param {string} network */
function networkName(network) {
  switch (network) {
    case "same-host":
      return t("same host (loopback)");
    case "same-dc":
      return t("same data centre");
    case "cross-region":
      return t("cross-region");
    default:
      return t("as given");
  }
}

/**
 * Where the server's time per SET comes from, in words.
 * @param {PipelineResult} r
 */
function serverSource(r) {
  switch (r.server) {
    case "redis-server":
      return t("redis-server 7.0.15, measured with redis-benchmark on the machine the lab was written on");
    case "model":
      return t("the cost model (src/cost.rs): what the engine charges its virtual CPU for a SET");
    case "this-page":
      return t("this page's engine (wasm), measured now: {sets} SETs in {ms} ms", {
        sets: number(r.measuredSets ?? 0),
        ms: fixed(r.measuredMs ?? 0, 1),
      });
    default:
      return t("as given");
  }
}

/**
 * A pipeline simulation line as the step's list shows it, before it runs: what it sends and
 * under which assumptions (the config's words; what it leaves out is the simulation's default).
 * @param {Record<string, unknown>} config
 * @returns {string}
 */
export function describePipeline(config) {
  const parts = [];
  if (typeof config.commands === "number") parts.push(t("{n} SETs", { n: number(config.commands) }));
  if (typeof config.batch === "number") parts.push(config.batch === 1 ? t("batches of 1") : t("batches of {n}", { n: number(config.batch) }));
  if (typeof config.rttUs === "number") parts.push(t("round trip {n} µs", { n: number(config.rttUs) }));
  else if (typeof config.network === "string") parts.push(networkName(config.network));
  if (config.server === "this-page") parts.push(t("this page's engine, timed now"));
  else if (config.server === "model") parts.push(t("the cost model"));
  else if (typeof config.serviceNs === "number") parts.push(t("{n} µs per SET as given", { n: fixed(config.serviceNs / 1000, 2) }));
  else parts.push(t("redis-server as measured"));
  return t("pipeline simulation: {what}", { what: parts.join(t(", ")) });
}

/**
 * An element showing one number of the result.
 * @param {"span" | "strong" | "td"} tag
 * @param {string} metric  its path in the result
 * @param {unknown} value
 * @param {string} text
 */
function metricEl(tag, metric, value, text) {
  const e = el(tag, null, text);
  e.dataset.metric = metric;
  e.dataset.value = JSON.stringify(value ?? null);
  return e;
}

/**
 * The pipeline simulation's table.
 * @param {PipelineResult} r
 * @returns {HTMLElement}
 */
export function pipelineTable(r) {
  const table = el("table", "lab-sim lab-sim-pipeline");
  const caption = el("caption");
  caption.append(
    el("strong", null, t("Pipeline simulation")),
    " ",
    metricEl("span", "commands", r.commands, t("{n} SETs", { n: number(r.commands) })),
  );
  const assumed = el("span", "lab-sim-assumed");
  assumed.append(
    t("Round trip: "),
    metricEl("span", "rttUs", r.rttUs, t("{n} µs", { n: number(r.rttUs) })),
    " — ",
    metricEl("span", "network", r.network, networkName(r.network)),
  );
  const server = el("span", "lab-sim-assumed");
  server.append(
    t("Server time per SET: "),
    metricEl("span", "serviceNs", r.serviceNs, perSet(r.serviceNs)),
    " — ",
    metricEl("span", "server", r.server, serverSource(r)),
  );
  caption.append(assumed, server);
  table.append(caption);

  // One column a way of sending, one row a measure: narrow enough for the lab's side panel.
  const head = el("thead");
  const hr = el("tr");
  hr.append(el("th"));
  const oneLabel = el("th", null, t("One at a time"));
  const batchLabel = el("th", null, r.batch === 1 ? t("Batches of 1") : t("Batches of {n}", { n: number(r.batch) }));
  batchLabel.dataset.metric = "batch";
  batchLabel.dataset.value = JSON.stringify(r.batch);
  for (const th of [oneLabel, batchLabel]) th.scope = "col";
  hr.append(oneLabel, batchLabel);
  head.append(hr);
  const body = el("tbody");
  /** @type {Array<[keyof PipelineMode, string, (v: number) => string]>} */
  const measures = [
    ["roundTrips", t("Round trips"), (v) => number(v)],
    ["totalMs", t("Time"), duration],
    ["commandsPerSecond", t("SETs per second"), (v) => number(Math.round(v))],
    ["networkShare", t("Waiting"), share],
    ["keys", t("Keys after"), (v) => number(v)],
  ];
  for (const [key, label, format] of measures) {
    const tr = el("tr");
    const th = el("th", null, label);
    th.scope = "row";
    tr.append(th);
    for (const mode of /** @type {const} */ (["oneByOne", "pipelined"])) {
      const v = r[mode][key];
      tr.append(metricEl("td", `${mode}.${key}`, v, format(v)));
    }
    body.append(tr);
  }
  const foot = el("tfoot");
  const fr = el("tr");
  const cell = el("td");
  cell.colSpan = 3;
  const breakEven = metricEl("span", "breakEvenBatch", r.breakEvenBatch, t("Break-even batch: {n}", { n: number(Math.round(r.breakEvenBatch)) }));
  breakEven.title = t("The batch at which the server's work equals one round trip (round trip ÷ server time per SET)");
  cell.append(
    metricEl("strong", "speedup", r.speedup, t("Pipelining is {x}× faster.", { x: fixed(r.speedup, r.speedup < 10 ? 2 : 1) })),
    " ",
    breakEven,
  );
  fr.append(cell);
  foot.append(fr);
  table.append(head, body, foot);
  // It scrolls sideways on a phone: keyboard users reach it (axe scrollable-region-focusable).
  const wrap = el("div", "lab-sim-scroll");
  wrap.tabIndex = 0;
  wrap.setAttribute("role", "region");
  wrap.setAttribute("aria-label", t("The simulation's table (scrolls sideways)"));
  wrap.append(table);
  return wrap;
}
