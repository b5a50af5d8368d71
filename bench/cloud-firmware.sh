#!/usr/bin/env bash
# The firmware's own cloud client against a real cloud, on nrf52_bsim (docs/firmware.md, "The
# cloud client on nrf52_bsim"): examples/cloud-report.ts for 70 minutes of device time (one sync
# of seven readings and a variable), against `beacon cloud` on TLS and on plain MQTT, through a
# byte-counting TCP relay. One line per figure:
#
#   cloud_firmware_tls_sync_bytes_up / _down     what the sync's connection carried, each way
#   cloud_firmware_plain_sync_bytes_up / _down   the same sync on plain MQTT
#   cloud_firmware_tls_handshake_bytes           the difference: the TLS handshake and records
#   cloud_firmware_tls_sync_wall_ms              the connection's wall time, open to close (TLS)
#   cloud_firmware_plain_sync_wall_ms            the same on plain MQTT
#   cloud_firmware_tls_handshake_wall_ms         the difference (the handshake's ECDHE and
#                                                certificate check on the firmware's Mbed TLS)
#   cloud_firmware_run_wall_ms                   the whole run (firmware start to end), TLS
#   cloud_firmware_report_6h_wall_ms             examples/cloud-report.ts's 6 h scenario, TLS
#
# Wall times are this machine's (noisy: compare within one run); bytes are exact.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
source scripts/lib/workspace.sh
beacon_ws_require zephyr jerryscript bsim
exec node bench/cloud-firmware.js
