#!/usr/bin/env bash
# Instruction count of one command under callgrind (stable across runs, unlike wall time).
#   bench/callgrind.sh CMD ARGS...   prints the total instruction count
set -euo pipefail
out=$(mktemp)
valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>"$out.log" || {
  cat "$out.log" >&2; rm -f "$out" "$out.log"; exit 1; }
awk '/^summary:/ {print $2}' "$out"
rm -f "$out" "$out.log"
