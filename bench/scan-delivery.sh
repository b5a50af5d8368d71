#!/usr/bin/env bash
# What one BLE scan record delivered to an app's ble.startScan callback costs, one line per
# figure, "name: value unit" (issue 36: a fleet's scanners spend most of a run here).
#
# The world: one scripted beacon (an iBeacon every 20 ms, the shortest interval there is) and one
# device that scans all the time (window = interval, passive), from bench/apps/scan-delivery.js.
#
#  - scan_delivery_instructions[_read][_jerryscript]: x86-64 callgrind instructions of the whole
#    simulator per delivered record, (count(N) - count(0)) / N: the same run with a scan of 60 s
#    and of 1 ms, so boot, engine start and the app's first line cancel out and what is left is
#    the air's advertising events, the radio, the queue, on_scan (AD decode, the record object),
#    the callback and the loop around it. "_read": the callback also reads rssi and manufData.
#  - scan_delivery_wall_us[_jerryscript]: wall time per delivered record, the same difference
#    over a 3,000 s scan (about 120,000 records) run natively, the best of five (noisy: the
#    machine's other work shows; informational).
#
#   bash bench/scan-delivery.sh   (BEACON_BENCH_BUILD=DIR: use that build instead of build/bench;
#                                  JerryScript when JERRYSCRIPT_DIR is set or the build has it)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BEACON_BENCH_BUILD:-build/bench}
if [ -z "${BEACON_BENCH_BUILD:-}" ]; then
	cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${JERRYSCRIPT_DIR:+-DJERRYSCRIPT_DIR="$JERRYSCRIPT_DIR"} >/dev/null
	cmake --build "$build" -j2 --target beacon-sim beacon-pack >/dev/null
	[ -n "${JERRYSCRIPT_DIR:-}" ] && cmake --build "$build" -j2 --target beacon-sim-jerryscript beacon-pack-jerryscript >/dev/null
fi
export BEACON_HOST_BUILD="$PWD/$build"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
beacon() { local log; log=$(node bindings-ts/bin/beacon.js "$@" 2>&1) || { echo "$log" >&2; return 1; }; }

cat >"$work/air.world" <<'W'
beacon-world 1
device 0 scanner ble-beacon position=0,0,0
beacon b0 0.000018,0,0 20 0 02011a1aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5 addr=c0beac000000
W

app() { # name for-ms read(0|1) engine
	local read=''
	[ "$3" = 1 ] && read='sink += r.rssi + r.manufData.byteLength;'
	sed -e "s/__FOR__/$2/" -e "s/__READ__/$read/" bench/apps/scan-delivery.js >"$work/$1.js"
	beacon build "$work/$1.js" -o "$work/$1.bapp" --engine "$4"
}
records() { sed -n 's/.*records \([0-9]*\).*/\1/p' "$1" | tail -1; }
cg() { # sim bapp for-ms -> "instructions records"
	local out
	out=$(mktemp)
	valgrind --tool=callgrind --callgrind-out-file="$out" \
		"$build/$1" --world "$work/air.world" --for "$3" "$2" >"$out.stdout" 2>"$out.log" || {
		cat "$out.log" >&2; exit 1; }
	echo "$(awk '/^summary:/ {print $2}' "$out") $(records "$out.stdout")"
	rm -f "$out" "$out.stdout" "$out.log"
}
wall() { # sim bapp for-ms -> "ns records" (best of five)
	local best='' t0 t1 out
	out=$(mktemp)
	for _ in 1 2 3 4 5; do
		t0=$(date +%s%N)
		"$build/$1" --world "$work/air.world" --for "$3" "$2" >"$out" 2>/dev/null
		t1=$(date +%s%N)
		if [ -z "$best" ] || [ $((t1 - t0)) -lt "$best" ]; then best=$((t1 - t0)); fi
	done
	echo "$best $(records "$out")"
	rm -f "$out"
}

engines=(duktape)
[ -x "$build/beacon-sim-jerryscript" ] && engines+=(jerryscript)
for engine in "${engines[@]}"; do
	sim=beacon-sim suffix=''
	[ "$engine" = jerryscript ] && sim=beacon-sim-jerryscript suffix=_jerryscript
	for read in 0 1; do
		app "z$engine$read" 1 "$read" "$engine"
		app "n$engine$read" 60000 "$read" "$engine"
		read -r c0 r0 <<<"$(cg "$sim" "$work/z$engine$read.bapp" 61000)"
		read -r cn rn <<<"$(cg "$sim" "$work/n$engine$read.bapp" 61000)"
		name=scan_delivery_instructions
		[ "$read" = 1 ] && name+=_read
		echo "$name$suffix: $(( (cn - c0) / (rn - r0) )) instr/record ($((rn - r0)) records)"
	done
	app "lw$engine" 3000000 0 "$engine"
	read -r w0 r0 <<<"$(wall "$sim" "$work/z${engine}0.bapp" 3001000)"
	read -r wn rn <<<"$(wall "$sim" "$work/lw$engine.bapp" 3001000)"
	echo "scan_delivery_wall_us$suffix: $(awk -v d=$((wn - w0)) -v n=$((rn - r0)) 'BEGIN { printf "%.2f", d / n / 1000 }') us/record"
done
