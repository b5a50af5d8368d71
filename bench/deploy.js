// Apps deployed from the cloud (docs/cloud-protocol.md §3.8), measured on the wire: the simulator
// (`beacon run`, the runtime's C sync over libmosquitto) syncs with `beacon cloud` through a TCP
// proxy that counts every byte both ways per connection (MQTT, TLS not counted) and can cut each
// connection after a number of bytes towards the device. Run after `npx tsc -p bindings-ts`:
//
//   node bench/deploy.js
//
// Figures, one a line:
// - deploy_wire_per_package_byte: the bytes of the sync that fetched the asset tracker's package,
//   less those of the same sync without a deployment, per byte of the package (goal <= 1.10);
// - deploy_report_bytes: what the report of the outcome adds to the next sync start;
// - deploy_syncs_64k_cut_20k: syncs until a 64 KB package is installed when every connection is
//   cut after 20 KB towards the device.
'use strict';
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const root = path.join(__dirname, '..');
const dist = path.join(root, 'bindings-ts', 'dist');
const cli = path.join(root, 'bindings-ts', 'bin', 'beacon.js');
const { startCloud } = require(path.join(dist, 'src/cloud/service.js'));
const { deploy } = require(path.join(dist, 'src/cloud/deployments.js'));
const { encodeSyncStart } = require(path.join(dist, 'src/cloud/protocol.js'));
const { freePort } = require(path.join(dist, 'src/cloud/testkit.js'));

const ID = '5eac0b1d00004d0cbeac051a00000001';

function figure(name, value, unit) {
  process.stdout.write(`${name}: ${value} ${unit}\n`);
}

function build(source, out) {
  const src = out.replace(/\.bapp$/, '.ts');
  if (source !== undefined) fs.writeFileSync(src, source);
  const r = spawnSync(process.execPath, [cli, 'build', source === undefined ? out.replace(/\.bapp$/, '.src.ts') : src, '-o', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`beacon build failed:\n${r.stderr}`);
  return fs.readFileSync(out);
}

/** `beacon run` as a child (the cloud answers in this process meanwhile). */
function run(args) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('error', reject);
    c.on('close', (status) => (status === 0 ? resolve(out) : reject(new Error(`beacon ${args.join(' ')}: ${err}`))));
  });
}

/** A TCP proxy counting bytes per connection; `cutAfter` bytes towards the device closes it. */
async function countingProxy(port, cutAfter = Infinity) {
  const conns = [];
  const server = net.createServer((device) => {
    const c = { up: 0, down: 0 };
    conns.push(c);
    const cloud = net.connect(port, '127.0.0.1');
    const close = () => {
      device.destroy();
      cloud.destroy();
    };
    device.on('data', (d) => {
      c.up += d.length;
      cloud.write(d);
    });
    cloud.on('data', (d) => {
      const room = cutAfter - c.down;
      if (d.length > room) {
        c.down += Math.max(0, room);
        device.write(d.subarray(0, Math.max(0, room)), close);
        return;
      }
      c.down += d.length;
      device.write(d);
    });
    device.on('error', close);
    cloud.on('error', close);
    device.on('close', close);
    cloud.on('close', close);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `mqtt://127.0.0.1:${server.address().port}`, conns, close: () => new Promise((r) => server.close(r)) };
}

// A syncs, and again after each sync that ended, `times` in all.
const appA = (times) => `let syncs = 0;
print('A running');
cloud.enqueue('hello', { from: 'A' }, { volatile: false });
sync.setEndHandler(() => {
  if (++syncs < ${times}) sync.now();
});
sync.now();
`;

async function session(work, pkgA, bytes, name, cutAfter) {
  const cloud = await startCloud({ port: await freePort(), httpPort: 0, db: ':memory:', log: () => {} });
  try {
    const secret = (await cloud.issueDevice(ID)).password;
    if (bytes) await deploy(cloud.store, bytes, name, { devices: [ID] }, Date.now());
    const proxy = await countingProxy(Number(new URL(cloud.mqttUrl).port), cutAfter);
    const out = await run(['run', pkgA, '--for', '60m', '--cloud', proxy.url, '--cloud-secret', secret]);
    await proxy.close();
    const d = bytes ? (await cloud.store.deployments.listDeployments())[0].devices[0] : undefined;
    return { conns: proxy.conns, out, state: d?.state, fetched: d?.fetched };
  } finally {
    await cloud.stop();
  }
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-deploy-bench-'));
  try {
    const pkgA = path.join(work, 'a.bapp');
    build(appA(2), pkgA);
    const tracker = path.join(work, 'tracker.bapp');
    fs.copyFileSync(path.join(root, 'examples', 'asset-tracker.ts'), tracker.replace(/\.bapp$/, '.src.ts'));
    const trackerBytes = build(undefined, tracker);

    const base = await session(work, pkgA);
    const dep = await session(work, pkgA, trackerBytes, 'asset-tracker.bapp');
    // The tracker does not sync within the run, so the cloud hears of the install only at its
    // first sync: here it is enough that all was fetched and A is gone (the tracker's line).
    if (dep.fetched !== trackerBytes.length) throw new Error(`the tracker was not installed: ${dep.state}, ${dep.fetched} bytes fetched`);
    const wire = (c) => c.up + c.down;
    const extra = wire(dep.conns[0]) - wire(base.conns[0]);
    figure('deploy_tracker_package', trackerBytes.length, 'bytes');
    figure('deploy_sync_bytes_without_deployment', wire(base.conns[0]), 'bytes');
    figure('deploy_sync_bytes_with_download', wire(dep.conns[0]), 'bytes');
    figure('deploy_wire_per_package_byte', (extra / trackerBytes.length).toFixed(3), 'x');
    const hash = Buffer.alloc(32, 1);
    const report = encodeSyncStart({ lastId: 0, app: hash, report: { hash, outcome: 'installed' } }).length - encodeSyncStart({ lastId: 0, app: hash }).length;
    figure('deploy_report_bytes', report, 'bytes');
    figure('deploy_app_hash_per_sync', encodeSyncStart({ lastId: 0, app: hash }).length - encodeSyncStart({ lastId: 0 }).length, 'bytes');

    // 64 KB, every connection cut after 20 KB towards the device.
    const bigSource = `const pad = '${Array.from({ length: 63_000 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join('')}';
let sum = 0;
for (let i = 0; i < pad.length; i++) sum += pad.charCodeAt(i);
print('big running ' + sum);
`;
    const big = build(bigSource, path.join(work, 'big.bapp'));
    const pkgA20 = path.join(work, 'a20.bapp');
    build(appA(20), pkgA20);
    const cut = await session(work, pkgA20, big, 'big.bapp', 20_000);
    if (!/big running/.test(cut.out)) throw new Error(`the 64 KB package was not installed (${cut.state}, ${cut.fetched} bytes fetched)`);
    // A syncs until the package is installed, then the new app (which does not sync) runs.
    figure('deploy_big_package', big.length, 'bytes');
    figure('deploy_syncs_64k_cut_20k', cut.conns.length, 'syncs');
    figure('deploy_syncs_64k_cut_20k_cut', cut.conns.filter((c) => c.down >= 20_000).length, 'syncs');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
