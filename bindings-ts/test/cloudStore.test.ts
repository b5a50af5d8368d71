// The store interface, one suite run against both implementations: SQLite (a temporary file)
// and PostgreSQL (a server of its own, started here).
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { hashSecret, verifySecret } from '../src/cloud/credentials';
import type { WireEvent } from '../src/cloud/protocol';
import { partitionName } from '../src/cloud/pgEvents';
import { CloudStore, openStore } from '../src/cloud/store';
import { beaconSync, deviceId, PgServer, postgresBin, POSTGRES_MISSING, startPostgres, tmpDir } from '../src/cloud/testkit';

const dir = tmpDir('beacon-store-test-');

function ev(seq: number, extra: Partial<WireEvent> = {}): WireEvent {
  return { seq, type: 'temp', ts: 1_700_000_000_000 + seq * 1000, payload: { n: seq }, volatile: false, variable: false, ...extra };
}

function storeSuite(kind: 'sqlite' | 'postgres', open: () => Promise<CloudStore>): void {
  describe(`store: ${kind}`, () => {
    let store: CloudStore;
    before(async () => {
      store = await open();
    });
    after(async () => {
      await store?.close();
    });

    test('credentials: issue, verify, replace, revoke', async () => {
      const id = deviceId();
      assert.equal(await store.credential(id), undefined);
      await store.putCredential(id, await hashSecret('first'), 1000);
      const h1 = await store.credential(id);
      assert.ok(h1 !== undefined && (await verifySecret('first', h1)));
      await store.putCredential(id, await hashSecret('second'), 2000);
      const h2 = await store.credential(id);
      assert.ok(h2 !== undefined && (await verifySecret('second', h2)) && !(await verifySecret('first', h2)));
      assert.ok((await store.credentials()).some((c) => c.id === id));
      assert.equal(await store.revokeCredential(id), true);
      assert.equal(await store.credential(id), undefined);
      assert.ok(!(await store.credentials()).some((c) => c.id === id));
      const d = await store.device(id);
      assert.equal(d?.revoked, true);
      assert.equal(d?.created, 1000);
      assert.equal(await store.revokeCredential(deviceId()), false);
    });

    test('deployments: a package assigned to devices, the latest deployment wins, states recorded', async () => {
      const a = deviceId();
      const b = deviceId();
      const bytes = Buffer.concat([Buffer.from('BAPP'), Buffer.alloc(60, 7)]);
      const pkg = { hash: 'ab'.repeat(32), size: bytes.length, api: 0x000206, signed: true, name: 'b.bapp' };
      assert.equal(await store.deployments.assignment(a), undefined);
      const d1 = await store.deployments.createDeployment(pkg, bytes, [a, b], 100);
      assert.deepEqual(await store.deployments.assignment(a), { deploymentId: d1, package: pkg, state: 'pending', deviceStage: 0, stage: 0, status: 'running' });
      assert.deepEqual(await store.deployments.packageBytes(pkg.hash), bytes);
      await store.deployments.setDeviceState(d1, a, 'refused', 64, 'wrong engine', 200);
      const rec = await store.deployments.deployment(d1);
      assert.deepEqual(rec?.devices.find((x) => x.deviceId === a), { deviceId: a, stage: 0, state: 'refused', fetched: 64, reason: 'wrong engine', updated: 200 });
      assert.equal(rec?.devices.find((x) => x.deviceId === b)?.state, 'pending');
      // The same package deployed again is stored once; the device's newer deployment is the one offered.
      const d2 = await store.deployments.createDeployment(pkg, bytes, [a], 300);
      assert.ok(d2 > d1);
      assert.equal((await store.deployments.assignment(a))?.deploymentId, d2);
      assert.equal((await store.deployments.assignment(a))?.state, 'pending');
      assert.deepEqual((await store.deployments.listDeployments()).filter((x) => x.id === d1 || x.id === d2).map((x) => x.devices.length), [2, 1]);
      assert.equal(await store.deployments.deployment(d2 + 1000), undefined);
      // In stages: the devices in order, each stage up to its share; the rollout's state kept.
      const ids = [deviceId(), deviceId(), deviceId(), deviceId()];
      const d3 = await store.deployments.createDeployment(pkg, bytes, ids, 400, { stages: [25, 50, 100], minHealthy: 60_000 });
      let rec3 = await store.deployments.deployment(d3);
      assert.deepEqual(rec3?.rollout, { stages: [25, 50, 100], minHealthy: 60_000 });
      assert.deepEqual(ids.map((id) => rec3?.devices.find((x) => x.deviceId === id)?.stage), [0, 1, 2, 2]);
      await store.deployments.setStage(d3, 1, 'running');
      await store.deployments.setPrevious(d3, ids[0], 'cd'.repeat(32));
      await store.deployments.setPrevious(d3, ids[0], 'ef'.repeat(32)); // the first one stays
      await store.deployments.stopDeployment(d3, 'refused');
      await store.deployments.setStage(d3, 2, 'running'); // a stopped rollout stays stopped
      rec3 = await store.deployments.deployment(d3);
      assert.deepEqual([rec3?.stage, rec3?.status, rec3?.stopped], [1, 'stopped', 'refused']);
      assert.deepEqual(await store.deployments.previous(d3), [{ deviceId: ids[0], hash: 'cd'.repeat(32), state: 'pending' }]);
      assert.deepEqual(await store.deployments.packageInfo(pkg.hash), pkg);
    });

    test('events: each (device, stream, seq) once, however often and in whatever order it comes', async () => {
      const id = deviceId();
      await store.putCredential(id, 'h', 1);
      assert.equal(await store.storeEvents(id, 7, [ev(4), ev(5), ev(6)], 10), 3);
      assert.equal(await store.storeEvents(id, 7, [ev(1), ev(2), ev(3)], 11), 3);
      assert.equal(await store.storeEvents(id, 7, [ev(4), ev(5), ev(6)], 12), 0);
      assert.equal(await store.storeEvents(id, 7, [ev(2), ev(3), ev(4), ev(7)], 13), 1);
      // The same seq in another stream (a device whose queue was recreated) is another event.
      assert.equal(await store.storeEvents(id, 8, [ev(1)], 14), 1);
      const page = await store.events(id, { limit: 100 });
      assert.deepEqual(
        page.events.map((e) => `${e.stream}:${e.seq}`),
        ['7:7', '7:6', '7:5', '7:4', '7:3', '7:2', '8:1', '7:1'],
      );
      assert.equal(page.next, undefined);
      assert.equal((await store.device(id))?.events, 8);
    });

    test('events: concurrent retransmissions of one batch store it once', async () => {
      const id = deviceId();
      await store.putCredential(id, 'h', 1);
      const batch = Array.from({ length: 20 }, (_, i) => ev(i + 1));
      const added = await Promise.all(Array.from({ length: 8 }, () => store.storeEvents(id, 1, batch, 5)));
      assert.equal(added.reduce((a, b) => a + b, 0), 20);
      assert.equal((await store.device(id))?.events, 20);
    });

    test('events: fields survive the round trip', async () => {
      const id = deviceId();
      await store.putCredential(id, 'h', 1);
      const payload = { s: 'héllo', f: 21.5, big: 2 ** 40, neg: -3, list: [1, null, true, { a: 'b' }], empty: {} };
      await store.storeEvents(id, 3, [ev(9, { type: 'loc', payload, volatile: true, ts: 1_800_000_000_123 })], 77);
      const [e] = (await store.events(id)).events;
      assert.deepEqual(e, { deviceId: id, stream: 3, seq: 9, type: 'loc', ts: 1_800_000_000_123, payload, volatile: true, variable: false, received: 77 });
    });

    test('events: newest first, paged, filtered by type', async () => {
      const id = deviceId();
      await store.putCredential(id, 'h', 1);
      const list = Array.from({ length: 25 }, (_, i) => ev(i + 1, { type: i % 2 === 0 ? 'a' : 'b', ts: 5000 + Math.floor(i / 3) }));
      await store.storeEvents(id, 1, list, 1);
      const seen: number[] = [];
      let before: string | undefined;
      for (;;) {
        const page = await store.events(id, { limit: 4, before });
        seen.push(...page.events.map((e) => e.seq));
        if (!page.next) break;
        before = page.next;
      }
      assert.deepEqual(seen, [...list].sort((x, y) => y.ts - x.ts || y.seq - x.seq).map((e) => e.seq));
      const onlyB = await store.events(id, { type: 'b', limit: 100 });
      assert.equal(onlyB.events.length, 12);
      assert.ok(onlyB.events.every((e) => e.type === 'b'));
      await assert.rejects(store.events(id, { limit: 0 }), RangeError);
      await assert.rejects(store.events(id, { before: 'x' }), RangeError);
    });

    test('variables: latest value by device time, only from newly stored events', async () => {
      const id = deviceId();
      await store.putCredential(id, 'h', 1);
      await store.storeEvents(id, 1, [ev(1, { type: 'mode', payload: 'eco', ts: 2000, variable: true, volatile: true })], 1);
      await store.storeEvents(id, 1, [ev(2, { type: 'mode', payload: 'old', ts: 1000, variable: true, volatile: true })], 2);
      await store.storeEvents(id, 1, [ev(3, { type: 'level', payload: { v: 3 }, ts: 1500, variable: true, volatile: true })], 3);
      assert.deepEqual(await store.variables(id), [
        { name: 'level', value: { v: 3 }, ts: 1500 },
        { name: 'mode', value: 'eco', ts: 2000 },
      ]);
      await store.storeEvents(id, 1, [ev(4, { type: 'mode', payload: 'sport', ts: 3000, variable: true, volatile: true })], 4);
      assert.deepEqual((await store.variables(id)).find((v) => v.name === 'mode'), { name: 'mode', value: 'sport', ts: 3000 });
      // Variable updates are also ordinary events.
      assert.equal((await store.events(id, { type: 'mode' })).events.length, 3);
    });

    test('messages: ids count up per device, pending until delivered', async () => {
      const id = deviceId();
      const other = deviceId();
      await store.putCredential(id, 'h', 1);
      await store.putCredential(other, 'h', 1);
      assert.equal(await store.queueMessage(deviceId(), 'x', {}, 1), undefined);
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push((await store.queueMessage(id, 'cfg', { i }, 100 + i))?.id);
      assert.deepEqual(ids, [1, 2, 3, 4, 5]);
      assert.equal((await store.queueMessage(other, 'cfg', {}, 1))?.id, 1);
      assert.deepEqual((await store.pendingMessages(id, 2, 10)).map((m) => m.id), [3, 4, 5]);
      assert.deepEqual((await store.pendingMessages(id, 0, 2)).map((m) => m.payload), [{ i: 0 }, { i: 1 }]);
      assert.equal(await store.markDelivered(id, 3, 999), 3);
      assert.equal(await store.markDelivered(id, 3, 1000), 0);
      assert.deepEqual((await store.pendingMessages(id, 0, 10)).map((m) => m.id), [4, 5]);
      const all = await store.messages(id);
      assert.equal(all[0].delivered, 999);
      assert.equal(all[4].delivered, undefined);
      assert.equal((await store.device(id))?.pendingMessages, 2);
      assert.equal((await store.pendingMessages(other, 0, 10)).length, 1);
    });

    test('messages: concurrent sends get distinct ids', async () => {
      const id = deviceId();
      await store.putCredential(id, 'h', 1);
      const sent = await Promise.all(Array.from({ length: 20 }, (_, i) => store.queueMessage(id, 't', { i }, 1)));
      assert.deepEqual(sent.map((m) => m?.id).sort((a, b) => (a ?? 0) - (b ?? 0)), Array.from({ length: 20 }, (_, i) => i + 1));
    });

    test('settings and device listing', async () => {
      assert.equal(await store.setting('nope'), undefined);
      await store.setSetting('k', 'v1');
      await store.setSetting('k', 'v2');
      assert.equal(await store.setting('k'), 'v2');
      const id = deviceId();
      await store.putCredential(id, 'h', 1);
      await store.touchDevices([{ id, at: 4242 }]);
      await store.touchDevices([{ id, at: 4000 }]); // an older time does not move it back
      const d = (await store.listDevices()).find((x) => x.id === id);
      assert.deepEqual(d, { id, created: 1, lastSeen: 4242, revoked: false, events: 0, pendingMessages: 0 });
      await store.ping();
    });

    // Last: it removes the older events of the tests before too.
    test('prune: events older than the cutoff go, newer ones stay', async () => {
      const id = deviceId();
      await store.putCredential(id, 'h', 1);
      const now = Date.now();
      const day = 86_400_000;
      // Whole days before the cutoff (PostgreSQL: a partition of its own, which is dropped), one
      // from 1970 (PostgreSQL: the default partition, where rows are deleted), and recent ones.
      const old = [ev(1, { ts: now - 30 * day }), ev(2, { ts: now - 31 * day }), ev(3, { ts: 5 })];
      const recent = [ev(4, { ts: now - day }), ev(5, { ts: now })];
      assert.equal(await store.storeEvents(id, 1, [...old, ...recent], now), 5);
      const total = async (): Promise<number> => (await store.listDevices()).reduce((n, d) => n + d.events, 0);
      const before = await total();
      const r = await store.prune(now - 10 * day);
      assert.deepEqual((await store.events(id)).events.map((e) => e.seq), [5, 4]);
      assert.equal(r.events, before - (await total()));
      assert.ok(r.events >= 3);
      if (kind === 'postgres') {
        for (const e of old.slice(0, 2)) assert.ok(r.partitions.includes(partitionName(Math.floor(e.ts / day))), `${r.partitions} misses ${e.ts}`);
      } else {
        assert.deepEqual(r.partitions, []);
      }
      assert.deepEqual(await store.prune(now - 10 * day), { partitions: [], events: 0 });
      await assert.rejects(store.prune(-1), /cutoff must be a UTC time/);
      await assert.rejects(store.prune(1.5), RangeError);
    });
  });
}

storeSuite('sqlite', () => openStore(path.join(dir, 'store.db')));

test('store: sqlite keeps everything across a reopen', async () => {
  const file = path.join(dir, 'reopen.db');
  const id = deviceId();
  let s = await openStore(file);
  await s.putCredential(id, 'h', 1);
  await s.storeEvents(id, 1, [ev(1), ev(2)], 1);
  await s.queueMessage(id, 'm', { a: 1 }, 1);
  await s.close();
  s = await openStore(file);
  assert.equal((await s.events(id)).events.length, 2);
  assert.equal((await s.pendingMessages(id, 0, 10)).length, 1);
  assert.equal(await s.storeEvents(id, 1, [ev(2)], 1), 0);
  await s.close();
  await assert.rejects(s.ping(), /not open/);
});

test('beacon cloud prune on a SQLite store', async () => {
  const file = path.join(dir, 'prune.db');
  const id = deviceId();
  const s = await openStore(file);
  await s.putCredential(id, 'h', 1);
  const now = Date.now();
  await s.storeEvents(id, 1, [ev(1, { ts: now - 40 * 86_400_000 }), ev(2, { ts: now - 3_600_000 })], now);
  await s.close();
  const r = beaconSync(['cloud', 'prune', '--older-than', '2w', '--db', file, '--json']);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual({ ...JSON.parse(r.stdout), olderThan: 0 }, { olderThan: 0, partitions: [], events: 1 });
  const text = beaconSync(['cloud', 'prune', '--older-than', '30m', '--db', file]);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^0 partitions dropped\n1 events removed \(device time before /);
  const bad = beaconSync(['cloud', 'prune', '--older-than', '0h', '--db', file]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--older-than: interval '0h' is shorter than 1 ms/);
  const t = await openStore(file);
  assert.equal((await t.events(id)).events.length, 0);
  await t.close();
});

const pgBin = postgresBin();
if (!pgBin) {
  test('store: postgres', { skip: POSTGRES_MISSING }, () => undefined);
} else {
  let pg: PgServer | undefined;
  before(async () => {
    pg = await startPostgres({ fsync: false });
  });
  after(() => {
    pg?.stop();
  });
  storeSuite('postgres', async () => {
    const url = await (pg as PgServer).createDatabase('store_suite');
    return openStore(url);
  });
  test('store: postgres keeps everything across a reopen', async () => {
    const url = await (pg as PgServer).createDatabase('store_reopen');
    const id = deviceId();
    let s = await openStore(url);
    await s.putCredential(id, 'h', 1);
    await s.storeEvents(id, 1, [ev(1), ev(2)], 1);
    await s.close();
    s = await openStore(url);
    assert.equal((await s.events(id)).events.length, 2);
    assert.equal(await s.storeEvents(id, 1, [ev(1)], 1), 0);
    await s.close();
  });
}
