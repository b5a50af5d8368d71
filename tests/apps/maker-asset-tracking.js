// world: maker-asset-tracking.world.json
// run: --for 150m
// The maker's Bluetooth document, scanning: every hour the tracker scans for 10 seconds, keeps
// the identifiers of the beacons it detected (ble.parse recognises the iBeacon packets) and
// queues an "assets-update" event with them; a sync sends it. The interval strings are the
// document's ('1 hour', '10 secs'). Each update names the two pallets and only them (the
// Eddystone-URL poster is no asset).
var SCAN_INTERVAL = '1 hour';
var SCAN_DURATION = '10 secs';
var detectedBeacons = {};
sync.setEndHandler(function (error) {
  print('sync at ' + Math.round(sys.getUptime() / 60) + ' min: ' + (error ? error.code : 'ok'));
});
timers.repeat(SCAN_INTERVAL, function () {
  ble.startScan(function (scanRecord) {
    var packet = ble.parse(scanRecord);
    if (packet && packet.type === 'iBeacon') {
      detectedBeacons[packet.uuid + ':' + packet.major + ':' + packet.minor] = true;
    }
  }, SCAN_DURATION).then(function () {
    var ids = Object.keys(detectedBeacons).sort();
    var bytes = cloud.enqueue('assets-update', { assets: ids });
    print(Math.round(sys.getUptime() / 60) + ' min: assets-update with ' + ids.join(', ') + ' (' + bytes + ' bytes)');
    detectedBeacons = {};
    sync.now();
  });
});
