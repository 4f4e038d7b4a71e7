#!/usr/bin/env bash
# Records the golden transcripts: for each tests/scripts/NAME.redis (or the files given), starts a
# fresh redis-server on a free loopback port (--save '' --appendonly no, so nothing leaks between
# scripts or onto disk), feeds the script to `redis-cli --no-raw` with its `#` lines removed, and
# writes what redis-cli printed to tests/scripts/NAME.out. Scripts under tests/scripts/raw/ are
# fed to `redis-cli --raw` instead (the console's raw mode). The oracle is the installed
# redis-server (Debian's 7.0.15); the versions are checked so a different one can't sneak in.
#
#   tools/record-golden.sh                       # every script
#   tools/record-golden.sh tests/scripts/lcs.redis
#   tools/record-golden.sh tests/scripts/raw/*.redis
#
# tests/golden.rs compares the engine with these files; tests/differential.rs checks that a live
# server still prints them.
set -euo pipefail
cd "$(dirname "$0")/.."

want_version="7.0.15"
for bin in redis-server redis-cli; do
  if ! command -v "$bin" >/dev/null 2>&1; then
    echo "record-golden: $bin not found (scripts/setup.sh test installs it)" >&2
    exit 1
  fi
done
have_version=$(redis-server --version | sed -n 's/.* v=\([0-9.]*\) .*/\1/p')
if [ "$have_version" != "$want_version" ]; then
  echo "record-golden: redis-server is $have_version; the goldens are recorded from $want_version" >&2
  exit 1
fi

workdir=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$workdir"
}
trap cleanup EXIT

# A port nothing listens on, chosen by the kernel (bind to port 0, read it back).
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

start_server() {
  local tries=0
  while :; do
    port=$(free_port)
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$workdir" \
      --daemonize no --logfile "$workdir/redis.log" &
    server_pid=$!
    for _ in $(seq 1 100); do
      if [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ]; then return 0; fi
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.05
    done
    kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=""
    tries=$((tries + 1))
    if [ "$tries" -ge 5 ]; then echo "record-golden: redis-server would not start" >&2; cat "$workdir/redis.log" >&2; exit 1; fi
  done
}

stop_server() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

if [ $# -gt 0 ]; then scripts=("$@"); else scripts=(tests/scripts/*.redis tests/scripts/raw/*.redis); fi
for script in "${scripts[@]}"; do
  out="${script%.redis}.out"
  start_server
  # Comment lines (first non-blank character `#`) are the harness's, not redis-cli's.
  mode=--no-raw
  case "$script" in */raw/*) mode=--raw ;; esac
  grep -v '^[[:space:]]*#' "$script" | redis-cli -p "$port" "$mode" > "$out.tmp"
  stop_server
  mv "$out.tmp" "$out"
  printf '%-40s %5d lines\n' "$out" "$(wc -l < "$out")"
done
