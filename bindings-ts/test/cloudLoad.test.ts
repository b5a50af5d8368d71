// `beacon cloud load`, the load generator: its lean device against the protocol's own decoders,
// its options, and whole runs against the embedded cloud (SQLite) and, where they are
// installed, Mosquitto with `beacon cloud --broker` on PostgreSQL in a child process. After
// every run the store is read independently of the generator's own count: each device's events
// of the run are exactly the sequence numbers 1..K, each once. A cloud stopped and killed in the
// middle of a run, then started again on its store, costs reconnects and nothing else.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import Aedes from 'aedes';
import Database from 'better-sqlite3';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import { Client } from 'pg';
import { LoadDevice, loadPayload, SyncSettings } from '../src/cloud/loadDevice';
import { fleetTag, loadDeviceId, LOAD_SECRET_SETTING } from '../src/cloud/loadFleet';
import { LoadReport, resolveLoadOptions, runLoad } from '../src/cloud/loadGen';
import { decodeBatch, encodeBatch, payloadSize } from '../src/cloud/protocol';
import { Cloud, startCloud } from '../src/cloud/service';
import { CloudStore, openStore } from '../src/cloud/store';
import {
  BEACON,
  CloudProcess,
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
import { allEvents, runChild } from './childProcess';

const dir = tmpDir('beacon-cloud-load-test-');
const quiet = (): void => undefined;
let dbCounter = 0;
const newDb = (): string => path.join(dir, `cloud-${++dbCounter}.db`);

function beacon(args: string[]): ReturnType<typeof runChild> {
  return runChild(process.execPath, [BEACON, ...args], 120_000);
}

/**
 * Each load device's events of the run, read through the store's own API (not the generator's
 * SQL count): per device, the sequence numbers stored under the run's tag, in order.
 */
async function storedSeqs(store: CloudStore, report: LoadReport): Promise<number[][]> {
  const secret = await store.setting(LOAD_SECRET_SETTING);
  assert.ok(secret, 'the store keeps the load secret');
  const tag = fleetTag(secret);
  const out: number[][] = [];
  for (let i = 0; i < report.devices; i++) {
    const events = (await allEvents(store, loadDeviceId(tag, i))).filter((e) => e.type === report.tag);
    assert.ok(events.every((e) => e.stream === events[0].stream), 'one stream per device and run');
    out.push(events.map((e) => e.seq).sort((a, b) => a - b));
  }
  return out;
}

function assertEveryEventOnce(seqs: number[][], perDevice: number): void {
  const want = Array.from({ length: perDevice }, (_, i) => i + 1);
  seqs.forEach((s, i) => assert.deepEqual(s, want, `device ${i}: events 1..${perDevice}, each once`));
}

function assertGoodRun(r: LoadReport, devices: number, events: number): void {
  assert.equal(r.ok, true, r.failure);
  assert.equal(r.eventsGenerated, devices * events);
  assert.equal(r.eventsAcked, devices * events);
  assert.equal(r.eventsStored, devices * events);
  assert.equal(r.duplicatesInStore, 0);
  assert.ok(r.ackLatencyMs, 'latencies measured');
  assert.ok(r.ackLatencyMs.p50 > 0 && r.ackLatencyMs.p50 <= r.ackLatencyMs.p99 && r.ackLatencyMs.p99 <= r.ackLatencyMs.max, JSON.stringify(r.ackLatencyMs));
  assert.ok(r.eventsPerS !== null && r.eventsPerS > 0 && r.spanS !== null && r.spanS > 0);
  assert.ok(r.peakRssMb > 0 && r.generatorCpuS > 0);
}

const SETTINGS: SyncSettings = { batch: 4, window: 4, timeoutMs: 1000, holdMs: 0, payloadBytes: 200, type: 'load-test' };

test('the payload of every size from 1 to 8,192 bytes is exactly that size, whatever the sequence number', () => {
  for (const seq of [1, 23, 24, 255, 256, 65_535, 65_536, 2 ** 32]) {
    for (let bytes = 1; bytes <= 8192; bytes++) assert.equal(payloadSize(loadPayload(seq, bytes)), bytes, `seq ${seq}, ${bytes} bytes`);
  }
});

test("a load device's batches decode with the cloud's decoder, and acknowledgements delete exactly their events", () => {
  const d = new LoadDevice('5eac0b1d00000000beac051a00000001', 'x');
  d.generate(10, 1_767_225_600_000);
  const first = d.nextBatch(0, 4, SETTINGS);
  assert.deepEqual(first.map((e) => e.seq), [1, 2, 3, 4]);
  const decoded = decodeBatch(encodeBatch({ stream: d.stream, events: first }));
  assert.deepEqual(decoded, { stream: d.stream, events: first });
  assert.ok(decoded.events.every((e, i) => !e.volatile && e.ts === 1_767_225_600_000 + i && payloadSize(e.payload) === 200));
  assert.equal(d.ack(1, 4), 4);
  assert.equal(d.ack(7, 8), 2, 'an acknowledgement out of order');
  assert.equal(d.ack(1, 4), 0, 'an acknowledgement again deletes nothing');
  d.generate(3, 1_767_225_700_000);
  const rest = d.nextBatch(0, 256, SETTINGS);
  assert.deepEqual(rest.map((e) => e.seq), [5, 6, 9, 10, 11, 12, 13]);
  assert.deepEqual(rest.map((e) => e.ts - 1_767_225_600_000), [4, 5, 8, 9, 100_000, 100_001, 100_002], 'each event keeps its timestamp');
  const again = decodeBatch(encodeBatch({ stream: d.stream, events: rest }));
  assert.deepEqual(again.events.map((e) => e.seq), [5, 6, 9, 10, 11, 12, 13], 'the gaps travel as gaps');
  assert.equal(d.pending, 7);
});

test('bad options are refused with a message naming the option', async () => {
  const db = newDb();
  fs.writeFileSync(db, '');
  const ok = { broker: 'mqtt://127.0.0.1:1883', db, devices: 10 };
  const bad: [object, RegExp][] = [
    [{ devices: 0 }, /^--devices must be a whole number from 1 to 1,000,000/],
    [{ batch: 300 }, /^--batch must be a whole number from 1 to 256/],
    [{ payload: 9000 }, /^--payload must be a whole number from 1 to 8,192/],
    [{ batch: 256, payload: 200 }, /^--batch 256 with --payload 200 makes batches of up to [\d,]+ bytes, more than the protocol's 32,768/],
    [{ broker: '' }, /^--broker is required/],
    [{ broker: 'http://127.0.0.1:1883' }, /^--broker must be an mqtt:\/\/host:port or mqtts:\/\/host:port URL/],
    [{ db: '' }, /^--db is required/],
    [{ db: path.join(dir, 'none.db') }, /^--db: no SQLite file/],
    [{ periodMs: 1000 }, /^--period needs --duration/],
    [{ ca: path.join(dir, 'ca.pem') }, /^--ca needs TLS/],
    [{ tls: true, ca: path.join(dir, 'ca.pem') }, /^--ca: cannot read/],
    [{ mosquittoPid: 1 }, /^--mosquitto-pid needs --mosquitto-dir/],
    [{ window: 0 }, /^--window must be/],
    [{ timeoutMs: 5 }, /^--timeout must be at least 100 ms/],
  ];
  for (const [change, message] of bad) assert.throws(() => resolveLoadOptions({ ...ok, ...change }), { name: 'LoadOptionError', message }, JSON.stringify(change));
  assert.equal(resolveLoadOptions({ ...ok, batch: 150, payload: 200 }).settings.batch, 150, 'a batch that fits is fine');

  // The command line: usage errors (status 2) that name the option.
  const cli: [string[], RegExp][] = [
    [['--devices', '0', '--broker', 'mqtt://127.0.0.1:1', '--db', db], /--devices must be a whole number from 1/],
    [['--devices', '5', '--batch', '300', '--broker', 'mqtt://127.0.0.1:1', '--db', db], /--batch must be a whole number from 1 to 256/],
    [['--devices', '5', '--db', db], /--broker is required/],
    [['--broker', 'mqtt://127.0.0.1:1', '--db', db], /cloud load needs --devices/],
    [['--devices', 'many', '--broker', 'mqtt://127.0.0.1:1', '--db', db], /--devices must be a whole number, not 'many'/],
    [['--devices', '5', '--period', 'often', '--broker', 'mqtt://127.0.0.1:1', '--db', db], /--period: 'often' is not an interval/],
  ];
  for (const [args, message] of cli) {
    const r = await beacon(['cloud', 'load', ...args]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, message);
  }
});

describe('cloud load: the embedded cloud (SQLite)', () => {
  let cloud: Cloud;
  let db: string;

  before(async () => {
    db = newDb();
    cloud = await startCloud({ port: 0, httpPort: 0, db, log: quiet });
  });
  after(async () => {
    await cloud?.stop();
  });

  test('every event acknowledged, stored once; a second run reuses the credentials', async () => {
    const r = await runLoad({ broker: cloud.mqttUrl, db, devices: 30, events: 20, batch: 6, connections: 10, processes: 2, log: quiet });
    assertGoodRun(r, 30, 20);
    assert.deepEqual(r.credentials, { issued: 30, reused: 0 });
    assert.equal(r.syncs, 30);
    assert.equal(r.reconnects, 0);
    assert.deepEqual(r.errors, {});
    assert.ok(r.peakConnections >= 1 && r.peakConnections <= 10, `at most --connections open: ${r.peakConnections}`);
    assertEveryEventOnce(await storedSeqs(cloud.store, r), 20);

    const again = await runLoad({ broker: cloud.mqttUrl, db, devices: 40, events: 3, batch: 2, processes: 1 });
    assertGoodRun(again, 40, 3);
    assert.deepEqual(again.credentials, { issued: 10, reused: 30 }, 'only the new devices are hashed');
    assertEveryEventOnce(await storedSeqs(cloud.store, again), 3);
  });

  test('with --period each device syncs every period until --duration, with new events each time', async () => {
    // Phases spread over the first 200 ms, then every 200 ms before 1 s: five syncs' worth each.
    const r = await runLoad({ broker: cloud.mqttUrl, db, devices: 10, events: 3, batch: 2, periodMs: 200, durationMs: 1000 });
    assertGoodRun(r, 10, 15);
    assertEveryEventOnce(await storedSeqs(cloud.store, r), 15);
  });

  test('the command: --json prints one object with every figure; without it, one line per figure', async () => {
    const args = ['cloud', 'load', '--broker', cloud.mqttUrl, '--db', db, '--devices', '12', '--events', '5', '--batch', '2', '--payload', '64'];
    const j = await beacon([...args, '--json']);
    assert.equal(j.status, 0, j.stderr);
    const r = JSON.parse(j.stdout) as LoadReport;
    assertGoodRun(r, 12, 5);
    assert.match(r.tag, /^load-[0-9a-f]{8}$/);
    for (const key of ['devices', 'processes', 'connections', 'syncs', 'reconnects', 'failedSyncs', 'peakConnections']) {
      assert.equal(typeof (r as unknown as Record<string, unknown>)[key], 'number', key);
    }
    assert.deepEqual(r.errors, {});
    assertEveryEventOnce(await storedSeqs(cloud.store, r), 5);

    const h = await beacon(args);
    assert.equal(h.status, 0, h.stderr);
    for (const line of [/^events acknowledged: 60$/m, /^events in the store: 60 \(SQL count of type load-[0-9a-f]{8}\), 0 more than once$/m, /^events per second: [\d.]+ /m, /^ack latency p50: [\d.]+ ms$/m, /^ack latency p99: [\d.]+ ms$/m, /^reconnects: 0 /m, /^errors: none$/m, /^generator peak rss: [\d.]+ MB$/m]) {
      assert.match(h.stdout, line);
    }
  });
});

test('over TLS: the devices check the broker\'s certificate against --ca', { skip: spawnSync('openssl', ['version']).status === 0 ? false : 'openssl is not installed' }, async () => {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const db = newDb();
  const cloud = await startCloud({ port: 0, httpPort: 0, db, tls: { cert, key }, log: quiet });
  try {
    assert.match(cloud.mqttUrl, /^mqtts:/);
    const r = await runLoad({ broker: cloud.mqttUrl, db, devices: 6, events: 4, batch: 2, ca: cert, processes: 1 });
    assertGoodRun(r, 6, 4);
    assertEveryEventOnce(await storedSeqs(cloud.store, r), 4);
    // Without the CA the broker's certificate is not trusted: the run does not start.
    await assert.rejects(runLoad({ broker: cloud.mqttUrl, db, devices: 6, processes: 1 }), /cannot connect to the broker at mqtts:\/\/127\.0\.0\.1:\d+: .*certificate/);
  } finally {
    await cloud.stop();
  }
});

/** An MQTT broker that lets anyone in and where no cloud answers. */
async function deafBroker(): Promise<{ url: string; close(): Promise<void> }> {
  const aedes = new Aedes();
  const server = net.createServer(aedes.handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `mqtt://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () => new Promise<void>((r) => aedes.close(() => server.close(() => r()))),
  };
}

test('no cloud behind the broker: the run ends at --duration with exit status 1 and the reason', async () => {
  const db = newDb();
  (await openStore(db)).close();
  const broker = await deafBroker();
  try {
    const r = await beacon(['cloud', 'load', '--broker', broker.url, '--db', db, '--devices', '4', '--events', '3', '--timeout', '300ms', '--duration', '2s', '--json']);
    assert.equal(r.status, 1, r.stderr);
    const report = JSON.parse(r.stdout) as LoadReport;
    assert.equal(report.ok, false);
    assert.equal(report.eventsAcked, 0);
    // The broker acknowledges the sync start itself; nothing acknowledges the batches.
    assert.ok(report.errors.timeout_acks > 0 && report.reconnects > 0, JSON.stringify(report.errors));
    assert.match(report.errorSamples.timeout_acks, /no answer from the broker for 300 ms \(waiting for batch acknowledgements\)/);
    assert.match(r.stderr, /beacon cloud load: 12 of 12 events not acknowledged \(4 devices unfinished\) when --duration \(2000 ms\) ran out; failed syncs: timeout_acks/);
  } finally {
    await broker.close();
  }
});

/** Events in the store, all types: the test's own SQL, not the generator's. */
async function eventCount(db: string): Promise<number> {
  if (db.startsWith('postgres://')) {
    const c = new Client({ connectionString: db });
    await c.connect();
    try {
      return Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0].n);
    } finally {
      await c.end();
    }
  }
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  } finally {
    d.close();
  }
}

/**
 * Start a load of `total` events, and once the store holds some of them stop the cloud
 * (SIGSTOP: nothing more gets stored or acknowledged), check that the run is indeed unfinished,
 * kill it (SIGKILL), and start it again on the same store.
 */
async function loadThroughKill(
  cloud: CloudProcess,
  restart: () => Promise<CloudProcess>,
  db: string,
  run: () => Promise<LoadReport>,
  o: { before: number; events: number },
): Promise<{ report: LoadReport; restarted: CloudProcess }> {
  const running = run();
  let failed: unknown;
  running.catch((err) => (failed = err));
  await waitFor('the first events stored', async () => (failed ? Promise.reject(failed) : (await eventCount(db)) > o.before ? true : undefined), 3000, 10);
  cloud.child.kill('SIGSTOP');
  const stored = (await eventCount(db)) - o.before;
  assert.ok(stored < o.events, `the cloud was stopped with ${stored} of ${o.events} events stored (the run must not be over)`);
  await cloud.kill('SIGKILL');
  const restarted = await restart();
  return { report: await running, restarted };
}

test('the embedded cloud killed mid-load and started again: every event stored once, reconnects counted', async () => {
  const db = newDb();
  const port = await freePort();
  const start = (): Promise<CloudProcess> => startCloudProcess(['--port', String(port), '--http-port', '0', '--db', db]);
  const cloud = await start();
  let restarted: CloudProcess | undefined;
  try {
    const run = (): Promise<LoadReport> => runLoad({ broker: cloud.mqttUrl, db, devices: 50, events: 100, batch: 5, connections: 5, timeoutMs: 2000 });
    const done = await loadThroughKill(cloud, start, db, run, { before: 0, events: 5000 });
    restarted = done.restarted;
    const r = done.report;
    assertGoodRun(r, 50, 100);
    assert.ok(r.reconnects > 0, `reconnects: ${r.reconnects}`);
    assert.ok(Object.keys(r.errors).some((k) => /^(connection_closed|connect_refused|timeout_)/.test(k)), JSON.stringify(r.errors));
    const store = await openStore(db);
    try {
      assertEveryEventOnce(await storedSeqs(store, r), 100);
    } finally {
      await store.close();
    }
  } finally {
    await cloud.kill();
    await restarted?.kill('SIGTERM');
  }
});

describe('cloud load: Mosquitto and `beacon cloud --broker` on PostgreSQL', { skip: !MOSQUITTO ? MOSQUITTO_MISSING : !postgresBin() ? POSTGRES_MISSING : false }, () => {
  let pg: PgServer;
  let url: string;
  let store: CloudStore;
  let m: MosquittoServer;
  let cloud: CloudProcess | undefined;
  const startWorker = (): Promise<CloudProcess> => startCloudProcess(['--broker', m.serviceUrl, '--db', url, '--mosquitto-dir', m.dir, '--mosquitto-pid', m.pidFile, '--http-port', '0']);

  before(async () => {
    pg = await startPostgres({ fsync: false });
    url = await pg.createDatabase('load');
    store = await openStore(url);
    m = await startMosquitto(store);
    cloud = await startWorker();
  });
  after(async () => {
    await cloud?.kill('SIGTERM');
    await m?.kill();
    await store?.close();
    pg?.stop();
  });

  test('the command through Mosquitto: credentials into its password file, every event stored once', async () => {
    const r = await beacon(['cloud', 'load', '--broker', m.url, '--db', url, '--mosquitto-dir', m.dir, '--mosquitto-pid', m.pidFile, '--devices', '40', '--events', '25', '--batch', '5', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout) as LoadReport;
    assertGoodRun(report, 40, 25);
    assert.equal(report.reconnects, 0);
    assert.match(fs.readFileSync(path.join(m.dir, 'passwd'), 'utf8'), new RegExp(`^${loadDeviceId(fleetTag((await store.setting(LOAD_SECRET_SETTING))!), 39)}:\\$7\\$`, 'm'));
    assertEveryEventOnce(await storedSeqs(store, report), 25);
  });

  test('the cloud worker killed mid-load and started again: every event stored once, reconnects counted', async () => {
    const before = await eventCount(url);
    assert.equal(before, 1000, 'the store holds the previous test\'s events only');
    const run = (): Promise<LoadReport> => runLoad({ broker: m.url, db: url, mosquittoDir: m.dir, mosquittoPid: m.pid(), devices: 50, events: 100, batch: 5, connections: 10, timeoutMs: 2000 });
    const done = await loadThroughKill(cloud!, startWorker, url, run, { before, events: 5000 });
    cloud = done.restarted;
    const r = done.report;
    assertGoodRun(r, 50, 100);
    // Mosquitto keeps the devices' connections: they time out waiting for the cloud.
    assert.ok(r.reconnects > 0 && Object.keys(r.errors).some((k) => k.startsWith('timeout_')), `reconnects ${r.reconnects}, errors ${JSON.stringify(r.errors)}`);
    assertEveryEventOnce(await storedSeqs(store, r), 100);
  });
});
