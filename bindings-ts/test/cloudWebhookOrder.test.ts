// Webhook order per device when workers commit a device's batches at the same moment
// (PostgreSQL): the protocol lets a device keep a few batches unacknowledged, the shared
// subscription can hand two of them to two workers, and the later batch's commit can become
// visible first. A claim must then neither send the later batch while the earlier one is still
// being stored, nor send it first once both are there. The ingest's device lock and the claim's
// order are exercised directly on the store, with the "other worker" an open transaction that
// holds the same lock an ingest holds (STORE_GROUP in pgStore.ts, on the unlogged
// delivery_locks table).
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Client } from 'pg';
import { openStore } from '../src/cloud/store';
import type { CloudStore } from '../src/cloud/store';
import type { WireEvent } from '../src/cloud/protocol';
import { deviceId, PgServer, postgresBin, POSTGRES_MISSING, startPostgres } from '../src/cloud/testkit';

const skip = postgresBin() ? false : POSTGRES_MISSING;
const STREAM = 7;
const T0 = Date.UTC(2026, 10, 28);
let pg: PgServer | undefined;
let store: CloudStore;
let url = '';

before(async () => {
  if (skip) return;
  pg = await startPostgres({ fsync: false });
  url = await pg.createDatabase('hook_order');
  store = await openStore(url);
});
after(async () => {
  await store?.close();
  await pg?.stop();
});

const batch = (first: number, n: number): WireEvent[] =>
  Array.from({ length: n }, (_, i) => ({ seq: first + i, type: 'tick', ts: T0 + first + i, payload: { n: first + i }, volatile: false, variable: false }));

/** Claim, deliver the whole row (advance past its last event) and say which seqs it held. */
async function claimAndDeliver(hook: number, now: number): Promise<number[][]> {
  const rows = await store.webhooks.claim(hook, 8, now, now + 60_000, 'test');
  for (const r of rows) assert.ok(await store.webhooks.advance(r, 'test', r.seqs.length, now + 60_000));
  return rows.map((r) => r.seqs);
}

test('postgres: a device batch committed first by one worker waits for the earlier batch another worker is storing, then both go in the device order', { skip }, async () => {
  const dev = deviceId();
  await store.putCredential(dev, 'x', T0);
  const hook = await store.webhooks.addWebhook({ url: 'http://127.0.0.1:9/', retryFor: 60_000, secret: 's', created: T0 });

  // Worker A is storing batch 1 (seqs 1-10) of the device: its statement holds KEY SHARE on the
  // device's row of delivery_locks (made when the device was registered) until it commits.
  const workerA = new Client({ connectionString: url });
  await workerA.connect();
  try {
    await workerA.query('BEGIN');
    await workerA.query('SELECT device_id FROM delivery_locks WHERE device_id = $1 FOR KEY SHARE', [dev]);
    // Worker B commits batch 2 (seqs 11-20) meanwhile: two ingests share the lock.
    assert.equal(await store.storeEvents(dev, STREAM, batch(11, 10), T0), 10);
    assert.deepEqual(await claimAndDeliver(hook, T0 + 1), [], 'nothing of the device goes while a batch of it is being stored');
    // Batch 1 commits, after batch 2 and with a higher outbox id.
    await workerA.query('COMMIT');
  } finally {
    await workerA.end();
  }
  assert.equal(await store.storeEvents(dev, STREAM, batch(1, 10), T0), 10);
  const pending = await store.webhooks.deliveries(hook, 'pending', 100);
  assert.equal(pending.length, 20);

  // Then one row at a time (one attempt in flight per device), in the device's order.
  assert.deepEqual(await claimAndDeliver(hook, T0 + 2), [batch(1, 10).map((e) => e.seq)]);
  assert.deepEqual(await claimAndDeliver(hook, T0 + 3), [batch(11, 10).map((e) => e.seq)]);
  assert.deepEqual(await claimAndDeliver(hook, T0 + 4), []);
});

test('postgres: a later batch waiting for its retry is not overtaken by its retry time, and an earlier one still goes first', { skip }, async () => {
  const dev = deviceId();
  await store.putCredential(dev, 'x', T0);
  const hook = await store.webhooks.addWebhook({ url: 'http://127.0.0.1:9/', retryFor: 600_000, secret: 's', created: T0 });
  await store.storeEvents(dev, STREAM, batch(11, 5), T0);
  // Its first attempt fails: the next one is due 10 s later.
  const [row] = await store.webhooks.claim(hook, 8, T0 + 1, T0 + 60_000, 'test');
  assert.deepEqual(row.seqs, [11, 12, 13, 14, 15]);
  assert.ok(await store.webhooks.retryLater(row, 'test', { pos: 0, attempts: 1, nextAt: T0 + 10_000, failingSince: T0 + 1, lastError: 'HTTP 503' }));
  // The device's earlier batch arrives late (another worker, a retransmission after a cut).
  await store.storeEvents(dev, STREAM, batch(6, 5), T0 + 2);
  assert.deepEqual(await claimAndDeliver(hook, T0 + 3), [], 'the device waits for its failing delivery to be due');
  assert.deepEqual(await claimAndDeliver(hook, T0 + 10_000), [[6, 7, 8, 9, 10]], 'then the earlier batch goes first');
  assert.deepEqual(await claimAndDeliver(hook, T0 + 10_001), [[11, 12, 13, 14, 15]]);
});

test('postgres: after a crash has emptied the unlogged lock table, deliveries go on and the lock holds again', { skip }, async () => {
  const dev = deviceId();
  await store.putCredential(dev, 'x', T0);
  const hook = await store.webhooks.addWebhook({ url: 'http://127.0.0.1:9/', retryFor: 60_000, secret: 's', created: T0 });
  await store.storeEvents(dev, STREAM, batch(1, 3), T0);
  // What a crash does to an unlogged table: its rows are gone, the outbox's are not.
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query('TRUNCATE delivery_locks');
    assert.deepEqual(await claimAndDeliver(hook, T0 + 1), [[1, 2, 3]], 'the claim makes the missing row and delivers');
    // The row is there again: an ingest in progress holds the device back as before.
    await store.storeEvents(dev, STREAM, batch(4, 2), T0 + 2);
    await admin.query('BEGIN');
    await admin.query('SELECT device_id FROM delivery_locks WHERE device_id = $1 FOR KEY SHARE', [dev]);
    assert.deepEqual(await claimAndDeliver(hook, T0 + 3), [], 'held while a batch of the device is being stored');
    await admin.query('COMMIT');
    assert.deepEqual(await claimAndDeliver(hook, T0 + 4), [[4, 5]]);
  } finally {
    await admin.end();
  }
});
