// @ts-check
// The persistence view: what the server writes down. Above, the files — the RDB file and the
// AOF directory's manifest, base, incr and history files with their sizes — and the AOF's state
// (off, on, waiting for its first rewrite) and the children at work (BGSAVE, BGREWRITEAOF).
// Below, the propagation stream: every write as it goes to the AOF and to replicas, newest
// first, with where it came from — the client command (marked when Redis rewrote it: a relative
// TTL goes out as an absolute `PXAT`/`PEXPIREAT`), or, for a DEL nobody typed, the active-expiry
// round or the lazy expiry or the eviction that reclaimed the key. The view only reads events
// and the engine's persistence snapshot (through `source`); the console runs the commands.
//
// Between them, the replica lane, once the page's second server exists (+ Replica above the
// console): each server's role and keys — a replica's keys past their deadline that it keeps
// until the master's DEL arrives — the offsets, the link with its latency and a switch to cut
// it, and the chunks on the wire newest first (the handshake, the RDB payload, the command
// stream; in flight, arrived or lost with a cut).
//
// persistence-model.js and replica-model.js decide (pure); this file draws. The stream's rows are
// kept by persistence-tracker.js, which the page makes at the start (this module is imported
// when the panel is first shown).

import { el, setText } from "../dom.js";
import { t } from "../i18n.js";
import { formatTimeOfDay } from "./clock-model.js";
import * as model from "./persistence-model.js";
import * as replicaModel from "./replica-model.js";

/** @typedef {import("./engine-types.js").EngineEvent} EngineEvent */
/** @typedef {import("../types/snapshots").PersistenceSnapshot} PersistenceSnapshot */
/** @typedef {import("../types/snapshots").ReplicationSnapshot} ReplicationSnapshot */

/** How often (real ms) the file sizes are read again while something may have changed them. */
export const SNAPSHOT_REFRESH_MS = 250;
/** Rows drawn (the model keeps MAX_ROWS). */
export const ROWS_SHOWN = 60;

/**
 * The origin column's badge.
 * @param {model.Origin} origin
 */
function originLabel(origin) {
  switch (origin) {
    case "command":
      return t("client");
    case "wrapper":
      return "MULTI/EXEC";
    case "active-expiry":
      return t("active expiry");
    case "lazy-expiry":
      return t("lazy expiry");
    case "eviction":
      return t("eviction");
    default:
      return t("server");
  }
}

/**
 * What a file is (the engine's role: the manifest's file types, the RDB file).
 * @param {string} role
 */
function roleText(role) {
  switch (role) {
    case "rdb":
      return t("rdb");
    case "manifest":
      return t("manifest");
    case "base":
      return t("base");
    case "incr":
      return t("incr");
    case "history":
      return t("history");
    case "temp-incr":
      return t("temp-incr");
    default:
      return role;
  }
}

/**
 * A chunk's fate as the lane says it (the engine's word is its class).
 * @param {string} fate
 */
function fateText(fate) {
  return fate === "delivered" ? t("delivered") : fate === "lost" ? t("lost") : fate;
}

/**
 * A titled part of the view: `<section aria-label=title><h3>title</h3><p class=hint>…</p></section>`.
 * @param {string} className
 * @param {string} label  its accessible name
 * @param {string} title
 * @param {string} hintClass
 * @param {string} hint
 */
function part(className, label, title, hintClass, hint) {
  const box = el("section", className);
  box.setAttribute("aria-label", label);
  const hintEl = el("p", hintClass, hint);
  box.append(el("h3", null, title), hintEl);
  return { box, hint: hintEl };
}

/**
 * @param {HTMLElement} root
 * @param {object} deps
 * @param {{persistence(): PersistenceSnapshot | null, replication?: () => ReplicationSnapshot | null}} deps.source
 * @param {() => void} deps.invalidate
 * @param {{setLatency(ms: number): void, setDown(down: boolean): void}} [deps.link]  the link's controls
 * @param {import("./persistence-tracker.js").PersistenceTracker} deps.tracker  the stream kept from the start (persistence-tracker.js)
 * @param {() => number} [deps.now]  real time in ms (tests may pin it)
 */
export function createPersistenceView(root, { source, invalidate, link, tracker, now = () => performance.now() }) {
  root.replaceChildren();
  const head = el("div", "persistence-head");
  const title = el("h2", "panel-title", t("Persistence: the files and the propagation stream"));
  const status = el("p", "persistence-status");
  status.setAttribute("aria-live", "polite");
  head.append(title, status);

  const filesBox = el("section", "persistence-files");
  filesBox.setAttribute("aria-label", t("Files"));
  const filesTitle = el("h3", null, t("Files"));
  const dirLine = el("p", "persistence-dir");
  const filesTable = el("table", "persistence-file-table");
  const filesHead = el("thead");
  const headRow = el("tr");
  for (const h of [t("File"), t("What it is"), t("Size")]) headRow.append(el("th", null, h));
  filesHead.append(headRow);
  const filesBody = el("tbody");
  filesTable.append(filesHead, filesBody);
  filesBox.append(filesTitle, dirLine, filesTable);

  const { box: streamBox } = part(
    "persistence-stream",
    t("Propagation stream"),
    t("Propagated writes (newest first)"),
    "persistence-hint",
    t(
      "What the AOF appends and replicas receive: a relative TTL becomes an absolute PXAT/PEXPIREAT, a reclaimed key a DEL, a script or EXEC its effects inside MULTI/EXEC.",
    ),
  );
  const list = el("ol", "persistence-rows");
  list.setAttribute("reversed", "");
  const empty = el("p", "persistence-empty", t("Nothing propagated yet: run a write in the console (SET session:1 v EX 60)."));
  const more = el("p", "persistence-more");
  streamBox.append(empty, list, more);

  const { box: replicaBox, hint: replicaEmpty } = part(
    "persistence-replica",
    t("Replica"),
    t("Replica"),
    "persistence-hint replica-empty",
    t(
      "No replica yet. + Replica (above the console) opens redis-cli on the page's second server, 127.0.0.1:6380, with REPLICAOF 127.0.0.1 6379 typed: send it, and the link appears here.",
    ),
  );
  const serverList = el("ul", "replica-servers");
  const offsets = el("p", "replica-offsets");
  const linkRow = el("div", "replica-link");
  const linkText = el("span", "replica-link-state");
  const latencyLabel = el("label", "replica-latency-label", t("Latency "));
  const latency = /** @type {HTMLSelectElement} */ (el("select", "replica-latency"));
  for (const p of replicaModel.LATENCY_PRESETS) {
    const o = /** @type {HTMLOptionElement} */ (el("option", null, replicaModel.latencyLabel(p.ms)));
    o.value = String(p.ms);
    latency.append(o);
  }
  latencyLabel.append(latency);
  const cut = /** @type {HTMLButtonElement} */ (el("button", "replica-cut", t("Cut the link")));
  cut.type = "button";
  linkRow.append(linkText, latencyLabel, cut);
  const chunkTable = el("div", "replica-chunks");
  const chunkTitle = el("h4", "replica-chunks-title", t("On the link (newest first): what each chunk carries, when it left and arrives"));
  const chunkBody = el("ol", "replica-chunk-list");
  chunkTable.append(chunkTitle, chunkBody);
  const notesList = el("ul", "replica-notes");
  const replicaParts = [serverList, offsets, linkRow, chunkTable, notesList];
  replicaBox.append(...replicaParts);
  latency.addEventListener("change", () => {
    link?.setLatency(Number(latency.value));
    filesDirty = true;
    lastSnapshotAt = -Infinity;
    invalidate();
  });
  cut.addEventListener("click", () => {
    link?.setDown(cut.getAttribute("aria-pressed") !== "true");
    filesDirty = true;
    lastSnapshotAt = -Infinity;
    invalidate();
  });
  if (!link) linkRow.hidden = true;

  root.append(head, filesBox, replicaBox, streamBox);

  const tk = tracker;
  let rowsDirty = true;
  let filesDirty = true;
  let lastSnapshotAt = -Infinity;
  /** @type {PersistenceSnapshot | null} */
  let snapshot = null;
  let drawnFiles = "";
  let shown = false;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let refreshTimer = null;

  /** @type {ReplicationSnapshot | null} */
  let replication = null;
  let drawnReplica = "";

  function readSnapshot() {
    replication = source.replication?.() ?? null;
    snapshot = source.persistence();
    lastSnapshotAt = now();
    filesDirty = false;
  }

  function drawReplica() {
    const key = JSON.stringify(replication);
    if (key === drawnReplica) return;
    drawnReplica = key;
    const lane = replicaModel.hasLane(replication);
    replicaEmpty.hidden = lane;
    for (const part of replicaParts) part.hidden = !lane;
    if (!link) linkRow.hidden = true;
    root.dataset.replica = lane ? "yes" : "no";
    if (!replication || !lane) return;
    serverList.replaceChildren(...replication.servers.map((s, i) => {
      const li = el("li", `replica-server role-${s.role}`, replicaModel.serverLine(s, i));
      const stale = replicaModel.staleKeysText(s);
      if (stale) li.append(el("span", "replica-stale-keys", stale));
      li.dataset.keys = String(s.keys);
      li.dataset.stale = String(s.expiredNotReclaimed);
      return li;
    }));
    setText(offsets, replicaModel.offsetsLine(replication));
    setText(linkText, replicaModel.linkLine(replication));
    const net = replication.network;
    root.dataset.link = net.down ? "down" : "up";
    cut.setAttribute("aria-pressed", String(net.down));
    setText(cut, net.down ? t("Restore the link") : t("Cut the link"));
    if (!replicaModel.LATENCY_PRESETS.some((p) => p.ms === net.latencyMs)) {
      const o = /** @type {HTMLOptionElement} */ (el("option", null, replicaModel.latencyLabel(net.latencyMs)));
      o.value = String(net.latencyMs);
      latency.append(o);
    }
    latency.value = String(net.latencyMs);
    chunkBody.replaceChildren(
      ...replicaModel.chunkRows(replication).map((r) => {
        const li = el("li", `replica-chunk fate-${r.fate}`);
        li.dataset.id = String(r.id);
        const fate = r.fate === "in-flight" ? t("on the wire, arrives {at}", { at: formatTimeOfDay(r.arrives) }) : fateText(r.fate);
        const meta = el("div", "meta");
        meta.append(
          el("span", "at", formatTimeOfDay(r.sent)),
          el("span", "way", r.arrow),
          el("span", "bytes", `${r.bytes} B`),
          el("span", "fate", r.count > 1 ? `${fate} · ×${r.count}` : fate),
        );
        li.append(meta, el("code", "what", r.text));
        return li;
      }),
    );
    notesList.replaceChildren(...net.notes.slice(-8).map((n) => el("li", null, `${formatTimeOfDay(n.ms)} ${n.text}`)));
  }

  function drawFiles() {
    drawReplica();
    if (!snapshot) return;
    const key = JSON.stringify(snapshot);
    if (key === drawnFiles) return;
    drawnFiles = key;
    setText(status, model.statusText(snapshot));
    root.dataset.aof = snapshot.aof;
    setText(
      dirLine,
      snapshot.aof_buffer
        ? t("AOF directory: {dir} — {n} bytes buffered", { dir: snapshot.aof_dir, n: snapshot.aof_buffer })
        : t("AOF directory: {dir}", { dir: snapshot.aof_dir }),
    );
    filesBody.replaceChildren(
      ...snapshot.files.map((f) => {
        const tr = el("tr", `persistence-file role-${f.role}`);
        tr.dataset.name = f.name;
        tr.append(el("td", "name", f.name), el("td", "role", roleText(f.role)), el("td", "size", model.formatSize(f.size)));
        return tr;
      }),
    );
  }

  /** @param {model.StreamRow} row */
  function rowNode(row) {
    const li = el("li", `persistence-row origin-${row.origin}${row.rewritten ? " rewritten" : ""}`);
    li.dataset.seq = String(row.seq);
    const time = el("span", "at", formatTimeOfDay(row.at));
    const db = el("span", "db", row.db === null ? "" : `db${row.db}`);
    const cmd = el("code", "cmd", model.commandLine(row.argv));
    const badge = el("span", "origin", originLabel(row.origin));
    const why = el("span", "why", model.originText(row));
    const targets = el("span", "targets", [row.aof ? "AOF" : "", row.repl ? t("replicas") : ""].filter(Boolean).join(" + "));
    li.append(time, db, cmd, badge, why, targets);
    return li;
  }

  function drawRows() {
    const shown = tk.state.rows.slice(-ROWS_SHOWN).reverse();
    list.replaceChildren(...shown.map(rowNode));
    list.start = tk.state.total;
    empty.hidden = tk.state.total > 0;
    const hidden = tk.state.total - shown.length;
    more.hidden = hidden === 0;
    setText(more, hidden > 0 ? t("{n} older writes not shown.", { n: hidden }) : "");
    root.dataset.rows = String(tk.state.total);
  }

  return {
    /**
     * @param {readonly EngineEvent[]} events
     * @param {{panelView: string}} store
     * @returns {boolean} whether a draw is due (never while another view is shown)
     */
    update(events, store) {
      if (tk.follow(events)) rowsDirty = true;
      // Sizes change with any write (the AOF), a save, a config change, a child's progress.
      if (events.some((e) => e.kind === "propagated" || e.kind === "command" || e.kind === "config" || e.kind === "cron")) filesDirty = true;
      const visible = store.panelView === "persistence";
      const appeared = visible && !shown;
      shown = visible;
      return visible && (appeared || rowsDirty || filesDirty);
    },
    draw() {
      if (!shown) return;
      const wait = SNAPSHOT_REFRESH_MS - (now() - lastSnapshotAt);
      if (filesDirty && wait <= 0) readSnapshot();
      else if (filesDirty && refreshTimer === null) {
        // Read again once the throttle allows it, even if nothing else wakes the loop.
        refreshTimer = setTimeout(() => {
          refreshTimer = null;
          invalidate();
        }, wait);
      }
      drawFiles();
      if (rowsDirty) {
        rowsDirty = false;
        drawRows();
      }
    },
    /** Everything read again (after a reset or a restart). */
    refresh() {
      tk.restart();
      rowsDirty = true;
      filesDirty = true;
      lastSnapshotAt = -Infinity;
      invalidate();
    },
  };
}
