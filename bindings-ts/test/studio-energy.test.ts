// The energy panel of `beacon studio` (bindings-ts/studio/energyModel.ts, energyView.ts,
// energyWorld.ts; the world's model is src/world/world_energy.c): what it keeps of the world's
// energy records, that turning the records on changes nothing else the world gives, and, in
// chromium, the battery gauge and the chart of current by part a user sees after a run.
//
// The chromium part skips, saying why, only when chromium or emscripten is missing (as
// studio.test.ts).
/// <reference lib="dom" />
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'puppeteer-core';
import { repoRoot } from '../src/compiler/hostTools';
import { buildSource, ensureWasm, lowerScenarioText } from '../src/studio/server';
import { CHROMIUM, openStudioPage } from './studioPage';
import { Pacer, SimFactory, Speed, WasmWorld } from '../src/studio/world';
import { Bucket, compact, EnergyModel, formatCurrent, formatHours, formatPercent, MAX_BUCKETS, mergeBuckets } from '../studio/energyModel';
import { isEnergyRecord, WorldEnergy } from '../studio/energyWorld';

const HAS_EMCC = spawnSync('sh', ['-c', 'command -v emcc'], { encoding: 'utf8' }).status === 0;
const NO_EMCC = HAS_EMCC ? false : 'emscripten is not installed (bash scripts/setup.sh installs it)';
const skip = !CHROMIUM ? 'chromium is not installed (bash scripts/setup.sh installs it)' : NO_EMCC;
const ARTIFACTS = path.join(repoRoot(), 'build', 'test-artifacts');

/** A record as the world writes it (world_energy.c, record()). */
function energy(dev: string, from: number, t: number, ma: Record<string, number>, percent: number): { ev: string; [k: string]: unknown } {
  return { t, dev, ev: 'energy', from, avgMa: Object.values(ma).reduce((s, v) => s + v, 0), ma, percent };
}

const charge = (buckets: Bucket[], part: string): number => buckets.reduce((s, b) => s + (b.ma[part] ?? 0) * (b.t - b.from), 0);

describe('the energy model of the page', () => {
  test('the gauge: the last record\'s percent and average current; the time a battery lasts at it', () => {
    const m = new EnergyModel(100, 1000);
    assert.equal(m.avgMa, undefined);
    assert.equal(m.hoursLeft(), undefined);
    assert.equal(m.add({ t: 5, ev: 'led' }), false);
    assert.equal(m.add(energy('tag', 0, 10_000, { sleep: 0.003, bleAdv: 0.1426, cpu: 0 }, 99.9996)), true);
    assert.equal(m.percent, 99.9996);
    assert.ok(Math.abs(m.avgMa! - 0.1456) < 1e-9);
    // 1000 mAh at 0.1456 mA: about 6866 hours, 286 days.
    assert.equal(formatHours(m.hoursLeft()!), '286 d');
    assert.equal(m.version, 1);
    // A battery input shows at once, before the next record; one older than the last record
    // (the page parses the trace a frame late) does not.
    m.setPercent(40, 12_000);
    assert.equal(m.percent, 40);
    assert.equal(m.version, 2);
    m.add(energy('tag', 10_000, 20_000, { sleep: 0.003 }, 39.99));
    m.setPercent(50, 15_000);
    assert.equal(m.percent, 39.99);
  });

  test('parts that drew nothing are left out; the largest charge comes first', () => {
    const m = new EnergyModel(100);
    m.add(energy('tag', 0, 10_000, { sleep: 0.003, cpu: 0.00001, bleAdv: 0.14, gnss: 0, imu: 0.005 }, 99.9));
    m.add(energy('tag', 10_000, 20_000, { sleep: 0.003, cpu: 0, bleAdv: 0.14, gnss: 0, imu: 0.005 }, 99.8));
    assert.deepEqual(
      m.parts().map((p) => p.part),
      ['bleAdv', 'imu', 'sleep', 'cpu'],
    );
    assert.ok(Math.abs(m.parts()[0].ma - 0.14) < 1e-12);
  });

  test('a long run keeps at most MAX_BUCKETS buckets, merged from the oldest, and every part\'s charge', () => {
    const m = new EnergyModel(100);
    const n = 10 * MAX_BUCKETS + 7;
    for (let k = 0; k < n; k++) m.add(energy('tag', k * 10_000, (k + 1) * 10_000, { bleAdv: k % 2 ? 0.2 : 0.1, sleep: 0.003 }, 100 - k / 1000));
    assert.equal(m.buckets.length, MAX_BUCKETS);
    assert.equal(m.buckets[0].from, 0);
    assert.equal(m.buckets[m.buckets.length - 1].t, n * 10_000);
    // Contiguous, and the newest are the finest.
    for (let k = 1; k < m.buckets.length; k++) assert.equal(m.buckets[k].from, m.buckets[k - 1].t);
    const widths = m.buckets.map((b) => b.t - b.from);
    assert.ok(widths[0] >= widths[widths.length - 1]);
    const want = Math.ceil(n / 2) * 0.1 * 10_000 + Math.floor(n / 2) * 0.2 * 10_000;
    assert.ok(Math.abs(charge(m.buckets, 'bleAdv') - want) < want * 1e-9);
    assert.ok(Math.abs(charge(m.buckets, 'sleep') - n * 0.003 * 10_000) < 1e-6);
  });

  test('a short record joins a neighbour before long ones merge', () => {
    const b: Bucket[] = [
      { from: 0, t: 10, ma: { a: 1 } },
      { from: 10, t: 20, ma: { a: 1 } },
      { from: 20, t: 30, ma: { a: 1 } },
      { from: 30, t: 31, ma: { a: 4 } },
    ];
    compact(b, 3);
    assert.deepEqual(
      b.map((x) => [x.from, x.t]),
      [
        [0, 10],
        [10, 20],
        [20, 31],
      ],
    );
    assert.deepEqual(mergeBuckets({ from: 0, t: 10, ma: { a: 1 } }, { from: 10, t: 30, ma: { b: 3 } }).ma, { a: 1 / 3, b: 2 });
  });

  test('the summary of the run', () => {
    const m = new EnergyModel(100);
    m.add({ t: 180_000, dev: 'tag', ev: 'energy-summary', profile: 'ble-beacon', avgMa: 0.15, mah: 0.0075, capacityMah: 1000, percent: 99.99925, partsMah: { bleAdv: 0.007 }, consumers: [] });
    assert.equal(m.summary?.mah, 0.0075);
    assert.equal(m.percent, 99.99925);
  });

  test('what a person reads: currents in µA below 1 mA, a percent cut to show that it is below 100', () => {
    assert.equal(formatCurrent(0.1426), '143 µA');
    assert.equal(formatCurrent(0.008147), '8.15 µA');
    assert.equal(formatCurrent(0), '0 µA');
    assert.equal(formatCurrent(12.345), '12.3 mA');
    assert.equal(formatPercent(100), '100');
    assert.equal(formatPercent(99.999565), '99.9995');
    assert.equal(formatPercent(99.99999999), '99.9999');
    assert.equal(formatPercent(99.95), '99.95');
    assert.equal(formatPercent(87.26), '87.2');
    assert.equal(formatPercent(0), '0.0');
    assert.equal(formatHours(0.25), '15 min');
    assert.equal(formatHours(30), '30 h');
    assert.equal(formatHours(24 * 365 * 3), '3 years');
  });

  test('energy records told apart from the rest of the trace by their own kind only', () => {
    assert.equal(isEnergyRecord('{"t":1,"dev":"tag","ev":"energy","from":0}\n'), true);
    assert.equal(isEnergyRecord('{"t":1,"dev":"tag","ev":"energy-summary","mah":1}'), true);
    assert.equal(isEnergyRecord('{"t":1,"ev":"energy","from":0}'), true);
    assert.equal(isEnergyRecord('{"t":1,"dev":"tag","ev":"battery","percent":20}'), false);
    // A payload or a text that says "energy" is not an energy record.
    assert.equal(isEnergyRecord('{"t":1,"dev":"tag","ev":"cloud-event","payload":{"x":1,"ev":"energy"}}'), false);
    assert.equal(isEnergyRecord('{"t":1,"dev":"tag","ev":"print","text":"\\",\\"ev\\":\\"energy"}'), false);
    assert.equal(isEnergyRecord('{"t":1,"dev":"\\",\\"ev\\":\\"energy","ev":"led"}'), false);
  });
});

/** An app that drains the battery several ways and prints what it reads of it, to the last digit. */
const READER = [
  "ble.advertise(ble.build.iBeacon('e2c56db5dffb48d2b060d0f5a71096e0', 4, 2, -59)).interval(100).power(4);",
  'let n = 0;',
  'timers.repeat(7000, () => {',
  '  n++;',
  "  print(`${n} ${sensors.battery.getPerc()} ${sensors.battery.getAvgCurrent()} ${sensors.battery.getVoltage()}`);",
  '  io.led(n % 4 === 0);',
  '});',
  'ble.startScan(() => {}, 0);',
  '',
].join('\n');

describe('energy records in the WebAssembly world', { skip: NO_EMCC }, () => {
  /** Run READER on two devices for 10 min, paced as the page paces it; what the world gives. */
  async function runWorld(periodMs: number, speed: Speed, stepMs: number): Promise<{ out: string; trace: string; energy: string[] }> {
    const wasm = await ensureWasm();
    const js = path.join(wasm, 'beacon-sim-duktape.js');
    const built = await buildSource(READER, 'reader.ts', '0.2.6', 'duktape');
    assert.ok(built.ok, JSON.stringify(built.diagnostics));
    const lowered = await lowerScenarioText(JSON.stringify({ utc: '2026-01-01T00:00:00Z', duration: '10 min', devices: [{ name: 'tag', profile: 'ble-beacon' }, { name: 'hub', profile: 'lte-beacon' }] }), 'w.json');
    assert.ok(!('error' in lowered));
    const worldEnergy = new WorldEnergy();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const world = await WasmWorld.create(worldEnergy.wrap(require(js) as SimFactory), fs.readFileSync(js.replace(/\.js$/, '.wasm')));
    let out = '';
    let trace = '';
    const records: string[] = [];
    world.listen({ output: (l) => (out += l.text), trace: (j) => (isEnergyRecord(j) ? records.push(j) : (trace += j)) });
    const devices = world.open(lowered.script, 1, 0);
    if (periodMs) worldEnergy.start(periodMs);
    for (const d of devices) world.setPackage(d.index, Buffer.from(built.package!, 'base64'));
    assert.deepEqual(world.start(), []);
    let clock = 0;
    const pacer = new Pacer(world, () => clock);
    pacer.until = lowered.durationMs!;
    pacer.setSpeed(speed);
    while (pacer.ended === undefined) {
      clock += stepMs;
      pacer.tick();
    }
    worldEnergy.finish();
    world.close();
    return { out, trace, energy: records };
  }

  test('records on (often, in small slices) change nothing else: the same output and trace to the last digit', async () => {
    const off = await runWorld(0, 'max', 16);
    assert.equal(off.energy.length, 0);
    assert.match(off.out, /^\[tag\] 1 \d+(\.\d+)? \d/m);
    const on = await runWorld(1000, 100, 3);
    assert.equal(on.out, off.out);
    assert.equal(on.trace, off.trace);
    // A record a device at least every few seconds of its 10 minutes, and a summary each.
    const recs = on.energy.map((j) => JSON.parse(j) as { ev: string; dev: string; from: number; t: number; ma: Record<string, number>; partsMah: Record<string, number> });
    for (const dev of ['tag', 'hub']) {
      const mine = recs.filter((r) => r.dev === dev && r.ev === 'energy');
      assert.ok(mine.length >= 150, `${dev}: ${mine.length} records`);
      // Contiguous from the device's start to the end of the run.
      for (let k = 1; k < mine.length; k++) assert.equal(mine[k].from, mine[k - 1].t);
      assert.equal(mine[mine.length - 1].t, 10 * 60_000);
      const summary = recs.filter((r) => r.dev === dev && r.ev === 'energy-summary');
      assert.equal(summary.length, 1);
      assert.ok(summary[0].partsMah.bleAdv > 0);
      assert.ok(summary[0].partsMah.bleScan > 0);
    }
  });
});

describe('the energy panel in chromium', { skip }, () => {
  let page: Page;
  let leaks: string[] = [];
  let pageErrors: string[] = [];
  let close: () => Promise<void> = async () => undefined;

  before(async () => {
    ({ page, leaks, pageErrors, close } = await openStudioPage('studio-energy-'));
  });

  after(() => close());

  type StudioWindow = { studio: { state: { ended?: string; running: boolean; trace: string }; setSource(t: string, n: string): void; openFile(n: string, t: string): Promise<void> } };

  /** What the energy panel of device 0 shows. */
  interface Panel {
    gauge: string;
    percent: number;
    avgMa: number | undefined;
    parts: string[];
    points: number;
    legend: string[];
    /** Its lines, one a line. */
    summary: string;
  }

  const panel = (): Promise<Panel> =>
    page.evaluate(() => {
      const gauge = document.getElementById('gauge-0')!;
      const chart = document.getElementById('energy-chart-0')!;
      return {
        gauge: document.getElementById('gauge-text-0')!.textContent ?? '',
        percent: Number(gauge.dataset.percent),
        avgMa: gauge.dataset.avgMa === undefined ? undefined : Number(gauge.dataset.avgMa),
        parts: (chart.dataset.parts ?? '').split(',').filter(Boolean),
        points: Number(chart.dataset.points),
        legend: Array.from(document.querySelectorAll('#energy-legend-0 .part')).map((e) => e.textContent ?? ''),
        summary: Array.from(document.getElementById('energy-summary-0')!.children).map((e) => e.textContent ?? '').join('\n'),
      };
    });

  /** Run an app alone on a ble-beacon for `duration` of device time, as fast as possible. */
  async function runFor(name: string, source: string, duration: string, events: object[] = []): Promise<Panel> {
    await page.evaluate((s: string, n: string) => (window as unknown as StudioWindow).studio.setSource(s, n), source, name);
    const scenario = { utc: '2026-01-01T00:00:00Z', duration, devices: [{ name: 'tag', profile: 'ble-beacon' }], events };
    await page.evaluate((text: string, n: string) => (window as unknown as StudioWindow).studio.openFile(n, text), JSON.stringify(scenario), `${name}.json`);
    await page.select('#speed', 'max');
    await page.click('#run');
    await page.waitForFunction(() => (window as unknown as StudioWindow).studio.state.ended !== undefined && !(window as unknown as StudioWindow).studio.state.running, { timeout: 60_000 });
    // The summary comes with the run's last batch.
    await page.waitForFunction(() => (document.getElementById('energy-summary-0')?.textContent ?? '') !== '', { timeout: 10_000 });
    return panel();
  }

  /** A current as the gauge writes it, in mA. */
  const shownMa = (gauge: string): number => {
    const m = /· ([\d.]+) (µA|mA)/.exec(gauge);
    assert.ok(m, gauge);
    return Number(m[1]) / (m[2] === 'µA' ? 1000 : 1);
  };

  let advertiserMa = 0;

  test('an app advertising every 100 ms: the gauge shows the battery below 100 % and its current, the chart bleAdv as the largest band', async () => {
    const p = await runFor('adv.ts', "ble.advertise(ble.build.iBeacon('e2c56db5dffb48d2b060d0f5a71096e0', 4, 2, -59)).interval(100).power(4);\n", '3 min');
    assert.ok(p.percent < 100, JSON.stringify(p));
    assert.match(p.gauge, /^battery 99\.\d+ % · /);
    assert.ok(!/battery 100/.test(p.gauge), p.gauge);
    advertiserMa = shownMa(p.gauge);
    assert.ok(advertiserMa > 0.1, p.gauge);
    assert.ok(Math.abs(advertiserMa - p.avgMa!) / p.avgMa! < 0.01, `${p.gauge} vs ${p.avgMa}`);
    // The ble-beacon's 1000 mAh last months at this draw.
    assert.match(p.gauge, /≈ \d+ d left at this draw$/);
    assert.equal(p.parts[0], 'bleAdv');
    assert.ok(p.points >= 3, JSON.stringify(p));
    assert.ok(!p.parts.includes('gnss') && !p.parts.includes('modem'), JSON.stringify(p.parts));
    assert.deepEqual(
      p.legend.map((l) => l.split(' ')[0]),
      p.parts,
    );
    assert.match(p.summary, /^this run: [\d.]+ mAh of 1000 mAh, average [\d.]+ µA\nmost: bleAdv [\d.]+ mAh, .*\nbleAdv set 0 \(every 100 ms at 4 dBm\): [\d.]+ mAh$/);
    // For a person to look at (kept in build/test-artifacts/).
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await (await page.$('#energy-0'))!.screenshot({ path: path.join(ARTIFACTS, 'studio-energy.png') });
    // The page's trace is beacon run's: no energy record in it.
    const trace = await page.evaluate(() => (window as unknown as StudioWindow).studio.state.trace);
    assert.ok(trace.length > 0);
    assert.ok(!trace.split('\n').some(isEnergyRecord));
  });

  test('an app that only sleeps: a current many times lower, and no bleAdv band; the battery the scenario sets', async () => {
    const p = await runFor('sleeper.ts', "timers.repeat('1 min', () => print('still here'));\n", '3 min', [{ at: '1 min', device: 'tag', battery: 40 }]);
    const ma = shownMa(p.gauge);
    assert.ok(ma > 0, p.gauge);
    assert.ok(advertiserMa > 0, 'the advertiser ran first');
    assert.ok(ma * 5 < advertiserMa, `${p.gauge}: ${ma} mA against the advertiser's ${advertiserMa} mA`);
    assert.ok(!p.parts.includes('bleAdv'), JSON.stringify(p.parts));
    assert.ok(p.parts.includes('sleep'), JSON.stringify(p.parts));
    assert.ok(p.percent > 39.99 && p.percent < 40, String(p.percent));
    assert.match(p.gauge, /^battery 39\.9 % · /);
  });

  test('at ×10 the gauge follows the run, and Stop gives the summary', async () => {
    await page.click('#clear-scenario');
    await page.evaluate((s: string) => (window as unknown as StudioWindow).studio.setSource(s, 'live.ts'), "ble.advertise(ble.build.iBeacon('e2c56db5dffb48d2b060d0f5a71096e0', 4, 2, -59)).interval(100).power(4);\n");
    await page.select('#speed', '10');
    await page.click('#run');
    // Before the first record: the start percent, and no current yet.
    await page.waitForFunction(() => (window as unknown as StudioWindow).studio.state.running, { timeout: 30_000 });
    // A record every 10 s of device time: one a second at ×10.
    await page.waitForFunction(() => Number(document.getElementById('energy-chart-0')?.dataset.points) >= 2, { timeout: 30_000 });
    const live = await panel();
    assert.ok(live.avgMa! > 0.1, JSON.stringify(live));
    assert.equal(live.parts[0], 'bleAdv');
    assert.equal(live.summary, '');
    await page.click('#stop');
    await page.waitForFunction(() => (document.getElementById('energy-summary-0')?.textContent ?? '') !== '', { timeout: 10_000 });
    const stopped = await panel();
    assert.match(stopped.summary, /^most: bleAdv .*\nbleAdv set 0 \(every 100 ms at 4 dBm\): /m);
    assert.ok(stopped.points >= live.points);
  });

  test('no request left 127.0.0.1, and the page raised no error', () => {
    assert.deepEqual(leaks, []);
    assert.deepEqual(pageErrors, []);
  });
});
