#!/usr/bin/env bash
# The firmware built by Zephyr: one line per figure, "name: value unit".
#
#   bash bench/firmware.sh
#
#   - each image's flash and RAM (the DKs with JerryScript; nrf52_bsim's are the host's process
#     and are not listed; mps2/an521 with both engines), and the room left on the DKs;
#   - boot to the app's first line on mps2/an521 (QEMU, -icount: instructions outside the idle
#     thread), per engine, for the hello app, and by stage (boot.kernel: Zephyr's start to main()
#     and the options; boot.install: the package through the app store and the world set up;
#     boot.engine_to_first_line: the engine, the API and the package to its first line);
#   - the asset tracker on nrf52_bsim: wall time per simulated hour (its scan and report cycle on
#     the firmware, the kernel's clock pacing the world).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
source scripts/lib/workspace.sh
beacon_ws_require zephyr jerryscript bsim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
beacon() { node bindings-ts/bin/beacon.js "$@"; }

for target in nrf52840dk/nrf52840:jerryscript nrf9160dk/nrf9160:jerryscript \
	mps2/an521/cpu0:jerryscript mps2/an521/cpu0:duktape; do
	bash scripts/firmware.sh "${target%%:*}" --engine "${target##*:}" |
		grep -E "\.(flash|ram)\.(total|free|engine|runtime|glue|bluetooth|kernel|world)"
done
# The nRF9160 DK's Bluetooth controller on its nRF52840 (H:4).
bash scripts/firmware.sh nrf9160dk/nrf52840 --controller | grep -E "\.(flash|ram)\.(total|free|bluetooth|kernel)"
bash scripts/firmware.sh nrf52_bsim --engine jerryscript >/dev/null

# Boot to the first line: the hello app on the an521, per engine.
for engine in jerryscript duktape; do
	beacon build examples/hello.ts --engine "$engine" -o "$work/hello-$engine.bapp" >/dev/null 2>&1
	beacon run "$work/hello-$engine.bapp" --target zephyr-qemu --utc 1767225600000 2>&1 >/dev/null |
		sed -n "s/^\[beacon figure\] instructions\.\(first_line\|boot\.[a-z_]*\): \([0-9]*\).*/firmware.mps2_an521.$engine.\1: \2 instructions/p"
done

# The asset tracker among its tags, one simulated hour on nrf52_bsim: wall time.
beacon build examples/asset-tracker.ts --engine jerryscript -o "$work/tracker.bapp" >/dev/null 2>&1
start=$(date +%s%N)
beacon run "$work/tracker.bapp" --target bsim --world tests/examples/asset-tracker.world.json \
	--for 1h --utc 1767225600000 >/dev/null 2>&1
end=$(date +%s%N)
echo "firmware.nrf52_bsim.asset_tracker.wall_per_simulated_hour: $(( (end - start) / 1000000 )) ms"
