// The cloud's durable state, behind one interface with two implementations: SQLite
// (sqliteStore.ts, the embedded default: one file, nothing to install) and PostgreSQL
// (pgStore.ts). The same test suite runs against both (test/cloudStore.test.ts).
import type { JsonValue } from './cbor';
import type { WireEvent } from './protocol';
import type { DeploymentStore } from './deployments';
import type { WebhookStore } from './webhooks';

export interface DeviceRecord {
  id: string;
  /** When credentials were first issued, UTC ms. */
  created: number;
  /** Last time the device connected, UTC ms; undefined if never. */
  lastSeen?: number;
  /** Credentials revoked: the device cannot connect until new ones are issued. */
  revoked: boolean;
  events: number;
  pendingMessages: number;
}

export interface StoredEvent {
  deviceId: string;
  stream: number;
  seq: number;
  type: string;
  ts: number;
  payload: JsonValue;
  volatile: boolean;
  variable: boolean;
  /** When the cloud stored it, UTC ms. */
  received: number;
}

export interface VariableRecord {
  name: string;
  value: JsonValue;
  /** The device's timestamp of the value, UTC ms. */
  ts: number;
}

export interface MessageRecord {
  deviceId: string;
  id: number;
  type: string;
  ts: number;
  payload: JsonValue;
  /** When the device acknowledged it, UTC ms; undefined while pending. */
  delivered?: number;
}

export interface EventQuery {
  /** Only events of this type. */
  type?: string;
  /** A cursor from a previous page's `next`. */
  before?: string;
  /** At most this many (1..1000, default 50). */
  limit?: number;
}

export interface EventPage {
  events: StoredEvent[];
  /** Cursor of the next (older) page; undefined on the last page. */
  next?: string;
}

export interface PruneResult {
  /** The partitions dropped (PostgreSQL; none for SQLite). */
  partitions: string[];
  /** Events removed, in those partitions and deleted one by one. */
  events: number;
}

export interface CloudStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Create the tables if needed (and migrate those of an earlier version). */
  init(): Promise<void>;
  close(): Promise<void>;
  /** Resolves when the store answers (for health checks); rejects with the reason otherwise. */
  ping(): Promise<void>;

  /** Issue (or replace) a device's credential hash; clears a revocation. */
  putCredential(id: string, hash: string, now: number): Promise<void>;
  /** Revoke a device's credentials; false if the device is unknown. */
  revokeCredential(id: string): Promise<boolean>;
  /** The credential hash of an active (not revoked) device. */
  credential(id: string): Promise<string | undefined>;
  /** Every device with an active credential hash (for the Mosquitto password file). */
  credentials(): Promise<{ id: string; hash: string }[]>;
  /** Record when devices were last seen (one transaction for the whole list). */
  touchDevices(seen: readonly { id: string; at: number }[]): Promise<void>;
  listDevices(): Promise<DeviceRecord[]>;
  device(id: string): Promise<DeviceRecord | undefined>;

  /**
   * Store a batch in one transaction: each (device, stream, seq) at most once, whatever was
   * stored before; variable events also update the device's variables when newer. Returns how
   * many events were new.
   */
  storeEvents(deviceId: string, stream: number, events: readonly WireEvent[], now: number): Promise<number>;
  events(deviceId: string, query?: EventQuery): Promise<EventPage>;
  /**
   * Retention: remove events whose device time is before `olderThan` (UTC ms). PostgreSQL drops
   * each daily partition whose whole day is before it (events of the day the cutoff falls in
   * stay until that day's partition goes) and deletes older rows of the default partition;
   * SQLite deletes the older rows. Returns the partitions dropped and the events removed.
   */
  prune(olderThan: number): Promise<PruneResult>;
  variables(deviceId: string): Promise<VariableRecord[]>;

  /** Queue a message; ids count up from 1 per device. Undefined if the device is unknown. */
  queueMessage(deviceId: string, type: string, payload: JsonValue, now: number): Promise<MessageRecord | undefined>;
  /** Pending (undelivered) messages with id > afterId, oldest first. */
  pendingMessages(deviceId: string, afterId: number, limit: number): Promise<MessageRecord[]>;
  /** Mark every pending message with id <= uptoId delivered; returns how many. */
  markDelivered(deviceId: string, uptoId: number, now: number): Promise<number>;
  messages(deviceId: string): Promise<MessageRecord[]>;
  /**
   * Withdraw a pending message (delete it; its id is never given again). 'delivered' when the
   * device already processed it (it stays), undefined when there is no such message.
   */
  withdrawMessage(deviceId: string, id: number): Promise<'withdrawn' | 'delivered' | undefined>;

  setting(name: string): Promise<string | undefined>;
  setSetting(name: string, value: string): Promise<void>;

  /** The webhooks, their outbox (written with the events) and dead letters (webhooks.ts). */
  readonly webhooks: WebhookStore;
  /** Apps deployed to devices over the sync (deployments.ts). */
  readonly deployments: DeploymentStore;
}

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 1000;

export function pageLimit(q: EventQuery | undefined): number {
  const n = q?.limit ?? DEFAULT_PAGE;
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE) throw new RangeError(`limit must be 1 to ${MAX_PAGE}`);
  return n;
}

/** A prune cutoff must be a UTC time in ms. */
export function checkCutoff(olderThan: number): void {
  if (!Number.isSafeInteger(olderThan) || olderThan < 0) {
    throw new RangeError(`prune: the cutoff must be a UTC time in ms (an integer from 0), not ${olderThan}`);
  }
}

/** Page cursors are "<ts>.<row id>": the keyset of the last event shown. */
export function parseCursor(c: string | undefined): { ts: number; row: number } | undefined {
  if (c === undefined) return undefined;
  const m = /^(\d{1,16})\.(\d{1,16})$/.exec(c);
  if (!m) throw new RangeError(`bad page cursor '${c}'`);
  return { ts: Number(m[1]), row: Number(m[2]) };
}

/** Open the store a --db argument names: a postgres:// URL, or a SQLite file path. */
export async function openStore(db: string): Promise<CloudStore> {
  let store: CloudStore;
  if (/^postgres(ql)?:\/\//.test(db)) {
    const { PgStore } = await import('./pgStore');
    store = new PgStore(db);
  } else {
    const { SqliteStore } = await import('./sqliteStore');
    store = new SqliteStore(db);
  }
  await store.init();
  return store;
}
