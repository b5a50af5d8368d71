// run: --for 10s
// A single timer fires once, after its interval, and never again.
const start = app.getUptime();
let fired = 0;
timers.single(500, () => {
  fired++;
  print(`single fired after ${app.getUptime() - start} ms`);
});
timers.single('2s', () => print(`after 2 s the single timer had fired ${fired} time(s)`));
