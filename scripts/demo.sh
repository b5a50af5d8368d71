#!/usr/bin/env bash
# The main job on a fresh machine: build the tools and run a micro-app on the simulator.
#   bash scripts/demo.sh [app] [beacon run options]   (default: examples/timers.ts)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
app="${1:-examples/timers.ts}"
shift || true
exec node bindings-ts/bin/beacon.js run "$app" "$@"
