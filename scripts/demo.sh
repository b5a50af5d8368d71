#!/usr/bin/env bash
# The main job on a fresh machine: build the tools and run a micro-app on the simulator.
#   bash scripts/demo.sh                               examples/button-led.ts in the world of
#                                                      examples/button-led.world.json: presses
#                                                      of its buttons, the LED ring shown
#   bash scripts/demo.sh app.ts [beacon run options]   any app
#
# Installs only what that needs (scripts/setup.sh installs everything the tests need, and
# finishes what this left out): the apt packages of the host tools (scripts/lib/apt.sh: a C
# compiler, CMake, Duktape, zlib, Mbed TLS, libmosquitto, cmocka) and the npm packages without
# their install scripts (the cloud's native SQLite binding is not built). npm and TypeScript
# work while apt installs and the host tools compile.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/apt.sh

# The CLI: the npm packages and its TypeScript compiled (its sources only; `npm run build`, which
# setup.sh runs, compiles the tests too).
(
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "demo: npm ci --ignore-scripts" >&2
    npm ci --ignore-scripts --no-audit --no-fund >&2
    touch "$PARTIAL_NPM_MARK"
  fi
  echo "demo: compiling the CLI (TypeScript)" >&2
  npx tsc -p bindings-ts/tsconfig.cli.json >&2
) &
cli=$!
log=$(mktemp)
trap 'kill "$cli" 2>/dev/null || true; rm -f "$log"' EXIT

apt_install_missing "${HOST_TOOLS_APT_PACKAGES[@]}"
# The simulator and the package tool, configured as the CLI configures them
# (bindings-ts/src/compiler/hostTools.ts).
if [ ! -e build/host/CMakeCache.txt ] && [ -n "$(apt_missing "${ALL_APT_PACKAGES[@]}")" ]; then
  mkdir -p build/host
  touch "$PARTIAL_CONFIGURE_MARK"
fi
echo "demo: building the simulator (CMake)" >&2
if ! { cmake -S . -B build/host -DCMAKE_BUILD_TYPE=Release && cmake --build build/host -j2 --target beacon-sim beacon-pack; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "demo: building the host tools failed" >&2
  exit 1
fi
if ! wait "$cli"; then
  echo "demo: installing or compiling the CLI failed" >&2
  exit 1
fi
if [ $# -eq 0 ]; then
  set -- examples/button-led.ts --world examples/button-led.world.json --verbose
fi
trap - EXIT
rm -f "$log"
exec node bindings-ts/bin/beacon.js run "$@"
