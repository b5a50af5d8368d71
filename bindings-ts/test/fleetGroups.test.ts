// Fleets in one world (docs/world.md, "Groups"): a scenario's groups expand into devices the same
// way every time, placed in their area or on their grid, named from their prefix, with their apps
// spread in turn; bad fleets are refused with the JSON path and the reason; and devices boot at
// their start times: off before (no radio, no app, no current), the boot record at the time, on
// both engines alike.
import { spawnSync } from 'child_process';
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';
import { workspaceMissing } from '../src/firmware/workspace';
import { DEFAULT_SPREAD_MS, lowerScenario, parseScenario, Scenario } from '../src/world/scenario';

const cli = path.join(toolsRoot(), 'bin', 'beacon.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-fleet-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const engines = ['duktape', ...(workspaceMissing('jerryscript') ? [] : ['jerryscript'])];

fs.writeFileSync(path.join(dir, 'a.js'), "print('a ' + sys.getPublicId().slice(-4));\n");
fs.writeFileSync(path.join(dir, 'b.js'), "print('b ' + sys.getPublicId().slice(-4));\n");
fs.writeFileSync(path.join(dir, 'broken.ts'), 'const n: number = "not a number";\n');

function run(args: string[]) {
  return spawnSync(process.execPath, [cli, 'run', '--cloud', 'loopback', ...args], { encoding: 'utf8', timeout: 300_000 });
}

function parse(s: unknown): Scenario {
  return parseScenario(JSON.stringify(s), path.join(dir, 'w.json'));
}

interface Record {
  t: number;
  dev: string;
  ev: string;
  from?: string;
  text?: string;
  poweredMs?: number;
}

function records(file: string): Record[] {
  return fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record);
}

test('a group expands after the devices: names from its prefix, positions inside its area, the same every time', () => {
  const scenario = {
    seed: 3,
    devices: [{ name: 'gate', app: 'a.js' }],
    groups: [{ name: 'tag', count: 50, profile: 'ble-beacon', app: 'a.js', battery: { percent: 60 }, area: { x: 10, y: -5, width: 40, height: 20 } }],
  };
  const s = parse(scenario);
  assert.equal(s.devices!.length, 51);
  assert.equal(s.devices![0].name, 'gate');
  assert.deepEqual(s.devices!.slice(1).map((d) => d.name), Array.from({ length: 50 }, (_, k) => `tag-${k}`));
  for (const d of s.devices!.slice(1)) {
    assert.equal(d.profile, 'ble-beacon');
    assert.deepEqual(d.battery, { percent: 60 });
    const p = d.position as { x: number; y: number };
    assert.ok(p.x >= 10 && p.x <= 50 && p.y >= -5 && p.y <= 15, `${d.name} at ${p.x}, ${p.y}`);
  }
  // Drawn, not stacked: the positions differ.
  assert.equal(new Set(s.devices!.slice(1).map((d) => JSON.stringify(d.position))).size, 50);
  assert.equal(s.sources!.at[0], 'devices[0]');
  assert.equal(s.sources!.at[7], 'groups[0]');
  // Same file, same devices and the same world script, byte for byte.
  assert.deepEqual(parse(scenario).devices, s.devices);
  assert.equal(lowerScenario(parse(scenario), path.join(dir, 'w.json')).script, lowerScenario(s, path.join(dir, 'w.json')).script);
  // Another world seed, or the group's own, places them elsewhere.
  assert.notDeepEqual(parse({ ...scenario, seed: 4 }).devices![1].position, s.devices![1].position);
  assert.notDeepEqual(parse({ ...scenario, groups: [{ ...scenario.groups[0], seed: 99 }] }).devices![1].position, s.devices![1].position);
});

test('a grid places devices in rows of its columns, spacing apart; default names are the world index', () => {
  const s = parse({ groups: [{ count: 7, grid: { x: 5, y: 1, spacing: 2.5, columns: 3 } }] });
  assert.deepEqual(s.devices!.map((d) => d.position), [
    { x: 5, y: 1 }, { x: 7.5, y: 1 }, { x: 10, y: 1 },
    { x: 5, y: 3.5 }, { x: 7.5, y: 3.5 }, { x: 10, y: 3.5 },
    { x: 5, y: 6 },
  ]);
  assert.deepEqual(s.devices!.map((d) => d.name), ['d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6']);
  // Without columns the grid is as square as the count allows: 3 columns for 7.
  assert.deepEqual(parse({ groups: [{ count: 7, grid: { spacing: 1 } }] }).devices!.map((d) => d.position), s.devices!.map((d) => {
    const p = d.position as { x: number; y: number };
    return { x: (p.x - 5) / 2.5, y: (p.y - 1) / 2.5 };
  }));
});

test('apps are spread over a group in turn, and the lowered world names the key of each', () => {
  const s = parse({ groups: [{ name: 'g', count: 5, apps: ['a.js', 'b.js'] }] });
  assert.deepEqual(s.devices!.map((d) => d.app), ['a.js', 'b.js', 'a.js', 'b.js', 'a.js']);
  const lowered = lowerScenario(s, path.join(dir, 'w.json'));
  assert.deepEqual(lowered.devices.map((d) => d.appAt), ['groups[0].apps[0]', 'groups[0].apps[1]', 'groups[0].apps[0]', 'groups[0].apps[1]', 'groups[0].apps[0]']);
  assert.equal(lowered.devices[1].app, path.join(dir, 'b.js'));
  const r = run([writeWorld('spread.json', { groups: [{ name: 'g', count: 5, apps: ['a.js', 'b.js'], start: { spread: 0 } }] }), '--for', '1s']);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n').sort(), ['[g-0] a 0001', '[g-1] b 0002', '[g-2] a 0003', '[g-3] b 0004', '[g-4] a 0005']);
});

function writeWorld(name: string, scenario: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(scenario));
  return file;
}

test('boot times: spread over [at, at + spread) by default 1 s, all at once with spread 0; a device start is its own', () => {
  const starts = (s: Scenario) => s.devices!.map((d) => d.start as number);
  const spread = starts(parse({ groups: [{ count: 40 }] }));
  assert.equal(DEFAULT_SPREAD_MS, 1000);
  assert.ok(spread.every((t) => Number.isInteger(t) && t >= 0 && t < 1000), spread.join(' '));
  assert.ok(new Set(spread).size > 20, 'the boots are spread, not stacked');
  assert.deepEqual(starts(parse({ groups: [{ count: 5, start: { spread: 0 } }] })), [0, 0, 0, 0, 0]);
  assert.ok(starts(parse({ groups: [{ count: 20, start: { at: '2s', spread: '500ms' } }] })).every((t) => t >= 2000 && t < 2500));
  const script = lowerScenario(parse({ devices: [{ name: 'a', start: '1.5s' }, { name: 'b', start: 0 }] }), path.join(dir, 'w.json')).script;
  assert.match(script, /^device 0 a lte-beacon start=1500$/m);
  assert.match(script, /^device 1 b lte-beacon$/m);
});

const bad: [string, unknown, RegExp][] = [
  ['a count of 0', { groups: [{ count: 2 }, { count: 1 }, { count: 0 }] }, /: groups\[2\]\.count: must be at least 1$/m],
  ['an area of no width', { groups: [{ count: 3, area: { width: 0, height: 5 } }] }, /: groups\[0\]\.area\.width: must be more than 0 m: an area of no size has no room for devices$/m],
  ['an area of no height', { groups: [{ count: 3, area: { width: 4, height: 0 } }] }, /: groups\[0\]\.area\.height: must be more than 0 m/],
  ['a grid without spacing', { groups: [{ count: 3, grid: { spacing: 0 } }] }, /: groups\[0\]\.grid\.spacing: must be more than 0 m/],
  ['a grid with no spacing given', { groups: [{ count: 3, grid: { columns: 2 } }] }, /: groups\[0\]\.grid: missing 'spacing'/],
  ['more than 10,000 devices', { devices: [{ name: 'x' }], groups: [{ count: 6000 }, { count: 4000 }] },
    /: groups\[1\]\.count: the world would have 10001 devices \(devices and groups together\); it holds at most 10000$/m],
  ['a group name that clashes with a device', { devices: [{ name: 'tag-1' }], groups: [{ name: 'tag', count: 3 }] },
    /: groups\[0\]\.name: 'tag-1' is also the name of devices\[0\]$/m],
  ['two groups of one name', { groups: [{ name: 'tag', count: 2 }, { name: 'tag', count: 2 }] },
    /: groups\[1\]\.name: 'tag-0' is also the name of groups\[0\] \(its device tag-0\)$/m],
  ['two placements', { groups: [{ count: 2, grid: { spacing: 1 }, position: { x: 1, y: 1 } }] }, /: groups\[0\]: give the placement as one of area, grid or position \(got grid and position\)/],
  ['app and apps', { groups: [{ count: 2, app: 'a.js', apps: ['b.js'] }] }, /: groups\[0\]: give the app as app \(one for all\) or apps/],
  ['a name prefix too long for its numbers', { groups: [{ name: 'x'.repeat(27), count: 2 }] }, /: groups\[0\]\.name: must match pattern/],
  ['an app that does not build', { groups: [{ count: 2, app: 'a.js' }, { count: 2, apps: ['a.js', 'broken.ts'] }] },
    /: groups\[1\]\.apps\[1\]: broken\.ts does not build \(1 error\); nothing was run$/m],
];

for (const [what, scenario, message] of bad) {
  test(`a fleet with ${what} is refused with its path and reason, and nothing runs`, () => {
    const file = writeWorld('bad.json', scenario);
    const r = spawnSync(process.execPath, [cli, 'run', '--cloud', 'loopback', '--world', file, ...(JSON.stringify(scenario).includes('.js') ? [] : [path.join(dir, 'a.js')])], { encoding: 'utf8', timeout: 120_000, cwd: dir });
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`^beacon run: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `, 'm'));
    assert.match(r.stderr, message);
  });
}

test('staggered boots are in the trace at their times: within the spread, or all at 0 with spread 0; both engines alike', () => {
  const traces = engines.map((engine) => {
    const world = writeWorld('stagger.json', {
      groups: [
        { name: 's', count: 12, app: 'a.js', profile: 'ble-beacon', start: { spread: '1s' } },
        { name: 'z', count: 4, app: 'a.js', profile: 'ble-beacon', start: { spread: 0 } },
        { name: 'l', count: 4, app: 'a.js', profile: 'ble-beacon', start: { at: '3s', spread: '200ms' } },
      ],
    });
    const trace = path.join(dir, `stagger-${engine}.jsonl`);
    const r = run([world, '--for', '5s', '--trace', trace, '--engine', engine]);
    assert.equal(r.status, 0, r.stderr);
    return fs.readFileSync(trace, 'utf8');
  });
  const boots = traces[0].trim().split('\n').map((l) => JSON.parse(l) as Record).filter((x) => x.ev === 'boot');
  const at = (prefix: string) => boots.filter((b) => b.dev.startsWith(prefix)).map((b) => b.t);
  assert.equal(boots.length, 20, 'each device booted once');
  assert.ok(at('s-').every((t) => t >= 0 && t < 1000));
  assert.ok(new Set(at('s-')).size > 1, 'the group did not boot in one millisecond');
  assert.deepEqual(at('z-'), [0, 0, 0, 0]);
  assert.ok(at('l-').every((t) => t >= 3000 && t < 3200), at('l-').join(' '));
  // The app's print comes at its device's boot, not before.
  const all = traces[0].trim().split('\n').map((l) => JSON.parse(l) as Record);
  for (const b of boots) {
    const first = all.find((x) => x.dev === b.dev)!;
    assert.equal(first.ev, 'boot', `${b.dev}: nothing before its boot`);
    assert.equal(all.find((x) => x.dev === b.dev && x.ev === 'print')!.t, b.t);
  }
  for (const other of traces.slice(1)) assert.equal(other, traces[0], 'the same trace on every engine');
});

test('a device that boots later is off until then: not heard, its app not run, a button not seen, no current drawn', () => {
  fs.writeFileSync(path.join(dir, 'scanner.js'),
    "ble.startScan(function (r) { }, 0, { passive: true, interval: 100, window: 100 });\n");
  fs.writeFileSync(path.join(dir, 'late.js'), [
    "print('started at ' + sys.getUptime());",
    "io.press(function () { print('pressed'); });",
    "ble.advertise({ name: 'LATE' }).interval(100);",
  ].join('\n'));
  const world = writeWorld('late.json', {
    devices: [
      { name: 'scanner', profile: 'ble-beacon', app: 'scanner.js' },
      { name: 'late', profile: 'ble-beacon', app: 'late.js', start: '4s', position: { x: 2, y: 0 } },
    ],
    events: [
      { at: '1s', device: 'late', press: { hold: '100ms' } },
      { at: '6s', device: 'late', press: { hold: '100ms' } },
    ],
  });
  for (const engine of engines) {
    const trace = path.join(dir, `late-${engine}.jsonl`);
    const energy = spawnSync(process.execPath, [cli, 'run', '--cloud', 'loopback', world, '--for', '10s', '--trace', trace, '--engine', engine, '--energy', '--json'], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(energy.status, 0, energy.stderr);
    const list = records(trace);
    const late = list.filter((x) => x.dev === 'late');
    const boot = late.find((x) => x.ev === 'boot')!;
    assert.equal(boot.t, 4000);
    // Before its start only the world's inputs reach it (the button edges of the first press).
    assert.deepEqual([...new Set(late.filter((x) => x.t < 4000).map((x) => x.ev))], ['button']);
    const heard = list.filter((x) => x.ev === 'ble-rx' && x.from === 'late').map((x) => x.t);
    assert.ok(heard.length > 10, 'the scanner hears it once on');
    assert.ok(heard.every((t) => t >= 4000), `heard at ${heard[0]}`);
    // The press before its start found nothing running; the one after did.
    assert.deepEqual(late.filter((x) => x.ev === 'print').map((x) => x.text), ['started at 0', 'pressed']);
    // Powered from its boot only.
    const summary = list.find((x) => x.dev === 'late' && x.ev === 'energy-summary')!;
    assert.equal(summary.poweredMs, 6000);
    assert.equal(list.find((x) => x.dev === 'scanner' && x.ev === 'energy-summary')!.poweredMs, 10000);
  }
});
