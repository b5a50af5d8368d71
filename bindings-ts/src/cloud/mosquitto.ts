// Running on an external Mosquitto instead of the embedded broker. Mosquitto enforces the
// per-device rules itself, from the password and ACL files `beacon cloud mosquitto-config`
// writes (writeMosquittoConfig); the cloud connects as one privileged client (with `mqtt`, the
// standard MQTT client for node), subscribes to every device's uplink topics and publishes the
// replies.
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as mqtt from 'mqtt';
import * as path from 'path';
import type { CloudCore } from './core';
import { hashSecret, newSecret } from './credentials';
import { LIMITS, parseTopic } from './protocol';
import type { CloudStore } from './store';

/** The cloud's own user on the broker; not hex, so it can never be a device id. */
export const SERVICE_USER = 'beacon-cloud';
const SECRET_SETTING = 'mosquitto.service-secret';

/** The service's broker password, made on first use and kept in the store. */
export async function serviceSecret(store: CloudStore): Promise<string> {
  let secret = await store.setting(SECRET_SETTING);
  if (secret === undefined) {
    secret = newSecret();
    await store.setSetting(SECRET_SETTING, secret);
  }
  return secret;
}

export const ACL_FILE = `# Written by 'beacon cloud mosquitto-config'.
# The cloud service reads and writes every device's topics.
user ${SERVICE_USER}
topic readwrite b/#

# Each device (username = client id = its public id) only its own topics.
pattern write b/%u/u
pattern write b/%u/s
pattern write b/%u/k
pattern write b/%u/g
pattern read b/%u/a
pattern read b/%u/m
pattern read b/%u/c
`;

export interface MosquittoFiles {
  passwordFile: string;
  aclFile: string;
  confFile: string;
  /** Where the cloud's processes connect (`beacon cloud --broker <this>`). */
  serviceUrl: string;
}

export interface MosquittoListener {
  /** The devices' port. */
  port: number;
  host?: string;
  tls?: { cert: string; key: string };
  /** Mosquitto started as root switches to this user. */
  user?: string;
  /**
   * The port of the cloud's own listener (default: the devices' port + 1). On the devices'
   * listener the broker makes the client id the user name, so that no device can take another's
   * session; every worker logs in as the one service user, and there they would take each
   * other's. The service listener keeps the client ids the workers choose.
   */
  servicePort?: number;
  /**
   * Its address (default 127.0.0.1): plain TCP on loopback, as for devices; anything else needs
   * `tls`, which it then uses too.
   */
  serviceHost?: string;
}

/** Write the password and ACL files (after devices are added or revoked; then SIGHUP the broker). */
export async function writeMosquittoAuth(store: CloudStore, dir: string): Promise<{ passwordFile: string; aclFile: string }> {
  fs.mkdirSync(dir, { recursive: true });
  const secret = await serviceSecret(store);
  const lines = [`${SERVICE_USER}:${await hashSecret(secret)}`];
  for (const c of await store.credentials()) lines.push(`${c.id}:${c.hash}`);
  const passwordFile = path.resolve(dir, 'passwd');
  const aclFile = path.resolve(dir, 'acl');
  writeAtomic(passwordFile, lines.join('\n') + '\n', 0o600);
  writeAtomic(aclFile, ACL_FILE, 0o644);
  return { passwordFile, aclFile };
}

/**
 * Write passwd, acl and mosquitto.conf for a broker serving this cloud into `dir`. The conf
 * has the listener and the limits; include it from the broker's own configuration or start
 * `mosquitto -c <dir>/mosquitto.conf`. Send the broker SIGHUP after devices are added or revoked
 * to make it reread the password file.
 */
export async function writeMosquittoConfig(
  store: CloudStore,
  dir: string,
  listener: MosquittoListener = { port: 1883 },
): Promise<MosquittoFiles> {
  const servicePort = listener.servicePort ?? listener.port + 1;
  const serviceHost = listener.serviceHost ?? '127.0.0.1';
  if (servicePort === listener.port || servicePort > 65535) throw new RangeError(`the service listener needs a port of its own (not ${servicePort})`);
  if (!listener.tls && !isLoopbackHost(serviceHost)) throw new RangeError(`a service listener on ${serviceHost} needs TLS; plain TCP is only for loopback`);
  const { passwordFile, aclFile } = await writeMosquittoAuth(store, dir);
  const confFile = path.resolve(dir, 'mosquitto.conf');
  const conf = [
    "# Written by 'beacon cloud mosquitto-config'.",
    'per_listener_settings false',
    'allow_anonymous false',
    `password_file ${passwordFile}`,
    `acl_file ${aclFile}`,
    `max_packet_size ${LIMITS.mqttPacketBytes + 5}`,
    // The keep-alive bound; Mosquitto 2.0.11 applies it to MQTT 5 clients only (docs/security.md).
    `max_keepalive ${LIMITS.keepAliveMax}`,
    // The cloud's workers take every device's frames: the broker's default window of 20 QoS 1
    // messages in flight per client, and 1,000 queued behind it (dropped beyond), would throttle
    // and drop a burst. Devices only ever get what they asked for (acks, their messages).
    `max_inflight_messages ${MAX_IN_FLIGHT}`,
    'max_queued_messages 100000',
    'persistence false',
    // Mosquitto started as root switches to this user; it must be able to read the files above.
    ...(listener.user ? [`user ${listener.user}`] : []),
    `listener ${listener.port}${listener.host ? ` ${listener.host}` : ''}`,
    'protocol mqtt',
    // Listener settings from here on (before the listener line they would open a default one).
    // Devices must use their public id as client id; this makes Mosquitto enforce it.
    'use_username_as_clientid true',
    // Device publishes are QoS 1 (docs/cloud-protocol.md §1): a QoS 2 PUBLISH disconnects the
    // client; QoS 0 arrives at the cloud as QoS 0 and is dropped there. (Mosquitto 2.0 takes
    // max_qos as a listener setting: before the first listener line it opens port 1883.)
    'max_qos 1',
  ];
  const tls = listener.tls ? [`certfile ${path.resolve(listener.tls.cert)}`, `keyfile ${path.resolve(listener.tls.key)}`] : [];
  conf.push(...tls);
  const serviceTls = isLoopbackHost(serviceHost) ? [] : tls;
  conf.push(
    '',
    "# The cloud's workers (beacon cloud --broker): client ids stay theirs (see the devices' listener).",
    `listener ${servicePort} ${serviceHost}`,
    'protocol mqtt',
    'max_qos 1',
    ...serviceTls,
  );
  writeAtomic(confFile, conf.join('\n') + '\n', 0o644);
  const host = serviceHost.includes(':') ? `[${serviceHost}]` : serviceHost;
  return { passwordFile, aclFile, confFile, serviceUrl: `${serviceTls.length > 0 ? 'mqtts' : 'mqtt'}://${host}:${servicePort}` };
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

function writeAtomic(file: string, text: string, mode: number): void {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, text, { mode });
  fs.renameSync(tmp, file);
}

/**
 * Make a running Mosquitto reread its password file: SIGHUP to `pid`, a process id or the path
 * of its pid file (`mosquitto -d` with `pid_file`, or systemd's). On reload Mosquitto checks
 * every connected client against the new file and disconnects those whose credentials no
 * longer match: that is how a revocation or a new secret ends a device's session at once
 * (measured with 2.0.11: the session closes within the reload, tens of ms).
 */
export function reloadMosquitto(pid: number | string): void {
  const n = typeof pid === 'number' ? pid : Number(fs.readFileSync(pid, 'utf8').trim());
  if (!Number.isSafeInteger(n) || n <= 1) throw new Error(`no Mosquitto process id in ${String(pid)}`);
  process.kill(n, 'SIGHUP');
}

export interface ExternalBroker {
  url: string;
  /** Whether the connection to the broker stands now. */
  connected(): boolean;
  /** Frames taken from the broker and not yet handled. */
  inFlight(): number;
  /** The shared-subscription group, or undefined when subscribed alone. */
  shareGroup?: string;
  close(): Promise<void>;
}

/** The shared-subscription group every worker joins unless told otherwise. */
export const SHARE_GROUP = 'beacon-cloud';
/**
 * Frames a worker handles at once. The broker's PUBACK goes out when a frame is taken, not
 * when it is stored: the device's own acknowledgement (`b/<id>/a`) is what says an event is
 * stored, and it is published after the commit. So many frames can wait for one group commit;
 * past this many, the worker stops reading from the broker until some are done.
 */
export const MAX_IN_FLIGHT = 1024;

export interface ExternalBrokerOptions {
  /** How a device's live sessions are ended (see EndSessions in core.ts). */
  endSessions?: (id: string) => Promise<void>;
  /**
   * Join this MQTT shared-subscription group (`$share/<group>/b/+/u`, ...): the broker gives each
   * frame to one worker of the group, so N processes started alike share the devices' uploads.
   * False subscribes alone (a broker without shared subscriptions; then run one process only).
   */
  share?: string | false;
  maxInFlight?: number;
}

/** Connect the cloud to an external broker as its privileged client. */
export async function connectExternalBroker(core: CloudCore, url: string, options: ExternalBrokerOptions = {}): Promise<ExternalBroker> {
  const u = new URL(url);
  const username = u.username ? decodeURIComponent(u.username) : SERVICE_USER;
  const password = u.password ? decodeURIComponent(u.password) : await serviceSecret(core.store);
  u.username = '';
  u.password = '';
  const share = options.share ?? SHARE_GROUP;
  const maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
  const topics = (['u', 's', 'k', 'g'] as const).map((k) => (share === false ? `b/+/${k}` : `$share/${share}/b/+/${k}`));
  const client = mqtt.connect(u.toString(), {
    protocolVersion: 4,
    // Unique per connection: workers in containers often share a process id (1), and a broker
    // drops the older of two sessions with one client id.
    clientId: `${SERVICE_USER}-${crypto.randomBytes(6).toString('hex')}`,
    username,
    password,
    clean: true,
    reconnectPeriod: 1000,
    connectTimeout: 10_000,
  });
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  client.handleMessage = (packet, done) => {
    const t = parseTopic(packet.topic);
    if (!t || (t.kind !== 'u' && t.kind !== 's' && t.kind !== 'k' && t.kind !== 'g')) return done();
    // The cloud subscribes at QoS 1, so a frame arrives at QoS 0 only when the device published
    // it so; the protocol allows QoS 1 only (QoS 2 is refused by the broker: max_qos 1).
    if (packet.qos !== 1) {
      core.refuse(t.id, `QoS ${packet.qos} publish on '${packet.topic}' (only QoS 1)`);
      return done();
    }
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    inFlight++;
    // Refused or failed frames are logged by the core; the device sends again what was not
    // acknowledged. Frames of one device are still handled in order (the core's chains).
    void core.handle(t.id, t.kind, payload).then(
      () => undefined,
      () => undefined,
    ).finally(() => {
      inFlight--;
      waiting.shift()?.();
    });
    if (inFlight < maxInFlight) done();
    else waiting.push(done);
  };
  client.on('error', (err) => core.log(`broker ${u.host}: ${err.message}`));
  let wasConnected = false;
  client.on('close', () => {
    if (wasConnected) core.log(`lost the broker at ${u.host}; reconnecting`);
    wasConnected = false;
  });
  // Replies are queued, not awaited: mqtt.js reads nothing more (so not the broker's PUBACK
  // either) until handleMessage's callback runs.
  core.attach(async (topicName, payload) => {
    client.publish(topicName, payload, { qos: 1 }, (err) => {
      if (err) core.log(`publish to ${topicName} failed: ${err.message}`);
    });
  }, options.endSessions);
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error): void => {
      client.end(true);
      reject(new Error(`cannot connect to the broker at ${u.host}: ${err.message}`));
    };
    client.once('error', onError);
    client.once('connect', () => {
      client.off('error', onError);
      resolve();
    });
  });
  wasConnected = true;
  const subscribe = async (): Promise<void> => {
    const granted = await client.subscribeAsync(topics, { qos: 1 });
    if (granted.some((g) => g.qos === 128)) throw new Error(`the broker at ${u.host} refused the cloud's subscriptions (check its ACL file)`);
  };
  try {
    await subscribe();
  } catch (err) {
    await client.endAsync(true);
    throw err;
  }
  // A reconnect after the broker restarted: mqtt.js subscribes again by itself (resubscribe).
  client.on('connect', () => {
    if (!wasConnected) core.log(`connected to the broker at ${u.host} again`);
    wasConnected = true;
  });
  // A worker that cannot store leaves the group, so the broker gives the frames to the workers
  // that can; it joins again when its store is back. Alone (no group), it stays subscribed and
  // the devices get no acknowledgement until the store is back.
  if (share !== false) {
    core.health.onChange((ok) => {
      const step = ok ? subscribe() : client.unsubscribeAsync(topics).then(() => undefined);
      step.then(
        () => core.log(ok ? `joined the shared subscription '${share}' again` : `left the shared subscription '${share}' until the store is back`),
        (err: Error) => core.log(`cannot ${ok ? 'join' : 'leave'} the shared subscription: ${err.message}`),
      );
    });
  }
  return {
    url: `${u.protocol}//${u.host}`,
    connected: () => client.connected,
    inFlight: () => inFlight,
    shareGroup: share === false ? undefined : share,
    close: async () => {
      await client.endAsync(true);
    },
  };
}
