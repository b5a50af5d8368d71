#!/usr/bin/env bash
# The cloud's fuzz suite (bindings-ts/src/cloud/fuzz/, what test/cloudFuzz.test.ts runs in CI)
# run longer: one line per figure, "name: value unit". CLOUD_FUZZ_SEED (default 35) and
# CLOUD_FUZZ_SCALE (default 5: five times the CI test's counts) choose the run.
#
#   cloud_fuzz_<part>_count    requests (HTTP) or sessions (MQTT) sent by one part:
#                              http_grammar   requests from the API's grammar
#                              http_mutation  byte-level mutations of recorded good requests
#                              http_model     model-based command sequences (their requests)
#                              mqtt_grammar   sessions from the protocol's grammar
#                              mqtt_mutation  byte-level mutations of a recorded good session
#   cloud_fuzz_<part>_per_s    the same per second of wall time, invariants checks included
#                              (after every batch of 10: the service alive, a device synced,
#                              the store's invariants)
#   cloud_fuzz_total_count     everything sent, and cloud_fuzz_total_s the whole run's time
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
exec node bench/cloud-fuzz.js
