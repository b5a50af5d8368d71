// Webhooks across processes: `beacon cloud webhook ...` on the command line; the cloud killed
// (SIGKILL) while it holds a POST, on SQLite and PostgreSQL, delivers the event after a restart
// with the same idempotency key; two workers on PostgreSQL behind Mosquitto deliver every event
// with never more than one attempt in flight for it.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { DeviceClient, MemoryStorage } from '../src/cloud/deviceClient';
import { openStore } from '../src/cloud/store';
import {
  beaconSync,
  CloudProcess,
  deviceId,
  freePort,
  MOSQUITTO,
  MOSQUITTO_MISSING,
  MosquittoServer,
  PgServer,
  postgresBin,
  POSTGRES_MISSING,
  startCloudProcess,
  startMosquitto,
  startPostgres,
  tmpDir,
  waitFor,
} from '../src/cloud/testkit';
import { workers, WorkersLayout } from './cloudLayouts';
import { Receiver, startReceiver } from './webhookReceiver';

const dir = tmpDir('beacon-webhooks-proc-');
const TOKEN = 'webhooks-token';

let pg: PgServer | undefined;
before(async () => {
  if (postgresBin()) pg = await startPostgres();
});
after(() => pg?.stop());

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return beaconSync(['cloud', ...args]);
}

test('beacon cloud webhook: add shows the secret once, list does not; bad input named; dead, replay, remove', () => {
  const db = path.join(dir, 'cli.db');
  const dev = deviceId();
  const add = cli(['webhook', 'add', 'https://hooks.example.com/beacon', '--type', 'temp,door', '--device', dev.toUpperCase(), '--retry-for', '2h', '--db', db, '--json']);
  assert.equal(add.status, 0, add.stderr);
  const w = JSON.parse(add.stdout) as { id: number; secret: string; types: string[]; devices: string[]; retryFor: number };
  assert.match(w.secret, /^whsec_[0-9a-f]{64}$/);
  assert.deepEqual([w.types, w.devices, w.retryFor], [['temp', 'door'], [dev], 7_200_000]);
  const plain = cli(['webhook', 'add', 'http://127.0.0.1:9/x', '--db', db]);
  assert.equal(plain.status, 0, plain.stderr);
  assert.match(plain.stdout, /^webhook: 2\nurl: +http:\/\/127\.0\.0\.1:9\/x\ntypes: +all\ndevices: +all\nsecret: +whsec_[0-9a-f]{64}\n$/);
  assert.match(plain.stderr, /shown only this once/);
  const list = cli(['webhook', 'list', '--db', db, '--json']);
  assert.equal(list.status, 0);
  assert.ok(!list.stdout.includes('whsec_'), 'the list does not show secrets');
  assert.deepEqual((JSON.parse(list.stdout) as { id: number }[]).map((x) => x.id), [1, 2]);
  assert.match(cli(['webhook', 'list', '--db', db]).stdout, /^1 {2}https:\/\/hooks\.example\.com\/beacon {2}types: temp,door {2}devices: [0-9a-f]+ {2}retry for 2h {2}0 pending {2}0 dead\n/);

  const bad: [string[], RegExp][] = [
    [['webhook', 'add', 'ftp://x/y'], /url: only http and https receivers, not 'ftp'/],
    [['webhook', 'add', 'http://example.com/x'], /plain http:\/\/ only to a loopback receiver.*--allow-http/],
    [['webhook', 'add', 'https://x.example/y', '--retry-for', '90'], /--retry-for needs a unit/],
    [['webhook', 'add', 'https://x.example/y', '--device', 'nothex'], /--device: 'nothex' is not a device public id/],
    [['webhook', 'add'], /webhook add needs the receiver's URL/],
    [['webhook', 'remove', 'one'], /'one' is not a webhook id/],
    [['webhook', 'launch'], /unknown webhook action 'launch'/],
  ];
  for (const [args, error] of bad) {
    const r = cli([...args, '--db', db]);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, error);
  }
  assert.equal(cli(['webhook', 'add', 'http://example.com/x', '--allow-http', '--db', db]).status, 0);
  assert.equal(cli(['webhook', 'dead', '1', '--db', db, '--json']).stdout, '[]\n');
  assert.match(cli(['webhook', 'replay', '1', '--db', db]).stdout, /^0 dead letters of webhook 1 back in its outbox\n$/);
  assert.equal(cli(['webhook', 'remove', '2', '--db', db]).status, 0);
  const missing = cli(['webhook', 'remove', '2', '--db', db]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /no webhook 2/);
});

function killSuite(kind: 'sqlite' | 'postgres'): void {
  const skip = kind === 'postgres' && !postgresBin() ? POSTGRES_MISSING : false;
  test(`${kind}: the cloud killed while it holds a POST delivers the event after a restart, with the same idempotency key`, { skip }, async () => {
    const db = kind === 'sqlite' ? path.join(dir, 'kill.db') : await (pg as PgServer).createDatabase('webhook_kill');
    // The first attempt at each event is held until the cloud is gone; later ones are answered.
    const r = await startReceiver((_, n) => (n === 1 ? 'hang' : 200));
    const add = cli(['webhook', 'add', r.url, '--db', db, '--json']);
    assert.equal(add.status, 0, add.stderr);
    r.secret = (JSON.parse(add.stdout) as { secret: string }).secret;
    const id = deviceId();
    const password = (JSON.parse(cli(['device', 'add', id, '--db', db, '--json']).stdout) as { password: string }).password;
    const args = ['--db', db, '--port', String(await freePort()), '--http-port', '0', '--token', TOKEN, '--webhook-timeout', '2s', '--webhook-retry-base', '100ms'];
    let cloud: CloudProcess = await startCloudProcess(args);
    try {
      const dev = new DeviceClient({ id, password, url: cloud.mqttUrl, storage: new MemoryStorage() });
      for (let i = 1; i <= 3; i++) dev.enqueue('temp', { i }, { volatile: false });
      assert.equal((await dev.sync()).acked, 3);
      await waitFor('the first POST', () => (r.requests.length >= 1 ? true : undefined), 400, 25);
      // Committed, POSTed, not answered: the cloud dies now.
      await cloud.kill('SIGKILL');
      const held = r.requests[0].key;
      assert.equal(r.accepted().length, 0);
      cloud = await startCloudProcess(args);
      // PostgreSQL: the dead process's lease (2 x timeout + 5 s) runs out first.
      await waitFor('every event delivered after the restart', () => (new Set(r.accepted().map((x) => x.body.seq)).size >= 3 ? true : undefined), 800, 50);
      assert.equal(held, `${id}:${r.requests[0].body.stream}:1`);
      assert.ok(r.accepted().some((x) => x.key === held), 'the held event was delivered, with the same key');
      assert.deepEqual(r.accepted().map((x) => x.body.seq), [1, 2, 3]);
      assert.ok(r.requests.every((x) => x.signatureOk));
    } finally {
      await cloud.kill('SIGKILL');
      await r.close();
    }
  });
}

killSuite('sqlite');
killSuite('postgres');

describe('two workers on PostgreSQL behind Mosquitto', { skip: !postgresBin() ? POSTGRES_MISSING : !MOSQUITTO ? MOSQUITTO_MISSING : false }, () => {
  let db: string;
  let broker: MosquittoServer;
  let layout: WorkersLayout;
  let r: Receiver;

  before(async () => {
    db = await (pg as PgServer).createDatabase('webhook_workers');
    const store = await openStore(db);
    broker = await startMosquitto(store);
    await store.close();
    // Every 4th request fails, so events are claimed again after a retry, by either worker.
    let n = 0;
    r = await startReceiver(() => ({ status: ++n % 4 === 0 ? 500 : 200, afterMs: 3 }));
    const add = cli(['webhook', 'add', r.url, '--db', db, '--json']);
    r.secret = (JSON.parse(add.stdout) as { secret: string }).secret;
    layout = await workers(db, TOKEN, broker, 2, ['--webhook-retry-base', '50ms', '--webhook-timeout', '2s']);
    await layout.start();
  });
  after(async () => {
    await layout?.kill('SIGTERM');
    await broker?.kill();
    await r?.close();
  });

  test('every event delivered, never more than one attempt in flight for one event', async () => {
    const devices: DeviceClient[] = [];
    for (let i = 0; i < 6; i++) {
      const id = deviceId();
      const password = await layout.addDevice(id);
      devices.push(new DeviceClient({ id, password, url: broker.url, storage: new MemoryStorage(), batchEvents: 5, window: 2 }));
    }
    for (const d of devices) for (let i = 0; i < 20; i++) d.enqueue('temp', { i }, { volatile: false });
    const synced = await Promise.all(devices.map((d) => d.sync()));
    assert.deepEqual(synced.map((s) => s.acked), devices.map(() => 20));
    const keys = new Set(devices.flatMap((d) => Array.from({ length: 20 }, (_, i) => `${d.id}:${i + 1}`)));
    await waitFor('120 events delivered', () => (new Set(r.accepted().map((x) => `${x.body.deviceId}:${x.body.seq}`)).size >= keys.size ? true : undefined), 800, 50);
    assert.equal(r.maxConcurrentPerKey, 1);
    assert.ok(r.requests.some((x) => x.attempt > 1), 'some events were retried');
    assert.ok(r.requests.every((x) => x.signatureOk));
    const perWorker: number[] = [];
    for (const w of layout.processes()) {
      const h = (await (await fetch(`${w.httpUrl}/api/health`)).json()) as { webhooks: { delivered: number } };
      perWorker.push(h.webhooks.delivered);
    }
    assert.equal(perWorker.reduce((a, b) => a + b, 0) >= keys.size, true, `deliveries per worker: ${perWorker.join(', ')}`);
  });
});
