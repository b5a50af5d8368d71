#!/usr/bin/env bash
# Figures of the firmware image on QEMU's emulated Cortex-M4 (mps2-an386), one a line:
#
#   qemu.duktape.boot_to_first_line: 8425000 instructions
#
# Instructions are counted by the image itself (SysTick under -icount shift=0: one nanosecond of
# virtual time per instruction, 40 instructions per tick), so every figure is exact to 40
# instructions and the same on every machine. Per-operation figures are differences of two runs
# that differ only in how many operations they do, so boot and the rest cancel out:
#   timer_callback    a 1 s repeat timer with an empty callback, 2000 s against 1000 s of device time
#   sys_getUptime     a loop of 4000 calls against the same loop with no call, per call
#   records_write     a 100-byte record written into the record store on the storage area
#                     (storage.save is not implemented yet: the store below it, measured directly)
#   boot_to_first_line  reset to the first print() of an app whose first statement prints
#   tracker_*         10,000 calls (Duktape: 1,000) of a tracker-shaped function from a runtime timer (the micro-app)
#                     against a plain loop (the bare engine), both less the same app's boot
# plus the image's flash and RAM by component (scripts/qemu-build.sh) and, per app of tests/apps
# with no world of several devices, the peak JS heap and the painted stack depth.
# At 64 MHz (nRF52840, nRF9160) 64,000 instructions are about 1 ms (the Cortex-M4 runs most
# instructions in one cycle; flash wait states make the real figure somewhat higher).
#
# With Duktape the boot splits by stage (instructions.boot.*, src/port/qemu/qemu_profile.h): the
# port and world before the engine, Duktape's heap with its built-ins, the runtime's Promise
# (promise.js compiled at each start), installing the API, running the package.
#   upload_*          `beacon upload` of a package over the emulated UART (beacon-qemu --listen,
#                     QEMU's pseudo-terminal), wall time of the CLI on this machine
#
# Usage: bench/qemu.sh [duktape|jerryscript]...  (default: duktape, and jerryscript when
# JERRYSCRIPT_DIR is set). BENCH_QEMU_APPS=0 skips the per-app figures. The nRF9160's Cortex-M33
# is measured on the Zephyr firmware on mps2/an521 instead (bench/firmware.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
engines=("$@")
if [ ${#engines[@]} -eq 0 ]; then
	engines=(duktape)
	[ -n "${JERRYSCRIPT_DIR:-}" ] && engines+=(jerryscript)
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
UTC=1767225600000
BOARD=mps2-an386
CPU=cortex-m4

# One run of the image on the board, with these arguments for beacon-qemu (the package last):
# run_image prints its stderr (the figures), qemu_stdout the app's output.
run_qemu() {
	local keep="$1" engine="$2"
	shift 2
	local args="enable=on,target=native,arg=beacon-qemu,arg=--utc,arg=$UTC"
	for a in "$@"; do args="$args,arg=$a"; done
	local qemu=(qemu-system-arm -machine "$BOARD" -cpu "$CPU" -nographic -monitor none -serial none
		-icount shift=0 -semihosting-config "$args" -kernel "build/qemu-$engine/beacon-qemu.elf")
	if [ "$keep" = stdout ]; then "${qemu[@]}" 2>/dev/null; else "${qemu[@]}" 2>&1 >/dev/null; fi
}
run_image() { run_qemu figures "$@"; }
qemu_stdout() { run_qemu stdout "$@"; }
figure_of() { sed -n "s/^\[beacon figure\] $1: \([0-9]*\) .*/\1/p" | tail -1; }
build_app() {
	local engine="$1" name="$2" src="$work/$2.js"
	cat >"$src"
	node bindings-ts/bin/beacon.js build "$src" --engine "$engine" -o "$work/$engine-$name.bapp" >/dev/null 2>"$work/build.log" ||
		{ cat "$work/build.log" >&2; exit 1; }
	echo "$work/$engine-$name.bapp"
}

for engine in "${engines[@]}"; do
	bash scripts/qemu-build.sh "$engine"
	name="$engine"

	pkg="$(build_app "$engine" first <<<"print('first line');")"
	boot="$(run_image "$engine" "$pkg")"
	echo "qemu.$name.boot_to_first_line: $(figure_of instructions.first_line <<<"$boot") instructions"
	for stage in before_engine engine_create engine_create.duk_heap engine_create.promise api_install package_run; do
		value="$(figure_of "instructions.boot.$stage" <<<"$boot")"
		[ -n "$value" ] && echo "qemu.$name.boot.$stage: $value instructions"
	done

	pkg="$(build_app "$engine" timer <<<"timers.repeat(1000, function () {});")"
	a="$(run_image "$engine" --for 1000000 "$pkg" | figure_of instructions.run)"
	b="$(run_image "$engine" --for 2000000 "$pkg" | figure_of instructions.run)"
	echo "qemu.$name.timer_callback: $(((b - a) / 1000)) instructions"

	pkg="$(build_app "$engine" uptime <<<"var t = 0; for (var i = 0; i < 4000; i++) { t += sys.getUptime(); } print(t >= 0);")"
	a="$(run_image "$engine" "$pkg" | figure_of instructions.run)"
	pkg="$(build_app "$engine" loop <<<"var t = 0; for (var i = 0; i < 4000; i++) { t += 0; } print(t >= 0);")"
	b="$(run_image "$engine" "$pkg" | figure_of instructions.run)"
	echo "qemu.$name.sys_getUptime: $(((a - b) / 4000)) instructions"

	# The tracker workload: 10,000 calls of a tracker-shaped callback (parse a position fix, filter
	# it, keep a track, make a report every 50th), once from a timer of the runtime and once from
	# a plain loop of the bare engine in the same image; the ratio is what the runtime adds.
	cat >"$work/tracker-body.js" <<'JS'
var track = [], last = null, moved = 0, reports = 0, seq = 0;
function rad(d) { return d * Math.PI / 180; }
function dist(a, b) {
  var dl = rad(b.lat - a.lat), dn = rad(b.lon - a.lon);
  var h = Math.sin(dl / 2) * Math.sin(dl / 2) + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dn / 2) * Math.sin(dn / 2);
  return 6371000 * 2 * Math.atan2(Math.sqrt(h), Math.sqrt(1 - h));
}
function fix(n) {
  var s = '$GPGGA,' + (120000 + n) + ',' + (4807.038 + n * 0.001).toFixed(3) + ',N,' + (1131.0 + n * 0.002).toFixed(3) + ',E,1,08,0.9,545.4,M';
  var f = s.split(',');
  var lat = parseFloat(f[2].slice(0, 2)) + parseFloat(f[2].slice(2)) / 60;
  var lon = parseFloat(f[4].slice(0, 3)) + parseFloat(f[4].slice(3)) / 60;
  return { lat: lat, lon: lon, alt: parseFloat(f[9]), sats: parseInt(f[7], 10) };
}
function work() {
  var p = fix(seq++);
  if (last !== null) {
    var d = dist(last, p);
    if (d > 1) { moved += d; track.push({ lat: p.lat, lon: p.lon }); if (track.length > 32) track.shift(); }
  }
  last = p;
  if (seq % 50 === 0) { var r = JSON.stringify({ n: seq, moved: Math.round(moved), track: track.slice(-4) }); reports += r.length > 0 ? 1 : 0; }
}
JS
	# Duktape runs a call in about 290 k instructions: 10,000 in one top level pass the runaway
	# guard's limit (the app is stopped as a runaway), so it makes 1,000 (the ratio is per call).
	calls=10000
	[ "$engine" = duktape ] && calls=1000
	echo "qemu.$name.tracker_calls: $calls calls"
	pkg="$(build_app "$engine" tracker-bare < <(cat "$work/tracker-body.js"; echo "for (var k = 0; k < $calls; k++) { work(); } print(reports);"))"
	bare="$(run_image "$engine" "$pkg" | figure_of instructions.run)"
	pkg="$(build_app "$engine" tracker-empty < <(cat "$work/tracker-body.js"; echo "print(reports);"))"
	empty="$(run_image "$engine" "$pkg" | figure_of instructions.run)"
	pkg="$(build_app "$engine" tracker-app < <(cat "$work/tracker-body.js"; echo "timers.count(1000, $calls, function () { work(); }).end().then(function () { print(reports); });"))"
	app="$(run_image "$engine" "$pkg" | figure_of instructions.run)"
	echo "qemu.$name.tracker_bare_engine: $((bare - empty)) instructions"
	echo "qemu.$name.tracker_micro_app: $((app - empty)) instructions"
	echo "qemu.$name.tracker_ratio: $(awk -v a="$((app - empty))" -v b="$((bare - empty))" 'BEGIN { printf "%.3f", a / b }') x"

	echo "qemu.$name.records_write_100_bytes: $(run_image "$engine" --bench-records 100 | figure_of records.write_100_bytes) instructions"
	# A scan record delivered to JS: a scripted iBeacon 2 m away advertising every 100 ms for 100 s,
	# an app scanning with a callback that counts, against the same app not scanning. The simulated
	# air's own work (reception on three channels) is inside the figure: it is the harness's share,
	# where a device spends the same in its Bluetooth controller.
	printf '%s\n' "beacon-world 1" "device 0 d lte-beacon" "utc $UTC" \
		"beacon tag 0.000000000,0.000017966,0 100 -12 0201061aff4c000215b9407f30f5f8466eaff925556b57fe6d00010002c5" \
		>"$work/scan.world"
	pkg="$(build_app "$engine" scan <<<"var n = 0; ble.startScan(function (r) { n++; }, 0); timers.single(99000, function () { print('records ' + n); });")"
	out="$(run_image "$engine" --world "$work/scan.world" --for 100000 "$pkg"; true)"
	a="$(figure_of instructions.run <<<"$out")"
	records="$(qemu_stdout "$engine" --world "$work/scan.world" --for 100000 "$pkg" | sed -n 's/^records \([0-9]*\)$/\1/p' | tail -1)"
	pkg="$(build_app "$engine" noscan <<<"var n = 0; timers.single(99000, function () { print('records ' + n); });")"
	b="$(run_image "$engine" --world "$work/scan.world" --for 100000 "$pkg" | figure_of instructions.run)"
	if [ -n "$records" ] && [ "$records" -gt 0 ]; then
		echo "qemu.$name.ble_scan_records: $records records"
		echo "qemu.$name.ble_scan_record: $(((a - b) / records)) instructions"
	else
		echo "qemu.$name.ble_scan_record: not measured (no record reached the app)" >&2
	fi

	# The upload over the emulated UART: the asset tracker's package into a listening image.
	pkg="$work/$engine-tracker.bapp"
	node bindings-ts/bin/beacon.js build examples/asset-tracker.ts --engine "$engine" -o "$pkg" >/dev/null 2>"$work/build.log" ||
		{ cat "$work/build.log" >&2; exit 1; }
	qemu-system-arm -machine "$BOARD" -cpu "$CPU" -nographic -monitor none -serial pty -icount shift=0 \
		-semihosting-config "enable=on,target=native,arg=beacon-qemu,arg=--listen,arg=--utc,arg=$UTC" \
		-kernel "build/qemu-$engine/beacon-qemu.elf" >"$work/listen.out" 2>&1 &
	listener=$!
	for _ in $(seq 100); do grep -q '^ready' "$work/listen.out" && break; sleep 0.1; done
	pty="$(sed -n 's/^char device redirected to \([^ ]*\) .*/\1/p' "$work/listen.out")"
	up="$(node bindings-ts/bin/beacon.js upload "$pkg" --device "serial:$pty" 2>&1 || true)"
	kill "$listener"
	wait "$listener" 2>/dev/null || true
	echo "qemu.$name.upload_bytes: $(stat -c %s "$pkg") bytes"
	echo "qemu.$name.upload_time: $(sed -n 's/.* in \([0-9.]*\) s (.*/\1/p' <<<"$up" | tail -1) s"

	[ "${BENCH_QEMU_APPS:-1}" = 0 ] && continue
	for app in tests/apps/*.ts; do
		app_name="$(basename "$app" .ts)"
		world="$(sed -n 's#^// world: ##p' "$app")"
		args=()
		if [ -n "$world" ]; then
			if [ "$(node -e 'console.log((JSON.parse(require("fs").readFileSync(process.argv[1])).devices||[{}]).length)' "tests/apps/$world")" -gt 1 ]; then
				continue
			fi
		fi
		run="$(sed -n 's#^// run: ##p' "$app")"
		api="$(grep -o -- '--api [0-9.]*' <<<"$run" || true)"
		# shellcheck disable=SC2086
		node bindings-ts/bin/beacon.js build "$app" --engine "$engine" $api -o "$work/app.bapp" >/dev/null 2>&1 || continue
		[ -n "$world" ] && args+=(--world "$ROOT/tests/apps/$world")
		# shellcheck disable=SC2086
		out="$(node bindings-ts/bin/beacon.js run "$work/app.bapp" --target qemu --utc "$UTC" $run "${args[@]}" 2>&1 >/dev/null || true)"
		echo "qemu.$name.app.$app_name.js_heap_peak: $(figure_of js_heap.peak <<<"$out") bytes"
		echo "qemu.$name.app.$app_name.stack_peak: $(figure_of stack.peak <<<"$out") bytes"
	done
done
