// The run's progress in `beacon studio` (docs/studio.md, "Progress"): the speed measured over a
// window of real time, the WebAssembly world's count of devices alive (powered, the app running)
// as the run goes on, and the page's readout in chromium: the device time reached and the
// devices alive, falling when a device's app stops. Figures that depend on the machine's speed
// are only checked for their form.
//
// The chromium part skips, saying why, only when chromium or emscripten is missing
// (scripts/setup.sh installs both).
/// <reference lib="dom" />
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'puppeteer-core';
import { buildSource, ensureWasm, lowerScenarioText } from '../src/studio/server';
import { SimFactory, SpeedMeter, WasmWorld } from '../src/studio/world';
import { CHROMIUM, openStudioPage } from './studioPage';

const HAS_EMCC = spawnSync('sh', ['-c', 'command -v emcc'], { encoding: 'utf8' }).status === 0;
const noEmcc = HAS_EMCC ? false : 'emscripten is not installed (bash scripts/setup.sh installs it)';

/** Every device counts a minute at a time; a short press stops the app of the device pressed. */
const APP = "timers.repeat('1 min', () => {});\nio.press(() => {\n  print('stopping');\n  app.stop();\n}, io.PressType.SHORT);\n";

/**
 * Three devices: `c` is pressed at 30 min and its app stops; `b` runs on a battery that a
 * constant 1 A empties in 36 s (1 % of 1000 mAh), which switches it off with its app running.
 */
const SCENARIO = {
  utc: '2026-01-01T00:00:00Z',
  duration: '2 h',
  devices: [
    { name: 'a', profile: 'ble-beacon' },
    { name: 'b', profile: 'ble-beacon', battery: { percent: 1, current: 1000 } },
    { name: 'c', profile: 'ble-beacon' },
  ],
  events: [{ at: '30 min', device: 'c', press: { hold: '200ms' } }],
};

test('the speed is device time over real time, over the last window of the run', () => {
  const m = new SpeedMeter(2000);
  m.start(0, 0);
  assert.equal(m.sample(0, 0), 0, 'no real time has passed yet');
  assert.equal(m.sample(500, 5000), 10);
  assert.equal(m.sample(1000, 10_000), 10);
  // The run goes 100 times faster from here: within the window both rates count...
  assert.equal(m.sample(2000, 110_000), 55);
  // ...and once a whole window lies behind the change, only the new one.
  m.sample(3000, 210_000);
  assert.equal(m.sample(4000, 310_000), 100);
});

describe('the WebAssembly world counts the devices alive', { skip: noEmcc }, () => {
  test('a stopped app and an empty battery each take a device away', async () => {
    const wasm = await ensureWasm();
    const js = path.join(wasm, 'beacon-sim-duktape.js');
    const built = await buildSource(APP, 'stopper.ts', '0.2.6', 'duktape');
    const lowered = await lowerScenarioText(JSON.stringify(SCENARIO), 'three.json');
    assert.ok(built.ok && !('error' in lowered), JSON.stringify(built.diagnostics));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const world = await WasmWorld.create(require(js) as SimFactory, fs.readFileSync(js.replace(/\.js$/, '.wasm')));
    let out = '';
    world.listen({ output: (l) => (out += l.text), trace: () => {} });
    const devices = world.open(lowered.script, 1, Date.now());
    for (const d of devices) world.setPackage(d.index, Buffer.from(built.package!, 'base64'));
    assert.deepEqual(world.start(), []);
    assert.deepEqual([world.alive(), world.deviceCount()], [3, 3]);
    world.runUntil(30_000);
    assert.equal(world.alive(), 3, out);
    world.runUntil(60_000);
    assert.match(out, /battery empty/);
    assert.equal(world.alive(), 2, out);
    world.runUntil(29 * 60_000);
    assert.equal(world.alive(), 2, out);
    world.runUntil(31 * 60_000);
    assert.match(out, /\[c\] stopping/);
    assert.equal(world.alive(), 1, out);
    world.close();
    assert.equal(world.alive(), 0, 'no world, no devices');
  });
});

const skipPage = !CHROMIUM ? 'chromium is not installed (bash scripts/setup.sh installs it)' : noEmcc;

type StudioWindow = { studio: { state: { ended?: string; running: boolean }; setSource(t: string, n: string): void; openFile(n: string, t: string): Promise<void> } };

describe('the studio page shows the run\'s progress', { skip: skipPage }, () => {
  let page: Page;
  let pageErrors: string[] = [];
  let leaks: string[] = [];
  let close: () => Promise<void> = async () => undefined;

  before(async () => {
    ({ page, pageErrors, leaks, close } = await openStudioPage('studio-progress-'));
  });
  after(() => close());

  const readout = (): Promise<{ text: string; alive?: string; devices?: string; deviceMs?: string }> =>
    page.$eval('#progress', (e) => ({ text: e.textContent ?? '', ...(e as HTMLElement).dataset }));
  const waitAlive = (alive: number): Promise<unknown> =>
    page.waitForFunction((n: string) => document.getElementById('progress')?.dataset.alive === n, { timeout: 30_000 }, String(alive));

  test('the devices alive, live: clicking a device whose app stops on a press takes one away', async () => {
    await page.evaluate((s: string) => (window as unknown as StudioWindow).studio.setSource(s, 'stopper.ts'), APP);
    await page.evaluate((t: string) => (window as unknown as StudioWindow).studio.openFile('three.json', t), JSON.stringify(SCENARIO));
    await page.waitForFunction(() => document.getElementById('scenario-name')?.textContent?.startsWith('three.json'));
    await page.select('#speed', '1');
    await page.click('#run');
    // At real time the battery of b lasts 36 s and c's scripted press is half an hour away:
    // all three run until the click.
    await waitAlive(3);
    let r = await readout();
    assert.equal(r.devices, '3');
    assert.match(r.text, /^device time 00:00:\d\d, [\d.]+× real time, 3 of 3 devices alive$/);
    await page.click('#button-main-2');
    await waitAlive(2);
    r = await readout();
    assert.match(r.text, /^device time 00:00:\d\d, [\d.]+× real time, 2 of 3 devices alive$/);
    await page.click('#stop');
    // After Stop the readout keeps where the run got to.
    r = await readout();
    assert.equal(r.alive, '2');
    assert.ok(Number(r.deviceMs) > 0, JSON.stringify(r));
  });

  test('as fast as possible: the device time the run reached, and the devices still alive at its end', async () => {
    await page.select('#speed', 'max');
    await page.click('#run');
    await page.waitForFunction(() => (window as unknown as StudioWindow).studio.state.ended !== undefined && !(window as unknown as StudioWindow).studio.state.running, { timeout: 120_000 });
    // The run's end, drawn from the batch that ended it: 2 h, b's battery and c's app gone.
    await page.waitForFunction(() => document.getElementById('progress')?.dataset.deviceMs === String(2 * 3600 * 1000), { timeout: 10_000 });
    const r = await readout();
    assert.match(r.text, /^device time 02:00:00, [\d.]+× real time, 1 of 3 devices alive$/);
    assert.equal((await page.$eval('#console', (e) => e.textContent ?? '')).includes('[c] stopping'), true);
  });

  test('no request left 127.0.0.1, and the page raised no error', () => {
    assert.deepEqual(leaks, []);
    assert.deepEqual(pageErrors, []);
  });
});
