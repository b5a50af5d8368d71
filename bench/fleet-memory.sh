#!/usr/bin/env bash
# Memory per device of a fleet in the host simulator, both engines, one line per figure
# ("name: value unit"): worlds of 1,000 and 2,000 idle devices (a small app with one timer), the
# process's peak resident size from the run's closing summary; a device's cost is the
# difference over the extra 1,000 devices (the process's own memory drops out), and of it the JS
# heap's own count (Duktape: every block with its built-ins; JerryScript: the allocated part of
# its heap area). "beyond_heap" is what the device costs besides its heap's use: the issue's
# goal is at most 96 KB.
#
#   bash bench/fleet-memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "timers.repeat('1 min', () => {});" > "$work/idle.ts"
for n in 1000 2000; do
	node -e "
const devices = Array.from({ length: $n }, (_, i) => ({ name: 'd' + i, profile: 'ble-beacon', app: 'idle.ts' }));
require('fs').writeFileSync('$work/w$n.json', JSON.stringify({ devices }));"
done
# "memory: P MB at the peak, K KB a device (its JS heap H KB of it)": P and H.
summary() {
	node bindings-ts/bin/beacon.js run --engine "$1" --world "$work/w$2.json" --for 1min 2>&1 >/dev/null |
		sed -n 's/.*memory: \([0-9]*\) MB at the peak, [0-9]* KB a device (its JS heap \([0-9]*\) KB.*/\1 \2/p'
}
for engine in duktape jerryscript; do
	read -r peak1 _ < <(summary "$engine" 1000)
	read -r peak2 heap < <(summary "$engine" 2000)
	per=$(((peak2 - peak1) * 1024 / 1000))
	echo "fleet_idle_device_kb_$engine: $per KB"
	echo "fleet_idle_device_js_heap_kb_$engine: $heap KB"
	echo "fleet_idle_device_beyond_heap_kb_$engine: $((per - heap)) KB"
done
