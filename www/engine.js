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
// take main.js down with it before it could say anything.

const PKG_URL = new URL("./pkg/redisplay.js", import.meta.url);
const WASM_URL = new URL("./pkg/redisplay_bg.wasm", import.meta.url);

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

/**
 * A fresh instance of the glue module and of the wasm: generation 0 is the normal import,
 * later generations import the glue under another URL so they get their own wasm memory.
 */
async function instantiate(wasmModule, generation) {
  const url = generation === 0 ? PKG_URL.href : `${PKG_URL.href}?instance=${generation}`;
  let pkg;
  try {
    pkg = await import(url);
  } catch (err) {
    throw new EngineLoadError(
      `The engine's JavaScript (${PKG_URL.pathname}) could not be loaded (${describe(err)}). ` +
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

function plainEvents(r) {
  const events = Array.isArray(r?.events) ? r.events : [];
  return { events, dropped: Number(r?.dropped ?? 0) };
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
  const wasmModule = await compileWasm();
  let generation = 0;
  let pkg = await instantiate(wasmModule, generation);
  let playground = new pkg.Playground(seed, startMs);
  // Kept up to date so a recreated engine resumes where the clock was, and so calls made while
  // it is being recreated still get sensible answers.
  let lastNow = playground.now();
  let lastPrompt = DEFAULT_PROMPT;
  let commandCache = null;

  function recreate() {
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

  return {
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
      return guarded("drain_events", (pg) => plainEvents(pg.drain_events()), () => ({ events: [], dropped: 0 }));
    },

    /** A fresh engine with the same seed and start time. */
    reset() {
      guarded("reset", (pg) => {
        pg.reset();
        lastNow = pg.now();
        lastPrompt = pg.prompt();
      }, () => {});
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

    /** True while a crashed engine is being recreated. */
    isRecovering() {
      return playground === null;
    },
  };
}
