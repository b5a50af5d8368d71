#!/usr/bin/env bash
# The energy model (docs/world.md, "Energy"), one line per figure, "name: value unit":
#
#  - each example's average current over a simulated day with its scenario, the battery life it
#    projects for the profile's battery, and its largest consumer (beacon run --energy --json);
#  - what the model costs the simulator: instructions (callgrind, Release host build) of the asset
#    tracker's 24 h run with --energy against the same run by the simulator without the model,
#    built from the commit before it (BASE, default a6366c3) in a scratch worktree.
#
#   bash bench/energy.sh [BASE]
set -euo pipefail
cd "$(dirname "$0")/.."
base="${1:-a6366c3}"
bash scripts/setup.sh >/dev/null
build=build/bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target beacon-sim >/dev/null
export BEACON_HOST_BUILD="$PWD/$build"
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# ---------------------------------------------------------------- the examples' figures
report() { # NAME APP [ARGS...]
	local name="$1" app="$2"
	shift 2
	node bindings-ts/bin/beacon.js run "$app" --for 1d --cloud loopback --energy --json "$@" 2>"$work/err" >"$work/out" || {
		cat "$work/err" >&2; exit 1; }
	node -e '
const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).devices[0];
const top = r.rows[0];
const life = r.lifeDays >= 730 ? (r.lifeDays / 365).toFixed(1) + " years" : Math.round(r.lifeDays) + " days";
console.log(`${process.argv[2]}_avg_current: ${(r.avgMa * 1000).toFixed(1)} uA (${r.profile}, ${life} on ${r.capacityMah} mAh; largest: ${top.what}, ${(top.share * 100).toFixed(0)}%)`);
' "$work/out" "$name"
}
report asset_tracker examples/asset-tracker.ts --world tests/examples/asset-tracker.world.json
report telemetry examples/telemetry.ts --world tests/examples/telemetry.world.json
report cloud_report examples/cloud-report.ts --world examples/cloud-report.world.json
report button_led examples/button-led.ts --world examples/button-led.world.json
report timers examples/timers.ts
report hello examples/hello.ts

# ---------------------------------------------------------------- what the model costs
node bindings-ts/bin/beacon.js build examples/asset-tracker.ts --engine duktape -o "$work/tracker.bapp" >/dev/null 2>&1
node -e "
const s = require('./bindings-ts/dist/src/world/scenario.js');
process.stdout.write(s.lowerScenario(s.loadScenario('tests/examples/asset-tracker.world.json'), 'tests/examples/asset-tracker.world.json').script);
" >"$work/world.script"
git worktree add --detach "$work/base" "$base" >/dev/null 2>&1
cmake -S "$work/base" -B "$work/base-build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/base-build" -j2 --target beacon-sim >/dev/null
args=(--for 86400000 --cloud loopback --world "$work/world.script")
without=$(bash bench/callgrind.sh "$work/base-build/beacon-sim" "${args[@]}" "$work/tracker.bapp")
with=$(bash bench/callgrind.sh "$build/beacon-sim" "${args[@]}" --energy "$work/energy.jsonl" "$work/tracker.bapp")
echo "tracker_day_instructions_without_model: $without"
echo "tracker_day_instructions_with_energy: $with"
echo "tracker_day_energy_overhead: $(echo "scale=2; ($with - $without) * 100 / $without" | bc) %"
