// Exactly once, end to end on loopback, against SQLite and PostgreSQL: a device client syncs
// with `beacon cloud` (a child process) while the cloud is killed and restarted, the link drops
// between upload and acknowledgement, the device loses power while enqueueing and in the middle
// of syncs, and batches arrive twice and out of order. Afterwards every non-volatile event is
// in the cloud exactly once, and every message reached the app exactly once.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as mqtt from 'mqtt';
import * as path from 'path';
import { DeviceClient, MemoryStorage, PowerCut, SyncStep } from '../src/cloud/deviceClient';
import { decodeAck, encodeBatch, topic, WireEvent } from '../src/cloud/protocol';
import { startCloud } from '../src/cloud/service';
import { CloudStore, openStore } from '../src/cloud/store';
import {
  beaconSync,
  deviceId,
  freePort,
  PgServer,
  postgresBin,
  POSTGRES_MISSING,
  startAckCutter,
  startCloudProcess,
  startPostgres,
  tmpDir,
  waitFor,
} from '../src/cloud/testkit';
import { allEvents } from './childProcess';

const dir = tmpDir('beacon-sync-test-');

async function exactlyOnceScenario(db: string): Promise<void> {
  const port = await freePort();
  const token = `token-${Math.random().toString(36).slice(2)}`;
  const args = ['--db', db, '--port', String(port), '--http-port', '0', '--token', token];
  const id = deviceId();
  const add = beaconSync(['cloud', 'device', 'add', id, '--db', db, '--json']);
  assert.equal(add.status, 0, add.stderr);
  const cred = JSON.parse(add.stdout) as { password: string };

  let cloud = await startCloudProcess(args);
  const cutter = await startAckCutter({ host: '127.0.0.1', port });
  const storage = new MemoryStorage();
  const expected = new Set<number>(); // non-volatile events whose enqueue returned
  const received: number[] = []; // what the app's onReceive saw, across power cuts
  const sent: number[] = [];
  let n = 0;
  let k = 0;
  let onStep: (step: SyncStep, d: DeviceClient) => void = () => undefined;
  const boot = (): DeviceClient => {
    const d = new DeviceClient({
      id,
      password: cred.password,
      url: `mqtt://127.0.0.1:${port}`,
      storage,
      batchEvents: 5,
      window: 2,
      timeoutMs: 10_000,
      trace: (s, c) => onStep(s, c),
    });
    d.onReceive((m) => received.push((m.payload as { k: number }).k));
    return d;
  };
  let dev = boot();
  const enqueue = (count: number): void => {
    for (let i = 0; i < count; i++) {
      n++;
      dev.enqueue('n', { n, pad: 'x'.repeat(40) }, { volatile: false });
      expected.add(n);
      dev.enqueue('v', { v: n }); // volatile (the default)
    }
  };
  const send = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i++) {
      k++;
      const res = await fetch(`${cloud.httpUrl}/api/devices/${id}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'cmd', payload: { k } }),
      });
      assert.equal(res.status, 201, await res.text());
      sent.push(k);
    }
  };
  const syncOk = async (): Promise<void> => {
    onStep = () => undefined;
    await dev.sync();
  };

  try {
    // 1. The cloud is killed (SIGKILL) after the device sent its second batch, and restarted.
    enqueue(20);
    await send(3);
    let batches = 0;
    onStep = (s) => {
      if (s === 'batch-sent' && ++batches === 2) void cloud.kill('SIGKILL');
    };
    await assert.rejects(dev.sync());
    cloud = await startCloudProcess(args);
    await syncOk();
    assert.equal(dev.pending, 0);

    // 2. The link drops after the upload, before the acknowledgement: the cloud has the batch,
    //    the device sends it again, the cloud keeps one copy.
    enqueue(8);
    await send(1);
    dev.url = cutter.url;
    cutter.arm();
    onStep = () => undefined;
    await assert.rejects(dev.sync());
    assert.equal(cutter.cut, 1);
    assert.ok(dev.pending > 0);
    await syncOk();
    assert.equal(dev.pending, 0);
    dev.url = `mqtt://127.0.0.1:${port}`;

    // 3. Power cut while enqueueing: the record being written is torn, the event never queued.
    enqueue(3);
    storage.cutAfter(2);
    assert.throws(() => enqueue(5), PowerCut);
    // The events whose enqueue returned before the cut are queued; the torn one is not.
    const survivors = new Set<number>();
    dev = boot();
    for (const ev of storage.load()) if (ev.t === 'e' && !ev.volatile) survivors.add((ev.payload as { n: number }).n);
    for (const x of [...expected]) if (x > n - 5 && !survivors.has(x)) expected.delete(x);
    enqueue(4);
    await syncOk();

    // 4. Power cut in the middle of a sync, right after the first message reached the app.
    await send(4);
    enqueue(6);
    onStep = (s, d) => {
      if (s === 'message') d.powerCut();
    };
    await assert.rejects(dev.sync());
    dev = boot();
    await syncOk();

    // 5. Power cut right after an acknowledgement was recorded, with more batches in flight.
    enqueue(15);
    await send(2);
    onStep = (s, d) => {
      if (s === 'ack') d.powerCut();
    };
    await assert.rejects(dev.sync());
    dev = boot();
    await syncOk();

    // 6. The cloud killed again, this time between the sync start and any batch.
    enqueue(5);
    onStep = (s) => {
      if (s === 'connected') void cloud.kill('SIGKILL');
    };
    await assert.rejects(dev.sync());
    cloud = await startCloudProcess(args);
    await syncOk();
    await syncOk(); // nothing left: an empty sync
    assert.equal(dev.pending, 0);
  } finally {
    await cloud.kill('SIGTERM');
    await cutter.close();
  }

  const store = await openStore(db);
  try {
    const events = await allEvents(store, id);
    const counts = new Map<number, number>();
    const volatileCounts = new Map<number, number>();
    for (const e of events) {
      if (e.type === 'n') {
        assert.equal(e.volatile, false);
        const x = (e.payload as { n: number }).n;
        counts.set(x, (counts.get(x) ?? 0) + 1);
      } else {
        const x = (e.payload as { v: number }).v;
        volatileCounts.set(x, (volatileCounts.get(x) ?? 0) + 1);
      }
    }
    assert.deepEqual([...counts.keys()].sort((a, b) => a - b), [...expected].sort((a, b) => a - b), 'every non-volatile event stored');
    assert.ok([...counts.values()].every((c) => c === 1), 'no event stored twice');
    assert.ok([...volatileCounts.values()].every((c) => c === 1), 'no volatile event stored twice');
    assert.deepEqual([...received].sort((a, b) => a - b), sent, 'every message delivered exactly once');
    const messages = await store.messages(id);
    assert.equal(messages.length, sent.length);
    assert.ok(messages.every((m) => m.delivered !== undefined), 'every message marked delivered');
  } finally {
    await store.close();
  }
}

async function reorderScenario(store: CloudStore): Promise<void> {
  const cloud = await startCloud({ store, port: 0, httpPort: 0, log: () => undefined });
  const id = deviceId();
  const cred = await cloud.issueDevice(id);
  const ev = (seq: number): WireEvent => ({ seq, type: 't', ts: 1_700_000_000_000 + seq, payload: { seq }, volatile: false, variable: false });
  const batch = (seqs: number[]): Buffer => encodeBatch({ stream: 77, events: seqs.map(ev) });
  const connect = async (): Promise<{ client: mqtt.MqttClient; acks: string[] }> => {
    const client = await mqtt.connectAsync(cloud.mqttUrl, { clientId: id, username: id, password: cred.password, protocolVersion: 4, reconnectPeriod: 0 });
    const acks: string[] = [];
    client.on('message', (_t, p) => {
      const a = decodeAck(p);
      acks.push(`${a.first}-${a.last}`);
    });
    await client.subscribeAsync(topic(id, 'a'), { qos: 1 });
    return { client, acks };
  };
  try {
    const { client, acks } = await connect();
    for (const seqs of [[4, 5, 6], [1, 2, 3], [4, 5, 6], [2, 3, 4, 5], [9], [1, 2, 3]]) {
      await client.publishAsync(topic(id, 'u'), batch(seqs), { qos: 1 });
    }
    await waitFor('six acknowledgements', () => (acks.length === 6 ? true : undefined));
    assert.deepEqual(acks, ['4-6', '1-3', '4-6', '2-5', '9-9', '1-3']);
    await client.endAsync();
    // After a reconnect, the old batches once more.
    const second = await connect();
    await second.client.publishAsync(topic(id, 'u'), batch([1, 2, 3, 4, 5, 6, 9]), { qos: 1 });
    await waitFor('the acknowledgement', () => (second.acks.length === 1 ? true : undefined));
    await second.client.endAsync();
    const seqs = (await allEvents(store, id)).map((e) => e.seq).sort((a, b) => a - b);
    assert.deepEqual(seqs, [1, 2, 3, 4, 5, 6, 9]);
    assert.equal(cloud.core.counters.events, 7);
    assert.equal(cloud.core.counters.duplicates, 3 + 4 + 3 + 7);
  } finally {
    await cloud.stop();
  }
}

describe('exactly once: sqlite', () => {
  test('cloud killed, link cut before the ack, power cuts: each event and message once', async () => {
    await exactlyOnceScenario(path.join(dir, 'cloud.db'));
  });
  test('duplicated and reordered batches are stored once and each acknowledged', async () => {
    const store = await openStore(path.join(dir, 'reorder.db'));
    try {
      await reorderScenario(store);
    } finally {
      await store.close();
    }
  });
});

describe('exactly once: postgres', { skip: postgresBin() ? false : POSTGRES_MISSING }, () => {
  let pg: PgServer | undefined;
  before(async () => {
    pg = await startPostgres({ fsync: false });
  });
  after(() => pg?.stop());
  test('cloud killed, link cut before the ack, power cuts: each event and message once', async () => {
    await exactlyOnceScenario(await (pg as PgServer).createDatabase('sync_scenario'));
  });
  test('duplicated and reordered batches are stored once and each acknowledged', async () => {
    const store = await openStore(await (pg as PgServer).createDatabase('sync_reorder'));
    try {
      await reorderScenario(store);
    } finally {
      await store.close();
    }
  });
});
