#!/usr/bin/env bash
# Benchmarks: one line per figure, "name: value unit". Instruction counts come from callgrind
# (x86-64, stable between runs); sizes from the Cortex-M4 cross-compile.
#   bash bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
build=build/bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target beacon-sim beacon-pack beacon-bench-glue >/dev/null
export BEACON_HOST_BUILD="$PWD/$build"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cg() { bash bench/callgrind.sh "$@"; }
# Builds print a size report on stderr; only a failure's output is shown.
beacon() { local log; log=$(node bindings-ts/bin/beacon.js "$@" 2>&1) || { echo "$log" >&2; return 1; }; }

# Boot to the first print: the whole simulator run of the hello app, which prints once and
# ends (engine start, API install, bytecode load, one print, teardown).
beacon build examples/hello.ts -o "$work/hello.bapp" >/dev/null
echo "hello_app_run_instructions: $(cg "$build/beacon-sim" "$work/hello.bapp") instr"

# One timers.single firing, amortised over 100,000 (minus the same app with none).
sed 's/__COUNT__/100000/' bench/apps/timer-chain.js > "$work/chain.js"
sed 's/__COUNT__/0/' bench/apps/timer-chain.js > "$work/chain0.js"
beacon build "$work/chain.js" -o "$work/chain.bapp" >/dev/null
beacon build "$work/chain0.js" -o "$work/chain0.bapp" >/dev/null
full=$(cg "$build/beacon-sim" "$work/chain.bapp")
none=$(cg "$build/beacon-sim" "$work/chain0.bapp")
echo "timers_single_firing_instructions: $(( (full - none) / 100000 )) instr/firing"

# A generated binding against an empty native function in the same engine.
n=100000
loop=$(cg "$build/beacon-bench-glue" loop $n)
per() { echo $(( ($(cg "$build/beacon-bench-glue" "$1" $n) - loop) / n )); }
empty=$(per empty); empty2=$(per empty2); empty4=$(per empty4)
uptime=$(per getUptime); toms=$(per toMs); tohex=$(per toHex)
echo "empty_native_call_instructions: $empty instr/call"
echo "empty_native_call_2_args_instructions: $empty2 instr/call"
echo "empty_native_call_4_args_instructions: $empty4 instr/call"
echo "binding_sys_getUptime_0_args_instructions: $uptime instr/call"
echo "binding_toMs_1_arg_instructions: $toms instr/call"
echo "binding_toHex_1_array_arg_instructions: $tohex instr/call"
awk -v a="$uptime" -v b="$empty" 'BEGIN { printf "binding_overhead_ratio_getUptime: %.2f x empty native\n", a / b }'
awk -v a="$toms" -v b="$empty" 'BEGIN { printf "binding_overhead_ratio_toMs: %.2f x empty native\n", a / b }'
