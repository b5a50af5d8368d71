#!/usr/bin/env bash
# The BLE air between firmwares on BabbleSim against the simulator's air model (docs/world.md,
# "The air"; bench/ble-air-firmware.js). Two nrf52_bsim firmwares play tests/apps/
# ble-two-devices.world.json with bench/apps/ble-air-compare.js: the first advertises an iBeacon
# every 100 ms and an Eddystone-URL every 1000 ms, the second scans. The same run on the
# simulator gives the model's side. One line per figure, "name: value unit"; simulated time.
#
#   ble_air.adv_events_per_s.100ms.{bsim,model,interval_only}
#                           advertising events per second of the 100 ms set: on the air (the
#                           phy's dump of what the firmware sent), in the model's trace, and
#                           what one event per interval would give
#   ble_air.adv_events_per_s.1000ms.{bsim,model}   the same for the 1000 ms set
#   ble_air.adv_delay_{mean,range}.bsim    the advDelay the controller added to each interval
#   ble_air.adv_channels.bsim              the channels of each event, in the order sent
#   ble_air.scan.<scan>.{model,bsim}       what the scanning app printed for each of its scans
#                                          (passive 20 s, deduplicate 5 s, active 5 s)
#   ble_air.distance.<m>m.{model,bsim}     the passive scan with the devices that far apart: records
#                                          and mean RSSI (the firmwares on the multiatt channel)
#   ble_air.wall_per_simulated_minute      wall time of a simulated minute of the two firmwares
#   ble_air.connected.*                    the advertiser (bench/apps/ble-air-advertiser.js, in
#                                          the beacon's app store) while the rig's phone holds an
#                                          upload connection (30 ms interval) for the rest of the
#                                          run: its events per second, and the events lost against
#                                          the unconnected rate
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
source scripts/lib/workspace.sh
beacon_ws_require zephyr jerryscript bsim
exec node bench/ble-air-firmware.js
