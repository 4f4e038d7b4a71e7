// The persistence view's replica lane, decided (www/views/replica-model.js): server lines, the
// offsets, the link, and the chunks newest first with runs of alike ones folded.

import { test } from "node:test";
import assert from "node:assert/strict";
import { chunkRows, hasLane, itemText, linkLine, offsetsLine, serverLine, staleKeysText, CHUNKS_SHOWN } from "../../www/views/replica-model.js";
import { setLanguage } from "../../www/i18n.js";

const side = (over = {}) => ({
  nowMs: 0,
  role: "master",
  master: null,
  link: null,
  replOffset: 100,
  replicaOffset: null,
  replicas: [],
  keys: 2,
  expiredNotReclaimed: 0,
  expiredKeys: [],
  usedMemory: 1000,
  syncFull: 0,
  syncPartialOk: 0,
  ...over,
});
const chunk = (id, over = {}) => ({ id, direction: "to-replica", to: 1, sentMs: id * 10, deliverMs: id * 10 + 5, bytes: 1, items: ["(keep-alive newline)"], more: 0, fate: "delivered", ...over });
const snap = (chunks, servers = [side(), side({ role: "slave", master: "127.0.0.1:6379", link: "connected", replicaOffset: 74, keys: 3, expiredNotReclaimed: 1 })]) => ({
  servers,
  network: { latencyMs: 50, down: false, connections: [[1, 0]], chunks, notes: [], bytesToReplica: 10, bytesToMaster: 4 },
});

test("a replica's keys past their deadline are said to wait for the master's DEL; a master's are not reclaimed yet", () => {
  const s = snap([]);
  assert.equal(serverLine(s.servers[1], 1), "127.0.0.1:6380 — replica of 127.0.0.1:6379 (link connected) · 3 keys, 1 past their deadline — kept until the master's DEL arrives · used_memory 1000 B");
  assert.equal(serverLine(side({ expiredNotReclaimed: 2 }), 0), "127.0.0.1:6379 — master · 2 keys, 2 past their deadline, not reclaimed yet · used_memory 1000 B");
  assert.equal(serverLine(side({ keys: 1, replicas: [{ port: 6380, state: "online", ackOffset: 3 }] }), 0), "127.0.0.1:6379 — master of 127.0.0.1:6380 (online) · 1 key · used_memory 1000 B");
});

test("the offsets say how far behind the replica is", () => {
  const master = side({ replicas: [{ port: 6380, state: "online", ackOffset: 74 }], syncFull: 1, syncPartialOk: 2 });
  const s = snap([], [master, side({ role: "slave", master: "127.0.0.1:6379", link: "connected", replicaOffset: 74 })]);
  assert.equal(offsetsLine(s), "Master offset 100, replica applied 74 — 26 bytes behind. Full syncs 1, partial resyncs 2.");
  s.servers[1].replicaOffset = 100;
  assert.match(offsetsLine(s), /— in step\./);
  assert.equal(offsetsLine(snap([], [side()])), "");
  assert.equal(linkLine(s), "Link up · latency 50 ms each way · 10 B to the replica, 4 B back");
  s.network.down = true;
  assert.match(linkLine(s), /^Link cut/);
});

test("chunks newest first; runs of alike chunks fold into one row with their count", () => {
  const rows = chunkRows(
    snap([
      chunk(1),
      chunk(2),
      chunk(3),
      chunk(4, { items: ["SELECT 0", "DEL k"], bytes: 30, fate: "in-flight" }),
      chunk(5, { direction: "to-master", to: 0, items: ["REPLCONF ACK 14"], more: 2 }),
    ]),
  );
  assert.deepEqual(
    rows.map((r) => [r.id, r.arrow, r.text, r.count, r.bytes, r.fate]),
    [
      [5, "6380 → 6379", "REPLCONF ACK 14 · … 2 more items", 1, 1, "delivered"],
      [4, "6379 → 6380", "SELECT 0 · DEL k", 1, 30, "in-flight"],
      [3, "6379 → 6380", "(keep-alive newline)", 3, 3, "delivered"],
    ],
  );
  const many = chunkRows(snap(Array.from({ length: 100 }, (_, i) => chunk(i, { items: [`SET k ${i}`] }))));
  assert.equal(many.length, CHUNKS_SHOWN);
  assert.equal(many[0].text, "SET k 99");
});

test("a lane only once the second server exists", () => {
  assert.equal(hasLane(null), false);
  assert.equal(hasLane(snap([], [side()])), false);
  assert.equal(hasLane(snap([])), true);
});

test("the keys past their deadline are named with how long they have been dead", () => {
  assert.equal(staleKeysText(side()), "");
  const s = side({ nowMs: 10_000, expiredNotReclaimed: 5, expiredKeys: [{ db: 0, key: "flash:1", expireAtMs: 9_050 }, { db: 2, key: "x", expireAtMs: -20_000 }] });
  assert.equal(staleKeysText(s), "Past their deadline, still there: flash:1 (dead 0.95 s), db2 x (dead 30 s) and 3 more");
});

test("chunk items: the engine's words for payloads in the page's language, commands and replies as they are", async () => {
  // The shapes src/replication/link.rs describes (its tests name them).
  const items = ["(keep-alive newline)", "(12 bytes)", "RDB payload (18070 bytes, diskless)", "RDB payload (5 bytes)"];
  for (const i of items) assert.equal(itemText(i), i);
  await setLanguage("zh-CN");
  try {
    assert.deepEqual(items.map(itemText), ["（保活换行符）", "（12 字节）", "RDB 数据（18070 字节，无盘复制）", "RDB 数据（5 字节）"]);
    for (const i of ["SET k v PXAT 1735689600000", "+OK", '"(keep-alive newline)"', "RDB payload"]) assert.equal(itemText(i), i);
  } finally {
    await setLanguage("en");
  }
});
