// Unit tests of the persistence view's model (www/views/persistence-model.js): pure, no DOM, no
// engine. Events are built here in the shape src/events.rs gives them (Event::Propagated,
// Event::Expired, Event::Eviction).

import { test } from "node:test";
import assert from "node:assert/strict";

import * as m from "../../www/views/persistence-model.js";

const T = 1_735_732_800_000;
const prop = (argv, cause = null, patch = {}) => ({ kind: "propagated", at_ms: T, db: 0, argv, aof: true, repl: true, cause, ...patch });
const expired = (key, by, at = T) => ({ kind: "expired", at_ms: at, db: 0, key, by, late_ms: 0, command: null });

test("a client's command, and whether Redis rewrote it", () => {
  const { state, changed } = m.applyEvents(m.initialState(), [
    prop(["SET", "k", "v", "PXAT", String(T + 60_000)], "client 3: set k v EX 60"),
    prop(["SET", "plain", "1"], "client 3: set plain 1"),
  ]);
  assert.equal(changed, true);
  assert.deepEqual(
    state.rows.map((r) => [r.origin, r.rewritten]),
    [
      ["command", true],
      ["command", false],
    ],
  );
  assert.equal(m.originText(state.rows[0]), "rewritten from client 3: set k v EX 60");
  assert.equal(m.causeCommand("client 12: GET x"), "GET x");
});

test("a DEL nobody typed is matched to the expiry or eviction that made it", () => {
  const events = [
    prop(["DEL", "a"]),
    expired("a", "active"),
    expired("b", "lazy"),
    prop(["MULTI"], "client 1: APPEND b x"),
    prop(["DEL", "b"], "client 1: APPEND b x"),
    prop(["APPEND", "b", "x"], "client 1: APPEND b x"),
    prop(["EXEC"], "client 1: APPEND b x", { db: null }),
    { kind: "eviction", at_ms: T + 5, report: {} },
    prop(["DEL", "c"], null, { at_ms: T + 5 }),
    prop(["DEL", "d"], null, { at_ms: T + 9 }),
  ];
  const { state } = m.applyEvents(m.initialState(), events);
  assert.deepEqual(
    state.rows.map((r) => r.origin),
    ["active-expiry", "wrapper", "lazy-expiry", "command", "wrapper", "eviction", "server"],
  );
  assert.equal(m.originText(state.rows[2]), "found expired by client 1: APPEND b x");
});

test("the newest MAX_ROWS rows are kept; a drain without propagation changes nothing", () => {
  let s = m.initialState();
  const many = Array.from({ length: m.MAX_ROWS + 50 }, (_, i) => prop(["SET", `k${i}`, "v"], `client 1: SET k${i} v`));
  s = m.applyEvents(s, many).state;
  assert.equal(s.rows.length, m.MAX_ROWS);
  assert.equal(s.total, m.MAX_ROWS + 50);
  assert.equal(s.rows[0].argv[1], "k50");
  const same = m.applyEvents(s, [{ kind: "cron", at_ms: T, ticks: 1, hz: 10 }]);
  assert.equal(same.changed, false);
  assert.equal(same.state, s);
});

test("command lines quote as redis-cli does; sizes and status read plainly", () => {
  assert.equal(m.commandLine(["SET", "a b", 'q"', "", "x\ny", "ok"]), 'SET "a b" "q\\"" "" "x\\ny" ok');
  assert.equal(m.commandLine(["SET", "<img src=x>", "北京"]), 'SET "<img src=x>" "北京"');
  assert.equal(m.formatSize(null), "—");
  assert.equal(m.formatSize(88), "88 B");
  assert.equal(m.formatSize(2048), "2.0 KB");
  const snap = { aof: "off", aof_dir: "/x", files: [], aof_buffer: 0, bgsave_in_progress: true, aof_rewrite_in_progress: false, changes_since_save: 0, lastsave: 0 };
  assert.equal(m.statusText(snap), "AOF off — CONFIG SET appendonly yes turns it on. BGSAVE child at work.");
  assert.match(m.statusText({ ...snap, aof: "on", bgsave_in_progress: false }), /^AOF on/);
});
