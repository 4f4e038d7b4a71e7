#!/usr/bin/env bash
# The README's first command: set up what is missing, build the page, serve it on localhost
# with a real static file server from npm (sirv, scripts/serve.mjs) sending the precompressed
# .br/.gz files the build made, as a CDN would.
#   scripts/serve.sh [PORT]     (default 8080; REDISPLAY_NO_BUILD=1 serves what is built as it is)
set -euo pipefail
cd "$(dirname "$0")/.."
port="${1:-${PORT:-8080}}"
case "$port" in ''|*[!0-9]*) echo "port must be a number, got '$port'" >&2; exit 2;; esac
if [ -z "${REDISPLAY_NO_BUILD:-}" ]; then
  scripts/setup.sh serve
  scripts/build-web.sh
fi
echo
exec node scripts/serve.mjs --port "$port" --host 127.0.0.1
