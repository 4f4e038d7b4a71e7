// Boot: read the URL, load the engine, mount the console and the clock, start the loop.
//
// Whatever goes wrong while booting ends as a readable message in the page (#boot-status),
// never a blank page. `<html data-boot="ready|failed">` says how it ended (the e2e tests wait
// for it).

import { createEngine, EngineLoadError } from "./engine.js";
import { parseBootParams } from "./params.js";
import { createInitialState, createStore, PANEL_VIEWS } from "./store.js";
import { createLoop } from "./loop.js";
import { createNotices } from "./notices.js";
import { createConsoles } from "./console/consoles.js";
import { buildCompletionEntries } from "./console/completion.js";
import { createClockView, formatClock } from "./views/clock-view.js";
import { createKeyspaceView } from "./views/keyspace-view.js";
import { createZsetView } from "./views/zset-view.js";
import { createExpiryView } from "./views/expiry-view.js";
import { createEvictionView } from "./views/eviction-view.js";
import { createWorkloadDriver } from "./workload.js";
import { createViewTabs } from "./views/view-tabs.js";
import { createDelayQueueRunner } from "./labs/delay-queue-runner.js";
import { createDelayQueueView } from "./views/delay-queue-view.js";

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
  let consoles = null;
  let keyspaceView = null;
  let zsetView = null;
  let expiryView = null;
  let evictionView = null;
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
        consoles?.engineRecreated();
        consoleView?.setPrompt(engine.prompt());
        consoleView?.printNote("(redisplay) the engine was restarted after an internal error; the keyspace is empty.");
        keyspaceView?.refresh();
        zsetView?.refresh();
        expiryView?.refresh();
        evictionView?.refresh();
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

  // `#expiry`, `#eviction` or `#delay-queue` in the URL opens that view in the right-hand panel.
  const hashView = window.location.hash.slice(1);
  const panelView = PANEL_VIEWS.includes(hashView) ? hashView : "zset";
  const store = createStore(createInitialState({ seed: params.seed, startMs: params.startMs, panelView }));
  const clockView = createClockView(document.getElementById("clock"), {
    togglePause() {
      store.set({ paused: !store.get().paused });
    },
    setSpeed(speed) {
      store.set({ speed });
    },
    step() {
      // A step is for looking closely: stop playback, then run exactly to the next cron tick
      // (after CONFIG SET hz it still falls on the old schedule, as in Redis).
      store.set({ paused: true });
      loop.advanceBy(Math.max(1, engine.nextCronMs() - engine.now()));
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
      evictionView.refresh();
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
  // Every frame, the consoles print what arrived without input (messages, late replies).
  const consolePoll = { update: () => consoles?.update() ?? false, draw() {} };
  const workload = createWorkloadDriver({ engine });
  const note = (text) => consoleView?.printNote(text);
  evictionView = createEvictionView(document.getElementById("eviction"), {
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
        note(`(eviction view) CONFIG SET ${name} ${value} → ${r.text.trim()}`);
        loop.wake();
        return { ok: r.reply?.type === "status", text: r.text };
      },
      /** A command the view runs on the user's behalf (FLUSHALL), echoed in the console. */
      run(args) {
        const r = engine.command(args);
        note(`(eviction view) ${args.join(" ")} → ${r.text.trim()}`);
        keyspaceView.refresh();
        loop.wake();
        return r;
      },
      info: (section) => engine.info(section),
      note,
      lruExperiment: (keys, samples, seed) => engine.lruExperiment(keys, samples, seed),
      workload: {
        start(spec, options) {
          const run = workload.start(spec, options);
          loop.wake();
          return run;
        },
        stop() {
          workload.stop();
          loop.wake();
        },
        status: () => workload.status(),
        compare({ spec, config }) {
          const job = workload.compare({ spec, config, seed: params.seed, startMs: params.startMs });
          loop.wake();
          return job;
        },
        cancelCompare() {
          workload.cancelCompare();
          loop.wake();
        },
        forget: () => workload.forget(),
      },
    },
  });
  // The delay-queue lab runs simulated clients on engines of its own, on its own clock and
  // its own frames (labs/delay-queue-runner.js): the loop and the clock bar do not drive it.
  const delayQueueRunner = createDelayQueueRunner({
    labs: {
      create: (config) => engine.createDelayQueueLab(config),
      strategyName: (n) => engine.delayQueueStrategy(n).name,
      strategyCode: (n) => engine.delayQueueStrategy(n).code,
    },
  });
  const delayQueueView = createDelayQueueView(document.getElementById("delay-queue"), { runner: delayQueueRunner, store });
  // The first time its tab is shown, the lab is set up with the seeds' walkthrough, paused.
  let labOpened = false;
  const openLab = (s) => {
    if (labOpened || s.panelView !== "delay-queue") return;
    labOpened = true;
    const r = delayQueueView.loadPreset("walkthrough");
    if (!r.ok) notices.show(`The delay-queue lab could not start: ${r.error ?? Object.values(r.errors ?? {}).join(" ")}`, "error");
  };
  store.subscribe(openLab);
  loop = createLoop({ engine, store, driver: workload, views: [clockView, keyspaceView, zsetView, expiryView, evictionView, consolePoll] });
  createViewTabs(document.querySelector(".view-tabs"), store);
  // Clicking a sorted set in the keyspace list shows it: bring its view forward.
  document.getElementById("keyspace").addEventListener("click", (event) => {
    if (event.target instanceof Element && event.target.closest('.keyspace-row[data-type="zset"]')) {
      store.set({ panelView: "zset" });
    }
  });

  document.getElementById("boot-status").hidden = true;
  const link = permalink(params.seed, params.startMs);
  consoles = createConsoles(document.getElementById("console"), {
    engine,
    onRun(result, line) {
      evictionView.noteReply(result.reply, line);
      loop.wake(); // the line may have changed the clock or produced events
    },
    completions: buildCompletionEntries(engine.commands()),
    welcome: [
      `redisplay — a Redis 7.0 engine running in this page. Seed ${params.seed}, clock starting ${formatClock(params.startMs)}.`,
      "Type redis-cli commands (Tab completes, ↑/↓ recall). Time is virtual: pause, step or jump it above; CLOCK GET|SET|ADVANCE does it from here.",
      "“+ Second client” opens another redis-cli on the same engine: race WATCH, BLPOP or SUBSCRIBE against it.",
      `Same run again: ${link}`,
    ],
  });
  consoleView = consoles.primary;

  loop.start();
  expiryView.start();
  evictionView.start();
  consoleView.focus();
  openLab(store.get());
  Object.assign(pageParts, {
    engine,
    store,
    loop,
    workload,
    views: { keyspace: keyspaceView, zset: zsetView, expiry: expiryView, eviction: evictionView, delayQueue: delayQueueView },
    delayQueue: delayQueueRunner,
  });
  document.documentElement.dataset.boot = "ready";
}

boot().catch((err) => {
  console.error("redisplay: boot failed", err);
  showBootFailure(`The playground could not start: ${describeError(err)}.`);
});
