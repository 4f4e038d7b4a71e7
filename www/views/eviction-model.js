// @ts-check
// The eviction view's model: what the view knows and what to draw next, as plain data — the
// memory settings and the latest INFO memory reading, the last evictions kept for stepping back
// and which one is shown, the OOM state, the workload runs on the hit-ratio chart and the
// comparison's status, and which parts are dirty and when the throttled ones were drawn.
// Pure: no DOM, no engine: eviction-view.js reads INFO and the workload's status and hands them
// in; every function returns a new state.
//
// The words for one eviction report are in eviction-report.js; the forms' parsing in
// eviction-forms.js; this file holds the view's own words (the gauge, the OOM callout, the
// navigation, the workload and comparison lines).

import { number } from "../format.js";
import { t } from "../i18n.js";
import { formatTimeOfDay } from "./clock-model.js";
import { formatBytes } from "./eviction-report.js";

/** @typedef {import("./engine-types.js").EngineEvent} EngineEvent */
/** @typedef {import("./engine-types.js").EvictionEvent} EvictionEvent */

/** @typedef {{maxmemory: string | null, policy: string | null, samples: string | null}} EvictionConfig */
/**
 * INFO memory/stats/keyspace as the view uses it (summed over the dbs); `fromRun`: the reading
 * a live workload took (see workload.js), shown instead of reading INFO again.
 * @typedef {{used: number, maxmemory: number, policy: string | null, keys: number, expires: number, evicted: number,
 *            hits?: number, misses?: number, fromRun?: object}} Memory
 */
/** A refused command: its reply, what sent it, when (virtual ms); `seq` orders it with evictions. */
/** @typedef {{seq: number, at: number, command: string, text: string, from: string}} Oom */
/** One INFO reading of a workload run (workload.js). */
/** @typedef {import("../workload").RunSample} RunSample */
/**
 * A workload run on the hit-ratio chart.
 * @typedef {{id: number, label: string, color: string, current: boolean, rate?: number, samples: RunSample[],
 *            requests: number, total: number, done: boolean, oom: number}} Run
 */
/**
 * The live run's status (workload.js `status().run`).
 * @typedef {{id: number, label: string, spec: {rate: number, requests: number}, startMs: number, requests: number,
 *            total: number, done: boolean, stopped: boolean, counts: {oom: number}, samples: RunSample[],
 *            info: {hits: number, misses: number, evicted: number}, memory: object | null, lastError: string}} RunStatus
 */
/**
 * A comparison's status (workload.js createComparison `status()`).
 * @typedef {{running: boolean, results: CompareResult[], progress: number, failed: string | null, policy: string | null,
 *            spec: import("../workload").WorkloadSpec, config: Record<string, string>}} CompareStatus
 * @typedef {{policy: string, requests: number, hits: number, misses: number, ratio: number | null, evicted: number,
 *            oom: number, samples: RunSample[]}} CompareResult
 */
/** @typedef {"head" | "gauge" | "controls" | "callouts" | "detail" | "workload" | "ratio" | "compare" | "lru"} Part */

/**
 * @typedef {object} EvictionState
 * @property {boolean} visible
 * @property {boolean} playing
 * @property {boolean} everVisible      (the LRU experiment runs the first time the view is shown)
 * @property {EvictionConfig} config
 * @property {Memory | null} memory
 * @property {boolean} memStale         INFO must be read again
 * @property {number} memReadAt         real ms
 * @property {number} memReads
 * @property {EvictionEvent[]} kept     the last MAX_KEPT eviction events, oldest first
 * @property {number} seen              eviction events seen since the start
 * @property {number | null} selected   the (1-based) eviction shown, or null: the latest
 * @property {number} seq               orders evictions and OOM refusals
 * @property {number} lastEvictionSeq
 * @property {Oom | null} oom
 * @property {number} oomSeenFromRun    the live run's refusals already noted
 * @property {number} unreadableSeen    drains whose events were lost, as last seen
 * @property {Run[]} runs
 * @property {RunStatus | null} runStatus
 * @property {CompareStatus | null} compareStatus
 * @property {number} compareSeenResults  results the comparison list shows
 * @property {Record<Part, boolean>} dirty
 * @property {Record<"detail" | "ratio" | "gauge" | "compare", number>} drawnAt  real ms
 */

/** Evictions kept for stepping back. */
export const MAX_KEPT = 256;
/** Workload runs kept on the hit-ratio chart. */
export const MAX_RUNS = 6;
/** While the clock plays: INFO reads and the heavy redraws at most this often (real ms). */
export const PLAYING_EVERY_MS = 250;
/** The runs' colours on the hit-ratio chart, in turn. */
export const RUN_COLORS = Object.freeze(["#7fb4ff", "#ff8a4c", "#7ec699", "#e5c07b", "#b48cff", "#ff7b72"]);

/** Commands the views issue to read state: they change nothing the view shows. */
const READ_ONLY = new Set(["info", "config|get", "object|freq", "object|idletime", "dbsize", "memory|usage"]);

/** The config parameters the view shows, and where. */
/** @type {ReadonlyMap<string, keyof EvictionConfig>} */
const CONFIG_FIELDS = new Map([
  ["maxmemory", "maxmemory"],
  ["maxmemory-policy", "policy"],
  ["maxmemory-samples", "samples"],
]);

/** The parts in drawing order. */
export const PARTS = /** @type {const} */ (["gauge", "head", "controls", "callouts", "detail", "workload", "ratio", "compare", "lru"]);
const THROTTLED = new Set(["detail", "ratio", "gauge"]);

/** @returns {Record<Part, boolean>} */
const allDirty = () => ({ head: true, gauge: true, controls: true, callouts: true, detail: true, workload: true, ratio: true, compare: true, lru: true });

/**
 * Marks parts dirty.
 * @param {EvictionState} s
 * @param {...Part} parts
 * @returns {EvictionState}
 */
export function touch(s, ...parts) {
  const dirty = { ...s.dirty };
  for (const p of parts) dirty[p] = true;
  return { ...s, dirty };
}

// ---------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------

/** @returns {EvictionState} */
export function initialState() {
  return {
    visible: false,
    playing: false,
    everVisible: false,
    config: { maxmemory: null, policy: null, samples: null },
    memory: null,
    memStale: true,
    memReadAt: Number.NEGATIVE_INFINITY,
    memReads: 0,
    kept: [],
    seen: 0,
    selected: null,
    seq: 0,
    lastEvictionSeq: 0,
    oom: null,
    oomSeenFromRun: 0,
    unreadableSeen: 0,
    runs: [],
    runStatus: null,
    compareStatus: null,
    compareSeenResults: -1,
    dirty: allDirty(),
    drawnAt: { detail: Number.NEGATIVE_INFINITY, ratio: Number.NEGATIVE_INFINITY, gauge: Number.NEGATIVE_INFINITY, compare: Number.NEGATIVE_INFINITY },
  };
}

/**
 * Start over (after an engine reset or recovery): no evictions, no OOM, the live run forgotten.
 * @param {EvictionState} s
 * @returns {EvictionState}
 */
export function restart(s) {
  return {
    ...s,
    kept: [],
    seen: 0,
    selected: null,
    oom: null,
    memory: null,
    memStale: true,
    runStatus: null,
    runs: s.runs.map((r) => ({ ...r, current: false })),
    dirty: allDirty(),
  };
}

/**
 * The memory settings as CONFIG GET returned them (null: not readable, keep the old value).
 * @param {EvictionState} s
 * @param {EvictionConfig} values
 * @returns {EvictionState}
 */
export function configRead(s, { maxmemory, policy, samples }) {
  const config = {
    maxmemory: maxmemory ?? s.config.maxmemory,
    policy: policy ?? s.config.policy,
    samples: samples ?? s.config.samples,
  };
  return touch({ ...s, config }, "controls", "head", "gauge");
}

/**
 * The store's state at the start of a frame.
 * @param {EvictionState} s
 * @param {{panelView: string, paused: boolean}} store
 */
export function beginFrame(s, store) {
  const visible = store.panelView === "eviction";
  return { state: { ...s, visible, playing: !store.paused }, becameVisible: visible && !s.visible };
}

// ---------------------------------------------------------------------------------------------
// Events and readings → state
// ---------------------------------------------------------------------------------------------

/**
 * One frame's events: evictions are kept (the last MAX_KEPT), anything that may change memory
 * makes INFO stale, config changes update the settings. Keeps the selection among the kept.
 * @param {EvictionState} state
 * @param {readonly EngineEvent[]} events
 * @returns {EvictionState}
 */
export function reduceEvents(state, events) {
  let s = state;
  /** @type {EvictionEvent[]} */
  const evictions = [];
  for (const e of events) {
    switch (e.kind) {
      case "eviction":
        evictions.push(e);
        break;
      case "command":
        if (!READ_ONLY.has(e.name) && !s.memStale) s = { ...s, memStale: true };
        break;
      case "keyspace":
        if (!s.memStale) s = { ...s, memStale: true };
        break;
      case "config": {
        const key = CONFIG_FIELDS.get(e.name);
        if (key === undefined) break;
        s = touch({ ...s, config: { ...s.config, [key]: e.value }, memStale: true }, "controls", "head", "gauge", "callouts");
        break;
      }
      default:
        break;
    }
  }
  if (evictions.length > 0) {
    const seq = s.seq + evictions.length;
    s = touch(
      { ...s, kept: s.kept.concat(evictions).slice(-MAX_KEPT), seen: s.seen + evictions.length, seq, lastEvictionSeq: seq, memStale: true },
      "detail",
      "head",
      "callouts",
    );
  }
  const first = s.seen - s.kept.length + 1;
  if (s.selected !== null && s.selected < first) s = { ...s, selected: first };
  return s;
}

/**
 * The loop's count of drains whose events could not be read: said in a callout.
 * @param {EvictionState} s
 * @param {number} lost
 */
export function noteUnreadable(s, lost) {
  return lost === s.unreadableSeen ? s : touch({ ...s, unreadableSeen: lost, memStale: true }, "callouts");
}

/**
 * A refused command (OOM): the view shows the OOM state until the next eviction.
 * @param {EvictionState} s
 * @param {{text: string, command: string, from: string, at: number}} refusal
 * @returns {EvictionState}
 */
export function noteOom(s, { text, command, from, at }) {
  const seq = s.seq + 1;
  return touch({ ...s, seq, oom: { seq, at, command, text, from }, memStale: true }, "callouts", "detail", "head");
}

/**
 * A console reply: an OOM error is a refusal; any other reply may have changed memory.
 * @param {EvictionState} s
 * @param {{type?: string, value?: unknown} | null | undefined} reply
 * @param {string} line  what was typed
 * @param {number} at    virtual ms
 * @returns {EvictionState}
 */
export function noteReply(s, reply, line, at) {
  if (reply?.type === "error" && String(reply.value).startsWith("OOM ")) {
    return noteOom(s, { text: String(reply.value), command: line.trim().split(/\s+/).slice(0, 2).join(" "), from: "console", at });
  }
  return reply ? { ...s, memStale: true } : s;
}

/**
 * INFO "memory stats keyspace" as fields → the memory reading (keys and expires summed over dbs).
 * @param {Record<string, string>} info
 * @param {string | null} policy  the configured policy, if INFO does not say
 * @returns {Memory}
 */
export function memoryFromInfo(info, policy) {
  let keys = 0;
  let expires = 0;
  for (const [field, value] of Object.entries(info)) {
    if (!/^db\d+$/.test(field)) continue;
    const m = /keys=(\d+),expires=(\d+)/.exec(value);
    if (m) {
      keys += Number(m[1]);
      expires += Number(m[2]);
    }
  }
  return {
    used: Number(info.used_memory) || 0,
    maxmemory: Number(info.maxmemory) || 0,
    policy: info.maxmemory_policy ?? policy,
    keys,
    expires,
    evicted: Number(info.evicted_keys) || 0,
    hits: Number(info.keyspace_hits) || 0,
    misses: Number(info.keyspace_misses) || 0,
  };
}

/**
 * A reading of INFO at real time `readAt`.
 * @param {EvictionState} s
 * @param {Memory} memory
 * @param {number} readAt
 */
export function acceptMemory(s, memory, readAt) {
  const next = touch({ ...s, memory, memStale: false, memReadAt: readAt, memReads: s.memReads + 1 }, "gauge", "head", "callouts");
  return s.kept.length === 0 ? touch(next, "detail") : next;
}

/**
 * Whether to read INFO now: it is stale and (playing) not read in the last PLAYING_EVERY_MS.
 * @param {EvictionState} s
 * @param {number} now  real ms
 */
export const memoryDue = (s, now) => s.memStale && (!s.playing || now - s.memReadAt >= PLAYING_EVERY_MS);

/**
 * While a run is live its own INFO readings stand in for the view's (see workload.js).
 * @param {EvictionState} s
 * @param {object | null} m  the run's latest reading (the same object until it reads again)
 * @returns {EvictionState}
 */
export function useRunMemory(s, m) {
  if (!m || (s.memory && s.memory.fromRun === m)) return s;
  return touch({ ...s, memory: { .../** @type {Memory} */ (m), fromRun: m } }, "gauge", "head", "callouts");
}

/**
 * The workload's status (each frame): the live run joins the chart (a new one becomes the
 * current run), its refusals become OOM notes; the comparison's status is kept.
 * @param {EvictionState} state
 * @param {{run: RunStatus | null, compare: CompareStatus | null}} status
 * @param {number} clockNow  virtual ms (when a refusal is noted)
 * @returns {EvictionState}
 */
export function followRuns(state, { run, compare }, clockNow) {
  let s = { ...state, runStatus: run };
  if (run) {
    let runs = s.runs;
    let entry = runs.find((r) => r.id === run.id);
    if (!entry) {
      entry = { id: run.id, label: run.label, color: RUN_COLORS[(run.id - 1) % RUN_COLORS.length], current: true, samples: [], requests: -1, total: 0, done: false, oom: 0 };
      runs = [...runs.map((r) => ({ ...r, current: false })), entry].slice(-MAX_RUNS);
      s = { ...s, oomSeenFromRun: 0 };
    }
    const changed = entry.requests !== run.requests || entry.done !== run.done;
    const updated = { ...entry, rate: run.spec.rate, samples: run.samples, requests: run.requests, total: run.total, done: run.done, oom: run.counts.oom };
    s = { ...s, runs: runs.map((r) => (r === entry ? updated : r)) };
    if (run.counts.oom > s.oomSeenFromRun) {
      s = noteOom({ ...s, oomSeenFromRun: run.counts.oom }, { text: run.lastError, command: t("SET (the workload)"), from: "workload", at: clockNow });
    }
    if (changed) s = touch(s, "ratio", "workload");
  }
  if (compare && (compare.running || compare.results.length !== s.compareSeenResults || s.compareStatus?.running !== compare.running)) {
    s = touch(s, "compare");
  }
  return { ...s, compareStatus: compare };
}

/**
 * "Clear": keeps only the run still going.
 * @param {EvictionState} s
 */
export const clearRuns = (s) => touch({ ...s, runs: s.runs.filter((r) => r.current && !r.done) }, "ratio");

/**
 * A comparison was started: its list is drawn afresh.
 * @param {EvictionState} s
 */
export const compareStarted = (s) => touch({ ...s, compareSeenResults: -1 }, "compare");

// ---------------------------------------------------------------------------------------------
// Stepping through the kept evictions
// ---------------------------------------------------------------------------------------------

/** @param {EvictionState} s */
const firstKept = (s) => s.seen - s.kept.length + 1;

/** @param {EvictionState} s */
export const older = (s) => touch({ ...s, selected: Math.max(firstKept(s), (s.selected ?? s.seen) - 1) }, "detail");

/** @param {EvictionState} s */
export function newer(s) {
  if (s.selected === null) return s;
  return touch({ ...s, selected: s.selected + 1 >= s.seen ? null : s.selected + 1 }, "detail");
}

/** @param {EvictionState} s */
export const latest = (s) => touch({ ...s, selected: null }, "detail");

/**
 * The eviction shown and the navigation around it.
 * @param {EvictionState} s
 */
export function detailNav(s) {
  const first = firstKept(s);
  const n = s.selected ?? s.seen;
  const event = s.kept.length === 0 ? null : s.kept[n - first];
  return {
    n,
    event,
    olderDisabled: s.kept.length === 0 || n <= first,
    newerDisabled: s.selected === null,
    text:
      event === null
        ? ""
        : (s.selected === null ? t("eviction {n} of {seen} (latest)", { n: number(n), seen: number(s.seen) }) : t("eviction {n} of {seen}", { n: number(n), seen: number(s.seen) })) +
          (s.seen > s.kept.length ? ` · ${t("the last {n} are kept", { n: number(s.kept.length) })}` : ""),
  };
}

// ---------------------------------------------------------------------------------------------
// What to draw this frame
// ---------------------------------------------------------------------------------------------

/**
 * Every dirty part, except (playing) a throttled one drawn less than PLAYING_EVERY_MS ago, and
 * the comparison while it runs. `pending`: a part waits, or memory must be read again.
 * @param {EvictionState} s
 * @param {number} now  real ms
 * @returns {{plan: Set<Part>, pending: boolean}}
 */
export function planFrame(s, now) {
  /** @type {Set<Part>} */
  const plan = new Set();
  const comparing = s.compareStatus?.running ?? false;
  for (const part of PARTS) {
    if (!s.dirty[part]) continue;
    if (s.playing && THROTTLED.has(part) && now - s.drawnAt[/** @type {"detail" | "ratio" | "gauge"} */ (part)] < PLAYING_EVERY_MS) continue;
    if (part === "compare" && comparing && now - s.drawnAt.compare < PLAYING_EVERY_MS) continue;
    plan.add(part);
  }
  const pending = PARTS.some((part) => s.dirty[part] && !plan.has(part)) || (s.memStale && s.visible);
  return { plan, pending };
}

/**
 * A part is being drawn at real time `now`.
 * @param {EvictionState} s
 * @param {Part} part
 * @param {number} now
 * @returns {EvictionState}
 */
export function drawn(s, part, now) {
  const next = { ...s, dirty: { ...s.dirty, [part]: false } };
  if (part === "detail" || part === "ratio" || part === "gauge" || part === "compare") next.drawnAt = { ...s.drawnAt, [part]: now };
  return next;
}

/**
 * Everything is drawn again (the panel was just shown).
 * @param {EvictionState} s
 */
export const showAll = (s) => ({ ...s, dirty: allDirty(), everVisible: true });

// ---------------------------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------------------------

/**
 * The policy in force: as configured, else as INFO says, else Redis's default.
 * @param {EvictionState} s
 */
export const policyNow = (s) => s.config.policy ?? s.memory?.policy ?? "noeviction";

/**
 * Refusing commands: an OOM after the last eviction, with used_memory still above the limit.
 * @param {EvictionState} s
 */
export function inOom(s) {
  const { oom, memory } = s;
  return oom !== null && oom.seq > s.lastEvictionSeq && memory !== null && memory.maxmemory > 0 && memory.used > memory.maxmemory;
}

/** @param {EvictionState} s */
export function headText(s) {
  const seen = number(s.seen);
  const parts = [policyNow(s), t("samples {n}", { n: s.config.samples ?? "?" }), s.seen === 1 ? t("{n} eviction seen", { n: seen }) : t("{n} evictions seen", { n: seen })];
  if (s.memory && !s.memory.fromRun) parts.push(`evicted_keys ${number(s.memory.evicted)}`);
  if (inOom(s)) parts.push("OOM");
  return parts.join(" · ");
}

/**
 * A maxmemory with room for a few thousand of the workload's keys above what is used now.
 * @param {{used: number}} memory
 */
export const suggestMaxmemory = (memory) => `${Math.ceil((memory.used + 600 * 1024) / 1024)}kb`;

/**
 * The memory gauge: used_memory against maxmemory (the bar spans 0…max(used, limit)×1.08 so the
 * limit line and an overshoot both show), and the suggestion when there is no limit.
 * @param {Memory} memory
 */
export function gauge(memory) {
  const { used, maxmemory } = memory;
  if (maxmemory === 0) {
    return {
      over: false,
      unlimited: true,
      fill: "100%",
      limit: null,
      text: t("used_memory {used} ({bytes} B) · maxmemory 0: no limit, so nothing is ever evicted. Set a limit to see eviction.", {
        used: formatBytes(used),
        bytes: number(used),
      }),
      suggestion: suggestMaxmemory(memory),
    };
  }
  const over = used > maxmemory;
  const span = Math.max(used, maxmemory) * 1.08;
  const share = ((used / maxmemory) * 100).toFixed(1);
  return {
    over,
    unlimited: false,
    fill: `${((used / span) * 100).toFixed(2)}%`,
    limit: `${((maxmemory / span) * 100).toFixed(2)}%`,
    text:
      t("used_memory {used} of maxmemory {max} ({share}%) · {keys} keys, {expires} with a TTL", {
        used: formatBytes(used),
        max: formatBytes(maxmemory),
        share,
        keys: number(memory.keys),
        expires: number(memory.expires),
      }) +
      (over ? ` · ${t("over the limit by {n} B", { n: number(used - maxmemory) })}` : "") +
      (memory.fromRun ? ` · ${t("as the workload last read INFO (every 250 requests)")}` : ""),
    suggestion: "",
  };
}

/**
 * The OOM callout's words (call only in the OOM state).
 * @param {EvictionState} s
 */
export function oomText(s) {
  const p = policyNow(s);
  const m = s.memory ?? { used: 0, maxmemory: 0, expires: 0 };
  const why =
    p === "noeviction"
      ? t("The policy is noeviction: Redis never evicts.")
      : p.startsWith("volatile")
        ? m.expires === 0
          ? t("{policy} evicts only keys with a TTL, and no key has one (INFO keyspace: expires=0), so there is nothing it may evict.", { policy: p })
          : t("{policy} evicts only keys with a TTL, and none could be evicted.", { policy: p })
        : t("Nothing could be evicted.");
  const oom = s.oom ?? { text: "", command: "", from: "", at: 0 };
  return {
    policy: p,
    title: t("OOM: commands that may grow memory are refused"),
    text: ` ${t("used_memory {used} B > maxmemory {max} B. {why} SET, LPUSH, INCR… get the error below; GET, DEL, EXPIRE and other reads or deletions still run.", {
      used: number(m.used),
      max: number(m.maxmemory),
      why,
    })}`,
    error: `(error) ${oom.text}`,
    from: ` — ${t("last refused: {command} ({from}) at {time}", {
      command: oom.command,
      from: oom.from === "console" ? t("console") : oom.from === "workload" ? t("workload") : oom.from,
      time: formatTimeOfDay(oom.at),
    })}`,
  };
}

/**
 * Drains lost (the engine could not hand its events over): a bug, said plainly.
 * @param {number} lost
 * @param {Memory | null} memory
 */
export function lostText(lost, memory) {
  return t(
    "The engine's events could not be read {n}× (its event serializer refused a value — under volatile-ttl the scores are ULLONG_MAX − the expire time, above what a JavaScript number holds exactly). Evictions did happen (evicted_keys {evicted}), but their reports are lost. This is a bug in redisplay.",
    { n: number(lost), evicted: memory ? number(memory.evicted) : "?" },
  );
}

/**
 * What the detail panel says before any eviction.
 * @param {EvictionState} s
 */
export function noEvictionText(s) {
  if (inOom(s)) return t("No eviction: {policy} can evict nothing here (see above), so Redis refuses commands that may grow memory instead.", { policy: policyNow(s) });
  if (s.memory && s.memory.maxmemory === 0) {
    return t("No eviction yet: maxmemory is 0. Set maxmemory (try the suggestion above), then add keys — the workload below does it, or SET in the console.");
  }
  return t(
    "No eviction yet. Keys are evicted before a command runs while used_memory is above maxmemory; with {policy}, fill the memory with the workload below or SET in the console.",
    { policy: policyNow(s) },
  );
}

/**
 * A ratio in percent: "87.5%", "–" for none.
 * @param {number | null | undefined} v
 * @param {number} [digits]
 */
export const pct = (v, digits = 1) => (v === null || v === undefined || Number.isNaN(v) ? "–" : `${(v * 100).toFixed(digits)}%`);

/**
 * The live run in one line.
 * @param {RunStatus} st
 * @param {number | null} ratio  its hit ratio
 * @param {boolean} paused
 */
export function runLine(st, ratio, paused) {
  const state = st.done ? (st.stopped ? t("stopped") : t("done")) : paused ? t("waiting for the clock (paused)") : t("running");
  const vars = { label: st.label, n: number(st.requests), total: number(st.total), state };
  const parts = [
    st.total > 0 ? t("{label}: {n} of {total} requests, {state}", vars) : t("{label}: {n} requests, {state}", vars),
    t("hit ratio {ratio} (INFO: {hits} hits, {misses} misses)", { ratio: pct(ratio), hits: number(st.info.hits), misses: number(st.info.misses) }),
    t("{n} evicted", { n: number(st.info.evicted) }),
  ];
  if (st.counts.oom > 0) parts.push(t("{n} SETs refused (OOM)", { n: number(st.counts.oom) }));
  return parts.join(" · ");
}

/**
 * The comparison's heading line.
 * @param {CompareStatus} st
 * @param {string} spec  the workload in words
 */
export function compareLine(st, spec) {
  const head = t("{spec}, {requests} requests, maxmemory {max}, samples {samples}", {
    spec,
    requests: number(st.spec.requests),
    max: number(Number(st.config.maxmemory)),
    samples: st.config["maxmemory-samples"] ?? "5",
  });
  if (st.failed) return st.failed === "cancelled" ? t("{head}: cancelled.", { head }) : t("{head}: failed: {error}.", { head, error: st.failed });
  if (st.running) return t("{head}: running {policy} ({pct}%)…", { head, policy: st.policy ?? "", pct: Math.round(st.progress * 100) });
  return t("{head}. Hit ratio over the whole run; \"last quarter\" is the steady state once the cache is warm.", { head });
}

/**
 * A workload was started: the console note and the form's message.
 * @param {{requests: number}} spec
 * @param {string} label
 * @param {number} startMs  virtual ms
 * @param {string | null} maxmemory  as configured
 */
export function runStarted(spec, label, startMs, maxmemory) {
  const limited = Number(maxmemory) > 0;
  return {
    note: t("(eviction view) workload {label}: {requests} requests — GET key, and SET key on a miss — from {time} virtual time.", {
      label,
      requests: spec.requests > 0 ? number(spec.requests) : t("unlimited"),
      time: formatTimeOfDay(startMs),
    }),
    message: limited
      ? t("Started. Requests run as virtual time passes: if the clock is paused, press Play or step.")
      : t("Started — but maxmemory is 0 (no limit): the cache never fills and nothing is evicted. Set maxmemory above."),
    kind: limited ? "ok" : "error",
  };
}

/**
 * A comparison was asked for: its config (this page's maxmemory and the settings that shape
 * eviction) and the console note, or null when maxmemory is not set.
 * @param {{requests: number}} spec
 * @param {string} specText  the workload in words
 * @param {string | null} maxmemory
 * @param {(name: string) => string | null} configGet
 */
export function compareRequest(spec, specText, maxmemory, configGet) {
  const max = Number(maxmemory);
  if (!(max > 0)) return null;
  /** @type {Record<string, string>} */
  const config = { maxmemory: String(max) };
  for (const name of ["maxmemory-samples", "maxmemory-eviction-tenacity", "lfu-log-factor", "lfu-decay-time"]) {
    const v = configGet(name);
    if (v !== null) config[name] = v;
  }
  return {
    config,
    note: t("(eviction view) compare policies: {spec}, {requests} requests, on a fresh engine per policy with maxmemory {max} and samples {samples}.", {
      spec: specText,
      requests: number(spec.requests > 0 ? spec.requests : 20_000),
      max: number(max),
      samples: config["maxmemory-samples"],
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// The hit-ratio chart and the comparison, as numbers
// ---------------------------------------------------------------------------------------------

/** The hit ratio plotted at each INFO reading: over the last this many requests. */
export const RATIO_WINDOW = 1000;

/**
 * The windowed hit ratio at each INFO reading: `[[requests, ratio]]`.
 * @param {readonly RunSample[]} samples
 * @param {number} [window]
 * @returns {Array<[number, number]>}
 */
export function ratioSeries(samples, window = RATIO_WINDOW) {
  /** @type {Array<[number, number]>} */
  const out = [];
  let j = 0;
  for (let i = 1; i < samples.length; i += 1) {
    const s = samples[i];
    while (j < i - 1 && s.requests - samples[j + 1].requests >= window) j += 1;
    const f = samples[j];
    const h = s.hits - f.hits;
    const m = s.misses - f.misses;
    if (h + m > 0) out.push([s.requests, h / (h + m)]);
  }
  return out;
}

/**
 * The chart's x axis: requests up to the longest run (at least 1,000) and, when the runs share
 * a rate, the virtual time it is.
 * @param {ReadonlyArray<{total: number, requests: number, rate?: number}>} runs
 */
export function ratioAxis(runs) {
  let maxX = 1000;
  for (const r of runs) maxX = Math.max(maxX, r.total > 0 ? r.total : r.requests);
  // Requests come at a fixed rate, so the axis is also virtual time when the runs share one.
  const rates = new Set(runs.map((r) => r.rate));
  const rate = rates.size === 1 ? [...rates][0] : null;
  const secs = rate ? maxX / rate : null;
  if (secs === null) return { maxX, label: t("{n} requests", { n: number(maxX) }) };
  const time = secs < 120 ? t("{n} s", { n: Number(secs.toFixed(1)) }) : t("{n} min", { n: Number((secs / 60).toFixed(1)) });
  return { maxX, label: t("{n} requests = {time} of virtual time", { n: number(maxX), time }) };
}

/**
 * The comparison's scale, zoomed to the results (at least 10 points wide), and the best ratio.
 * @param {ReadonlyArray<{ratio: number | null}>} results
 */
export function comparisonScale(results) {
  const ratios = /** @type {number[]} */ (results.map((r) => r.ratio).filter((v) => v !== null));
  const best = ratios.length ? Math.max(...ratios) : -1;
  let lo = ratios.length ? Math.floor(Math.min(...ratios) * 10) / 10 : 0;
  let hi = ratios.length ? Math.ceil(Math.max(...ratios) * 10) / 10 : 1;
  if (hi - lo < 0.1) hi = Math.min(1, lo + 0.1);
  if (hi - lo < 0.1) lo = hi - 0.1;
  return { lo, hi, best, ticks: [lo, (lo + hi) / 2, hi].map((v) => `${Math.round(v * 100)}%`) };
}

/**
 * What the finished comparison means, when the bars alone don't say it: the cache never filled
 * (nothing evicted under any policy), or noeviction refused keys.
 * @param {ReadonlyArray<CompareResult>} results
 * @param {{finished?: boolean, maxmemory?: string | number | null, keys?: number | null}} [context]
 */
export function comparisonCaption(results, { finished = true, maxmemory = null, keys = null } = {}) {
  if (finished && results.length > 0 && results.every((r) => (r.evicted ?? 0) === 0 && (r.oom ?? 0) === 0)) {
    // Eight equal bars would say nothing: say why.
    const limit = maxmemory !== null && Number(maxmemory) > 0 ? `maxmemory ${formatBytes(Number(maxmemory))}` : "maxmemory";
    return keys
      ? t(
          "The cache never filled: every key this workload asked for (of {keys}) fit under {limit}, so no policy evicted anything and every policy shows the same hit ratio (the misses are first requests). Lower maxmemory, or ask for more keys or bigger values, to make the policies choose.",
          { keys: number(keys), limit },
        )
      : t(
          "The cache never filled: every key this workload asked for fit under {limit}, so no policy evicted anything and every policy shows the same hit ratio (the misses are first requests). Lower maxmemory, or ask for more keys or bigger values, to make the policies choose.",
          { limit },
        );
  }
  const ne = results.find((r) => r.policy === "noeviction");
  return ne && ne.oom > 0
    ? t(
        "noeviction evicts nothing: once memory is full it refuses new keys ({n} SETs got the OOM error) and keeps the first keys that fit — with a skewed workload mostly hot ones, so its hit ratio can look good while the application sees errors.",
        { n: number(ne.oom) },
      )
    : "";
}

/**
 * What the view shows, as data (tests, devtools).
 * @param {EvictionState} s
 */
export function debugOf(s) {
  return { seen: s.seen, kept: s.kept.length, selected: s.selected, config: { ...s.config }, memory: s.memory, oom: s.oom, runs: s.runs.length };
}
