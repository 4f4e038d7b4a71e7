// The bytes of the first load: the engine (www/pkg/redisplay_bg.wasm) and the JavaScript the
// first screen runs — www/main.js's static module graph (scripts/module-graph.mjs without
// `import()`: what the page fetches before it runs; a view opened later and the zh-CN tables
// come on demand) and the wasm-bindgen glue. Each counted two ways: the files as written (raw, gzip -9, brotli -q 11, one file at a
// time, as they are requested), and as scripts/serve.sh sends them (the .br/.gz that
// scripts/precompress.mjs wrote beside each file, modules minified; a file under 1 KB, which has
// none, at its own size). issue 19's target: ≤ 350 KB brotli for both together.
//
//   node tools/first-load-size.mjs        (after scripts/build-web.sh; prints a table)
//
// tools/bench/report.mjs puts the same numbers in bench.md. docs/wasm-size.md says what the
// wasm's bytes are.

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, gzipSync, constants } from "node:zlib";
import { moduleGraph } from "../scripts/module-graph.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const brotli = (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } }).length;
const gzip = (b) => gzipSync(b, { level: 9 }).length;

/** `{raw, gzip, brotli, sent_gzip, sent_brotli}` summed over `files` (paths relative to `root`). */
function measure(root, files) {
  const t = { files: files.length, raw: 0, gzip: 0, brotli: 0, sent_gzip: 0, sent_brotli: 0 };
  for (const rel of files) {
    const file = path.join(root, rel);
    const body = readFileSync(file);
    t.raw += body.length;
    t.gzip += gzip(body);
    t.brotli += brotli(body);
    const sent = (ext) => (existsSync(file + ext) ? readFileSync(file + ext).length : body.length);
    t.sent_gzip += sent(".gz");
    t.sent_brotli += sent(".br");
  }
  return t;
}

/** The first load's sizes, or null without a wasm build. */
export function firstLoadSize(root = ROOT) {
  if (!existsSync(path.join(root, "www/pkg/redisplay_bg.wasm"))) return null;
  const { order } = moduleGraph(root, ["www/main.js"], { dynamic: false });
  return {
    wasm: measure(root, ["www/pkg/redisplay_bg.wasm"]),
    js: measure(root, [...order, "www/pkg/redisplay.js"]),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const s = firstLoadSize();
  if (!s) {
    console.error("no www/pkg/redisplay_bg.wasm: run scripts/build-web.sh first");
    process.exit(1);
  }
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`; // KB = 1024 B, as bench.md
  const row = (name, t) => `| ${name} | ${kb(t.raw)} | ${kb(t.gzip)} | ${kb(t.brotli)} | ${kb(t.sent_gzip)} | ${kb(t.sent_brotli)} |`;
  const sum = Object.fromEntries(Object.keys(s.wasm).map((k) => [k, s.wasm[k] + s.js[k]]));
  console.log("| | raw | gzip -9 | brotli -q 11 | sent gzip | sent brotli |");
  console.log("|---|---:|---:|---:|---:|---:|");
  console.log(row("wasm", s.wasm));
  console.log(row(`first screen's JS (${s.js.files} files)`, s.js));
  console.log(row("first load", sum));
}
