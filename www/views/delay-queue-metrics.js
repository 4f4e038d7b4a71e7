// A delay-queue run's metrics, exactly as the lab's metrics() reports them (the runner reads
// them; this only lays them out): tasks and their fates, lateness percentiles, and the cost in
// commands sent to Redis.

/** [key in the metrics object, label, format, title]. */
export const METRIC_ROWS = Object.freeze([
  ["tasks", "tasks", "n", "Orders created so far"],
  ["paid", "paid", "n", "Orders paid before their task was processed: the payment removed the task"],
  ["processed", "processed", "n", "Tasks processed at least once"],
  ["onTime", "on time", "n", "First completed within 1 s of the due time"],
  ["late", "late", "n", "First completed more than 1 s after the due time"],
  ["duplicates", "processed twice+", "n", "Tasks processed more than once"],
  ["extraProcessings", "extra processings", "n", "Processings beyond the first, over all tasks"],
  ["lost", "lost", "n", "Due, unpaid and never processed (final once the run ends)"],
  ["pending", "pending", "n", "Not yet due, or due and not yet processed"],
  ["latenessP50", "lateness p50", "ms", "Median of due → first completed processing, over tasks processed at least once"],
  ["latenessP99", "lateness p99", "ms", "99th percentile of the lateness"],
  ["latenessMax", "lateness max", "ms", "The worst lateness"],
  ["consumerCommands", "consumer commands", "n", "Commands the consumers sent to Redis"],
  ["commandsPerSecond", "commands / s", "rate", "Consumers' commands per virtual second"],
  ["emptyPolls", "empty polls", "n", "Polls that found nothing due"],
  ["messages", "pub/sub messages", "n", "Messages delivered to consumers (keyspace events, wake-ups)"],
  ["producerCommands", "producer commands", "n", "Commands of the producer (orders, payments)"],
]);

/** A lateness in ms as people read it: 850 ms, 12.4 s, 3m 05s, 1h 02m. */
export function formatMs(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(Number(ms))) return "—";
  const n = Number(ms);
  const a = Math.abs(n);
  const sign = n < 0 ? "−" : "";
  if (a < 10_000) return `${sign}${integers.format(Math.round(a))} ms`;
  if (a < 600_000) return `${sign}${(a / 1000).toFixed(1)} s`;
  const s = Math.round(a / 1000);
  if (s < 3600) return `${sign}${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${sign}${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

const integers = new Intl.NumberFormat("en-US");
const rates = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });

function formatValue(v, format) {
  if (v === null || v === undefined) return "—";
  if (format === "ms") return formatMs(v);
  if (format === "rate") return rates.format(Number(v));
  return integers.format(Number(v));
}

/**
 * @param {HTMLElement} root
 * @param {string} label  "A" / "B"
 */
export function createDelayQueueMetrics(root, label) {
  root.replaceChildren();
  root.classList.add("dq-metrics");
  const table = document.createElement("table");
  table.className = "dq-metrics-table";
  const caption = document.createElement("caption");
  caption.textContent = `Metrics ${label}`;
  table.append(caption);
  const body = document.createElement("tbody");
  const cells = {};
  for (const [key, text, format, title] of METRIC_ROWS) {
    const tr = document.createElement("tr");
    tr.title = title;
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = text;
    const td = document.createElement("td");
    td.dataset.metric = key;
    td.textContent = "—";
    tr.append(th, td);
    body.append(tr);
    cells[key] = { td, format };
  }
  table.append(body);
  root.append(table);
  let last = null;

  return {
    /** Shows a metrics object (null: none yet). */
    show(metrics) {
      if (metrics === last) return;
      last = metrics;
      for (const [key, { td, format }] of Object.entries(cells)) {
        const v = metrics ? metrics[key] : undefined;
        const text = formatValue(v, format);
        if (td.textContent !== text) td.textContent = text;
        td.dataset.value = v === null || v === undefined ? "" : String(v);
      }
      root.dataset.now = metrics ? String(metrics.now ?? "") : "";
    },
  };
}
