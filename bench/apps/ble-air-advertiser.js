// Advertiser of bench/ble-air-firmware.sh: an iBeacon every 100 ms, for as long as the run lasts
// (its packets counted on BabbleSim's air while an upload client is connected and while none is).
ble.advertise(ble.build.iBeacon('e2c56db5dffb48d2b060d0f5a71096e0', 7, 9, -59)).interval(100);
