#!/usr/bin/env bash
# Every test suite, as CI runs it: generated files current, the layout's rules (src/layout.toml)
# and file sizes kept, C unit tests (also under
# AddressSanitizer and UndefinedBehaviorSanitizer) on both engines, the TypeScript tools,
# micro-apps on the simulator, the Cortex-M4 cross-compile, and the firmware built by Zephyr for
# the four boards, run on nrf52_bsim and mps2/an521. Installs what it needs first. The firmware's
# toolchain is the user's Zephyr workspace (scripts/lib/workspace.sh: ZEPHYR_BASE and the like,
# else the west workspace around the repository, else ~/zephyrproject), whose JerryScript is the
# host tools' second engine too: a step that needs a part the machine lacks is skipped with the
# line that says what is missing and how to get it, the rest runs, and the summary lists the
# skipped steps (exit 0 when everything that ran passed). Prints how long each step took.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
step_name=""
step_start=$SECONDS
step_done() {
	[ -n "$step_name" ] && printf '== %s: %d s\n' "$step_name" $((SECONDS - step_start))
	return 0
}
step() {
	step_done
	step_name="$*"
	step_start=$SECONDS
	printf '\n== %s\n' "$*"
}
skipped=()
# skip STEP WHY: a step (or part of one) that does not run on this machine, and why.
skip() {
	skipped+=("$1: $2")
	printf '== skipped: %s: %s\n' "$1" "$2"
}
summary() {
	step_done
	if [ ${#skipped[@]} -gt 0 ]; then
		printf '\n== skipped steps (%d): what they need is not on this machine\n' ${#skipped[@]}
		printf '   %s\n' "${skipped[@]}"
	fi
	printf '== total: %d s\n' $((SECONDS - started))
}
trap summary EXIT
jobs=2

step "setup: packages, node modules; the Zephyr workspace looked for"
bash scripts/setup.sh
# Zephyr 3.7.1 with its modules, JerryScript 3.0.0 and BabbleSim, where the machine has them.
source scripts/lib/workspace.sh
found() { if [ -z "$1" ]; then echo "$2"; else echo missing; fi; }
printf 'workspace: Zephyr %s; JerryScript %s; BabbleSim %s\n' "$(found "$BEACON_MISSING_ZEPHYR" "${ZEPHYR_BASE:-}")" \
	"$(found "$BEACON_MISSING_JERRYSCRIPT" "${JERRYSCRIPT_DIR:-}")" "$(found "$BEACON_MISSING_BSIM" "${BSIM_OUT_PATH:-}")"
if ! why="$(beacon_ws_need jerryscript)"; then
	skip "JerryScript on the host (its C tests, WebAssembly module, bare-metal image, and the TypeScript tests' JerryScript runs)" "$why"
fi

step "generated files are current"
node bindings-ts/bin/beacon.js codegen --check

step "layout: the include rules of src/layout.toml, no hand-written file over 600 lines, the picture current"
python3 scripts/check-layout.py
python3 scripts/layout-diagram.py --check

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

step "Bare-metal image on QEMU's Cortex-M4F (mps2-an386, the nRF52840's core): linked within the flash and RAM budget"
bash scripts/qemu-build.sh

step "Firmware built by Zephyr: nRF52840 DK and nRF9160 DK (JerryScript; with its nRF52840's Bluetooth controller), nrf52_bsim (JerryScript) and mps2/an521 (both engines)"
# Warnings in the project's code are errors; each image is printed by component and held to
# src/port/zephyr/budget.json. The test boards' images are what bindings-ts/test/zephyr.test.ts
# runs the apps on. Each image needs Zephyr, a JerryScript one JerryScript, nrf52_bsim BabbleSim.
targets=(nrf52840dk/nrf52840:jerryscript nrf9160dk/nrf9160:jerryscript nrf52_bsim:jerryscript
	mps2/an521/cpu0:jerryscript mps2/an521/cpu0:duktape)
if ! why="$(beacon_ws_need zephyr)"; then
	skip "the firmware built by Zephyr (${#targets[@]} images, the signature verifier on mps2/an521)" "$why"
	targets=()
fi
for target in "${targets[@]}"; do
	board="${target%%:*}" engine="${target##*:}"
	parts=(zephyr)
	[ "$engine" = jerryscript ] && parts+=(jerryscript)
	[ "$board" = nrf52_bsim ] && parts+=(bsim)
	if why="$(beacon_ws_need "${parts[@]}")"; then
		bash scripts/firmware.sh "$board" --engine "$engine" | grep -E "\.(flash|ram)\.(total|free)|built"
		# The nRF9160 DK's Bluetooth controller (its nRF52840 over H:4), with its budget.
		if [ "$board" = nrf9160dk/nrf9160 ]; then
			bash scripts/firmware.sh nrf9160dk/nrf52840 --controller | grep -E "\.(flash|ram)\.(total|free)"
		fi
		# The LTE beacon's two chips on BabbleSim: the firmware with Bluetooth over H:4, and the
		# HCI UART controller on the air (docs/firmware.md, "The LTE beacon in simulation").
		if [ "$board" = nrf52_bsim ]; then
			bash scripts/firmware.sh nrf52_bsim --engine "$engine" --hci-uart | grep built
			bash scripts/firmware.sh nrf52_bsim --controller | grep built
		fi
	else
		skip "firmware for $board ($engine)" "$why"
	fi
done
# The firmware's signature verifier (PSA Crypto on Zephyr's Mbed TLS) against known answers, on
# QEMU's Cortex-M33, with its figures.
if beacon_ws_need zephyr >/dev/null; then
	bash tests/zephyr-crypto/run.sh | grep -E "^(FAIL|PASS)|beacon figure"
fi

step "TypeScript: codegen, compiler, CLI, micro-apps on the simulator, on the emulated core and on the Zephyr firmware, the studio in chromium, engine parity (probes, generated programs, apps and examples on both engines and twice)"
node --test --test-concurrency=2 bindings-ts/dist/test/

step "Conformance suite (tests/rig) and the LTE beacon among tags (tests/radio) on each engine, and the engines' traces compared"
# Each run keeps the trace of every world it simulates (BEACON_TEST_RECORD); the two engines'
# traces must be the same, byte for byte (docs/compiler.md, "Two engines, one language").
records="$(mktemp -d)"
BEACON_TEST_RECORD="$records/duktape" node bindings-ts/bin/beacon.js test tests/rig tests/radio examples/testing --engine duktape
if why="$(beacon_ws_need jerryscript)"; then
	BEACON_TEST_RECORD="$records/jerryscript" node bindings-ts/bin/beacon.js test tests/rig tests/radio examples/testing --engine jerryscript
	node scripts/compare-traces.js "$records/duktape" "$records/jerryscript"
else
	skip "conformance on JerryScript, and the two engines' traces compared" "$why"
fi
rm -rf "$records"

step "Conformance suite (tests/rig) on the firmware built by Zephyr, on nrf52_bsim, and the LTE beacon among tags (tests/radio) on its two chips on BabbleSim's air"
if why="$(beacon_ws_need zephyr jerryscript bsim)"; then
	node bindings-ts/bin/beacon.js test tests/rig --device bsim --engine jerryscript
	node bindings-ts/bin/beacon.js test tests/radio --device bsim --air radio --engine jerryscript
else
	skip "conformance on nrf52_bsim, and tests/radio on the LTE beacon's two chips" "$why"
fi
