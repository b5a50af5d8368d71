// run: --for 15s
// world: fault-watchdog.world.json
// A driver call that never returns is a watchdog reset; a crash of the firmware is a reset with
// the cause "system". Each time the device boots again, the app starts from the top and its
// handler hears why the device reset.
app.setErrorHandler((type, error) => {
  const e = error as Error & { reset?: string };
  print(`handler: type ${type}, reset ${e.reset}: ${e.message}`);
});
print(`start, device up ${sys.getUptime()} s`);
timers.repeat('1s', () => print(`battery ${sensors.battery.getPerc()} %`));
