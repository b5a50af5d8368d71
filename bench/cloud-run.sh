#!/usr/bin/env bash
# `beacon run` of a cloud app (examples/cloud-report.ts in its scenario, 6 h of device time,
# 10 syncs) with the cloud it starts itself against the loopback cloud; one line per figure,
# "name: value unit". Medians of CLOUD_RUN_BENCH_RUNS runs (default 5) of a prebuilt package.
#
#   cloud_run_embedded_wall          wall time of `beacon run` with its own cloud (start, syncs
#                                    over MQTT to the SQLite store, trace merge, stop)
#   cloud_run_loopback_wall          the same run with --cloud loopback
#   cloud_run_embedded_vs_loopback   their ratio
#   cloud_run_service_start          the service's start inside `beacon run` (store, broker,
#                                    HTTP), as it logs with --verbose
#   cloud_run_sim_embedded_real      the simulator's part of the run with its own cloud (its
#                                    "ms real": 10 syncs over MQTT, 62 events)
#   cloud_run_sim_loopback_real      the same with the loopback cloud
#   cloud_service_start_in_process   startCloud() to ready, SQLite file, in a warm process
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
exec node bench/cloud-run.js
