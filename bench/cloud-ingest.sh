#!/usr/bin/env bash
# The PostgreSQL store's write path alone: one line per figure, "name: value unit".
#
#   bash bench/cloud-ingest.sh
#   (CLOUD_INGEST_WORKERS=2 CLOUD_INGEST_DEVICES=200 CLOUD_INGEST_BATCHES=100
#    CLOUD_INGEST_VARIANTS=old,new,new_fk by default)
#
#   cloud_pg_store_events_per_s_new     events stored per second by WORKERS processes, each with
#                                       its own PgStore, while DEVICES simulated devices store
#                                       BATCHES batches of 10 events of 200 bytes each, a batch
#                                       after the acknowledgement of the one before; fsync on
#   cloud_pg_store_events_per_s_new_fk  the same with a foreign key from events to devices
#   cloud_pg_store_events_per_s_old     the store before partitioning and one-statement groups
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
exec node bench/cloud-ingest.js
