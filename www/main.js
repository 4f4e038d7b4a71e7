// Boot: read the URL, load the engine, mount the console and the clock, start the loop.
//
// Whatever goes wrong while booting ends as a readable message in the page (#boot-status),
// never a blank page. `<html data-boot="ready|failed">` says how it ended (the e2e tests wait
// for it).

import { createEngine, EngineLoadError } from "./engine.js";
import { parseBootParams } from "./params.js";
import { createInitialState, createStore } from "./store.js";
import { createLoop } from "./loop.js";
import { createNotices } from "./notices.js";
import { createConsole } from "./console/console-view.js";
import { buildCompletionEntries } from "./console/completion.js";
import { createClockView, formatClock } from "./views/clock-view.js";
import { createKeyspaceView } from "./views/keyspace-view.js";
import { createZsetView } from "./views/zset-view.js";

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

  let consoleView = null;
  let keyspaceView = null;
  let zsetView = null;
  let loop = null;
  let engine;
  try {
    engine = await createEngine({
      seed: params.seed,
      startMs: params.startMs,
      onCrash({ operation, error }) {
        console.error(`redisplay: the engine failed in ${operation}`, error);
        const restarting = operation !== "restart";
        notices.show(
          restarting
            ? `The engine hit an internal error (${describeError(error)}) and is being restarted with the ` +
                "same seed at the same virtual time. Keys and settings were lost. This is a bug in redisplay."
            : `The engine could not be restarted (${describeError(error)}). Reload the page.`,
          "error",
        );
      },
      onRecovered() {
        consoleView?.setPrompt(engine.prompt());
        consoleView?.printNote("(redisplay) the engine was restarted after an internal error; the keyspace is empty.");
        keyspaceView?.refresh();
        zsetView?.refresh();
        loop?.redrawAll();
      },
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

  const store = createStore(createInitialState({ seed: params.seed, startMs: params.startMs }));
  const clockView = createClockView(document.getElementById("clock"), {
    togglePause() {
      store.set({ paused: !store.get().paused });
    },
    setSpeed(speed) {
      store.set({ speed });
    },
    step() {
      // A step is for looking closely: stop playback, then run exactly one cron period.
      store.set({ paused: true });
      loop.advanceBy(engine.cronPeriodMs());
    },
    jump(ms) {
      loop.advanceBy(ms);
    },
    reset() {
      engine.reset();
      loop.cancelPending();
      store.set({ selectedDb: 0, selectedKey: null });
      keyspaceView.refresh();
      zsetView.refresh();
      consoleView.setPrompt(engine.prompt());
      consoleView.printNote(
        `(redisplay) reset: a fresh engine with seed ${params.seed}, clock back to ${formatClock(engine.now())}.`,
      );
    },
  });
  // The keyspace and sorted-set views read windowed snapshots through this, never the engine.
  const source = {
    currentDb: () => engine.currentDb(),
    keyspace: (db, offset, count, pattern) => engine.keyspace(db, offset, count, pattern),
    zsetWindow: (db, key, start, count) => engine.zsetWindow(db, key, start, count),
  };
  const invalidate = () => loop?.wake();
  keyspaceView = createKeyspaceView(document.getElementById("keyspace"), { source, store, invalidate });
  zsetView = createZsetView(document.getElementById("zset"), { source, store, invalidate });
  loop = createLoop({ engine, store, views: [clockView, keyspaceView, zsetView] });

  document.getElementById("boot-status").hidden = true;
  const link = permalink(params.seed, params.startMs);
  consoleView = createConsole(document.getElementById("console"), {
    run(line) {
      const result = engine.execute(line);
      loop.wake(); // the line may have changed the clock or produced events
      return result;
    },
    completions: buildCompletionEntries(engine.commands()),
    prompt: engine.prompt(),
    welcome: [
      `redisplay — a Redis 7.0 engine running in this page. Seed ${params.seed}, clock starting ${formatClock(params.startMs)}.`,
      "Type redis-cli commands (Tab completes, ↑/↓ recall). Time is virtual: pause, step or jump it above; CLOCK GET|SET|ADVANCE does it from here.",
      `Same run again: ${link}`,
    ],
  });

  loop.start();
  consoleView.focus();
  Object.assign(pageParts, { engine, store, loop });
  document.documentElement.dataset.boot = "ready";
}

boot().catch((err) => {
  console.error("redisplay: boot failed", err);
  showBootFailure(`The playground could not start: ${describeError(err)}.`);
});
