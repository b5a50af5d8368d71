// Conformance: sys (spec: sys.getPublicId, getUptime, isTimeSynced, getFirmware, getHardware).
import * as assert from 'node:assert/strict';
import { deviceTest } from 'beacon-tools/testing';

deviceTest('sys.getPublicId is a hex string', async (w) => {
  w.device('d0', { app: { source: `print('id ' + sys.getPublicId());` } });
  const d = (await w.run('100ms')).device('d0');
  d.printed(/^id [0-9a-f]+$/);
});

deviceTest('sys.getFirmware is three numbers; sys.getHardware a string', async (w) => {
  w.device('d0', { app: { source: `const f = sys.getFirmware();\nprint('fw ' + f.length + ' ' + f.every((x) => typeof x === 'number'));\nprint('hw ' + typeof sys.getHardware() + ' ' + (sys.getHardware().length > 0));` } });
  const d = (await w.run('100ms')).device('d0');
  d.printed('fw 3 true');
  d.printed('hw string true');
});

deviceTest('sys.getUptime counts seconds', async (w) => {
  // Since the last reset, which on a rig may be long ago: the check is on how much it grows.
  w.device('d0', { app: { source: `const start = sys.getUptime();\ntimers.single(2500, () => print('grew ' + (sys.getUptime() - start)));` } });
  const d = (await w.run('3s')).device('d0');
  const grew = Number(d.printed(/^grew /).slice(5));
  assert.ok(grew >= 2 && grew <= 3, `uptime grew by ${grew} s in 2.5 s`);
});

deviceTest('sys.isTimeSynced: false until a time source, then true', async (w) => {
  const dev = w.device('d0', { app: { source: `print('synced ' + sys.isTimeSynced());\ntimers.single(2000, () => print('synced ' + sys.isTimeSynced()));` }, timeSynced: false });
  dev.at('1s', { timeSync: true });
  const d = (await w.run('3s')).device('d0');
  d.printedInOrder(['synced false', 'synced true']);
});
