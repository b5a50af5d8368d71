// Conformance: sensors (spec: sensors.battery, sensors.temp, sensors.imu). Readings are checked
// against the rules (ranges, external power and charging, the listener), with the world setting
// what a rig cannot: such tests are skipped on a rig.
import * as assert from 'node:assert/strict';
import { deviceTest } from 'beacon-tools/testing';

deviceTest('sensors.battery readings are in range', async (w) => {
  w.device('d0', { app: { source: `const b = sensors.battery;\nprint(JSON.stringify({ v: b.getVoltage(), p: b.getPerc(), c: b.getCapacity() }));` } });
  const d = (await w.run('100ms')).device('d0');
  const r = JSON.parse(d.printed(/^\{/)) as { v: number; p: number; c: number };
  assert.ok(r.v > 2.5 && r.v < 4.5, `voltage ${r.v} V`);
  assert.ok(r.p >= 0 && r.p <= 100, `${r.p} %`);
  assert.ok(r.c > 0, `capacity ${r.c} mAh`);
});

deviceTest('sensors.battery.getPerc follows the battery', async (w) => {
  w.device('d0', { app: { source: `timers.single(2000, () => print('perc ' + sensors.battery.getPerc()));` }, battery: { percent: 35 } });
  const d = (await w.run('3s')).device('d0');
  const p = Number(d.printed(/^perc /).slice(5));
  assert.ok(Math.abs(p - 35) <= 1, `expected about 35 %, got ${p}`);
});

deviceTest('setPowerListener: called at once, then on each change of external power', async (w) => {
  const dev = w.device('d0', { app: { source: `sensors.battery.setPowerListener((ext, charging) => print('ext ' + ext + ', charging ' + charging));` }, battery: { percent: 50 } });
  dev.externalPower('1s', true);
  dev.externalPower('2s', false);
  const d = (await w.run('3s')).device('d0');
  d.printedInOrder(['ext false, charging false', 'ext true, charging true', 'ext false, charging false']);
});

deviceTest('sensors.temp.get reads the temperature', async (w) => {
  w.device('d0', { app: { source: `print('temp ' + sensors.temp.get());` }, temperature: 23 });
  const d = (await w.run('100ms')).device('d0');
  const t = Number(d.printed(/^temp /).slice(5));
  assert.ok(Math.abs(t - 23) < 1.5, `expected about 23 C, got ${t}`);
});

deviceTest('sensors.imu.getAccel gives a vector in g', async (w) => {
  w.device('d0', { app: { source: `const a = sensors.imu.getAccel();\nprint('accel ' + JSON.stringify(a));` }, profile: 'ai-beacon', accel: [0, 0, 1] });
  const d = (await w.run('100ms')).device('d0');
  const line = d.printed(/^accel /);
  const a = JSON.parse(line.slice(6)) as Record<string, number> | number[];
  const v = Array.isArray(a) ? a : [a.x, a.y, a.z];
  const g = Math.hypot(v[0], v[1], v[2]);
  assert.ok(Math.abs(g - 1) < 0.1, `|a| = ${g} g at rest on the table: ${line}`);
});

deviceTest('sensors.imu.onMotion reports motion and rest', async (w) => {
  const dev = w.device('d0', { app: { source: `sensors.imu.onMotion((m) => print('motion ' + m));` }, profile: 'ai-beacon' });
  dev.motion('1s', true, 0.5);
  dev.motion('20s', false);
  const d = (await w.run('2min')).device('d0');
  d.printedInOrder(['motion true', 'motion false']);
});
