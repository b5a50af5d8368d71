// run: --for 4s --cloud none
// world: cloud-faults.world.json
// A failed flash write is ESR0201 and a timed-out one ESR0104 (the call was interrupted): the
// event is not queued, the ones before it stay, and the next enqueue works.
function enqueue(what: string, n: number): void {
  try {
    print(`${what}: queued ${cloud.enqueue('e', { n }, { volatile: false })} bytes`);
  } catch (e) {
    print(`${what}: threw ${(e as Error & { code?: string }).code}: ${(e as Error).message}`);
  }
}
enqueue('at 0 s', 1);
timers.single('1500ms', () => enqueue('at 1.5 s, the write fails', 2));
timers.single('2500ms', () => enqueue('at 2.5 s, the write times out', 3));
timers.single('3s', () => enqueue('at 3 s', 4));
