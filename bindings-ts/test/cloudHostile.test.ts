// Regression tests for issue 35, "the cloud under hostile input": one test per finding. Every
// request is answered (400, never a dead process or a 500), revocation and a new secret end a
// live session at once, the API refuses a message the device could not take and can withdraw
// a pending one, the broker holds devices to the protocol's QoS, session, keep-alive and will
// rules, CBOR maps with a repeated key are refused, and every answer carries the security
// headers. Servers listen on loopback only.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as mqtt from 'mqtt';
import * as path from 'path';
import { CborError, decodeCbor, encodeCbor } from '../src/cloud/cbor';
import { DeviceClient, MemoryStorage } from '../src/cloud/deviceClient';
import { startHttp } from '../src/cloud/http';
import type { ApiActions } from '../src/cloud/httpRoutes';
import { decodeBatch, encodeBatch, LIMITS, ProtocolError, topic } from '../src/cloud/protocol';
import { RawAnswer, rawHttp, requestBytes } from '../src/cloud/rawHttp';
import { Cloud, DeviceCredentials, startCloud } from '../src/cloud/service';
import type { CloudStore } from '../src/cloud/store';
import { deviceId, tmpDir } from '../src/cloud/testkit';

const dir = tmpDir('beacon-hostile-test-');
let cloud: Cloud;
let alice: DeviceCredentials;
const logLines: string[] = [];

before(async () => {
  cloud = await startCloud({ db: path.join(dir, 'cloud.db'), port: 0, httpPort: 0, log: (l) => logLines.push(l) });
  alice = await cloud.issueDevice(deviceId());
});
after(async () => {
  await cloud?.stop();
});

const httpPort = (): number => Number(new URL(cloud.httpUrl).port);
const auth = (): Record<string, string> => ({ authorization: `Bearer ${cloud.token}` });

async function ask(method: string, target: string, headers: Record<string, string> = auth(), body?: string): Promise<RawAnswer> {
  const r = await rawHttp(httpPort(), requestBytes(method, target, headers, body));
  assert.ok(r.ok, `${method} ${target}: ${r.ok ? '' : r.why}`);
  return r.answer;
}

function assertSecurityHeaders(a: RawAnswer, what: string): void {
  assert.match(a.headers['content-security-policy'] ?? '', /frame-ancestors 'none'/, what);
  assert.equal(a.headers['x-frame-options'], 'DENY', what);
  assert.equal(a.headers['x-content-type-options'], 'nosniff', what);
}

async function expectError(a: RawAnswer, status: number, re: RegExp, what: string): Promise<void> {
  assert.equal(a.status, status, `${what}: ${a.body}`);
  const json = JSON.parse(a.body) as { error: string };
  assert.match(json.error, re, what);
  assert.doesNotMatch(a.body, /\n\s+at /, `${what}: no stack trace`);
  assertSecurityHeaders(a, what);
}

function connect(c: DeviceCredentials, extra: mqtt.IClientOptions = {}): Promise<mqtt.MqttClient> {
  return mqtt.connectAsync(cloud.mqttUrl, { clientId: c.id, username: c.username, password: c.password, protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000, ...extra });
}

function closed(client: mqtt.MqttClient): Promise<void> {
  return new Promise((resolve) => {
    if (!client.connected) return resolve();
    client.once('close', () => resolve());
  });
}

async function events(id: string): Promise<number> {
  return (await cloud.store.device(id))?.events ?? 0;
}

async function goodSync(c: DeviceCredentials): Promise<void> {
  const d = new DeviceClient({ id: c.id, password: c.password, url: cloud.mqttUrl, storage: new MemoryStorage(), timeoutMs: 5000 });
  d.enqueue('ok', { fine: true }, { volatile: false });
  const before = await events(c.id);
  assert.equal((await d.sync()).acked, 1);
  assert.equal(await events(c.id), before + 1);
}

/** A value nested `depth` arrays deep, built without recursion. */
function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

test('1, 4: request targets that made the URL parser throw get 400, and the service goes on', async () => {
  for (const target of ['//[', '//a:99999/', '//%', 'http://[/', '/api/devices/%E0%A4%A', `/api/devices/${alice.id}%`, '/%ZZ', '*', 'x']) {
    await expectError(await ask('GET', target), 400, /request target|percent-encoding|URL|not a device|malformed HTTP request/, `GET ${target}`);
  }
  // Valid targets are still served: an absolute URL (HTTP/1.1 absolute form) and a path.
  assert.equal((await ask('GET', `http://127.0.0.1:${httpPort()}/api/devices`)).status, 200);
  assert.equal((await ask('GET', `/api/devices/${alice.id}`)).status, 200);
  assert.equal((await ask('GET', '/')).status, 200);
  await goodSync(alice);
});

test("3, 4: message payloads are checked against the device's limit table; 5,000 deep is a 400, not a stack overflow", async () => {
  const msgs = `/api/devices/${alice.id}/messages`;
  const h = { ...auth(), 'content-type': 'application/json' };
  const post = (payload: unknown): Promise<RawAnswer> => ask('POST', msgs, h, JSON.stringify({ type: 'cfg', payload }));
  await expectError(await post(nested(LIMITS.payloadDepth + 1)), 400, /nested deeper than 29/, '30 deep');
  // Built as text: JSON.stringify itself would recurse 5,000 deep.
  const deep = `{"type":"cfg","payload":${'['.repeat(5000)}${']'.repeat(5000)}}`;
  await expectError(await ask('POST', msgs, h, deep), 400, /nested deeper than 29/, '5,000 deep');
  assert.equal((await cloud.store.messages(alice.id)).length, 0, 'nothing queued from a refused request');
  // The deepest payload the device takes is accepted and reaches it.
  const ok = await post(nested(LIMITS.payloadDepth));
  assert.equal(ok.status, 201, ok.body);
  const d = new DeviceClient({ id: alice.id, password: alice.password, url: cloud.mqttUrl, storage: new MemoryStorage(), timeoutMs: 5000 });
  const got: unknown[] = [];
  d.onReceive((m) => got.push(m.payload));
  await d.sync();
  assert.deepEqual(got, [nested(LIMITS.payloadDepth)]);
});

test('3: a message stored before the check (too deep for the device) is withdrawn at the sync, not sent for ever', async () => {
  const bob = await cloud.issueDevice(deviceId());
  const poison = await cloud.store.queueMessage(bob.id, 'cfg', nested(LIMITS.payloadDepth + 1) as never, Date.now());
  await cloud.store.queueMessage(bob.id, 'cfg', { after: 1 }, Date.now());
  const d = new DeviceClient({ id: bob.id, password: bob.password, url: cloud.mqttUrl, storage: new MemoryStorage(), timeoutMs: 5000 });
  const got: unknown[] = [];
  d.onReceive((m) => got.push(m.payload));
  d.enqueue('up', {}, { volatile: false });
  assert.equal((await d.sync()).acked, 1);
  assert.deepEqual(got, [{ after: 1 }]);
  assert.ok(!(await cloud.store.messages(bob.id)).some((m) => m.id === poison?.id), 'withdrawn');
  assert.ok(logLines.some((l) => l.includes(`message ${poison?.id} for ${bob.id} withdrawn`)));
});

test('3: DELETE /api/devices/<id>/messages/<mid> withdraws a pending message; ids are never given twice', async () => {
  const carol = await cloud.issueDevice(deviceId());
  const base = `/api/devices/${carol.id}/messages`;
  const h = { ...auth(), 'content-type': 'application/json' };
  const first = JSON.parse((await ask('POST', base, h, JSON.stringify({ type: 'a', payload: 1 }))).body) as { id: number };
  const second = JSON.parse((await ask('POST', base, h, JSON.stringify({ type: 'b', payload: 2 }))).body) as { id: number };
  const w = await ask('DELETE', `${base}/${second.id}`);
  assert.equal(w.status, 200, w.body);
  assert.deepEqual(JSON.parse(w.body), { id: second.id, withdrawn: true });
  assertSecurityHeaders(w, 'withdraw');
  await expectError(await ask('DELETE', `${base}/${second.id}`), 404, /no message/, 'twice');
  for (const bad of ['1e3', '0x10', '-1', '0', '1.0', '%20'+'1', 'abc']) await expectError(await ask('DELETE', `${base}/${bad}`), 400, /not a message id/, `mid ${bad}`);
  await expectError(await ask('PUT', `${base}/${first.id}`), 405, /not allowed/, 'PUT');
  const third = JSON.parse((await ask('POST', base, h, JSON.stringify({ type: 'c', payload: 3 }))).body) as { id: number };
  assert.equal(third.id, second.id + 1, 'a withdrawn id is not given again');
  const d = new DeviceClient({ id: carol.id, password: carol.password, url: cloud.mqttUrl, storage: new MemoryStorage(), timeoutMs: 5000 });
  const got: unknown[] = [];
  d.onReceive((m) => got.push(m.payload));
  await d.sync();
  assert.deepEqual(got, [1, 3]);
  await expectError(await ask('DELETE', `${base}/${first.id}`), 409, /already delivered/, 'delivered');
});

test('2: revoking a device ends its live session at once; a new secret ends the old one', async () => {
  const dave = await cloud.issueDevice(deviceId());
  const c = await connect(dave);
  await c.subscribeAsync(topic(dave.id, 'a'), { qos: 1 });
  const gone = closed(c);
  const r = await ask('DELETE', `/api/devices/${dave.id}`);
  assert.deepEqual(JSON.parse(r.body), { id: dave.id, revoked: true });
  await gone;
  c.end(true);
  await assert.rejects(connect(dave), /Bad username or password|Not authorized/);
  assert.equal(await events(dave.id), 0);

  const erin = await cloud.issueDevice(deviceId());
  const old = await connect(erin);
  const oldGone = closed(old);
  const renewed = await cloud.issueDevice(erin.id);
  await oldGone;
  old.end(true);
  await assert.rejects(connect(erin), /Bad username or password|Not authorized/);
  await goodSync(renewed);
});

test('6: the broker refuses QoS 0 and QoS 2 publishes, unclean sessions, keep-alive out of bounds and wills', async () => {
  const before = await events(alice.id);
  const batch = encodeBatch({ stream: 77, events: [{ seq: 1, type: 't', ts: 1, payload: {}, volatile: false, variable: false }] });
  for (const qos of [0, 2] as const) {
    const c = await connect(alice);
    const gone = closed(c);
    c.publish(topic(alice.id, 'u'), batch, { qos });
    await gone;
    c.end(true);
  }
  assert.ok(logLines.some((l) => l.includes('QoS 0 on')));
  const refusals: [string, mqtt.IClientOptions][] = [
    ['clean session 0', { clean: false }],
    ['keep-alive 0', { keepalive: 0 }],
    ['keep-alive 9', { keepalive: LIMITS.keepAliveMin - 1 }],
    ['keep-alive 1201', { keepalive: LIMITS.keepAliveMax + 1 }],
    ['a will on the upload topic', { will: { topic: topic(alice.id, 'u'), payload: batch, qos: 1, retain: false } }],
    ['a will elsewhere', { will: { topic: 'w', payload: Buffer.from('x'), qos: 0, retain: false } }],
  ];
  for (const [what, opts] of refusals) await assert.rejects(connect(alice, opts), /Not authorized/, what);
  assert.equal(await events(alice.id), before, 'nothing stored');
  for (const keepalive of [LIMITS.keepAliveMin, 60, LIMITS.keepAliveMax]) {
    const c = await connect(alice, { keepalive });
    await c.endAsync();
  }
  await goodSync(alice);
});

test('6: CBOR maps with a repeated key are refused (payload keys and protocol keys), also written two ways', async () => {
  const dup = (hex: string): void => assert.throws(() => decodeCbor(Buffer.from(hex, 'hex')), (e: Error) => e instanceof CborError && /duplicate map key/.test(e.message), hex);
  dup('a2616101616102'); // {"a": 1, "a": 2}
  dup('a200010002'); // {0: 1, 0: 2}
  dup('a20001180002'); // {0: 1, 0 (as 18 00): 2}
  dup('a2616101780161 02'.replace(/ /g, '')); // {"a": 1, "a" (long length): 2}
  assert.deepEqual(decodeCbor(Buffer.from('a2616101616202', 'hex')), new Map([['a', 1], ['b', 2]]));
  const good = encodeBatch({ stream: 9, events: [{ seq: 1, type: 't', ts: 1, payload: { a: 1, b: 2 }, volatile: false, variable: false }] });
  const bad = Buffer.from(good.toString('hex').replace('a2616101616202', 'a2616101616102'), 'hex');
  assert.notDeepEqual(bad, good);
  assert.throws(() => decodeBatch(bad), ProtocolError);
  const before = await events(alice.id);
  const c = await connect(alice);
  const gone = closed(c);
  c.publish(topic(alice.id, 'u'), bad, { qos: 1 });
  await gone;
  c.end(true);
  assert.equal(await events(alice.id), before);
  assert.equal(encodeCbor(new Map([['a', 1]])).toString('hex'), 'a1616101', 'encoding unchanged');
});

test('6: limit accepts plain decimal integers only', async () => {
  const ev = `/api/devices/${alice.id}/events`;
  for (const bad of ['1e3', '0x10', '%205', '5.0', '-1', '', '+5', '0', '1001', '1_0']) {
    await expectError(await ask('GET', `${ev}?limit=${bad}`), 400, /limit/, `limit=${bad}`);
  }
  for (const good of ['1', '50', '050', '1000']) assert.equal((await ask('GET', `${ev}?limit=${good}`)).status, 200, `limit=${good}`);
});

test('5: every answer carries the security headers: API, page, errors, what the HTTP parser refuses', async () => {
  const answers: [string, RawAnswer][] = [
    ['api 200', await ask('GET', '/api/devices')],
    ['api 401', await ask('GET', '/api/devices', {})],
    ['api 404', await ask('GET', '/api/nothing')],
    ['page', await ask('GET', '/', {})],
    ['script', await ask('GET', '/app.js', {})],
    ['no page', await ask('GET', '/nothing', {})],
    ['HEAD page', await ask('HEAD', '/', {})],
  ];
  for (const [what, a] of answers) assertSecurityHeaders(a, what);
  assert.match(answers[3][1].headers['content-security-policy'], /script-src 'self'/);
  const broken = await rawHttp(httpPort(), 'GET / HTTP/1.1\r\nbad header line\r\n\r\n');
  assert.ok(broken.ok, broken.ok ? '' : broken.why);
  await expectError(broken.answer, 400, /malformed HTTP request/, 'parser error');
});

test('1: a handler that throws gets a 500 without its stack, logged once; the server goes on', async () => {
  const lines: string[] = [];
  const failing = new Proxy({} as CloudStore, {
    get: () => () => Promise.reject(new Error('the disk is on fire')),
  });
  const api: ApiActions = {
    store: failing,
    token: 't',
    issueDevice: () => Promise.reject(new Error('no')),
    revokeDevice: () => Promise.reject(new Error('no')),
    sendMessage: () => Promise.reject(new Error('no')),
    mqttUrl: () => 'mqtt://127.0.0.1:1',
    health: () => Promise.reject(new Error('the disk is on fire')),
    log: (l) => lines.push(l),
  };
  const server = await startHttp(api, { host: '127.0.0.1', port: 0 });
  try {
    for (let i = 0; i < 2; i++) {
      const r = await rawHttp(server.port, requestBytes('GET', '/api/devices', { authorization: 'Bearer t' }));
      assert.ok(r.ok);
      await expectError(r.answer, 500, /^internal error$/, 'failing store');
      assert.doesNotMatch(r.answer.body, /disk is on fire/);
    }
    assert.equal(lines.filter((l) => l.includes('the disk is on fire')).length, 2, 'one log entry per failed request');
  } finally {
    await server.close();
  }
});
