// The operations of benches/engine.rs through the wasm build (www/pkg, `Playground.command`,
// exactly what the page calls) and through ioredis-mock, in one Node process.
//
//   node tools/bench/wasm-node.mjs [--ops N] [--mock-ops N] [--sizes 1000,100000,1000000]
//                                  [--mock-sizes 1000] [--out file.json]
//
// The cells and the loop are tools/bench/ops.mjs, shared with the run in headless Chromium
// (chromium.mjs). ioredis-mock is promise-based: every call is awaited, as an application would;
// it runs at 10³ keys only by default (populating 10⁵ keys and a 10⁵-member sorted set did not
// finish in 10 minutes here), and a cell stops after ~3 s. If ioredis-mock is not installed
// (tools/bench/node_modules), its cells say so instead of failing the run.
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { runTarget, wasmFactory } from "./ops.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");

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

async function wasmTarget() {
  const pkg = await import(join(root, "www", "pkg", "redisplay.js"));
  await pkg.default({ module_or_path: await readFile(join(root, "www", "pkg", "redisplay_bg.wasm")) });
  return wasmFactory(pkg);
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
const log = (line) => process.stderr.write(`${line}\n`);
const out = { node: process.version, ops_per_cell: opts.ops };
const makeWasm = await wasmTarget();
out.wasm = await runTarget("wasm", opts.sizes, opts.ops, async () => makeWasm(), log);
const mock = mockTarget();
if (mock.error) {
  out.ioredis_mock = { error: mock.error };
  process.stderr.write(`[bench] ${mock.error}\n`);
} else {
  try {
    out.ioredis_mock = { version: mock.version, ops_per_cell: opts.mockOps, sizes: await runTarget("ioredis-mock", opts.mockSizes, opts.mockOps, mock.make, log) };
  } catch (err) {
    out.ioredis_mock = { error: `ioredis-mock failed: ${err.message}` };
    process.stderr.write(`[bench] ${out.ioredis_mock.error}\n`);
  }
}
const json = JSON.stringify(out, null, 1);
if (opts.out) await writeFile(opts.out, `${json}\n`);
else console.log(json);
