#!/usr/bin/env bash
# Cloud benchmarks: one line per figure, "name: value unit".
#
#   bash bench/cloud.sh            (CLOUD_BENCH_DEVICES=1000 CLOUD_BENCH_EVENTS=20 by default)
#
#   cloud_wire_batch<N>_publish_per_payload   bytes of the upload PUBLISH (MQTT + CBOR framing)
#                                           per payload byte, for one batch of N events of
#                                           200-byte payloads (TLS not counted)
#   cloud_wire_batch<N>_exchange_per_event    MQTT bytes, both directions, that the batch adds
#                                           to a sync (PUBLISH, PUBACK, acknowledgement, PUBACK)
#                                           per event, and the same per payload byte
#   cloud_wire_batch<N>_sync                  MQTT bytes, both directions, of a whole sync that
#                                           uploads the N events (CONNECT to DISCONNECT)
#   cloud_wire_empty_sync                     the same for a sync with nothing to send or receive
#   cloud_<sqlite|postgres>_events_per_s      events stored per second while 1,000 simulated
#                                           devices (in this process) sync at once with
#                                           `beacon cloud` (another process), each uploading
#                                           20 events of 200 bytes in batches of 10
#   cloud_<sqlite|postgres>_sync_wall         wall time from the first connect to the last
#                                           device done (the 1,000 mqtt.js clients in one node
#                                           process share this machine's two cores with the cloud)
#   cloud_<sqlite|postgres>_ingest_events_per_s   events over the span between the first and the
#                                           last batch committed (the store's own pace)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
exec node bench/cloud.js
