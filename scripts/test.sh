#!/usr/bin/env bash
# The README's second command: set up what is missing, then run every test —
#   0. habits: rustfmt, clippy with warnings as errors
#   1. native: unit tests, golden transcripts, the live differential against redis-server,
#      robustness (cargo test)
#   1b. redis-py 5.2.1's own test suite against redis-server 7.0.15 and `redisplay serve`, RESP2
#      and RESP3 (tests/redis_py/run.py, known-failures.txt)
#   2. the page's JavaScript: build it (the type check reads wasm-bindgen's pkg/redisplay.d.ts),
#      lint (biome), type check (tsc), unit tests (node --test tests/unit/)
#   3. wasm in headless Chromium: the same transcripts through the bindings (cargo test --target
#      wasm32-unknown-unknown --test wasm; .cargo/config.toml makes wasm-bindgen-test-runner run it)
#   4. the built page end to end in headless Chromium (node --test tests/e2e/)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
# Incremental caches are ~1.5 GB of target/ and never pay on a one-shot run; keep them if asked.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "Rust habits: cargo fmt --check, cargo clippy --all-targets -D warnings"
cargo fmt --check
cargo clippy --quiet --all-targets -- -D warnings

step "native tests (cargo test)"
cargo test --quiet

step "redis-py 5.2.1's own suite: redis-server vs redisplay serve (tests/redis_py/run.py)"
cargo build --quiet --bin redisplay
.venv-redispy/bin/python tests/redis_py/run.py --redisplay target/debug/redisplay

step "build the page (scripts/build-web.sh: cargo, wasm-bindgen, wasm-opt → www/pkg/)"
scripts/build-web.sh

step "JS lint, type check, unit tests (biome lint, tsc, node --test tests/unit/)"
node_modules/.bin/biome lint --error-on-warnings
node_modules/.bin/tsc -p tsconfig.json
node --test tests/unit/

step "wasm tests in headless Chromium (cargo test --target wasm32-unknown-unknown --test wasm)"
# Only this target (wasm-pack test built every test target for wasm32 as well). rust-lld died
# twice here on CI with SIGBUS/"PLEASE submit a bug report": the disk was full — so the free
# space is printed first, and line-tables-only debug info (Cargo.toml) keeps target/ small.
df -h target | tail -1; du -sh target
CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver)}" \
  cargo test --target wasm32-unknown-unknown --test wasm

step "page end to end (node --test tests/e2e/)"
node --test tests/e2e/

step "all tests passed"
