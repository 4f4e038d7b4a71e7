#!/usr/bin/env bash
# Builds dist/redisplay-single.html: the playground page, its modules, style sheets, labs and
# the wasm in one file that works offline and from file:// (see scripts/build-single.mjs).
# Needs www/pkg (scripts/build-web.sh). Quick when nothing changed: it rebuilds only when the
# page, www/ or the wasm is newer than the file.
set -euo pipefail
cd "$(dirname "$0")/.."
out=dist/redisplay-single.html
if [ -f "$out" ] && [ "${1:-}" != "--force" ] \
  && [ -z "$(find index.html www scripts/build-single.mjs -newer "$out" -type f -print -quit)" ]; then
  echo "build-single: $out is up to date"
  exit 0
fi
node scripts/build-single.mjs
