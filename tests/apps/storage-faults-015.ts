// run: --for 4s --api 0.1.5
// world: storage-faults.world.json
// Before 0.2.6 there is no ESR0205: a timed-out flash write is a storage error, ESR0201.
function save(what: string, value: number): void {
  try {
    print(`${what}: saved ${storage.save(1, { value })} bytes`);
  } catch (e) {
    print(`${what}: threw ${(e as Error & { code?: string }).code}`);
  }
}
timers.single('1500ms', () => save('at 1.5 s', 2));
timers.single('2500ms', () => save('at 2.5 s', 3));
timers.single('3s', () => save('at 3 s', 4));
