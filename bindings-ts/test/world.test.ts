// The world scenario: refused with the JSON path and the reason before anything runs; lowered to
// the world script; and runs that are the same byte for byte (same package and scenario, same
// output and trace; and the same on both engines).
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
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-world-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const hello = path.join(dir, 'hello.ts');
fs.writeFileSync(hello, "print('ran');\n");

function run(args: string[]) {
  return spawnSync(process.execPath, [cli, 'run', '--cloud', 'loopback', ...args], { encoding: 'utf8', timeout: 120_000 });
}

const bad: [string, unknown, RegExp][] = [
  ['an unknown key', { events: [{ at: '1s', prss: { hold: '1s' } }] }, /events\[0\]: unknown key 'prss'/],
  ['a bad interval', { events: [{ at: '1s', press: { hold: 'long' } }] }, /events\[0\]\.press\.hold: must be an interval/],
  ['a negative time', { events: [{ at: -5, battery: 50 }] }, /events\[0\]\.at: must be an interval/],
  ['an unknown profile', { devices: [{ profile: 'nrf5' }] }, /devices\[0\]\.profile: must be one of "ble-beacon", "lte-beacon", "ai-beacon"/],
  ['a battery over 100 %', { events: [{ at: 0, battery: 120 }] }, /events\[0\]\.battery: must be at most 100/],
  ['no input', { events: [{ at: 0 }] }, /events\[0\]: has no input/],
  ['two inputs', { events: [{ at: 0, battery: 50, temperature: 20 }] }, /events\[0\]: has 2 inputs \(battery, temperature\)/],
  ['a missing device', { devices: [{ name: 'a' }, { name: 'b' }], events: [{ at: 0, battery: 5 }] }, /events\[0\]\.device: missing: the world has 2 devices \(a, b\)/],
  ['an unknown device', { devices: [{ name: 'a' }], events: [{ at: 0, device: 'z', battery: 5 }] }, /events\[0\]\.device: no device is named 'z' \(devices: a\)/],
  ['a name twice', { devices: [{ name: 'a' }, { name: 'a' }] }, /devices\[1\]\.name: 'a' is also the name of devices\[0\]/],
  ['a side button the hardware lacks', { events: [{ at: 0, press: { button: 'side', hold: '1s' } }] }, /events\[0\]\.press\.button: device 'd0' \(lte-beacon\) has no side button/],
  ['a bad utc', { utc: 'yesterday' }, /utc: must be an ISO 8601 time/],
  ['track points out of order', { devices: [{ gnss: { track: [{ at: '2s', x: 0, y: 0 }, { at: '1s', x: 1, y: 0 }] } }] },
    /devices\[0\]\.gnss\.track\[1\]\.at: points must be in strictly increasing order of time/],
  ['a track point with lat and x', { devices: [{ gnss: { track: [{ at: 0, lat: 1, long: 2, x: 3 }] } }] },
    /devices\[0\]\.gnss\.track\[0\]: a point needs lat and long \(alt optional\) or x and y/],
  ['overlapping outages', { devices: [{ gnss: { track: [{ at: 0, x: 0, y: 0 }], outages: [{ from: '1m', to: '3m' }, { from: '2m', to: '4m' }] } }] },
    /devices\[0\]\.gnss\.outages\[1\]\.from: outages must be in order and must not overlap/],
  ['outages without a track', { devices: [{ gnss: { outages: [{ from: 0, to: 1 }] } }] }, /devices\[0\]\.gnss: outages and sky need a track/],
  ['a missing GPX file', { devices: [{ gnss: { gpx: 'nowhere.gpx' } }] }, /devices\[0\]\.gnss\.gpx: nowhere\.gpx: /],
  ['a modem on a BLE beacon', { devices: [{ profile: 'ble-beacon', modem: { operators: [] } }] }, /devices\[0\]\.modem: a ble-beacon has no LTE modem/],
  ['a bad operator status', { devices: [{ modem: { operators: [{ name: 'x', status: 'home' }] } }] }, /devices\[0\]\.modem\.operators\[0\]\.status: must be one of "curr", "avail", "forb"/],
  ['an NFC input for hardware without a tag', { events: [{ at: 0, nfc: { field: true } }] }, /events\[0\]\.nfc: device 'd0' \(lte-beacon\) has no NFC tag/],
  ['an NFC write that is not hex', { devices: [{ profile: 'ble-beacon' }], events: [{ at: 0, nfc: { write: 'd1x' } }] }, /events\[0\]\.nfc\.write: must match pattern/],
  ['a UWB interval of 0', { uwb: { interval: 0, seed: 1 } }, /uwb\.interval: must be from 10 ms to 1 hour/],
  ['a track point beyond the pole', { origin: { lat: 89.99, long: 0 }, devices: [{ gnss: { track: [{ at: 0, x: 0, y: 5000 }] } }] },
    /devices\[0\]\.gnss\.track\[0\]: this point lies beyond a pole/],
];

for (const [what, scenario, message] of bad) {
  test(`a scenario with ${what} is refused with its path and reason, and nothing runs`, () => {
    const file = path.join(dir, 'bad.json');
    fs.writeFileSync(file, JSON.stringify(scenario));
    const r = run([hello, '--world', file]);
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`^beacon run: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
    assert.match(r.stderr, message);
  });
}

test('a scenario that is not JSON is refused', () => {
  const file = path.join(dir, 'broken.json');
  fs.writeFileSync(file, '{ "events": [ }');
  const r = run([hello, '--world', file]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /broken\.json: not JSON: /);
});

test('lowering: presses become two edges, orientations gravity, inputs in time order', () => {
  const s = parseScenario(JSON.stringify({
    utc: '2026-01-01T00:00:00Z',
    devices: [{ name: 'x', profile: 'ai-beacon', heap: 65536, battery: { percent: 50 }, orientation: 'vertical-gnss' }],
    events: [
      { at: '2s', press: { button: 'side', hold: '1.5s' } },
      { at: 500, orientation: 'flat-bottom' },
      { at: '2s', motion: true },
      { at: '1 min', power: { external: true } },
    ],
  }), 's.json');
  assert.equal(lowerScenario(s, 's.json').script, [
    'beacon-world 1',
    'device 0 x ai-beacon heap=65536 battery=50 accel=-1,0,0',
    'utc 1767225600000',
    'at 500 0 accel 0 0 -1',
    'at 2000 0 button side down',
    'at 2000 0 motion 1 0.3',
    'at 3500 0 button side up',
    'at 60000 0 power 1 1',
    '',
  ].join('\n'));
});

test('lowering: positions in metres become WGS-84 around the origin', () => {
  const s = parseScenario(JSON.stringify({
    origin: { lat: 52, long: 5 },
    devices: [{ position: { x: 1000, y: 1000 } }, { name: 'b', position: { lat: 1.5, long: -2, alt: 30 } }],
    events: [{ at: 0, device: 'd0', move: { x: 0, y: -500 } }],
  }), 's.json');
  const lines = lowerScenario(s, 's.json').script.split('\n');
  // 1 km north of 52 N is 0.0089874 degrees (meridian radius 6,375.1 km); 1 km east, 0.0145607 (normal radius x cos 52: 3,934.9 km).
  assert.equal(lines[1], 'device 0 d0 lte-beacon position=52.008987362,5.014560700,0');
  assert.equal(lines[2], 'device 1 b lte-beacon position=1.500000000,-2.000000000,30');
  assert.equal(lines[3], 'at 0 0 move 51.995506319 5.000000000 0');
});

test('lowering: GNSS tracks, outages, sky and receiver; from points and from a GPX file', () => {
  const gpx = path.join(dir, 'walk.gpx');
  fs.writeFileSync(gpx, `<?xml version="1.0"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
<trkpt lat="60.1" lon="24.9"><ele>10</ele><time>2026-03-01T12:00:00Z</time></trkpt>
<trkpt lat="60.1009" lon="24.9"><ele>11.5</ele><time>2026-03-01T12:01:40Z</time></trkpt>
</trkseg></trk></gpx>`);
  const s = parseScenario(JSON.stringify({
    origin: { lat: 60, long: 24 },
    devices: [
      { name: 'a', gnss: { ttff: { cold: '5s', hot: '1s' }, satellites: 9, hdop: 1.3, noise: 2, seed: 4,
        track: [{ at: 0, x: 0, y: 0 }, { at: '100s', lat: 60.001, long: 24, alt: 3, speed: 3.6 }],
        outages: [{ from: '1m', to: '2m' }], sky: [{ at: '30s', satellites: 3 }] } },
      { name: 'b', gnss: { gpx: 'walk.gpx', gpxOffset: '10s' } },
    ],
  }), path.join(dir, 's.json'));
  assert.deepEqual(lowerScenario(s, path.join(dir, 's.json')).script.split('\n').slice(3, 11), [
    'gnss 0 receiver sat=9 hdop=1.3 cold=5000 hot=1000 noise=2 seed=4',
    'gnss 0 point 0 60.000000000 24.000000000 0',
    'gnss 0 point 100000 60.001000000 24.000000000 3 3.6 -',
    'gnss 0 outage 60000 120000',
    'gnss 0 sky 30000 3 1.3',
    'gnss 1 point 10000 60.100000000 24.900000000 10',
    'gnss 1 point 110000 60.100900000 24.900000000 11.5',
    '',
  ]);
});

test('lowering: the modem network, NFC inputs and UWB options', () => {
  const s = parseScenario(JSON.stringify({
    uwb: { interval: '500ms', seed: 9 },
    devices: [
      { name: 't', modem: { operators: [{ name: 'Telia FI', status: 'curr' }], status: { name: 'A=B', signal: 3, rsrp: -100 },
        cells: [], sim: null, scan: { operators: '2m' } } },
      { name: 'door', profile: 'ble-beacon' },
    ],
    events: [{ at: '1s', device: 'door', nfc: { field: true } }, { at: '2s', device: 'door', nfc: { write: 'D1010855016E66632E636F6D' } }],
  }), 's.json');
  assert.deepEqual(lowerScenario(s, 's.json').script.split('\n').slice(3), [
    'modem 0 operator Telia%20FI gsm curr',
    'modem 0 status name=A%3dB signal=3 rsrp=-100',
    'modem 0 cells none',
    'modem 0 sim none',
    'modem 0 scan operators 120000',
    'uwb interval 500',
    'uwb seed 9',
    'at 1000 1 nfc-field 1',
    'at 2000 1 nfc-write d1010855016e66632e636f6d',
    '',
  ]);
});

test('a device follows its GNSS track: UWB distances and the trace follow it', () => {
  const file = path.join(dir, 'follow.json');
  fs.writeFileSync(file, JSON.stringify({
    origin: { lat: 0, long: 0 },
    devices: [
      { name: 'a', profile: 'ai-beacon', position: { x: 0, y: 0 } },
      { name: 'b', profile: 'ai-beacon', gnss: { track: [{ at: 0, x: 10, y: 0 }, { at: '10s', x: 30, y: 0 }] } },
    ],
  }));
  const app = path.join(dir, 'range.ts');
  fs.writeFileSync(app, `if (sys.getPublicId().slice(-1) === '1') uwb.start(uwb.Role.RESPONDER);
else uwb.start(uwb.Role.INITIATOR, { timeout: 10.5 }, (m) => print(\`\${app.getUptime()} \${Math.round(m.dist)}\`));\n`);
  const trace = path.join(dir, 'follow.jsonl');
  const r = run([app, '--world', file, '--api', '0.1.5', '--trace', trace]);
  assert.equal(r.status, 0, r.stderr);
  // 10 m at 0 s, 2 m/s east: 12 m at 1 s ... 30 m at 10 s.
  const got = r.stdout.trim().split('\n').map((l) => l.replace(/^\[b\] /, ''));
  assert.deepEqual(got, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((s) => `${s * 1000} ${10 + 2 * s}`));
});

test('the schema file and docs/world.md agree on the input kinds', () => {
  const schema = JSON.parse(fs.readFileSync(path.join(toolsRoot(), 'schema', 'world.schema.json'), 'utf8'));
  const inputs = Object.keys(schema.$defs.event.properties).filter((k) => k !== 'at' && k !== 'device');
  const doc = fs.readFileSync(path.join(repo, 'docs', 'world.md'), 'utf8');
  for (const k of inputs) assert.match(doc, new RegExp('`' + k + '`'), `docs/world.md does not document '${k}'`);
});

test('ScenarioError carries the file, the path and the reason', () => {
  assert.throws(() => parseScenario('{"devices": []}', 'w.json'), (e: unknown) =>
    e instanceof ScenarioError && e.file === 'w.json' && e.at === 'devices' && /must NOT have fewer than 1 items/.test(e.reason));
});

const engines = ['duktape', ...(workspaceMissing('jerryscript') ? [] : ['jerryscript'])];

test('the same package and scenario give the same output and trace, byte for byte; on every engine', () => {
  const app = path.join(repo, 'tests', 'apps', 'sensors-imu.ts');
  const world = path.join(repo, 'tests', 'apps', 'sensors-imu.world.json');
  const runs = [...engines, engines[0]].map((engine, i) => {
    const trace = path.join(dir, `trace-${i}.jsonl`);
    const r = run([app, '--world', world, '--trace', trace, '--engine', engine]);
    assert.equal(r.status, 0, r.stderr);
    return { stdout: r.stdout, trace: fs.readFileSync(trace, 'utf8') };
  });
  assert.ok(runs[0].trace.length > 1000);
  for (const other of runs.slice(1)) {
    assert.equal(other.stdout, runs[0].stdout);
    assert.equal(other.trace, runs[0].trace);
  }
});

test('a runaway callback stops at the same iteration on every run, on every engine', () => {
  const app = path.join(dir, 'runaway.ts');
  fs.writeFileSync(app, [
    'let spins = 0;',
    "app.setErrorHandler((type, error) => print(`${(error as Error & { code?: string }).code} at ${spins}`));",
    "timers.single('1s', () => { for (;;) spins++; });",
    "timers.single('2s', () => print('still running'));",
  ].join('\n'));
  for (const engine of engines) {
    const outputs = [0, 1].map(() => {
      const r = run([app, '--engine', engine]);
      assert.equal(r.status, 0, r.stderr);
      return r.stdout;
    });
    assert.match(outputs[0], /^ESR0104 at \d+\nstill running\n$/);
    assert.equal(outputs[1], outputs[0], engine);
  }
});

test('a world of 300 devices running two apps runs: no limit of 256 packages', () => {
  const tag = path.join(dir, 'fleet-tag.js');
  const tracker = path.join(dir, 'fleet-tracker.js');
  fs.writeFileSync(tag, "print('tag ' + sys.getPublicId().slice(-4));\n");
  fs.writeFileSync(tracker, "print('tracker ' + sys.getPublicId().slice(-4));\n");
  const devices = Array.from({ length: 300 }, (_, i) => ({
    name: `d${i}`,
    profile: i % 30 === 0 ? 'lte-beacon' : 'ble-beacon',
    app: i % 30 === 0 ? 'fleet-tracker.js' : 'fleet-tag.js',
  }));
  const world = path.join(dir, 'fleet.json');
  fs.writeFileSync(world, JSON.stringify({ devices }));
  const r = run(['--world', world, '--for', '1s']);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 300);
  assert.equal(lines.filter((l) => / tracker /.test(l)).length, 10);
  assert.equal(lines.filter((l) => / tag /.test(l)).length, 290);
});

test('receptions an app cannot take are lost as on the device, marked in the trace, counted and said', () => {
  // 400 beacons every 100 ms around one scanner: more than the 32 events the app's queue holds
  // arrive in some milliseconds.
  const beacons = Array.from({ length: 400 }, (_, i) => ({
    name: `b${i}`,
    position: { x: 1, y: 0 },
    interval: '100ms',
    packet: { iBeacon: { uuid: 'b9407f30f5f8466eaff925556b57fe6d', major: 1, minor: i, measuredPower: -59 } },
  }));
  const world = path.join(dir, 'crowd.json');
  fs.writeFileSync(world, JSON.stringify({ devices: [{ name: 'scanner', profile: 'ble-beacon' }], beacons }));
  const app = path.join(dir, 'crowd.js');
  fs.writeFileSync(app, "var n = 0;\nble.startScan(function () { n++; }, 2000, { interval: 100, window: 100, passive: true }).then(function () { print('heard ' + n); });\n");
  const trace = path.join(dir, 'crowd.jsonl');
  const r = run([app, '--world', world, '--for', '3s', '--trace', trace]);
  assert.equal(r.status, 0, r.stderr);
  const records = fs.readFileSync(trace, 'utf8').split('\n').filter((l) => l.includes('"ev":"ble-rx"')).map((l) => JSON.parse(l) as { lost?: boolean });
  const lost = records.filter((x) => x.lost === true).length;
  assert.ok(lost > 0, 'nothing was lost');
  // What the app heard is what reached it, less what was still queued when its scan ended (at
  // most a queue's worth); the rest is in the trace as lost, and counted.
  const heard = Number(/^heard (\d+)$/m.exec(r.stdout)![1]);
  assert.ok(heard <= records.length - lost && heard >= records.length - lost - 32, `heard ${heard} of ${records.length}, ${lost} lost`);
  assert.match(r.stderr, /^\[beacon warning\] BLE receptions lost: the app's event queue \(32 events\) is full; its scan callback cannot keep up with the air$/m);
  assert.match(r.stderr, new RegExp(`^\\[beacon warning\\] ${lost} BLE receptions lost in all: the app's event queue was full$`, 'm'));
});
