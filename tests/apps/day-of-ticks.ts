// run: --for 24h
// A repeat timer of 1 s run for 24 h of device time fires 86,400 times (in seconds of real time).
let ticks = 0;
timers.repeat('1s', () => {
  ticks++;
  if (ticks % 21600 === 0) print(`${ticks} ticks at ${sys.getUptime()} s`);
});
