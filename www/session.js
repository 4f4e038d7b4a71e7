// @ts-check
// Shareable sessions: the whole session — seed, start time, every line typed and every change a
// control made, each at the virtual time it happened, and where the clock stood — in a URL or a
// file, reproducing the same state exactly on another machine.
//
// The engine is deterministic: the same seed, the same calls at the same virtual times give the
// same state (cron ticks fall on the same schedule however the clock was advanced in between).
// So a session is a log of the calls that change the engine, recorded where they are made (the
// engine API of engine.js), and replaying is making them again on a fresh engine, advancing the
// clock to each entry's time first.
//
//   const rec = recordSession(engine, { seed, startMs });    // wraps the mutating calls
//   const session = rec.snapshot();                            // {v, seed, startMs, endMs, log}
//   const text = await encodeSession(session);                 // "1.<base64url of deflate(JSON)>"
//   const back = await decodeSession(text);                    // {ok, session} | {ok: false, error}
//   replaySession(engine, back.session, { line(n, text) {…} }) // the host runs lines through its consoles
//   consoles.runJob(replayJob(engine, back.session, host))     // the same, in slices with progress
//
// Also `?commands=` in the redis.io style: a base64url JSON list of command lines, run at start.

import { t } from "./i18n.js";
import { MAX_RDB_BYTES } from "./rdb-file.js";

/**
 * One recorded call: `[t, op, ...args]`, `t` in virtual ms since the start.
 *   [t, "line", console, text]          [t, "command", args]
 *   [t, "populate", db, count, prefix, minMs, maxMs, distribution]
 *   [t, "open"]  [t, "open", server]  [t, "close"]  [t, "interrupt", console]  [t, "setTime", msSinceStart]  [t, "reset"]
 *   [t, "rdb", base64url]               an RDB file that loaded (one that did not changed nothing)
 *   [t, "link", "latency", ms]  [t, "link", "down", bool]   the link between the two servers
 * @typedef {[number, string, ...any[]]} LogEntry
 */

/**
 * A session as it is shared: version 1, the seed, the start time, where the clock stood (ms
 * since the start) and the log.
 * @typedef {object} Session
 * @property {1} v
 * @property {number} seed
 * @property {number} startMs
 * @property {number} endMs
 * @property {LogEntry[]} log
 */

/**
 * What replaying needs from the host besides the engine: running a line through a console
 * (so it shows), opening/closing a console pane, Ctrl-C, a reset, an RDB file loaded.
 * @typedef {object} ReplayHost
 * @property {(n: number, text: string) => void} line
 * @property {(server?: number) => void} open  a console pane (on server 1: the second server)
 * @property {() => void} close
 * @property {(n: number) => void} interrupt
 * @property {() => void} reset
 * @property {(bytes: Uint8Array) => void} loadRdb  an RDB file, loaded (engine.loadRdb) and shown
 */

/** Log entries kept at most; beyond, the session can still be exported but not shared as a URL. */
export const MAX_LOG = 50_000;
/** The longest session text put in a URL (characters); longer sessions go to a file. */
export const MAX_URL_SESSION = 60_000;
/** The longest session text or file accepted (characters). */
export const MAX_SESSION_TEXT = 8_000_000;
/**
 * The longest RDB file kept in a session entry, as base64url characters (4/3 of its bytes):
 * rdb-file.js's size cap, which keeps a session with one such file under MAX_SESSION_TEXT.
 */
const MAX_RDB_TEXT = Math.ceil((MAX_RDB_BYTES * 4) / 3);

const OPS = new Set(["line", "command", "populate", "open", "close", "interrupt", "setTime", "reset", "rdb", "link"]);

/**
 * @param {unknown} v
 * @param {number} [max]
 * @returns {v is string}
 */
function textOf(v, max = 1_000_000) {
  return typeof v === "string" && v.length <= max;
}

/**
 * Wraps `engine`'s mutating calls to log them. Returns `{snapshot(), size(), overflow(), stop()}`.
 * @param {Record<string, any> & {now(): number}} engine  engine.js's API (its methods are replaced)
 * @param {{seed: number, startMs: number}} options
 */
export function recordSession(engine, { seed, startMs }) {
  /** @type {LogEntry[]} */
  const log = [];
  let overflow = false;
  /** @type {Record<string, Function>} */
  const originals = {};
  const rel = () => Number(engine.now()) - startMs;
  /** @param {LogEntry} entry */
  function push(entry) {
    if (log.length >= MAX_LOG) {
      overflow = true;
      return;
    }
    log.push(entry);
  }
  /**
   * @param {string} name
   * @param {(t: number, ...args: any[]) => LogEntry | null} toEntry
   * @param {(result: any) => boolean} [changed]  whether the call changed the engine (else it is not logged)
   */
  function wrap(name, toEntry, changed = () => true) {
    const original = engine[name];
    if (typeof original !== "function") return;
    originals[name] = original;
    /** @param {...any} args */
    engine[name] = function (...args) {
      const t = rel();
      const result = original.apply(this, args);
      if (changed(result)) {
        const entry = toEntry(t, ...args);
        if (entry) push(entry);
      }
      return result;
    };
  }
  wrap("executeOn", (t, n, line) => [t, "line", n, String(line)]);
  wrap("execute", (t, line) => [t, "line", 0, String(line)]);
  wrap("command", (t, args) => [t, "command", Array.from(args ?? [], String)]);
  wrap("populate", (t, db, count, prefix, minMs, maxMs, distribution) => [t, "populate", db, count, String(prefix), minMs, maxMs, String(distribution)]);
  wrap("openConsole", (t) => [t, "open"]);
  // A console on the second server (127.0.0.1:6380): `[t, "open", 1]`.
  wrap("openConsoleOn", (t, server) => [t, "open", server === 1 ? 1 : 0]);
  wrap("setLinkLatency", (t, ms) => [t, "link", "latency", Number(ms)]);
  wrap("setLinkDown", (t, down) => [t, "link", "down", Boolean(down)]);
  wrap("closeConsole", (t) => [t, "close"]);
  wrap("interrupt", (t, n) => [t, "interrupt", n]);
  wrap("setTime", (t, ms) => [t, "setTime", Number(ms) - startMs]);
  wrap("reset", (t) => [t, "reset"]);
  // A file that did not load changed nothing: no need to carry its bytes.
  wrap("loadRdb", (t, bytes) => [t, "rdb", toBase64Url(bytes)], (r) => r?.ok === true);
  return {
    /** @returns {Session} */
    snapshot() {
      return { v: 1, seed, startMs, endMs: rel(), log: log.slice() };
    },
    size: () => log.length,
    overflow: () => overflow,
    stop() {
      for (const [name, fn] of Object.entries(originals)) engine[name] = fn;
    },
  };
}

/**
 * Checks a decoded session; returns a sentence, or null when it can be replayed.
 * @param {any} s  parsed JSON
 * @returns {string | null}
 */
export function sessionProblem(s) {
  if (!s || typeof s !== "object") return t("it is not a session");
  if (s.v !== 1) return t("it is a version {v} session; this page reads version 1", { v: String(s.v).slice(0, 20) });
  if (!Number.isSafeInteger(s.seed) || s.seed < 0) return t("its seed is not a whole number");
  if (!Number.isSafeInteger(s.startMs) || s.startMs < 0 || s.startMs > 253_402_300_799_000) return t("its start time is not a valid time");
  if (!Number.isSafeInteger(s.endMs)) return t("its end time is not a whole number of ms");
  if (!Array.isArray(s.log) || s.log.length > MAX_LOG) return t("its log is not a list of at most {max} entries", { max: MAX_LOG });
  for (const [i, e] of s.log.entries()) {
    if (!Array.isArray(e) || !Number.isSafeInteger(e[0]) || !OPS.has(e[1])) return t("entry {n} is not a recorded call", { n: i + 1 });
    const bad = (() => {
      switch (e[1]) {
        case "line":
          return !(Number.isInteger(e[2]) && e[2] >= 0 && e[2] < 16 && textOf(e[3]));
        case "command":
          return !(Array.isArray(e[2]) && e[2].length > 0 && e[2].length < 1000 && e[2].every((a) => textOf(a)));
        case "populate":
          return !(Number.isInteger(e[2]) && Number.isInteger(e[3]) && e[3] >= 0 && e[3] <= 2_000_000 && textOf(e[4], 1000) && Number.isFinite(e[5]) && Number.isFinite(e[6]) && textOf(e[7], 40));
        case "interrupt":
          return !(Number.isInteger(e[2]) && e[2] >= 0 && e[2] < 16);
        case "setTime":
          return !Number.isSafeInteger(e[2]);
        case "rdb":
          return !(textOf(e[2], MAX_RDB_TEXT) && /^[A-Za-z0-9_-]*$/.test(e[2]));
        case "open":
          return !(e[2] === undefined || e[2] === 0 || e[2] === 1);
        case "link":
          return !((e[2] === "latency" && Number.isFinite(e[3]) && e[3] >= 0 && e[3] <= 3_600_000) || (e[2] === "down" && typeof e[3] === "boolean"));
        default:
          return false;
      }
    })();
    if (bad) return t("entry {n} ({op}) has bad arguments", { n: i + 1, op: e[1] });
  }
  return null;
}

/**
 * Bytes as base64url text (no padding).
 * @param {Uint8Array} bytes
 */
export function toBase64Url(bytes) {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The other way; throws on text that is not base64url.
 * @param {string} text
 */
export function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("not base64url");
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i += 1) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/**
 * @param {Uint8Array<ArrayBuffer>} bytes
 * @param {CompressionStream | DecompressionStream} stream
 */
async function pipe(bytes, stream) {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

/**
 * A session as URL-safe text: `1.` + base64url(deflate-raw(JSON)).
 * @param {Session} session
 */
export async function encodeSession(session) {
  const json = new TextEncoder().encode(JSON.stringify(session));
  return `1.${toBase64Url(await pipe(json, new CompressionStream("deflate-raw")))}`;
}

/**
 * The other way: `{ok, session}` or `{ok: false, error}` (never throws).
 * @param {unknown} text  session text or a session file's contents
 * @returns {Promise<{ok: true, session: Session} | {ok: false, error: string}>}
 */
export async function decodeSession(text) {
  try {
    if (typeof text !== "string" || text.length > MAX_SESSION_TEXT) return { ok: false, error: t("the session is too long") };
    let json;
    if (text.startsWith("1.")) {
      const bytes = await pipe(fromBase64Url(text.slice(2)), new DecompressionStream("deflate-raw"));
      if (bytes.length > MAX_SESSION_TEXT * 4) return { ok: false, error: t("the session is too long") };
      json = new TextDecoder().decode(bytes);
    } else if (text.trimStart().startsWith("{")) {
      json = text; // a session file
    } else {
      return { ok: false, error: t("it is not a redisplay session") };
    }
    const session = JSON.parse(json);
    const problem = sessionProblem(session);
    return problem ? { ok: false, error: problem } : { ok: true, session };
  } catch (err) {
    return { ok: false, error: t("it could not be read ({why})", { why: err instanceof Error ? err.message : String(err) }) };
  }
}

/**
 * `?commands=` — a base64url JSON list of command lines (the redis.io docs' "try it" style).
 * → `{ok, lines}` or `{ok: false, error}`.
 * @param {unknown} text
 * @returns {{ok: true, lines: string[]} | {ok: false, error: string}}
 */
export function decodeCommands(text) {
  try {
    if (typeof text !== "string" || text.length > 200_000) return { ok: false, error: t("the command list is too long") };
    const list = JSON.parse(new TextDecoder().decode(fromBase64Url(text)));
    if (!Array.isArray(list) || list.length > 1000 || !list.every((l) => typeof l === "string" && l.length <= 100_000)) {
      return { ok: false, error: t("it is not a JSON list of at most 1000 command lines") };
    }
    return { ok: true, lines: list };
  } catch (err) {
    return { ok: false, error: t("it could not be read ({why})", { why: err instanceof Error ? err.message : String(err) }) };
  }
}

/**
 * A list of command lines as `?commands=` text.
 * @param {string[]} lines
 */
export function encodeCommands(lines) {
  return toBase64Url(new TextEncoder().encode(JSON.stringify(lines)));
}

/**
 * Makes a decoded session's calls again on `engine` (fresh, created with the session's seed and
 * start time), each after advancing the clock to its time, then advances to where the clock
 * stood — as a job for the console's job runner (console/jobs.js), so a long session replays in
 * slices with its progress while the page keeps drawing: `{label, total, step()}`, one recorded
 * call per unit (the last one done once the clock stands where it was shared); the clock catches up to each call's time a
 * growing number of cron ticks per step ("busy") however long the gap, so idle days cost little
 * and a busy stretch never holds a frame. `host.line(n, text)` runs a console line (so the
 * console shows it) — it must end up calling engine.executeOn(n, text); `host.open()` opens a
 * console pane.
 * @param {Pick<import("./engine").Engine, "now" | "advanceTo" | "command" | "populate" | "setTime"> & Partial<Pick<import("./engine").Engine, "setLinkLatency" | "setLinkDown">>} engine
 * @param {Session} session
 * @param {ReplayHost} host
 * @param {{clock?: () => number}} [options]  real time in ms (tests may pin it)
 * @returns {{label: string, total: number, step: () => "more" | "done" | "busy"}}
 */
export function replayJob(engine, session, host, { clock = () => performance.now() } = {}) {
  let next = 0;
  // Cron ticks asked for per advance: grows while advances are quick, shrinks when one is slow.
  let chunk = 256;
  let stuck = 0;
  /**
   * One bounded advance towards `t` (ms since the start); true once the clock is there.
   * @param {number} t
   */
  const catchUp = (t) => {
    const target = session.startMs + t;
    if (Number(engine.now()) >= target) return true;
    const t0 = clock();
    const r = engine.advanceTo(target, chunk);
    const spent = clock() - t0;
    if (spent < 2) chunk = Math.min(chunk * 4, 1_000_000_000);
    else if (spent > 8) chunk = Math.max(16, Math.floor(chunk / 2));
    // A clock that does not move (an engine restarting) is not waited for forever.
    stuck = r && r.ticks === 0 ? stuck + 1 : 0;
    return !r || r.lagMs <= 0 || Number(engine.now()) >= target || stuck > 1000;
  };
  /** @param {LogEntry} e */
  const apply = (e) => {
    switch (e[1]) {
      case "line":
        host.line(e[2], e[3]);
        break;
      case "command":
        engine.command(e[2]);
        break;
      case "populate":
        engine.populate(e[2], e[3], e[4], e[5], e[6], e[7]);
        break;
      case "open":
        host.open(e[2] === 1 ? 1 : 0);
        break;
      case "link":
        if (e[2] === "latency") engine.setLinkLatency?.(e[3]);
        else if (e[2] === "down") engine.setLinkDown?.(e[3]);
        break;
      case "close":
        host.close();
        break;
      case "interrupt":
        host.interrupt(e[2]);
        break;
      case "setTime":
        engine.setTime(session.startMs + e[2]);
        break;
      case "reset":
        host.reset();
        break;
      case "rdb":
        host.loadRdb(fromBase64Url(e[2]));
        break;
      default:
        break;
    }
  };
  const { log } = session;
  return {
    label: t("recorded steps"),
    // One unit per call; the last one is counted once the clock stands where it was shared.
    total: Math.max(1, log.length),
    step() {
      if (next < log.length) {
        const e = log[next];
        if (e[1] !== "setTime" && !catchUp(e[0])) return "busy";
        stuck = 0;
        apply(e);
        next += 1;
        return next < log.length ? "more" : "busy";
      }
      return catchUp(session.endMs) ? "done" : "busy";
    },
  };
}

/**
 * The whole replay at once (`replayJob` run to its end): for tests and hosts without frames.
 * @param {Pick<import("./engine").Engine, "now" | "advanceTo" | "command" | "populate" | "setTime">} engine
 * @param {Session} session
 * @param {ReplayHost} host
 */
export function replaySession(engine, session, host) {
  const job = replayJob(engine, session, host);
  while (job.step() !== "done");
}
