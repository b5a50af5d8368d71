#!/usr/bin/env bash
# Regenerate src/engine/duktape/promise.bytecode.h from promise.js after changing it (the build
# falls back to compiling promise.js at each start, with a warning, while the two differ):
#
#   bash scripts/duk-promise-bytecode.sh [--check]
#
# --check: exit 1 when the checked-in file is not what the generator makes (CI, through the
# duk_promise_bytecode_current test). Needs the host build (build/host, or BEACON_HOST_BUILD).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BEACON_HOST_BUILD:-$ROOT/build/host}"
src="$ROOT/src/engine/duktape/promise.js"
out="$ROOT/src/engine/duktape/promise.bytecode.h"
cmake --build "$BUILD" --target eng-duk-promise-dump -j2 >/dev/null
new="$("$BUILD/eng-duk-promise-dump" "$src" "$(sha256sum "$src" | cut -d' ' -f1)")"
if [ "${1:-}" = --check ]; then
	if [ "$new" != "$(cat "$out")" ]; then
		echo "src/engine/duktape/promise.bytecode.h is stale: run bash scripts/duk-promise-bytecode.sh" >&2
		exit 1
	fi
	exit 0
fi
printf '%s\n' "$new" >"$out"
