#!/usr/bin/env bash
# The main job on a fresh machine: build the tools and run a micro-app on the simulator.
#   bash scripts/demo.sh                               examples/button-led.ts in the world of
#                                                      examples/button-led.world.json: presses
#                                                      of its buttons, the LED ring shown
#   bash scripts/demo.sh app.ts [beacon run options]   any app
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ $# -eq 0 ]; then
	set -- examples/button-led.ts --world examples/button-led.world.json --verbose
fi
exec node bindings-ts/bin/beacon.js run "$@"
