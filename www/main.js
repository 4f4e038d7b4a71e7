// The page's entry: read the URL, mount the playground (playground.js) in the document, show
// what went wrong in words.
//
// Whatever goes wrong while booting ends as a readable message in the page (#boot-status),
// never a blank page. `<html data-boot="ready|failed">` says how it ended (the e2e tests wait
// for it).

import { EngineLoadError } from "./engine.js";
import { parseBootParams } from "./params.js";
import { PANEL_VIEWS } from "./store.js";
import { createNotices } from "./notices.js";
import { formatClock } from "./views/clock-view.js";
import { mountPlayground } from "./playground.js";

/**
 * The booted page's parts — `{engine, store, loop}` once boot succeeded — for the e2e tests
 * (which load big data sets through the page's own engine) and the devtools console.
 */
export const pageParts = {};

function randomSeed() {
  return crypto.getRandomValues(new Uint32Array(1))[0];
}

function describeError(err) {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

function showBootFailure(message) {
  const status = document.getElementById("boot-status");
  if (status) {
    status.hidden = false;
    status.classList.add("boot-error");
    status.textContent = message;
  }
  document.documentElement.dataset.boot = "failed";
}

function permalink(seed, startMs) {
  const url = new URL(window.location.href);
  url.search = new URLSearchParams({ seed: String(seed), t: String(startMs) }).toString();
  url.hash = "";
  return url.href;
}

async function boot() {
  const params = parseBootParams(window.location.search, { nowMs: Date.now(), randomSeed });
  const notices = createNotices(document.getElementById("notices"));
  for (const problem of params.problems) notices.show(problem, "warning");

  // `#expiry`, `#eviction` or `#delay-queue` in the URL opens that view in the right-hand panel.
  const hashView = window.location.hash.slice(1);
  const panelView = PANEL_VIEWS.includes(hashView) ? hashView : "zset";
  const link = permalink(params.seed, params.startMs);
  let parts;
  try {
    parts = await mountPlayground(document, {
      seed: params.seed,
      startMs: params.startMs,
      panelView,
      notify: (text, kind) => notices.show(text, kind),
      welcome: [
        `redisplay — a Redis 7.0 engine running in this page. Seed ${params.seed}, clock starting ${formatClock(params.startMs)}.`,
        "Type redis-cli commands (Tab completes, ↑/↓ recall). Time is virtual: pause, step or jump it above; CLOCK GET|SET|ADVANCE does it from here.",
        "“+ Second client” opens another redis-cli on the same engine: race WATCH, BLPOP or SUBSCRIBE against it.",
        `Same run again: ${link}`,
      ],
    });
  } catch (err) {
    console.error("redisplay: the engine could not be loaded", err);
    const message =
      err instanceof EngineLoadError
        ? `The playground could not start. ${err.message}`
        : `The playground could not start: ${describeError(err)}.`;
    showBootFailure(message);
    return;
  }

  parts.consoles.primary.focus();
  Object.assign(pageParts, {
    engine: parts.engine,
    store: parts.store,
    loop: parts.loop,
    workload: parts.workload,
    consoles: parts.consoles,
    views: parts.views,
    delayQueue: parts.delayQueue,
    destroy: parts.destroy,
  });
  document.documentElement.dataset.boot = "ready";
}

boot().catch((err) => {
  console.error("redisplay: boot failed", err);
  showBootFailure(`The playground could not start: ${describeError(err)}.`);
});
