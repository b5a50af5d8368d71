// Run with: npx beacon test examples/testing (docs/testing.md).
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { deviceTest } from 'beacon-tools/testing';

deviceTest('a short press lights LED 0 and is counted', async (w) => {
  const door = w.device('door', { app: path.join(__dirname, 'door.ts'), profile: 'ble-beacon' });
  door.press('1s', { hold: '200ms' }); // helpers for common stimuli...
  door.at('2s', { temperature: 31 }); // ...and any scenario event, as data
  const r = await w.run('5s'); // 5 s of device time

  const d = r.device('door');
  d.printed(/^press 1$/); // some line matches
  d.printedInOrder(['boot', 'press 1']); // in this order, others between
  d.notPrinted('error');
  d.led(0, { on: true, rgb: [1, 1, 1] }); // LED 0 at the end of the run
  d.traced({ ev: 'button', button: 'main', down: true });
  assert.equal(d.console.filter((l) => l.startsWith('press')).length, 1);
});

deviceTest('presses are counted across a power cut', async (w) => {
  const door = w.device('door', { app: path.join(__dirname, 'door.ts') });
  door.press('1s').cutPower('2s').press('3s');
  const d = (await w.run('4s')).device('door');
  d.printedInOrder(['press 1', 'boot', 'press 2']);
});
