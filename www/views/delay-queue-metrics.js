// @ts-check
// A delay-queue run's metrics, exactly as the lab's metrics() reports them (the runner reads
// them; this only lays them out): tasks and their fates, lateness percentiles, and the cost in
// commands sent to Redis. DOM only: the rows and formats are in delay-queue-panel-model.js.

import { el } from "../dom.js";
import { t } from "../i18n.js";
import { METRIC_ROWS, formatMetric } from "./delay-queue-panel-model.js";

export { METRIC_ROWS, formatMs } from "./delay-queue-panel-model.js";

/** @typedef {import("./engine-types.js").SimMetrics} SimMetrics */

/**
 * @param {HTMLElement} root
 * @param {string} label  "A" / "B"
 */
export function createDelayQueueMetrics(root, label) {
  root.replaceChildren();
  root.classList.add("dq-metrics");
  const table = el("table", "dq-metrics-table");
  table.append(el("caption", "", t("Metrics {label}", { label })));
  const body = el("tbody");
  const cells = METRIC_ROWS.map(([key, text, format, title]) => {
    const tr = el("tr");
    tr.title = title();
    const th = el("th", "", text());
    th.scope = "row";
    const td = el("td", "", "—");
    td.dataset.metric = key;
    tr.append(th, td);
    body.append(tr);
    return { key, td, format };
  });
  table.append(body);
  root.append(table);
  /** @type {SimMetrics | null} */
  let last = null;

  return {
    /**
     * Shows a metrics object (null: none yet).
     * @param {SimMetrics | null} metrics
     */
    show(metrics) {
      if (metrics === last) return;
      last = metrics;
      const shown = metrics;
      for (const { key, td, format } of cells) {
        const v = shown ? shown[key] : undefined;
        const text = formatMetric(v, format);
        if (td.textContent !== text) td.textContent = text;
        td.dataset.value = v === null || v === undefined ? "" : String(v);
      }
      root.dataset.now = metrics ? String(metrics.now ?? "") : "";
    },
  };
}
