#!/usr/bin/env bash
# Benchmarks of the flash record store (src/runtime/storage/rt_records*.c), one line per figure,
# "name: value unit":
#
#  - Instructions (callgrind, x86-64) per write of a 1 kB record (replaces in a store of 20 such
#    records, garbage collection included), per read of one, and per mount of a store of 100
#    records of 100 bytes, on the simulated nRF52840 flash (16 pages of 4 KB, 4-page sectors).
#    Each is (count(mode, N) - count(mode, 0)) / N of bench/records_bench.c.
#  - Flash bytes per record of 100 B and 1 kB: the entry and padding alone, and the whole area
#    divided by the records that fit in it (headers, reserves, the spare sector included).
#  - RAM: per cached record (the index entry) and the store's own state; code size. Sizes are
#    from the Cortex-M4 cross-compile (Debian's arm-none-eabi-gcc, -Os, the flags of
#    scripts/cross-compile.sh), where pointers are 4 bytes.
#
#   bash bench/records.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# The include directories by folder, as the builds have them (src/sources.cmake).
source scripts/lib/src.sh
mapfile -t includes < <(beacon_include_flags)
bash scripts/setup.sh >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The store's files: the operations and the index, its entries and flash access, its sectors, mount.
records=(src/runtime/storage/rt_records.c src/runtime/storage/rt_records_flash.c
	src/runtime/storage/rt_records_gc.c src/runtime/storage/rt_records_mount.c)

# The store and the simulated flash are plain C with no engine: built directly, optimised as
# the Release host build (-O3).
cc -std=gnu11 -O3 -DNDEBUG -g -Wall -Wextra -Werror -Wno-unused-parameter \
	"${includes[@]}" -Isrc/world -Isrc/port/host \
	bench/records_bench.c "${records[@]}" src/world/sim_flash.c \
	src/port/host/crc_host.c -lz -o "$work/records-bench"

cg() { bash bench/callgrind.sh "$work/records-bench" "$@"; }
per() { # mode n
	local base full
	base=$(cg "$1" 0)
	full=$(cg "$1" "$2")
	echo $(((full - base) / $2))
}
echo "write_1kB_record_instructions: $(per write1k 2000) instr/write"
echo "read_1kB_record_instructions: $(per read1k 5000) instr/read"
echo "mount_100_records_instructions: $(per mount100 50) instr/mount"

"$work/records-bench" sizes 0

cross=(arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16
	--specs=nano.specs -Os -std=gnu11 -ffunction-sections -fdata-sections -fno-common
	-Wall -Wextra -Werror -Wno-unused-parameter "${includes[@]}")
objs=()
for file in "${records[@]}"; do
	name="$(basename "$file" .c)"
	"${cross[@]}" -fstack-usage -c "$file" -o "$work/$name.o"
	objs+=("$work/$name.o")
done
echo "rt_records_cortex_m4.text: $(arm-none-eabi-size "${objs[@]}" | awk 'NR > 1 { t += $1 } END { print t }') bytes"
printf '#include "rt_records.h"\nrt_records_t store;\nrt_records_entry_t entry;\n' >"$work/sizes.c"
"${cross[@]}" -c "$work/sizes.c" -o "$work/sizes.o"
while read -r _ size _ name; do
	case "$name" in
	store) echo "store_state_ram_cortex_m4: $((16#$size)) bytes" ;;
	entry) echo "index_ram_per_record_cortex_m4: $((16#$size)) bytes" ;;
	esac
done < <(arm-none-eabi-nm -S "$work/sizes.o")
# Deepest stack frame of the store (frames of the static functions GCC inlined are included).
echo "rt_records_largest_frame_cortex_m4: $(cat "$work"/rt_records*.su | sort -t$'\t' -k2 -n | tail -1 | cut -f2) bytes"
