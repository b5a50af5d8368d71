// Conformance: app lifecycle (spec: app.stop, app.restart, app.remove, app.getUptime,
// app.setErrorHandler, app.gc, app.getMemStats).
import * as assert from 'node:assert/strict';
import { deviceTest } from 'beacon-tools/testing';

deviceTest('app.stop: no callback runs afterwards', async (w) => {
  w.device('d0', { app: { source: `timers.repeat(100, () => print('tick'));\ntimers.single(350, () => { print('stopping'); app.stop(); });` } });
  const d = (await w.run('2s')).device('d0');
  const i = d.console.indexOf('stopping');
  assert.ok(i >= 0, d.console.join('\n'));
  assert.deepEqual(d.console.slice(i + 1), [], 'lines after app.stop()');
});

deviceTest('app.restart runs the app from the top; app.getUptime starts again', async (w) => {
  // Record 9 says "restarting" only between app.restart() and the next start, so a device that
  // kept the record from an earlier run (a rig) still begins with a first start.
  w.device('d0', {
    app: {
      source:
        `const again = storage.read(9) === 'restarting';\n` +
        `storage.save(9, 'done');\n` +
        `print((again ? 'second' : 'first') + ' start at ' + app.getUptime());\n` +
        `if (!again) timers.single(500, () => { storage.save(9, 'restarting'); app.restart(); });`,
    },
  });
  const d = (await w.run('2s')).device('d0');
  const [first, second] = d.printedInOrder([/^first start at /, /^second start at /]);
  assert.ok(Number(second.split(' at ')[1]) < 500, `app uptime after the restart: ${second} (before it: ${first})`);
});

deviceTest('app.remove stops the app', async (w) => {
  w.device('d0', { app: { source: `timers.repeat(100, () => print('tick'));\ntimers.single(250, () => { print('removing'); app.remove(); });` } });
  const d = (await w.run('2s')).device('d0');
  const i = d.console.indexOf('removing');
  assert.ok(i >= 0);
  assert.deepEqual(d.console.slice(i + 1), []);
});

deviceTest('app.setErrorHandler hears an error thrown in a callback', async (w) => {
  w.device('d0', { app: { source: `app.setErrorHandler((type, err) => print('handled ' + (err as Error).message));\ntimers.single(100, () => { throw new Error('boom'); });` } });
  const d = (await w.run('1s')).device('d0');
  d.printed('handled boom');
});

deviceTest('app.getMemStats: used and free add up to total; app.gc gives memory back', async (w) => {
  w.device('d0', {
    app: { source: `const a = app.getMemStats();\nprint('adds up ' + (a.used + a.free === a.total));\nlet junk: string[] | undefined = [];\nfor (let i = 0; i < 2000; i++) junk.push('item ' + i);\nconst b = app.getMemStats();\njunk = undefined;\napp.gc();\nconst c = app.getMemStats();\nprint('gc ' + (c.used < b.used));` },
  });
  const d = (await w.run('100ms')).device('d0');
  d.printed('adds up true');
  d.printed('gc true');
});
