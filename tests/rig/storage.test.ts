// Conformance: storage (spec: storage.save, read, remove, readAll, clear, getStats). Records
// survive a power cut and the app's restart: the flash keeps them.
import * as assert from 'node:assert/strict';
import { deviceTest } from 'beacon-tools/testing';

deviceTest('storage.save then read gives the value back; read of nothing is undefined', async (w) => {
  w.device('d0', { app: { source: `storage.clear();\nstorage.save(7, { name: 'door', n: [1, 2] });\nprint('read ' + JSON.stringify(storage.read(7)));\nprint('missing ' + storage.read(8));` } });
  const d = (await w.run('100ms')).device('d0');
  d.printed('read {"name":"door","n":[1,2]}');
  d.printed('missing undefined');
});

deviceTest('storage.remove: true when found and deleted, false otherwise', async (w) => {
  w.device('d0', { app: { source: `storage.clear();\nstorage.save(1, 'x');\nprint('first ' + storage.remove(1));\nprint('again ' + storage.remove(1));\nprint('now ' + storage.read(1));` } });
  const d = (await w.run('100ms')).device('d0');
  d.printedInOrder(['first true', 'again false', 'now undefined']);
});

deviceTest('storage.readAll calls the handler for every record; clear deletes them', async (w) => {
  w.device('d0', {
    app: { source: `storage.clear();\nstorage.save(1, 'a');\nstorage.save(2, 'b');\nconst seen: string[] = [];\nstorage.readAll((id, data) => { seen.push(id + '=' + data); });\nprint('all ' + seen.sort().join(','));\nstorage.clear();\nlet left = 0;\nstorage.readAll(() => { left++; });\nprint('left ' + left);` },
  });
  const d = (await w.run('100ms')).device('d0');
  d.printed('all 1=a,2=b');
  d.printed('left 0');
});

deviceTest('storage.getStats: used and free add up to total; a record uses space', async (w) => {
  w.device('d0', { app: { source: `storage.clear();\nconst a = storage.getStats();\nstorage.save(3, 'some text to keep');\nconst b = storage.getStats();\nprint('sum ' + (b.used + b.free === b.total) + ', grew ' + (b.used > a.used));` } });
  const d = (await w.run('100ms')).device('d0');
  d.printed('sum true, grew true');
});

deviceTest('storage.save of a function is ESR0203', async (w) => {
  w.device('d0', { app: { source: `try { storage.save(4, { f: (() => 1) as unknown as number }); print('saved'); } catch (e) { print('threw ' + (e as Error).message); }` } });
  const d = (await w.run('100ms')).device('d0');
  d.printed(/^threw ESR0203/);
});

deviceTest('records survive a power cut', async (w) => {
  const dev = w.device('d0', { app: { source: `const n = ((storage.read(1) as number | undefined) ?? 0) + 1;\nstorage.save(1, n);\nprint('boot ' + n);` } });
  dev.cutPower('1s');
  const d = (await w.run('3s')).device('d0');
  d.printedInOrder(['boot 1', 'boot 2']);
});
