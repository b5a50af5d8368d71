// run: --for 1m
// reset() schedules a single timer again from now; 0 or no interval keeps the previous one.
const start = app.getUptime();
const at = () => app.getUptime() - start;
let round = 0;
const t = timers.single(300, () => {
  round++;
  print(`fired at ${at()} (round ${round})`);
  if (round === 1) t.reset(); // keeps 300
  else if (round === 2) t.reset(0); // keeps 300
  else if (round === 3) t.reset('1s'); // new interval
  else if (round === 4) t.reset(); // keeps 1000
});
// Reset while running restarts the countdown.
const w = timers.single(500, () => print(`watchdog fired at ${at()}`));
timers.single(400, () => w.reset());
