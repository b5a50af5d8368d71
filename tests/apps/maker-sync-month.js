// world: maker-profiles.world.json
// run: --for 32d
// The maker's syncing document: an event every hour, and the queue keeps them in flash until the
// sync period is up. A month of 31 days is 744 hourly events of 200 bytes each: on every
// hardware profile none of them forces an early sync (the store is not "nearly full": that is
// counted in flash bytes), the first sync starts when the period is up, and it sends them all,
// emptying the queue (what is left is the queue's own state record).
var HOUR = 60 * 60 * 1000;
var events = 0;
var pad = new Array(136).join('x');
var syncs = 0;
sync.setSyncPeriod('31 days');
timers.repeat(HOUR, function () {
  events++;
  var bytes = cloud.enqueue('temperature-checkpoint', { temperature: 21.5, n: events, pad: pad });
  if (events === 1) print('an event takes ' + bytes + ' bytes');
});
sync.setHandler(function () {
  syncs++;
  var s = storage.getStats();
  print('sync ' + syncs + ' starts at hour ' + Math.round(sys.getUptime() / 3600) + ' with ' + events +
    ' events queued, ' + s.used + ' of ' + s.total + ' bytes used');
});
sync.setEndHandler(function (error) {
  var s = storage.getStats();
  print('sync ' + syncs + ' ends: ' + (error ? error.code : 'ok') + ', ' + s.used + ' bytes used');
});
