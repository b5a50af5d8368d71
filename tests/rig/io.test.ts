// Conformance: io (spec: io.led, io.setLedColor, io.setLedBrightness, io.getMaxLeds, io.press,
// io.onRawPress). LEDs are seen in the trace and presses are stimuli: on a rig these tests are
// skipped, since this rig has neither a camera on the ring nor a finger on the button.
import * as assert from 'node:assert/strict';
import { deviceTest } from 'beacon-tools/testing';

deviceTest('io.led(id, state) turns one LED on and off', async (w) => {
  w.device('d0', { app: { source: `io.led(0, true);\nio.led(1, true);\nio.led(1, false);` } });
  const d = (await w.run('100ms')).device('d0');
  d.led(0, { on: true });
  d.led(1, { on: false });
});

deviceTest('io.led(state) switches every ring LED', async (w) => {
  w.device('d0', { app: { source: `print('max ' + io.getMaxLeds());\nio.led(true);` } });
  const d = (await w.run('100ms')).device('d0');
  const max = Number(d.printed(/^max \d+$/).slice(4));
  assert.ok(max > 0);
  for (let i = 0; i < max; i++) d.led(i, { on: true });
});

deviceTest('io.setLedColor takes an RGB array or an HTML colour', async (w) => {
  w.device('d0', { app: { source: `io.led(true);\nio.setLedColor(0, [0, 1, 0]);\nio.setLedColor(1, 'red');` } });
  const d = (await w.run('100ms')).device('d0');
  d.led(0, { on: true, rgb: [0, 1, 0] });
  d.led(1, { on: true, rgb: [1, 0, 0] });
});

deviceTest('io.setLedBrightness sets one LED or all', async (w) => {
  w.device('d0', { app: { source: `io.led(true);\nio.setLedBrightness(0.5);\nio.setLedBrightness(1, 0.25);` } });
  const d = (await w.run('100ms')).device('d0');
  d.led(0, { brightness: 0.5 });
  d.led(1, { brightness: 0.25 });
});

deviceTest('io.press: a short press calls the SHORT callback', async (w) => {
  const dev = w.device('d0', { app: { source: `io.press(() => print('short'), io.PressType.SHORT);\nio.press(() => print('long'), io.PressType.LONG);` } });
  dev.press('1s', { hold: '200ms' });
  const d = (await w.run('3s')).device('d0');
  d.printed('short');
  d.notPrinted('long');
});

deviceTest('io.press: a press over 3 s calls the LONG callback', async (w) => {
  const dev = w.device('d0', { app: { source: `io.press(() => print('short'), io.PressType.SHORT);\nio.press(() => print('long'), io.PressType.LONG);` } });
  dev.press('1s', { hold: '3500ms' });
  const d = (await w.run('6s')).device('d0');
  d.printed('long');
  d.notPrinted('short');
});

deviceTest('io.press: null unregisters', async (w) => {
  const dev = w.device('d0', { app: { source: `io.press(() => print('short'), io.PressType.SHORT);\nio.press(null, io.PressType.SHORT);\nprint('unregistered');` } });
  dev.press('1s', { hold: '200ms' });
  const d = (await w.run('3s')).device('d0');
  d.printed('unregistered');
  d.notPrinted('short');
});

deviceTest('io.onRawPress reports press and release', async (w) => {
  const dev = w.device('d0', { app: { source: `io.onRawPress((down) => print(down ? 'down' : 'up'));` } });
  dev.press('1s', { hold: '300ms' });
  const d = (await w.run('2s')).device('d0');
  d.printedInOrder(['down', 'up']);
  d.traced({ ev: 'button', down: true });
});
