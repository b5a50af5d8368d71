// startCloud: the whole cloud in one call (store, broker, HTTP API and page). `beacon cloud`
// runs it from the command line; `beacon run` and `beacon test` start one for simulated devices.
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import type { JsonValue } from './cbor';
import { EmbeddedBroker, startEmbeddedBroker } from './broker';
import { CloudCore, Log } from './core';
import { hashSecret, newSecret, newToken } from './credentials';
import { HttpServerHandle, startHttp } from './http';
import type { CloudHealth } from './httpRoutes';
import { connectExternalBroker, ExternalBroker, reloadMosquitto, writeMosquittoAuth } from './mosquitto';
import { normalizeDeviceId } from './protocol';
import { CloudStore, openStore } from './store';
import { WebhookDispatcher, WebhookOptions } from './webhookDispatch';
import { DEFAULT_RETRY_FOR } from './webhooks';
import { checkCode } from './codeSandbox';

export interface CloudOptions {
  /** Address to listen on (default 127.0.0.1). Anything but loopback needs TLS. */
  host?: string;
  /** MQTT port of the embedded broker (default 1883; 0 picks a free one). */
  port?: number;
  /** HTTP port (default 8080; 0 picks a free one). */
  httpPort?: number;
  /** A SQLite file or a postgres:// URL (default: an in-memory SQLite database). */
  db?: string;
  /** An already open store (instead of db); startCloud does not close it. */
  store?: CloudStore;
  /** An external broker (mqtt:// or mqtts://) instead of the embedded one. */
  broker?: string;
  /** With `broker`: rewrite Mosquitto's password and ACL files in this directory when devices are added or revoked (the broker rereads them on SIGHUP). */
  mosquittoDir?: string;
  /**
   * With `broker` and `mosquittoDir`: the broker's process id, or its pid file. After the files
   * are rewritten the cloud sends it SIGHUP, which ends the live sessions of a revoked device
   * or one given a new secret. Without it the operator must send SIGHUP (docs/security.md).
   */
  mosquittoPid?: number | string;
  /**
   * With `broker`: the MQTT shared-subscription group this process joins (default
   * 'beacon-cloud'), so that N processes started with the same --db and --broker share the
   * devices' frames; false subscribes alone.
   */
  share?: string | false;
  /** PEM files for TLS on both MQTT (mqtts) and HTTP (https). */
  tls?: { cert: string; key: string };
  /** The HTTP API token (default: the one kept in the store, made on first start). */
  token?: string;
  /** Webhook delivery settings (timeouts, concurrency, retry schedule, body limit), or false for no dispatcher in this process. */
  webhooks?: WebhookOptions | false;
  /**
   * Cloud code (`beacon cloud --code FILE`): the handler's source, kept in the store as its
   * CLI_CODE_URL rule (made, or given this code) so that every worker runs the same.
   */
  code?: string;
  log?: Log;
  now?: () => number;
}

export interface DeviceCredentials {
  id: string;
  clientId: string;
  username: string;
  /** Shown once; the store keeps only its hash. */
  password: string;
}

export interface Cloud {
  mqttUrl: string;
  httpUrl: string;
  token: string;
  store: CloudStore;
  core: CloudCore;
  /** This process's webhook dispatcher (undefined with `webhooks: false`). */
  dispatcher?: WebhookDispatcher;
  health(): Promise<CloudHealth>;
  issueDevice(id: string): Promise<DeviceCredentials>;
  revokeDevice(id: string): Promise<boolean>;
  sendMessage(id: string, type: string, payload: JsonValue): Promise<{ id: number; type: string; ts: number } | undefined>;
  stop(): Promise<void>;
}

const TOKEN_SETTING = 'http.token';
/** How long /api/health waits for the store to answer. */
const HEALTH_PING_MS = 2000;

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (net.isIPv4(host)) return host.startsWith('127.');
  return host === '::1';
}

/** Issue credentials for a device (new or existing: the old secret stops working). */
export async function issueCredentials(store: CloudStore, idText: string, now = Date.now()): Promise<DeviceCredentials> {
  const id = normalizeDeviceId(idText);
  const password = newSecret();
  await store.putCredential(id, await hashSecret(password), now);
  return { id, clientId: id, username: id, password };
}

/** The HTTP token: given, or kept in the store (made on first start). */
export async function apiToken(store: CloudStore, given?: string): Promise<string> {
  if (given !== undefined) return given;
  let token = await store.setting(TOKEN_SETTING);
  if (token === undefined) {
    token = newToken();
    await store.setSetting(TOKEN_SETTING, token);
  }
  return token;
}

export async function startCloud(options: CloudOptions = {}): Promise<Cloud> {
  const host = options.host ?? '127.0.0.1';
  if (!options.tls && !isLoopback(host)) {
    throw new Error(`listening on ${host} needs TLS (--tls-cert and --tls-key); plain TCP is only for loopback`);
  }
  const log: Log = options.log ?? ((line) => process.stderr.write(`cloud: ${line}\n`));
  const now = options.now ?? Date.now;
  const ownStore = options.store === undefined;
  const store = options.store ?? (await openStore(options.db ?? ':memory:'));
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    if (ownStore) await store.close();
  };
  try {
    const token = await apiToken(store, options.token);
    if (options.code !== undefined) {
      const id = await store.webhooks.putCliCode(checkCode(options.code), DEFAULT_RETRY_FOR, now());
      log(`cloud code: rule ${id} runs the handler for every event`);
    }
    const core = new CloudCore(store, log, now);
    stops.push(async () => {
      core.health.stop();
      await core.flushSeen();
    });
    let dispatcher: WebhookDispatcher | undefined;
    if (options.webhooks !== false) {
      const d = new WebhookDispatcher(store.webhooks, log, now, options.webhooks ?? {}, store.kind === 'sqlite');
      dispatcher = d;
      core.onStored = () => d.kick();
      stops.push(() => d.stop());
      await d.start();
    }
    const tls = options.tls ? { cert: fs.readFileSync(options.tls.cert), key: fs.readFileSync(options.tls.key) } : undefined;
    let broker: EmbeddedBroker | ExternalBroker;
    if (options.broker !== undefined) {
      const pid = options.mosquittoPid;
      const endSessions =
        pid === undefined || options.mosquittoDir === undefined
          ? undefined
          : async (id: string): Promise<void> => {
              try {
                reloadMosquitto(pid);
              } catch (err) {
                log(`cannot make Mosquitto reload its password file (${id}'s sessions go on until it does): ${(err as Error).message}`);
              }
            };
      broker = await connectExternalBroker(core, options.broker, { endSessions, share: options.share });
    } else {
      broker = await startEmbeddedBroker(core, { host, port: options.port ?? 1883, tls });
    }
    stops.push(() => broker.close());
    const mosquittoDir = options.mosquittoDir;
    const refreshMosquitto = async (): Promise<void> => {
      if (mosquittoDir !== undefined) await writeMosquittoAuth(store, mosquittoDir);
    };
    // A new secret or a revocation ends the device's live sessions at once: the old secret
    // must not keep working on a connection made with it.
    const issueDevice = async (id: string): Promise<DeviceCredentials> => {
      const c = await issueCredentials(store, id, now());
      await refreshMosquitto();
      await core.credentialsChanged(c.id);
      log(`credentials issued for ${c.id}`);
      return c;
    };
    const revokeDevice = async (idText: string): Promise<boolean> => {
      const id = normalizeDeviceId(idText);
      const ok = await store.revokeCredential(id);
      if (ok) {
        await refreshMosquitto();
        await core.credentialsChanged(id);
        log(`credentials revoked for ${id}`);
      }
      return ok;
    };
    const sendMessage = async (id: string, type: string, payload: JsonValue): Promise<{ id: number; type: string; ts: number } | undefined> => {
      const m = await store.queueMessage(id, type, payload, now());
      return m ? { id: m.id, type: m.type, ts: m.ts } : undefined;
    };
    const b = broker;
    // The store is asked at each request (a worker that took no frame lately would not know it
    // is gone), with a bound so that the answer comes even when the database hangs.
    const health = async (): Promise<CloudHealth> => {
      const external = 'connected' in b ? b : undefined;
      const connected = external ? external.connected() : true;
      let storeError: string | undefined;
      try {
        await withTimeout(store.ping(), HEALTH_PING_MS, `no answer within ${HEALTH_PING_MS} ms`);
      } catch (err) {
        storeError = (err as Error).message;
      }
      const s = core.health.report();
      const storeOk = storeError === undefined && s.ok;
      return {
        ok: storeOk && connected,
        worker: `${os.hostname()}:${process.pid}`,
        store: { kind: store.kind, ...s, ok: storeOk, ...(storeError !== undefined ? { error: storeError } : {}) },
        broker: { url: b.url, connected, shareGroup: external?.shareGroup, inFlight: external?.inFlight() ?? 0 },
        counters: { ...core.counters },
        webhooks: { ...(dispatcher?.counters ?? { delivered: 0, failed: 0, dead: 0 }) },
      };
    };
    const http: HttpServerHandle = await startHttp(
      { store, token, issueDevice, revokeDevice, sendMessage, mqttUrl: () => broker.url, health, log, now, kickWebhooks: () => dispatcher?.kick() },
      { host, port: options.httpPort ?? 8080, tls },
    );
    stops.push(() => http.close());
    let stopped: Promise<void> | undefined;
    return {
      mqttUrl: broker.url,
      httpUrl: http.url,
      token,
      store,
      core,
      dispatcher,
      health,
      issueDevice,
      revokeDevice,
      sendMessage,
      stop: () => (stopped ??= stopAll()),
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
