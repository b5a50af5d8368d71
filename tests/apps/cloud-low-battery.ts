// run: --for 1h --utc 2026-01-01T00:00:00Z
// world: cloud-low-battery.world.json
// With events queued and the period a month away, a battery falling below 10 % starts a sync
// (the battery is looked at every 10 minutes while events wait), once.
cloud.enqueue('reading', { v: 1 }, { volatile: false });
sync.setEndHandler((error) => print(`synced at ${Math.round(sys.getUptime() / 60)} min: ${error === undefined ? 'ok' : error.message}`));
timers.single('45 min', () => {
  cloud.enqueue('reading', { v: 2 }, { volatile: false });
  print('queued another at 45 min: no sync for it until the period');
});
