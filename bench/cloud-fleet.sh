#!/usr/bin/env bash
# The cloud under a fleet: a durable PostgreSQL (fsync on), a Mosquitto configured by
# `beacon cloud mosquitto-config`, W `beacon cloud --broker --db` worker processes on its shared
# subscription (its service listener), and
# `beacon cloud load` in another process (the lean device clients over its worker processes).
# One line per figure, "name: value unit".
#
#   cloud_fleet_w<W>_events_per_s       events acknowledged per second (an acknowledgement is
#                                       sent after the commit) from the first connect to the
#                                       last acknowledgement: CLOUD_FLEET_DEVICES devices (1000)
#                                       syncing at once, each uploading CLOUD_FLEET_EVENTS (200)
#                                       events of 200 bytes in batches of 10, window 4
#   cloud_fleet_w<W>_ack_p50_ms         PUBLISH of a batch to its acknowledgement, median and
#   cloud_fleet_w<W>_ack_p99_ms         99th percentile (batches acknowledged; a batch that
#                                       timed out is counted in ..._reconnects instead)
#   cloud_fleet_w<W>_reconnects         syncs that failed (no answer within 20 s) and were retried
#   cloud_fleet_w<W>_generator_cpu_us_per_event   the load generator's own CPU per event
#   cloud_fleet_10k_connections_held    most device connections established at the broker at
#                                       once (from /proc/net/tcp) while 10,000 devices sync one
#                                       event each and keep their connection 60 s after
#   cloud_fleet_10k_connections_broker_rss_mb   Mosquitto's and the larger cloud worker's peak
#   cloud_fleet_10k_connections_worker_rss_mb   resident set during that run (two workers)
#   cloud_fleet_backlog_<N>_devices_s   a backlog drained: N devices (CLOUD_FLEET_BACKLOG,
#                                       default 100000) with 12 events queued each all come back
#                                       at once (at most 10,000 connected at a time); first
#                                       connect to last acknowledgement, two workers
#   cloud_fleet_backlog_<N>_reconnects  syncs retried during the drain
#
# W is 1, 2 and 4.
#   CLOUD_FLEET_BACKLOG=10000 bash bench/cloud-fleet.sh     (a quicker run)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
exec node bench/cloud-fleet.js
