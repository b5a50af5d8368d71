// The cloud's side of deployments (docs/cloud-protocol.md §3.8), frame by frame against the core
// with a SQLite store, and through the HTTP API: the offer goes in the last message frame only to
// a device that names the app it runs; chunks are served from the offset asked; a fetch past the
// end is refused; a report of a refusal stops the offers; a device running the package counts as
// installed; a newer deployment withdraws the older package; a deployment to an unknown or revoked
// device, or of something that is not a package, is refused with the reason.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHash } from 'crypto';
import { CloudCore } from '../src/cloud/core';
import { deploy } from '../src/cloud/deployments';
import { decodeChunk, decodeMessageFrame, encodeFetch, encodeLastMessage, encodeSyncStart, ProtocolError, topic } from '../src/cloud/protocol';
import { startCloud } from '../src/cloud';
import type { Cloud } from '../src/cloud';
import { openStore } from '../src/cloud/store';
import type { CloudStore } from '../src/cloud/store';
import { deviceId } from '../src/cloud/testkit';

/** A package header good enough for the cloud (the device checks the rest): API 0.2.6. */
function pkg(size: number, fill: number, signed = false): Buffer {
  const b = Buffer.alloc(size, fill);
  b.write('BAPP', 0, 'latin1');
  b.writeUInt32LE(0x000206, 8);
  b.writeUInt32LE(signed ? 3 : 2, 32);
  return b;
}
const sha = (b: Buffer) => createHash('sha256').update(b).digest();

let store: CloudStore;
let core: CloudCore;
const sent: { topic: string; payload: Buffer }[] = [];

before(async () => {
  store = await openStore(':memory:');
  core = new CloudCore(store, () => undefined);
  core.attach(async (t, p) => {
    sent.push({ topic: t, payload: p });
  });
});
after(async () => {
  await store.close();
});

async function device(): Promise<string> {
  const id = deviceId();
  await store.putCredential(id, 'h', 1);
  return id;
}

/** The last message frame answering a sync start. */
async function start(id: string, s: Parameters<typeof encodeSyncStart>[0]) {
  sent.length = 0;
  await core.handle(id, 's', encodeSyncStart(s));
  const frames = sent.filter((x) => x.topic === topic(id, 'm'));
  return decodeMessageFrame(frames[frames.length - 1].payload);
}

async function fetchChunk(id: string, hash: Buffer, offset: number, length: number) {
  sent.length = 0;
  await core.handle(id, 'g', encodeFetch({ hash, offset, length }));
  assert.equal(sent.length, 1);
  assert.equal(sent[0].topic, topic(id, 'c'));
  return decodeChunk(sent[0].payload);
}

test('offered to a device that names its app, served in chunks, reported, then no more', async () => {
  const id = await device();
  const a = pkg(100, 1);
  const b = pkg(10_000, 2, true);
  const dep = (await deploy(store, b, 'b.bapp', { devices: [id] }, 5)).id;

  // A device that takes no deployments (no key 1) gets no offer.
  sent.length = 0;
  await core.handle(id, 's', encodeLastMessage(0));
  assert.equal(decodeMessageFrame(sent[0].payload).offer, undefined);

  const f = await start(id, { lastId: 0, app: sha(a) });
  assert.deepEqual(f.offer, { hash: sha(b), size: 10_000, api: 0x000206, signed: true });
  const c1 = await fetchChunk(id, sha(b), 0, 4096);
  assert.deepEqual(c1, { offset: 0, data: b.subarray(0, 4096) });
  const last = await fetchChunk(id, sha(b), 8192, 4096);
  assert.deepEqual(last.data, b.subarray(8192));
  let d = await store.deployments.deployment(dep);
  assert.deepEqual([d?.devices[0].state, d?.devices[0].fetched], ['downloading', 10_000]);

  // Past the end: refused (a device that asks so is broken or hostile).
  await assert.rejects(core.handle(id, 'g', encodeFetch({ hash: sha(b), offset: 10_000, length: 10 })), (e: Error) => e instanceof ProtocolError && /past the end/.test(e.message));

  // The device runs it now: installed, and no offer.
  const g = await start(id, { lastId: 0, app: sha(b) });
  assert.equal(g.offer, undefined);
  d = await store.deployments.deployment(dep);
  assert.equal(d?.devices[0].state, 'installed');
});

test('a refusal reported stops the offers; a newer deployment withdraws the older package', async () => {
  const id = await device();
  const a = pkg(100, 1);
  const b = pkg(3000, 3);
  const dep = (await deploy(store, b, 'b.bapp', { devices: [id] }, 5)).id;
  assert.ok((await start(id, { lastId: 0, app: sha(a) })).offer);
  const f = await start(id, { lastId: 0, app: sha(a), report: { hash: sha(b), outcome: 'refused', reason: 'package refused: package was built for JerryScript' } });
  assert.equal(f.offer, undefined);
  const d = await store.deployments.deployment(dep);
  assert.deepEqual([d?.devices[0].state, d?.devices[0].reason], ['refused', 'package refused: package was built for JerryScript']);
  // A chunk of a refused package is not served.
  assert.deepEqual(await fetchChunk(id, sha(b), 0, 100), { offset: 0 });

  const c = pkg(2000, 4);
  await deploy(store, c, 'c.bapp', { devices: [id] }, 6);
  assert.deepEqual((await start(id, { lastId: 0, app: sha(a) })).offer?.hash, sha(c));
  // The older package, fetched by a device that has not heard yet: withdrawn.
  assert.deepEqual(await fetchChunk(id, sha(b), 0, 100), { offset: 0 });
});

test('deployments refused: not a package, an unknown device, a revoked device', async () => {
  const id = await device();
  await assert.rejects(deploy(store, Buffer.from('hello'), 'x.bapp', { devices: [id] }, 1), /not an app package/);
  await assert.rejects(deploy(store, pkg(100, 1), 'x.bapp', { devices: [deviceId()] }, 1), /not known to the cloud/);
  await store.revokeCredential(id);
  await assert.rejects(deploy(store, pkg(100, 1), 'x.bapp', { devices: [id] }, 1), /revoked: it cannot sync/);
  await assert.rejects(deploy(store, pkg(100, 1), 'x.bapp', { devices: ['xyz'] }, 1), /not a device public id/);
});

test('HTTP API: POST and GET /api/deployments', async () => {
  const cloud: Cloud = await startCloud({ port: 0, httpPort: 0, db: ':memory:', log: () => {} });
  try {
    const id = deviceId();
    await cloud.issueDevice(id);
    const headers = { authorization: `Bearer ${cloud.token}`, 'content-type': 'application/json' };
    const b = pkg(500, 5);
    const post = await fetch(`${cloud.httpUrl}/api/deployments`, { method: 'POST', headers, body: JSON.stringify({ package: b.toString('base64'), name: 'b.bapp', devices: [id] }) });
    assert.equal(post.status, 201, await post.clone().text());
    const created = (await post.json()) as { id: number; package: { hash: string; apiVersion: string }; counts: Record<string, number> };
    assert.equal(created.package.hash, sha(b).toString('hex'));
    assert.equal(created.package.apiVersion, '0.2.6');
    assert.equal(created.counts.pending, 1);
    const list = (await (await fetch(`${cloud.httpUrl}/api/deployments`, { headers })).json()) as { deployments: { id: number }[] };
    assert.deepEqual(list.deployments.map((d) => d.id), [created.id]);
    const bad = await fetch(`${cloud.httpUrl}/api/deployments`, { method: 'POST', headers, body: JSON.stringify({ package: b.toString('base64'), devices: [deviceId()] }) });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: string }).error, /not known to the cloud/);
    assert.equal((await fetch(`${cloud.httpUrl}/api/deployments/99`, { headers })).status, 404);
  } finally {
    await cloud.stop();
  }
});

test('a staged rollout: the next stage when the first ran healthy; a refusal stops it and gives the app before back', async () => {
  let now = 10_000;
  const staged = new CloudCore(store, () => undefined, () => now);
  const out: { topic: string; payload: Buffer }[] = [];
  staged.attach(async (t, p) => {
    out.push({ topic: t, payload: p });
  });
  const offerTo = async (id: string, app: Buffer, report?: Parameters<typeof encodeSyncStart>[0]['report']) => {
    out.length = 0;
    await staged.handle(id, 's', encodeSyncStart({ lastId: 0, app, report }));
    return decodeMessageFrame(out[out.length - 1].payload).offer;
  };
  const ids = [await device(), await device(), await device(), await device(), await device()];
  const a = pkg(300, 6);
  const b = pkg(400, 7);
  // A was deployed from this cloud before: it holds A, so it can give it back.
  await deploy(store, a, 'a.bapp', { devices: ids }, now);
  const dep = (await deploy(store, b, 'b.bapp', { devices: ids }, now, { stages: [20, 100], minHealthy: 1000 })).id;
  let d = await store.deployments.deployment(dep);
  assert.deepEqual(d?.devices.map((x) => x.stage).sort(), [0, 1, 1, 1, 1]);
  const first = d?.devices.find((x) => x.stage === 0)?.deviceId as string;
  const later = ids.filter((x) => x !== first);

  // Stage 1 (20 %: one device) is offered B; the others are not, yet.
  assert.deepEqual((await offerTo(first, sha(a)))?.hash, sha(b));
  assert.equal(await offerTo(later[0], sha(a)), undefined);
  // The first device runs B; not long enough for the next stage.
  assert.equal(await offerTo(first, sha(b)), undefined);
  now += 500;
  assert.equal(await offerTo(later[0], sha(a)), undefined);
  // Healthy for the time asked: the next stage is offered.
  now += 600;
  assert.deepEqual((await offerTo(later[0], sha(a)))?.hash, sha(b));
  d = await store.deployments.deployment(dep);
  assert.deepEqual([d?.stage, d?.status], [1, 'running']);

  // A device of stage 2 refuses B: the rollout stops, nobody else is offered B, and the device
  // that had installed it gets A back.
  assert.equal(await offerTo(later[0], sha(a), { hash: sha(b), outcome: 'refused', reason: 'package refused: out of memory' }), undefined);
  d = await store.deployments.deployment(dep);
  assert.equal(d?.status, 'stopped');
  assert.match(d?.stopped ?? '', /refused: package refused: out of memory/);
  assert.equal(await offerTo(later[1], sha(a)), undefined);
  assert.deepEqual((await offerTo(first, sha(b)))?.hash, sha(a));
});

test('an error storm on a device that runs the new app stops the rollout', async () => {
  const ids = [await device(), await device()];
  const a = pkg(300, 8);
  const b = pkg(400, 9);
  await deploy(store, a, 'a.bapp', { devices: ids }, 1);
  const dep = (await deploy(store, b, 'b.bapp', { devices: ids }, 1, { stages: [50, 100], minHealthy: 0 })).id;
  const d0 = await store.deployments.deployment(dep);
  const first = d0?.devices.find((x) => x.stage === 0)?.deviceId as string;
  assert.deepEqual((await start(first, { lastId: 0, app: sha(a) })).offer?.hash, sha(b));
  // A few errors are not a storm.
  await start(first, { lastId: 0, app: sha(b), errors: 3 });
  assert.equal((await store.deployments.deployment(dep))?.status, 'running');
  await start(first, { lastId: 0, app: sha(b), errors: 10 });
  const d = await store.deployments.deployment(dep);
  assert.equal(d?.status, 'stopped');
  assert.match(d?.stopped ?? '', /error storm: .* reported 10 errors/);
  // The device that ran it gets A back.
  assert.deepEqual((await start(first, { lastId: 0, app: sha(b) })).offer?.hash, sha(a));
});

test("the load generator's device takes a deployment: fetched in one sync, reported installed at the next", async () => {
  const { LoadDevice, startSync } = await import('../src/cloud/loadDevice');
  const cloud: Cloud = await startCloud({ port: 0, httpPort: 0, db: ':memory:', log: () => {} });
  try {
    const id = deviceId();
    const { password } = await cloud.issueDevice(id);
    const dev = new LoadDevice(id, password);
    const a = pkg(200, 10);
    dev.deploy = { app: sha(a), chunks: [], staged: 0 };
    const b = pkg(9000, 11);
    const dep = (await deploy(cloud.store, b, 'b.bapp', { devices: [id] }, Date.now())).id;
    const u = new URL(cloud.mqttUrl);
    const target = { host: u.hostname, port: Number(u.port), tls: false };
    const settings = { batch: 10, window: 4, timeoutMs: 10_000, holdMs: 0, payloadBytes: 50, type: 't' };
    const obs = { opened: () => undefined, closed: () => undefined, connackd: () => undefined, acked: () => undefined };
    dev.generate(3, Date.now());
    const chunks = cloud.core.counters.chunks;
    assert.deepEqual(await startSync(dev, target, settings, obs).outcome, { ok: true });
    assert.equal(cloud.core.counters.chunks - chunks, 3);
    assert.deepEqual(dev.deploy.app, sha(b));
    assert.equal((await cloud.store.deployments.deployment(dep))?.devices[0].state, 'downloading');
    assert.deepEqual(await startSync(dev, target, settings, obs).outcome, { ok: true });
    assert.equal((await cloud.store.deployments.deployment(dep))?.devices[0].state, 'installed');
    assert.equal(dev.deploy.report, undefined);
    assert.equal(dev.pending, 0);
  } finally {
    await cloud.stop();
  }
});
