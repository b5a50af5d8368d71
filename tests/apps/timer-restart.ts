// run: --for 1m
// restart() starts a stopped repeat timer again (keeping or changing its interval) and does
// nothing to a running one.
const start = app.getUptime();
const at = () => app.getUptime() - start;
let n = 0;
const r = timers.repeat(200, () => {
  n++;
  print(`tick ${n} at ${at()}`);
  if (n === 2) {
    r.restart(50); // running: no effect, interval stays 200
  } else if (n === 3) {
    r.stop();
    timers.single(1000, () => r.restart());
  } else if (n === 5) {
    r.stop();
    timers.single(100, () => r.restart('500ms'));
  } else if (n === 7) {
    r.stop();
  }
});
