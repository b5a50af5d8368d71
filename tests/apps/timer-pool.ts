// The timer pool is fixed: creating more timers than it holds throws ESR0004, and the app goes on.
const held = [];
let error: any;
try {
  for (let i = 0; i < 100; i++) held.push(timers.repeat('1h', () => {}));
} catch (e) {
  error = e;
}
print(`created ${held.length} timers, then: ${error && error.code} (${error && error.message})`);
held[0].stop();
timers.single(10, () => print('after stopping one, a new timer runs'));
held.slice(1).forEach((t) => t.stop());
