// Apps deployed through the world's loopback cloud (docs/world.md, `cloudDeploy`): a scenario
// deploys app B to a device running app A; the loopback cloud offers it at the device's next
// sync start, serves it in chunks (the protocol's frames, docs/cloud-protocol.md §3.8) and records
// the device's report; the device installs it through the runtime's own download and install and
// runs B. The same scenario gives the same trace byte for byte. A damaged package is refused by
// the device's install with its reason, in the trace on both sides, and A keeps running; an app
// that ends in a reboot loop is rolled back to A and reported.
import * as assert from 'assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';
import { workspaceMissing } from '../src/firmware/workspace';
import { lowerScenario, parseScenario } from '../src/world/scenario';

const cli = path.join(toolsRoot(), 'bin', 'beacon.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-deploy-loopback-'));
const FIXED_UTC = '1767225600000';

const engines: { name: string; skip: string | false }[] = [
  { name: 'duktape', skip: false },
  { name: 'jerryscript', skip: workspaceMissing('jerryscript') },
];

fs.writeFileSync(
  path.join(dir, 'a.ts'),
  `sync.setEndHandler((error) => print('A synced ' + (error === undefined ? 'ok' : error.message)));
sync.setSyncPeriod('2 min');
print('app A starts');
`,
);
// More than one chunk (4 KB) of package, compressed or not: a long text of pseudo-random digits
// the app prints the start of.
let x = 12345;
const digits = Array.from({ length: 16000 }, () => ((x = (x * 1103515245 + 12345) % 2147483648) >> 16) % 16)
  .map((d) => d.toString(16))
  .join('');
fs.writeFileSync(
  path.join(dir, 'b.ts'),
  `const filler = '${digits}';
sync.setEndHandler((error) => print('B synced ' + (error === undefined ? 'ok' : error.message)));
sync.setSyncPeriod('2 min');
// Read at run time (storage is empty): the text is in the package, not folded away by the build.
const at = (storage.read(1) as number | undefined) ?? 0;
print('app B starts, ' + filler.slice(at, at + 8));
`,
);

function scenario(name: string, app: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    JSON.stringify({
      duration: '12m',
      devices: [{ name: 'd0', app: 'a.ts' }],
      events: [{ at: '3m', device: 'd0', cloudDeploy: { app } }],
    }),
  );
  return file;
}

function run(world: string, engine: string, tag: string, target = 'sim'): { stdout: string; stderr: string; trace: string; records: Record<string, unknown>[] } {
  const traceFile = path.join(dir, `${engine}-${tag}.trace`);
  const r = spawnSync(process.execPath, [cli, 'run', world, '--engine', engine, '--cloud', 'loopback', '--utc', FIXED_UTC, '--trace', traceFile, '--target', target], {
    encoding: 'utf8',
    // A firmware image may be built first.
    timeout: target === 'sim' ? 180_000 : 900_000,
  });
  assert.equal(r.status, 0, r.stderr);
  const trace = fs.readFileSync(traceFile, 'utf8');
  const records = trace.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  return { stdout: r.stdout, stderr: r.stderr, trace, records };
}

const kinds = (records: Record<string, unknown>[], kind: string) => records.filter((r) => r.ev === kind);

for (const engine of engines) {
  test(`${engine.name}: a deployment in the loopback cloud installs app B, the same trace twice`, { skip: engine.skip }, () => {
    const world = scenario('deploy.json', 'b.ts');
    const first = run(world, engine.name, 'first');
    const second = run(world, engine.name, 'second');
    assert.equal(second.trace, first.trace, 'the same scenario gives the same trace byte for byte');
    assert.equal(second.stdout, first.stdout);

    // A runs until the deployment; B from its install on.
    const lines = first.stdout.trim().split('\n');
    const bStarts = lines.indexOf(`app B starts, ${digits.slice(0, 8)}`);
    assert.ok(bStarts > 0, first.stdout);
    assert.ok(lines.slice(0, bStarts).includes('A synced ok'));
    assert.ok(lines.slice(bStarts).includes('B synced ok'), first.stdout);
    assert.ok(!lines.slice(bStarts).includes('A synced ok'), 'A no longer runs');

    const offers = kinds(first.records, 'cloud-deploy-offer');
    assert.equal(offers.length, 1, 'offered once: the device fetched it all in that sync');
    const pkg = offers[0].package;
    assert.ok((offers[0].t as number) >= 180_000, 'not offered before the scenario deploys it');
    const size = offers[0].size as number;
    assert.ok(size > 4096, `a package of several chunks (${size} bytes)`);
    const fetches = kinds(first.records, 'cloud-deploy-fetch');
    assert.deepEqual(
      fetches.map((f) => [f.package, f.chunks, f.bytes, f.from, f.to]),
      [[pkg, Math.ceil(size / 4096), size, 0, size]],
    );
    const outcome = kinds(first.records, 'cloud-deploy');
    assert.deepEqual(outcome.map((o) => [o.package, o.outcome]), [[pkg, 'installed']]);
    const reports = kinds(first.records, 'cloud-deploy-report');
    assert.deepEqual(reports.map((r) => [r.package, r.outcome]), [[pkg, 'installed']]);
    assert.ok((reports[0].t as number) > (outcome[0].t as number), 'reported at the next sync');
  });

  test(`${engine.name}: a damaged package is refused with its reason and app A keeps running`, { skip: engine.skip }, () => {
    const good = path.join(dir, `b-${engine.name}.bapp`);
    const built = spawnSync(process.execPath, [cli, 'build', path.join(dir, 'b.ts'), '--engine', engine.name, '-o', good], { encoding: 'utf8', timeout: 180_000 });
    assert.equal(built.status, 0, built.stderr);
    const bytes = fs.readFileSync(good);
    bytes[100] ^= 0x01; // one bit of the bytecode: the CRC no longer matches
    const bad = path.join(dir, `damaged-${engine.name}.bapp`);
    fs.writeFileSync(bad, bytes);
    const world = scenario(`damaged-${engine.name}.json`, path.basename(bad));
    const first = run(world, engine.name, 'damaged');
    const again = run(world, engine.name, 'damaged-again');
    assert.equal(again.trace, first.trace);

    assert.ok(!/app B starts/.test(first.stdout), first.stdout);
    const outcome = kinds(first.records, 'cloud-deploy');
    assert.equal(outcome.length, 1);
    assert.equal(outcome[0].outcome, 'refused');
    assert.match(outcome[0].reason as string, /CRC/);
    const reports = kinds(first.records, 'cloud-deploy-report');
    assert.deepEqual(reports.map((r) => [r.outcome, r.reason]), [['refused', outcome[0].reason]]);
    // Not offered again once refused, and A syncs on after the refusal.
    const offers = kinds(first.records, 'cloud-deploy-offer');
    assert.equal(offers.length, 1);
    const lines = first.stdout.trim().split('\n');
    assert.equal(lines[0], 'app A starts');
    assert.ok(lines.filter((l) => l === 'A synced ok').length >= 5, first.stdout);
    assert.ok(!lines.slice(1).includes('app A starts'), 'A was not restarted');
  });
}

// Out of memory in its top level: the device resets at every start, and the reboot-loop guard
// rolls it back to A, which the device reports.
fs.writeFileSync(
  path.join(dir, 'c.ts'),
  `print('C starting');
const keep = [];
for (;;) keep.push([1, 2, 3, 4, 5, 6, 7, 8]);
`,
);

for (const engine of engines) {
  test(`${engine.name}: an app in a reboot loop is rolled back, reported, and not offered again`, { skip: engine.skip }, () => {
    const world = scenario('crash.json', 'c.ts');
    const first = run(world, engine.name, 'crash');
    const lines = first.stdout.trim().split('\n');
    const back = lines.lastIndexOf('app A starts');
    assert.ok(back > 0 && lines.slice(0, back).includes('C starting'), first.stdout);
    assert.ok(lines.slice(back).includes('A synced ok'), 'A runs and syncs again');
    assert.match(first.stderr, /ESR0002 Reboot loop detected/);
    const outcomes = kinds(first.records, 'cloud-deploy').map((o) => o.outcome);
    assert.deepEqual(outcomes, ['installed', 'rolled back']);
    const reports = kinds(first.records, 'cloud-deploy-report');
    assert.equal(reports.length, 1);
    assert.equal(reports[0].outcome, 'rolled back');
    assert.match(reports[0].reason as string, /^ESR0002 Reboot loop detected/);
    assert.equal(kinds(first.records, 'cloud-deploy-offer').length, 1);
  });
}

for (const [target, board, parts] of [
  ['bsim', 'nrf52_bsim', ['zephyr', 'jerryscript', 'bsim']],
  ['zephyr-qemu', 'mps2/an521 (QEMU)', ['zephyr', 'jerryscript']],
] as const) {
  test(`the firmware on ${board} takes the scenario's deployment into the board's app store: the simulator's output and trace, byte for byte`, { skip: workspaceMissing(...parts) }, () => {
    const world = scenario(`deploy-${target}.json`, 'b.ts');
    const sim = run(world, 'jerryscript', `on-sim-${target}`);
    const onBoard = run(world, 'jerryscript', `on-${target}`, target);
    assert.ok(sim.stdout.includes(`app B starts, ${digits.slice(0, 8)}`), sim.stdout);
    assert.equal(onBoard.stdout, sim.stdout);
    assert.equal(onBoard.trace, sim.trace);
    assert.match(onBoard.stderr, /installed: API 0\.2\.6, .* \(deployed from the cloud\)/);
  });
}

test('a scenario\'s deployment on the bare-metal image, which has no SHA-256, is refused before the run, naming the targets that deploy', () => {
  const world = scenario('deploy-qemu.json', 'b.ts');
  const r = spawnSync(process.execPath, [cli, 'run', world, '--target', 'qemu', '--cloud', 'loopback'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /cloudDeploy: deployments in a scenario run on the simulator and on the Zephyr firmwares \(--target sim, bsim or zephyr-qemu\); the bare-metal image on qemu has no SHA-256/);
});

test('cloudDeploy is lowered to cloud-deploy lines numbering the apps; a missing app names its key', () => {
  const file = path.join(dir, 'lower.json');
  const lowered = lowerScenario(
    parseScenario(
      JSON.stringify({
        devices: [{ name: 'd0' }, { name: 'd1' }],
        events: [
          { at: '2m', device: 'd1', cloudDeploy: { app: 'b.ts' } },
          { at: '1m', device: 'd0', cloudDeploy: { app: 'c.bapp' } },
          { at: '3m', device: 'd0', cloudDeploy: { app: 'b.ts' } },
        ],
      }),
      file,
    ),
    file,
  );
  assert.deepEqual(
    lowered.script.split('\n').filter((l) => l.includes('cloud-deploy')),
    ['at 60000 0 cloud-deploy 1', 'at 120000 1 cloud-deploy 0', 'at 180000 0 cloud-deploy 0'],
  );
  assert.deepEqual(lowered.deployApps, [
    { app: path.join(dir, 'b.ts'), at: 'events[0].cloudDeploy.app' },
    { app: path.join(dir, 'c.bapp'), at: 'events[1].cloudDeploy.app' },
  ]);
  assert.throws(
    () => parseScenario(JSON.stringify({ devices: [{ name: 'd0' }], events: [{ at: '1m', cloudDeploy: {} }] }), file),
    /events\[0\]\.cloudDeploy: missing 'app'/,
  );

  const world = scenario('missing.json', 'nowhere.ts');
  const r = spawnSync(process.execPath, [cli, 'run', world, '--cloud', 'loopback', '--for', '1m'], { encoding: 'utf8', timeout: 180_000 });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /events\[0\]\.cloudDeploy\.app: .*nowhere\.ts: no such file/);
});
