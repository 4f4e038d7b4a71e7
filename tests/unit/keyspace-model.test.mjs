// Unit tests of the keyspace picker's model (www/views/keyspace-model.js): pure, no DOM, no
// engine. Pages are built here in the shape src/introspect.rs KeyspacePage gives them.

import { test } from "node:test";
import assert from "node:assert/strict";

import * as m from "../../www/views/keyspace-model.js";

const HOSTILE = '<img src=x onerror=alert(1)> "\n';

const key = (name, patch = {}) => ({ key: name, type: "string", encoding: "embstr", len: 1, expire_at_ms: null, expired: false, ...patch });
const page = (keys, total = keys.length, volatile = 0) => ({ db: 0, total, volatile, offset: 0, keys });

test("the first read is due at once; engine-driven reads wait while playing", () => {
  const s = m.initialState(0);
  assert.equal(m.fetchDue(s, 0), true);
  const read = m.acceptPage(s, page([key("a")]), 1000, false);
  assert.equal(read.retry, false);
  const after = { ...read.state, playing: true };
  assert.equal(after.fetches, 1);
  assert.equal(m.fetchDue(after, 1001), false, "nothing asked for");
  const changed = m.reduceEvents(after, [{ kind: "keyspace", at_ms: 0, db: 0, event: "set", key: "b" }]).state;
  assert.equal(m.fetchDue(changed, 1100), false, "playing: at most every 250 ms");
  assert.equal(m.fetchDue(changed, 1250), true);
  assert.equal(m.fetchDue({ ...changed, playing: false }, 1100), true, "paused: at once");
  assert.equal(m.fetchDue(m.nextPage(after), 1001), true, "the user asked: at once");
});

test("events: this db's changes and expiries refetch; other dbs' do not; commands ask for the db", () => {
  const s = { ...m.initialState(0), needFetch: false };
  assert.equal(m.reduceEvents(s, [{ kind: "keyspace", at_ms: 0, db: 3, event: "set", key: "x" }]).state, s);
  assert.equal(m.reduceEvents(s, [{ kind: "expired", at_ms: 0, db: 0, key: "x", by: "active", late_ms: 0, command: null }]).state.needFetch, true);
  const r = m.reduceEvents(s, [{ kind: "command", at_ms: 0, client: 1, db: 0, name: "select", argc: 2, error: false }]);
  assert.equal(r.askDb, true);
  assert.equal(r.state.needFetch, true);
  const moved = m.currentDb({ ...r.state, offset: 100 }, 5);
  assert.deepEqual([moved.db, moved.offset, moved.urgent], [5, 0, true]);
  assert.equal(m.currentDb(s, 0), s);
});

test("a page that emptied asks once for the page before it", () => {
  const s = { ...m.initialState(0), offset: 100 };
  const first = m.acceptPage(s, page([], 60), 5, false);
  assert.equal(first.retry, true);
  assert.equal(first.state.offset, 50);
  assert.deepEqual(m.pageRequest(first.state), { db: 0, offset: 50, count: m.PAGE_SIZE, pattern: null });
  const second = m.acceptPage(first.state, page([], 0), 6, true);
  assert.equal(second.retry, false, "only once");
  assert.equal(second.state.fetches, 1);
  assert.equal(second.state.fetchedAt, 5);
});

test("filter and pager", () => {
  const s = { ...m.initialState(0), offset: 100 };
  const f = m.setFilter(s, "  user:*  ");
  assert.deepEqual([f.pattern, f.offset, f.needFetch], ["user:*", 0, true]);
  assert.equal(m.setFilter(f, "   ").pattern, null);
  assert.equal(m.previousPage(m.previousPage(m.previousPage(s))).offset, 0);
  assert.equal(m.nextPage(s).offset, 150);
});

test("picking a sorted set selects it; another type is described", () => {
  const s = { ...m.initialState(2), info: "old" };
  assert.deepEqual(m.pick(s, key("board", { type: "zset", encoding: "listpack", len: 3 })), { state: { ...s, info: "" }, select: { selectedDb: 2, selectedKey: "board" } });
  const r = m.pick(s, key(HOSTILE, { type: "hash", encoding: "listpack", len: 1 }));
  assert.equal(r.select, null);
  assert.equal(r.state.info, `${HOSTILE}: a hash (listpack, 1 field). The sorted-set view shows sorted sets — try ZADD.`);
});

test("lengths with their units; TTLs counting down, expired when past", () => {
  assert.deepEqual(
    [
      ["string", 1],
      ["list", 2],
      ["hash", 1_000_000],
      ["stream", 3],
    ].map(([t, n]) => m.formatLength(t, n)),
    ["1 byte", "2 items", "1,000,000 fields", "3 elements"],
  );
  const now = 1_000_000;
  assert.deepEqual(
    [null, now + 1649, now + 42_000, now + 725_000, now + 7_500_000, now + 86_400_000 * 12_345].map((at) => m.formatTtl(at, now)),
    ["", "1.6s", "42s", "12m 5s", "2h 5m", "12,345d"],
  );
  assert.equal(m.formatTtl(now - 1, now), "expired");
  assert.equal(m.formatTtl(now + 5000, now, true), "expired", "the engine says it is past");
});

test("rows and the pager's words; an empty db; a filter without a total", () => {
  const s = { ...m.initialState(0), selected: { db: 0, key: "b" }, clockMs: 0 };
  assert.deepEqual(m.rowOf(s, key("b", { type: "zset", len: 3, expire_at_ms: 30_000 })), { title: "Show “b” in the sorted-set view", selected: true, ttl: "30s", length: "3 members" });
  assert.equal(m.rowOf({ ...s, db: 1 }, key("b")).selected, false, "the same name in another db");
  assert.deepEqual(m.pageTexts(s, page([], 0)), {
    summary: "db 0 · 0 keys · 0 with a TTL",
    empty: "db 0 is empty. Try: ZADD leaderboard 10 alice 20 bob 30 carol",
    range: "",
    prevDisabled: true,
    nextDisabled: true,
    pagerHidden: true,
  });
  const many = Array.from({ length: 50 }, (_, i) => key(`k:${i}`));
  const t = m.pageTexts({ ...s, offset: 50 }, page(many, 1_234_567, 1_000_000));
  assert.equal(t.summary, "db 0 · 1,234,567 keys · 1,000,000 with a TTL");
  assert.equal(t.range, "51–100 of 1,234,567");
  assert.equal(t.pagerHidden, false);
  const filtered = m.pageTexts({ ...s, pattern: HOSTILE }, page([], 10));
  assert.equal(filtered.empty, `No key matches ${HOSTILE}.`);
  assert.equal(filtered.summary, `db 0 · 10 keys · 0 with a TTL · filter ${HOSTILE}`);
  assert.equal(m.pageTexts({ ...s, pattern: "k:*" }, page(many, 10_000)).nextDisabled, false, "a full page may have more");
});
