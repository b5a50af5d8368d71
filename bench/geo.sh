#!/usr/bin/env bash
# Benchmarks of the location, NFC and UWB modules, one line per figure, "name: value unit":
#
#  - Instructions per operation (callgrind, x86-64, the host build in Release): a run of N
#    operations less the same run with none (bench/geo_bench.c), divided by N. Distances over
#    lines up to 10 km (what location.distance and diff see), over random lines anywhere, and near
#    the antipode (where Vincenty gives way to the bisection); the haversine formula for scale;
#    one destination point; one location filter step (a fix with minDistance in force); one GNSS
#    track fix; encoding and decoding of a 3-record NDEF message; one UWB measurement.
#  - Cortex-M4 code size of each module (arm-none-eabi-gcc -Os, the flags of
#    scripts/cross-compile.sh), without the C library's soft double arithmetic they share.
#
#   bash bench/geo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# The include directories by folder, as the builds have them (src/sources.cmake).
source scripts/lib/src.sh
mapfile -t includes < <(beacon_include_flags)
bash scripts/setup.sh >/dev/null
build=build/bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target beacon-bench-geo >/dev/null

n=20000
cg() { bash bench/callgrind.sh "$build/beacon-bench-geo" "$1" "$2"; }
loop=$(cg loop $n)
per() { echo $((($(cg "$1" $n) - loop) / n)); }
echo "geo_distance_10km_instructions: $(per distance_short) instr/call"
echo "geo_distance_anywhere_instructions: $(per distance_global) instr/call"
echo "geo_distance_near_antipode_instructions: $(per distance_antipodal) instr/call"
echo "geo_haversine_instructions: $(per haversine) instr/call"
echo "geo_destination_instructions: $(per destination) instr/call"
echo "location_filter_step_instructions: $(per filter_step) instr/step"
echo "gnss_track_fix_instructions: $(per gnss_fix) instr/call"
echo "ndef_encode_3_records_instructions: $(per ndef_encode) instr/message"
echo "ndef_decode_3_records_instructions: $(per ndef_decode) instr/message"
echo "uwb_measure_instructions: $(per uwb_measure) instr/call"

cc=arm-none-eabi-gcc
if command -v "$cc" >/dev/null 2>&1; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	flags=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 --specs=nano.specs -Os
		-std=gnu11 -ffunction-sections -fdata-sections -Wall -Wextra -Werror -Wno-unused-parameter
		"${includes[@]}")
	# A module's figure is the sum of its files (rt_ndef: encoder, decoder, TLVs).
	for paths in location/rt_geo location/rt_gnss_track location/rt_location_filter \
		"nfc/rt_ndef nfc/rt_ndef_decode nfc/rt_ndef_tlv" uwb/rt_uwb_model; do
		module="${paths%% *}"
		module="${module##*/}"
		objs=()
		for path in $paths; do
			"$cc" "${flags[@]}" -c "src/runtime/$path.c" -o "$work/${path##*/}.o"
			objs+=("$work/${path##*/}.o")
		done
		echo "${module}.text: $(arm-none-eabi-size "${objs[@]}" | awk 'NR > 1 { t += $1 } END { print t }') bytes"
	done
fi
