// The device's heap runs out at 1 s: on either engine that is a device reset, as on the beacon.
// The app starts again (its uptime from 0, its timers gone), its error handler hears why the
// device reset, and after three resets in a row the reboot-loop guard stops it.
app.setErrorHandler((type, error) => {
  const e = error as Error & { code?: string; reset?: string };
  print(`handler: type ${type}, ${e.code}, reset ${e.reset}: ${e.message}`);
});
print(`start: device up ${sys.getUptime()} s`);
const kept: string[] = [];
timers.single('5s', () => print(`a timer of an earlier life fired (${kept.length} rows)`));
timers.single('1s', () => {
  for (;;) kept.push(`row ${kept.length} of text that fills the heap`);
});
