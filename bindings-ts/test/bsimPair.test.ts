// The LTE beacon as firmware, end to end: the asset tracker on the LTE beacon's two chips on
// BabbleSim (the beacon firmware with Bluetooth over H:4, the HCI UART controller on the air,
// joined by src/port/zephyr/runner/uart_link_runner.c), the scenario's tags as firmwares
// advertising on the same air, and the reports synced over TLS with the cloud `beacon run`
// starts. The cloud must store what it stores when the simulator runs the same scenario; the
// differences a real radio makes are asserted as such, each with its reason.
// Skipped, saying why, without Zephyr, JerryScript or BabbleSim (scripts/lib/workspace.sh).
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { beacon, repo } from './boardRuns';
import { workspaceMissing } from '../src/firmware/workspace';
import { PAIR_PROFILE, scriptBeacons, scriptProfiles } from '../src/firmware/bsimWorld';

const missing = workspaceMissing('zephyr', 'jerryscript', 'bsim');

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-bsim-pair-'));
after(() => fs.rmSync(tempDir, { recursive: true, force: true }));

interface Sighting { id: string; rssi: number; ch: number }
interface Report { round: number; count: number; nearest: { id: string; rssi: number } | null; assets: Sighting[]; battery: number }
interface CloudEvent { t: number; seq: number; type: string; ts: number; volatile: boolean; payload: Report }

/** The cloud-event records of a trace: what the run's cloud stored, with the world time of the
 * sync that delivered each. */
function cloudEvents(trace: string): CloudEvent[] {
  return fs.readFileSync(trace, 'utf8').split('\n').filter((l) => l.includes('"ev":"cloud-event"')).map((l) => JSON.parse(l) as CloudEvent);
}

const world = path.join(repo, 'tests', 'examples', 'asset-tracker.world.json');

test('the scenario script names the LTE beacon and the tags that bsimWorld.ts plays on the air', () => {
  const script = [
    'beacon-world 1',
    'device 0 tracker lte-beacon position=48.1372,11.5756,0',
    'device 1 tag ble-beacon',
    'beacon pallet-1 48.137235973,11.575640308,0 1000 -4 0201061aff4c00',
    'beacon forklift 48.137128053,11.575600000,0 2000 0 0201060c09 connectable=1',
  ].join('\n');
  assert.deepEqual(scriptProfiles(script), [PAIR_PROFILE, 'ble-beacon']);
  assert.deepEqual(scriptBeacons(script), [
    { name: 'pallet-1', at: [48.137235973, 11.575640308, 0] },
    { name: 'forklift', at: [48.137128053, 11.5756, 0] },
  ]);
});

test('beacon run --air radio is BabbleSim\'s air only', async () => {
  const r = await beacon(['run', path.join(repo, 'examples', 'hello.ts'), '--air', 'radio']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--air radio: only the firmwares on BabbleSim share a radio air \(--target bsim\)/);
  const bad = await beacon(['run', path.join(repo, 'examples', 'hello.ts'), '--target', 'bsim', '--air', 'water']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--air: 'water' is not model or radio/);
});

test('the asset tracker on the LTE beacon\'s two chips, tags on the air, synced over TLS: the cloud stores what the simulator makes it store', { skip: missing }, async () => {
  const pkg = path.join(tempDir, 'tracker.bapp');
  const built = await beacon(['build', path.join(repo, 'tests', 'examples', 'asset-tracker-synced.ts'), '--engine', 'jerryscript', '-o', pkg]);
  assert.equal(built.status, 0, built.stderr);
  // 50 minutes: ten scan rounds and three syncs (every 15 minutes), the last one at 45 minutes.
  const args = ['run', pkg, '--world', world, '--for', '50m', '--utc', '1767225600000'];
  const simTrace = path.join(tempDir, 'sim.jsonl');
  const fwTrace = path.join(tempDir, 'pair.jsonl');
  const sim = await beacon([...args, '--trace', simTrace]);
  assert.equal(sim.status, 0, sim.stderr);
  const fw = await beacon([...args, '--trace', fwTrace, '--target', 'bsim', '--air', 'radio']);
  const context = `\n--- simulator ---\n${sim.stdout}${sim.stderr}\n--- LTE beacon pair ---\n${fw.stdout}${fw.stderr}`;
  assert.equal(fw.status, 0, context);

  // The app's account: ten rounds, each with the three tags of the company in range (the far
  // crate is 2 km away, the stranger's UUID is foreign, the phone is no iBeacon).
  const rounds = (out: string): string[] => out.split('\n').filter((l) => l.startsWith('round ')).map((l) => l.replace(/, \d+ bytes queued$/, ''));
  assert.deepEqual(rounds(fw.stdout), rounds(sim.stdout), context);
  assert.equal(rounds(fw.stdout).length, 10);
  assert.ok(rounds(fw.stdout).every((l) => / 3 assets$/.test(l)), context);

  // The cloud's account: one device, nine events stored over TLS by three syncs.
  assert.match(fw.stderr, /^\[beacon cloud\] 5eac0b1d00004d0cbeac051a00000001: 9 events stored, 0 messages delivered$/m, context);
  const got = cloudEvents(fwTrace);
  const want = cloudEvents(simTrace);
  assert.equal(got.length, 9);
  assert.equal(got.length, want.length);
  got.forEach((e, i) => {
    const w = want[i];
    const at = `event ${i + 1}: ${JSON.stringify(e)}\nsimulator: ${JSON.stringify(w)}`;
    // In order per stream, each with its sequence number, type and timestamp (the device's UTC
    // when it queued it: scan windows end on the same world millisecond on both), delivered
    // by the sync at the same world time.
    assert.deepEqual([e.seq, e.type, e.ts, e.volatile, e.t], [w.seq, w.type, w.ts, w.volatile, w.t], at);
    assert.deepEqual([e.payload.round, e.payload.count, e.payload.battery], [w.payload.round, w.payload.count, w.payload.battery], at);
    // The same tags heard. RSSI is the strongest of some twenty receptions: the model's path loss
    // with 2 dB of noise on the simulator, BabbleSim's attenuation between the radios (the same
    // path loss, docs/world.md) on the pair, so each is within 6 dB of the simulator's.
    const byId = (r: Report): Map<string, Sighting> => new Map(r.assets.map((a) => [a.id, a]));
    const mine = byId(e.payload);
    const theirs = byId(w.payload);
    assert.deepEqual([...mine.keys()].sort(), [...theirs.keys()].sort(), at);
    for (const [id, a] of mine) {
      assert.ok(Math.abs(a.rssi - theirs.get(id)!.rssi) <= 6, `${at}\n${id}: ${a.rssi} dBm against ${theirs.get(id)!.rssi}`);
      // The standard HCI does not say on which channel a report came: the firmware reports the
      // scan's lowest channel (ble_radio_zephyr.c).
      assert.equal(a.ch, 37, at);
    }
    // The nearest is the strongest sighting of the round.
    assert.ok(e.payload.nearest !== null);
    assert.equal(e.payload.nearest.rssi, Math.max(...e.payload.assets.map((a) => a.rssi)), at);
  });
});

// Location through Zephyr's GNSS subsystem: on the pair's host chip the world's receiver sends
// each fix as NMEA 0183 sentences on uart0 (src/port/zephyr/runner/gnss_receiver_runner.c),
// Zephyr's generic NMEA driver parses them and src/port/zephyr/gnss_receiver_zephyr.c posts the
// fix from gnss.h's units (nanodegrees, millimetres, ...) to the runtime.
test('location on the LTE beacon\'s host chip comes through Zephyr\'s NMEA driver: the simulator\'s walk, to NMEA\'s resolution', { skip: missing }, async () => {
  const walkWorld = path.join(repo, 'tests', 'apps', 'location-walk.world.json');
  const run = async (file: string, forTime: string, where: string[]): Promise<string> => {
    const pkg = path.join(tempDir, `${path.basename(file)}.bapp`);
    if (!fs.existsSync(pkg)) assert.equal((await beacon(['build', file, '--engine', 'jerryscript', '-o', pkg])).status, 0);
    const r = await beacon(['run', pkg, '--world', walkWorld, '--for', forTime, '--utc', '1772366400000', ...where]);
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  const pair = ['--target', 'bsim', '--air', 'radio'];

  // The walk app's account (filters, distances, the promise's timeout) is the simulator's.
  const walk = path.join(repo, 'tests', 'apps', 'location-walk.ts');
  const walkSim = await run(walk, '6m', []);
  assert.equal(await run(walk, '6m', pair), walkSim);
  assert.equal(walkSim.split('\n').filter((l) => /^\d+ s: lat /.test(l)).length, 10);

  // Every fix of the first 40 seconds, at full precision: the same times, satellites, HDOP,
  // speed, heading and altitude; the same position within NMEA's 1e-6 minute of arc and the
  // runtime's rounding to 1e-7 degree, and not always the same digits (the simulator's
  // positions are not on NMEA's grid: the firmware's went through the sentences).
  const raw = path.join(tempDir, 'location-raw.js');
  fs.writeFileSync(raw, "location.startUpdates(function (p) { print([app.getUptime(), p.ts, p.lat, p.long, p.alt, p.speed, p.head, p.prec, p.sat].join(' ')); }, { minInterval: 1 });\n");
  const fixes = (out: string): number[][] => out.trim().split('\n').map((l) => l.split(' ').map(Number));
  const sim = fixes(await run(raw, '40s', []));
  const fw = fixes(await run(raw, '40s', pair));
  // A fix a second from the cold start's 5 s to the run's end at 40 s. The last one reaches the
  // firmware's runtime after the run has ended: the receiver's two sentences take 13 ms on the
  // line at 115200 baud, and the driver hands them on when the line has been idle for 20 ms.
  assert.equal(sim.length, 36);
  assert.equal(fw.length, sim.length - 1);
  let differ = 0;
  fw.forEach((f, i) => {
    const s = sim[i];
    const at = `fix ${i}: ${f.join(' ')}\nsimulator: ${s.join(' ')}`;
    assert.deepEqual([f[0], f[1], ...f.slice(4)], [s[0], s[1], ...s.slice(4)], at);
    for (const k of [2, 3]) {
      assert.ok(Math.abs(f[k] - s[k]) <= 1e-7 + 1e-12, at);
      if (f[k] !== s[k]) differ++;
    }
  });
  assert.ok(differ > 0, 'every position is the simulator\'s to the last digit: the fixes did not come through NMEA');
});

// beacon-tools/testing on BabbleSim's air alone (`beacon test --device bsim --air radio`): an
// lte-beacon device of a test's world runs as the two chips, beside the other devices' firmwares.
test('beacon-tools/testing with device bsim and air radio: the LTE beacon of a world runs as its two chips', { skip: missing }, async () => {
  const { world } = await import('../src/testing');
  const make = (device: string | null) => {
    const w = world(undefined, { device, air: 'radio', engine: 'jerryscript', origin: { lat: 60, long: 24 } });
    w.device('tag', { profile: 'ble-beacon', app: { source: "ble.advertise(ble.build.iBeacon('e2c56db5dffb48d2b060d0f5a71096e0', 4, 2, -59)).interval(100);" } });
    w.device('tracker', {
      profile: 'lte-beacon',
      // Walking north from beside the tag at 1 m/s.
      gnss: { ttff: { cold: '5s' }, track: [{ at: 0, x: 3, y: 1 }, { at: '60s', x: 3, y: 61 }] },
      app: {
        source: [
          'let n = 0;',
          "ble.startScan((r) => { const p = ble.parse(r); if (p && p.type === 'iBeacon') n++; }, 2000, { passive: true })",
          "  .then(() => print('iBeacons heard: ' + (n > 5)));",
          "location.startUpdates((p) => print('fix ' + app.getUptime() + ' ' + p.lat + ' ' + p.long), { minInterval: 1 });",
        ].join('\n'),
      },
    });
    return w.run('10s');
  };
  const [fw, sim] = [await make('bsim'), await make(null)];
  assert.equal(fw.exitCode, 0, fw.stderr);
  fw.device('tracker').printed('iBeacons heard: true');
  fw.device('tracker').traced({ ev: 'ble-rx', from: 'c05eac0b0000', kind: 'adv' });
  // The fixes came through the host chip's GNSS UART and Zephyr's NMEA driver: at the
  // simulator's times, within NMEA's resolution, not all with the simulator's digits.
  const fixes = (r: typeof fw): number[][] => r.device('tracker').console.filter((l) => l.startsWith('fix ')).map((l) => l.split(' ').slice(1).map(Number));
  const mine = fixes(fw);
  const theirs = fixes(sim);
  // From the cold start's 5 s to the run's end; the last one, at 10 s, reaches the firmware's
  // runtime after the run has ended.
  assert.deepEqual(theirs.map((f) => f[0]), [5000, 6000, 7000, 8000, 9000, 10000]);
  assert.deepEqual(mine.map((f) => f[0]), theirs.slice(0, -1).map((f) => f[0]));
  mine.forEach((f, i) => [1, 2].forEach((k) => assert.ok(Math.abs(f[k] - theirs[i]![k]) <= 1e-7 + 1e-12, `${f} against ${theirs[i]}`)));
  assert.ok(mine.some((f, i) => f[1] !== theirs[i]![1] || f[2] !== theirs[i]![2]), 'the fixes are the simulator\'s to the last digit: they did not come through NMEA');
});

test('beacon test --air radio is for the firmwares on BabbleSim', async () => {
  const file = path.join(tempDir, 'none.test.js');
  fs.writeFileSync(file, "require('node:test').test('nothing', () => {});\n");
  const noDevice = await beacon(['test', file, '--air', 'radio']);
  assert.equal(noDevice.status, 2);
  assert.match(noDevice.stderr, /--air radio: only the firmwares on BabbleSim share a radio air \(--device bsim\)/);
  const bad = await beacon(['test', file, '--device', 'bsim', '--air', 'water']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--air: 'water' is not model or radio/);
});
