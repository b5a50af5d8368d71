// The wire protocol: the byte-exact examples of docs/cloud-protocol.md against the encoder,
// round trips, and the strictness of every decoder (what a device or an attacker could send).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as mqttPacket from 'mqtt-packet';
import * as path from 'path';
import { checkWellFormed, decodeCbor, encodeCbor } from '../src/cloud/cbor';
import { FrameScanner } from '../src/cloud/frameGuard';
import {
  Batch,
  decodeAck,
  decodeBatch,
  decodeChunk,
  decodeFetch,
  decodeLastMessage,
  decodeMessageFrame,
  decodeSyncStart,
  encodeAck,
  encodeBatch,
  encodeChunk,
  encodeFetch,
  encodeLastMessage,
  encodeMessageFrame,
  encodeSyncStart,
  LIMITS,
  MessageFrame,
  normalizeDeviceId,
  parseTopic,
  ProtocolError,
  topic,
} from '../src/cloud/protocol';
import { toolsRoot } from '../src/codegen/versions';

const DOC = path.join(toolsRoot(), '..', 'docs', 'cloud-protocol.md');
const ID = '5eac0b1d00004d0cbeac051a00000001';
const T = Date.UTC(2026, 0, 1);

const BATCH: Batch = {
  stream: 0x2a7f19c3,
  events: [
    { seq: 41, type: 'temp', ts: T, payload: { c: 21.5 }, volatile: false, variable: false },
    { seq: 42, type: 'temp', ts: T + 30_000, payload: { c: 21.75 }, volatile: true, variable: false },
    { seq: 44, type: 'button', ts: T + 31_500, payload: { press: 1 }, volatile: true, variable: false },
    { seq: 45, type: 'mode', ts: T + 31_500, payload: 'eco', volatile: true, variable: true },
  ],
};
const FRAME: MessageFrame = {
  messages: [
    { id: 8, type: 'config', ts: T - 600_000, payload: { period: 600 } },
    { id: 9, type: 'led', ts: T - 540_000, payload: { on: true, color: [1, 0.5, 0] } },
  ],
  more: false,
};

const PKG = Buffer.from('9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', 'hex');
const START = { lastId: 9, app: PKG, report: { hash: PKG, outcome: 'refused' as const, reason: 'package refused: signature does not verify' } };
const OFFER_FRAME: MessageFrame = { messages: [], more: false, offer: { hash: PKG, size: 23812, api: 0x000206, signed: true } };

/** Each example of the document: how the implementation makes it, and how it reads back. */
const EXAMPLES: Record<string, { encode: () => Buffer; decode?: (b: Buffer) => unknown; value?: unknown }> = {
  batch: { encode: () => encodeBatch(BATCH), decode: decodeBatch, value: BATCH },
  ack: { encode: () => encodeAck({ stream: 0x2a7f19c3, first: 41, last: 45 }), decode: decodeAck, value: { stream: 0x2a7f19c3, first: 41, last: 45 } },
  'sync-start': { encode: () => encodeLastMessage(7), decode: (b) => decodeLastMessage(b, 'sync start'), value: 7 },
  'message-frame': { encode: () => encodeMessageFrame(FRAME), decode: decodeMessageFrame, value: FRAME },
  'message-frame-empty': { encode: () => encodeMessageFrame({ messages: [], more: false }), decode: decodeMessageFrame, value: { messages: [], more: false } },
  'message-ack': { encode: () => encodeLastMessage(9), decode: (b) => decodeLastMessage(b, 'message ack'), value: 9 },
  'sync-start-deploy': { encode: () => encodeSyncStart(START), decode: decodeSyncStart, value: START },
  'message-frame-offer': { encode: () => encodeMessageFrame(OFFER_FRAME), decode: decodeMessageFrame, value: OFFER_FRAME },
  fetch: { encode: () => encodeFetch({ hash: PKG, offset: 8192, length: 4096 }), decode: decodeFetch, value: { hash: PKG, offset: 8192, length: 4096 } },
  chunk: { encode: () => encodeChunk({ offset: 8192, data: Buffer.from('BAPP') }), decode: decodeChunk, value: { offset: 8192, data: Buffer.from('BAPP') } },
  'chunk-withdrawn': { encode: () => encodeChunk({ offset: 8192 }), decode: decodeChunk, value: { offset: 8192 } },
  'mqtt-publish-sync-start': {
    encode: () => mqttPacket.generate({ cmd: 'publish', topic: topic(ID, 's'), payload: encodeLastMessage(7), qos: 1, messageId: 1, retain: false, dup: false }),
  },
  'mqtt-subscribe': {
    encode: () =>
      mqttPacket.generate({
        cmd: 'subscribe',
        messageId: 2,
        subscriptions: [
          { topic: topic(ID, 'a'), qos: 1 },
          { topic: topic(ID, 'm'), qos: 1 },
        ],
      }),
  },
};

function docExamples(): Map<string, string> {
  const text = fs.readFileSync(DOC, 'utf8');
  const out = new Map<string, string>();
  for (const m of text.matchAll(/<!-- example: (\S+) -->\n```hex\n([\s\S]*?)```/g)) {
    const hex = m[2]
      .split('\n')
      .map((l) => l.replace(/#.*$/, ''))
      .join('')
      .replace(/\s+/g, '');
    out.set(m[1], hex);
  }
  return out;
}

test('docs/cloud-protocol.md: every example is one the implementation makes', () => {
  const doc = docExamples();
  assert.deepEqual([...doc.keys()].sort(), Object.keys(EXAMPLES).sort());
  for (const [name, ex] of Object.entries(EXAMPLES)) {
    assert.equal(doc.get(name), ex.encode().toString('hex'), `example '${name}'`);
    if (ex.decode) assert.deepEqual(ex.decode(Buffer.from(doc.get(name) as string, 'hex')), ex.value, `example '${name}' decoded`);
  }
});

test('batch: round trip keeps seqs, gaps, deltas (also backwards), flags and payloads', () => {
  const b: Batch = {
    stream: 1,
    events: [
      { seq: 1, type: 'a', ts: 5_000_000_000_000, payload: { big: 2 ** 52, neg: -(2 ** 40), f: -1.25, s: 'ü', n: null, l: [] }, volatile: false, variable: false },
      { seq: 100, type: 'b', ts: 4_999_999_999_000, payload: [1, 2, 3], volatile: true, variable: false },
      { seq: 101, type: 'a', ts: 5_000_000_100_000, payload: 'x'.repeat(300), volatile: false, variable: false },
    ],
  };
  assert.deepEqual(decodeBatch(encodeBatch(b)), b);
});

test('batch: 256 events of 100 bytes fit in a frame; 257 events do not', () => {
  const ev = (seq: number) => ({ seq, type: 't', ts: T, payload: 'p'.repeat(97), volatile: true, variable: false });
  const ok = { stream: 9, events: Array.from({ length: 256 }, (_, i) => ev(i + 1)) };
  assert.equal(decodeBatch(encodeBatch(ok)).events.length, 256);
  assert.throws(() => encodeBatch({ stream: 9, events: Array.from({ length: 257 }, (_, i) => ev(i + 1)) }), ProtocolError);
});

/** A batch map with one key changed: the decoder must refuse it. */
function mutated(fn: (m: Map<number, unknown>, ev: Map<number, unknown>) => void): Buffer {
  const m = decodeCbor(encodeBatch(BATCH)) as Map<number, unknown>;
  fn(m, (m.get(4) as Map<number, unknown>[])[0]);
  return encodeCbor(m as never);
}

const BAD_BATCHES: [string, Buffer, RegExp][] = [
  ['not a map', encodeCbor([1, 2]), /not a map/],
  ['unknown batch key', mutated((m) => m.set(9, 1)), /unknown key 9/],
  ['text key', mutated((m) => m.set('x' as unknown as number, 1)), /unknown key 'x'/],
  ['missing stream', mutated((m) => m.delete(0)), /key 0 missing/],
  ['stream 0', mutated((m) => m.set(0, 0)), /stream/],
  ['stream beyond 32 bits', mutated((m) => m.set(0, 2 ** 32)), /stream/],
  ['seq 0', mutated((m) => m.set(1, 0)), /base seq/],
  ['ts as text', mutated((m) => m.set(2, '2026')), /base ts/],
  ['negative ts', mutated((m) => m.set(2, -1)), /base ts/],
  ['float seq', mutated((m) => m.set(1, 1.5)), /base seq/],
  ['types not an array', mutated((m) => m.set(3, 'temp')), /types/],
  ['empty type', mutated((m) => m.set(3, ['', 'button', 'mode'])), /1 to 30/],
  ['type of 31 characters', mutated((m) => m.set(3, ['t'.repeat(31), 'button', 'mode'])), /1 to 30/],
  ['duplicate type', mutated((m) => m.set(3, ['temp', 'temp', 'mode'])), /duplicate/],
  ['unused type', mutated((m) => m.set(3, ['temp', 'button', 'mode', 'spare'])), /no event uses/],
  ['no events', mutated((m) => m.set(4, [])), /1 to 256/],
  ['unknown event key', mutated((_m, e) => e.set(6, 1)), /unknown key 6/],
  ['type index out of range', mutated((_m, e) => e.set(1, 3)), /type index/],
  ['missing payload', mutated((_m, e) => e.delete(3)), /key 3 missing/],
  ['volatile as 0', mutated((_m, e) => e.set(4, 0)), /volatile/],
  ['variable as text', mutated((_m, e) => e.set(5, 'yes')), /variable/],
  ['ts delta as float', mutated((_m, e) => e.set(2, 0.5)), /ts delta/],
  ['ts going below 0', mutated((_m, e) => e.set(2, -T - 1)), /out of range/],
  ['payload with an integer key', mutated((_m, e) => e.set(3, new Map([[1, 2]]))), /not text/],
  ['payload of 8193 bytes', mutated((_m, e) => e.set(3, 'x'.repeat(8190))), /more than 8192/],
  ['variable of 1025 bytes', mutated((m) => (m.get(4) as Map<number, unknown>[])[3].set(3, 'x'.repeat(1022))), /more than 1024/],
  ['payload with a byte string', Buffer.from(encodeBatch(BATCH).toString('hex').replace('a16163fb4035800000000000', 'a1616341ff'), 'hex'), /byte strings/],
];

for (const [name, buf, why] of BAD_BATCHES) {
  test(`batch refused: ${name}`, () => {
    assert.throws(() => decodeBatch(buf), (err: Error) => err instanceof ProtocolError && why.test(err.message));
  });
}

const BAD_CBOR: [string, string, RegExp][] = [
  ['empty', '', /truncated/],
  ['truncated map', 'a5001a2a7f', /truncated/],
  ['trailing bytes', 'a1000700', /after the CBOR item/],
  ['a tag (date)', 'a100c11a5f000000', /tag/],
  ['a tag wrapping the frame', 'd9d9f7a10007', /tag/],
  ['indefinite-length map', 'bf0007ff', /indefinite/],
  ['indefinite-length text', 'a1007f6161ff', /indefinite/],
  ['undefined', 'a100f7', /simple value/],
  ['reserved additional info', 'a1001c', /reserved/],
  ['map claiming 2^32 entries', 'ba ffffffff 00'.replace(/ /g, ''), /truncated/],
  ['integer beyond 2^53', 'a1001b0020000000000001', /expected an integer/],
];

for (const [name, hex, why] of BAD_CBOR) {
  test(`CBOR refused: ${name}`, () => {
    const buf = Buffer.from(hex, 'hex');
    assert.throws(() => decodeLastMessage(buf, 'sync start'), (err: Error) => err instanceof ProtocolError && why.test(err.message));
  });
}

test('CBOR: nesting deeper than 32 is refused before decoding', () => {
  const deep = Buffer.concat([Buffer.alloc(40, 0x81), Buffer.from([0x00])]);
  assert.throws(() => checkWellFormed(deep), /nesting deeper than 32/);
  assert.doesNotThrow(() => checkWellFormed(Buffer.concat([Buffer.alloc(30, 0x81), Buffer.from([0x00])])));
});

test('frames over 32768 bytes are refused whatever they hold', () => {
  const big = Buffer.alloc(LIMITS.frameBytes + 1, 0);
  assert.throws(() => decodeBatch(big), /more than 32768/);
  assert.throws(() => decodeMessageFrame(big), /more than 32768/);
});

test('message frame: ids must increase; unknown keys and bad types refused', () => {
  const frame = (msgs: unknown[], extra?: [number, unknown]) => encodeCbor(new Map<number, unknown>([[0, msgs], ...(extra ? [extra] : [])]) as never);
  const msg = (id: unknown, type: unknown = 't') => new Map<number, unknown>([[0, id], [1, type], [2, 5], [3, {}]]);
  assert.deepEqual(decodeMessageFrame(frame([msg(1), msg(2)], [1, true])).more, true);
  assert.throws(() => decodeMessageFrame(frame([msg(2), msg(2)])), /ids must increase/);
  assert.throws(() => decodeMessageFrame(frame([msg(0)])), /id/);
  assert.throws(() => decodeMessageFrame(frame([msg(1, 7)])), /type/);
  assert.throws(() => decodeMessageFrame(frame([msg(1)], [3, true])), /unknown key 3/);
  assert.throws(() => decodeMessageFrame(frame([msg(1)], [2, true])), /offer: not a map/);
  assert.throws(() => decodeAck(encodeCbor(new Map([[0, 1], [1, 5], [2, 4]]) as never)), /last/);
});

test('topics and device ids', () => {
  assert.deepEqual(parseTopic(`b/${ID}/u`), { id: ID, kind: 'u' });
  assert.equal(parseTopic(`b/${ID.toUpperCase()}/u`), undefined);
  assert.equal(parseTopic(`b/${ID}/x`), undefined);
  assert.equal(parseTopic(`b/${ID}/u/extra`), undefined);
  assert.equal(parseTopic('b/abc/u'), undefined); // odd number of digits
  assert.equal(normalizeDeviceId(' 5E:AC:0B:1D '), '5eac0b1d');
  assert.throws(() => normalizeDeviceId('xyz'), ProtocolError);
  assert.throws(() => normalizeDeviceId('a'.repeat(66)), ProtocolError);
});

test('frame scanner: refuses an announced length over the limit at the fixed header', () => {
  const s = new FrameScanner(100);
  const ok = mqttPacket.generate({ cmd: 'publish', topic: 'b/aa/u', payload: Buffer.alloc(80), qos: 0, retain: false, dup: false });
  // Split anywhere: the scanner keeps state between chunks.
  for (let i = 0; i < ok.length; i++) assert.equal(s.feed(ok.subarray(i, i + 1)), undefined);
  assert.equal(s.feed(Buffer.from([0x30, 0xe5, 0x00])), 'MQTT packet of 101 bytes (limit 100)');
  assert.equal(new FrameScanner(1e9).feed(Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x7f])), 'malformed MQTT remaining length');
});

test('deployments: the sync start without its deployment keys is the plain one', () => {
  assert.deepEqual(encodeSyncStart({ lastId: 7 }), encodeLastMessage(7));
  assert.deepEqual(decodeSyncStart(encodeLastMessage(7)), { lastId: 7 });
});

const bytes = (n: number) => Buffer.alloc(n, 1);
const BAD_DEPLOY: [string, () => unknown, RegExp][] = [
  ['hash of 31 bytes in a fetch', () => decodeFetch(encodeCbor(new Map<number, unknown>([[0, bytes(31)], [1, 0], [2, 10]]) as never)), /32-byte/],
  ['hash as text', () => decodeFetch(encodeCbor(new Map<number, unknown>([[0, PKG.toString('hex')], [1, 0], [2, 10]]) as never)), /32-byte/],
  ['fetch of 0 bytes', () => decodeFetch(encodeCbor(new Map<number, unknown>([[0, PKG], [1, 0], [2, 0]]) as never)), /fetch length/],
  ['fetch of more than a chunk', () => decodeFetch(encodeCbor(new Map<number, unknown>([[0, PKG], [1, 0], [2, 16385]]) as never)), /fetch length/],
  ['chunk data as text', () => decodeChunk(encodeCbor(new Map<number, unknown>([[0, 0], [1, 'BAPP']]) as never)), /chunk data/],
  ['empty chunk data', () => decodeChunk(encodeCbor(new Map<number, unknown>([[0, 0], [1, Buffer.alloc(0)]]) as never)), /chunk data/],
  ['a refusal without a reason', () => decodeSyncStart(encodeCbor(new Map<number, unknown>([[0, 1], [2, new Map<number, unknown>([[0, PKG], [1, 2]])]]) as never)), /says why/],
  ['an unknown outcome', () => decodeSyncStart(encodeCbor(new Map<number, unknown>([[0, 1], [2, new Map<number, unknown>([[0, PKG], [1, 4]])]]) as never)), /outcome/],
  ['an offer in a frame with more', () => decodeMessageFrame(encodeCbor(new Map<number, unknown>([[0, []], [1, true], [2, new Map<number, unknown>([[0, PKG], [1, 5], [2, 0]])]]) as never)), /last frame/],
  ['an offer of 0 bytes', () => decodeMessageFrame(encodeCbor(new Map<number, unknown>([[0, []], [2, new Map<number, unknown>([[0, PKG], [1, 0], [2, 0]])]]) as never)), /offer size/],
  ['byte strings in a message payload', () => decodeMessageFrame(encodeCbor(new Map<number, unknown>([[0, [new Map<number, unknown>([[0, 1], [1, 't'], [2, 5], [3, PKG]])]]]) as never)), /byte strings/],
];

for (const [name, fn, why] of BAD_DEPLOY) {
  test(`deployment frame refused: ${name}`, () => {
    assert.throws(fn, (err: Error) => err instanceof ProtocolError && why.test(err.message));
  });
}
