// @ts-check
// The persistence view's replica lane, decided (pure): from the engine's replication snapshot
// (src/session/servers.rs `replication`: both servers' side and the network between them) the
// lines the lane shows — each server's role, keys and the keys past their deadline it still
// holds, the link's state, and the chunks on the wire (in flight, arrived, lost) with what
// they carry. replica-lane.js draws it.

/** @typedef {import("../types/snapshots").ReplicationSnapshot} ReplicationSnapshot */
/** @typedef {import("../types/snapshots").ReplicationSide} ReplicationSide */
/** @typedef {import("../types/snapshots").LinkChunk} LinkChunk */

/** Chunks the lane lists (newest first). */
export const CHUNKS_SHOWN = 24;

/** Latencies offered, one way, in virtual ms: same host, same data centre, cross-region, far. */
export const LATENCY_PRESETS = Object.freeze([
  { ms: 0, label: "0 ms (same host)" },
  { ms: 1, label: "1 ms (same data centre)" },
  { ms: 80, label: "80 ms (cross-region)" },
  { ms: 1000, label: "1 s (a slow link)" },
]);

const PORTS = [6379, 6380];

/**
 * @param {number} n
 */
function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * One server's line: `127.0.0.1:6380 — replica of 127.0.0.1:6379 (link connected) · 4 keys, 2
 * past their deadline, kept until the master's DEL`.
 * @param {ReplicationSide} side
 * @param {number} index  0 or 1
 */
export function serverLine(side, index) {
  const who = `127.0.0.1:${PORTS[index]}`;
  const role = side.role === "slave" ? `replica of ${side.master ?? "?"} (link ${side.link ?? "?"})` : side.replicas.length > 0 ? `master of ${side.replicas.map((r) => `127.0.0.1:${r.port} (${r.state})`).join(", ")}` : "master";
  const stale =
    side.expiredNotReclaimed > 0
      ? side.role === "slave"
        ? `, ${side.expiredNotReclaimed} past their deadline — kept until the master's DEL arrives`
        : `, ${side.expiredNotReclaimed} past their deadline, not reclaimed yet`
      : "";
  return `${who} — ${role} · ${plural(side.keys, "key")}${stale} · used_memory ${side.usedMemory} B`;
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
    return `${k.db === 0 ? "" : `db${k.db} `}${k.key} (dead ${ago < 10 ? ago.toFixed(2) : Math.round(ago)} s)`;
  });
  const rest = side.expiredNotReclaimed - side.expiredKeys.length;
  return `Past their deadline, still there: ${named.join(", ")}${rest > 0 ? ` and ${rest} more` : ""}`;
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
  if (!master) return `The replica applied the stream up to offset ${applied}.`;
  const behind = master.replOffset - applied;
  return `Master offset ${master.replOffset}, replica applied ${applied}${behind > 0 ? ` — ${plural(behind, "byte")} behind` : " — in step"}. Full syncs ${master.syncFull}, partial resyncs ${master.syncPartialOk}.`;
}

/**
 * The link's state in words.
 * @param {ReplicationSnapshot} snap
 */
export function linkLine(snap) {
  const n = snap.network;
  const state = n.down ? "cut" : n.connections.length > 0 ? "up" : "idle (no replica connected)";
  return `Link ${state} · latency ${n.latencyMs} ms each way · ${n.bytesToReplica} B to the replica, ${n.bytesToMaster} B back`;
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
      text: c.items.join(" · ") + (c.more > 0 ? ` · … ${plural(c.more, "more item")}` : ""),
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
