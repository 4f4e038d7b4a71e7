// @ts-check
// The clock bar's renderer: the time, the controls (play/pause, speed, step, jump, reset) and
// the cron indicator. DOM only; the texts come from clock-model.js, and `draw` writes only the
// ones that changed. The controls call the `actions` the view hands in.

import { el } from "../dom.js";
import { number } from "../format.js";
import { t } from "../i18n.js";
import { SPEEDS } from "../store.js";
import { EVENT_LOG_CAPACITY, parseJumpSeconds } from "./clock-model.js";

/** @typedef {import("./clock-model.js").ClockTexts} ClockTexts */
/**
 * @typedef {object} ClockActions
 * @property {() => void} togglePause
 * @property {(speed: number) => void} setSpeed
 * @property {() => void} step     advance exactly to the next cron tick (and pause)
 * @property {(ms: number) => void} jump
 * @property {() => void} reset
 */
/** @typedef {ReturnType<typeof createClockDom>} ClockDom */

/**
 * @param {string} className
 * @param {string} id
 * @param {string} [text]
 */
function button(className, id, text) {
  const b = el("button", className, text);
  b.id = id;
  b.type = "button";
  return b;
}

/**
 * The jump form: seconds → actions.jump(ms), or a message next to it.
 * @param {ClockActions} actions
 */
function createJumpForm(actions) {
  const jumpForm = el("form", "jump");
  jumpForm.noValidate = true;
  const jumpLabel = el("label", "jump-label", "+");
  const jumpInput = el("input", "jump-seconds");
  jumpInput.id = "clock-jump-seconds";
  jumpInput.type = "text";
  jumpInput.inputMode = "decimal";
  jumpInput.value = "30";
  jumpInput.size = 6;
  jumpInput.autocomplete = "off";
  jumpInput.setAttribute("aria-label", t("Seconds to jump"));
  jumpInput.setAttribute("aria-describedby", "clock-jump-error");
  jumpLabel.append(jumpInput, document.createTextNode(t(" s")));
  const jumpButton = el("button", "btn", t("Jump"));
  jumpButton.id = "clock-jump";
  jumpButton.type = "submit";
  const jumpError = el("span", "jump-error");
  jumpError.id = "clock-jump-error";
  jumpError.setAttribute("role", "alert");
  jumpForm.append(jumpLabel, jumpButton, jumpError);
  jumpForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const parsed = parseJumpSeconds(jumpInput.value);
    if (!parsed.ok) {
      jumpError.textContent = parsed.message;
      jumpInput.setAttribute("aria-invalid", "true");
      return;
    }
    jumpError.textContent = "";
    jumpInput.removeAttribute("aria-invalid");
    actions.jump(parsed.ms);
  });
  jumpInput.addEventListener("input", () => {
    if (jumpError.textContent !== "") {
      jumpError.textContent = "";
      jumpInput.removeAttribute("aria-invalid");
    }
  });
  return jumpForm;
}

/** The cron indicator: one span per figure. */
function createStats() {
  const stats = el("div", "clock-stats");
  stats.id = "clock-stats";
  /**
   * @param {string} id
   * @param {string} title
   */
  const field = (id, title) => {
    const node = el("span", "stat");
    node.id = id;
    node.title = title;
    stats.append(node);
    return node;
  };
  return {
    stats,
    cronEl: field("clock-cron", t("serverCron runs since the page started (from the engine's cron events)")),
    hzEl: field("clock-hz", t("The server's hz and the cron period it gives")),
    lagEl: field("clock-lag", t("Virtual time the latest frame could not run within its cron tick budget")),
    pendingEl: field("clock-pending", t("Jump time still being run, a tick budget per frame")),
    expiredEl: field("clock-expired", t("Keys deleted because their TTL passed (lazily on access or by the active cycle)")),
    droppedEl: field(
      "clock-dropped",
      t(
        "The views learn what the engine did from a log of at most {n} events, read every frame. A single command that does more (a bulk EVAL, a FLUSHALL of a big keyspace) overflows it: the oldest events of that burst are not drawn, and this counts them. The data is intact, and the views that read snapshots (keys, sorted sets) are exact.",
        { n: number(EVENT_LOG_CAPACITY) },
      ),
    ),
  };
}

/**
 * Empties `root` and builds the bar in it.
 * @param {HTMLElement} root
 * @param {ClockActions} actions
 */
export function createClockDom(root, actions) {
  root.replaceChildren();
  const timeBox = el("div", "clock-time-box");
  const timeEl = el("time", "clock-time");
  timeEl.id = "clock-time";
  const unixEl = el("span", "clock-unix");
  unixEl.id = "clock-unix";
  timeBox.append(timeEl, unixEl);

  const controls = el("div", "clock-controls");
  const playButton = button("btn btn-play", "clock-play");
  playButton.addEventListener("click", () => actions.togglePause());
  const speedLabel = el("label", "speed-label", t("speed "));
  const speedSelect = el("select", "speed");
  speedSelect.id = "clock-speed";
  for (const s of SPEEDS) {
    const option = el("option", "", `${number(s)}×`);
    option.value = String(s);
    speedSelect.append(option);
  }
  speedSelect.addEventListener("change", () => actions.setSpeed(Number(speedSelect.value)));
  speedLabel.append(speedSelect);
  // "Step 1 tick (+100 ms)": the distance in a span of its own; " 1 tick" folds away on phones.
  const stepButton = button("btn", "clock-step");
  const stepDistance = el("span", "step-distance", "(+100 ms)");
  stepButton.append(t("Step"), el("span", "step-long", t(" 1 tick")), " ", stepDistance);
  stepButton.addEventListener("click", () => actions.step());
  const resetButton = button("btn btn-quiet", "clock-reset", t("Reset"));
  resetButton.title = t("A fresh engine: same seed, clock back to the start, no keys");
  resetButton.addEventListener("click", () => actions.reset());
  controls.append(playButton, speedLabel, stepButton, createJumpForm(actions), resetButton);

  const stats = createStats();
  // A long jump's progress: a bar and the share done, first in the cron line while it runs.
  const progress = el("span", "clock-progress");
  progress.id = "clock-progress";
  progress.setAttribute("role", "progressbar");
  progress.setAttribute("aria-label", t("Jump progress"));
  progress.setAttribute("aria-valuemin", "0");
  progress.setAttribute("aria-valuemax", "100");
  progress.hidden = true;
  const progressTrack = el("span", "clock-progress-track");
  const progressFill = el("span", "clock-progress-fill");
  progressTrack.append(progressFill);
  const progressText = el("span", "clock-progress-text");
  progress.append(progressTrack, progressText);
  stats.stats.prepend(progress);
  root.append(timeBox, controls, stats.stats);
  return { root, timeEl, unixEl, playButton, speedSelect, stepButton, stepDistance, progress, progressFill, progressText, ...stats };
}

/**
 * Writes the texts that differ from `shown` (what is on screen; updated in place).
 * @param {ClockDom} dom
 * @param {Partial<ClockTexts>} shown
 * @param {ClockTexts} texts
 * @param {{now: number, cronTicks: number, unreadableDrains?: number}} clock
 */
export function drawClock(dom, shown, texts, clock) {
  /**
   * @param {HTMLElement} node
   * @param {"time" | "unix" | "play" | "cron" | "hz" | "lag" | "pending" | "expired" | "dropped"} key
   */
  const put = (node, key) => {
    if (shown[key] !== texts[key]) {
      shown[key] = texts[key];
      node.textContent = texts[key];
    }
  };
  if (shown.time !== texts.time || shown.unix !== texts.unix) {
    dom.timeEl.dateTime = new Date(clock.now).toISOString();
    dom.timeEl.dataset.ms = String(clock.now);
  }
  put(dom.timeEl, "time");
  put(dom.unixEl, "unix");
  put(dom.playButton, "play");
  if (shown.paused !== texts.paused) {
    shown.paused = texts.paused;
    dom.playButton.setAttribute("aria-pressed", String(!texts.paused));
    dom.root.classList.toggle("is-paused", texts.paused);
  }
  if (shown.speed !== texts.speed) {
    shown.speed = texts.speed;
    dom.speedSelect.value = texts.speed;
  }
  if (shown.step !== texts.step) {
    shown.step = texts.step;
    // The distance only: "(+100 ms)" ends the step text in every language.
    dom.stepDistance.textContent = /\(\+[^()]*\)$/.exec(texts.step)?.[0] ?? texts.step;
  }
  if (shown.progress !== texts.progress) {
    shown.progress = texts.progress;
    dom.progress.hidden = texts.progress < 0;
    if (texts.progress >= 0) {
      dom.progress.setAttribute("aria-valuenow", String(texts.progress));
      dom.progressFill.style.width = `${texts.progress}%`;
      dom.progressText.textContent = `${texts.progress}%`;
    }
  }
  if (shown.cron !== texts.cron) dom.cronEl.dataset.ticks = String(clock.cronTicks);
  put(dom.cronEl, "cron");
  put(dom.hzEl, "hz");
  put(dom.lagEl, "lag");
  if (shown.lagging !== texts.lagging) {
    shown.lagging = texts.lagging;
    dom.lagEl.classList.toggle("is-lagging", texts.lagging);
  }
  if (shown.pending !== texts.pending) dom.pendingEl.hidden = texts.pending === "";
  put(dom.pendingEl, "pending");
  if (shown.dropped !== texts.dropped) {
    dom.droppedEl.hidden = texts.dropped === "";
    // Events the engine could not hand over are lost: that one is a fault, and looks it.
    dom.droppedEl.classList.toggle("is-lost", (clock.unreadableDrains ?? 0) > 0);
  }
  put(dom.expiredEl, "expired");
  put(dom.droppedEl, "dropped");
}
