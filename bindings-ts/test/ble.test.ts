// The BLE air end to end through `beacon run`: the examples for a simulated day among scripted
// tags (tests/examples), scenario beacons and captured packets, and the air's trace records.
import { spawnSync } from 'child_process';
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';
import { lowerScenario, parseScenario, ScenarioError } from '../src/world/scenario';
import { workspaceMissing } from '../src/firmware/workspace';

const repo = path.dirname(toolsRoot());
const cli = path.join(toolsRoot(), 'bin', 'beacon.js');
const examples = path.join(repo, 'tests', 'examples');
const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-ble-'));
after(() => fs.rmSync(tempDir, { recursive: true, force: true }));

const engines: { name: string; skip: string | false }[] = [
  { name: 'duktape', skip: false },
  { name: 'jerryscript', skip: workspaceMissing('jerryscript') },
];

function run(args: string[]): { stdout: string; stderr: string; status: number | null } {
  const r = spawnSync(process.execPath, [cli, 'run', '--cloud', 'loopback', ...args], { encoding: 'utf8', timeout: 300_000 });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

function traceOf(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

for (const { name: engine, skip } of engines) {
  test(`${engine}: examples/telemetry.ts for a day: a listener decodes its TLM, iBeacon and URL packets each hour`, { skip }, () => {
    const r = run([
      path.join(repo, 'examples', 'telemetry.ts'),
      path.join(examples, 'tlm-listener.ts'),
      '--world', path.join(examples, 'telemetry.world.json'),
      '--for', '24h', '--engine', engine,
    ]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, fs.readFileSync(path.join(examples, 'telemetry.expected'), 'utf8'));
  });

  test(`${engine}: examples/asset-tracker.ts for a day among tags: one line per round`, { skip }, () => {
    const r = run([
      path.join(repo, 'examples', 'asset-tracker.ts'),
      '--world', path.join(examples, 'asset-tracker.world.json'),
      '--for', '24h', '--engine', engine,
    ]);
    assert.equal(r.status, 0, r.stderr);
    // Each round queues its report; the size it prints is left out of the expected rounds (they
    // are about what was heard). examples.test.ts holds the whole output and trace of this day to
    // be the same on both engines, sizes included.
    const rounds = r.stdout.replace(/, \d+ bytes queued$/gm, '');
    assert.equal(rounds, fs.readFileSync(path.join(examples, 'asset-tracker.expected'), 'utf8'));
  });

  test(`${engine}: examples/asset-tracker.ts hears the tags in range, passively, in its scan windows`, { skip }, () => {
    const traceFile = path.join(tempDir, `${engine}-asset.trace`);
    const r = run([
      path.join(repo, 'examples', 'asset-tracker.ts'),
      '--world', path.join(examples, 'asset-tracker.world.json'),
      '--for', '2h', '--engine', engine, '--trace', traceFile,
    ]);
    assert.equal(r.status, 0, r.stderr);
    const trace = traceOf(traceFile);
    const rx = trace.filter((t) => t.ev === 'ble-rx');
    const heard = [...new Set(rx.map((t) => t.from as string))].sort();
    // far-crate is 2 km away: -4 dBm - 40 dB - 66 dB is far below the -95 dBm sensitivity.
    assert.deepEqual(heard, ['forklift', 'pallet-1', 'pallet-2', 'phone', 'stranger']);
    assert.ok(rx.every((t) => t.kind === 'adv'), 'a passive scan gets no scan responses');
    // Rounds at 0, 5 min, ... 2 h: 25 scans started; the last one stops as the run ends.
    const starts = trace.filter((t) => t.ev === 'ble-scan-start').map((t) => t.t as number);
    const stops = trace.filter((t) => t.ev === 'ble-scan-stop').map((t) => t.t as number);
    assert.equal(starts.length, 25);
    assert.deepEqual(stops, [...starts.slice(0, 24).map((t) => t + 8000), 7_200_000]);
    // Nothing is heard outside a scan, nor outside the windows (150 ms interval, 100 ms window).
    for (const t of rx) {
      const at = t.t as number;
      const start = starts.filter((s) => s <= at).pop()!;
      assert.ok(at <= start + 8000, `heard at ${at} after the scan of ${start} ended`);
      assert.ok((at - start) % 150 < 100, `heard at ${at}, outside a window of the scan of ${start}`);
    }
  });
}

test('scenario beacons lower to beacon lines with their AD bytes, captures to ble-capture inputs', () => {
  const s = parseScenario(
    JSON.stringify({
      seed: 9,
      devices: [{ name: 'a' }],
      beacons: [
        {
          name: 'tag',
          position: { x: 0, y: 0 },
          interval: '250ms',
          power: -8,
          addr: 'C0FFEE000001',
          packet: { iBeacon: { uuid: 'e2c56db5dffb48d2b060d0f5a71096e0', major: 1, minor: 2, measuredPower: -59 } },
        },
        { position: { lat: 0, long: 0 }, raw: '020106', scanResponse: false },
        { position: { x: 1, y: 1 }, packet: { serviceUUIDs: ['feaa'], serviceData: { feaa: '10ec0374657374' }, name: 'x' } },
      ],
      events: [{ at: '2s', bleCapture: { data: '0201060303aafe', rssi: -70, channel: 38, scanResponse: true } }],
    }),
    'w.json',
  );
  const script = lowerScenario(s, 'w.json').script.split('\n');
  assert.ok(script.includes('seed 9'));
  // The iBeacon vector of Apple's Proximity Beacon Specification layout: flags, then 1a ff 4c 00 02 15.
  assert.ok(
    script.includes('beacon tag 0.000000000,0.000000000,0 250 -8 0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5 addr=c0ffee000001'),
    script.join('\n'),
  );
  assert.ok(script.includes('beacon b1 0.000000000,0.000000000,0 1000 0 020106 response=0'));
  // UUID lists and service data carry the UUID little-endian; the name comes last.
  assert.ok(script.some((l) => l.startsWith('beacon b2 ') && l.endsWith(' 1000 0 0303aafe0a16aafe10ec0374657374020978')), script.join('\n'));
  assert.ok(script.includes('at 2000 0 ble-capture 0201060303aafe -70 38 response=1'));
});

test('scenario beacons: a packet that does not fit, or neither packet nor raw, is refused with its path', () => {
  const bad = (beacon: object, at: string) =>
    assert.throws(
      () => parseScenario(JSON.stringify({ beacons: [beacon] }), 'w.json'),
      (e: unknown) => e instanceof ScenarioError && e.at === at,
    );
  bad({ position: { x: 0, y: 0 } }, 'beacons[0]');
  bad({ position: { x: 0, y: 0 }, raw: '020106', packet: { flags: 6 } }, 'beacons[0]');
  bad({ position: { x: 0, y: 0 }, packet: { manufData: '00'.repeat(28), flags: 6 } }, 'beacons[0].packet');
  bad({ position: { x: 0, y: 0 }, raw: '0201', interval: 10 }, 'beacons[0].interval');
});

test('a captured packet reaches a scanning device on its channel only; the trace says whether it was heard', () => {
  const dir = fs.mkdtempSync(path.join(tempDir, 'cap-'));
  const app = path.join(dir, 'scan.ts');
  fs.writeFileSync(
    app,
    `ble.startScan((r) => print(\`\${r.channel} \${r.rssi} \${r.scanResponse} \${toHex(r.addr)} \${JSON.stringify(ble.parse(r))}\`), 0, { channels: [38], passive: true });\n`,
  );
  const world = path.join(dir, 'w.json');
  fs.writeFileSync(
    world,
    JSON.stringify({
      events: [
        { at: '1s', bleCapture: { data: '0201060303aafe0e16aafe10eb036578616d706c6507', rssi: -61, channel: 38, addr: 'aabbccddeeff' } },
        { at: '2s', bleCapture: { data: '0201060303aafe0e16aafe10eb036578616d706c6507', rssi: -61, channel: 37 } },
        { at: '3s', bleCapture: { data: '03096162', rssi: -50, channel: 38, scanResponse: true } },
      ],
    }),
  );
  const traceFile = path.join(dir, 't.jsonl');
  const r = run([app, '--world', world, '--for', '5s', '--trace', traceFile]);
  assert.equal(r.status, 0, r.stderr);
  // Eddystone-URL, tx power -21 dBm at 0 m, https://example.com (expansion 0x07).
  assert.equal(r.stdout, '38 -61 false aabbccddeeff {"type":"eddystoneUrl","url":"https://example.com","measuredPower":-21}\n');
  const caps = traceOf(traceFile).filter((t) => t.ev === 'ble-capture');
  assert.deepEqual(caps.map((t) => t.heard), [true, false, false]);
});
