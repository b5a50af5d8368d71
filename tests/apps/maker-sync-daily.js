// run: --for 74h
// The maker's syncing document: every hour the temperature goes into a "temperature-checkpoint"
// event, and sync.setSyncPeriod('1 day') makes the beacon sync once a day (the document's
// suffixes: '1 day'). The syncs come at 24 h, 48 h and 72 h, each sending the day's 24 events
// (the trace shows the cloud storing them), and nothing syncs in between.
timers.repeat('1 hour', () => {
  var currentTemperature = sensors.temp.get();
  cloud.enqueue('temperature-checkpoint', { temperature: currentTemperature });
});
sync.setSyncPeriod('1 day');
sync.setHandler(() => {
  print('sync at hour ' + Math.round(sys.getUptime() / 3600));
});
sync.setEndHandler((error) => {
  print('  ended: ' + (error ? error.code + ' ' + error.message : 'ok'));
});
