#!/usr/bin/env bash
# Build the firmware image for QEMU's emulated Cortex-M4F (src/port/qemu, board mps2-an386, the
# nRF52840's core) and print its flash and
# RAM by component, one figure a line (bench/ convention):
#
#   qemu.duktape.flash.engine: 245760 bytes
#
# The link itself holds the image to the budget (src/port/qemu/budget.cmake, docs/budget.md):
# over budget, the link fails and so does this script. Flash is text + data's initial values;
# RAM is data + bss + the malloc arena + the main stack (the arena and the stack by their budget).
#
# Usage: scripts/qemu-build.sh [duktape|jerryscript]...   (default: duktape, and jerryscript when
# JERRYSCRIPT_DIR is set). Build directories: build/qemu-<engine> (BEACON_QEMU_BUILD: their root).
# The Cortex-M33 (the nRF9160's core) is the Zephyr firmware's, on mps2/an521 (scripts/firmware.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_ROOT="${BEACON_QEMU_BUILD:-$ROOT/build}"
engines=("$@")
if [ ${#engines[@]} -eq 0 ]; then
	engines=(duktape)
	[ -n "${JERRYSCRIPT_DIR:-}" ] && engines+=(jerryscript)
fi
if [ -n "${BEACON_QEMU_BOARD:-}" ] && [ "$BEACON_QEMU_BOARD" != mps2-an386 ]; then
	echo "qemu-build: the bare-metal image is built for mps2-an386 only; the Cortex-M33 is the Zephyr firmware's: scripts/firmware.sh mps2/an521/cpu0" >&2
	exit 2
fi
for engine in "${engines[@]}"; do
	dir="$BUILD_ROOT/qemu-$engine"
	if [ ! -f "$dir/Makefile" ] && [ ! -f "$dir/build.ninja" ]; then
		cmake -S "$ROOT/src/port/qemu" -B "$dir" -DCMAKE_TOOLCHAIN_FILE="$ROOT/src/port/qemu/toolchain-arm.cmake" \
			-DBEACON_ENGINE="$engine" ${JERRYSCRIPT_DIR:+-DJERRYSCRIPT_DIR="$JERRYSCRIPT_DIR"} >/dev/null
	fi
	if ! cmake --build "$dir" -j2 >"$dir/build.log" 2>&1; then
		grep -E "error|overflow|undefined" "$dir/build.log" | head -20 >&2
		echo "qemu-build: the $engine image does not build (over budget, if a region overflowed)" >&2
		exit 1
	fi
	python3 "$ROOT/scripts/qemu-sizes.py" "$engine" "$dir/beacon-qemu.map" "$dir/budget.txt"
done
