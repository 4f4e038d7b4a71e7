// The page's state (www/store.js): the clock bar's counts from drained events, and a store that
// tells its listeners only about real changes.

import assert from "node:assert/strict";
import { test } from "node:test";
import { createInitialState, createStore, isPanelView, reduceEvents } from "../../www/store.js";

const T0 = 1_735_689_600_000;

test("reduceEvents counts cron ticks, expired keys, dropped events and unreadable drains", () => {
  const clock = createInitialState({ seed: 1, startMs: T0 }).clock;
  const events = [
    { kind: "cron", at_ms: T0 + 100, ticks: 3, hz: 10 },
    { kind: "expired", at_ms: T0 + 100, db: 0, key: "a", by: "active", late_ms: 5, command: null },
    { kind: "command", at_ms: T0 + 100, client: 1, db: 0, name: "get", argc: 2, error: false },
    { kind: "expired", at_ms: T0 + 200, db: 0, key: "b", by: "lazy", late_ms: 0, command: "GET" },
    { kind: "cron", at_ms: T0 + 200, ticks: 1, hz: 10 },
  ];
  const next = reduceEvents(clock, events, 4, 1);
  assert.equal(next.cronTicks, 4);
  assert.equal(next.expired, 2);
  assert.equal(next.droppedEvents, 4);
  assert.equal(next.unreadableDrains, 1);
  assert.equal(clock.cronTicks, 0, "pure: the old clock is unchanged");
  assert.deepEqual(reduceEvents(next, [], 0), next);
});

test("the initial state: an unknown panel view falls back to the sorted set", () => {
  assert.equal(createInitialState({ seed: 1, startMs: T0, panelView: "expiry" }).panelView, "expiry");
  assert.equal(createInitialState({ seed: 1, startMs: T0, panelView: "nonsense" }).panelView, "zset");
  assert.ok(Object.isFrozen(createInitialState({ seed: 1, startMs: T0 }).clock));
  assert.equal(isPanelView("delay-queue"), true);
  assert.equal(isPanelView("keyspace"), true, "the keyspace list in the view panel's place");
  assert.equal(isPanelView("console"), false);
});

test("set and setClock merge a patch; listeners hear only real changes", () => {
  const store = createStore(createInitialState({ seed: 1, startMs: T0 }));
  const heard = [];
  const stop = store.subscribe((s) => heard.push([s.paused, s.clock.now]));
  assert.equal(store.set({ paused: false }), false, "no change");
  assert.equal(store.set({ paused: true }), true);
  assert.equal(store.setClock({ now: T0 }), false, "no change");
  assert.equal(store.setClock({ now: T0 + 100 }), true);
  assert.deepEqual(heard, [
    [true, T0],
    [true, T0 + 100],
  ]);
  assert.ok(Object.isFrozen(store.get()));
  assert.ok(Object.isFrozen(store.get().clock));
  stop();
  store.set({ speed: 60 });
  assert.equal(heard.length, 2, "unsubscribed");
  assert.equal(store.get().speed, 60);
});
