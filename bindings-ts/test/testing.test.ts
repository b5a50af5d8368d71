// The test library (beacon-tools/testing) and `beacon test`: failure messages that show what was
// expected and what the device did, stimuli as scenario data (checked by the scenario schema),
// and the rig path: tests run unchanged against a device reached over SMP (here a
// `beacon-sim --listen` device on its pseudo-terminal), with what the rig cannot do skipped.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { toolsRoot } from '../src/codegen/versions';
import { CliIo } from '../src/cli/io';
import { main } from '../src/cli/main';
import { compileApp } from '../src/compiler';
import { startListen, world } from '../src/testing';
import { workspaceMissing } from '../src/firmware/workspace';

const repo = path.dirname(toolsRoot());
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-testing-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t) };
  const code = await main(argv, io);
  return { code, out, err };
}

test('a failed expectation shows the expected line and what the device printed', async () => {
  const w = world(undefined, { device: null });
  w.device('d0', { app: { source: `print('hello');\nprint('world');` } });
  const d = (await w.run('100ms')).device('d0');
  assert.throws(
    () => d.printed('goodbye'),
    (e: Error) => e instanceof assert.AssertionError && /expected d0 to print "goodbye"; it printed:\n {2}\| hello\n {2}\| world/.test(e.message),
  );
  assert.throws(() => d.led(0, { on: true }), /expected LED 0 of d0 to end \{"on":true\}; it ended \{"on":false/);
  assert.throws(() => d.notPrinted('world'), /not to print "world"/);
});

test('two devices, each with its own console and trace; stimuli reach the device named', async () => {
  const w = world(undefined, { device: null });
  const app = { source: `io.press(() => print('pressed at ' + app.getUptime()), io.PressType.SHORT);` };
  w.device('door', { app });
  w.device('desk', { app }).press('1s', { hold: '200ms' });
  const r = await w.run('2s');
  assert.equal(r.exitCode, 0, r.stderr);
  r.device('desk').printed(/^pressed at 1200$/);
  r.device('door').notPrinted('pressed');
  r.device('desk').traced({ ev: 'button', button: 'main', down: true });
});

test('a stimulus the scenario language does not have is refused with its JSON path', async () => {
  const w = world(undefined, { device: null });
  w.device('d0', { app: { source: `print('x');` } }).at('1s', { teleport: { to: 'mars' } });
  await assert.rejects(w.run('2s'), /events\[0\]/);
});

test('beacon test: the conformance storage tests pass on the simulator and, unchanged, on a device over serial', async () => {
  const file = path.join(repo, 'tests', 'rig', 'storage.test.ts');
  const sim = await cli(['test', file]);
  assert.equal(sim.code, 0, sim.out + sim.err);
  assert.match(sim.out, /# pass 6\n/);
  const dev = await startListen({ port: false });
  try {
    const rig = await cli(['test', file, '--device', `serial:${dev.pty}`]);
    assert.equal(rig.code, 0, rig.out + rig.err);
    assert.match(rig.out, /# pass 5\n/);
    assert.match(rig.out, /ok \d+ - records survive a power cut # SKIP the rig cannot produce powerCut/);
    // The apps really went to the device.
    assert.match(dev.stderr(), /\[beacon info\] installed: API 0\.2\.6/);
  } finally {
    await dev.stop();
  }
});

test(
  'beacon test on a device without --engine builds for the engine of the app the device runs',
  { skip: workspaceMissing('jerryscript') },
  async () => {
    const entry = path.join(tmp, 'hello.ts');
    fs.writeFileSync(entry, `print('hello');\n`);
    const pkg = path.join(tmp, 'hello.bapp');
    await compileApp({ entry, apiVersion: '0.2.6', engine: 'jerryscript', outFile: pkg });
    const dev = await startListen({ engine: 'jerryscript', port: false, pkg });
    try {
      const env = process.env.BEACON_TEST_ENGINE;
      delete process.env.BEACON_TEST_ENGINE;
      const r = await cli(['test', path.join(repo, 'tests', 'rig', 'sys.test.ts'), '--device', `serial:${dev.pty}`]);
      if (env !== undefined) process.env.BEACON_TEST_ENGINE = env;
      assert.equal(r.code, 0, r.out + r.err);
      assert.match(r.out, /# pass 3\n/);
      assert.doesNotMatch(dev.stderr(), /refused/);
    } finally {
      await dev.stop();
    }
  },
);

test('beacon test: a failing test file makes the run fail', async () => {
  const file = path.join(tmp, 'fails.test.js');
  fs.writeFileSync(
    file,
    `const { deviceTest } = require('beacon-tools/testing');\n` +
      `deviceTest('prints no', async (w) => { w.device('d0', { app: { source: "print('yes');" } }); (await w.run('100ms')).device('d0').printed('no'); });\n`,
  );
  const r = await cli(['test', file]);
  assert.equal(r.code, 1);
  assert.match(r.out, /expected d0 to print "no"; it printed:/);
});
