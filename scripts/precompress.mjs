// Precompresses what the page serves — www/ (modules, styles, labs, the wasm package), docs/,
// index.html — into .br (brotli, quality 11) and .gz (gzip, level 9) beside each file, as a CDN
// would serve them; scripts/serve.mjs (sirv) sends them to browsers that accept them. Quick when
// nothing changed: a file is compressed again only when it is newer than its .br/.gz.
//
//   node scripts/precompress.mjs        (scripts/build-web.sh runs it)

import { readdirSync, readFileSync, statSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, gzipSync, constants } from "node:zlib";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const EXTENSIONS = new Set([".js", ".mjs", ".css", ".json", ".wasm", ".html", ".svg", ".txt"]);
/** Below this, compressing gains less than a packet: served as they are. */
const MIN_BYTES = 1024;

/** @param {string} dir */
function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full);
    else if (EXTENSIONS.has(path.extname(entry.name))) yield full;
  }
}

let made = 0;
let bytesIn = 0;
let bytesBr = 0;
const targets = [...files(path.join(ROOT, "www")), ...files(path.join(ROOT, "docs")), path.join(ROOT, "index.html")];
for (const file of targets) {
  const stat = statSync(file);
  if (stat.size < MIN_BYTES) continue;
  const fresh = (ext) => existsSync(file + ext) && statSync(file + ext).mtimeMs >= stat.mtimeMs;
  if (fresh(".br") && fresh(".gz")) continue;
  const body = readFileSync(file);
  const br = brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      [constants.BROTLI_PARAM_MODE]: file.endsWith(".wasm") ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT,
    },
  });
  writeFileSync(`${file}.br`, br);
  writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
  made += 1;
  bytesIn += body.length;
  bytesBr += br.length;
}
if (made > 0) console.log(`precompressed ${made} files: ${bytesIn} B → ${bytesBr} B as brotli`);
