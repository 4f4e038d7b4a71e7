// Precompresses what the page serves — www/ (modules, styles, labs, the wasm package), docs/,
// index.html — into .br (brotli, quality 11) and .gz (gzip, level 9) beside each file, as a CDN
// would serve them; scripts/serve.mjs (sirv) sends them to browsers that accept them. Quick when
// nothing changed: a file is compressed again only when it (or this script) is newer than its
// .br/.gz.
//
// A JavaScript module is compressed without its comments and indentation (esbuild's
// `minifyWhitespace`: the module parsed and printed again, names, statements and
// imports untouched — the same program). Its comments are half its bytes: the first screen's
// modules go from 234 KB to 135 KB as brotli (docs/wasm-size.md). Stylesheets likewise (the
// same rules: 13.6 → 10.6 KB). The file itself, what an uncompressed request gets and what the
// tests import, stays as written. Without esbuild installed (`npm ci`), files are compressed
// as they are.
//
//   node scripts/precompress.mjs        (scripts/build-web.sh runs it)

import { readdirSync, readFileSync, statSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, gzipSync, constants } from "node:zlib";

/** @type {((source: string, loader: "js" | "css") => string) | null} */
const minify = await import("esbuild")
  .then(({ transformSync }) => (source, loader) => transformSync(source, { loader, minifyWhitespace: true, charset: "utf8", legalComments: "none" }).code)
  .catch(() => {
    console.log("precompress: esbuild is not installed (npm ci); JavaScript and CSS are compressed as written");
    return null;
  });

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

/** A module or stylesheet as it is sent compressed: minified, or as written when esbuild is missing or can't parse it. */
function minified(file, source) {
  if (!minify) return source;
  try {
    return Buffer.from(minify(source.toString("utf8"), file.endsWith(".css") ? "css" : "js"));
  } catch (error) {
    console.log(`precompress: ${path.relative(ROOT, file)} is compressed as written (esbuild: ${String(error).split("\n")[0]})`);
    return source;
  }
}

/** A change to how files are compressed (this script) makes every .br/.gz stale. */
const SELF_MTIME = statSync(fileURLToPath(import.meta.url)).mtimeMs;

let made = 0;
let bytesIn = 0;
let bytesBr = 0;
const targets = [...files(path.join(ROOT, "www")), ...files(path.join(ROOT, "docs")), path.join(ROOT, "index.html")];
for (const file of targets) {
  const stat = statSync(file);
  if (stat.size < MIN_BYTES) continue;
  const fresh = (ext) => existsSync(file + ext) && statSync(file + ext).mtimeMs >= Math.max(stat.mtimeMs, SELF_MTIME);
  if (fresh(".br") && fresh(".gz")) continue;
  const source = readFileSync(file);
  const body = /\.(m?js|css)$/.test(file) ? minified(file, source) : source;
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
  bytesIn += source.length;
  bytesBr += br.length;
}
if (made > 0) console.log(`precompressed ${made} files: ${bytesIn} B → ${bytesBr} B as brotli`);
