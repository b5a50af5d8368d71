// Runs every micro-app of tests/apps on the firmware image under QEMU's emulated Cortex-M4F
// (`beacon run --target qemu`, mps2-an386: the nRF52840's core) and on the host simulator, and
// requires the same stdout, exit
// status and trace from both: the device's build of the runtime, on its own core, must behave as
// the simulator the apps were written against. Figures (the image's "[beacon figure]" lines on
// stderr) are the only difference allowed. Each app is built once and both runs use the package.
// Skipped without qemu-system-arm or the Arm toolchain; JerryScript also needs JERRYSCRIPT_DIR.
import { spawnSync } from 'child_process';
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { beacon, deviceLines, repo, Run, testApps } from './boardRuns';
import { workspaceMissing } from '../src/firmware/workspace';

function have(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}
const missingTools = !have('qemu-system-arm', ['--version'])
  ? 'qemu-system-arm is not installed'
  : !have('arm-none-eabi-gcc', ['--version'])
    ? 'arm-none-eabi-gcc is not installed'
    : false;

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-qemu-'));
after(() => fs.rmSync(tempDir, { recursive: true, force: true }));

const apps = testApps();

const engines: { name: string; skip: string | false }[] = [
  { name: 'duktape', skip: missingTools },
  { name: 'jerryscript', skip: missingTools || workspaceMissing('jerryscript') },
];

// (The nRF9160's core, a Cortex-M33, runs the Zephyr firmware itself on mps2/an521:
// zephyr.test.ts.)
for (const { name: engine, skip } of engines) {
  // The 2-core CI machine: two apps at a time (each run is one single-threaded process).
  test(`${engine}: every app gives the same output on the emulated core as on the simulator`, { skip, concurrency: 2 }, async (t) => {
    // The image is built once, before the apps run in parallel.
    const { ensureQemuImage } = await import('../src/compiler/qemuImage');
    await ensureQemuImage(engine as 'duktape' | 'jerryscript');
    const runs: Promise<void>[] = [];
    for (const app of apps) {
      const name = path.basename(app.file);
      const several = app.devices > 1 ? 'the scenario has several devices; the emulated board is one' : false;
      runs.push(t.test(name, { skip: several }, async () => {
        const base = path.join(tempDir, `${engine}-${name}`);
        const built = await beacon(['build', app.file, '--engine', engine, ...app.buildArgs, '-o', `${base}.bapp`]);
        assert.equal(built.status, 0, `build failed:\n${built.stderr}`);
        const runs: Run[] = [];
        for (const target of ['sim', 'qemu']) {
          const trace = `${base}.${target}.trace`;
          const r = await beacon(['run', `${base}.bapp`, '--target', target, '--cloud', 'loopback', '--utc', '1767225600000', ...app.args, ...(app.hasTrace ? ['--trace', trace] : [])]);
          if (app.hasTrace) r.trace = fs.readFileSync(trace, 'utf8');
          runs.push(r);
        }
        const [sim, qemu] = runs;
        const context = `\n--- simulator stderr ---\n${sim.stderr}\n--- qemu stderr ---\n${qemu.stderr}`;
        assert.equal(qemu.stdout, sim.stdout, `stdout differs${context}`);
        assert.equal(qemu.status, sim.status, `exit status differs${context}`);
        assert.deepEqual(deviceLines(qemu.stderr), deviceLines(sim.stderr), `stderr differs${context}`);
        assert.equal(qemu.trace, sim.trace, `trace differs${context}`);
        assert.match(qemu.stderr, /\[beacon figure\] instructions\.run: \d+ instructions/, `no figures${context}`);
      }));
    }
    await Promise.all(runs);
  });
}

test('a damaged package is refused by the emulated device with the simulator\'s message', { skip: missingTools }, async () => {
  const src = path.join(tempDir, 'damaged.js');
  fs.writeFileSync(src, "print('must not run');\n");
  const pkg = path.join(tempDir, 'damaged.bapp');
  const built = await beacon(['build', src, '-o', pkg]);
  assert.equal(built.status, 0, built.stderr);
  const bytes = fs.readFileSync(pkg);
  bytes[bytes.length - 3] ^= 0x55; // in the bytecode: the CRC no longer matches
  fs.writeFileSync(pkg, bytes);
  const sim = await beacon(['run', pkg, '--target', 'sim']);
  const qemu = await beacon(['run', pkg, '--target', 'qemu']);
  assert.equal(qemu.stdout, '');
  assert.equal(qemu.status, 1);
  assert.equal(sim.status, 1);
  const reason = (s: string): string | undefined => /(package is damaged[^\n]*|CRC[^\n]*)/.exec(s)?.[1];
  assert.ok(reason(sim.stderr), sim.stderr);
  assert.equal(reason(qemu.stderr), reason(sim.stderr), qemu.stderr);
});

test('a JS heap too small for the engine to start is refused when the image is configured', { skip: missingTools }, () => {
  const dir = fs.mkdtempSync(path.join(tempDir, 'small-heap-'));
  const r = spawnSync('cmake', ['-S', path.join(repo, 'src/port/qemu'), '-B', dir,
    `-DCMAKE_TOOLCHAIN_FILE=${path.join(repo, 'src/port/qemu/toolchain-arm.cmake')}`,
    '-DBEACON_ENGINE=duktape', '-DBEACON_QEMU_JS_HEAP=131072'], { encoding: 'utf8' });
  assert.notEqual(r.status, 0);
  assert.match(r.stdout + r.stderr, /JS heap of 131072 bytes is too small for duktape to start on a 32-bit core:\s+32 KB short/);
});

test('beacon run --target: unknown targets and several devices on the board are usage errors', async () => {
  const src = path.join(tempDir, 'usage.js');
  fs.writeFileSync(src, "print('x');\n");
  const bad = await beacon(['run', src, '--target', 'board']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--target: 'board' is not one of sim, qemu/);
  const other = path.join(tempDir, 'usage2.js');
  fs.writeFileSync(other, "print('y');\n");
  const two = await beacon(['run', src, other, '--target', 'qemu']);
  assert.notEqual(two.status, 0);
  assert.match(two.stderr, /the emulated board is one device/);
  // The Cortex-M33 image (mps2-an505) is retired: the Zephyr firmware on mps2/an521 is the M33's.
  const m33 = await beacon(['run', src, '--target', 'qemu', '--board', 'mps2-an505']);
  assert.equal(m33.status, 2);
  assert.match(m33.stderr, /--board: the emulated image has one board, mps2-an386 .*--target zephyr-qemu/);
});

test('qemu-system-arm gets the image arguments as semihosting args, commas doubled', async () => {
  const { qemuArgs } = await import('../src/compiler/qemuImage');
  const args = qemuArgs('/b/beacon-qemu.elf', ['--trace', '/tmp/a,b.trace', '/tmp/app.bapp']);
  const sh = args[args.indexOf('-semihosting-config') + 1];
  assert.equal(sh, 'enable=on,target=native,arg=beacon-qemu,arg=--trace,arg=/tmp/a,,b.trace,arg=/tmp/app.bapp');
  assert.deepEqual(args.slice(args.indexOf('-icount'), args.indexOf('-icount') + 2), ['-icount', 'shift=0']);
  assert.throws(() => qemuArgs('/b/e.elf', ['/tmp/a b.bapp']), /cannot hold spaces/);
});
