// The energy model (src/world/world_energy.c, docs/world.md "Energy"): what an app costs, part by
// part, as `beacon run --energy` reports it, and the battery that pays for it. Each pair of apps
// checks a direction the datasheets give (a shorter interval, more power, a longer window, a
// shorter sync period, more GNSS never costs less) and its size from the model's own terms.
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { beacon } from './boardRuns';
import type { DeviceEnergy } from '../src/cli/energyReport';
import { EnergyDataError, readEnergyFile } from '../src/codegen/energyTable';
import { workspaceMissing } from '../src/firmware/workspace';

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-energy-'));
after(() => fs.rmSync(tempDir, { recursive: true, force: true }));

let files = 0;
function app(source: string): string {
  const file = path.join(tempDir, `app${files++}.js`);
  fs.writeFileSync(file, source);
  return file;
}

function world(json: object): string {
  const file = path.join(tempDir, `world${files++}.json`);
  fs.writeFileSync(file, JSON.stringify(json));
  return file;
}

/** `beacon run --energy --json`: the report of the run's one device. */
async function energy(source: string, args: string[]): Promise<DeviceEnergy> {
  const r = await beacon(['run', app(source), '--energy', '--json', '--cloud', 'loopback', ...args]);
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { devices: DeviceEnergy[] };
  assert.equal(report.devices.length, 1);
  const d = report.devices[0];
  // Every part draws something or nothing, never less; the shares add up.
  assert.ok(d.rows.every((x) => x.mah >= 0 && x.ma >= 0), JSON.stringify(d.rows));
  assert.ok(Math.abs(d.rows.reduce((a, x) => a + x.share, 0) - 1) < 1e-9);
  return d;
}

const part = (d: DeviceEnergy, name: string): number => d.rows.filter((r) => r.part === name).reduce((a, r) => a + r.ma, 0);
const bleBeacon = world({ devices: [{ name: 'tag', profile: 'ble-beacon' }] });
const advertise = (interval: number, power: number): string =>
  `ble.advertise(ble.build.iBeacon('e2c56db5dffb48d2b060d0f5a71096e0', 4, 2, -59)).interval(${interval}).power(${power});`;

test('advertising every 100 ms costs about ten times what every 1000 ms costs, and dominates', async () => {
  const fast = await energy(advertise(100, 0), ['--world', bleBeacon, '--for', '1h']);
  const slow = await energy(advertise(1000, 0), ['--world', bleBeacon, '--for', '1h']);
  // An event every interval + 5 ms of advDelay on average: the ratio of 1005 to 105.
  assert.ok(Math.abs(part(fast, 'bleAdv') / part(slow, 'bleAdv') - 1005 / 105) < 0.01, `${part(fast, 'bleAdv')} against ${part(slow, 'bleAdv')}`);
  assert.ok(fast.avgMa > slow.avgMa);
  assert.equal(fast.rows[0].part, 'bleAdv');
  assert.match(fast.rows[0].what, /^advertiser 0: 100 ms at 0 dBm$/);
  // The battery lasts as long as its charge over the current.
  assert.ok(Math.abs(fast.lifeDays! - 1000 / fast.avgMa / 24) < 1e-6);
});

test('a higher TX power never costs less, by the TX current of the Product Specification\'s table', async () => {
  const loud = await energy(advertise(100, 8), ['--world', bleBeacon, '--for', '1h']);
  const quiet = await energy(advertise(100, 0), ['--world', bleBeacon, '--for', '1h']);
  const fig = readEnergyFile(path.join(__dirname, '..', '..', '..', 'src', 'world', 'energy', 'ble-beacon.json')).figures.radio_tx_ma.value as Record<string, number>;
  assert.ok(part(loud, 'bleAdv') > part(quiet, 'bleAdv'));
  // Only the transmissions change: the ratio lies between 1 and the TX currents' ratio.
  const ratio = part(loud, 'bleAdv') / part(quiet, 'bleAdv');
  assert.ok(ratio > 1 && ratio < fig['8'] / fig['0'], `ratio ${ratio}`);
  assert.ok(loud.radio.advTxUc > quiet.radio.advTxUc);
  assert.equal(loud.radio.advTxUs, quiet.radio.advTxUs);
});

test('a longer scan window costs more, in proportion to the time the receiver listens', async () => {
  const scan = (window: number): string => `ble.startScan(function () {}, 0, { interval: 100, window: ${window}, passive: true });`;
  const wide = await energy(scan(60), ['--world', bleBeacon, '--for', '10 min']);
  const narrow = await energy(scan(30), ['--world', bleBeacon, '--for', '10 min']);
  assert.ok(part(wide, 'bleScan') > part(narrow, 'bleScan'));
  assert.ok(Math.abs(wide.radio.scanRxUs / narrow.radio.scanRxUs - 2) < 1e-6);
  const ratio = part(wide, 'bleScan') / part(narrow, 'bleScan');
  assert.ok(ratio > 1.8 && ratio < 2, `ratio ${ratio}`);
  assert.match(wide.rows[0].what, /^scanner: 60 ms window every 100 ms$/);
});

test('a shorter sync period costs more in the modem: more connections, handshakes and RRC tails', async () => {
  const lte = world({ devices: [{ name: 'tracker', profile: 'lte-beacon' }] });
  const syncing = (period: string): string =>
    `sync.setSyncPeriod('${period}'); timers.repeat('10 min', function () { cloud.enqueue('t', { v: 1 }, { volatile: false }); });`;
  const often = await energy(syncing('10 min'), ['--world', lte, '--for', '6h']);
  const rarely = await energy(syncing('1 hour'), ['--world', lte, '--for', '6h']);
  assert.ok(part(often, 'modem') > part(rarely, 'modem'));
  const modemRow = (d: DeviceEnergy): string => d.rows.find((r) => r.part === 'modem')!.what;
  const syncs = (d: DeviceEnergy): number => Number(/(\d+) syncs?/.exec(modemRow(d))![1]);
  assert.ok(syncs(often) >= 5 * syncs(rarely), `${modemRow(often)} against ${modemRow(rarely)}`);
});

test('more GNSS fixes cost more: the receiver is on for longer', async () => {
  const lte = world({ devices: [{ name: 'tracker', profile: 'lte-beacon', gnss: { ttff: { cold: '30s', hot: '2s' } } }] });
  const track = (minInterval: number): string => `location.startUpdates(function () {}, { minInterval: ${minInterval} });`;
  const often = await energy(track(60), ['--world', lte, '--for', '2h']);
  const rarely = await energy(track(600), ['--world', lte, '--for', '2h']);
  assert.ok(part(often, 'gnss') > part(rarely, 'gnss'), `${part(often, 'gnss')} against ${part(rarely, 'gnss')}`);
  assert.equal(often.rows[0].part, 'gnss');
});

test('the same app and scenario give the same figures on every run', async () => {
  const args = ['--world', bleBeacon, '--for', '1h'];
  const source = `${advertise(250, 4)} ble.startScan(function () {}, 0, { interval: 200, window: 20 }); io.led(0, true);`;
  assert.deepEqual(await energy(source, args), await energy(source, args));
});

test('the same figures on both engines', { skip: workspaceMissing('jerryscript') }, async () => {
  const source = `${advertise(250, 4)} timers.repeat(1000, function () { io.led(0, app.getUptime() % 2000 < 1000); });`;
  const run = async (engine: string): Promise<string> => {
    const pkg = path.join(tempDir, `both-${engine}.bapp`);
    assert.equal((await beacon(['build', app(source), '--engine', engine, '-o', pkg])).status, 0);
    const r = await beacon(['run', pkg, '--world', bleBeacon, '--for', '30 min', '--energy', '--json']);
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  assert.equal(await run('duktape'), await run('jerryscript'));
});

test('a long run drains the battery to empty; the device then stops, and says so', async () => {
  // Advertising every 100 ms at +8 dBm: about 0.2 mA from 1000 mAh, some 200 days.
  const source = `${advertise(100, 8)} timers.repeat('1 day', function () { print('day ' + Math.round(app.getUptime() / 86400000) + ': ' + sensors.battery.getPerc() + ' %, ' + sensors.battery.getVoltage() + ' V'); });`;
  const r = await beacon(['run', app(source), '--world', bleBeacon, '--for', '400d', '--energy']);
  assert.equal(r.status, 0, r.stderr);
  const days = r.stdout.split('\n').filter((l) => l.startsWith('day '));
  assert.ok(days.length > 100 && days.length < 400, `${days.length} days`);
  // Percent and voltage fall day by day along the cell's curve.
  const levels = days.map((l) => Number(/: ([\d.]+) %/.exec(l)![1]));
  const volts = days.map((l) => Number(/, ([\d.]+) V/.exec(l)![1]));
  for (let i = 1; i < levels.length; i++) {
    assert.ok(levels[i] < levels[i - 1] && volts[i] <= volts[i - 1], days.join('\n'));
  }
  assert.match(r.stderr, /battery empty: the device is off until external power comes/);
  // Averaged over the days it ran, which is what the battery lasted.
  const report = /\[energy\] tag \(ble-beacon\): [\d.]+ µA on average over ([\d.]+) d; a full 1000 mAh battery lasts (\d+) days at that rate \(0\.0% left\)/.exec(r.stderr);
  assert.ok(report, r.stderr);
  assert.ok(Math.abs(Number(report[1]) - Number(report[2])) <= 1, report[0]);
  assert.ok(Math.abs(Number(report[1]) - days.length) <= 1, report[0]);
});

test('the battery empties and the device starts again on external power', async () => {
  const w = world({
    devices: [{ name: 'tag', profile: 'ble-beacon', battery: { percent: 0.5 } }],
    events: [{ at: '2d', power: { external: true, charging: true } }],
  });
  const r = await beacon(['run', app(`io.led(0, true); print('boot at ' + sensors.battery.getPerc() + ' %');`), '--world', w, '--for', '3d', '--trace', path.join(tempDir, 'empty.jsonl')]);
  assert.equal(r.status, 0, r.stderr);
  const trace = fs.readFileSync(path.join(tempDir, 'empty.jsonl'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { t: number; ev: string });
  const empty = trace.find((e) => e.ev === 'battery-empty');
  assert.ok(empty !== undefined && empty.t > 0 && empty.t < 2 * 86_400_000, 'no battery-empty record');
  const boots = trace.filter((e) => e.ev === 'boot').map((e) => e.t);
  assert.deepEqual(boots, [0, 2 * 86_400_000]);
  assert.deepEqual(r.stdout.trim().split('\n'), ['boot at 0.5 %', 'boot at 0 %']);
});

test('the low-battery sync comes when the level falls below 10 %, before the period', async () => {
  const w = world({ devices: [{ name: 'tracker', profile: 'lte-beacon', battery: { percent: 10.01 } }] });
  // GNSS on (tens of mA) drains 0.01 % of 2600 mAh in under a minute; the runtime looks at the
  // battery every 10 minutes while events are queued (RT_CLOUD_BATTERY_CHECK_MS).
  const source = [
    "sync.setSyncPeriod('1 day');",
    "sync.setEndHandler(function (e) { print('sync at ' + Math.round(app.getUptime() / 1000) + ' s at ' + sensors.battery.getPerc() + ' %: ' + (e ? e.code : 'ok')); });",
    "cloud.enqueue('t', { v: 1 }, { volatile: false });",
    'location.startUpdates(function () {});',
  ].join('\n');
  const r = await beacon(['run', app(source), '--world', w, '--for', '15 min', '--cloud', 'loopback']);
  assert.equal(r.status, 0, r.stderr);
  const m = /sync at (\d+) s at ([\d.]+) %: ok/.exec(r.stdout);
  assert.ok(m, r.stdout + r.stderr);
  assert.ok(Number(m[2]) < 10 && Number(m[1]) === 600, r.stdout);
  assert.match(r.stderr, /battery low \(10 %\): syncing the cloud queue/);
});

test('getAvgCurrent is the draw of the last minute', async () => {
  // Three LEDs fully white for two minutes, then dark.
  const source = [
    'for (var i = 0; i < 3; i++) io.led(i, true);',
    "timers.single('2 min', function () { for (var i = 0; i < 3; i++) io.led(i, false); });",
    "[30, 90, 150, 185].forEach(function (s) { timers.single(s * 1000, function () { print(s + ' s: ' + sensors.battery.getAvgCurrent()); }); });",
  ].join('\n');
  const r = await beacon(['run', app(source), '--world', bleBeacon, '--for', '4 min']);
  assert.equal(r.status, 0, r.stderr);
  const at = (s: number): number => Number(new RegExp(`^${s} s: (.+)$`, 'm').exec(r.stdout)![1]);
  const fig = readEnergyFile(path.join(__dirname, '..', '..', '..', 'src', 'world', 'energy', 'ble-beacon.json')).figures.led_channel_ma.value as Record<string, number>;
  const leds = 3 * (fig.r + fig.g + fig.b);
  // Stable within the first minute and after it; half the LEDs' draw 30 s after they go dark;
  // the floor once a minute has passed (the API: "can take up to a minute to stabilise").
  assert.ok(Math.abs(at(30) - leds) < 0.2, r.stdout);
  assert.ok(Math.abs(at(90) - leds) < 0.2, r.stdout);
  assert.ok(Math.abs(at(150) - leds / 2) < 0.2, r.stdout);
  assert.ok(at(185) < 0.1, r.stdout);
});

test('charging fills the battery, and the power listener hears that charging stopped', async () => {
  const w = world({
    devices: [{ name: 'lte', profile: 'lte-beacon', battery: { percent: 99.9 } }],
    events: [{ at: '10s', power: { external: true, charging: true } }],
  });
  const source = "sensors.battery.setPowerListener(function (ext, charging) { print(Math.round(app.getUptime() / 1000) + ' s: ext ' + ext + ', charging ' + charging + ', ' + sensors.battery.getPerc() + ' %'); });";
  const r = await beacon(['run', app(source), '--world', w, '--for', '2 min']);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines[0], '0 s: ext false, charging false, 99.9 %');
  assert.equal(lines[1], '10 s: ext true, charging true, 99.9 %');
  // 0.1 % of 2600 mAh at 450 mA: 20.8 s.
  assert.match(lines[2], /^3[01] s: ext true, charging false, 100 %$/);
  assert.equal(lines.length, 3);
});

test('a scenario\'s constant current stands for the model', async () => {
  const w = world({ devices: [{ name: 'tag', profile: 'ble-beacon', battery: { current: 2 } }] });
  const d = await energy(advertise(100, 8), ['--world', w, '--for', '1h']);
  assert.equal(d.fixedMa, 2);
  assert.equal(d.avgMa, 2);
  assert.ok(Math.abs(d.percentLeft - (100 - 2 / 1000 * 100)) < 1e-3);
});

test('beacon run --energy: the human report names each part and the battery life; usage errors', async () => {
  const r = await beacon(['run', app(advertise(100, 4)), '--world', bleBeacon, '--for', '1h', '--energy']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /^\[energy\] tag \(ble-beacon\): [\d.]+ µA on average over 1 h; a full 1000 mAh battery lasts \d+ days at that rate \(100\.0% left\)$/m);
  assert.match(r.stderr, /^\[energy\] +\d+\.\d% +[\d.]+ µA  advertiser 0: 100 ms at \+4 dBm$/m);
  const json = await beacon(['run', app('print(1);'), '--json']);
  assert.equal(json.status, 2);
  assert.match(json.stderr, /--json: with --energy/);
  const board = await beacon(['run', app('print(1);'), '--energy', '--target', 'zephyr-qemu']);
  assert.equal(board.status, 2);
  assert.match(board.stderr, /--energy: the simulator's energy model \(--target sim\)/);
});

test('a profile\'s figures must all be there, each with its source', () => {
  const dir = path.join(__dirname, '..', '..', '..', 'src', 'world', 'energy');
  const good = JSON.parse(fs.readFileSync(path.join(dir, 'lte-beacon.json'), 'utf8')) as { figures: Record<string, unknown> };
  const file = path.join(tempDir, 'lte-beacon.json');
  delete good.figures.gnss_tracking_ma;
  fs.writeFileSync(file, JSON.stringify(good));
  assert.throws(() => readEnergyFile(file), (e: Error) => e instanceof EnergyDataError && /figures\.gnss_tracking_ma is missing: profile lte-beacon has that part/.test(e.message));
  const unsourced = JSON.parse(fs.readFileSync(path.join(dir, 'ble-beacon.json'), 'utf8')) as { figures: Record<string, { source: string }> };
  unsourced.figures.radio_rx_ma.source = '';
  fs.writeFileSync(file, JSON.stringify(unsourced));
  assert.throws(() => readEnergyFile(file), /figures\.radio_rx_ma\.source: every figure names its source/);
});
