#!/usr/bin/env bash
# The warehouse of issue 36, one line per figure ("name: value unit"), both engines, Release host
# build: 9,900 tags on a 10 m grid, each running one of 300 tag apps (an iBeacon every second at
# -4 dBm, the app's own major), and 100 trackers running examples/asset-tracker.ts (an 8 s passive
# scan every 5 minutes), placed over the floor; the tags boot over 5 s, the trackers over 2 s.
#
#  - warehouse_build_s: `beacon run` building the 301 apps (each once) until the simulator starts;
#  - warehouse_boot_s_<engine>: the simulator's real time for 10 s of device time (the boots);
#  - warehouse_s_per_sim_hour_<engine>: its real time for WAREHOUSE_FOR (default 1h) less the
#    boots, per simulated hour; warehouse_day_s_<engine>: the boots plus 24 such hours;
#  - warehouse_peak_mb_<engine>, warehouse_receptions_per_sim_hour_<engine>: from the run's
#    closing summary.
#
#   bash bench/warehouse.sh
#   WAREHOUSE_FOR=24h bash bench/warehouse.sh      (the whole day, measured rather than scaled)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
source scripts/lib/workspace.sh
build=build/bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${JERRYSCRIPT_DIR:+-DJERRYSCRIPT_DIR="$JERRYSCRIPT_DIR"} >/dev/null
engines=(duktape)
targets=(beacon-sim beacon-pack)
if [ -n "${JERRYSCRIPT_DIR:-}" ]; then
	engines+=(jerryscript)
	targets+=(beacon-sim-jerryscript beacon-pack-jerryscript)
fi
cmake --build "$build" -j2 --target "${targets[@]}" >/dev/null
export BEACON_HOST_BUILD="$PWD/$build"
for_=${WAREHOUSE_FOR:-1h}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp examples/asset-tracker.ts "$work/"
node -e '
const fs = require("fs");
const dir = process.argv[1];
const apps = [];
for (let a = 0; a < 300; a++) {
  fs.writeFileSync(`${dir}/tag${a}.ts`,
    `ble.advertise(ble.build.iBeacon("f7826da64fa24e988024bc5b71e0893e", ${a + 1}, 1, -59)).interval(1000).power(-4);\n`);
  apps.push(`tag${a}.ts`);
}
const world = {
  origin: { lat: 48.1372, long: 11.5756 }, utc: "2026-01-01T08:00:00Z", seed: 7,
  groups: [
    { name: "tag", count: 9900, profile: "ble-beacon", apps, heap: 32768,
      grid: { x: 0, y: 0, spacing: 10, columns: 300 }, start: { spread: "5s" } },
    { name: "tracker", count: 100, profile: "lte-beacon", app: "asset-tracker.ts",
      area: { x: 0, y: 0, width: 2990, height: 320 }, start: { spread: "2s" } },
  ],
};
fs.writeFileSync(`${dir}/warehouse.json`, JSON.stringify(world));
' "$work"

# run ENGINE FOR: the simulator's "ms real" and the closing summary's peak MB and receptions.
run() {
	node bindings-ts/bin/beacon.js run --engine "$1" --world "$work/warehouse.json" --for "$2" --cloud loopback 2>&1 >/dev/null |
		node -e '
let t = ""; process.stdin.on("data", (d) => (t += d)).on("end", () => {
  const real = /after [\d.]+ s of device time, (\d+) ms real/.exec(t);
  const mem = /memory: (\d+) MB at the peak.*, (\d+) receptions/.exec(t);
  if (!real || !mem) { process.stderr.write(t.slice(-2000)); process.exit(1); }
  console.log(real[1], mem[1], mem[2]);
});'
}
ms() { node -e "const m=/^(\d+)(s|m|h)$/.exec(process.argv[1]);console.log(m[1]*{s:1e3,m:6e4,h:36e5}[m[2]])" "$1"; }
hours=$(node -e "console.log($(ms "$for_") / 3600000)")

start=$(date +%s%N)
node bindings-ts/bin/beacon.js run --world "$work/warehouse.json" --for 1s --cloud loopback >/dev/null 2>&1
echo "warehouse_build_s: $(node -e "console.log(((Number('$(date +%s%N)') - $start) / 1e9).toFixed(1))") s"
for e in "${engines[@]}"; do
	read -r boot_ms _ _ < <(run "$e" 10s)
	read -r real_ms peak rx < <(run "$e" "$for_")
	per_hour=$(node -e "console.log((($real_ms - $boot_ms) / 1000 / $hours).toFixed(1))")
	echo "warehouse_boot_s_$e: $(node -e "console.log(($boot_ms / 1000).toFixed(1))") s"
	echo "warehouse_s_per_sim_hour_$e: $per_hour s"
	echo "warehouse_day_s_$e: $(node -e "console.log(($boot_ms / 1000 + 24 * $per_hour).toFixed(0))") s"
	echo "warehouse_peak_mb_$e: $peak MB"
	echo "warehouse_receptions_per_sim_hour_$e: $(node -e "console.log(Math.round($rx / $hours))")"
done
