#!/usr/bin/env bash
# Benchmarks of `beacon studio`: one line per figure, "name: value unit".
#   bash bench/studio.sh
# Page load to ready and frames per second in Debian's chromium (headless, so frames are not
# tied to a display; the figure is how many frames the page finishes per second while an app
# animates the ring, capped by chromium's 60 Hz frame clock). The tracker workload is
# examples/asset-tracker.ts over 24 h of device time, natively (beacon-sim) and in the page.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
bash scripts/build-wasm.sh >/dev/null
cmake -S . -B build/host -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/host -j2 --target beacon-sim beacon-pack >/dev/null
wasm=build/wasm/beacon-sim-duktape.wasm
echo "wasm_size_raw: $(stat -c %s "$wasm") bytes"
echo "wasm_size_gzip: $(gzip -9 -c "$wasm" | wc -c) bytes"
jerry=build/wasm/beacon-sim-jerryscript.wasm
if [ -f "$jerry" ]; then
  echo "wasm_size_raw_jerryscript: $(stat -c %s "$jerry") bytes"
  echo "wasm_size_gzip_jerryscript: $(gzip -9 -c "$jerry" | wc -c) bytes"
fi
echo "wasm_glue_js_raw: $(stat -c %s build/wasm/beacon-sim-duktape.js) bytes"
node bench/studio-bench.js
