// run: --for 1m
// end() of a single timer resolves after the timer fired (after its callback), not on stop().
const start = app.getUptime();
const t = timers.single(250, () => print(`callback at ${app.getUptime() - start}`));
t.end().then(() => print(`end resolved at ${app.getUptime() - start}`));
const stopped = timers.single(100, () => print('never'));
let settled = false;
stopped.end().then(() => { settled = true; });
stopped.stop();
timers.single(1000, () => print(`stopped timer's end() settled: ${settled}`));
