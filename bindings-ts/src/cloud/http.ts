// The HTTP API and the web page, on node's own http module: a dozen routes do not need a
// framework, and the module is already there. Every /api route needs the bearer token and
// answers JSON; the page (web/) is static, holds no data and asks for the token.
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';
import * as net from 'net';
import * as path from 'path';
import { CborError, JsonValue } from './cbor';
import { sameToken } from './credentials';
import { checkMessage, isDeviceId, ProtocolError } from './protocol';
import type { CloudStore } from './store';

/** Largest request body accepted (a message of 8 KiB of CBOR fits easily as JSON). */
export const MAX_BODY = 64 * 1024;

export interface ApiActions {
  store: CloudStore;
  token: string;
  issueDevice(id: string): Promise<{ id: string; clientId: string; username: string; password: string }>;
  revokeDevice(id: string): Promise<boolean>;
  sendMessage(id: string, type: string, payload: JsonValue): Promise<{ id: number; type: string; ts: number } | undefined>;
  mqttUrl(): string;
  log(line: string): void;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const WEB_DIR = path.join(__dirname, '..', '..', '..', 'src', 'cloud', 'web');
const STATIC: Record<string, string> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/app.js': 'app.js',
  '/style.css': 'style.css',
};
const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/.test(type)) throw new HttpError(415, 'the body must be JSON (content-type: application/json)');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, `the body is larger than ${MAX_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'the body is not valid JSON');
  }
}

function deviceParam(raw: string): string {
  const id = decodeURIComponent(raw);
  if (!isDeviceId(id)) throw new HttpError(400, `'${id}' is not a device public id (lowercase hex)`);
  return id;
}

async function route(api: ApiActions, req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
  const auth = req.headers.authorization ?? '';
  const m = /^Bearer (.+)$/.exec(auth);
  if (!m || !sameToken(m[1], api.token)) {
    res.setHeader('www-authenticate', 'Bearer');
    throw new HttpError(401, m ? 'wrong token' : 'missing bearer token (Authorization: Bearer <token>)');
  }
  const parts = url.pathname.split('/').filter((p) => p !== '');
  const method = req.method ?? 'GET';
  const store = api.store;
  // parts[0] === 'api'
  if (parts.length === 2 && parts[1] === 'devices') {
    if (method === 'GET') return send(res, 200, { devices: await store.listDevices() });
    if (method === 'POST') {
      const body = await readJson(req);
      const id = typeof body === 'object' && body !== null ? (body as { id?: unknown }).id : undefined;
      if (typeof id !== 'string') throw new HttpError(400, "the body must be {\"id\": \"<public id>\"}");
      const lower = id.trim().toLowerCase();
      if (!isDeviceId(lower)) throw new HttpError(400, `'${id}' is not a device public id (hex)`);
      return send(res, 201, { ...(await api.issueDevice(lower)), mqtt: api.mqttUrl() });
    }
    throw new HttpError(405, `${method} is not allowed here`);
  }
  if (parts.length >= 3 && parts[1] === 'devices') {
    const id = deviceParam(parts[2]);
    const dev = await store.device(id);
    if (parts.length === 3) {
      if (method === 'DELETE') {
        if (!(await api.revokeDevice(id))) throw new HttpError(404, `no device ${id}`);
        return send(res, 200, { id, revoked: true });
      }
      if (method !== 'GET') throw new HttpError(405, `${method} is not allowed here`);
      if (!dev) throw new HttpError(404, `no device ${id}`);
      return send(res, 200, dev);
    }
    if (!dev) throw new HttpError(404, `no device ${id}`);
    if (parts.length === 4 && parts[3] === 'events' && method === 'GET') {
      const limitText = url.searchParams.get('limit');
      const limit = limitText === null ? undefined : Number(limitText);
      const type = url.searchParams.get('type') ?? undefined;
      const before = url.searchParams.get('before') ?? undefined;
      try {
        return send(res, 200, await store.events(id, { limit, type, before }));
      } catch (err) {
        if (err instanceof RangeError) throw new HttpError(400, err.message);
        throw err;
      }
    }
    if (parts.length === 4 && parts[3] === 'variables' && method === 'GET') return send(res, 200, { variables: await store.variables(id) });
    if (parts.length === 4 && parts[3] === 'messages') {
      if (method === 'GET') return send(res, 200, { messages: await store.messages(id) });
      if (method === 'POST') {
        const body = await readJson(req);
        if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'the body must be {"type": "...", "payload": ...}');
        const b = body as { type?: unknown; payload?: unknown };
        let msg: { type: string; payload: JsonValue };
        try {
          msg = checkMessage(b.type, b.payload === undefined ? null : b.payload);
        } catch (err) {
          if (err instanceof ProtocolError || err instanceof CborError) throw new HttpError(400, err.message);
          throw err;
        }
        const queued = await api.sendMessage(id, msg.type, msg.payload);
        if (!queued) throw new HttpError(404, `no device ${id}`);
        return send(res, 201, queued);
      }
      throw new HttpError(405, `${method} is not allowed here`);
    }
  }
  throw new HttpError(404, `no route ${method} ${url.pathname}`);
}

function serveStatic(req: http.IncomingMessage, res: http.ServerResponse, url: URL): boolean {
  const file = STATIC[url.pathname];
  if (file === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  const body = fs.readFileSync(path.join(WEB_DIR, file));
  res.writeHead(200, {
    'content-type': MIME[path.extname(file)],
    'content-length': body.length,
    // The page runs only its own script and talks only to this server.
    'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:",
    'x-content-type-options': 'nosniff',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}

export interface HttpServerHandle {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startHttp(
  api: ApiActions,
  opts: { host: string; port: number; tls?: { cert: Buffer; key: Buffer } },
): Promise<HttpServerHandle> {
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!url.pathname.startsWith('/api/') && url.pathname !== '/api') {
      if (serveStatic(req, res, url)) return;
      send(res, 404, { error: `no page ${url.pathname}` });
      return;
    }
    route(api, req, res, url).catch((err: unknown) => {
      if (err instanceof HttpError) return send(res, err.status, { error: err.message });
      api.log(`http ${req.method} ${url.pathname}: ${(err as Error).stack ?? String(err)}`);
      send(res, 500, { error: 'internal error' });
    });
  };
  const server: http.Server | https.Server = opts.tls ? https.createServer({ cert: opts.tls.cert, key: opts.tls.key }, handler) : http.createServer(handler);
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as net.AddressInfo).port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `${opts.tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
