// Merges what scripts/bench.sh measured into bench.json and bench.md, and measures the sizes.
//
//   node tools/bench/report.mjs bench-results
//
// Reads native.json (benches/engine.rs), node.json (wasm-node.mjs), redis-benchmark*.csv.
import { readFile, writeFile, readdir, stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import { gzipSync, brotliCompressSync, constants as zc } from "node:zlib";
import { cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { execFileSync } from "node:child_process";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dir = process.argv[2] ?? join(root, "bench-results");
const readJson = async (f) => (existsSync(join(dir, f)) ? JSON.parse(await readFile(join(dir, f), "utf8")) : null);

const native = await readJson("native.json");
const node = await readJson("node.json");

// --- machine -----------------------------------------------------------------------------------
const cpuinfo = existsSync("/proc/cpuinfo") ? await readFile("/proc/cpuinfo", "utf8") : "";
const machine = {
  nproc: Number(execFileSync("nproc").toString().trim()),
  cpu: /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? "unknown",
  mem_gb: +(totalmem() / 2 ** 30).toFixed(1),
  loadavg_at_report: (await readFile("/proc/loadavg", "utf8").catch(() => "")).split(" ").slice(0, 3).join(" "),
  node: process.version,
  rustc: (() => { try { return execFileSync("rustc", ["--version"]).toString().trim(); } catch { return null; } })(),
  date: new Date().toISOString(),
};

// --- redis-benchmark ---------------------------------------------------------------------------
async function readCsv(f) {
  if (!existsSync(join(dir, f))) return null;
  const rows = {};
  for (const line of (await readFile(join(dir, f), "utf8")).split("\n")) {
    const cells = line.split(",").map((c) => c.replace(/^"|"$/g, ""));
    if (cells.length < 2 || cells[0] === "test") continue;
    const rps = Number(cells[1]);
    if (Number.isFinite(rps)) rows[cells[0].split(" ")[0]] = rps;
  }
  return rows;
}
const redis = existsSync(join(dir, "redis-benchmark.csv"))
  ? {
      version: (await readFile(join(dir, "redis-version.txt"), "utf8").catch(() => "")).trim(),
      command: "redis-benchmark -t get,set,incr,zadd -n 100000 -q (50 clients over loopback TCP; -P 16 = 16 commands per round trip)",
      rps: await readCsv("redis-benchmark.csv"),
      rps_p16: await readCsv("redis-benchmark-p16.csv"),
    }
  : { error: "redis-benchmark did not run" };

// --- sizes -------------------------------------------------------------------------------------
async function jsFiles(d) {
  const out = [];
  for (const e of await readdir(d, { withFileTypes: true })) {
    const p = join(d, e.name);
    if (e.isDirectory()) out.push(...(await jsFiles(p)));
    else if (e.name.endsWith(".js") || e.name.endsWith(".mjs")) out.push(p);
  }
  return out;
}
const wasmBytes = await readFile(join(root, "www", "pkg", "redisplay_bg.wasm"));
const js = await jsFiles(join(root, "www"));
let jsRaw = 0;
const jsAll = [];
for (const f of js) {
  const b = await readFile(f);
  jsRaw += (await stat(f)).size;
  jsAll.push(b);
}
const jsCat = Buffer.concat(jsAll);
const brotli = (b) => brotliCompressSync(b, { params: { [zc.BROTLI_PARAM_QUALITY]: 11 } }).length;
const size = {
  wasm_raw: wasmBytes.length,
  wasm_gzip: gzipSync(wasmBytes, { level: 9 }).length,
  wasm_brotli: brotli(wasmBytes),
  js_files: js.length,
  js_raw: jsRaw,
  js_gzip: gzipSync(jsCat, { level: 9 }).length,
  js_brotli: brotli(jsCat),
};

// --- tables ------------------------------------------------------------------------------------
const OPS = ["GET", "INCR", "SET", "SET EX", "EXPIRE", "ZADD", "ZRANGEBYSCORE", "ZRANK"];
const REDIS_OP = { GET: "GET", INCR: "INCR", SET: "SET", ZADD: "ZADD" };
const cell = (rows, size, op) => rows?.find((r) => r.size === size)?.results.find((r) => r.op === op);
const sizes = native?.sizes.map((s) => s.size) ?? node?.wasm.map((s) => s.size) ?? [];
const mockRows = node?.ioredis_mock?.sizes ?? null;

const rows = [];
for (const n of sizes) {
  for (const op of OPS) {
    const nat = cell(native?.sizes, n, op);
    const wasm = cell(node?.wasm, n, op);
    const mock = cell(mockRows, n, op);
    const r = { size: n, op, native_ops_s: nat?.ops_per_s ?? null, native_ns: nat?.ns_per_op ?? null, wasm_ops_s: wasm?.ops_per_s ?? null, wasm_ns: wasm?.ns_per_op ?? null };
    r.wasm_over_native = nat && wasm ? +(wasm.ops_per_s / nat.ops_per_s).toFixed(3) : null;
    r.mock_ops_s = mock?.ops_per_s ?? null;
    r.wasm_over_mock = wasm && mock ? +(wasm.ops_per_s / mock.ops_per_s).toFixed(2) : null;
    // redis-benchmark without -r hits one key: compare it with the smallest keyspace only.
    if (n === sizes[0] && REDIS_OP[op] && redis.rps) {
      r.redis_ops_s = redis.rps[REDIS_OP[op]] ?? null;
      r.redis_p16_ops_s = redis.rps_p16?.[REDIS_OP[op]] ?? null;
      r.native_over_redis = r.redis_ops_s && nat ? +(nat.ops_per_s / r.redis_ops_s).toFixed(2) : null;
      r.native_over_redis_p16 = r.redis_p16_ops_s && nat ? +(nat.ops_per_s / r.redis_p16_ops_s).toFixed(2) : null;
      r.wasm_over_redis = r.redis_ops_s && wasm ? +(wasm.ops_per_s / r.redis_ops_s).toFixed(2) : null;
    }
    rows.push(r);
  }
}

const result = { machine, native, node, redis, size, rows };
await writeFile(join(dir, "bench.json"), JSON.stringify(result, null, 1) + "\n");

const fmt = (x) => (x == null ? "—" : x >= 1e6 ? `${(x / 1e6).toFixed(2)} M` : x >= 1e3 ? `${(x / 1e3).toFixed(0)} k` : `${Math.round(x)}`);
const ratio = (x) => (x == null ? "—" : `${x}×`);
const kb = (b) => `${(b / 1024).toFixed(0)} KB`;
const md = [];
md.push(`Machine: ${machine.nproc} cores, ${machine.cpu}, ${machine.mem_gb} GB; ${machine.rustc ?? ""}, Node ${machine.node}; load average ${machine.loadavg_at_report} when the report was written (on a shared machine the absolute figures are noisy; ratios from one run are the useful part). ${machine.date}.`);
md.push("");
md.push("Operations per second, one client, keys drawn at random from the keyspace. native: `Engine::execute`, event log off. wasm: `Playground.command(args)` in Node (what the page calls: JS strings in, a `{text, reply}` object out, event log on as in the page). ioredis-mock: awaited calls, same process.");
md.push("");
md.push("| keys | op | native ops/s | wasm ops/s | wasm ÷ native | ioredis-mock ops/s | wasm ÷ mock |");
md.push("|---:|---|---:|---:|---:|---:|---:|");
for (const r of rows) md.push(`| ${r.size.toLocaleString("en")} | ${r.op} | ${fmt(r.native_ops_s)} | ${fmt(r.wasm_ops_s)} | ${ratio(r.wasm_over_native)} | ${fmt(r.mock_ops_s)} | ${ratio(r.wasm_over_mock)} |`);
if (node?.ioredis_mock?.error) md.push(`\nioredis-mock: ${node.ioredis_mock.error}`);
else if (node?.ioredis_mock) md.push(`\nioredis-mock ${node.ioredis_mock.version}, ${node.ioredis_mock.ops_per_cell} calls a cell; native/wasm ${native?.ops_per_cell ?? "?"} / ${node.ops_per_cell} calls a cell.`);
md.push("");
if (redis.rps) {
  md.push(`Real server: ${redis.version.split(" ").slice(0, 3).join(" ")}, \`${redis.command}\`. Without \`-r\` each test hits one key, so it is set against the ${sizes[0]?.toLocaleString("en")}-key row. Ratio > 1: redisplay does more per second.`);
  md.push("");
  md.push("| op | redis-server ops/s | -P 16 ops/s | native ÷ redis | native ÷ redis -P 16 | wasm ÷ redis |");
  md.push("|---|---:|---:|---:|---:|---:|");
  for (const r of rows.filter((r) => r.redis_ops_s !== undefined)) md.push(`| ${r.op} | ${fmt(r.redis_ops_s)} | ${fmt(r.redis_p16_ops_s)} | ${ratio(r.native_over_redis)} | ${ratio(r.native_over_redis_p16)} | ${ratio(r.wasm_over_redis)} |`);
} else md.push(`redis-server: ${redis.error}`);
md.push("");
md.push(`Size: wasm ${kb(size.wasm_raw)} raw, ${kb(size.wasm_gzip)} gzip, ${kb(size.wasm_brotli)} brotli; JS of www/ (${size.js_files} files, the wasm-bindgen glue included) ${kb(size.js_raw)} raw, ${kb(size.js_gzip)} gzip, ${kb(size.js_brotli)} brotli.`);
await writeFile(join(dir, "bench.md"), md.join("\n") + "\n");
