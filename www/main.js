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
import { createExpiryView } from "./views/expiry-view.js";
import { createViewTabs } from "./views/view-tabs.js";

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
  let expiryView = null;
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
        expiryView?.refresh();
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

  // `#expiry` in the URL opens the expiry view in the right-hand panel.
  const panelView = window.location.hash === "#expiry" ? "expiry" : "zset";
  const store = createStore(createInitialState({ seed: params.seed, startMs: params.startMs, panelView }));
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
      expiryView.refresh();
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
    expireField: (db, cells) => engine.expireField(db, cells),
    expireBuckets: (db, start, count) => engine.expireBuckets(db, start, count),
  };
  const invalidate = () => loop?.wake();
  keyspaceView = createKeyspaceView(document.getElementById("keyspace"), { source, store, invalidate });
  zsetView = createZsetView(document.getElementById("zset"), { source, store, invalidate });
  expiryView = createExpiryView(document.getElementById("expiry"), {
    source,
    store,
    invalidate,
    actions: {
      configGet(name) {
        const r = engine.command(["CONFIG", "GET", name]);
        const items = r.reply?.type === "array" ? r.reply.value : [];
        return items.length >= 2 ? String(items[1].value) : null;
      },
      configSet(name, value) {
        const r = engine.command(["CONFIG", "SET", name, value]);
        // Say in the console what was run, so the control teaches the command.
        consoleView?.printNote(`(expiry view) CONFIG SET ${name} ${value} → ${r.text.trim()}`);
        loop.wake();
        return { ok: r.reply?.type === "status", text: r.text };
      },
      populate({ db, count, prefix, minMs, maxMs, distribution }) {
        const made = engine.populate(db, count, prefix, minMs, maxMs, distribution);
        keyspaceView.refresh();
        loop.wake();
        return made;
      },
    },
  });
  loop = createLoop({ engine, store, views: [clockView, keyspaceView, zsetView, expiryView] });
  createViewTabs(document.querySelector(".view-tabs"), store);
  // Clicking a sorted set in the keyspace list shows it: bring its view forward.
  document.getElementById("keyspace").addEventListener("click", (event) => {
    if (event.target instanceof Element && event.target.closest('.keyspace-row[data-type="zset"]')) {
      store.set({ panelView: "zset" });
    }
  });

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
  expiryView.start();
  consoleView.focus();
  Object.assign(pageParts, { engine, store, loop, views: { keyspace: keyspaceView, zset: zsetView, expiry: expiryView } });
  document.documentElement.dataset.boot = "ready";
}

boot().catch((err) => {
  console.error("redisplay: boot failed", err);
  showBootFailure(`The playground could not start: ${describeError(err)}.`);
});
