#!/usr/bin/env bash
# The `bench` entry point (not part of scripts/test.sh): everything in one run, side by side —
#   1. the engine natively (benches/engine.rs, release build)
#   2. the same operations through the wasm build in Node (tools/bench/wasm-node.mjs) and in
#      headless Chromium (tools/bench/chromium.mjs; both run the loop of tools/bench/ops.mjs)
#   3. ioredis-mock in that same Node process; redis-benchmark against a real redis-server 7.0 and
#      against `redisplay serve` (the engine as a Redis server over TCP, release build), the same
#      tests, -n and clients for both, with and without -P 16
#   4. the page (index.html) in headless Chromium: frame times with 10⁵ / 10⁶ keys carrying TTLs,
#      the expiry or the eviction view open, at 1× and 60×
#   5. sizes (wasm raw/gzip/brotli, the JS of www/); memory per key for 10⁶ small string keys in
#      the wasm build (linear memory, INFO used_memory) and in redis-server (INFO used_memory)
# and writes bench-results/bench.json + bench-results/bench.md (tools/bench/report.mjs).
# Installs only what is missing, like scripts/setup.sh. Knobs: BENCH_OPS (native and wasm calls
# per cell, default 200000 / 100000 for Node and Chromium), BENCH_MOCK_OPS (ioredis-mock, default
# 20000), BENCH_PAGE_SECONDS (measured per page cell, default 6), BENCH_MEMORY_KEYS (default 1000000),
# BENCH_ONLY=serve (only part 3's redis-benchmark runs against redis-server and `redisplay serve`,
# then the report: ~1 min once built; the other parts' tables then say they did not run),
# BENCH_ONLY=client (only the in-process JS client beside ioredis-mock and the batched binding,
# tools/bench/client-node.mjs, with the native engine for the ratio: a few minutes once built).
# BENCH_CLIENT_OPS (awaited calls a client cell, default 200000).
# It runs `cargo` itself: on a shared checkout run it as `flock /tmp/redisplay-cargo.lock scripts/bench.sh`
# (the cargo calls inside take no lock of their own, so that does not deadlock).
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench-results
mkdir -p "$out"
rm -f "$out"/*.json "$out"/*.csv "$out"/*.txt "$out"/bench.md   # no stale part in this run's report
date -u +%Y-%m-%dT%H:%M:%SZ >"$out/started.txt"
say() { printf '\033[1m[bench]\033[0m %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif have sudo; then sudo "$@"; else echo "need root for: $*" >&2; return 1; fi; }
# The load average as each part starts, for the report (a shared machine is a noisy one).
part() { say "$*"; echo "$1 $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/load.txt"; }

# --- what is missing -------------------------------------------------------------------------
scripts/setup.sh serve            # wasm target, wasm-bindgen CLI, npm's binaryen and playwright-core
apt_pkgs=()
{ have redis-server && have redis-benchmark && have redis-cli; } || apt_pkgs+=(redis-server redis-tools)
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || apt_pkgs+=(chromium)
if [ ${#apt_pkgs[@]} -gt 0 ]; then
  say "apt-get install ${apt_pkgs[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_pkgs[@]}" >/dev/null
fi
# The peers' npm packages live in tools/bench/node_modules, apart from the page's package.json.
if [ ! -d tools/bench/node_modules/ioredis-mock ] || [ tools/bench/package-lock.json -nt tools/bench/node_modules/.package-lock.json ]; then
  say "npm ci in tools/bench (ioredis-mock)"
  (cd tools/bench && npm ci --silent --no-audit --no-fund) || say "ioredis-mock could not be installed: its rows will say so"
fi

only="${BENCH_ONLY:-}"
case "$only" in "" | serve | client) ;; *) echo "BENCH_ONLY: '$only' is not a part (serve, client)" >&2; exit 2 ;; esac

# The in-process client (www/client/redis.js): part 2c of a full run, or alone.
client_part() {
  part client "the in-process JS client, ioredis-mock, the batched binding (tools/bench/client-node.mjs)"
  node tools/bench/client-node.mjs --ops "${BENCH_CLIENT_OPS:-200000}" --mock-ops "${BENCH_MOCK_OPS:-20000}" --out "$out/client.json"
}
if [ "$only" = client ]; then
  say "build the wasm (scripts/build-web.sh)"
  scripts/build-web.sh
  part native "native engine: cargo bench --bench engine"
  REDISPLAY_BENCH_OPS="${BENCH_OPS:-200000}" REDISPLAY_BENCH_JSON="$out/native.json" cargo bench --quiet --bench engine
  client_part
  echo "$SECONDS" >"$out/wall.txt"
  node tools/bench/report.mjs "$out"
  cat "$out/bench.md"
  exit 0
fi

# The builds first, so no compile runs while something is measured.
say "build redisplay serve (cargo build --release --bin redisplay)"
server_sum=$(md5sum src/net/server.rs)
cargo build --quiet --release --bin redisplay
# What that binary was built from (src/net/server.rs may be under edit in a shared checkout): the
# commit, the uncommitted files, and src/net/server.rs's header, which says how the server is built.
{ git rev-parse --short HEAD; git status --porcelain -- src Cargo.toml Cargo.lock; } >"$out/serve-build.txt" 2>/dev/null || true
[ "$(md5sum src/net/server.rs)" = "$server_sum" ] || echo "src/net/server.rs changed during the build" >"$out/serve-build-warning.txt"
sed -n '/^\/\/!/!q; s/^\/\/! \{0,1\}//p' src/net/server.rs >"$out/serve-header.txt"

if [ -z "$only" ]; then
# --- 1. native ---------------------------------------------------------------------------------
say "build the wasm (scripts/build-web.sh)"
scripts/build-web.sh
part native "native engine: cargo bench --bench engine"
REDISPLAY_BENCH_OPS="${BENCH_OPS:-200000}" REDISPLAY_BENCH_JSON="$out/native.json" \
  cargo bench --quiet --bench engine

# --- 2+3a. wasm in Node, ioredis-mock ---------------------------------------------------------
part node "wasm build and ioredis-mock in Node"
node tools/bench/wasm-node.mjs --ops "${BENCH_OPS:-100000}" --mock-ops "${BENCH_MOCK_OPS:-20000}" --out "$out/node.json"
client_part

# --- 2b+4+5a. headless Chromium: memory per key, the operations, the page ---------------------
part chromium "headless Chromium: memory per key, the wasm operations, the page's frame times"
node tools/bench/chromium.mjs --ops "${BENCH_OPS:-100000}" --page-seconds "${BENCH_PAGE_SECONDS:-6}" \
  --memory-keys "${BENCH_MEMORY_KEYS:-1000000}" --out "$out/chromium.json"

fi

# --- 3b+3c+5b. redis-server and redisplay serve, each on a free loopback port ------------------
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_ping() { # port pid name
  for _ in $(seq 100); do
    [ "$(redis-cli -p "$1" ping 2>/dev/null)" = PONG ] && return 0
    kill -0 "$2" 2>/dev/null || break
    sleep 0.1
  done
  echo "$3 on port $1 did not answer PING" >&2; return 1
}
redis_pid= serve_pid=
stop_servers() { for p in $redis_pid $serve_pid; do kill "$p" 2>/dev/null || true; done; }
trap stop_servers EXIT
port=$(free_port)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --logfile "" --loglevel warning >/dev/null &
redis_pid=$!
serve_port=$(free_port)
target/release/redisplay serve --port "$serve_port" 2>"$out/serve.log" &
serve_pid=$!
wait_ping "$port" "$redis_pid" redis-server
wait_ping "$serve_port" "$serve_pid" "redisplay serve" || { cat "$out/serve.log" >&2; exit 1; }
redis-server --version >"$out/redis-version.txt"
# The same redis-benchmark runs against both, one server at a time: the tests (each on one key,
# no -r), -n, 50 clients, with and without 16 commands per round trip.
rb_tests=set,get,incr,lpush,rpop,sadd,hset,zadd,lrange_100
rb_args=(-n 100000 -c 50 -q --csv)
echo "redis-benchmark -t $rb_tests ${rb_args[*]}" >"$out/redis-benchmark-command.txt"
# Test by test, the two servers take turns (redis-server, then redisplay serve, for each test
# without and then with -P 16): on a shared 2-core machine, load that comes and goes then
# weighs on both sides of a ratio alike, where one whole run after the other could give one
# server a quiet minute and the other a busy one.
part redis "redis-server $(redis-server --version | awk '{print $3}') on 127.0.0.1:$port and redisplay serve on 127.0.0.1:$serve_port, taking turns: redis-benchmark -t $rb_tests"
for f in redis-benchmark redis-benchmark-p16 serve-benchmark serve-benchmark-p16; do : >"$out/$f.csv"; done
# One test's CSV into a file: its header line only once.
rb_one() { # port test file [-P 16]
  local p=$1 t=$2 f=$3
  shift 3
  # (a time limit: a server that stops answering would hang redis-benchmark, not fail it)
  timeout 600 redis-benchmark -p "$p" "${rb_args[@]}" -t "$t" "$@" >"$f.one"
  if [ -s "$f" ]; then tail -n +2 "$f.one" >>"$f"; else cat "$f.one" >"$f"; fi
  rm -f "$f.one"
}
for t in ${rb_tests//,/ }; do
  rb_one "$port" "$t" "$out/redis-benchmark.csv"
  rb_one "$serve_port" "$t" "$out/serve-benchmark.csv"
  rb_one "$port" "$t" "$out/redis-benchmark-p16.csv" -P 16
  rb_one "$serve_port" "$t" "$out/serve-benchmark-p16.csv" -P 16
done
kill "$serve_pid" 2>/dev/null || true
wait "$serve_pid" 2>/dev/null || true
serve_pid=

if [ -z "$only" ]; then
# The keys of the wasm memory measurement, from an empty keyspace: INFO memory before and after.
part redis-memory "redis-server: memory per key"
redis-cli -p "$port" flushall >/dev/null
redis-cli -p "$port" info memory >"$out/redis-memory-before.txt"
node tools/bench/memory.mjs --keys "${BENCH_MEMORY_KEYS:-1000000}" | redis-cli -p "$port" --pipe >"$out/redis-pipe.txt"
grep -q "errors: 0," "$out/redis-pipe.txt" || { cat "$out/redis-pipe.txt" >&2; exit 1; }
redis-cli -p "$port" info memory >"$out/redis-memory-after.txt"
redis-cli -p "$port" dbsize >"$out/redis-dbsize.txt"
fi
kill "$redis_pid" 2>/dev/null || true
wait "$redis_pid" 2>/dev/null || true
redis_pid=
trap - EXIT

# --- 5c. sizes, and the report ------------------------------------------------------------------
echo "$SECONDS" >"$out/wall.txt"
node tools/bench/report.mjs "$out"
say "wrote $out/bench.json and $out/bench.md in $((SECONDS / 60)) min $((SECONDS % 60)) s"
cat "$out/bench.md"
