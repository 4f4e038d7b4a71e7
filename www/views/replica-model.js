// @ts-check
// The persistence view's replica lane, decided (pure): from the engine's replication snapshot
// (src/session/servers.rs `replication`: both servers' side and the network between them) the
// lines the lane shows — each server's role, keys and the keys past their deadline it still
// holds, the link's state, and the chunks on the wire (in flight, arrived, lost) with what
// they carry. replica-lane.js draws it.

import { t } from "../i18n.js";

/** @typedef {import("../types/snapshots").ReplicationSnapshot} ReplicationSnapshot */
/** @typedef {import("../types/snapshots").ReplicationSide} ReplicationSide */
/** @typedef {import("../types/snapshots").LinkChunk} LinkChunk */

/** Chunks the lane lists (newest first). */
export const CHUNKS_SHOWN = 24;

/** Latencies offered, one way, in virtual ms: same host, same data centre, cross-region, far. */
export const LATENCY_PRESETS = Object.freeze([{ ms: 0 }, { ms: 1 }, { ms: 80 }, { ms: 1000 }]);

/**
 * A latency as the select shows it: a preset with what it stands for, another as "N ms".
 * @param {number} ms
 */
export function latencyLabel(ms) {
  switch (ms) {
    case 0:
      return t("0 ms (same host)");
    case 1:
      return t("1 ms (same data centre)");
    case 80:
      return t("80 ms (cross-region)");
    case 1000:
      return t("1 s (a slow link)");
    default:
      return `${ms} ms`;
  }
}

const PORTS = [6379, 6380];

/** "1 key", "3 keys". @param {number} n */
const keyCount = (n) => (n === 1 ? t("{n} key", { n }) : t("{n} keys", { n }));

/**
 * One server's line: `127.0.0.1:6380 — replica of 127.0.0.1:6379 (link connected) · 4 keys, 2
 * past their deadline, kept until the master's DEL`.
 * @param {ReplicationSide} side
 * @param {number} index  0 or 1
 */
export function serverLine(side, index) {
  const who = `127.0.0.1:${PORTS[index]}`;
  const role =
    side.role === "slave"
      ? t("replica of {master} (link {link})", { master: side.master ?? "?", link: side.link ?? "?" })
      : side.replicas.length > 0
        ? t("master of {replicas}", { replicas: side.replicas.map((r) => `127.0.0.1:${r.port} (${r.state})`).join(", ") })
        : t("master");
  const vars = { keys: keyCount(side.keys), n: side.expiredNotReclaimed };
  const keys =
    side.expiredNotReclaimed > 0
      ? side.role === "slave"
        ? t("{keys}, {n} past their deadline — kept until the master's DEL arrives", vars)
        : t("{keys}, {n} past their deadline, not reclaimed yet", vars)
      : vars.keys;
  return `${who} — ${role} · ${keys} · used_memory ${side.usedMemory} B`;
}

/**
 * The keys a server holds past their deadline, named: `flash:1 (dead 0.95 s), db2 x (dead 3 s)
 * and 4 more`, or "" when there are none.
 * @param {ReplicationSide} side
 */
export function staleKeysText(side) {
  if (side.expiredKeys.length === 0) return "";
  const named = side.expiredKeys.map((k) => {
    const ago = Math.max(0, side.nowMs - k.expireAtMs) / 1000;
    return t("{key} (dead {s} s)", { key: `${k.db === 0 ? "" : `db${k.db} `}${k.key}`, s: ago < 10 ? ago.toFixed(2) : Math.round(ago) });
  });
  const rest = side.expiredNotReclaimed - side.expiredKeys.length;
  const keys = named.join(", ");
  return rest > 0 ? t("Past their deadline, still there: {keys} and {more} more", { keys, more: rest }) : t("Past their deadline, still there: {keys}", { keys });
}

/**
 * The offsets line: how far the replica has applied the master's stream.
 * @param {ReplicationSnapshot} snap
 * @returns {string}
 */
export function offsetsLine(snap) {
  const master = snap.servers.find((s) => s.role === "master" && s.replicas.length > 0);
  const replica = snap.servers.find((s) => s.role === "slave");
  if (!replica) return "";
  const applied = replica.replicaOffset ?? 0;
  if (!master) return t("The replica applied the stream up to offset {n}.", { n: applied });
  const behind = master.replOffset - applied;
  const vars = {
    master: master.replOffset,
    applied,
    behind: behind === 1 ? t("{n} byte", { n: behind }) : t("{n} bytes", { n: behind }),
    full: master.syncFull,
    partial: master.syncPartialOk,
  };
  return behind > 0
    ? t("Master offset {master}, replica applied {applied} — {behind} behind. Full syncs {full}, partial resyncs {partial}.", vars)
    : t("Master offset {master}, replica applied {applied} — in step. Full syncs {full}, partial resyncs {partial}.", vars);
}

/**
 * The link's state in words.
 * @param {ReplicationSnapshot} snap
 */
export function linkLine(snap) {
  const n = snap.network;
  const state = n.down ? t("cut") : n.connections.length > 0 ? t("up") : t("idle (no replica connected)");
  return t("Link {state} · latency {ms} ms each way · {to} B to the replica, {back} B back", {
    state,
    ms: n.latencyMs,
    to: n.bytesToReplica,
    back: n.bytesToMaster,
  });
}

/**
 * One item of a chunk in the page's language: the engine (src/replication/link.rs) describes what
 * is not a command or a reply in English words — a keep-alive newline, a payload by its size;
 * commands and replies are shown as they are.
 * @param {string} item
 */
export function itemText(item) {
  if (item === "(keep-alive newline)") return t("(keep-alive newline)");
  let m = /^\((\d+) bytes\)$/.exec(item);
  if (m) return t("({n} bytes)", { n: m[1] });
  m = /^RDB payload \((\d+) bytes, diskless\)$/.exec(item);
  if (m) return t("RDB payload ({n} bytes, diskless)", { n: m[1] });
  m = /^RDB payload \((\d+) bytes\)$/.exec(item);
  if (m) return t("RDB payload ({n} bytes)", { n: m[1] });
  return item;
}

/**
 * A row: one chunk, or a run of chunks alike (the same text, way and fate one after another —
 * the keep-alive newlines a master sends each second while a replica waits for its RDB, the
 * replica's REPLCONF ACK every second), counted; `sent` is the newest one's.
 * @typedef {{id: number, arrow: string, fate: string, sent: number, arrives: number, bytes: number, text: string, count: number}} ChunkRow
 */

/**
 * The chunks newest first, runs of alike ones folded, at most CHUNKS_SHOWN rows.
 * @param {ReplicationSnapshot} snap
 * @returns {ChunkRow[]}
 */
export function chunkRows(snap) {
  /** @type {ChunkRow[]} */
  const rows = [];
  const chunks = snap.network.chunks;
  for (let i = chunks.length - 1; i >= 0 && rows.length < CHUNKS_SHOWN; i -= 1) {
    const c = chunks[i];
    const row = {
      id: c.id,
      arrow: `${PORTS[1 - c.to]} → ${PORTS[c.to]}`,
      fate: c.fate,
      sent: c.sentMs,
      arrives: c.deliverMs,
      bytes: c.bytes,
      text: c.items.map(itemText).join(" · ") + (c.more > 0 ? ` · ${c.more === 1 ? t("… {n} more item", { n: c.more }) : t("… {n} more items", { n: c.more })}` : ""),
      count: 1,
    };
    const last = rows[rows.length - 1];
    if (last && last.text === row.text && last.arrow === row.arrow && last.fate === row.fate) {
      last.count += 1;
      last.bytes += row.bytes;
    } else {
      rows.push(row);
    }
  }
  return rows;
}

/**
 * Whether anything is worth a lane: a second server exists.
 * @param {ReplicationSnapshot | null} snap
 */
export function hasLane(snap) {
  return snap !== null && snap.servers.length > 1;
}
