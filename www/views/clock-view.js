// The virtual clock and its controls: play/pause, speed, step one cron tick, jump +N seconds,
// and what the cron did (ticks, lag, pending jump time, expired keys).
//
// A view like every other: it gets the store's state each frame and never calls the
// engine; the buttons call the `actions` main.js gives it. `update` says whether anything it
// shows changed, and `draw` touches only the text that did.

import { SPEEDS } from "../store.js";

/** The largest jump the control accepts, in seconds (one year). */
export const MAX_JUMP_SECONDS = 365 * 86_400;

/** "2025-01-01 00:00:00.000 UTC" for a Unix ms time. */
export function formatClock(ms) {
  const iso = new Date(ms).toISOString(); // valid for the engine's whole range (0..2^52 ms)
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)} UTC`;
}

/** The jump input's text → `{ok: true, ms}` or `{ok: false, message}`. */
export function parseJumpSeconds(text) {
  const t = String(text).trim();
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(t)) {
    return { ok: false, message: "Enter a number of seconds, like 30 or 0.5." };
  }
  const seconds = Number(t);
  const ms = Math.round(seconds * 1000);
  if (!(ms >= 1) || seconds > MAX_JUMP_SECONDS) {
    return { ok: false, message: `Enter between 0.001 and ${MAX_JUMP_SECONDS.toLocaleString("en-US")} seconds (one year).` };
  }
  return { ok: true, ms };
}

function formatDuration(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 7_200_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

const number = (n) => n.toLocaleString("en-US");

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * @param {HTMLElement} root
 * @param {object} actions
 * @param {() => void} actions.togglePause
 * @param {(speed: number) => void} actions.setSpeed
 * @param {() => void} actions.step     advance exactly to the next cron tick (and pause)
 * @param {(ms: number) => void} actions.jump
 * @param {() => void} actions.reset
 */
export function createClockView(root, actions) {
  root.replaceChildren();

  // Time
  const timeBox = el("div", "clock-time-box");
  const timeEl = el("time", "clock-time");
  timeEl.id = "clock-time";
  const unixEl = el("span", "clock-unix");
  unixEl.id = "clock-unix";
  timeBox.append(timeEl, unixEl);

  // Controls
  const controls = el("div", "clock-controls");
  const playButton = el("button", "btn btn-play");
  playButton.id = "clock-play";
  playButton.type = "button";
  playButton.addEventListener("click", () => actions.togglePause());

  const speedLabel = el("label", "speed-label", "speed ");
  const speedSelect = el("select", "speed");
  speedSelect.id = "clock-speed";
  for (const s of SPEEDS) {
    const option = el("option", "", `${number(s)}×`);
    option.value = String(s);
    speedSelect.append(option);
  }
  speedSelect.addEventListener("change", () => actions.setSpeed(Number(speedSelect.value)));
  speedLabel.append(speedSelect);

  const stepButton = el("button", "btn", "Step 1 tick");
  stepButton.id = "clock-step";
  stepButton.type = "button";
  stepButton.addEventListener("click", () => actions.step());

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
  jumpInput.setAttribute("aria-label", "Seconds to jump");
  jumpInput.setAttribute("aria-describedby", "clock-jump-error");
  jumpLabel.append(jumpInput, document.createTextNode(" s"));
  const jumpButton = el("button", "btn", "Jump");
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

  const resetButton = el("button", "btn btn-quiet", "Reset");
  resetButton.id = "clock-reset";
  resetButton.type = "button";
  resetButton.title = "A fresh engine: same seed, clock back to the start, no keys";
  resetButton.addEventListener("click", () => actions.reset());

  controls.append(playButton, speedLabel, stepButton, jumpForm, resetButton);

  // Cron indicator
  const stats = el("div", "clock-stats");
  stats.id = "clock-stats";
  const field = (id, title) => {
    const node = el("span", "stat");
    node.id = id;
    if (title) node.title = title;
    stats.append(node);
    return node;
  };
  const cronEl = field("clock-cron", "serverCron runs since the page started (from the engine's cron events)");
  const hzEl = field("clock-hz", "The server's hz and the cron period it gives");
  const lagEl = field("clock-lag", "Virtual time the latest frame could not run within its cron tick budget");
  const pendingEl = field("clock-pending", "Jump time still being run, a tick budget per frame");
  const expiredEl = field("clock-expired", "Keys deleted because their TTL passed (lazily on access or by the active cycle)");
  const droppedEl = field(
    "clock-dropped",
    "Engine events dropped because the event log was full, or lost because the engine could not hand them over (a bug in redisplay)",
  );

  root.append(timeBox, controls, stats);

  // What is on screen, to skip unchanged writes.
  let shown = {};

  function put(node, key, text) {
    if (shown[key] !== text) {
      shown[key] = text;
      node.textContent = text;
    }
  }

  function texts(state) {
    const c = state.clock;
    return {
      time: formatClock(c.now),
      unix: `unix ms ${c.now}`,
      play: state.paused ? "▶ Play" : "❚❚ Pause",
      speed: String(state.speed),
      // To the next tick, which after a CONFIG SET hz still falls on the old schedule.
      step: `Step 1 tick (+${number(Math.max(0, (c.nextCronMs ?? c.now + c.cronPeriodMs) - c.now))} ms)`,
      cron: `cron ${number(c.cronTicks)} ticks${c.frameTicks > 0 ? ` (+${number(c.frameTicks)})` : ""}`,
      hz: `hz ${number(c.hz)} · every ${number(c.cronPeriodMs)} ms`,
      lag: `lag ${formatDuration(c.lagMs)}`,
      pending: c.pendingMs >= 1 ? `catching up ${formatDuration(c.pendingMs)}` : "",
      expired: `expired ${number(c.expired)}`,
      dropped: [
        c.droppedEvents > 0 ? `${number(c.droppedEvents)} events dropped` : "",
        c.unreadableDrains > 0 ? `events lost ${number(c.unreadableDrains)}× (the engine could not hand them over)` : "",
      ]
        .filter(Boolean)
        .join(" · "),
      paused: state.paused,
      lagging: c.lagMs > 0,
    };
  }

  let next = null;

  return {
    update(_events, state) {
      next = texts(state);
      return Object.keys(next).some((k) => shown[k] !== next[k]);
    },

    draw(state) {
      const t = next ?? texts(state);
      next = null;
      if (shown.time !== t.time || shown.unix !== t.unix) {
        timeEl.dateTime = new Date(state.clock.now).toISOString();
        timeEl.dataset.ms = String(state.clock.now);
      }
      put(timeEl, "time", t.time);
      put(unixEl, "unix", t.unix);
      put(playButton, "play", t.play);
      if (shown.paused !== t.paused) {
        shown.paused = t.paused;
        playButton.setAttribute("aria-pressed", String(!t.paused));
        root.classList.toggle("is-paused", t.paused);
      }
      if (shown.speed !== t.speed) {
        shown.speed = t.speed;
        speedSelect.value = t.speed;
      }
      put(stepButton, "step", t.step);
      if (shown.cron !== t.cron) cronEl.dataset.ticks = String(state.clock.cronTicks);
      put(cronEl, "cron", t.cron);
      put(hzEl, "hz", t.hz);
      put(lagEl, "lag", t.lag);
      if (shown.lagging !== t.lagging) {
        shown.lagging = t.lagging;
        lagEl.classList.toggle("is-lagging", t.lagging);
      }
      if (shown.pending !== t.pending) pendingEl.hidden = t.pending === "";
      put(pendingEl, "pending", t.pending);
      if (shown.dropped !== t.dropped) droppedEl.hidden = t.dropped === "";
      put(expiredEl, "expired", t.expired);
      put(droppedEl, "dropped", t.dropped);
    },
  };
}
