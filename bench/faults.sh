#!/usr/bin/env bash
# Benchmarks of faults and resets, one line per figure, "name: value unit":
#
#  - JS heap the installed API takes before the app's first line, and with every namespace read
#    once (bench/api_heap.c), per engine and API version.
#  - What the runaway watchdog costs running code: instructions (callgrind) of a loop of a million
#    iterations with the watchdog armed and not (bench/watchdog.c); the engine's work units give
#    the bytecodes run (Duktape: its executor's instruction count; JerryScript: backward branches,
#    so the figure is per million loop iterations there).
#  - Real time per device reset in the simulator: a device whose app runs the heap out every
#    11 minutes of device time, 200 times (wall time: compare within one run only).
#
#   bash bench/faults.sh        (JerryScript figures too when JERRYSCRIPT_DIR is set)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
build=build/bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${JERRYSCRIPT_DIR:+-DJERRYSCRIPT_DIR="$JERRYSCRIPT_DIR"} >/dev/null
engines=(duktape)
[ -n "${JERRYSCRIPT_DIR:-}" ] && engines+=(jerryscript)
targets=(beacon-sim)
for e in "${engines[@]}"; do
	s=""; [ "$e" = jerryscript ] && s=-jerryscript
	targets+=(beacon-bench-api-heap$s beacon-bench-watchdog$s)
	[ "$e" = jerryscript ] && targets+=(beacon-sim-jerryscript)
done
cmake --build "$build" -j2 --target "${targets[@]}" >/dev/null
export BEACON_HOST_BUILD="$PWD/$build"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cg() { bash bench/callgrind.sh "$@"; }

for e in "${engines[@]}"; do
	s=""; [ "$e" = jerryscript ] && s=-jerryscript
	for v in 0.0.9 0.1.5 0.2.6; do
		"$build/beacon-bench-api-heap$s" "$v" | grep -v '^engine_start' || true
	done
	"$build/beacon-bench-api-heap$s" 0.2.6 | grep '^engine_start'

	n=1000000
	off=$(cg "$build/beacon-bench-watchdog$s" off $n)
	on=$(cg "$build/beacon-bench-watchdog$s" on $n)
	units=$("$build/beacon-bench-watchdog$s" on $n | awk '{print $2}')
	echo "watchdog_loop_${e}_instructions_off: $off instr"
	echo "watchdog_loop_${e}_instructions_on: $on instr"
	awk -v on="$on" -v off="$off" -v e="$e" 'BEGIN { printf "watchdog_overhead_%s: %.4f %%\n", e, (on - off) * 100 / off }'
	if [ "$e" = duktape ]; then
		# Duktape counts 2 executor instructions per work unit (ENG_DUK_WORK_PER_UNIT).
		awk -v on="$on" -v off="$off" -v u="$units" 'BEGIN { printf "watchdog_instructions_per_million_bytecodes_duktape: %.1f instr\n", (on - off) * 1e6 / (u * 2) }'
	else
		awk -v on="$on" -v off="$off" -v n="$n" 'BEGIN { printf "watchdog_instructions_per_million_loop_iterations_jerryscript: %.0f instr\n", (on - off) * 1e6 / n }'
	fi
done

# Real time per reset: 200 heap exhaustions, 11 minutes of device time apart (past the
# reboot-loop guard's 10-minute window, so every one is a reset and a fresh start).
cat > "$work/oom.js" <<'JS'
var rows = [];
timers.single(660000, function () { for (;;) rows.push({ n: rows.length, s: 'row ' + rows.length }); });
timers.single(700000, function () { print('not reached: ' + rows.length); });
JS
resets=200
for e in "${engines[@]}"; do
	node bindings-ts/bin/beacon.js build "$work/oom.js" --engine "$e" -o "$work/oom-$e.bapp" >/dev/null 2>&1
	sim="$build/beacon-sim"; [ "$e" = jerryscript ] && sim="$build/beacon-sim-jerryscript"
	quiet=$(mktemp)
	start=$(date +%s%N)
	"$sim" --for $((660000 * resets + 330000)) "$work/oom-$e.bapp" >/dev/null 2>"$quiet"
	end=$(date +%s%N)
	got=$(grep -o 'reset [0-9]* times' "$quiet" | awk '{print $2}')
	rm -f "$quiet"
	awk -v ns=$((end - start)) -v r="$got" -v e="$e" 'BEGIN { printf "sim_real_time_per_reset_%s: %.2f ms (%d resets)\n", e, ns / 1e6 / r, r }'
done
