// A rollout to a fleet: DEVICES load devices (src/cloud/loadDevice.ts, the protocol's device side
// on a raw socket, taking deployments as the firmware does) sync with `beacon cloud` (a child
// process: embedded broker, SQLite) every PERIOD, each at its own phase; then the asset tracker's
// package is deployed to all of them. Run after `npx tsc -p bindings-ts`:
//
//   node bench/deploy-fleet.js            (1,000 devices, a sync every 2 minutes)
//   DEPLOY_FLEET_DEVICES=100 DEPLOY_FLEET_PERIOD_MS=20000 node bench/deploy-fleet.js
//
// Figures, one a line: the time from the deployment until every device is counted installed
// (the device's first sync fetches and installs, its next one says so), in seconds and in sync
// periods; the cloud process's CPU time over the rollout per device (user + system, from
// /proc/<pid>/stat), and the same over as long a stretch with no deployment, for comparison.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const root = path.join(__dirname, '..');
const dist = path.join(root, 'bindings-ts', 'dist');
const cli = path.join(root, 'bindings-ts', 'bin', 'beacon.js');
const { LoadDevice, startSync } = require(path.join(dist, 'src/cloud/loadDevice.js'));
const { openStore } = require(path.join(dist, 'src/cloud/store.js'));
const { issueCredentials } = require(path.join(dist, 'src/cloud/service.js'));
const { deploy } = require(path.join(dist, 'src/cloud/deployments.js'));
const { startCloudProcess } = require(path.join(dist, 'src/cloud/testkit.js'));

const DEVICES = Number(process.env.DEPLOY_FLEET_DEVICES || 1000);
const PERIOD = Number(process.env.DEPLOY_FLEET_PERIOD_MS || 120_000);

function figure(name, value, unit) {
  process.stdout.write(`${name}: ${value} ${unit}\n`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** CPU seconds (user + system) the process has used. */
function cpuSeconds(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-deploy-fleet-'));
  const db = path.join(work, 'cloud.db');
  let cloud;
  let running = true;
  try {
    const pkg = path.join(work, 'tracker.bapp');
    const b = spawnSync(process.execPath, [cli, 'build', path.join(root, 'examples', 'asset-tracker.ts'), '-o', pkg], { encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`beacon build: ${b.stderr}`);
    const bytes = fs.readFileSync(pkg);
    // Credentials and the app they "run" now, written before the cloud starts.
    const store = await openStore(db);
    const devices = [];
    for (let i = 0; i < DEVICES; i++) {
      const id = (0x5eac0b1d00000000n + BigInt(i)).toString(16).padStart(32, '0');
      const c = await issueCredentials(store, id);
      const d = new LoadDevice(c.id, c.password);
      d.deploy = { app: Buffer.alloc(32, 0xa1), chunks: [], staged: 0 };
      devices.push(d);
    }
    await store.close();
    cloud = await startCloudProcess(['--port', '0', '--http-port', '0', '--db', db]);
    const u = new URL(cloud.mqttUrl);
    const target = { host: u.hostname, port: Number(u.port), tls: false };
    const settings = { batch: 10, window: 4, timeoutMs: 20_000, holdMs: 0, payloadBytes: 200, type: 'fleet' };
    const obs = { opened() {}, closed() {}, connackd() {}, acked() {} };
    let failed = 0;
    // Each device syncs every PERIOD, its first sync at a random point of the first period.
    const loops = devices.map(async (d) => {
      await sleep(Math.random() * PERIOD);
      while (running) {
        const t0 = Date.now();
        d.generate(1, t0);
        const o = await startSync(d, target, settings, obs).outcome;
        if (!o.ok) failed++;
        await sleep(Math.max(0, PERIOD - (Date.now() - t0)));
      }
    });
    // One period with no deployment: the cloud's CPU for the fleet's syncs alone.
    await sleep(PERIOD);
    const idle0 = cpuSeconds(cloud.child.pid);
    await sleep(PERIOD);
    const idleCpu = cpuSeconds(cloud.child.pid) - idle0;
    // The rollout, written in the store as `beacon cloud deploy --all` does.
    const s2 = await openStore(db);
    const t0 = Date.now();
    const cpu0 = cpuSeconds(cloud.child.pid);
    const dep = await deploy(s2, bytes, 'asset-tracker.bapp', { all: true }, t0);
    let installed = 0;
    while (installed < DEVICES) {
      await sleep(1000);
      const d = await s2.deployments.deployment(dep.id);
      installed = d.devices.filter((x) => x.state === 'installed').length;
      if (Date.now() - t0 > 10 * PERIOD) throw new Error(`only ${installed} of ${DEVICES} installed after 10 periods`);
    }
    const seconds = (Date.now() - t0) / 1000;
    const cpu = cpuSeconds(cloud.child.pid) - cpu0;
    await s2.close();
    running = false;
    figure('deploy_fleet_devices', DEVICES, 'devices');
    figure('deploy_fleet_period', PERIOD / 1000, 's');
    figure('deploy_fleet_time_to_100', seconds.toFixed(0), 's');
    figure('deploy_fleet_time_to_100_periods', (seconds / (PERIOD / 1000)).toFixed(2), 'periods');
    figure('deploy_fleet_cloud_cpu_per_device', ((cpu / DEVICES) * 1000).toFixed(2), 'ms');
    figure('deploy_fleet_cloud_cpu_per_device_per_period_without', ((idleCpu / DEVICES) * 1000).toFixed(2), 'ms');
    // What the deployment added: the rollout's CPU less the plain syncs' over as long.
    const added = cpu - idleCpu * ((seconds * 1000) / PERIOD);
    figure('deploy_fleet_cloud_cpu_per_device_for_the_deployment', ((added / DEVICES) * 1000).toFixed(2), 'ms');
    figure('deploy_fleet_failed_syncs', failed, 'syncs');
  } finally {
    running = false;
    if (cloud) await cloud.kill('SIGTERM');
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err.stack || err}\n`);
    process.exit(1);
  },
);
