// run: --for 4s
// world: storage-faults.world.json
// A failed flash write is ESR0201 and a timed-out one ESR0205 (0.2.6); either way the record
// keeps its last good value and the next save works.
function save(what: string, value: number): void {
  try {
    print(`${what}: saved ${storage.save(1, { value })} bytes`);
  } catch (e) {
    print(`${what}: threw ${(e as Error & { code?: string }).code}: ${(e as Error).message}`);
  }
  print(`  record 1 now ${JSON.stringify(storage.read(1))}`);
}
save('at 0 s', 1);
timers.single('1500ms', () => save('at 1.5 s, the write fails', 2));
timers.single('2500ms', () => save('at 2.5 s, the write times out', 3));
timers.single('3s', () => save('at 3 s', 4));
