#!/usr/bin/env bash
# Benchmarks of the cloud's device side, one line per figure, "name: value unit":
#
#  - Instructions (callgrind, x86-64, the simulator on Duktape) per cloud.enqueue of a 200-byte
#    object, non-volatile: JSON.stringify in the engine, the JSON -> CBOR transcoding and the
#    flash record write. (count(app enqueueing N) - count(app enqueueing 0)) / N, no sync.
#  - Bytes on the wire per event of an upload batch of 1, 10 and 32 events of 200-byte payloads,
#    MQTT PUBLISH framing included, TLS not (bench/cloud_device_bench.c).
#  - Instructions (callgrind, Duktape) to make a message's 200-byte payload the app's value:
#    straight from the CBOR, as the device does, and through a JSON text and JSON.parse, as it did
#    before (bench/cloud_message_bench.c). (count(N) - count(0)) / N.
#
#   bash bench/cloud_device.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# The include directories by folder, as the builds have them (src/sources.cmake).
source scripts/lib/src.sh
mapfile -t includes < <(beacon_include_flags)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build=${BUILD_DIR:-build/host}
[ -x "$build/beacon-sim" ] || { echo "build the host first (cmake --build $build)" >&2; exit 1; }

app() { # n
	cat >"$work/enqueue$1.js" <<JS
var payload = { id: 'sensor-0001', t: 21.5, samples: [1, 2, 3, 4, 5, 6, 7, 8], note: '$(printf 'x%.0s' $(seq 1 133))' };
for (var i = 0; i < $1; i++) cloud.enqueue('temp', payload, { volatile: false });
JS
	node bindings-ts/bin/beacon.js build "$work/enqueue$1.js" -o "$work/enqueue$1.bapp" >/dev/null 2>&1
}
n=200
app 0
app "$n"
size=$(node -e "const p={id:'sensor-0001',t:21.5,samples:[1,2,3,4,5,6,7,8],note:'x'.repeat(133)};console.log(JSON.stringify(p).length)")
cg() { bash bench/callgrind.sh "$build/beacon-sim" --for 1000 --cloud none "$1"; }
base=$(cg "$work/enqueue0.bapp")
full=$(cg "$work/enqueue$n.bapp")
echo "cloud_enqueue_${size}B_json_instructions: $(((full - base) / n)) instr/enqueue"

cc -std=gnu11 -O2 -Wall -Wextra -Werror "${includes[@]}" bench/cloud_device_bench.c \
	src/runtime/cloud/rt_cloud_proto.c src/runtime/util/rt_cbor.c -lm -o "$work/cloud-bench"
"$work/cloud-bench"

cc -std=gnu11 -O2 -Wall -Wextra -Werror "${includes[@]}" \
	bench/cloud_message_bench.c -o "$work/message-bench" -Wl,--start-group \
	"$build/libbeacon_port_host.a" "$build/libbeacon_world.a" "$build/libbeacon_runtime.a" \
	"$build/libbeacon_engine_duktape.a" -Wl,--end-group -lz -lmbedcrypto -lm -lmosquitto
for mode in direct json; do
	m0=$(bash bench/callgrind.sh "$work/message-bench" "$mode" 0)
	m1=$(bash bench/callgrind.sh "$work/message-bench" "$mode" 1000)
	echo "cloud_message_200B_payload_${mode}_instructions: $(((m1 - m0) / 1000)) instr/message"
done
