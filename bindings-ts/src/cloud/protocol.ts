// The device <-> cloud wire protocol (docs/cloud-protocol.md is the normative text; the tests
// check its byte-exact examples against this file). Frames are CBOR maps with small integer
// keys; every decoder here is strict: unknown keys, wrong types, values out of range and
// oversized frames are refused with a ProtocolError, and nothing is half-accepted.
import { CborError, CborValue, checkJson, decodeCbor, encodeCbor, JsonValue, toJson } from './cbor';
import { LIMITS } from './limits';

export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/** Limits of the protocol (docs/cloud-protocol.md, "Limits"), shared with the device: limits.ts. */
export { LIMITS } from './limits';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** The topic suffixes: u, s, k, g from the device; a, m, c to the device (g and c: deployments, §3.8). */
export type DeviceTopic = 'u' | 's' | 'k' | 'g';
export type CloudTopic = 'a' | 'm' | 'c';

export function isDeviceId(id: string): boolean {
  return id.length >= LIMITS.idHexMin && id.length <= LIMITS.idHexMax && id.length % 2 === 0 && /^[0-9a-f]+$/.test(id);
}

/** A device id as users type it (any case, optional spaces or colons) in the protocol's form. */
export function normalizeDeviceId(text: string): string {
  const id = text.trim().toLowerCase().replace(/[\s:]/g, '');
  if (!isDeviceId(id)) {
    throw new ProtocolError(`'${text}' is not a device public id (hex, ${LIMITS.idHexMin / 2} to ${LIMITS.idHexMax / 2} bytes)`);
  }
  return id;
}

export function topic(id: string, kind: DeviceTopic | CloudTopic): string {
  return `b/${id}/${kind}`;
}

/** Split a topic into the device id and its kind; undefined when it is not a protocol topic. */
export function parseTopic(t: string): { id: string; kind: DeviceTopic | CloudTopic } | undefined {
  const m = /^b\/([0-9a-f]+)\/([uskamgc])$/.exec(t);
  if (!m || !isDeviceId(m[1])) return undefined;
  return { id: m[1], kind: m[2] as DeviceTopic | CloudTopic };
}

// ---------------------------------------------------------------------------------------------
// Frames

/** One event as the device queued it. */
export interface WireEvent {
  seq: number;
  type: string;
  /** Enqueue time, UTC ms. */
  ts: number;
  payload: JsonValue;
  volatile: boolean;
  /** A cloud.setVar update: `type` is the variable's name. */
  variable: boolean;
}

/** An upload batch (topic u). */
export interface Batch {
  /** Chosen at random when the device's event queue is created; seqs are unique within it. */
  stream: number;
  events: WireEvent[];
}

/** The cloud's acknowledgement of a stored batch (topic a). */
export interface BatchAck {
  stream: number;
  first: number;
  last: number;
}

/** A message for the device (inside a message frame, topic m). */
export interface WireMessage {
  id: number;
  type: string;
  ts: number;
  payload: JsonValue;
}

/** Messages for the device (topic m); `more` when another frame follows. */
export interface MessageFrame {
  messages: WireMessage[];
  more: boolean;
  /** The app package assigned to the device, offered in the last frame (§3.8). */
  offer?: DeployOffer;
}

/** An app package the cloud offers a device (message frame key 2). */
export interface DeployOffer {
  /** SHA-256 of the whole .bapp: names the package. */
  hash: Buffer;
  size: number;
  /** The package's API version, major << 16 | minor << 8 | patch. */
  api: number;
  /** Whether the package carries a signature block. */
  signed: boolean;
}

/** What became of an offered package on the device (sync start key 2). */
export const DEPLOY_OUTCOMES = ['installed', 'refused', 'rolled back'] as const;
export type DeployOutcome = (typeof DEPLOY_OUTCOMES)[number];

export interface DeployReport {
  hash: Buffer;
  outcome: DeployOutcome;
  /** Why it was refused or rolled back (1 to 100 characters). */
  reason?: string;
}

/** The sync start (topic s): what the device processed, runs, and has to report. */
export interface SyncStart {
  lastId: number;
  /** SHA-256 of the package the device runs: only devices that take deployments send it. */
  app?: Buffer;
  report?: DeployReport;
  /** Errors the running app reported since it started (sent with `app`, when not 0). */
  errors?: number;
}

/** A chunk request (topic g): `length` bytes at most from `offset` of package `hash`. */
export interface DeployFetch {
  hash: Buffer;
  offset: number;
  length: number;
}

/** A chunk (topic c); no data when the package is no longer assigned to the device. */
export interface DeployChunk {
  offset: number;
  data?: Buffer;
}

function fail(what: string): never {
  throw new ProtocolError(what);
}

function asMap(v: unknown, what: string, allowed: readonly number[]): Map<number, unknown> {
  if (!(v instanceof Map)) fail(`${what}: not a map`);
  for (const k of v.keys()) {
    if (typeof k !== 'number' || !allowed.includes(k)) fail(`${what}: unknown key ${typeof k === 'string' ? `'${k}'` : String(k)}`);
  }
  return v as Map<number, unknown>;
}

function uint(v: unknown, what: string, min = 0, max = MAX_SAFE): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) fail(`${what}: expected an integer in ${min}..${max}`);
  return v;
}

function int(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || !Number.isSafeInteger(v)) fail(`${what}: expected an integer`);
  return v;
}

function bool(v: unknown, what: string): boolean {
  if (typeof v !== 'boolean') fail(`${what}: expected true or false`);
  return v;
}

function typeText(v: unknown, what: string): string {
  if (typeof v !== 'string') fail(`${what}: expected text`);
  const chars = [...v].length;
  if (chars < 1 || chars > LIMITS.typeChars) fail(`${what}: must be 1 to ${LIMITS.typeChars} characters`);
  return v;
}

function required(m: Map<number, unknown>, key: number, what: string): unknown {
  if (!m.has(key)) fail(`${what}: key ${key} missing`);
  return m.get(key);
}

/** The CBOR size of a payload, as the limits count it. */
export function payloadSize(p: JsonValue): number {
  return encodeCbor(p).length;
}

function payload(v: unknown, what: string, limit: number): JsonValue {
  let p: JsonValue;
  try {
    p = toJson(v, what);
  } catch (err) {
    if (err instanceof CborError) fail(err.message);
    throw err;
  }
  const size = payloadSize(p);
  if (size > limit) fail(`${what}: ${size} bytes serialized, more than ${limit}`);
  return p;
}

function decodeFrame(buf: Uint8Array, what: string): unknown {
  if (buf.length > LIMITS.frameBytes) fail(`${what}: ${buf.length} bytes, more than ${LIMITS.frameBytes}`);
  try {
    return decodeCbor(buf);
  } catch (err) {
    if (err instanceof CborError) fail(`${what}: ${err.message}`);
    throw err;
  }
}

function frameOut(value: CborValue, what: string): Buffer {
  const buf = encodeCbor(value);
  if (buf.length > LIMITS.frameBytes) fail(`${what}: ${buf.length} bytes, more than ${LIMITS.frameBytes}`);
  return buf;
}

// Batch: {0: stream, 1: base seq, 2: base ts, 3: [type...], 4: [event...]}
// Event: {0: seq gap (default 0), 1: type index, 2: ts delta, 3: payload, 4: volatile (default true), 5: variable (default false)}

export function encodeBatch(b: Batch): Buffer {
  if (b.events.length < 1 || b.events.length > LIMITS.batchEvents) fail(`batch: 1 to ${LIMITS.batchEvents} events`);
  uint(b.stream, 'batch stream', 1, 0xffffffff);
  const types: string[] = [];
  const index = new Map<string, number>();
  const first = b.events[0];
  const events: CborValue[] = [];
  let prevSeq = first.seq - 1;
  let prevTs = first.ts;
  for (const [i, e] of b.events.entries()) {
    const what = `batch event ${i}`;
    uint(e.seq, `${what} seq`, 1);
    uint(e.ts, `${what} ts`);
    if (e.seq <= prevSeq) fail(`${what}: sequence numbers must increase`);
    typeText(e.type, `${what} type`);
    const p = checkJsonOrFail(e.payload, `${what} payload`);
    const limit = e.variable ? LIMITS.variableBytes : LIMITS.payloadBytes;
    const size = payloadSize(p);
    if (size > limit) fail(`${what} payload: ${size} bytes serialized, more than ${limit}`);
    let ti = index.get(e.type);
    if (ti === undefined) {
      ti = types.length;
      types.push(e.type);
      index.set(e.type, ti);
    }
    const m = new Map<number, CborValue>();
    const gap = e.seq - prevSeq - 1;
    if (gap !== 0) m.set(0, gap);
    m.set(1, ti);
    m.set(2, e.ts - prevTs);
    m.set(3, p);
    if (!e.volatile) m.set(4, false);
    if (e.variable) m.set(5, true);
    events.push(m);
    prevSeq = e.seq;
    prevTs = e.ts;
  }
  return frameOut(
    new Map<number, CborValue>([
      [0, b.stream],
      [1, first.seq],
      [2, first.ts],
      [3, types],
      [4, events],
    ]),
    'batch',
  );
}

function checkJsonOrFail(v: unknown, what: string): JsonValue {
  try {
    return checkJson(v, what);
  } catch (err) {
    if (err instanceof CborError) fail(err.message);
    throw err;
  }
}

export function decodeBatch(buf: Uint8Array): Batch {
  const m = asMap(decodeFrame(buf, 'batch'), 'batch', [0, 1, 2, 3, 4]);
  const stream = uint(required(m, 0, 'batch'), 'batch stream (key 0)', 1, 0xffffffff);
  const baseSeq = uint(required(m, 1, 'batch'), 'batch base seq (key 1)', 1);
  const baseTs = uint(required(m, 2, 'batch'), 'batch base ts (key 2)');
  const typesRaw = required(m, 3, 'batch');
  if (!Array.isArray(typesRaw) || typesRaw.length < 1 || typesRaw.length > LIMITS.batchEvents) fail('batch types (key 3): expected a non-empty array');
  const types = typesRaw.map((t, i) => typeText(t, `batch type ${i}`));
  if (new Set(types).size !== types.length) fail('batch types (key 3): duplicate type');
  const evRaw = required(m, 4, 'batch');
  if (!Array.isArray(evRaw) || evRaw.length < 1 || evRaw.length > LIMITS.batchEvents) fail(`batch events (key 4): 1 to ${LIMITS.batchEvents} events`);
  const used = new Set<number>();
  const events: WireEvent[] = [];
  let seq = baseSeq - 1;
  let ts = baseTs;
  for (const [i, raw] of evRaw.entries()) {
    const what = `batch event ${i}`;
    const e = asMap(raw, what, [0, 1, 2, 3, 4, 5]);
    const gap = e.has(0) ? uint(e.get(0), `${what} seq gap (key 0)`) : 0;
    seq += 1 + gap;
    if (seq > MAX_SAFE) fail(`${what}: sequence number out of range`);
    const ti = uint(required(e, 1, what), `${what} type index (key 1)`, 0, types.length - 1);
    used.add(ti);
    ts += int(required(e, 2, what), `${what} ts delta (key 2)`);
    if (ts < 0 || ts > MAX_SAFE) fail(`${what}: timestamp out of range`);
    const volatile = e.has(4) ? bool(e.get(4), `${what} volatile (key 4)`) : true;
    const variable = e.has(5) ? bool(e.get(5), `${what} variable (key 5)`) : false;
    const p = payload(required(e, 3, what), `${what} payload`, variable ? LIMITS.variableBytes : LIMITS.payloadBytes);
    events.push({ seq, type: types[ti], ts, payload: p, volatile, variable });
  }
  if (used.size !== types.length) fail('batch types (key 3): a type no event uses');
  return { stream, events };
}

// Ack: {0: stream, 1: first seq, 2: last seq}
export function encodeAck(a: BatchAck): Buffer {
  return encodeCbor(new Map<number, CborValue>([[0, a.stream], [1, a.first], [2, a.last]]));
}

export function decodeAck(buf: Uint8Array): BatchAck {
  const m = asMap(decodeFrame(buf, 'ack'), 'ack', [0, 1, 2]);
  const stream = uint(required(m, 0, 'ack'), 'ack stream (key 0)', 1, 0xffffffff);
  const first = uint(required(m, 1, 'ack'), 'ack first (key 1)', 1);
  const last = uint(required(m, 2, 'ack'), 'ack last (key 2)', first);
  return { stream, first, last };
}

// Sync start (topic s) and message acknowledgement (topic k): {0: id of the last message processed}
export function encodeLastMessage(lastId: number): Buffer {
  uint(lastId, 'last message id');
  return encodeCbor(new Map<number, CborValue>([[0, lastId]]));
}

/** The sync start with its deployment keys (§3.8); key 0 alone is encodeLastMessage's frame. */
export function encodeSyncStart(s: SyncStart): Buffer {
  uint(s.lastId, 'last message id');
  const m = new Map<number, CborValue>([[0, s.lastId]]);
  if (s.app) m.set(1, hash32(s.app, 'sync start app'));
  if (s.report) m.set(2, reportMap(s.report));
  if (s.errors) m.set(3, uint(s.errors, 'sync start errors', 0, 0xffffffff));
  return encodeCbor(m);
}

export function decodeSyncStart(buf: Uint8Array): SyncStart {
  const m = asMap(decodeFrame(buf, 'sync start'), 'sync start', [0, 1, 2, 3]);
  const out: SyncStart = { lastId: uint(required(m, 0, 'sync start'), 'sync start last message id (key 0)') };
  if (m.has(1)) out.app = hash32(m.get(1), 'sync start app (key 1)');
  if (m.has(2)) out.report = decodeReport(m.get(2));
  if (m.has(3)) out.errors = uint(m.get(3), 'sync start errors (key 3)', 0, 0xffffffff);
  return out;
}

export function decodeLastMessage(buf: Uint8Array, what: string): number {
  const m = asMap(decodeFrame(buf, what), what, [0]);
  return uint(required(m, 0, what), `${what} last message id (key 0)`);
}

// Message frame (topic m): {0: [{0: id, 1: type, 2: ts, 3: payload}...], 1: more (default false)}
function messageMap(msg: WireMessage): Map<number, CborValue> {
  return new Map<number, CborValue>([
    [0, msg.id],
    [1, msg.type],
    [2, msg.ts],
    [3, msg.payload],
  ]);
}

export function encodeMessageFrame(f: MessageFrame): Buffer {
  const m = new Map<number, CborValue>([[0, f.messages.map(messageMap)]]);
  if (f.more) m.set(1, true);
  if (f.offer) {
    if (f.more) fail('message frame: the offer goes in the last frame');
    m.set(2, offerMap(f.offer));
  }
  return frameOut(m, 'message frame');
}

/** Encoded size of one message inside a frame, for packing frames under LIMITS.frameBytes. */
export function messageSize(msg: WireMessage): number {
  return encodeCbor(messageMap(msg)).length;
}

export function decodeMessageFrame(buf: Uint8Array): MessageFrame {
  const m = asMap(decodeFrame(buf, 'message frame'), 'message frame', [0, 1, 2]);
  const list = required(m, 0, 'message frame');
  if (!Array.isArray(list)) fail('message frame messages (key 0): expected an array');
  const messages = list.map((raw, i) => {
    const what = `message ${i}`;
    const e = asMap(raw, what, [0, 1, 2, 3]);
    return {
      id: uint(required(e, 0, what), `${what} id (key 0)`, 1),
      type: typeText(required(e, 1, what), `${what} type (key 1)`),
      ts: uint(required(e, 2, what), `${what} ts (key 2)`),
      payload: payload(required(e, 3, what), `${what} payload (key 3)`, LIMITS.payloadBytes),
    };
  });
  for (let i = 1; i < messages.length; i++) {
    if (messages[i].id <= messages[i - 1].id) fail('message frame: ids must increase');
  }
  const more = m.has(1) ? bool(m.get(1), 'message frame more (key 1)') : false;
  if (!m.has(2)) return { messages, more };
  if (more) fail('message frame: an offer (key 2) only in the last frame');
  return { messages, more, offer: decodeOffer(m.get(2)) };
}

// ---------------------------------------------------------------------------------------------
// Deployments (§3.8). Hashes and package bytes are CBOR byte strings: the only place the
// protocol has them (payloads never do).

/** Largest package a deployment carries: what a device's app slot holds at most. */
export const DEPLOY_MAX_PACKAGE = 1 << 20;
/** Largest chunk a device may ask for: a chunk frame stays under the frame limit. */
export const DEPLOY_MAX_CHUNK = 16384;
const REASON_CHARS = 100;

function hash32(v: unknown, what: string): Buffer {
  if (!(v instanceof Uint8Array) || v.length !== 32) fail(`${what}: expected a 32-byte SHA-256`);
  return Buffer.from(v);
}

function offerMap(o: DeployOffer): Map<number, CborValue> {
  uint(o.size, 'offer size', 1, DEPLOY_MAX_PACKAGE);
  uint(o.api, 'offer api', 0, 0xffffff);
  const m = new Map<number, CborValue>([
    [0, hash32(o.hash, 'offer hash')],
    [1, o.size],
    [2, o.api],
  ]);
  if (o.signed) m.set(3, true);
  return m;
}

function decodeOffer(v: unknown): DeployOffer {
  const m = asMap(v, 'offer', [0, 1, 2, 3]);
  return {
    hash: hash32(required(m, 0, 'offer'), 'offer hash (key 0)'),
    size: uint(required(m, 1, 'offer'), 'offer size (key 1)', 1, DEPLOY_MAX_PACKAGE),
    api: uint(required(m, 2, 'offer'), 'offer api (key 2)', 0, 0xffffff),
    signed: m.has(3) ? bool(m.get(3), 'offer signed (key 3)') : false,
  };
}

function reasonText(v: unknown, what: string): string {
  if (typeof v !== 'string') fail(`${what}: expected text`);
  const n = [...v].length;
  if (n < 1 || n > REASON_CHARS) fail(`${what}: must be 1 to ${REASON_CHARS} characters`);
  return v;
}

function reportMap(r: DeployReport): Map<number, CborValue> {
  const code = DEPLOY_OUTCOMES.indexOf(r.outcome) + 1;
  if (code < 1) fail(`report: unknown outcome '${r.outcome}'`);
  const m = new Map<number, CborValue>([
    [0, hash32(r.hash, 'report hash')],
    [1, code],
  ]);
  if (r.reason !== undefined) m.set(2, reasonText(r.reason, 'report reason'));
  return m;
}

function decodeReport(v: unknown): DeployReport {
  const m = asMap(v, 'report', [0, 1, 2]);
  const code = uint(required(m, 1, 'report'), 'report outcome (key 1)', 1, DEPLOY_OUTCOMES.length);
  const r: DeployReport = { hash: hash32(required(m, 0, 'report'), 'report hash (key 0)'), outcome: DEPLOY_OUTCOMES[code - 1] };
  if (m.has(2)) r.reason = reasonText(m.get(2), 'report reason (key 2)');
  if (r.outcome !== 'installed' && r.reason === undefined) fail('report: a refusal or rollback says why (key 2)');
  return r;
}

// Fetch (topic g): {0: hash, 1: offset, 2: max length}
export function encodeFetch(f: DeployFetch): Buffer {
  return encodeCbor(
    new Map<number, CborValue>([
      [0, hash32(f.hash, 'fetch hash')],
      [1, uint(f.offset, 'fetch offset', 0, DEPLOY_MAX_PACKAGE - 1)],
      [2, uint(f.length, 'fetch length', 1, DEPLOY_MAX_CHUNK)],
    ]),
  );
}

export function decodeFetch(buf: Uint8Array): DeployFetch {
  const m = asMap(decodeFrame(buf, 'fetch'), 'fetch', [0, 1, 2]);
  return {
    hash: hash32(required(m, 0, 'fetch'), 'fetch hash (key 0)'),
    offset: uint(required(m, 1, 'fetch'), 'fetch offset (key 1)', 0, DEPLOY_MAX_PACKAGE - 1),
    length: uint(required(m, 2, 'fetch'), 'fetch length (key 2)', 1, DEPLOY_MAX_CHUNK),
  };
}

// Chunk (topic c): {0: offset, 1: bytes}; {0: offset} alone: the package is withdrawn.
export function encodeChunk(c: DeployChunk): Buffer {
  const m = new Map<number, CborValue>([[0, uint(c.offset, 'chunk offset', 0, DEPLOY_MAX_PACKAGE - 1)]]);
  if (c.data !== undefined) {
    if (c.data.length < 1 || c.data.length > DEPLOY_MAX_CHUNK) fail(`chunk: 1 to ${DEPLOY_MAX_CHUNK} bytes`);
    m.set(1, c.data);
  }
  return encodeCbor(m);
}

export function decodeChunk(buf: Uint8Array): DeployChunk {
  const m = asMap(decodeFrame(buf, 'chunk'), 'chunk', [0, 1]);
  const offset = uint(required(m, 0, 'chunk'), 'chunk offset (key 0)', 0, DEPLOY_MAX_PACKAGE - 1);
  if (!m.has(1)) return { offset };
  const d = m.get(1);
  if (!(d instanceof Uint8Array) || d.length < 1 || d.length > DEPLOY_MAX_CHUNK) fail(`chunk data (key 1): 1 to ${DEPLOY_MAX_CHUNK} bytes`);
  return { offset, data: Buffer.from(d) };
}

/** Check a message the HTTP API is asked to send; returns the payload's CBOR size. */
export function checkMessage(type: unknown, payloadValue: unknown): { type: string; payload: JsonValue } {
  const t = typeText(type, 'message type');
  const p = checkJsonOrFail(payloadValue, 'message payload');
  const size = payloadSize(p);
  if (size > LIMITS.payloadBytes) fail(`message payload: ${size} bytes serialized, more than ${LIMITS.payloadBytes}`);
  return { type: t, payload: p };
}
