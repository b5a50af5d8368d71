#!/usr/bin/env bash
# Benchmarks of the app store (src/runtime/core/rt_app_store.c), one line per figure,
# "name: value unit":
#
#  - Instructions (callgrind, x86-64) of bench/app_store_bench.c on the simulated flash, for a
#    typical package (8,553 bytes, the asset tracker's size) in the device's 64 KB slots: staging
#    it (pages erased, words programmed, in the SMP server's 933-byte chunks); installing it
#    (checked in place, then the slot header and the commit marker), unsigned and signed with a
#    trusted key (ECDSA P-256 through PSA Crypto: Debian's Mbed TLS 2.28 on the host, the code the
#    device runs on Zephyr's Mbed TLS); the signature check alone (rt_signature_check: the key's
#    digest, SHA-256 of the package, the ECDSA verification); the boot's lookup
#    with an app installed (both headers read, the newer package's CRC checked) and with none.
#    Each is (count(mode, N) - count(mode, 0)) / N; install's staging is measured apart and taken
#    off.
#  - Flash work per switch: word programs and page erases (the simulated flash's counters).
#  - The same on the emulated Cortex-M4 (qemu-system-arm -icount, the image's own counters, as
#    bench/qemu.sh takes them): beacon-qemu --bench-app-store, when the image is built
#    (scripts/qemu-build.sh). No signature there: the bare-metal QEMU image has no ECDSA (the
#    Zephyr image's figure is bench/signature_zephyr.sh's).
#  - Code and RAM of the store on the Cortex-M4 (-Os, as scripts/cross-compile.sh builds).
#
#   bash bench/app_store.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# The include directories by folder, as the builds have them (src/sources.cmake).
source scripts/lib/src.sh
mapfile -t includes < <(beacon_include_flags)
bash scripts/setup.sh >/dev/null
build=build/bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target beacon-bench-app-store >/dev/null
bin="$build/beacon-bench-app-store"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cg() { bash bench/callgrind.sh "$bin" "$@"; }
per() { # mode n
	local base full
	base=$(cg "$1" 0)
	full=$(cg "$1" "$2")
	echo $(((full - base) / $2))
}
stage=$(per stage 20)
install=$(per install 20)
signed=$(per install_signed 10)
echo "app_store.stage_8553_bytes: $stage instructions"
echo "app_store.install_8553_bytes: $((install - stage)) instructions"
echo "app_store.install_signed_8689_bytes: $((signed - stage)) instructions"
echo "signature.verify_8689_bytes: $(per verify 20) instructions"
echo "app_store.boot_lookup: $(per mount 200) instructions"
echo "app_store.boot_lookup_empty: $(per mount_empty 200) instructions"
"$bin" flash_work 1

image=""
for dir in "${BEACON_QEMU_BUILD:-build}/qemu-jerryscript" "${BEACON_QEMU_BUILD:-build}/qemu-duktape"; do
	if [ -f "$dir/beacon-qemu.elf" ]; then
		image="$dir/beacon-qemu.elf"
		break
	fi
done
if [ -n "$image" ] && command -v qemu-system-arm >/dev/null; then
	qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic -monitor none -icount shift=0 \
		-semihosting-config enable=on,target=native,arg=beacon-qemu,arg=--bench-app-store \
		-kernel "$image" 2>&1 >/dev/null | sed -n 's/^\[beacon figure\] \(app_store\.[a-z0-9_]*\): \([0-9]*\) \(.*\)$/qemu.\1: \2 \3/p'
else
	echo "app_store: no QEMU image (scripts/qemu-build.sh) or qemu-system-arm: Cortex-M4 counts skipped" >&2
fi

cross=(arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16
	--specs=nano.specs -Os -std=gnu11 -ffunction-sections -fdata-sections -fno-common
	-Wall -Wextra -Werror -Wno-unused-parameter "${includes[@]}")
"${cross[@]}" -fstack-usage -c src/runtime/core/rt_app_store.c -o "$work/rt_app_store.o"
"${cross[@]}" -c src/runtime/util/rt_flash_window.c -o "$work/rt_flash_window.o"
echo "rt_app_store_cortex_m4.text: $(arm-none-eabi-size "$work/rt_app_store.o" | awk 'NR == 2 { print $1 }') bytes"
echo "rt_flash_window_cortex_m4.text: $(arm-none-eabi-size "$work/rt_flash_window.o" | awk 'NR == 2 { print $1 }') bytes"
printf '#include "rt_app_store.h"\nrt_app_store_t store;\n' >"$work/sizes.c"
"${cross[@]}" -c "$work/sizes.c" -o "$work/sizes.o"
while read -r _ size _ name; do
	[ "$name" = store ] && echo "app_store_state_ram_cortex_m4: $((16#$size)) bytes"
done < <(arm-none-eabi-nm -S "$work/sizes.o")
echo "rt_app_store_largest_frame_cortex_m4: $(sort -t$'\t' -k2 -n "$work"/rt_app_store.su | tail -1 | cut -f2) bytes"
