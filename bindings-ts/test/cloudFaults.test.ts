// The device's cloud side under faults, end to end on loopback: the real simulator (the runtime's
// C queue and sync over libmosquitto, tests/cloud/faults.ts) syncs with the real `beacon cloud`
// through a fault-injecting MQTT proxy (src/cloud/faultProxy.ts), on SQLite and on PostgreSQL.
// The cloud is killed, and stopped, in the middle of a sync and started again on the same
// database; the link drops after a batch was committed, before its acknowledgement reached the
// device; batches arrive twice, out of order and late; the device loses power while it enqueues
// and while a sync records messages and acknowledgements; messages are queued through the HTTP
// API before and during all this. Afterwards every non-volatile event the app queued is in the
// store exactly once, under the sequence number the device gave it, and every message reached
// the app exactly once.
//
// The simulator runs in virtual time: a failed sync's retries (after 1, 2, 4... minutes) come at
// once in real time, so while the cloud is down the proxy refuses one connection and holds the
// next until the cloud is back (the device waits for its CONNACK, as on a slow network).
//
// The same suite runs against the firmware (JerryScript on nrf52_bsim): its own cloud client
// (Zephyr's MQTT library over the board's socket provider, src/port/zephyr/host_sockets_bsim.c)
// instead of the simulator's libmosquitto transport, with the same app, faults and checks. The
// device's time holds while it waits on the host's network, so the proxy's holds work the same.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { after, before, describe, test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';
import { compileApp, ensureHostTools } from '../src/compiler';
import { simArgs } from '../src/cli/run';
import { issueCredentials, openStore, startCloud } from '../src/cloud';
import type { Cloud, CloudStore, StoredEvent } from '../src/cloud';
import { FaultProxy, startFaultProxy } from '../src/cloud/faultProxy';
import { CloudProcess, freePort, PgServer, postgresBin, POSTGRES_MISSING, startCloudProcess, startPostgres, tmpDir } from '../src/cloud/testkit';
import { loadScenario, lowerScenario } from '../src/world/scenario';
import { workspaceMissing } from '../src/firmware/workspace';
import { allEvents as eventsOfDevice, runChild } from './childProcess';

const dir = tmpDir('beacon-cloud-faults-');
const appSource = path.join(path.dirname(toolsRoot()), 'tests', 'cloud', 'faults.ts');
// The simulator's first device (its public id is fixed).
const ID = '5eac0b1d00004d0cbeac051a00000001';
const TOKEN = 'faults-token';
const RUN_MS = 40 * 60_000;
const quiet = (): void => undefined;

let sim = '';
let bapp = '';
let hasMosquitto = true;

before(async () => {
  [sim] = await ensureHostTools(['beacon-sim'], 'duktape');
  bapp = path.join(dir, 'faults.bapp');
  await compileApp({ entry: appSource, apiVersion: '0.2.6', engine: 'duktape', outFile: bapp });
  const probe = await runSim(['--for', '1000', '--cloud', 'mqtt://127.0.0.1:1', '--cloud-secret', 'x', bapp]);
  hasMosquitto = !/without libmosquitto/.test(probe.stderr);
});

const runSim = (args: string[]) => runChild(sim, args, 120_000);

/** Where the device runs: the simulator, or the firmware on nrf52_bsim. */
type Target = 'sim' | 'bsim';
let firmware: { image: string; bapp: string } | undefined;

/** The firmware's image and the app built for its engine (once). */
async function firmwareDevice(): Promise<{ image: string; bapp: string }> {
  if (firmware === undefined) {
    const { ensureZephyrImage } = await import('../src/firmware/zephyr');
    const image = await ensureZephyrImage('bsim', 'jerryscript');
    const jerry = path.join(dir, 'faults-jerryscript.bapp');
    await compileApp({ entry: appSource, apiVersion: '0.2.6', engine: 'jerryscript', outFile: jerry });
    firmware = { image, bapp: jerry };
  }
  return firmware;
}

/** A world of the simulator's one device with these scenario events (power cuts). */
function worldScript(name: string, events: object[]): string {
  const file = path.join(dir, `${name}.world.json`);
  fs.writeFileSync(file, JSON.stringify({ events }));
  const script = path.join(dir, `${name}.script`);
  fs.writeFileSync(script, lowerScenario(loadScenario(file), file).script);
  return script;
}

const allEvents = (store: CloudStore) => eventsOfDevice(store, ID);

async function postMessage(httpUrl: string, k: number): Promise<void> {
  const res = await fetch(`${httpUrl}/api/devices/${ID}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'cmd', payload: { k } }),
  });
  assert.equal(res.status, 201, await res.text());
}

interface Outcome {
  queued: number;
  events: number;
  messages: number;
  resets: number;
  syncs: { ok: number; failed: number };
}

/**
 * What the run must have left: every event whose cloud.enqueue returned (the app printed
 * "queued B N" after it) stored once, under the sequence number the device's trace gave it; the
 * only other non-volatile events an enqueue cut short by a power cut (the event after the last
 * one its boot printed); no volatile event twice; each message printed by the app once, all
 * marked delivered; the run's last sync a success.
 */
async function verify(store: CloudStore, trace: string, stdout: string, sent: number[]): Promise<Outcome> {
  const lines = stdout.trim().split('\n');
  const records = fs
    .readFileSync(trace, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { ev: string; op?: string; seq?: number; volatile?: boolean; text?: string });
  // The sequence number the device gave each non-volatile event, from its enqueue record.
  const seqOf = new Map<string, number>();
  let lastSeq: number | undefined;
  for (const r of records) {
    if (r.ev === 'cloud' && r.op === 'enqueue' && r.volatile === false) lastSeq = r.seq;
    const m = r.ev === 'print' ? /^queued (\d+) (\d+)$/.exec(r.text ?? '') : null;
    if (m) {
      assert.ok(lastSeq !== undefined, `no enqueue record before '${r.text}'`);
      seqOf.set(`${m[1]}:${m[2]}`, lastSeq);
      lastSeq = undefined;
    }
  }
  const queued = lines.filter((l) => l.startsWith('queued ')).map((l) => l.slice(7).replace(' ', ':'));
  assert.equal(seqOf.size, queued.length, 'the trace and the output agree on the events queued');
  const lastOfBoot = new Map<number, number>();
  for (const q of queued) {
    const [b, n] = q.split(':').map(Number);
    lastOfBoot.set(b, Math.max(lastOfBoot.get(b) ?? 0, n));
  }

  const events = await allEvents(store);
  const streams = new Set(events.map((e) => e.stream));
  assert.equal(streams.size, 1, 'one device queue, one stream');
  const stored = new Map<string, StoredEvent[]>();
  const volatileSeen = new Map<string, number>();
  for (const e of events) {
    const p = e.payload as { boot: number; n: number };
    const key = `${p.boot}:${p.n}`;
    if (e.type === 'n') {
      assert.equal(e.volatile, false);
      stored.set(key, [...(stored.get(key) ?? []), e]);
    } else {
      assert.equal(e.type, 'v');
      volatileSeen.set(key, (volatileSeen.get(key) ?? 0) + 1);
    }
  }
  for (const q of queued) {
    const got = stored.get(q) ?? [];
    assert.equal(got.length, 1, `event ${q} stored ${got.length} times`);
    assert.equal(got[0].seq, seqOf.get(q), `event ${q} under the device's sequence number`);
  }
  const seqs = events.map((e) => e.seq);
  assert.equal(new Set(seqs).size, seqs.length, 'no sequence number twice');
  for (const key of stored.keys()) {
    if (seqOf.has(key)) continue;
    // Only the enqueue a power cut interrupted may have reached flash without returning.
    const [b, n] = key.split(':').map(Number);
    assert.equal(n, (lastOfBoot.get(b) ?? 0) + 1, `event ${key} stored but never queued`);
    assert.equal(stored.get(key)!.length, 1);
  }
  assert.ok([...volatileSeen.values()].every((c) => c === 1), 'no volatile event twice');

  const received = lines.filter((l) => l.startsWith('message ')).map((l) => {
    const m = /^message cmd (\{.*\})$/.exec(l);
    assert.ok(m, l);
    return (JSON.parse(m[1]) as { k: number }).k;
  });
  assert.deepEqual([...received].sort((a, b) => a - b), [...sent].sort((a, b) => a - b), 'every message reached the app once');
  const messages = await store.messages(ID);
  assert.equal(messages.length, sent.length);
  assert.ok(messages.every((m) => m.delivered !== undefined && m.delivered !== null), 'every message marked delivered');

  const syncs = lines.filter((l) => l.startsWith('sync '));
  assert.equal(syncs[syncs.length - 1], 'sync ok', 'the last sync succeeded');
  return {
    queued: queued.length,
    events: events.length,
    messages: received.length,
    resets: lines.filter((l) => l.startsWith('boot ')).length - 1,
    syncs: { ok: syncs.filter((s) => s === 'sync ok').length, failed: syncs.filter((s) => s !== 'sync ok').length },
  };
}

type NewDb = (name: string) => Promise<string>;

/** The device's secret in a fresh database (before any cloud runs on it). */
async function provision(db: string): Promise<string> {
  const store = await openStore(db);
  try {
    return (await issueCredentials(store, ID)).password;
  } finally {
    await store.close();
  }
}

async function deviceRun(target: Target, name: string, proxy: FaultProxy, secret: string, world?: string): Promise<{ stdout: string; trace: string }> {
  const trace = path.join(dir, `${name}.trace.jsonl`);
  const options = { realtime: false, forMs: RUN_MS, trace, cloud: proxy.url, cloudSecret: secret, world };
  if (target === 'bsim') {
    const fw = await firmwareDevice();
    const { runZephyrFirmware } = await import('../src/firmware/zephyr');
    const r = await runZephyrFirmware('bsim', fw.image, simArgs(fw.bapp, options), { forMs: RUN_MS });
    assert.equal(r.status, 0, r.stderr);
    return { stdout: r.stdout, trace };
  }
  const r = await runSim(simArgs(bapp, options));
  assert.equal(r.status, 0, r.stderr);
  return { stdout: r.stdout, trace };
}

function report(t: { diagnostic(m: string): void }, o: Outcome, proxy: FaultProxy, ms: number): void {
  const s = proxy.stats;
  t.diagnostic(
    `queued ${o.queued} non-volatile events, ${o.events} stored; ${o.messages} messages; ${o.resets} power cuts; ` +
      `syncs ${o.syncs.ok} ok, ${o.syncs.failed} failed; proxy: ${s.connections} connections, ${s.refused} refused, ` +
      `${s.batches} batches, ${s.events} events, ${s.retransmitted} retransmitted, ${s.duplicated} duplicated, ` +
      `${s.reordered} reordered, ${s.cuts} cut before the ack, ${s.messageCuts} before a message frame, ${s.messageIds.length - new Set(s.messageIds).size} messages sent again; ${ms} ms`,
  );
}

/** An in-process cloud on a fresh database, behind a fault proxy. */
async function withCloud(
  newDb: NewDb,
  name: string,
  fn: (c: { cloud: Cloud; proxy: FaultProxy; secret: string; sent: number[]; send: (k: number) => Promise<void> }) => Promise<{ stdout: string; trace: string }>,
  t: { diagnostic(m: string): void },
): Promise<void> {
  const started = Date.now();
  const db = await newDb(name);
  const secret = await provision(db);
  const cloud = await startCloud({ db, port: 0, httpPort: 0, token: TOKEN, log: quiet });
  const proxy = await startFaultProxy({ port: Number(new URL(cloud.mqttUrl).port) });
  const sent: number[] = [];
  const send = async (k: number): Promise<void> => {
    await postMessage(cloud.httpUrl, k);
    sent.push(k);
  };
  try {
    const run = await fn({ cloud, proxy, secret, sent, send });
    const outcome = await verify(cloud.store, run.trace, run.stdout, sent);
    report(t, outcome, proxy, Date.now() - started);
  } finally {
    await proxy.close();
    await cloud.stop();
  }
}

function faultSuite(kind: string, newDb: () => NewDb, target: Target = 'sim'): void {
  test(`${kind}: the cloud killed or stopped in the middle of a sync and started again on the same database`, async (t) => {
    if (target === 'sim' && !hasMosquitto) return t.skip('beacon-sim built without libmosquitto');
    const started = Date.now();
    const db = await newDb()('killed');
    const secret = await provision(db);
    const port = await freePort();
    const args = ['--db', db, '--port', String(port), '--http-port', '0', '--token', TOKEN];
    let cloud: CloudProcess = await startCloudProcess(args);
    const proxy = await startFaultProxy({ port });
    const sent: number[] = [];
    const send = async (k: number): Promise<void> => {
      await postMessage(cloud.httpUrl, k);
      sent.push(k);
    };
    // The cloud dies twice while a batch is on its way (it may or may not have committed it):
    // killed outright in the first sync, stopped (SIGTERM) in a later one. Each time the
    // device's first retry is refused and the next one waits until the cloud runs again on the
    // same database, with a message queued meanwhile.
    const stops: { atBatch: number; signal: NodeJS.Signals }[] = [
      { atBatch: 2, signal: 'SIGKILL' },
      { atBatch: 14, signal: 'SIGTERM' },
    ];
    let restarted: Promise<void> = Promise.resolve();
    let restarts = 0;
    try {
      await send(1);
      await send(2);
      proxy.onBatch((n) => {
        const stop = stops.find((s) => s.atBatch === n);
        if (!stop) return;
        proxy.pause(1);
        restarted = restarted.then(async () => {
          await cloud.kill(stop.signal);
          cloud = await startCloudProcess(args);
          restarts++;
          await send(restarts + 2);
          proxy.resume();
        });
      });
      const run = await deviceRun(target, `${kind}-killed`, proxy, secret);
      await restarted;
      assert.equal(restarts, 2, 'the cloud was stopped twice in the middle of a sync');
      assert.equal(proxy.stats.refused, 2);
      await cloud.kill('SIGTERM');
      const store = await openStore(db);
      try {
        const outcome = await verify(store, run.trace, run.stdout, sent);
        assert.ok(outcome.syncs.failed >= 4, 'the syncs the cloud died in and the refused retries failed');
        report(t, outcome, proxy, Date.now() - started);
      } finally {
        await store.close();
      }
    } finally {
      await proxy.close();
      await cloud.kill('SIGKILL');
    }
  });

  test(`${kind}: the connection dropped after the upload, before the acknowledgement`, async (t) => {
    if (target === 'sim' && !hasMosquitto) return t.skip('beacon-sim built without libmosquitto');
    await withCloud(
      newDb(),
      'cut',
      async ({ proxy, secret, send }) => {
        await send(1);
        // The first sync loses the link as its message frame arrives (message 1 is sent again at
        // the next sync start); the next two attempts at their first acknowledgement; the fifth
        // connection (the sync after the first that went through) too, with a message queued
        // while its batches are in flight.
        proxy.cutAtMessages(1);
        let armed = 0;
        // The connection of the first sync that goes through after the two cuts: counted, not
        // assumed, since how many syncs come in between depends on when the queue counts as
        // nearly full (docs/cloud.md).
        let through = 0;
        proxy.onBatch(async () => {
          if (armed === 0 && proxy.stats.messageCuts === 1) {
            armed = 1;
            proxy.cutAtAck(2);
          } else if (armed === 1 && proxy.stats.cuts === 2 && through === 0) {
            through = proxy.stats.connections;
          } else if (armed === 1 && through > 0 && proxy.stats.connections > through) {
            // The first batch of the sync after the first one that went through.
            // The device's next connection waits until message 2 is stored: in virtual time its
            // retry comes at once, and its sync start must find the message there.
            armed = 2;
            proxy.cutAtAck(1);
            proxy.pause();
            await send(2);
            proxy.resume();
          }
        });
        const run = await deviceRun(target, `${kind}-cut`, proxy, secret);
        assert.equal(proxy.stats.messageCuts, 1);
        assert.equal(proxy.stats.cuts, 3);
        assert.ok(proxy.stats.retransmitted > 0, 'the batches cut off were sent again');
        return run;
      },
      t,
    );
  });

  test(`${kind}: duplicated, reordered and late batches`, async (t) => {
    if (target === 'sim' && !hasMosquitto) return t.skip('beacon-sim built without libmosquitto');
    await withCloud(
      newDb(),
      'dup',
      async ({ proxy, secret, send }) => {
        await send(1);
        await send(2);
        proxy.delay(20);
        proxy.reorder(1);
        proxy.duplicate(1);
        let again = false;
        proxy.onBatch(async (n) => {
          if (n > 6 && !again) {
            again = true;
            proxy.reorder(1);
            proxy.duplicate(2);
            proxy.pause(); // the next sync start finds message 3 stored
            await send(3);
            proxy.resume();
          }
        });
        const run = await deviceRun(target, `${kind}-dup`, proxy, secret);
        assert.equal(proxy.stats.reordered, 2);
        assert.equal(proxy.stats.duplicated, 3);
        return run;
      },
      t,
    );
  });

  test(`${kind}: a second run on erased flash starts a new stream, none of its events taken for duplicates`, async (t) => {
    if (target === 'sim' && !hasMosquitto) return t.skip('beacon-sim built without libmosquitto');
    // Without --flash every run starts with an erased queue, at sequence number 1 again: only a
    // new stream id keeps the cloud from acknowledging its events as the earlier run's.
    const db = await newDb()('rerun');
    const secret = await provision(db);
    const cloud = await startCloud({ db, port: 0, httpPort: 0, token: TOKEN, log: quiet });
    const proxy = await startFaultProxy({ port: Number(new URL(cloud.mqttUrl).port) });
    try {
      const queued: number[] = [];
      for (const n of [1, 2]) {
        const run = await deviceRun(target, `${kind}-rerun-${n}`, proxy, secret);
        queued.push(run.stdout.split('\n').filter((l) => l.startsWith('queued ')).length);
      }
      const events = (await allEvents(cloud.store)).filter((e) => e.type === 'n');
      const streams = [...new Set(events.map((e) => e.stream))];
      assert.equal(streams.length, 2, 'two runs, two streams');
      for (const s of streams) {
        const seqs = events.filter((e) => e.stream === s).map((e) => e.seq);
        assert.equal(seqs.length, queued[0], 'every event of each run stored');
        assert.equal(new Set(seqs).size, seqs.length);
      }
      assert.equal(events.length, queued[0] + queued[1]);
      assert.equal(cloud.core.counters.duplicates, 0);
      t.diagnostic(`two runs queued ${queued[0]} + ${queued[1]} non-volatile events; ${events.length} stored, in ${streams.length} streams`);
    } finally {
      await proxy.close();
      await cloud.stop();
    }
  });

  test(`${kind}: power cuts while enqueueing and while a sync runs`, async (t) => {
    if (target === 'sim' && !hasMosquitto) return t.skip('beacon-sim built without libmosquitto');
    await withCloud(
      newDb(),
      'power',
      async ({ proxy, secret, send }) => {
        for (let k = 1; k <= 3; k++) await send(k);
        // At 40 s the power goes in the middle of the fifth round of enqueues; the device boots
        // at 50 s and syncs 100 s later, when the second cut lands in the sync: with today's
        // flash layout, while the device records the third message (the first two reached the
        // app; the third is torn, sent again and handed over once in the next sync).
        const world = worldScript(`${kind}-power`, [
          { at: '40s', powerCut: { afterFlashOps: 150 } },
          { at: '150s', powerCut: { afterFlashOps: 140 } },
        ]);
        let queuedMore = false;
        proxy.onBatch(async () => {
          if (!queuedMore) {
            queuedMore = true;
            await send(4);
          }
        });
        const run = await deviceRun(target, `${kind}-power`, proxy, secret, world);
        // The first cut came in the middle of a round of ten enqueues.
        const firstBoot = run.stdout.split('\n').filter((l) => l.startsWith('queued 1 '));
        assert.ok(firstBoot.length > 0 && firstBoot.length % 10 !== 0, `the first boot queued ${firstBoot.length} events`);
        // The second came during a sync: a sync started and never ended before the reset.
        const trace = fs.readFileSync(run.trace, 'utf8');
        assert.match(trace, /"ev":"cloud-sync","phase":"start"\}\n(?:(?!"phase":"end").*\n)*.*"ev":"reset","cause":"power"/);
        return run;
      },
      t,
    );
  });
}

describe('cloud faults: sqlite', () => {
  faultSuite('sqlite', () => async (name) => path.join(dir, `${name}.db`));
});

// The firmware's own client, on SQLite (the store's side is the same on both stores).
describe('cloud faults: the firmware on nrf52_bsim', { skip: workspaceMissing('zephyr', 'jerryscript', 'bsim') }, () => {
  faultSuite('bsim', () => async (name) => path.join(dir, `bsim-${name}.db`), 'bsim');
  firmwareKilled();
});

/** The firmware's process whose board flash is in this file (it is on its command line). */
function killFirmware(flash: string): boolean {
  return spawnSync('pkill', ['-KILL', '-f', `flash=${flash}`]).status === 0;
}

/**
 * The firmware's process killed outright at each step of a sync, its board flash kept (the queue
 * and the app's records in the board's storage partition: --storage board), then booted again on
 * that flash: the first sync's connection held before its CONNACK, each of its batches when it
 * reached the cloud (before its acknowledgement), the first batch of the next sync. Each point
 * is a run of its own on a fresh database and flash.
 */
function firmwareKilled(): void {
  const points: { name: string; arm: (proxy: FaultProxy, kill: () => void) => void }[] = [
    {
      name: 'before the CONNACK',
      arm: (proxy, kill) => {
        // The connection is held (the device waits for its CONNACK), and the device dies there.
        proxy.pause(0);
        const timer = setInterval(() => {
          if (proxy.stats.connections > 0) {
            clearInterval(timer);
            kill();
            proxy.resume();
          }
        }, 20);
      },
    },
    ...[1, 2, 3, 4].map((at) => ({
      name: `at batch ${at}, committed and not acknowledged`,
      arm: (proxy: FaultProxy, kill: () => void) => proxy.onBatch((n) => (n === at ? kill() : undefined)),
    })),
    {
      name: 'at the first batch of the second sync',
      arm: (proxy: FaultProxy, kill: () => void) => {
        let firstSync = 0;
        proxy.onBatch((n) => {
          if (firstSync === 0 && proxy.stats.connections > 1) firstSync = n;
          if (firstSync > 0 && n === firstSync) kill();
        });
      },
    },
  ];
  for (const point of points) {
    test(`bsim: the firmware killed ${point.name}, booted again on its flash`, async (t) => {
      await withCloud(
        async (name) => path.join(dir, `bsim-${name}.db`),
        `killed-${points.indexOf(point)}`,
        async ({ proxy, secret, send }) => {
          await send(1);
          const fw = await firmwareDevice();
          const { runZephyrFirmware } = await import('../src/firmware/zephyr');
          const flash = path.join(dir, `killed-${points.indexOf(point)}.flash`);
          fs.rmSync(flash, { force: true });
          let killed = false;
          point.arm(proxy, () => {
            killed = killFirmware(flash);
          });
          const run = (trace: string, pkg: string[]) =>
            runZephyrFirmware('bsim', fw.image, ['--storage', 'board', ...simArgs(pkg, { realtime: false, forMs: RUN_MS, trace, cloud: proxy.url, cloudSecret: secret })], { forMs: RUN_MS, flashFile: flash });
          const traces = [path.join(dir, `killed-${points.indexOf(point)}-1.jsonl`), path.join(dir, `killed-${points.indexOf(point)}-2.jsonl`)];
          const first = await run(traces[0], [fw.bapp]);
          assert.ok(killed, `the firmware was not killed ${point.name}: ${first.stderr}`);
          assert.notEqual(first.status, 0, 'the killed run ended by itself');
          proxy.onBatch(undefined);
          await send(2);
          // The app comes from the board's app store, its queue from the storage partition.
          const second = await run(traces[1], []);
          assert.equal(second.status, 0, second.stderr);
          assert.match(second.stdout, /^boot 2$/m);
          const trace = path.join(dir, `killed-${points.indexOf(point)}.jsonl`);
          fs.writeFileSync(trace, traces.map((f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '')).join(''));
          return { stdout: first.stdout + second.stdout, trace };
        },
        t,
      );
    });
  }
}

describe('cloud faults: postgres', { skip: postgresBin() ? false : POSTGRES_MISSING }, () => {
  let pg: PgServer | undefined;
  before(async () => {
    pg = await startPostgres({ fsync: false });
  });
  after(() => pg?.stop());
  faultSuite('postgres', () => (name) => (pg as PgServer).createDatabase(`faults_${name}`));
});
