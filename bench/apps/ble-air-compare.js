// Probe of bench/ble-air-firmware.sh, the same on the simulator and on nrf52_bsim firmwares: the
// first device advertises an iBeacon every 100 ms and an Eddystone-URL every 1000 ms; the second
// 5 m away (tests/apps/ble-two-devices.world.json) scans passively for 20 s (default windows, 100 of every 150 ms), then with deduplicate for 5 s,
// then actively for 5 s, and prints what it heard per packet type.
var first = sys.getPublicId().slice(-4) === '0001';

function counter() {
  return { types: {}, channels: {}, responses: 0, records: 0, rssi: 0 };
}

function collect(c) {
  return function (r) {
    c.records++;
    if (r.scanResponse) { c.responses++; return; }
    c.channels[r.channel] = true;
    c.rssi += r.rssi;
    var p = ble.parse(r);
    var t = p ? p.type : 'other';
    c.types[t] = (c.types[t] || 0) + 1;
  };
}

function line(name, c) {
  var types = Object.keys(c.types).sort().map(function (t) { return t + ' ' + c.types[t]; }).join(', ');
  var adv = c.records - c.responses;
  return name + ': records ' + c.records + ', responses ' + c.responses + ', ' + types +
    ', channels ' + Object.keys(c.channels).sort().join(',') +
    ', mean rssi ' + (adv ? (c.rssi / adv).toFixed(1) : '-');
}

if (first) {
  ble.advertise(ble.build.iBeacon('e2c56db5dffb48d2b060d0f5a71096e0', 1, 2, -59)).interval(100);
  ble.advertise(ble.build.eddystoneUrl('https://example.com/')).interval(1000);
  timers.single(40000, function () { app.stop(); });
} else {
  var passive = counter(), dedup = counter(), active = counter();
  timers.single(1000, function () {
    ble.startScan(collect(passive), 20000, { passive: true }).then(function () {
      print(line('passive 20 s', passive));
      return ble.startScan(collect(dedup), 5000, { passive: true, deduplicate: true });
    }).then(function () {
      print(line('deduplicate 5 s', dedup));
      return ble.startScan(collect(active), 5000);
    }).then(function () {
      print(line('active 5 s', active));
      app.stop();
    });
  });
}
