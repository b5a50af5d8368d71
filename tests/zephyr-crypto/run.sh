#!/usr/bin/env bash
# Build the verifier's test firmware for mps2/an521 (scripts/firmware.sh --app-dir) and run it
# under QEMU's Cortex-M33 with -icount shift=0 (an instruction a nanosecond). Prints what the
# firmware prints: a line per check, then its figures ("[beacon figure] name: value unit").
# Exit status: the firmware's (0 when every check passed).
#
#   bash tests/zephyr-crypto/run.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
board=mps2/an521/cpu0
dir="$(bash "$ROOT/scripts/firmware.sh" "$board" --app-dir "$ROOT/tests/zephyr-crypto" --print-dir)"
bash "$ROOT/scripts/firmware.sh" "$board" --app-dir "$ROOT/tests/zephyr-crypto" >"$dir.log" 2>&1 || {
	tail -30 "$dir.log" >&2
	echo "zephyr-crypto: the test firmware does not build ($dir.log)" >&2
	exit 1
}
exec timeout 300 qemu-system-arm -machine mps2-an521 -cpu cortex-m33 -nographic -monitor none \
	-serial stdio -icount shift=0,align=off,sleep=off -semihosting-config enable=on,target=native \
	-kernel "$dir/zephyr/zephyr.elf"
