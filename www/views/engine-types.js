// @ts-check
// The shapes of the engine's events and snapshots as the view models read them — JSDoc types
// only, no code. They mirror the Rust structs that cross src/wasm.rs as plain JS objects
// (serde-wasm-bindgen, JSON-compatible: integers are numbers, `Option` is null):
//   src/events.rs Event (tagged by `kind`, snake_case), src/expire.rs ExpireCycleReport,
//   src/evict.rs EvictionReport, src/introspect.rs KeyspacePage / ZsetWindow / ExpireField.
// Only the fields the views read are listed. When the generated www/types/events.d.ts exists,
// each typedef here becomes an import type of the generated name (and the models keep importing
// their names from this file). Note: scripts/module-graph.mjs reads type imports in JSDoc as
// module dependencies too, so a typedef must only name modules that exist, without cycles.

// ---------------------------------------------------------------------------------------------
// Events (src/events.rs)
// ---------------------------------------------------------------------------------------------

/**
 * A command ran (or was rejected). `name` is the table's full name (`config|get`).
 * @typedef {{kind: "command", at_ms: number, client: number, db: number, name: string, argc: number, error: boolean}} CommandEvent
 */

/**
 * A keyspace change, named as keyspace notifications name it (`set`, `del`, `expired`…).
 * @typedef {{kind: "keyspace", at_ms: number, db: number, event: string, key: string}} KeyspaceEvent
 */

/**
 * A key removed because its TTL had passed; `command` is the command that touched it (lazy).
 * @typedef {{kind: "expired", at_ms: number, db: number, key: string, by: "lazy" | "active", late_ms: number,
 *            command: string | null}} ExpiredEvent
 */

/**
 * The main thread spent `us` freeing a big value synchronously.
 * @typedef {{kind: "stall", at_ms: number, db: number, key: string, cause: string, us: number}} StallEvent
 */

/** @typedef {{kind: "cron", at_ms: number, ticks: number, hz: number}} CronEvent */
/** @typedef {{kind: "clock_set", from_ms: number, to_ms: number}} ClockSetEvent */
/** @typedef {{kind: "config", at_ms: number, name: string, value: string}} ConfigEvent */

/**
 * A sorted-set member was placed: its 0-based rank after the insert and, in a skiplist, the
 * level it drew (0 in a listpack).
 * @typedef {{kind: "zset_insert", at_ms: number, db: number, key: string, member: string, score: number,
 *            rank: number, level: number}} ZsetInsertEvent
 */

/** @typedef {{kind: "zset_remove", at_ms: number, db: number, key: string, members: string[]}} ZsetRemoveEvent */

/**
 * A sorted set changed encoding; `len` is its length before the insert that converted it.
 * @typedef {{kind: "zset_convert", at_ms: number, db: number, key: string, from: string, to: string, len: number}} ZsetConvertEvent
 */

/**
 * One node a skiplist search examined (src/events.rs SearchStep); `level` is 0-based.
 * @typedef {{level: number, rank?: number, moved?: boolean, member: string, score: number}} SearchStep
 */

/**
 * The nodes a skiplist lookup visited, top level first.
 * @typedef {{kind: "zset_search", at_ms: number, db: number, key: string, command: string, path: SearchStep[]}} ZsetSearchEvent
 */

/** @typedef {{kind: "expire_cycle", at_ms: number, report: ExpireCycleReport}} ExpireCycleEvent */
/** @typedef {{kind: "eviction", at_ms: number, report: EvictionReport}} EvictionEvent */

/**
 * A command went out on the propagation stream (to the AOF and/or replicas); `cause` is the
 * client command it came from (`client 3: SET k v EX 60`), null for an expiry's or eviction's DEL.
 * @typedef {{kind: "propagated", at_ms: number, db: number | null, argv: string[], aof: boolean, repl: boolean,
 *            cause: string | null}} PropagatedEvent
 */

/**
 * Any engine event. Views switch on `kind` and ignore kinds they do not know.
 * @typedef {CommandEvent | KeyspaceEvent | ExpiredEvent | StallEvent | CronEvent | ClockSetEvent | ConfigEvent
 *   | ZsetInsertEvent | ZsetRemoveEvent | ZsetConvertEvent | ZsetSearchEvent | ExpireCycleEvent | EvictionEvent
 *   | PropagatedEvent} EngineEvent
 */

// ---------------------------------------------------------------------------------------------
// Reports carried by events (src/expire.rs, src/evict.rs)
// ---------------------------------------------------------------------------------------------

/**
 * One key an expire round examined; `ttl_ms` is negative when it was already past.
 * @typedef {{key: string, bucket: number, ttl_ms: number, expired: boolean}} ExaminedKey
 */

/**
 * One round (one pass of the do-while over one db). `buckets`: buckets visited (7.0) or random
 * picks (classic); `cursor`: the db's cursor after the round; `elapsed_us`: virtual µs so far.
 * @typedef {{db: number, iteration: number, sampled: number, expired: number, buckets: number, cursor: number,
 *            table_size: number, keys: ExaminedKey[], stale_percent: number, repeat: boolean, reason: string,
 *            elapsed_us: number}} ExpireRound
 */

/**
 * One call of activeExpireCycle(). `rounds` lists at most 64 (MAX_ROUNDS_IN_EVENT); `round_count`
 * counts them all. `cursors_after` is [db, cursor, bucket] per visited db.
 * @typedef {{kind: "slow" | "fast", algorithm: string, budget_us: number, time_used_us: number, cap_reached: boolean,
 *            dbs_visited: number[], sampled: number, expired: number, round_count: number, rounds: ExpireRound[],
 *            cursors_after: Array<[number, number, number]>, stale_perc_after: number, keys_per_loop: number,
 *            acceptable_stale: number}} ExpireCycleReport
 */

/**
 * An eviction pool entry or sample; scores above 2^53 - 1 arrive as decimal strings.
 * @typedef {{idle: number | string, key: string, db: number}} PoolEntry
 * @typedef {{db: number, key: string, score: number | string}} EvictionSample
 */

/**
 * What one eviction did: the samples that fed the pool, the pool before and after, the victim.
 * @typedef {{policy: string, samples: EvictionSample[], pool_before: Array<PoolEntry | null>,
 *            pool_after: Array<PoolEntry | null>, victim_db: number, victim: string, ghosts: number,
 *            bytes_freed: number, used_before: number, maxmemory: number}} EvictionReport
 */

// ---------------------------------------------------------------------------------------------
// Snapshots (src/introspect.rs), read through engine.js's `source`
// ---------------------------------------------------------------------------------------------

/**
 * One member of a `zset_window`: `level` and `spans` (one per level) are 0 / empty in a listpack.
 * @typedef {{rank: number, member: string, score: number, level: number, spans: number[]}} ZsetEntry
 */

/**
 * Members at ranks `start…` of a sorted set, with the limits that decide its encoding.
 * @typedef {{key: string, encoding: string, len: number, max_level: number, header_spans: number[], start: number,
 *            entries: ZsetEntry[], max_entries: number, max_value: number}} ZsetWindow
 */

/**
 * @typedef {{key: string, type: string, encoding: string, len: number, expire_at_ms: number | null,
 *            expired: boolean}} KeyInfo
 * @typedef {{db: number, total: number, volatile: number, offset: number, keys: KeyInfo[]}} KeyspacePage
 */

/**
 * The expires table folded into cells, in bucket order.
 * @typedef {{live: number, stale: number}} ExpireCell
 * @typedef {{db: number, table_size: number, volatile: number, stale: number, keys: number, cursor_bucket: number,
 *            buckets_per_cell: number, cells: ExpireCell[]}} ExpireField
 */

/**
 * A run of expires-table buckets with their chains (head first).
 * @typedef {{key: string, ttl_ms: number, expired: boolean}} BucketKey
 * @typedef {{bucket: number, keys: BucketKey[]}} BucketView
 */

// ---------------------------------------------------------------------------------------------
// The delay-queue lab's events (src/sim/delay_queue.rs SimEvent), drained by the runner
// ---------------------------------------------------------------------------------------------

/**
 * Times are ms since the run's start; `consumer` −1 is the producer.
 * @typedef {{kind: "order", task: string, at: number, due: number}} SimOrder
 * @typedef {{kind: "paid", task: string, at: number, removed: boolean}} SimPaid
 * @typedef {{kind: "command", consumer: number, sent: number, executed: number, replied: number, cmd: string, reply: string,
 *            empty: boolean}} SimCommand
 * @typedef {{kind: "message", consumer: number, task: string | null, published: number, delivered: number}} SimMessage
 * @typedef {{kind: "process", consumer: number, task: string, start: number, end: number, completed: boolean, failed?: boolean}} SimProcess
 * @typedef {{kind: "retry", consumer: number, task: string, at: number, tries: number, due: number | null}} SimRetry
 * @typedef {{kind: "dead_letter", consumer: number, task: string, at: number}} SimDeadLetter
 * @typedef {{kind: "sleep", consumer: number, from: number, until: number}} SimSleep
 * @typedef {{kind: "crash", consumer: number, at: number}} SimCrash
 * @typedef {{kind: "restart", consumer: number, at: number}} SimRestart
 * @typedef {{kind: "fate", task: string, fate: "on_time" | "late" | "duplicate" | "lost" | "paid" | "pending" | "dead_letter",
 *            lateness: number | null}} SimFate
 * @typedef {SimOrder | SimPaid | SimCommand | SimMessage | SimProcess | SimRetry | SimDeadLetter | SimSleep | SimCrash | SimRestart | SimFate} SimEvent
 */

/**
 * A run's metrics (src/sim/delay_queue.rs Metrics, camelCase); latenesses are null before any
 * task was processed.
 * @typedef {{now: number, tasks: number, paid: number, processed: number, onTime: number, late: number, duplicates: number,
 *            extraProcessings: number, lost: number, pending: number, latenessP50: number | null, latenessP99: number | null,
 *            latenessMax: number | null, consumerCommands: number, producerCommands: number, commandsPerSecond: number,
 *            emptyPolls: number, messages: number, failed?: number, retried?: number, deadLettered?: number}} SimMetrics
 */

export {};
