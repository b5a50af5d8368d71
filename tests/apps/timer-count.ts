// run: --for 1m
// timers.count passes the calls still to come, counting down to 0; end() resolves after the
// last call, and at once for a timer that already finished.
const start = app.getUptime();
const c = timers.count('1s', 3, (left) => print(`count ${left} at ${app.getUptime() - start}`));
c.end().then(() => {
  print(`count ended at ${app.getUptime() - start}`);
  return c.end();
}).then(() => print('end() of a finished timer resolves at once'));
const none = timers.count(100, 0, () => print('a count of 0 must not call back'));
none.end().then(() => print('count of 0 finished at once'));
