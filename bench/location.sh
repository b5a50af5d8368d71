#!/usr/bin/env bash
# Benchmarks of location.* in the simulator, one line per figure, "name: value unit":
#
#  - location_position_instructions: x86-64 instructions (callgrind, Release host build) per
#    position delivered to JavaScript, end to end: the world's GNSS model makes the fix, the
#    runtime's queue carries it, rt_location_filter takes it, the Position record is made and the
#    callback runs. The same app runs for 2100 s and for 100 s of world time (a fix a second,
#    every one delivered); the difference is divided by the 2000 positions between.
#  - gnss_on_*_per_hour: simulated GNSS on-time in one hour of a tracker that wants a position
#    every 5 minutes (minInterval 300 s), read from the trace's `gnss` records (onTotal): with
#    maxFixWait 60 s (API 0.2.6: GNSS off between fixes) and the same app in API 0.1.5 (no
#    maxFixWait: GNSS on for the whole session). Open sky: cold start 35 s, hot 2 s (the world's
#    defaults, rt_gnss_track.h).
#
#   bash bench/location.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
build=build/bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target beacon-sim beacon-pack >/dev/null
export BEACON_HOST_BUILD="$PWD/$build"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cg() { bash bench/callgrind.sh "$@"; }
beacon() { local log; log=$(node bindings-ts/bin/beacon.js "$@" 2>&1) || { echo "$log" >&2; return 1; }; }

# A device walking north (about 1.1 km/h), hot start after a 1 s cold start so every second from
# 1 s on has a fix.
cat > "$work/walk.world" <<'WORLD'
beacon-world 1
device 0 walker lte-beacon
utc 1767225600000
gnss 0 receiver cold=1000
gnss 0 point 0 60.000000000 24.000000000 10
gnss 0 point 10000000 61.000000000 24.000000000 10
WORLD
beacon build bench/apps/location-every-fix.js --api 0.2.6 -o "$work/every.bapp" >/dev/null
short=$(cg "$build/beacon-sim" --for 100000 --world "$work/walk.world" "$work/every.bapp")
long=$(cg "$build/beacon-sim" --for 2100000 --world "$work/walk.world" "$work/every.bapp")
echo "location_position_instructions: $(( (long - short) / 2000 )) instr/position"

cat > "$work/still.world" <<'WORLD'
beacon-world 1
device 0 tracker lte-beacon position=60.17,24.94,15
utc 1767225600000
WORLD
on_time() { # app api -> seconds of GNSS on-time in the hour
  beacon build "$1" --api "$2" -o "$work/t.bapp" >/dev/null
  "$build/beacon-sim" --for 3700000 --world "$work/still.world" --trace "$work/t.jsonl" "$work/t.bapp" >/dev/null 2>&1
  grep '"ev":"gnss","on":false' "$work/t.jsonl" | tail -1 | sed 's/.*"onTotal":\([0-9]*\).*/\1/' | awk '{print $1 / 1000}'
}
sed 's/__OPTIONS__/, maxFixWait: 60/' bench/apps/location-tracker.js > "$work/fixwait.js"
sed 's/__OPTIONS__//' bench/apps/location-tracker.js > "$work/plain.js"
echo "gnss_on_with_maxfixwait_per_hour: $(on_time "$work/fixwait.js" 0.2.6) s/h"
echo "gnss_on_without_maxfixwait_per_hour: $(on_time "$work/plain.js" 0.1.5) s/h"
