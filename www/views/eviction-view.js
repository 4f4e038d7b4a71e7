// The eviction view: why eviction picked its victim.
//
// With maxmemory set, Redis evicts before every command while used_memory is above the limit
// (src/evict.rs, evict.c performEvictions). This view shows that from the engine's own reports,
// never re-running the algorithm in JavaScript:
//   - used_memory against maxmemory (INFO memory), with controls for maxmemory, the policy and
//     maxmemory-samples (CONFIG SET, echoed in the console);
//   - for each eviction (the `eviction` event): the keys sampled with their scores, the 16 pool
//     slots before and after (best on the right, the ghosts skipped marked), the victim and the
//     bytes it freed — stepping back through the last MAX_KEPT (eviction-pool.js);
//   - the OOM state when nothing may be evicted (noeviction, or volatile-* without a key with
//     a TTL), with the refused command;
//   - a workload generator (www/workload.js, driven by the loop in virtual time) and the hit
//     ratio of its runs over their requests, several runs overlaid; "compare policies" runs the
//     same workload on a fresh engine per policy (eviction-charts.js);
//   - the LRU-approximation figure: true LRU against maxmemory-samples 5, 10 and a value of the
//     user's, per tenth of the keys by age (the engine's lru_experiment).
//
// Like every view it gets events from the loop and reads through main.js's `actions`; INFO is
// read only when something changed and, while the clock plays, at most every PLAYING_EVERY_MS,
// as are the heavier redraws. Hidden, it keeps the events and draws nothing.

import { formatClock } from "./clock-view.js";
import { readReport, formatBytes } from "./eviction-report.js";
import { renderEviction } from "./eviction-pool.js";
import { createMemoryControls, createWorkloadControls } from "./eviction-controls.js";
import { createHitRatioChart, renderComparison, RUN_COLORS, pct } from "./eviction-charts.js";
import { createLruFigure } from "./eviction-lru-figure.js";
import { describeSpec, hitRatio, POLICIES } from "../workload.js";

/** Evictions kept for stepping back. */
export const MAX_KEPT = 256;
/** Workload runs kept on the hit-ratio chart. */
export const MAX_RUNS = 6;
/** While the clock plays: INFO reads and the heavy redraws at most this often (real ms). */
export const PLAYING_EVERY_MS = 250;

/** Commands the views issue to read state: they change nothing the view shows. */
const READ_ONLY = new Set(["info", "config|get", "object|freq", "object|idletime", "dbsize", "memory|usage"]);

const number = (n) => Number(n).toLocaleString("en-US");
const timeOf = (ms) => formatClock(ms).slice(11, 23);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function section(id, title, className = "") {
  const box = el("section", `ev-section ${className}`.trim());
  box.id = id;
  const head = el("div", "expiry-subhead");
  const h = el("h3", "expiry-subtitle", title);
  head.append(h);
  box.append(head);
  return { box, head };
}

/**
 * @param {HTMLElement} root
 * @param {object} deps
 * @param {{get(): object}} deps.store
 * @param {object} deps.actions  from main.js: configGet, configSet, info, run, note, workload
 *        ({start, stop, status, compare, cancelCompare, forget}), lruExperiment, seed, startMs
 * @param {() => void} deps.invalidate  asks the loop for a frame
 * @param {() => number} [deps.now]     real time in ms
 */
export function createEvictionView(root, { store, actions, invalidate, now = () => performance.now() }) {
  root.replaceChildren();
  root.classList.add("eviction-view");

  // -------------------------------------------------------------------------------------------
  // DOM
  // -------------------------------------------------------------------------------------------

  const head = el("header", "panel-head");
  const summary = el("span", "expiry-summary");
  summary.id = "eviction-summary";
  head.append(el("h2", "panel-title", "Eviction"), summary);

  const gauge = el("div", "ev-gauge");
  gauge.id = "eviction-gauge";
  const gaugeBar = el("div", "ev-gauge-bar");
  const gaugeFill = el("div", "ev-gauge-fill");
  const gaugeLimit = el("div", "ev-gauge-limit");
  gaugeBar.append(gaugeFill, gaugeLimit);
  const gaugeText = el("p", "ev-gauge-text");
  gaugeText.id = "eviction-gauge-text";
  gauge.append(gaugeBar, gaugeText);

  const controlsBox = el("div", "expiry-controls");
  controlsBox.id = "eviction-controls";

  const callouts = el("div", "ev-callouts");
  const oomBox = el("div", "ev-oom");
  oomBox.id = "eviction-oom";
  oomBox.setAttribute("role", "status");
  oomBox.hidden = true;
  const lostBox = el("p", "ev-lost");
  lostBox.id = "eviction-lost";
  lostBox.hidden = true;
  callouts.append(oomBox, lostBox);

  const detailSec = section("eviction-why", "Why this victim");
  const nav = el("div", "ev-nav");
  const older = el("button", "btn btn-small", "◀ older");
  older.type = "button";
  older.id = "eviction-older";
  const newer = el("button", "btn btn-small", "newer ▶");
  newer.type = "button";
  newer.id = "eviction-newer";
  const latest = el("button", "btn btn-small", "latest");
  latest.type = "button";
  latest.id = "eviction-latest";
  const navText = el("span", "ev-nav-text");
  navText.id = "eviction-nav-text";
  nav.append(older, newer, latest, navText);
  detailSec.head.append(nav);
  const detail = el("div", "ev-detail");
  detail.id = "eviction-detail";
  detail.setAttribute("aria-live", "polite");
  detailSec.box.append(detail);

  const workloadSec = section("eviction-workload-section", "Workload: a cache in front of a slow store (GET; SET on a miss)");
  const workloadBox = el("div", "expiry-controls");
  const runText = el("p", "ev-run-text");
  runText.id = "eviction-run-text";
  const ratioHead = el("div", "expiry-subhead");
  const clearRuns = el("button", "btn btn-small btn-quiet", "Clear");
  clearRuns.type = "button";
  clearRuns.id = "eviction-ratio-clear";
  ratioHead.append(el("span", "expiry-subtitle", "Hit ratio over the run (keyspace_hits / (hits + misses), last 1,000 requests)"), clearRuns);
  const ratioBox = el("div", "ev-ratio");
  ratioBox.id = "eviction-ratio";
  workloadSec.box.append(workloadBox, runText, ratioHead, ratioBox);

  const compareSec = section("eviction-compare-section", "Compare policies: the same workload and seed, a fresh engine each");
  const compareText = el("p", "expiry-caption");
  compareText.id = "eviction-compare-text";
  const progress = el("progress", "ev-progress");
  progress.id = "eviction-compare-progress";
  progress.max = 1;
  progress.value = 0;
  progress.hidden = true;
  const compareList = el("ol", "ev-cmp-list");
  compareList.id = "eviction-compare";
  const compareCaption = el("p", "expiry-caption");
  compareCaption.id = "eviction-compare-caption";
  compareSec.box.append(compareText, progress, compareList, compareCaption);

  const lruSec = section("eviction-lru-section", "How good is approximated LRU? (the Redis docs' experiment)");

  root.append(head, gauge, controlsBox, callouts, detailSec.box, workloadSec.box, compareSec.box, lruSec.box);

  // -------------------------------------------------------------------------------------------
  // State
  // -------------------------------------------------------------------------------------------

  let visible = false;
  let playing = false;
  let everVisible = false;
  const config = { maxmemory: null, policy: null, samples: null };
  let memory = null; // {used, maxmemory, policy, keys, expires, evicted}
  let memStale = true;
  let memReadAt = -Infinity;
  let memReads = 0;

  const kept = []; // the last MAX_KEPT eviction events, oldest first
  let seen = 0; // eviction events seen since the start
  let selected = null; // absolute number (1-based) of the eviction shown, or null: the latest
  let shownKey = ""; // what the detail panel shows, to redraw only on a change
  let seq = 0; // orders evictions and OOM refusals
  let lastEvictionSeq = 0;
  let oom = null; // {seq, at, command, text, from}
  let oomSeenFromRun = 0;
  let unreadableSeen = 0;

  let runs = []; // {id, label, color, samples, requests, total, done, oom, current}
  let runStatus = null;
  let compareStatus = null;
  let compareSeenResults = -1;

  const dirty = { head: true, gauge: true, controls: true, callouts: true, detail: true, workload: true, ratio: true, compare: true, lru: true };
  const drawnAt = { detail: -Infinity, ratio: -Infinity, gauge: -Infinity, compare: -Infinity };
  let plan = new Set();
  let pending = false;
  let draws = 0;

  function touch(part) {
    dirty[part] = true;
    invalidate();
  }

  // -------------------------------------------------------------------------------------------
  // Controls
  // -------------------------------------------------------------------------------------------

  const memoryControls = createMemoryControls(controlsBox, {
    config(name, value) {
      const r = actions.configSet(name, value);
      if (r.ok) memoryControls.say(`CONFIG SET ${name} ${value} → OK`, "ok");
      else memoryControls.say(`CONFIG SET ${name} ${value} → ${r.text.trim()}`, "error");
      readConfig();
      memStale = true;
      touch("controls");
    },
    suggest() {
      if (!memory) return null;
      return `${Math.ceil((memory.used + 600 * 1024) / 1024)}kb`;
    },
  });

  const workloadControls = createWorkloadControls(workloadBox, {
    start(spec) {
      if (spec.flush) actions.run(["FLUSHALL"]);
      const label = `${config.policy ?? "?"} · ${describeSpec(spec)}`;
      const run = actions.workload.start(spec, { label });
      actions.note(
        `(eviction view) workload ${label}: ${spec.requests > 0 ? number(spec.requests) : "unlimited"} requests — GET key, and SET key on a miss — from ${timeOf(run.startMs)} virtual time.`,
      );
      const max = Number(config.maxmemory);
      workloadControls.say(
        max > 0
          ? "Started. Requests run as virtual time passes: if the clock is paused, press Play or step."
          : "Started — but maxmemory is 0 (no limit): the cache never fills and nothing is evicted. Set maxmemory above.",
        max > 0 ? "ok" : "error",
      );
      touch("workload");
    },
    stop() {
      actions.workload.stop();
      touch("workload");
    },
    compare(spec) {
      const maxmemory = Number(config.maxmemory);
      if (!(maxmemory > 0)) {
        workloadControls.say("Set maxmemory first: the comparison gives every engine this page's maxmemory and samples.", "error");
        return;
      }
      const cfg = { maxmemory: String(maxmemory) };
      for (const name of ["maxmemory-samples", "maxmemory-eviction-tenacity", "lfu-log-factor", "lfu-decay-time"]) {
        const v = actions.configGet(name);
        if (v !== null) cfg[name] = v;
      }
      actions.workload.compare({ spec, config: cfg });
      compareSeenResults = -1;
      actions.note(
        `(eviction view) compare policies: ${describeSpec(spec)}, ${number(spec.requests > 0 ? spec.requests : 20_000)} requests, on a fresh engine per policy with maxmemory ${number(maxmemory)} and samples ${cfg["maxmemory-samples"]}.`,
      );
      touch("compare");
    },
    cancelCompare() {
      actions.workload.cancelCompare();
      touch("compare");
    },
  });

  function readConfig() {
    const mm = actions.configGet("maxmemory");
    const p = actions.configGet("maxmemory-policy");
    const s = actions.configGet("maxmemory-samples");
    if (mm !== null) config.maxmemory = mm;
    if (p !== null) config.policy = p;
    if (s !== null) config.samples = s;
    dirty.controls = dirty.head = dirty.gauge = true;
  }

  older.addEventListener("click", () => {
    const first = seen - kept.length + 1;
    const cur = selected ?? seen;
    selected = Math.max(first, cur - 1);
    touch("detail");
  });
  newer.addEventListener("click", () => {
    if (selected === null) return;
    selected = selected + 1 >= seen ? null : selected + 1;
    touch("detail");
  });
  latest.addEventListener("click", () => {
    selected = null;
    touch("detail");
  });
  clearRuns.addEventListener("click", () => {
    runs = runs.filter((r) => r.current && !r.done);
    touch("ratio");
  });

  const lruFigure = createLruFigure(lruSec.box, {
    lruExperiment: actions.lruExperiment,
    now,
    done: () => touch("lru"),
  });

  // -------------------------------------------------------------------------------------------
  // Reading the engine
  // -------------------------------------------------------------------------------------------

  function readMemory() {
    const info = actions.info("memory stats keyspace");
    let keys = 0;
    let expires = 0;
    for (const [field, value] of Object.entries(info)) {
      if (!/^db\d+$/.test(field)) continue;
      const m = /keys=(\d+),expires=(\d+)/.exec(value);
      if (m) {
        keys += Number(m[1]);
        expires += Number(m[2]);
      }
    }
    memory = {
      used: Number(info.used_memory) || 0,
      maxmemory: Number(info.maxmemory) || 0,
      policy: info.maxmemory_policy ?? config.policy,
      keys,
      expires,
      evicted: Number(info.evicted_keys) || 0,
      hits: Number(info.keyspace_hits) || 0,
      misses: Number(info.keyspace_misses) || 0,
    };
    memStale = false;
    memReadAt = now();
    memReads += 1;
    dirty.gauge = dirty.head = dirty.callouts = true;
    if (kept.length === 0) dirty.detail = true;
  }

  function useRunMemory(m) {
    if (!m || (memory && memory.fromRun === m)) return;
    memory = { ...m, fromRun: m };
    dirty.gauge = dirty.head = dirty.callouts = true;
  }

  /** A reply seen by the console or the workload: an OOM refusal puts the view in the OOM state. */
  function noteOom(text, command, from, at) {
    seq += 1;
    oom = { seq, at, command, text, from };
    memStale = true;
    dirty.callouts = dirty.detail = dirty.head = true;
  }

  function followRuns(status) {
    runStatus = status.run;
    if (runStatus) {
      let entry = runs.find((r) => r.id === runStatus.id);
      if (!entry) {
        for (const r of runs) r.current = false;
        entry = { id: runStatus.id, label: runStatus.label, color: RUN_COLORS[(runStatus.id - 1) % RUN_COLORS.length], current: true };
        runs.push(entry);
        if (runs.length > MAX_RUNS) runs.shift();
        oomSeenFromRun = 0;
      }
      const changed = entry.requests !== runStatus.requests || entry.done !== runStatus.done;
      Object.assign(entry, {
        rate: runStatus.spec.rate,
        samples: runStatus.samples,
        requests: runStatus.requests,
        total: runStatus.total,
        done: runStatus.done,
        oom: runStatus.counts.oom,
      });
      if (runStatus.counts.oom > oomSeenFromRun) {
        oomSeenFromRun = runStatus.counts.oom;
        noteOom(runStatus.lastError, "SET (the workload)", "workload", store.get().clock.now);
      }
      if (changed) dirty.ratio = dirty.workload = true;
    }
    const cmp = status.compare;
    if (cmp && (cmp.running || cmp.results.length !== compareSeenResults || compareStatus?.running !== cmp.running)) dirty.compare = true;
    compareStatus = cmp;
  }

  // -------------------------------------------------------------------------------------------
  // Drawing
  // -------------------------------------------------------------------------------------------

  function policyNow() {
    return config.policy ?? memory?.policy ?? "noeviction";
  }

  function inOom() {
    return oom !== null && oom.seq > lastEvictionSeq && memory !== null && memory.maxmemory > 0 && memory.used > memory.maxmemory;
  }

  function drawHead() {
    const parts = [policyNow(), `samples ${config.samples ?? "?"}`, `${number(seen)} eviction${seen === 1 ? "" : "s"} seen`];
    if (memory && !memory.fromRun) parts.push(`evicted_keys ${number(memory.evicted)}`);
    if (inOom()) parts.push("OOM");
    summary.textContent = parts.join(" · ");
  }

  function drawGauge() {
    root.dataset.used = memory ? String(memory.used) : "";
    root.dataset.maxmemory = memory ? String(memory.maxmemory) : "";
    if (!memory) {
      gaugeText.textContent = "";
      return;
    }
    const { used, maxmemory } = memory;
    const over = maxmemory > 0 && used > maxmemory;
    gauge.classList.toggle("is-over", over);
    gauge.classList.toggle("is-unlimited", maxmemory === 0);
    if (maxmemory === 0) {
      gaugeFill.style.width = "100%";
      gaugeLimit.hidden = true;
      gaugeText.textContent = `used_memory ${formatBytes(used)} (${number(used)} B) · maxmemory 0: no limit, so nothing is ever evicted. Set a limit to see eviction.`;
    } else {
      // The bar spans 0..max(used, maxmemory)×1.1 so the limit line and an overshoot both show.
      const span = Math.max(used, maxmemory) * 1.08;
      gaugeFill.style.width = `${((used / span) * 100).toFixed(2)}%`;
      gaugeLimit.hidden = false;
      gaugeLimit.style.left = `${((maxmemory / span) * 100).toFixed(2)}%`;
      const share = ((used / maxmemory) * 100).toFixed(1);
      gaugeText.textContent =
        `used_memory ${formatBytes(used)} of maxmemory ${formatBytes(maxmemory)} (${share}%) · ${number(memory.keys)} keys, ${number(memory.expires)} with a TTL` +
        (over ? ` · over the limit by ${number(used - maxmemory)} B` : "") +
        (memory.fromRun ? " · as the workload last read INFO (every 250 requests)" : "");
    }
    memoryControls.setValues({
      maxmemory: config.maxmemory ?? String(maxmemory),
      suggestion: maxmemory === 0 ? `${Math.ceil((used + 600 * 1024) / 1024)}kb` : "",
    });
  }

  function drawControls() {
    memoryControls.setValues({ maxmemory: config.maxmemory ?? undefined, policy: config.policy ?? undefined, samples: config.samples ?? undefined });
  }

  function drawCallouts() {
    const on = inOom();
    oomBox.hidden = !on;
    root.dataset.oom = String(on);
    if (on) {
      const p = policyNow();
      const why =
        p === "noeviction"
          ? "The policy is noeviction: Redis never evicts."
          : p.startsWith("volatile")
            ? memory.expires === 0
              ? `${p} evicts only keys with a TTL, and no key has one (INFO keyspace: expires=0), so there is nothing it may evict.`
              : `${p} evicts only keys with a TTL, and none could be evicted.`
            : "Nothing could be evicted.";
      oomBox.replaceChildren(
        el("strong", "ev-oom-title", "OOM: commands that may grow memory are refused"),
        el(
          "span",
          "ev-oom-text",
          ` used_memory ${number(memory.used)} B > maxmemory ${number(memory.maxmemory)} B. ${why} SET, LPUSH, INCR… get the error below; ` +
            "GET, DEL, EXPIRE and other reads or deletions still run.",
        ),
        el("code", "ev-oom-error", `(error) ${oom.text}`),
        el("span", "ev-oom-from", ` — last refused: ${oom.command} (${oom.from}) at ${timeOf(oom.at)}`),
      );
      oomBox.dataset.policy = p;
    }
    const lost = store.get().clock.unreadableDrains ?? 0;
    lostBox.hidden = lost === 0;
    root.dataset.lost = String(lost);
    if (lost > 0) {
      lostBox.textContent =
        `The engine's events could not be read ${number(lost)}× (its event serializer refused a value — under volatile-ttl the ` +
        "scores are ULLONG_MAX − the expire time, above what a JavaScript number holds exactly). Evictions did happen " +
        `(evicted_keys ${memory ? number(memory.evicted) : "?"}), but their reports are lost. This is a bug in redisplay.`;
    }
  }

  function drawDetail() {
    const first = seen - kept.length + 1;
    const n = selected ?? seen;
    older.disabled = kept.length === 0 || n <= first;
    newer.disabled = selected === null;
    latest.disabled = selected === null;
    root.dataset.evictions = String(seen);
    root.dataset.shown = kept.length === 0 ? "" : String(n);
    if (kept.length === 0) {
      navText.textContent = "";
      const oomNow = inOom();
      const key = `none:${memory?.maxmemory ?? ""}:${policyNow()}:${oomNow}`;
      if (shownKey === key) return;
      shownKey = key;
      const text = oomNow
        ? `No eviction: ${policyNow()} can evict nothing here (see above), so Redis refuses commands that may grow memory instead.`
        : memory && memory.maxmemory === 0
          ? "No eviction yet: maxmemory is 0. Set maxmemory (try the suggestion above), then add keys — the workload below does it, or SET in the console."
          : `No eviction yet. Keys are evicted before a command runs while used_memory is above maxmemory; with ${policyNow()}, fill the memory with the workload below or SET in the console.`;
      detail.replaceChildren(el("p", "ev-empty", text));
      return;
    }
    const event = kept[n - first];
    navText.textContent = `eviction ${number(n)} of ${number(seen)}${selected === null ? " (latest)" : ""}${seen > kept.length ? ` · the last ${number(kept.length)} are kept` : ""}`;
    const key = `${n}:${config.samples}`;
    if (shownKey === key) return;
    shownKey = key;
    // Announce an eviction to screen readers when stepped or paused, not four times a second.
    detail.setAttribute("aria-live", playing ? "off" : "polite");
    renderEviction(detail, readReport(event), { samplesConfig: config.samples, formatTime: timeOf });
  }

  let runEnded = null; // the id of the last run whose end the message followed

  function drawWorkload() {
    const st = runStatus;
    if (st && st.done && runEnded !== st.id) {
      runEnded = st.id;
      workloadControls.say("", "info");
    }
    const cmpRunning = compareStatus?.running ?? false;
    workloadControls.setRunning({ live: Boolean(st && !st.done), comparing: cmpRunning });
    if (!st) {
      runText.textContent = "Not running. Start sends GET key for each request and SET key on a miss, so the cache fills up to maxmemory and then evicts.";
      root.dataset.runRequests = "";
      return;
    }
    const ratio = hitRatio(st.samples);
    const c = st.counts;
    const state = st.done ? (st.stopped ? "stopped" : "done") : store.get().paused ? "waiting for the clock (paused)" : "running";
    runText.textContent =
      `${st.label}: ${number(st.requests)}${st.total > 0 ? ` of ${number(st.total)}` : ""} requests, ${state} · hit ratio ${pct(ratio)} ` +
      `(INFO: ${number(st.info.hits)} hits, ${number(st.info.misses)} misses) · ${number(st.info.evicted)} evicted` +
      (c.oom > 0 ? ` · ${number(c.oom)} SETs refused (OOM)` : "");
    root.dataset.runRequests = String(st.requests);
    root.dataset.runStart = String(st.startMs);
    root.dataset.runDone = String(st.done);
    root.dataset.runRatio = ratio === null ? "" : String(ratio);
    root.dataset.runHits = String(st.info.hits);
    root.dataset.runMisses = String(st.info.misses);
  }

  const ratioChart = createHitRatioChart(ratioBox, () => touch("ratio"));

  function drawRatio() {
    ratioChart.draw(runs);
  }

  function drawCompare() {
    const st = compareStatus;
    workloadControls.setRunning({ live: Boolean(runStatus && !runStatus.done), comparing: st?.running ?? false });
    if (!st) {
      compareText.textContent =
        "Runs the workload above (its requests, 20,000 if unlimited) once per policy, each on a fresh engine with this page's seed, maxmemory and samples — the same requests at the same virtual times.";
      compareList.replaceChildren();
      compareCaption.textContent = "";
      progress.hidden = true;
      return;
    }
    compareSeenResults = st.results.length;
    progress.hidden = !st.running;
    progress.value = st.progress;
    compareSec.box.dataset.running = String(st.running);
    compareSec.box.dataset.done = String(!st.running && !st.failed && st.results.length === POLICIES.length);
    const head = `${describeSpec(st.spec)}, ${number(st.spec.requests)} requests, maxmemory ${number(st.config.maxmemory)}, samples ${st.config["maxmemory-samples"] ?? "5"}`;
    compareText.textContent = st.failed
      ? `${head}: ${st.failed === "cancelled" ? "cancelled" : `failed: ${st.failed}`}.`
      : st.running
        ? `${head}: running ${st.policy ?? ""} (${Math.round(st.progress * 100)}%)…`
        : `${head}. Hit ratio over the whole run; "last quarter" is the steady state once the cache is warm.`;
    renderComparison(compareList, { ...st, policiesOrder: POLICIES }, compareCaption);
  }

  function drawLru() {
    lruFigure.draw();
  }

  const DRAWERS = {
    head: drawHead,
    gauge: drawGauge,
    controls: drawControls,
    callouts: drawCallouts,
    detail: drawDetail,
    workload: drawWorkload,
    ratio: drawRatio,
    compare: drawCompare,
    lru: drawLru,
  };
  const THROTTLED = new Set(["detail", "ratio", "gauge"]);

  function planFrame() {
    const next = new Set();
    const t = now();
    const comparing = compareStatus?.running ?? false;
    for (const part of Object.keys(dirty)) {
      if (!dirty[part]) continue;
      if (playing && THROTTLED.has(part) && t - drawnAt[part] < PLAYING_EVERY_MS) continue;
      if (part === "compare" && comparing && t - drawnAt.compare < PLAYING_EVERY_MS) continue;
      next.add(part);
    }
    pending = Object.keys(dirty).some((part) => dirty[part] && !next.has(part)) || (memStale && visible);
    return next;
  }

  // -------------------------------------------------------------------------------------------
  // The view's API
  // -------------------------------------------------------------------------------------------

  return {
    update(events, state) {
      const wasVisible = visible;
      visible = state.panelView === "eviction";
      playing = !state.paused;
      for (const e of events) {
        switch (e.kind) {
          case "eviction":
            kept.push(e);
            if (kept.length > MAX_KEPT) kept.shift();
            seen += 1;
            seq += 1;
            lastEvictionSeq = seq;
            dirty.detail = dirty.head = dirty.callouts = true;
            memStale = true;
            break;
          case "command":
            if (!READ_ONLY.has(e.name)) memStale = true;
            break;
          case "keyspace":
            memStale = true;
            break;
          case "config":
            if (e.name === "maxmemory") config.maxmemory = e.value;
            else if (e.name === "maxmemory-policy") config.policy = e.value;
            else if (e.name === "maxmemory-samples") config.samples = e.value;
            else break;
            memStale = true;
            dirty.controls = dirty.head = dirty.gauge = dirty.callouts = true;
            break;
          default:
            break;
        }
      }
      if (selected !== null && selected <= seen - kept.length) selected = seen - kept.length + 1;
      const lost = state.clock.unreadableDrains ?? 0;
      if (lost !== unreadableSeen) {
        unreadableSeen = lost;
        dirty.callouts = true;
        memStale = true;
      }
      followRuns(actions.workload.status());
      plan = new Set();
      pending = false;
      if (visible) {
        if (!wasVisible) {
          for (const k of Object.keys(dirty)) dirty[k] = true;
          shownKey = "";
          if (!everVisible) {
            everVisible = true;
            lruFigure.run();
          }
        }
        // While a run is live its own INFO readings stand in for ours (see workload.js).
        if (runStatus && !runStatus.done) useRunMemory(runStatus.memory);
        else if (memStale && (!playing || now() - memReadAt >= PLAYING_EVERY_MS)) readMemory();
        plan = planFrame();
      }
      return visible && plan.size > 0;
    },

    draw() {
      if (!visible) return;
      draws += 1;
      if (plan.size === 0) plan = planFrame();
      const t = now();
      for (const part of ["gauge", "head", "controls", "callouts", "detail", "workload", "ratio", "compare", "lru"]) {
        if (!plan.has(part)) continue;
        dirty[part] = false;
        if (part in drawnAt) drawnAt[part] = t;
        DRAWERS[part]();
      }
      plan = new Set();
      root.dataset.draws = String(draws);
      root.dataset.memReads = String(memReads);
    },

    /** A throttled part waits for its turn, or memory must be read again. */
    animating() {
      return visible && pending;
    },

    /** A console reply: an OOM error puts the view in the OOM state. */
    noteReply(reply, line) {
      if (reply?.type === "error" && String(reply.value).startsWith("OOM ")) {
        noteOom(String(reply.value), line.trim().split(/\s+/).slice(0, 2).join(" "), "console", store.get().clock.now);
        invalidate();
      } else if (reply) {
        memStale = true;
      }
    },

    /** Start over (after an engine reset or recovery). */
    refresh() {
      kept.length = 0;
      seen = 0;
      selected = null;
      shownKey = "";
      oom = null;
      memory = null;
      memStale = true;
      actions.workload.forget();
      runStatus = null;
      for (const r of runs) r.current = false;
      memoryControls.forget();
      readConfig();
      for (const k of Object.keys(dirty)) dirty[k] = true;
      invalidate();
    },

    /** What the view shows, as data (tests, devtools). */
    debug() {
      return { seen, kept: kept.length, selected, config: { ...config }, memory, oom, runs: runs.length, lruResults: lruFigure.results() };
    },

    /** Reads the engine's config (once the engine is up). */
    start() {
      readConfig();
      invalidate();
    },
  };
}
