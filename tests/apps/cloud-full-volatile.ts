// run: --for 1s --cloud none
// Volatile events are deleted, oldest first, to make room: a hundred 8 kB volatile events fit
// in a partition of 128 kB (the runtime's warning says how many it deleted each time).
const big = new Array(8001).join('x');
let n = 0;
for (let i = 0; i < 100; i++) {
  cloud.enqueue('v', big);
  n++;
}
print(`queued ${n} volatile events of 8 kB`);
const keep = cloud.enqueue('keep', { last: true }, { volatile: false });
print(`and a non-volatile one: ${keep} bytes`);
