// run: --for 1s --api 0.0.9
// cloud.enqueue in 0.0.9: no options, returns undefined, about 4 kB, errors without codes.
function attempt(what: string, fn: () => unknown): void {
  try {
    print(`${what}: ${String(fn())}`);
  } catch (e) {
    print(`${what}: threw ${(e as Error & { code?: string }).code}: ${(e as Error).message}`);
  }
}
const text = (n: number): string => new Array(n + 1).join('x');
attempt('4 kB exactly', () => cloud.enqueue('big', text(4093)));
attempt('one byte more', () => cloud.enqueue('big', text(4094)));
attempt('a promise inside', () => cloud.enqueue('p', { p: Promise.resolve(1) } as unknown as object));
