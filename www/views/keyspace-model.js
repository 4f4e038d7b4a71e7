// @ts-check
// The keyspace picker's model: which db, page and filter are shown, when the page must be read
// again (and how urgently), what a click on a key does, and the words — lengths with their
// units, TTLs counting down from the snapshot's absolute expire times, the summary, the pager.
// Pure: no DOM, no engine; keyspace-view.js reads the pages the model asks for.

import { number } from "../format.js";
import { t } from "../i18n.js";

/** @typedef {import("./engine-types.js").EngineEvent} EngineEvent */
/** @typedef {import("./engine-types.js").KeyspacePage} KeyspacePage */
/** @typedef {import("./engine-types.js").KeyInfo} KeyInfo */

/**
 * @typedef {object} KeyspaceState
 * @property {number} db
 * @property {number} offset            the page's first key
 * @property {string | null} pattern    the glob filter, or null
 * @property {KeyspacePage | null} page the latest page read
 * @property {boolean} needFetch
 * @property {boolean} urgent           the user asked (filter, page, pick, db change): fetch without waiting
 * @property {number} fetchedAt         real ms of the last read
 * @property {number} fetches
 * @property {{db: number | null, key: string | null}} selected  the store's selection
 * @property {string} info              what a click on a key that is not a sorted set says
 * @property {number} clockMs           virtual time (TTLs count down from it)
 * @property {boolean} playing
 */

/** Keys on one page. */
export const PAGE_SIZE = 50;

/** While the clock plays, engine-driven refetches are at most this often (real ms): 4× a second. */
export const PLAYING_REFETCH_MS = 250;

/**
 * @param {number} db  the console's current db
 * @returns {KeyspaceState}
 */
export function initialState(db) {
  return {
    db,
    offset: 0,
    pattern: null,
    page: null,
    needFetch: true,
    urgent: true,
    fetchedAt: Number.NEGATIVE_INFINITY,
    fetches: 0,
    selected: { db: null, key: null },
    info: "",
    clockMs: 0,
    playing: false,
  };
}

/**
 * Read again now (the user asked).
 * @param {KeyspaceState} s
 * @param {Partial<KeyspaceState>} [patch]
 * @returns {KeyspaceState}
 */
export const refetch = (s, patch = {}) => ({ ...s, ...patch, needFetch: true, urgent: true });

/**
 * The filter as typed (blank: none), from the first page.
 * @param {KeyspaceState} s
 * @param {string} text
 */
export function setFilter(s, text) {
  const typed = text.trim();
  return refetch(s, { pattern: typed === "" ? null : typed, offset: 0 });
}

/** @param {KeyspaceState} s */
export const previousPage = (s) => refetch(s, { offset: Math.max(0, s.offset - PAGE_SIZE) });
/** @param {KeyspaceState} s */
export const nextPage = (s) => refetch(s, { offset: s.offset + PAGE_SIZE });

/**
 * A click on a key: a sorted set is shown in the sorted-set view (`select`); another type gets
 * a line saying what it is.
 * @param {KeyspaceState} s
 * @param {KeyInfo} k
 * @returns {{state: KeyspaceState, select: {selectedDb: number, selectedKey: string} | null}}
 */
export function pick(s, k) {
  if (k.type === "zset") return { state: { ...s, info: "" }, select: { selectedDb: s.db, selectedKey: k.key } };
  const info = t("{key}: a {type} ({encoding}, {length}). The sorted-set view shows sorted sets — try ZADD.", {
    key: k.key,
    type: k.type,
    encoding: k.encoding,
    length: formatLength(k.type, k.len),
  });
  return { state: { ...s, info }, select: null };
}

/**
 * One frame's events: a change in this db (or an expiry) means a refetch; a command may have
 * SELECTed another db, so `askDb` says to compare with the console's current db (once per batch).
 * @param {KeyspaceState} s
 * @param {readonly EngineEvent[]} events
 * @returns {{state: KeyspaceState, askDb: boolean}}
 */
export function reduceEvents(s, events) {
  let needFetch = s.needFetch;
  let askDb = false;
  for (const e of events) {
    if (e.kind === "keyspace" || e.kind === "expired") {
      if (e.db === s.db) needFetch = true;
    } else if (e.kind === "command") {
      askDb = true;
    }
  }
  if (askDb) needFetch = true;
  return { state: needFetch === s.needFetch ? s : { ...s, needFetch }, askDb };
}

/**
 * The console's current db: another one is shown from its first page, at once.
 * @param {KeyspaceState} s
 * @param {number} db
 */
export const currentDb = (s, db) => (db === s.db ? s : { ...s, db, offset: 0, urgent: true });

/**
 * Whether to read the page now: asked for, and (playing, engine-driven) not read in the last
 * PLAYING_REFETCH_MS.
 * @param {KeyspaceState} s
 * @param {number} now  real ms
 */
export const fetchDue = (s, now) => s.needFetch && (s.urgent || !s.playing || s.page === null || now - s.fetchedAt >= PLAYING_REFETCH_MS);

/**
 * The page to read.
 * @param {KeyspaceState} s
 */
export const pageRequest = (s) => ({ db: s.db, offset: s.offset, count: PAGE_SIZE, pattern: s.pattern });

/**
 * A page read at real time `readAt`. A page that emptied (keys deleted, a new filter) asks for
 * the page before it (`retry`), once.
 * @param {KeyspaceState} s
 * @param {KeyspacePage} page
 * @param {number} readAt
 * @param {boolean} retried  this is the second read
 * @returns {{state: KeyspaceState, retry: boolean}}
 */
export function acceptPage(s, page, readAt, retried) {
  if (!retried) s = { ...s, needFetch: false, urgent: false, fetchedAt: readAt, fetches: s.fetches + 1 };
  if (!retried && page.keys.length === 0 && s.offset > 0) return { state: { ...s, offset: Math.max(0, s.offset - PAGE_SIZE) }, retry: true };
  return { state: { ...s, page }, retry: false };
}

// ---------------------------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------------------------

/**
 * "3 members", "1 byte".
 * @param {string} type
 * @param {number} len
 */
export function formatLength(type, len) {
  const n = number(len);
  const one = len === 1;
  switch (type) {
    case "string":
      return one ? t("{n} byte", { n }) : t("{n} bytes", { n });
    case "list":
      return one ? t("{n} item", { n }) : t("{n} items", { n });
    case "hash":
      return one ? t("{n} field", { n }) : t("{n} fields", { n });
    case "set":
    case "zset":
      return one ? t("{n} member", { n }) : t("{n} members", { n });
    default:
      return one ? t("{n} element", { n }) : t("{n} elements", { n });
  }
}

/**
 * What the TTL column shows for an absolute expire time at virtual time `nowMs`.
 * @param {number | null | undefined} expireAtMs
 * @param {number} nowMs
 * @param {boolean} [expiredFlag]  the engine says it is past its TTL (not reclaimed yet)
 */
export function formatTtl(expireAtMs, nowMs, expiredFlag = false) {
  if (expireAtMs === null || expireAtMs === undefined) return "";
  const left = expireAtMs - nowMs;
  if (expiredFlag || left < 0) return t("expired");
  if (left < 10_000) return `${(Math.floor(left / 100) / 10).toFixed(1)}s`;
  if (left < 60_000) return `${Math.floor(left / 1000)}s`;
  if (left < 3_600_000) return `${Math.floor(left / 60_000)}m ${Math.floor((left % 60_000) / 1000)}s`;
  if (left < 86_400_000) return `${Math.floor(left / 3_600_000)}h ${Math.floor((left % 3_600_000) / 60_000)}m`;
  return `${number(Math.floor(left / 86_400_000))}d`;
}

/**
 * A key's row: its tooltip, whether it is selected, its TTL, its length.
 * @param {KeyspaceState} s
 * @param {KeyInfo} k
 */
export function rowOf(s, k) {
  return {
    title: k.type === "zset" ? t("Show “{key}” in the sorted-set view", { key: k.key }) : `${k.key} (${k.type})`,
    selected: s.selected.db === s.db && s.selected.key === k.key,
    ttl: formatTtl(k.expire_at_ms, s.clockMs, k.expired),
    length: formatLength(k.type, k.len),
  };
}

/**
 * The header, the empty note, the pager.
 * @param {KeyspaceState} s
 * @param {KeyspacePage} page
 */
export function pageTexts(s, page) {
  const { db, offset, pattern } = s;
  const n = page.keys.length;
  const last = offset + n;
  // With a filter the total of matches is unknown: a full page may have more after it.
  const nextDisabled = pattern === null ? last >= page.total : n < PAGE_SIZE;
  return {
    summary: [
      `db ${db}`,
      page.total === 1 ? t("{n} key", { n: number(page.total) }) : t("{n} keys", { n: number(page.total) }),
      t("{n} with a TTL", { n: number(page.volatile) }),
      ...(pattern === null ? [] : [t("filter {pattern}", { pattern })]),
    ].join(" · "),
    empty: n > 0 ? null : page.total === 0 ? t("db {db} is empty. Try: {example}", { db, example: "ZADD leaderboard 10 alice 20 bob 30 carol" }) : pattern === null ? t("No key matches the filter.") : t("No key matches {pattern}.", { pattern }),
    range:
      n === 0
        ? ""
        : pattern === null
          ? t("{from}–{to} of {total}", { from: number(offset + 1), to: number(last), total: number(page.total) })
          : `${number(offset + 1)}–${number(last)}`,
    prevDisabled: offset === 0,
    nextDisabled,
    pagerHidden: offset === 0 && nextDisabled,
  };
}
