#!/usr/bin/env bash
# Benchmarks of the generated glue, one line per figure, "name: value unit":
#
#  - Size per API version: the codegen emits the C glue for one version only (as a firmware that
#    runs apps of that version alone would carry it) and for all three; each is compiled for
#    Cortex-M4 at -Os with Debian's arm-none-eabi-gcc (the flags of scripts/cross-compile.sh),
#    and arm-none-eabi-size gives its bytes (text: code and read-only tables; data; bss). The
#    generated part of a set is api_glue.o (argument tables, wrappers, install tables) plus
#    api_types.o (record makers); glue_core, the table interpreter (glue_convert.c,
#    glue_value.c, glue_messages.c, glue_install.c), is the same for every set.
#  - Instructions per call (callgrind, x86-64, the host build in Release) of bindings of 0, 2 and
#    4 arguments whose runtime function returns at once (see bench/glue_call.c), against an empty
#    native function called with the same arguments: the difference is what the glue adds.
#
#   bash bench/glue.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# The include directories by folder, as the builds have them (src/sources.cmake).
source scripts/lib/src.sh
mapfile -t includes < <(beacon_include_flags)
bash scripts/setup.sh >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ------------------------------------------------------------------ size per version

cc=arm-none-eabi-gcc
size=arm-none-eabi-size
flags=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 --specs=nano.specs -Os
	-std=gnu11 -ffunction-sections -fdata-sections -Wall -Wextra -Werror -Wno-unused-parameter
	"${includes[@]}" -Isrc/glue)

# text data bss summed over object files
sum_sizes() { "$size" "$@" | awk 'NR > 1 { t += $1; d += $2; b += $3 } END { print t, d, b }'; }

# text data bss of one object file
sizes() { "$size" "$1" | awk 'NR == 2 { print $1, $2, $3 }'; }

glue_for() { # name versions...
	local name=$1
	shift
	node -e "require('./bindings-ts/dist/src/codegen/index.js').writeGlue({ versions: process.argv.slice(1), outDir: '$work/$name' })" "$@"
	for unit in api_glue api_types; do
		"$cc" "${flags[@]}" -I"$work/$name" -c "$work/$name/$unit.c" -o "$work/$name/$unit.o"
	done
}

core_objs=()
for unit in glue_convert glue_value glue_messages glue_install; do
	"$cc" "${flags[@]}" -c "src/glue/$unit.c" -o "$work/$unit.o"
	core_objs+=("$work/$unit.o")
done

for set in 0.0.9 0.1.5 0.2.6 all; do
	if [ "$set" = all ]; then glue_for all 0.0.9 0.1.5 0.2.6; else glue_for "$set" "$set"; fi
	read -r text data bss <<<"$(sum_sizes "$work/$set/api_glue.o" "$work/$set/api_types.o")"
	echo "api_glue_${set}.text: $text bytes"
	[ "$data" = 0 ] || echo "api_glue_${set}.data: $data bytes"
	[ "$bss" = 0 ] || echo "api_glue_${set}.bss: $bss bytes"
done
read -r core_text core_data core_bss <<<"$(sum_sizes "${core_objs[@]}")"
echo "glue_core.text: $core_text bytes"
echo "glue_core.data: $core_data bytes"
echo "glue_core.bss: $core_bss bytes"
all_text=$(sum_sizes "$work/all/api_glue.o" "$work/all/api_types.o" | cut -d' ' -f1)
for set in 0.0.9 0.1.5 0.2.6; do
	text=$(sum_sizes "$work/$set/api_glue.o" "$work/$set/api_types.o" | cut -d' ' -f1)
	echo "glue_total_${set}_only.text: $((text + core_text)) bytes"
done
echo "glue_total_all_versions.text: $((all_text + core_text)) bytes"

# ------------------------------------------------------------------ instructions per call

build=build/bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target beacon-bench-glue >/dev/null
n=100000
cg() { bash bench/callgrind.sh "$build/beacon-bench-glue" "$1" "$n"; }
loop=$(cg loop)
per() { echo $((($(cg "$1") - loop) / n)); }
for args in 0 2 4; do
	base=$(per "base$args")
	glue=$(per "glue$args")
	echo "empty_native_${args}_args_instructions: $base instr/call"
	echo "glue_binding_${args}_args_instructions: $glue instr/call"
	echo "glue_added_${args}_args_instructions: $((glue - base)) instr/call"
	awk -v a="$glue" -v b="$base" -v n="$args" 'BEGIN { printf "glue_ratio_%s_args: %.2f x empty native\n", n, a / b }'
done
