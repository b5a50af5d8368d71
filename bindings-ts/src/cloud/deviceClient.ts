// The device side of the protocol in TypeScript: the reference the firmware's C implementation
// is checked against, and the simulated device of the tests and benchmarks.
//
// State lives in an append-only log of records (DeviceStorage), the way the firmware keeps its
// queue in flash: an enqueued event is one appended record, an acknowledgement another. A power
// cut can tear only the last record, which load() drops, so reloading the log (a new
// DeviceClient on the same storage) gives exactly the state of the last completed step.
import * as fs from 'fs';
import * as mqtt from 'mqtt';
import * as net from 'net';
import * as tls from 'tls';
import { checkJson, JsonValue } from './cbor';
import {
  Batch,
  decodeAck,
  decodeMessageFrame,
  encodeBatch,
  encodeLastMessage,
  LIMITS,
  parseTopic,
  payloadSize,
  ProtocolError,
  topic,
  WireEvent,
} from './protocol';

export type LogRecord =
  | { t: 'init'; stream: number; next: number; lastMsg: number }
  | { t: 'e'; seq: number; type: string; ts: number; payload: JsonValue; volatile: boolean; variable: boolean }
  | { t: 'ack'; stream: number; first: number; last: number }
  | { t: 'drop'; seq: number }
  | { t: 'msg'; id: number };

/** Where a device keeps its log. append() must be atomic up to a torn last record. */
export interface DeviceStorage {
  load(): LogRecord[];
  append(r: LogRecord): void;
  /** Replace the whole log atomically (compaction). */
  rewrite(records: LogRecord[]): void;
}

export class PowerCut extends Error {
  constructor() {
    super('power cut');
    this.name = 'PowerCut';
  }
}

/** Parse a log; a torn last record (a power cut mid-write) ends it. Returns the good records and how many lines they span. */
function parseLog(lines: string[]): { records: LogRecord[]; good: number } {
  const records: LogRecord[] = [];
  const last = lines.length > 0 && lines[lines.length - 1] === '' ? lines.length - 2 : lines.length - 1;
  for (let i = 0; i <= last; i++) {
    try {
      records.push(JSON.parse(lines[i]) as LogRecord);
    } catch {
      // Only the last record can be torn by a power cut; anything else is damage.
      if (i === last) return { records, good: i };
      throw new Error(`device log damaged at record ${i + 1}`);
    }
  }
  return { records, good: last + 1 };
}

/** A log in memory, for simulated devices; `cutAfter` injects a power cut into an append. */
export class MemoryStorage implements DeviceStorage {
  private lines: string[] = [];
  private cut?: { after: number; torn: boolean };

  load(): LogRecord[] {
    // Like the firmware at boot: a torn last record is cut off before anything is appended.
    const { records, good } = parseLog(this.lines);
    this.lines.length = good;
    return records;
  }

  append(r: LogRecord): void {
    const line = JSON.stringify(r);
    if (this.cut) {
      if (this.cut.after === 0) {
        if (this.cut.torn) this.lines.push(line.slice(0, Math.floor(line.length / 2)));
        this.cut = undefined;
        throw new PowerCut();
      }
      this.cut.after--;
    }
    this.lines.push(line);
  }

  rewrite(records: LogRecord[]): void {
    this.lines = records.map((r) => JSON.stringify(r));
  }

  /** Make the (n+1)th append from now fail like a power cut, writing half of it if `torn`. */
  cutAfter(n: number, torn = true): void {
    this.cut = { after: n, torn };
  }

  get records(): number {
    return this.lines.length;
  }
}

/** A log in a file: one JSON record per line, appended; compaction writes a new file and renames it. */
export class FileStorage implements DeviceStorage {
  constructor(readonly file: string) {}

  load(): LogRecord[] {
    if (!fs.existsSync(this.file)) return [];
    const lines = fs.readFileSync(this.file, 'utf8').split('\n');
    const { records, good } = parseLog(lines);
    if (good < lines.length && lines.slice(good).some((l) => l !== '')) {
      // A torn last record: cut it off so the next append starts on a clean line.
      fs.truncateSync(this.file, Buffer.byteLength(lines.slice(0, good).map((l) => l + '\n').join('')));
    }
    return records;
  }

  append(r: LogRecord): void {
    fs.appendFileSync(this.file, JSON.stringify(r) + '\n');
  }

  rewrite(records: LogRecord[]): void {
    const tmp = `${this.file}.tmp`;
    fs.writeFileSync(tmp, records.map((r) => JSON.stringify(r) + '\n').join(''));
    fs.renameSync(tmp, this.file);
  }
}

/** A message from the cloud as the app's onReceive handler gets it (the spec's envelope). */
export interface ReceivedMessage {
  type: string;
  ts: number;
  payload: JsonValue;
}

export interface DeviceClientOptions {
  /** The device's public id (lowercase hex). */
  id: string;
  password: string;
  /** mqtt://host:port (loopback only) or mqtts://host:port. */
  url: string;
  storage: DeviceStorage;
  now?: () => number;
  /** Queue capacity in payload bytes; volatile events are dropped, oldest first, to make room. */
  capacityBytes?: number;
  /** Events per batch (1..256, default 64). */
  batchEvents?: number;
  /** Batches sent before waiting for acknowledgements (default 4). */
  window?: number;
  /** Longest wait for any answer from the cloud during a sync (default 20 s). */
  timeoutMs?: number;
  /** Trusted CA certificates for mqtts. */
  ca?: Buffer;
  /** Called at each step of a sync: tests cut the power or the link there. */
  trace?: (step: SyncStep, client: DeviceClient) => void;
}

export type SyncStep = 'connected' | 'batch-sent' | 'ack' | 'message' | 'inbox-done' | 'done';

export interface SyncResult {
  /** Events the cloud acknowledged in this sync. */
  acked: number;
  /** Batches published (including any resent). */
  batches: number;
  /** Messages handed to the onReceive handler. */
  received: number;
  /** MQTT bytes on the wire in this sync (from and to the device; TLS not counted). */
  bytesSent: number;
  bytesReceived: number;
}

interface QueuedEvent extends WireEvent {
  size: number;
}

const DEFAULT_CAPACITY = 256 * 1024;

export class DeviceClient {
  readonly id: string;
  url: string;
  private password: string;
  private storage: DeviceStorage;
  private now: () => number;
  private stream = 0;
  private nextSeq = 1;
  private lastMsg = 0;
  private queue: QueuedEvent[] = [];
  private queuedBytes = 0;
  private logRecords = 0;
  private vars = new Map<string, { value: JsonValue; changed: boolean }>();
  private handler: ((m: ReceivedMessage) => void) | null = null;
  private syncing = false;
  private dead = false;
  private socket?: net.Socket;
  private conn?: mqtt.MqttClient;
  private opts: DeviceClientOptions;

  constructor(opts: DeviceClientOptions) {
    this.opts = opts;
    this.id = opts.id;
    this.url = opts.url;
    this.password = opts.password;
    this.storage = opts.storage;
    this.now = opts.now ?? Date.now;
    this.replay(this.storage.load());
  }

  private replay(records: LogRecord[]): void {
    const live = new Map<number, QueuedEvent>();
    let maxSeq = 0;
    for (const r of records) {
      switch (r.t) {
        case 'init':
          this.stream = r.stream;
          this.lastMsg = Math.max(this.lastMsg, r.lastMsg);
          maxSeq = Math.max(maxSeq, r.next - 1);
          break;
        case 'e':
          live.set(r.seq, { seq: r.seq, type: r.type, ts: r.ts, payload: r.payload, volatile: r.volatile, variable: r.variable, size: payloadSize(r.payload) + r.type.length });
          maxSeq = Math.max(maxSeq, r.seq);
          break;
        case 'ack':
          if (r.stream === this.stream) for (const seq of [...live.keys()]) if (seq >= r.first && seq <= r.last) live.delete(seq);
          break;
        case 'drop':
          live.delete(r.seq);
          break;
        case 'msg':
          this.lastMsg = Math.max(this.lastMsg, r.id);
          break;
      }
    }
    this.logRecords = records.length;
    if (this.stream === 0) {
      // A new queue: a new stream, so the cloud never mistakes its sequence numbers for old ones.
      this.stream = 1 + Math.floor(Math.random() * 0xfffffffe);
      this.append({ t: 'init', stream: this.stream, next: 1, lastMsg: 0 });
    }
    this.nextSeq = maxSeq + 1;
    this.queue = [...live.values()].sort((a, b) => a.seq - b.seq);
    this.queuedBytes = this.queue.reduce((n, e) => n + e.size, 0);
  }

  private append(r: LogRecord): void {
    if (this.dead) throw new PowerCut();
    try {
      this.storage.append(r);
    } catch (err) {
      if (err instanceof PowerCut) this.powerCut();
      throw err;
    }
    this.logRecords++;
  }

  private compactIfNeeded(): void {
    if (this.logRecords < 2 * this.queue.length + 256) return;
    const records: LogRecord[] = [{ t: 'init', stream: this.stream, next: this.nextSeq, lastMsg: this.lastMsg }];
    for (const e of this.queue) records.push({ t: 'e', seq: e.seq, type: e.type, ts: e.ts, payload: e.payload, volatile: e.volatile, variable: e.variable });
    this.storage.rewrite(records);
    this.logRecords = records.length;
  }

  /** Events waiting for the cloud's acknowledgement. */
  get pending(): number {
    return this.queue.length;
  }

  /** Sequence numbers of the events waiting, in order. */
  pendingSeqs(): number[] {
    return this.queue.map((e) => e.seq);
  }

  /** cloud.enqueue: returns the size of the queued data in bytes. */
  enqueue(type: string, payload: unknown, options: { volatile?: boolean } = {}): number {
    return this.add(type, payload, options.volatile ?? true, false);
  }

  private add(type: string, payload: unknown, volatile: boolean, variable: boolean): number {
    if (this.dead) throw new PowerCut();
    if (typeof type !== 'string' || type.length < 1 || [...type].length > LIMITS.typeChars) throw new RangeError(`type must be 1 to ${LIMITS.typeChars} characters`);
    const p = checkJson(payload, 'message');
    const limit = variable ? LIMITS.variableBytes : LIMITS.payloadBytes;
    const size = payloadSize(p);
    if (size > limit) throw new RangeError(`Message too big: ${size} bytes serialized (limit ${limit})`);
    const need = size + type.length;
    const capacity = this.opts.capacityBytes ?? DEFAULT_CAPACITY;
    while (this.queuedBytes + need > capacity) {
      const victim = this.queue.find((e) => e.volatile);
      if (!victim) throw new RangeError('No storage space');
      this.append({ t: 'drop', seq: victim.seq });
      this.removeSeq(victim.seq);
    }
    const e: QueuedEvent = { seq: this.nextSeq, type, ts: this.now(), payload: p, volatile, variable, size: need };
    this.append({ t: 'e', seq: e.seq, type, ts: e.ts, payload: p, volatile, variable });
    this.nextSeq++;
    this.queue.push(e);
    this.queuedBytes += need;
    return size;
  }

  private removeSeq(seq: number): void {
    const i = this.queue.findIndex((e) => e.seq === seq);
    if (i >= 0) {
      this.queuedBytes -= this.queue[i].size;
      this.queue.splice(i, 1);
    }
  }

  /** cloud.setVar: kept in memory; sent at the next sync if it changed. */
  setVar(name: string, value: unknown): number {
    if (typeof name !== 'string' || name.length < 1 || [...name].length > LIMITS.typeChars) throw new RangeError(`name must be 1 to ${LIMITS.typeChars} characters`);
    const v = checkJson(value, 'value');
    const size = payloadSize(v);
    if (size > LIMITS.variableBytes) throw new RangeError(`Message too big: ${size} bytes serialized (limit ${LIMITS.variableBytes})`);
    const old = this.vars.get(name);
    if (!old && this.vars.size >= 30) throw new RangeError('at most 30 variables');
    if (!old || JSON.stringify(old.value) !== JSON.stringify(v)) this.vars.set(name, { value: v, changed: true });
    return size;
  }

  onReceive(handler: ((m: ReceivedMessage) => void) | null): void {
    this.handler = handler;
  }

  /** Cut the power: the connection dies without a word and this object is unusable. */
  powerCut(): void {
    this.dead = true;
    this.socket?.destroy();
    this.conn?.end(true);
  }

  /** Drop the connection (a lost link): the running sync fails, nothing is lost. */
  dropConnection(): void {
    this.socket?.destroy();
  }

  private connect(): Promise<mqtt.MqttClient> {
    const u = new URL(this.url);
    const port = Number(u.port || (u.protocol === 'mqtts:' ? 8883 : 1883));
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const timeout = this.opts.timeoutMs ?? 20_000;
    return new Promise((resolve, reject) => {
      const client = new mqtt.MqttClient(
        () => {
          const s =
            u.protocol === 'mqtts:'
              ? tls.connect({ host, port, ca: this.opts.ca, servername: net.isIP(host) ? undefined : host })
              : net.connect({ host, port });
          // A sync is a chain of small exchanges: no waiting for the peer's delayed ACK.
          s.setNoDelay(true);
          this.socket = s;
          return s;
        },
        {
          protocolVersion: 4,
          clientId: this.id,
          username: this.id,
          password: this.password,
          clean: true,
          keepalive: 60,
          reconnectPeriod: 0,
          connectTimeout: timeout,
          resubscribe: false,
        },
      );
      this.conn = client;
      const fail = (err: Error): void => {
        client.end(true);
        reject(err);
      };
      client.once('error', fail);
      client.once('close', () => fail(new Error('connection closed before CONNACK')));
      client.once('connect', () => {
        client.removeAllListeners('error');
        client.removeAllListeners('close');
        client.on('error', () => undefined);
        resolve(client);
      });
    });
  }

  /** One synchronisation: send every queued event, receive the messages waiting in the cloud. */
  async sync(): Promise<SyncResult> {
    if (this.dead) throw new PowerCut();
    if (this.syncing) throw new Error('a sync is already running');
    this.syncing = true;
    const result: SyncResult = { acked: 0, batches: 0, received: 0, bytesSent: 0, bytesReceived: 0 };
    let client: mqtt.MqttClient | undefined;
    let ok = false;
    try {
      this.flushVariables();
      client = await this.connect();
      await this.runSync(client, result);
      ok = true;
      return result;
    } finally {
      this.syncing = false;
      const s = this.socket;
      if (client) {
        // A clean DISCONNECT after a good sync; after a failure the link is simply dropped
        // (a graceful end would wait for acknowledgements that will never come).
        if (ok) await client.endAsync(false).catch(() => undefined);
        client.end(true);
      }
      if (s) {
        result.bytesSent = s.bytesWritten;
        result.bytesReceived = s.bytesRead;
      }
      this.socket = undefined;
      this.conn = undefined;
      if (!this.dead) this.compactIfNeeded();
    }
  }

  private flushVariables(): void {
    for (const [name, v] of this.vars) {
      if (!v.changed) continue;
      // Only the latest value goes out: an older, still unacknowledged value of it is dropped.
      for (const e of this.queue.filter((x) => x.variable && x.type === name)) {
        this.append({ t: 'drop', seq: e.seq });
        this.removeSeq(e.seq);
      }
      this.add(name, v.value, true, true);
      v.changed = false;
    }
  }

  private async runSync(client: mqtt.MqttClient, result: SyncResult): Promise<void> {
    const timeout = this.opts.timeoutMs ?? 20_000;
    const trace = (step: SyncStep): void => this.opts.trace?.(step, this);
    let wake: (() => void) | undefined;
    let failure: Error | undefined;
    const inflight = new Map<string, number>(); // "first-last" -> events
    let inboxDone = false;
    let receivedThisSync = false;
    const notify = (): void => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    client.on('close', () => {
      failure ??= new Error(this.dead ? 'power cut' : 'connection lost');
      notify();
    });
    client.on('message', (t, payload) => {
      if (this.dead) return;
      try {
        const p = parseTopic(t);
        if (!p || p.id !== this.id) return;
        if (p.kind === 'a') {
          const ack = decodeAck(payload);
          if (ack.stream !== this.stream) return;
          const before = this.queue.length;
          this.append({ t: 'ack', stream: ack.stream, first: ack.first, last: ack.last });
          for (const e of this.queue.filter((x) => x.seq >= ack.first && x.seq <= ack.last)) this.removeSeq(e.seq);
          result.acked += before - this.queue.length;
          inflight.delete(`${ack.first}-${ack.last}`);
          trace('ack');
        } else if (p.kind === 'm') {
          const frame = decodeMessageFrame(payload);
          for (const m of frame.messages) {
            if (m.id <= this.lastMsg) continue; // delivered before: never twice
            this.append({ t: 'msg', id: m.id });
            this.lastMsg = m.id;
            receivedThisSync = true;
            result.received++;
            try {
              this.handler?.({ type: m.type, ts: m.ts, payload: m.payload });
            } catch {
              // The app's handler threw: that is the app's error, the message was delivered.
            }
            trace('message');
          }
          if (!frame.more) {
            inboxDone = true;
            trace('inbox-done');
          }
        }
      } catch (err) {
        failure ??= err instanceof ProtocolError ? new Error(`bad frame from the cloud: ${err.message}`) : (err as Error);
      }
      notify();
    });
    const waitChange = (): Promise<void> =>
      new Promise<void>((resolve, reject) => {
        if (failure) return reject(failure);
        const timer = setTimeout(() => {
          wake = undefined;
          reject(new Error('sync timed out waiting for the cloud'));
        }, timeout);
        wake = () => {
          clearTimeout(timer);
          if (failure) reject(failure);
          else resolve();
        };
      });

    // mqtt.js leaves a publish or subscribe pending forever when the link dies under it: every
    // wait is raced against the link and the timeout.
    const guarded = <T>(p: Promise<T>): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        if (failure) return reject(failure);
        const timer = setTimeout(() => reject(new Error('sync timed out waiting for the cloud')), timeout);
        const onWake = (): void => {
          if (failure) {
            clearTimeout(timer);
            reject(failure);
          } else {
            wake = onWake; // woken by a frame, not by the link: keep watching
          }
        };
        wake = onWake;
        p.then(
          (v) => {
            clearTimeout(timer);
            resolve(v);
          },
          (err: Error) => {
            clearTimeout(timer);
            reject(err);
          },
        );
      });

    const granted = await guarded(client.subscribeAsync([topic(this.id, 'a'), topic(this.id, 'm')], { qos: 1 }));
    if (granted.some((g) => g.qos === 128)) throw new Error('the cloud refused the subscriptions');
    trace('connected');
    await guarded(client.publishAsync(topic(this.id, 's'), encodeLastMessage(this.lastMsg), { qos: 1 }));

    const window = this.opts.window ?? 4;
    const perBatch = Math.min(this.opts.batchEvents ?? 64, LIMITS.batchEvents);
    let sentUpTo = 0;
    for (;;) {
      if (failure) throw failure;
      while (inflight.size < window) {
        const batch = this.nextBatch(sentUpTo, perBatch);
        if (!batch) break;
        const first = batch.events[0].seq;
        const last = batch.events[batch.events.length - 1].seq;
        inflight.set(`${first}-${last}`, batch.events.length);
        sentUpTo = last;
        result.batches++;
        client.publish(topic(this.id, 'u'), encodeBatch(batch), { qos: 1 });
        trace('batch-sent');
        if (failure) throw failure;
      }
      if (inflight.size === 0 && inboxDone) break;
      await waitChange();
    }
    if (receivedThisSync) await guarded(client.publishAsync(topic(this.id, 'k'), encodeLastMessage(this.lastMsg), { qos: 1 }));
    trace('done');
  }

  private nextBatch(after: number, max: number): Batch | undefined {
    const events: WireEvent[] = [];
    let bytes = 32;
    for (const e of this.queue) {
      if (e.seq <= after) continue;
      const n = e.size + 24;
      if (events.length >= max || (events.length > 0 && bytes + n > LIMITS.frameBytes)) break;
      events.push(e);
      bytes += n;
    }
    return events.length > 0 ? { stream: this.stream, events } : undefined;
  }
}
