// run: --for 10s
// An exception thrown in a callback goes to the handler set with app.setErrorHandler and the
// app keeps running.
app.setErrorHandler((type, error) => {
  print(`handler: type ${type}, ${error.message}`);
});
let n = 0;
timers.repeat('1s', () => {
  n++;
  if (n === 2) throw new Error(`boom at tick ${n}`);
  print(`tick ${n}`);
  if (n === 4) app.stop();
});
