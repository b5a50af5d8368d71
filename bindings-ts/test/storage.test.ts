// storage across runs: a device's flash kept with --flash is there at the next run, and a flash file
// that is not one is refused and left alone. (Power cuts: tests/c/test_storage_power.c sweeps every
// flash operation of a save; tests/apps/storage-power-cut runs a scenario of them.)
import { spawnSync } from 'child_process';
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';

const cli = path.join(toolsRoot(), 'bin', 'beacon.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-storage-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function beacon(args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 120_000 });
}

function build(name: string, source: string): string {
  const src = path.join(dir, `${name}.ts`);
  fs.writeFileSync(src, source);
  const out = path.join(dir, `${name}.bapp`);
  const r = beacon(['build', src, '-o', out]);
  assert.equal(r.status, 0, r.stderr);
  return out;
}

const counter = build(
  'counter',
  `const n = (storage.read(1) as number | undefined) ?? 0;
storage.save(1, n + 1);
print('run ' + (n + 1));
`,
);

test('--flash keeps the storage of each device between runs', () => {
  const flash = path.join(dir, 'flash-a');
  for (const expected of ['run 1', 'run 2', 'run 3']) {
    const r = beacon(['run', counter, '--flash', flash]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${expected}\n`);
  }
  assert.ok(fs.existsSync(path.join(flash, 'd0.flash')));
  // Without --flash every run starts from erased flash.
  assert.equal(beacon(['run', counter]).stdout, 'run 1\n');
  // Two devices, two images.
  const two = beacon(['run', counter, counter, '--flash', flash]);
  assert.equal(two.status, 0, two.stderr);
  assert.match(two.stdout, /\[d0\] run 4\n/);
  assert.match(two.stdout, /\[d1\] run 1\n/);
});

test('a flash file that is not a flash image is refused and left as it was', () => {
  const flash = path.join(dir, 'flash-b');
  fs.mkdirSync(flash);
  const file = path.join(flash, 'd0.flash');
  fs.writeFileSync(file, 'not a flash image at all, but something the user keeps');
  const r = beacon(['run', counter, '--flash', flash]);
  assert.notEqual(r.status, 0);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /--flash: .*d0\.flash/);
  assert.equal(fs.readFileSync(file, 'utf8'), 'not a flash image at all, but something the user keeps');
});
