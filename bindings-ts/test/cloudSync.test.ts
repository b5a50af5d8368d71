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
import { Cloud, startCloud } from '../src/cloud/service';
import { CloudStore, openStore } from '../src/cloud/store';
import {
  deviceId,
  MOSQUITTO,
  MOSQUITTO_MISSING,
  MosquittoServer,
  PgServer,
  postgresBin,
  POSTGRES_MISSING,
  startAckCutter,
  startMosquitto,
  startPostgres,
  tmpDir,
  waitFor,
} from '../src/cloud/testkit';
import { allEvents } from './childProcess';
import { brokerKnows, CloudLayout, singleProcess, workers } from './cloudLayouts';

const dir = tmpDir('beacon-sync-test-');

async function exactlyOnceScenario(layout: CloudLayout): Promise<void> {
  const db = layout.db;
  const token = layout.token;
  const port = layout.mqttPort;
  const id = deviceId();
  const password = await layout.addDevice(id);
  const cred = { password };

  await layout.start();
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
      const res = await fetch(`${layout.httpUrl()}/api/devices/${id}/messages`, {
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
      if (s === 'batch-sent' && ++batches === 2) void layout.kill('SIGKILL');
    };
    await assert.rejects(dev.sync());
    await layout.start();
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
      if (s === 'connected') void layout.kill('SIGKILL');
    };
    await assert.rejects(dev.sync());
    await layout.start();
    await syncOk();
    await syncOk(); // nothing left: an empty sync
    assert.equal(dev.pending, 0);
  } finally {
    await layout.kill('SIGTERM');
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

/** Clouds serving one store: the single process, or several workers on a shared subscription. */
interface Serving {
  clouds: Cloud[];
  /** Where devices connect. */
  mqttUrl: string;
  /** Wait until a device's new credentials work (an external broker reloads in its own time). */
  ready(id: string, password: string): Promise<void>;
}

async function reorderScenario(serving: Serving): Promise<void> {
  const { clouds } = serving;
  const id = deviceId();
  const cred = await clouds[0].issueDevice(id);
  await serving.ready(id, cred.password);
  const store = clouds[0].store;
  const ev = (seq: number): WireEvent => ({ seq, type: 't', ts: 1_700_000_000_000 + seq, payload: { seq }, volatile: false, variable: false });
  const batch = (seqs: number[]): Buffer => encodeBatch({ stream: 77, events: seqs.map(ev) });
  const connect = async (): Promise<{ client: mqtt.MqttClient; acks: string[] }> => {
    const client = await mqtt.connectAsync(serving.mqttUrl, { clientId: id, username: id, password: cred.password, protocolVersion: 4, reconnectPeriod: 0 });
    const acks: string[] = [];
    client.on('message', (_t, p) => {
      const a = decodeAck(p);
      acks.push(`${a.first}-${a.last}`);
    });
    await client.subscribeAsync(topic(id, 'a'), { qos: 1 });
    return { client, acks };
  };
  const sum = (k: 'events' | 'duplicates' | 'batches'): number => clouds.reduce((n, c) => n + c.core.counters[k], 0);
  const { client, acks } = await connect();
  const sent = [[4, 5, 6], [1, 2, 3], [4, 5, 6], [2, 3, 4, 5], [9], [1, 2, 3]];
  for (const seqs of sent) {
    await client.publishAsync(topic(id, 'u'), batch(seqs), { qos: 1 });
  }
  await waitFor('six acknowledgements', () => (acks.length === 6 ? true : undefined));
  // One process answers in order; workers each answer the batches they took, so only the set
  // of acknowledgements is the same.
  const want = sent.map((q) => `${q[0]}-${q[q.length - 1]}`);
  if (clouds.length === 1) assert.deepEqual(acks, want);
  else assert.deepEqual([...acks].sort(), [...want].sort());
  await client.endAsync();
  // After a reconnect, the old batches once more.
  const second = await connect();
  await second.client.publishAsync(topic(id, 'u'), batch([1, 2, 3, 4, 5, 6, 9]), { qos: 1 });
  await waitFor('the acknowledgement', () => (second.acks.length === 1 ? true : undefined));
  await second.client.endAsync();
  const seqs = (await allEvents(store, id)).map((e) => e.seq).sort((a, b) => a - b);
  assert.deepEqual(seqs, [1, 2, 3, 4, 5, 6, 9]);
  assert.equal(sum('events'), 7);
  assert.equal(sum('duplicates'), 3 + 4 + 3 + 7);
  assert.equal(sum('batches'), 7);
}

/** The single process on its embedded broker, over `store`. */
async function reorderAlone(store: CloudStore): Promise<void> {
  const cloud = await startCloud({ store, port: 0, httpPort: 0, log: () => undefined });
  try {
    await reorderScenario({ clouds: [cloud], mqttUrl: cloud.mqttUrl, ready: async () => undefined });
  } finally {
    await cloud.stop();
  }
}

describe('exactly once: sqlite', () => {
  test('cloud killed, link cut before the ack, power cuts: each event and message once', async () => {
    await exactlyOnceScenario(await singleProcess(path.join(dir, 'cloud.db'), 'sync-token'));
  });
  test('duplicated and reordered batches are stored once and each acknowledged', async () => {
    const store = await openStore(path.join(dir, 'reorder.db'));
    try {
      await reorderAlone(store);
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
    await exactlyOnceScenario(await singleProcess(await (pg as PgServer).createDatabase('sync_scenario'), 'sync-token'));
  });
  test('duplicated and reordered batches are stored once and each acknowledged', async () => {
    const store = await openStore(await (pg as PgServer).createDatabase('sync_reorder'));
    try {
      await reorderAlone(store);
    } finally {
      await store.close();
    }
  });
});

// The same scenarios with the cloud scaled out: two `beacon cloud` workers on PostgreSQL behind
// one Mosquitto, sharing the devices' frames through a shared subscription. "The cloud killed"
// is every worker killed at once.
describe('exactly once: 2 workers on Mosquitto and postgres', { skip: !postgresBin() ? POSTGRES_MISSING : !MOSQUITTO ? MOSQUITTO_MISSING : false }, () => {
  let pg: PgServer | undefined;
  before(async () => {
    pg = await startPostgres({ fsync: false });
  });
  after(() => pg?.stop());
  const withBroker = async (db: string, fn: (broker: MosquittoServer) => Promise<void>): Promise<void> => {
    const auth = await openStore(db);
    const broker = await startMosquitto(auth);
    await auth.close();
    try {
      await fn(broker);
    } finally {
      await broker.kill();
    }
  };
  test('workers killed, link cut before the ack, power cuts: each event and message once', async () => {
    const db = await (pg as PgServer).createDatabase('sync_workers');
    await withBroker(db, async (broker) => exactlyOnceScenario(await workers(db, 'sync-token', broker, 2)));
  });
  test('duplicated and reordered batches are stored once and each acknowledged, whichever worker takes them', async () => {
    const db = await (pg as PgServer).createDatabase('sync_workers_reorder');
    await withBroker(db, async (broker) => {
      const stores = [await openStore(db), await openStore(db)];
      const clouds: Cloud[] = [];
      try {
        for (const store of stores) clouds.push(await startCloud({ store, broker: broker.serviceUrl, mosquittoDir: broker.dir, mosquittoPid: broker.pidFile, httpPort: 0, log: () => undefined }));
        await reorderScenario({ clouds, mqttUrl: broker.url, ready: (id, password) => brokerKnows(broker.url, id, password) });
        // Both workers took frames: the broker shared them.
        assert.ok(clouds.every((c) => c.core.counters.batches > 0), `batches per worker: ${clouds.map((c) => c.core.counters.batches).join(', ')}`);
      } finally {
        for (const c of clouds) await c.stop();
        for (const s of stores) await s.close();
      }
    });
  });
});
