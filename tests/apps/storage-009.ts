// run: --api 0.0.9
// storage in 0.0.9: about 4 kB per record, save returns nothing, errors carry no codes; no
// getStats (it came in 0.1.0).
function tryIt(what: string, fn: () => unknown): void {
  try {
    print(`${what}: ${JSON.stringify(fn())}`);
  } catch (e) {
    print(`${what}: threw ${(e as Error & { code?: string }).code ?? (e as Error).name}: ${(e as Error).message}`);
  }
}
const text = new Array(4096 - 2 + 1).join('x');
tryIt('save 4096 bytes', () => storage.save(1, text));
tryIt('save 4097 bytes', () => storage.save(2, text + 'y'));
tryIt('save a function', () => storage.save(2, { f: (() => 1) as unknown as number }));
tryIt('read 1 length', () => (storage.read(1) as string).length);
tryIt('remove 1', () => storage.remove(1));
print(`getStats: ${typeof (storage as unknown as { getStats?: unknown }).getStats}`);
