// Runs the micro-apps of tests/apps on the firmware built by Zephyr, on nrf52_bsim (the nRF52 on
// BabbleSim) and on mps2/an521 (Cortex-M33 under QEMU), and on the host simulator, and requires
// the same stdout, exit status, device messages and trace from both (`beacon run --target bsim`
// and `--target zephyr-qemu`): the firmware Zephyr builds, with its kernel, C library and engine
// build, must behave as the simulator the apps were written against. On these boards the
// device's parts are the simulated world's models (CONFIG_BEACON_SIMULATED_WORLD), so every app
// whose scenario has one device runs; the skip list below says why the others do not.
// Each test is skipped, saying why, without the parts of the workspace it needs (scripts/lib/workspace.sh).
import { spawnSync } from 'child_process';
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { workspaceMissing } from '../src/firmware/workspace';
import { AppSpec, beacon, deviceLines, repo, Run, storeApp, testApps } from './boardRuns';

const noQemu = spawnSync('qemu-system-arm', ['--version'], { stdio: 'ignore' }).status !== 0 ? 'qemu-system-arm is not installed' : false;
// Both boards (JerryScript), mps2/an521 alone (Duktape), nrf52_bsim alone, and the DK's build.
const missing = workspaceMissing('zephyr', 'jerryscript', 'bsim') || noQemu;
const missingAn521 = workspaceMissing('zephyr') || noQemu;
const missingBsim = workspaceMissing('zephyr', 'jerryscript', 'bsim');
const missingDk = workspaceMissing('zephyr');

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-zephyr-'));
after(() => fs.rmSync(tempDir, { recursive: true, force: true }));

/** Apps that do not run on the boards, each with why. */
function skipReason(app: AppSpec): string | false {
  if (app.devices > 1) return 'the scenario has several devices: they run on nrf52_bsim firmwares of their own (bsimWorld.test.ts)';
  return false;
}

const targets = [
  { target: 'zephyr-qemu', board: 'mps2/an521' },
  { target: 'bsim', board: 'nrf52_bsim' },
] as const;

// The 2-core CI machine: two apps at a time. Each app is built and run on the simulator once,
// then on each board.
test('JerryScript on nrf52_bsim and mps2/an521: every app gives the firmware the same output as the simulator', { skip: missing, concurrency: 2 }, async (t) => {
  // The firmware is built once per board, before the apps run in parallel.
  const { ensureZephyrImage } = await import('../src/firmware/zephyr');
  for (const { target } of targets) await ensureZephyrImage(target, 'jerryscript');
  const runs: Promise<void>[] = [];
  for (const app of testApps()) {
    const name = path.basename(app.file);
    runs.push(t.test(name, { skip: skipReason(app) }, async () => {
      const base = path.join(tempDir, name);
      const built = await beacon(['build', app.file, '--engine', 'jerryscript', ...app.buildArgs, '-o', `${base}.bapp`]);
      assert.equal(built.status, 0, `build failed:\n${built.stderr}`);
      const run = async (where: string): Promise<Run> => {
        const trace = `${base}.${where}.trace`;
        const r = await beacon(['run', `${base}.bapp`, '--target', where, '--cloud', 'loopback', '--utc', '1767225600000', ...app.args, ...(app.hasTrace ? ['--trace', trace] : [])]);
        if (app.hasTrace) r.trace = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8') : '';
        return r;
      };
      const sim = await run('sim');
      for (const { target, board } of targets) {
        const fw = await run(target);
        const context = `\n--- simulator stderr ---\n${sim.stderr}\n--- ${board} stderr ---\n${fw.stderr}`;
        assert.equal(fw.stdout, sim.stdout, `${board}: stdout differs${context}`);
        assert.equal(fw.status, sim.status, `${board}: exit status differs${context}`);
        assert.deepEqual(deviceLines(fw.stderr), deviceLines(sim.stderr), `${board}: stderr differs${context}`);
        assert.equal(fw.trace, sim.trace, `${board}: trace differs${context}`);
      }
    }));
  }
  await Promise.all(runs);
});

// Duktape fits the test boards (not the DKs: the firmware build refuses it there). A
// representative subset runs on it, one app per part of the API and the fault paths.
const DUKTAPE_APPS = new Set(['app-lifecycle.ts', 'error-handler.ts', 'fault-oom.ts', 'io-press.ts', 'location-api.ts', 'storage.ts', 'timer-count.ts']);
test('Duktape on mps2/an521: a subset of the apps gives the firmware the same output as the simulator', { skip: missingAn521, concurrency: 2 }, async (t) => {
  const { ensureZephyrImage } = await import('../src/firmware/zephyr');
  await ensureZephyrImage('zephyr-qemu', 'duktape');
  const runs: Promise<void>[] = [];
  for (const app of testApps().filter((a) => DUKTAPE_APPS.has(path.basename(a.file)))) {
    const name = path.basename(app.file);
    runs.push(t.test(name, async () => {
      const base = path.join(tempDir, `duktape-${name}`);
      assert.equal((await beacon(['build', app.file, '--engine', 'duktape', ...app.buildArgs, '-o', `${base}.bapp`])).status, 0);
      const [sim, fw] = await Promise.all(['sim', 'zephyr-qemu'].map((where) => beacon(['run', `${base}.bapp`, '--target', where, '--cloud', 'loopback', '--utc', '1767225600000', ...app.args])));
      assert.equal(fw.stdout, sim.stdout, `stdout differs\n${fw.stderr}`);
      assert.equal(fw.status, sim.status, fw.stderr);
      assert.deepEqual(deviceLines(fw.stderr), deviceLines(sim.stderr));
    }));
  }
  await Promise.all(runs);
});

test('the firmware on mps2/an521 reports its instructions, heap and stack', { skip: workspaceMissing('zephyr', 'jerryscript') || noQemu }, async () => {
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

test('beacon run --target zephyr-qemu: one device only; no host flash', async () => {
  const a = path.join(tempDir, 'one.js');
  const b = path.join(tempDir, 'two.js');
  fs.writeFileSync(a, "print('a');\n");
  fs.writeFileSync(b, "print('b');\n");
  const two = await beacon(['run', a, b, '--target', 'zephyr-qemu']);
  assert.equal(two.status, 2, two.stderr);
  assert.match(two.stderr, /--target zephyr-qemu: the emulated board is one device; run several devices on the simulator or on bsim/);
  const flash = await beacon(['run', a, '--target', 'zephyr-qemu', '--flash', tempDir]);
  assert.equal(flash.status, 2, flash.stderr);
  assert.match(flash.stderr, /--flash: the firmware on zephyr-qemu keeps its flash in the board/);
});

// The app store on nrf52_bsim, whose flash lives in a file: the firmware installs an app through
// it (checked, staged, switched) and runs it from flash; the storage partition beside it keeps
// the app's records (storeApp: each app counts its boots and reads the note the first one left).

async function bsimStoreFixture(): Promise<{ image: string; a: string; b: string; duk: string }> {
  const { ensureZephyrImage } = await import('../src/firmware/zephyr');
  const image = await ensureZephyrImage('bsim', 'jerryscript');
  const out: Record<string, string> = {};
  for (const [name, engine] of [['a', 'jerryscript'], ['b', 'jerryscript'], ['duk', 'duktape']] as const) {
    const src = path.join(tempDir, `store-${name}.js`);
    fs.writeFileSync(src, storeApp(name === 'duk' ? 'b' : name));
    out[name] = path.join(tempDir, `store-${name}.bapp`);
    const built = await beacon(['build', src, '--engine', engine, '-o', out[name]]);
    assert.equal(built.status, 0, built.stderr);
  }
  return { image, a: out.a, b: out.b, duk: out.duk };
}

test('nrf52_bsim: an app switch cut at any flash write boots the old app or the new one, records intact', { skip: missingBsim }, async () => {
  const { runZephyrFirmware } = await import('../src/firmware/zephyr');
  const { image, a, b } = await bsimStoreFixture();
  const flash = path.join(tempDir, 'cut.flash');
  const base = path.join(tempDir, 'cut-base.flash');
  const run = (args: string[]) => runZephyrFirmware('bsim', image, ['--storage', 'board', ...args], { flashFile: flash });
  // A installed and booted once: its records are written.
  fs.rmSync(base, { force: true });
  fs.rmSync(flash, { force: true });
  const first = await run([a]);
  assert.equal(first.stdout, 'a boot 1, note: none\n', first.stderr);
  fs.copyFileSync(flash, base);
  let cuts = 0;
  for (let n = 1; ; n++) {
    fs.copyFileSync(base, flash);
    const cut = await run(['--power-cut-after', String(n), b]);
    if (cut.status === 0) {
      // The install finished before the nth write: every earlier point was cut.
      assert.equal(cut.stdout, 'b boot 2, note: left by a\n', cut.stderr);
      break;
    }
    assert.equal(cut.status, 75, `cut ${n}: ${cut.stderr}`);
    assert.match(cut.stderr, new RegExp(`power cut before flash operation ${n}\\b`));
    cuts++;
    // The next boot runs one of the two, whole, with the records as they were.
    const after = await run([]);
    assert.equal(after.status, 0, `boot after cut ${n}: ${after.stderr}`);
    assert.match(after.stdout, /^(a|b) boot 2, note: left by a\n$/, `boot after cut ${n}: ${after.stderr}`);
  }
  assert.ok(cuts >= 10, `the switch was cut at ${cuts} points only`);
  // Once switched, B is what boots.
  const later = await run([]);
  assert.equal(later.stdout, 'b boot 3, note: left by a\n', later.stderr);
});

test('nrf52_bsim: a damaged or wrong-engine package is refused at install and at boot, the old app runs on', { skip: missingBsim }, async () => {
  const { runZephyrFirmware } = await import('../src/firmware/zephyr');
  const { image, a, b, duk } = await bsimStoreFixture();
  const flash = path.join(tempDir, 'refuse.flash');
  fs.rmSync(flash, { force: true });
  const run = (args: string[]) => runZephyrFirmware('bsim', image, ['--storage', 'board', ...args], { flashFile: flash });
  assert.equal((await run([a])).stdout, 'a boot 1, note: none\n');
  // At install: the simulator's words for the same bytes, and A stays installed.
  const reason = (s: string): string | undefined => /: (package [^\n]*|built for [^\n]*|[^\n]*engine[^\n]*)$/m.exec(s)?.[1];
  const wrong = await run([duk]);
  const simWrong = await beacon(['run', duk, '--engine', 'jerryscript']);
  assert.equal(wrong.status, 1, wrong.stderr);
  assert.equal(wrong.stdout, '');
  assert.ok(reason(simWrong.stderr), simWrong.stderr);
  assert.equal(reason(wrong.stderr), reason(simWrong.stderr), wrong.stderr);
  const damaged = path.join(tempDir, 'refuse-damaged.bapp');
  const bytes = fs.readFileSync(b);
  bytes[bytes.length - 5] ^= 0x10;
  fs.writeFileSync(damaged, bytes);
  const bad = await run([damaged]);
  assert.equal(bad.status, 1, bad.stderr);
  assert.match(bad.stderr, /package is damaged/);
  assert.equal((await run([])).stdout, 'a boot 2, note: left by a\n');
  // At boot: B installed, then a bit of it flipped in flash. The store refuses it with the same
  // words and A, installed before it, runs.
  assert.equal((await run([b])).stdout, 'b boot 3, note: left by a\n');
  const image2 = fs.readFileSync(flash);
  const slot = [0, 0x10000].find((off) => image2.subarray(off, off + 4).toString() === 'BSLT' && image2.readUInt32LE(off + 8) === 2);
  assert.notEqual(slot, undefined, 'no slot holds the second install');
  image2[slot! + 32 + 60] ^= 0x04;
  fs.writeFileSync(flash, image2);
  const boot = await run([]);
  assert.equal(boot.stdout, 'a boot 4, note: left by a\n', boot.stderr);
  assert.match(boot.stderr, /the newest installed app was refused: package is damaged/);
});

test('the firmware build refuses Duktape for the nRF52840 DK, with the figures', { skip: missingDk }, async () => {
  const { zephyrEnv } = await import('../src/firmware/zephyr');
  const env = await zephyrEnv();
  const dir = fs.mkdtempSync(path.join(tempDir, 'duktape-nrf52840-'));
  const r = spawnSync('bash', [path.join(repo, 'scripts', 'firmware.sh'), 'nrf52840dk/nrf52840', '--engine', 'duktape', '--build-dir', dir], { encoding: 'utf8', env });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  const text = (r.stdout + r.stderr).replace(/\s+/g, ' ');
  assert.match(text, /Duktape does not fit nrf52840dk\/nrf52840: it has 256 KB of RAM, and Duktape needs about 555 KB/);
  assert.match(text, /Build with JerryScript/);
});
