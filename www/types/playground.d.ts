// What the wasm package's `Playground` and `DelayQueueLab` methods return where src/wasm.rs
// builds the object by hand (js_sys, not serde — so tests/event_types.rs cannot generate these).
// wasm-bindgen's own pkg/redisplay.d.ts types them `any`; www/engine/ reads them through these.
// Hand-written: tests/e2e/engine-shapes.test.mjs calls every method on the built package and
// holds each result to the types here (and the serde ones to events.d.ts and snapshots.d.ts).
//
// Type imports in www/ name their module without an extension (`import("../types/playground")`):
// scripts/module-graph.mjs follows only `.js`/`.mjs` specifiers, the ones a browser loads.

import type { DelayQueueEvent, Event } from "./events";

/** A reply as data, as a RESP2 client gets it (RESP3 maps flattened, sets as arrays…). */
export type Reply = StatusReply | ErrorReply | IntegerReply | BulkReply | DoubleReply | NilReply | NilArrayReply | ArrayReply;

export interface StatusReply {
  type: "status";
  value: string;
}

export interface ErrorReply {
  type: "error";
  value: string;
}

/** A number, or a BigInt beyond 2^53. */
export interface IntegerReply {
  type: "integer";
  value: number | bigint;
}

/** `value` with U+FFFD for bytes that are not UTF-8; then `bytes` holds them exactly. */
export interface BulkReply {
  type: "bulk";
  value: string;
  bytes?: Uint8Array;
}

export interface DoubleReply {
  type: "double";
  value: number;
}

export interface NilReply {
  type: "nil";
}

export interface NilArrayReply {
  type: "nil-array";
}

export interface ArrayReply {
  type: "array";
  value: Reply[];
}

/** `execute(line)` / `execute_on(n, line)`: what redis-cli prints and the last reply. */
export interface RawLineResult {
  text: string;
  /** The exact bytes when `text` is not valid UTF-8. */
  bytes?: Uint8Array;
  prompt: string;
  reply: Reply | null;
  quit: boolean;
  clear: boolean;
  /** SHUTDOWN ended the server; `connect` starts it again. */
  shutdown?: boolean;
  blocked: boolean;
  subscribed: boolean;
}

/** `poll(n)`: what console `n` prints without input. */
export interface RawPollResult {
  text: string;
  bytes?: Uint8Array;
  prompt: string;
  blocked: boolean;
  subscribed: boolean;
  client: number;
}

/** `command(args)` / `peek(args)`. */
export interface RawCommandResult {
  text: string;
  reply: Reply;
}

/** `advance_to(ms, maxTicks)`. */
export interface RawAdvance {
  ticks: number;
  lagMs: number;
  now: number;
}

/** `drain_events()`: `events` is null when the serializer refused one (a number above 2^53). */
export interface RawDrain {
  events: Event[] | null;
  dropped: number;
}

/** One row of `commands()`: the command table, subcommands as `config|get`. */
export interface CommandDoc {
  name: string;
  summary: string;
  group: string;
  since: string;
  arity: number;
  playground: boolean;
}

/** `DelayQueueLab.run_until(t, maxSteps)`. */
export interface RawDelayQueueRun {
  now: number;
  done: boolean;
}

/** `DelayQueueLab.drain()`. */
export interface RawDelayQueueDrain {
  events: DelayQueueEvent[] | null;
  dropped: number;
}

/** `load_rdb(bytes)`: what a file that loaded did — or, when it did not, why (nothing changed). */
export type RawLoadResult = RawLoaded | RawNotLoaded;

export interface RawLoaded {
  ok: true;
  /** The file's RDB format version (Redis 7.0 writes 10). */
  version: number;
  keysLoaded: number;
  /** Keys whose TTL had passed: skipped, as a master does on load. */
  keysExpired: number;
  emptyKeysSkipped: number;
  /** Function libraries created. */
  libraries: number;
}

export interface RawNotLoaded {
  ok: false;
  /** Redis's words (`Wrong signature trying to load DB from file`, `Short read loading DB…`). */
  error: string;
}
