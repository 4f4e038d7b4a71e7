#!/usr/bin/env bash
# Installs what redisplay needs and is missing — nothing else, so a second run takes seconds.
#   scripts/setup.sh serve   what building and serving the page needs
#   scripts/setup.sh test    everything the tests need (adds redis-server, Chromium, chromedriver)
# Why each step is as it is: docs/toolchain.md (e.g. never Debian's binaryen).
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-test}"

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif have sudo; then sudo "$@"; else echo "need root for: $*" >&2; return 1; fi; }

# --- Debian packages -------------------------------------------------------------------------
apt_pkgs=()
if [ "$mode" = test ]; then
  have redis-server || apt_pkgs+=(redis-server)
  # redis-cli and redis-benchmark (tests/server_clients.rs); Debian's redis-server pulls it in.
  have redis-benchmark || apt_pkgs+=(redis-tools)
  have chromium || apt_pkgs+=(chromium)
  have chromedriver || apt_pkgs+=(chromium-driver)
  # Chinese text (the zh-CN page, tests/e2e/i18n.test.mjs, its screenshots) needs a font with CJK
  # glyphs, or Chromium draws boxes: the light fonts-wqy-microhei, only when none is installed.
  if ! { have fc-list && [ -n "$(fc-list :lang=zh 2>/dev/null)" ]; }; then apt_pkgs+=(fonts-wqy-microhei); fi
fi
have python3 || apt_pkgs+=(python3)
# The redis-py venv below needs venv/ensurepip (Debian splits them into python3-venv).
if [ "$mode" = test ] && [ ! -x .venv-tests/bin/python ] && ! { have python3 && python3 -c 'import ensurepip, venv' 2>/dev/null; }; then
  apt_pkgs+=(python3-venv)
fi
if [ ${#apt_pkgs[@]} -gt 0 ]; then
  say "apt-get install ${apt_pkgs[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_pkgs[@]}" >/dev/null
fi

# --- Rust: the wasm target and the wasm-bindgen CLI matching Cargo.lock ------------------------
if ! have cargo; then
  echo "cargo not found: install Rust with rustup (https://rustup.rs) and run this again" >&2
  exit 1
fi
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
[ -f Cargo.lock ] || cargo generate-lockfile --quiet
want_wb=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/version = |"/, ""); print; exit}' Cargo.lock)
have_wb=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$want_wb" != "$have_wb" ]; then
  # --locked fails here (its lock wants a crate the registry lacks); the CLI must equal the crate.
  say "cargo install wasm-bindgen-cli $want_wb (about 2 minutes, once)"
  cargo install --quiet wasm-bindgen-cli --version "=$want_wb" --force
fi

# --- npm: playwright-core (drives Debian's Chromium) and binaryen's wasm-opt -----------------
if ! have npm; then
  echo "npm not found: install Node.js 20 and run this again" >&2
  exit 1
fi
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "npm ci"
  npm ci --silent --no-audit --no-fund
fi

# --- PyPI: redis-py 5.2.1's own test suite (tests/redis_py/run.py) with pinned pytest, in .venv-redispy/
redispy_suite=5.2.1
if [ "$mode" = test ] && [ ! -f ".venv-redispy/redis-$redispy_suite/tests/conftest.py" ]; then
  say "python3 -m venv .venv-redispy; pip install redis==$redispy_suite pytest; its sdist's tests/"
  rm -rf .venv-redispy
  python3 -m venv .venv-redispy
  .venv-redispy/bin/pip install --quiet --disable-pip-version-check \
    "redis==$redispy_suite" "pytest==8.3.4" "pytest-asyncio==0.23.8" "pytest-timeout==2.3.1" "packaging==24.2" "mock==5.1.0"
  .venv-redispy/bin/pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
    "redis==$redispy_suite" -d .venv-redispy/sdist
  tar xzf ".venv-redispy/sdist/redis-$redispy_suite.tar.gz" -C .venv-redispy "redis-$redispy_suite/tests"
fi

# --- PyPI: redis-py for tests/server_clients.rs (tests/clients/workload.py), in .venv-tests/ ---
redis_py=5.3.1
if [ "$mode" = test ] && ! .venv-tests/bin/python -c "import redis, sys; sys.exit(redis.__version__ != '$redis_py')" 2>/dev/null; then
  say "python3 -m venv .venv-tests; pip install redis==$redis_py"
  rm -rf .venv-tests
  python3 -m venv .venv-tests
  .venv-tests/bin/pip install --quiet --disable-pip-version-check "redis==$redis_py"
fi
