// Running on an external Mosquitto instead of the embedded broker. Mosquitto enforces the
// per-device rules itself, from the password and ACL files `beacon cloud mosquitto-config`
// writes (writeMosquittoConfig); the cloud connects as one privileged client (with `mqtt`, the
// standard MQTT client for node), subscribes to every device's uplink topics and publishes the
// replies.
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
pattern read b/%u/a
pattern read b/%u/m
`;

export interface MosquittoFiles {
  passwordFile: string;
  aclFile: string;
  confFile: string;
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
  listener: { port: number; host?: string; tls?: { cert: string; key: string }; user?: string } = { port: 1883 },
): Promise<MosquittoFiles> {
  const { passwordFile, aclFile } = await writeMosquittoAuth(store, dir);
  const confFile = path.resolve(dir, 'mosquitto.conf');
  const conf = [
    "# Written by 'beacon cloud mosquitto-config'.",
    'per_listener_settings false',
    'allow_anonymous false',
    `password_file ${passwordFile}`,
    `acl_file ${aclFile}`,
    `max_packet_size ${LIMITS.mqttPacketBytes + 5}`,
    // Device publishes are QoS 1 (docs/cloud-protocol.md §1): a QoS 2 PUBLISH disconnects the
    // client; QoS 0 arrives at the cloud as QoS 0 and is dropped there.
    'max_qos 1',
    // The keep-alive bound; Mosquitto 2.0.11 applies it to MQTT 5 clients only (docs/security.md).
    `max_keepalive ${LIMITS.keepAliveMax}`,
    'persistence false',
    // Mosquitto started as root switches to this user; it must be able to read the files above.
    ...(listener.user ? [`user ${listener.user}`] : []),
    `listener ${listener.port}${listener.host ? ` ${listener.host}` : ''}`,
    'protocol mqtt',
    // Listener settings from here on (before the listener line they would open a default one).
    // Devices must use their public id as client id; this makes Mosquitto enforce it.
    'use_username_as_clientid true',
  ];
  if (listener.tls) conf.push(`certfile ${path.resolve(listener.tls.cert)}`, `keyfile ${path.resolve(listener.tls.key)}`);
  writeAtomic(confFile, conf.join('\n') + '\n', 0o644);
  return { passwordFile, aclFile, confFile };
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
  close(): Promise<void>;
}

/** Connect the cloud to an external broker as its privileged client. */
export async function connectExternalBroker(core: CloudCore, url: string, endSessions?: (id: string) => Promise<void>): Promise<ExternalBroker> {
  const u = new URL(url);
  const username = u.username ? decodeURIComponent(u.username) : SERVICE_USER;
  const password = u.password ? decodeURIComponent(u.password) : await serviceSecret(core.store);
  u.username = '';
  u.password = '';
  const client = mqtt.connect(u.toString(), {
    protocolVersion: 4,
    clientId: `${SERVICE_USER}-${process.pid}-${Date.now().toString(36)}`,
    username,
    password,
    clean: true,
    reconnectPeriod: 1000,
    connectTimeout: 10_000,
  });
  // mqtt.js sends the PUBACK of a QoS 1 message when this callback is called: only after the
  // frame is handled (a batch committed and acknowledged).
  client.handleMessage = (packet, done) => {
    const t = parseTopic(packet.topic);
    if (!t || (t.kind !== 'u' && t.kind !== 's' && t.kind !== 'k')) return done();
    // The cloud subscribes at QoS 1, so a frame arrives at QoS 0 only when the device published
    // it so; the protocol allows QoS 1 only (QoS 2 is refused by the broker: max_qos 1).
    if (packet.qos !== 1) {
      core.refuse(t.id, `QoS ${packet.qos} publish on '${packet.topic}' (only QoS 1)`);
      return done();
    }
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    core.handle(t.id, t.kind, payload).then(
      () => done(),
      () => done(), // refused or failed: logged by the core; the device resends what was not acknowledged
    );
  };
  client.on('error', (err) => core.log(`broker ${u.host}: ${err.message}`));
  // Replies are queued, not awaited: mqtt.js reads nothing more (so not the broker's PUBACK
  // either) until handleMessage's callback runs.
  core.attach(async (topicName, payload) => {
    client.publish(topicName, payload, { qos: 1 }, (err) => {
      if (err) core.log(`publish to ${topicName} failed: ${err.message}`);
    });
  }, endSessions);
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
  const granted = await client.subscribeAsync(['b/+/u', 'b/+/s', 'b/+/k'], { qos: 1 });
  if (granted.some((g) => g.qos === 128)) {
    await client.endAsync(true);
    throw new Error(`the broker at ${u.host} refused the cloud's subscriptions (check its ACL file)`);
  }
  return {
    url: `${u.protocol}//${u.host}`,
    close: async () => {
      await client.endAsync(true);
    },
  };
}
