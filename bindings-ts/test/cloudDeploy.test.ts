// Apps deployed from the cloud, end to end on loopback: the real simulator (`beacon run`, the
// runtime's C sync over libmosquitto, with an app store) syncs with the real `beacon cloud`
// (embedded broker, SQLite store). A device running app A gets app B assigned with
// `beacon cloud deploy`, fetches it during its sync, installs it as an SMP upload is installed,
// runs B (its output says so) and reports it installed; a package built for the other engine is
// fetched, refused with the install's reason, and A keeps running and syncing; a download cut in
// the middle goes on at the next sync from where the staged bytes end (only the chunk in flight
// is fetched twice). `/api/deployments` and `beacon cloud deploy status` show the states.
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { after, before, test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';
import { startCloud } from '../src/cloud';
import type { Cloud } from '../src/cloud';
import { FaultProxy, startFaultProxy } from '../src/cloud/faultProxy';
import { freePort, tmpDir } from '../src/cloud/testkit';
import { runChild } from './childProcess';
import { APP_A, appBSource, deploymentState, deployToDevice } from './deployApps';

const cli = path.join(toolsRoot(), 'bin', 'beacon.js');
const dir = tmpDir('beacon-cloud-deploy-');
// The simulator's first device (its public id is fixed).
const ID = '5eac0b1d00004d0cbeac051a00000001';
const db = path.join(dir, 'cloud.db');

// Asynchronous: the embedded broker runs in this process and must answer meanwhile.
const beacon = (args: string[]) => runChild(process.execPath, [cli, ...args], 180_000);

let cloud: Cloud;
let proxy: FaultProxy;
let secret = '';
let hasMosquitto = true;

const APP_B = appBSource(1200);

async function build(name: string, source: string): Promise<string> {
  const src = path.join(dir, `${name}.ts`);
  const out = path.join(dir, `${name}.bapp`);
  fs.writeFileSync(src, source);
  const r = await beacon(['build', src, '-o', out]);
  assert.equal(r.status, 0, r.stderr);
  return out;
}

/** The same package as built for the other engine, its CRC made right again (rt_package.h). */
function otherEngine(file: string): string {
  const b = Buffer.from(fs.readFileSync(file));
  const engine = b.readUInt32LE(12);
  b.writeUInt32LE(engine === 1 ? 2 : 1, 12);
  const crc = zlib.crc32(b.subarray(40), zlib.crc32(b.subarray(0, 36)));
  b.writeUInt32LE(crc >>> 0, 36);
  const out = file.replace(/\.bapp$/, '-other-engine.bapp');
  fs.writeFileSync(out, b);
  return out;
}

let appA = '';
let appB = '';

before(async () => {
  cloud = await startCloud({ port: await freePort(), httpPort: 0, db, log: () => {} });
  proxy = await startFaultProxy({ port: Number(new URL(cloud.mqttUrl).port) });
  secret = (await cloud.issueDevice(ID)).password;
  appA = await build('a', APP_A);
  appB = await build('b', APP_B);
  const probe = await beacon(['run', appA, '--cloud', 'mqtt://127.0.0.1:1', '--for', '1s']);
  hasMosquitto = !/without libmosquitto/.test(probe.stderr);
});
after(async () => {
  await proxy?.close();
  await cloud?.stop();
});

const runDevice = (via = cloud.mqttUrl) => beacon(['run', appA, '--for', '20m', '--cloud', via, '--cloud-secret', secret]);

const deployTo = (pkg: string): Promise<number> => deployToDevice(db, ID, pkg);
const deviceState = (id: number) => deploymentState(cloud, id, ID);

test('a package for the other engine is fetched, refused with the reason, and A runs on', async (t) => {
  if (!hasMosquitto) return t.skip('beacon-sim built without libmosquitto');
  const dep = await deployTo(otherEngine(appB));
  const r = await runDevice();
  assert.equal(r.status, 0, r.stderr);
  // A was never replaced: its three syncs all ran, the report went out with the second.
  assert.deepEqual(r.stdout.trim().split('\n'), ['A running', 'A sync ok', 'A sync ok', 'A sync ok']);
  const s = await deviceState(dep);
  assert.equal(s.state, 'refused');
  assert.match(s.reason ?? '', /package refused: package was built for (Duktape|JerryScript)/);
  // A's event reached the store: the queue was untouched by the refusal.
  const events = await cloud.store.events(ID);
  assert.ok(events.events.some((e) => e.type === 'hello'));
  const status = await beacon(['cloud', 'deploy', 'status', String(dep), '--db', db]);
  assert.equal(status.status, 0, status.stderr);
  assert.match(status.stdout, new RegExp(`${ID}  refused: package refused`));
});

test('B is deployed: fetched in the sync, installed, run, reported installed', async (t) => {
  if (!hasMosquitto) return t.skip('beacon-sim built without libmosquitto');
  const dep = await deployTo(appB);
  const chunks = cloud.core.counters.chunks;
  const r = await runDevice();
  assert.equal(r.status, 0, r.stderr);
  // A's first sync fetched B; after it, B runs from the top and its sync reports it.
  assert.deepEqual(r.stdout.trim().split('\n'), ['A running', 'A sync ok', 'B running 1346400', 'B sync ok']);
  const size = fs.statSync(appB).size;
  assert.ok(size > 4 * 4096, `B's package (${size} bytes) takes several chunks`);
  assert.equal(cloud.core.counters.chunks - chunks, Math.ceil(size / 4096));
  const s = await deviceState(dep);
  assert.equal(s.state, 'installed');
  assert.equal(s.fetched, size);
});

test('a download cut in the middle goes on at the next sync from where it stopped', async (t) => {
  if (!hasMosquitto) return t.skip('beacon-sim built without libmosquitto');
  // A fresh device run (its app store empty: it runs A), B assigned again.
  const dep = await deployTo(appB);
  const size = fs.statSync(appB).size;
  const chunks = cloud.core.counters.chunks;
  proxy.cutAtChunk(3); // the third chunk is lost with the connection
  const r = await runDevice(proxy.url);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines[0], 'A running');
  assert.match(lines[1], /^A sync .*sync failed: connection lost/);
  assert.deepEqual(lines.slice(2), ['A sync ok', 'B running 1346400', 'B sync ok']);
  assert.equal(proxy.stats.chunkCuts, 1);
  // Every chunk once, and the one in flight at the cut once more.
  assert.equal(cloud.core.counters.chunks - chunks, Math.ceil(size / 4096) + 1);
  assert.equal((await deviceState(dep)).state, 'installed');
});

test('an app that ends in a reboot loop is rolled back by the device, which says so', async (t) => {
  if (!hasMosquitto) return t.skip('beacon-sim built without libmosquitto');
  // Out of memory in its top level: the device resets, three times, then the guard steps in.
  const crashing = await build('crash', `print('C starting');
const keep = [];
for (;;) keep.push([1, 2, 3, 4, 5, 6, 7, 8]);
`);
  const dep = await deployTo(crashing);
  const r = await runDevice();
  assert.equal(r.status, 0, r.stderr);
  // A fetched C and installed it; C ran out of memory at every start, the guard rolled it back,
  // and A, running again, reported it at its next sync.
  const lines = r.stdout.trim().split('\n');
  assert.deepEqual(lines.slice(0, 2), ['A running', 'A sync ok']);
  assert.deepEqual(lines.slice(2, 5), ['C starting', 'C starting', 'C starting']);
  assert.deepEqual(lines.slice(5), ['A running', 'A sync ok', 'A sync ok', 'A sync ok']);
  assert.match(r.stderr, /ESR0002 Reboot loop detected/);
  assert.match(r.stderr, /rolled back to the one installed before it/);
  const s = await deviceState(dep);
  assert.equal(s.state, 'rolled back');
  assert.match(s.reason ?? '', /^ESR0002 Reboot loop detected/);
});

test('beacon cloud deploy: stages and healthy time, and what it refuses', async () => {
  const bad = await beacon(['cloud', 'deploy', appB, '--devices', ID, '--stage', '50%,20%,100%', '--db', db]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--stage: stages must be whole percentages that increase and end at 100/);
  const unknown = await beacon(['cloud', 'deploy', appB, '--devices', '5eac0b1d00004d0cbeac051a000000ff', '--db', db]);
  assert.notEqual(unknown.status, 0);
  assert.match(unknown.stderr, /device 5eac0b1d00004d0cbeac051a000000ff is not known to the cloud/);
  const neither = await beacon(['cloud', 'deploy', appB, '--db', db]);
  assert.match(neither.stderr, /either --devices ID,\.\.\. or --all/);
  const before = (await cloud.store.deployments.listDeployments()).length;
  const ok = await beacon(['cloud', 'deploy', appB, '--all', '--stage', '50%,100%', '--min-healthy', '30m', '--db', db, '--json']);
  assert.equal(ok.status, 0, ok.stderr);
  const d = JSON.parse(ok.stdout) as { id: number; rollout: { stages: number[]; minHealthy: number }; status: string };
  assert.deepEqual(d.rollout, { stages: [50, 100], minHealthy: 30 * 60_000 });
  assert.equal(d.status, 'running');
  assert.equal((await cloud.store.deployments.listDeployments()).length, before + 1);
  const status = await beacon(['cloud', 'deploy', 'status', String(d.id), '--db', db]);
  assert.match(status.stdout, /: running, stage 1 of 2: 1 pending/);
});
