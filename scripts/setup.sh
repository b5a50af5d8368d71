#!/usr/bin/env bash
# Installs what building and testing need on a fresh Debian machine (and Zephyr's build
# dependencies from Debian when a Zephyr workspace is there; the workspace itself is the user's:
# docs/firmware.md, "The workspace"): the Duktape amalgamation,
# Mbed TLS (package signatures), cmocka, libcbor (the CBOR tests' reference decoder), the Cortex-M toolchain, valgrind (benchmarks),
# GeographicLib (the geodesic test's reference), QEMU (the firmware image on an emulated
# Cortex-M4, src/port/qemu), the cloud's test servers and browser (mosquitto,
# postgresql, chromium), emscripten (the WebAssembly simulator of `beacon studio`), g++ and python3 (npm builds better-sqlite3 from source when no prebuilt
# binary can be fetched), and the npm packages. Safe to run again: it only installs what is
# missing.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/lib/apt.sh
source scripts/lib/workspace.sh
if [ -z "$BEACON_MISSING_ZEPHYR" ]; then
  # A Zephyr workspace is there (ZEPHYR_BASE, or ~/zephyrproject): what its build needs too.
  apt_install_missing "${ALL_APT_PACKAGES[@]}" "${ZEPHYR_APT_PACKAGES[@]}"
else
  apt_install_missing "${ALL_APT_PACKAGES[@]}"
fi
if [ -e "$PARTIAL_CONFIGURE_MARK" ]; then
  # Configured by scripts/demo.sh without the tests' optional packages: from scratch now.
  rm -f build/host/CMakeCache.txt "$PARTIAL_CONFIGURE_MARK"
fi

# npm ci also compiles the TypeScript tools (the root "prepare" script).
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci" >&2
  # better-sqlite3 compiles SQLite from source when no prebuilt binary can be fetched: node-gyp
  # builds its two translation units side by side with JOBS=max.
  JOBS=max npm ci --no-audit --no-fund >&2
else
  if [ -e "$PARTIAL_NPM_MARK" ]; then
    # scripts/demo.sh installed without the packages' install scripts: run them now.
    echo "setup: npm rebuild (the native packages scripts/demo.sh left unbuilt)" >&2
    JOBS=max npm rebuild --no-audit --no-fund >&2
    rm -f "$PARTIAL_NPM_MARK"
  fi
  npm run --silent build >&2
fi
