// The in-process client (`import { Redis } from "redisplay"`, www/client/redis.js) side by side
// with ioredis-mock in one Node process, and the batched binding under it (RespServer.call, RESP
// bytes in and out) against `Playground.command` (one command per crossing).
//
//   node tools/bench/client-node.mjs [--ops N] [--mock-ops N] [--zset 100000] [--out file.json]
//
// Cells (ops/s; keys drawn at random as in ops.mjs, the argument arrays built before timing):
//   awaited      GET / SET / INCR at 10³ keys, each call awaited before the next (as an app does)
//   pipeline     the same in pipeline()s of 100, each exec() awaited
//   zset         ZADD / ZRANK on a sorted set of --zset members (awaited)
//   binding      RespServer.call with batches of 100 pre-encoded commands (no client), and
//                Playground.command one at a time — the raw speed of the two bindings
// A cell stops after ~3 s (ioredis-mock's sorted set is O(N) a call). ioredis-mock's sorted set
// is populated in ZADDs of 1000 members with a 20 s budget: `populated` says how far it got.
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { command, lcg } from "./ops.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const BUDGET_MS = 3_000;
const POPULATE_BUDGET_MS = 20_000;
const POOL = 1 << 14;
const KEYS = 1_000;
const PIPE = 100;

function parseArgs(argv) {
  const o = { ops: 200_000, mockOps: 50_000, zset: 100_000, out: null };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (k === "--ops") o.ops = Number(v);
    else if (k === "--mock-ops") o.mockOps = Number(v);
    else if (k === "--zset") o.zset = Number(v);
    else if (k === "--out") o.out = v;
    else throw new Error(`unknown option ${k}`);
  }
  return o;
}

const opts = parseArgs(process.argv.slice(2));
const log = (line) => process.stderr.write(`[bench] ${line}\n`);

/** ops/s of `ops` calls of `once(i)` (awaited), within the budget. */
async function timeAwaited(ops, once) {
  const w = performance.now();
  for (let i = 0; i < 2_000 && performance.now() - w < 1_000; i++) await once(i);
  const t = performance.now();
  let done = 0;
  while (done < ops && (done === 0 || performance.now() - t < BUDGET_MS)) {
    const end = Math.min(ops, done + 256);
    for (let i = done; i < end; i++) await once(i);
    done = end;
  }
  return { calls: done, ops_per_s: Math.round((done * 1000) / (performance.now() - t)) };
}

/** The same, `ops` commands in pipelines of PIPE. */
async function timePipelined(ops, pipeline) {
  for (let i = 0; i < 20; i++) await pipeline(i * PIPE);
  const t = performance.now();
  let done = 0;
  while (done < ops && (done === 0 || performance.now() - t < BUDGET_MS)) {
    await pipeline(done);
    done += PIPE;
  }
  return { calls: done, ops_per_s: Math.round((done * 1000) / (performance.now() - t)) };
}

/** Populates KEYS integer keys (MSET) and a sorted set `z` of `members`, within a budget. */
async function populate(call, members) {
  const rng = lcg(members);
  const m = ["MSET"];
  for (let j = 0; j < KEYS; j++) m.push(`key:${j}`, String(j));
  await call(m);
  const t = performance.now();
  let done = 0;
  while (done < members && performance.now() - t < POPULATE_BUDGET_MS) {
    const z = ["ZADD", "z"];
    for (let j = done; j < Math.min(members, done + 1_000); j++) z.push(String(rng.next() % 1_000_000_000), `member:${j}`);
    await call(z);
    done = Math.min(members, done + 1_000);
  }
  return { populated: done, populate_ms: Math.round(performance.now() - t) };
}

/** Every cell on one client-like target: `call(args)` → promise, `pipe(list)` → promise. */
async function runClient(name, target, ops) {
  const out = { awaited: {}, pipeline: {}, zset: {} };
  const pop = await populate(target.call, opts.zset);
  out.zset.populated = pop.populated;
  out.zset.populate_ms = pop.populate_ms;
  for (const op of ["GET", "INCR", "SET"]) {
    const rng = lcg(7);
    const pool = Array.from({ length: POOL }, () => command(op, KEYS, rng));
    out.awaited[op] = await timeAwaited(ops, (i) => target.call(pool[i % POOL]));
    out.pipeline[op] = await timePipelined(ops, (from) => target.pipe(pool, from));
    log(`${name} ${op}: awaited ${out.awaited[op].ops_per_s}/s, pipeline(${PIPE}) ${out.pipeline[op].ops_per_s}/s`);
  }
  for (const op of ["ZADD", "ZRANK"]) {
    const rng = lcg(9);
    const pool = Array.from({ length: POOL }, () => command(op, pop.populated, rng));
    out.zset[op] = await timeAwaited(ops, (i) => target.call(pool[i % POOL]));
    log(`${name} ${op} at ${pop.populated} members: ${out.zset[op].ops_per_s}/s`);
  }
  return out;
}

// --- redisplay's client ------------------------------------------------------------------------
const { Redis } = await import(join(root, "www", "client", "redis.js"));
const redis = new Redis({ seed: 1 });
const client = await runClient(
  "client",
  {
    call: (a) => redis[a[0].toLowerCase()](...a.slice(1)),
    pipe: (pool, from) => {
      const p = redis.pipeline();
      for (let i = from; i < from + PIPE; i++) {
        const a = pool[i % POOL];
        p[a[0].toLowerCase()](...a.slice(1));
      }
      return p.exec();
    },
  },
  opts.ops,
);
redis.disconnect();

// --- ioredis-mock --------------------------------------------------------------------------------
let mock;
try {
  const require = createRequire(join(here, "package.json"));
  const RedisMock = require("ioredis-mock");
  const version = require("ioredis-mock/package.json").version;
  const m = new RedisMock({ port: 10_000 + Math.floor(Math.random() * 50_000) });
  await m.flushall();
  mock = {
    version,
    ...(await runClient(
      "ioredis-mock",
      {
        call: (a) => m[a[0].toLowerCase()](...a.slice(1)),
        pipe: (pool, from) => {
          const p = m.pipeline();
          for (let i = from; i < from + PIPE; i++) {
            const a = pool[i % POOL];
            p[a[0].toLowerCase()](...a.slice(1));
          }
          return p.exec();
        },
      },
      opts.mockOps,
    )),
  };
  m.disconnect();
} catch (err) {
  mock = { error: `ioredis-mock: ${err.message}` };
  log(mock.error);
}

// --- the bindings, no client --------------------------------------------------------------------
const pkg = await import(join(root, "www", "pkg", "redisplay.js"));
await pkg.default({ module_or_path: await readFile(join(root, "www", "pkg", "redisplay_bg.wasm")) });
const { encodeCommands } = await import(join(root, "www", "client", "resp.js"));
const binding = {};
for (const op of ["GET", "INCR", "SET"]) {
  const rng = lcg(7);
  const server = new pkg.RespServer(1, 0);
  const conn = server.connect();
  const m = ["MSET"];
  for (let j = 0; j < KEYS; j++) m.push(`key:${j}`, String(j));
  server.call(conn, encodeCommands([m]));
  const batches = Array.from({ length: 64 }, () => encodeCommands(Array.from({ length: PIPE }, () => command(op, KEYS, rng))));
  const batched = await timePipelined(opts.ops * 5, (from) => {
    server.call(conn, batches[(from / PIPE) % batches.length]);
  });
  server.free();
  const pg = new pkg.Playground(1, 0);
  pg.command(m);
  const rng2 = lcg(7);
  const pool = Array.from({ length: POOL }, () => command(op, KEYS, rng2));
  const single = await timeAwaited(opts.ops, (i) => {
    pg.command(pool[i % POOL]);
  });
  pg.free();
  binding[op] = { resp_batch_100: batched, playground_command: single };
  log(`binding ${op}: RespServer.call ×${PIPE} ${batched.ops_per_s}/s, Playground.command ${single.ops_per_s}/s`);
}

const out = { node: process.version, keys: KEYS, pipeline: PIPE, client, ioredis_mock: mock, binding };
const json = JSON.stringify(out, null, 1);
if (opts.out) await writeFile(opts.out, `${json}\n`);
else console.log(json);
