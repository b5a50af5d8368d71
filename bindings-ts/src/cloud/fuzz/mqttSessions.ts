// Sessions for the MQTT side of the fuzz suite: whole device sessions (CONNECT, SUBSCRIBE,
// PUBLISH, ...) from the protocol's grammar, each field valid or a hostile variant, and
// byte-level mutations of a recorded good session. Each is sent on a raw socket to the broker.
// The oracle is the protocol: an event may be in the store only if some session sent it in a
// batch the protocol accepts (QoS 1, not retained, on the device's own upload topic, after a
// CONNECT with the right credentials, clean session, keep-alive in bounds and no will), and
// what the broker sends back must parse as MQTT.
import fc from 'fast-check';
import * as mqttPacket from 'mqtt-packet';
import * as net from 'net';
import { encodeCbor } from '../cbor';
import { decodeBatch, decodeLastMessage, encodeBatch, encodeLastMessage, LIMITS, topic, WireEvent } from '../protocol';
import type { DeviceCredentials } from '../service';
import { editArb, mutate } from './httpRequests';

export interface SessionTarget {
  dev: DeviceCredentials;
  /** Another device: nothing the fuzzed device sends may land there. */
  other: DeviceCredentials;
}

function safeNumbers(v: unknown): boolean {
  if (typeof v === 'number') return !Number.isInteger(v) || Number.isSafeInteger(v);
  if (v !== null && typeof v === 'object') return Object.values(v as object).every(safeNumbers);
  return true;
}

const eventArb: fc.Arbitrary<Omit<WireEvent, 'seq'> & { gap: number }> = fc.record({
  gap: fc.integer({ min: 0, max: 3 }),
  type: fc.constantFrom('temp', 'button', 'x', '😀'),
  ts: fc.integer({ min: 0, max: 2 ** 42 }),
  // Integers beyond 2^53 - 1 are not the protocol's: the encoder refuses them.
  payload: fc.jsonValue({ maxDepth: 3 }).filter(safeNumbers) as fc.Arbitrary<never>,
  volatile: fc.boolean(),
  variable: fc.constant(false),
});

/** A batch the protocol accepts, on a stream of its own. */
function batchArb(): fc.Arbitrary<Buffer> {
  return fc.tuple(fc.integer({ min: 1, max: 0xffffffff }), fc.integer({ min: 1, max: 1000 }), fc.array(eventArb, { minLength: 1, maxLength: 5 })).map(([stream, first, evs]) => {
    let seq = first - 1;
    const events = evs.map((e) => ({ ...e, seq: (seq += 1 + e.gap) })).sort((a, b) => a.seq - b.seq);
    return encodeBatch({ stream, events });
  });
}

function payloadArb(): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { weight: 4, arbitrary: batchArb() },
    { weight: 2, arbitrary: fc.tuple(batchArb(), fc.array(editArb, { minLength: 1, maxLength: 3 })).map(([b, e]) => mutate(b, e)) },
    { weight: 1, arbitrary: fc.nat({ max: 50 }).map((n) => encodeLastMessage(n)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => encodeCbor(v as never)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) },
  );
}

function topicArb(t: SessionTarget): fc.Arbitrary<string> {
  const own = (k: 'u' | 's' | 'k' | 'a' | 'm'): string => topic(t.dev.id, k);
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(own('u')) },
    { weight: 3, arbitrary: fc.constantFrom(own('s'), own('k'), own('a'), own('m')) },
    { weight: 2, arbitrary: fc.constantFrom(topic(t.other.id, 'u'), topic(t.other.id, 'm'), 'b/#', 'b/+/u', '#', '', 'b//u', `${own('u')}/x`, `B/${t.dev.id}/u`) },
  );
}

/** A CONNECT: mostly the device's own good one, each field sometimes hostile. */
function connectArb(t: SessionTarget): fc.Arbitrary<mqttPacket.IConnectPacket & { good: boolean }> {
  return fc
    .record({
      clean: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      keepalive: fc.oneof({ weight: 5, arbitrary: fc.constant(60) }, { weight: 2, arbitrary: fc.constantFrom(0, 1, LIMITS.keepAliveMin - 1, LIMITS.keepAliveMin, LIMITS.keepAliveMax, LIMITS.keepAliveMax + 1, 65535) }),
      version: fc.oneof({ weight: 8, arbitrary: fc.constant(4) }, { weight: 1, arbitrary: fc.constantFrom(3, 5) }),
      who: fc.oneof({ weight: 8, arbitrary: fc.constant('self') }, { weight: 1, arbitrary: fc.constantFrom('wrong-secret', 'other-id', 'other-user', 'no-password') }),
      will: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.tuple(topicArb(t), payloadArb(), fc.constantFrom(0, 1, 2)) }),
    })
    .map(({ clean, keepalive, version, who, will }) => {
      const id = who === 'other-id' ? t.other.id : t.dev.id;
      const username = who === 'other-user' ? t.other.id : id;
      const password = who === 'wrong-secret' ? 'not-the-secret' : who === 'no-password' ? undefined : t.dev.password;
      const good = clean && keepalive >= LIMITS.keepAliveMin && keepalive <= LIMITS.keepAliveMax && version === 4 && who === 'self' && will === undefined;
      const packet: mqttPacket.IConnectPacket & { good: boolean } = {
        cmd: 'connect',
        protocolId: version === 3 ? 'MQIsdp' : 'MQTT',
        protocolVersion: version as 4,
        clean,
        keepalive,
        clientId: id,
        username,
        good,
      };
      if (password !== undefined) packet.password = Buffer.from(password);
      if (will) packet.will = { topic: will[0], payload: will[1], qos: will[2] as 0, retain: false };
      return packet;
    });
}

function packetArb(t: SessionTarget): fc.Arbitrary<mqttPacket.Packet> {
  const qos = fc.oneof({ weight: 6, arbitrary: fc.constant(1 as const) }, { weight: 1, arbitrary: fc.constantFrom(0 as const, 2 as const) });
  const id = fc.integer({ min: 1, max: 65535 });
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ topic: topicArb(t), payload: payloadArb(), qos, retain: fc.constant(false), messageId: id, dup: fc.boolean() }).map((p) => ({ cmd: 'publish' as const, ...p, messageId: p.qos === 0 ? undefined : p.messageId })) },
    { weight: 1, arbitrary: fc.record({ topic: topicArb(t), payload: payloadArb(), messageId: id }).map((p) => ({ cmd: 'publish' as const, ...p, qos: 1 as const, retain: true, dup: false })) },
    { weight: 2, arbitrary: fc.tuple(id, fc.array(fc.tuple(topicArb(t), qos), { minLength: 1, maxLength: 3 })).map(([messageId, subs]) => ({ cmd: 'subscribe' as const, messageId, subscriptions: subs.map(([tp, q]) => ({ topic: tp, qos: q })) })) },
    { weight: 1, arbitrary: fc.constantFrom<mqttPacket.Packet>({ cmd: 'pingreq' }, { cmd: 'disconnect' }, { cmd: 'connect', protocolId: 'MQTT', protocolVersion: 4, clean: true, keepalive: 60, clientId: t.dev.id }) },
  );
}

function generateOr(p: mqttPacket.Packet, opts: object): Buffer | undefined {
  try {
    return mqttPacket.generate(p, opts);
  } catch {
    return undefined;
  }
}

export interface Session {
  bytes: Buffer;
  what: string;
}

/** A session from the grammar: a CONNECT, then up to 6 packets. */
export function sessionArb(t: SessionTarget): fc.Arbitrary<Session> {
  return fc.tuple(connectArb(t), fc.array(packetArb(t), { maxLength: 6 })).map(([c, rest]) => {
    const opts = { protocolVersion: c.protocolVersion };
    const { good: _good, ...connect } = c;
    // mqtt-packet will not write some packets (an empty will topic, for one); such a will is
    // dropped and such a packet left out: byte-level mutation sends malformed packets anyway.
    const bytes = Buffer.concat([generateOr(connect, opts) ?? generateOr({ ...connect, will: undefined }, opts) ?? Buffer.alloc(0), ...rest.map((p) => generateOr(p, opts) ?? Buffer.alloc(0))]);
    return { bytes, what: `grammar: ${c.good ? 'good' : 'bad'} CONNECT + ${rest.map((p) => p.cmd).join(', ')}` };
  });
}

/** A good session as the reference client sends it: the seed of byte-level mutation. */
export function goodSession(t: SessionTarget, stream: number): Buffer {
  const id = t.dev.id;
  const batch = encodeBatch({ stream, events: [1, 2, 3].map((seq) => ({ seq, type: 'temp', ts: 1767225600000 + seq, payload: { c: 20 + seq / 4 }, volatile: false, variable: false })) });
  return Buffer.concat(
    [
      { cmd: 'connect', protocolId: 'MQTT', protocolVersion: 4, clean: true, keepalive: 60, clientId: id, username: id, password: Buffer.from(t.dev.password) },
      { cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: topic(id, 'a'), qos: 1 }, { topic: topic(id, 'm'), qos: 1 }] },
      { cmd: 'publish', topic: topic(id, 's'), payload: encodeLastMessage(0), qos: 1, messageId: 2, retain: false, dup: false },
      { cmd: 'publish', topic: topic(id, 'u'), payload: batch, qos: 1, messageId: 3, retain: false, dup: false },
      { cmd: 'publish', topic: topic(id, 'k'), payload: encodeLastMessage(0), qos: 1, messageId: 4, retain: false, dup: false },
      { cmd: 'disconnect' },
    ].map((p) => mqttPacket.generate(p as mqttPacket.Packet)),
  );
}

export function mutatedSessionArb(t: SessionTarget): fc.Arbitrary<Session> {
  return fc.tuple(fc.integer({ min: 1, max: 0xffffffff }), fc.array(editArb, { minLength: 1, maxLength: 4 })).map(([stream, edits]) => ({
    bytes: mutate(goodSession(t, stream), edits),
    what: `mutated good session (${edits.map((e) => e.op).join(', ')})`,
  }));
}

/** Parse MQTT bytes as the broker does (mqtt-packet is aedes's parser); stops at an error. */
export function parsePackets(bytes: Buffer, protocolVersion = 4): { packets: mqttPacket.Packet[]; error?: string; left: number } {
  const p = mqttPacket.parser({ protocolVersion });
  const packets: mqttPacket.Packet[] = [];
  let error: string | undefined;
  p.on('packet', (x: mqttPacket.Packet) => {
    if (error === undefined) packets.push(x);
  });
  p.on('error', (err: Error) => (error ??= err.message));
  const left = p.parse(bytes);
  return { packets, error, left };
}

/**
 * Whether the broker reads the whole session as the protocol's packets: it parses, ends on a
 * packet boundary, no packet is over the size limit (the broker hangs up at such a header,
 * before answering anything) and no second CONNECT.
 */
export function wellFramed(bytes: Buffer): boolean {
  const r = parsePackets(bytes);
  return r.error === undefined && r.left === 0 && r.packets.every((p) => (p.length ?? 0) <= LIMITS.mqttPacketBytes) && !r.packets.slice(1).some((p) => p.cmd === 'connect');
}

/** Whether a session starts with a CONNECT the protocol accepts (§1) for `t.dev`. */
export function goodConnect(t: SessionTarget, bytes: Buffer): boolean {
  const first = parsePackets(bytes).packets[0];
  if (first?.cmd !== 'connect') return false;
  const c = first;
  const ka = c.keepalive ?? 0;
  const password = c.password === undefined ? undefined : Buffer.from(c.password).toString();
  return c.protocolVersion === 4 && c.clean === true && ka >= LIMITS.keepAliveMin && ka <= LIMITS.keepAliveMax && !c.will && c.clientId === t.dev.id && c.username === t.dev.id && password === t.dev.password;
}

/**
 * The (stream/seq) keys a session may have stored for `t.dev`: the events of every batch it
 * sent as the protocol says, after a good CONNECT. A superset of what the cloud must store
 * (a refusal closes the connection before later packets), exactly what it may store.
 */
export function allowedEvents(t: SessionTarget, bytes: Buffer): string[] {
  if (!goodConnect(t, bytes)) return [];
  const { packets } = parsePackets(bytes);
  const keys: string[] = [];
  // Every refusal closes the connection, and nothing after it may be handled: a second
  // CONNECT, a DISCONNECT, a PUBLISH elsewhere than the device's own u/s/k, not QoS 1,
  // retained, or whose frame the protocol refuses.
  for (const p of packets.slice(1)) {
    if (p.cmd === 'connect' || p.cmd === 'disconnect') break;
    if (p.cmd !== 'publish') continue;
    const kind = [topic(t.dev.id, 'u'), topic(t.dev.id, 's'), topic(t.dev.id, 'k')].indexOf(p.topic);
    if (kind < 0 || p.qos !== 1 || p.retain) break;
    const payload = Buffer.isBuffer(p.payload) ? p.payload : Buffer.from(p.payload);
    try {
      if (kind === 0) {
        const b = decodeBatch(payload);
        for (const e of b.events) keys.push(`${b.stream}/${e.seq}`);
      } else decodeLastMessage(payload, 'frame');
    } catch {
      break;
    }
  }
  return keys;
}

/**
 * Send a session's bytes to the broker; read until it has been quiet for `quietMs`, then end
 * the connection. Returns what the broker sent back. With `awaitAnswer`, the quiet period
 * starts only once something came back.
 */
export function sendSession(port: number, bytes: Buffer, awaitAnswer: boolean, quietMs = 25): Promise<Buffer> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let quiet: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(quiet);
      clearTimeout(limit);
      s.destroy();
      resolve(Buffer.concat(chunks));
    };
    const rearm = (): void => {
      clearTimeout(quiet);
      quiet = setTimeout(() => {
        s.end();
        setTimeout(finish, 200).unref();
      }, quietMs);
    };
    const limit = setTimeout(finish, 5000);
    s.setNoDelay(true);
    s.on('data', (d: Buffer) => {
      chunks.push(d);
      rearm();
    });
    s.on('close', finish);
    s.on('error', finish);
    s.on('connect', () => {
      s.write(bytes);
      // A CONNECT the broker must answer is given the time it takes (the quiet period starts
      // at the first byte back), so a loaded machine cannot make it look refused.
      if (!awaitAnswer) rearm();
    });
  });
}
