// The cloud's fuzz suite, shared by its node test (test/cloudFuzz.test.ts, bounded for CI) and
// its benchmark (bench/cloud-fuzz.sh, longer): one cloud on loopback, four fast-check
// properties, each a number of batches with the invariants checked after every batch. Seeded,
// so a failure is reproduced by its seed (and fast-check's path, printed with it).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { completeRequest, rawHttp } from '../rawHttp';
import { Cloud, DeviceCredentials, startCloud } from '../service';
import { apiCommands, ApiModel, ApiReal } from './httpModel';
import { HttpTarget, mutatedRequestArb, requestArb } from './httpRequests';
import { allEvents, answerProblem, checkAlive, checkStore } from './invariants';
import { allowedEvents, goodConnect, mutatedSessionArb, parsePackets, sendSession, Session, SessionTarget, sessionArb, wellFramed } from './mqttSessions';

export interface FuzzCounts {
  /** Batches of grammar-generated HTTP requests, and requests per batch. */
  httpBatches: number;
  /** Batches of mutated recorded HTTP requests. */
  mutatedHttpBatches: number;
  /** Model-based runs (each up to 25 commands). */
  modelRuns: number;
  /** Batches of MQTT sessions from the grammar, and of mutated recorded sessions. */
  sessionBatches: number;
  mutatedSessionBatches: number;
  perBatch: number;
}

export interface FuzzFigure {
  part: string;
  /** What was counted: HTTP requests, or MQTT sessions (a connection's packets). */
  unit: 'requests' | 'sessions';
  count: number;
  seconds: number;
}

/** Requests as text in a failure report (latin1 keeps every byte). */
const latin1 = (b: Buffer): string => b.toString('latin1');

/** A device id from a counter: the same ids in every run with the same seed. */
function fixedId(n: number): string {
  return `5eac0b1d0000f022beac051a${n.toString(16).padStart(8, '0')}`;
}

async function timed(part: string, figures: FuzzFigure[], body: (count: { n: number }) => Promise<void>): Promise<void> {
  const count = { n: 0 };
  const t0 = process.hrtime.bigint();
  await body(count);
  figures.push({ part, unit: part.startsWith('mqtt') ? 'sessions' : 'requests', count: count.n, seconds: Number(process.hrtime.bigint() - t0) / 1e9 });
}

async function messageCounts(cloud: Cloud, ids: string[]): Promise<number[]> {
  return Promise.all(ids.map(async (id) => (await cloud.store.messages(id)).length));
}

/** Wait until the message counts stop changing (a pipelined request may still be acted on). */
async function settle(cloud: Cloud, t: HttpTarget): Promise<void> {
  let last = JSON.stringify(await messageCounts(cloud, t.devices));
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 25));
    const now = JSON.stringify(await messageCounts(cloud, t.devices));
    if (now === last) return;
    last = now;
  }
}

/** Send one raw request and check its answer, and that a refused one changed nothing. */
async function oneRequest(cloud: Cloud, t: HttpTarget, req: Buffer): Promise<void> {
  const port = Number(new URL(cloud.httpUrl).port);
  const before = await messageCounts(cloud, t.devices);
  const devicesBefore = (await cloud.store.listDevices()).length;
  const r = await rawHttp(port, req);
  const head = req.subarray(0, 120).toString('latin1');
  if (!r.ok && !completeRequest(req)) return; // a request cut short may be closed on
  const problem = answerProblem(r);
  assert.equal(problem, undefined, `${JSON.stringify(head)}: ${problem}`);
  if (!r.ok) return;
  // Bytes holding more than one request (a mutation repeated a line or broke "close") may have
  // a later one acted on and answered after the first answer was taken: only single requests
  // are held to "a refused request changes nothing", and the next waits for the rest to land.
  if ((req.toString('latin1').match(/ HTTP\/1\.[01]\r\n/g) ?? []).length > 1) return settle(cloud, t);
  const after = await messageCounts(cloud, t.devices);
  const status = r.answer.status;
  for (let i = 0; i < after.length; i++) {
    if (after[i] > before[i]) assert.equal(status, 201, `a message stored by a refused request: ${JSON.stringify(req.toString('latin1').slice(0, 600))} -> ${r.answer.body}`);
    if (after[i] < before[i]) assert.equal(status, 200, `a message withdrawn by a refused request: ${JSON.stringify(head)}`);
  }
  if ((await cloud.store.listDevices()).length > devicesBefore) assert.equal(status, 201, `a device created by a refused request: ${JSON.stringify(head)}`);
}

async function sessionBatch(cloud: Cloud, t: SessionTarget, sessions: Session[], allowed: Set<string>): Promise<void> {
  const port = Number(new URL(cloud.mqttUrl).port);
  for (const s of sessions) {
    for (const k of allowedEvents(t, s.bytes)) allowed.add(k);
    const good = goodConnect(t, s.bytes);
    const framed = wellFramed(s.bytes);
    const back = await sendSession(port, s.bytes, good && framed);
    const parsed = parsePackets(back);
    assert.equal(parsed.error, undefined, `${s.what}: the broker's answer does not parse: ${parsed.error}`);
    const connack = parsed.packets.find((p) => p.cmd === 'connack');
    const accepted = connack?.cmd === 'connack' && connack.returnCode === 0;
    if (accepted) assert.ok(good, `${s.what}: a CONNECT the protocol refuses was accepted`);
    if (good && framed) assert.ok(accepted, `${s.what}: a good CONNECT was refused: sent ${s.bytes.toString('hex')}, got ${back.toString('hex')}`);
  }
  // Whatever the timing (a frame in flight when its connection closed is committed later),
  // every stored event must come from a batch some session sent as the protocol says.
  for (const e of await allEvents(cloud, t.dev.id)) assert.ok(allowed.has(`${e.stream}/${e.seq}`), `event ${e.stream}/${e.seq} stored from a session the protocol refuses`);
  assert.equal((await cloud.store.device(t.other.id))?.events, 0, "an event stored under another device's id");
}

/** Run the whole suite; returns one figure per part. Throws (fast-check's report) on a failure. */
export async function runCloudFuzz(seed: number, counts: FuzzCounts, log: (line: string) => void = () => undefined): Promise<FuzzFigure[]> {
  const cloudLog: string[] = [];
  const cloud = await startCloud({ port: 0, httpPort: 0, log: (l) => cloudLog.push(l) });
  const figures: FuzzFigure[] = [];
  let nextId = 1;
  const issue = (): Promise<DeviceCredentials> => cloud.issueDevice(fixedId(nextId++));
  try {
    const control = await issue();
    const httpT: HttpTarget = { token: cloud.token, devices: [(await issue()).id, (await issue()).id] };
    const params = (k: number, numRuns: number): fc.Parameters<unknown> => ({ seed: seed + k, numRuns, includeErrorInReport: true });
    const batchArb = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T[]> => fc.array(a, { minLength: counts.perBatch, maxLength: counts.perBatch });

    await timed('http grammar', figures, async (count) => {
      await fc.assert(
        fc.asyncProperty(batchArb(requestArb(httpT).map(latin1)), async (reqs) => {
          for (const req of reqs) await oneRequest(cloud, httpT, Buffer.from(req, 'latin1'));
          count.n += reqs.length;
          await checkAlive(cloud, control, 'http grammar');
          await checkStore(cloud);
        }),
        params(0, counts.httpBatches),
      );
    });
    await timed('http mutation', figures, async (count) => {
      await fc.assert(
        fc.asyncProperty(batchArb(mutatedRequestArb(httpT).map(latin1)), async (reqs) => {
          for (const req of reqs) await oneRequest(cloud, httpT, Buffer.from(req, 'latin1'));
          count.n += reqs.length;
          await checkAlive(cloud, control, 'http mutation');
          await checkStore(cloud);
        }),
        params(1, counts.mutatedHttpBatches),
      );
    });
    await timed('http model', figures, async (count) => {
      const counter = { requests: 0 };
      const port = Number(new URL(cloud.httpUrl).port);
      await fc.assert(
        fc.asyncProperty(apiCommands(3), async (cmds) => {
          const ids = [fixedId(nextId++), fixedId(nextId++), fixedId(nextId++)];
          await fc.asyncModelRun(() => ({ model: { devices: new Map() } as ApiModel, real: { cloud, port, ids, counter } as ApiReal }), cmds);
          await checkAlive(cloud, control, 'http model');
          await checkStore(cloud);
        }),
        params(2, counts.modelRuns),
      );
      count.n = counter.requests;
    });
    const mqttT: SessionTarget = { dev: await issue(), other: await issue() };
    const allowed = new Set<string>();
    await timed('mqtt grammar', figures, async (count) => {
      await fc.assert(
        fc.asyncProperty(batchArb(sessionArb(mqttT)), async (sessions) => {
          await sessionBatch(cloud, mqttT, sessions, allowed);
          count.n += sessions.length;
          await checkAlive(cloud, control, 'mqtt grammar');
          await checkStore(cloud);
        }),
        params(3, counts.sessionBatches),
      );
    });
    await timed('mqtt mutation', figures, async (count) => {
      await fc.assert(
        fc.asyncProperty(batchArb(mutatedSessionArb(mqttT)), async (sessions) => {
          await sessionBatch(cloud, mqttT, sessions, allowed);
          count.n += sessions.length;
          await checkAlive(cloud, control, 'mqtt mutation');
          await checkStore(cloud);
        }),
        params(4, counts.mutatedSessionBatches),
      );
    });
    // Nothing a fuzzed request did made a handler fail: no internal error was logged.
    const internal = cloudLog.filter((l) => l.startsWith('http ') || l.startsWith('error handling'));
    assert.deepEqual(internal, [], 'internal errors logged');
    for (const f of figures) log(`${f.part}: ${f.count} ${f.unit} in ${f.seconds.toFixed(2)} s (${Math.round(f.count / f.seconds)}/s)`);
    return figures;
  } finally {
    await cloud.stop();
  }
}
