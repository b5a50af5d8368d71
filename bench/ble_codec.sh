#!/usr/bin/env bash
# Benchmarks of the BLE packet codec (src/runtime/ble/rt_ble_ad.c, rt_ble_beacon.c), one line per
# figure, "name: value unit":
#
#  - Instructions per operation (callgrind, x86-64, the host build in Release) on a typical
#    iBeacon, 30 bytes of advertising data (see bench/ble_codec.c): decoding it, decoding and
#    parsing it (ble.parse below the engine), encoding its fields (each advertisement of a fixed
#    packet), building and encoding it (ble.build.iBeacon). Each figure is
#    (count(mode) - count(loop)) / N.
#  - Size for Cortex-M4 at -Os with Debian's arm-none-eabi-gcc (the flags of
#    scripts/cross-compile.sh): code and read-only data of each of the two objects, and the
#    bytes of the structs a caller keeps on its stack (rt_ble_ad_t, rt_ble_parsed_t).
#
#   bash bench/ble_codec.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# The include directories by folder, as the builds have them (src/sources.cmake).
source scripts/lib/src.sh
mapfile -t includes < <(beacon_include_flags)
bash scripts/setup.sh >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ------------------------------------------------------------------ instructions per operation

build=build/bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target beacon-bench-ble >/dev/null
n=100000
cg() { bash bench/callgrind.sh "$build/beacon-bench-ble" "$1" "$n"; }
loop=$(cg loop)
per() { echo $((($(cg "$1") - loop) / n)); }
echo "ble_decode_ibeacon_instructions: $(per decode) instr/packet"
echo "ble_decode_parse_ibeacon_instructions: $(per decode_parse) instr/packet"
echo "ble_encode_ibeacon_instructions: $(per encode) instr/packet"
echo "ble_build_encode_ibeacon_instructions: $(per build_encode) instr/packet"

# ------------------------------------------------------------------ Cortex-M4 size

cc=arm-none-eabi-gcc
flags=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 --specs=nano.specs -Os
	-std=gnu11 -ffunction-sections -fdata-sections -Wall -Wextra -Werror -Wno-unused-parameter
	"${includes[@]}")
# A module's figure is the sum of its files (rt_ble_beacon: the builders and the parser).
for mod in rt_ble_ad "rt_ble_beacon rt_ble_beacon_parse"; do
	objs=()
	for file in $mod; do
		"$cc" "${flags[@]}" -c "src/runtime/ble/$file.c" -o "$work/$file.o"
		objs+=("$work/$file.o")
	done
	echo "${mod%% *}.text: $(arm-none-eabi-size "${objs[@]}" | awk 'NR > 1 { t += $1 } END { print t }') bytes"
done
# The structs' sizes on the target, read from a compiled object's symbol sizes.
cat >"$work/sizes.c" <<'C'
#include "rt_ble_beacon.h"
rt_ble_ad_t bench_ad;
rt_ble_parsed_t bench_parsed;
C
"$cc" "${flags[@]}" -fno-common -c "$work/sizes.c" -o "$work/sizes.o"
while read -r _ size _ name; do
	case "$name" in
	bench_ad) echo "rt_ble_ad_t_size: $((16#$size)) bytes" ;;
	bench_parsed) echo "rt_ble_parsed_t_size: $((16#$size)) bytes" ;;
	esac
done < <(arm-none-eabi-nm -S "$work/sizes.o")
