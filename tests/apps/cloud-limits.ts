// run: --for 1s
// cloud.enqueue and cloud.setVar limits in 0.2.6: the serialized message at most 8 kB (CBOR, as
// it goes to the cloud) and the return value the bytes queued; variables at most 1 kB and 30.
function attempt(what: string, fn: () => unknown): void {
  try {
    print(`${what}: ${JSON.stringify(fn())}`);
  } catch (e) {
    print(`${what}: threw ${(e as Error & { code?: string }).code}: ${(e as Error).message}`);
  }
}
const text = (n: number): string => new Array(n + 1).join('x');
attempt('8 kB exactly', () => cloud.enqueue('big', text(8189)));
attempt('one byte more', () => cloud.enqueue('big', text(8190)));
attempt('numbers', () => cloud.enqueue('n', [1, 1.5, -2, 1e21]));
attempt('a function inside', () => cloud.enqueue('f', { f: () => 1 } as unknown as object));
attempt('empty type', () => cloud.enqueue('', {}));
attempt('non-volatile', () => cloud.enqueue('keep', { a: 1 }, { volatile: false }));
// JSON text longer than CBOR: 1,800 nulls are 9,001 bytes of JSON (taken), 2,000 are 10,001
// (the JSON the device converts is at most 9,083 bytes; docs/cloud.md).
const nulls = (n: number): null[] => { const a: null[] = []; for (let i = 0; i < n; i++) a.push(null); return a; };
attempt('1,800 nulls', () => cloud.enqueue('nulls', nulls(1800)));
attempt('2,000 nulls', () => cloud.enqueue('nulls', nulls(2000)));
attempt('variable of 1 kB', () => cloud.setVar('v', text(1021)));
attempt('variable over 1 kB', () => cloud.setVar('v', text(1022)));
for (let i = 1; i < 30; i++) cloud.setVar(`v${i}`, i);
attempt('30 variables, one more', () => cloud.setVar('v30', 30));
attempt('but an existing one', () => cloud.setVar('v29', 'changed'));
// A long array is checked by its elements, not walked hole by hole: a function far out in a sparse
// array is found at once, and the named properties JSON leaves out of an array do not count.
const far: unknown[] = [];
far[4000000000] = () => 1;
attempt('a function far out in a sparse array', () => cloud.enqueue('f', far as unknown as object));
const holes: unknown[] = [];
holes[5000] = 1;
(holes as unknown as { note: () => number }).note = () => 1;
attempt('5,001 elements and a named function', () => cloud.enqueue('h', holes as unknown as object));
