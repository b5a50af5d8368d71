#!/usr/bin/env bash
# Benchmarks of the device-local services and the simulated world, one line per figure,
# "name: value unit":
#
#  - Static RAM the runtime keeps besides the JS heap (Cortex-M4 sizes, Debian's arm-none-eabi-gcc,
#    the flags of scripts/cross-compile.sh): the whole per-device runtime state, and what one more
#    ring LED, one button press callback and one cached storage record add to it.
#  - Instructions (callgrind, x86-64 Release host build) per storage.save of a 1 kB object
#    (serialize, write, garbage collection amortised), and simulator instructions per scenario
#    event (a button edge delivered to an app's callback, and an input no app listens to).
#    Each is (count(N) - count(0)) / N.
#
#   bash bench/world.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# The include directories by folder, as the builds have them (src/sources.cmake).
source scripts/lib/src.sh
mapfile -t includes < <(beacon_include_flags)
bash scripts/setup.sh >/dev/null
build=build/bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target beacon-sim >/dev/null
export BEACON_HOST_BUILD="$PWD/$build"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cg() { bash bench/callgrind.sh "$@"; }
beacon() { local log; log=$(node bindings-ts/bin/beacon.js "$@" 2>&1) || { echo "$log" >&2; return 1; }; }

# ---------------------------------------------------------------- static RAM (Cortex-M4)
cat > "$work/sizes.c" <<'C'
#include "rt_device.h"
/* One object per figure: arm-none-eabi-nm -S gives its size. */
rt_device_t size_device;
rt_io_state_t size_io;
rt_led_t size_led;
eng_ref_t size_press_callback;
rt_records_entry_t size_cached_record;
rt_store_state_t size_store;
C
arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -Os -std=gnu11 \
	-fno-common "${includes[@]}" \
	-c "$work/sizes.c" -o "$work/sizes.o"
size_of() { echo $((16#$(arm-none-eabi-nm -S "$work/sizes.o" | awk -v s="size_$1" '$4 == s { print $2 }'))); }
echo "runtime_state_ram_per_device_cortex_m4: $(size_of device) bytes"
echo "io_state_ram_cortex_m4: $(size_of io) bytes"
echo "ram_per_ring_led_cortex_m4: $(size_of led) bytes"
echo "ram_per_button_callback_cortex_m4: $(size_of press_callback) bytes"
echo "ram_per_cached_storage_record_cortex_m4: $(size_of cached_record) bytes"
echo "storage_state_ram_cortex_m4: $(size_of store) bytes"

# ---------------------------------------------------------------- storage.save of 1 kB
cat > "$work/save.js" <<'JS'
var obj = { name: 'sensor log', values: [] };
for (var i = 0; i < 130; i++) obj.values.push(1000000 + i);
// 130 numbers of 7 digits and the rest: a little over 1 kB of JSON.
var n = __COUNT__;
for (var k = 0; k < n; k++) storage.save(k % 20, obj);
JS
for n in 0 500; do
	sed "s/__COUNT__/$n/" "$work/save.js" > "$work/save$n.js"
	beacon build "$work/save$n.js" -o "$work/save$n.bapp"
done
bytes=$(node -e "var o={name:'sensor log',values:[]};for(var i=0;i<130;i++)o.values.push(1000000+i);console.log(JSON.stringify(o).length)")
s0=$(cg "$build/beacon-sim" "$work/save0.bapp")
s1=$(cg "$build/beacon-sim" "$work/save500.bapp")
echo "storage_save_${bytes}B_object_instructions: $(( (s1 - s0) / 500 )) instr/save"

# ---------------------------------------------------------------- scenario events
# An app with a press callback; N presses (two edges each) of the main button, 2 s apart.
cat > "$work/presses.js" <<'JS'
var presses = 0;
io.press(0, function () { presses++; }, 0);
JS
beacon build "$work/presses.js" -o "$work/presses.bapp"
script() { # n kind
	printf 'beacon-world 1\ndevice 0 d0 lte-beacon\n'
	for ((i = 0; i < $1; i++)); do
		if [ "$2" = press ]; then
			printf 'at %d 0 button main down\nat %d 0 button main up\n' $((i * 2000 + 1000)) $((i * 2000 + 1200))
		else
			printf 'at %d 0 temperature %d\n' $((i * 1000 + 1000)) $((20 + i % 5))
		fi
	done
}
n=5000
for kind in press temperature; do
	script 0 $kind > "$work/w0.script"
	script $n $kind > "$work/wn.script"
	c0=$(cg "$build/beacon-sim" --world "$work/w0.script" "$work/presses.bapp")
	cn=$(cg "$build/beacon-sim" --world "$work/wn.script" "$work/presses.bapp")
	if [ $kind = press ]; then
		echo "sim_button_edge_to_callback_instructions: $(( (cn - c0) / (2 * n) )) instr/edge"
	else
		echo "sim_unheard_input_instructions: $(( (cn - c0) / n )) instr/event"
	fi
done
