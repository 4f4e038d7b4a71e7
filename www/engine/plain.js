// @ts-check
// What the engine's wasm methods return, turned into the plain objects the page reads, and INFO's
// text parsed — the one copy of each. Pure: no DOM, no wasm (node:test imports it).
//
// The raw shapes are www/types/playground.d.ts (built by hand in src/wasm.rs) and the generated
// events.d.ts / snapshots.d.ts. The converters only coerce (String(), Number(), Boolean()) and
// fill defaults, so a result from an older build of the engine still reads as something sane.

import { t } from "../i18n.js";

/** @typedef {import("../types/playground").Reply} Reply */
/** @typedef {import("../types/events").Event} Event */
/** @typedef {import("../types/events").DelayQueueEvent} DelayQueueEvent */

/**
 * One console line's result (`execute`), or console n's (`executeOn`, which also says
 * `blocked` and `subscribed`).
 * @typedef {object} LineResult
 * @property {string} text    exactly what redis-cli prints
 * @property {string} prompt  the prompt after the line
 * @property {Reply | null} reply  the last reply as data, or null (a blank line, `help`…)
 * @property {boolean} quit   redis-cli would exit here
 * @property {boolean} clear  the line was `clear`
 * @property {boolean} [shutdown]  SHUTDOWN ended the server (`connect` starts it again)
 * @property {boolean} [blocked]     the console waits for a blocked command's reply
 * @property {boolean} [subscribed]  the console reads messages (subscribe mode)
 */

/**
 * @typedef {object} CommandResult  one command's result (`command`, `peek`)
 * @property {string} text  what redis-cli would print
 * @property {Reply | null} reply
 */

/**
 * @typedef {object} Advance  what `advanceTo` did
 * @property {number} ticks  serverCron runs
 * @property {number} lagMs  virtual ms left unrun (the tick budget ran out)
 * @property {number} now    the clock after it
 */

/**
 * @typedef {object} Drain  the events since the last drain
 * @property {Event[]} events
 * @property {number} dropped     events the bounded log dropped
 * @property {boolean} unreadable  the engine had events it could not hand over: lost
 */

/**
 * @typedef {object} PollResult  what a console prints without input
 * @property {string} text
 * @property {string} prompt
 * @property {boolean} blocked
 * @property {boolean} subscribed
 * @property {number} client  the client id it is connected as
 */

/**
 * @typedef {object} Experiment  the LRU-approximation experiment
 * @property {number} keys
 * @property {number} samples  0: true LRU
 * @property {number[]} evictedByDecile  ten shares, the oldest tenth first
 * @property {number} newKeysEvicted
 * @property {number} evictedTotal
 */

/** @typedef {import("../types/playground").CommandDoc} CommandDoc */

/** The prompt before the engine said otherwise (and while it is restarting). */
export const DEFAULT_PROMPT = "127.0.0.1:6379> ";

/**
 * @param {any} r  a RawLineResult
 * @returns {LineResult}
 */
export function plainLine(r) {
  return {
    text: String(r.text),
    prompt: String(r.prompt),
    reply: r.reply ?? null,
    quit: Boolean(r.quit),
    clear: Boolean(r.clear),
    shutdown: Boolean(r.shutdown),
  };
}

/**
 * `executeOn`'s result: a line's, plus where the console is.
 * @param {any} r  a RawLineResult
 * @returns {LineResult & {blocked: boolean, subscribed: boolean}}
 */
export function plainLineOn(r) {
  return { ...plainLine(r), blocked: Boolean(r.blocked), subscribed: Boolean(r.subscribed) };
}

/**
 * @param {any} r  a RawCommandResult
 * @returns {CommandResult}
 */
export function plainCommandResult(r) {
  return { text: String(r.text), reply: r.reply ?? null };
}

/** @typedef {import("../types/playground").RawLoadResult} LoadResult */

/**
 * @param {any} r  a RawLoadResult
 * @returns {LoadResult}
 */
export function plainLoadResult(r) {
  if (r?.ok !== true) return { ok: false, error: String(r?.error ?? t("the engine did not say why")) };
  return {
    ok: true,
    version: Number(r.version),
    keysLoaded: Number(r.keysLoaded),
    keysExpired: Number(r.keysExpired),
    emptyKeysSkipped: Number(r.emptyKeysSkipped ?? 0),
    libraries: Number(r.libraries ?? 0),
  };
}

/**
 * @param {any} r  a RawAdvance
 * @returns {Advance}
 */
export function plainAdvance(r) {
  return { ticks: Number(r.ticks), lagMs: Number(r.lagMs), now: Number(r.now) };
}

/**
 * `unreadable` is true when the engine had events but could not hand them over (its
 * serializer refused one, e.g. a number above 2^53): they are lost, and the page says so.
 * @param {any} r  a RawDrain
 * @returns {Drain}
 */
export function plainEvents(r) {
  const readable = Array.isArray(r?.events);
  return { events: readable ? r.events : [], dropped: Number(r?.dropped ?? 0), unreadable: !readable };
}

/**
 * @param {any} r  a RawPollResult
 * @returns {PollResult}
 */
export function plainPoll(r) {
  return {
    text: String(r.text),
    prompt: String(r.prompt),
    blocked: Boolean(r.blocked),
    subscribed: Boolean(r.subscribed),
    client: Number(r.client),
  };
}

/**
 * @param {any} r  src/sim/lru_experiment.rs ExperimentResult (snapshots.d.ts LruExperimentResult)
 * @returns {Experiment}
 */
export function plainExperiment(r) {
  return {
    keys: Number(r?.keys ?? 0),
    samples: Number(r?.samples ?? 0),
    evictedByDecile: Array.isArray(r?.evicted_by_decile) ? r.evicted_by_decile.map(Number) : [],
    newKeysEvicted: Number(r?.new_keys_evicted ?? 0),
    evictedTotal: Number(r?.evicted_total ?? 0),
  };
}

/**
 * @param {any} list  CommandDoc[]
 * @returns {CommandDoc[]}
 */
export function plainCommands(list) {
  return Array.isArray(list)
    ? list.map((c) => ({
        name: String(c.name),
        summary: String(c.summary),
        group: String(c.group),
        since: String(c.since),
        arity: Number(c.arity),
        playground: Boolean(c.playground),
      }))
    : [];
}

/**
 * INFO's text → `{field: value}` (strings; section headers and blank lines skipped).
 * @param {string} text
 * @returns {Record<string, string>}
 */
export function parseInfo(text) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const line of String(text).split(/\r?\n/)) {
    if (line === "" || line.startsWith("#")) continue;
    const i = line.indexOf(":");
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

/**
 * `"memory stats"` → `["INFO", "memory", "stats"]`.
 * @param {string} sections
 * @returns {string[]}
 */
export function infoArgs(sections) {
  return ["INFO", ...String(sections).split(/\s+/).filter(Boolean)];
}

/**
 * INFO's reply, parsed (`{}` unless it is the bulk string INFO gives).
 * @param {CommandResult | null | undefined} r
 * @returns {Record<string, string>}
 */
export function infoFromReply(r) {
  return r?.reply?.type === "bulk" ? parseInfo(r.reply.value) : {};
}
