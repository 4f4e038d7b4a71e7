// @ts-check
// The delay-queue panel's model: the timeline window the runs share (zoom, pan, fit, following
// "now"), "skip to" as typed, the keyboard's shortcuts, and every line the panel writes — the
// lab's clock, the status, the window, the fates and lanes of a run, "what happened", the
// announcement after a step, the metrics. Pure: no DOM, no runner; delay-queue-view.js keeps
// the state and delay-queue-renderer.js writes the words. (What one run did is
// delay-queue-model.js; the timeline's geometry is delay-queue-timeline-model.js.)

import { number } from "../format.js";
import { t } from "../i18n.js";
import { formatDuration, parseDuration } from "./delay-queue-forms.js";
import { FATES } from "./delay-queue-model.js";
import { wallClock } from "./delay-queue-timeline-model.js";

/** @typedef {import("./delay-queue-model.js").RunModel} RunModel */
/** @typedef {import("./engine-types.js").SimMetrics} SimMetrics */
/** @typedef {{from: number, to: number}} Window */
/**
 * What the runner says each frame (labs/delay-queue-runner.js `state()` and `onFrame`).
 * @typedef {object} RunnerFrame
 * @property {number} now            sim ms
 * @property {number} [startMs]      Unix ms of t = 0
 * @property {number} [durationMs]
 * @property {boolean} playing
 * @property {boolean} seeking
 * @property {number} seekTarget
 * @property {boolean} done
 * @property {string | null} error
 * @property {number | "max"} speed
 * @property {number} lagMs
 * @property {number} generation
 * @property {Array<{label: string, strategy: number, name: string, code: string, config: Record<string, any>, metrics: SimMetrics | null}>} runs
 */

/** The narrowest window the axis zooms to (virtual ms). */
export const MIN_SPAN_MS = 20;
/** Lines of "what happened" shown. */
export const LOG_SHOWN = 80;
/** The lab's duration before a run says (1 h). */
export const DEFAULT_DURATION_MS = 3_600_000;

// ---------------------------------------------------------------------------------------------
// Times
// ---------------------------------------------------------------------------------------------

/**
 * Sim ms → "+1h 02m 03.004s"-like offset from the start.
 * @param {unknown} ms
 */
export function formatOffset(ms) {
  const n = Math.max(0, Math.round(Number(ms) || 0));
  const h = Math.floor(n / 3_600_000);
  const m = Math.floor((n % 3_600_000) / 60_000);
  const s = ((n % 60_000) / 1000).toFixed(3).padStart(6, "0");
  return h > 0 ? `+${h}h ${String(m).padStart(2, "0")}m ${s}s` : `+${m}m ${s}s`;
}

/**
 * "Skip to" as typed → sim ms, or null: a wall-clock time "12:29:58" (on the run's first day,
 * or the next if it is earlier than the start), or an offset "+29m58s" / "29m58s".
 * @param {unknown} text
 * @param {number} startMs
 * @returns {number | null}
 */
export function parseSkip(text, startMs) {
  const typed = String(text).trim();
  const clock = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(typed);
  if (clock) {
    const [, h, m, s = "0", frac = "0"] = clock;
    if (Number(h) > 23 || Number(m) > 59 || Number(s) > 59) return null;
    const day = Math.floor(startMs / 86_400_000) * 86_400_000;
    let at = day + ((Number(h) * 60 + Number(m)) * 60 + Number(s)) * 1000 + Number(frac.padEnd(3, "0"));
    if (at < startMs) at += 86_400_000;
    return at - startMs;
  }
  const ms = parseDuration(typed.replace(/^\+/, ""), "s");
  return ms === null ? null : ms;
}

/**
 * Why "skip to" cannot go where asked, or null.
 * @param {number | null} at  parseSkip's answer
 * @param {{now: number, startMs: number, durationMs: number}} run
 */
export function skipProblem(at, { now, startMs, durationMs }) {
  if (at === null) return t("skip to: a wall-clock time like 12:29:58, or a time since the start like +29m58s.");
  if (at <= now) return t("skip to: {time} is not after now ({now}).", { time: wallClock(startMs + at, true), now: wallClock(startMs + now, true) });
  if (at > durationMs) return t("skip to: the run ends at {time}.", { time: wallClock(startMs + durationMs) });
  return null;
}

// ---------------------------------------------------------------------------------------------
// The window the timelines share
// ---------------------------------------------------------------------------------------------

/**
 * A window of `span` (at least MIN_SPAN_MS, at most the run and a bit) starting near `from`,
 * kept within 5% of a span around the run.
 * @param {number} from
 * @param {number} span
 * @param {number} durationMs
 * @returns {Window}
 */
export function clampWindow(from, span, durationMs) {
  const maxSpan = durationMs * 1.1 + 1000;
  const s = Math.min(Math.max(span, MIN_SPAN_MS), maxSpan);
  const lo = -s * 0.05;
  const hi = durationMs + s * 0.05 - s;
  const f = Math.min(Math.max(from, lo), Math.max(lo, hi));
  return { from: f, to: f + s };
}

/**
 * The whole run.
 * @param {number} durationMs
 */
export const fitWindow = (durationMs) => clampWindow(-durationMs * 0.01, durationMs * 1.02, durationMs);

/**
 * Zooms by `factor` keeping `center` where it is.
 * @param {Window} vp
 * @param {number} center  sim ms
 * @param {number} factor  < 1 zooms in
 * @param {number} durationMs
 */
export function zoomWindow(vp, center, factor, durationMs) {
  const span = vp.to - vp.from;
  const next = Math.min(Math.max(span * factor, MIN_SPAN_MS), durationMs * 1.1 + 1000);
  const f = next / span;
  return clampWindow(center - (center - vp.from) * f, next, durationMs);
}

/**
 * @param {Window} vp
 * @param {number} deltaMs
 * @param {number} durationMs
 */
export const panWindow = (vp, deltaMs, durationMs) => clampWindow(vp.from + deltaMs, vp.to - vp.from, durationMs);

/**
 * Where to zoom around: now when following and on screen, else the middle.
 * @param {Window} vp
 * @param {number} now
 * @param {boolean} follow
 */
export const zoomCenter = (vp, now, follow) => (follow && now >= vp.from && now <= vp.to ? now : (vp.from + vp.to) / 2);

/**
 * Keeps "now" in the window: smoothly (now stays at three quarters of the window) unless the
 * user prefers reduced motion, then the window turns a page only when now leaves it. Null when
 * the window stays.
 * @param {Window} vp
 * @param {number} now
 * @param {number} durationMs
 * @param {{reducedMotion: boolean, force?: boolean}} o
 * @returns {Window | null}
 */
export function followNow(vp, now, durationMs, { reducedMotion, force = false }) {
  const span = vp.to - vp.from;
  if (span >= durationMs) return null;
  if (reducedMotion) {
    return force || now > vp.to || now < vp.from ? clampWindow(now - span * 0.1, span, durationMs) : null;
  }
  return force || now > vp.from + span * 0.75 || now < vp.from ? clampWindow(now - span * 0.75, span, durationMs) : null;
}

/**
 * The window a new run opens with: the walkthrough's first 20 seconds (one poll a second), or
 * the whole run.
 * @param {Record<string, any> | undefined} firstConfig
 * @param {number} durationMs
 */
export const initialWindow = (firstConfig, durationMs) => (firstConfig?.orders ? clampWindow(-1000, 20_000, durationMs) : fitWindow(durationMs));

/**
 * The panel's keyboard shortcuts on a timeline (arrows and ± are the timeline's own).
 * @param {string} key
 * @returns {"fit" | "follow" | "toggle" | "step" | null}
 */
export function keyCommand(key) {
  switch (key) {
    case "0":
    case "Home":
      return "fit";
    case "f":
    case "F":
      return "follow";
    case " ":
      return "toggle";
    case ".":
      return "step";
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------------------------
// The player and the status
// ---------------------------------------------------------------------------------------------

/**
 * The lab's clock: wall-clock time, and the date with the offset into the run.
 * @param {number} now  sim ms
 * @param {number} startMs
 * @param {number} durationMs
 */
export function clockText(now, startMs, durationMs) {
  const wall = startMs + now;
  return {
    time: `${wallClock(wall, true)} UTC`,
    wall,
    sub: t("{date} · {offset} of {duration}", { date: new Date(wall).toISOString().slice(0, 10), offset: formatOffset(now), duration: formatDuration(durationMs) }),
  };
}

/**
 * The status line and its kind (info, ok, warning, error).
 * @param {RunnerFrame} s
 * @param {number} startMs
 * @param {number} durationMs
 * @param {number} dropped  events the runs' logs dropped
 */
export function statusText(s, startMs, durationMs, dropped) {
  let text;
  let kind = "info";
  if (s.error) {
    text = s.error;
    kind = "error";
  } else if (s.runs.length === 0) {
    text = t("Set up a run and press Run.");
  } else if (s.done) {
    text = t("The run ended at {time}: the fates and metrics are final.", { time: wallClock(startMs + durationMs) });
    kind = "ok";
  } else if (s.seeking) {
    text = t("Skipping to {time}…", { time: wallClock(startMs + s.seekTarget, true) });
  } else if (s.playing) {
    text = s.speed === "max" ? t("Playing at full speed.") : t("Playing at {speed}×.", { speed: s.speed });
    if (s.lagMs > 0) {
      text += ` ${t("Lagging: this frame could not run {ms} ms of virtual time within its budget — the lab is slower than {speed}× here.", { ms: number(Math.round(s.lagMs)), speed: s.speed })}`;
      kind = "warning";
    }
  } else {
    text = t("Paused.");
  }
  if (dropped > 0) {
    text += ` ${t("{n} events were dropped by the lab's bounded log (the timeline misses them; the metrics do not).", { n: number(dropped) })}`;
    kind = kind === "error" ? kind : "warning";
  }
  return { text, kind };
}

/**
 * The player's buttons.
 * @param {RunnerFrame} s
 */
export function playerState(s) {
  const stuck = s.done || Boolean(s.error);
  return {
    play: s.playing ? t("❚❚ Pause") : t("▶ Play"),
    playDisabled: stuck || s.runs.length === 0,
    stepDisabled: stuck || s.runs.length === 0,
    skipDisabled: stuck,
  };
}

/**
 * The header: the strategies run, "A: 2 · … vs B: 1 · …".
 * @param {RunnerFrame["runs"]} runs
 */
export const summaryText = (runs) => runs.map((r) => `${runs.length > 1 ? `${r.label}: ` : ""}${r.strategy} · ${r.name}`).join(" vs ");

/**
 * A run's title (and its code's): "A · strategy 2 · …" when comparing.
 * @param {{label: string, strategy: number, name: string}} run
 * @param {number} runs  how many runs there are
 */
export const runTitle = (run, runs) => `${runs > 1 ? `${run.label} · ` : ""}${t("strategy {n}", { n: run.strategy })} · ${run.name}`;

/**
 * The window in words: "12:00:00 – 12:31:00 (31m)", with milliseconds when narrower than 10 s.
 * @param {Window} vp
 * @param {number} startMs
 */
export function windowText(vp, startMs) {
  const span = vp.to - vp.from;
  return `${wallClock(startMs + vp.from, span < 10_000)} – ${wallClock(startMs + vp.to, span < 10_000)} (${formatDuration(Math.round(span)) || ""})`;
}

/**
 * What a step says to screen readers: the time and the latest three lines.
 * @param {number} now
 * @param {number} startMs
 * @param {RunModel | undefined} model  the first run's
 */
export function steppedAnnouncement(now, startMs, model) {
  const latest = model ? model.log.filter((l) => l.at >= 0).slice(-3) : [];
  return `${wallClock(startMs + now, true)}. ${latest.map((l) => l.text).join(". ")}`;
}

// ---------------------------------------------------------------------------------------------
// A run's numbers and lines
// ---------------------------------------------------------------------------------------------

/**
 * "on_time" → "fateOnTime" (a data-* attribute's name).
 * @param {string} id
 */
export const fateAttribute = (id) => `fate${id.replace(/(^|_)(\w)/g, (_, __, c) => c.toUpperCase())}`;

/**
 * The fates line and the run's data-* attributes.
 * @param {RunModel} model
 */
export function fatesOf(model) {
  const p = model.producer.counts;
  const parts = [t("{n} tasks ({p} payments)", { n: number(model.tasks.size), p: number(p.payments) })];
  for (const f of FATES) parts.push(`${f.label} ${number(model.counts[f.id] ?? 0)}`);
  /** @type {Record<string, string>} */
  const dataset = { tasks: String(model.tasks.size) };
  for (const f of FATES) dataset[fateAttribute(f.id)] = String(model.counts[f.id] ?? 0);
  Object.assign(dataset, {
    final: String(model.finalFates),
    orders: String(p.orders),
    payments: String(p.payments),
    events: String(model.events),
    dropped: String(model.dropped),
  });
  return { text: parts.join(" · "), dataset };
}

/** The lanes table's columns (in the page's language: call it when drawing). */
export const laneColumns = () => [
  t("lane"),
  t("commands"),
  t("empty polls"),
  t("claims"),
  t("removed nothing"),
  t("processings"),
  t("cut by crash"),
  t("messages"),
  t("sleeps"),
  t("crashes"),
];

/**
 * One row per consumer: its name and counts, in laneColumns() order.
 * @param {RunModel} model
 * @returns {Array<[string, ...number[]]>}
 */
export function laneRows(model) {
  return model.lanes.map((lane, i) => {
    const c = lane.counts;
    return [t("consumer {n}", { n: i + 1 }), c.commands, c.empty, c.claims, c.missed, c.processes, c.cut, c.messages, c.sleeps, c.crashes];
  });
}

/**
 * The last LOG_SHOWN lines of "what happened", latest first, with their times.
 * @param {RunModel} model
 * @param {(ms: number) => string} timeText
 */
export function logLines(model, timeText) {
  return model.log
    .slice(-LOG_SHOWN)
    .reverse()
    .map((line) => ({ kind: line.kind, time: timeText(line.at), text: line.text }));
}

// ---------------------------------------------------------------------------------------------
// Metrics (as the lab's metrics() reports them)
// ---------------------------------------------------------------------------------------------

/** @typedef {"n" | "ms" | "rate"} MetricFormat */

/** [key in the metrics object, label, format, title]; the words are functions, looked up when shown. */
export const METRIC_ROWS = /** @type {ReadonlyArray<readonly [keyof SimMetrics, () => string, MetricFormat, () => string]>} */ (
  Object.freeze([
    ["tasks", () => t("tasks"), "n", () => t("Orders created so far")],
    ["paid", () => t("paid"), "n", () => t("Orders paid before their task was processed: the payment removed the task")],
    ["processed", () => t("processed"), "n", () => t("Tasks processed at least once")],
    ["onTime", () => t("on time"), "n", () => t("First completed within 1 s of the due time")],
    ["late", () => t("late"), "n", () => t("First completed more than 1 s after the due time")],
    ["duplicates", () => t("processed twice+"), "n", () => t("Tasks processed more than once")],
    ["extraProcessings", () => t("extra processings"), "n", () => t("Processings beyond the first, over all tasks")],
    ["lost", () => t("lost"), "n", () => t("Due, unpaid and never processed (final once the run ends)")],
    ["pending", () => t("pending"), "n", () => t("Not yet due, or due and not yet processed")],
    ["failed", () => t("failed"), "n", () => t("Processings that failed (failProb)")],
    ["retried", () => t("retried"), "n", () => t("Tasks handed out again: put back with a later score after a failure; in the stream design, every redelivery by XAUTOCLAIM (after a failure or a crash)")],
    ["deadLettered", () => t("dead-lettered"), "n", () => t("Tasks given up after the maximum tries: in the dead-letter set")],
    ["latenessP50", () => t("lateness p50"), "ms", () => t("Median of due → first completed processing, over tasks processed at least once")],
    ["latenessP99", () => t("lateness p99"), "ms", () => t("99th percentile of the lateness")],
    ["latenessMax", () => t("lateness max"), "ms", () => t("The worst lateness")],
    ["consumerCommands", () => t("consumer commands"), "n", () => t("Commands the consumers sent to Redis")],
    ["commandsPerSecond", () => t("commands / s"), "rate", () => t("Consumers' commands per virtual second")],
    ["emptyPolls", () => t("empty polls"), "n", () => t("Polls that found nothing due")],
    ["messages", () => t("pub/sub messages"), "n", () => t("Messages delivered to consumers (keyspace events, wake-ups)")],
    ["producerCommands", () => t("producer commands"), "n", () => t("Commands of the producer (orders, payments)")],
  ])
);

const rates = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });

/**
 * A lateness in ms as people read it: 850 ms, 12.4 s, 3m 05s, 1h 02m.
 * @param {unknown} ms
 */
export function formatMs(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(Number(ms))) return "—";
  const n = Number(ms);
  const a = Math.abs(n);
  const sign = n < 0 ? "−" : "";
  if (a < 10_000) return `${sign}${number(Math.round(a))} ms`;
  if (a < 600_000) return `${sign}${(a / 1000).toFixed(1)} s`;
  const s = Math.round(a / 1000);
  if (s < 3600) return `${sign}${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${sign}${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/**
 * A metric's value in its format; "—" for none.
 * @param {unknown} v
 * @param {MetricFormat} format
 */
export function formatMetric(v, format) {
  if (v === null || v === undefined) return "—";
  if (format === "ms") return formatMs(v);
  if (format === "rate") return rates.format(Number(v));
  return number(Number(v));
}
