// The examples, each in its scenario, behave the same on both engines: what they print and their
// whole trace, byte for byte (the trace of the asset tracker's day holds every scan record and
// every report it queued), and a second run on each engine repeats the first exactly.
// JerryScript needs JERRYSCRIPT_DIR; without it the comparisons are reported skipped.
import { spawnSync } from 'child_process';
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';
import { workspaceMissing } from '../src/firmware/workspace';

const repo = path.dirname(toolsRoot());
const cli = path.join(toolsRoot(), 'bin', 'beacon.js');
const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-examples-'));
after(() => fs.rmSync(tempDir, { recursive: true, force: true }));
const skip = workspaceMissing('jerryscript');

/** Every example app with the world it is meant for; UTC fixed where the scenario leaves it to
 * the host's clock, and the loopback cloud (the one whose traces repeat). */
const EXAMPLES: { name: string; args: string[] }[] = [
  { name: 'asset-tracker', args: ['examples/asset-tracker.ts', '--world', 'tests/examples/asset-tracker.world.json', '--for', '24h'] },
  { name: 'telemetry', args: ['examples/telemetry.ts', 'tests/examples/tlm-listener.ts', '--world', 'tests/examples/telemetry.world.json', '--for', '24h'] },
  { name: 'button-led', args: ['examples/button-led.ts', '--world', 'examples/button-led.world.json'] },
  { name: 'cloud-report', args: ['examples/cloud-report.ts', '--world', 'examples/cloud-report.world.json'] },
  { name: 'hello', args: ['examples/hello.ts', '--for', '10s'] },
  // 10,000 devices in two groups, naming their apps: the scenario alone is the run.
  { name: 'warehouse', args: ['examples/warehouse.world.json', '--for', '10s'] },
  { name: 'timers', args: ['examples/timers.ts', '--for', '1h'] },
  { name: 'testing/door', args: ['examples/testing/door.ts', '--for', '1h'] },
];

function run(args: string[], engine: string, tag: string): { stdout: string; trace: string; status: number | null; stderr: string } {
  const traceFile = path.join(tempDir, `${tag}-${engine}.trace`);
  const r = spawnSync(process.execPath, [cli, 'run', ...args, '--engine', engine, '--cloud', 'loopback', '--utc', '1767225600000', '--trace', traceFile], {
    cwd: repo,
    encoding: 'utf8',
    timeout: 300_000,
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status, trace: fs.existsSync(traceFile) ? fs.readFileSync(traceFile, 'utf8') : '' };
}

for (const ex of EXAMPLES) {
  test(`examples/${ex.name}: the same output and trace on both engines and on a second run`, { skip }, () => {
    const duk = run(ex.args, 'duktape', `${ex.name.replace('/', '-')}-1`);
    const dukAgain = run(ex.args, 'duktape', `${ex.name.replace('/', '-')}-2`);
    const jerry = run(ex.args, 'jerryscript', `${ex.name.replace('/', '-')}-1`);
    const jerryAgain = run(ex.args, 'jerryscript', `${ex.name.replace('/', '-')}-2`);
    assert.equal(duk.status, 0, duk.stderr);
    assert.equal(jerry.status, 0, jerry.stderr);
    assert.ok(duk.trace.split('\n').length > 3, 'the run traced');
    assert.equal(dukAgain.stdout, duk.stdout, 'Duktape: stdout of a second run');
    assert.equal(dukAgain.trace, duk.trace, 'Duktape: trace of a second run');
    assert.equal(jerryAgain.stdout, jerry.stdout, 'JerryScript: stdout of a second run');
    assert.equal(jerryAgain.trace, jerry.trace, 'JerryScript: trace of a second run');
    assert.equal(jerry.stdout, duk.stdout, 'stdout: JerryScript (expected) against Duktape (actual)');
    assert.equal(jerry.trace, duk.trace, 'trace: JerryScript (expected) against Duktape (actual)');
  });
}
