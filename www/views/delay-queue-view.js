// @ts-check
// The delay-queue lab's view (tab "Delay queue", #delay-queue): "close the order if it is
// unpaid after 30 minutes", six ways, on simulated clients in virtual time.
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
//
// The parts: delay-queue-model.js (what a run did), delay-queue-panel-model.js (the window and
// the words; pure), delay-queue-renderer.js (the panel's DOM); this file keeps the window and
// the runs' models and wires them to the runner.

import { t } from "../i18n.js";
import { createDelayQueueControls, DEFAULT_START_MS, PRESETS } from "./delay-queue-controls.js";
import { createRunModel } from "./delay-queue-model.js";
import { createDelayQueueTimeline, wallClock } from "./delay-queue-timeline.js";
import { createDelayQueueMetrics } from "./delay-queue-metrics.js";
import * as render from "./delay-queue-renderer.js";
import * as panel from "./delay-queue-panel-model.js";

export { LOG_SHOWN, MIN_SPAN_MS, formatOffset, parseSkip } from "./delay-queue-panel-model.js";

/** @typedef {import("./delay-queue-panel-model.js").RunnerFrame} RunnerFrame */
/** @typedef {import("./delay-queue-panel-model.js").Window} Window */
/** @typedef {import("./delay-queue-model.js").RunModel} RunModel */
/**
 * A run on the panel: its model, its timeline and metrics, its box.
 * @typedef {{label: string, index: number, model: RunModel, timeline: ReturnType<typeof createDelayQueueTimeline>,
 *            metrics: ReturnType<typeof createDelayQueueMetrics>} & import("./delay-queue-renderer.js").RunBox} RunView
 */
/**
 * The runner (labs/delay-queue-runner.js), as the view uses it.
 * @typedef {object} Runner
 * @property {() => RunnerFrame} state
 * @property {(fn: (frame: RunnerFrame & {reset?: boolean, stepped?: boolean, events: any[][], dropped: number[]}) => void) => void} onFrame
 * @property {(request: {config: Record<string, any>, compareStrategy: number | null}, o?: {play?: boolean}) => {ok: boolean, error?: string}} run
 * @property {() => void} toggle
 * @property {() => void} step
 * @property {() => {ok: boolean, error?: string}} reset
 * @property {(speed: number | "max") => void} setSpeed
 * @property {(t: number) => void} seek
 * @property {(n: number) => string} strategyName
 */

/**
 * The window the timelines share, and whether it follows "now": each change asks for a draw.
 * @param {object} o
 * @param {() => number} o.duration  the run's length (sim ms)
 * @param {() => number} o.now       the lab's clock (sim ms)
 * @param {{matches: boolean}} o.reducedMotion
 * @param {() => void} o.changed     the window moved
 * @param {(on: boolean) => void} o.followChanged
 */
function createWindowControl({ duration, now, reducedMotion, changed, followChanged }) {
  /** @type {Window} */
  let vp = { from: 0, to: panel.DEFAULT_DURATION_MS };
  let follow = true;
  /** @param {Window} next */
  const set = (next) => {
    vp = next;
    changed();
  };
  const control = {
    get: () => vp,
    following: () => follow,
    /**
     * @param {number} from
     * @param {number} span
     */
    setWindow: (from, span) => set(panel.clampWindow(from, span, duration())),
    fit: () => set(panel.fitWindow(duration())),
    /**
     * @param {number} center
     * @param {number} factor
     */
    zoom: (center, factor) => set(panel.zoomWindow(vp, center, factor, duration())),
    /** @param {number} factor  around now when following, else the middle */
    zoomBy: (factor) => control.zoom(panel.zoomCenter(vp, now(), follow), factor),
    /** @param {number} deltaMs */
    pan(deltaMs) {
      control.setFollow(false);
      set(panel.panWindow(vp, deltaMs, duration()));
    },
    /** @param {number} fraction  of the window */
    panBy: (fraction) => control.pan((vp.to - vp.from) * fraction),
    /** @param {boolean} on */
    setFollow(on) {
      follow = on;
      followChanged(on);
      if (on) control.keepNowInView(true);
    },
    /** Keeps "now" in the window (see panel-model followNow). */
    keepNowInView(force = false) {
      const next = panel.followNow(vp, now(), duration(), { reducedMotion: reducedMotion.matches, force });
      if (next !== null) set(next);
    },
    /**
     * A new run: its opening window, following now.
     * @param {Record<string, any> | undefined} firstConfig
     */
    reset(firstConfig) {
      set(panel.initialWindow(firstConfig, duration()));
      control.setFollow(true);
    },
  };
  return control;
}

/**
 * @param {HTMLElement} root
 * @param {object} deps
 * @param {Runner} deps.runner   from labs/delay-queue-runner.js
 * @param {{get(): {panelView: string}, subscribe(fn: (s: {panelView: string}) => void): () => void}} deps.store  (panelView)
 * @param {(query: string) => {matches: boolean}} [deps.matchMedia]
 */
export function createDelayQueueView(root, { runner, store, matchMedia = (q) => window.matchMedia(q) }) {
  const dom = render.createDelayQueueDom(root);
  const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");
  /** @type {RunView[]} */
  let views = [];
  let frameState = runner.state();
  let visible = store.get().panelView === "delay-queue";
  let lastLogSerial = -1;
  let lastLogRun = -1;
  /** @type {number | "max" | null} */
  let lastSpeed = null;

  const startMs = () => frameState.startMs ?? DEFAULT_START_MS;
  const duration = () => Math.max(1, frameState.durationMs ?? panel.DEFAULT_DURATION_MS);
  const timeText = (/** @type {number} */ ms) => wallClock(startMs() + ms, true);

  const win = createWindowControl({
    duration,
    now: () => frameState.now,
    reducedMotion,
    changed: () => requestDraw(),
    followChanged: (on) => render.showFollow(dom, on),
  });

  /** @param {string} key */
  function onKey(key) {
    const command = panel.keyCommand(key);
    if (command === "fit") win.fit();
    else if (command === "follow") win.setFollow(!win.following());
    else if (command === "toggle") runner.toggle();
    else if (command === "step") runner.step();
    return command !== null;
  }

  // -------------------------------------------------------------------------------------------
  // Runs
  // -------------------------------------------------------------------------------------------

  function buildRuns() {
    render.clearRuns(dom);
    const count = frameState.runs.length;
    views = frameState.runs.map((run, index) => {
      const box = render.createRunBox(dom, run, count);
      return {
        label: run.label,
        index,
        model: createRunModel({ consumers: Number(run.config.consumers ?? 2), startMs: startMs(), timeText }),
        timeline: createDelayQueueTimeline(box.tlBox, { label: run.label, viewport: win.get, onZoom: win.zoom, onPan: win.pan, onKey }),
        metrics: createDelayQueueMetrics(box.metricsBox, run.label),
        ...box,
      };
    });
    render.showLogRuns(
      dom,
      views.map((v) => v.label),
    );
    lastLogSerial = -1;
  }

  // -------------------------------------------------------------------------------------------
  // Drawing
  // -------------------------------------------------------------------------------------------

  // While the lab plays, a draw is skipped when the last one was less than twice its own cost
  // ago (thousands of tasks, hundreds of thousands of commands), so drawing never takes more
  // than about a third of the frames from the simulation; a later frame draws what changed.
  let drawScheduled = false;
  let lastDrawAt = Number.NEGATIVE_INFINITY;
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

  function showLog() {
    const i = Math.min(Number(dom.logRunSel.value) || 0, views.length - 1);
    const v = views[i];
    if (!v) {
      dom.logList.replaceChildren();
      return;
    }
    const serial = v.model.logSerial();
    if (serial === lastLogSerial && i === lastLogRun) return;
    lastLogSerial = serial;
    lastLogRun = i;
    render.showLog(dom, v.model, timeText);
  }

  function draw() {
    render.showClock(dom, frameState.now, startMs(), duration());
    if (lastSpeed !== frameState.speed) {
      dom.speedSel.value = String(frameState.speed);
      lastSpeed = frameState.speed;
    }
    const dropped = views.reduce((n, v) => n + v.model.dropped, 0);
    render.showStatus(dom, frameState, { startMs: startMs(), durationMs: duration(), dropped });
    dom.windowText.textContent = panel.windowText(win.get(), startMs());
    for (const v of views) {
      render.showFates(v, v.model);
      if (!visible) continue;
      const run = frameState.runs[v.index];
      v.timeline.setRun(v.model, { now: frameState.now, startMs: startMs(), durationMs: duration(), consumers: Number(run?.config.consumers ?? 1) });
      v.timeline.draw();
      v.metrics.show(run?.metrics ?? null);
      render.showLanes(v, v.model);
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
      win.reset(frameState.runs[0]?.config);
    }
    frame.events.forEach((list, i) => {
      views[i]?.model.update(list, frame.dropped[i]);
    });
    if (win.following() && (frame.playing || frame.seeking || frame.stepped)) win.keepNowInView();
    if (frame.stepped) {
      dom.announce.textContent = panel.steppedAnnouncement(frame.now, startMs(), views[0]?.model);
    } else if (frame.done && !frame.playing) {
      dom.announce.textContent = frame.runs.length > 0 ? t("The run ended; the fates and metrics are final.") : "";
    }
    requestDraw();
  });

  // -------------------------------------------------------------------------------------------
  // Controls
  // -------------------------------------------------------------------------------------------

  const controls = createDelayQueueControls(dom.controlsBox, {
    strategyName: (n) => runner.strategyName(n),
    onRun({ config, compareStrategy }) {
      const r = runner.run({ config, compareStrategy });
      if (r.ok) {
        controls.message(
          compareStrategy
            ? t("Running strategy {a} and strategy {b} on the same orders (seed {seed}).", { a: config.strategy, b: compareStrategy, seed: config.seed })
            : t("Running strategy {a} (seed {seed}).", { a: config.strategy, seed: config.seed }),
          "ok",
        );
        dom.skipInput.value = config.orders ? "12:29:58" : "";
      } else {
        controls.message(t("Not run: {error}", { error: r.error }), "error");
      }
    },
  });

  dom.playBtn.addEventListener("click", () => runner.toggle());
  dom.stepBtn.addEventListener("click", () => runner.step());
  dom.resetBtn.addEventListener("click", () => {
    const r = runner.reset();
    if (!r.ok) controls.message(t("Reset: {error}.", { error: r.error }), "error");
  });
  dom.speedSel.addEventListener("change", () => {
    runner.setSpeed(dom.speedSel.value === "max" ? "max" : Number(dom.speedSel.value));
  });
  dom.skipForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const at = panel.parseSkip(dom.skipInput.value, startMs());
    const problem = panel.skipProblem(at, { now: frameState.now, startMs: startMs(), durationMs: duration() });
    render.showSkipProblem(dom, problem);
    if (problem !== null || at === null) return;
    win.setFollow(true);
    runner.seek(at);
  });
  dom.skipInput.addEventListener("input", () => {
    dom.skipInput.removeAttribute("aria-invalid");
    dom.skipMsg.hidden = true;
  });
  dom.zoomIn.addEventListener("click", () => win.zoomBy(0.5));
  dom.zoomOut.addEventListener("click", () => win.zoomBy(2));
  dom.panLeft.addEventListener("click", () => win.panBy(-0.25));
  dom.panRight.addEventListener("click", () => win.panBy(0.25));
  dom.fitBtn.addEventListener("click", win.fit);
  dom.followBtn.addEventListener("click", () => win.setFollow(!win.following()));
  dom.logRunSel.addEventListener("change", () => {
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
    /**
     * Loads a preset into the form (the walkthrough: "walkthrough") and runs it paused.
     * @param {string} id
     * @param {{play?: boolean}} [o]
     */
    loadPreset(id, { play = false } = {}) {
      controls.applyPreset(id);
      const r = controls.parse();
      if (!r.ok) return r;
      const res = runner.run({ config: r.config, compareStrategy: r.compareStrategy }, { play });
      if (res.ok) dom.skipInput.value = r.config.orders ? "12:29:58" : "";
      return res;
    },
    presets: PRESETS,
    controls,
    /** For tests and devtools: the run models the timelines draw, and the timelines. */
    models: () => views.map((v) => v.model),
    timelines: () => views.map((v) => v.timeline),
    viewport: () => ({ ...win.get(), follow: win.following() }),
    setWindow: win.setWindow,
    draw,
  };
}
