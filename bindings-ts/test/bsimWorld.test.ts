// BLE between firmwares: the apps of tests/apps whose scenario has several devices, each device
// an nrf52_bsim firmware of its own (world_main_zephyr.c --play N --air radio), their advertisers
// and scanners on BabbleSim's air through Zephyr's Bluetooth host and controller. What the apps
// print must be what the simulator's air model gives them; the differences the real radio makes
// are listed below, each with its reason. And a scanning firmware (the rig's phone) decodes the
// advertisements of an app on the beacon firmware: the bytes of the simulator's trace.
// Skipped, saying why, without Zephyr, JerryScript or BabbleSim (scripts/lib/workspace.sh).
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { AppSpec, beacon, deviceLines, repo, testApps } from './boardRuns';
import { workspaceMissing } from '../src/firmware/workspace';

const missing = workspaceMissing('zephyr', 'jerryscript', 'bsim');

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-bsim-world-'));
after(() => fs.rmSync(tempDir, { recursive: true, force: true }));

/** Apps of several devices that cannot give the simulator's output on firmwares, each with why. */
function skipReason(app: AppSpec): string | false {
  switch (path.basename(app.file)) {
    case 'uwb-ranging.ts':
    case 'maker-uwb.js':
      return 'UWB: nrf52_bsim has no UWB radio, and the ranging model needs both devices in one world';
    default:
      return false;
  }
}

/** A scan's channels as the firmware reports them: Zephyr's advertising reports do not say on
 * which channel a packet came, and its scanner cannot be kept to some channels, so the firmware
 * reports the lowest channel the app asked for (ble_radio_zephyr.c). */
function firmwareChannels(line: string): string {
  return line.replace(/channels (\d+)(,\d+)*/g, 'channels $1');
}

test('apps on two nrf52_bsim firmwares advertise to and scan each other as on the simulator', { skip: missing, concurrency: 2 }, async (t) => {
  const { ensureZephyrImage } = await import('../src/firmware/zephyr');
  await ensureZephyrImage('bsim', 'jerryscript');
  const several = testApps().filter((a) => a.devices > 1);
  assert.ok(several.some((a) => path.basename(a.file) === 'ble-scan-options.ts'));
  const runs: Promise<void>[] = [];
  for (const app of several) {
    const name = path.basename(app.file);
    runs.push(t.test(name, { skip: skipReason(app) }, async () => {
      const pkg = path.join(tempDir, `${name}.bapp`);
      const built = await beacon(['build', app.file, '--engine', 'jerryscript', ...app.buildArgs, '-o', pkg]);
      assert.equal(built.status, 0, built.stderr);
      const args = ['run', pkg, '--cloud', 'loopback', '--utc', '1767225600000', ...app.args];
      const sim = await beacon(args);
      const fw = await beacon([...args, '--target', 'bsim']);
      const context = `\n--- simulator ---\n${sim.stdout}${sim.stderr}\n--- firmwares ---\n${fw.stdout}${fw.stderr}`;
      assert.equal(fw.status, sim.status, context);
      assert.equal(fw.stdout, firmwareChannels(sim.stdout), context);
      assert.deepEqual(deviceLines(fw.stderr), deviceLines(sim.stderr), context);
    }));
  }
  await Promise.all(runs);
});

test('beacon run --target bsim with two apps and no scenario: two firmwares, lines in world-time order', { skip: missing }, async () => {
  const a = path.join(tempDir, 'first.js');
  const b = path.join(tempDir, 'second.js');
  fs.writeFileSync(a, "print('a at 0'); timers.single(2000, () => print('a at 2000'));\n");
  fs.writeFileSync(b, "timers.single(1000, () => print('b at 1000'));\n");
  const sim = await beacon(['run', a, b, '--for', '3s']);
  const fw = await beacon(['run', a, b, '--for', '3s', '--target', 'bsim']);
  assert.equal(fw.status, 0, fw.stderr);
  assert.equal(fw.stdout, '[d0] a at 0\n[d1] b at 1000\n[d0] a at 2000\n');
  assert.equal(fw.stdout, sim.stdout);
});

test('an app\'s advertisements, decoded by a scanning firmware, carry the bytes of the simulator\'s trace', { skip: missing }, async () => {
  const { ensureZephyrImage, ensureRigImage } = await import('../src/firmware/zephyr');
  const { runBsimWorld } = await import('../src/firmware/bsimWorld');
  const image = await ensureZephyrImage('bsim', 'jerryscript');
  const rig = await ensureRigImage();
  // examples/telemetry.ts: Eddystone-TLM (fresh values every second), an iBeacon, an Eddystone-URL.
  const pkg = path.join(tempDir, 'telemetry.bapp');
  assert.equal((await beacon(['build', path.join(repo, 'examples', 'telemetry.ts'), '--engine', 'jerryscript', '-o', pkg])).status, 0);
  const simTrace = path.join(tempDir, 'telemetry.sim.trace');
  const sim = await beacon(['run', pkg, '--for', '30s', '--utc', '1767225600000', '--trace', simTrace]);
  assert.equal(sim.status, 0, sim.stderr);
  const fwTrace = path.join(tempDir, 'telemetry.fw.trace');
  const heardFile = path.join(tempDir, 'heard.jsonl');
  const fw = await runBsimWorld(image, {
    script: 'beacon-world 1\ndevice 0 d0 lte-beacon\n',
    packages: [pkg],
    args: ['--for', '30000', '--utc', '1767225600000'],
    lengthMs: 31000,
    trace: fwTrace,
    extra: [{ image: rig, args: ['--out', heardFile, 'scan', '30000'] }],
  });
  assert.equal(fw.status, 0, fw.stderr);
  assert.equal(fw.stdout, sim.stdout);
  // The firmware's trace is the simulator's, byte for byte: the same events at the same times.
  assert.equal(fs.readFileSync(fwTrace, 'utf8'), fs.readFileSync(simTrace, 'utf8'));
  const advertised = new Set(fs.readFileSync(simTrace, 'utf8').split('\n').filter((l) => l.includes('"ev":"ble-adv"'))
    .map((l) => (JSON.parse(l) as { data: string }).data));
  const heard = fs.readFileSync(heardFile, 'utf8').split('\n').filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { addr: string; data: string });
  const fromBeacon = heard.filter((h) => h.addr === 'C0:5E:AC:0B:00:00');
  // Nothing else on the air: no upload service is offered in a scenario's run.
  assert.equal(fromBeacon.length, heard.length);
  // Each second's TLM, the iBeacon and the URL: about 29 + 29 + 3 packets in 30 s.
  assert.ok(fromBeacon.length >= 55, `${fromBeacon.length} packets heard`);
  for (const frame of ['aafe20', '4c000215', 'aafe10']) {
    assert.ok(fromBeacon.some((h) => h.data.includes(frame)), `no packet with ${frame}`);
  }
  for (const h of fromBeacon) assert.ok(advertised.has(h.data), `heard ${h.data}, which the simulator's trace never advertised`);
});

test('beacon-tools/testing with device bsim: a world of two devices runs as two firmwares on one air', { skip: missing }, async () => {
  const { world } = await import('../src/testing');
  const w = world(undefined, { device: 'bsim', engine: 'jerryscript', api: '0.2.6' });
  w.device('tag', {
    app: { source: "ble.advertise(ble.build.iBeacon('e2c56db5dffb48d2b060d0f5a71096e0', 4, 2, -59)).interval(100);" },
  });
  w.device('reader', {
    app: {
      source: [
        'let n = 0;',
        "ble.startScan((r) => { const p = ble.parse(r); if (p && p.type === 'iBeacon') n++; }, 2000, { passive: true })",
        "  .then(() => print('iBeacons heard: ' + (n > 5)));",
        "io.press(() => print('pressed at ' + app.getUptime()), io.PressType.SHORT);",
      ].join('\n'),
    },
  }).press('2500ms', { hold: '200ms' });
  const r = await w.run('4s');
  assert.equal(r.exitCode, 0, r.stderr);
  r.device('reader').printed('iBeacons heard: true');
  r.device('reader').printed(/^pressed at 2700$/);
  r.device('tag').traced({ ev: 'ble-adv-start', interval: 100 });
  // What the reader's radio received is in its trace, by the sender's address (the tag is device 0).
  r.device('reader').traced({ ev: 'ble-rx', from: 'c05eac0b0000', kind: 'adv' });
  r.device('reader').traced({ ev: 'button', button: 'main', down: true });
});
