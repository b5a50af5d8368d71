// The firmware's own cloud client against a real cloud: on nrf52_bsim the sockets are the host's
// (src/port/zephyr/host_sockets_bsim.c, through Zephyr's socket offload API), and above them run
// Zephyr's TLS sockets on Mbed TLS, its MQTT library and hal_cloud_zephyr.c, as on a device. The
// cloud is `beacon cloud` itself: the one `beacon run` starts, one started here on TLS with the
// credentials `beacon cloud device add` issues, and Mosquitto with the files `beacon cloud
// mosquitto-config` writes. What the cloud stores must be what the simulator makes it store.
// Skipped, saying why, without Zephyr, JerryScript or BabbleSim (scripts/lib/workspace.sh) or
// without openssl (the certificates).
import { spawn, spawnSync } from 'child_process';
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { beacon, repo } from './boardRuns';
import { workspaceMissing } from '../src/firmware/workspace';
import { issueCredentials, startCloud } from '../src/cloud/service';
import { openStore } from '../src/cloud/store';
import { writeMosquittoConfig } from '../src/cloud/mosquitto';
import { freePort, waitFor } from '../src/cloud/testkit';
import { simDeviceId } from '../src/cli/runCloud';

const haveOpenssl = spawnSync('openssl', ['version']).status === 0;
const missing = workspaceMissing('zephyr', 'jerryscript', 'bsim') || (haveOpenssl ? false : 'openssl is not installed');
const MOSQUITTO = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto'].find((p) => fs.existsSync(p));

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-bsim-cloud-'));
after(() => fs.rmSync(tempDir, { recursive: true, force: true }));

const report = path.join(repo, 'examples', 'cloud-report.ts');
const reportWorld = path.join(repo, 'examples', 'cloud-report.world.json');
const device = simDeviceId(0);

/** A P-256 certificate for localhost, which is its own CA. */
function certificate(name: string): { cert: string; key: string } {
  const cert = path.join(tempDir, `${name}-cert.pem`);
  const key = path.join(tempDir, `${name}-key.pem`);
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return { cert, key };
}

interface CloudEvent { seq: number; type: string; ts: number; volatile?: boolean; variable?: boolean; payload: unknown; t: number }

/** The cloud-event records of a trace, without the stream id (a new one each run whose flash
 * starts erased). */
function cloudEvents(trace: string): CloudEvent[] {
  return fs.readFileSync(trace, 'utf8').split('\n').filter((l) => l.includes('"ev":"cloud-event"')).map((l) => {
    const { stream: _stream, dev: _dev, ev: _ev, ...rest } = JSON.parse(l) as Record<string, unknown>;
    return rest as unknown as CloudEvent;
  });
}

const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

test('beacon run --target bsim: the firmware syncs with the run\'s cloud over TLS, and the cloud stores what the simulator makes it store', { skip: missing }, async () => {
  const simTrace = path.join(tempDir, 'sim.jsonl');
  const fwTrace = path.join(tempDir, 'bsim.jsonl');
  const sim = await beacon(['run', report, '--world', reportWorld, '--trace', simTrace]);
  assert.equal(sim.status, 0, sim.stderr);
  const fw = await beacon(['run', report, '--world', reportWorld, '--trace', fwTrace, '--target', 'bsim']);
  assert.equal(fw.status, 0, fw.stderr);
  // The app's own account: the message from the cloud, the syncs, the network away and back.
  assert.deepEqual(lines(fw.stdout), lines(sim.stdout));
  assert.match(fw.stdout, /^config: a reading every 5 min$/m);
  assert.match(fw.stdout, /^synced after 61 readings$/m);
  // The cloud's account: 61 readings and the variable, one message delivered, on both.
  const summary = (stderr: string): string[] => lines(stderr).filter((l) => l.startsWith('[beacon cloud]'));
  assert.deepEqual(summary(fw.stderr), summary(sim.stderr));
  assert.match(fw.stderr, /^\[beacon cloud\] 5eac0b1d00004d0cbeac051a00000001: 62 events stored, 1 message delivered$/m);
  // Event by event: type, payload, sequence, timestamps and the world time of the sync that
  // delivered it. A sync takes no device time on the firmware either (the device waits on the
  // host's network with the simulation's time held), so even the times are the simulator's.
  const events = cloudEvents(fwTrace);
  assert.equal(events.length, 62);
  assert.deepEqual(events, cloudEvents(simTrace));
});

test('a running beacon cloud on TLS, credentials from beacon cloud device add: events stored once; a wrong CA or secret is refused and nothing is stored', { skip: missing }, async () => {
  const good = certificate('cloud');
  const other = certificate('stranger');
  const db = path.join(tempDir, 'cloud.db');
  const add = await beacon(['cloud', 'device', 'add', device, '--db', db]);
  assert.equal(add.status, 0, add.stderr);
  const secret = /^password: +(\S+)$/m.exec(add.stdout)?.[1];
  assert.ok(secret, add.stdout);
  const cloud = await startCloud({ db, port: 0, httpPort: 0, tls: good, log: () => undefined });
  try {
    const url = cloud.mqttUrl.replace('://127.0.0.1:', '://localhost:');
    const run = (extra: string[]): ReturnType<typeof beacon> =>
      beacon(['run', report, '--target', 'bsim', '--for', '70min', '--utc', '1767254400000', '--cloud', url, ...extra]);
    const stored = async (): Promise<number> => (await cloud.store.device(device))?.events ?? 0;

    const strangerCa = await run(['--cloud-secret', secret, '--cloud-ca', other.cert]);
    assert.equal(strangerCa.status, 0, strangerCa.stderr);
    assert.match(strangerCa.stdout, /^sync: ESR0606 Cloud certificate not trusted: sync failed: the cloud's certificate is not one the device trusts$/m);
    const wrongSecret = await run(['--cloud-secret', 'not-the-secret', '--cloud-ca', good.cert]);
    assert.match(wrongSecret.stdout, /^sync: ESR0602 Cloud refused the device: sync failed: the cloud refused the device's credentials$/m);
    assert.equal(await stored(), 0);

    const ok = await run(['--cloud-secret', secret, '--cloud-ca', good.cert]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /^synced after 7 readings$/m);
    // Seven readings and the variable, each stored once.
    assert.equal(await stored(), 8);
    const page = await cloud.store.events(device, { limit: 100 });
    assert.deepEqual(page.events.map((e) => e.seq).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8]);
  } finally {
    await cloud.stop();
  }
});

test('through Mosquitto (beacon cloud mosquitto-config) on a TLS listener: the firmware\'s events are stored once', { skip: missing || (MOSQUITTO ? false : "mosquitto is not installed (Debian package 'mosquitto')") }, async () => {
  const tls = certificate('mosquitto');
  const store = await openStore(path.join(tempDir, 'mosquitto.db'));
  const creds = await issueCredentials(store, device);
  const devicePort = await freePort();
  const cloudPort = await freePort();
  const conf = path.join(tempDir, 'mosquitto');
  // The devices' listener is TLS; the cloud's own client comes in on the plain loopback one.
  const files = await writeMosquittoConfig(store, conf, { port: devicePort, host: '127.0.0.1', tls, servicePort: cloudPort, user: process.getuid?.() === 0 ? 'root' : undefined });
  const broker = spawn(MOSQUITTO!, ['-c', files.confFile], { stdio: 'ignore' });
  try {
    await waitFor('mosquitto to listen', () => new Promise<boolean | undefined>((resolve) => {
      const s = net.connect(cloudPort, '127.0.0.1');
      s.on('connect', () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(undefined));
    }));
    const cloud = await startCloud({ store, broker: files.serviceUrl, mosquittoDir: conf, httpPort: 0, log: () => undefined });
    try {
      const r = await beacon(['run', report, '--target', 'bsim', '--for', '70min', '--utc', '1767254400000',
        '--cloud', `mqtts://localhost:${devicePort}`, '--cloud-secret', creds.password, '--cloud-ca', tls.cert]);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^synced after 7 readings$/m);
      await waitFor('the events stored', async () => (((await store.device(device))?.events ?? 0) >= 8 ? true : undefined));
      assert.equal((await store.device(device))?.events, 8);
    } finally {
      await cloud.stop();
    }
  } finally {
    broker.kill('SIGTERM');
    await store.close();
  }
});

test('beacon run: mqtts:// is the firmware\'s, and needs its CA', async () => {
  const r = await beacon(['run', report, '--cloud', 'mqtts://localhost:8883', '--cloud-secret', 'x']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--cloud mqtts:\/\/: TLS is the firmware's \(--target bsim\)/);
  const noCa = await beacon(['run', report, '--target', 'bsim', '--cloud', 'mqtts://localhost:8883', '--cloud-secret', 'x']);
  assert.equal(noCa.status, 2, noCa.stderr);
  assert.match(noCa.stderr, /give --cloud-ca/);
});
