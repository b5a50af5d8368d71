// Conformance: timers (spec: timers.single, repeat, at, count; handle stop, end, reset, restart).
// Each app prints its device uptime when a timer fires; the checks are the spec's rules (fires
// once, repeatedly, at a UTC time, counting down), never a simulator's exact output.
import * as assert from 'node:assert/strict';
import { deviceTest } from 'beacon-tools/testing';

const uptimes = (lines: string[], tag: string): number[] =>
  lines.filter((l) => l.startsWith(tag + ' ')).map((l) => Number(l.slice(tag.length + 1)));

deviceTest('timers.single fires once, after its interval', async (w) => {
  w.device('d0', { app: { source: `timers.single(500, () => print('fired ' + app.getUptime()));` } });
  const d = (await w.run('2s')).device('d0');
  const fired = uptimes(d.console, 'fired');
  assert.equal(fired.length, 1, `fired ${fired.length} times:\n${d.console.join('\n')}`);
  assert.ok(fired[0] >= 500, `fired at ${fired[0]} ms, before its 500 ms`);
});

deviceTest('timers.repeat fires repeatedly at its interval until stopped', async (w) => {
  w.device('d0', {
    app: { source: `let n = 0;\nconst h = timers.repeat(300, () => { n++; print('tick ' + app.getUptime()); if (n === 4) { h.stop(); print('stopped'); } });` },
  });
  const d = (await w.run('3s')).device('d0');
  const ticks = uptimes(d.console, 'tick');
  assert.equal(ticks.length, 4, d.console.join('\n'));
  ticks.forEach((t, i) => assert.ok(t >= 300 * (i + 1), `tick ${i + 1} at ${t} ms, before ${300 * (i + 1)} ms`));
  d.printed('stopped');
});

deviceTest('timers.at fires at the UTC time given', async (w) => {
  w.device('d0', {
    app: { source: `const at = Date.now() + 700;\ntimers.at(at, () => print('late by ' + (Date.now() - at)));` },
  });
  const d = (await w.run('2s')).device('d0');
  const line = d.printed(/^late by /);
  assert.ok(Number(line.slice(8)) >= 0, line);
});

deviceTest('timers.count passes the count, counting down to 0', async (w) => {
  w.device('d0', { app: { source: `timers.count(100, 3, (c) => print('count ' + c));` } });
  const d = (await w.run('2s')).device('d0');
  assert.deepEqual(d.console.filter((l) => l.startsWith('count ')), ['count 2', 'count 1', 'count 0']);
});

deviceTest('a stopped timer does not fire', async (w) => {
  w.device('d0', { app: { source: `const h = timers.single(400, () => print('fired'));\ntimers.single(100, () => { h.stop(); print('stopped'); });` } });
  const d = (await w.run('1s')).device('d0');
  d.printed('stopped');
  d.notPrinted('fired');
});

deviceTest('handle.end() of timers.single completes after the timer finishes', async (w) => {
  w.device('d0', { app: { source: `const h = timers.single(200, () => print('fired'));\nh.end().then(() => print('ended'));` } });
  const d = (await w.run('1s')).device('d0');
  d.printedInOrder(['fired', 'ended']);
});

deviceTest('handle.reset(interval) of timers.single starts it again with the new interval', async (w) => {
  w.device('d0', { app: { source: `const h = timers.single(300, () => print('fired ' + app.getUptime()));\ntimers.single(200, () => h.reset(500));` } });
  const d = (await w.run('2s')).device('d0');
  const fired = uptimes(d.console, 'fired');
  assert.equal(fired.length, 1, d.console.join('\n'));
  assert.ok(fired[0] >= 700, `fired at ${fired[0]} ms; reset at 200 ms to 500 ms means 700 ms at the earliest`);
});
