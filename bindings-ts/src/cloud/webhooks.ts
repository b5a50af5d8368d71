// Webhooks: what the cloud POSTs to its users' own systems for each stored event, how it signs
// it, and the part of the store that holds the receivers and their durable outbox. The
// dispatcher that sends them is webhookDispatch.ts; the two stores implement WebhookStore in
// sqliteWebhooks.ts and pgWebhooks.ts.
//
// The outbox is written in the transaction that stores the events (a transactional outbox), so
// an event the device was told is stored is also queued for every receiver whose filters it
// matches, whatever happens to the process afterwards. One outbox row holds the new events of one
// batch for one webhook (a batch of 10 events costs one extra row, not ten: see docs/cloud.md,
// "Webhooks", for the measured cost); the row's `pos` says how many of them went out.
import * as crypto from 'crypto';
import type { JsonValue } from './cbor';
import { checkCode } from './codeSandbox';
import { isDeviceId } from './protocol';

export interface WebhookRecord {
  id: number;
  /** The receiver's URL; for cloud code, CLI_CODE_URL or API_CODE_URL. */
  url: string;
  /** 'url': events are POSTed to it; 'code': a cloud-code handler runs for each (codeSandbox.ts). */
  kind: 'url' | 'code';
  /** Only events of these types (undefined: every type). */
  types?: string[];
  /** Only events of these devices (undefined: every device). */
  devices?: string[];
  /** How long an event is retried before it goes to the dead letters, ms. */
  retryFor: number;
  created: number;
  /** Events waiting to be delivered. */
  pending: number;
  /** Events given up on (the dead letters). */
  dead: number;
}

export interface NewWebhook {
  url: string;
  /** A cloud-code handler's source (then url is a *_CODE_URL and the secret is unused). */
  code?: string;
  types?: string[];
  devices?: string[];
  retryFor: number;
  secret: string;
  created: number;
}

/** What the dispatcher needs of a webhook: the secret, which the listings never show. */
export interface ActiveWebhook {
  id: number;
  url: string;
  secret: string;
  retryFor: number;
  /** Cloud code: the handler run instead of a POST. */
  code?: string;
}

/** The cloud-code rule `beacon cloud --code FILE` keeps (one per store, its code replaced at each start). */
export const CLI_CODE_URL = 'code:cli';
/** Cloud-code rules made through the API (`{"code": "..."}`). */
export const API_CODE_URL = 'code:api';

/** What one call of a cloud-code handler printed, or why it failed (kept only when either). */
export interface CodeLog {
  deviceId: string;
  stream: number;
  seq: number;
  /** 1 for the first call for this event, then one more per retry. */
  attempt: number;
  at: number;
  ok: boolean;
  output: string;
  error?: string;
}

/** Log lines kept per cloud-code rule; older ones are deleted. */
export const CODE_LOGS_KEPT = 1000;

/** One outbox row, claimed by one dispatcher until `claimed_until`. */
export interface ClaimedRow {
  id: number;
  webhookId: number;
  deviceId: string;
  stream: number;
  seqs: number[];
  tss: number[];
  /** Events of the row already delivered (or dead-lettered). */
  pos: number;
  /** Failed attempts at the event at pos, and since when it fails (ms). */
  attempts: number;
  failingSince?: number;
}

export interface DeliveryEvent {
  seq: number;
  ts: number;
  type: string;
  payload: JsonValue;
  variable: boolean;
}

export interface DeliveryRecord {
  deviceId: string;
  stream: number;
  seq: number;
  ts: number;
  status: 'pending' | 'dead';
  attempts: number;
  /** Why the last attempt failed. */
  lastError?: string;
  /** Pending: when the next attempt is due (ms). */
  nextAt?: number;
  /** Dead: when it was given up on (ms). */
  failedAt?: number;
}

export interface WebhookStore {
  addWebhook(w: NewWebhook): Promise<number>;
  listWebhooks(): Promise<WebhookRecord[]>;
  webhook(id: number): Promise<WebhookRecord | undefined>;
  activeWebhooks(): Promise<ActiveWebhook[]>;
  /** Remove a webhook with its outbox and dead letters; false if there is none. */
  removeWebhook(id: number): Promise<boolean>;
  /**
   * Delete outbox rows of these removed webhooks: an ingest that read a webhook just before its
   * removal commits rows for it afterwards. Ids are never given again.
   */
  purgeRemoved(ids: readonly number[]): Promise<void>;
  /**
   * Claim up to `limit` due rows of a webhook, each the next of its device (the next event of a
   * device waits for the one before; on PostgreSQL, in the device's sequence order when workers
   * committed its batches out of order, see PgWebhooks.claim), none claimed by anyone else: they
   * are this claimer's until `leaseUntil`.
   */
  claim(webhookId: number, limit: number, now: number, leaseUntil: number, claimer: string): Promise<ClaimedRow[]>;
  /** The events of a row, one per seq (undefined: pruned since). */
  outboxEvents(row: ClaimedRow): Promise<(DeliveryEvent | undefined)[]>;
  /** The events before `pos` are done; the row is deleted when none is left. False: the claim was lost. */
  advance(row: ClaimedRow, claimer: string, pos: number, leaseUntil: number): Promise<boolean>;
  /** The attempt at the event at `pos` failed (those before it are done): try again at nextAt; the claim is let go. */
  retryLater(row: ClaimedRow, claimer: string, r: { pos: number; attempts: number; nextAt: number; failingSince: number; lastError: string }): Promise<boolean>;
  /** Give up on the event at `pos`: into the dead letters, and the row moves on (as advance). */
  deadLetter(row: ClaimedRow, claimer: string, pos: number, d: { attempts: number; reason: string; now: number }, leaseUntil: number): Promise<boolean>;
  /** Let go of every claim of this claimer (null: of everyone, for the single-process SQLite store at start). */
  releaseClaims(claimer: string | null): Promise<void>;
  deliveries(webhookId: number, status: 'pending' | 'dead', limit: number): Promise<DeliveryRecord[]>;
  /** Put a webhook's dead letters back in its outbox; returns how many. */
  replay(webhookId: number, now: number): Promise<number>;
  /** Keep what a cloud-code call printed or why it failed (the oldest beyond CODE_LOGS_KEPT go). */
  addCodeLog(webhookId: number, log: CodeLog): Promise<void>;
  /** A cloud-code rule's log, newest first. */
  codeLogs(webhookId: number, limit: number): Promise<CodeLog[]>;
  /** Make the CLI_CODE_URL rule, or give it this code; its id. Two workers starting at once make one. */
  putCliCode(code: string, retryFor: number, now: number): Promise<number>;
}

/** The JSON body POSTed for an event: the maker's cloud-code event shape, plus where it is from. */
export interface WebhookBody {
  type: string;
  payload: JsonValue;
  /** The device's timestamp of the event as ISO 8601 UTC; null for one no Date can hold. */
  enqueuedAt: string | null;
  identifier: string;
  deviceId: string;
  stream: number;
  seq: number;
  variable: boolean;
}

const MAX_DATE_MS = 8.64e15;

export function webhookBody(deviceId: string, stream: number, e: DeliveryEvent): WebhookBody {
  return {
    type: e.type,
    payload: e.payload,
    enqueuedAt: e.ts <= MAX_DATE_MS ? new Date(e.ts).toISOString() : null,
    identifier: deviceId,
    deviceId,
    stream,
    seq: e.seq,
    variable: e.variable,
  };
}

export const SIGNATURE_HEADER = 'beacon-signature';
export const IDEMPOTENCY_HEADER = 'beacon-idempotency-key';

/** `t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: the timestamp is signed too, so a receiver can refuse old replays. */
export function signature(secret: string, body: Buffer | string, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  const mac = crypto.createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
  return `t=${t},v1=${mac}`;
}

export function idempotencyKey(deviceId: string, stream: number, seq: number): string {
  return `${deviceId}:${stream}:${seq}`;
}

/** A new signing secret: 32 random bytes as hex, used as the HMAC key in its UTF-8 form. */
export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('hex')}`;
}

/** Exponential backoff with full jitter: a random wait in [0, min(cap, base * 2^(attempt - 1))). */
export function backoff(attempt: number, baseMs: number, capMs: number, random = Math.random): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt - 1, 40));
  return Math.floor(random() * ceiling);
}

/** Options of a new webhook, from the CLI or the API. */
export interface WebhookInput {
  url: unknown;
  /** Cloud code instead of a URL: the handler's source. */
  code?: unknown;
  types?: unknown;
  devices?: unknown;
  retryFor?: unknown;
  /** Allow http:// to a host other than loopback (the events would cross the network unencrypted). */
  allowHttp?: boolean;
}

export const DEFAULT_RETRY_FOR = 24 * 3_600_000;
export const MAX_RETRY_FOR = 30 * 24 * 3_600_000;
const MAX_URL = 2048;
const MAX_FILTER = 100;

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '');
  return h === 'localhost' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::1';
}

/** A receiver's URL, checked: http(s) only, no credentials in it, plain http only to loopback unless allowed. */
export function checkWebhookUrl(text: unknown, allowHttp = false): string {
  if (typeof text !== 'string' || text.length === 0) throw new RangeError('url: a webhook needs the receiver\'s URL (https://...)');
  if (text.length > MAX_URL) throw new RangeError(`url: longer than ${MAX_URL} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RangeError(`url: '${text.slice(0, 200)}' is not a URL (expected https://host/path)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new RangeError(`url: only http and https receivers, not '${url.protocol.replace(/:$/, '')}'`);
  if (url.username !== '' || url.password !== '') throw new RangeError('url: no user name or password in the URL (webhook lists show the URL; requests are signed instead)');
  if (url.hash !== '') throw new RangeError('url: no #fragment (it is never sent to the receiver)');
  if (url.protocol === 'http:' && !allowHttp && !isLoopbackHost(url.hostname)) {
    throw new RangeError(`url: plain http:// only to a loopback receiver (127.0.0.1, ::1, localhost); use https://, or allow it (--allow-http, "allowHttp": true)`);
  }
  return url.toString();
}

function stringList(what: string, v: unknown, check: (s: string) => string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  const list: unknown = typeof v === 'string' ? v.split(',').map((s) => s.trim()) : v;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_FILTER) throw new RangeError(`${what}: a list of 1 to ${MAX_FILTER} values`);
  const out = new Set<string>();
  for (const s of list) {
    if (typeof s !== 'string') throw new RangeError(`${what}: each value must be a string`);
    out.add(check(s));
  }
  return [...out];
}

/** Check what a new webhook is given; throws RangeError naming the bad argument. */
export function checkWebhookInput(input: WebhookInput): { url: string; code?: string; types?: string[]; devices?: string[]; retryFor: number } {
  let code: string | undefined;
  if (input.code !== undefined) {
    if (input.url !== undefined) throw new RangeError('url: a rule has a receiver URL or cloud code, not both');
    code = checkCode(input.code);
  }
  const url = code !== undefined ? API_CODE_URL : checkWebhookUrl(input.url, input.allowHttp === true);
  const types = stringList('types', input.types, (t) => {
    if (t.length < 1 || t.length > 30) throw new RangeError(`types: '${t.slice(0, 40)}' is not an event type (1 to 30 characters)`);
    return t;
  });
  const devices = stringList('devices', input.devices, (d) => {
    const id = d.toLowerCase();
    if (!isDeviceId(id)) throw new RangeError(`devices: '${d.slice(0, 80)}' is not a device public id (hex)`);
    return id;
  });
  const retryFor = input.retryFor ?? DEFAULT_RETRY_FOR;
  if (typeof retryFor !== 'number' || !Number.isSafeInteger(retryFor) || retryFor < 1 || retryFor > MAX_RETRY_FOR) {
    throw new RangeError(`retryFor: how long to retry, in ms, from 1 to ${MAX_RETRY_FOR} (30 days), not ${JSON.stringify(retryFor)}`);
  }
  return { url, ...(code !== undefined ? { code } : {}), types, devices, retryFor };
}

/** Whether an event goes to a webhook with these filters. */
export function matches(f: { types?: readonly string[] | null; devices?: readonly string[] | null }, deviceId: string, type: string): boolean {
  return (f.types == null || f.types.includes(type)) && (f.devices == null || f.devices.includes(deviceId));
}
