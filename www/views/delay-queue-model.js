// @ts-check
// What one delay-queue run did, as the timeline draws it — built only from the events the lab
// emitted (src/sim/delay_queue*.rs via the runner), never by re-running a strategy here.
//
//   - tasks: one per `order`, at its due time, with its payment and every processing; its fate
//     is the engine's `fate` event once the run ends. Until then the mark shows what the events
//     so far say (processed once on time / late, processed twice, paid, pending) — "lost" is a
//     verdict only the end of the run can give;
//   - lanes: one per consumer, holding its commands (sent → executed → replied; empty polls
//     flagged by the engine), pub/sub messages, processing spans, sleeps and crashes; and one for
//     the producer with its orders and payments.
//
// Every list is kept sorted by start time, with the longest span seen, so the view can ask for
// just the visible window (binary search) however long the run.
//
// Pure (no DOM, no engine) but accumulating: a run has up to hundreds of thousands of commands,
// so a drain's events are added to the run's lists in place (`update`) instead of copying them
// into a new state each frame. Each event kind has its handler below.

import { t } from "../i18n.js";

/** @typedef {import("./engine-types.js").SimEvent} SimEvent */
/** @typedef {import("./engine-types.js").SimCommand} SimCommand */
/** @typedef {"on_time" | "late" | "duplicate" | "lost" | "paid" | "pending" | "dead_letter"} FateId */
/** @typedef {"empty" | "poll" | "claim" | "missed" | "subscribe" | "other"} CommandKind */

/**
 * A task's mark on the timeline: from its due time to its first completion (or the lateness
 * the engine reported).
 * @typedef {{t0: number, t1: number, task: Task}} TaskMark
 */
/**
 * @typedef {{t0: number, t1: number, completed: boolean, failed: boolean, task: string, consumer: number, again: boolean}} Processing
 * @typedef {{t0: number, t1: number, executed: number, cmd: string, reply: string, empty: boolean, kind: CommandKind,
 *            consumer: number}} CommandItem
 * @typedef {{t0: number, t1: number, task: string | null, consumer: number}} MessageItem
 * @typedef {{t0: number, t1: number}} SleepItem
 * @typedef {{t0: number, t1: number, kind: "order" | "paid" | "paid-late", task: string}} ProducerMark
 * @typedef {{at: number, until: number | null}} Crash
 */
/**
 * @typedef {object} Task
 * @property {string} id
 * @property {number} at       created (NaN until its order event)
 * @property {number} due
 * @property {number | null} paidAt
 * @property {boolean} removedByPayment
 * @property {Processing[]} processings
 * @property {number} completed  processings that completed
 * @property {number | null} firstDone  start of the first completed processing
 * @property {FateId} fate
 * @property {number | null} lateness  the engine's, once final
 * @property {boolean} final     the engine's `fate` event came
 * @property {TaskMark | null} mark
 */
/** @typedef {{serial: number, at: number, text: string, kind: string}} LogLine */
/** @typedef {ReturnType<typeof newLane>} Lane */
/** @typedef {ReturnType<typeof createRunModel>} RunModel */

/** "late" = first completion more than this after due (the API's definition). */
export const LATE_AFTER_MS = 1000;

/** The fates, in the order the timeline stacks their rows (labels are getters: in the page's language when read). */
export const FATES = /** @type {ReadonlyArray<{id: FateId, label: string, color: string}>} */ (
  Object.freeze([
    {
      id: "on_time",
      get label() {
        return t("on time");
      },
      color: "#7ec699",
    },
    {
      id: "late",
      get label() {
        return t("late");
      },
      color: "#e5c07b",
    },
    {
      id: "duplicate",
      get label() {
        return t("processed twice");
      },
      color: "#f778ba",
    },
    {
      id: "lost",
      get label() {
        return t("never (lost)");
      },
      color: "#ff5f56",
    },
    {
      id: "paid",
      get label() {
        return t("paid");
      },
      color: "#7fb4ff",
    },
    {
      id: "pending",
      get label() {
        return t("pending");
      },
      color: "#7d838c",
    },
    {
      id: "dead_letter",
      get label() {
        return t("dead letter");
      },
      color: "#c678dd",
    },
  ])
);

export const FATE_IDS = Object.freeze(FATES.map((f) => f.id));

/** Log lines kept for the event list. */
export const LOG_KEPT = 400;

// -------------------------------------------------------------------------------------------
// Sorted span lists
// -------------------------------------------------------------------------------------------

/**
 * A list of items `{t0, t1, …}` sorted by t0, remembering the longest t1 - t0.
 * @template {{t0: number, t1: number}} T
 */
export function createSpanList() {
  /** @type {T[]} */
  const items = [];
  let maxSpan = 0;
  /** @param {number} t  index of the first item starting at or after `t` */
  const indexFrom = (t) => {
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (items[mid].t0 < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  /** @param {number} fromMs  index of the first item that may reach `fromMs` */
  const firstVisible = (fromMs) => indexFrom(fromMs - maxSpan);
  return {
    items,
    get maxSpan() {
      return maxSpan;
    },
    /** @param {T} item */
    add(item) {
      maxSpan = Math.max(maxSpan, item.t1 - item.t0);
      if (items.length === 0 || items[items.length - 1].t0 <= item.t0) {
        items.push(item);
        return;
      }
      let lo = 0;
      let hi = items.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (items[mid].t0 <= item.t0) lo = mid + 1;
        else hi = mid;
      }
      items.splice(lo, 0, item);
    },
    firstVisible,
    indexFrom,
    /**
     * As forEachIn, for drawing `msPerPx` ms to a pixel (pixels counted from `originMs`): after
     * an item narrower than a pixel, the rest of its pixel is skipped (binary search), so a
     * zoomed-out lane costs about one visit per pixel however many items it holds. Which items
     * stand for a pixel depends only on the pixel, not on where the walk started.
     * @param {number} fromMs
     * @param {number} toMs
     * @param {number} msPerPx
     * @param {(item: T) => void} fn
     * @param {number} [originMs]
     */
    forEachThinned(fromMs, toMs, msPerPx, fn, originMs = fromMs) {
      let i = firstVisible(fromMs);
      while (i < items.length) {
        const it = items[i];
        if (it.t0 > toMs) break;
        if (it.t1 < fromMs) {
          i += 1;
          continue;
        }
        fn(it);
        if (it.t1 - it.t0 < msPerPx) {
          const pixelEnd = originMs + (Math.floor((it.t0 - originMs) / msPerPx) + 1) * msPerPx;
          const j = indexFrom(pixelEnd);
          i = j > i ? j : i + 1;
        } else {
          i += 1;
        }
      }
    },
    /**
     * Calls fn(item) for the items overlapping [fromMs, toMs], in t0 order.
     * @param {number} fromMs
     * @param {number} toMs
     * @param {(item: T) => void} fn
     */
    forEachIn(fromMs, toMs, fn) {
      for (let i = firstVisible(fromMs); i < items.length; i += 1) {
        const it = items[i];
        if (it.t0 > toMs) break;
        if (it.t1 < fromMs) continue;
        fn(it);
      }
    },
  };
}

/**
 * @template {{t0: number, t1: number}} T
 * @typedef {ReturnType<typeof createSpanList<T>>} SpanList
 */

// -------------------------------------------------------------------------------------------
// Classifying what a consumer's command was, for its mark (from the engine's own text)
// -------------------------------------------------------------------------------------------

/** What commandKind() answers. */
export const COMMAND_KINDS = /** @type {readonly CommandKind[]} */ (Object.freeze(["empty", "poll", "claim", "missed", "subscribe", "other"]));

const POLLS = new Set(["ZRANGEBYSCORE", "ZRANGE", "EVAL", "EVALSHA", "FCALL", "ZPOPMIN", "BZPOPMIN", "XREADGROUP", "XAUTOCLAIM"]);
const CLAIMS = new Set(["ZREM", "DEL", "UNLINK", "GETDEL"]);

/**
 * `empty` (a poll that found nothing — the engine says so), `poll` (a poll that returned due
 * tasks), `claim` (ZREM/DEL that removed something: this consumer owns the task), `missed`
 * (ZREM/DEL that removed nothing: someone else had it), `subscribe`, or `other`.
 * @param {{empty?: boolean, cmd?: unknown, reply?: unknown}} e
 * @returns {CommandKind}
 */
export function commandKind(e) {
  if (e.empty) return "empty";
  const name = String(e.cmd ?? "").trimStart().split(/\s+/, 1)[0].toUpperCase();
  const reply = String(e.reply ?? "");
  if (POLLS.has(name)) return "poll";
  if (CLAIMS.has(name)) return /^\(integer\) 0\b/.test(reply) ? "missed" : "claim";
  if (name === "SUBSCRIBE" || name === "PSUBSCRIBE") return "subscribe";
  return "other";
}

function newLane() {
  /** @type {Record<CommandKind, SpanList<CommandItem>>} */
  const byKind = /** @type {any} */ (Object.fromEntries(COMMAND_KINDS.map((k) => [k, createSpanList()])));
  return {
    /** @type {SpanList<CommandItem>} */
    commands: createSpanList(),
    // The same commands by kind (commandKind), so each kind's marks can be thinned per pixel.
    byKind,
    /** @type {SpanList<MessageItem>} */
    messages: createSpanList(),
    /** @type {SpanList<Processing>} */
    processes: createSpanList(),
    // The same processings by how they ended: "done", "again" (a task already processed), "cut".
    /** @type {{done: SpanList<Processing>, again: SpanList<Processing>, cut: SpanList<Processing>}} */
    procByKind: { done: createSpanList(), again: createSpanList(), cut: createSpanList() },
    /** @type {SpanList<SleepItem>} */
    sleeps: createSpanList(),
    /** @type {Crash[]} */
    crashes: [],
    // The producer's lane: its orders and payments (`order` and `paid` events), by kind.
    /** @type {{order: SpanList<ProducerMark>, paid: SpanList<ProducerMark>, "paid-late": SpanList<ProducerMark>}} */
    marks: { order: createSpanList(), paid: createSpanList(), "paid-late": createSpanList() },
    counts: { commands: 0, empty: 0, claims: 0, missed: 0, messages: 0, processes: 0, cut: 0, failed: 0, retries: 0, deadLetters: 0, sleeps: 0, crashes: 0, orders: 0, payments: 0 },
    down: false,
  };
}

/** @param {unknown} v */
const num = (v) => (v === null || v === undefined ? Number.NaN : Number(v));

// -------------------------------------------------------------------------------------------
// A run's record and what each event does to it
// -------------------------------------------------------------------------------------------

/**
 * Everything a run holds; `createRunModel` hands out a read-only face of it.
 * @typedef {object} Run
 * @property {Map<string, Task>} tasks
 * @property {SpanList<TaskMark>} byDue   items: {t0: due, t1: due or first completion, task}
 * @property {Lane[]} lanes
 * @property {Lane} producer
 * @property {Record<FateId, number>} counts
 * @property {LogLine[]} log
 * @property {number} logSerial
 * @property {number} finalFates
 * @property {number} events
 * @property {number} lastAt
 * @property {number} startMs
 * @property {(ms: number) => string} timeText
 */

/**
 * A lane for `consumer` (growing the list), or the producer's for a negative or odd number.
 * @param {Run} run
 * @param {unknown} consumer
 */
function laneOf(run, consumer) {
  const c = Number(consumer);
  if (c < 0 || !Number.isInteger(c)) return run.producer;
  while (run.lanes.length <= c) run.lanes.push(newLane());
  return run.lanes[c];
}

/** @param {unknown} consumer */
const who = (consumer) => (Number(consumer) < 0 ? t("producer") : t("consumer {n}", { n: Number(consumer) + 1 }));

/**
 * A line of "what happened" (the list keeps the last LOG_KEPT, trimmed in batches).
 * @param {Run} run
 * @param {number} at
 * @param {string} text
 * @param {string} kind
 */
function say(run, at, text, kind) {
  run.logSerial += 1;
  run.log.push({ serial: run.logSerial, at, text, kind });
  if (run.log.length > LOG_KEPT * 1.25) run.log.splice(0, run.log.length - LOG_KEPT);
}

/**
 * @param {Run} run
 * @param {string} id
 */
function taskOf(run, id) {
  let t = run.tasks.get(id);
  if (!t) {
    t = {
      id,
      at: Number.NaN,
      due: Number.NaN,
      paidAt: null,
      removedByPayment: false,
      processings: [],
      completed: 0,
      firstDone: null,
      fate: "pending",
      lateness: null,
      final: false,
      mark: null,
    };
    run.tasks.set(id, t);
    run.counts.pending += 1;
  }
  return t;
}

/**
 * @param {Run} run
 * @param {Task} t
 * @param {FateId} fate
 */
function setFate(run, t, fate) {
  if (t.fate === fate) return;
  run.counts[t.fate] -= 1;
  t.fate = fate;
  run.counts[fate] = (run.counts[fate] ?? 0) + 1;
}

/**
 * What the events so far say of a task whose `fate` event has not come yet.
 * @param {Task} t
 * @returns {FateId}
 */
export function provisionalFate(t) {
  if (t.completed >= 2) return "duplicate";
  if (t.completed === 1) return /** @type {number} */ (t.firstDone) - t.due > LATE_AFTER_MS ? "late" : "on_time";
  if (t.removedByPayment) return "paid";
  return "pending";
}

/**
 * @param {Run} run
 * @param {Task} t
 */
function refresh(run, t) {
  if (!t.final) setFate(run, t, provisionalFate(t));
  if (t.mark) t.mark.t1 = Math.max(t.due, t.firstDone ?? t.due);
}

/** @type {{[K in SimEvent["kind"]]: (run: Run, e: Extract<SimEvent, {kind: K}>) => void}} */
const HANDLERS = {
  order(run, e) {
    const task = taskOf(run, String(e.task));
    task.at = num(e.at);
    task.due = num(e.due);
    if (!task.mark && Number.isFinite(task.due)) {
      task.mark = { t0: task.due, t1: task.due, task };
      run.byDue.add(task.mark);
    }
    refresh(run, task);
    run.producer.marks.order.add({ t0: task.at, t1: task.at, kind: "order", task: task.id });
    run.producer.counts.orders += 1;
    run.lastAt = Math.max(run.lastAt, task.at);
    say(run, task.at, t("producer: {task} created, due {time}", { task: task.id, time: run.timeText(task.due) }), "order");
  },

  paid(run, e) {
    const task = taskOf(run, String(e.task));
    const at = num(e.at);
    task.paidAt = at;
    task.removedByPayment = Boolean(e.removed);
    refresh(run, task);
    const kind = e.removed ? "paid" : "paid-late";
    run.producer.marks[kind].add({ t0: at, t1: at, kind, task: task.id });
    run.producer.counts.payments += 1;
    run.lastAt = Math.max(run.lastAt, at);
    say(
      run,
      at,
      e.removed ? t("producer: {task} paid — its task removed", { task: task.id }) : t("producer: {task} paid — too late, the task was already taken", { task: task.id }),
      "paid",
    );
  },

  command(run, e) {
    /** @type {CommandItem} */
    const item = {
      t0: num(e.sent),
      t1: Math.max(num(e.replied), num(e.sent)),
      executed: num(e.executed),
      cmd: String(e.cmd ?? ""),
      reply: String(e.reply ?? ""),
      empty: Boolean(e.empty),
      kind: commandKind(e),
      consumer: Number(e.consumer),
    };
    if (!Number.isFinite(item.t1)) item.t1 = item.t0;
    if (item.consumer < 0) {
      // The producer's ZADD/SET/PUBLISH and its payments: in the log; its lane shows the
      // orders and payments themselves.
      run.producer.counts.commands = (run.producer.counts.commands ?? 0) + 1;
      say(run, item.executed, t("producer: {cmd} → {reply}", { cmd: item.cmd, reply: item.reply }), "producer");
      return;
    }
    const lane = laneOf(run, e.consumer);
    lane.commands.add(item);
    lane.byKind[item.kind].add(item);
    lane.counts.commands += 1;
    if (item.empty) lane.counts.empty += 1;
    if (item.kind === "claim") lane.counts.claims += 1;
    if (item.kind === "missed") lane.counts.missed += 1;
    run.lastAt = Math.max(run.lastAt, item.t1);
    const line = { who: who(e.consumer), cmd: item.cmd, reply: item.reply };
    say(run, item.executed, item.empty ? t("{who}: {cmd} → {reply} (empty poll)", line) : t("{who}: {cmd} → {reply}", line), item.kind);
  },

  message(run, e) {
    /** @type {MessageItem} */
    const item = { t0: num(e.published), t1: num(e.delivered), task: e.task == null ? null : String(e.task), consumer: Number(e.consumer) };
    if (!Number.isFinite(item.t0)) item.t0 = item.t1;
    const lane = laneOf(run, e.consumer);
    lane.messages.add(item);
    lane.counts.messages += 1;
    run.lastAt = Math.max(run.lastAt, item.t1);
    // Strategy 5's wake-ups carry the announced due time (Unix ms), strategy 4's the key.
    const line = { who: who(e.consumer), task: item.task, published: run.timeText(item.t0) };
    const text =
      item.task === null
        ? t("{who}: pub/sub message (published {published})", line)
        : /^\d{12,}$/.test(item.task)
          ? t("{who}: pub/sub message — wake up, a task is due at {due} (published {published})", { ...line, due: run.timeText(Number(item.task) - run.startMs) })
          : t("{who}: pub/sub message for {task} (published {published})", line);
    say(run, item.t1, text, "message");
  },

  process(run, e) {
    const task = taskOf(run, String(e.task));
    /** @type {Processing} */
    const item = {
      t0: num(e.start),
      t1: num(e.end),
      completed: Boolean(e.completed) && !e.failed,
      failed: Boolean(e.failed),
      task: task.id,
      consumer: Number(e.consumer),
      again: task.completed > 0 || task.processings.length > 0,
    };
    task.processings.push(item);
    if (item.completed) {
      // Lateness runs from due to the start of the first processing that completed (the
      // engine's definition; process events arrive in the order they complete).
      task.completed += 1;
      if (task.firstDone === null) task.firstDone = item.t0;
    }
    const lane = laneOf(run, e.consumer);
    lane.processes.add(item);
    // A failed processing is drawn as one cut short (it did not complete).
    lane.procByKind[!item.completed ? "cut" : item.again ? "again" : "done"].add(item);
    lane.counts.processes += 1;
    if (item.failed) lane.counts.failed += 1;
    else if (!item.completed) lane.counts.cut += 1;
    refresh(run, task);
    run.lastAt = Math.max(run.lastAt, item.t1);
    say(
      run,
      item.t1,
      t("{who}: processed {task} ({ms} ms)", { who: who(e.consumer), task: task.id, ms: item.t1 - item.t0 }) +
        (item.failed ? ` — ${t("failed")}` : item.completed ? "" : ` — ${t("cut short by a crash")}`) +
        (item.again ? ` — ${t("again!")}` : ""),
      item.failed ? "failed" : item.completed ? (item.again ? "duplicate" : "process") : "cut",
    );
  },

  retry(run, e) {
    const at = num(e.at);
    const lane = laneOf(run, e.consumer);
    lane.counts.retries += 1;
    run.lastAt = Math.max(run.lastAt, at);
    const line = { who: who(e.consumer), task: String(e.task), tries: Number(e.tries) };
    say(
      run,
      at,
      e.due === null || e.due === undefined
        ? t("{who}: {task} failed (delivery {tries}) — left pending for XAUTOCLAIM", line)
        : t("{who}: {task} failed ({tries} so far) — back in the queue, due {time}", { ...line, time: run.timeText(num(e.due)) }),
      "retry",
    );
  },

  dead_letter(run, e) {
    const at = num(e.at);
    const lane = laneOf(run, e.consumer);
    lane.counts.deadLetters += 1;
    run.lastAt = Math.max(run.lastAt, at);
    say(run, at, t("{who}: {task} gave up — into the dead-letter set", { who: who(e.consumer), task: String(e.task) }), "dead");
  },

  sleep(run, e) {
    const item = { t0: num(e.from), t1: num(e.until) };
    if (!Number.isFinite(item.t1)) item.t1 = item.t0;
    const lane = laneOf(run, e.consumer);
    lane.sleeps.add(item);
    lane.counts.sleeps += 1;
  },

  crash(run, e) {
    const lane = laneOf(run, e.consumer);
    lane.crashes.push({ at: num(e.at), until: null });
    lane.counts.crashes += 1;
    lane.down = true;
    run.lastAt = Math.max(run.lastAt, num(e.at));
    say(run, num(e.at), t("{who} crashed", { who: who(e.consumer) }), "crash");
  },

  restart(run, e) {
    const lane = laneOf(run, e.consumer);
    // The last crash still open (Array.prototype.findLast is ES2023).
    for (let i = lane.crashes.length - 1; i >= 0; i -= 1) {
      if (lane.crashes[i].until === null) {
        lane.crashes[i].until = num(e.at);
        break;
      }
    }
    lane.down = false;
    run.lastAt = Math.max(run.lastAt, num(e.at));
    say(run, num(e.at), t("{who} restarted", { who: who(e.consumer) }), "restart");
  },

  fate(run, e) {
    const t = taskOf(run, String(e.task));
    if (!t.final) run.finalFates += 1;
    t.final = true;
    t.lateness = e.lateness === null || e.lateness === undefined ? null : Number(e.lateness);
    setFate(run, t, FATE_IDS.includes(e.fate) ? e.fate : "pending");
    if (t.mark && t.lateness !== null && t.firstDone === null) t.mark.t1 = t.due + t.lateness;
  },
};

/**
 * One event into the run; events of other kinds are not counted.
 * @param {Run} run
 * @param {{kind?: unknown}} e
 */
function addEvent(run, e) {
  const handler = Object.hasOwn(HANDLERS, String(e.kind)) ? HANDLERS[/** @type {SimEvent["kind"]} */ (e.kind)] : undefined;
  if (handler === undefined) return;
  run.events += 1;
  /** @type {(run: Run, e: SimEvent) => void} */ (handler)(run, /** @type {SimEvent} */ (e));
}

/**
 * @param {object} opts
 * @param {number} opts.consumers
 * @param {number} [opts.startMs]  Unix ms of t = 0
 * @param {(ms: number) => string} [opts.timeText]  sim ms → the clock text for log lines
 */
export function createRunModel({ consumers, startMs = 0, timeText = (ms) => `${ms} ms` }) {
  /** @type {Run} */
  const run = {
    tasks: new Map(),
    byDue: createSpanList(),
    lanes: Array.from({ length: Math.max(1, consumers) }, newLane),
    producer: newLane(),
    counts: /** @type {Record<FateId, number>} */ (Object.fromEntries(FATE_IDS.map((f) => [f, 0]))),
    log: [],
    logSerial: 0,
    finalFates: 0,
    events: 0,
    lastAt: 0,
    startMs,
    timeText,
  };
  let dropped = 0;
  let version = 0;

  return {
    tasks: run.tasks,
    byDue: run.byDue,
    lanes: run.lanes,
    producer: run.producer,
    counts: run.counts,
    log: run.log,

    /**
     * Adds a drain's events; returns true if anything changed.
     * @param {ReadonlyArray<{kind?: unknown}> | null | undefined} list
     * @param {number} [droppedNow]  events the lab's log dropped since the last drain
     */
    update(list, droppedNow = 0) {
      dropped += Number(droppedNow) || 0;
      if ((!list || list.length === 0) && !droppedNow) return false;
      for (const e of list ?? []) addEvent(run, e);
      version += 1;
      return true;
    },

    get version() {
      return version;
    },
    get dropped() {
      return dropped;
    },
    get events() {
      return run.events;
    },
    get lastAt() {
      return run.lastAt;
    },
    /** True once every task has the engine's verdict (the run ended). */
    get settled() {
      return run.tasks.size > 0 && run.finalFates === run.tasks.size;
    },
    get finalFates() {
      return run.finalFates;
    },
    logSerial() {
      return run.logSerial;
    },
  };
}
