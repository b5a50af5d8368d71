// Benchmark app of bench/scan-delivery.sh: a scan that listens all the time (window = interval)
// for __FOR__ ms and then prints how many records its callback got. The callback counts and
// otherwise does nothing, or also reads two fields (__READ__).
var n = 0;
var sink = 0;
ble.startScan(function (r) {
  n++;
  __READ__
}, __FOR__, { passive: true, interval: 10, window: 10 }).then(function () {
  print('records ' + n + ' ' + sink);
});
