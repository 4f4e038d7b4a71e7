// The page's only door to the wasm package (www/pkg, built by scripts/build-web.sh).
//
// It loads and compiles the engine, wraps one `Playground` and hands back plain JS objects.
// Two kinds of failure are turned into readable messages instead of a dead page:
//   - loading: a missing file, an HTML 404 page or garbage instead of wasm, a browser without
//     WebAssembly → `EngineLoadError` with a sentence a user can act on;
//   - a trap while running (a Rust panic is a bug, but must not kill the page) → `onCrash` is
//     told, and the engine is recreated on a *fresh module instance* (a trap can leave the old
//     instance's heap half-updated), with the same seed at the virtual time it had reached.
//
// The package is imported dynamically, never statically: a static import that fails would
// take main.js down with it before it could say anything. The wasm is compiled once per page
// however many engines (widgets) it runs. In the single-file build both files come inline
// (assets.js) and the module's own URL is a blob: URL that nothing can be resolved against.

import { INLINE_ASSETS } from "./assets.js";

const PKG_URL = INLINE_ASSETS ? null : new URL("./pkg/redisplay.js", import.meta.url);
const WASM_URL = INLINE_ASSETS ? null : new URL("./pkg/redisplay_bg.wasm", import.meta.url);

/** Why the engine could not start, in words for the page. `cause` keeps the original error. */
export class EngineLoadError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = "EngineLoadError";
  }
}

function describe(err) {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

function decodeBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function compileInlineWasm() {
  try {
    return await WebAssembly.compile(decodeBase64(INLINE_ASSETS.wasm));
  } catch (err) {
    throw new EngineLoadError(`The engine inlined in this file is not valid WebAssembly (${describe(err)}); the file may be damaged.`, {
      cause: err,
    });
  }
}

/** The compiled engine, shared by every engine of the page; a failure is not kept. */
let compiled = null;
function compiledWasm() {
  if (compiled === null) {
    compiled = (INLINE_ASSETS ? compileInlineWasm() : compileWasm()).catch((err) => {
      compiled = null;
      throw err;
    });
  }
  return compiled;
}

/** Fresh glue instances made so far (each recreated engine gets its own module and memory). */
let freshInstances = 0;

async function compileWasm() {
  let response;
  try {
    response = await fetch(WASM_URL);
  } catch (err) {
    throw new EngineLoadError(
      `The engine file (${WASM_URL.pathname}) could not be downloaded: ${describe(err)}.`,
      { cause: err },
    );
  }
  if (!response.ok) {
    throw new EngineLoadError(
      `The engine file (${WASM_URL.pathname}) could not be loaded: the server answered ` +
        `HTTP ${response.status}. If you are running from a checkout, build it with ./scripts/build-web.sh.`,
    );
  }
  try {
    const bytes = await response.arrayBuffer();
    return await WebAssembly.compile(bytes);
  } catch (err) {
    throw new EngineLoadError(
      `The engine file (${WASM_URL.pathname}) is not valid WebAssembly, so the engine cannot ` +
        `start (${describe(err)}). The file may be damaged or from a broken build; rebuild it ` +
        "with ./scripts/build-web.sh or reload the page.",
      { cause: err },
    );
  }
}

let inlineGlueUrl = null;
function importInlineGlue(generation) {
  const blobUrl = () => URL.createObjectURL(new Blob([INLINE_ASSETS.glue], { type: "text/javascript" }));
  if (generation !== 0) return import(blobUrl());
  inlineGlueUrl ??= blobUrl();
  return import(inlineGlueUrl);
}

/**
 * A fresh instance of the glue module and of the wasm: generation 0 is the normal import,
 * later generations import the glue under another URL so they get their own wasm memory.
 */
async function instantiate(wasmModule, generation) {
  let pkg;
  try {
    if (INLINE_ASSETS) {
      // A blob: URL is a module of its own each time: generation 0 shares one, as served.
      pkg = await importInlineGlue(generation);
    } else {
      freshInstances += generation === 0 ? 0 : 1;
      pkg = await import(generation === 0 ? PKG_URL.href : `${PKG_URL.href}?instance=${freshInstances}`);
    }
  } catch (err) {
    throw new EngineLoadError(
      `The engine's JavaScript (${PKG_URL?.pathname ?? "inlined in this file"}) could not be loaded (${describe(err)}). ` +
        "If you are running from a checkout, build it with ./scripts/build-web.sh.",
      { cause: err },
    );
  }
  try {
    await pkg.default({ module_or_path: wasmModule });
  } catch (err) {
    throw new EngineLoadError(
      `The engine could not be started (${describe(err)}). The WebAssembly file and its ` +
        "JavaScript glue probably come from different builds; rebuild with ./scripts/build-web.sh.",
      { cause: err },
    );
  }
  return pkg;
}

function plainLine(r) {
  return {
    text: String(r.text),
    prompt: String(r.prompt),
    reply: r.reply ?? null,
    quit: Boolean(r.quit),
    clear: Boolean(r.clear),
  };
}

function plainAdvance(r) {
  return { ticks: Number(r.ticks), lagMs: Number(r.lagMs), now: Number(r.now) };
}

/**
 * `unreadable` is true when the engine had events but could not hand them over (its
 * serializer refused one, e.g. a number above 2^53): they are lost, and the page says so.
 */
/** An engine built before `peek` existed: the command itself (counted). */
function plainPeekFallback(pg, args) {
  const r = pg.command(args.map(String));
  return { text: String(r.text), reply: r.reply ?? null };
}

function plainEvents(r) {
  const readable = Array.isArray(r?.events);
  return { events: readable ? r.events : [], dropped: Number(r?.dropped ?? 0), unreadable: !readable };
}

/** INFO's text → `{field: value}` (strings; section headers skipped). */
function parseInfoText(text) {
  const out = {};
  for (const line of String(text).split(/\r?\n/)) {
    if (line === "" || line.startsWith("#")) continue;
    const i = line.indexOf(":");
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

function plainExperiment(r) {
  return {
    keys: Number(r?.keys ?? 0),
    samples: Number(r?.samples ?? 0),
    evictedByDecile: Array.isArray(r?.evicted_by_decile) ? r.evicted_by_decile.map(Number) : [],
    newKeysEvicted: Number(r?.new_keys_evicted ?? 0),
    evictedTotal: Number(r?.evicted_total ?? 0),
  };
}

function plainCommands(list) {
  return Array.isArray(list)
    ? list.map((c) => ({
        name: String(c.name),
        summary: String(c.summary),
        group: String(c.group),
        since: String(c.since),
        arity: Number(c.arity),
        playground: Boolean(c.playground),
      }))
    : [];
}

const DEFAULT_PROMPT = "127.0.0.1:6379> ";

/**
 * Loads the wasm and creates a playground engine.
 *
 * @param {object} options
 * @param {number} options.seed      the engine's RNG seed
 * @param {number} options.startMs   the virtual clock's start, Unix ms
 * @param {(info: {operation: string, error: unknown}) => void} [options.onCrash]
 *        called when a call into the engine threw; the engine is being recreated
 * @param {() => void} [options.onRecovered]  called once the recreated engine is ready
 * @returns {Promise<object>} the engine API (see the returned object below)
 * @throws {EngineLoadError} when the engine cannot be loaded at all
 */
export async function createEngine({ seed, startMs, onCrash = () => {}, onRecovered = () => {} }) {
  if (typeof WebAssembly !== "object" || typeof WebAssembly.compile !== "function") {
    throw new EngineLoadError(
      "This browser cannot run WebAssembly, which the playground's engine needs. " +
        "Any current Chrome, Firefox, Safari or Edge can.",
    );
  }
  const wasmModule = await compiledWasm();
  let generation = 0;
  let pkg = await instantiate(wasmModule, generation);
  let playground = new pkg.Playground(seed, startMs);
  // Kept up to date so a recreated engine resumes where the clock was, and so calls made while
  // it is being recreated still get sensible answers.
  let lastNow = playground.now();
  let lastPrompt = DEFAULT_PROMPT;
  let commandCache = null;
  let freed = false;

  function recreate() {
    if (freed) return;
    generation += 1;
    const mine = generation;
    instantiate(wasmModule, mine)
      .then((fresh) => {
        if (mine !== generation) return;
        pkg = fresh;
        playground = new pkg.Playground(seed, lastNow);
        lastPrompt = playground.prompt();
        onRecovered();
      })
      .catch((error) => {
        onCrash({ operation: "restart", error });
      });
  }

  function crash(operation, error) {
    const broken = playground;
    playground = null;
    try {
      broken?.free();
    } catch {
      // The broken instance is discarded either way.
    }
    onCrash({ operation, error });
    recreate();
  }

  function guarded(operation, run, fallback) {
    if (playground === null) return fallback();
    try {
      return run(playground);
    } catch (error) {
      crash(operation, error);
      return fallback();
    }
  }

  const api = {
    seed,
    startMs,

    /** One console line: `{text, prompt, reply, quit, clear}` (text = what redis-cli prints). */
    execute(line) {
      return guarded(
        "execute",
        (pg) => {
          const r = plainLine(pg.execute(line));
          lastPrompt = r.prompt;
          lastNow = pg.now();
          return r;
        },
        () => ({
          text: "(redisplay) the engine is restarting after an internal error; try again in a moment.\n",
          prompt: lastPrompt,
          reply: null,
          quit: false,
          clear: false,
        }),
      );
    },

    /** Lets virtual time pass up to `nowMs`, at most `maxTicks` cron runs: `{ticks, lagMs, now}`. */
    advanceTo(nowMs, maxTicks) {
      return guarded(
        "advance_to",
        (pg) => {
          const r = plainAdvance(pg.advance_to(nowMs, maxTicks));
          lastNow = r.now;
          return r;
        },
        () => ({ ticks: 0, lagMs: 0, now: lastNow }),
      );
    },

    setTime(ms) {
      guarded("set_time", (pg) => {
        pg.set_time(ms);
        lastNow = pg.now();
      }, () => {});
    },

    now() {
      return guarded("now", (pg) => (lastNow = pg.now()), () => lastNow);
    },

    hz() {
      return guarded("hz", (pg) => pg.hz(), () => 10);
    },

    cronPeriodMs() {
      return guarded("cron_period_ms", (pg) => pg.cron_period_ms(), () => 100);
    },

    prompt() {
      return guarded("prompt", (pg) => (lastPrompt = pg.prompt()), () => lastPrompt);
    },

    /** Everything the engine did since the last call: `{events, dropped}`. */
    drainEvents() {
      return guarded("drain_events", (pg) => plainEvents(pg.drain_events()), () => ({ events: [], dropped: 0, unreadable: false }));
    },

    /** When the next serverCron tick runs (Unix ms): "Step 1 tick" advances exactly there. */
    nextCronMs() {
      return guarded("next_cron_ms", (pg) => Number(pg.next_cron_ms()), () => lastNow + 100);
    },

    /** A fresh engine with the same seed and start time. */
    reset() {
      guarded("reset", (pg) => {
        pg.reset();
        lastNow = pg.now();
        lastPrompt = pg.prompt();
      }, () => {});
    },

    /**
     * Frees the engine for good (a widget taken off the page): later calls get the same
     * answers as while restarting, and nothing is recreated.
     */
    free() {
      generation += 1; // scratch engines and labs made from this one are gone too
      const pg = playground;
      playground = null;
      freed = true;
      try {
        pg?.free();
      } catch {
        // Freed either way.
      }
    },

    /** The command table: `[{name, summary, group, since, arity, playground}]`. */
    commands() {
      if (commandCache === null) {
        const list = guarded("commands", (pg) => plainCommands(pg.commands()), () => null);
        if (list === null) return [];
        commandCache = list;
      }
      return commandCache;
    },

    dbsize(db) {
      return guarded("dbsize", (pg) => pg.dbsize(db), () => 0);
    },

    /** The database the console is using (SELECT). */
    currentDb() {
      return guarded("current_db", (pg) => Number(pg.current_db()), () => 0);
    },

    /**
     * A page of keys (src/introspect.rs `keyspace_page`): `{db, total, volatile, offset,
     * keys: [{key, type, encoding, len, expire_at_ms, expired}]}`; `pattern` is a Redis glob
     * (then `offset` counts matches).
     */
    keyspace(db, offset, count, pattern = null) {
      return guarded(
        "keyspace",
        (pg) => pg.keyspace(db, offset, count, pattern ?? undefined),
        () => ({ db, total: 0, volatile: 0, offset, keys: [] }),
      );
    },

    /**
     * Ranks `start..start+count` of the sorted set at `key` (src/introspect.rs `zset_window`):
     * `{key, encoding, len, max_level, header_spans, start, entries: [{rank, member, score,
     * level, spans}], max_entries, max_value}`, or null when `key` is not a sorted set.
     */
    zsetWindow(db, key, start, count) {
      return guarded("zset_window", (pg) => pg.zset_window(db, key, start, count) ?? null, () => null);
    },

    /**
     * A db's expires table folded into `cells` cells in bucket order (src/introspect.rs
     * `expire_field`): `{db, table_size, volatile, stale, keys, cursor_bucket,
     * buckets_per_cell, cells: [{live, stale}]}`, or null. O(keys with a TTL): throttle it.
     */
    expireField(db, cells) {
      return guarded("expire_field", (pg) => pg.expire_field(db, cells) ?? null, () => null);
    },

    /** Buckets `start..start+count` of a db's expires table: `[{bucket, keys: [{key, ttl_ms, expired}]}]`. */
    expireBuckets(db, start, count) {
      return guarded(
        "expire_buckets",
        (pg) => {
          const r = pg.expire_buckets(db, start, count);
          return Array.isArray(r) ? r : [];
        },
        () => [],
      );
    },

    /**
     * Creates `count` keys `<prefix><n>` in `db` with TTLs from the engine's seeded RNG between
     * `minMs` and `maxMs` (`distribution` "uniform" or "exponential"); existing names are
     * skipped. Not a Redis command, and it emits no events. Returns the number created.
     */
    populate(db, count, prefix, minMs, maxMs, distribution) {
      return guarded("populate", (pg) => Number(pg.populate(db, count, prefix, minMs, maxMs, distribution)), () => 0);
    },

    /**
     * Runs one command given as arguments on the console's client, without redis-cli's line
     * parsing or printing (the views' controls use it for CONFIG SET/GET): `{text, reply}`.
     */
    command(args) {
      return guarded(
        "command",
        (pg) => {
          const r = pg.command(args.map(String));
          lastNow = pg.now();
          return { text: String(r.text), reply: r.reply ?? null };
        },
        () => ({ text: "", reply: { type: "error", value: "the engine is restarting after an internal error" } }),
      );
    },

    /**
     * INFO or CONFIG GET for a view: the reply a client would get, but not counted as a command
     * (no stats, no client fields, no events), so views refreshing their gauges never change
     * what the user sees: `{text, reply}`.
     */
    peek(args) {
      return guarded(
        "peek",
        (pg) => {
          if (typeof pg.peek !== "function") return plainPeekFallback(pg, args);
          const r = pg.peek(args.map(String));
          return { text: String(r.text), reply: r.reply ?? null };
        },
        () => ({ text: "", reply: { type: "error", value: "the engine is restarting after an internal error" } }),
      );
    },

    /** `INFO <sections…>` for a view (a peek), parsed: `{used_memory: "914704", …}`. */
    info(sections) {
      const r = api.peek(["INFO", ...String(sections).split(/\s+/).filter(Boolean)]);
      return r.reply?.type === "bulk" ? parseInfoText(r.reply.value) : {};
    },

    /** `CONFIG GET name` for a view (a peek): the value, or null. */
    configGet(name) {
      const r = api.peek(["CONFIG", "GET", String(name)]);
      const items = r.reply?.type === "array" ? r.reply.value : [];
      return items.length >= 2 ? String(items[1].value) : null;
    },

    /**
     * The LRU-approximation experiment (src/sim/lru_experiment.rs), run on a separate engine:
     * `{keys, samples, evictedByDecile: [10 shares, oldest tenth first], newKeysEvicted,
     * evictedTotal}`; `samples` 0 is true LRU.
     */
    lruExperiment(keys, samples, seed) {
      return guarded("lru_experiment", (pg) => plainExperiment(pg.lru_experiment(keys, samples, seed)), () => null);
    },

    /**
     * A separate engine on the same module (for "compare policies"): `{command, advanceTo, now,
     * info, drainEvents, free}`. It shares the module's memory with the page's engine, so an
     * internal error in it restarts the page's engine too. Call `free()` when done.
     */
    createScratchEngine({ seed: scratchSeed = seed, startMs: scratchStart = startMs } = {}) {
      let pg = guarded("scratch", (p) => new pkg.Playground(scratchSeed, scratchStart), () => null);
      const mine = generation;
      function call(operation, run, fallback) {
        if (pg === null || mine !== generation || playground === null) return fallback();
        try {
          return run(pg);
        } catch (error) {
          pg = null;
          crash(`scratch ${operation}`, error);
          return fallback();
        }
      }
      const scratch = {
        command(args) {
          return call(
            "command",
            (p) => {
              const r = p.command(args.map(String));
              return { text: String(r.text), reply: r.reply ?? null };
            },
            () => ({ text: "", reply: { type: "error", value: "the scratch engine is gone" } }),
          );
        },
        advanceTo(nowMs, maxTicks) {
          return call("advance_to", (p) => plainAdvance(p.advance_to(nowMs, maxTicks)), () => ({ ticks: 0, lagMs: 0, now: nowMs }));
        },
        now() {
          return call("now", (p) => p.now(), () => 0);
        },
        /** INFO as a peek (not counted, no eviction before it), as on the page's engine. */
        info(sections) {
          const args = ["INFO", ...String(sections).split(/\s+/).filter(Boolean)];
          const r = call(
            "peek",
            (p) => (typeof p.peek === "function" ? p.peek(args) : p.command(args)),
            () => ({ text: "", reply: null }),
          );
          return r.reply?.type === "bulk" ? parseInfoText(r.reply.value) : {};
        },
        drainEvents() {
          return call("drain_events", (p) => plainEvents(p.drain_events()), () => ({ events: [], dropped: 0, unreadable: false }));
        },
        free() {
          if (pg !== null && mine === generation && playground !== null) {
            try {
              pg.free();
            } catch {
              // Freed either way.
            }
          }
          pg = null;
        },
      };
      return scratch;
    },

    /**
     * The delay-queue lab (src/sim/delay_queue*.rs): simulated producer and consumers on an
     * engine of their own, with their own virtual clock — not this engine. `config` as in
     * spec/delay-queue-api.md. A refused config throws an Error with the lab's message;
     * otherwise `{runUntil(t, maxSteps?) → {now, done}, drain() → {events, dropped}, metrics(),
     * nextEventMs(), now(), free()}`. The lab shares the module's memory with the page's
     * engine, so an internal error (a trap) in it restarts the page's engine too, and the lab
     * is gone: its calls then throw.
     */
    createDelayQueueLab(config) {
      if (playground === null) throw new Error("delay-queue: the engine is restarting after an internal error; try again in a moment.");
      if (typeof pkg.DelayQueueLab !== "function") {
        throw new Error("delay-queue: this build of the engine has no delay-queue lab; rebuild it with ./scripts/build-web.sh.");
      }
      let lab;
      try {
        lab = new pkg.DelayQueueLab(config);
      } catch (error) {
        if (error instanceof WebAssembly.RuntimeError) {
          crash("delay-queue new", error);
          throw new Error("delay-queue: the engine hit an internal error creating the lab (a bug in redisplay); it is being restarted.");
        }
        throw error instanceof Error ? error : new Error(`delay-queue: ${String(error)}`);
      }
      const mine = generation;
      function call(operation, run) {
        if (lab === null || mine !== generation || playground === null) {
          throw new Error("delay-queue: the lab is gone (the engine was restarted after an internal error); press Reset or Run.");
        }
        try {
          return run(lab);
        } catch (error) {
          lab = null;
          crash(`delay-queue ${operation}`, error);
          throw new Error(`delay-queue: the lab hit an internal error in ${operation} (${describe(error)}); a bug in redisplay.`);
        }
      }
      return {
        runUntil(tMs, maxSteps) {
          return call("run_until", (l) => {
            const r = l.run_until(tMs, maxSteps);
            return { now: Number(r?.now ?? l.now()), done: Boolean(r?.done) };
          });
        },
        drain() {
          return call("drain", (l) => {
            const r = l.drain();
            return { events: Array.isArray(r?.events) ? r.events : [], dropped: Number(r?.dropped ?? 0) };
          });
        },
        metrics: () => call("metrics", (l) => l.metrics()),
        nextEventMs: () => call("next_event_ms", (l) => Number(l.next_event_ms())),
        now: () => call("now", (l) => Number(l.now())),
        free() {
          if (lab !== null && mine === generation && playground !== null) {
            try {
              lab.free();
            } catch {
              // Freed either way.
            }
          }
          lab = null;
        },
      };
    },

    /** A delay-queue strategy's short name and client code (1..5), from the engine. */
    delayQueueStrategy(n) {
      const Lab = pkg.DelayQueueLab;
      if (typeof Lab !== "function") return { name: `strategy ${n}`, code: "" };
      return { name: String(Lab.strategy_name(n)), code: String(Lab.strategy_code(n)) };
    },

    /**
     * A lab's simulation step, run to its end on an engine of its own: `kind` "delay-queue"
     * (DelayQueueLab's config), "pipeline" or "cache-aside" (LabSims). → `{ok, result}` with
     * the metrics as plain data, or `{ok: false, error}` in words.
     */
    runLabSim(kind, config) {
      try {
        if (kind === "delay-queue") {
          const lab = this.createDelayQueueLab(config);
          try {
            lab.runUntil(Number.MAX_SAFE_INTEGER);
            return { ok: true, result: lab.metrics() };
          } finally {
            lab.free?.();
          }
        }
        const Sims = pkg.LabSims;
        if (typeof Sims !== "function") return { ok: false, error: "this build of the engine has no lab simulations; rebuild it with ./scripts/build-web.sh." };
        if (kind === "pipeline") return { ok: true, result: Sims.pipeline(config) };
        if (kind === "cache-aside") return { ok: true, result: Sims.cache_aside(config) };
        return { ok: false, error: `unknown simulation "${kind}"` };
      } catch (error) {
        if (error instanceof WebAssembly.RuntimeError) crash(`lab sim ${kind}`, error);
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    },

    /** True while a crashed engine is being recreated. */
    isRecovering() {
      return playground === null;
    },

    // ---- Several consoles (clients) on one engine; console 0 is the one `execute` uses ----

    /** A line on console `n`: `execute`'s result plus `{blocked, subscribed}`. */
    executeOn(n, line) {
      return guarded(
        "execute_on",
        (pg) => {
          const r = pg.execute_on(n, line);
          const out = { ...plainLine(r), blocked: Boolean(r.blocked), subscribed: Boolean(r.subscribed) };
          if (n === 0) lastPrompt = out.prompt;
          lastNow = pg.now();
          return out;
        },
        () => ({
          text: "(redisplay) the engine is restarting after an internal error; try again in a moment.\n",
          prompt: DEFAULT_PROMPT,
          reply: null,
          quit: false,
          clear: false,
          blocked: false,
          subscribed: false,
        }),
      );
    },

    /** What console `n` prints without input: `{text, prompt, blocked, subscribed, client}`. */
    poll(n) {
      return guarded(
        "poll",
        (pg) => {
          const r = pg.poll(n);
          return { text: String(r.text), prompt: String(r.prompt), blocked: Boolean(r.blocked), subscribed: Boolean(r.subscribed), client: Number(r.client) };
        },
        () => ({ text: "", prompt: DEFAULT_PROMPT, blocked: false, subscribed: false, client: 0 }),
      );
    },

    /** Opens another console (a new client); returns its number. */
    openConsole() {
      return guarded("open_console", (pg) => pg.open_console(), () => -1);
    },

    /** Closes the last console (never the first). */
    closeConsole() {
      return guarded("close_console", (pg) => pg.close_console(), () => false);
    },

    consoleCount() {
      return guarded("console_count", (pg) => pg.console_count(), () => 1);
    },

    /** The client id console `n` is connected as. */
    consoleClient(n) {
      return guarded("console_client", (pg) => Number(pg.console_client(n)), () => 0);
    },

    /** Ctrl-C on console `n`: its connection closes and it reconnects; returns the prompt. */
    interrupt(n) {
      return guarded("interrupt", (pg) => String(pg.interrupt(n)), () => DEFAULT_PROMPT);
    },

    promptOf(n) {
      return guarded("prompt_of", (pg) => String(pg.prompt_of(n)), () => DEFAULT_PROMPT);
    },
  };
  return api;
}
