// run: --utc 2026-03-01T08:00:00Z
// world: sys-info.world.json
// sys: public id, hardware, firmware (the API version the app was built for), uptime in seconds,
// and time sync: before it, timers.at refuses with ESR0005 and Date counts from 1970; after it,
// the clock is UTC.
print(`id ${sys.getPublicId()}, hardware ${sys.getHardware()}, firmware ${sys.getFirmware().join('.')}`);
print(`synced ${sys.isTimeSynced()}, year ${new Date().getUTCFullYear()}`);
try {
  timers.at(Date.UTC(2026, 2, 1, 9), () => {});
} catch (e) {
  print(`timers.at: ${(e as Error).message}`);
}
timers.repeat('2500ms', () => {
  print(`uptime ${sys.getUptime()} s, synced ${sys.isTimeSynced()}${sys.isTimeSynced() ? `, ${new Date().toISOString()}` : ''}`);
  if (sys.getUptime() >= 7) app.stop();
});
