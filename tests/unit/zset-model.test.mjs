// Unit tests of the sorted-set view's model (www/views/zset-model.js): pure functions, no DOM,
// no engine. Windows and events are built here in the shapes src/introspect.rs and
// src/events.rs give them.

import { test } from "node:test";
import assert from "node:assert/strict";

import {
  FLASH_MS,
  LISTPACK_PAGE,
  ZOOM_STEPS,
  acceptWindow,
  animating,
  applySearch,
  cols,
  controlsText,
  datasetOf,
  describeLanded,
  emptyText,
  explainConversion,
  formatScore,
  gotoRank,
  headText,
  initialState,
  keyAction,
  listpackLookupStatus,
  listpackMeter,
  maxStart,
  pathListing,
  reduceEvents,
  removedStatus,
  reveal,
  revealLanded,
  searchReveal,
  selectKey,
  setHover,
  setStart,
  setZoom,
  tooltipLines,
  utf8Length,
  wheelPan,
  windowFor,
} from "../../www/views/zset-model.js";
import { placeSearchPath } from "../../www/views/zset-search-path.js";

const HOSTILE = '<img src=x onerror=alert(1)> "\n\u0000';

/** A window as the engine returns it: `len` members named m<rank> with score = rank. */
function windowOf({ encoding = "listpack", len = 5, start = 0, count = len, maxLevel = 0, maxEntries = 128, maxValue = 64 } = {}) {
  const entries = [];
  for (let r = start; r < Math.min(len, start + count); r += 1) {
    entries.push({ rank: r, member: `m${r}`, score: r, level: encoding === "skiplist" ? 1 : 0, spans: encoding === "skiplist" ? [1] : [] });
  }
  return {
    key: "z",
    encoding,
    len,
    max_level: maxLevel,
    header_spans: encoding === "skiplist" ? [1] : [],
    start,
    entries,
    max_entries: maxEntries,
    max_value: maxValue,
  };
}

/** A state showing key "z" in db 0 with `win` already read. */
function showing(win, patch = {}) {
  return { ...selectKey(initialState(), 0, "z"), win, needFetch: false, ...patch };
}

const insert = (member, rank, level = 0, key = "z", db = 0) => ({ kind: "zset_insert", at_ms: 0, db, key, member, score: rank, rank, level });
const command = (name) => ({ kind: "command", at_ms: 0, client: 1, db: 0, name, argc: 2, error: false });

// ---------------------------------------------------------------------------------------------
// The window of ranks
// ---------------------------------------------------------------------------------------------

test("the initial state shows nothing and fetches nothing", () => {
  const s = initialState();
  assert.equal(s.sel.key, null);
  assert.equal(windowFor(s), null);
  assert.equal(cols(s), 24);
  assert.deepEqual(emptyText(s)?.example, "ZADD leaderboard 10 alice 20 bob 30 carol");
});

test("selecting a key forgets the previous one and asks for its window", () => {
  const before = { ...showing(windowOf()), start: 40, status: "x", hover: 3, landed: { member: "a", score: 1, rank: 0, level: 0, count: 1, at: 0 } };
  const s = selectKey(before, 2, "other");
  assert.deepEqual(s.sel, { db: 2, key: "other" });
  assert.equal(s.win, null);
  assert.equal(s.start, 0);
  assert.equal(s.landed, null);
  assert.equal(s.status, "");
  assert.equal(s.hover, -1);
  assert.equal(s.needFetch, true);
  assert.equal(selectKey(before, 0, null).needFetch, false);
});

test("windowFor reads a listpack page until the set is known to be a skiplist", () => {
  const s = selectKey(initialState(), 1, "z");
  assert.deepEqual(windowFor(s), { db: 1, key: "z", start: 0, count: LISTPACK_PAGE });
  const sk = showing(windowOf({ encoding: "skiplist", len: 1000, count: 24 }));
  assert.deepEqual(windowFor({ ...sk, start: 100 }), { db: 0, key: "z", start: 100, count: 24 });
});

test("acceptWindow: null means the key is not a sorted set — not yet, or not any more", () => {
  const s = acceptWindow(selectKey(initialState(), 0, "z"), null, false);
  assert.equal(s.missing, true);
  assert.equal(s.win, null);
  assert.equal(s.needFetch, false);
  assert.equal(s.dataVersion, 1);
  // Selected before anything created it (a lab's first step will): not "any more".
  assert.equal(emptyText(s)?.title, "“z” does not exist yet.");
  // Shown once, then gone.
  const shown = acceptWindow(selectKey(initialState(), 0, "z"), windowOf({ encoding: "listpack", len: 3, count: 3 }), false);
  const gone = acceptWindow(shown, null, false);
  assert.match(emptyText(gone)?.title ?? "", /“z” is not a sorted set \(any more\)/);
});

test("acceptWindow trims a skiplist window to the columns shown", () => {
  const s = acceptWindow(selectKey(initialState(), 0, "z"), windowOf({ encoding: "skiplist", len: 1000, count: 256 }), false);
  assert.equal(s.win?.entries.length, 24);
  assert.equal(s.needFetch, false);
});

test("acceptWindow asks once for the last page when the set shrank under the page", () => {
  const s0 = { ...showing(windowOf({ encoding: "skiplist", len: 1000, count: 24 })), start: 900 };
  const shrunk = windowOf({ encoding: "skiplist", len: 100, start: 900, count: 0 });
  const s1 = acceptWindow(s0, shrunk, false);
  assert.equal(s1.needFetch, true);
  assert.equal(s1.start, 76);
  assert.equal(s1.dataVersion, s0.dataVersion, "not a final read");
  const s2 = acceptWindow(s1, shrunk, true);
  assert.equal(s2.needFetch, false);
  assert.equal(s2.dataVersion, s0.dataVersion + 1);
});

test("setStart clamps to the ranks there are and is a no-op when nothing moves", () => {
  const s = showing(windowOf({ encoding: "skiplist", len: 100, count: 24 }));
  assert.equal(maxStart(s), 76);
  assert.equal(setStart(s, 1e9).start, 76);
  assert.equal(setStart(s, -5).start, 0);
  assert.equal(setStart(s, 0), s);
  assert.equal(setStart(s, 10.4).start, 10);
  assert.equal(setStart(s, 10).needFetch, true);
});

test("reveal centres a rank in a skiplist and opens its page in a listpack", () => {
  const sk = showing(windowOf({ encoding: "skiplist", len: 1000, count: 24 }));
  assert.equal(reveal(sk, 10), sk, "already visible");
  assert.equal(reveal(sk, 500).start, 488);
  const lp = showing(windowOf({ len: 600 }));
  assert.equal(reveal(lp, 300).start, 256);
});

test("setZoom keeps the anchor where it is and clamps the zoom", () => {
  const s = { ...showing(windowOf({ encoding: "skiplist", len: 1000, count: 24 })), start: 100 };
  const out = setZoom(s, s.zoom + 1); // 24 → 32 columns around the middle (rank 112)
  assert.equal(cols(out), 32);
  assert.equal(out.start, 96);
  const anchored = setZoom(s, s.zoom - 1, 106); // 24 → 16, rank 106 stays a quarter in
  assert.equal(cols(anchored), 16);
  assert.equal(anchored.start, 102);
  assert.equal(setZoom({ ...s, zoom: 0 }, -1).zoom, 0);
  assert.equal(setZoom({ ...s, zoom: ZOOM_STEPS.length - 1 }, 99).zoom, ZOOM_STEPS.length - 1);
});

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

test("with nothing selected the view follows the first sorted set written to", () => {
  const r = reduceEvents(initialState(), [command("zadd"), insert("alice", 0, 0, "board", 3)], 1000);
  assert.deepEqual(r.follow, { db: 3, key: "board" });
  assert.equal(r.inserted, true);
  assert.equal(r.state.needFetch, true);
  assert.equal(r.state.landed?.member, "alice");
  assert.equal(r.state.status, "alice (score 0) landed at rank 0 of the listpack.");
});

test("events about other keys change nothing; no events keep the same state", () => {
  const s = showing(windowOf());
  assert.equal(reduceEvents(s, [], 0).state, s);
  const r = reduceEvents(s, [insert("x", 0, 0, "other"), { kind: "keyspace", at_ms: 0, db: 1, event: "del", key: "z" }], 0);
  assert.equal(r.state, s);
  assert.equal(r.follow, null);
  assert.equal(r.inserted, false);
});

test("several inserts in one frame: the last one lands and the count is said", () => {
  const r = reduceEvents(showing(windowOf({ encoding: "skiplist", len: 200 })), [insert("a", 5, 2), insert("b", 7, 3)], 50);
  assert.deepEqual(r.state.landed, { member: "b", score: 7, rank: 7, level: 3, count: 2, at: 50 });
  assert.equal(r.state.status, "b (score 7) landed at rank 7, level 3 (the last of 2 members placed).");
  assert.equal(r.state.search, null);
});

test("a removal says what went and drops the landed highlight if it went", () => {
  const landed = { member: "m3", score: 3, rank: 3, level: 0, count: 1, at: 0 };
  const members = ["m1", "m2", "m3", "m4", "m5", "m6", "m7"];
  const r = reduceEvents(showing(windowOf(), { landed }), [{ kind: "zset_remove", at_ms: 0, db: 0, key: "z", members }], 0);
  assert.equal(r.state.landed, null);
  assert.equal(r.state.status, "removed 7 members: m1, m2, m3, m4, m5 and 2 more.");
  assert.equal(removedStatus(["only"]), "removed 1 member: only.");
});

test("a conversion is explained once the limits are known", () => {
  const r = reduceEvents(showing(windowOf({ len: 128 })), [{ kind: "zset_convert", at_ms: 0, db: 0, key: "z", from: "listpack", to: "skiplist", len: 128 }], 9);
  assert.deepEqual(r.state.conversion, { from: "listpack", to: "skiplist", len: 128, at: 9, reason: null });
  const byCount = explainConversion(r.state);
  assert.equal(byCount.conversion?.reason, "at 129 members: zset-max-listpack-entries is 128");
  assert.equal(explainConversion(byCount), byCount, "explained once");
  const byValue = explainConversion({ ...r.state, conversion: { ...r.state.conversion, len: 3 } });
  assert.equal(byValue.conversion?.reason, "when a member longer than zset-max-listpack-value (64 bytes) arrived");
  assert.equal(explainConversion({ ...r.state, win: null }).conversion?.reason, null);
});

test("a lookup command on a listpack is reported; on a skiplist the search event is handed back", () => {
  const lp = reduceEvents(showing(windowOf()), [command("zrank")], 0);
  assert.equal(lp.listpackLookup, "ZRANK");
  assert.equal(lp.state.needFetch, true);
  assert.match(listpackLookupStatus("ZRANK"), /^ZRANK on a listpack has no levels to descend/);
  assert.equal(reduceEvents(showing(windowOf()), [command("zadd")], 0).listpackLookup, null);
  const search = { kind: "zset_search", at_ms: 0, db: 0, key: "z", command: "zrank", path: [] };
  const sk = reduceEvents(showing(windowOf({ encoding: "skiplist" })), [command("zrank"), search], 0);
  assert.equal(sk.searched, search);
  assert.equal(sk.listpackLookup, null);
});

test("revealLanded brings the landed member into view after the window is read", () => {
  const s = showing(windowOf({ encoding: "skiplist", len: 1000, count: 24 }), {
    landed: { member: "m600", score: 600, rank: 600, level: 1, count: 1, at: 0 },
  });
  assert.equal(revealLanded(s).start, 588);
  const none = { ...s, landed: null };
  assert.equal(revealLanded(none), none);
});

// ---------------------------------------------------------------------------------------------
// Search paths
// ---------------------------------------------------------------------------------------------

/** A two-level skiplist over ranks 0..9: even ranks are level 2. */
function twoLevelNodes() {
  const nodes = [];
  for (let r = 0; r < 10; r += 1) {
    const spans = r % 2 === 0 ? [1, r + 2 < 10 ? 2 : 0] : [r + 1 < 10 ? 1 : 0];
    nodes.push({ member: `m${r}`, spans });
  }
  return { header: [1, 1], nodeAt: (rank) => nodes[rank] ?? null };
}

test("a ZRANK search is placed in ranks and reported with its levels", () => {
  const { header, nodeAt } = twoLevelNodes();
  const event = {
    kind: "zset_search",
    at_ms: 0,
    db: 0,
    key: "z",
    command: "zrank",
    path: [
      { level: 1, member: "m0", score: 0 },
      { level: 1, member: "m2", score: 2 },
      { level: 1, member: "m4", score: 4 },
      { level: 0, member: "m3", score: 3 },
      { level: 0, member: "m4", score: 4 },
    ],
  };
  const placed = placeSearchPath(event, header, 10, nodeAt);
  assert.ok(placed);
  assert.deepEqual(
    placed.steps.map((s) => [s.rank, s.advanced]),
    [
      [0, true],
      [2, true],
      [4, false],
      [3, true],
      [4, false],
    ],
  );
  assert.equal(placed.resultRank, 3);
  const win = windowOf({ encoding: "skiplist", len: 10, maxLevel: 2 });
  const s = applySearch(showing(win, { landed: { member: "x", score: 0, rank: 0, level: 1, count: 1, at: 0 } }), event, placed, 100);
  assert.equal(s.landed, null);
  assert.equal(s.status, "ZRANK examined 5 nodes on 2 levels of 2, then found m3 at rank 3 — not 10 comparisons.");
  const listing = pathListing(s.search, 3);
  assert.match(listing.title, /^ZRANK search path, top level first — 5 nodes examined$/);
  assert.deepEqual(
    listing.rows.map((r) => [r.level, r.steps.length]),
    [[1, 3]],
  );
  assert.equal(listing.more, 2);
});

test("a search that no longer matches the set is reported, not drawn", () => {
  const { header, nodeAt } = twoLevelNodes();
  const event = { kind: "zset_search", at_ms: 0, db: 0, key: "z", command: "zrangebyscore", path: [{ level: 1, member: "gone", score: 0 }] };
  assert.equal(placeSearchPath(event, header, 10, nodeAt), null);
  const s = applySearch(showing(windowOf({ encoding: "skiplist", len: 10 })), event, null, 0);
  assert.equal(s.status, "ZRANGEBYSCORE examined 1 nodes (the set changed since, so they are not placed).");
  assert.deepEqual(pathListing(s.search, 10), {
    title: "ZRANGEBYSCORE: 1 nodes examined (not placed: the set changed since).",
    rows: [],
    more: 0,
  });
  assert.equal(placeSearchPath({ command: "zrank", path: [] }, header, 10, nodeAt), null);
});

// ---------------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------------

test("keys pan and zoom the skiplist; other keys do nothing", () => {
  const s = { ...showing(windowOf({ encoding: "skiplist", len: 1000, count: 24 })), start: 100 };
  assert.equal(keyAction(s, "ArrowRight", false)?.start, 101);
  assert.equal(keyAction(s, "ArrowLeft", true)?.start, 88);
  assert.equal(keyAction(s, "PageDown", false)?.start, 124);
  assert.equal(keyAction(s, "Home", false)?.start, 0);
  assert.equal(keyAction(s, "End", false)?.start, 976);
  assert.equal(keyAction(s, "+", false)?.zoom, s.zoom - 1);
  assert.equal(keyAction(s, "_", false)?.zoom, s.zoom + 1);
  assert.equal(keyAction(s, "a", false), null);
});

test("wheel pixels accumulate into whole columns", () => {
  const s = showing(windowOf({ encoding: "skiplist", len: 1000, count: 24 }));
  const a = wheelPan(s, 0, 15, 20);
  assert.equal(a.state, s);
  assert.equal(a.accumulated, 15);
  const b = wheelPan(s, a.accumulated, 30, 20);
  assert.equal(b.state.start, 2);
  assert.equal(b.accumulated, 5);
});

test("go to rank: negative from the end, errors as sentences", () => {
  const sk = showing(windowOf({ encoding: "skiplist", len: 1_000_000, count: 24 }));
  assert.equal(gotoRank(sk, " 500000 ").state?.start, 499992);
  assert.equal(gotoRank(sk, "-1").state?.start, 1_000_000 - 24);
  assert.deepEqual(gotoRank(sk, "1e3"), { state: null, error: "a rank: 0 is the lowest score, -1 the highest" });
  assert.deepEqual(gotoRank(sk, "1000000"), { state: null, error: "out of range (0 … 999,999)" });
  assert.deepEqual(gotoRank(showing(null), "0"), { state: null, error: "no members" });
  assert.equal(gotoRank(showing(windowOf({ len: 600 })), "300").state?.start, 256);
});

test("hover is an index into the window, or -1", () => {
  const s = showing(windowOf({ encoding: "skiplist", len: 10 }));
  assert.equal(setHover(s, 3).hover, 3);
  assert.equal(setHover(s, 10).hover, -1);
  assert.equal(setHover(s, -1), s);
  assert.equal(setHover(showing(null), 2).hover, -1);
});

// ---------------------------------------------------------------------------------------------
// Animation
// ---------------------------------------------------------------------------------------------

test("a landed member flashes for FLASH_MS; a search path is revealed at ~90 ms a node", () => {
  const landed = { member: "m1", score: 1, rank: 1, level: 1, count: 1, at: 1000 };
  const sk = showing(windowOf({ encoding: "skiplist" }), { landed });
  assert.equal(animating(sk, 1000 + FLASH_MS - 1), true);
  assert.equal(animating(sk, 1000 + FLASH_MS), false);
  assert.equal(animating(showing(windowOf(), { landed }), 1000), false, "a listpack has no animation");
  const search = { event: { command: "zrank", path: [] }, placed: { steps: new Array(10).fill(null), resultRank: 0, levels: 1, uncertain: false }, at: 0 };
  assert.equal(searchReveal(search, 450), 0.5);
  assert.equal(searchReveal(search, 5000), 1);
  assert.equal(searchReveal(null, 0), 1);
});

// ---------------------------------------------------------------------------------------------
// Words and numbers
// ---------------------------------------------------------------------------------------------

test("scores print as redis-cli prints them", () => {
  assert.equal(formatScore(Infinity), "inf");
  assert.equal(formatScore(-Infinity), "-inf");
  assert.equal(formatScore(1.5), "1.5");
  assert.equal(formatScore(1e21), "1e+21");
  assert.equal(formatScore("nan"), "nan");
});

test("UTF-8 lengths count bytes, not UTF-16 units", () => {
  assert.equal(utf8Length("abc"), 3);
  assert.equal(utf8Length("é"), 2);
  assert.equal(utf8Length("€"), 3);
  assert.equal(utf8Length("😀"), 4);
});

test("huge sets get grouped numbers", () => {
  const s = showing(windowOf({ encoding: "skiplist", len: 12_345_678, start: 1_000_000, count: 24, maxLevel: 13 }), { start: 1_000_000 });
  assert.deepEqual(headText(s), { key: "z", title: "z", encoding: "skiplist", stats: "12,345,678 members · 13 levels" });
  const c = controlsText(s);
  assert.equal(c.range, "#1,000,000–1,000,023 of 12,345,678");
  assert.equal(c.pager, true);
  assert.equal(c.zoomText, "24 cols");
  assert.equal(
    describeLanded({ member: "a", score: 2, rank: 9_999_999, level: 4, count: 1_000_000, at: 0 }),
    "a (score 2) landed at rank 9,999,999, level 4 (the last of 1,000,000 members placed).",
  );
});

test("hostile key and member names stay plain strings", () => {
  const s = { ...selectKey(initialState(), 5, HOSTILE), missing: true, seen: true };
  const head = headText(s);
  assert.equal(head.key, HOSTILE);
  assert.equal(head.title, `${HOSTILE} (db 5)`);
  const empty = emptyText(s);
  assert.equal(empty?.title, `“${HOSTILE}” is not a sorted set in db 5 (any more).`);
  assert.equal(empty?.example, "ZADD myzset 1 one 2 two 3 three", "a name needing quotes is not offered back");
  assert.equal(emptyText({ ...s, sel: { db: 0, key: "user:1" } })?.example, "ZADD user:1 1 one 2 two 3 three");
  const t = tooltipLines({ rank: 0, member: HOSTILE, score: -Infinity, level: 2, spans: [1, 0] });
  assert.deepEqual(t, { member: HOSTILE, line: "score -inf · rank 0 · level 2", spans: "L1→+1  L2→NIL" });
  assert.equal(datasetOf(s).key, HOSTILE);
});

test("an empty db: no key, no controls, empty attributes", () => {
  const s = initialState();
  assert.deepEqual(headText(s), { key: "", title: null, encoding: null, stats: "" });
  const c = controlsText(s);
  assert.equal(c.hidden, true);
  assert.equal(c.range, "");
  assert.deepEqual(datasetOf(s), {
    key: "",
    encoding: "",
    len: "0",
    maxLevel: "0",
    start: "0",
    cols: "24",
    landedMember: "",
    landedRank: "",
    landedLevel: "",
    searchCommand: "",
    searchSteps: "",
    searchResultRank: "",
    converted: "",
  });
});

test("the listpack meter: entries against the limit, the longest member in bytes", () => {
  const w = windowOf({ len: 3 });
  w.entries[1].member = "ééé";
  assert.deepEqual(listpackMeter(w), { count: "3 / 128 entries", fillPercent: (3 / 128) * 100, full: false, value: "longest member 6 / 64 bytes" });
  const full = listpackMeter(windowOf({ len: 300, count: 256, maxEntries: 128 }));
  assert.equal(full.full, true);
  assert.equal(full.fillPercent, 100);
  assert.equal(full.value, "members up to 64 bytes");
  assert.equal(listpackMeter(windowOf({ len: 0, maxEntries: 0 })).fillPercent, 0);
});
