// The embedded MQTT broker: aedes (a maintained MQTT 3.1.1 broker in node) with the per-device
// rules in its hooks. A device connects with client id = username = its public id and its
// secret; it may publish only to b/<id>/u, s, k and subscribe only to b/<id>/a and m. Every
// refusal is logged and the broker keeps serving everyone else.
import Aedes from 'aedes';
import type { AuthenticateError, Client } from 'aedes';
import * as net from 'net';
import * as tls from 'tls';
import type { CloudCore } from './core';
import { guardConnection } from './frameGuard';
import { LIMITS, parseTopic } from './protocol';

export interface EmbeddedBrokerOptions {
  host: string;
  port: number;
  tls?: { cert: Buffer; key: Buffer };
}

export interface EmbeddedBroker {
  /** mqtt://host:port or mqtts://host:port */
  url: string;
  port: number;
  close(): Promise<void>;
}

function authError(code: 4 | 5, message: string): AuthenticateError {
  const err = new Error(message) as AuthenticateError;
  err.returnCode = code as AuthenticateError['returnCode'];
  return err;
}

/**
 * What a device's CONNECT must say besides its credentials (docs/cloud-protocol.md §1): clean
 * session, a keep-alive within the bounds (0 would let a session last for ever, past a
 * revocation the broker could not notice on a dead link), no will (a will on the device's own
 * upload topic would be published, and stored, after the device is gone).
 */
export function connectRules(packet: { clean?: boolean; keepalive?: number; will?: unknown }): string | undefined {
  if (packet.clean !== true) return 'clean session 0 (only clean sessions)';
  const ka = packet.keepalive ?? 0;
  if (ka < LIMITS.keepAliveMin || ka > LIMITS.keepAliveMax) return `keep-alive ${ka} s (${LIMITS.keepAliveMin} to ${LIMITS.keepAliveMax})`;
  if (packet.will !== undefined && packet.will !== null) return 'a will message (none allowed)';
  return undefined;
}

export async function startEmbeddedBroker(core: CloudCore, opts: EmbeddedBrokerOptions): Promise<EmbeddedBroker> {
  const log = core.log;
  // Why a CONNECT broke the rules, from preConnect (which sees the packet) to authenticate
  // (which can answer CONNACK 5, as the protocol says, where preConnect could only hang up).
  const broken = new WeakMap<Client, string>();
  // The credential generation each session logged in at (CloudCore.epoch).
  const loginEpoch = new WeakMap<Client, number>();
  // Sessions refused something: their connection is closing. aedes hands every packet of one
  // read to the hooks at once, so packets behind a refused one arrive here too.
  const doomed = new WeakSet<Client>();
  const live = (client: Client): boolean =>
    !client.closed &&
    !doomed.has(client) &&
    // A second CONNECT destroys the connection; a DISCONNECT ends it (no packet after it counts).
    !(client as unknown as { conn?: { destroyed?: boolean } }).conn?.destroyed &&
    !(client as unknown as { _disconnected?: boolean })._disconnected &&
    loginEpoch.get(client) === core.epoch(client.id);
  const aedes = new Aedes({
    // Only MQTT 3.1.1: the protocol and its limits are defined for it.
    preConnect(client, packet, done) {
      if (packet.protocolVersion !== 4) {
        log(`refused connection: MQTT protocol version ${String(packet.protocolVersion)} (only 3.1.1)`);
        return done(new Error('MQTT 3.1.1 only'), false);
      }
      const why = connectRules(packet);
      if (why !== undefined) broken.set(client, why);
      done(null, true);
    },
    authenticate(client, username, password, done) {
      const id = client.id;
      if (username !== id || parseTopic(`b/${id}/u`) === undefined) {
        log(`refused connection: client id '${id}' with username '${String(username)}'`);
        return done(authError(4, 'client id must be the username'), false);
      }
      const why = broken.get(client);
      if (why !== undefined) {
        log(`refused connection: ${id}: ${why}`);
        core.counters.refused++;
        return done(authError(5, why), false);
      }
      core.authenticate(id, password).then(
        (epoch) => {
          if (epoch === undefined) {
            log(`refused connection: ${id}: unknown device or wrong credential`);
            return done(authError(4, 'bad credentials'), false);
          }
          loginEpoch.set(client, epoch);
          done(null, true);
        },
        (err: Error) => {
          log(`refused connection: ${id}: ${err.message}`);
          done(authError(5, 'store unavailable'), false);
        },
      );
    },
    authorizePublish(client: Client | null, packet, done) {
      if (client === null) return done(null); // the cloud's own replies
      if (!live(client)) return done(new Error('connection closing'));
      const t = parseTopic(packet.topic);
      if (!t || t.id !== client.id || (t.kind !== 'u' && t.kind !== 's' && t.kind !== 'k' && t.kind !== 'g')) {
        log(`refused publish: ${client.id} to '${packet.topic}'`);
        core.counters.refused++;
        doomed.add(client);
        return done(new Error('not allowed'));
      }
      if (packet.qos !== 1) {
        // The protocol's publishes are QoS 1: the PUBACK is the device's proof that a frame was
        // handled. QoS 0 has none; QoS 2 adds a second round trip nothing here relies on.
        log(`refused publish: ${client.id}: QoS ${packet.qos} on '${packet.topic}' (only QoS 1)`);
        core.counters.refused++;
        doomed.add(client);
        return done(new Error('QoS 1 only'));
      }
      if (packet.retain) {
        log(`refused publish: ${client.id}: retained message on '${packet.topic}'`);
        core.counters.refused++;
        doomed.add(client);
        return done(new Error('retain not allowed'));
      }
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
      // The PUBACK goes out only after the frame is handled; a refused frame closes the connection.
      core.handle(t.id, t.kind, payload, () => live(client)).then(
        () => done(null),
        (err: Error) => {
          doomed.add(client);
          done(err);
        },
      );
    },
    authorizeSubscribe(client, sub, done) {
      if (!live(client)) return done(new Error('connection closing'), null);
      const t = parseTopic(sub.topic);
      if (!t || t.id !== client.id || (t.kind !== 'a' && t.kind !== 'm' && t.kind !== 'c')) {
        log(`refused subscribe: ${client.id} to '${sub.topic}'`);
        core.counters.refused++;
        return done(null, null); // SUBACK return code 0x80
      }
      done(null, sub);
    },
    // The cloud's replies are not kept for absent devices: an unacknowledged batch is resent and
    // undelivered messages are sent again at the next sync start.
    queueLimit: 64,
  });
  aedes.on('clientError', (client, err) => log(`client ${client.id}: ${err.message}`));
  aedes.on('connectionError', (client, err) => log(`connection error: ${err.message}`));

  // A session that logged in just before a revocation landed (its login checked, the client
  // not yet registered where endSessions looks) is closed as soon as it is registered.
  aedes.on('clientReady', (client) => {
    if (loginEpoch.get(client) !== core.epoch(client.id)) {
      log(`session of ${client.id} ended: its credentials changed while it logged in`);
      client.close();
    }
  });

  core.attach(
    (topicName, payload) =>
      new Promise<void>((resolve, reject) => {
        aedes.publish({ cmd: 'publish', topic: topicName, payload, qos: 1, retain: false, dup: false }, (err?: Error) => (err ? reject(err) : resolve()));
      }),
    async (id) => {
      // aedes keys connected clients by client id, which is the device id here.
      const client = (aedes as unknown as { clients: Record<string, Client | undefined> }).clients[id];
      if (client === undefined) return;
      log(`session of ${id} ended: its credentials were revoked or replaced`);
      await new Promise<void>((resolve) => client.close(() => resolve()));
    },
  );

  const onSocket = (socket: net.Socket): void => {
    // A sync is a few small request/answer exchanges: Nagle's algorithm would hold each answer
    // back for the peer's delayed ACK (40 ms a round trip).
    socket.setNoDelay(true);
    const guarded = guardConnection(socket, LIMITS.mqttPacketBytes, (why) => log(`refused frame from ${socket.remoteAddress ?? '?'}: ${why}`));
    aedes.handle(guarded);
  };
  const server: net.Server = opts.tls ? tls.createServer({ cert: opts.tls.cert, key: opts.tls.key }, onSocket) : net.createServer(onSocket);
  // A client that vanishes mid-handshake must not take the server down.
  server.on('tlsClientError', (err: Error) => log(`TLS handshake failed: ${err.message}`));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // A deep accept queue: a fleet whose syncs are aligned connects all at once, and a
      // connection dropped from a full queue costs the device a SYN retry (1 s, then 3 s, ...).
      server.listen({ port: opts.port, host: opts.host, backlog: 4096 }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    // aedes keeps timers of its own: left open, it would keep the process alive after the error.
    await new Promise<void>((resolve) => aedes.close(() => resolve()));
    throw err;
  }
  const port = (server.address() as net.AddressInfo).port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `${opts.tls ? 'mqtts' : 'mqtt'}://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close();
        aedes.close(() => resolve());
      }),
  };
}
