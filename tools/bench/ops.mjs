// The operation loop of the wasm benchmarks, shared by Node (wasm-node.mjs) and headless Chromium
// (chromium.mjs loads this file into tools/bench/bench.html): the operations of
// benches/engine.rs, the same keys, the same random draws, the same timing — only the host differs.
//
// Each cell: populate N string keys (small integers) and a sorted set of N members, then time
// `ops` calls of one operation on keys drawn at random from the whole keyspace, the argument
// arrays built before the clock starts. Plain ES module, no Node or DOM APIs: the clock is
// `performance.now()` (both hosts have it; Chromium coarsens it, which does not matter over a
// cell of ~10⁵ calls).

// INCR before SET, which replaces the integers with a string (the order of benches/engine.rs).
export const OPS = ["GET", "INCR", "SET", "SET EX", "EXPIRE", "ZADD", "ZRANGEBYSCORE", "ZRANK"];

/** The same LCG as benches/engine.rs (top 53 bits as a double: exact for the modulo we take). */
export function lcg(seed) {
  let s = BigInt(seed);
  const M = (1n << 64n) - 1n;
  return {
    next() {
      s = (s * 6364136223846793005n + 1442695040888963407n) & M;
      return Number(s >> 11n);
    },
    below(n) {
      return this.next() % n;
    },
  };
}

/** One call of `op` on a keyspace of `n` keys / members. */
export function command(op, n, rng) {
  const key = `key:${rng.below(n)}`;
  switch (op) {
    case "GET": return ["GET", key];
    case "SET": return ["SET", key, "value"];
    case "SET EX": return ["SET", key, "value", "EX", "100000"];
    case "INCR": return ["INCR", key];
    case "EXPIRE": return ["EXPIRE", key, "100000"];
    case "ZADD": return ["ZADD", "z", String(rng.next() % 1_000_000_000), `member:${rng.below(n)}`];
    case "ZRANGEBYSCORE": return ["ZRANGEBYSCORE", "z", String(rng.next() % 1_000_000_000), "+inf", "LIMIT", "0", "10"];
    case "ZRANK": return ["ZRANK", "z", `member:${rng.below(n)}`];
    default: throw new Error(op);
  }
}

/** `n` keys key:0… (MSET, 10⁴ a call) and a sorted set `z` of `n` members (ZADD, 10⁴ a call). */
export function* populateBatches(n, rng) {
  for (let i = 0; i < n; i += 10_000) {
    const m = ["MSET"];
    for (let j = i; j < Math.min(n, i + 10_000); j++) m.push(`key:${j}`, String(j));
    yield m;
  }
  for (let i = 0; i < n; i += 10_000) {
    const z = ["ZADD", "z"];
    for (let j = i; j < Math.min(n, i + 10_000); j++) z.push(String(rng.next() % 1_000_000_000), `member:${j}`);
    yield z;
  }
}

const POOL = 1 << 14;
/** At most ~3 s a cell: ioredis-mock's sorted-set commands are O(N) and would take hours. */
const BUDGET_MS = 3_000;

/**
 * Runs every operation of OPS at every size on fresh targets from `make()`:
 * `[{size, results: [{op, calls, ns_per_op, ops_per_s}]}]`. A target is
 * `{sync, callSync?(args), call(args): Promise, close?()}`; `log(line)` reports each size.
 */
export async function runTarget(name, sizes, ops, make, log = () => {}) {
  const rows = [];
  for (const n of sizes) {
    const target = await make();
    const rng = lcg(n);
    for (const batch of populateBatches(n, rng)) await target.call(batch);
    const results = [];
    for (const op of OPS) {
      const pool = Array.from({ length: POOL }, () => command(op, n, rng));
      for (let i = 0; i < 2_000; i++) await target.call(pool[i]); // warm-up (JIT, caches); throws on an error reply
      // `ops` calls, or fewer when a cell would take longer than BUDGET_MS (checked every 256).
      const t = performance.now();
      let done = 0;
      while (done < ops && (done === 0 || performance.now() - t < BUDGET_MS)) {
        const end = Math.min(ops, done + 256);
        if (target.sync) for (let i = done; i < end; i++) target.callSync(pool[i % POOL]);
        else for (let i = done; i < end; i++) await target.call(pool[i % POOL]);
        done = end;
      }
      const ns = ((performance.now() - t) * 1e6) / done;
      results.push({ op, calls: done, ns_per_op: +ns.toFixed(1), ops_per_s: Math.round(1e9 / ns) });
    }
    await target.close?.();
    rows.push({ size: n, results });
    log(`[bench] ${name} ${n}: ${results.map((r) => `${r.op} ${r.ns_per_op} ns`).join(", ")}`);
  }
  return rows;
}

/**
 * Targets on the wasm build: `pkg` is www/pkg/redisplay.js, already initialised. Each is a fresh
 * `Playground` called through `command(args)`, exactly what the page calls.
 */
export function wasmFactory(pkg) {
  return () => {
    const pg = new pkg.Playground(1, 0);
    const callSync = (args) => {
      const r = pg.command(args);
      if (r.reply && r.reply.type === "error") throw new Error(`${args.join(" ")}: ${r.text}`);
      return r;
    };
    return { sync: true, callSync, call: async (a) => callSync(a), close: () => pg.free() };
  };
}

/** The keys and values of the memory measurement: `SET key:N val:NNNNNN` (a 10-byte value). */
export const memoryKey = (i) => `key:${i}`;
export const memoryValue = (i) => `val:${String(i).padStart(6, "0")}`;

/**
 * Memory per key in the wasm build: `keys` SET calls on a fresh `Playground` of `pkg`, whose
 * module's exports are `wasm` (what `init()` returned). Measured twice over: the linear memory
 * (`memory.buffer.byteLength`: the engine's tables, the allocator's slack, 64 KiB pages — what
 * the tab holds; it never shrinks, so run this on a fresh instance) and the engine's own INFO
 * used_memory (its model of what Redis 7.0's zmalloc would count for the same data,
 * src/memory.rs). The event log is drained every 10⁴ calls, as the page drains it every frame.
 * chromium.mjs runs it in a page: in Node 20 this loop of 10⁶ SETs made V8 abort ("Fatal error …
 * unreachable code" in the deoptimizer), depending on how the loop was written.
 */
export function measureMemory(pkg, wasm, keys) {
  const pg = new pkg.Playground(1, 0);
  const usedMemory = () => Number(/used_memory:(\d+)/.exec(pg.command(["INFO", "memory"]).text)[1]);
  const call = (args) => {
    const r = pg.command(args);
    if (r.reply && r.reply.type === "error") throw new Error(`${args.join(" ")}: ${r.text}`);
  };
  // One SET and DEL first, so one-off allocations (the commands' stats) are not counted per key.
  call(["SET", "warm", "up"]);
  call(["DEL", "warm"]);
  pg.drain_events();
  const before = { linear: wasm.memory.buffer.byteLength, used_memory: usedMemory() };
  const t0 = performance.now();
  for (let i = 0; i < keys; i++) {
    call(["SET", memoryKey(i), memoryValue(i)]);
    if (i % 10_000 === 9_999) pg.drain_events();
  }
  pg.drain_events();
  const loadMs = performance.now() - t0;
  const dbsize = Number(pg.command(["DBSIZE"]).text.replace(/\D/g, ""));
  const after = { linear: wasm.memory.buffer.byteLength, used_memory: usedMemory() };
  pg.free();
  return {
    keys,
    dbsize,
    example: `SET ${memoryKey(keys - 1)} ${memoryValue(keys - 1)}`,
    load_ms: Math.round(loadMs),
    before,
    after,
    linear_bytes_per_key: +((after.linear - before.linear) / keys).toFixed(1),
    used_memory_bytes_per_key: +((after.used_memory - before.used_memory) / keys).toFixed(1),
  };
}
