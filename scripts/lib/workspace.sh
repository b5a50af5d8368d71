# Where the firmware's toolchain is: the one place every script and the `beacon` CLI find the
# Zephyr workspace, JerryScript and BabbleSim (docs/firmware.md, "The workspace").
#
#   source scripts/lib/workspace.sh           sets and exports what it finds (never exits)
#   bash scripts/lib/workspace.sh --print     prints it as `export NAME=value` lines, and one
#                                              `missing PART: why` line per part it did not find
#                                              (the CLI reads this: bindings-ts/src/firmware/workspace.ts)
#
# The rules, in order, the usual ones of a Zephyr application:
#   1. ZEPHYR_BASE, JERRYSCRIPT_DIR, BSIM_OUT_PATH and BSIM_COMPONENTS_PATH, ZEPHYR_MODULES when set;
#   2. otherwise the west workspace the repository sits in (`west init -l .` makes its parent one);
#   3. otherwise ~/zephyrproject, where Zephyr's Getting Started puts a workspace.
# In a workspace: zephyr/, modules/lib/jerryscript, tools/bsim (BabbleSim, built: bin/ and lib/).
# With no west metadata (.west/), ZEPHYR_MODULES is the workspace's module folders that exist.
#
# After it, for each part (zephyr, jerryscript, bsim), BEACON_MISSING_<PART> is empty when the part
# is there, else the one line that says what is missing, where it was looked for and how to get it.
# Nothing here fetches, unpacks or builds any part: a workspace is laid out by its user.

beacon_ws_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
beacon_ws_get="west init -l . && west update in a checkout of this repository (docs/firmware.md, \"The workspace\")"

# The workspace a ZEPHYR_BASE belongs to, or the one found by rules 2 and 3.
beacon_ws_root=""
if [ -n "${ZEPHYR_BASE:-}" ]; then
	beacon_ws_root="$(dirname "$ZEPHYR_BASE")"
	beacon_ws_zephyr_where="ZEPHYR_BASE=$ZEPHYR_BASE"
elif [ -d "$beacon_ws_repo/../.west" ] && [ -f "$beacon_ws_repo/../zephyr/VERSION" ]; then
	beacon_ws_root="$(cd "$beacon_ws_repo/.." && pwd)"
	beacon_ws_zephyr_where="$beacon_ws_root/zephyr"
else
	beacon_ws_root="${HOME:-/root}/zephyrproject"
	beacon_ws_zephyr_where="ZEPHYR_BASE is not set; looked in $beacon_ws_root/zephyr"
fi

# Zephyr: a tree whose VERSION says 3.7.
BEACON_MISSING_ZEPHYR=""
beacon_ws_zephyr="${ZEPHYR_BASE:-$beacon_ws_root/zephyr}"
if [ ! -f "$beacon_ws_zephyr/VERSION" ] || [ ! -d "$beacon_ws_zephyr/cmake" ]; then
	BEACON_MISSING_ZEPHYR="no Zephyr 3.7 workspace ($beacon_ws_zephyr_where): $beacon_ws_get"
else
	beacon_ws_version="$(awk '$1 == "VERSION_MAJOR" || $1 == "VERSION_MINOR" || $1 == "PATCHLEVEL" { printf "%s%s", sep, $3; sep = "." }' "$beacon_ws_zephyr/VERSION")"
	case "$beacon_ws_version" in
	3.7.*) export ZEPHYR_BASE="$(cd "$beacon_ws_zephyr" && pwd)" ;;
	*) BEACON_MISSING_ZEPHYR="the Zephyr at $beacon_ws_zephyr is $beacon_ws_version, the firmware is pinned to 3.7.1: $beacon_ws_get" ;;
	esac
fi

# JerryScript 3.0: the device's engine, and the host tools' second engine.
BEACON_MISSING_JERRYSCRIPT=""
if [ -n "${JERRYSCRIPT_DIR:-}" ]; then
	beacon_ws_jerry="$JERRYSCRIPT_DIR"
	beacon_ws_jerry_where="JERRYSCRIPT_DIR=$JERRYSCRIPT_DIR"
else
	beacon_ws_jerry="$beacon_ws_root/modules/lib/jerryscript"
	beacon_ws_jerry_where="JERRYSCRIPT_DIR is not set; looked in $beacon_ws_jerry"
fi
if [ -f "$beacon_ws_jerry/jerry-core/include/jerryscript.h" ]; then
	export JERRYSCRIPT_DIR="$(cd "$beacon_ws_jerry" && pwd)"
else
	unset JERRYSCRIPT_DIR
	BEACON_MISSING_JERRYSCRIPT="no JerryScript 3.0 source tree ($beacon_ws_jerry_where): $beacon_ws_get puts it at modules/lib/jerryscript, or set JERRYSCRIPT_DIR"
fi

# BabbleSim, built: the air of nrf52_bsim.
BEACON_MISSING_BSIM=""
beacon_ws_bsim="${BSIM_OUT_PATH:-$beacon_ws_root/tools/bsim}"
beacon_ws_bsim_components="${BSIM_COMPONENTS_PATH:-$beacon_ws_bsim/components}"
if [ -x "$beacon_ws_bsim/bin/bs_2G4_phy_v1" ] && [ -d "$beacon_ws_bsim/lib" ] && [ -d "$beacon_ws_bsim_components" ]; then
	export BSIM_OUT_PATH="$(cd "$beacon_ws_bsim" && pwd)"
	export BSIM_COMPONENTS_PATH="$(cd "$beacon_ws_bsim_components" && pwd)"
else
	unset BSIM_OUT_PATH BSIM_COMPONENTS_PATH
	BEACON_MISSING_BSIM="BabbleSim is not built (no bin/bs_2G4_phy_v1 in ${BSIM_OUT_PATH:-$beacon_ws_bsim}): $beacon_ws_get fetches it into tools/bsim; build it there as its README says (make everything), or set BSIM_OUT_PATH and BSIM_COMPONENTS_PATH"
fi

# Zephyr's modules: west lists them where there is west metadata; otherwise the folders that exist.
if [ -z "$BEACON_MISSING_ZEPHYR" ] && [ -z "${ZEPHYR_MODULES:-}" ] && [ ! -d "$(dirname "$ZEPHYR_BASE")/.west" ]; then
	beacon_ws_modules=""
	for beacon_ws_module in hal/cmsis hal/nordic hal/st lib/picolibc lib/zcbor crypto/mbedtls crypto/tinycrypt \
		fs/littlefs bsim_hw_models/nrf_hw_models; do
		beacon_ws_module="$(dirname "$ZEPHYR_BASE")/modules/$beacon_ws_module"
		[ -d "$beacon_ws_module" ] && beacon_ws_modules="${beacon_ws_modules:+$beacon_ws_modules;}$beacon_ws_module"
	done
	[ -n "$beacon_ws_modules" ] && export ZEPHYR_MODULES="$beacon_ws_modules"
fi
export BEACON_MISSING_ZEPHYR BEACON_MISSING_JERRYSCRIPT BEACON_MISSING_BSIM

# beacon_ws_need PART...: true when every part is there; else prints the first missing one's line.
beacon_ws_need() {
	local part why
	for part in "$@"; do
		case "$part" in
		zephyr) why="$BEACON_MISSING_ZEPHYR" ;;
		jerryscript) why="$BEACON_MISSING_JERRYSCRIPT" ;;
		bsim) why="$BEACON_MISSING_BSIM" ;;
		*) why="unknown part $part" ;;
		esac
		if [ -n "$why" ]; then
			echo "$why"
			return 1
		fi
	done
	return 0
}

# beacon_ws_require PART...: for a script that has nothing to do without the parts (the firmware's
# benches): says which is missing, as skipped, and exits 3.
beacon_ws_require() {
	local why
	if ! why="$(beacon_ws_need "$@")"; then
		echo "$(basename "$0"): skipped: $why" >&2
		exit 3
	fi
}

unset beacon_ws_repo beacon_ws_get beacon_ws_root beacon_ws_zephyr beacon_ws_zephyr_where beacon_ws_version \
	beacon_ws_jerry beacon_ws_jerry_where beacon_ws_bsim beacon_ws_bsim_components beacon_ws_modules beacon_ws_module

if [ "${BASH_SOURCE[0]}" = "$0" ] && [ "${1:-}" = --print ]; then
	for beacon_ws_name in ZEPHYR_BASE JERRYSCRIPT_DIR BSIM_OUT_PATH BSIM_COMPONENTS_PATH ZEPHYR_MODULES; do
		[ -n "${!beacon_ws_name:-}" ] && echo "export $beacon_ws_name=${!beacon_ws_name}"
	done
	[ -n "$BEACON_MISSING_ZEPHYR" ] && echo "missing zephyr: $BEACON_MISSING_ZEPHYR"
	[ -n "$BEACON_MISSING_JERRYSCRIPT" ] && echo "missing jerryscript: $BEACON_MISSING_JERRYSCRIPT"
	[ -n "$BEACON_MISSING_BSIM" ] && echo "missing bsim: $BEACON_MISSING_BSIM"
	exit 0
fi
