// Types of `import { Redis } from "redisplay"` (www/client/redis.js): an in-process Redis 7.0
// client shaped like ioredis, with a virtual clock. Hand-written; the commands named here are
// typed, and every other command of the engine is a method too (the index signature).

/** A value sent as an argument: strings and bytes as they are, numbers stringified. */
export type RedisValue = string | number | Uint8Array | null | undefined;
/** Arguments are flattened one level, as ioredis flattens them: `sadd("s", [1, 2])`. */
export type RedisArg = RedisValue | ReadonlyArray<RedisValue>;
/** What the `…Buffer` commands give for bulk strings: a Buffer in Node, a Uint8Array elsewhere. */
export type Bytes = Uint8Array;

/** An error reply: its message is Redis's text (`ERR unknown command 'x', …`). */
export class ReplyError extends Error {
  constructor(message: string);
}

/** `[null, result]` or `[error]`: one command's outcome in `exec()`'s array. */
export type Outcome<T = unknown> = [error: null, result: T] | [error: Error];

export interface RedisOptions {
  /** The engine's RNG seed (default: random). Same seed, same commands → same results. */
  seed?: number;
  /** Where the virtual clock starts, Unix ms (default 2025-01-01T00:00:00Z). */
  startMs?: number;
  /** SELECT this database first. */
  db?: number;
}

/** The virtual clock of a client's engine, shared with its duplicates. */
export interface Clock {
  /** Moves time forward `ms`: serverCron runs, TTLs expire, blocked commands time out. Returns the new time. */
  advance(ms: number): number;
  /** The engine's time, Unix ms. */
  now(): number;
  /** Sets the time (it may go backwards, as a real server's clock can), without running cron. */
  set(ms: number): number;
}

export interface ScriptDefinition {
  /** How many of the arguments are keys; without it the first argument says how many. */
  numberOfKeys?: number;
  lua: string;
}

type Listener = (...args: any[]) => void;

declare class Emitter {
  on(event: string, listener: Listener): this;
  addListener(event: string, listener: Listener): this;
  once(event: string, listener: Listener): this;
  off(event: string, listener: Listener): this;
  removeListener(event: string, listener: Listener): this;
  removeAllListeners(event?: string): this;
  listenerCount(event: string): number;
  emit(event: string, ...args: any[]): boolean;
}

export class Redis extends Emitter {
  /** `new Redis()`, `new Redis({ seed, startMs, db })`; ioredis's port/host/URL arguments are accepted and ignored. */
  constructor(options?: RedisOptions);
  constructor(...args: unknown[]);

  readonly options: RedisOptions;
  /** "ready", or "end" once quit, disconnected or killed. */
  status: "ready" | "end";
  /** "subscriber" while subscribed to any channel or pattern. */
  readonly mode: "normal" | "subscriber";
  /** This connection's CLIENT ID (0 once closed). */
  readonly clientId: number;
  /** The virtual clock (shared by the duplicates of this client). The CLOCK command is `call("CLOCK", …)`. */
  readonly clock: Clock;

  /** Any command by name: `call("SET", "k", "v")`. */
  call(command: string, ...args: RedisArg[]): Promise<any>;
  /** `call`, with bulk strings as bytes. */
  callBuffer(command: string, ...args: RedisArg[]): Promise<any>;
  /** A batch: chained commands, sent together by `exec()`. */
  pipeline(commands?: unknown[][]): Pipeline;
  /** MULTI … EXEC built like a pipeline; `exec()` rejects on EXECABORT (with `previousErrors`), resolves null when a WATCH failed. */
  multi(commands?: unknown[][], options?: { pipeline?: true }): Pipeline;
  multi(options: { pipeline?: true }): Pipeline;
  /** MULTI sent alone: commands then reply "QUEUED", and `exec()` runs them. */
  multi(options: { pipeline: false }): Promise<"OK">;
  /** EXEC after `multi({pipeline: false})`. */
  exec(): Promise<Outcome[] | null>;
  /** Another client (connection) of the same engine: own db, transaction, subscriptions. */
  duplicate(override?: RedisOptions): Redis;
  /** `redis[name](...keysAndArgs)` runs `lua` (and `${name}Buffer`); pipelines get it too. */
  defineCommand(name: string, definition: ScriptDefinition): void;
  /** QUIT: "OK", then the connection is closed and later calls reject ("Connection is closed."). */
  quit(): Promise<"OK">;
  /** Closes at once; what waits is rejected. */
  disconnect(): void;

  on(event: "message" | "smessage", listener: (channel: string, message: string) => void): this;
  on(event: "messageBuffer" | "smessageBuffer", listener: (channel: Bytes, message: Bytes) => void): this;
  on(event: "pmessage", listener: (pattern: string, channel: string, message: string) => void): this;
  on(event: "pmessageBuffer", listener: (pattern: string, channel: Bytes, message: Bytes) => void): this;
  on(event: "push", listener: (frame: unknown[]) => void): this;
  on(event: "connect" | "ready" | "close" | "end", listener: () => void): this;
  on(event: "error", listener: (error: Error) => void): this;
  on(event: string, listener: Listener): this;

  // Strings
  get(key: RedisValue): Promise<string | null>;
  getBuffer(key: RedisValue): Promise<Bytes | null>;
  set(key: RedisValue, value: RedisValue, ...options: RedisArg[]): Promise<"OK" | string | null>;
  setBuffer(key: RedisValue, value: RedisValue, ...options: RedisArg[]): Promise<Bytes | null>;
  mget(...keys: RedisArg[]): Promise<Array<string | null>>;
  mset(object: Record<string, RedisValue> | Map<RedisValue, RedisValue>): Promise<"OK">;
  mset(...keysAndValues: RedisArg[]): Promise<"OK">;
  incr(key: RedisValue): Promise<number>;
  incrby(key: RedisValue, increment: RedisValue): Promise<number>;
  incrbyfloat(key: RedisValue, increment: RedisValue): Promise<string>;
  decr(key: RedisValue): Promise<number>;
  decrby(key: RedisValue, decrement: RedisValue): Promise<number>;
  append(key: RedisValue, value: RedisValue): Promise<number>;
  strlen(key: RedisValue): Promise<number>;
  // Keys and time
  del(...keys: RedisArg[]): Promise<number>;
  exists(...keys: RedisArg[]): Promise<number>;
  expire(key: RedisValue, seconds: RedisValue, ...options: RedisArg[]): Promise<number>;
  pexpire(key: RedisValue, ms: RedisValue, ...options: RedisArg[]): Promise<number>;
  ttl(key: RedisValue): Promise<number>;
  pttl(key: RedisValue): Promise<number>;
  persist(key: RedisValue): Promise<number>;
  type(key: RedisValue): Promise<string>;
  keys(pattern: RedisValue): Promise<string[]>;
  scan(cursor: RedisValue, ...options: RedisArg[]): Promise<[cursor: string, keys: string[]]>;
  dbsize(): Promise<number>;
  flushdb(...options: RedisArg[]): Promise<"OK">;
  flushall(...options: RedisArg[]): Promise<"OK">;
  select(db: RedisValue): Promise<"OK">;
  time(): Promise<[seconds: string, microseconds: string]>;
  ping(message?: RedisValue): Promise<string>;
  echo(message: RedisValue): Promise<string>;
  // Hashes
  hset(key: RedisValue, object: Record<string, RedisValue> | Map<RedisValue, RedisValue>): Promise<number>;
  hset(key: RedisValue, ...fieldsAndValues: RedisArg[]): Promise<number>;
  hget(key: RedisValue, field: RedisValue): Promise<string | null>;
  hmget(key: RedisValue, ...fields: RedisArg[]): Promise<Array<string | null>>;
  hgetall(key: RedisValue): Promise<Record<string, string>>;
  hgetallBuffer(key: RedisValue): Promise<Record<string, Bytes>>;
  hdel(key: RedisValue, ...fields: RedisArg[]): Promise<number>;
  hincrby(key: RedisValue, field: RedisValue, increment: RedisValue): Promise<number>;
  // Lists
  lpush(key: RedisValue, ...elements: RedisArg[]): Promise<number>;
  rpush(key: RedisValue, ...elements: RedisArg[]): Promise<number>;
  lpop(key: RedisValue): Promise<string | null>;
  lpop(key: RedisValue, count: RedisValue): Promise<string[] | null>;
  rpop(key: RedisValue): Promise<string | null>;
  rpop(key: RedisValue, count: RedisValue): Promise<string[] | null>;
  lrange(key: RedisValue, start: RedisValue, stop: RedisValue): Promise<string[]>;
  llen(key: RedisValue): Promise<number>;
  /** Waits (in virtual time: `clock.advance` times it out) for an element: `[key, element]` or null. */
  blpop(...keysAndTimeout: RedisArg[]): Promise<[key: string, element: string] | null>;
  brpop(...keysAndTimeout: RedisArg[]): Promise<[key: string, element: string] | null>;
  // Sets
  sadd(key: RedisValue, ...members: RedisArg[]): Promise<number>;
  srem(key: RedisValue, ...members: RedisArg[]): Promise<number>;
  smembers(key: RedisValue): Promise<string[]>;
  sismember(key: RedisValue, member: RedisValue): Promise<number>;
  scard(key: RedisValue): Promise<number>;
  // Sorted sets
  zadd(key: RedisValue, ...scoresAndMembers: RedisArg[]): Promise<number | string | null>;
  zrange(key: RedisValue, start: RedisValue, stop: RedisValue, ...options: RedisArg[]): Promise<string[]>;
  zrank(key: RedisValue, member: RedisValue): Promise<number | null>;
  zrevrank(key: RedisValue, member: RedisValue): Promise<number | null>;
  zscore(key: RedisValue, member: RedisValue): Promise<string | null>;
  zincrby(key: RedisValue, increment: RedisValue, member: RedisValue): Promise<string>;
  zcard(key: RedisValue): Promise<number>;
  zrem(key: RedisValue, ...members: RedisArg[]): Promise<number>;
  // Pub/sub: messages arrive as "message" / "pmessage" / "smessage" events.
  publish(channel: RedisValue, message: RedisValue): Promise<number>;
  subscribe(...channels: RedisArg[]): Promise<number>;
  psubscribe(...patterns: RedisArg[]): Promise<number>;
  ssubscribe(...channels: RedisArg[]): Promise<number>;
  unsubscribe(...channels: RedisArg[]): Promise<number>;
  punsubscribe(...patterns: RedisArg[]): Promise<number>;
  sunsubscribe(...channels: RedisArg[]): Promise<number>;
  // Transactions and scripts
  watch(...keys: RedisArg[]): Promise<"OK">;
  unwatch(): Promise<"OK">;
  eval(script: string, numkeys: RedisValue, ...keysAndArgs: RedisArg[]): Promise<any>;
  evalsha(sha1: string, numkeys: RedisValue, ...keysAndArgs: RedisArg[]): Promise<any>;

  /** Every other command of the engine (lower case, and `…Buffer`), and defined commands. */
  [command: string]: any;
}

/** `redis.pipeline()` / `redis.multi()`: every command method returns the pipeline. */
export class Pipeline {
  readonly redis: Redis;
  readonly transaction: boolean;
  readonly length: number;
  readonly isPipeline: true;
  call(command: string, ...args: RedisArg[]): this;
  addBatch(commands: unknown[][]): this;
  /** Sends everything in one batch: `[[null, result] | [error], …]`. */
  exec(): Promise<Outcome[] | null>;
  [command: string]: any;
}

/** Every command the engine knows, lower case: the methods `Redis` and `Pipeline` have. */
export const COMMANDS: readonly string[];
