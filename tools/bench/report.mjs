// Merges what scripts/bench.sh measured into bench.json and bench.md, and measures the sizes.
//
//   node tools/bench/report.mjs bench-results
//
// Reads native.json (benches/engine.rs), node.json (wasm-node.mjs), chromium.json (chromium.mjs:
// the wasm in Chromium, the page's frame times, memory per key in the wasm build),
// redis-benchmark*.csv (redis-server) and serve-benchmark*.csv (`redisplay serve`, the same runs;
// serve-build.txt: the commit and uncommitted files it was built from), redis-benchmark-command.txt,
// redis-memory-{before,after}.txt (INFO memory around 10⁶ SETs), load.txt
// (the load average as each part started) and wall.txt (seconds the run took up to the report).
import { readFile, writeFile, readdir, stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import { gzipSync, brotliCompressSync, constants as zc } from "node:zlib";
import { cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { execFileSync } from "node:child_process";
import { firstLoadSize } from "../first-load-size.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dir = process.argv[2] ?? join(root, "bench-results");
const readJson = async (f) => (existsSync(join(dir, f)) ? JSON.parse(await readFile(join(dir, f), "utf8")) : null);

const native = await readJson("native.json");
const node = await readJson("node.json");
const chrome = await readJson("chromium.json");
const client = await readJson("client.json");
const readText = async (f) => (existsSync(join(dir, f)) ? (await readFile(join(dir, f), "utf8")).trim() : null);

// --- machine -----------------------------------------------------------------------------------
const cpuinfo = existsSync("/proc/cpuinfo") ? await readFile("/proc/cpuinfo", "utf8") : "";
const machine = {
  nproc: Number(execFileSync("nproc").toString().trim()),
  cpu: /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? "unknown",
  mem_gb: +(totalmem() / 2 ** 30).toFixed(1),
  loadavg_at_report: (await readFile("/proc/loadavg", "utf8").catch(() => "")).split(" ").slice(0, 3).join(" "),
  node: process.version,
  chromium: chrome?.chromium ?? null,
  redis: (await readText("redis-version.txt"))?.split(" ").slice(0, 3).join(" ") ?? null,
  // The load average (1, 5, 15 min) as each part of the run started: the machine may be shared.
  load: (await readText("load.txt"))?.split("\n").map((l) => l.split(" ")).map(([part, ...avg]) => ({ part, loadavg: avg.join(" ") })) ?? [],
  wall_s: Number(await readText("wall.txt")) || null,
  rustc: (() => { try { return execFileSync("rustc", ["--version"]).toString().trim(); } catch { return null; } })(),
  // When the run started (bench.sh writes it), else now.
  date: (await readText("started.txt")) ?? new Date().toISOString(),
};

// --- redis-benchmark ---------------------------------------------------------------------------
async function readCsv(f) {
  if (!existsSync(join(dir, f))) return null;
  const rows = {};
  for (const line of (await readFile(join(dir, f), "utf8")).split("\n")) {
    const cells = line.split(",").map((c) => c.replace(/^"|"$/g, ""));
    if (cells.length < 2 || cells[0] === "test") continue;
    // lrange_100 first runs "LPUSH (needed to benchmark LRANGE)": not the LPUSH test's row.
    if (cells[0].includes("(needed")) continue;
    const rps = Number(cells[1]);
    if (Number.isFinite(rps)) rows[cells[0].split(" ")[0]] = rps;
  }
  return rows;
}
const rbCommand = `${(await readText("redis-benchmark-command.txt")) ?? "redis-benchmark"} (50 clients over loopback TCP; -P 16 = 16 commands per round trip)`;
const redis = existsSync(join(dir, "redis-benchmark.csv"))
  ? {
      version: (await readFile(join(dir, "redis-version.txt"), "utf8").catch(() => "")).trim(),
      command: rbCommand,
      rps: await readCsv("redis-benchmark.csv"),
      rps_p16: await readCsv("redis-benchmark-p16.csv"),
    }
  : { error: "redis-benchmark did not run" };

// `redisplay serve` under the same redis-benchmark runs, next to redis-server's.
const optLevel = /\[profile\.release\][^[]*?opt-level\s*=\s*("?\w+"?)/.exec(await readFile(join(root, "Cargo.toml"), "utf8"))?.[1] ?? "?";
const serveBuild = (await readText("serve-build.txt"))?.split("\n") ?? [];
function threadsBullet(header) {
  const m = /^- ([\s\S]*?)(?=^- |^\s*$)/m.exec(header ?? "");
  return m ? m[1].replace(/\s+/g, " ").trim() : "(src/net/server.rs's header was not read)";
}
const serve = existsSync(join(dir, "serve-benchmark.csv"))
  ? {
      command: rbCommand,
      binary: `target/release/redisplay serve (cargo build --release: opt-level ${optLevel}, LTO)`,
      // How the server is built, in src/net/server.rs's own words as the binary was built: the
      // header's first bullet (its threads), joined into one line.
      threads: threadsBullet(await readText("serve-header.txt")),
      warning: await readText("serve-build-warning.txt"),
      commit: serveBuild[0] ?? null,
      uncommitted: serveBuild.slice(1).map((l) => l.trim()).filter(Boolean),
      rps: await readCsv("serve-benchmark.csv"),
      rps_p16: await readCsv("serve-benchmark-p16.csv"),
    }
  : { error: "redis-benchmark against redisplay serve did not run" };
if (serve.rps && redis.rps) {
  const q = (a, b) => (a != null && b ? +(a / b).toFixed(2) : null);
  serve.rows = [...new Set([...Object.keys(redis.rps), ...Object.keys(serve.rps)])].map((op) => {
    const r = { op, redis_ops_s: redis.rps[op] ?? null, serve_ops_s: serve.rps[op] ?? null };
    r.serve_over_redis = q(r.serve_ops_s, r.redis_ops_s);
    r.redis_p16_ops_s = redis.rps_p16?.[op] ?? null;
    r.serve_p16_ops_s = serve.rps_p16?.[op] ?? null;
    r.serve_over_redis_p16 = q(r.serve_p16_ops_s, r.redis_p16_ops_s);
    return r;
  });
}

// --- memory per key ----------------------------------------------------------------------------
const info = (text) => Object.fromEntries((text ?? "").split(/\r?\n/).filter((l) => l.includes(":")).map((l) => l.split(":")));
const redisBefore = info(await readText("redis-memory-before.txt"));
const redisAfter = info(await readText("redis-memory-after.txt"));
const redisKeys = Number(await readText("redis-dbsize.txt"));
const memory = {
  wasm: chrome?.memory ?? null,
  redis:
    redisBefore.used_memory && redisAfter.used_memory && redisKeys > 0
      ? {
          keys: redisKeys,
          used_memory_before: Number(redisBefore.used_memory),
          used_memory_after: Number(redisAfter.used_memory),
          used_memory_bytes_per_key: +((Number(redisAfter.used_memory) - Number(redisBefore.used_memory)) / redisKeys).toFixed(1),
          rss_after: Number(redisAfter.used_memory_rss),
        }
      : null,
};

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
const wasmPath = join(root, "www", "pkg", "redisplay_bg.wasm");
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
// Without a wasm build (BENCH_ONLY=serve on a fresh checkout) there is no size to report.
const wasmBytes = existsSync(wasmPath) ? await readFile(wasmPath) : null;
const size = wasmBytes && {
  wasm_raw: wasmBytes.length,
  wasm_gzip: gzipSync(wasmBytes, { level: 9 }).length,
  wasm_brotli: brotli(wasmBytes),
  js_files: js.length,
  js_raw: jsRaw,
  js_gzip: gzipSync(jsCat, { level: 9 }).length,
  js_brotli: brotli(jsCat),
  // What issue 19's ≤ 350 KB target counts: the wasm and the first screen's modules, each file
  // compressed alone, as written and as scripts/serve.sh sends them (tools/first-load-size.mjs).
  first_load: firstLoadSize(root),
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
    const chr = cell(chrome?.wasm?.sizes, n, op);
    const r = { size: n, op, native_ops_s: nat?.ops_per_s ?? null, native_ns: nat?.ns_per_op ?? null, wasm_ops_s: wasm?.ops_per_s ?? null, wasm_ns: wasm?.ns_per_op ?? null };
    r.wasm_over_native = nat && wasm ? +(wasm.ops_per_s / nat.ops_per_s).toFixed(3) : null;
    r.chromium_ops_s = chr?.ops_per_s ?? null;
    r.chromium_ns = chr?.ns_per_op ?? null;
    r.chromium_over_native = nat && chr ? +(chr.ops_per_s / nat.ops_per_s).toFixed(3) : null;
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

const result = { machine, native, node, chromium: chrome, client, redis, serve, memory, size, rows };
await writeFile(join(dir, "bench.json"), `${JSON.stringify(result, null, 1)}\n`);

const fmt = (x) => (x == null ? "—" : x >= 1e6 ? `${(x / 1e6).toFixed(2)} M` : x >= 1e3 ? `${(x / 1e3).toFixed(0)} k` : `${Math.round(x)}`);
const ratio = (x) => (x == null ? "—" : `${x}×`);
const kb = (b) => `${(b / 1024).toFixed(0)} KB`;
const ms = (x) => (x == null ? "—" : x >= 100 ? x.toFixed(0) : x.toFixed(1));
const mb = (b) => `${(b / 2 ** 20).toFixed(0)} MB`;
const md = [];
md.push(
  `Machine: ${machine.nproc} cores, ${machine.cpu}, ${machine.mem_gb} GB; ${machine.rustc ?? ""}, Node ${machine.node}, Chromium ${machine.chromium ?? "—"} (headless), ${machine.redis ?? "redis-server —"}. ${machine.date}` +
    (machine.wall_s ? `; the whole run took ${Math.floor(machine.wall_s / 60)} min ${machine.wall_s % 60} s.` : "."),
);
if (machine.load.length) md.push(`Load average (1/5/15 min) as each part started: ${machine.load.map((l) => `${l.part} ${l.loadavg}`).join("; ")} — on a shared 2-core machine the absolute figures are noisy; ratios from one run are the useful part.`);
md.push("");
md.push("### Operations");
md.push("");
if (!rows.length) md.push("The native and wasm parts did not run (BENCH_ONLY=serve).");
else {
  md.push("Operations per second, one client, keys drawn at random from the keyspace. native: `Engine::execute`, event log off. wasm: `Playground.command(args)` (what the page calls: JS strings in, a `{text, reply}` object out, event log on as in the page), in Node and in headless Chromium (the same loop, tools/bench/ops.mjs). ioredis-mock: awaited calls, in the Node process.");
  md.push("");
  md.push("| keys | op | native ops/s | wasm Node ops/s | Node ÷ native | wasm Chromium ops/s | Chromium ÷ native | ioredis-mock ops/s | Node ÷ mock |");
  md.push("|---:|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows)
    md.push(`| ${r.size.toLocaleString("en")} | ${r.op} | ${fmt(r.native_ops_s)} | ${fmt(r.wasm_ops_s)} | ${ratio(r.wasm_over_native)} | ${fmt(r.chromium_ops_s)} | ${ratio(r.chromium_over_native)} | ${fmt(r.mock_ops_s)} | ${ratio(r.wasm_over_mock)} |`);
  md.push("");
  const calls = [`native ${native?.ops_per_cell ?? "?"}`, `wasm Node ${node?.ops_per_cell ?? "?"}`, `wasm Chromium ${chrome?.ops_per_cell ?? "?"}`];
  if (node?.ioredis_mock?.error) md.push(`Calls a cell: ${calls.join(", ")}. ioredis-mock: ${node.ioredis_mock.error}`);
  else if (node?.ioredis_mock) {
    calls.push(`ioredis-mock ${node.ioredis_mock.version} ${node.ioredis_mock.ops_per_cell} (10³ keys only)`);
    md.push(`Calls a cell: ${calls.join(", ")}.`);
  }
  if (chrome?.wasm && !chrome.wasm.cross_origin_isolated) md.push("(Chromium: the page was not cross-origin isolated, so performance.now() had 100 µs resolution.)");
  md.push("");
  if (redis.rps) {
    md.push(`Real server: ${redis.version.split(" ").slice(0, 3).join(" ")}, \`${redis.command}\`. Without \`-r\` each test hits one key, so it is set against the ${sizes[0]?.toLocaleString("en")}-key row. Ratio > 1: redisplay does more per second.`);
    md.push("");
    md.push("| op | redis-server ops/s | -P 16 ops/s | native ÷ redis | native ÷ redis -P 16 | wasm Node ÷ redis |");
    md.push("|---|---:|---:|---:|---:|---:|");
    for (const r of rows.filter((r) => r.redis_ops_s !== undefined)) md.push(`| ${r.op} | ${fmt(r.redis_ops_s)} | ${fmt(r.redis_p16_ops_s)} | ${ratio(r.native_over_redis)} | ${ratio(r.native_over_redis_p16)} | ${ratio(r.wasm_over_redis)} |`);
  } else md.push(`redis-server: ${redis.error}`);
}
md.push("");

md.push("### The in-process JS client (www/client/redis.js)");
md.push("");
if (!client) md.push("Did not run (tools/bench/client-node.mjs; BENCH_ONLY=client runs it alone).");
else {
  const mk = client.ioredis_mock ?? {};
  const per = (a, b) => (a && b ? ratio(+(a / b).toFixed(2)) : "—");
  md.push(`\`import { Redis } from "redisplay"\` beside ioredis-mock ${mk.version ?? ""} in one Node ${client.node} process, ${client.keys.toLocaleString("en")} keys drawn at random. awaited: each call awaited before the next; pipeline: \`pipeline()\` of ${client.pipeline}, each \`exec()\` awaited. ops/s; ratio > 1: the client does more per second.${mk.error ? ` ioredis-mock: ${mk.error}` : ""}`);
  md.push("");
  md.push("| op | client awaited | ioredis-mock awaited | ratio | client pipeline | ioredis-mock pipeline | ratio |");
  md.push("|---|---:|---:|---:|---:|---:|---:|");
  for (const op of Object.keys(client.client.awaited)) {
    const [a, b, c, d] = [client.client.awaited[op]?.ops_per_s, mk.awaited?.[op]?.ops_per_s, client.client.pipeline[op]?.ops_per_s, mk.pipeline?.[op]?.ops_per_s];
    md.push(`| ${op} | ${fmt(a)} | ${fmt(b)} | ${per(a, b)} | ${fmt(c)} | ${fmt(d)} | ${per(c, d)} |`);
  }
  md.push("");
  md.push(`Sorted set, awaited calls: the client populated ${fmt(client.client.zset.populated)} members in ${fmt(client.client.zset.populate_ms)} ms; ioredis-mock ${fmt(mk.zset?.populated)} in ${fmt(mk.zset?.populate_ms)} ms (ZADDs of 1000, a 20 s budget).`);
  md.push("");
  md.push("| op | client | ioredis-mock | ratio |");
  md.push("|---|---:|---:|---:|");
  for (const op of ["ZADD", "ZRANK"]) {
    const [a, b] = [client.client.zset[op]?.ops_per_s, mk.zset?.[op]?.ops_per_s];
    md.push(`| ${op} | ${fmt(a)} | ${fmt(b)} | ${per(a, b)} |`);
  }
  md.push("");
  md.push(`The bindings without a client, ${client.keys.toLocaleString("en")} keys: \`RespServer.call\` with batches of ${client.pipeline} pre-encoded commands (RESP in, RESP out), \`Playground.command\` one command a crossing, and the native engine (\`Engine::execute\`, benches/engine.rs) in this run.`);
  md.push("");
  md.push("| op | RespServer.call ×100 | Playground.command | native | batched ÷ native |");
  md.push("|---|---:|---:|---:|---:|");
  for (const op of Object.keys(client.binding)) {
    const b = client.binding[op];
    const nat = native?.sizes?.find((x) => x.size === client.keys)?.results.find((x) => x.op === op)?.ops_per_s;
    md.push(`| ${op} | ${fmt(b.resp_batch_100.ops_per_s)} | ${fmt(b.playground_command.ops_per_s)} | ${fmt(nat)} | ${per(b.resp_batch_100.ops_per_s, nat)} |`);
  }
}
md.push("");

md.push("### redis-benchmark: redisplay serve vs redis-server");
md.push("");
if (serve.rows) {
  md.push(`\`${serve.command}\` against the two servers taking turns test by test (redis-server first), in this run. ops/s; ratio = redisplay serve ÷ redis-server (> 1: ours does more per second).`);
  md.push("");
  md.push("| op | redis-server | redisplay serve | ratio | redis-server -P 16 | redisplay serve -P 16 | ratio |");
  md.push("|---|---:|---:|---:|---:|---:|---:|");
  for (const r of serve.rows)
    md.push(`| ${r.op} | ${fmt(r.redis_ops_s)} | ${fmt(r.serve_ops_s)} | ${ratio(r.serve_over_redis)} | ${fmt(r.redis_p16_ops_s)} | ${fmt(r.serve_p16_ops_s)} | ${ratio(r.serve_over_redis_p16)} |`);
  md.push("");
  const built = serve.commit ? ` Built from ${serve.commit}${serve.uncommitted.length ? ` with uncommitted changes (${serve.uncommitted.join(", ")})` : ""}.` : "";
  md.push(`redisplay serve is ${serve.binary}; src/net/server.rs as built: “${serve.threads}”${built}${serve.warning ? ` (${serve.warning}.)` : ""}`);
} else md.push(`redisplay serve: ${serve.error ?? redis.error}`);
md.push("");

const page = chrome?.page;
md.push("### The page: frame times");
md.push("");
if (page?.cells?.length) {
  md.push(
    `The playground (index.html) in headless Chromium, 1440×900, with N keys carrying TTLs (uniform ${page.ttl_s[0]}–${page.ttl_s[1]} s, created by the expiry view's populate form), the expiry or the eviction view open, playing: ~1 s to settle, then ${page.seconds_per_cell} s measured. ` +
      "*frame*: the interval between requestAnimationFrame callbacks (headless Chromium paces frames at 60 Hz, so 16.7 ms is the floor). *work*: the real time the page's own rAF callbacks took that frame (the loop: engine advance + event drain + the views' update/draw; style, layout, paint and GC outside them are not counted). *> 25 ms*: frames that missed a vsync. *LoAF*: long animation frames (≥ 50 ms, rendering included). *clock*: how fast the virtual clock really went.",
  );
  md.push("");
  md.push("| view | keys | speed | frames/s | frame p50 | p95 | p99 | max | work p50 | p95 | p99 | > 25 ms | LoAF | cron ticks | clock |");
  md.push("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const c of page.cells)
    md.push(
      `| ${c.view} | ${c.keys.toLocaleString("en")} | ${c.speed}× | ${c.fps} | ${ms(c.frame_ms.p50)} | ${ms(c.frame_ms.p95)} | ${ms(c.frame_ms.p99)} | ${ms(c.frame_ms.max)} | ` +
        `${ms(c.work_ms.p50)} | ${ms(c.work_ms.p95)} | ${ms(c.work_ms.p99)} | ${c.over_25ms} of ${c.frames} | ${c.long_animation_frames.count} | ${c.cron_ticks.toLocaleString("en")} | ${c.virtual_speed}× |`,
    );
  md.push("");
  md.push("Where the page's work went, in ms per second of play (engine: `advanceTo` + `drainEvents`; the rest: each view's update + draw), and the expiry view's own parts when it is open:");
  md.push("");
  const parts = [...new Set(page.cells.flatMap((c) => Object.keys(c.spent_ms_per_s)))];
  md.push(`| view | keys | speed | ${parts.join(" | ")} | expiry view parts | populate |`);
  md.push(`|---|---:|---:|${parts.map(() => "---:").join("|")}|---|---:|`);
  for (const c of page.cells) {
    const xp = c.view === "expiry" ? Object.entries(c.expiry_parts_ms_per_s).map(([k, v]) => `${k} ${ms(v)}`).join(", ") : "—";
    md.push(`| ${c.view} | ${c.keys.toLocaleString("en")} | ${c.speed}× | ${parts.map((p) => ms(c.spent_ms_per_s[p] ?? 0)).join(" | ")} | ${xp} | ${c.populate_ms.toLocaleString("en")} ms |`);
  }
} else md.push("Chromium did not run (see chromium.json).");
md.push("");

md.push("### Size and memory");
md.push("");
if (size) {
  md.push("| | raw | gzip -9 | brotli -q 11 |");
  md.push("|---|---:|---:|---:|");
  md.push(`| wasm (www/pkg/redisplay_bg.wasm) | ${kb(size.wasm_raw)} | ${kb(size.wasm_gzip)} | ${kb(size.wasm_brotli)} |`);
  md.push(`| JS of www/ (${size.js_files} files, the wasm-bindgen glue included) | ${kb(size.js_raw)} | ${kb(size.js_gzip)} | ${kb(size.js_brotli)} |`);
  md.push(`| total | ${kb(size.wasm_raw + size.js_raw)} | ${kb(size.wasm_gzip + size.js_gzip)} | ${kb(size.wasm_brotli + size.js_brotli)} |`);
  const f = size.first_load;
  if (f) {
    md.push("");
    md.push(`First load (tools/first-load-size.mjs): the wasm and the ${f.js.files} modules of the first screen (www/main.js's graph and the glue), each file compressed alone; "sent" is what scripts/serve.sh sends (scripts/precompress.mjs's .br/.gz, modules minified). Target ≤ 350 KB brotli.`);
    md.push("");
    md.push("| | raw | brotli -q 11 | sent gzip | sent brotli |");
    md.push("|---|---:|---:|---:|---:|");
    md.push(`| wasm | ${kb(f.wasm.raw)} | ${kb(f.wasm.brotli)} | ${kb(f.wasm.sent_gzip)} | ${kb(f.wasm.sent_brotli)} |`);
    md.push(`| first screen's JS | ${kb(f.js.raw)} | ${kb(f.js.brotli)} | ${kb(f.js.sent_gzip)} | ${kb(f.js.sent_brotli)} |`);
    md.push(`| first load | ${kb(f.wasm.raw + f.js.raw)} | ${kb(f.wasm.brotli + f.js.brotli)} | ${kb(f.wasm.sent_gzip + f.js.sent_gzip)} | ${kb(f.wasm.sent_brotli + f.js.sent_brotli)} |`);
  }
} else md.push("No wasm build (www/pkg) to measure.");
md.push("");
const w = memory.wasm;
const rm = memory.redis;
if (w || rm) {
  const example = w?.example ?? "SET key:N val:NNNNNN";
  md.push(`Memory for ${(w?.keys ?? rm?.keys ?? 0).toLocaleString("en")} small string keys, \`SET key:N val:NNNNNN\` (the last: \`${example}\`; keys of 5–10 bytes, 10-byte values), growth from an empty keyspace (MB = 2²⁰ bytes):`);
  md.push("");
  md.push("| | grew by | bytes / key |");
  md.push("|---|---:|---:|");
  if (w) {
    md.push(`| wasm build in Chromium: linear memory (\`memory.buffer.byteLength\`) | ${mb(w.after.linear - w.before.linear)} | ${w.linear_bytes_per_key} |`);
    md.push(`| wasm build: the engine's INFO used_memory (its model of Redis's zmalloc count) | ${mb(w.after.used_memory - w.before.used_memory)} | ${w.used_memory_bytes_per_key} |`);
  }
  if (rm) md.push(`| ${machine.redis ?? "redis-server"}: INFO used_memory (jemalloc) | ${mb(rm.used_memory_after - rm.used_memory_before)} | ${rm.used_memory_bytes_per_key} |`);
  else md.push("| redis-server | — | — |");
}
await writeFile(join(dir, "bench.md"), `${md.join("\n")}\n`);
