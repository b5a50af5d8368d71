// TLS: the cloud on mqtts:// and https:// with a certificate, a device that trusts it syncing,
// one that does not refused; and plain TCP refused anywhere but loopback.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as https from 'https';
import * as path from 'path';
import { DeviceClient, MemoryStorage } from '../src/cloud/deviceClient';
import { startCloud } from '../src/cloud/service';
import { deviceId, tmpDir } from '../src/cloud/testkit';

const dir = tmpDir('beacon-tls-test-');
const haveOpenssl = spawnSync('openssl', ['version']).status === 0;

test('plain TCP is refused on an address other than loopback', async () => {
  await assert.rejects(startCloud({ host: '0.0.0.0', port: 0, httpPort: 0, log: () => undefined }), /needs TLS/);
});

test('TLS: a device that trusts the certificate syncs; one that does not is refused', { skip: haveOpenssl ? false : 'openssl is not installed' }, async () => {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const cloud = await startCloud({ port: 0, httpPort: 0, tls: { cert, key }, log: () => undefined });
  try {
    assert.match(cloud.mqttUrl, /^mqtts:\/\//);
    assert.match(cloud.httpUrl, /^https:\/\//);
    const c = await cloud.issueDevice(deviceId());
    const ca = fs.readFileSync(cert);
    const good = new DeviceClient({ id: c.id, password: c.password, url: cloud.mqttUrl, storage: new MemoryStorage(), ca, timeoutMs: 5000 });
    good.enqueue('secure', { ok: 1 }, { volatile: false });
    assert.equal((await good.sync()).acked, 1);
    const untrusting = new DeviceClient({ id: c.id, password: c.password, url: cloud.mqttUrl, storage: new MemoryStorage(), timeoutMs: 5000 });
    await assert.rejects(untrusting.sync(), /certificate/);
    const plain = new DeviceClient({ id: c.id, password: c.password, url: cloud.mqttUrl.replace('mqtts:', 'mqtt:'), storage: new MemoryStorage(), timeoutMs: 3000 });
    await assert.rejects(plain.sync());
    const body = await new Promise<string>((resolve, reject) => {
      https
        .get(`${cloud.httpUrl}/api/devices`, { ca, headers: { authorization: `Bearer ${cloud.token}` } }, (res) => {
          let t = '';
          res.on('data', (d: Buffer) => (t += d.toString()));
          res.on('end', () => resolve(t));
        })
        .on('error', reject);
    });
    assert.equal((JSON.parse(body) as { devices: { events: number }[] }).devices[0].events, 1);
  } finally {
    await cloud.stop();
  }
});
