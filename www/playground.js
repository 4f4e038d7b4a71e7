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
// The panel views but the sorted-set view (the page's first screen) load their modules the first
// time their panel is shown (VIEW_MODULES, a dynamic import): a first screen without them does
// not fetch them. What such a view shows from before it was opened — the expiry charts and
// monitor, the evictions, the propagation stream — is kept from the start by its small tracker
// (expiry-tracker.js and the like, in www/views/), which stands in for it in the loop until it is made and then hands
// it its state. The panel the playground opens with, and `options.preload`, are made before the
// returned promise resolves; `loadViews(names)` makes others ahead (a lab's).
//
// What belongs to the host stays with the host: reading the URL, where messages go (`notify`),
// what the welcome lines say. Loading failures reject the returned promise with engine.js's
// EngineLoadError; nothing here throws on user input.

import { createEngine } from "./engine.js";
import { describeError } from "./format.js";
import { t } from "./i18n.js";
import { PANEL_VIEWS, createInitialState, createStore, isPanelView } from "./store.js";
import { createLoop } from "./loop.js";
import { createConsoles } from "./console/consoles.js";
import { buildCompletionEntries } from "./console/completion.js";
import { createClockView, formatClock } from "./views/clock-view.js";
import { createKeyspaceView } from "./views/keyspace-view.js";
import { createZsetView } from "./views/zset-view.js";
import { createExpiryTracker } from "./views/expiry-tracker.js";
import { createEvictionTracker } from "./views/eviction-tracker.js";
import { createPersistenceTracker } from "./views/persistence-tracker.js";
import { createWorkloadDriver } from "./workload.js";
import { createViewTabs } from "./views/view-tabs.js";

/**
 * The modules of the views made when their panel is first shown (literal paths: the single-file
 * build and the npm package follow them; scripts/preload-list.mjs leaves them out).
 */
const VIEW_MODULES = {
  expiry: () => import("./views/expiry-view.js"),
  eviction: () => import("./views/eviction-view.js"),
  persistence: () => import("./views/persistence-view.js"),
  "delay-queue": () => Promise.all([import("./labs/delay-queue-runner.js"), import("./views/delay-queue-view.js")]),
};

/**
 * Whether `name` is a view VIEW_MODULES loads.
 * @param {string} name
 * @returns {name is keyof typeof VIEW_MODULES}
 */
const isLazyView = (name) => Object.hasOwn(VIEW_MODULES, name);

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
 * @param {readonly string[]} [options.preload]  views to have made before the promise resolves (a widget's panels)
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
 * Returns the parts: `{engine, store, loop, consoles, views, panels, loadViews, delayQueue, workload, run, reset, destroy}`
 * (`views` fills in as views are made; `delayQueue`, the lab's runner, once its view is).
 * @throws {import("./engine").EngineLoadError} when the engine cannot be loaded
 */
export async function mountPlayground(root, options) {
  const {
    seed,
    startMs,
    panelView = "zset",
    views = null,
    preload = [],
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
  // The first panel's modules come while the engine loads.
  /** @param {string} name */
  const hasElement = (name) => find(name) !== null;
  const early = [panelView, ...preload].filter((v) => isLazyView(v) && hasElement(v)).map((v) => VIEW_MODULES[v]().catch(() => null));

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
  /** @type {ReturnType<typeof import("./views/expiry-view.js").createExpiryView> | null} */
  let expiryView = null;
  /** @type {ReturnType<typeof import("./views/eviction-view.js").createEvictionView> | null} */
  let evictionView = null;
  /** @type {ReturnType<typeof import("./views/persistence-view.js").createPersistenceView> | null} */
  let persistenceView = null;
  /** @type {ReturnType<typeof createExpiryTracker> | null} */
  let expiryTracker = null;
  /** @type {ReturnType<typeof createEvictionTracker> | null} */
  let evictionTracker = null;
  /** @type {ReturnType<typeof createPersistenceTracker> | null} */
  let persistenceTracker = null;
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
      refreshExpiry();
      refreshEviction();
      loop?.redrawAll();
    },
  });
  await Promise.all(early);

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
    refreshExpiry();
    refreshEviction();
    if (persistenceView) persistenceView.refresh();
    else persistenceTracker?.restart();
    loop?.wake();
  }
  // A view not made yet starts over in its tracker (as its refresh() would).
  function refreshExpiry() {
    if (expiryView) expiryView.refresh();
    else expiryTracker?.restart();
  }
  function refreshEviction() {
    if (evictionView) evictionView.refresh();
    else if (evictionTracker) {
      evictionTracker.restart();
      workload.forget();
    }
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
  /** @type {import("./views/expiry-view.js").ExpiryActions} */
  const expiryActions = {
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
  };
  if (expiryEl) expiryTracker = createExpiryTracker({ source, configGet });
  const persistenceEl = find("persistence");
  if (persistenceEl) persistenceTracker = createPersistenceTracker();
  // Every frame, the consoles print what arrived without input (messages, late replies).
  const consolePoll = { update: () => consoles?.update() ?? false, draw() {} };
  const workload = createWorkloadDriver({ engine });
  const note = (text) => consoleView?.printNote(text);
  const evictionEl = find("eviction");
  /** @type {import("./views/eviction-view.js").EvictionActions} */
  const evictionActions = {
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
  };
  if (evictionEl) evictionTracker = createEvictionTracker({ configGet, workloadStatus: () => workload.status(), store, invalidate });
  // The delay-queue lab runs simulated clients on engines of its own, on its own clock and
  // its own frames (labs/delay-queue-runner.js): the loop and the clock bar do not drive it.
  /** @type {ReturnType<typeof import("./labs/delay-queue-runner.js").createDelayQueueRunner> | null} */
  let delayQueueRunner = null;
  /** @type {ReturnType<typeof import("./views/delay-queue-view.js").createDelayQueueView> | null} */
  let delayQueueView = null;
  const delayQueueEl = find("delay-queue");
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

  // The views, those made on demand as they are made (the parts' `views`).
  /**
   * @type {{clock: typeof clockView, keyspace: typeof keyspaceView, zset: typeof zsetView,
   *   expiry: ReturnType<typeof import("./views/expiry-view.js").createExpiryView> | null,
   *   eviction: ReturnType<typeof import("./views/eviction-view.js").createEvictionView> | null,
   *   delayQueue: ReturnType<typeof import("./views/delay-queue-view.js").createDelayQueueView> | null,
   *   persistence: ReturnType<typeof import("./views/persistence-view.js").createPersistenceView> | null}}
   */
  const madeViews = {
    clock: clockView,
    keyspace: keyspaceView,
    zset: zsetView,
    expiry: expiryView,
    eviction: evictionView,
    delayQueue: delayQueueView,
    persistence: persistenceView,
  };
  /** The panel views this playground has (their element is in the markup). */
  const panels = PANEL_VIEWS.filter(hasElement);
  /**
   * Makes view `name` from its module (imported now, or already).
   * @param {keyof typeof VIEW_MODULES} name
   */
  async function makeView(name) {
    const loaded = await VIEW_MODULES[name]();
    if (destroyed) return;
    made.add(name);
    if (name === "expiry" && expiryEl && expiryTracker) {
      const m = /** @type {typeof import("./views/expiry-view.js")} */ (loaded);
      expiryView = m.createExpiryView(expiryEl, { source, store, invalidate, tracker: expiryTracker, actions: expiryActions });
      madeViews.expiry = expiryView;
    } else if (name === "eviction" && evictionEl && evictionTracker) {
      const m = /** @type {typeof import("./views/eviction-view.js")} */ (loaded);
      evictionView = m.createEvictionView(evictionEl, { store, invalidate, tracker: evictionTracker, actions: evictionActions });
      madeViews.eviction = evictionView;
    } else if (name === "persistence" && persistenceEl && persistenceTracker) {
      const m = /** @type {typeof import("./views/persistence-view.js")} */ (loaded);
      persistenceView = m.createPersistenceView(persistenceEl, {
        source,
        invalidate,
        tracker: persistenceTracker,
        link: {
          setLatency: (ms) => engine.setLinkLatency(ms),
          setDown: (down) => engine.setLinkDown(down),
        },
      });
      madeViews.persistence = persistenceView;
    } else if (name === "delay-queue" && delayQueueEl) {
      const [runnerModule, viewModule] = /** @type {[typeof import("./labs/delay-queue-runner.js"), typeof import("./views/delay-queue-view.js")]} */ (loaded);
      delayQueueRunner = runnerModule.createDelayQueueRunner({
        doc,
        labs: {
          create: (config) => engine.createDelayQueueLab(config),
          strategyName: (n) => engine.delayQueueStrategy(n).name,
          strategyCode: (n) => engine.delayQueueStrategy(n).code,
        },
      });
      // (any: the views are typed by their own module, www/views/, which is being rewritten.)
      delayQueueView = viewModule.createDelayQueueView(delayQueueEl, /** @type {any} */ ({ runner: delayQueueRunner, store }));
      madeViews.delayQueue = delayQueueView;
      openLab(store.get());
    }
    loop?.wake();
  }
  /** @type {Map<string, Promise<void>>} */
  const making = new Map();
  /** @type {Set<string>} the views made so far */
  const made = new Set();
  /**
   * Makes the views named (those this playground has and has not made yet); resolves once they
   * are made. A module that cannot be loaded is said, and tried again the next time.
   * @param {readonly string[]} names
   */
  function loadViews(names) {
    const waits = [];
    for (const name of names) {
      if (!isLazyView(name) || !hasElement(name)) continue;
      let p = making.get(name);
      if (!p) {
        p = makeView(name).catch((err) => {
          making.delete(name);
          console.error(`redisplay: the ${name} view could not be loaded`, err);
          notify(t("This view could not be loaded ({error}). Open its tab again to try once more.", { error: describeError(err) }), "error");
        });
        making.set(name, p);
      }
      waits.push(p);
    }
    return Promise.all(waits).then(() => {});
  }
  // A panel is made when it is first shown (a tab, a lab's step, a link).
  store.subscribe((s) => {
    void loadViews([s.panelView]);
  });
  /** @type {import("./loop").LoopView[]} */
  const loopViews = [];
  // A view made on demand is driven through its tracker until it exists, then itself.
  /**
   * @param {() => import("./loop").LoopView} current
   * @returns {import("./loop").LoopView}
   */
  const onDemand = (current) => ({
    update: (events, s) => current().update(events, s),
    draw: (s) => current().draw(s),
    animating: () => current().animating?.() ?? false,
  });
  const expiryLoopView = expiryTracker && onDemand(() => expiryView ?? /** @type {import("./loop").LoopView} */ (expiryTracker));
  const evictionLoopView = evictionTracker && onDemand(() => evictionView ?? /** @type {import("./loop").LoopView} */ (evictionTracker));
  const persistenceLoopView = persistenceTracker && onDemand(() => persistenceView ?? /** @type {import("./loop").LoopView} */ (persistenceTracker));
  for (const view of [clockView, keyspaceView, zsetView, expiryLoopView, evictionLoopView, persistenceLoopView, consolePoll]) if (view) loopViews.push(view);
  loop = createLoop({ engine, store, driver: workload, views: loopViews, doc });
  const tablist = root.querySelector(".view-tabs");
  // A panel whose view is still coming stays out of sight until it is made.
  if (tablist instanceof HTMLElement) createViewTabs(tablist, store, { ready: (v) => (isLazyView(v) && hasElement(v) && !made.has(v) ? loadViews([v]) : null) });
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
      evictionTracker?.noteReply(result.reply, line);
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
  expiryTracker?.start();
  evictionTracker?.readConfig();
  loop.wake();
  await loadViews([store.get().panelView, ...preload]);

  const parts = {
    engine,
    store,
    loop,
    consoles,
    workload,
    views: madeViews,
    panels,
    loadViews,
    /** The delay-queue lab's runner, once its view is made (null before). */
    get delayQueue() {
      return delayQueueRunner;
    },
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
