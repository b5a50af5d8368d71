// The HTTP API's routes. Everything a request carries (path, query, headers, body) is parsed
// here into checked values or refused with an HttpError naming what is wrong; nothing in a
// request can make a route throw anything else (http.ts still answers 500 if one does).
import type * as http from 'http';
import { CborError, JsonValue } from './cbor';
import { sameToken } from './credentials';
import { checkMessage, isDeviceId, ProtocolError } from './protocol';
import type { CloudStore } from './store';
import type { StoreHealthReport } from './storeHealth';
import { deploymentRoute } from './deployRoutes';
import { webhookRoute } from './webhookRoutes';

/** Largest request body accepted (a message of 8 KiB of CBOR fits easily as JSON). */
export const MAX_BODY = 64 * 1024;

export interface ApiActions {
  store: CloudStore;
  token: string;
  issueDevice(id: string): Promise<{ id: string; clientId: string; username: string; password: string }>;
  revokeDevice(id: string): Promise<boolean>;
  sendMessage(id: string, type: string, payload: JsonValue): Promise<{ id: number; type: string; ts: number } | undefined>;
  mqttUrl(): string;
  /** `GET /api/health`: whether this process can take uploads (no token needed). */
  health(): Promise<CloudHealth>;
  log(line: string): void;
  /** The cloud's clock (default Date.now). */
  now?(): number;
  /** A webhook's deliveries were put back in the outbox: send them now, not at the next poll. */
  kickWebhooks?(): void;
}

/** What `/api/health` answers: 200 when this process can store and acknowledge uploads, else 503. */
export interface CloudHealth {
  ok: boolean;
  /** This process: host name and process id (one of N workers, or the single cloud). */
  worker: string;
  store: StoreHealthReport & { kind: 'sqlite' | 'postgres' };
  broker: { url: string; connected: boolean; shareGroup?: string; inFlight: number };
  counters: { batches: number; events: number; duplicates: number; refused: number };
  /** This process's webhook POSTs: events delivered, attempts failed, events dead-lettered. */
  webhooks: { delivered: number; failed: number; dead: number };
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type Send = (status: number, body: unknown) => void;

export async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/.test(type)) throw new HttpError(415, 'the body must be JSON (content-type: application/json)');
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY) throw new HttpError(413, `the body is larger than ${MAX_BODY} bytes`);
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    // The client went away mid-body ("aborted"): its fault, not an internal error.
    throw new HttpError(400, 'the body ended before its content-length');
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'the body is not valid JSON');
  }
}

/** A path segment, percent-decoded; malformed escapes (%E0%A4%A) are the client's error. */
export function segment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, 'malformed percent-encoding in the path');
  }
}

function deviceParam(raw: string): string {
  const id = segment(raw);
  if (!isDeviceId(id)) throw new HttpError(400, `'${id.slice(0, 80)}' is not a device public id (lowercase hex)`);
  return id;
}

/** A message id in a path: a plain decimal number from 1, nothing else (no 1e3, 0x10, " 1"). */
function messageIdParam(raw: string): number {
  const text = segment(raw);
  if (!/^[1-9][0-9]{0,14}$/.test(text)) throw new HttpError(400, `'${text.slice(0, 80)}' is not a message id`);
  return Number(text);
}

/** `limit`: plain decimal digits only; Number() would also take "1e3", "0x10", " 5 " or "". */
export function limitParam(text: string | null): number | undefined {
  if (text === null) return undefined;
  if (!/^[0-9]{1,6}$/.test(text)) throw new HttpError(400, 'limit must be a whole number from 1 to 1000, in decimal digits');
  return Number(text);
}

function checkToken(api: ApiActions, req: http.IncomingMessage, res: http.ServerResponse): void {
  const auth = req.headers.authorization ?? '';
  const m = /^Bearer (.+)$/.exec(auth);
  if (!m || !sameToken(m[1], api.token)) {
    res.setHeader('www-authenticate', 'Bearer');
    throw new HttpError(401, m ? 'wrong token' : 'missing bearer token (Authorization: Bearer <token>)');
  }
}

export function notAllowed(method: string): never {
  throw new HttpError(405, `${method} is not allowed here`);
}

async function devices(api: ApiActions, req: http.IncomingMessage, method: string, send: Send): Promise<void> {
  if (method === 'GET') return send(200, { devices: await api.store.listDevices() });
  if (method !== 'POST') notAllowed(method);
  const body = await readJson(req);
  const id = typeof body === 'object' && body !== null ? (body as { id?: unknown }).id : undefined;
  if (typeof id !== 'string') throw new HttpError(400, 'the body must be {"id": "<public id>"}');
  const lower = id.trim().toLowerCase();
  if (!isDeviceId(lower)) throw new HttpError(400, `'${id.slice(0, 80)}' is not a device public id (hex)`);
  return send(201, { ...(await api.issueDevice(lower)), mqtt: api.mqttUrl() });
}

async function postMessage(api: ApiActions, req: http.IncomingMessage, id: string, send: Send): Promise<void> {
  const body = await readJson(req);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'the body must be {"type": "...", "payload": ...}');
  const b = body as { type?: unknown; payload?: unknown };
  let msg: { type: string; payload: JsonValue };
  try {
    // The same checks (and limit table) the device applies: a message it could not take
    // would fail each of its syncs.
    msg = checkMessage(b.type, b.payload === undefined ? null : b.payload);
  } catch (err) {
    if (err instanceof ProtocolError || err instanceof CborError) throw new HttpError(400, err.message);
    throw err;
  }
  const queued = await api.sendMessage(id, msg.type, msg.payload);
  if (!queued) throw new HttpError(404, `no device ${id}`);
  return send(201, queued);
}

async function withdraw(api: ApiActions, id: string, raw: string, send: Send): Promise<void> {
  const mid = messageIdParam(raw);
  const r = await api.store.withdrawMessage(id, mid);
  if (r === undefined) throw new HttpError(404, `no message ${mid} for ${id}`);
  if (r === 'delivered') throw new HttpError(409, `message ${mid} was already delivered`);
  api.log(`message ${mid} for ${id} withdrawn`);
  return send(200, { id: mid, withdrawn: true });
}

async function oneDevice(api: ApiActions, req: http.IncomingMessage, url: URL, parts: string[], send: Send): Promise<void> {
  const method = req.method ?? 'GET';
  const store = api.store;
  const id = deviceParam(parts[2]);
  if (parts.length === 3 && method === 'DELETE') {
    if (!(await api.revokeDevice(id))) throw new HttpError(404, `no device ${id}`);
    return send(200, { id, revoked: true });
  }
  const dev = await store.device(id);
  if (parts.length === 3) {
    if (method !== 'GET') notAllowed(method);
    if (!dev) throw new HttpError(404, `no device ${id}`);
    return send(200, dev);
  }
  if (!dev) throw new HttpError(404, `no device ${id}`);
  const what = parts[3];
  if (parts.length === 4 && what === 'events') {
    if (method !== 'GET') notAllowed(method);
    const limit = limitParam(url.searchParams.get('limit'));
    const type = url.searchParams.get('type') ?? undefined;
    const before = url.searchParams.get('before') ?? undefined;
    try {
      return send(200, await store.events(id, { limit, type, before }));
    } catch (err) {
      if (err instanceof RangeError) throw new HttpError(400, err.message);
      throw err;
    }
  }
  if (parts.length === 4 && what === 'variables') {
    if (method !== 'GET') notAllowed(method);
    return send(200, { variables: await store.variables(id) });
  }
  if (parts.length === 4 && what === 'messages') {
    if (method === 'GET') return send(200, { messages: await store.messages(id) });
    if (method === 'POST') return postMessage(api, req, id, send);
    notAllowed(method);
  }
  if (parts.length === 5 && what === 'messages') {
    if (method !== 'DELETE') notAllowed(method);
    return withdraw(api, id, parts[4], send);
  }
  throw new HttpError(404, `no route ${method} ${url.pathname.slice(0, 200)}`);
}

/** Answer one /api request; throws HttpError for every refusal. */
export async function route(api: ApiActions, req: http.IncomingMessage, res: http.ServerResponse, url: URL, send: Send): Promise<void> {
  // The health check is for load balancers and process supervisors, which hold no token; it
  // shows no device data.
  if (url.pathname === '/api/health') {
    if (req.method !== 'GET' && req.method !== 'HEAD') notAllowed(req.method ?? '');
    const h = await api.health();
    return send(h.ok ? 200 : 503, h);
  }
  checkToken(api, req, res);
  const parts = url.pathname.split('/').filter((p) => p !== '');
  const method = req.method ?? 'GET';
  // parts[0] === 'api'
  if (parts.length === 2 && parts[1] === 'devices') return devices(api, req, method, send);
  if (parts.length >= 3 && parts.length <= 5 && parts[1] === 'devices') return oneDevice(api, req, url, parts, send);
  if (parts[1] === 'webhooks') return webhookRoute(api, req, url, parts, send);
  if (parts[1] === 'deployments') return deploymentRoute(api, req, url, parts, send);
  throw new HttpError(404, `no route ${method} ${url.pathname.slice(0, 200)}`);
}
