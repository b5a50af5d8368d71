// storage: records keyed by number, kept as JSON, with the spec's limits and errors (0.2.6).
function tryIt(what: string, fn: () => unknown): void {
  try {
    print(`${what}: ${JSON.stringify(fn())}`);
  } catch (e) {
    print(`${what}: threw ${(e as Error & { code?: string }).code ?? (e as Error).name}: ${(e as Error).message}`);
  }
}
const empty = storage.getStats();
print(`empty: used ${empty.used} of ${empty.total}, free ${empty.free}`);
tryIt('read of nothing', () => storage.read(7));
tryIt('save 7', () => storage.save(7, { name: 'door', opened: 3, tags: ['a', 'b'] }));
tryIt('read 7', () => storage.read(7));
tryIt('save 7 again', () => storage.save(7, [1, 2, 3]));
tryIt('read 7 again', () => storage.read(7));
tryIt('save a number', () => storage.save(4294967295, 42));
tryIt('save a string', () => storage.save(0, 'text'));
tryIt('save null', () => storage.save(1, null));
tryIt('read null', () => storage.read(1));
const stats = storage.getStats();
print(`after 4 records: used ${stats.used > empty.used}, total same ${stats.total === empty.total}, free + used = total ${stats.free + stats.used === stats.total}`);

// Limits and errors: 12 kB of JSON at most; functions and cycles are not serializable.
// Built by doubling: `new Array(n).join('x')` would first make an array of n holes, 48 kB on
// JerryScript, more than the string's own 12 kB.
let big = 'x';
while (big.length < 12288 - 2) big += big;
big = big.slice(0, 12288 - 2);
tryIt('save 12288 bytes', () => storage.save(2, big));
tryIt('save 12289 bytes', () => storage.save(3, big + 'y'));
tryIt('save a function', () => storage.save(3, { f: (() => 1) as unknown as number }));
const loop: { self?: unknown } = {};
loop.self = loop;
tryIt('save a cycle', () => storage.save(3, loop));
tryIt('read 3 (never saved)', () => storage.read(3));
tryIt('bad id', () => storage.save(-1, 1));
tryIt('bad id (fraction)', () => storage.read(1.5));

// readAll walks the records in id order; an error in the handler reaches the caller.
storage.readAll((id, data) => print(`  record ${id}: ${JSON.stringify(data).slice(0, 20)}`));
tryIt('readAll with a throwing handler', () =>
  storage.readAll((id) => {
    if (id === 2) throw new Error('stop at 2');
  }));
tryIt('remove 2', () => storage.remove(2));
tryIt('remove 2 again', () => storage.remove(2));
tryIt('read 2', () => storage.read(2));
let n = 0;
storage.readAll(() => n++);
print(`records left: ${n}`);
storage.clear();
n = 0;
storage.readAll(() => n++);
print(`after clear: ${n} records, used ${storage.getStats().used === empty.used ? 'as empty' : 'not as empty'}`);
