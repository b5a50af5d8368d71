#!/usr/bin/env bash
# Upload benchmarks: one line per figure, "name: value unit".
#
#   bash bench/upload.sh
#
# The asset-tracker example (`beacon build examples/asset-tracker.ts`) is uploaded and installed
# with the SMP client (bindings-ts/src/smp, what `beacon upload` runs) to beacon-smp-testd:
#   upload_udp_*       over UDP on loopback (one SMP packet per datagram);
#   upload_serial_*    over a pseudo-terminal with the SMP serial framing, at a simulated
#                      115200 baud: the server sleeps 10/115200 s for every byte it reads and
#                      every byte it writes (8N1: 10 bits a byte), so a request and its answer
#                      take as long as on a UART at that rate; the client writes at once, as a
#                      host's USB-serial adapter would buffer.
# Times are wall clock of upload plus install (the client's process start and the build are not
# counted). Wire bytes are all bytes both ways: SMP packets for UDP; frames (markers, base64,
# length, CRC16, newlines) for serial.
#
# BLE is extrapolated, not measured (no adapter here): the same requests (same device buffer,
# so the same chunks) over a 247-byte ATT MTU, 244 bytes of SMP per Write Without Response, at
# BEACON_BLE_INTERVAL_MS (default 15 ms, the shortest interval phones usually grant) and
# BEACON_BLE_PACKETS_PER_INTERVAL (default 4 writes per connection event, a 2M PHY with data
# length extension). Each request takes ceil(writes / per-event) connection events, and its
# answer (a notification) one more event, since the client waits for it before the next chunk.
#
# The same upload to `beacon sim --listen` (beacon-sim --listen, a simulated device running its
# world in real time; the install verifies the package, stops the running app and starts the new
# one): listen_upload_udp_* over UDP, listen_upload_serial_115200_* over its pseudo-terminal at a
# simulated 115200 baud (the same 10/115200 s per byte both ways as above). Times include the
# device's switch to the app (engine start and the app's top level).
#
# The device's side: instructions (callgrind, x86-64) that rt_smp_handle takes per 933-byte
# upload chunk, and with the serial framing (decoding the request's frames byte by byte and
# framing the answer) — bench/smp_server.c; and the Cortex-M4 code size (-Os, newlib-nano) of
# rt_cbor, rt_smp and rt_smp_serial.
set -euo pipefail
cd "$(dirname "$0")/.."
# The include directories by folder, as the builds have them (src/sources.cmake).
source scripts/lib/src.sh
mapfile -t includes < <(beacon_include_flags)
bash scripts/setup.sh >/dev/null
build=build/bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target beacon-pack beacon-sim beacon-smp-testd beacon-bench-smp >/dev/null
export BEACON_HOST_BUILD="$PWD/$build"
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

node bindings-ts/bin/beacon.js build examples/asset-tracker.ts -o "$work/app.bapp" >/dev/null 2>"$work/build.log" ||
	{ cat "$work/build.log" >&2; exit 1; }

# Start a server; its stdout lines (pty:, udp:, ready) go to $work/<name>.out. SERVER is the
# program (default beacon-smp-testd).
start() {
	local name=$1; shift
	${SERVER:-"$build/beacon-smp-testd"} "$@" >"$work/$name.out" 2>"$work/$name.err" &
	pids+=($!)
	for _ in $(seq 100); do
		grep -q '^ready$' "$work/$name.out" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "${SERVER:-beacon-smp-testd} did not start: $(cat "$work/$name.err")" >&2
	exit 1
}

# Upload and install once; prints "ms requests chunk sent received ble_ms", where ble_ms is the
# BLE estimate for exactly these requests (see above).
measure() {
	node - "$1" "$work/app.bapp" "$interval" "$per_event" <<'EOF'
const fs = require('fs');
const smp = require('./bindings-ts/dist/src/smp');
(async () => {
  const [device, file, interval, perEvent] = process.argv.slice(2);
  const data = new Uint8Array(fs.readFileSync(file));
  const transport = await smp.openDevice(smp.parseDevice(device));
  // Connection events each request would take on BLE: its writes, then the answer.
  let bleEvents = 0;
  const send = transport.send.bind(transport);
  transport.send = (packet) => {
    const writes = Math.ceil(packet.length / 244);
    bleEvents += Math.ceil(writes / Number(perEvent)) + 1;
    return send(packet);
  };
  const client = new smp.SmpClient(transport, { timeoutMs: 5000, retries: 2 });
  const t0 = process.hrtime.bigint();
  const r = await smp.uploadPackage(client, data);
  await smp.installPackage(client, data);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const s = transport.stats;
  console.log(`${ms.toFixed(1)} ${client.requests} ${r.chunkSize} ${s.sent} ${s.received} ${bleEvents * Number(interval)}`);
  await client.close();
})().catch((e) => { console.error(e.message); process.exit(1); });
EOF
}

interval=${BEACON_BLE_INTERVAL_MS:-15}
per_event=${BEACON_BLE_PACKETS_PER_INTERVAL:-4}

pkg_bytes=$(stat -c %s "$work/app.bapp")
echo "upload_package_bytes: $pkg_bytes bytes"

start udp --no-pty --udp-port 0
port=$(sed -n 's/^udp: .*:\([0-9]*\)$/\1/p' "$work/udp.out")
read -r ms requests chunk sent received ble_ms < <(measure "udp:127.0.0.1:$port")
echo "upload_udp_time: $ms ms"
echo "upload_udp_requests: $requests requests"
echo "upload_udp_chunk: $chunk bytes"
echo "upload_udp_wire_bytes: $((sent + received)) bytes"
echo "upload_udp_wire_per_package: $(awk -v w=$((sent + received)) -v p="$pkg_bytes" 'BEGIN { printf "%.3f", w / p }') x"

start serial --no-udp --baud 115200
pty=$(sed -n 's/^pty: //p' "$work/serial.out")
read -r ms s_requests s_chunk s_sent s_received _ < <(measure "serial:$pty")
wire=$((s_sent + s_received))
echo "upload_serial_115200_time: $(awk -v m="$ms" 'BEGIN { printf "%.2f", m / 1000 }') s"
echo "upload_serial_115200_line_time: $(awk -v w=$wire 'BEGIN { printf "%.2f", w * 10 / 115200 }') s"
echo "upload_serial_wire_bytes: $wire bytes"
echo "upload_serial_wire_per_package: $(awk -v w=$wire -v p="$pkg_bytes" 'BEGIN { printf "%.3f", w / p }') x"
echo "upload_serial_throughput: $(awk -v m="$ms" -v p="$pkg_bytes" 'BEGIN { printf "%.0f", p / (m / 1000) }') bytes/s"

# BLE: the UDP run's requests (their SMP bytes are the BLE payload) over the assumed link.
echo "ble_assumed_att_mtu: 247 bytes"
echo "ble_assumed_connection_interval: $interval ms"
echo "ble_assumed_writes_per_interval: $per_event writes"
echo "ble_247_upload_estimate: $(awk -v m="$ble_ms" 'BEGIN { printf "%.2f", m / 1000 }') s"
echo "ble_247_throughput_estimate: $(awk -v m="$ble_ms" -v p="$pkg_bytes" 'BEGIN { printf "%.0f", p / (m / 1000) }') bytes/s"

# beacon sim --listen: the simulated device.
SERVER="$build/beacon-sim --listen" start listen-udp --no-pty --udp-port 0
port=$(sed -n 's/^udp: .*:\([0-9]*\)$/\1/p' "$work/listen-udp.out")
read -r ms requests _ sent received _ < <(measure "udp:127.0.0.1:$port")
echo "listen_upload_udp_time: $ms ms"
echo "listen_upload_udp_requests: $requests requests"
echo "listen_upload_udp_wire_per_package: $(awk -v w=$((sent + received)) -v p="$pkg_bytes" 'BEGIN { printf "%.3f", w / p }') x"

SERVER="$build/beacon-sim --listen" start listen-serial --no-udp --baud 115200
pty=$(sed -n 's/^pty: //p' "$work/listen-serial.out")
read -r ms _ _ s_sent s_received _ < <(measure "serial:$pty")
wire=$((s_sent + s_received))
echo "listen_upload_serial_115200_time: $(awk -v m="$ms" 'BEGIN { printf "%.2f", m / 1000 }') s"
echo "listen_upload_serial_wire_bytes: $wire bytes"
echo "listen_upload_serial_wire_per_package: $(awk -v w=$wire -v p="$pkg_bytes" 'BEGIN { printf "%.3f", w / p }') x"

# Device cost per chunk.
n=200
loop=$(bash bench/callgrind.sh "$build/beacon-bench-smp" loop $n)
up=$(bash bench/callgrind.sh "$build/beacon-bench-smp" upload $n)
ser=$(bash bench/callgrind.sh "$build/beacon-bench-smp" serial $n)
echo "smp_upload_chunk_instructions: $(( (up - loop) / n )) instr/chunk"
echo "smp_serial_upload_chunk_instructions: $(( (ser - loop) / n )) instr/chunk"

if command -v arm-none-eabi-gcc >/dev/null 2>&1; then
	total=0
	# A module's figure is the sum of its files (rt_smp: the dispatch and the upload groups).
	for paths in util/rt_cbor "smp/rt_smp smp/rt_smp_upload" smp/rt_smp_serial; do
		m="${paths%% *}"
		m="${m##*/}"
		objs=()
		for path in $paths; do
			arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 --specs=nano.specs \
				-Os -std=gnu11 -ffunction-sections "${includes[@]}" -c "src/runtime/$path.c" -o "$work/${path##*/}.o"
			objs+=("$work/${path##*/}.o")
		done
		text=$(arm-none-eabi-size "${objs[@]}" | awk 'NR > 1 { t += $1 + $2 } END { print t }')
		echo "${m}_cortex_m4_text: $text bytes"
		total=$((total + text))
	done
	echo "smp_cortex_m4_text: $total bytes"
else
	echo "smp_cortex_m4_text: skipped (arm-none-eabi-gcc not found)"
fi
