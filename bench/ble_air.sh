#!/usr/bin/env bash
# Benchmarks of the BLE air and the scan path (docs/world.md "The air", src/runtime/ble/rt_ble_scan.c),
# one line per figure, "name: value unit". Instruction counts from callgrind (x86-64, Release).
#
#  - ble_scan_record_instructions: one scan record delivered to JS: on_scan() of rt_ble_scan.c,
#    inclusive (AD decode, the ScanRecord object, the call of a trivial callback, the promise
#    jobs after it), measured with --toggle-collect=on_scan and divided by the records the app
#    counted. Duktape (the simulator's engine); JerryScript too when JERRYSCRIPT_DIR is set.
#  - ble_scan_records_per_s_m4: the largest sustained rate of records a 64 MHz Cortex-M4 can hand
#    to a trivial callback, extrapolated from that count: 64e6 / (instructions * 1.3 * 1.25),
#    where 1.3 is the ratio of Thumb-2 to x86-64 instructions for the same C (a load/store ISA
#    with fewer addressing forms) and 1.25 the Cortex-M4's average cycles per instruction (loads
#    and taken branches take 2, the rest 1). The radio driver's own work (the controller's HCI
#    report, the Bluetooth RX thread) is not counted: it runs beside the JS thread.
#  - ble_sim_device_hour_instructions[_scanner]: simulator cost per device per simulated hour,
#    100 devices each advertising every 100 ms, without and with one more device scanning
#    (default window 100 of 150 ms): (count(1 min) - count(1 ms)) * 60 / 100, so boots and
#    engine starts are left out and the steady state is scaled to an hour.
#
#   bash bench/ble_air.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target beacon-sim beacon-pack >/dev/null
export BEACON_HOST_BUILD="$PWD/$build"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
beacon() { local log; log=$(node bindings-ts/bin/beacon.js "$@" 2>&1) || { echo "$log" >&2; return 1; }; }

app() { # name scanner-id interval window for-ms [engine]
	sed -e "s/__SCANNER__/$2/" -e "s/__INTERVAL__/$3/" -e "s/__WINDOW__/$4/" -e "s/__FOR__/$5/" \
		bench/apps/ble-air.js >"$work/$1.js"
	beacon build "$work/$1.js" -o "$work/$1.bapp" ${6:+--engine "$6"} >/dev/null
}

world() { # file devices (100 advertisers in a 10 x 10 grid 2 m apart, the scanner in the middle)
	{
		echo "beacon-world 1"
		for i in $(seq 0 $(($2 - 1))); do
			echo "device $i d$i ble-beacon position=$(awk -v i="$i" 'BEGIN { printf "%.7f,%.7f,0", (i % 10) * 0.000018, int(i / 10) * 0.000018 }')"
		done
	} >"$1"
}

# ------------------------------------------------------------------ one scan record

# A scanner among 10 advertisers listening all the time for 10 s.
world "$work/rx.world" 11
ms=10000
sim_for() { # engine-suffix bapp
	local out
	out=$(mktemp)
	valgrind --tool=callgrind --toggle-collect=on_scan --callgrind-out-file="$out" \
		"$build/beacon-sim$1" --world "$work/rx.world" --for "$ms" "$2" >"$out.stdout" 2>/dev/null
	local ir records
	ir=$(awk '/^summary:/ {print $2}' "$out")
	records=$(sed -n 's/.*records \([0-9]*\).*/\1/p' "$out.stdout")
	rm -f "$out" "$out.stdout"
	echo $((ir / records))
}
app rx 000b 10 10 "$ms"
per=$(sim_for "" "$work/rx.bapp")
echo "ble_scan_record_instructions: $per instr/record"
echo "ble_scan_records_per_s_m4: $(awk -v i="$per" 'BEGIN { printf "%d", 64e6 / (i * 1.3 * 1.25) }') records/s"
if [ -n "${JERRYSCRIPT_DIR:-}" ] && cmake --build "$build" -j2 --target beacon-sim-jerryscript >/dev/null 2>&1; then
	app rxj 000b 10 10 "$ms" jerryscript
	perj=$(sim_for "-jerryscript" "$work/rxj.bapp")
	echo "ble_scan_record_instructions_jerryscript: $perj instr/record"
	echo "ble_scan_records_per_s_m4_jerryscript: $(awk -v i="$perj" 'BEGIN { printf "%d", 64e6 / (i * 1.3 * 1.25) }') records/s"
fi

# ------------------------------------------------------------------ the simulator per device-hour

cg() { bash bench/callgrind.sh "$@"; }
world "$work/100.world" 100
world "$work/101.world" 101
app quiet ffff 150 100 60000
app scan 0065 150 100 60000
q1=$(cg "$build/beacon-sim" --world "$work/100.world" --for 60000 "$work/quiet.bapp")
q0=$(cg "$build/beacon-sim" --world "$work/100.world" --for 1 "$work/quiet.bapp")
s1=$(cg "$build/beacon-sim" --world "$work/101.world" --for 60000 "$work/scan.bapp")
s0=$(cg "$build/beacon-sim" --world "$work/101.world" --for 1 "$work/scan.bapp")
echo "ble_sim_device_hour_instructions: $(( (q1 - q0) * 60 / 100 )) instr/device/h"
echo "ble_sim_device_hour_instructions_scanner: $(( (s1 - s0) * 60 / 100 )) instr/device/h"
