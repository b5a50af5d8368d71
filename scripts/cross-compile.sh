#!/usr/bin/env bash
# Cross-compile the portable firmware C for the devices' CPU (Cortex-M4F, as the nRF52840 and the
# nRF9160) with Debian's arm-none-eabi-gcc and newlib-nano, and print its size, one figure a line:
#
#   runtime.text: 23456 bytes
#
# What is compiled: src/runtime, src/glue (hand-written and generated) and one engine: its
# backend (src/engine/<engine>) and its core (Duktape's amalgamation from Debian's duktape-dev,
# or jerry-core from JERRYSCRIPT_DIR). The engine's own CMake file does the compiling setup, so
# the configuration is exactly the host's and the device's. Project code is held to the house
# rules (-Wall -Wextra -Werror); on this target int32_t is long, so format strings that only
# happen to work on the host fail here.
#
# A final link (-Wl,--gc-sections, with a main() that installs and runs an app) gives the size
# the firmware would carry. Symbols the Zephyr port provides (hal_*) are left unresolved there,
# and the link is against newlib-nano rather than Zephyr's picolibc: a close estimate.
#
# Exit status: 1 when project code does not compile; 0 otherwise, including when a tool or an
# input is missing (said on stderr) or third-party code (jerry-core) does not compile.
#
# Environment:
#   BEACON_CROSS_ENGINE  duktape (default) or jerryscript
#   DUKTAPE_DIR          Duktape amalgamation directory (default /usr/share/duktape)
#   JERRYSCRIPT_DIR      JerryScript 3.0 tree, for BEACON_CROSS_ENGINE=jerryscript
#   CROSS_PREFIX         toolchain prefix (default arm-none-eabi-)
#   CROSS_OUT            keep the build in this directory (default: a temporary one, removed)
#   JOBS                 parallel compiles (default 2)
set -u

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="${CROSS_PREFIX:-arm-none-eabi-}"
CC="${PREFIX}gcc"
SIZE="${PREFIX}size"
NM="${PREFIX}nm"
ENGINE="${BEACON_CROSS_ENGINE:-duktape}"
DUKTAPE_DIR="${DUKTAPE_DIR:-/usr/share/duktape}"
JOBS="${JOBS:-2}"
CPU_FLAGS=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16)

note() { echo "cross-compile: $*" >&2; }

for tool in "$CC" "$SIZE" "$NM" cmake python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		note "skipped: $tool not found (apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi cmake python3)"
		exit 0
	fi
done
if ! echo 'int main(void) { return 0; }' | "$CC" "${CPU_FLAGS[@]}" --specs=nano.specs -x c -c -o /dev/null - 2>/dev/null; then
	note "skipped: $CC cannot compile for Cortex-M4 with newlib-nano (apt-get install libnewlib-arm-none-eabi)"
	exit 0
fi

if [ -n "${CROSS_OUT:-}" ]; then
	OUT="$CROSS_OUT"
	rm -rf "$OUT/build" "$OUT/project"
	mkdir -p "$OUT"
else
	OUT="$(mktemp -d)"
	trap 'rm -rf "$OUT"' EXIT
fi
OUT="$(cd "$OUT" && pwd)"
mkdir -p "$OUT/project"

case "$ENGINE" in
duktape)
	if [ ! -f "$DUKTAPE_DIR/duktape.c" ]; then
		note "engine skipped: $DUKTAPE_DIR/duktape.c not found (apt-get install duktape-dev)"
		ENGINE=none
	fi
	;;
jerryscript)
	if [ ! -f "${JERRYSCRIPT_DIR:-}/jerry-core/include/jerryscript.h" ]; then
		note "engine skipped: JERRYSCRIPT_DIR does not point at a JerryScript tree"
		ENGINE=none
	fi
	;;
*)
	note "unknown BEACON_CROSS_ENGINE '$ENGINE' (duktape or jerryscript)"
	exit 2
	;;
esac

cat >"$OUT/project/toolchain.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER ${CC})
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "${CPU_FLAGS[*]} --specs=nano.specs -ffunction-sections -fdata-sections")
EOF

# Compiling only: the targets are object and static libraries, so nothing here needs the HAL.
cat >"$OUT/project/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(beacon_cross C)
# As the host build: C11 with GNU extensions.
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_STANDARD_REQUIRED ON)
set(BEACON_WARNINGS -Wall -Wextra -Werror -Wdouble-promotion -Wno-unused-parameter)
# The runtime and the glue by folder, as every build takes them (src/sources.cmake).
include("${BEACON_ROOT}/src/sources.cmake")
beacon_sources(runtime _runtime _runtime_includes)
beacon_sources(glue _glue _glue_includes)
set(BEACON_INCLUDES ${BEACON_BASE_INCLUDES} ${_runtime_includes} ${_glue_includes})
# For the link stub below, compiled outside CMake.
string(REPLACE ";" "\n" _include_lines "${BEACON_INCLUDES}")
file(WRITE "${CMAKE_BINARY_DIR}/includes.txt" "${_include_lines}\n")
foreach(_part runtime glue)
  if(_${_part})
    add_library(beacon_${_part} OBJECT ${_${_part}})
    target_include_directories(beacon_${_part} PRIVATE ${BEACON_INCLUDES})
    target_compile_options(beacon_${_part} PRIVATE ${BEACON_WARNINGS})
  endif()
endforeach()
if(BEACON_CROSS_ENGINE STREQUAL "duktape")
  set(BEACON_DUKTAPE_DIR "${DUKTAPE_DIR}" CACHE PATH "" FORCE)
  include("${BEACON_ROOT}/src/engine/duktape/duktape.cmake")
elseif(BEACON_CROSS_ENGINE STREQUAL "jerryscript")
  include("${BEACON_ROOT}/src/engine/jerryscript/jerryscript.cmake")
endif()
EOF

configure() {
	local engine="$1"
	local generator=()
	if command -v ninja >/dev/null 2>&1; then
		generator=(-G Ninja)
	fi
	rm -rf "$OUT/build"
	cmake -S "$OUT/project" -B "$OUT/build" "${generator[@]}" \
		-DCMAKE_TOOLCHAIN_FILE="$OUT/project/toolchain.cmake" \
		-DCMAKE_BUILD_TYPE=MinSizeRel -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
		-DBEACON_ROOT="$ROOT" -DBEACON_CROSS_ENGINE="$engine" \
		-DDUKTAPE_DIR="$DUKTAPE_DIR" -DJERRYSCRIPT_DIR="${JERRYSCRIPT_DIR:-}" \
		>"$OUT/configure.log" 2>&1
}

if ! configure "$ENGINE"; then
	note "engine skipped: configuring $ENGINE failed:"
	grep -A4 "CMake Error" "$OUT/configure.log" | sed 's/^/  /' >&2
	ENGINE=none
	if ! configure none; then
		note "skipped: configuring the cross build failed:"
		sed 's/^/  /' "$OUT/configure.log" >&2
		exit 0
	fi
fi

# -k 0 / -k: keep going, so one broken file does not hide the state of the others.
if [ -f "$OUT/build/build.ninja" ]; then
	cmake --build "$OUT/build" -j "$JOBS" -- -k 0 >"$OUT/build.log" 2>&1
else
	cmake --build "$OUT/build" -j "$JOBS" -- -k >"$OUT/build.log" 2>&1
fi

# One line per compiled file: "<group> <source> <object>", from the exact build commands.
python3 - "$OUT/build/compile_commands.json" "$ROOT" >"$OUT/objects.txt" <<'EOF'
import json, os, re, sys
root = sys.argv[2] + "/"
for entry in json.load(open(sys.argv[1])):
    src = os.path.normpath(entry["file"])
    cmd = entry.get("command") or " ".join(entry["arguments"])
    obj = entry.get("output") or re.search(r"-o\s+(\S+)", cmd).group(1)
    obj = os.path.normpath(os.path.join(entry["directory"], obj))
    rel = src[len(root):] if src.startswith(root) else None
    if rel is None:
        group = "jerryscript-core"
    elif rel.startswith("src/runtime/"):
        group = "runtime"
    elif rel.startswith("src/glue/"):
        group = "glue"
    elif rel == "src/engine/duktape/duk_unity.c":
        group = "duktape-core"
    elif rel.startswith("src/engine/"):
        group = rel.split("/")[2] + "-backend"
    else:
        group = "other"
    print(group, src, obj)
EOF

failed_project=0
failed_third_party=0
while read -r group src obj; do
	if [ ! -f "$obj" ]; then
		if [ "$group" = "jerryscript-core" ]; then
			failed_third_party=$((failed_third_party + 1))
		else
			failed_project=$((failed_project + 1))
		fi
		note "does not compile: ${src#"$ROOT"/}"
	fi
done <"$OUT/objects.txt"
if [ "$failed_project" -gt 0 ] || [ "$failed_third_party" -gt 0 ]; then
	grep -E "(error|warning):" "$OUT/build.log" | head -60 >&2
fi

# Sizes per group of object files (sections are summed; nothing is dropped before linking).
for group in runtime glue duktape-backend duktape-core jerryscript-backend jerryscript-core; do
	objs=()
	while read -r g _ obj; do
		if [ "$g" = "$group" ] && [ -f "$obj" ]; then
			objs+=("$obj")
		fi
	done <"$OUT/objects.txt"
	[ "${#objs[@]}" -gt 0 ] || continue
	"$SIZE" -t "${objs[@]}" | tail -1 | {
		read -r text data bss _
		echo "$group.text: $text bytes"
		echo "$group.data: $data bytes"
		echo "$group.bss: $bss bytes"
	}
done

# The linked figure, when everything compiled and the runtime has its entry points.
link_objs=()
while read -r _ _ obj; do
	[ -f "$obj" ] && link_objs+=("$obj")
done <"$OUT/objects.txt"
if [ "$failed_project" -eq 0 ] && [ "$failed_third_party" -eq 0 ] && [ "${#link_objs[@]}" -gt 0 ]; then
	defined="$("$NM" --defined-only "${link_objs[@]}" 2>/dev/null | awk '{print $3}')"
	missing=""
	for sym in rt_device_init glue_app_install rt_app_run; do
		grep -qx "$sym" <<<"$defined" || missing="$missing $sym"
	done
	if [ -n "$missing" ]; then
		note "no linked figure: the runtime does not define$missing yet"
	else
		cat >"$OUT/link_main.c" <<'EOF'
/* Keeps what a firmware keeps: the runtime entry points and everything they reach. */
#include <stddef.h>
#include <stdint.h>
#include "glue_app.h"
#include "hal_clock.h"
#include "rt_app.h"
#include "rt_device.h"
extern const uint8_t beacon_cross_package[];
extern size_t beacon_cross_package_len;
static rt_device_t device;
int main(void)
{
	char msg[128];
	rt_device_init(&device, 0);
	rt_device_select(&device);
	if (glue_app_install(beacon_cross_package, beacon_cross_package_len, msg, sizeof(msg)) == 0) {
		(void)rt_app_run(HAL_CLOCK_FOREVER);
	}
	return 0;
}
const uint8_t beacon_cross_package[64];
size_t beacon_cross_package_len = sizeof(beacon_cross_package);
EOF
		link_flags=("${CPU_FLAGS[@]}" -Os --specs=nano.specs --specs=nosys.specs "-Wl,--gc-sections")
		include_flags=()
		while read -r dir; do
			[ -n "$dir" ] && include_flags+=("-I$dir")
		done <"$OUT/build/includes.txt"
		if "$CC" "${CPU_FLAGS[@]}" -Os -std=gnu11 "${include_flags[@]}" \
			-c "$OUT/link_main.c" -o "$OUT/link_main.o" 2>>"$OUT/link.log"; then
			# First without tolerance, to learn what is left for the port to provide.
			"$CC" "${link_flags[@]}" "$OUT/link_main.o" "${link_objs[@]}" -lm \
				-o "$OUT/linked.elf" >"$OUT/link.log" 2>&1
			unresolved="$(grep -o "undefined reference to \`[^']*'" "$OUT/link.log" |
				sed "s/undefined reference to \`//; s/'$//" | sort -u | tr '\n' ' ')"
			if [ -n "$unresolved" ]; then
				note "left unresolved in the linked figure (the port and code still to come): $unresolved"
				"$CC" "${link_flags[@]}" "-Wl,--unresolved-symbols=ignore-all" "$OUT/link_main.o" \
					"${link_objs[@]}" -lm -o "$OUT/linked.elf" >>"$OUT/link.log" 2>&1
			fi
			if [ -f "$OUT/linked.elf" ]; then
				"$SIZE" "$OUT/linked.elf" | tail -1 | {
					read -r text data bss _
					echo "linked.text: $text bytes"
					echo "linked.data: $data bytes"
					echo "linked.bss: $bss bytes"
				}
			else
				note "no linked figure: the link failed:"
				grep -v "undefined reference" "$OUT/link.log" | head -20 >&2
			fi
		else
			note "no linked figure: the link stub does not compile:"
			cat "$OUT/link.log" >&2
		fi
	fi
fi

if [ "$failed_project" -gt 0 ]; then
	note "FAILED: $failed_project project file(s) do not compile for Cortex-M4"
	exit 1
fi
if [ "$failed_third_party" -gt 0 ]; then
	note "$failed_third_party third-party file(s) do not compile (not counted as a failure)"
fi
exit 0
