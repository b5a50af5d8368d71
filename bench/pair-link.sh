#!/usr/bin/env bash
# The LTE beacon's two chips on BabbleSim (docs/firmware.md, "The LTE beacon in simulation"):
# wall time per simulated time. One line per figure:
#
#   pair_tracker_wall_s_per_sim_hour   tests/examples/asset-tracker-synced.ts for 1 h on the pair,
#                                      six tag firmwares on the air, three syncs over TLS with the
#                                      run's cloud (beacon run --target bsim --air radio), whole run
#   pair_link_minute_wall_s            the pair alone (the asset tracker: one 8 s scan, then idle;
#                                      the tags in the host chip's model of the air) for 60 s of
#                                      simulated time, joined by uart_link_runner.c
#   pair_fifo_minute_wall_s            the same joined by nrf_hw_models' FIFO backend
#                                      (-uart1_fifob_*), which Zephyr's hci_uart tests use
#   pair_gnss_wall_s_per_sim_hour      an app that takes a fix a second (tests/apps/location-walk's
#                                      world) for 10 min on the pair, each fix's RMC and GGA through
#                                      uart0 and Zephyr's NMEA driver, whole run
#
# Wall times are this machine's (noisy: compare within one run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
source scripts/lib/workspace.sh
beacon_ws_require zephyr jerryscript bsim
bash scripts/firmware.sh nrf52_bsim --engine jerryscript --hci-uart >/dev/null
bash scripts/firmware.sh nrf52_bsim --controller >/dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
beacon="node bindings-ts/bin/beacon.js"
$beacon build tests/examples/asset-tracker-synced.ts --engine jerryscript -o "$work/tracker.bapp" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
world=tests/examples/asset-tracker.world.json

start=$(date +%s.%N)
$beacon run "$work/tracker.bapp" --world "$world" --target bsim --air radio --for 1h --utc 1767225600000 >/dev/null 2>"$work/run.err"
grep -q "events stored" "$work/run.err" || { cat "$work/run.err" >&2; exit 1; }
echo "pair_tracker_wall_s_per_sim_hour: $(echo "$(date +%s.%N) - $start" | bc | xargs printf '%.1f') s"

node -e "
const s = require('./bindings-ts/dist/src/world/scenario.js');
process.stdout.write(s.lowerScenario(s.loadScenario('$world'), '$world').script);
" >"$work/world.script"
host=build/zephyr/nrf52_bsim-jerryscript-hci-uart/zephyr/zephyr.exe
controller=build/zephyr/nrf52_bsim-hci-controller/zephyr/zephyr.exe
# pair NAME OPTION-PREFIX: the two chips for 60 s, their uart1 joined by the given backend.
pair() {
	local id="pairbench$$$1" link="$work/$1" t0
	t0=$(date +%s.%N)
	(cd "$BSIM_OUT_PATH/bin" && ./bs_2G4_phy_v1 -s="$id" -D=1 -sim_length=62e6 -nodump >/dev/null 2>&1) &
	"$controller" -s="$id" -d=0 "-$2rxfile=$link.down" "-$2txfile=$link.up" >/dev/null 2>&1 &
	"$host" -s="$id" -d=1 -nosim "-$2rxfile=$link.up" "-$2txfile=$link.down" \
		"-beacon_args=--stdout $work/$1.out --stderr $work/$1.err --world $work/world.script --play 0 --air radio --for 60000 --cloud loopback $work/tracker.bapp" >/dev/null 2>&1
	wait
	grep -q "^@8000 round 1: 3 assets" "$work/$1.out" || { cat "$work/$1.out" "$work/$1.err" >&2; exit 1; }
	echo "$(date +%s.%N) - $t0" | bc | xargs printf '%.1f'
}
echo "pair_link_minute_wall_s: $(pair link uart_link_) s"
echo "pair_fifo_minute_wall_s: $(pair fifo uart1_fifob_) s"

echo "location.startUpdates(function (p) { print(p.ts + ' ' + p.lat); }, { minInterval: 1 });" >"$work/fixes.js"
$beacon build "$work/fixes.js" --engine jerryscript -o "$work/fixes.bapp" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
start=$(date +%s.%N)
$beacon run "$work/fixes.bapp" --world tests/apps/location-walk.world.json --target bsim --air radio --for 10m >"$work/fixes.out" 2>"$work/fixes.err"
[ "$(wc -l <"$work/fixes.out")" -ge 590 ] || { cat "$work/fixes.out" "$work/fixes.err" >&2; exit 1; }
echo "pair_gnss_wall_s_per_sim_hour: $(echo "($(date +%s.%N) - $start) * 6" | bc | xargs printf '%.1f') s"
