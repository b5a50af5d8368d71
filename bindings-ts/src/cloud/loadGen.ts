// `beacon cloud load`: a fleet of load devices against a running cloud, and what it measured.
//
// The coordinator (this file) checks the options, makes sure the devices have credentials in
// the cloud's store (loadFleet.ts), checks that the broker lets one of them in, then forks the
// workers (loadWorker.ts) that run the devices (loadDevice.ts), adds up their figures
// (loadStats.ts), and counts the run's events in the store by SQL. Every event of a run has the
// run's tag as its type, so that count is exactly this run's, whatever else the store holds.
import { ChildProcess, fork } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { connackReason, LoadTarget, loadPayload, probeConnect, SyncSettings } from './loadDevice';
import { countEventsOfType, ensureFleetCredentials, loadDeviceId, loadPassword } from './loadFleet';
import { mergeStats, percentile, WorkerStats } from './loadStats';
import type { FromWorker, ToWorker, WorkerConfig } from './loadWorker';
import { reloadMosquitto, writeMosquittoAuth } from './mosquitto';
import { encodeBatch, LIMITS } from './protocol';
import { openStore } from './store';

export interface LoadOptions {
  /** The broker the cloud serves devices on: mqtt://host:port or mqtts://host:port. */
  broker: string;
  /** The cloud's store: a SQLite file or a postgres:// URL. */
  db: string;
  devices: number;
  /** Events each device queues per sync (default 10). */
  events?: number;
  /** Events per batch (default 10, at most 256). */
  batch?: number;
  /** Sync every period (ms) until `durationMs`; without it each device syncs once. */
  periodMs?: number;
  /** With a period: how long devices keep syncing (required). Without: the longest the run may take (default 1 h). */
  durationMs?: number;
  /** Connections open at a time (default: the devices, at most 10,000). */
  connections?: number;
  /** Worker processes (default: the number of cores). */
  processes?: number;
  /** CBOR bytes of each event's payload (default 200). */
  payload?: number;
  /** Batches unacknowledged at most per device (default 4, the reference client's). */
  window?: number;
  /** TLS even when the broker URL says mqtt:// (mqtts:// means TLS anyway). */
  tls?: boolean;
  /** PEM file of the CA that signs the broker's certificate. */
  ca?: string;
  /** Rewrite Mosquitto's password file here after issuing credentials (as `beacon cloud` does). */
  mosquittoDir?: string;
  /** With mosquittoDir: the broker's pid or pid file, sent SIGHUP after the rewrite. */
  mosquittoPid?: number | string;
  /** The longest wait for an answer during a sync before it fails and is retried (default 20 s). */
  timeoutMs?: number;
  /** Keep each connection open this long after its sync (default 0). */
  holdMs?: number;
  /** Progress in words (credentials, every 5 s of the run). */
  log?: (line: string) => void;
  /** Called with the figures so far as the workers report them (about once a second each). */
  onProgress?: (stats: WorkerStats) => void;
  /** Abort: the running syncs are cut off and the report says so. */
  signal?: AbortSignal;
}

/** An option out of range; the message names it as the command line does. */
export class LoadOptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoadOptionError';
  }
}

export interface LoadReport {
  /** The run's tag: the type of every event it sent. */
  tag: string;
  devices: number;
  processes: number;
  connections: number;
  credentials: { issued: number; reused: number };
  eventsGenerated: number;
  eventsAcked: number;
  /** Events of this run in the store at the end (SQL count), and how many of them twice. */
  eventsStored: number;
  duplicatesInStore: number;
  /** First connect to last acknowledgement, s. */
  spanS: number | null;
  eventsPerS: number | null;
  ackLatencyMs: { p50: number; p99: number; max: number; batches: number } | null;
  syncs: number;
  failedSyncs: number;
  reconnects: number;
  errors: Record<string, number>;
  errorSamples: Record<string, string>;
  /** The sum of each worker's peak of connections open at once. */
  peakConnections: number;
  /** Peak resident set of the generator: the coordinator's and every worker's, added. */
  peakRssMb: number;
  /** CPU time of the generator's workers (user and system): what the load cost its own side. */
  generatorCpuS: number;
  ok: boolean;
  failure?: string;
}

const DEFAULT_DURATION_MS = 3_600_000;
const MAX_DEVICES = 1_000_000;

interface Resolved {
  target: LoadTarget;
  settings: SyncSettings;
  devices: number;
  events: number;
  connections: number;
  processes: number;
  periodMs?: number;
  durationMs: number;
}

function whole(name: string, v: number | undefined, fallback: number, min: number, max: number, why = ''): number {
  const n = v ?? fallback;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new LoadOptionError(`--${name} must be a whole number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}${why}, not ${String(v)}`);
  }
  return n;
}

function interval(name: string, v: number | undefined, min: number): number | undefined {
  if (v !== undefined && (!Number.isFinite(v) || v < min)) throw new LoadOptionError(`--${name} must be at least ${min} ms, not ${v} ms`);
  return v;
}

/** The options checked and completed; LoadOptionError names the first one that is wrong. */
export function resolveLoadOptions(o: LoadOptions, tag = 'load-00000000'): Resolved {
  if (!o.broker) throw new LoadOptionError('--broker is required: the broker the cloud serves devices on (mqtt://host:port or mqtts://host:port)');
  let url: URL;
  try {
    url = new URL(o.broker);
  } catch {
    throw new LoadOptionError(`--broker must be an mqtt://host:port or mqtts://host:port URL, not '${o.broker}'`);
  }
  if ((url.protocol !== 'mqtt:' && url.protocol !== 'mqtts:') || url.hostname === '') {
    throw new LoadOptionError(`--broker must be an mqtt://host:port or mqtts://host:port URL, not '${o.broker}'`);
  }
  if (!o.db) throw new LoadOptionError("--db is required: the cloud's store (a SQLite file or postgres://...), where the load devices' credentials go and the run's events are counted");
  if (!/^postgres(ql)?:\/\//.test(o.db) && !fs.existsSync(o.db)) {
    throw new LoadOptionError(`--db: no SQLite file '${o.db}' (give the store of the running cloud)`);
  }
  const tlsOn = o.tls === true || url.protocol === 'mqtts:';
  let ca: string | undefined;
  if (o.ca !== undefined) {
    if (!tlsOn) throw new LoadOptionError('--ca needs TLS: --tls, or an mqtts:// --broker');
    try {
      ca = fs.readFileSync(o.ca, 'utf8');
    } catch (err) {
      throw new LoadOptionError(`--ca: cannot read '${o.ca}': ${(err as Error).message}`);
    }
  }
  if (o.mosquittoPid !== undefined && o.mosquittoDir === undefined) throw new LoadOptionError('--mosquitto-pid needs --mosquitto-dir (the password file to reload)');
  const devices = whole('devices', o.devices, 0, 1, MAX_DEVICES);
  const events = whole('events', o.events, 10, 1, 1_000_000);
  const batch = whole('batch', o.batch, 10, 1, LIMITS.batchEvents, ' (the protocol\'s limit of events per batch)');
  const payload = whole('payload', o.payload, 200, 1, LIMITS.payloadBytes, " (the protocol's limit of an event's payload)");
  const window = whole('window', o.window, 4, 1, 256);
  const processes = whole('processes', o.processes, os.availableParallelism(), 1, 64);
  const connections = whole('connections', o.connections, Math.min(devices, 10_000), 1, 1_000_000);
  const periodMs = interval('period', o.periodMs, 1);
  const timeoutMs = interval('timeout', o.timeoutMs, 100) ?? 20_000;
  const holdMs = interval('hold', o.holdMs, 0) ?? 0;
  let durationMs = interval('duration', o.durationMs, 1);
  if (periodMs !== undefined && durationMs === undefined) throw new LoadOptionError('--period needs --duration: how long the devices keep syncing');
  durationMs ??= DEFAULT_DURATION_MS;
  const settings: SyncSettings = { batch, window, timeoutMs, holdMs, payloadBytes: payload, type: tag };
  // The biggest batch these options make, from batches of one and two events (encodeBatch
  // refuses an oversized one): the payloads are exactly `payload` bytes; array headers, sequence
  // numbers and timestamp steps of the widest encodings are allowed for on top.
  const sized = (n: number): number =>
    encodeBatch({
      stream: 0xffffffff,
      events: Array.from({ length: n }, (_, i) => ({ seq: i + 1, type: tag, ts: 1767225600000 + i, payload: loadPayload(i + 1, payload), volatile: false, variable: false })),
    }).length;
  const one = sized(1);
  const worst = one + (batch - 1) * (sized(2) - one) + 4 + batch * 8;
  if (worst > LIMITS.frameBytes) {
    throw new LoadOptionError(
      `--batch ${batch} with --payload ${payload} makes batches of up to ${worst.toLocaleString('en-US')} bytes, more than the protocol's ${LIMITS.frameBytes.toLocaleString('en-US')} (docs/cloud-protocol.md §5): fewer events per batch or smaller payloads`,
    );
  }
  const port = Number(url.port || (url.protocol === 'mqtts:' ? 8883 : 1883));
  const target: LoadTarget = { host: url.hostname.replace(/^\[|\]$/g, ''), port, tls: tlsOn, ca };
  const c = Math.min(connections, devices);
  return { target, settings, devices, events, connections: c, processes: Math.min(processes, c), periodMs, durationMs };
}

function forkWorker(): ChildProcess {
  // No inherited exec arguments: under `node --test` they would make the worker a test runner.
  return fork(path.join(__dirname, 'loadWorker.js'), [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** Make sure the broker lets a load device in; after a Mosquitto reload, give it time to reread. */
async function checkBroker(target: LoadTarget, id: string, password: string, reloaded: boolean, timeoutMs: number): Promise<void> {
  const where = `${target.tls ? 'mqtts' : 'mqtt'}://${target.host}:${target.port}`;
  for (let attempt = 0; ; attempt++) {
    let code: number;
    try {
      code = await probeConnect(target, id, password, timeoutMs);
    } catch (err) {
      throw new Error(`cannot connect to the broker at ${where}: ${(err as Error).message}`);
    }
    if (code === 0) return;
    if (reloaded && attempt < 50) {
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    throw new Error(
      `the broker at ${where} refused load device ${id}: ${connackReason(code)}. Is --db the store of the cloud behind it? ` +
        'With Mosquitto, give --mosquitto-dir (its password file) and --mosquitto-pid so that it reads the load devices\' credentials.',
    );
  }
}

/** Run the load; resolves with the report (also when events went unacknowledged: see `ok`). */
export async function runLoad(o: LoadOptions): Promise<LoadReport> {
  const tag = `load-${crypto.randomBytes(4).toString('hex')}`;
  const r = resolveLoadOptions(o, tag);
  const log = o.log ?? (() => undefined);

  const store = await openStore(o.db);
  let creds;
  try {
    creds = await ensureFleetCredentials(store, r.devices, (done, total) => log(`credentials: ${done} of ${total} hashed and stored`));
    if (creds.issued > 0) log(`credentials: issued ${creds.issued}, reused ${creds.reused}`);
    if (o.mosquittoDir !== undefined) await writeMosquittoAuth(store, o.mosquittoDir);
  } finally {
    await store.close();
  }
  if (o.mosquittoPid !== undefined) reloadMosquitto(o.mosquittoPid);
  const probeId = loadDeviceId(creds.tag, 0);
  await checkBroker(r.target, probeId, loadPassword(creds.secret, probeId), o.mosquittoPid !== undefined, r.settings.timeoutMs);

  const workers: ChildProcess[] = [];
  const latest: WorkerStats[] = [];
  const finals: (WorkerStats | undefined)[] = [];
  let stopped = false;
  const stopAll = (): void => {
    stopped = true;
    for (const w of workers) if (w.connected) w.send({ t: 'stop' } satisfies ToWorker);
  };
  o.signal?.addEventListener('abort', stopAll, { once: true });
  let lastLog = Date.now();
  try {
    const all = await new Promise<WorkerStats[]>((resolve, reject) => {
      let ready = 0;
      for (let w = 0; w < r.processes; w++) {
        const from = Math.floor((r.devices * w) / r.processes);
        const to = Math.floor((r.devices * (w + 1)) / r.processes);
        // Connection slots split as the devices are: no worker gets more slots than devices.
        const connections = Math.floor((r.connections * (w + 1)) / r.processes) - Math.floor((r.connections * w) / r.processes);
        const config: WorkerConfig = {
          target: r.target,
          settings: r.settings,
          secret: creds.secret,
          tag: creds.tag,
          from,
          to,
          fleet: r.devices,
          connections,
          events: r.events,
          periodMs: r.periodMs,
          durationMs: r.durationMs,
          graceMs: 3 * r.settings.timeoutMs,
        };
        const child = forkWorker();
        workers.push(child);
        child.on('message', (m: FromWorker) => {
          if (m.t === 'ready') {
            if (++ready === r.processes) {
              const go: ToWorker = { t: 'go', startAt: Date.now() + 20 };
              for (const x of workers) x.send(go);
              if (stopped || o.signal?.aborted) stopAll();
            }
          } else {
            latest[w] = m.stats;
            if (m.t === 'done') finals[w] = m.stats;
            const sum = mergeStats(latest.filter((s) => s !== undefined));
            o.onProgress?.(sum);
            if (Date.now() - lastLog >= 5000) {
              lastLog = Date.now();
              log(`${sum.acked} of ${sum.generated} events acknowledged, ${sum.open} connections open, ${sum.syncs} syncs, ${sum.reconnects} reconnects`);
            }
            if (finals.filter((s) => s !== undefined).length === r.processes) resolve(finals as WorkerStats[]);
          }
        });
        child.on('exit', (code, signal) => {
          if (finals[w] === undefined) reject(new Error(`load worker ${w + 1} ended without its figures (${signal ?? `exit status ${code}`})`));
        });
        child.send({ t: 'config', config } satisfies ToWorker);
      }
    });
    const s = mergeStats(all);
    const count = await countEventsOfType(o.db, tag);
    return report(r, tag, creds, s, count, stopped || o.signal?.aborted === true);
  } finally {
    o.signal?.removeEventListener('abort', stopAll);
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  }
}

function report(r: Resolved, tag: string, creds: { issued: number; reused: number }, s: WorkerStats, count: { stored: number; distinct: number }, interrupted: boolean): LoadReport {
  const spanS = s.firstConnect !== null && s.lastAck !== null ? (s.lastAck - s.firstConnect) / 1000 : null;
  const p50 = percentile(s.hist, 0.5, s.latencyMaxMs);
  const p99 = percentile(s.hist, 0.99, s.latencyMaxMs);
  const batches = s.hist.reduce((a, b) => a + b, 0);
  const rep: LoadReport = {
    tag,
    devices: r.devices,
    processes: r.processes,
    connections: r.connections,
    credentials: { issued: creds.issued, reused: creds.reused },
    eventsGenerated: s.generated,
    eventsAcked: s.acked,
    eventsStored: count.stored,
    duplicatesInStore: count.stored - count.distinct,
    spanS,
    eventsPerS: spanS !== null && spanS > 0 ? s.acked / spanS : null,
    ackLatencyMs: p50 !== undefined && p99 !== undefined ? { p50, p99, max: s.latencyMaxMs, batches } : null,
    syncs: s.syncs,
    failedSyncs: s.failedSyncs,
    reconnects: s.reconnects,
    errors: s.errors,
    errorSamples: s.samples,
    peakConnections: s.peakOpen,
    peakRssMb: (s.maxRssKb + process.resourceUsage().maxRSS) / 1024,
    generatorCpuS: s.cpuMs / 1000,
    ok: true,
  };
  const problems: string[] = [];
  if (s.acked < s.generated) {
    const why = interrupted ? 'the run was interrupted' : r.periodMs === undefined ? `--duration (${r.durationMs} ms) ran out` : '--duration and the retries after it ran out';
    problems.push(`${s.generated - s.acked} of ${s.generated} events not acknowledged (${s.unfinished} devices unfinished) when ${why}${errorSummary(s)}`);
  }
  if (count.stored < s.acked) problems.push(`the store holds ${count.stored} events of this run, fewer than the ${s.acked} acknowledged`);
  if (count.stored !== count.distinct) problems.push(`the store holds ${count.stored - count.distinct} events of this run more than once`);
  if (problems.length > 0) {
    rep.ok = false;
    rep.failure = problems.join('; ');
  }
  return rep;
}

function errorSummary(s: WorkerStats): string {
  const kinds = Object.entries(s.errors).sort((a, b) => b[1] - a[1]);
  if (kinds.length === 0) return '';
  return `; failed syncs: ${kinds.map(([k, n]) => `${k} ${n} (${s.samples[k]})`).join(', ')}`;
}

const fixed = (n: number, d: number): string => n.toFixed(d);

/** The report for people: one line per figure. */
export function reportLines(r: LoadReport): string[] {
  const errors = Object.entries(r.errors).sort((a, b) => b[1] - a[1]);
  return [
    `run: ${r.tag} (the type of its events)`,
    `devices: ${r.devices} (${r.processes} worker process${r.processes === 1 ? '' : 'es'}, at most ${r.connections} connections at a time)`,
    `credentials: ${r.credentials.issued} issued, ${r.credentials.reused} reused`,
    `events generated: ${r.eventsGenerated}`,
    `events acknowledged: ${r.eventsAcked}`,
    `events in the store: ${r.eventsStored} (SQL count of type ${r.tag}), ${r.duplicatesInStore} more than once`,
    `events per second: ${r.eventsPerS === null ? '-' : fixed(r.eventsPerS, 1)} (acknowledged over ${r.spanS === null ? '-' : fixed(r.spanS, 2)} s, first connect to last acknowledgement)`,
    `ack latency p50: ${r.ackLatencyMs ? `${fixed(r.ackLatencyMs.p50, 2)} ms` : '-'}`,
    `ack latency p99: ${r.ackLatencyMs ? `${fixed(r.ackLatencyMs.p99, 2)} ms` : '-'}`,
    `ack latency max: ${r.ackLatencyMs ? `${fixed(r.ackLatencyMs.max, 2)} ms (${r.ackLatencyMs.batches} batches)` : '-'}`,
    `syncs: ${r.syncs}`,
    `reconnects: ${r.reconnects} (syncs retried after ${r.failedSyncs} failed)`,
    `errors: ${errors.length === 0 ? 'none' : errors.map(([k, n]) => `${k} ${n}`).join(', ')}`,
    ...errors.map(([k]) => `  first ${k}: ${r.errorSamples[k]}`),
    `peak connections: ${r.peakConnections}`,
    `generator peak rss: ${fixed(r.peakRssMb, 1)} MB`,
    `generator cpu: ${fixed(r.generatorCpuS, 2)} s (its workers, user and system)`,
    r.ok ? 'result: every event acknowledged and stored once' : `result: FAILED: ${r.failure}`,
  ];
}
