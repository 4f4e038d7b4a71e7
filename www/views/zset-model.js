// @ts-check
// The sorted-set view's model: what the view shows, as plain data, and every decision about it —
// which key, which window of ranks, the zoom, what the latest events mean (a member landed, a
// conversion, a search path), and the words for all of it. Pure: state in, state out; no DOM,
// no engine (the view reads windows through its `source` and hands them in). Every function
// returns a new state object, or the same one when nothing changed, so the view can tell.
//
// The renderer (zset-renderer.js) draws a state; zset-view.js wires the two to the loop.

import { number } from "../format.js";
import { t } from "../i18n.js";

/** @typedef {import("./engine-types.js").EngineEvent} EngineEvent */
/** @typedef {import("./engine-types.js").ZsetInsertEvent} ZsetInsertEvent */
/** @typedef {import("./engine-types.js").ZsetRemoveEvent} ZsetRemoveEvent */
/** @typedef {import("./engine-types.js").ZsetSearchEvent} ZsetSearchEvent */
/** @typedef {import("./engine-types.js").ZsetWindow} ZsetWindow */
/** @typedef {import("./engine-types.js").ZsetEntry} ZsetEntry */
/** @typedef {import("./zset-search-path.js").PlacedPath} PlacedPath */

/**
 * The member the latest insert placed (the last of `count` in one frame); `at` in real ms.
 * @typedef {{member: string, score: number, rank: number, level: number, count: number, at: number}} Landed
 */
/**
 * The latest skiplist search, placed in ranks (null: the set changed since); `at` in real ms.
 * @typedef {{event: ZsetSearchEvent, placed: PlacedPath | null, at: number}} Search
 */
/**
 * The latest listpack → skiplist conversion; `reason` is filled in once the limits are known.
 * @typedef {{from: string, to: string, len: number, at: number, reason: string | null}} Conversion
 */
/**
 * @typedef {object} ZsetState
 * @property {{db: number, key: string | null}} sel  the key shown (picked in the keyspace view)
 * @property {ZsetWindow | null} win   the latest window read, or null
 * @property {boolean} missing         selected, but not a sorted set (any more)
 * @property {boolean} [seen]           the selected key was a sorted set once (so "missing" means gone, not "not yet")
 * @property {number} start            first visible rank
 * @property {number} zoom             index into ZOOM_STEPS
 * @property {boolean} needFetch       the window must be read again
 * @property {number} dataVersion      bumped on every window read
 * @property {Landed | null} landed
 * @property {Search | null} search
 * @property {Conversion | null} conversion
 * @property {string} status           one sentence about the latest change
 * @property {number} hover            window index under the pointer, or -1
 */

/** Entries a listpack page shows at once (the default limit is 128, but it is configurable). */
export const LISTPACK_PAGE = 256;

/** Zoom levels: how many skiplist columns are visible. */
export const ZOOM_STEPS = Object.freeze([4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 400]);
const DEFAULT_ZOOM = ZOOM_STEPS.indexOf(24);

/** How long a landed member flashes, in ms of real time. */
export const FLASH_MS = 1600;

/** Members named in a removal status line. */
const REMOVED_NAMED = 5;

/** Listpack commands that read entries in order (a status line says there are no levels). */
const LISTPACK_LOOKUP = /^z(rev)?rank$|^z(range|count|rangebyscore|revrangebyscore)/;

/**
 * @param {number} v
 * @param {number} lo
 * @param {number} hi
 */
const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);

/** "1 member", "3 members". */
const memberCount = (/** @type {number} */ n) => (n === 1 ? t("{n} member", { n: number(n) }) : t("{n} members", { n: number(n) }));
/** "1 level", "13 levels". */
const levelCount = (/** @type {number} */ n) => (n === 1 ? t("{n} level", { n: number(n) }) : t("{n} levels", { n: number(n) }));

// ---------------------------------------------------------------------------------------------
// State and the window of ranks
// ---------------------------------------------------------------------------------------------

/** @returns {ZsetState} */
export function initialState() {
  return {
    sel: { db: 0, key: null },
    win: null,
    missing: false,
    seen: false,
    start: 0,
    zoom: DEFAULT_ZOOM,
    needFetch: false,
    dataVersion: 0,
    landed: null,
    search: null,
    conversion: null,
    status: "",
    hover: -1,
  };
}

/** Columns visible in the skiplist picture. */
export const cols = (/** @type {ZsetState} */ s) => ZOOM_STEPS[s.zoom];
export const isSkiplist = (/** @type {ZsetState} */ s) => s.win !== null && s.win.encoding === "skiplist";
/** Ranks one page shows: the skiplist's columns, or a listpack page. */
export const pageSize = (/** @type {ZsetState} */ s) => (isSkiplist(s) ? cols(s) : LISTPACK_PAGE);

/**
 * The last first rank that still fills a page.
 * @param {ZsetState} s
 * @param {number} [len]
 */
export function maxStart(s, len = s.win?.len ?? 0) {
  return Math.max(0, len - pageSize(s));
}

/**
 * Shows another key: everything about the previous one is forgotten.
 * @param {ZsetState} s
 * @param {number} db
 * @param {string | null} key
 * @returns {ZsetState}
 */
export function selectKey(s, db, key) {
  return {
    ...s,
    sel: { db, key },
    win: null,
    missing: false,
    seen: false,
    start: 0,
    landed: null,
    search: null,
    conversion: null,
    status: "",
    hover: -1,
    needFetch: key !== null,
  };
}

/**
 * Pans so the page starts at `rank` (clamped); the same state when that changes nothing.
 * @param {ZsetState} s
 * @param {number} rank
 * @returns {ZsetState}
 */
export function setStart(s, rank) {
  const next = clamp(Math.round(rank), 0, maxStart(s));
  return next === s.start ? s : { ...s, start: next, needFetch: true };
}

/**
 * Makes `rank` visible: centred in a skiplist, its page in a listpack.
 * @param {ZsetState} s
 * @param {number} rank
 * @returns {ZsetState}
 */
export function reveal(s, rank) {
  const size = pageSize(s);
  if (rank >= s.start && rank < s.start + size) return s;
  const start = isSkiplist(s) ? Math.max(0, rank - Math.floor(size / 2)) : Math.floor(rank / size) * size;
  return { ...s, start, needFetch: true };
}

/**
 * Zooms to `index` keeping `anchorRank` (default: the middle) where it is on screen.
 * @param {ZsetState} s
 * @param {number} index
 * @param {number} [anchorRank]
 * @returns {ZsetState}
 */
export function setZoom(s, index, anchorRank) {
  const zoom = clamp(index, 0, ZOOM_STEPS.length - 1);
  if (zoom === s.zoom) return s;
  const anchor = anchorRank ?? s.start + cols(s) / 2;
  const fraction = anchorRank === undefined ? 0.5 : (anchorRank - s.start) / cols(s);
  const zoomed = { ...s, zoom };
  return { ...zoomed, start: clamp(Math.round(anchor - fraction * cols(zoomed)), 0, maxStart(zoomed)), needFetch: true };
}

/**
 * The window to read for this state, or null (no key): a skiplist reads its columns, a listpack
 * (or a set not read yet) at least a listpack page.
 * @param {ZsetState} s
 * @returns {{db: number, key: string, start: number, count: number} | null}
 */
export function windowFor(s) {
  if (s.sel.key === null) return null;
  const count = s.win?.encoding === "skiplist" ? cols(s) : Math.max(cols(s), LISTPACK_PAGE);
  return { db: s.sel.db, key: s.sel.key, start: s.start, count };
}

/**
 * Takes a window the engine returned for `windowFor(s)` (null: not a sorted set). If the set
 * shrank under the page, the state asks (needFetch) for the last page instead, unless `final`.
 * @param {ZsetState} s
 * @param {ZsetWindow | null} w
 * @param {boolean} final  the last attempt: keep what came back
 * @returns {ZsetState}
 */
export function acceptWindow(s, w, final) {
  if (w === null) return { ...s, win: null, missing: true, needFetch: false, dataVersion: s.dataVersion + 1 };
  const win = w.encoding === "skiplist" && w.entries.length > cols(s) ? { ...w, entries: w.entries.slice(0, cols(s)) } : w;
  const next = { ...s, win, missing: false, seen: true };
  const limit = maxStart(next, w.len);
  if (next.start <= limit || final) return { ...next, needFetch: false, dataVersion: s.dataVersion + 1 };
  return { ...next, start: limit, needFetch: true };
}

// ---------------------------------------------------------------------------------------------
// Events → state
// ---------------------------------------------------------------------------------------------

/**
 * @param {ZsetState} s
 * @param {{db: number, key: string}} e
 */
const matches = (s, e) => s.sel.key !== null && e.db === s.sel.db && e.key === s.sel.key;

/**
 * One frame's events, before the window is read again.
 *
 * Returns the new state and what the view must do with the engine's help: `follow` — the key
 * to select in the store (nothing was picked and the user wrote to a sorted set); `inserted` —
 * a member landed (reveal it once the window is read: `revealLanded`); `searched` — the last
 * search on the key (place it with placeSearchPath, then `applySearch`); `listpackLookup` — a
 * lookup command on a listpack, upper-cased (`listpackLookupStatus`).
 *
 * @param {ZsetState} state
 * @param {readonly EngineEvent[]} events
 * @param {number} now  real ms
 * @returns {{state: ZsetState, follow: {db: number, key: string} | null, inserted: boolean,
 *            searched: ZsetSearchEvent | null, listpackLookup: string | null}}
 */
export function reduceEvents(state, events, now) {
  let s = state;
  /** @type {ZsetInsertEvent | null} */
  let insert = null;
  let inserts = 0;
  /** @type {ZsetRemoveEvent | null} */
  let removed = null;
  /** @type {ZsetSearchEvent | null} */
  let searched = null;
  /** @type {string | null} */
  let listpackLookup = null;
  /** @type {{db: number, key: string} | null} */
  let follow = null;
  for (const e of events) {
    switch (e.kind) {
      case "zset_insert":
        if (s.sel.key === null) {
          // Nothing picked yet: follow the first sorted set the user writes to.
          s = selectKey(s, e.db, e.key);
          follow = { db: e.db, key: e.key };
        }
        if (matches(s, e)) {
          insert = e;
          inserts += 1;
          s = { ...s, needFetch: true };
        }
        break;
      case "zset_remove":
        if (matches(s, e)) {
          removed = e;
          s = { ...s, needFetch: true };
        }
        break;
      case "zset_convert":
        if (matches(s, e)) {
          s = { ...s, conversion: { from: e.from, to: e.to, len: Number(e.len), at: now, reason: null }, needFetch: true };
        }
        break;
      case "zset_search":
        if (matches(s, e)) searched = e;
        break;
      case "keyspace":
      case "expired":
        if (matches(s, e)) s = { ...s, needFetch: true };
        break;
      case "command":
        if (s.sel.key !== null) s = { ...s, needFetch: true }; // cheap; catches FLUSHDB, SWAPDB, RENAME…
        if (LISTPACK_LOOKUP.test(e.name) && s.win?.encoding === "listpack") listpackLookup = e.name.toUpperCase();
        break;
      default:
        break;
    }
  }
  if (insert !== null) {
    const landed = {
      member: insert.member,
      score: insert.score,
      rank: Number(insert.rank),
      level: Number(insert.level),
      count: inserts,
      at: now,
    };
    s = { ...s, landed, status: describeLanded(landed), search: null };
  }
  if (removed !== null) {
    const gone = removed.members;
    s = { ...s, status: removedStatus(gone) };
    if (s.landed && gone.includes(s.landed.member)) s = { ...s, landed: null };
  }
  return { state: s, follow, inserted: insert !== null, searched, listpackLookup };
}

/**
 * After the window is read (its encoding may have just changed): bring the landed member in view.
 * @param {ZsetState} s
 */
export function revealLanded(s) {
  return s.landed === null ? s : reveal(s, s.landed.rank);
}

/**
 * Says why a conversion happened, once the window (and so the limits) is known.
 * @param {ZsetState} s
 * @returns {ZsetState}
 */
export function explainConversion(s) {
  const c = s.conversion;
  if (c === null || c.reason !== null || s.win === null) return s;
  return { ...s, conversion: { ...c, reason: conversionReason(c.len, s.win) } };
}

/**
 * A search placed in ranks (`placed`, null when the set changed since): the status line says
 * what it examined, and the result is brought into view.
 * @param {ZsetState} s
 * @param {ZsetSearchEvent} event
 * @param {PlacedPath | null} placed
 * @param {number} now  real ms
 * @returns {ZsetState}
 */
export function applySearch(s, event, placed, now) {
  const next = { ...s, search: { event, placed, at: now }, landed: null };
  if (placed === null) return { ...next, status: unplacedSearchStatus(event) };
  return reveal({ ...next, status: searchStatus(event, placed, s.win) }, placed.resultRank);
}

// ---------------------------------------------------------------------------------------------
// Input: pan, zoom, go to rank
// ---------------------------------------------------------------------------------------------

/**
 * The state after a key press on the picture, or null when the key does nothing here.
 * @param {ZsetState} s
 * @param {string} key  KeyboardEvent.key
 * @param {boolean} shift
 * @returns {ZsetState | null}
 */
export function keyAction(s, key, shift) {
  const step = shift ? Math.max(1, Math.floor(cols(s) / 2)) : 1;
  switch (key) {
    case "ArrowLeft":
      return setStart(s, s.start - step);
    case "ArrowRight":
      return setStart(s, s.start + step);
    case "PageUp":
      return setStart(s, s.start - cols(s));
    case "PageDown":
      return setStart(s, s.start + cols(s));
    case "Home":
      return setStart(s, 0);
    case "End":
      return setStart(s, maxStart(s));
    case "+":
    case "=":
      return setZoom(s, s.zoom - 1);
    case "-":
    case "_":
      return setZoom(s, s.zoom + 1);
    default:
      return null;
  }
}

/**
 * Wheel panning: pixels accumulate until they make whole columns.
 * @param {ZsetState} s
 * @param {number} accumulated  pixels not yet turned into columns
 * @param {number} deltaPx
 * @param {number} colW  a column's width in px
 * @returns {{state: ZsetState, accumulated: number}}
 */
export function wheelPan(s, accumulated, deltaPx, colW) {
  const total = accumulated + deltaPx;
  const columns = Math.trunc(total / colW);
  if (columns === 0) return { state: s, accumulated: total };
  return { state: setStart(s, s.start + columns), accumulated: total - columns * colW };
}

/**
 * "go to rank" as typed: a rank (negative from the end) puts it at the left third of a skiplist
 * page, or opens its listpack page. Returns the new state or the message to show.
 * @param {ZsetState} s
 * @param {string} text
 * @returns {{state: ZsetState, error: ""} | {state: null, error: string}}
 */
export function gotoRank(s, text) {
  const typed = text.trim();
  const len = s.win?.len ?? 0;
  if (!/^-?\d+$/.test(typed)) return { state: null, error: t("a rank: 0 is the lowest score, -1 the highest") };
  let rank = Number(typed);
  if (rank < 0) rank += len;
  if (rank < 0 || rank >= len) {
    return { state: null, error: len === 0 ? t("no members") : t("out of range (0 … {max})", { max: number(len - 1) }) };
  }
  // The left third: what comes after the rank is usually what one wants to see.
  const size = pageSize(s);
  const start = isSkiplist(s) ? clamp(rank - Math.floor(size / 3), 0, maxStart(s)) : Math.floor(rank / size) * size;
  return { state: { ...s, start, needFetch: true }, error: "" };
}

/**
 * The entry under the pointer (a window index from the layout, -1 for none).
 * @param {ZsetState} s
 * @param {number} index
 * @returns {ZsetState}
 */
export function setHover(s, index) {
  const hover = s.win && index >= 0 && index < s.win.entries.length ? index : -1;
  return hover === s.hover ? s : { ...s, hover };
}

/**
 * Dismisses the conversion banner.
 * @param {ZsetState} s
 */
export const dismissConversion = (s) => ({ ...s, conversion: null });

// ---------------------------------------------------------------------------------------------
// Animation (real time)
// ---------------------------------------------------------------------------------------------

/**
 * 1 → 0 over `duration` ms after `at`.
 * @param {number | undefined} at
 * @param {number} duration
 * @param {number} now
 */
export function flashOf(at, duration, now) {
  if (at === undefined) return 0;
  const done = (now - at) / duration;
  return done >= 1 ? 0 : 1 - done;
}

/**
 * How much of the search path is drawn (0 … 1): about 90 ms a node, at most 1.4 s.
 * @param {Search | null} search
 * @param {number} now
 */
export function searchReveal(search, now) {
  if (!search) return 1;
  const steps = search.placed?.steps.length ?? 0;
  const duration = Math.min(1400, 90 * steps);
  return duration === 0 ? 1 : Math.min(1, (now - search.at) / duration);
}

/**
 * True while a highlight fades or a search path is being revealed.
 * @param {ZsetState} s
 * @param {number} now
 */
export function animating(s, now) {
  if (!isSkiplist(s)) return false;
  if (s.landed && now - s.landed.at < FLASH_MS) return true;
  return s.search !== null && searchReveal(s.search, now) < 1;
}

// ---------------------------------------------------------------------------------------------
// Words and numbers
// ---------------------------------------------------------------------------------------------

/**
 * A score as redis-cli prints it in a reply (inf, -inf, shortest round-trip digits).
 * @param {number | string} score
 */
export function formatScore(score) {
  if (typeof score !== "number") return String(score);
  if (score === Infinity) return "inf";
  if (score === -Infinity) return "-inf";
  return String(score);
}

/**
 * Bytes of `text` in UTF-8 (what zset-max-listpack-value limits).
 * @param {string} text
 */
export function utf8Length(text) {
  let n = 0;
  for (const ch of text) {
    const c = /** @type {number} */ (ch.codePointAt(0));
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

/** @param {Landed} l */
export function describeLanded(l) {
  const vars = { member: l.member, score: formatScore(l.score), rank: number(l.rank), level: l.level, count: number(l.count) };
  if (l.level > 0) {
    return l.count > 1
      ? t("{member} (score {score}) landed at rank {rank}, level {level} (the last of {count} members placed).", vars)
      : t("{member} (score {score}) landed at rank {rank}, level {level}.", vars);
  }
  return l.count > 1
    ? t("{member} (score {score}) landed at rank {rank} of the listpack (the last of {count} members placed).", vars)
    : t("{member} (score {score}) landed at rank {rank} of the listpack.", vars);
}

/** @param {readonly string[]} members */
export function removedStatus(members) {
  const names = members.slice(0, REMOVED_NAMED).join(", ");
  const vars = { n: number(members.length), names, more: number(members.length - REMOVED_NAMED) };
  if (members.length > REMOVED_NAMED) return t("removed {n} members: {names} and {more} more.", vars);
  return members.length === 1 ? t("removed {n} member: {names}.", vars) : t("removed {n} members: {names}.", vars);
}

/**
 * Why a listpack of `len` members became a skiplist at the next insert.
 * @param {number} len
 * @param {ZsetWindow} win
 */
export function conversionReason(len, win) {
  return len + 1 > win.max_entries
    ? t("at {n} members: zset-max-listpack-entries is {max}", { n: number(len + 1), max: number(win.max_entries) })
    : t("when a member longer than zset-max-listpack-value ({max} bytes) arrived", { max: number(win.max_value) });
}

/** @param {Conversion} c */
export function bannerText(c) {
  return c.reason === null
    ? t("Converted {from} → {to}. The skiplist keeps members in score order on level 1 and adds express lanes above it.", { from: c.from, to: c.to })
    : t("Converted {from} → {to} {reason}. The skiplist keeps members in score order on level 1 and adds express lanes above it.", {
        from: c.from,
        to: c.to,
        reason: c.reason,
      });
}

/**
 * @param {ZsetSearchEvent} event
 * @param {PlacedPath} placed
 * @param {ZsetWindow | null} win  the window read after the search
 */
export function searchStatus(event, placed, win) {
  const r = placed.resultRank;
  const member = placed.steps.find((step) => step.rank === r)?.member;
  const len = win?.len ?? 0;
  const vars = {
    cmd: event.command.toUpperCase(),
    n: number(placed.steps.length),
    levels: levelCount(placed.levels),
    max: win?.max_level ?? 0,
    member: member ?? "?",
    rank: number(r),
  };
  const text = /rank$/.test(event.command)
    ? t("{cmd} examined {n} nodes on {levels} of {max}, then found {member} at rank {rank}", vars)
    : t("{cmd} examined {n} nodes on {levels} of {max}, then first in range: {member} at rank {rank}", vars);
  return len > 1 ? t("{text} — not {len} comparisons.", { text, len: number(len) }) : t("{text}.", { text });
}

/** @param {ZsetSearchEvent} event */
export function unplacedSearchStatus(event) {
  return t("{cmd} examined {n} nodes (the set changed since, so they are not placed).", { cmd: event.command.toUpperCase(), n: number(event.path.length) });
}

/** @param {string} command  upper-cased */
export function listpackLookupStatus(command) {
  return t("{cmd} on a listpack has no levels to descend: it reads the entries from the first one.", { cmd: command });
}

/**
 * The header line: key, its tooltip, the encoding badge (null: hidden) and the sizes.
 * @param {ZsetState} s
 */
export function headText(s) {
  const { db, key } = s.sel;
  if (key === null) return { key: "", title: null, encoding: null, stats: "" };
  const title = db === 0 ? key : `${key} (db ${db})`;
  const w = s.win;
  if (w === null) return { key, title, encoding: null, stats: "" };
  const stats =
    w.encoding === "skiplist"
      ? `${t("{n} members", { n: number(w.len) })} · ${levelCount(w.max_level)}`
      : memberCount(w.len);
  return { key, title, encoding: w.encoding, stats };
}

/**
 * What the empty panel says (null: the panel is hidden). Key names are text, never markup.
 * @param {ZsetState} s
 * @returns {{title: string, hint: string, example: string} | null}
 */
export function emptyText(s) {
  const { db, key } = s.sel;
  if (key === null) {
    return {
      title: t("No sorted set selected."),
      hint: t("Add a few members in the console, then click the key in the keyspace list. Add more than 128 to watch it become a skiplist."),
      example: "ZADD leaderboard 10 alice 20 bob 30 carol",
    };
  }
  if (!s.missing) return null;
  // Only a name that needs no quoting in the console is offered back.
  const name = /^[\w:.-]+$/.test(key) ? key : "myzset";
  if (!s.seen) {
    // Selected before it exists (a lab opens on the key its first step creates).
    return {
      title: db === 0 ? t("“{key}” does not exist yet.", { key }) : t("“{key}” does not exist yet in db {db}.", { key, db }),
      hint: t("It opens here as soon as a ZADD creates it:"),
      example: `ZADD ${name} 1 one 2 two 3 three`,
    };
  }
  return {
    title: db === 0 ? t("“{key}” is not a sorted set (any more).", { key }) : t("“{key}” is not a sorted set in db {db} (any more).", { key, db }),
    hint: t("It was deleted, expired or replaced. Pick another key in the keyspace list, or create it again:"),
    example: `ZADD ${name} 1 one 2 two 3 three`,
  };
}

/** How the skiplist picture is panned and zoomed from the keyboard (its label ends with it). */
export const skiplistKeys = () => t("Drag, scroll or use the arrow keys to pan; + and − zoom; Home and End jump to the ends.");

/** The skiplist picture's label before anything is drawn. */
export const skiplistLabel = () => t("Skiplist lanes. {keys}", { keys: skiplistKeys() });

/**
 * The skiplist picture in words, for screen readers (the canvas's label): the set's size and
 * levels, the ranks on show and the first members with their score and level.
 * @param {ZsetState} s
 * @param {number} [listed]  members named at most
 */
export function skiplistDescription(s, listed = 8) {
  const w = s.win;
  if (w === null) return skiplistLabel();
  const shown = w.entries.slice(0, cols(s));
  const first = w.start;
  const last = first + shown.length - 1;
  const named = shown
    .slice(0, listed)
    .map((e) => t("{member} (score {score}, level {level})", { member: e.member, score: formatScore(e.score), level: e.level }))
    .join(", ");
  const ranks = { from: number(first), to: number(last), named, more: number(shown.length - listed) };
  const parts = [t("Skiplist of {members} in {levels}.", { members: memberCount(w.len), levels: levelCount(w.max_level) })];
  if (shown.length > listed) parts.push(t("Ranks {from}–{to} shown: {named}, and {more} more.", ranks));
  else if (shown.length > 0) parts.push(t("Ranks {from}–{to} shown: {named}.", ranks));
  parts.push(skiplistKeys());
  return parts.join(" ");
}

/**
 * The tooltip for one skiplist entry: its member, score/rank/level and its links.
 * @param {ZsetEntry} e
 */
export function tooltipLines(e) {
  return {
    member: e.member,
    line: t("score {score} · rank {rank} · level {level}", { score: formatScore(e.score), rank: number(e.rank), level: e.level }),
    spans: e.spans.map((span, i) => `L${i + 1}→${span === 0 ? "NIL" : `+${number(span)}`}`).join("  "),
  };
}

/**
 * The pager and zoom controls.
 * @param {ZsetState} s
 */
export function controlsText(s) {
  const w = s.win;
  const len = w?.len ?? 0;
  const skip = isSkiplist(s);
  const shownEnd = Math.min(len, (w?.start ?? 0) + (w?.entries.length ?? 0));
  return {
    hidden: w === null,
    pager: w !== null && (skip || len > LISTPACK_PAGE),
    atStart: s.start <= 0,
    atEnd: s.start + pageSize(s) >= len,
    range:
      len === 0 || w === null ? "" : t("#{from}–{to} of {total}", { from: number(w.start), to: number(Math.max(w.start, shownEnd - 1)), total: number(len) }),
    zoomShown: skip,
    zoom: s.zoom,
    zoomOutDisabled: s.zoom >= ZOOM_STEPS.length - 1,
    zoomInDisabled: s.zoom <= 0,
    zoomText: t("{n} cols", { n: cols(s) }),
  };
}

/**
 * The listpack panel's meter: entries against zset-max-listpack-entries, the longest member
 * against zset-max-listpack-value (when the whole set is on the page).
 * @param {ZsetWindow} w
 */
export function listpackMeter(w) {
  let longest = 0;
  for (const e of w.entries) longest = Math.max(longest, utf8Length(e.member));
  return {
    count: t("{len} / {max} entries", { len: number(w.len), max: number(w.max_entries) }),
    fillPercent: Math.min(100, Math.max(0, (w.len / Math.max(1, w.max_entries)) * 100)),
    full: w.len >= w.max_entries,
    value:
      w.len <= w.entries.length
        ? t("longest member {n} / {max} bytes", { n: number(longest), max: number(w.max_value) })
        : t("members up to {max} bytes", { max: number(w.max_value) }),
  };
}

/**
 * The legend's lane line for a skiplist window.
 * @param {ZsetWindow} w
 */
export function lanesText(w) {
  return w.max_level === 1
    ? t("{n} lane: L1 (every member) … L{n} (the tallest node)", { n: w.max_level })
    : t("{n} lanes: L1 (every member) … L{n} (the tallest node)", { n: w.max_level });
}

/**
 * The search path written out: a title and, top level first, one row per level with its steps
 * (at most `maxSteps`; `more` counts the rest).
 * @param {Search} search
 * @param {number} maxSteps
 * @returns {{title: string, rows: Array<{level: number, steps: PlacedPath["steps"]}>, more: number}}
 */
export function pathListing(search, maxSteps) {
  const cmd = search.event.command.toUpperCase();
  const placed = search.placed;
  if (placed === null) {
    return { title: t("{cmd}: {n} nodes examined (not placed: the set changed since).", { cmd, n: number(search.event.path.length) }), rows: [], more: 0 };
  }
  const vars = { cmd, n: number(placed.steps.length) };
  const title = placed.uncertain
    ? t("{cmd} search path, top level first — {n} nodes examined (the event does not say whether the last one was entered)", vars)
    : t("{cmd} search path, top level first — {n} nodes examined", vars);
  /** @type {Array<{level: number, steps: PlacedPath["steps"]}>} */
  const rows = [];
  const listed = placed.steps.slice(0, maxSteps);
  for (const step of listed) {
    const row = rows[rows.length - 1];
    if (row && row.level === step.level) row.steps.push(step);
    else rows.push({ level: step.level, steps: [step] });
  }
  return { title, rows, more: placed.steps.length - listed.length };
}

/**
 * The view's state as data-* attributes (tests and labs read them).
 * @param {ZsetState} s
 * @returns {Record<string, string>}
 */
export function datasetOf(s) {
  const { landed, search, conversion } = s;
  return {
    key: s.sel.key ?? "",
    encoding: s.win?.encoding ?? "",
    len: String(s.win?.len ?? 0),
    maxLevel: String(s.win?.max_level ?? 0),
    start: String(s.win?.start ?? 0),
    cols: String(cols(s)),
    landedMember: landed?.member ?? "",
    landedRank: landed ? String(landed.rank) : "",
    landedLevel: landed ? String(landed.level) : "",
    searchCommand: search?.event.command ?? "",
    searchSteps: search?.placed ? String(search.placed.steps.length) : "",
    searchResultRank: search?.placed ? String(search.placed.resultRank) : "",
    converted: conversion ? `${conversion.from}->${conversion.to}` : "",
  };
}
