#!/usr/bin/env bash
# Builds the engine for the browser into www/pkg: cargo (wasm32, the `wasm` profile: release at opt-level "s") → wasm-bindgen
# --target web → wasm-opt -Oz without its inlining pass (below) from npm's binaryen (never
# Debian's: it corrupts wasm-bindgen output, see docs/toolchain.md §1); then precompresses what
# the page serves (.br and .gz beside each file, scripts/precompress.mjs) and writes
# www/pkg/size.json (the wasm's size, for the loading bar). Quick when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --lib --target wasm32-unknown-unknown --profile wasm
# The build lands in CARGO_TARGET_DIR when one is set (a shared machine gives each checkout its own).
src="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/wasm/redisplay.wasm"
mkdir -p www/pkg
if [ ! -f www/pkg/redisplay_bg.wasm ] || [ "$src" -nt www/pkg/redisplay_bg.wasm ]; then
  wasm-bindgen --target web --out-dir www/pkg "$src"
  if [ -x node_modules/.bin/wasm-opt ]; then
    # --skip-pass=inlining-optimizing: LLVM has inlined already (opt-level "s"); binaryen's own
    # inlining makes the file 1 % smaller raw but 5 % bigger as brotli (708.6 → 675.1 KB sent)
    # and no faster in Chromium (Node 20's V8: ~5 % slower per call). docs/wasm-size.md.
    node_modules/.bin/wasm-opt -Oz --skip-pass=inlining-optimizing --enable-bulk-memory --enable-nontrapping-float-to-int \
      --enable-sign-ext --enable-mutable-globals \
      www/pkg/redisplay_bg.wasm -o www/pkg/redisplay_bg.wasm.opt
    mv www/pkg/redisplay_bg.wasm.opt www/pkg/redisplay_bg.wasm
  fi
  touch www/pkg/redisplay_bg.wasm
fi
printf '{"wasm": %s}\n' "$(wc -c < www/pkg/redisplay_bg.wasm | tr -d ' ')" > www/pkg/size.json.tmp
cmp -s www/pkg/size.json.tmp www/pkg/size.json 2>/dev/null && rm www/pkg/size.json.tmp || mv www/pkg/size.json.tmp www/pkg/size.json
node scripts/precompress.mjs
