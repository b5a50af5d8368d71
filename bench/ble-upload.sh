#!/usr/bin/env bash
# Uploads over BLE between firmwares on BabbleSim's air (bench/ble-upload.js): the beacon firmware
# on nrf52_bsim takes the asset tracker's package from the rig's phone (tests/rig-bsim). One line
# per figure, "name: value unit"; times in simulated milliseconds unless named wall.
#
#   ble_upload.tracker.mtu247_30ms          upload (first chunk to last answer), 247-byte ATT MTU,
#                                           30 ms connection interval
#   ble_upload.tracker.mtu247_30ms.install  upload and install, to the install's answer
#   ble_upload.tracker.mtu23_50ms           the same with what a client gets asking for nothing:
#                                           23-byte ATT MTU, 27-byte packets, a 50 ms interval
#   ble_upload.connect                      scan to subscribed (the service every 1 s)
#   ble_upload.wall_per_simulated_minute    wall time of a minute's simulation: beacon, rig, phy
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
source scripts/lib/workspace.sh
beacon_ws_require zephyr jerryscript bsim
exec node bench/ble-upload.js
