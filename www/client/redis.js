// @ts-check
// `import { Redis } from "redisplay"`: an in-process Redis 7.0 client shaped like ioredis, over
// the engine compiled to wasm — no server, no sockets, and a virtual clock the caller moves.
//
//   const redis = new Redis({ seed: 1, startMs: Date.UTC(2025, 0, 1) });
//   await redis.set("k", "v", "EX", 10);
//   redis.clock.advance(10_001);                  // TTLs, blocking timeouts, LRU: no sleeping
//   await redis.get("k");                         // null
//
// Every command of the engine's table is a method (and a `…Buffer` method whose bulk strings come
// back as Buffers, or Uint8Arrays where there is no Buffer); arguments are flattened one level and
// stringified, replies converted as ioredis converts them (see resp.js); an error reply rejects
// with an Error whose message is Redis's text. `pipeline()` and `multi()` give `exec()` →
// `[[err, result], …]`; pub/sub messages are events; `duplicate()` is another client of the same
// engine; `defineCommand()` runs Lua.
//
// Batching: commands issued in one turn of the event loop are encoded into one buffer and go to
// the engine (src/wasm.rs `RespServer`, src/net/batch.rs) in one call at the end of the turn;
// their promises settle from the one reply buffer that comes back.
//
// Types: www/types/redis.d.ts. The wasm is loaded as the page loads it (engine.js), once, when
// this module is first imported (top-level await).

import { loadEnginePackage } from "../engine.js";
import { ReplyError, ReplyReader, RequestWriter } from "./resp.js";

export { ReplyError } from "./resp.js";

const pkg = await loadEnginePackage();

/** ioredis's message for a command on a closed connection. */
const CLOSED = "Connection is closed.";

/** Lua instructions run per timer turn of a script that outlived its call's budget. */
const SCRIPT_SLICE_STEPS = 1_000_000;

const fromUtf8 = new TextDecoder();

/** @param {any} v  a reply decoded as bytes → the same with strings */
function toStrings(v) {
  if (v instanceof Uint8Array) return fromUtf8.decode(v);
  if (Array.isArray(v)) return v.map(toStrings);
  return v;
}

/**
 * An argument as ioredis sends it: bytes as they are, null/undefined as "", else String().
 * @param {unknown} a
 * @returns {string | Uint8Array}
 */
function toArg(a) {
  if (typeof a === "string") return a;
  if (a instanceof Uint8Array) return a;
  if (a === null || a === undefined) return "";
  return String(a);
}

/**
 * Arguments flattened one level (`sadd("s", [1, 2])`), as ioredis does. All strings (the common
 * case): the array itself.
 * @param {ReadonlyArray<unknown>} args
 * @returns {ReadonlyArray<string | Uint8Array>}
 */
function flatten(args) {
  let i = 0;
  while (i < args.length && typeof args[i] === "string") i += 1;
  if (i === args.length) return /** @type {ReadonlyArray<string>} */ (args);
  return flattenSlow(args);
}

/** @param {ReadonlyArray<unknown>} args */
function flattenSlow(args) {
  /** @type {Array<string | Uint8Array>} */
  const out = [];
  for (const a of args) {
    if (Array.isArray(a)) for (const b of a) out.push(toArg(b));
    else out.push(toArg(a));
  }
  return out;
}

/** @param {Map<unknown, unknown> | Record<string, unknown>} o */
function pairs(o) {
  /** @type {unknown[]} */
  const out = [];
  if (o instanceof Map) for (const [k, v] of o) out.push(k, v);
  else for (const k of Object.keys(o)) out.push(k, o[k]);
  return out;
}

/** @param {unknown} v */
const isPlainObject = (v) => v instanceof Map || (typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array));

/** The commands `transformArgs` may change the arguments of. */
const ARG_TRANSFORMED = new Set(["mset", "msetnx", "hset", "hmset"]);

/**
 * ioredis's argument transformers: `mset({a: 1})`, `hset("h", {f: "v"})` (objects or Maps).
 * @param {string} name  lower case
 * @param {unknown[]} args
 */
function transformArgs(name, args) {
  if ((name === "mset" || name === "msetnx") && args.length === 1 && isPlainObject(args[0])) {
    return pairs(/** @type {any} */ (args[0]));
  }
  if ((name === "hset" || name === "hmset") && args.length === 2 && isPlainObject(args[1])) {
    return [args[0], ...pairs(/** @type {any} */ (args[1]))];
  }
  return args;
}

/**
 * ioredis's reply transformers: HGETALL → an object.
 * @param {string} name  lower case
 * @returns {((v: any) => any) | null}
 */
function replyTransform(name) {
  if (name === "hgetall") {
    return (v) => {
      if (!Array.isArray(v)) return v;
      /** @type {Record<string, unknown>} */
      const obj = {};
      for (let i = 0; i < v.length; i += 2) {
        Object.defineProperty(obj, String(v[i]), { value: v[i + 1], configurable: true, enumerable: true, writable: true });
      }
      return obj;
    };
  }
  return null;
}

const SUBSCRIBE = new Set(["subscribe", "psubscribe", "ssubscribe"]);
/** What ioredis lets through while subscribed (the rest is refused before it is sent). */
const SUBSCRIBER_MODE_COMMANDS = new Set([...SUBSCRIBE, "unsubscribe", "punsubscribe", "sunsubscribe", "ping", "quit", "reset"]);
const UNSUBSCRIBE = new Set(["unsubscribe", "punsubscribe", "sunsubscribe"]);
/** @type {Record<string, string>} the subscription kind an unsubscribe command ends */
const ENDS = { unsubscribe: "subscribe", punsubscribe: "psubscribe", sunsubscribe: "ssubscribe" };

/**
 * A pipeline's commands waiting together: `[[err, result], …]` once the last has its reply.
 * @typedef {object} Batch
 * @property {Array<[null, any] | [Error]>} results
 * @property {number} left
 * @property {(results: Array<[null, any] | [Error]>) => void} done
 */

/** A command sent and waiting for its reply: settles its promise, or its place in a batch. */
class Waiting {
  /**
   * @param {((v: any) => void) | null} res
   * @param {((e: Error) => void) | null} rej
   * @param {boolean} asBytes
   * @param {((v: any) => any) | null} transform
   * @param {Batch | null} batch
   * @param {number} index  its place in the batch
   */
  constructor(res, rej, asBytes, transform, batch, index) {
    this.res = res;
    this.rej = rej;
    this.asBytes = asBytes;
    this.transform = transform;
    this.batch = batch;
    this.index = index;
    /** @type {string | undefined} a (un)subscribe command: its lower-case name */
    this.sub = undefined;
    /** confirmations it still waits for */
    this.remaining = 0;
  }

  /** @param {any} v */
  resolve(v) {
    const b = this.batch;
    if (b === null) return /** @type {(v: any) => void} */ (this.res)(v);
    b.results[this.index] = [null, v];
    if (--b.left === 0) b.done(b.results);
  }

  /** @param {Error} e */
  reject(e) {
    const b = this.batch;
    if (b === null) return /** @type {(e: Error) => void} */ (this.rej)(e);
    b.results[this.index] = [e];
    if (--b.left === 0) b.done(b.results);
  }
}

/** The largest reply batch read from the reused buffer (bigger ones are copied apart). */
const SCRATCH_MAX = 1 << 20;

/** Where `_flush` is scheduled: a resolved promise's reaction (cheaper than queueMicrotask). */
const RESOLVED = Promise.resolve();

/** A small EventEmitter (Node's is not in browsers). */
class Emitter {
  constructor() {
    /** @type {Map<string, Array<(...args: any[]) => void>>} */
    this._listeners = new Map();
  }

  /**
   * @param {string} event
   * @param {(...args: any[]) => void} fn
   */
  on(event, fn) {
    const list = this._listeners.get(event);
    if (list) list.push(fn);
    else this._listeners.set(event, [fn]);
    return this;
  }

  /**
   * @param {string} event
   * @param {(...args: any[]) => void} fn
   */
  addListener(event, fn) {
    return this.on(event, fn);
  }

  /**
   * @param {string} event
   * @param {(...args: any[]) => void} fn
   */
  once(event, fn) {
    /** @param {any[]} args */
    const once = (...args) => {
      this.off(event, once);
      fn(...args);
    };
    return this.on(event, once);
  }

  /**
   * @param {string} event
   * @param {(...args: any[]) => void} fn
   */
  off(event, fn) {
    const list = this._listeners.get(event);
    if (list) {
      const i = list.indexOf(fn);
      if (i >= 0) list.splice(i, 1);
    }
    return this;
  }

  /**
   * @param {string} event
   * @param {(...args: any[]) => void} fn
   */
  removeListener(event, fn) {
    return this.off(event, fn);
  }

  /** @param {string} [event] */
  removeAllListeners(event) {
    if (event === undefined) this._listeners.clear();
    else this._listeners.delete(event);
    return this;
  }

  /** @param {string} event */
  listenerCount(event) {
    return this._listeners.get(event)?.length ?? 0;
  }

  /**
   * @param {string} event
   * @param {any[]} args
   */
  emit(event, ...args) {
    const list = this._listeners.get(event);
    if (!list || list.length === 0) return false;
    for (const fn of [...list]) fn(...args);
    return true;
  }
}

/** One engine and the clients connected to it (a Redis and its duplicates). */
class SharedEngine {
  /**
   * @param {number | undefined} seed
   * @param {number | undefined} startMs
   */
  constructor(seed, startMs) {
    this.server = new pkg.RespServer(seed, startMs);
    /** @type {Map<number, Redis>} */
    this.clients = new Map();
    /** @type {Error | null} a trap killed the engine */
    this.dead = null;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.scriptTimer = null;
    /** @type {WebAssembly.Memory} */
    this.memory = this.server.memory();
    this.mem = new Uint8Array(this.memory.buffer);
    /** Replies are copied here from linear memory and read from here (reused call to call). */
    this.scratch = new Uint8Array(4096);
    /** A client is reading `scratch` (a listener that calls in meanwhile gets a copy of its own). */
    this.reading = false;
  }

  /** The view of linear memory, made again after it grew (growing detaches the old buffer). */
  view() {
    let mem = this.mem;
    if (mem.byteLength === 0) mem = this.mem = new Uint8Array(this.memory.buffer);
    return mem;
  }

  /**
   * `server.call` through linear memory (no allocation a call, on either side): the replies in
   * `scratch` (or a copy, while `scratch` is being read), undefined when the engine failed.
   * @param {number} conn
   * @param {Uint8Array} bytes
   * @returns {Uint8Array | undefined}
   */
  exchange(conn, bytes) {
    if (this.dead) return undefined;
    const server = this.server;
    let n = 0;
    let at = 0;
    try {
      const ptr = server.input(bytes.length);
      this.view().set(bytes, ptr);
      n = server.call_input(conn, bytes.length);
      at = server.output_ptr();
    } catch (err) {
      this.guard(() => {
        throw err;
      });
      return undefined;
    }
    const src = this.view().subarray(at, at + n);
    // A big reply gets a copy of its own: `scratch` stays small.
    if (this.reading || n > SCRATCH_MAX) return src.slice();
    if (this.scratch.length < n) this.scratch = new Uint8Array(Math.max(n, this.scratch.length * 2));
    this.scratch.set(src);
    return this.scratch.subarray(0, n);
  }

  /**
   * Calls into the wasm; a trap (a bug) fails every client rather than the caller's process.
   * @template T
   * @param {() => T} fn
   * @returns {T | undefined}
   */
  guard(fn) {
    if (this.dead) return undefined;
    try {
      return fn();
    } catch (err) {
      this.dead = new Error(`redisplay's engine failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      for (const c of this.clients.values()) c._fail(this.dead);
      return undefined;
    }
  }

  /** Every client's commands of this turn sent (before the clock moves). */
  flushAll() {
    for (const c of this.clients.values()) c._flush();
  }

  /**
   * What reached clients outside their own calls: messages, late replies; closed connections.
   * @param {Redis | null} caller  already served by its own call
   */
  deliver(caller) {
    if (this.clients.size > 1 || caller === null) {
      const ready = this.guard(() => this.server.pending());
      if (ready) {
        for (const conn of ready) {
          const out = this.guard(() => this.server.take(conn));
          const c = this.clients.get(conn);
          if (out && c) c._receive(out);
        }
      }
      for (const c of this.clients.values()) if (c !== caller && c._waitingCount() > 0) c._checkClosed();
    }
  }

  /** A script past its call's budget runs on in timer turns (the process is never held). */
  watchScript() {
    if (this.scriptTimer !== null || this.dead || !this.server.script_busy()) return;
    this.scriptTimer = setTimeout(() => {
      this.scriptTimer = null;
      this.guard(() => this.server.run_script_slice(SCRIPT_SLICE_STEPS));
      this.deliver(null);
      this.watchScript();
    }, 0);
  }

  /** @param {number} ms */
  advance(ms) {
    this.flushAll();
    this.guard(() => this.server.advance(ms));
    this.deliver(null);
    return this.server.now();
  }

  /** @param {number} ms */
  setTime(ms) {
    this.flushAll();
    this.guard(() => this.server.set_time(ms));
    this.deliver(null);
    return this.server.now();
  }
}

const SHARED = Symbol("redisplay.shared-engine");

/**
 * @typedef {object} RedisOptions
 * @property {number} [seed]     the engine's RNG seed (default: random)
 * @property {number} [startMs]  the virtual clock's start, Unix ms (default 2025-01-01T00:00:00Z)
 * @property {number} [db]       SELECT this database first
 */

/**
 * The virtual clock of a client's engine (shared with its duplicates).
 * @typedef {object} Clock
 * @property {(ms: number) => number} advance  moves time forward `ms`; cron runs, TTLs expire, blocked commands time out; returns the new time
 * @property {() => number} now                the engine's time, Unix ms
 * @property {(ms: number) => number} set      sets the time (may go backwards), without cron
 */

export class Redis extends Emitter {
  /**
   * `new Redis()`, `new Redis({seed, startMs, db})`; ioredis's `(port, host, options)` and URL
   * forms are accepted, and only their options object is read.
   * @param {...any} args
   */
  constructor(...args) {
    super();
    /** @type {RedisOptions & {[SHARED]?: SharedEngine}} */
    let options = {};
    for (const a of args) if (typeof a === "object" && a !== null) options = a;
    const { [SHARED]: shared, ...rest } = options;
    /** The options it was made with (ioredis's `redis.options`). */
    this.options = rest;
    this._engine = shared ?? new SharedEngine(options.seed, options.startMs);
    this._conn = this._engine.server.connect();
    this._engine.clients.set(this._conn, this);
    this._writer = new RequestWriter(256);
    /** @type {Array<Waiting | undefined>} what waits for a reply, in order, in [_head, _tail) */
    this._waiting = [];
    this._head = 0;
    this._tail = 0;
    this._scheduled = false;
    this._quitting = false;
    /** @type {Record<string, Set<string>>} channels, patterns and shard channels subscribed to */
    this._subs = { subscribe: new Set(), psubscribe: new Set(), ssubscribe: new Set() };
    /** @type {"ready" | "end"} */
    this.status = "ready";
    const engine = this._engine;
    /** @type {Clock} */
    this.clock = {
      advance: (ms) => engine.advance(ms),
      now: () => engine.server.now(),
      set: (ms) => engine.setTime(ms),
    };
    this._flushBound = () => this._flush();
    /** @type {Map<string, {numberOfKeys?: number, lua: string}> | null} commands made by defineCommand */
    this._scripts = null;
    if (options.db) this.call("SELECT", options.db).catch(() => {});
    queueMicrotask(() => {
      if (this.status === "ready") {
        this.emit("connect");
        this.emit("ready");
      }
    });
  }

  /** This client's CLIENT ID on the engine (0 once closed). */
  get clientId() {
    return this._engine.server.client_id(this._conn);
  }

  /** ioredis's mode: "subscriber" while subscribed to anything, else "normal". */
  get mode() {
    return this._subscribed() ? "subscriber" : "normal";
  }

  _subscribed() {
    return this._subs.subscribe.size + this._subs.psubscribe.size + this._subs.ssubscribe.size > 0;
  }

  /**
   * Sends one command (a name and flattened, stringified arguments).
   * @param {string} name   as sent
   * @param {ReadonlyArray<string | Uint8Array>} args
   * @param {boolean} asBytes
   * @param {((v: any) => any) | null} transform
   * @param {string} [lower]  the name in lower case, when the caller knows it
   * @returns {Promise<any>}
   */
  _send(name, args, asBytes, transform, lower = name.toLowerCase()) {
    return new Promise((resolve, reject) => this._enqueue(name, args, asBytes, transform, lower, resolve, reject));
  }

  /**
   * `_send` without a promise of its own: `resolve` / `reject` are called with the outcome
   * (pipelines settle many commands with one promise).
   * @param {string} name
   * @param {ReadonlyArray<string | Uint8Array>} args
   * @param {boolean} asBytes
   * @param {((v: any) => any) | null} transform
   * @param {string} lower
   * @param {(v: any) => void} resolve
   * @param {(e: Error) => void} reject
   */
  _enqueue(name, args, asBytes, transform, lower, resolve, reject) {
    if (this.status === "end" || this._quitting) return reject(new Error(CLOSED));
    if (this._engine.dead) return reject(this._engine.dead);
    if (this._subscribed() && !SUBSCRIBER_MODE_COMMANDS.has(lower)) {
      return reject(new Error("Connection in subscriber mode, only subscriber commands may be used"));
    }
    this._writer.command(name, args);
    this._wait(new Waiting(resolve, reject, asBytes, transform, null, 0), args, lower);
  }

  /**
   * A command just written waits for its reply; the flush is scheduled.
   * @param {Waiting} w
   * @param {ReadonlyArray<string | Uint8Array>} args
   * @param {string} lower
   */
  _wait(w, args, lower) {
    if (lower.endsWith("subscribe") && SUBSCRIBE.has(lower)) {
      w.sub = lower;
      w.remaining = Math.max(args.length, 1);
    } else if (lower.endsWith("subscribe") && UNSUBSCRIBE.has(lower)) {
      w.sub = lower;
      const kind = this._subs[ENDS[lower]];
      w.remaining = args.length > 0 ? args.length : Math.max(kind.size, 1);
    }
    this._waiting[this._tail++] = w;
    if (!this._scheduled) {
      this._scheduled = true;
      RESOLVED.then(this._flushBound);
    }
  }

  /**
   * A pipeline's command (no promise of its own; `batch` collects the results).
   * @param {string} name
   * @param {ReadonlyArray<string | Uint8Array>} args
   * @param {boolean} asBytes
   * @param {string} lower
   * @param {Batch} batch
   * @param {number} index
   */
  _enqueueBatched(name, args, asBytes, lower, batch, index) {
    const w = new Waiting(null, null, asBytes, replyTransform(lower), batch, index);
    if (this.status === "end" || this._quitting) return w.reject(new Error(CLOSED));
    if (this._engine.dead) return w.reject(this._engine.dead);
    if (this._subscribed() && !SUBSCRIBER_MODE_COMMANDS.has(lower)) {
      return w.reject(new Error("Connection in subscriber mode, only subscriber commands may be used"));
    }
    this._writer.command(name, args);
    this._wait(w, args, lower);
  }

  /** Sends this turn's commands in one call and settles what the replies answer. */
  _flush() {
    this._scheduled = false;
    if (this._writer.len === 0) return;
    const bytes = this._writer.take();
    const engine = this._engine;
    const out = engine.exchange(this._conn, bytes);
    if (out === undefined) return;
    this._receive(out);
    engine.deliver(this);
    // Something still waits: blocked, killed, or behind a script that runs on.
    if (this._waitingCount() > 0) {
      this._checkClosed();
      engine.watchScript();
    }
  }

  /** The connection closed under it (CLIENT KILL, QUIT): what waits is rejected. */
  _checkClosed() {
    if (this.status !== "end" && this._engine.server.closed(this._conn)) this._end();
  }

  _end() {
    if (this.status === "end") return;
    this.status = "end";
    this._engine.clients.delete(this._conn);
    this._engine.guard(() => this._engine.server.close(this._conn));
    for (const w of this._takeWaiting()) w.reject(new Error(CLOSED));
    this.emit("close");
    this.emit("end");
  }

  /** @param {Error} err */
  _fail(err) {
    for (const w of this._takeWaiting()) w.reject(err);
    this.emit("error", err);
  }

  /**
   * Replies and pushes, in order.
   * @param {Uint8Array} bytes
   */
  _receive(bytes) {
    const engine = this._engine;
    const outer = !engine.reading;
    engine.reading = true;
    try {
      this._read(bytes);
    } finally {
      if (outer) engine.reading = false;
    }
  }

  _waitingCount() {
    return this._tail - this._head;
  }

  /** What waits, taken out (to be rejected). @returns {Waiting[]} */
  _takeWaiting() {
    const out = /** @type {Waiting[]} */ (this._waiting.slice(this._head, this._tail));
    this._waiting = [];
    this._head = 0;
    this._tail = 0;
    return out;
  }

  /**
   * The first command waiting, taken out. The queue is an array and two indexes (no shifting,
   * which costs as much as the rest of a pipeline's reading); both go back to 0 once it drained.
   */
  _shiftWaiting() {
    if (this._head === this._tail) return undefined;
    const q = this._waiting;
    const w = q[this._head];
    q[this._head] = undefined;
    this._head += 1;
    if (this._head === this._tail) {
      this._head = 0;
      this._tail = 0;
      // A long pipeline's slots are given back.
      if (q.length > 4096) this._waiting = [];
    }
    return w;
  }

  /** @param {Waiting} w  put back first (a subscribe that waits for more confirmations) */
  _unshiftWaiting(w) {
    if (this._head > 0) {
      this._waiting[--this._head] = w;
    } else {
      this._waiting.splice(this._head, 0, w);
      this._tail += 1;
    }
  }

  /** @param {Uint8Array} bytes */
  _read(bytes) {
    const r = new ReplyReader(bytes);
    while (r.more()) {
      const head = this._waiting[this._head];
      const pushy = this._subscribed() || head?.sub !== undefined || bytes[r.pos] === 62;
      const v = r.next(pushy || (head?.asBytes ?? false));
      if (pushy && this._event(v, r.push)) continue;
      const w = this._shiftWaiting();
      if (!w) continue;
      if (v instanceof ReplyError) {
        w.reject(v);
      } else if (w.sub) {
        const count = this._confirm(v);
        w.remaining -= 1;
        if (w.remaining > 0) this._unshiftWaiting(w);
        else w.resolve(count);
      } else {
        const value = pushy && !w.asBytes ? toStrings(v) : v;
        w.resolve(w.transform ? w.transform(value) : value);
      }
    }
  }

  /**
   * A (un)subscribe confirmation `[kind, channel, count]`: the sets follow it. Its count.
   * @param {any} v
   */
  _confirm(v) {
    if (!Array.isArray(v)) return v;
    const kind = toStrings(v[0]);
    const channel = v[1] === null ? null : toStrings(v[1]);
    if (channel !== null) {
      if (SUBSCRIBE.has(kind)) this._subs[kind].add(channel);
      else if (UNSUBSCRIBE.has(kind)) this._subs[ENDS[kind]].delete(channel);
    }
    return Number(v[2]);
  }

  /**
   * A message (or another push) as an event; false when the reply answers a command.
   * @param {any} v  decoded as bytes
   * @param {boolean} push  a RESP3 push frame
   */
  _event(v, push) {
    if (!Array.isArray(v) || v.length === 0 || !(v[0] instanceof Uint8Array)) return false;
    const kind = fromUtf8.decode(v[0]);
    if (kind === "message" || kind === "smessage") {
      if (this.listenerCount(kind) > 0) this.emit(kind, toStrings(v[1]), toStrings(v[2]));
      this.emit(`${kind}Buffer`, v[1], v[2]);
      return true;
    }
    if (kind === "pmessage") {
      const pattern = toStrings(v[1]);
      if (this.listenerCount("pmessage") > 0) this.emit("pmessage", pattern, toStrings(v[2]), toStrings(v[3]));
      this.emit("pmessageBuffer", pattern, v[2], v[3]);
      return true;
    }
    if (push && !SUBSCRIBE.has(kind) && !UNSUBSCRIBE.has(kind)) {
      // RESP3 pushes that answer no command (invalidations): `push` with the frame as strings.
      this.emit("push", toStrings(v));
      return true;
    }
    return false;
  }

  /**
   * Any command by name: `call("SET", "k", "v")` (ioredis 5's `call`).
   * @param {string} command
   * @param {...unknown} args
   */
  call(command, ...args) {
    const name = String(command).toLowerCase();
    return this._send(command, flatten(transformArgs(name, args)), false, replyTransform(name));
  }

  /**
   * `call` with bulk strings as bytes.
   * @param {string} command
   * @param {...unknown} args
   */
  callBuffer(command, ...args) {
    const name = String(command).toLowerCase();
    return this._send(command, flatten(transformArgs(name, args)), true, replyTransform(name));
  }

  /**
   * ioredis's `sendCommand` shape is not kept; this sends raw arguments.
   * @param {string} command
   * @param {ReadonlyArray<string | Uint8Array>} args
   * @param {boolean} [asBytes]
   */
  sendRaw(command, args, asBytes = false) {
    return this._send(command, args, asBytes, null);
  }

  /** A batch of commands whose `exec()` gives `[[err, result], …]` (no MULTI). @param {unknown[][]} [commands] */
  pipeline(commands) {
    const p = new Pipeline(this, false);
    if (Array.isArray(commands)) p.addBatch(commands);
    return p;
  }

  /**
   * A MULTI … EXEC transaction built like a pipeline; `multi({pipeline: false})` sends MULTI
   * alone and resolves to "OK" (then each command replies "QUEUED" and `exec()` runs them).
   * @param {unknown[][] | {pipeline?: boolean}} [commands]
   * @param {{pipeline?: boolean}} [options]
   * @returns {any}
   */
  multi(commands, options) {
    if (options === undefined && !Array.isArray(commands)) options = commands;
    if (options && options.pipeline === false) return this._send("MULTI", [], false, null);
    const p = new Pipeline(this, true);
    if (Array.isArray(commands)) p.addBatch(commands);
    return p;
  }

  /** EXEC after `multi({pipeline: false})`: `[[err, result], …]`, or null when a WATCH failed. */
  exec() {
    return this._send("EXEC", [], false, wrapMultiResult);
  }

  /**
   * Another client of the same engine (own connection, db, subscriptions).
   * @param {RedisOptions} [override]
   */
  duplicate(override) {
    return new Redis({ ...this.options, ...override, [SHARED]: this._engine });
  }

  /**
   * Lua as a method: `redis[name](...keys, ...args)` runs `lua` with `numberOfKeys` keys (or,
   * without it, the first argument says how many), and `${name}Buffer` likewise.
   * @param {string} name
   * @param {{numberOfKeys?: number, lua: string}} definition
   */
  defineCommand(name, definition) {
    this._scripts ??= new Map();
    this._scripts.set(name, definition);
    Reflect.set(this, name, (/** @type {unknown[]} */ ...args) => this._send("EVAL", scriptArgs(definition, args), false, null));
    Reflect.set(this, `${name}Buffer`, (/** @type {unknown[]} */ ...args) => this._send("EVAL", scriptArgs(definition, args), true, null));
  }

  /** QUIT: resolves "OK" once the engine closed the connection; later calls reject. */
  quit() {
    const p = this._send("QUIT", [], false, null);
    this._quitting = true;
    return p.then((v) => {
      this._end();
      return v;
    });
  }

  /** Closes at once: what waits is rejected ("Connection is closed."). */
  disconnect() {
    this._flush();
    this._end();
  }
}

/**
 * The EVAL arguments of a defined command.
 * @param {{numberOfKeys?: number, lua: string}} def
 * @param {unknown[]} args
 */
function scriptArgs(def, args) {
  const flat = flatten(args);
  if (typeof def.numberOfKeys === "number") return [def.lua, String(def.numberOfKeys), ...flat];
  return [def.lua, ...flat];
}

/**
 * EXEC's array as `[[null, result] | [err], …]`, null when a WATCH failed.
 * @param {any} arr
 */
function wrapMultiResult(arr) {
  if (!Array.isArray(arr)) return arr === null ? null : arr;
  return arr.map((item) => (item instanceof Error ? [item] : [null, item]));
}

/**
 * @typedef {object} Queued
 * @property {string} name   as sent
 * @property {string} lower
 * @property {ReadonlyArray<string | Uint8Array>} args
 * @property {boolean} asBytes
 */

/** `redis.pipeline()` / `redis.multi()`: commands chained, sent together by `exec()`. */
export class Pipeline {
  /**
   * @param {Redis} redis
   * @param {boolean} transaction
   */
  constructor(redis, transaction) {
    this.redis = redis;
    this.transaction = transaction;
    /** @type {Queued[]} */
    this._queue = [];
    this._done = false;
    this.isPipeline = true;
    const scripts = redis._scripts;
    if (scripts) {
      for (const [name, def] of scripts) {
        Reflect.set(this, name, (/** @type {unknown[]} */ ...args) => this._push("EVAL", "eval", scriptArgs(def, args), false));
        Reflect.set(this, `${name}Buffer`, (/** @type {unknown[]} */ ...args) => this._push("EVAL", "eval", scriptArgs(def, args), true));
      }
    }
  }

  get length() {
    return this._queue.length;
  }

  /**
   * @param {string} name
   * @param {string} lower
   * @param {ReadonlyArray<string | Uint8Array>} args
   * @param {boolean} asBytes
   */
  _push(name, lower, args, asBytes) {
    this._queue.push({ name, lower, args, asBytes });
    return this;
  }

  /**
   * Any command by name.
   * @param {string} command
   * @param {...unknown} args
   */
  call(command, ...args) {
    const lower = String(command).toLowerCase();
    return this._push(command, lower, flatten(transformArgs(lower, args)), false);
  }

  /** @param {unknown[][]} commands  `[["set", "k", "v"], ["get", "k"]]` */
  addBatch(commands) {
    for (const [name, ...args] of commands) {
      // A method by that name (`getBuffer`, a defined command), else the command itself.
      const method = typeof name === "string" && name !== "call" && name !== "exec" ? Reflect.get(this, name) : undefined;
      if (typeof method === "function") method.apply(this, args);
      else this.call(String(name), ...args);
    }
    return this;
  }

  /**
   * Sends everything in one batch: `[[null, result] | [err], …]` in order. In a transaction,
   * EXEC's results; an EXECABORT rejects (its `previousErrors` are the commands' errors) and a
   * failed WATCH resolves null.
   * @returns {Promise<any>}
   */
  exec() {
    if (this._done) return Promise.reject(new Error("Pipeline cannot be used to send any commands when the `exec()` has been called on it."));
    this._done = true;
    const redis = this.redis;
    const queue = this._queue;
    if (!this.transaction) {
      if (queue.length === 0) return Promise.resolve([]);
      return new Promise((done) => {
        /** @type {Batch} */
        const batch = { results: new Array(queue.length), left: queue.length, done };
        for (let i = 0; i < queue.length; i += 1) {
          const q = queue[i];
          redis._enqueueBatched(q.name, q.args, q.asBytes, q.lower, batch, i);
        }
      });
    }
    const anyBytes = queue.some((q) => q.asBytes);
    const multi = redis._send("MULTI", [], false, null).then(
      () => null,
      (e) => e,
    );
    const queued = queue.map((q) =>
      redis._send(q.name, q.args, false, null).then(
        () => null,
        (e) => e,
      ),
    );
    const exec = redis._send("EXEC", [], anyBytes, null);
    return Promise.all([multi, Promise.all(queued), exec.then((v) => ({ v }), (e) => ({ e }))]).then(([multiErr, errors, result]) => {
      if (multiErr) throw multiErr;
      if ("e" in result) {
        const err = /** @type {any} */ (result.e);
        err.previousErrors = errors.filter((e) => e !== null);
        throw err;
      }
      const arr = result.v;
      if (!Array.isArray(arr)) return null;
      return arr.map((item, i) => {
        if (item instanceof Error) return [item];
        const q = queue[i];
        const value = anyBytes && !q?.asBytes ? toStrings(item) : item;
        const t = q ? replyTransform(q.lower) : null;
        return [null, t ? t(value) : value];
      });
    });
  }
}

// --- every command as a method, from the engine's own table -----------------------------------

/** The engine's command names (COMMAND LIST), lower case. */
function commandNames() {
  const s = new pkg.RespServer(0, 0);
  try {
    const c = s.connect();
    const w = new RequestWriter(64);
    w.command("COMMAND", ["LIST"]);
    const names = new ReplyReader(s.call(c, w.take())).next();
    // Subcommands (`config|get`) are arguments of their container's method.
    return Array.isArray(names) ? names.map((n) => String(n).toLowerCase()).filter((n) => !n.includes("|")).sort() : [];
  } finally {
    s.free();
  }
}

/** Every command the engine knows, lower case (the methods `Redis` and `Pipeline` have). */
export const COMMANDS = Object.freeze(commandNames());

{
  const redisProto = /** @type {any} */ (Redis.prototype);
  const pipeProto = /** @type {any} */ (Pipeline.prototype);
  for (const lower of COMMANDS) {
    const name = lower.toUpperCase();
    const transform = replyTransform(lower);
    /** @param {unknown[]} args */
    const argsOf = ARG_TRANSFORMED.has(lower) ? (args) => flatten(transformArgs(lower, args)) : flatten;
    if (!(lower in redisProto)) {
      redisProto[lower] = function (/** @type {unknown[]} */ ...args) {
        return this._send(name, argsOf(args), false, transform, lower);
      };
    }
    if (!(`${lower}Buffer` in redisProto)) {
      redisProto[`${lower}Buffer`] = function (/** @type {unknown[]} */ ...args) {
        return this._send(name, argsOf(args), true, transform, lower);
      };
    }
    if (!(lower in pipeProto)) {
      pipeProto[lower] = function (/** @type {unknown[]} */ ...args) {
        return this._push(name, lower, argsOf(args), false);
      };
      pipeProto[`${lower}Buffer`] = function (/** @type {unknown[]} */ ...args) {
        return this._push(name, lower, argsOf(args), true);
      };
    }
  }
}
