// @ts-check
// A delay-queue timeline's geometry and words, pure: where the axis, the fate rows, the
// producer's lane and each consumer's lane go for a canvas size; time ↔ x; the axis's tick step;
// and what lies under a point, as the sentence the tooltip shows. No DOM: the canvas drawing is
// delay-queue-lanes-canvas.js, the component delay-queue-timeline.js.

import { number } from "../format.js";
import { t } from "../i18n.js";
import { FATES } from "./delay-queue-model.js";

/** @typedef {import("./delay-queue-model.js").RunModel} RunModel */
/** @typedef {import("./delay-queue-model.js").Task} Task */
/** @typedef {{from: number, to: number}} Window */
/** What the timeline is drawn for: now and the run's start, length and consumers. */
/** @typedef {{now: number, startMs: number, durationMs: number, consumers: number}} TimelineInfo */
/** @typedef {ReturnType<typeof timelineLayout>} TimelineLayout */

export const GUTTER = 104;
export const AXIS_H = 20;
export const FATE_ROW_H = 12;
export const PRODUCER_H = 16;
export const RIGHT_PAD = 10;

/** Each fate's row (top to bottom) and colour. */
export const FATE_ROW = /** @type {Record<string, number>} */ (Object.fromEntries(FATES.map((f, i) => [f.id, i])));
export const FATE_COLOR = /** @type {Record<string, string>} */ (Object.fromEntries(FATES.map((f) => [f.id, f.color])));

const TICK_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000,
  3_600_000, 7_200_000, 10_800_000, 21_600_000,
];

/**
 * A tick step (ms) giving about one label per `minPx` pixels.
 * @param {number} spanMs
 * @param {number} widthPx
 * @param {number} [minPx]
 */
export function tickStep(spanMs, widthPx, minPx = 90) {
  const want = (spanMs * minPx) / Math.max(1, widthPx);
  return TICK_STEPS.find((s) => s >= want) ?? TICK_STEPS[TICK_STEPS.length - 1];
}

/**
 * Unix ms → "HH:MM:SS" (with ".mmm" when `ms` is true), UTC.
 * @param {number} unixMs
 * @param {boolean} [ms]
 */
export function wallClock(unixMs, ms = false) {
  const iso = new Date(unixMs).toISOString();
  return ms ? iso.slice(11, 23) : iso.slice(11, 19);
}

/**
 * A consumer lane's height: lower as there are more of them.
 * @param {number} consumers
 */
export function laneHeight(consumers) {
  if (consumers <= 4) return 30;
  if (consumers <= 8) return 24;
  return 18;
}

/**
 * The rows, top to bottom: the axis, one row per fate, the producer, one lane per consumer.
 * @param {number} consumers  configured
 * @param {number} lanes      the model's (a lane appears when a consumer acts)
 */
export function timelineLayout(consumers, lanes) {
  const n = Math.max(consumers, lanes);
  const laneH = laneHeight(n);
  const fatesTop = AXIS_H;
  const producerTop = fatesTop + FATES.length * FATE_ROW_H + 4;
  const lanesTop = producerTop + PRODUCER_H + 2;
  return { laneH, fatesTop, producerTop, lanesTop, consumers: n, total: lanesTop + n * laneH + 4 };
}

/**
 * Time ↔ x for a canvas `width` px wide showing `vp`.
 * @param {number} width
 * @param {Window} vp
 */
export function timeScale(width, vp) {
  const plotW = Math.max(10, width - GUTTER - RIGHT_PAD);
  const span = vp.to - vp.from;
  return {
    plotW,
    /** px per sim ms */
    pxMs: plotW / span,
    xOf: (/** @type {number} */ t) => GUTTER + ((t - vp.from) / span) * plotW,
    tOf: (/** @type {number} */ x) => vp.from + ((x - GUTTER) / plotW) * span,
  };
}

/**
 * The canvas's accessible name: the window, the tasks by fate, the keys.
 * @param {string} label
 * @param {RunModel} model
 * @param {Window} vp
 * @param {number} startMs
 */
export function timelineLabel(label, model, vp, startMs) {
  return t("Timeline of run {label}, {from} to {to}: {n} tasks — {fates}. Arrow keys pan, + and − zoom, 0 fits the whole run, F follows now.", {
    label,
    from: wallClock(startMs + vp.from),
    to: wallClock(startMs + vp.to),
    n: model.tasks.size,
    fates: FATES.map((f) => t("{n} {fate}", { n: model.counts[f.id] ?? 0, fate: f.label })).join(t(", ")),
  });
}

// ---------------------------------------------------------------------------------------------
// What is under a point
// ---------------------------------------------------------------------------------------------

/**
 * The item of `list` nearest to `t` (by `key`, or containing it) within `tolMs`.
 * @template {{t0: number, t1: number}} T
 * @param {import("./delay-queue-model.js").SpanList<T>} list
 * @param {number} t
 * @param {number} tolMs
 * @param {(it: T) => number} [key]
 * @returns {T | null}
 */
function near(list, t, tolMs, key = (it) => it.t0) {
  /** @type {T | null} */
  let best = null;
  let bestD = Number.POSITIVE_INFINITY;
  list.forEachIn(t - tolMs, t + tolMs, (it) => {
    const d = Math.min(Math.abs(key(it) - t), it.t0 <= t && t <= it.t1 ? 0 : Number.POSITIVE_INFINITY);
    if (d < bestD) {
      bestD = d;
      best = it;
    }
  });
  return best;
}

/**
 * A fate in a sentence ("on time", "duplicate"…), in the page's language.
 * @param {string} fate
 */
function fateWord(fate) {
  switch (fate) {
    case "on_time":
      return t("on time");
    case "late":
      return t("late");
    case "duplicate":
      return t("duplicate");
    case "lost":
      return t("lost");
    case "paid":
      return t("paid");
    case "pending":
      return t("pending");
    default:
      return fate.replace("_", " ");
  }
}

/**
 * A task in one line: created, due, paid, each processing, the lateness, the fate.
 * @param {Task} task
 * @param {(t: number) => string} fmt
 */
export function describeTask(task, fmt) {
  const done = task.processings.filter((p) => p.completed);
  const parts = [t("{task}: created {at}, due {due}", { task: task.id, at: fmt(task.at), due: fmt(task.due) })];
  if (task.paidAt !== null) parts.push(task.removedByPayment ? t("paid {at}", { at: fmt(task.paidAt) }) : t("paid {at} (too late)", { at: fmt(task.paidAt) }));
  for (const p of task.processings) {
    const run = { n: p.consumer + 1, from: fmt(p.t0), to: fmt(p.t1) };
    parts.push(p.completed ? t("processed by consumer {n} {from}–{to}", run) : t("processed by consumer {n} {from}–{to} (cut by a crash)", run));
  }
  if (task.lateness !== null) parts.push(t("lateness {ms} ms", { ms: number(task.lateness) }));
  else if (done.length > 0) parts.push(t("lateness so far {ms} ms", { ms: number(/** @type {number} */ (task.firstDone) - task.due) }));
  const fate = fateWord(task.fate);
  parts.push(task.final ? t("fate: {fate}", { fate }) : t("so far: {fate}", { fate }));
  return parts.join(" · ");
}

/**
 * The task of `fate` whose due time is nearest `t` within `tol`.
 * @param {RunModel} model
 * @param {string | undefined} fate
 * @param {number} t
 * @param {number} tol
 * @returns {Task | null}
 */
function taskNear(model, fate, t, tol) {
  /** @type {Task | null} */
  let best = null;
  let bestD = Number.POSITIVE_INFINITY;
  model.byDue.forEachIn(t - tol, t + tol, (m) => {
    if (m.task.fate !== fate) return;
    const d = Math.abs(m.t0 - t);
    if (d < bestD) {
      bestD = d;
      best = m.task;
    }
  });
  return best;
}

/**
 * What the producer's lane shows near `at`: an order or a payment.
 * @param {RunModel} model
 * @param {number} at
 * @param {number} tol
 * @param {(t: number) => string} fmt
 */
function describeProducer(model, at, tol, fmt) {
  /** @type {import("./delay-queue-model.js").ProducerMark | null} */
  let m = null;
  for (const list of Object.values(model.producer.marks)) {
    const c = near(list, at, tol);
    if (c && (!m || Math.abs(c.t0 - at) < Math.abs(m.t0 - at))) m = c;
  }
  if (!m || Math.abs(m.t0 - at) > tol) return null;
  const about = { at: fmt(m.t0), task: m.task };
  return m.kind === "order"
    ? t("producer {at}: {task} created", about)
    : m.kind === "paid"
      ? t("producer {at}: {task} paid: the payment removed its task", about)
      : t("producer {at}: {task} paid too late: the task was already taken", about);
}

/**
 * What consumer `c`'s lane shows near `at`: a processing, a command, a message, a crash, a sleep.
 * @param {import("./delay-queue-model.js").Lane} lane
 * @param {number} c
 * @param {number} at
 * @param {number} tol
 * @param {number} now
 * @param {(t: number) => string} fmt
 */
function describeLane(lane, c, at, tol, now, fmt) {
  const who = t("consumer {n}", { n: c + 1 });
  const crash = lane.crashes.find((k) => k.at <= at && at <= (k.until ?? now));
  const p = near(lane.processes, at, tol);
  if (p && p.t0 - tol <= at && at <= p.t1 + tol) {
    const span = { who, task: p.task, from: fmt(p.t0), to: fmt(p.t1) };
    return (
      (p.completed ? t("{who} processing {task}, {from}–{to}", span) : t("{who} processing {task}, {from}–{to} (cut by a crash)", span)) +
      (p.again ? ` — ${t("a task already processed")}` : "")
    );
  }
  const cmd = near(lane.commands, at, tol, (it) => it.executed);
  if (cmd && Math.abs(cmd.executed - at) <= tol) {
    return (
      t("{who}: {cmd} → {reply} (sent {sent}, executed {executed}, reply {replied})", {
        who,
        cmd: cmd.cmd,
        reply: cmd.reply,
        sent: fmt(cmd.t0),
        executed: fmt(cmd.executed),
        replied: fmt(cmd.t1),
      }) + (cmd.empty ? ` — ${t("empty poll")}` : "")
    );
  }
  const m = near(lane.messages, at, tol, (it) => it.t1);
  if (m && Math.abs(m.t1 - at) <= tol) {
    const msg = { who, task: m.task, published: fmt(m.t0), delivered: fmt(m.t1) };
    return m.task
      ? t("{who}: pub/sub message for {task}, published {published}, delivered {delivered}", msg)
      : t("{who}: pub/sub message, published {published}, delivered {delivered}", msg);
  }
  if (crash) {
    return crash.until === null
      ? t("{who} is down from {from}", { who, from: fmt(crash.at) })
      : t("{who} is down from {from} until {until}", { who, from: fmt(crash.at), until: fmt(crash.until) });
  }
  const s = near(lane.sleeps, at, 0);
  if (s && s.t0 <= at && at <= s.t1) return t("{who} sleeps {from} → {to}", { who, from: fmt(s.t0), to: fmt(s.t1) });
  return null;
}

/**
 * A sentence about what is drawn at (x, y) in CSS px, or null. Run data (task names, commands,
 * replies) stays plain text: the tooltip writes it with textContent.
 * @param {RunModel | null} model
 * @param {TimelineInfo} info
 * @param {Window} vp
 * @param {number} width  the canvas's CSS width
 * @param {number} x
 * @param {number} y
 */
export function describeAt(model, info, vp, width, x, y) {
  if (!model || x < GUTTER) return null;
  const scale = timeScale(width, vp);
  const at = scale.tOf(x);
  const tol = 5 * ((vp.to - vp.from) / scale.plotW);
  const L = timelineLayout(info.consumers, model.lanes.length);
  const fmt = (/** @type {number} */ ms) => wallClock(info.startMs + ms, true);
  if (y < AXIS_H) return `${fmt(at)} (t = ${number(Math.round(at))} ms)`;
  if (y < L.fatesTop + FATES.length * FATE_ROW_H) {
    const row = Math.floor((y - L.fatesTop) / FATE_ROW_H);
    const task = taskNear(model, FATES[row]?.id, at, tol);
    return task ? describeTask(task, fmt) : null;
  }
  if (y < L.lanesTop) return describeProducer(model, at, tol, fmt);
  const c = Math.floor((y - L.lanesTop) / L.laneH);
  const lane = model.lanes[c];
  return lane ? describeLane(lane, c, at, tol, info.now, fmt) : null;
}
