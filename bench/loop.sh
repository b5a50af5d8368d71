#!/usr/bin/env bash
# The author's loop: beacon run and beacon build as whole processes of the installed bin, against
# node -e 0 and DeviceScript's devs build in the same run (bench/loop.js lists the figures).
#   bash bench/loop.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
exec node bench/loop.js
