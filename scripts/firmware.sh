#!/usr/bin/env bash
# Build the firmware with Zephyr's own build system, and print its flash and RAM by component.
#
#   scripts/firmware.sh BOARD [--engine jerryscript|duktape] [--app app.bapp] [--build-dir DIR]
#                             [--print-dir]
#   scripts/firmware.sh nrf52_bsim --app-dir tests/rig-bsim     (another application: the rig's
#                                                                phone, docs/upload.md)
#   scripts/firmware.sh nrf9160dk/nrf52840 --controller          (the nRF9160 DK's Bluetooth
#                                controller: the workspace's samples/bluetooth/hci_uart with
#                                hci-controller.conf)
#   scripts/firmware.sh nrf52_bsim --hci-uart                    (the LTE beacon's two chips on
#   scripts/firmware.sh nrf52_bsim --controller                   BabbleSim: the beacon firmware
#                                with Bluetooth over H:4 on uart1, and its controller chip)
#
# BOARD is a Zephyr board target: nrf52840dk/nrf52840 (the BLE beacon), nrf9160dk/nrf9160 (the
# LTE tracker, secure image without TF-M), nrf52_bsim (the nRF52 on BabbleSim) or mps2/an521/cpu0
# (Cortex-M33 under QEMU). The engine defaults to JerryScript, the device's. --app links a
# package in as the factory default (the app store's content wins once an app was installed).
#
# Zephyr, JerryScript and BabbleSim come from the workspace scripts/lib/workspace.sh finds
# (ZEPHYR_BASE and the like when set, else the west workspace around the repository, else
# ~/zephyrproject); without one it exits 3 with the line that says what is missing. The build goes to build/zephyr/<board>-<engine> (--build-dir to change it; --print-dir prints where
# and builds nothing). Warnings in the project's code are errors. After the build the image's
# figures are printed (scripts/firmware-sizes.py), and the build fails when the image leaves the
# board less room than src/port/zephyr/budget.json documents.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

usage() {
	echo "usage: scripts/firmware.sh BOARD [--engine jerryscript|duktape] [--app app.bapp] [--app-dir DIR] [--hci-uart | --controller] [--build-dir DIR] [--print-dir]" >&2
	exit 2
}
[ $# -ge 1 ] || usage
board="$1"
shift
engine=jerryscript
app=""
build_dir=""
app_dir=""
controller=false
hci_uart=false
print_dir=false
while [ $# -gt 0 ]; do
	case "$1" in
	--engine) engine="${2:?}"; shift 2 ;;
	--app) app="$(cd "$(dirname "${2:?}")" && pwd)/$(basename "$2")"; shift 2 ;;
	--build-dir) build_dir="${2:?}"; shift 2 ;;
	--app-dir) app_dir="$(cd "${2:?}" && pwd)"; shift 2 ;;
	--print-dir) print_dir=true; shift ;;
	--controller) controller=true; shift ;;
	--hci-uart) hci_uart=true; shift ;;
	*) usage ;;
	esac
done
case "$engine" in
jerryscript | duktape) ;;
*) echo "firmware: --engine takes jerryscript or duktape" >&2; exit 2 ;;
esac
board_dir="$(echo "$board" | tr '/@' '__')"
variant_name="$engine"
[ -n "$app_dir" ] && variant_name="$(basename "$app_dir")"
$controller && variant_name=hci-controller
$hci_uart && variant_name="$engine-hci-uart"
if $hci_uart && $controller; then
	echo "firmware: --hci-uart (the host chip) and --controller (the controller chip) are two images: build them one at a time" >&2
	exit 2
fi
if $hci_uart && [ "$board" != nrf52_bsim ]; then
	echo "firmware: --hci-uart is the LTE beacon's host chip on nrf52_bsim (the nRF9160 DK's image has it by itself)" >&2
	exit 2
fi
build_dir="${build_dir:-$ROOT/build/zephyr/$board_dir-$variant_name}"
if $print_dir; then
	echo "$build_dir"
	exit 0
fi

# The workspace (scripts/lib/workspace.sh): Zephyr always, JerryScript for its images, BabbleSim
# for the nrf52_bsim board.
source "$ROOT/scripts/lib/workspace.sh"
parts=(zephyr)
[ -z "$app_dir" ] && [ "$engine" = jerryscript ] && parts+=(jerryscript)
case "$board" in *_bsim*) parts+=(bsim) ;; esac
$controller && parts=(zephyr)
if ! missing="$(beacon_ws_need "${parts[@]}")"; then
	echo "firmware: $missing" >&2
	exit 3
fi
# The controller is Zephyr's own H:4 sample, from the workspace, with the project's settings.
$controller && app_dir="$ZEPHYR_BASE/samples/bluetooth/hci_uart"
variant="${ZEPHYR_TOOLCHAIN_VARIANT:-}"
case "$board" in
*_bsim* | native_sim*) variant=host ;;
*) [ -n "$variant" ] || { command -v arm-none-eabi-gcc >/dev/null && variant=gnuarmemb && export GNUARMEMB_TOOLCHAIN_PATH="${GNUARMEMB_TOOLCHAIN_PATH:-/usr}"; } ;;
esac

# Debian's python3 has the packages Zephyr's scripts import (a python of its own on PATH may not).
python=/usr/bin/python3
[ -x "$python" ] || python="$(command -v python3)"
args=(-GNinja -S "${app_dir:-$ROOT}" -B "$build_dir" -DBOARD="$board" -DPython3_EXECUTABLE="$python")
[ -n "$variant" ] && args+=(-DZEPHYR_TOOLCHAIN_VARIANT="$variant")
[ -n "${ZEPHYR_MODULES:-}" ] && args+=(-DZEPHYR_MODULES="$ZEPHYR_MODULES")
[ -n "${JERRYSCRIPT_DIR:-}" ] && args+=(-DJERRYSCRIPT_DIR="$JERRYSCRIPT_DIR")
# The two chips on nrf52_bsim share the H:4 link's settings (boards/hci-uart-nrf52_bsim.overlay).
overlays=()
if [ "$board" = nrf52_bsim ] && { $controller || $hci_uart; }; then
	overlays+=("$ROOT/boards/hci-uart-nrf52_bsim.overlay")
	# The link between the two processes (src/port/zephyr/runner/uart_link_runner.c).
	args+=(-DZEPHYR_EXTRA_MODULES="$ROOT/src/port/zephyr/runner")
fi
# The host chip is the LTE beacon's application chip: its GNSS receiver is on uart0, read through
# Zephyr's GNSS subsystem (boards/gnss-uart-nrf52_bsim.overlay, gnss-uart.conf).
$hci_uart && overlays+=("$ROOT/boards/hci-uart-host-nrf52_bsim.overlay" "$ROOT/boards/gnss-uart-nrf52_bsim.overlay")
if [ ${#overlays[@]} -gt 0 ]; then
	overlay_list="${overlays[*]}"
	args+=("-DEXTRA_DTC_OVERLAY_FILE=${overlay_list// /;}")
fi
$hci_uart && args+=(-DEXTRA_CONF_FILE="$ROOT/hci-host.conf;$ROOT/gnss-uart.conf")
if $controller; then
	args+=(-DEXTRA_CONF_FILE="$ROOT/hci-controller.conf")
elif [ -n "$app_dir" ]; then
	:
elif [ "$engine" = duktape ]; then
	args+=(-DCONFIG_BEACON_ENGINE_DUKTAPE=y -DBEACON_APP_PACKAGE="$app")
else
	args+=(-DCONFIG_BEACON_ENGINE_JERRYSCRIPT=y -DBEACON_APP_PACKAGE="$app")
fi
# A build directory configured with the same arguments is only rebuilt: ninja re-runs CMake
# itself when a CMake file, Kconfig fragment or overlay changed. Otherwise it is configured
# again in place (ccache, when installed, makes a rebuild from scratch cheap too: Zephyr uses it
# by itself).
mkdir -p "$build_dir"
stamp="$build_dir/beacon-configure-args"
# Zephyr keeps what it found at the first configuration (which board files exist, the
# configuration fragments boards.cmake chose): a change there needs a configuration from scratch.
signature="${args[*]} $(cd "$ROOT" && ls boards && cat boards/* ./*.conf src/port/zephyr/boards.cmake src/port/zephyr/runner/Kconfig src/port/zephyr/runner/CMakeLists.txt ${app_dir:+"$app_dir"/*.conf} | sha256sum)"
if [ -f "$build_dir/build.ninja" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$signature" ]; then
	:
else
	# Zephyr keeps what it found at the first configuration (board overlays among it): anything
	# else is a pristine build.
	[ -f "$build_dir/build.ninja" ] && rm -rf "$build_dir" && mkdir -p "$build_dir"
	if ! cmake "${args[@]}" >"$build_dir/configure.log" 2>&1; then
	rm -f "$stamp"
		grep -E "Error|error:|FATAL" -A4 "$build_dir/configure.log" | head -40 >&2
		echo "firmware: configuring $board ($engine) failed; the whole log is $build_dir/configure.log" >&2
		exit 1
	fi
	echo "$signature" >"$stamp"
fi
if ! ninja -C "$build_dir" >"$build_dir/build.log" 2>&1; then
	grep -E "error:|warning:|overflow|undefined reference|^FAILED" "$build_dir/build.log" | head -40 >&2
	echo "firmware: building $board ($engine) failed; the whole log is $build_dir/build.log" >&2
	exit 1
fi
name="$board_dir.$variant_name"
case "$board" in
*_bsim*)
	# A process of the host: its sizes are the host's, not a device's.
	echo "firmware.$name.built: $build_dir/zephyr/zephyr.exe"
	;;
*)
	python3 "$ROOT/scripts/firmware-sizes.py" "$name" "$build_dir/zephyr/zephyr.map" \
		--dts "$build_dir/zephyr/zephyr.dts" --budget "$ROOT/src/port/zephyr/budget.json" --board "$board"
	;;
esac
