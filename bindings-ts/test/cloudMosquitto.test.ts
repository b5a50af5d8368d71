// The cloud on an external Mosquitto (Debian's package, started and stopped here): the files
// `beacon cloud mosquitto-config` writes make Mosquitto enforce the per-device rules, and the
// cloud serves devices through it as a privileged client.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as mqtt from 'mqtt';
import * as mqttPacket from 'mqtt-packet';
import * as net from 'net';
import * as path from 'path';
import { DeviceClient, MemoryStorage, ReceivedMessage } from '../src/cloud/deviceClient';
import { encodeBatch, topic } from '../src/cloud/protocol';
import { Cloud, DeviceCredentials, issueCredentials, startCloud } from '../src/cloud/service';
import { CloudStore, openStore } from '../src/cloud/store';
import { writeMosquittoConfig } from '../src/cloud/mosquitto';
import { beaconSync, deviceId, freePort, tmpDir, waitFor } from '../src/cloud/testkit';

const MOSQUITTO = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto'].find((p) => fs.existsSync(p));
const skip = MOSQUITTO ? false : "mosquitto is not installed (Debian package 'mosquitto'; scripts/setup.sh installs it)";

const dir = tmpDir('beacon-mosquitto-test-');
let store: CloudStore;
let broker: ChildProcess | undefined;
let brokerLog = '';
let port = 0;
let cloud: Cloud;
let alice: DeviceCredentials;
let bob: DeviceCredentials;
const cloudLog: string[] = [];

function url(): string {
  return `mqtt://127.0.0.1:${port}`;
}

async function brokerUp(): Promise<void> {
  await waitFor('mosquitto to listen', () =>
    new Promise<boolean | undefined>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.on('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(undefined));
    }),
  );
}

before(async () => {
  if (!MOSQUITTO) return;
  const db = path.join(dir, 'cloud.db');
  store = await openStore(db);
  alice = await issueCredentials(store, deviceId());
  bob = await issueCredentials(store, deviceId());
  port = await freePort();
  // The command writes the files; as root, the test adds `user root` so the broker can read them.
  const conf = path.join(dir, 'mosquitto');
  const files = await writeMosquittoConfig(store, conf, { port, servicePort: await freePort(), user: process.getuid?.() === 0 ? 'root' : undefined });
  broker = spawn(MOSQUITTO, ['-c', files.confFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  broker.stdout?.on('data', (d: Buffer) => (brokerLog += d.toString()));
  broker.stderr?.on('data', (d: Buffer) => (brokerLog += d.toString()));
  await brokerUp();
  // With the broker's pid the cloud sends SIGHUP itself after a revocation or a new secret.
  cloud = await startCloud({ store, broker: files.serviceUrl, mosquittoDir: conf, mosquittoPid: broker.pid, httpPort: 0, log: (l) => cloudLog.push(l) });
});

after(async () => {
  await cloud?.stop();
  await store?.close();
  broker?.kill('SIGTERM');
});

function device(c: DeviceCredentials): DeviceClient {
  return new DeviceClient({ id: c.id, password: c.password, url: url(), storage: new MemoryStorage(), timeoutMs: 5000 });
}

async function events(id: string): Promise<number> {
  return (await store.device(id))?.events ?? 0;
}

test('mosquitto-config writes the files for a broker (the command)', { skip }, () => {
  const out = path.join(dir, 'cli-conf');
  const r = beaconSync(['cloud', 'mosquitto-config', out, '--db', path.join(dir, 'cli.db'), '--port', '18830']);
  assert.equal(r.status, 0, r.stderr);
  const conf = fs.readFileSync(path.join(out, 'mosquitto.conf'), 'utf8');
  assert.match(conf, /^allow_anonymous false$/m);
  assert.match(conf, /^listener 18830$/m);
  assert.match(fs.readFileSync(path.join(out, 'passwd'), 'utf8'), /^beacon-cloud:\$7\$1000\$/m);
  assert.match(fs.readFileSync(path.join(out, 'acl'), 'utf8'), /^pattern write b\/%u\/u$/m);
});

test('through Mosquitto: events stored once, messages delivered once, variables kept', { skip }, async () => {
  const d = device(alice);
  for (let i = 0; i < 30; i++) d.enqueue('n', { i }, { volatile: false });
  d.setVar('mode', 'eco');
  const got: ReceivedMessage[] = [];
  d.onReceive((m) => got.push(m));
  await cloud.sendMessage(alice.id, 'cfg', { rate: 5 });
  const r = await d.sync();
  assert.equal(r.acked, 31);
  assert.equal(await events(alice.id), 31);
  assert.deepEqual(got.map((m) => m.payload), [{ rate: 5 }]);
  assert.deepEqual((await store.variables(alice.id)).map((v) => v.value), ['eco']);
  await d.sync();
  assert.equal(got.length, 1);
  assert.ok((await store.messages(alice.id)).every((m) => m.delivered !== undefined));
});

test('through Mosquitto: wrong secret and unknown device are refused', { skip }, async () => {
  await assert.rejects(mqtt.connectAsync(url(), { clientId: alice.id, username: alice.id, password: 'nope', reconnectPeriod: 0 }), /Not authorized|Bad username/);
  const x = deviceId();
  await assert.rejects(mqtt.connectAsync(url(), { clientId: x, username: x, password: 'nope', reconnectPeriod: 0 }), /Not authorized|Bad username/);
});

test("through Mosquitto: a device cannot publish or subscribe under another device's id", { skip }, async () => {
  const c = await mqtt.connectAsync(url(), { clientId: alice.id, username: alice.id, password: alice.password, reconnectPeriod: 0, protocolVersion: 4 });
  const seen: string[] = [];
  c.on('message', (t) => seen.push(t));
  // Denied subscriptions: Mosquitto answers 0x80 (a rejection in mqtt.js) or grants nothing.
  for (const t of [topic(bob.id, 'm'), topic(bob.id, 'a'), 'b/#']) await c.subscribeAsync(t, { qos: 1 }).catch(() => undefined);
  const forged = encodeBatch({ stream: 9, events: [{ seq: 1, type: 'forged', ts: 1, payload: {}, volatile: false, variable: false }] });
  await c.publishAsync(topic(bob.id, 'u'), forged, { qos: 1 }).catch(() => undefined);
  await c.endAsync(true);
  // Bob syncs after the forgery: his message must reach only him, and the forged event nowhere.
  const got: ReceivedMessage[] = [];
  const d = device(bob);
  d.onReceive((m) => got.push(m));
  d.enqueue('real', { ok: true }, { volatile: false });
  await cloud.sendMessage(bob.id, 'private', { to: 'bob' });
  await d.sync();
  assert.equal(got.length, 1);
  assert.deepEqual(seen, []);
  const stored = (await store.events(bob.id)).events;
  assert.deepEqual(stored.map((e) => e.type), ['real']);
});

test('through Mosquitto: a packet over the size limit closes the connection', { skip }, async () => {
  const s = net.connect(port, '127.0.0.1');
  const closed = new Promise<void>((resolve) => s.on('close', () => resolve()));
  const connack = new Promise<void>((resolve) => s.once('data', () => resolve()));
  s.on('error', () => undefined);
  s.write(mqttPacket.generate({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: 4, clean: true, keepalive: 60, clientId: alice.id, username: alice.id, password: Buffer.from(alice.password) }));
  // The broker answers the CONNECT first; only then does the oversized PUBLISH follow.
  await connack;
  s.write(Buffer.from([0x32, 0x80, 0xad, 0xe2, 0x04])); // PUBLISH announcing 10,000,000 bytes
  s.write(Buffer.alloc(64 * 1024, 0x41));
  let timer: NodeJS.Timeout | undefined;
  const verdict = await Promise.race([
    closed.then(() => 'closed'),
    new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still open after 10 s'), 10_000))),
  ]);
  clearTimeout(timer);
  s.destroy();
  assert.equal(verdict, 'closed', 'Mosquitto must drop a client that announces a packet over max_packet_size');
  const before = await events(alice.id);
  const d = device(alice);
  d.enqueue('after', {}, { volatile: false });
  await d.sync();
  assert.equal(await events(alice.id), before + 1);
});

test('through Mosquitto: a device added or revoked while running, after SIGHUP', { skip }, async () => {
  const carol = await cloud.issueDevice(deviceId());
  broker?.kill('SIGHUP');
  await waitFor('mosquitto to accept the new device', async () => {
    const d = device(carol);
    d.enqueue('hello', {}, { volatile: false });
    return d.sync().then(
      () => true,
      () => undefined,
    );
  });
  assert.equal(await events(carol.id), 1);
  assert.equal(await cloud.revokeDevice(carol.id), true);
  broker?.kill('SIGHUP');
  await waitFor('mosquitto to refuse the revoked device', async () =>
    mqtt.connectAsync(url(), { clientId: carol.id, username: carol.id, password: carol.password, reconnectPeriod: 0 }).then(
      async (c) => {
        await c.endAsync(true);
        return undefined;
      },
      () => true,
    ),
  );
});

test('through Mosquitto: revoking a device or issuing a new secret ends its live session at once (reload)', { skip }, async () => {
  const dora = await cloud.issueDevice(deviceId());
  const connectDora = (password: string): Promise<mqtt.MqttClient> =>
    mqtt.connectAsync(url(), { clientId: dora.id, username: dora.id, password, reconnectPeriod: 0, connectTimeout: 5000 });
  // The cloud's issue sent the broker SIGHUP; the reload happens in its own time.
  const first = await waitFor('mosquitto to accept the new device', () => connectDora(dora.password).catch(() => undefined));
  const firstGone = new Promise<void>((resolve) => first.once('close', () => resolve()));
  const renewed = await cloud.issueDevice(dora.id);
  await firstGone;
  first.end(true);
  await assert.rejects(connectDora(dora.password), /Bad username or password|Not authorized/);
  const second = await connectDora(renewed.password);
  const secondGone = new Promise<void>((resolve) => second.once('close', () => resolve()));
  assert.equal(await cloud.revokeDevice(dora.id), true);
  await secondGone;
  second.end(true);
  await assert.rejects(connectDora(renewed.password), /Bad username or password|Not authorized/);
});

test('through Mosquitto: a QoS 0 upload is dropped by the cloud (QoS 1 only), nothing stored', { skip }, async () => {
  const before = await events(alice.id);
  const c = await mqtt.connectAsync(url(), { clientId: alice.id, username: alice.id, password: alice.password, reconnectPeriod: 0 });
  const batch = encodeBatch({ stream: 4242, events: [{ seq: 1, type: 'q0', ts: 1, payload: {}, volatile: false, variable: false }] });
  await c.publishAsync(topic(alice.id, 'u'), batch, { qos: 0 });
  await waitFor('the refusal in the log', () => (cloudLog.some((l) => l.includes(`refused ${alice.id}: QoS 0 publish`)) ? true : undefined));
  await c.endAsync();
  assert.equal(await events(alice.id), before);
  const d = device(alice);
  d.enqueue('after-qos0', {}, { volatile: false });
  await d.sync();
  assert.equal(await events(alice.id), before + 1);
});
