// run: --for 1s --cloud none
// The flash holds the event queue and the app's storage together. Volatile events make room for
// new ones (oldest first); once only non-volatile events are left, cloud.enqueue throws ESR0202
// and nothing queued before is lost.
const big = new Array(8001).join('x');
let kept = 0;
try {
  for (;;) {
    cloud.enqueue('keep', big, { volatile: false });
    kept++;
  }
} catch (e) {
  print(`after ${kept} non-volatile events: ${(e as Error & { code?: string }).code}: ${(e as Error).message}`);
}
print(`storage left: ${JSON.stringify(storage.getStats())}`);
