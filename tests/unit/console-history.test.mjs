// The console's line history (www/console/history.js), as linenoise keeps redis-cli's.

import assert from "node:assert/strict";
import { test } from "node:test";
import { createHistory } from "../../www/console/history.js";

test("ArrowUp walks back from the newest line; ArrowDown comes back to the draft", () => {
  const h = createHistory();
  for (const line of ["SET a 1", "GET a", "DEL a"]) h.add(line);
  assert.equal(h.previous("half-typ"), "DEL a");
  assert.equal(h.previous("DEL a"), "GET a");
  assert.equal(h.previous("GET a"), "SET a 1");
  assert.equal(h.previous("SET a 1"), null, "at the oldest");
  assert.equal(h.next(), "GET a");
  assert.equal(h.next(), "DEL a");
  assert.equal(h.next(), "half-typ", "past the newest: what was being typed");
  assert.equal(h.next(), null, "not walking");
});

test("blank lines and a repeat of the previous line are not remembered", () => {
  const h = createHistory();
  for (const line of ["PING", "PING", "  ", "", "GET a", "PING"]) h.add(line);
  assert.deepEqual(h.entries(), ["PING", "GET a", "PING"]);
});

test("adding a line stops walking and forgets the draft", () => {
  const h = createHistory();
  h.add("one");
  h.add("two");
  assert.equal(h.previous("draft"), "two");
  h.add("three");
  assert.equal(h.next(), null);
  assert.equal(h.previous(""), "three");
  assert.equal(h.next(), "");
});

test("only the newest `max` lines are kept", () => {
  const h = createHistory(3);
  for (let i = 1; i <= 5; i += 1) h.add(`line ${i}`);
  assert.deepEqual(h.entries(), ["line 3", "line 4", "line 5"]);
});

test("an empty history has nothing to walk", () => {
  const h = createHistory();
  assert.equal(h.previous("x"), null);
  assert.equal(h.next(), null);
});
