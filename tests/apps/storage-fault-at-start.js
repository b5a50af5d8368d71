// world: storage-fault-at-start.world.json
// run: --for 1s
// An input at 0 reaches the device before its app's top level runs (docs/world.md: inputs at a
// millisecond come before any device runs at it): the storageFault at 0 meets the app's first
// save, which fails with ESR0201; the fault is spent, so the next save works.
try {
  storage.save(1, { a: 1 });
  print('first save: saved');
} catch (e) {
  print('first save: ' + e.code);
}
try {
  print('second save: ' + storage.save(1, { a: 2 }) + ' bytes');
} catch (e) {
  print('second save: ' + e.code + ' ' + e.message);
}
