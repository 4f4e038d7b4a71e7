#!/usr/bin/env bash
# The `bench` entry point (not part of scripts/test.sh): everything in one run, side by side —
#   1. the engine natively (benches/engine.rs, release build)
#   2. the same operations through the wasm build in Node (tools/bench/wasm-node.mjs)
#   3. ioredis-mock in that same Node process; a real redis-server 7.0 via redis-benchmark
#   4. sizes: the wasm raw/gzip/brotli, the JS of www/
# and writes bench-results/bench.json + bench-results/bench.md (tools/bench/report.mjs).
# Installs only what is missing, like scripts/setup.sh. Knobs: BENCH_OPS (native and wasm calls
# per cell, default 200000 / 100000), BENCH_MOCK_OPS (ioredis-mock, default 20000).
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench-results
mkdir -p "$out"
say() { printf '\033[1m[bench]\033[0m %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif have sudo; then sudo "$@"; else echo "need root for: $*" >&2; return 1; fi; }

# --- what is missing -------------------------------------------------------------------------
scripts/setup.sh serve            # wasm target, wasm-bindgen CLI, npm's binaryen (quick when present)
if ! have redis-server || ! have redis-benchmark; then
  say "apt-get install redis-server redis-tools"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server redis-tools >/dev/null
fi
# The peers' npm packages live in tools/bench/node_modules, apart from the page's package.json.
if [ ! -d tools/bench/node_modules/ioredis-mock ] || [ tools/bench/package-lock.json -nt tools/bench/node_modules/.package-lock.json ]; then
  say "npm ci in tools/bench (ioredis-mock)"
  (cd tools/bench && npm ci --silent --no-audit --no-fund) || say "ioredis-mock could not be installed: its rows will say so"
fi

# --- 1. native ---------------------------------------------------------------------------------
say "build the wasm (scripts/build-web.sh)"
scripts/build-web.sh
say "native engine: cargo bench --bench engine"
REDISPLAY_BENCH_OPS="${BENCH_OPS:-200000}" REDISPLAY_BENCH_JSON="$out/native.json" \
  cargo bench --quiet --bench engine

# --- 2+3a. wasm in Node, ioredis-mock ---------------------------------------------------------
say "wasm build and ioredis-mock in Node"
node tools/bench/wasm-node.mjs --ops "${BENCH_OPS:-100000}" --mock-ops "${BENCH_MOCK_OPS:-20000}" --out "$out/node.json"

# --- 3b. a real redis-server on a free loopback port ------------------------------------------
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
say "redis-server $(redis-server --version | awk '{print $3}') on 127.0.0.1:$port; redis-benchmark"
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --logfile "" --loglevel warning >/dev/null &
redis_pid=$!
trap 'kill "$redis_pid" 2>/dev/null || true' EXIT
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
redis-server --version >"$out/redis-version.txt"
redis-benchmark -p "$port" -t get,set,incr,zadd -n 100000 -q --csv >"$out/redis-benchmark.csv"
redis-benchmark -p "$port" -t get,set,incr,zadd -n 100000 -q --csv -P 16 >"$out/redis-benchmark-p16.csv"
kill "$redis_pid" 2>/dev/null || true
wait "$redis_pid" 2>/dev/null || true
trap - EXIT

# --- 4. sizes, and the report ------------------------------------------------------------------
node tools/bench/report.mjs "$out"
say "wrote $out/bench.json and $out/bench.md"
cat "$out/bench.md"
