// preview() sends JSON to the visualisation console (the trace's preview records); a value JSON
// cannot carry is ESR0203, more than 1024 bytes of it ESR0204. app.getMemStats() reports the
// engine's heap: used and free add up to the total, the peak is at least what is used, and
// app.gc() gives back what the app dropped.
preview({ temperature: 21.5, lit: [true, false], label: 'hall' });
for (const bad of [{ f: () => 1 }, { text: new Array(1101).join('x') }]) {
  try {
    preview(bad);
  } catch (e) {
    print((e as Error).message);
  }
}
const before = app.getMemStats();
print(`adds up: ${before.used + before.free === before.total}, peak >= used: ${before.peak >= before.used}`);
let junk: string[] | undefined = [];
for (let i = 0; i < 2000; i++) junk.push(`item ${i}`);
const grown = app.getMemStats();
print(`grew: ${grown.used > before.used}`);
junk = undefined;
app.gc();
const after = app.getMemStats();
print(`gc gave back: ${after.used < grown.used}, peak kept: ${after.peak >= grown.used}`);
