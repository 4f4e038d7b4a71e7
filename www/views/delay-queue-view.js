// The delay-queue lab's view (tab "Delay queue", #delay-queue): "close the order if it is
// unpaid after 30 minutes", five ways, on simulated clients in virtual time.
//
//   - the form (delay-queue-controls.js) and the player: Run, Play/Pause, Step (to the lab's
//     next event), Skip to a time, Reset, speed — the lab's own clock, shown as wall-clock time;
//   - one timeline per run (delay-queue-timeline.js: tasks by fate at their due time, a lane
//     per consumer), two stacked on one shared axis when comparing strategies, the axis zoomed
//     and panned by wheel, drag, buttons or keys and following "now" while playing;
//   - each run's metrics beside its timeline, a table per lane (the timeline in words), the
//     strategy's client code, and what happened in words (latest first).
//
// The view never calls the engine: it draws what the runner (labs/delay-queue-runner.js)
// drained from the lab and asks the runner to act. Everything from the run reaches the page
// through textContent.

import { createDelayQueueControls, DEFAULT_START_MS, formatDuration, parseDuration, PRESETS } from "./delay-queue-controls.js";
import { createRunModel, FATES } from "./delay-queue-model.js";
import { createDelayQueueTimeline, wallClock, LANE_COLORS } from "./delay-queue-timeline.js";
import { createDelayQueueMetrics } from "./delay-queue-metrics.js";
import { DQ_SPEEDS } from "../labs/delay-queue-runner.js";

/** The narrowest window the axis zooms to (virtual ms). */
export const MIN_SPAN_MS = 20;
/** Lines of "what happened" shown. */
export const LOG_SHOWN = 80;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(id, text, title, className = "btn btn-small") {
  const b = el("button", className, text);
  b.type = "button";
  b.id = id;
  if (title) b.title = title;
  return b;
}

const numberFormat = new Intl.NumberFormat("en-US");
const number = (n) => numberFormat.format(n);

/** Sim ms → "+1h 02m 03.004s"-like offset from the start. */
export function formatOffset(ms) {
  const n = Math.max(0, Math.round(Number(ms) || 0));
  const h = Math.floor(n / 3_600_000);
  const m = Math.floor((n % 3_600_000) / 60_000);
  const s = ((n % 60_000) / 1000).toFixed(3).padStart(6, "0");
  return h > 0 ? `+${h}h ${String(m).padStart(2, "0")}m ${s}s` : `+${m}m ${s}s`;
}

/**
 * "Skip to" as typed → sim ms, or null: a wall-clock time "12:29:58" (on the run's first day,
 * or the next if it is earlier than the start), or an offset "+29m58s" / "29m58s".
 */
export function parseSkip(text, startMs) {
  const t = String(text).trim();
  const clock = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(t);
  if (clock) {
    const [, h, m, s = "0", frac = "0"] = clock;
    if (Number(h) > 23 || Number(m) > 59 || Number(s) > 59) return null;
    const day = Math.floor(startMs / 86_400_000) * 86_400_000;
    let at = day + ((Number(h) * 60 + Number(m)) * 60 + Number(s)) * 1000 + Number(frac.padEnd(3, "0"));
    if (at < startMs) at += 86_400_000;
    return at - startMs;
  }
  const ms = parseDuration(t.replace(/^\+/, ""), "s");
  return ms === null ? null : ms;
}

/**
 * @param {HTMLElement} root
 * @param {object} deps
 * @param {object} deps.runner   from labs/delay-queue-runner.js
 * @param {{get(): object, subscribe(fn: (s: object) => void): () => void}} deps.store  (panelView)
 * @param {(query: string) => {matches: boolean, addEventListener?: Function}} [deps.matchMedia]
 */
export function createDelayQueueView(root, { runner, store, matchMedia = (q) => window.matchMedia(q) }) {
  root.replaceChildren();
  root.classList.add("dq-view");

  // -------------------------------------------------------------------------------------------
  // DOM
  // -------------------------------------------------------------------------------------------

  const head = el("header", "panel-head");
  const summary = el("span", "expiry-summary");
  summary.id = "dq-summary";
  head.append(el("h2", "panel-title", "Delay queue"), summary);

  const intro = el(
    "p",
    "expiry-caption",
    "“Close the order if it is unpaid after 30 minutes”, five ways: a producer adds orders, consumers look for the due " +
      "ones. Each is a real client of a Redis engine and every command runs at its virtual arrival time, so races come " +
      "from timing. The lab has its own engine and its own clock (the buttons below), apart from the clock bar and the console.",
  );
  intro.id = "dq-intro";

  const controlsBox = el("div", "dq-controls");
  controlsBox.id = "dq-controls";

  // The player.
  const player = el("div", "dq-player");
  player.setAttribute("role", "group");
  player.setAttribute("aria-label", "Lab clock");
  const clockBox = el("div", "dq-clock");
  const clockTime = el("span", "dq-clock-time", "12:00:00.000");
  clockTime.id = "dq-clock";
  const clockSub = el("span", "dq-clock-sub");
  clockSub.id = "dq-clock-sub";
  clockBox.append(clockTime, clockSub);
  const playBtn = button("dq-play", "▶ Play", "Play the lab's clock at the chosen speed (Space on the timeline)", "btn btn-small btn-play");
  const stepBtn = button("dq-step", "Step", "Pause and run to the next thing that happens (a command arriving, a reply, a message, an order…)");
  const resetBtn = button("dq-reset", "Reset", "The same settings again from the start, paused");
  const speedLabel = el("label", "xc-label", "speed ");
  const speedSel = el("select", "xc-select");
  speedSel.id = "dq-speed";
  for (const s of DQ_SPEEDS) {
    const o = el("option", "", s === "max" ? "max" : `${s}×`);
    o.value = String(s);
    o.title = s === "max" ? "As fast as the page can run it (about 8 ms of work per frame)" : `${s} virtual seconds per real second`;
    speedSel.append(o);
  }
  speedLabel.append(speedSel);
  const skipForm = el("form", "dq-skip");
  skipForm.noValidate = true;
  const skipLabel = el("label", "xc-label", "skip to ");
  const skipInput = el("input", "xc-input");
  skipInput.id = "dq-skip";
  skipInput.size = 9;
  skipInput.autocomplete = "off";
  skipInput.spellcheck = false;
  skipInput.title = "A wall-clock time (12:29:58) or a time since the start (+29m58s); the lab runs there and pauses";
  const skipMsg = el("p", "dq-field-msg");
  skipMsg.id = "dq-skip-msg";
  skipMsg.hidden = true;
  skipInput.setAttribute("aria-describedby", skipMsg.id);
  skipLabel.append(skipInput);
  const skipGo = button("dq-skip-go", "Go", "Run to that time and pause");
  skipGo.type = "submit";
  skipForm.append(skipLabel, skipGo, skipMsg);
  player.append(clockBox, playBtn, stepBtn, resetBtn, speedLabel, skipForm);

  const status = el("p", "dq-status");
  status.id = "dq-status";
  const announce = el("p", "visually-hidden");
  announce.id = "dq-announce";
  announce.setAttribute("aria-live", "polite");

  // The axis controls and the legend.
  const axisBar = el("div", "dq-axis-bar");
  axisBar.setAttribute("role", "group");
  axisBar.setAttribute("aria-label", "Timeline window");
  const zoomOut = button("dq-zoom-out", "−", "Zoom out (− on the timeline; or the mouse wheel)");
  zoomOut.setAttribute("aria-label", "Zoom out");
  const zoomIn = button("dq-zoom-in", "+", "Zoom in (+ on the timeline; or the mouse wheel)");
  zoomIn.setAttribute("aria-label", "Zoom in");
  const panLeft = button("dq-pan-left", "◀", "Earlier (← on the timeline; or drag)");
  panLeft.setAttribute("aria-label", "Pan to earlier");
  const panRight = button("dq-pan-right", "▶", "Later (→ on the timeline; or drag)");
  panRight.setAttribute("aria-label", "Pan to later");
  const fitBtn = button("dq-fit", "Whole run", "Show the whole run (0 on the timeline)");
  const followBtn = button("dq-follow", "Follow now", "Keep the moving now in view while the lab plays (F on the timeline)");
  followBtn.setAttribute("aria-pressed", "true");
  const windowText = el("span", "dq-window-text");
  windowText.id = "dq-window";
  axisBar.append(zoomOut, zoomIn, panLeft, panRight, fitBtn, followBtn, windowText);

  const legend = el("div", "dq-legend");
  legend.id = "dq-legend";
  legend.setAttribute("aria-label", "Legend");
  const legendItem = (color, text, shape = "box") => {
    const item = el("span", "dq-legend-item");
    const sw = el("span", `dq-swatch dq-swatch-${shape}`);
    sw.style.setProperty("--c", color);
    item.append(sw, document.createTextNode(text));
    return item;
  };
  const fateLegend = el("span", "dq-legend-group");
  fateLegend.append(el("span", "dq-legend-head", "Tasks at their due time:"));
  for (const f of FATES) fateLegend.append(legendItem(f.color, f.label));
  const laneLegend = el("span", "dq-legend-group");
  laneLegend.append(
    el("span", "dq-legend-head", "Consumer lanes:"),
    legendItem(LANE_COLORS.empty, "empty poll", "tick"),
    legendItem(LANE_COLORS.poll, "poll that found tasks", "bar"),
    legendItem(LANE_COLORS.claim, "ZREM/DEL → removed it (claim)", "tri"),
    legendItem(LANE_COLORS.missed, "→ removed nothing", "x"),
    legendItem(LANE_COLORS.process, "processing"),
    legendItem(LANE_COLORS.again, "processing a task again"),
    legendItem(LANE_COLORS.cut, "cut by a crash"),
    legendItem(LANE_COLORS.sleep, "sleep", "line"),
    legendItem(LANE_COLORS.message, "pub/sub message", "dot"),
    legendItem(LANE_COLORS.crashEdge, "consumer down", "crash"),
  );
  const legendNote = el(
    "span",
    "dq-legend-note",
    "Marks show what the events so far say; “never (lost)” and the final fates come when the run ends.",
  );
  legend.append(fateLegend, laneLegend, legendNote);

  const runsBox = el("div", "dq-runs");
  runsBox.id = "dq-runs";

  const bottom = el("div", "dq-bottom");
  const codeBox = el("section", "dq-code");
  codeBox.id = "dq-code";
  codeBox.append(el("h3", "expiry-subtitle", "The strategy's client code"));
  const logBox = el("section", "dq-log-box");
  const logHead = el("div", "expiry-subhead");
  const logTitle = el("h3", "expiry-subtitle", "What happened (latest first)");
  const logRunSel = el("select", "xc-select");
  logRunSel.id = "dq-log-run";
  logRunSel.setAttribute("aria-label", "Which run's events to list");
  logHead.append(logTitle, logRunSel);
  const logList = el("ol", "dq-log");
  logList.id = "dq-log";
  logList.setAttribute("aria-label", "The lab's events in words, latest first");
  logBox.append(logHead, logList);
  bottom.append(codeBox, logBox);

  root.append(head, intro, controlsBox, player, status, announce, axisBar, legend, runsBox, bottom);

  // -------------------------------------------------------------------------------------------
  // State
  // -------------------------------------------------------------------------------------------

  const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");
  /** @type {Array<{label: string, model: object, timeline: object, metrics: object, box: HTMLElement, fates: HTMLElement, lanes: HTMLElement, lanesBody: HTMLElement}>} */
  let views = [];
  let frameState = runner.state();
  let vp = { from: 0, to: 3_600_000 };
  let follow = true;
  let visible = store.get().panelView === "delay-queue";
  let drawScheduled = false;
  let lastLogSerial = -1;
  let lastLogRun = -1;
  let lastSpeed = null;

  const startMs = () => frameState.startMs ?? DEFAULT_START_MS;
  const duration = () => Math.max(1, frameState.durationMs ?? 3_600_000);

  // -------------------------------------------------------------------------------------------
  // The window (shared by the timelines)
  // -------------------------------------------------------------------------------------------

  function setWindow(from, span) {
    const d = duration();
    const maxSpan = d * 1.1 + 1000;
    span = Math.min(Math.max(span, MIN_SPAN_MS), maxSpan);
    const lo = -span * 0.05;
    const hi = d + span * 0.05 - span;
    from = Math.min(Math.max(from, lo), Math.max(lo, hi));
    vp = { from, to: from + span };
    requestDraw();
  }

  function fit() {
    const d = duration();
    setWindow(-d * 0.01, d * 1.02);
  }

  function zoom(center, factor) {
    const span = vp.to - vp.from;
    const next = Math.min(Math.max(span * factor, MIN_SPAN_MS), duration() * 1.1 + 1000);
    const f = next / span;
    setWindow(center - (center - vp.from) * f, next);
  }

  function pan(deltaMs) {
    setFollow(false);
    setWindow(vp.from + deltaMs, vp.to - vp.from);
  }

  function setFollow(on) {
    follow = on;
    followBtn.setAttribute("aria-pressed", String(on));
    followBtn.classList.toggle("is-on", on);
    if (on) keepNowInView(true);
  }

  /**
   * Keeps "now" in the window. Smoothly (now stays at three quarters of the window) unless the
   * user prefers reduced motion: then the window turns a page only when now leaves it.
   */
  function keepNowInView(force = false) {
    const now = frameState.now;
    const span = vp.to - vp.from;
    if (span >= duration()) return;
    if (reducedMotion.matches) {
      if (force || now > vp.to || now < vp.from) setWindow(now - span * 0.1, span);
    } else if (force || now > vp.from + span * 0.75 || now < vp.from) {
      setWindow(now - span * 0.75, span);
    }
  }

  function initialWindow() {
    const first = frameState.runs[0]?.config;
    if (first?.orders) {
      // The walkthrough: the first 20 seconds, one poll a second.
      setWindow(-1000, 20_000);
    } else {
      fit();
    }
  }

  // -------------------------------------------------------------------------------------------
  // Runs
  // -------------------------------------------------------------------------------------------

  const timeText = (ms) => wallClock(startMs() + ms, true);

  function buildRuns() {
    runsBox.replaceChildren();
    codeBox.replaceChildren(el("h3", "expiry-subtitle", "The strategy's client code"));
    views = frameState.runs.map((run, i) => {
      const box = el("section", "dq-run");
      box.id = `dq-run-${run.label.toLowerCase()}`;
      box.dataset.run = run.label;
      box.dataset.strategy = String(run.strategy);
      const title = el("h3", "dq-run-title", `${frameState.runs.length > 1 ? `${run.label} · ` : ""}strategy ${run.strategy} · ${run.name}`);
      title.id = `${box.id}-title`;
      box.setAttribute("aria-labelledby", title.id);
      const fates = el("p", "dq-fates");
      fates.id = `${box.id}-fates`;
      const row = el("div", "dq-run-row");
      const tlBox = el("div", "dq-timeline-box");
      const metricsBox = el("div");
      metricsBox.id = `${box.id}-metrics`;
      row.append(tlBox, metricsBox);
      const lanesDetails = el("details", "dq-lanes-details");
      lanesDetails.append(el("summary", "", "The consumer lanes in numbers"));
      const lanes = el("table", "dq-lanes");
      lanes.id = `${box.id}-lanes`;
      const thead = el("thead");
      const hr = el("tr");
      for (const h of ["lane", "commands", "empty polls", "claims", "removed nothing", "processings", "cut by crash", "messages", "sleeps", "crashes"]) {
        const th = el("th", "", h);
        th.scope = "col";
        hr.append(th);
      }
      thead.append(hr);
      const lanesBody = el("tbody");
      lanes.append(thead, lanesBody);
      lanesDetails.append(lanes);
      box.append(title, fates, row, lanesDetails);
      runsBox.append(box);

      const model = createRunModel({ consumers: Number(run.config.consumers ?? 2), startMs: startMs(), timeText });
      const timeline = createDelayQueueTimeline(tlBox, {
        label: run.label,
        viewport: () => vp,
        onZoom: zoom,
        onPan: pan,
        onKey,
      });
      const metrics = createDelayQueueMetrics(metricsBox, run.label);

      const code = el("details", "dq-code-item");
      code.open = true;
      code.append(el("summary", "", `${frameState.runs.length > 1 ? `${run.label} · ` : ""}strategy ${run.strategy} · ${run.name}`));
      const pre = el("pre", "dq-pre");
      pre.id = `dq-code-${run.label.toLowerCase()}`;
      pre.textContent = run.code;
      code.append(pre);
      codeBox.append(code);
      return { label: run.label, index: i, model, timeline, metrics, box, fates, lanesBody };
    });
    logRunSel.replaceChildren();
    for (const v of views) {
      const o = el("option", "", `run ${v.label}`);
      o.value = String(v.index);
      logRunSel.append(o);
    }
    logRunSel.hidden = views.length < 2;
    lastLogSerial = -1;
  }

  // -------------------------------------------------------------------------------------------
  // Drawing
  // -------------------------------------------------------------------------------------------

  // While the lab plays, a draw is skipped when the last one was less than twice its own cost
  // ago (thousands of tasks, hundreds of thousands of commands), so drawing never takes more
  // than about a third of the frames from the simulation; a later frame draws what changed.
  let lastDrawAt = -Infinity;
  let lastDrawCost = 0;
  function requestDraw() {
    if (drawScheduled) return;
    drawScheduled = true;
    requestAnimationFrame(function tick(time) {
      const busy = frameState.playing || frameState.seeking;
      if (busy && time - lastDrawAt < 2 * lastDrawCost) {
        requestAnimationFrame(tick);
        return;
      }
      drawScheduled = false;
      const t0 = performance.now();
      draw();
      lastDrawCost = performance.now() - t0;
      lastDrawAt = time;
    });
  }

  function showFates(v) {
    const p = v.model.producer.counts;
    const parts = [`${number(v.model.tasks.size)} tasks (${number(p.payments)} payments)`];
    for (const f of FATES) parts.push(`${f.label} ${number(v.model.counts[f.id] ?? 0)}`);
    v.fates.textContent = parts.join(" · ");
    v.box.dataset.tasks = String(v.model.tasks.size);
    for (const f of FATES) v.box.dataset[`fate${f.id.replace(/(^|_)(\w)/g, (_, __, c) => c.toUpperCase())}`] = String(v.model.counts[f.id] ?? 0);
    v.box.dataset.final = String(v.model.finalFates);
    v.box.dataset.orders = String(v.model.producer.counts.orders);
    v.box.dataset.payments = String(v.model.producer.counts.payments);
    v.box.dataset.events = String(v.model.events);
    v.box.dataset.dropped = String(v.model.dropped);
  }

  function showLanes(v) {
    const rows = v.model.lanes.map((lane, c) => [`consumer ${c + 1}`, lane]);
    while (v.lanesBody.rows.length < rows.length) {
      const tr = el("tr");
      for (let k = 0; k < 10; k += 1) tr.append(el(k === 0 ? "th" : "td"));
      tr.cells[0].scope = "row";
      v.lanesBody.append(tr);
    }
    rows.forEach(([name, lane], r) => {
      const c = lane.counts;
      const values = [name, c.commands, c.empty, c.claims, c.missed, c.processes, c.cut, c.messages, c.sleeps, c.crashes];
      const tr = v.lanesBody.rows[r];
      tr.dataset.lane = String(r);
      values.forEach((val, k) => {
        const text = typeof val === "number" ? number(val) : val;
        if (tr.cells[k].textContent !== text) tr.cells[k].textContent = text;
        if (k > 0) tr.cells[k].dataset.value = String(val);
      });
    });
  }

  function showLog() {
    const i = Math.min(Number(logRunSel.value) || 0, views.length - 1);
    const v = views[i];
    if (!v) {
      logList.replaceChildren();
      return;
    }
    const serial = v.model.logSerial();
    if (serial === lastLogSerial && i === lastLogRun) return;
    lastLogSerial = serial;
    lastLogRun = i;
    const lines = v.model.log.slice(-LOG_SHOWN).reverse();
    const items = lines.map((line) => {
      const li = el("li", `dq-log-line is-${line.kind}`);
      li.append(el("time", "dq-log-time", timeText(line.at)), document.createTextNode(` ${line.text}`));
      return li;
    });
    logList.replaceChildren(...items);
  }

  function showClock() {
    const now = frameState.now;
    const wall = startMs() + now;
    clockTime.textContent = `${wallClock(wall, true)} UTC`;
    clockTime.dataset.ms = String(now);
    clockTime.dataset.wall = String(wall);
    clockSub.textContent = `${new Date(wall).toISOString().slice(0, 10)} · ${formatOffset(now)} of ${formatDuration(duration())}`;
  }

  function showStatus() {
    const s = frameState;
    playBtn.textContent = s.playing ? "❚❚ Pause" : "▶ Play";
    playBtn.setAttribute("aria-pressed", String(s.playing));
    playBtn.disabled = s.done || Boolean(s.error) || s.runs.length === 0;
    stepBtn.disabled = s.done || Boolean(s.error) || s.runs.length === 0;
    skipGo.disabled = s.done || Boolean(s.error);
    if (lastSpeed !== s.speed) {
      speedSel.value = String(s.speed);
      lastSpeed = s.speed;
    }
    let text;
    let kind = "info";
    if (s.error) {
      text = s.error;
      kind = "error";
    } else if (s.runs.length === 0) {
      text = "Set up a run and press Run.";
    } else if (s.done) {
      text = `The run ended at ${wallClock(startMs() + duration())}: the fates and metrics are final.`;
      kind = "ok";
    } else if (s.seeking) {
      text = `Skipping to ${wallClock(startMs() + s.seekTarget, true)}…`;
    } else if (s.playing) {
      text = `Playing at ${s.speed === "max" ? "full speed" : `${s.speed}×`}.`;
      if (s.lagMs > 0) {
        text += ` Lagging: this frame could not run ${number(Math.round(s.lagMs))} ms of virtual time within its budget — the lab is slower than ${s.speed}× here.`;
        kind = "warning";
      }
    } else {
      text = "Paused.";
    }
    const dropped = views.reduce((n, v) => n + v.model.dropped, 0);
    if (dropped > 0) {
      text += ` ${number(dropped)} events were dropped by the lab's bounded log (the timeline misses them; the metrics do not).`;
      kind = kind === "error" ? kind : "warning";
    }
    status.textContent = text;
    status.className = `dq-status is-${kind}`;
    root.dataset.playing = String(s.playing);
    root.dataset.done = String(s.done);
    root.dataset.now = String(s.now);
    root.dataset.generation = String(s.generation);
    const names = s.runs.map((r) => `${s.runs.length > 1 ? `${r.label}: ` : ""}${r.strategy} · ${r.name}`).join(" vs ");
    summary.textContent = names;
  }

  function draw() {
    showClock();
    showStatus();
    const span = vp.to - vp.from;
    windowText.textContent = `${wallClock(startMs() + vp.from, span < 10_000)} – ${wallClock(startMs() + vp.to, span < 10_000)} (${formatDuration(Math.round(span)) || ""})`;
    for (const v of views) {
      showFates(v);
      if (!visible) continue;
      v.timeline.setRun(v.model, { now: frameState.now, startMs: startMs(), durationMs: duration(), consumers: Number(frameState.runs[v.index]?.config.consumers ?? 1) });
      v.timeline.draw();
      v.metrics.show(frameState.runs[v.index]?.metrics ?? null);
      showLanes(v);
    }
    if (visible) showLog();
    // What the page shows now (the e2e tests wait for it).
    root.dataset.drawnNow = String(frameState.now);
    root.dataset.drawnGeneration = String(frameState.generation);
  }

  // -------------------------------------------------------------------------------------------
  // The runner's frames
  // -------------------------------------------------------------------------------------------

  runner.onFrame((frame) => {
    frameState = frame;
    if (frame.reset) {
      buildRuns();
      initialWindow();
      setFollow(true);
    }
    frame.events.forEach((list, i) => views[i]?.model.update(list, frame.dropped[i]));
    if (follow && (frame.playing || frame.seeking || frame.stepped)) keepNowInView();
    if (frame.stepped) {
      const v = views[0];
      const latest = v ? v.model.log.filter((l) => l.at >= 0).slice(-3) : [];
      announce.textContent = `${wallClock(startMs() + frame.now, true)}. ${latest.map((l) => l.text).join(". ")}`;
    } else if (frame.done && !frame.playing) {
      announce.textContent = frame.runs.length > 0 ? "The run ended; the fates and metrics are final." : "";
    }
    requestDraw();
  });

  // -------------------------------------------------------------------------------------------
  // Controls
  // -------------------------------------------------------------------------------------------

  const controls = createDelayQueueControls(controlsBox, {
    strategyName: (n) => runner.strategyName(n),
    onRun({ config, compareStrategy }) {
      const r = runner.run({ config, compareStrategy });
      if (r.ok) {
        controls.message(
          `Running strategy ${config.strategy}${compareStrategy ? ` and strategy ${compareStrategy} on the same orders` : ""} (seed ${config.seed}).`,
          "ok",
        );
        skipInput.value = config.orders ? "12:29:58" : "";
      } else {
        controls.message(`Not run: ${r.error}`, "error");
      }
    },
  });

  function onKey(key) {
    switch (key) {
      case "0":
      case "Home":
        fit();
        return true;
      case "f":
      case "F":
        setFollow(!follow);
        return true;
      case " ":
        runner.toggle();
        return true;
      case ".":
        runner.step();
        return true;
      default:
        return false;
    }
  }

  playBtn.addEventListener("click", () => runner.toggle());
  stepBtn.addEventListener("click", () => runner.step());
  resetBtn.addEventListener("click", () => {
    const r = runner.reset();
    if (!r.ok) controls.message(`Reset: ${r.error}.`, "error");
  });
  speedSel.addEventListener("change", () => {
    const v = speedSel.value === "max" ? "max" : Number(speedSel.value);
    runner.setSpeed(v);
  });
  skipForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const t = parseSkip(skipInput.value, startMs());
    let problem = null;
    if (t === null) problem = "skip to: a wall-clock time like 12:29:58, or a time since the start like +29m58s.";
    else if (t <= frameState.now) problem = `skip to: ${wallClock(startMs() + t, true)} is not after now (${wallClock(startMs() + frameState.now, true)}).`;
    else if (t > duration()) problem = `skip to: the run ends at ${wallClock(startMs() + duration())}.`;
    skipMsg.hidden = problem === null;
    skipMsg.textContent = problem ?? "";
    skipMsg.classList.toggle("is-error", problem !== null);
    if (problem) {
      skipInput.setAttribute("aria-invalid", "true");
      return;
    }
    skipInput.removeAttribute("aria-invalid");
    setFollow(true);
    runner.seek(t);
  });
  skipInput.addEventListener("input", () => {
    skipInput.removeAttribute("aria-invalid");
    skipMsg.hidden = true;
  });
  zoomIn.addEventListener("click", () => zoom(follow && frameState.now >= vp.from && frameState.now <= vp.to ? frameState.now : (vp.from + vp.to) / 2, 0.5));
  zoomOut.addEventListener("click", () => zoom(follow && frameState.now >= vp.from && frameState.now <= vp.to ? frameState.now : (vp.from + vp.to) / 2, 2));
  panLeft.addEventListener("click", () => pan(-(vp.to - vp.from) * 0.25));
  panRight.addEventListener("click", () => pan((vp.to - vp.from) * 0.25));
  fitBtn.addEventListener("click", fit);
  followBtn.addEventListener("click", () => setFollow(!follow));
  logRunSel.addEventListener("change", () => {
    lastLogSerial = -1;
    showLog();
  });

  store.subscribe((s) => {
    const on = s.panelView === "delay-queue";
    if (on !== visible) {
      visible = on;
      if (on) requestDraw();
    }
  });

  return {
    /** Loads a preset into the form (the walkthrough: "walkthrough") and runs it paused. */
    loadPreset(id, { play = false } = {}) {
      controls.applyPreset(id);
      const r = controls.parse();
      if (!r.ok) return r;
      const res = runner.run({ config: r.config, compareStrategy: r.compareStrategy }, { play });
      if (res.ok) skipInput.value = r.config.orders ? "12:29:58" : "";
      return res;
    },
    presets: PRESETS,
    controls,
    /** For tests and devtools: the run models the timelines draw, and the timelines. */
    models: () => views.map((v) => v.model),
    timelines: () => views.map((v) => v.timeline),
    viewport: () => ({ ...vp, follow }),
    setWindow,
    draw,
  };
}
