// The cloud scaled out under faults: two `beacon cloud` workers on PostgreSQL behind one
// Mosquitto, with devices syncing all the time. A worker is killed (SIGKILL) in the middle of the
// load and started again; Mosquitto restarts; PostgreSQL restarts; devices lose their connection
// at each step of the protocol, and six of them go through the fault proxy (cuts before an
// acknowledgement or a message frame, batches twice and out of order). Afterwards every
// non-volatile event is stored exactly once (checked with SQL), every message reached its app
// exactly once, and the workers are healthy again without anyone touching them. A worker that cannot reach PostgreSQL says so in its log
// and /api/health and acknowledges nothing meanwhile.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as mqtt from 'mqtt';
import { Client } from 'pg';
import { DeviceClient, MemoryStorage, SyncStep } from '../src/cloud/deviceClient';
import type { CloudHealth } from '../src/cloud/httpRoutes';
import { decodeBatch, encodeBatch, topic } from '../src/cloud/protocol';
import { startFaultProxy } from '../src/cloud/faultProxy';
import { openStore } from '../src/cloud/store';
import { deviceId, MOSQUITTO, MOSQUITTO_MISSING, MosquittoServer, PgServer, postgresBin, POSTGRES_MISSING, startMosquitto, startPostgres, waitFor } from '../src/cloud/testkit';
import { workers, WorkersLayout } from './cloudLayouts';

const skip = !postgresBin() ? POSTGRES_MISSING : !MOSQUITTO ? MOSQUITTO_MISSING : false;
const TOKEN = 'workers-token';

let pg: PgServer;
let db: string;
let broker: MosquittoServer;
let layout: WorkersLayout;

before(async () => {
  if (skip) return;
  // Durable commits: PostgreSQL is crashed and restarted here, and with synchronous_commit off
  // a commit it already confirmed (an acknowledged batch, a queued message) would be lost.
  pg = await startPostgres();
  db = await pg.createDatabase('workers');
  const store = await openStore(db);
  broker = await startMosquitto(store);
  await store.close();
  layout = await workers(db, TOKEN, broker, 2);
  await layout.start();
});

after(async () => {
  if (skip) return;
  await layout?.kill('SIGTERM');
  await broker?.kill();
  pg?.stop();
});

async function health(httpUrl: string): Promise<{ status: number; body: CloudHealth }> {
  const r = await fetch(`${httpUrl}/api/health`);
  return { status: r.status, body: (await r.json()) as CloudHealth };
}

async function allHealthy(): Promise<void> {
  for (const w of layout.processes()) {
    const gone = (): string | undefined => (w.child.exitCode !== null || w.child.signalCode !== null ? `exited (${w.child.exitCode ?? w.child.signalCode})` : undefined);
    await waitFor(`worker ${w.httpUrl} healthy`, async () => {
      const dead = gone();
      if (dead) throw new Error(`worker ${w.httpUrl} ${dead}:\n${w.stderr().slice(-3000)}`);
      return (await health(w.httpUrl)).status === 200 ? true : undefined;
    }, 400, 50);
  }
}

interface LoadDevice {
  id: string;
  client: DeviceClient;
  /** Non-volatile events whose enqueue returned. */
  expected: number;
  sent: number[];
  received: number[];
  /** The protocol step at which this device's connection is cut once. */
  cutAt?: SyncStep;
}

async function newDevice(cutAt?: SyncStep, url = broker.url): Promise<LoadDevice> {
  const id = deviceId();
  const password = await layout.addDevice(id);
  const d = { id, expected: 0, sent: [] as number[], received: [] as number[], cutAt } as unknown as LoadDevice;
  d.client = new DeviceClient({
    id,
    password,
    url,
    storage: new MemoryStorage(),
    batchEvents: 5,
    window: 2,
    timeoutMs: 4000,
    trace: (step, c) => {
      if (d.cutAt === step) {
        d.cutAt = undefined;
        c.dropConnection();
      }
    },
  });
  d.client.onReceive((m) => d.received.push((m.payload as { k: number }).k));
  return d;
}

/** Frames the workers refused so far, from their /api/health counters. */
async function refusedCount(): Promise<number> {
  let n = 0;
  for (const w of layout.processes()) n += (await health(w.httpUrl)).body.counters.refused;
  return n;
}

async function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
  const c = new Client({ connectionString: db });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}

describe('workers under faults', { skip }, () => {
  test('/api/health: both workers healthy, on the shared subscription; no token needed, no device data', async () => {
    const seen = new Set<string>();
    for (const w of layout.processes()) {
      const h = await health(w.httpUrl);
      assert.equal(h.status, 200);
      assert.equal(h.body.ok, true);
      assert.equal(h.body.store.kind, 'postgres');
      assert.equal(h.body.broker.connected, true);
      assert.equal(h.body.broker.shareGroup, 'beacon-cloud');
      seen.add(h.body.worker);
      assert.doesNotMatch(JSON.stringify(h.body), /5eac0b1d/, 'no device ids');
    }
    assert.equal(seen.size, 2, 'two distinct workers');
  });

  test('a hostile device never stalls the workers or the shared subscription for the others', async () => {
    const bad = await newDevice();
    const good = await newDevice();
    const password = await layout.addDevice(bad.id);
    const attacker = await mqtt.connectAsync(broker.url, { clientId: bad.id, username: bad.id, password, protocolVersion: 4, reconnectPeriod: 0 });
    const refusedBefore = await refusedCount();
    // Malformed frames, a batch over the limit (257 events, hand-made: the encoder refuses it),
    // and frames on another device's topic, as fast as the broker takes them.
    const events = Array.from({ length: 256 }, (_, i) => ({ seq: i + 1, type: 't', ts: 1_767_225_600_000, payload: i, volatile: false, variable: false }));
    const over = encodeBatch({ stream: 9, events });
    // Key 4's array header says 256 (99 0100): make it 257 and add one more event map {1: 0, 2: 0, 3: 0}.
    const at = over.indexOf(Buffer.from([0x04, 0x99, 0x01, 0x00]));
    assert.ok(at > 0);
    const oversized = Buffer.concat([over.subarray(0, at), Buffer.from([0x04, 0x99, 0x01, 0x01]), over.subarray(at + 4), Buffer.from([0xa3, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00])]);
    assert.throws(() => decodeBatch(oversized), /256/);
    const flood: Promise<unknown>[] = [];
    for (let i = 0; i < 300; i++) {
      flood.push(attacker.publishAsync(topic(bad.id, 'u'), Buffer.from([0xa1, 0x00, 0xff, i & 0xff]), { qos: 1 }));
      if (i % 10 === 0) flood.push(attacker.publishAsync(topic(bad.id, 'u'), oversized, { qos: 1 }));
      if (i % 10 === 5) flood.push(attacker.publishAsync(topic(good.id, 'u'), over, { qos: 1 }));
    }
    for (let i = 0; i < 20; i++) good.client.enqueue('n', { i }, { volatile: false });
    const r = await good.client.sync();
    assert.equal(r.acked, 20, 'the good device synced meanwhile');
    await Promise.all(flood);
    await attacker.endAsync();
    await waitFor('every bad frame refused', async () => ((await refusedCount()) - refusedBefore >= 330 ? true : undefined), 200, 50);
    const rows = await sql<{ device_id: string; n: number }>('SELECT device_id, count(*)::int AS n FROM events WHERE device_id = ANY($1) GROUP BY device_id', [[bad.id, good.id]]);
    assert.deepEqual(rows, [{ device_id: good.id, n: 20 }], "nothing stored from the bad frames, nothing on the other device's topic");
  });

  test('PostgreSQL down: nothing acknowledged, the workers say so; back: everything stored once', async () => {
    const d = await newDevice();
    for (let i = 0; i < 12; i++) d.client.enqueue('n', { i }, { volatile: false });
    pg.halt();
    try {
      await assert.rejects(d.client.sync(), 'no acknowledgement while the store is down');
      assert.equal(d.client.pending, 12, 'the device keeps every event');
      for (const w of layout.processes()) {
        const h = await health(w.httpUrl);
        assert.equal(h.status, 503);
        assert.equal(h.body.ok, false);
        assert.equal(h.body.store.ok, false);
        assert.ok(h.body.store.error, 'the reason is given');
      }
      const logs = layout.processes().map((w) => w.stderr()).join('');
      assert.match(logs, /store unreachable: .*uploads are not acknowledged until it is back/);
    } finally {
      pg.resume();
    }
    await allHealthy();
    await waitFor('a sync to succeed', async () => {
      try {
        await d.client.sync();
        return true;
      } catch {
        return undefined;
      }
    }, 20, 500);
    assert.equal(d.client.pending, 0);
    const rows = await sql<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE device_id = $1', [d.id]);
    assert.equal(rows[0].n, 12);
    const logs = layout.processes().map((w) => w.stderr()).join('');
    assert.match(logs, /store reachable again after/);
  });

  test('load through a killed worker, a restarted Mosquitto, a restarted PostgreSQL and cuts at each step: each event and message once', async () => {
    const steps: SyncStep[] = ['connected', 'batch-sent', 'ack', 'message', 'inbox-done', 'done'];
    // Six devices reach the broker through the fault proxy, which also cuts the link between a
    // batch's commit and its acknowledgement, and before a message frame, and sends batches twice
    // and out of order.
    const proxy = await startFaultProxy({ port: broker.port });
    const devices: LoadDevice[] = [];
    for (let i = 0; i < 24; i++) devices.push(await newDevice(i < steps.length ? steps[i] : undefined, i >= 18 ? proxy.url : broker.url));
    proxy.cutAtAck(3);
    proxy.cutAtMessages(2);
    proxy.duplicate(3);
    proxy.reorder(2);
    let running = true;
    let syncs = 0;
    let failures = 0;
    const loop = async (d: LoadDevice, k: number): Promise<void> => {
      let round = 0;
      while (running) {
        for (let i = 0; i < 4; i++) {
          d.client.enqueue('n', { d: k, r: round, i, pad: 'x'.repeat(150) }, { volatile: false });
          d.expected++;
        }
        round++;
        try {
          await d.client.sync();
          syncs++;
        } catch {
          failures++;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    };
    let next = 1;
    const sendMessages = async (): Promise<void> => {
      while (running) {
        const d = devices[next % devices.length];
        const k = next++;
        const res = await fetch(`${layout.httpUrl()}/api/devices/${d.id}/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'cmd', payload: { k } }),
        }).catch(() => undefined);
        if (res?.status === 201) d.sent.push(k);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const loops = [...devices.map((d, k) => loop(d, k)), sendMessages()];
    const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
    try {
      await pause(1500);
      // 1. A worker dies (SIGKILL) with frames in hand; it is started again a second later.
      await layout.processes()[0].kill('SIGKILL');
      await pause(1000);
      await layout.startOne(0);
      await pause(1500);
      // 2. The broker restarts: every connection drops, the workers reconnect by themselves.
      await broker.restart();
      await pause(2000);
      // 3. PostgreSQL restarts.
      pg.halt();
      await pause(1000);
      pg.resume();
      await pause(2000);
    } finally {
      running = false;
      await Promise.all(loops);
    }
    assert.ok(proxy.stats.cuts > 0 && proxy.stats.duplicated > 0 && proxy.stats.reordered + proxy.stats.releasedAlone > 0, `the proxy's faults happened: ${JSON.stringify({ ...proxy.stats, messageIds: undefined })}`);
    assert.ok(syncs > devices.length, `devices kept syncing (${syncs} syncs, ${failures} failed)`);
    assert.ok(failures > 0, 'the faults did fail syncs');
    assert.ok(devices.slice(0, steps.length).every((d) => d.cutAt === undefined), 'every step had its cut');
    await allHealthy();
    // Everything left is sent now; each device until its queue is empty.
    for (const d of devices) {
      await waitFor(`${d.id} to empty its queue`, async () => {
        await d.client.sync().catch(() => undefined);
        return d.client.pending === 0 ? true : undefined;
      }, 20, 100);
    }
    const dup = await sql<{ device_id: string; stream: string; seq: string; n: number }>(
      'SELECT device_id, stream, seq, count(*)::int AS n FROM events GROUP BY device_id, stream, seq HAVING count(*) > 1',
    );
    assert.deepEqual(dup, [], 'no event stored twice');
    const counts = await sql<{ device_id: string; n: number }>("SELECT device_id, count(*)::int AS n FROM events WHERE type = 'n' AND NOT volatile GROUP BY device_id");
    const byDevice = new Map(counts.map((r) => [r.device_id, r.n]));
    for (const d of devices) assert.equal(byDevice.get(d.id), d.expected, `${d.id}: every non-volatile event stored`);
    for (const d of devices) {
      assert.deepEqual([...d.received].sort((a, b) => a - b), d.sent, `${d.id}: every message delivered exactly once`);
    }
    const undelivered = await sql<{ n: number }>('SELECT count(*)::int AS n FROM messages WHERE delivered IS NULL');
    assert.equal(undelivered[0].n, 0, 'every message marked delivered');
    await proxy.close();
    // Both workers took part, and both are back.
    for (const w of layout.processes()) {
      const h = await health(w.httpUrl);
      assert.equal(h.status, 200, JSON.stringify(h.body));
    }
  });
});
