// What the cloud does with each frame a device sends, independent of which broker carried it
// (broker.ts embeds aedes; mosquitto.ts rides on an external Mosquitto). A frame is decoded
// completely before anything is stored; a batch is committed before its acknowledgement is
// published, so an acknowledged event is always in the store.
import type { JsonValue } from './cbor';
import { verifySecret } from './credentials';
import {
  checkMessage,
  CloudTopic,
  decodeBatch,
  decodeFetch,
  decodeLastMessage,
  decodeSyncStart,
  DeployOffer,
  DeviceTopic,
  encodeAck,
  encodeChunk,
  encodeMessageFrame,
  LIMITS,
  messageSize,
  ProtocolError,
  topic,
  SyncStart,
  WireMessage,
} from './protocol';
import type { CloudStore, MessageRecord } from './store';
import { advance, ERROR_STORM, stop } from './rollout';
import { isStoreUnreachable, StoreHealth, StoreUnreachable } from './storeHealth';

export type Log = (line: string) => void;

/** How the core sends a frame to a device: QoS 1 on the device's topic. */
export type Publish = (topic: string, payload: Buffer) => Promise<void>;

/**
 * How the broker in use ends a device's live sessions at once (its credentials were revoked
 * or replaced): the embedded broker closes the connection; with Mosquitto, the password file
 * is rewritten and the broker reloads it, which disconnects the device.
 */
export type EndSessions = (id: string) => Promise<void>;

const FRAME_NAMES: Record<DeviceTopic, string> = { u: 'upload batch', s: 'sync start', k: 'message ack', g: 'package fetch' };
/** Packages kept in memory for serving chunks (a rollout sends one package to many devices). */
const PACKAGE_CACHE = 4;

/** Messages fetched from the store per query while filling message frames. */
const MESSAGE_PAGE = 256;
/** Room left in a frame for its map and array headers and the "more" flag. */
const FRAME_HEADROOM = 16;

export class CloudCore {
  /** Frames of one device are handled one after another, in arrival order. */
  private chains = new Map<string, Promise<void>>();
  private publish: Publish = async () => {
    throw new Error('no broker attached');
  };
  private endSessions: EndSessions = async () => undefined;
  /**
   * Per device, how many times its credentials changed while this cloud runs. A login checked
   * against an older hash (the check is asynchronous) is refused, and so is a session whose
   * login saw an older count: a revocation that lands in the middle of a CONNECT still wins.
   */
  private epochs = new Map<string, number>();
  readonly counters = { batches: 0, events: 0, duplicates: 0, refused: 0, chunks: 0 };
  private packages = new Map<string, Buffer>();
  /** "Last seen" times not yet written: one small transaction a second instead of one per sync. */
  private seen = new Map<string, number>();
  private seenTimer?: NodeJS.Timeout;
  /** Whether the store can be reached; while it cannot, no frame is acknowledged. */
  readonly health: StoreHealth;
  /** Called after a commit that stored new events (the webhook dispatcher looks for them at once). */
  onStored: () => void = () => undefined;

  constructor(
    readonly store: CloudStore,
    readonly log: Log,
    readonly now: () => number = Date.now,
  ) {
    this.health = new StoreHealth(store, log, now);
  }

  private markSeen(id: string): void {
    this.seen.set(id, this.now());
    this.seenTimer ??= setTimeout(() => {
      this.seenTimer = undefined;
      void this.flushSeen();
    }, 1000).unref();
  }

  /** Write the pending "last seen" times (also called when the cloud stops). */
  async flushSeen(): Promise<void> {
    if (this.seenTimer) clearTimeout(this.seenTimer);
    this.seenTimer = undefined;
    if (this.seen.size === 0 || !this.health.up) return;
    const list = [...this.seen].map(([id, at]) => ({ id, at }));
    this.seen.clear();
    await this.store.touchDevices(list).catch((err: Error) => this.log(`cannot record last-seen times: ${err.message}`));
  }

  attach(publish: Publish, endSessions?: EndSessions): void {
    this.publish = publish;
    if (endSessions) this.endSessions = endSessions;
  }

  /** The device's credential generation (see `epochs`). */
  epoch(id: string): number {
    return this.epochs.get(id) ?? 0;
  }

  /**
   * The device's credentials were revoked or replaced: logins in progress fail and its live
   * sessions end now, not at their next CONNECT.
   */
  async credentialsChanged(id: string): Promise<void> {
    this.epochs.set(id, this.epoch(id) + 1);
    await this.endSessions(id);
  }

  /**
   * Check a device's credentials (client id = username = its public id). Returns the credential
   * generation the login was checked at, or undefined when refused.
   */
  async authenticate(id: string, password: string | Buffer | undefined): Promise<number | undefined> {
    if (password === undefined) return undefined;
    const epoch = this.epoch(id);
    const hash = await this.store.credential(id);
    if (hash === undefined) return undefined;
    if (!(await verifySecret(password, hash))) return undefined;
    if (this.epoch(id) !== epoch) return undefined;
    this.markSeen(id);
    return epoch;
  }

  /** A refusal: logged, counted, and thrown back to the broker (which may close the connection). */
  refuse(id: string, what: string): ProtocolError {
    this.counters.refused++;
    this.log(`refused ${id}: ${what}`);
    return new ProtocolError(what);
  }

  /**
   * Handle one frame a device published on one of its own topics. Throws ProtocolError when the
   * frame is refused (nothing was stored).
   */
  handle(id: string, kind: DeviceTopic, payload: Buffer, live?: () => boolean): Promise<void> {
    // `live`: whether the connection that carried the frame still stands when its turn comes.
    // A broker hands over every packet of a read at once; after a refusal (which closes the
    // connection) or a revocation, the frames queued behind it must not be handled.
    const now = (): Promise<void> => (live === undefined || live() ? this.handleNow(id, kind, payload) : Promise.reject(new Error('connection closed before the frame was handled')));
    const prev = this.chains.get(id) ?? Promise.resolve();
    const next = prev.then(now, now);
    const tail = next.catch(() => undefined);
    this.chains.set(id, tail);
    void tail.then(() => {
      if (this.chains.get(id) === tail) this.chains.delete(id);
    });
    return next;
  }

  private async handleNow(id: string, kind: DeviceTopic, payload: Buffer): Promise<void> {
    try {
      this.health.check(`${FRAME_NAMES[kind]} from ${id}`);
      switch (kind) {
        case 'u':
          return await this.onBatch(id, payload);
        case 's':
          return await this.onSyncStart(id, decodeSyncStart(payload));
        case 'g':
          return await this.onFetch(id, payload);
        case 'k':
          await this.store.markDelivered(id, decodeLastMessage(payload, 'message ack'), this.now());
          return;
      }
    } catch (err) {
      if (err instanceof ProtocolError) throw this.refuse(id, err.message);
      // An unreachable store is logged once by the health tracker, not once per frame.
      if (err instanceof StoreUnreachable) throw err;
      if (isStoreUnreachable(err)) this.health.failed(err as Error);
      else this.log(`error handling ${kind} from ${id}: ${(err as Error).message}`);
      throw err;
    }
  }

  private async onBatch(id: string, payload: Buffer): Promise<void> {
    const batch = decodeBatch(payload);
    const added = await this.store.storeEvents(id, batch.stream, batch.events, this.now());
    this.counters.batches++;
    this.counters.events += added;
    this.counters.duplicates += batch.events.length - added;
    if (added > 0) this.onStored();
    const first = batch.events[0].seq;
    const last = batch.events[batch.events.length - 1].seq;
    await this.send(id, 'a', encodeAck({ stream: batch.stream, first, last }));
  }

  private async onSyncStart(id: string, start: SyncStart): Promise<void> {
    // The sync start carries the last message the device processed: that acknowledges every
    // earlier one, even when the device lost its connection before sending the ack.
    const lastId = start.lastId;
    this.markSeen(id);
    // Before the messages are read: the offer goes in the last frame.
    const offer = start.app ? await this.deployOffer(id, start) : undefined;
    if (lastId > 0) await this.store.markDelivered(id, lastId, this.now());
    let after = lastId;
    let frame: WireMessage[] = [];
    let size = 0;
    for (;;) {
      const page: MessageRecord[] = await this.store.pendingMessages(id, after, MESSAGE_PAGE);
      for (const m of page) {
        after = m.id;
        const msg: WireMessage = { id: m.id, type: m.type, ts: m.ts, payload: m.payload as JsonValue };
        if (!(await this.deliverable(id, msg))) continue;
        const n = messageSize(msg);
        if (frame.length > 0 && size + n > LIMITS.frameBytes - FRAME_HEADROOM) {
          await this.send(id, 'm', encodeMessageFrame({ messages: frame, more: true }));
          frame = [];
          size = 0;
        }
        frame.push(msg);
        size += n;
      }
      if (page.length < MESSAGE_PAGE) break;
    }
    await this.send(id, 'm', encodeMessageFrame({ messages: frame, more: false, offer }));
  }

  /**
   * A device that takes deployments named the package it runs and maybe what became of the last
   * one offered: record that, and offer its assigned package unless it runs it already or
   * refused it (it would refuse it again; a new deployment is a new offer).
   */
  private async deployOffer(id: string, start: SyncStart): Promise<DeployOffer | undefined> {
    const a = await this.store.deployments.assignment(id);
    if (!a) return undefined;
    const hash = a.package.hash;
    const now = this.now();
    let state = a.state;
    const r = start.report;
    if (r && r.hash.toString('hex') === hash && r.outcome !== state) {
      state = r.outcome;
      await this.store.deployments.setDeviceState(a.deploymentId, id, state, a.package.size, r.reason, now);
      this.log(`deployment ${a.deploymentId}: ${id} ${state}${r.reason ? `: ${r.reason}` : ''}`);
      if (state !== 'installed') await stop(this.store, a.deploymentId, `${id} ${state}: ${r.reason ?? ''}`, now, this.log);
    }
    const app = start.app?.toString('hex');
    if (app === hash) {
      if (state !== 'installed' && state !== 'rolled back') {
        await this.store.deployments.setDeviceState(a.deploymentId, id, 'installed', a.package.size, undefined, now);
        this.log(`deployment ${a.deploymentId}: ${id} installed`);
      }
      if (a.status === 'running' && (start.errors ?? 0) >= ERROR_STORM) {
        await stop(this.store, a.deploymentId, `error storm: ${id} reported ${start.errors} errors since the new app started`, now, this.log);
      } else if (a.status === 'running') await advance(this.store, { ...a, state: 'installed' }, now, this.log);
      return undefined;
    }
    if (state === 'refused' || state === 'rolled back' || state === 'installed' || a.status === 'stopped') return undefined;
    // Not its turn yet: offered once the stages before it are healthy.
    if (a.deviceStage > a.stage && a.deviceStage > (await advance(this.store, a, now, this.log))) return undefined;
    // What it runs now: the app it gets back if the rollout stops.
    if (app !== undefined) await this.store.deployments.setPrevious(a.deploymentId, id, app);
    return { hash: Buffer.from(hash, 'hex'), size: a.package.size, api: a.package.api, signed: a.package.signed };
  }

  /** A chunk of the device's assigned package; an empty chunk when it is no longer assigned. */
  private async onFetch(id: string, payload: Buffer): Promise<void> {
    const f = decodeFetch(payload);
    const a = await this.store.deployments.assignment(id);
    const hash = f.hash.toString('hex');
    if (!a || a.package.hash !== hash || a.state === 'refused' || a.state === 'rolled back' || a.status === 'stopped') {
      await this.send(id, 'c', encodeChunk({ offset: f.offset }));
      return;
    }
    if (f.offset >= a.package.size) throw new ProtocolError(`package fetch: offset ${f.offset} past the end (${a.package.size} bytes)`);
    const bytes = await this.packageBytes(hash);
    if (!bytes) throw new Error(`package ${hash} of deployment ${a.deploymentId} is not in the store`);
    const data = bytes.subarray(f.offset, Math.min(bytes.length, f.offset + f.length));
    await this.store.deployments.setDeviceState(a.deploymentId, id, 'downloading', f.offset + data.length, undefined, this.now());
    this.counters.chunks++;
    await this.send(id, 'c', encodeChunk({ offset: f.offset, data }));
  }

  private async packageBytes(hash: string): Promise<Buffer | undefined> {
    const hit = this.packages.get(hash);
    if (hit) return hit;
    const bytes = await this.store.deployments.packageBytes(hash);
    if (!bytes) return undefined;
    if (this.packages.size >= PACKAGE_CACHE) this.packages.delete(this.packages.keys().next().value as string);
    this.packages.set(hash, bytes);
    return bytes;
  }

  /**
   * Whether a queued message is one the device can take. The HTTP API refuses the others, but a
   * store written before it did may hold one: sent, it would fail every sync of the device for
   * good, so it is withdrawn instead (and logged).
   */
  private async deliverable(id: string, msg: WireMessage): Promise<boolean> {
    try {
      checkMessage(msg.type, msg.payload);
      return true;
    } catch (err) {
      if (!(err instanceof ProtocolError)) throw err;
      this.log(`message ${msg.id} for ${id} withdrawn: the device could not take it (${err.message})`);
      await this.store.withdrawMessage(id, msg.id);
      return false;
    }
  }

  private send(id: string, kind: CloudTopic, payload: Buffer): Promise<void> {
    return this.publish(topic(id, kind), payload);
  }
}
