// Apps deployed from the cloud to the firmware: JerryScript on nrf52_bsim, its own cloud client
// (Zephyr's MQTT library over the board's socket provider) and its app store on the board's
// flash, syncing with the real `beacon cloud` (embedded broker, SQLite store). The device runs
// app A; `beacon cloud deploy` assigns it B; A's sync fetches B into the store's staging slot,
// the device installs it as an SMP upload is installed, runs B (its output says so), and B's
// sync reports it installed. A package built for the other engine is fetched and refused with
// the install's reason, and A keeps running and syncing. A download cut in the middle goes on at
// the next sync; an app that ends in a reboot loop is rolled back to A in the board's app store.
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, before, describe, test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';
import { compileApp } from '../src/compiler';
import { simArgs } from '../src/cli/run';
import { startCloud } from '../src/cloud';
import type { Cloud } from '../src/cloud';
import { FaultProxy, startFaultProxy } from '../src/cloud/faultProxy';
import { freePort, tmpDir } from '../src/cloud/testkit';
import { workspaceMissing } from '../src/firmware/workspace';
import { runChild } from './childProcess';
import { APP_A, appBSource, deploymentState, deployToDevice } from './deployApps';

const cli = path.join(toolsRoot(), 'bin', 'beacon.js');
const dir = tmpDir('beacon-cloud-deploy-fw-');
// The world's first device (its public id is fixed, on the firmware too).
const ID = '5eac0b1d00004d0cbeac051a00000001';
const db = path.join(dir, 'cloud.db');
const RUN_MS = 20 * 60_000;

const beacon = (args: string[]) => runChild(process.execPath, [cli, ...args], 180_000);

const APP_B = appBSource(400);

async function build(name: string, source: string, engine: 'jerryscript' | 'duktape'): Promise<string> {
  const entry = path.join(dir, `${name}.ts`);
  const outFile = path.join(dir, `${name}-${engine}.bapp`);
  fs.writeFileSync(entry, source);
  await compileApp({ entry, apiVersion: '0.2.6', engine, outFile });
  return outFile;
}

const missing = workspaceMissing('zephyr', 'jerryscript', 'bsim');

describe('apps deployed from the cloud: the firmware on nrf52_bsim', { skip: missing }, () => {
  let cloud: Cloud;
  let proxy: FaultProxy;
  let secret = '';
  let image = '';
  let appA = '';
  let appB = '';
  let appBDuktape = '';

  before(async () => {
    const { ensureZephyrImage } = await import('../src/firmware/zephyr');
    image = await ensureZephyrImage('bsim', 'jerryscript');
    cloud = await startCloud({ port: await freePort(), httpPort: 0, db, log: () => {} });
    proxy = await startFaultProxy({ port: Number(new URL(cloud.mqttUrl).port) });
    secret = (await cloud.issueDevice(ID)).password;
    appA = await build('a', APP_A, 'jerryscript');
    appB = await build('b', APP_B, 'jerryscript');
    appBDuktape = await build('b', APP_B, 'duktape');
  });
  after(async () => {
    await proxy?.close();
    await cloud?.stop();
  });

  /** The firmware, its flash erased, running A against the cloud for 20 minutes of its time. */
  async function runFirmware(via = cloud.mqttUrl): Promise<{ stdout: string; stderr: string }> {
    const { runZephyrFirmware } = await import('../src/firmware/zephyr');
    const args = simArgs(appA, { realtime: false, forMs: RUN_MS, cloud: via, cloudSecret: secret });
    const r = await runZephyrFirmware('bsim', image, args, { forMs: RUN_MS });
    assert.equal(r.status, 0, r.stderr);
    return r;
  }

  const deployTo = (pkg: string): Promise<number> => deployToDevice(db, ID, pkg);
  const deviceState = (id: number) => deploymentState(cloud, id, ID);

  test('a package for the other engine is fetched, refused with the reason, and A runs on', async () => {
    const dep = await deployTo(appBDuktape);
    const r = await runFirmware();
    assert.deepEqual(r.stdout.trim().split('\n'), ['A running', 'A sync ok', 'A sync ok', 'A sync ok']);
    const s = await deviceState(dep);
    assert.equal(s.state, 'refused');
    assert.match(s.reason ?? '', /package refused: package was built for Duktape/);
    assert.equal(s.fetched, fs.statSync(appBDuktape).size);
    const events = await cloud.store.events(ID);
    assert.ok(events.events.some((e) => e.type === 'hello'), "A's event reached the cloud");
  });

  test('B is deployed: fetched in the sync, installed, run, reported installed', async () => {
    const dep = await deployTo(appB);
    const chunks = cloud.core.counters.chunks;
    const r = await runFirmware();
    // A's first sync fetched B; after it, B runs from the top and its sync reports it.
    assert.deepEqual(r.stdout.trim().split('\n'), ['A running', 'A sync ok', 'B running 448800', 'B sync ok']);
    const size = fs.statSync(appB).size;
    assert.ok(size > 4096, `B's package (${size} bytes) takes more than one chunk`);
    assert.equal(cloud.core.counters.chunks - chunks, Math.ceil(size / 4096));
    const s = await deviceState(dep);
    assert.equal(s.state, 'installed');
    assert.equal(s.fetched, size);
    const status = await beacon(['cloud', 'deploy', 'status', String(dep), '--db', db]);
    assert.equal(status.status, 0, status.stderr);
    assert.match(status.stdout, new RegExp(`${ID}  installed`));
  });

  test('a download cut in the middle goes on at the next sync from where it stopped', async () => {
    const dep = await deployTo(appB);
    const size = fs.statSync(appB).size;
    const chunks = cloud.core.counters.chunks;
    proxy.cutAtChunk(2); // the second chunk is lost with the connection
    const r = await runFirmware(proxy.url);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines[0], 'A running');
    assert.match(lines[1], /^A sync .*sync failed/);
    assert.deepEqual(lines.slice(2), ['A sync ok', 'B running 448800', 'B sync ok']);
    assert.equal(proxy.stats.chunkCuts, 1);
    // Every chunk once, and the one in flight at the cut once more.
    assert.equal(cloud.core.counters.chunks - chunks, Math.ceil(size / 4096) + 1);
    assert.equal((await deviceState(dep)).state, 'installed');
  });

  test('an app that ends in a reboot loop is rolled back in the board\'s app store, which the cloud hears', async () => {
    // Out of memory in its top level: the device resets, three times, then the guard steps in.
    const crashing = await build('crash', `print('C starting');
const keep = [];
for (;;) keep.push([1, 2, 3, 4, 5, 6, 7, 8]);
`, 'jerryscript');
    const dep = await deployTo(crashing);
    const r = await runFirmware();
    const lines = r.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, 2), ['A running', 'A sync ok']);
    assert.deepEqual(lines.slice(2, 5), ['C starting', 'C starting', 'C starting']);
    assert.deepEqual(lines.slice(5), ['A running', 'A sync ok', 'A sync ok', 'A sync ok']);
    assert.match(r.stderr, /ESR0002 Reboot loop detected/);
    const s = await deviceState(dep);
    assert.equal(s.state, 'rolled back');
    assert.match(s.reason ?? '', /^ESR0002 Reboot loop detected/);
  });
});
