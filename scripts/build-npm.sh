#!/usr/bin/env bash
# Builds dist/npm/: redisplay as an npm package — the engine (wasm-bindgen API and types) and the
# <redis-playground> element (www/widget.js, types in www/widget.d.ts). See scripts/build-npm.mjs.
# Needs www/pkg (scripts/build-web.sh). Nothing is published: `npm pack` in dist/npm makes the tarball.
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/build-npm.mjs
(cd dist/npm && npm pack --dry-run --json --ignore-scripts > ../npm-pack.json 2> ../npm-pack.log) \
  || { cat dist/npm-pack.log >&2; echo "build-npm: npm pack --dry-run failed" >&2; exit 1; }
node -e '
const [r] = JSON.parse(require("fs").readFileSync("dist/npm-pack.json", "utf8"));
console.log(`build-npm: npm pack --dry-run: ${r.filename}, ${r.entryCount} files, ${(r.size / 1024).toFixed(0)} KB packed, ${(r.unpackedSize / 1024).toFixed(0)} KB unpacked`);
'
