// Benchmark app of bench/ble_air.sh: the device whose public id ends in __SCANNER__ scans
// (passively, __WINDOW__ ms of every __INTERVAL__ ms, a trivial callback); every other device
// advertises an iBeacon every 100 ms. The scanner prints how many records it got.
var id = sys.getPublicId();
if (id.slice(-4) === '__SCANNER__') {
  var n = 0;
  ble.startScan(function (r) { n++; }, 0, { passive: true, interval: __INTERVAL__, window: __WINDOW__ });
  timers.single(__FOR__ - 1, function () { print('records ' + n); ble.stopScan(); });
} else {
  ble.advertise(ble.build.iBeacon('e2c56db5dffb48d2b060d0f5a71096e0', 1, 2, -59)).interval(100);
}
