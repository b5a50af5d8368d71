// run: --for 5s
// A callback that never returns is stopped by the work budget (1,000,000 loop iterations by
// default) with ESR0104, which the error handler hears; the app's other timers keep firing. The
// budget counts work, not time: the loop stops at the same iteration on every run.
let spins = 0;
app.setErrorHandler((type, error) => {
  print(`handler: type ${type}, ${(error as Error & { code?: string }).code}, after ${spins > 0 ? 'many' : 'no'} iterations`);
  print(`interrupted after ${spins > 500000 && spins < 4000000 ? 'about a million' : spins} iterations`);
});
timers.repeat('1s', () => print(`tick ${sys.getUptime()}`));
timers.single('2500ms', () => {
  for (;;) spins++;
});
