#!/usr/bin/env bash
# Every test suite, as CI runs it: generated files current, C unit tests (also under
# AddressSanitizer and UndefinedBehaviorSanitizer), the TypeScript tools, micro-apps on the
# simulator, and the Cortex-M4 cross-compile. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

step() { printf '\n== %s\n' "$*"; }
jobs=2

step "generated files are current"
node bindings-ts/bin/beacon.js codegen --check

step "C: build and unit tests (build/host)"
cmake -S . -B build/host -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/host -j"$jobs" >/dev/null
ctest --test-dir build/host --output-on-failure -j"$jobs"

step "C: unit tests under ASan and UBSan (build/sanitize)"
# The fuzz tests' breadth is the Release build's; under the sanitizers (ten times slower) they run
# a quarter of the cases, enough to put every function and fault path in front of ASan and UBSan.
cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=Debug -DBEACON_SANITIZE=ON -DBEACON_FUZZ_LISTS=500 \
  -DBEACON_FUZZ_BLE_CASES=250000 -DBEACON_FUZZ_SMP_ROUNDS=50000 >/dev/null
cmake --build build/sanitize -j"$jobs" >/dev/null
ctest --test-dir build/sanitize --output-on-failure -j"$jobs"

step "Cortex-M4 cross-compile of the portable code"
bash scripts/cross-compile.sh

step "WebAssembly simulator for beacon studio (build/wasm) and the page's types"
bash scripts/build-wasm.sh
npx tsc -p bindings-ts/studio

step "Firmware image on QEMU's Cortex-M4: linked within the flash and RAM budget"
bash scripts/qemu-build.sh

step "Firmware image on QEMU's Cortex-M33 (mps2-an505, the nRF9160's core): linked within its budget"
BEACON_QEMU_BOARD=mps2-an505 bash scripts/qemu-build.sh

step "TypeScript: codegen, compiler, CLI, micro-apps on the simulator and on the emulated core, the studio in chromium, engine parity (probes, generated programs, apps and examples on both engines and twice)"
if [ -z "${JERRYSCRIPT_DIR:-}" ]; then
  echo "note: JERRYSCRIPT_DIR is not set: JerryScript tests are skipped (Duktape runs them all)"
fi
node --test --test-concurrency=2 bindings-ts/dist/test/

step "Conformance suite (tests/rig) on the simulator, on each engine built, and the engines' traces compared"
# Each run keeps the trace of every world it simulates (BEACON_TEST_RECORD); the two engines'
# traces must be the same, byte for byte (docs/compiler.md, "Two engines, one language").
records="$(mktemp -d)"
trap 'rm -rf "$records"' EXIT
BEACON_TEST_RECORD="$records/duktape" node bindings-ts/bin/beacon.js test tests/rig examples/testing --engine duktape
if [ -n "${JERRYSCRIPT_DIR:-}" ]; then
  BEACON_TEST_RECORD="$records/jerryscript" node bindings-ts/bin/beacon.js test tests/rig examples/testing --engine jerryscript
  node scripts/compare-traces.js "$records/duktape" "$records/jerryscript"
else
  echo "note: JERRYSCRIPT_DIR is not set: the conformance suite on JerryScript is skipped"
fi
