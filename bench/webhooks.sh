#!/usr/bin/env bash
# Webhook figures: one line per figure, "name: value unit" (what each is: bench/webhooks.js).
#
#   bash bench/webhooks.sh
#   (WH_LAT_DEVICES=50 WH_LAT_EVENTS=100 WH_BACKLOG=20000 WH_ROUNDS=3 WH_PARTS=latency,throughput,ingest by default)
#
#   cloud_webhook_commit_to_post_ms_p50/_p99   batch handed to the store -> POST at the receiver
#   cloud_webhook_deliveries_per_s             a backlog drained to a local receiver
#   cloud_webhook_ingest_events_per_s_none     the store's write path, no webhook
#   cloud_webhook_ingest_events_per_s_silent   the same with a webhook whose receiver never answers
#   cloud_webhook_ingest_ratio                 silent / none
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
exec node bench/webhooks.js
