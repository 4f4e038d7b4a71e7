// @ts-check
// The page engine's API: every call into the live Playground, made through recovery.js's
// `guarded` (a trap restarts the engine; the call gets the fallback's answer) and turned into
// plain JS objects (plain.js). It never imports the wasm package: engine.js hands it the
// Playground through the recovery.
//
// Sections: the console (one line, one command, peeks), time, snapshots for the views, the
// consoles (several clients on one engine), and the engine's life (reset, free).

import { t } from "../i18n.js";
import { DEFAULT_PROMPT, infoArgs, infoFromReply, plainAdvance, plainCommandResult, plainCommands, plainEvents, plainLine, plainLineOn, plainLoadResult, plainPoll } from "./plain.js";

/** @typedef {import("./plain").LineResult} LineResult */
/** @typedef {import("./plain").CommandResult} CommandResult */
/** @typedef {import("./plain").Advance} Advance */
/** @typedef {import("./plain").Drain} Drain */
/** @typedef {import("./plain").PollResult} PollResult */
/** @typedef {import("./plain").CommandDoc} CommandDoc */
/** @typedef {import("./plain").LoadResult} LoadResult */
/** @typedef {import("../types/snapshots").KeyspacePage} KeyspacePage */
/** @typedef {import("../types/snapshots").ZsetWindow} ZsetWindow */
/** @typedef {import("../types/snapshots").ExpireField} ExpireField */
/** @typedef {import("../types/snapshots").BucketView} BucketView */
/** @typedef {import("../types/snapshots").PersistenceSnapshot} PersistenceSnapshot */
/** @typedef {import("../types/snapshots").ReplicationSnapshot} ReplicationSnapshot */

// A function: t() reads the language, set after this module loads.
const restartingText = () => `${t("(redisplay) the engine is restarting after an internal error; try again in a moment.")}\n`;

/** @returns {CommandResult} */
function restartingReply() {
  return { text: "", reply: { type: "error", value: "the engine is restarting after an internal error" } };
}

/**
 * @param {import("./recovery").Recovery} recovery
 */
export function createFacade(recovery) {
  const { guarded, memo } = recovery;
  /** @type {CommandDoc[] | null} */
  let commandCache = null;

  /**
   * INFO or CONFIG GET for a view: the reply a client would get, but not counted as a command
   * (no stats, no client fields, no events), so views refreshing their gauges never change
   * what the user sees.
   * @param {string[]} args
   * @returns {CommandResult}
   */
  function peek(args) {
    return guarded(
      "peek",
      (pg) => {
        // An engine built before `peek` existed: the command itself (counted).
        if (typeof pg.peek !== "function") return plainCommandResult(pg.command(args.map(String)));
        return plainCommandResult(pg.peek(args.map(String)));
      },
      restartingReply,
    );
  }

  return {
    // ---- The console and commands -------------------------------------------------------

    /**
     * One console line: `{text, prompt, reply, quit, clear}` (text = what redis-cli prints).
     * @param {string} line
     * @returns {LineResult}
     */
    execute(line) {
      return guarded(
        "execute",
        (pg) => {
          const r = plainLine(pg.execute(line));
          memo.prompt = r.prompt;
          memo.now = pg.now();
          return r;
        },
        () => /** @type {LineResult} */ ({ text: restartingText(), prompt: memo.prompt, reply: null, quit: false, clear: false }),
      );
    },

    /**
     * Runs one command given as arguments on the console's client, without redis-cli's line
     * parsing or printing (the views' controls use it for CONFIG SET/GET): `{text, reply}`.
     * @param {string[]} args
     * @returns {CommandResult}
     */
    command(args) {
      return guarded(
        "command",
        (pg) => {
          const r = plainCommandResult(pg.command(args.map(String)));
          memo.now = pg.now();
          return r;
        },
        restartingReply,
      );
    },

    peek,

    /**
     * `INFO <sections…>` for a view (a peek), parsed: `{used_memory: "914704", …}`.
     * @param {string} sections
     * @returns {Record<string, string>}
     */
    info(sections) {
      return infoFromReply(peek(infoArgs(sections)));
    },

    /**
     * `CONFIG GET name` for a view (a peek): the value, or null.
     * @param {string} name
     * @returns {string | null}
     */
    configGet(name) {
      const r = peek(["CONFIG", "GET", String(name)]);
      const items = r.reply?.type === "array" ? r.reply.value : [];
      return items.length >= 2 ? String(/** @type {{value?: unknown}} */ (items[1]).value) : null;
    },

    /**
     * The command table: `[{name, summary, group, since, arity, playground}]`.
     * @returns {CommandDoc[]}
     */
    commands() {
      if (commandCache === null) {
        const list = guarded("commands", (pg) => plainCommands(pg.commands()), () => null);
        if (list === null) return [];
        commandCache = list;
      }
      return commandCache;
    },

    /** @returns {string} */
    prompt() {
      return guarded("prompt", (pg) => (memo.prompt = pg.prompt()), () => memo.prompt);
    },

    // ---- Time -------------------------------------------------------------------------------

    /**
     * Lets virtual time pass up to `nowMs`, at most `maxTicks` cron runs: `{ticks, lagMs, now}`.
     * @param {number} nowMs
     * @param {number} [maxTicks]
     * @returns {Advance}
     */
    advanceTo(nowMs, maxTicks) {
      return guarded(
        "advance_to",
        (pg) => {
          const r = plainAdvance(pg.advance_to(nowMs, maxTicks));
          memo.now = r.now;
          return r;
        },
        () => ({ ticks: 0, lagMs: 0, now: memo.now }),
      );
    },

    /**
     * Runs up to `maxSteps` Lua instructions of a script that outlived its first slice (while
     * one runs no timer does, and other consoles wait for it or get BUSY).
     * @param {number} maxSteps
     * @returns {boolean} whether a script still runs
     */
    runScriptSlice(maxSteps) {
      return guarded("run_script_slice", (pg) => Boolean(pg.run_script_slice(maxSteps)), () => false);
    },

    /**
     * Whether a script is running (past its first slice).
     * @returns {boolean}
     */
    scriptBusy() {
      return guarded("script_busy", (pg) => Boolean(pg.script_busy()), () => false);
    },

    /**
     * Sets the clock without running cron (it may go backwards).
     * @param {number} ms
     */
    setTime(ms) {
      guarded(
        "set_time",
        (pg) => {
          pg.set_time(ms);
          memo.now = pg.now();
        },
        () => {},
      );
    },

    /** @returns {number} the virtual clock, Unix ms */
    now() {
      return guarded("now", (pg) => (memo.now = pg.now()), () => memo.now);
    },

    /** @returns {number} */
    hz() {
      return guarded("hz", (pg) => pg.hz(), () => 10);
    },

    /** @returns {number} */
    cronPeriodMs() {
      return guarded("cron_period_ms", (pg) => pg.cron_period_ms(), () => 100);
    },

    /**
     * When the next serverCron tick runs (Unix ms): "Step 1 tick" advances exactly there.
     * @returns {number}
     */
    nextCronMs() {
      return guarded("next_cron_ms", (pg) => Number(pg.next_cron_ms()), () => memo.now + 100);
    },

    /**
     * Everything the engine did since the last call: `{events, dropped, unreadable}`.
     * @returns {Drain}
     */
    drainEvents() {
      return guarded("drain_events", (pg) => plainEvents(pg.drain_events()), () => ({ events: [], dropped: 0, unreadable: false }));
    },

    // ---- Snapshots for the views -----------------------------------------------------------

    /**
     * @param {number} db
     * @returns {number}
     */
    dbsize(db) {
      return guarded("dbsize", (pg) => pg.dbsize(db), () => 0);
    },

    /**
     * The database the console is using (SELECT).
     * @returns {number}
     */
    currentDb() {
      return guarded("current_db", (pg) => Number(pg.current_db()), () => 0);
    },

    /**
     * A page of keys (src/introspect.rs `keyspace_page`); `pattern` is a Redis glob (then
     * `offset` counts matches).
     * @param {number} db
     * @param {number} offset
     * @param {number} count
     * @param {string | null} [pattern]
     * @returns {KeyspacePage}
     */
    keyspace(db, offset, count, pattern = null) {
      return guarded(
        "keyspace",
        (pg) => pg.keyspace(db, offset, count, pattern ?? undefined),
        () => ({ db, total: 0, volatile: 0, offset, keys: [] }),
      );
    },

    /**
     * Ranks `start..start+count` of the sorted set at `key` (src/introspect.rs `zset_window`),
     * or null when `key` is not a sorted set.
     * @param {number} db
     * @param {string} key
     * @param {number} start
     * @param {number} count
     * @returns {ZsetWindow | null}
     */
    zsetWindow(db, key, start, count) {
      return guarded("zset_window", (pg) => pg.zset_window(db, key, start, count) ?? null, () => null);
    },

    /**
     * The RDB and AOF files with their sizes, the AOF's state and the children at work
     * (src/introspect.rs `persistence`), or null.
     * @returns {PersistenceSnapshot | null}
     */
    persistence() {
      return guarded("persistence", (pg) => pg.persistence() ?? null, () => null);
    },

    /**
     * Both servers' side of replication and the link between them (src/session/servers.rs
     * `replication`), or null. O(keys with a TTL): throttle it.
     * @returns {ReplicationSnapshot | null}
     */
    replication() {
      return guarded("replication", (pg) => (typeof pg.replication === "function" ? (pg.replication() ?? null) : null), () => null);
    },

    /** Whether the page's second server (127.0.0.1:6380) exists. */
    hasSecond() {
      return guarded("has_second", (pg) => typeof pg.has_second === "function" && pg.has_second(), () => false);
    },

    /**
     * One-way latency of the link between the two servers (virtual ms).
     * @param {number} ms
     */
    setLinkLatency(ms) {
      guarded("set_link_latency", (pg) => pg.set_link_latency(Number(ms)), () => undefined);
    },

    /**
     * Cuts the link between the servers (true) or restores it (false).
     * @param {boolean} down
     */
    setLinkDown(down) {
      guarded("set_link_down", (pg) => pg.set_link_down(Boolean(down)), () => undefined);
    },

    /**
     * A db's expires table folded into `cells` cells in bucket order (src/introspect.rs
     * `expire_field`), or null. O(keys with a TTL): throttle it.
     * @param {number} db
     * @param {number} cells
     * @returns {ExpireField | null}
     */
    expireField(db, cells) {
      return guarded("expire_field", (pg) => pg.expire_field(db, cells) ?? null, () => null);
    },

    /**
     * Buckets `start..start+count` of a db's expires table.
     * @param {number} db
     * @param {number} start
     * @param {number} count
     * @returns {BucketView[]}
     */
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
     * @param {number} db
     * @param {number} count
     * @param {string} prefix
     * @param {number} minMs
     * @param {number} maxMs
     * @param {string} distribution
     * @returns {number}
     */
    populate(db, count, prefix, minMs, maxMs, distribution) {
      return guarded("populate", (pg) => Number(pg.populate(db, count, prefix, minMs, maxMs, distribution)), () => 0);
    },

    // ---- Several consoles (clients) on one engine; console 0 is the one `execute` uses ----

    /**
     * A line on console `n`: `execute`'s result plus `{blocked, subscribed}`.
     * @param {number} n
     * @param {string} line
     * @returns {LineResult & {blocked: boolean, subscribed: boolean}}
     */
    executeOn(n, line) {
      return guarded(
        "execute_on",
        (pg) => {
          const out = plainLineOn(pg.execute_on(n, line));
          if (n === 0) memo.prompt = out.prompt;
          memo.now = pg.now();
          return out;
        },
        () => ({
          text: restartingText(),
          prompt: DEFAULT_PROMPT,
          reply: null,
          quit: false,
          clear: false,
          shutdown: false,
          blocked: false,
          subscribed: false,
        }),
      );
    },

    /**
     * What console `n` prints without input: `{text, prompt, blocked, subscribed, client}`.
     * @param {number} n
     * @returns {PollResult}
     */
    poll(n) {
      return guarded("poll", (pg) => plainPoll(pg.poll(n)), () => ({ text: "", prompt: DEFAULT_PROMPT, blocked: false, subscribed: false, client: 0 }));
    },

    /**
     * Opens another console (a new client); returns its number (-1 while restarting).
     * @returns {number}
     */
    openConsole() {
      return guarded("open_console", (pg) => pg.open_console(), () => -1);
    },

    /**
     * Opens a console on server `server` (0: 127.0.0.1:6379; 1: the second server,
     * 127.0.0.1:6380, made on first use); returns its number (-1 while restarting).
     * @param {number} server
     * @returns {number}
     */
    openConsoleOn(server) {
      return guarded("open_console_on", (pg) => pg.open_console_on(server), () => -1);
    },

    /**
     * The server (0 or 1) console `n` talks to.
     * @param {number} n
     * @returns {number}
     */
    consoleServer(n) {
      return guarded("console_server", (pg) => (typeof pg.console_server === "function" ? pg.console_server(n) : 0), () => 0);
    },

    /**
     * Closes the last console (never the first).
     * @returns {boolean}
     */
    closeConsole() {
      return guarded("close_console", (pg) => pg.close_console(), () => false);
    },

    /** @returns {number} */
    consoleCount() {
      return guarded("console_count", (pg) => pg.console_count(), () => 1);
    },

    /**
     * The client id console `n` is connected as.
     * @param {number} n
     * @returns {number}
     */
    consoleClient(n) {
      return guarded("console_client", (pg) => Number(pg.console_client(n)), () => 0);
    },

    /**
     * Ctrl-C on console `n`: its connection closes and it reconnects; returns the prompt.
     * @param {number} n
     * @returns {string}
     */
    interrupt(n) {
      return guarded("interrupt", (pg) => String(pg.interrupt(n)), () => DEFAULT_PROMPT);
    },

    /**
     * @param {number} n
     * @returns {string}
     */
    promptOf(n) {
      return guarded("prompt_of", (pg) => String(pg.prompt_of(n)), () => DEFAULT_PROMPT);
    },

    /**
     * The grey argument hint redis-cli would draw after `line` typed in console `n` (` value
     * [NX|XX] …` after `SET k`), or null (none, or `:set nohints` there).
     * @param {number} n
     * @param {string} line
     * @returns {string | null}
     */
    hintOf(n, line) {
      return guarded(
        "hint",
        (pg) => {
          if (typeof pg.hint !== "function") return null;
          const h = pg.hint(n, line);
          return typeof h === "string" ? h : null;
        },
        () => null,
      );
    },

    /**
     * Console `n` prints as `redis-cli --raw` (true) or `--no-raw` (false) from its next line.
     * Not recorded in a session: it changes how replies print, not the engine.
     * @param {number} n
     * @param {boolean} raw
     */
    setRaw(n, raw) {
      guarded("set_raw", (pg) => (typeof pg.set_raw === "function" ? pg.set_raw(n, Boolean(raw)) : undefined), () => {});
    },

    /**
     * @param {number} n
     * @returns {boolean}
     */
    rawOf(n) {
      return guarded("raw_of", (pg) => (typeof pg.raw_of === "function" ? Boolean(pg.raw_of(n)) : false), () => false);
    },

    // ---- The RDB file ----------------------------------------------------------------------

    /**
     * The server's RDB file as SAVE would write it now — every db, TTL and function library,
     * as redis-server 7.0 writes dump.rdb (empty while the engine is restarting).
     * @returns {Uint8Array}
     */
    rdbImage() {
      return guarded("rdb_image", (pg) => new Uint8Array(pg.rdb_image()), () => new Uint8Array(0));
    },

    /**
     * Loads an RDB file as the server's own, as a restart on it would: the dataset and the
     * function libraries become the file's (keys already expired skipped), or — when it does
     * not load — nothing changes and `error` says why in Redis's words.
     * @param {Uint8Array} bytes
     * @returns {LoadResult}
     */
    loadRdb(bytes) {
      return guarded(
        "load_rdb",
        (pg) => {
          const r = plainLoadResult(pg.load_rdb(bytes));
          memo.now = pg.now();
          return r;
        },
        () => ({ ok: false, error: t("the engine is restarting after an internal error") }),
      );
    },

    // ---- The engine's life -----------------------------------------------------------------

    /** A fresh engine with the same seed and start time. */
    reset() {
      guarded(
        "reset",
        (pg) => {
          pg.reset();
          memo.now = pg.now();
          memo.prompt = pg.prompt();
        },
        () => {},
      );
    },

    /**
     * Frees the engine for good (a widget taken off the page): later calls get the same
     * answers as while restarting, and nothing is recreated.
     */
    free() {
      recovery.free();
    },

    /**
     * True while a crashed engine is being recreated (and after free()).
     * @returns {boolean}
     */
    isRecovering() {
      return recovery.recovering();
    },
  };
}
