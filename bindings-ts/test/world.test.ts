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

const repo = path.dirname(toolsRoot());
const cli = path.join(toolsRoot(), 'bin', 'beacon.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-world-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const hello = path.join(dir, 'hello.ts');
fs.writeFileSync(hello, "print('ran');\n");

function run(args: string[]) {
  return spawnSync(process.execPath, [cli, 'run', ...args], { encoding: 'utf8', timeout: 120_000 });
}

const bad: [string, unknown, RegExp][] = [
  ['an unknown key', { events: [{ at: '1s', prss: { hold: '1s' } }] }, /events\[0\]: unknown key 'prss'/],
  ['a bad interval', { events: [{ at: '1s', press: { hold: 'long' } }] }, /events\[0\]\.press\.hold: must be an interval/],
  ['a negative time', { events: [{ at: -5, battery: 50 }] }, /events\[0\]\.at: must be an interval/],
  ['an unknown profile', { devices: [{ profile: 'nrf5' }] }, /devices\[0\]\.profile: must be one of "ble-beacon", "lte-beacon", "ai-beacon"/],
  ['a battery over 100 %', { events: [{ at: 0, battery: 120 }] }, /events\[0\]\.battery: must be <= 100/],
  ['no input', { events: [{ at: 0 }] }, /events\[0\]: has no input/],
  ['two inputs', { events: [{ at: 0, battery: 50, temperature: 20 }] }, /events\[0\]: has 2 inputs \(battery, temperature\)/],
  ['a missing device', { devices: [{ name: 'a' }, { name: 'b' }], events: [{ at: 0, battery: 5 }] }, /events\[0\]\.device: missing: the world has 2 devices \(a, b\)/],
  ['an unknown device', { devices: [{ name: 'a' }], events: [{ at: 0, device: 'z', battery: 5 }] }, /events\[0\]\.device: no device is named 'z' \(devices: a\)/],
  ['a name twice', { devices: [{ name: 'a' }, { name: 'a' }] }, /devices\[1\]\.name: 'a' is also the name of devices\[0\]/],
  ['a side button the hardware lacks', { events: [{ at: 0, press: { button: 'side', hold: '1s' } }] }, /events\[0\]\.press\.button: device 'd0' \(lte-beacon\) has no side button/],
  ['a bad utc', { utc: 'yesterday' }, /utc: must be an ISO 8601 time/],
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

const engines = ['duktape', ...(process.env.JERRYSCRIPT_DIR ? ['jerryscript'] : [])];

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
