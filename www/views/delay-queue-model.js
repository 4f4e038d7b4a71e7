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

/** "late" = first completion more than this after due (the API's definition). */
export const LATE_AFTER_MS = 1000;

/** The fates, in the order the timeline stacks their rows. */
export const FATES = Object.freeze([
  { id: "on_time", label: "on time", color: "#7ec699" },
  { id: "late", label: "late", color: "#e5c07b" },
  { id: "duplicate", label: "processed twice", color: "#f778ba" },
  { id: "lost", label: "never (lost)", color: "#ff5f56" },
  { id: "paid", label: "paid", color: "#7fb4ff" },
  { id: "pending", label: "pending", color: "#7d838c" },
]);

export const FATE_IDS = Object.freeze(FATES.map((f) => f.id));

/** Log lines kept for the event list. */
export const LOG_KEPT = 400;

// -------------------------------------------------------------------------------------------
// Sorted span lists
// -------------------------------------------------------------------------------------------

/** A list of items `{t0, t1, …}` sorted by t0, remembering the longest t1 - t0. */
export function createSpanList() {
  const items = [];
  let maxSpan = 0;
  return {
    items,
    get maxSpan() {
      return maxSpan;
    },
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
    /** Index of the first item that may reach `fromMs`. */
    firstVisible(fromMs) {
      const key = fromMs - maxSpan;
      let lo = 0;
      let hi = items.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (items[mid].t0 < key) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    },
    /** Index of the first item starting at or after `t`. */
    indexFrom(t) {
      let lo = 0;
      let hi = items.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (items[mid].t0 < t) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    },
    /**
     * As forEachIn, for drawing `msPerPx` ms to a pixel (pixels counted from `originMs`): after
     * an item narrower than a pixel, the rest of its pixel is skipped (binary search), so a
     * zoomed-out lane costs about one visit per pixel however many items it holds. Which items
     * stand for a pixel depends only on the pixel, not on where the walk started.
     */
    forEachThinned(fromMs, toMs, msPerPx, fn, originMs = fromMs) {
      let i = this.firstVisible(fromMs);
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
          const j = this.indexFrom(pixelEnd);
          i = j > i ? j : i + 1;
        } else {
          i += 1;
        }
      }
    },
    /** Calls fn(item) for the items overlapping [fromMs, toMs], in t0 order. */
    forEachIn(fromMs, toMs, fn) {
      for (let i = this.firstVisible(fromMs); i < items.length; i += 1) {
        const it = items[i];
        if (it.t0 > toMs) break;
        if (it.t1 < fromMs) continue;
        fn(it);
      }
    },
  };
}

// -------------------------------------------------------------------------------------------
// Classifying what a consumer's command was, for its mark (from the engine's own text)
// -------------------------------------------------------------------------------------------

/** What commandKind() answers. */
export const COMMAND_KINDS = Object.freeze(["empty", "poll", "claim", "missed", "subscribe", "other"]);

const POLLS = new Set(["ZRANGEBYSCORE", "ZRANGE", "EVAL", "EVALSHA", "FCALL", "ZPOPMIN", "BZPOPMIN"]);
const CLAIMS = new Set(["ZREM", "DEL", "UNLINK", "GETDEL"]);

/**
 * `empty` (a poll that found nothing — the engine says so), `poll` (a poll that returned due
 * tasks), `claim` (ZREM/DEL that removed something: this consumer owns the task), `missed`
 * (ZREM/DEL that removed nothing: someone else had it), `subscribe`, or `other`.
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
  return {
    commands: createSpanList(),
    // The same commands by kind (commandKind), so each kind's marks can be thinned per pixel.
    byKind: Object.fromEntries(COMMAND_KINDS.map((k) => [k, createSpanList()])),
    messages: createSpanList(),
    processes: createSpanList(),
    // The same processings by how they ended: "done", "again" (a task already processed), "cut".
    procByKind: { done: createSpanList(), again: createSpanList(), cut: createSpanList() },
    sleeps: createSpanList(),
    crashes: [], // {at, until|null}
    // The producer's lane: its orders and payments (`order` and `paid` events), by kind.
    marks: { order: createSpanList(), paid: createSpanList(), "paid-late": createSpanList() },
    counts: { commands: 0, empty: 0, claims: 0, missed: 0, messages: 0, processes: 0, cut: 0, sleeps: 0, crashes: 0, orders: 0, payments: 0 },
    down: false,
  };
}

const num = (v) => (v === null || v === undefined ? NaN : Number(v));

/**
 * @param {object} opts
 * @param {number} opts.consumers
 * @param {number} [opts.startMs]  Unix ms of t = 0
 * @param {(ms: number) => string} [opts.timeText]  sim ms → the clock text for log lines
 */
export function createRunModel({ consumers, startMs = 0, timeText = (ms) => `${ms} ms` }) {
  const tasks = new Map();
  const byDue = createSpanList(); // items: {t0: due, t1: due or first completion, task}
  const lanes = Array.from({ length: Math.max(1, consumers) }, newLane);
  const producer = newLane();
  const counts = Object.fromEntries(FATE_IDS.map((f) => [f, 0]));
  const log = [];
  let logSerial = 0;
  let finalFates = 0;
  let dropped = 0;
  let events = 0;
  let lastAt = 0;
  let version = 0;

  function laneOf(consumer) {
    const c = Number(consumer);
    if (c < 0 || !Number.isInteger(c)) return producer;
    while (lanes.length <= c) lanes.push(newLane());
    return lanes[c];
  }

  function who(consumer) {
    return Number(consumer) < 0 ? "producer" : `consumer ${Number(consumer) + 1}`;
  }

  function say(at, text, kind) {
    logSerial += 1;
    log.push({ serial: logSerial, at, text, kind });
    if (log.length > LOG_KEPT * 1.25) log.splice(0, log.length - LOG_KEPT);
  }

  function taskOf(id) {
    let t = tasks.get(id);
    if (!t) {
      t = {
        id,
        at: NaN,
        due: NaN,
        paidAt: null,
        removedByPayment: false,
        processings: [],
        completed: 0,
        firstDone: null, // start of the first completed processing
        fate: "pending",
        lateness: null,
        final: false,
        mark: null,
      };
      tasks.set(id, t);
      counts.pending += 1;
    }
    return t;
  }

  function setFate(t, fate) {
    if (t.fate === fate) return;
    counts[t.fate] -= 1;
    t.fate = fate;
    counts[fate] = (counts[fate] ?? 0) + 1;
  }

  /** What the events so far say of a task whose `fate` event has not come yet. */
  function provisionalFate(t) {
    if (t.completed >= 2) return "duplicate";
    if (t.completed === 1) return t.firstDone - t.due > LATE_AFTER_MS ? "late" : "on_time";
    if (t.removedByPayment) return "paid";
    return "pending";
  }

  function refresh(t) {
    if (!t.final) setFate(t, provisionalFate(t));
    if (t.mark) t.mark.t1 = Math.max(t.due, t.firstDone ?? t.due);
  }

  function addEvent(e) {
    events += 1;
    const lane = "consumer" in e ? laneOf(e.consumer) : null;
    switch (e.kind) {
      case "order": {
        const t = taskOf(String(e.task));
        t.at = num(e.at);
        t.due = num(e.due);
        if (!t.mark && Number.isFinite(t.due)) {
          t.mark = { t0: t.due, t1: t.due, task: t };
          byDue.add(t.mark);
        }
        refresh(t);
        producer.marks.order.add({ t0: t.at, t1: t.at, kind: "order", task: t.id });
        producer.counts.orders += 1;
        lastAt = Math.max(lastAt, t.at);
        say(t.at, `producer: ${t.id} created, due ${timeText(t.due)}`, "order");
        break;
      }
      case "paid": {
        const t = taskOf(String(e.task));
        t.paidAt = num(e.at);
        t.removedByPayment = Boolean(e.removed);
        refresh(t);
        const kind = e.removed ? "paid" : "paid-late";
        producer.marks[kind].add({ t0: t.paidAt, t1: t.paidAt, kind, task: t.id });
        producer.counts.payments += 1;
        lastAt = Math.max(lastAt, t.paidAt);
        say(t.paidAt, `producer: ${t.id} paid — ${e.removed ? "its task removed" : "too late, the task was already taken"}`, "paid");
        break;
      }
      case "command": {
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
          producer.counts.commands = (producer.counts.commands ?? 0) + 1;
          say(item.executed, `producer: ${item.cmd} → ${item.reply}`, "producer");
          break;
        }
        lane.commands.add(item);
        lane.byKind[item.kind].add(item);
        lane.counts.commands += 1;
        if (item.empty) lane.counts.empty += 1;
        if (item.kind === "claim") lane.counts.claims += 1;
        if (item.kind === "missed") lane.counts.missed += 1;
        lastAt = Math.max(lastAt, item.t1);
        say(item.executed, `${who(e.consumer)}: ${item.cmd} → ${item.reply}${item.empty ? " (empty poll)" : ""}`, item.kind);
        break;
      }
      case "message": {
        const item = { t0: num(e.published), t1: num(e.delivered), task: e.task == null ? null : String(e.task), consumer: Number(e.consumer) };
        if (!Number.isFinite(item.t0)) item.t0 = item.t1;
        lane.messages.add(item);
        lane.counts.messages += 1;
        lastAt = Math.max(lastAt, item.t1);
        // Strategy 5's wake-ups carry the announced due time (Unix ms), strategy 4's the key.
        const about = item.task === null ? "" : /^\d{12,}$/.test(item.task) ? ` — wake up, a task is due at ${timeText(Number(item.task) - startMs)}` : ` for ${item.task}`;
        say(item.t1, `${who(e.consumer)}: pub/sub message${about} (published ${timeText(item.t0)})`, "message");
        break;
      }
      case "process": {
        const t = taskOf(String(e.task));
        const item = {
          t0: num(e.start),
          t1: num(e.end),
          completed: Boolean(e.completed),
          task: t.id,
          consumer: Number(e.consumer),
          again: t.completed > 0 || t.processings.length > 0,
        };
        t.processings.push(item);
        if (item.completed) {
          // Lateness runs from due to the start of the first processing that completed (the
          // engine's definition; process events arrive in the order they complete).
          t.completed += 1;
          if (t.firstDone === null) t.firstDone = item.t0;
        }
        lane.processes.add(item);
        lane.procByKind[!item.completed ? "cut" : item.again ? "again" : "done"].add(item);
        lane.counts.processes += 1;
        if (!item.completed) lane.counts.cut += 1;
        refresh(t);
        lastAt = Math.max(lastAt, item.t1);
        say(
          item.t1,
          `${who(e.consumer)}: processed ${t.id} (${item.t1 - item.t0} ms)${item.completed ? "" : " — cut short by a crash"}${item.again ? " — again!" : ""}`,
          item.completed ? (item.again ? "duplicate" : "process") : "cut",
        );
        break;
      }
      case "sleep": {
        const item = { t0: num(e.from), t1: num(e.until) };
        if (!Number.isFinite(item.t1)) item.t1 = item.t0;
        lane.sleeps.add(item);
        lane.counts.sleeps += 1;
        break;
      }
      case "crash": {
        lane.crashes.push({ at: num(e.at), until: null });
        lane.counts.crashes += 1;
        lane.down = true;
        lastAt = Math.max(lastAt, num(e.at));
        say(num(e.at), `${who(e.consumer)} crashed`, "crash");
        break;
      }
      case "restart": {
        const open = lane.crashes.findLast((c) => c.until === null);
        if (open) open.until = num(e.at);
        lane.down = false;
        lastAt = Math.max(lastAt, num(e.at));
        say(num(e.at), `${who(e.consumer)} restarted`, "restart");
        break;
      }
      case "fate": {
        const t = taskOf(String(e.task));
        if (!t.final) finalFates += 1;
        t.final = true;
        t.lateness = e.lateness === null || e.lateness === undefined ? null : Number(e.lateness);
        setFate(t, FATE_IDS.includes(e.fate) ? e.fate : "pending");
        if (t.mark && t.lateness !== null && t.firstDone === null) t.mark.t1 = t.due + t.lateness;
        break;
      }
      default:
        events -= 1; // not a delay-queue event: not counted
    }
  }

  return {
    tasks,
    byDue,
    lanes,
    producer,
    counts,
    log,

    /** Adds a drain's events; returns true if anything changed. */
    update(list, droppedNow = 0) {
      dropped += Number(droppedNow) || 0;
      if ((!list || list.length === 0) && !droppedNow) return false;
      for (const e of list ?? []) addEvent(e);
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
      return events;
    },
    get lastAt() {
      return lastAt;
    },
    /** True once every task has the engine's verdict (the run ended). */
    get settled() {
      return tasks.size > 0 && finalFates === tasks.size;
    },
    get finalFates() {
      return finalFates;
    },
    logSerial() {
      return logSerial;
    },
  };
}
