// Runs the micro-apps of tests/apps on the firmware built by Zephyr, on nrf52_bsim (the nRF52 on
// BabbleSim) and on mps2/an521 (Cortex-M33 under QEMU), and on the host simulator, and requires
// the same stdout, exit status, device messages and trace from both (`beacon run --target bsim`
// and `--target zephyr-qemu`): the firmware Zephyr builds, with its kernel, C library and engine
// build, must behave as the simulator the apps were written against. On these boards the
// device's parts are the simulated world's models (CONFIG_BEACON_SIMULATED_WORLD), so every app
// whose scenario has one device runs; the skip list below says why the others do not.
// Skipped without the Zephyr workspace (ZEPHYR_BASE or ../shared/zephyr) or JERRYSCRIPT_DIR.
import { spawnSync } from 'child_process';
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { AppSpec, beacon, deviceLines, repo, Run, testApps } from './boardRuns';

const workspace = process.env.ZEPHYR_BASE || fs.existsSync(path.join(repo, '..', 'shared', 'zephyr', 'setup.sh'));
const missing = !workspace
  ? 'no Zephyr workspace (ZEPHYR_BASE, or ../shared/zephyr)'
  : spawnSync('qemu-system-arm', ['--version'], { stdio: 'ignore' }).status !== 0
    ? 'qemu-system-arm is not installed'
    : !process.env.JERRYSCRIPT_DIR
      ? 'JERRYSCRIPT_DIR is not set'
      : false;

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-zephyr-'));
after(() => fs.rmSync(tempDir, { recursive: true, force: true }));

/** Apps that do not run on the boards, each with why. */
function skipReason(app: AppSpec): string | false {
  if (app.devices > 1) return 'the scenario has several devices; the board is one';
  return false;
}

const targets = [
  { target: 'zephyr-qemu', board: 'mps2/an521' },
  { target: 'bsim', board: 'nrf52_bsim' },
] as const;

for (const { target, board } of targets) {
  // The 2-core CI machine: two apps at a time.
  test(`JerryScript on ${board}: every app gives the firmware the same output as the simulator`, { skip: missing, concurrency: 2 }, async (t) => {
    // The firmware is built once, before the apps run in parallel.
    const { ensureZephyrImage } = await import('../src/firmware/zephyr');
    await ensureZephyrImage(target, 'jerryscript');
    const runs: Promise<void>[] = [];
    for (const app of testApps()) {
      const name = path.basename(app.file);
      runs.push(t.test(name, { skip: skipReason(app) }, async () => {
        const base = path.join(tempDir, `${target}-${name}`);
        const built = await beacon(['build', app.file, '--engine', 'jerryscript', ...app.buildArgs, '-o', `${base}.bapp`]);
        assert.equal(built.status, 0, `build failed:\n${built.stderr}`);
        const results: Run[] = [];
        for (const where of ['sim', target]) {
          const trace = `${base}.${where}.trace`;
          const r = await beacon(['run', `${base}.bapp`, '--target', where, '--cloud', 'loopback', '--utc', '1767225600000', ...app.args, ...(app.hasTrace ? ['--trace', trace] : [])]);
          if (app.hasTrace) r.trace = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8') : '';
          results.push(r);
        }
        const [sim, fw] = results;
        const context = `\n--- simulator stderr ---\n${sim.stderr}\n--- firmware stderr ---\n${fw.stderr}`;
        assert.equal(fw.stdout, sim.stdout, `stdout differs${context}`);
        assert.equal(fw.status, sim.status, `exit status differs${context}`);
        assert.deepEqual(deviceLines(fw.stderr), deviceLines(sim.stderr), `stderr differs${context}`);
        assert.equal(fw.trace, sim.trace, `trace differs${context}`);
      }));
    }
    await Promise.all(runs);
  });
}

test('the firmware on mps2/an521 reports its instructions, heap and stack', { skip: missing }, async () => {
  const src = path.join(tempDir, 'figures.js');
  fs.writeFileSync(src, "timers.single('1s', () => print('tick'));\n");
  const pkg = path.join(tempDir, 'figures.bapp');
  assert.equal((await beacon(['build', src, '--engine', 'jerryscript', '-o', pkg])).status, 0);
  const r = await beacon(['run', pkg, '--target', 'zephyr-qemu', '--utc', '1767225600000']);
  assert.equal(r.stdout, 'tick\n', r.stderr);
  const figure = (name: string): number => Number(new RegExp(`\\[beacon figure\\] ${name.replace('.', '\\.')}: (\\d+)`).exec(r.stderr)?.[1]);
  assert.ok(figure('instructions.first_line') > 0, r.stderr);
  assert.ok(figure('instructions.run') >= figure('instructions.first_line'), r.stderr);
  assert.ok(figure('js_heap.peak') > 0 && figure('js_heap.peak') <= figure('js_heap.total'), r.stderr);
  assert.ok(figure('stack.peak') > 0 && figure('stack.peak') < figure('stack.size'), r.stderr);
});

test('beacon run --target bsim|zephyr-qemu: one device only, no host flash', async () => {
  const a = path.join(tempDir, 'one.js');
  const b = path.join(tempDir, 'two.js');
  fs.writeFileSync(a, "print('a');\n");
  fs.writeFileSync(b, "print('b');\n");
  const two = await beacon(['run', a, b, '--target', 'bsim']);
  assert.equal(two.status, 2, two.stderr);
  assert.match(two.stderr, /--target bsim: the emulated board is one device/);
  const flash = await beacon(['run', a, '--target', 'zephyr-qemu', '--flash', tempDir]);
  assert.equal(flash.status, 2, flash.stderr);
  assert.match(flash.stderr, /--flash: the firmware on zephyr-qemu keeps its flash in the board/);
});
