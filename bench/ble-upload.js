// Figures of uploads over BLE between firmwares on BabbleSim (bench/ble-upload.sh says what each
// is). Simulated times are BabbleSim's: the same on every machine.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const root = path.join(__dirname, '..');
const dist = path.join(root, 'bindings-ts', 'dist', 'src', 'firmware');
const { ensureZephyrImage, ensureRigImage } = require(path.join(dist, 'zephyr.js'));
const { bsimUpload } = require(path.join(dist, 'bsimUpload.js'));

function figure(name, value, unit) {
  process.stdout.write(`${name}: ${value} ${unit}\n`);
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-ble-upload-bench-'));
  try {
    const beaconImage = await ensureZephyrImage('bsim', 'jerryscript');
    const rigImage = await ensureRigImage();
    const pkg = path.join(work, 'tracker.bapp');
    const built = spawnSync(process.execPath, [path.join(root, 'bindings-ts', 'bin', 'beacon.js'), 'build',
      path.join(root, 'examples', 'asset-tracker.ts'), '--engine', 'jerryscript', '-o', pkg], { encoding: 'utf8' });
    if (built.status !== 0) throw new Error(built.stderr);
    const run = async (rigArgs, forMs = 20000) => {
      const flash = path.join(work, `${Math.random()}.flash`);
      const started = process.hrtime.bigint();
      const r = await bsimUpload({ beaconImage, rigImage, flashFile: flash, package: pkg, forMs, rigArgs });
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const ev = (name) => r.rig.find((e) => e.event === name);
      if (!ev('install') || ev('install').rc !== 0) throw new Error(`upload failed: ${JSON.stringify(r.rig)}\n${r.beacon.stderr}`);
      return { ev, wallMs };
    };
    const fast = await run([]);
    figure('ble_upload.tracker.package', fs.statSync(pkg).size, 'bytes');
    figure('ble_upload.tracker.mtu247_30ms', fast.ev('uploaded').ms, 'ms');
    figure('ble_upload.tracker.mtu247_30ms.install', fast.ev('install').ms, 'ms');
    figure('ble_upload.connect', fast.ev('connected').t, 'ms');
    const slow = await run(['--default-mtu', '--interval-ms', '50']);
    figure('ble_upload.tracker.mtu23_50ms', slow.ev('uploaded').ms, 'ms');
    figure('ble_upload.tracker.mtu23_50ms.install', slow.ev('install').ms, 'ms');
    const minute = await run([], 60000);
    figure('ble_upload.wall_per_simulated_minute', Math.round(minute.wallMs), 'ms');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
