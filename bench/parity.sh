#!/usr/bin/env bash
# Engine parity (docs/compiler.md, "Two engines, one language"): what the engine layer's
# built-ins cost, one line per figure.
#  - instructions (callgrind) of a whole simulator run of bench/apps/sort-*.js,
#    number-format.js and number-tostring.js on each engine, less the run of sort-baseline.js (the same data, not
#    sorted); with BEACON_BASELINE_BUILD=DIR (a build/host of the sources before engine parity)
#    the same figures for the engines' own built-ins, in one run, for the ratio;
#  - code size (host objects; the firmware image's split is scripts/qemu-build.sh's).
# Needs valgrind and JERRYSCRIPT_DIR for the JerryScript lines.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BEACON_HOST_BUILD:-build/host}
engines=(duktape)
[ -n "${JERRYSCRIPT_DIR:-}" ] && engines+=(jerryscript)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

count() { # build engine app -> instructions of the run
  local dir=$1 engine=$2 app=$3 sim=beacon-sim pack=beacon-pack
  [ "$engine" = jerryscript ] && sim=beacon-sim-jerryscript && pack=beacon-pack-jerryscript
  # Each build packs with its own beacon-pack (a firmware from before refuses today's flag bit 1).
  "$dir/$pack" --api 0.2.6 -o "$work/$app-$engine-$tag.bapp" "bench/apps/$app.js" >/dev/null
  bash bench/callgrind.sh "$dir/$sim" --heap 262144 "$work/$app-$engine-$tag.bapp"
}

for engine in "${engines[@]}"; do
  suffix=$([ "$engine" = jerryscript ] && echo -jerryscript || true)
  cmake --build "$build" -j2 --target "beacon-sim$suffix" "beacon-pack$suffix" >/dev/null
  for label in "now:$build" ${BEACON_BASELINE_BUILD:+"before:$BEACON_BASELINE_BUILD"}; do
    tag=${label%%:*}; dir=${label#*:}
    base=$(count "$dir" "$engine" sort-baseline)
    for app in sort-numbers sort-default number-format number-tostring; do
      n=$(count "$dir" "$engine" "$app")
      echo "parity.$app.$engine.$tag: $((n - base)) instructions"
    done
  done
done

for obj in eng_duk_parity eng_number_format eng_random eng_jerry_parity eng_jerry_remainder; do
  f=$(find "$build" -name "$obj.c.o" | head -1)
  [ -n "$f" ] && echo "parity.size.$obj: $(size -A "$f" | awk '$1 == ".text" {print $2}') bytes of x86-64 code"
done
