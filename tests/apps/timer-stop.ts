// run: --for 10s
// stop() stops a running timer; stopping it again has no effect and does not throw.
let ticks = 0;
const t = timers.repeat(100, () => ticks++);
timers.single(350, () => {
  t.stop();
  print(`stopped after ${ticks} ticks`);
  t.stop();
  print('second stop: no effect, no error');
});
timers.single(1000, () => print(`one second later still ${ticks} ticks`));
const s = timers.single(100, () => print('a stopped single timer must not fire'));
s.stop();
s.stop();
