// world: ble-two-devices.world.json
// run: --for 30s
// stderr: run ended (the time given ran out) after 30.000 s of device time
// The maker's Bluetooth document, advertising: ble.build.estimoteLocation() with the device's
// identifier, advertised every 500 ms at -4 dBm through the chained handle. The spec's
// ble.build.vendorLocation is the same builder. The second device scans for 10 s as the
// document's scanning examples do, and recognises the packet with ble.parse: its deviceId is the
// advertiser's public id. Of the 20 advertisements of those 10 s it hears those that fall in its
// scan windows (100 ms of every 150 ms by default). Once the scan is over nothing but the
// advertiser is left, and the run still lasts the 30 s asked for.
var me = sys.getPublicId();
if (me.slice(-1) === '1') {
  var packet = ble.build.estimoteLocation();
  var same = toHex(packet.manufData) === toHex(ble.build.vendorLocation().manufData);
  print('vendorLocation builds the same packet: ' + same);
  var handle = ble.advertise(packet);
  var chained = handle.interval(500) === handle && handle.power(-4) === handle;
  print('interval and power chain: ' + chained);
} else {
  var heard = 0;
  var from = {};
  timers.single('1s', function () {
    ble.startScan(function (scanRecord) {
      var p = ble.parse(scanRecord);
      if (p && p.type === 'vendorLocation') {
        heard++;
        from[p.deviceId] = true;
      }
    }, '10 secs').then(function () {
      var ids = Object.keys(from);
      print('scan over: heard ' + heard + ' location packets from ' + ids.length + ' device');
      print('it is the advertiser: ' + (ids[0] === me.slice(0, -1) + '1'));
    });
  });
}
