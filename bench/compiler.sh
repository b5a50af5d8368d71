#!/usr/bin/env bash
# Compiler benchmarks: one line per figure, "name: value unit".
#
#   bash bench/compiler.sh
#
# For every app in examples/ (the two examples and three realistic apps: asset-tracker,
# button-led, telemetry) and every engine built (Duktape; JerryScript when JERRYSCRIPT_DIR is
# set):
#   compiler_<app>_<engine>_build_time      wall time of `beacon build` (a fresh node process:
#                                           loading the compiler, the host-tool check, type
#                                           check, bundle, minify, bytecode)
#   compiler_<app>_<engine>_{source,es5,minified,bytecode,package}   bytes at each stage
#   compiler_<app>_<engine>_package_per_minified   package bytes / minified-source bytes
#   compiler_<app>_<engine>_bytecode_{dense,unminified}   bytecode when the script is minified
#                                           to one line, or not minified at all (the default
#                                           keeps a statement per line for error locations)
# Then Microsoft DeviceScript (@devicescript/cli from npm, installed into a temporary directory
# for this run only) compiles the same apps written for its API (bench/devicescript/):
#   devicescript_<app>_build_time           wall time of `devs build`
#   devicescript_<app>_bytecode             size of the bytecode image it writes
#   devicescript_<app>_per_beacon_minified  its image / the beacon app's minified source
# If DeviceScript cannot be installed or run, the lines say what failed instead.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bash scripts/setup.sh >/dev/null
build=build/bench
configure=(-S . -B "$build" -DCMAKE_BUILD_TYPE=Release)
targets=(beacon-sim beacon-pack)
engines=(duktape)
if [ -n "${JERRYSCRIPT_DIR:-}" ]; then
  configure+=("-DJERRYSCRIPT_DIR=$JERRYSCRIPT_DIR")
  targets+=(beacon-sim-jerryscript beacon-pack-jerryscript)
  engines+=(jerryscript)
fi
cmake "${configure[@]}" >/dev/null
cmake --build "$build" -j2 --target "${targets[@]}" >/dev/null
export BEACON_HOST_BUILD="$PWD/$build"
# Whole builds, every time: neither the build cache nor a compile server (bench/loop.sh measures those).
export BEACON_BUILD_CACHE=off BEACON_COMPILE_SERVER=off
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ms_now() { echo $(($(date +%s%N) / 1000000)); }
apps=(hello timers asset-tracker button-led telemetry)

declare -A minified
for app in "${apps[@]}"; do
  for engine in "${engines[@]}"; do
    out="$work/$app-$engine.bapp"
    start=$(ms_now)
    node bindings-ts/bin/beacon.js build "examples/$app.ts" -o "$out" --engine "$engine" --json >"$work/report.json" 2>"$work/build.log" || {
      echo "compiler_${app}_${engine}_build: failed"; sed 's/^/  /' "$work/build.log" >&2; continue; }
    end=$(ms_now)
    echo "compiler_${app}_${engine}_build_time: $((end - start)) ms"
    node -e '
      const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      const p = `compiler_${process.argv[2]}_${process.argv[3]}`;
      for (const k of ["source", "es5", "minified", "bytecode", "package"]) console.log(`${p}_${k}: ${r.sizes[k]} bytes`);
      console.log(`${p}_package_per_minified: ${(r.sizes.package / r.sizes.minified).toFixed(2)} x`);
    ' "$work/report.json" "$app" "$engine"
    minified[$app]=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).sizes.minified)' "$work/report.json")
    node -e '
      const { compileApp } = require(process.argv[1] + "/bindings-ts/dist/src/compiler");
      (async () => {
        for (const mode of ["dense", "none"]) {
          const r = await compileApp({ entry: `${process.argv[1]}/examples/${process.argv[2]}.ts`, apiVersion: "0.2.6",
            engine: process.argv[3], outFile: `${process.argv[4]}/mode.bapp`, minify: mode });
          console.log(`compiler_${process.argv[2]}_${process.argv[3]}_bytecode_${mode === "none" ? "unminified" : mode}: ${r.sizes.bytecode} bytes`);
        }
      })().catch((e) => { console.error(e.message); process.exit(1); });
    ' "$root" "$app" "$engine" "$work"
  done
done

# ---------------------------------------------------------------------------------- DeviceScript

devs_dir="$work/devicescript"
mkdir -p "$devs_dir/src"
echo '{ "name": "beacon-bench-devicescript", "private": true }' >"$devs_dir/package.json"
if ! (cd "$devs_dir" && npm install --no-save --no-audit --no-fund @devicescript/cli >"$work/npm.log" 2>&1); then
  echo "devicescript_install: failed (npm install @devicescript/cli: $(grep -m1 -i 'err' "$work/npm.log" || tail -n1 "$work/npm.log"))"
  exit 0
fi
devs="$devs_dir/node_modules/.bin/devs"
echo "devicescript_version: $("$devs" --version 2>/dev/null | sed -n 's/^devs: v\([^,]*\),.*/\1/p') (cli)"
echo '{}' >"$devs_dir/devsconfig.json"
cp bench/devicescript/*.ts "$devs_dir/src/"
# The first build unpacks DeviceScript's libraries into the project; timed apart.
start=$(ms_now)
if ! (cd "$devs_dir" && "$devs" build --no-colors src/hello.ts >"$work/devs.log" 2>&1); then
  echo "devicescript_setup: failed ($(grep -m1 -i 'error' "$work/devs.log" || tail -n1 "$work/devs.log"))"
  exit 0
fi
end=$(ms_now)
echo "devicescript_first_build_time: $((end - start)) ms"
for app in "${apps[@]}"; do
  image="$devs_dir/.devicescript/bin/bytecode.devs"
  rm -f "$image"
  start=$(ms_now)
  if ! (cd "$devs_dir" && "$devs" build --no-colors "src/$app.ts" >"$work/devs.log" 2>&1); then
    echo "devicescript_${app}_build: failed ($(grep -m1 'error' "$work/devs.log"))"
    continue
  fi
  end=$(ms_now)
  bytes=$(stat -c %s "$image")
  echo "devicescript_${app}_build_time: $((end - start)) ms"
  echo "devicescript_${app}_source: $(stat -c %s "bench/devicescript/$app.ts") bytes"
  echo "devicescript_${app}_bytecode: $bytes bytes"
  if [ -n "${minified[$app]:-}" ]; then
    awk -v a="$bytes" -v b="${minified[$app]}" -v n="$app" 'BEGIN { printf "devicescript_%s_per_beacon_minified: %.2f x\n", n, a / b }'
  fi
done
