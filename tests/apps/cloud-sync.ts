// run: --for 10m --utc 2026-01-01T00:00:00Z
// The sync cycle (0.2.6): the start handler runs first and what it queues goes out in the same
// sync; sync.now() has no effect (false) while a sync runs; the end handler gets undefined; the
// period (at least 120 s) counts from the end of the last sync; setVar is sent only when it
// changed. The trace shows what the cloud stored.
let n = 0;
sync.setHandler(() => {
  n++;
  print(`start ${n}: now() while running = ${sync.now()}`);
  cloud.enqueue('in-start', { n }, { volatile: false });
});
sync.setEndHandler((error) => {
  print(`end ${n}: ${error === undefined ? 'ok' : error.message} at ${Math.round(sys.getUptime())} s`);
});
print(`bytes queued: ${cloud.enqueue('temp', { c: 21.5 }, { volatile: false })}`);
print(`setVar bytes: ${cloud.setVar('mode', 'eco')}`);
sync.setSyncPeriod(120);
print(`now() = ${sync.now()}`);
timers.single('30s', () => {
  cloud.setVar('mode', 'eco'); // unchanged: not sent again
  cloud.setVar('level', 3);
});
timers.single('200s', () => sync.setSyncPeriod('5 min'));
