// The cloud `beacon run` starts for its devices: the real service (startCloud: aedes on
// 127.0.0.1, the SQLite store) inside the CLI's process, so that an app's syncs go through the
// same broker, protocol checks and store as with `beacon cloud`, with nothing to set up. The
// simulator connects to it over libmosquitto (beacon-sim --cloud mqtt://...). After the run, what
// the service stored and delivered is merged into the trace in a deterministic order (the
// service runs in real time and cannot see device time; see mergeTrace).
import * as fs from 'fs';
import * as path from 'path';
import { ParsedArgs, stringOption, UsageError } from './args';
import { checkCode } from '../cloud/codeSandbox';
import { selfSignedCertificate } from './runCertificate';
import type { Cloud } from '../cloud/service';
import type { JsonValue } from '../cloud/cbor';
import type { MessageRecord, StoredEvent } from '../cloud/store';

/** The public id the simulator gives device `index` (src/world/world.c: a fixed base, then the
 * device's number from 1, big-endian, in the last two bytes). */
export function simDeviceId(index: number): string {
  return `5eac0b1d00004d0cbeac051a0000${(index + 1).toString(16).padStart(4, '0')}`;
}

/**
 * Whether a package may use the cloud, from its bytes: both engines keep the names a script
 * uses as strings in its bytecode. Only a whole word counts (not "async"); a string that happens
 * to say "cloud" starts a cloud that goes unused.
 */
export function packageUsesCloud(bytes: Buffer): boolean {
  return /(?<![A-Za-z0-9_$])(cloud|sync)(?![A-Za-z0-9_$])/.test(bytes.toString('latin1'));
}

export interface RunCloudOptions {
  /** The devices of the world, in order (their names as the trace writes them). */
  devices: readonly string[];
  /** A SQLite file (or postgres:// URL) kept after the run; default: a file in workDir. */
  db?: string;
  /** MQTT port (default 0: a free one). */
  port?: number;
  workDir: string;
  /** The scenario's messages, in time order (device index). */
  messages: readonly { at: number; device: number; type: string; payload: unknown }[];
  /** Serve MQTT on TLS with a certificate made for the run (for the firmware, which verifies it
   * as a device does); the URL then names localhost, the name the certificate carries. */
  tls?: boolean;
  /** --cloud-code: a cloud-code handler's source, called for each stored event after the run (runCloudCode.ts). */
  code?: string;
  log: (line: string) => void;
}

export interface RunCloudSummary {
  devices: { name: string; id: string; stored: number; total: number; delivered: number; pending: number }[];
  /** With --cloud-code: the handler's calls, and how many failed. */
  code?: { calls: number; failed: number };
  /** The database, when it outlives the run. */
  db?: string;
}

export interface RunCloud {
  mqttUrl: string;
  /** With tls: the PEM file of the CA (the certificate itself) that devices verify it with. */
  ca?: string;
  /** The one password every device of the run uses (beacon-sim takes one --cloud-secret). */
  secret: string;
  /** Merge the service's records into a trace file the simulator wrote (and, with code, the
   * handler's); the lines to print of what the handler printed. */
  mergeTrace(traceFile: string): Promise<string[]>;
  summary(): Promise<RunCloudSummary>;
  stop(): Promise<void>;
}

/** What `beacon run` does about the cloud: start its own for apps that use it (no --cloud),
 * always (--cloud embedded), or pass --cloud to the simulator. */
export interface CloudChoice {
  mode: 'auto' | 'embedded' | 'given';
  /** --cloud-db: the embedded cloud's database, kept after the run. */
  db?: string;
  /** --cloud-port: the embedded broker's port. */
  port?: number;
  /** --cloud-code: the handler's source, checked (it compiles). */
  code?: string;
}

/** The cloud options of `beacon run` (`cloudSecret`: --cloud-secret, already read). */
export function cloudChoice(args: ParsedArgs, sim: { cloudSecret?: string }): CloudChoice {
  const given = stringOption(args, 'cloud');
  const c: CloudChoice = { mode: given === undefined ? 'auto' : given === 'embedded' ? 'embedded' : 'given' };
  const db = stringOption(args, 'cloud-db');
  const port = stringOption(args, 'cloud-port');
  const code = stringOption(args, 'cloud-code');
  if (c.mode === 'given') {
    if (db !== undefined) throw new UsageError(`--cloud-db: only for the cloud beacon run starts (not with --cloud ${given})`);
    if (port !== undefined) throw new UsageError(`--cloud-port: only for the cloud beacon run starts (not with --cloud ${given})`);
    if (code !== undefined) throw new UsageError(`--cloud-code: only for the cloud beacon run starts (not with --cloud ${given}), which the handler gets the stored events of`);
    return c;
  }
  if (sim.cloudSecret !== undefined) throw new UsageError('--cloud-secret: only with --cloud mqtt://HOST:PORT (the cloud beacon run starts issues its own)');
  if (db !== undefined) c.db = /^postgres(ql)?:\/\//.test(db) ? db : path.resolve(db);
  if (port !== undefined) {
    const n = Number(port);
    if (!/^\d+$/.test(port) || n < 1 || n > 65535) throw new UsageError(`--cloud-port: '${port}' is not a port number (1 to 65535)`);
    c.port = n;
  }
  if (code !== undefined) {
    let source: string;
    try {
      source = fs.readFileSync(code, 'utf8');
    } catch (err) {
      throw new UsageError(`--cloud-code: cannot read ${code}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, false);
    }
    try {
      c.code = checkCode(source, `--cloud-code ${code}`);
    } catch (err) {
      if (err instanceof RangeError) throw new UsageError(err.message, false);
      throw err;
    }
  }
  return c;
}

/** A --cloud-db that cannot be opened is a usage error, found before anything runs. */
function checkDbPath(db: string): void {
  if (/^postgres(ql)?:\/\//.test(db)) return;
  const dir = path.dirname(db);
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(db);
  } catch {
    st = undefined;
  }
  if (st?.isDirectory()) throw new UsageError(`--cloud-db: ${db} is a directory, not a database file`, false);
  let parent: fs.Stats | undefined;
  try {
    parent = fs.statSync(dir);
  } catch {
    parent = undefined;
  }
  if (!parent?.isDirectory()) throw new UsageError(`--cloud-db: cannot write in ${dir}: ${parent ? 'not a directory' : 'no such directory'}`, false);
  try {
    fs.accessSync(st ? db : dir, fs.constants.W_OK);
  } catch {
    throw new UsageError(`--cloud-db: cannot write ${st ? db : `in ${dir}`} (the cloud's database must be writable)`, false);
  }
}

async function allEvents(cloud: Cloud, id: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await cloud.store.events(id, { limit: 1000, before });
    out.push(...page.events);
    if (!page.next) return out;
    before = page.next;
  }
}

/** A database as messages name it: a PostgreSQL URL may carry a password. */
function shownDb(db: string): string {
  return /^postgres(ql)?:\/\//.test(db) ? 'the PostgreSQL database of --cloud-db' : db;
}

const eventKey = (e: { stream: number; seq: number }): string => `${e.stream}:${e.seq}`;

/** Numbers as the simulator writes them (docs/world.md): integers as they are, others with at
 * most six decimals, so merged records read like the simulator's own. */
function traceJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'number' && !Number.isInteger(x) ? Number(x.toFixed(6)) : x));
}

/** A `cloud-event` record, field for field as the loopback cloud writes it. */
function eventRecord(t: number, dev: string, e: StoredEvent): string {
  const r: Record<string, unknown> = { t, dev, ev: 'cloud-event', stream: e.stream, seq: e.seq, type: e.type, ts: e.ts };
  if (!e.volatile) r.volatile = false;
  if (e.variable) r.variable = true;
  r.payload = e.payload;
  return traceJson(r);
}

function deliveredRecord(t: number, dev: string, m: MessageRecord): string {
  return traceJson({ t, dev, ev: 'cloud-delivered', id: m.id, type: m.type });
}

export async function startRunCloud(o: RunCloudOptions): Promise<RunCloud> {
  const db = o.db ?? path.join(o.workDir, 'cloud.db');
  if (o.db !== undefined) checkDbPath(o.db);
  const { startCloud } = await import('../cloud/service');
  const { hashSecret, newSecret } = await import('../cloud/credentials');
  const started = Date.now();
  let cloud: Cloud;
  const tls = o.tls ? selfSignedCertificate(o.workDir) : undefined;
  try {
    cloud = await startCloud({ host: '127.0.0.1', port: o.port ?? 0, httpPort: 0, db, log: o.log, tls });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') throw new UsageError(`--cloud-port: port ${o.port ?? 0} on 127.0.0.1 is in use (give another, or none for a free one)`, false);
    if (o.db !== undefined) throw new UsageError(`--cloud-db: cannot use ${shownDb(o.db)} as the cloud's database: ${e.message}`, false);
    throw err;
  }
  o.log(`started in ${Date.now() - started} ms: mqtt ${cloud.mqttUrl}, page ${cloud.httpUrl}/#token=${cloud.token}`);
  try {
    const ids = o.devices.map((_, i) => simDeviceId(i));
    // One secret for all (the simulator has one --cloud-secret), hashed once: the hash is
    // deliberately slow, and a world may have a thousand devices.
    const secret = newSecret();
    const hash = await hashSecret(secret);
    const now = Date.now();
    for (const id of ids) await cloud.store.putCredential(id, hash, now);

    // What the store held before the run: the records of this run are what is new after it.
    const before = await Promise.all(
      ids.map(async (id) => ({
        events: new Set((await allEvents(cloud, id)).map(eventKey)),
        delivered: new Set((await cloud.store.messages(id)).filter((m) => m.delivered != null).map((m) => m.id)),
      })),
    );
    for (const m of o.messages) {
      await cloud.sendMessage(ids[m.device], m.type, m.payload as JsonValue);
    }
    let codeCalls: RunCloudSummary['code'];

    /** Per device: the events stored and messages delivered during the run, in the order the
     * device sent them (its queue is sent in order: stream, then sequence number). */
    const news = async (): Promise<{ events: StoredEvent[]; delivered: MessageRecord[]; total: number; pending: number }[]> =>
      Promise.all(
        ids.map(async (id, i) => {
          const all = await allEvents(cloud, id);
          const messages = await cloud.store.messages(id);
          return {
            events: all.filter((e) => !before[i].events.has(eventKey(e))).sort((a, b) => a.received - b.received || a.stream - b.stream || a.seq - b.seq),
            delivered: messages.filter((m) => m.delivered != null && !before[i].delivered.has(m.id)).sort((a, b) => a.id - b.id),
            total: all.length,
            pending: messages.filter((m) => m.delivered == null).length,
          };
        }),
      );

    return {
      mqttUrl: tls ? cloud.mqttUrl.replace('://127.0.0.1:', '://localhost:') : cloud.mqttUrl,
      ca: tls?.cert,
      secret,
      async mergeTrace(traceFile: string): Promise<string[]> {
        const text = fs.readFileSync(traceFile, 'utf8');
        let merged = mergeTrace(text, o.devices, await news());
        let lines: string[] = [];
        if (o.code !== undefined) {
          const { CodeSandbox } = await import('../cloud/codeSandbox');
          const { runCloudCode } = await import('./runCloudCode');
          const sandbox = new CodeSandbox(o.code, 'handlers.js', { simulated: true });
          try {
            const r = await runCloudCode(merged, o.devices, ids, sandbox);
            merged = r.text;
            lines = r.lines;
            codeCalls = { calls: r.calls, failed: r.failed };
          } finally {
            await sandbox.close();
          }
        }
        const tmp = `${traceFile}.tmp-${process.pid}`;
        fs.writeFileSync(tmp, merged);
        fs.renameSync(tmp, traceFile);
        return lines;
      },
      async summary(): Promise<RunCloudSummary> {
        const n = await news();
        return {
          devices: o.devices.map((name, i) => ({
            name,
            id: ids[i],
            stored: n[i].events.length,
            total: n[i].total,
            delivered: n[i].delivered.length,
            pending: n[i].pending,
          })),
          db: o.db === undefined ? undefined : shownDb(o.db) === o.db ? path.resolve(o.db) : shownDb(o.db),
          ...(codeCalls !== undefined ? { code: codeCalls } : {}),
        };
      },
      stop: () => cloud.stop(),
    };
  } catch (err) {
    await cloud.stop();
    throw err;
  }
}

interface TraceHead {
  t: number;
  dev?: string;
  ev?: string;
  phase?: string;
  events?: number;
  id?: number;
}

/**
 * The trace with the service's records placed where the loopback cloud would write them: a
 * device's stored events (`cloud-event`) and the messages it acknowledged (`cloud-delivered`) go
 * just before the end of the sync that sent them (the `cloud-sync` end record, which counts the
 * events acknowledged). What no sync end accounts for (a sync cut off by the end of the run) goes
 * at the end. The service's real-time order never enters: the result depends only on the
 * simulator's trace and the store's contents.
 */
export function mergeTrace(
  text: string,
  devices: readonly string[],
  news: readonly { events: StoredEvent[]; delivered: MessageRecord[] }[],
): string {
  const index = new Map(devices.map((d, i) => [d, i]));
  const queue = news.map((n) => ({ events: [...n.events], delivered: new Map(n.delivered.map((m) => [m.id, m])) }));
  /** Messages the device received since its last sync end. */
  const received = devices.map(() => [] as number[]);
  const out: string[] = [];
  let lastT = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let head: TraceHead;
    try {
      head = JSON.parse(line) as TraceHead;
    } catch {
      out.push(line);
      continue;
    }
    if (typeof head.t === 'number') lastT = head.t;
    const i = head.dev !== undefined ? index.get(head.dev) : undefined;
    if (i !== undefined && head.ev === 'cloud-message' && typeof head.id === 'number') received[i].push(head.id);
    if (i !== undefined && head.ev === 'cloud-sync' && head.phase === 'end') {
      const q = queue[i];
      const n = Math.min(typeof head.events === 'number' ? head.events : 0, q.events.length);
      for (const e of q.events.splice(0, n)) out.push(eventRecord(head.t, head.dev!, e));
      for (const id of received[i]) {
        const m = q.delivered.get(id);
        if (m) {
          out.push(deliveredRecord(head.t, head.dev!, m));
          q.delivered.delete(id);
        }
      }
      received[i] = [];
    }
    out.push(line);
  }
  devices.forEach((dev, i) => {
    for (const e of queue[i].events) out.push(eventRecord(lastT, dev, e));
    for (const m of [...queue[i].delivered.values()].sort((a, b) => a.id - b.id)) out.push(deliveredRecord(lastT, dev, m));
  });
  return out.map((l) => l + '\n').join('');
}

/** The lines `beacon run` prints on stderr after a run with its cloud. */
export function summaryLines(s: RunCloudSummary): string[] {
  const lines = s.devices.map((d) => {
    const name = s.devices.length > 1 ? `${d.name} ` : '';
    const total = s.db !== undefined && d.total !== d.stored ? ` (${d.total} in all)` : '';
    const pending = d.pending > 0 ? `, ${d.pending} waiting` : '';
    return `[beacon cloud] ${name}${d.id}: ${d.stored} event${d.stored === 1 ? '' : 's'} stored${total}, ${d.delivered} message${d.delivered === 1 ? '' : 's'} delivered${pending}`;
  });
  if (s.code !== undefined) lines.push(`[beacon cloud] cloud code: ${s.code.calls} call${s.code.calls === 1 ? '' : 's'}, ${s.code.failed} failed`);
  if (s.db === undefined) lines.push('[beacon cloud] the database was temporary: keep it with --cloud-db FILE');
  else if (path.isAbsolute(s.db)) lines.push(`[beacon cloud] database: ${s.db} (beacon cloud --db ${s.db} serves it)`);
  else lines.push(`[beacon cloud] database: ${s.db}`);
  return lines;
}
