// Security of the cloud: who may connect, publish and subscribe; the HTTP token; oversized and
// malformed CBOR and MQTT frames (raw bytes on the socket). Every refusal stores nothing and
// leaves the service running: a good device still syncs afterwards.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as mqtt from 'mqtt';
import * as mqttPacket from 'mqtt-packet';
import * as net from 'net';
import * as path from 'path';
import { encodeCbor } from '../src/cloud/cbor';
import { DeviceClient, MemoryStorage } from '../src/cloud/deviceClient';
import { encodeBatch, LIMITS, topic } from '../src/cloud/protocol';
import { Cloud, DeviceCredentials, startCloud } from '../src/cloud/service';
import { deviceId, tmpDir, waitFor } from '../src/cloud/testkit';

const dir = tmpDir('beacon-security-test-');
let cloud: Cloud;
let alice: DeviceCredentials;
let bob: DeviceCredentials;
const logLines: string[] = [];

before(async () => {
  cloud = await startCloud({ db: path.join(dir, 'cloud.db'), port: 0, httpPort: 0, log: (l) => logLines.push(l) });
  alice = await cloud.issueDevice(deviceId());
  bob = await cloud.issueDevice(deviceId());
});
after(async () => {
  await cloud?.stop();
});

function port(): number {
  return Number(new URL(cloud.mqttUrl).port);
}

async function connectAs(clientId: string, username: string, password: string): Promise<mqtt.MqttClient> {
  return mqtt.connectAsync(cloud.mqttUrl, { clientId, username, password, protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000 });
}

/** Wait until the broker closes the client's connection. */
function closed(client: mqtt.MqttClient): Promise<void> {
  return new Promise((resolve) => {
    if (!client.connected) return resolve();
    client.once('close', () => resolve());
  });
}

async function eventCount(id: string): Promise<number> {
  return (await cloud.store.device(id))?.events ?? 0;
}

/** Raw bytes to the broker; resolves with everything received once the broker closes the socket. */
function raw(bytes: Buffer[], opts: { waitClose?: boolean } = {}): Promise<{ closed: boolean; received: Buffer }> {
  return new Promise((resolve) => {
    const s = net.connect(port(), '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (isClosed: boolean): void => {
      if (done) return;
      done = true;
      s.destroy();
      resolve({ closed: isClosed, received: Buffer.concat(chunks) });
    };
    s.on('data', (d) => chunks.push(d));
    s.on('close', () => finish(true));
    s.on('error', () => finish(true));
    s.on('connect', () => {
      for (const b of bytes) s.write(b);
    });
    // A socket the broker keeps open is reported as not closed (the test then fails on it).
    setTimeout(() => finish(false), opts.waitClose === false ? 500 : 5000);
  });
}

function connectPacket(c: DeviceCredentials, protocolVersion = 4): Buffer {
  return mqttPacket.generate({ cmd: 'connect', protocolId: protocolVersion === 3 ? 'MQIsdp' : 'MQTT', protocolVersion: protocolVersion as 4, clean: true, keepalive: 60, clientId: c.id, username: c.username, password: Buffer.from(c.password) });
}

async function goodSync(c: DeviceCredentials, events = 3): Promise<void> {
  const before = await eventCount(c.id);
  const d = new DeviceClient({ id: c.id, password: c.password, url: cloud.mqttUrl, storage: new MemoryStorage(), timeoutMs: 5000 });
  for (let i = 0; i < events; i++) d.enqueue('ok', { i }, { volatile: false });
  const r = await d.sync();
  assert.equal(r.acked, events);
  assert.equal(await eventCount(c.id), before + events);
}

test('connect: unknown device, wrong secret, revoked device, client id other than the user name', async () => {
  const stranger = deviceId();
  await assert.rejects(connectAs(stranger, stranger, 'whatever'), /Bad username or password|Not authorized/);
  await assert.rejects(connectAs(alice.id, alice.id, 'wrong-secret'), /Bad username or password|Not authorized/);
  await assert.rejects(connectAs(alice.id, alice.id, ''), /Bad username or password|Not authorized/);
  await assert.rejects(connectAs(alice.id, bob.id, bob.password), /Bad username or password|Not authorized/);
  await assert.rejects(connectAs('not-hex', 'not-hex', 'x'), /Bad username or password|Not authorized/);
  const carol = await cloud.issueDevice(deviceId());
  assert.equal(await cloud.revokeDevice(carol.id), true);
  await assert.rejects(connectAs(carol.id, carol.id, carol.password), /Bad username or password|Not authorized/);
  // Issuing again replaces the secret: the old one stops working.
  const dave = await cloud.issueDevice(deviceId());
  const dave2 = await cloud.issueDevice(dave.id);
  await assert.rejects(connectAs(dave.id, dave.id, dave.password), /Bad username or password|Not authorized/);
  const c = await connectAs(dave2.id, dave2.id, dave2.password);
  await c.endAsync();
  assert.ok(logLines.some((l) => l.includes(`refused connection: ${stranger}`)));
  await goodSync(alice);
});

test("publish: another device's topics, the cloud's own topics, retained messages: refused, connection closed", async () => {
  const bobEvents = await eventCount(bob.id);
  const batch = encodeBatch({ stream: 5, events: [{ seq: 1, type: 'forged', ts: 1, payload: {}, volatile: false, variable: false }] });
  for (const [t, retain] of [
    [topic(bob.id, 'u'), false],
    [topic(bob.id, 's'), false],
    [topic(alice.id, 'a'), false],
    [topic(alice.id, 'm'), false],
    ['b/#', false],
    ['elsewhere', false],
    [topic(alice.id, 'u'), true],
  ] as [string, boolean][]) {
    const c = await connectAs(alice.id, alice.id, alice.password);
    const gone = closed(c);
    c.publish(t, batch, { qos: 1, retain });
    await gone;
    c.end(true);
  }
  assert.equal(await eventCount(bob.id), bobEvents);
  assert.ok(logLines.some((l) => l.includes(`refused publish: ${alice.id} to '${topic(bob.id, 'u')}'`)));
  await goodSync(alice);
  await goodSync(bob);
});

test("subscribe: another device's topics or wildcards get SUBACK 0x80 and nothing arrives", async () => {
  const c = await connectAs(alice.id, alice.id, alice.password);
  const got: string[] = [];
  c.on('message', (t) => got.push(t));
  for (const t of [topic(bob.id, 'a'), topic(bob.id, 'm'), 'b/#', 'b/+/m', '#', topic(alice.id, 'u')]) {
    // SUBACK 0x80: mqtt.js turns it into a rejection.
    await assert.rejects(c.subscribeAsync(t, { qos: 1 }), /Subscribe error/, `subscription to ${t}`);
  }
  const [own] = await c.subscribeAsync(topic(alice.id, 'm'), { qos: 1 });
  assert.equal(own.qos, 1);
  await cloud.sendMessage(bob.id, 'secret', { for: 'bob' });
  await goodSync(bob);
  await c.endAsync();
  assert.ok(!got.some((t) => t.includes(bob.id)), 'nothing of bob reached alice');
});

test('malformed and oversized CBOR on the own upload topic: refused, nothing stored, connection closed', async () => {
  const before = await eventCount(alice.id);
  const bad: Buffer[] = [
    Buffer.from('ff', 'hex'),
    Buffer.from('a5001a2a7f', 'hex'), // truncated
    encodeCbor(new Map<number, unknown>([[0, 1], [1, 1], [2, 1], [3, ['t']], [4, [new Map<number, unknown>([[1, 0], [2, 0], [3, {}], [9, 1]])]]]) as never), // unknown key
    encodeCbor(new Map<number, unknown>([[0, 'one'], [1, 1], [2, 1], [3, ['t']], [4, [new Map<number, unknown>([[1, 0], [2, 0], [3, {}]])]]]) as never), // wrong type
    Buffer.from('a100c11a5f000000', 'hex'), // a tag
    encodeCbor(new Map<number, unknown>([[0, 1], [1, 1], [2, 1], [3, ['t']], [4, [new Map<number, unknown>([[1, 0], [2, 0], [3, 'x'.repeat(9000)]])]]]) as never), // payload > 8 KiB
    Buffer.concat([encodeBatch({ stream: 1, events: [{ seq: 1, type: 't', ts: 1, payload: 'x'.repeat(8000), volatile: false, variable: false }] }).subarray(0, 9000), Buffer.alloc(24_000, 0x61)]), // frame > 32 KiB
  ];
  for (const payload of bad) {
    const c = await connectAs(alice.id, alice.id, alice.password);
    const gone = closed(c);
    c.publish(topic(alice.id, 'u'), payload, { qos: 1 });
    await gone;
    c.end(true);
  }
  const c = await connectAs(alice.id, alice.id, alice.password);
  const gone = closed(c);
  c.publish(topic(alice.id, 's'), Buffer.from('a10178', 'hex'), { qos: 1 }); // {1: "x"}: unknown key
  await gone;
  c.end(true);
  assert.equal(await eventCount(alice.id), before);
  assert.ok(logLines.some((l) => l.startsWith(`refused ${alice.id}: batch`)));
  await goodSync(alice);
});

test('raw MQTT: oversized packets, broken lengths, garbage, other protocol versions: connection closed', async () => {
  const before = await eventCount(alice.id);
  const conn = connectPacket(alice);
  const bigHeader = (n: number): Buffer => {
    const len: number[] = [];
    let x = n;
    do {
      let b = x % 128;
      x = Math.floor(x / 128);
      if (x > 0) b |= 0x80;
      len.push(b);
    } while (x > 0);
    return Buffer.from([0x32, ...len]);
  };
  const cases: [string, Buffer[]][] = [
    ['a PUBLISH announcing 10 MB after CONNECT', [conn, bigHeader(10_000_000), Buffer.alloc(1000, 0x41)]],
    ['a PUBLISH just over the limit', [conn, bigHeader(LIMITS.mqttPacketBytes + 1), Buffer.alloc(LIMITS.mqttPacketBytes + 1, 0)]],
    ['a PUBLISH announcing 200 MB before CONNECT', [bigHeader(200_000_000)]],
    ['a remaining length of five bytes', [conn, Buffer.from([0x32, 0xff, 0xff, 0xff, 0xff, 0x7f])]],
    ['garbage instead of CONNECT', [Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')]],
    ['a PUBLISH before CONNECT', [mqttPacket.generate({ cmd: 'publish', topic: topic(alice.id, 'u'), payload: Buffer.from('a0', 'hex'), qos: 0, retain: false, dup: false })]],
    ['MQTT 3.1 (protocol level 3)', [connectPacket(alice, 3)]],
    ['MQTT 5', [mqttPacket.generate({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: 5, clean: true, keepalive: 60, clientId: alice.id, username: alice.username, password: Buffer.from(alice.password) })]],
    ['a second CONNECT', [conn, conn]],
  ];
  for (const [name, bytes] of cases) {
    const r = await raw(bytes);
    assert.equal(r.closed, true, name);
  }
  // The size check happens before the body is buffered: a 10 MB announcement is refused
  // without sending 10 MB.
  assert.ok(logLines.some((l) => l.includes('MQTT packet of 10000000 bytes')));
  assert.equal(await eventCount(alice.id), before);
  await goodSync(alice);
});

test('HTTP: every API route refuses a missing or wrong token with 401 and a JSON error', async () => {
  const id = alice.id;
  const routes: [string, string, unknown?][] = [
    ['GET', '/api/devices'],
    ['POST', '/api/devices', { id: deviceId() }],
    ['GET', `/api/devices/${id}`],
    ['DELETE', `/api/devices/${id}`],
    ['GET', `/api/devices/${id}/events`],
    ['GET', `/api/devices/${id}/variables`],
    ['GET', `/api/devices/${id}/messages`],
    ['POST', `/api/devices/${id}/messages`, { type: 'x', payload: {} }],
    ['GET', '/api/nothing-here'],
  ];
  const devicesBefore = (await cloud.store.listDevices()).length;
  for (const [method, route, body] of routes) {
    for (const auth of [undefined, 'Bearer wrong', `Basic ${cloud.token}`, `Bearer ${cloud.token}x`, 'Bearer ']) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (auth !== undefined) headers.authorization = auth;
      const res = await fetch(cloud.httpUrl + route, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      assert.equal(res.status, 401, `${method} ${route} with ${auth ?? 'no token'}`);
      const json = (await res.json()) as { error?: unknown };
      assert.equal(typeof json.error, 'string');
    }
  }
  assert.equal((await cloud.store.listDevices()).length, devicesBefore);
  assert.equal(await cloud.store.credential(alice.id) !== undefined, true);
  assert.equal((await cloud.store.messages(alice.id)).length, 0);
});

test('HTTP: bad requests get clear errors and change nothing', async () => {
  const h = { authorization: `Bearer ${cloud.token}`, 'content-type': 'application/json' };
  const post = (route: string, body: string, headers: Record<string, string> = h) => fetch(cloud.httpUrl + route, { method: 'POST', headers, body });
  const msgs = `/api/devices/${alice.id}/messages`;
  const expect = async (res: Response, status: number, re: RegExp): Promise<void> => {
    const json = (await res.json()) as { error: string };
    assert.equal(res.status, status, json.error);
    assert.match(json.error, re);
  };
  await expect(await post(msgs, '{"type": "x", '), 400, /not valid JSON/);
  await expect(await post(msgs, JSON.stringify({ type: '', payload: {} })), 400, /1 to 30/);
  await expect(await post(msgs, JSON.stringify({ type: 'x'.repeat(31), payload: {} })), 400, /1 to 30/);
  await expect(await post(msgs, JSON.stringify({ type: 'big', payload: { s: 'x'.repeat(9000) } })), 400, /more than 8192/);
  await expect(await post(msgs, 'x'.repeat(70_000)), 413, /larger than/);
  await expect(await post(msgs, '{}', { authorization: h.authorization, 'content-type': 'text/plain' }), 415, /JSON/);
  await expect(await post(`/api/devices/${deviceId()}/messages`, JSON.stringify({ type: 'x', payload: {} })), 404, /no device/);
  await expect(await post('/api/devices/NOT-HEX/messages', JSON.stringify({ type: 'x', payload: {} })), 400, /not a device public id/);
  await expect(await post('/api/devices', JSON.stringify({ id: 'zz' })), 400, /not a device public id/);
  await expect(await fetch(`${cloud.httpUrl}/api/devices/${alice.id}/events?limit=0`, { headers: h }), 400, /limit/);
  await expect(await fetch(`${cloud.httpUrl}/api/devices/${alice.id}/events?before=zz`, { headers: h }), 400, /cursor/);
  await expect(await fetch(`${cloud.httpUrl}/api/devices`, { method: 'PUT', headers: h }), 405, /not allowed/);
  assert.equal((await cloud.store.messages(alice.id)).length, 0);
  await goodSync(alice);
});

test('HTTP: the routes work with the token (issue, list, events, variables, messages, revoke)', async () => {
  const h = { authorization: `Bearer ${cloud.token}`, 'content-type': 'application/json' };
  const id = deviceId();
  const issued = await fetch(`${cloud.httpUrl}/api/devices`, { method: 'POST', headers: h, body: JSON.stringify({ id: id.toUpperCase() }) });
  assert.equal(issued.status, 201);
  const cred = (await issued.json()) as DeviceCredentials & { mqtt: string };
  assert.equal(cred.id, id);
  assert.equal(cred.mqtt, cloud.mqttUrl);
  const d = new DeviceClient({ id, password: cred.password, url: cloud.mqttUrl, storage: new MemoryStorage() });
  for (let i = 0; i < 7; i++) d.enqueue(i % 2 ? 'odd' : 'even', { i }, { volatile: false });
  d.setVar('mode', { level: 2 });
  const got: unknown[] = [];
  d.onReceive((m) => got.push(m.payload));
  const sent = await fetch(`${cloud.httpUrl}/api/devices/${id}/messages`, { method: 'POST', headers: h, body: JSON.stringify({ type: 'cfg', payload: { rate: 3 } }) });
  assert.equal(sent.status, 201);
  assert.equal(((await sent.json()) as { id: number }).id, 1);
  await d.sync();
  assert.deepEqual(got, [{ rate: 3 }]);
  const list = (await (await fetch(`${cloud.httpUrl}/api/devices`, { headers: h })).json()) as { devices: { id: string; events: number }[] };
  assert.equal(list.devices.find((x) => x.id === id)?.events, 8);
  const page = (await (await fetch(`${cloud.httpUrl}/api/devices/${id}/events?type=odd&limit=2`, { headers: h })).json()) as { events: { payload: { i: number } }[]; next: string };
  assert.deepEqual(page.events.map((e) => e.payload.i), [5, 3]);
  const page2 = (await (await fetch(`${cloud.httpUrl}/api/devices/${id}/events?type=odd&limit=2&before=${page.next}`, { headers: h })).json()) as { events: { payload: { i: number } }[]; next?: string };
  assert.deepEqual(page2.events.map((e) => e.payload.i), [1]);
  assert.equal(page2.next, undefined);
  const vars = (await (await fetch(`${cloud.httpUrl}/api/devices/${id}/variables`, { headers: h })).json()) as { variables: { name: string; value: unknown }[] };
  assert.deepEqual(vars.variables.map((v) => [v.name, v.value]), [['mode', { level: 2 }]]);
  const messages = (await (await fetch(`${cloud.httpUrl}/api/devices/${id}/messages`, { headers: h })).json()) as { messages: { delivered?: number }[] };
  assert.ok(messages.messages[0].delivered !== undefined);
  const revoked = await fetch(`${cloud.httpUrl}/api/devices/${id}`, { method: 'DELETE', headers: h });
  assert.equal(revoked.status, 200);
  await assert.rejects(d.sync(), /Bad username or password|Not authorized/);
});

test('the service kept running through all of it', async () => {
  assert.ok(cloud.core.counters.refused > 10);
  await waitFor('a good sync', async () => {
    await goodSync(bob, 5);
    return true;
  });
});
