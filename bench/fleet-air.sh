#!/usr/bin/env bash
# What the simulated BLE air costs in fleets (issue 36), one line per figure, "name: value unit".
# Host seconds per simulated hour, Release host build: the real time beacon-sim reports for its
# world ("ms real": boots and run, not node or the compile) for a long run minus that of the same
# world for 10 s (the boots), scaled to one hour. The cheap figures run longer (FLEET_FOR_LONG) so
# that the air, not the noise in the boots' time, is what is measured.
#
#  (a) 400 devices 10 m apart (all in each other's range), one in ten scanning all the time
#      (passive, no deduplication), the others advertising an iBeacon every second at -4 dBm: host
#      seconds per simulated hour, and the receptions the scanners' apps got per host second;
#  (b) the same 400 devices 20 km apart, beyond the 11 km that even +8 dBm reaches: host seconds
#      per simulated hour (what is heard by no one must cost close to nothing);
#  (c) 1000, 2000, 4000, 8000 devices 300 m apart (constant density), one in 500 scanning:
#      host seconds per simulated hour each, and per 1000 devices (flat when cost is linear),
#      and the ratio of the largest to the smallest per 1000 (1.00 when linear).
# Each figure for each engine (FLEET_ENGINES, default both), its name ending in the engine.
#
#   bash bench/fleet-air.sh                      build/bench (built here)
#   BEACON_HOST_BUILD=DIR bash bench/fleet-air.sh   another build (e.g. of an earlier commit)
#   FLEET_FOR=10m FLEET_FOR_LONG=1h bash bench/fleet-air.sh
#                      simulated time of (a) (default 1h) and of (b) and (c) (default 6h)
#   FLEET_ENGINES=duktape bash bench/fleet-air.sh     one engine
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${BEACON_HOST_BUILD:-}" ]; then
	build=build/bench
	cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$build" -j2 --target beacon-sim >/dev/null
	export BEACON_HOST_BUILD="$PWD/$build"
fi
for_=${FLEET_FOR:-1h}
for_long=${FLEET_FOR_LONG:-6h}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/adv.js" <<'JS'
ble.advertise(ble.build.iBeacon('f7826da64fa24e988024bc5b71e0893e', 1, 2, -59)).interval(1000).power(-4);
JS
# Counts what it hears and says so just before the run's end (FLEET_FOR minus a second).
cat > "$work/scan.js" <<'JS'
var heard = 0;
ble.startScan(function () { heard++; }, 0, { deduplicate: false, passive: true });
timers.single(__END__, function () { print('heard ' + heard); });
JS
ms() { node -e "const m=/^(\d+)(ms|s|m|h)$/.exec(process.argv[1]);console.log(m[1]*{ms:1,s:1e3,m:6e4,h:36e5}[m[2]])" "$1"; }
end_ms=$(( $(ms "$for_") - 1000 ))
sed -i "s/__END__/$end_ms/" "$work/scan.js"

# world NAME COUNT SPACING_M SCAN_EVERY: COUNT devices on a square grid SPACING_M apart, every
# SCAN_EVERY-th one (from the first) scanning, the others advertising.
world() {
	node -e '
const [name, count, spacing, every] = process.argv.slice(1).map((v, i) => (i ? Number(v) : v));
const side = Math.ceil(Math.sqrt(count));
const devices = [];
for (let i = 0; i < count; i++) {
  devices.push({ name: "d" + i, profile: "ble-beacon", app: i % every === 0 ? "scan.js" : "adv.js",
    position: { x: (i % side) * spacing, y: Math.floor(i / side) * spacing } });
}
require("fs").writeFileSync(name, JSON.stringify({ devices }));
' "$work/$1.json" "$2" "$3" "$4"
}

# run WORLD FOR: host seconds of the world's run (beacon-sim's "ms real"); the apps' output in
# $work/out.
run() {
	node bindings-ts/bin/beacon.js run --engine "$engine" --world "$work/$1.json" --for "$2" > "$work/out" 2> "$work/err" ||
		{ cat "$work/err" >&2; return 1; }
	sed -n 's/.* \([0-9]*\) ms real$/\1/p' "$work/err" | awk '{ printf "%.3f", $1 / 1000 }'
}

# per_hour WORLD FOR: host seconds per simulated hour of the air (a run of FOR minus its start).
per_hour() {
	local base full
	base=$(run "$1" 10s)
	full=$(run "$1" "$2")
	awk -v f="$full" -v b="$base" -v ms="$(ms "$2")" 'BEGIN { s = f - b; if (s < 0) s = 0; printf "%.3f", s * 3600000 / (ms - 10000) }'
}

world near 400 10 10
world far 400 20000 10
for n in 1000 2000 4000 8000; do world "size$n" "$n" 300 500; done

for engine in ${FLEET_ENGINES:-duktape jerryscript}; do
	e=_$engine
	s=$(per_hour near "$for_")
	heard=$(awk '/heard/ { n += $NF } END { print n + 0 }' "$work/out")
	echo "fleet_400_in_range_host_s_per_sim_hour$e: $s s"
	awk -v n="$heard" -v s="$s" -v ms="$end_ms" -v e="$e" 'BEGIN { h = s * (ms + 1000) / 3600000; printf "fleet_400_in_range_receptions_per_host_s%s: %.0f receptions/s\n", e, (h > 0 ? n / h : 0); printf "fleet_400_in_range_us_per_reception%s: %.2f us\n", e, (n > 0 ? h * 1e6 / n : 0) }'
	awk -v n="$heard" -v ms="$end_ms" -v e="$e" 'BEGIN { printf "fleet_400_in_range_receptions_per_sim_s%s: %.0f receptions/s\n", e, n / (ms / 1000) }'

	echo "fleet_400_out_of_range_host_s_per_sim_hour$e: $(per_hour far "$for_long") s"

	lo='' hi=''
	for n in 1000 2000 4000 8000; do
		s=$(per_hour "size$n" "$for_long")
		k=$(awk -v s="$s" -v n="$n" 'BEGIN { printf "%.3f", s * 1000 / n }')
		echo "fleet_${n}_devices_host_s_per_sim_hour$e: $s s"
		echo "fleet_${n}_devices_host_s_per_sim_hour_per_1000_devices$e: $k s"
		lo=${lo:-$k}
		hi=$k
	done
	awk -v lo="$lo" -v hi="$hi" -v e="$e" 'BEGIN { printf "fleet_8000_over_1000_per_device%s: %.2f x\n", e, (lo > 0 ? hi / lo : 0) }'
done
