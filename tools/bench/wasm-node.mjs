// The operations of benches/engine.rs through the wasm build (www/pkg, `Playground.command`,
// exactly what the page calls) and through ioredis-mock, in one Node process.
//
//   node tools/bench/wasm-node.mjs [--ops N] [--mock-ops N] [--sizes 1000,100000,1000000]
//                                  [--mock-sizes 1000] [--out file.json]
//
// Each cell: populate N string keys (small integers) and a sorted set of N members, then time
// `ops` calls of one operation on keys drawn at random from the whole keyspace, the argument
// arrays built before the clock starts. ioredis-mock is promise-based: every call is awaited,
// as an application would; it runs at 10³ keys only by default (populating 10⁵ keys and a
// 10⁵-member sorted set did not finish in 10 minutes here), and a cell stops after ~3 s. If ioredis-mock is not installed (tools/bench/node_modules), its
// cells say so instead of failing the run.
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");

// INCR before SET, which replaces the integers with a string (the order of benches/engine.rs).
export const OPS = ["GET", "INCR", "SET", "SET EX", "EXPIRE", "ZADD", "ZRANGEBYSCORE", "ZRANK"];

function parseArgs(argv) {
  const o = { ops: 100_000, mockOps: 20_000, sizes: [1_000, 100_000, 1_000_000], mockSizes: [1_000], out: null };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (k === "--ops") o.ops = Number(v);
    else if (k === "--mock-ops") o.mockOps = Number(v);
    else if (k === "--sizes") o.sizes = v.split(",").map(Number);
    else if (k === "--mock-sizes") o.mockSizes = v.split(",").map(Number);
    else if (k === "--out") o.out = v;
    else throw new Error(`unknown option ${k}`);
  }
  return o;
}

// The same LCG as benches/engine.rs (top 53 bits as a double: exact for the modulo we take).
function lcg(seed) {
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

function command(op, n, rng) {
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

function* populateBatches(n, rng) {
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
const BUDGET_NS = 3_000_000_000n;

async function runTarget(name, sizes, ops, make) {
  const rows = [];
  for (const n of sizes) {
    const target = await make();
    const rng = lcg(n);
    for (const batch of populateBatches(n, rng)) await target.call(batch);
    const results = [];
    for (const op of OPS) {
      const pool = Array.from({ length: POOL }, () => command(op, n, rng));
      for (let i = 0; i < 2_000; i++) await target.call(pool[i]); // warm-up (JIT, caches); throws on an error reply
      // `ops` calls, or fewer when a cell would take longer than BUDGET_NS (checked every 256).
      const t = process.hrtime.bigint();
      let done = 0;
      while (done < ops && (done === 0 || process.hrtime.bigint() - t < BUDGET_NS)) {
        const end = Math.min(ops, done + 256);
        if (target.sync) for (let i = done; i < end; i++) target.callSync(pool[i % POOL]);
        else for (let i = done; i < end; i++) await target.call(pool[i % POOL]);
        done = end;
      }
      const ns = Number(process.hrtime.bigint() - t) / done;
      results.push({ op, calls: done, ns_per_op: +ns.toFixed(1), ops_per_s: Math.round(1e9 / ns) });
    }
    await target.close?.();
    rows.push({ size: n, results });
    process.stderr.write(`[bench] ${name} ${n}: ${results.map((r) => `${r.op} ${r.ns_per_op} ns`).join(", ")}\n`);
  }
  return rows;
}

async function wasmTarget() {
  const pkg = await import(join(root, "www", "pkg", "redisplay.js"));
  await pkg.default({ module_or_path: await readFile(join(root, "www", "pkg", "redisplay_bg.wasm")) });
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

function mockTarget() {
  const require = createRequire(join(here, "package.json"));
  let RedisMock;
  try {
    RedisMock = require("ioredis-mock");
  } catch (err) {
    return { error: `ioredis-mock not installed (${err.code ?? err.message}); run scripts/bench.sh with npm registry access` };
  }
  const version = require("ioredis-mock/package.json").version;
  return {
    version,
    make: async () => {
      // A fresh, private data set per size (ioredis-mock shares data between instances of one host:port).
      const redis = new RedisMock({ port: 10_000 + Math.floor(Math.random() * 50_000) });
      await redis.flushall();
      return { sync: false, call: (a) => redis[a[0].toLowerCase()](...a.slice(1)), close: async () => { await redis.flushall(); redis.disconnect(); } };
    },
  };
}

const opts = parseArgs(process.argv.slice(2));
const out = { node: process.version, ops_per_cell: opts.ops };
const makeWasm = await wasmTarget();
out.wasm = await runTarget("wasm", opts.sizes, opts.ops, async () => makeWasm());
const mock = mockTarget();
if (mock.error) {
  out.ioredis_mock = { error: mock.error };
  process.stderr.write(`[bench] ${mock.error}\n`);
} else {
  try {
    out.ioredis_mock = { version: mock.version, ops_per_cell: opts.mockOps, sizes: await runTarget("ioredis-mock", opts.mockSizes, opts.mockOps, mock.make) };
  } catch (err) {
    out.ioredis_mock = { error: `ioredis-mock failed: ${err.message}` };
    process.stderr.write(`[bench] ${out.ioredis_mock.error}\n`);
  }
}
const json = JSON.stringify(out, null, 1);
if (opts.out) await writeFile(opts.out, json + "\n");
else console.log(json);
