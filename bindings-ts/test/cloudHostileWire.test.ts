// Regression tests for what the cloud's fuzz suite (cloudFuzz.test.ts) found beyond issue 35's
// list: answers node's server gave without the security headers or out of order, requests it
// acted on after a "close", a connection kept open for a body that could no longer come, an
// integer the device cannot decode, and packets the broker handled after it had refused the
// one before them. Each is a byte sequence on a raw socket to a cloud on loopback.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as mqttPacket from 'mqtt-packet';
import * as path from 'path';
import { encodeBatch, topic } from '../src/cloud/protocol';
import { rawHttp, requestBytes } from '../src/cloud/rawHttp';
import { Cloud, DeviceCredentials, startCloud } from '../src/cloud/service';
import { deviceId, tmpDir } from '../src/cloud/testkit';
import { sendSession } from '../src/cloud/fuzz/mqttSessions';

const dir = tmpDir('beacon-hostile-wire-test-');
let cloud: Cloud;
let dev: DeviceCredentials;
let other: DeviceCredentials;

before(async () => {
  cloud = await startCloud({ db: path.join(dir, 'cloud.db'), port: 0, httpPort: 0, log: () => undefined });
  dev = await cloud.issueDevice(deviceId());
  other = await cloud.issueDevice(deviceId());
});
after(async () => {
  await cloud?.stop();
});

const port = (): number => Number(new URL(cloud.httpUrl).port);
const json = (): Record<string, string> => ({ authorization: `Bearer ${cloud.token}`, 'content-type': 'application/json' });
const messages = async (): Promise<number> => (await cloud.store.messages(dev.id)).length;
const post = (body: unknown, headers = json()): Buffer => requestBytes('POST', `/api/devices/${dev.id}/messages`, headers, JSON.stringify(body));

test('a request without Host gets a JSON 400 with the security headers (not node\'s bare one)', async () => {
  const r = await rawHttp(port(), 'GET /api/devices HTTP/1.1\r\nconnection: close\r\n\r\n');
  assert.ok(r.ok, r.ok ? '' : r.why);
  assert.equal(r.answer.status, 400);
  assert.match(r.answer.body, /missing Host header/);
  assert.equal(r.answer.headers['x-frame-options'], 'DENY');
  // HTTP/1.0 has no Host requirement.
  const old = await rawHttp(port(), `GET /api/devices HTTP/1.0\r\nauthorization: Bearer ${cloud.token}\r\n\r\n`);
  assert.ok(old.ok && old.answer.status === 200);
});

test('a request pipelined behind one that said "connection: close" is not acted on', async () => {
  const before = await messages();
  const first = post({ type: 'first', payload: 1 });
  const second = requestBytes('POST', `/api/devices/${dev.id}/messages`, { ...json(), connection: 'keep-alive' }, JSON.stringify({ type: 'second', payload: 2 }));
  const r = await rawHttp(port(), Buffer.concat([first, second]));
  assert.ok(r.ok && r.answer.status === 201, r.ok ? r.answer.body : r.why);
  assert.equal(await messages(), before + 1);
  assert.deepEqual((await cloud.store.messages(dev.id)).slice(-1).map((m) => m.type), ['first']);
});

test('bad bytes after a good request: the good one is answered first, and only it', async () => {
  const before = await messages();
  const r = await rawHttp(port(), Buffer.concat([post({ type: 'good', payload: 1 }), Buffer.from('\u0000garbage\r\n\r\n')]));
  assert.ok(r.ok, r.ok ? '' : r.why);
  assert.equal(r.answer.status, 201, r.answer.body);
  assert.equal(await messages(), before + 1);
});

test('a body cut short by a client that ended its side: the connection closes, nothing queued', async () => {
  const before = await messages();
  const cut = post({ type: 'cut', payload: { long: 'x'.repeat(100) } });
  const r = await rawHttp(port(), cut.subarray(0, cut.length - 10), 20_000);
  // Closed by the server (the client's own timeout would say "no answer in time").
  assert.equal(r.ok, false);
  assert.match(r.ok ? '' : r.why, /closed without an answer|no end of headers/);
  assert.equal(await messages(), before);
});

test('integers beyond ±(2^53 - 1) in a message payload are refused at the API (the device could not decode them)', async () => {
  const before = await messages();
  for (const big of ['9007199254740992', '-9007199254740992', '1e300']) {
    const body = `{"type":"big","payload":{"n":${big}}}`;
    const r = await rawHttp(port(), requestBytes('POST', `/api/devices/${dev.id}/messages`, json(), body));
    assert.ok(r.ok && r.answer.status === 400, `${big}: ${r.ok ? r.answer.body : r.why}`);
    assert.match(r.answer.body, /integer beyond/);
  }
  const ok = await rawHttp(port(), post({ type: 'max', payload: { n: Number.MAX_SAFE_INTEGER, f: 0.1, g: -1.5e-300 } }));
  assert.ok(ok.ok && ok.answer.status === 201);
  assert.equal(await messages(), before + 1);
});

test('MQTT: packets behind a refused one, a second CONNECT or a DISCONNECT in the same read are not handled', async () => {
  const mqttPort = Number(new URL(cloud.mqttUrl).port);
  const connect = mqttPacket.generate({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: 4, clean: true, keepalive: 60, clientId: dev.id, username: dev.id, password: Buffer.from(dev.password) });
  const batch = (stream: number): Buffer =>
    mqttPacket.generate({ cmd: 'publish', topic: topic(dev.id, 'u'), qos: 1, messageId: 7, retain: false, dup: false, payload: encodeBatch({ stream, events: [{ seq: 1, type: 't', ts: 1, payload: {}, volatile: false, variable: false }] }) });
  const refused = mqttPacket.generate({ cmd: 'publish', topic: topic(other.id, 'u'), qos: 1, messageId: 5, retain: false, dup: false, payload: Buffer.from('a0', 'hex') });
  const badFrame = mqttPacket.generate({ cmd: 'publish', topic: topic(dev.id, 'u'), qos: 1, messageId: 6, retain: false, dup: false, payload: Buffer.from('ff', 'hex') });
  const cases: [string, Buffer[]][] = [
    ['after a publish to another device', [connect, refused, batch(101)]],
    ['after a frame the protocol refuses', [connect, badFrame, batch(102)]],
    ['after a second CONNECT', [connect, connect, batch(103)]],
    ['after DISCONNECT', [connect, mqttPacket.generate({ cmd: 'disconnect' }), batch(104)]],
  ];
  for (const [what, packets] of cases) await sendSession(mqttPort, Buffer.concat(packets), true);
  const stored = (await cloud.store.events(dev.id, { limit: 1000 })).events.map((e) => e.stream);
  for (const stream of [101, 102, 103, 104]) assert.ok(!stored.includes(stream), `${cases[stream - 101][0]}: the batch was stored`);
  // The same batch alone is stored: the refusals above are not about the batch.
  await sendSession(mqttPort, Buffer.concat([connect, batch(105)]), true);
  assert.ok((await cloud.store.events(dev.id, { limit: 1000 })).events.some((e) => e.stream === 105));
  assert.equal((await cloud.store.device(other.id))?.events, 0);
});
