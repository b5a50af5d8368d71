// The load generator's device: the device side of docs/cloud-protocol.md at the cost of a few
// hundred bytes per device. deviceClient.ts is the reference client (an mqtt.js client and a
// persisted log per device: tens of kilobytes each, too heavy for 100,000); this one speaks the
// same protocol on a raw socket with mqtt-packet's generator and parser, and keeps its queue as
// ranges of sequence numbers whose events it can make again from the number alone.
//
// One sync, as §2 of the protocol has it: CONNECT (id, id, password; clean session; keep alive
// 60 s), SUBSCRIBE a and m at QoS 1, the sync start (PUBLISH s, and its PUBACK before the first
// batch, as the reference client waits), batches of the queued events with at most `window`
// unacknowledged, every acknowledgement and the last message frame, the message
// acknowledgement if messages came, DISCONNECT. A sync that fails (connection lost or refused,
// no answer within the timeout, a frame it cannot decode) leaves every unacknowledged event
// queued, and the next sync sends it again with the same stream and sequence number.
import { createHash } from 'crypto';
import * as mqttPacket from 'mqtt-packet';
import * as net from 'net';
import * as tls from 'tls';
import type { JsonValue } from './cbor';
import { decodeAck, decodeChunk, decodeMessageFrame, DeployOffer, DeployReport, encodeBatch, encodeFetch, encodeLastMessage, encodeSyncStart, ProtocolError, topic, WireEvent } from './protocol';

/** Chunk size a load device asks for: the firmware's (rt_cloud_deploy.h). */
const DEPLOY_CHUNK = 4096;

/**
 * A load device that takes deployments (§3.8) as the firmware does, without flash: it names the
 * package it "runs" in each sync start, fetches an offered one chunk by chunk (kept between
 * syncs), checks its SHA-256, then "runs" it and reports it installed at its next sync.
 */
export interface LoadDeployState {
  app: Buffer;
  fetching?: DeployOffer;
  chunks: Buffer[];
  staged: number;
  report?: DeployReport;
  reportSent?: boolean;
}

export interface LoadTarget {
  host: string;
  port: number;
  tls: boolean;
  /** PEM of the CA the broker's certificate is checked against (default: the system's). */
  ca?: string;
}

export interface SyncSettings {
  /** Events per batch, 1..256. */
  batch: number;
  /** Batches unacknowledged at most. */
  window: number;
  /** The longest wait for the next packet from the broker before the sync fails. */
  timeoutMs: number;
  /** Keep the connection this long after a good sync before DISCONNECT (0: disconnect at once). */
  holdMs: number;
  /** CBOR size of each event's payload. */
  payloadBytes: number;
  /** The event type of every event: the run's tag, by which its events are counted. */
  type: string;
}

const KEEP_ALIVE_S = 60;

const FILL = 'x'.repeat(70_000);

function uintBytes(n: number): number {
  return n < 24 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : n < 0x100000000 ? 5 : 9;
}

/**
 * The payload of event `seq`: exactly `bytes` of CBOR (1..8,192). From 32 bytes a map with the
 * sequence number and a filler text, `{"seq": 41, "fill": "xx…"}`; below that a text (or, for 25
 * bytes, which no text is, a text in an array).
 */
export function loadPayload(seq: number, bytes: number): JsonValue {
  if (bytes <= 24) return FILL.slice(0, bytes - 1);
  if (bytes === 25) return [FILL.slice(0, 23)];
  if (bytes < 32) return FILL.slice(0, bytes - 2);
  // map(2) header, "seq" and its value, the key, then the text: 25 and 258 bytes are no text's
  // size (a text header grows by one byte at 24 and 256 bytes), and a key one byte shorter
  // takes them to 26 and 259, which are.
  let rest = bytes - 1 - 4 - uintBytes(seq) - 5;
  let key = 'fill';
  if (rest === 25 || rest === 258) {
    key = 'fil';
    rest++;
  }
  const k = rest - (rest <= 24 ? 1 : rest <= 257 ? 2 : 3);
  return { seq, [key]: FILL.slice(0, k) };
}

/** What a device has not had acknowledged yet, and the numbers it gives new events. */
export class LoadDevice {
  /** The stream: random, as a device picks it when its queue is created (§4.1). */
  readonly stream = 1 + Math.floor(Math.random() * 0xfffffffe);
  private nextSeq = 1;
  /** Unacknowledged sequence numbers: sorted, disjoint, inclusive [first, last] pairs, flat. */
  private ranges: number[] = [];
  /** Events generated together share a base timestamp: [first seq, ts of it] pairs, flat. */
  private gens: number[] = [];
  lastMsg = 0;
  /** Set to take deployments (bench/deploy-fleet.js). */
  deploy?: LoadDeployState;

  constructor(
    readonly id: string,
    readonly password: string,
  ) {}

  get pending(): number {
    let n = 0;
    for (let i = 0; i < this.ranges.length; i += 2) n += this.ranges[i + 1] - this.ranges[i] + 1;
    return n;
  }

  /** Enqueue `k` events stamped a millisecond apart from `now`. */
  generate(k: number, now: number): void {
    const first = this.nextSeq;
    this.nextSeq += k;
    this.gens.push(first, now);
    const n = this.ranges.length;
    if (n > 0 && this.ranges[n - 1] === first - 1) this.ranges[n - 1] = first + k - 1;
    else this.ranges.push(first, first + k - 1);
  }

  private ts(seq: number): number {
    let i = this.gens.length - 2;
    while (i > 0 && this.gens[i] > seq) i -= 2;
    return this.gens[i + 1] + (seq - this.gens[i]);
  }

  /** The next batch: up to `max` queued events after sequence number `after`, oldest first. */
  nextBatch(after: number, max: number, s: SyncSettings): WireEvent[] {
    const events: WireEvent[] = [];
    for (let i = 0; i < this.ranges.length && events.length < max; i += 2) {
      for (let seq = Math.max(this.ranges[i], after + 1); seq <= this.ranges[i + 1] && events.length < max; seq++) {
        events.push({ seq, type: s.type, ts: this.ts(seq), payload: loadPayload(seq, s.payloadBytes), volatile: false, variable: false });
      }
    }
    return events;
  }

  /** An acknowledgement of [first, last]: delete those events; returns how many were queued. */
  ack(first: number, last: number): number {
    const out: number[] = [];
    let removed = 0;
    for (let i = 0; i < this.ranges.length; i += 2) {
      const a = this.ranges[i];
      const b = this.ranges[i + 1];
      if (b < first || a > last) {
        out.push(a, b);
        continue;
      }
      removed += Math.min(b, last) - Math.max(a, first) + 1;
      if (a < first) out.push(a, first - 1);
      if (b > last) out.push(last + 1, b);
    }
    this.ranges = out;
    // Generations wholly acknowledged are no longer needed for timestamps.
    const oldest = out.length > 0 ? out[0] : this.nextSeq;
    while (this.gens.length > 2 && this.gens[2] <= oldest) this.gens.splice(0, 2);
    return removed;
  }
}

/** How a sync ended. A failure's kind is one of the error kinds the report counts. */
export type SyncOutcome = { ok: true } | { ok: false; kind: string; detail: string };

/** What the generator learns from a sync while it runs. */
export interface SyncObserver {
  /** A connection was opened (at: epoch ms). */
  opened(at: number): void;
  closed(): void;
  /** CONNACK arrived (accepted or not): the connect phase is over. */
  connackd(): void;
  /** An acknowledgement deleted `events` queued events; `latencyMs` since its batch's PUBLISH. */
  acked(events: number, latencyMs: number, at: number): void;
}

const CONNACK_REASONS: Record<number, string> = {
  1: 'unacceptable protocol version',
  2: 'identifier rejected',
  3: 'server unavailable',
  4: 'bad user name or password',
  5: 'not authorised',
};

function socketErrorKind(err: NodeJS.ErrnoException): string {
  if (err.code === 'ECONNREFUSED') return 'connect_refused';
  if (err.code === 'ECONNRESET' || err.code === 'EPIPE') return 'connection_closed';
  if (err.code?.startsWith('ERR_TLS') || err.code?.includes('CERT') || /certificate|SSL|TLS/i.test(err.message)) return 'tls';
  return 'socket_error';
}

function now(): number {
  return performance.timeOrigin + performance.now();
}

export interface RunningSync {
  /** Resolves when the connection has closed. */
  outcome: Promise<SyncOutcome>;
  /** End it now (the run is over): a sync not yet done fails with `kind`. */
  abort(kind: string, detail: string): void;
}

/** Start one sync of `dev`. */
export function startSync(dev: LoadDevice, target: LoadTarget, s: SyncSettings, obs: SyncObserver): RunningSync {
  let conn!: SyncConnection;
  const outcome = new Promise<SyncOutcome>((resolve) => {
    conn = new SyncConnection(dev, target, s, obs, resolve);
    conn.start();
  });
  return { outcome, abort: (kind, detail) => conn.fail(kind, detail) };
}

/**
 * CONNECT as a device and wait for the CONNACK: its return code (0: accepted), or an Error when
 * the broker cannot be reached or does not answer. Checks the broker and the credentials
 * before a run starts.
 */
export function probeConnect(target: LoadTarget, id: string, password: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const { host, port } = target;
    const socket = target.tls ? tls.connect({ host, port, ca: target.ca, servername: net.isIP(host) ? undefined : host }) : net.connect({ host, port });
    const parser = mqttPacket.parser({ protocolVersion: 4 });
    const timer = setTimeout(() => done(new Error(`no CONNACK within ${timeoutMs} ms`)), timeoutMs);
    let settled = false;
    const done = (r: number | Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (typeof r === 'number' && r === 0 && !socket.destroyed) socket.end(mqttPacket.generate({ cmd: 'disconnect' }));
      else socket.destroy();
      if (typeof r === 'number') resolve(r);
      else reject(r);
    };
    socket.on(target.tls ? 'secureConnect' : 'connect', () => {
      socket.write(mqttPacket.generate({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: 4, clientId: id, username: id, password: Buffer.from(password), clean: true, keepalive: KEEP_ALIVE_S }));
    });
    socket.on('data', (d: Buffer) => parser.parse(d));
    parser.on('packet', (p: mqttPacket.Packet) => {
      if (p.cmd === 'connack') done(p.returnCode ?? 0);
    });
    parser.on('error', (err: Error) => done(err));
    socket.on('error', (err: Error) => done(err));
    socket.on('close', () => done(new Error('the broker closed the connection before CONNACK')));
  });
}

export function connackReason(code: number): string {
  return `CONNACK ${code} (${CONNACK_REASONS[code] ?? 'refused'})`;
}

type Phase = 'connect' | 'subscribe' | 'start' | 'upload' | 'message-ack' | 'hold' | 'disconnect';

class SyncConnection {
  private socket!: net.Socket;
  private parser = mqttPacket.parser({ protocolVersion: 4 });
  private phase: Phase = 'connect';
  private outcome?: SyncOutcome;
  private timer?: NodeJS.Timeout;
  private ping?: NodeJS.Timeout;
  private nextId = 1;
  private startId = 0;
  private messageAckId = 0;
  /** Batches sent and not acknowledged: "first-last" -> when published (performance.now()). */
  private inflight = new Map<string, number>();
  private sentUpTo = 0;
  private inboxDone = false;
  private received = false;
  private connackSeen = false;
  private closed = false;
  private fetchInFlight = false;

  constructor(
    private dev: LoadDevice,
    private target: LoadTarget,
    private s: SyncSettings,
    private obs: SyncObserver,
    private resolve: (o: SyncOutcome) => void,
  ) {}

  start(): void {
    const { host, port } = this.target;
    this.socket = this.target.tls
      ? tls.connect({ host, port, ca: this.target.ca, servername: net.isIP(host) ? undefined : host })
      : net.connect({ host, port });
    this.obs.opened(now());
    // A sync is a chain of small exchanges: no waiting for the peer's delayed ACK.
    this.socket.setNoDelay(true);
    this.socket.on(this.target.tls ? 'secureConnect' : 'connect', () => this.onConnect());
    this.socket.on('data', (d: Buffer) => this.parser.parse(d));
    this.socket.on('error', (err: NodeJS.ErrnoException) => this.fail(socketErrorKind(err), err.message));
    this.socket.on('close', () => this.onClose());
    this.parser.on('packet', (p: mqttPacket.Packet) => this.onPacket(p));
    this.parser.on('error', (err: Error) => this.fail('bad_packet', `bad MQTT packet from the broker: ${err.message}`));
    this.timer = setTimeout(() => this.onTimeout(), this.s.timeoutMs);
  }

  private send(p: mqttPacket.Packet): void {
    if (!this.socket.destroyed) this.socket.write(mqttPacket.generate(p));
  }

  private id(): number {
    const id = this.nextId;
    this.nextId = id === 0xffff ? 1 : id + 1;
    return id;
  }

  private onConnect(): void {
    this.send({
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 4,
      clientId: this.dev.id,
      username: this.dev.id,
      password: Buffer.from(this.dev.password),
      clean: true,
      keepalive: KEEP_ALIVE_S,
    });
  }

  private onTimeout(): void {
    if (this.phase === 'disconnect') {
      // The sync is done: only the broker's close is late. End it from this side.
      this.socket.destroy();
      return;
    }
    // The kind says what was awaited: the broker's own answers (CONNACK, SUBACK, PUBACK) or the
    // cloud's (acknowledgements, message frames), which tells a slow broker from a slow cloud.
    const upload = this.inflight.size > 0 ? (['acks', 'batch acknowledgements'] as const) : (['messages', 'the last message frame'] as const);
    const [kind, what] = {
      connect: ['connack', 'CONNACK'],
      subscribe: ['suback', 'SUBACK'],
      start: ['sync_start', "the sync start's PUBACK"],
      upload,
      'message-ack': ['message_ack', "the message acknowledgement's PUBACK"],
      hold: ['hold', 'nothing'],
    }[this.phase];
    this.fail(`timeout_${kind}`, `no answer from the broker for ${this.s.timeoutMs} ms (waiting for ${what})`);
  }

  private onPacket(p: mqttPacket.Packet): void {
    if (this.outcome?.ok === false) return;
    // Any packet is an answer; a held connection's timer is the hold's, which pings do not extend.
    if (this.phase !== 'hold') this.timer?.refresh();
    switch (p.cmd) {
      case 'connack':
        this.connackSeen = true;
        this.obs.connackd();
        if (p.returnCode !== 0) {
          return this.fail('connack_refused', connackReason(p.returnCode ?? 0));
        }
        this.phase = 'subscribe';
        // The broker drops a client that sends nothing for 1.5 keep-alive periods: a held or
        // slow connection pings.
        this.ping = setInterval(() => this.send({ cmd: 'pingreq' }), KEEP_ALIVE_S * 1000);
        this.send({
          cmd: 'subscribe',
          messageId: this.id(),
          subscriptions: [
            { topic: topic(this.dev.id, 'a'), qos: 1 },
            { topic: topic(this.dev.id, 'm'), qos: 1 },
            ...(this.dev.deploy ? [{ topic: topic(this.dev.id, 'c'), qos: 1 as const }] : []),
          ],
        });
        return;
      case 'suback':
        if (p.granted.some((g) => (typeof g === 'number' ? g : (g as { qos?: number }).qos) === 128)) return this.fail('suback_refused', 'SUBACK refused a subscription (0x80)');
        this.phase = 'start';
        this.startId = this.id();
        const d = this.dev.deploy;
        if (d) d.reportSent = d.report !== undefined;
        const start = d ? encodeSyncStart({ lastId: this.dev.lastMsg, app: d.app, report: d.report }) : encodeLastMessage(this.dev.lastMsg);
        this.send({ cmd: 'publish', topic: topic(this.dev.id, 's'), payload: start, qos: 1, messageId: this.startId, retain: false, dup: false });
        return;
      case 'puback':
        if (this.phase === 'start' && p.messageId === this.startId) {
          this.phase = 'upload';
          this.pump();
        } else if (this.phase === 'message-ack' && p.messageId === this.messageAckId) {
          this.finish();
        }
        return;
      case 'publish':
        if (p.qos === 1 && p.messageId !== undefined) this.send({ cmd: 'puback', messageId: p.messageId });
        return this.onFrame(p.topic, p.payload as Buffer);
      default:
        return; // PINGRESP; nothing else comes to a client
    }
  }

  private onFrame(t: string, payload: Buffer): void {
    if (this.outcome) return;
    try {
      if (t === topic(this.dev.id, 'a')) {
        const ack = decodeAck(payload);
        if (ack.stream !== this.dev.stream) return;
        const key = `${ack.first}-${ack.last}`;
        const sent = this.inflight.get(key);
        this.inflight.delete(key);
        const events = this.dev.ack(ack.first, ack.last);
        if (events > 0 || sent !== undefined) this.obs.acked(events, sent === undefined ? -1 : performance.now() - sent, now());
      } else if (t === topic(this.dev.id, 'm')) {
        const frame = decodeMessageFrame(payload);
        for (const m of frame.messages) {
          if (m.id <= this.dev.lastMsg) continue; // delivered before: never twice
          this.dev.lastMsg = m.id;
          this.received = true;
        }
        if (!frame.more) this.inboxDone = true;
        const d = this.dev.deploy;
        if (d && frame.offer && !(d.fetching && d.fetching.hash.equals(frame.offer.hash))) {
          d.fetching = frame.offer;
          d.chunks = [];
          d.staged = 0;
        }
      } else if (t === topic(this.dev.id, 'c') && this.dev.deploy) {
        this.onChunk(this.dev.deploy, payload);
      } else {
        return;
      }
    } catch (err) {
      if (err instanceof ProtocolError) return this.fail('bad_frame', `bad frame from the cloud on ${t}: ${err.message}`);
      throw err;
    }
    if (this.phase === 'upload') this.pump();
  }

  /** Send batches while the window allows; move on once everything is acknowledged. */
  private pump(): void {
    while (this.inflight.size < this.s.window) {
      const events = this.dev.nextBatch(this.sentUpTo, this.s.batch, this.s);
      if (events.length === 0) break;
      const first = events[0].seq;
      const last = events[events.length - 1].seq;
      this.sentUpTo = last;
      this.inflight.set(`${first}-${last}`, performance.now());
      const payload = encodeBatch({ stream: this.dev.stream, events });
      this.send({ cmd: 'publish', topic: topic(this.dev.id, 'u'), payload, qos: 1, messageId: this.id(), retain: false, dup: false });
    }
    if (this.inflight.size > 0 || !this.inboxDone) return;
    const d = this.dev.deploy;
    if (d?.fetching) {
      if (!this.fetchInFlight) {
        this.fetchInFlight = true;
        const length = Math.min(DEPLOY_CHUNK, d.fetching.size - d.staged);
        this.send({ cmd: 'publish', topic: topic(this.dev.id, 'g'), payload: encodeFetch({ hash: d.fetching.hash, offset: d.staged, length }), qos: 1, messageId: this.id(), retain: false, dup: false });
      }
      return;
    }
    if (d?.reportSent) d.report = undefined;
    this.outcome = { ok: true };
    if (this.received) {
      this.phase = 'message-ack';
      this.messageAckId = this.id();
      this.send({ cmd: 'publish', topic: topic(this.dev.id, 'k'), payload: encodeLastMessage(this.dev.lastMsg), qos: 1, messageId: this.messageAckId, retain: false, dup: false });
    } else {
      this.finish();
    }
  }

  /** A chunk of the package being fetched: staged; the last one checked and "installed". */
  private onChunk(d: LoadDeployState, payload: Buffer): void {
    this.fetchInFlight = false;
    const c = decodeChunk(payload);
    const f = d.fetching;
    if (!f) return this.fail('bad_frame', 'a package chunk not asked for');
    if (!c.data) {
      d.fetching = undefined; // withdrawn
      return;
    }
    if (c.offset !== d.staged || c.data.length > f.size - d.staged) return this.fail('bad_frame', 'a package chunk out of order or past the end');
    d.chunks.push(c.data);
    d.staged += c.data.length;
    if (d.staged < f.size) return;
    const ok = createHash('sha256').update(Buffer.concat(d.chunks)).digest().equals(f.hash);
    d.report = ok ? { hash: f.hash, outcome: 'installed' } : { hash: f.hash, outcome: 'refused', reason: 'package refused: its SHA-256 is not the one offered' };
    d.reportSent = false;
    if (ok) d.app = f.hash;
    d.fetching = undefined;
    d.chunks = [];
  }

  private finish(): void {
    if (this.s.holdMs > 0 && this.phase !== 'hold') {
      this.phase = 'hold';
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.finish(), this.s.holdMs);
      return;
    }
    // DISCONNECT, then let the broker close: the side that closes first keeps the connection's
    // TIME_WAIT, and on this side that would be an ephemeral port, of which a drain of 100,000
    // devices needs many.
    this.phase = 'disconnect';
    this.send({ cmd: 'disconnect' });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.onTimeout(), Math.min(this.s.timeoutMs, 2000));
  }

  fail(kind: string, detail: string): void {
    // A good sync whose held connection drops, or whose message acknowledgement is cut off,
    // stays good: every event was acknowledged (and the cloud takes the next sync start's
    // message id as the acknowledgement).
    this.outcome ??= { ok: false, kind, detail };
    this.socket.destroy();
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.ping);
    if (!this.connackSeen) this.obs.connackd();
    this.obs.closed();
    this.resolve(this.outcome ?? { ok: false, kind: 'connection_closed', detail: `the broker closed the connection (${this.phase === 'connect' ? 'before CONNACK' : `during ${this.phase}`})` });
  }
}
