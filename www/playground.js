// @ts-check
// A playground mounted in a piece of markup: one engine, its store, its loop, its consoles and
// the views the markup has room for. The page (main.js) mounts one in the document; every
// <redis-playground> widget (widget.js) mounts its own in its shadow root — no singletons, so
// any number can live on one page, each with its own seed, clock and config.
//
// The markup is found by id *inside `root`* (root.getElementById), never in the document:
//   #console      the consoles (required)           #clock     the clock bar
//   #keyspace     the keyspace list                 #zset      the sorted-set view
//   #expiry       the expiry view                   #eviction  the eviction view
//   #delay-queue  the delay-queue lab               #persistence the files and the propagation stream
//   .view-tabs    the tabs over the right panel
// A view whose element is absent (or left out of `options.views`) is simply not mounted.
//
// What belongs to the host stays with the host: reading the URL, where messages go (`notify`),
// what the welcome lines say. Loading failures reject the returned promise with engine.js's
// EngineLoadError; nothing here throws on user input.

import { createEngine } from "./engine.js";
import { describeError } from "./format.js";
import { t } from "./i18n.js";
import { createInitialState, createStore, isPanelView } from "./store.js";
import { createLoop } from "./loop.js";
import { createConsoles } from "./console/consoles.js";
import { buildCompletionEntries } from "./console/completion.js";
import { createClockView, formatClock } from "./views/clock-view.js";
import { createKeyspaceView } from "./views/keyspace-view.js";
import { createPersistenceView } from "./views/persistence-view.js";
import { createZsetView } from "./views/zset-view.js";
import { createExpiryView } from "./views/expiry-view.js";
import { createEvictionView } from "./views/eviction-view.js";
import { createWorkloadDriver } from "./workload.js";
import { createViewTabs } from "./views/view-tabs.js";
import { createDelayQueueRunner } from "./labs/delay-queue-runner.js";
import { createDelayQueueView } from "./views/delay-queue-view.js";

/** The parts a playground can show, by the id of their element. */
export const PLAYGROUND_VIEWS = Object.freeze(["console", "clock", "keyspace", "zset", "expiry", "eviction", "delay-queue", "persistence"]);

/**
 * Keys a read-only console still takes: Enter runs the line shown (the host put it there),
 * Ctrl-C leaves a wait; Tab moves the focus on instead of completing.
 * @param {HTMLElement} consoleRoot
 */
function guardReadOnly(consoleRoot) {
  consoleRoot.dataset.readOnly = "true";
  /**
   * @param {EventTarget | null} t
   * @returns {t is HTMLInputElement}
   */
  const isInput = (t) => t instanceof HTMLInputElement && t.classList.contains("cmdline");
  consoleRoot.addEventListener(
    "keydown",
    (event) => {
      if (!isInput(event.target)) return;
      const allowed = event.key === "Enter" || (event.ctrlKey && (event.key === "c" || event.key === "C"));
      if (!allowed) event.stopPropagation(); // the console never sees it; Tab keeps its default
    },
    true,
  );
  for (const type of ["paste", "beforeinput", "drop"]) {
    consoleRoot.addEventListener(
      type,
      (event) => {
        if (!isInput(event.target)) return;
        event.preventDefault();
        event.stopPropagation();
      },
      true,
    );
  }
  // Inputs are created per console: mark each read-only as it gets the focus.
  consoleRoot.addEventListener("focusin", (event) => {
    if (isInput(event.target)) {
      event.target.readOnly = true;
      event.target.setAttribute("aria-readonly", "true");
    }
  });
}

/**
 * localStorage, or null where it cannot be used (a sandboxed frame, a private window).
 * @returns {import("./console/consoles").PrefsStorage | null}
 */
function pageStorage() {
  try {
    const s = window.localStorage;
    return { get: (k) => s.getItem(k), set: (k, v) => s.setItem(k, v) };
  } catch {
    return null;
  }
}

/**
 * Mounts a playground.
 *
 * @param {Document|ShadowRoot} root  holds the markup (ids scoped to it)
 * @param {object} options
 * @param {number} options.seed          the engine's RNG seed
 * @param {number} options.startMs       the virtual clock's start, Unix ms
 * @param {string} [options.panelView]   the view the right-hand panel opens with (PANEL_VIEWS)
 * @param {readonly string[]|null} [options.views]  the parts to mount (PLAYGROUND_VIEWS); null: all the markup has
 * @param {boolean} [options.paused]     start with the clock paused
 * @param {boolean} [options.readOnly]   no typing in the consoles: lines come from `run(line)`
 * @param {string[]} [options.welcome]   lines the first console prints first
 * @param {(text: string, kind: import("./notices").NoticeKind) => void} [options.notify]  messages for the user
 * @param {(result: import("./engine/plain").LineResult, line: string, n: number) => void} [options.onRun]  after each console line
 * @param {(parts: object) => void} [options.onBoot]  once everything is mounted and running (the parts as returned)
 * @param {() => boolean | Promise<boolean>} [options.confirmReset]  asked before the clock bar's Reset discards the engine (default: yes)
 * @param {import("./loop").Visibility} [options.doc]
 *        what says whether the playground is out of sight (`hidden` + "visibilitychange")
 * Returns the parts: `{engine, store, loop, consoles, views, delayQueue, workload, run, reset, destroy}`.
 * @throws {import("./engine").EngineLoadError} when the engine cannot be loaded
 */
export async function mountPlayground(root, options) {
  const {
    seed,
    startMs,
    panelView = "zset",
    views = null,
    paused = false,
    readOnly = false,
    welcome = [],
    notify = () => {},
    onRun = () => {},
    onBoot = () => {},
    confirmReset = () => true,
    doc = document,
  } = options;
  /** @param {string} id */
  const find = (id) => (views === null || views.includes(id) ? root.getElementById(id) : null);
  const consoleEl = find("console") ?? root.getElementById("console");
  if (consoleEl === null) throw new Error("mountPlayground: the markup has no #console element");

  // Made below, in order; the engine's crash callbacks (and the clock bar's buttons) may run
  // before the later ones exist.
  /** @type {import("./console/consoles").ConsoleView | null} */
  let consoleView = null;
  /** @type {ReturnType<typeof createConsoles> | null} */
  let consoles = null;
  /** @type {ReturnType<typeof createKeyspaceView> | null} */
  let keyspaceView = null;
  /** @type {ReturnType<typeof createZsetView> | null} */
  let zsetView = null;
  /** @type {ReturnType<typeof createExpiryView> | null} */
  let expiryView = null;
  /** @type {ReturnType<typeof createEvictionView> | null} */
  let evictionView = null;
  /** @type {ReturnType<typeof createPersistenceView> | null} */
  let persistenceView = null;
  /** @type {ReturnType<typeof createLoop> | null} */
  let loop = null;
  let destroyed = false;
  const engine = await createEngine({
    seed,
    startMs,
    onCrash({ operation, error }) {
      if (destroyed) return;
      console.error(`redisplay: the engine failed in ${operation}`, error);
      const restarting = operation !== "restart";
      notify(
        restarting
          ? t(
              "The engine hit an internal error ({error}) and is being restarted with the same seed at the same virtual time. Keys and settings were lost. This is a bug in redisplay.",
              { error: describeError(error) },
            )
          : t("The engine could not be restarted ({error}). Reload the page.", { error: describeError(error) }),
        "error",
      );
    },
    onRecovered() {
      if (destroyed) return;
      consoles?.engineRecreated();
      consoleView?.setPrompt(engine.prompt());
      consoleView?.printNote(t("(redisplay) the engine was restarted after an internal error; the keyspace is empty."));
      keyspaceView?.refresh();
      zsetView?.refresh();
      expiryView?.refresh();
      evictionView?.refresh();
      loop?.redrawAll();
    },
  });

  const store = createStore(
    createInitialState({ seed, startMs, paused, panelView: isPanelView(panelView) ? panelView : "zset" }),
  );
  const clockEl = find("clock");
  const clockView =
    clockEl &&
    createClockView(clockEl, {
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
        loop?.advanceBy(Math.max(1, engine.nextCronMs() - engine.now()));
      },
      jump(ms) {
        loop?.advanceBy(ms);
      },
      async reset() {
        if (await confirmReset()) resetEngine();
      },
    });
  /** A fresh engine with the same seed and start time (the clock bar's Reset, a widget's). */
  function resetEngine() {
    engine.reset();
    loop?.cancelPending();
    store.set({ selectedDb: 0, selectedKey: null });
    refreshViews();
    consoleView?.setPrompt(engine.prompt());
    consoleView?.printNote(t("(redisplay) reset: a fresh engine with seed {seed}, clock back to {clock}.", { seed, clock: formatClock(engine.now()) }));
  }
  /** The views read the engine again (after a reset, or a dataset loaded from a file). */
  function refreshViews() {
    keyspaceView?.refresh();
    zsetView?.refresh();
    expiryView?.refresh();
    evictionView?.refresh();
    persistenceView?.refresh();
    loop?.wake();
  }
  // The keyspace and sorted-set views read windowed snapshots through this, never the engine.
  const source = {
    currentDb: () => engine.currentDb(),
    keyspace: (db, offset, count, pattern) => engine.keyspace(db, offset, count, pattern),
    zsetWindow: (db, key, start, count) => engine.zsetWindow(db, key, start, count),
    expireField: (db, cells) => engine.expireField(db, cells),
    expireBuckets: (db, start, count) => engine.expireBuckets(db, start, count),
    info: (sections) => engine.info(sections),
    persistence: () => engine.persistence(),
    replication: () => engine.replication(),
  };
  const invalidate = () => loop?.wake();
  const configGet = (name) => engine.configGet(name);
  const keyspaceEl = find("keyspace");
  if (keyspaceEl) keyspaceView = createKeyspaceView(keyspaceEl, { source, store, invalidate });
  const zsetEl = find("zset");
  if (zsetEl) zsetView = createZsetView(zsetEl, { source, store, invalidate });
  const expiryEl = find("expiry");
  if (expiryEl) {
    expiryView = createExpiryView(expiryEl, {
      source,
      store,
      invalidate,
      actions: {
        configGet,
        configSet(name, value) {
          const r = engine.command(["CONFIG", "SET", name, value]);
          // Say in the console what was run, so the control teaches the command.
          consoleView?.printNote(t("(expiry view) {command} → {reply}", { command: `CONFIG SET ${name} ${value}`, reply: r.text.trim() }));
          loop?.wake();
          return { ok: r.reply?.type === "status", text: r.text };
        },
        populate({ db, count, prefix, minMs, maxMs, distribution }) {
          const made = engine.populate(db, count, prefix, minMs, maxMs, distribution);
          keyspaceView?.refresh();
          loop?.wake();
          return made;
        },
      },
    });
  }
  const persistenceEl = find("persistence");
  if (persistenceEl) persistenceView = createPersistenceView(persistenceEl, {
      source,
      invalidate,
      link: {
        setLatency: (ms) => engine.setLinkLatency(ms),
        setDown: (down) => engine.setLinkDown(down),
      },
    });
  // Every frame, the consoles print what arrived without input (messages, late replies).
  const consolePoll = { update: () => consoles?.update() ?? false, draw() {} };
  const workload = createWorkloadDriver({ engine });
  const note = (text) => consoleView?.printNote(text);
  const evictionEl = find("eviction");
  if (evictionEl) {
    evictionView = createEvictionView(evictionEl, {
      store,
      invalidate,
      actions: {
        configGet,
        configSet(name, value) {
          const r = engine.command(["CONFIG", "SET", name, value]);
          note(t("(eviction view) {command} → {reply}", { command: `CONFIG SET ${name} ${value}`, reply: r.text.trim() }));
          loop?.wake();
          return { ok: r.reply?.type === "status", text: r.text };
        },
        /** A command the view runs on the user's behalf (FLUSHALL), echoed in the console. */
        run(args) {
          const r = engine.command(args);
          note(t("(eviction view) {command} → {reply}", { command: args.join(" "), reply: r.text.trim() }));
          keyspaceView?.refresh();
          loop?.wake();
          return r;
        },
        info: (section) => engine.info(section),
        note,
        lruExperiment: (keys, samples, lruSeed) => engine.lruExperiment(keys, samples, lruSeed),
        workload: {
          start(spec, opts) {
            const run = workload.start(spec, opts);
            loop?.wake();
            return run;
          },
          stop() {
            workload.stop();
            loop?.wake();
          },
          status: () => workload.status(),
          compare({ spec, config }) {
            const job = workload.compare({ spec, config, seed, startMs });
            loop?.wake();
            return job;
          },
          cancelCompare() {
            workload.cancelCompare();
            loop?.wake();
          },
          forget: () => workload.forget(),
        },
      },
    });
  }
  // The delay-queue lab runs simulated clients on engines of its own, on its own clock and
  // its own frames (labs/delay-queue-runner.js): the loop and the clock bar do not drive it.
  /** @type {ReturnType<typeof createDelayQueueRunner> | null} */
  let delayQueueRunner = null;
  /** @type {ReturnType<typeof createDelayQueueView> | null} */
  let delayQueueView = null;
  const delayQueueEl = find("delay-queue");
  if (delayQueueEl) {
    delayQueueRunner = createDelayQueueRunner({
      doc,
      labs: {
        create: (config) => engine.createDelayQueueLab(config),
        strategyName: (n) => engine.delayQueueStrategy(n).name,
        strategyCode: (n) => engine.delayQueueStrategy(n).code,
      },
    });
    // (any: the views are typed by their own module, www/views/, which is being rewritten.)
    delayQueueView = createDelayQueueView(delayQueueEl, /** @type {any} */ ({ runner: delayQueueRunner, store }));
  }
  // The first time its tab is shown, the lab is set up with the seeds' walkthrough, paused.
  let labOpened = false;
  /** @param {Readonly<import("./store").State>} s */
  const openLab = (s) => {
    if (labOpened || delayQueueView === null || s.panelView !== "delay-queue") return;
    labOpened = true;
    const r = delayQueueView.loadPreset("walkthrough");
    if (!r.ok) {
      const why = "errors" in r ? Object.values(r.errors).join(" ") : (r.error ?? "");
      notify(t("The delay-queue lab could not start: {why}", { why }), "error");
    }
  };
  store.subscribe(openLab);
  /** @type {import("./loop").LoopView[]} */
  const loopViews = [];
  for (const view of [clockView, keyspaceView, zsetView, expiryView, evictionView, persistenceView, consolePoll]) if (view) loopViews.push(view);
  loop = createLoop({ engine, store, driver: workload, views: loopViews, doc });
  const tablist = root.querySelector(".view-tabs");
  if (tablist instanceof HTMLElement) createViewTabs(tablist, store);
  // Clicking a sorted set in the keyspace list shows it: bring its view forward.
  keyspaceEl?.addEventListener("click", (event) => {
    if (zsetView && event.target instanceof Element && event.target.closest('.keyspace-row[data-type="zset"]')) {
      store.set({ panelView: "zset" });
    }
  });

  if (readOnly) guardReadOnly(consoleEl);
  consoles = createConsoles(consoleEl, {
    engine,
    onRun(result, line, n) {
      evictionView?.noteReply(result.reply, line);
      loop.wake(); // the line may have changed the clock or produced events
      onRun(result, line, n);
    },
    completions: buildCompletionEntries(engine.commands()),
    welcome,
    // The page remembers each console's --raw switch; a widget (in a shadow root) does not.
    storage: root instanceof Document ? pageStorage() : null,
  });
  consoleView = consoles.primary;

  loop.start();
  expiryView?.start();
  evictionView?.start();
  openLab(store.get());

  const parts = {
    engine,
    store,
    loop,
    consoles,
    workload,
    views: { clock: clockView, keyspace: keyspaceView, zset: zsetView, expiry: expiryView, eviction: evictionView, delayQueue: delayQueueView, persistence: persistenceView },
    delayQueue: delayQueueRunner,
    /** Runs a line on console `n` as if it had been typed there and sent with Enter. */
    run(line, n = 0) {
      if (!destroyed) consoles.submitOn(n, line);
    },
    /** A fresh engine with the same seed and start time; the consoles say so. */
    reset() {
      if (!destroyed) resetEngine();
    },
    /** The server's RDB file as SAVE would write it now (dump.rdb's bytes). */
    rdbImage: () => engine.rdbImage(),
    /**
     * Loads an RDB file as the server's own (engine.loadRdb); when it loaded, the views show the
     * new dataset. The result says what it did, or why nothing changed.
     * @param {Uint8Array} bytes
     * @returns {import("./engine/plain").LoadResult}
     */
    loadRdb(bytes) {
      if (destroyed) return { ok: false, error: t("the playground was closed") };
      const r = engine.loadRdb(bytes);
      if (r.ok) refreshViews();
      return r;
    },
    /** Stops the loop and the labs and frees the engine; the markup stays as it is. */
    destroy() {
      if (destroyed) return;
      destroyed = true;
      loop.stop();
      workload.stop();
      workload.cancelCompare();
      delayQueueRunner?.dispose();
      engine.free();
    },
  };
  onBoot(parts);
  return parts;
}

/** What mountPlayground() resolves to (a widget's `playground`, the page's `pageParts`). */
/** @typedef {Awaited<ReturnType<typeof mountPlayground>>} PlaygroundParts */
