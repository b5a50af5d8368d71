#!/usr/bin/env bash
# Installs what building and testing need on a fresh Debian machine: the Duktape amalgamation,
# libsodium (package signatures), cmocka, libcbor (the CBOR tests' reference decoder), the Cortex-M toolchain, valgrind (benchmarks),
# GeographicLib (the geodesic test's reference), QEMU (the firmware image on an emulated
# Cortex-M4, src/port/qemu), the cloud's test servers and browser (mosquitto,
# postgresql, chromium), emscripten (the WebAssembly simulator of `beacon studio`), g++ and python3 (npm builds better-sqlite3 from source when no prebuilt
# binary can be fetched), and the npm packages. Safe to run again: it only installs what is
# missing.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(cmake make gcc libc6-dev zlib1g-dev pkg-config libsodium-dev duktape-dev libcmocka-dev libcbor-dev libmosquitto-dev
              gcc-arm-none-eabi libnewlib-arm-none-eabi valgrind mosquitto postgresql chromium
              g++ python3 libgeographiclib-dev emscripten qemu-system-arm)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm ci also compiles the TypeScript tools (the root "prepare" script).
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci" >&2
  # better-sqlite3 compiles SQLite from source when no prebuilt binary can be fetched: node-gyp
  # builds its two translation units side by side with JOBS=max.
  JOBS=max npm ci --no-audit --no-fund >&2
else
  npm run --silent build >&2
fi
