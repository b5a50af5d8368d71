// Conformance: print and preview (spec: print writes a console line; preview sends JSON to the
// visualisation console, ESR0203 for what JSON cannot carry, ESR0204 over 1024 bytes).
import { deviceTest } from 'beacon-tools/testing';

deviceTest('print writes one console line per call', async (w) => {
  w.device('d0', { app: { source: `print('one');\nprint('two');` } });
  const d = (await w.run('100ms')).device('d0');
  d.printedInOrder(['one', 'two']);
});

deviceTest('preview sends its JSON to the visualisation console', async (w) => {
  w.device('d0', { app: { source: `preview({ temperature: 21.5, label: 'hall' });` } });
  const d = (await w.run('100ms')).device('d0');
  d.traced({ ev: 'preview', data: { temperature: 21.5, label: 'hall' } });
});

deviceTest('preview of a function is ESR0203; of more than 1024 bytes ESR0204', async (w) => {
  w.device('d0', {
    app: { source: `for (const bad of [{ f: () => 1 }, { text: new Array(1101).join('x') }]) {\n  try { preview(bad); print('sent'); } catch (e) { print((e as Error).message); }\n}` },
  });
  const d = (await w.run('100ms')).device('d0');
  d.printedInOrder([/^ESR0203/, /^ESR0204/]);
});
