#!/usr/bin/env bash
# Builds the simulator as WebAssembly for `beacon studio` with Debian's emscripten (build/wasm):
# beacon-sim-duktape.{js,wasm}, and beacon-sim-jerryscript.{js,wasm} when JERRYSCRIPT_DIR is set.
# `beacon studio` runs this itself when the modules are missing or older than the sources.
#
# Debian's emscripten 3.1.6 finds its `acorn` (used to optimise the JavaScript it emits) only
# through NODE_PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v emcmake >/dev/null; then
  echo "build-wasm: emscripten is not installed (apt-get install emscripten, or bash scripts/setup.sh)" >&2
  exit 1
fi
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"
out="${BEACON_WASM_BUILD_DIR:-build/wasm}"
emcmake cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=Release ${JERRYSCRIPT_DIR:+-DJERRYSCRIPT_DIR="$JERRYSCRIPT_DIR"} >/dev/null
cmake --build "$out" -j2
