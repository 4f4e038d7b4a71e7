// @ts-check
// The persistence view's model (pure): the propagation stream as rows — every command the
// engine propagated (to the AOF and to replicas), with where it came from. A row's origin is the
// client command behind it (and whether Redis rewrote it: `SET k v EX 60` goes out as
// `SET k v PXAT <ms>`), or, for a DEL/UNLINK nobody typed, the expiry that reclaimed the key
// (an active-expiry round, or a lazy one inside a command) or an eviction — found by matching
// the Expired / Eviction events of the same drain (same time, db and key).
//
// It keeps the newest MAX_ROWS rows. persistence-view.js draws it.

import { t } from "../i18n.js";

/** @typedef {import("./engine-types.js").EngineEvent} EngineEvent */

export const MAX_ROWS = 200;

/**
 * @typedef {"command" | "wrapper" | "active-expiry" | "lazy-expiry" | "eviction" | "server"} Origin
 * @typedef {{seq: number, at: number, db: number | null, argv: string[], aof: boolean, repl: boolean,
 *            cause: string | null, origin: Origin, rewritten: boolean}} StreamRow
 * @typedef {{rows: StreamRow[], seq: number, total: number}} PersistenceState
 */

/** @returns {PersistenceState} */
export function initialState() {
  return { rows: [], seq: 0, total: 0 };
}

/**
 * The command a cause names, without its `client N: ` prefix.
 * @param {string} cause
 */
export function causeCommand(cause) {
  const m = /^client \d+: (.*)$/s.exec(cause);
  return m ? m[1] : cause;
}

/**
 * Whether the propagated form differs from what the client typed (letter case aside).
 * @param {string[]} argv
 * @param {string} cause
 */
export function isRewritten(argv, cause) {
  return argv.join(" ").toUpperCase() !== causeCommand(cause).toUpperCase();
}

/**
 * Folds one drain's events into the state.
 * @param {PersistenceState} state
 * @param {readonly EngineEvent[]} events
 * @returns {{state: PersistenceState, changed: boolean}}
 */
export function applyEvents(state, events) {
  /** @type {Map<string, "active" | "lazy">} */
  const expired = new Map();
  /** @type {Set<number>} */
  const evictionTimes = new Set();
  for (const ev of events) {
    if (ev.kind === "expired") expired.set(`${ev.at_ms}|${ev.db}|${ev.key}`, ev.by);
    else if (ev.kind === "eviction") evictionTimes.add(ev.at_ms);
  }
  let seq = state.seq;
  /** @type {StreamRow[]} */
  const added = [];
  for (const ev of events) {
    if (ev.kind !== "propagated") continue;
    const name = (ev.argv[0] ?? "").toUpperCase();
    const key = ev.argv[1] ?? "";
    const deletion = name === "DEL" || name === "UNLINK";
    const by = deletion ? expired.get(`${ev.at_ms}|${ev.db}|${key}`) : undefined;
    /** @type {Origin} */
    let origin;
    if (name === "MULTI" || name === "EXEC") origin = "wrapper";
    else if (by === "active") origin = "active-expiry";
    else if (by === "lazy") origin = "lazy-expiry";
    else if (ev.cause !== null) origin = "command";
    else if (deletion && evictionTimes.has(ev.at_ms)) origin = "eviction";
    else origin = "server";
    added.push({
      seq: ++seq,
      at: ev.at_ms,
      db: ev.db,
      argv: ev.argv,
      aof: ev.aof,
      repl: ev.repl,
      cause: ev.cause,
      origin,
      rewritten: origin === "command" && ev.cause !== null && isRewritten(ev.argv, ev.cause),
    });
  }
  if (added.length === 0) return { state, changed: false };
  const rows = state.rows.concat(added);
  return { state: { rows: rows.slice(Math.max(0, rows.length - MAX_ROWS)), seq, total: state.total + added.length }, changed: true };
}

/**
 * A word as redis-cli would show it in a command line: quoted when it has spaces, quotes or
 * unprintable characters.
 * @param {string} word
 */
export function quoteWord(word) {
  if (word !== "" && /^[\x21-\x7e]+$/.test(word) && !/["'\\]/.test(word)) return word;
  let out = '"';
  for (const ch of word) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** @param {string[]} argv */
export function commandLine(argv) {
  return argv.map(quoteWord).join(" ");
}

/**
 * What the origin column says.
 * @param {StreamRow} row
 */
export function originText(row) {
  switch (row.origin) {
    case "command":
      return row.rewritten ? t("rewritten from {cause}", { cause: row.cause }) : (row.cause ?? "");
    case "wrapper":
      return row.cause ? t("wraps {cause}", { cause: row.cause }) : t("wraps the ops of one command");
    case "active-expiry":
      return t("an active-expiry round reclaimed the key");
    case "lazy-expiry":
      return row.cause === null ? t("found expired by a command") : t("found expired by {cause}", { cause: row.cause });
    case "eviction":
      return t("evicted (maxmemory)");
    default:
      return row.cause ?? t("the server");
  }
}

/**
 * Bytes as the file list shows them.
 * @param {number | null} n
 */
export function formatSize(n) {
  if (n === null) return "—";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * The status line above the files.
 * @param {import("../types/snapshots").PersistenceSnapshot} snap
 */
export function statusText(snap) {
  const aof =
    snap.aof === "on"
      ? t("AOF on: every propagated write is appended to the incr file")
      : snap.aof === "wait_rewrite"
        ? t("AOF turning on: a rewrite is writing its first base file (writes wait in a temp incr file)")
        : t("AOF off — CONFIG SET appendonly yes turns it on");
  const [a, b] = [snap.bgsave_in_progress ? t("BGSAVE child at work") : "", snap.aof_rewrite_in_progress ? t("AOF rewrite child at work") : ""].filter(Boolean);
  const children = b === undefined ? a : t("{a}, {b}", { a, b });
  return children ? t("{aof}. {children}.", { aof, children }) : t("{text}.", { text: aof });
}
