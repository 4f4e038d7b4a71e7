#!/usr/bin/env bash
# The README's first command: set up what is missing, build the page, serve it on localhost.
#   scripts/serve.sh [PORT]     (default 8080)
set -euo pipefail
cd "$(dirname "$0")/.."
port="${1:-${PORT:-8080}}"
case "$port" in ''|*[!0-9]*) echo "port must be a number, got '$port'" >&2; exit 2;; esac
scripts/setup.sh serve
scripts/build-web.sh
echo
echo "redisplay is at  http://127.0.0.1:$port/   (Ctrl-C stops it)"
echo
exec python3 -u -m http.server "$port" --bind 127.0.0.1
