// run: --for 20m --utc 2026-01-01T00:00:00Z
// A start handler's promise is awaited (0.2.4 and later): the exchange waits until it settles,
// at most 5 minutes; what the handler queues before it settles goes out in that sync.
let n = 0;
sync.setHandler(() => {
  n++;
  print(`start ${n} at ${sys.getUptime()} s`);
  if (n === 1) {
    return new Promise<void>((resolve) => timers.single('10s', () => {
      cloud.enqueue('late', { n }, { volatile: false });
      resolve();
    }));
  }
  return new Promise<void>(() => {}); // never settles
});
sync.setEndHandler((error) => print(`end ${n} at ${sys.getUptime()} s: ${error === undefined ? 'ok' : error.message}`));
sync.now();
timers.single('1 min', () => print(`sync.now() at 60 s: ${sync.now()}`));
timers.single('2 min', () => print(`sync.now() at 120 s, while the second waits: ${sync.now()}`));
