// The HTTP API and the web page, on node's own http module: a dozen routes do not need a
// framework, and the module is already there. Every /api route needs the bearer token and
// answers JSON (httpRoutes.ts); the page (web/) is static, holds no data and asks for the token.
//
// The server outlives any request: the request target is parsed without throwing, every
// answer carries the security headers, and a handler that fails anyway gets a 500 without
// its stack (logged once here) instead of taking the broker and every device's sync with it.
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';
import * as net from 'net';
import * as path from 'path';
import { ApiActions, HttpError, route } from './httpRoutes';

export { MAX_BODY } from './httpRoutes';
export type { ApiActions } from './httpRoutes';

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

// On every answer: no other site may frame the page (clickjacking: frame-ancestors, and
// X-Frame-Options for browsers without CSP 2), and no browser may guess another type than
// the one sent. API answers are JSON and need nothing else; the page runs only its own script
// and talks only to this server.
const COMMON_HEADERS: Record<string, string> = {
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
const API_CSP = "default-src 'none'; frame-ancestors 'none'";
const PAGE_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'";

function send(res: http.ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    // Too late for an answer of its own: cut the connection rather than send half of two.
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The request target as a URL, or a reason to refuse it (400). `new URL(target, base)` throws
 * on `//[`, `//a:99999/` or `http://[/` (a base does not help: `//` starts an authority), and
 * that exception, uncaught, once stopped the whole service. So: a path (origin form) is read
 * below a fixed origin, an absolute URL (absolute form, which HTTP/1.1 servers must take) as
 * itself, a path starting with `//` (an authority to every URL parser) is refused, and so is
 * malformed percent-encoding anywhere in the path.
 */
export function requestUrl(target: string | undefined): URL | string {
  if (target === undefined) return 'no request target';
  let url: URL;
  try {
    if (/^https?:\/\//i.test(target)) url = new URL(target);
    else if (target.startsWith('/') && !target.startsWith('//')) url = new URL(`http://localhost${target}`);
    else return 'the request target must be a path';
  } catch {
    return 'the request target is not a valid URL';
  }
  if (url.pathname.startsWith('//')) return 'the request target must be a path';
  try {
    decodeURIComponent(url.pathname);
  } catch {
    return 'malformed percent-encoding in the path';
  }
  return url;
}

function serveStatic(req: http.IncomingMessage, res: http.ServerResponse, url: URL): boolean {
  const file = STATIC[url.pathname];
  if (file === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  const body = fs.readFileSync(path.join(WEB_DIR, file));
  res.setHeader('content-security-policy', PAGE_CSP);
  res.writeHead(200, { 'content-type': MIME[path.extname(file)], 'content-length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}

export interface HttpServerHandle {
  url: string;
  port: number;
  close(): Promise<void>;
}

async function handle(api: ApiActions, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  for (const [k, v] of Object.entries(COMMON_HEADERS)) res.setHeader(k, v);
  res.setHeader('content-security-policy', API_CSP);
  // HTTP/1.1 requires Host. Node refuses a request without it by itself, but with a bare 400
  // that skips this handler and its headers, so the server leaves the check to us.
  if (req.headers.host === undefined && req.httpVersion === '1.1') return send(res, 400, { error: 'missing Host header' });
  const url = requestUrl(req.url);
  if (typeof url === 'string') return send(res, 400, { error: url });
  if (!url.pathname.startsWith('/api/') && url.pathname !== '/api') {
    if (serveStatic(req, res, url)) return;
    return send(res, 404, { error: `no page ${url.pathname.slice(0, 200)}` });
  }
  await route(api, req, res, url, (status, body) => send(res, status, body));
}

/**
 * Connections on which a request asked for "close". Node's parser goes on reading requests
 * pipelined after it and hands them over, although RFC 9112 §9.6 says a server must not
 * process them: such a request would change the store and never be answered.
 */
const closing = new WeakSet<object>();
/** Requests being answered per connection, and connections to end once they are. */
const inFlight = new WeakMap<object, number>();
const endWhenAnswered = new WeakSet<net.Socket>();

/** The request handler, with the guard that keeps one request's failure to that request. */
export function apiHandler(api: ApiActions): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (req, res) => {
    if (closing.has(req.socket)) {
      req.socket.destroy();
      return;
    }
    if (/(^|,)\s*close\s*(,|$)/i.test(String(req.headers.connection ?? ''))) closing.add(req.socket);
    const socket = req.socket;
    // A client that ends its side before the body it announced is complete will send no
    // more: node would keep the connection, and the handler waiting for the body, until the
    // request timeout. Close it now.
    const cutShort = (): void => {
      if (!req.complete) socket.destroy();
    };
    if (socket.readableEnded) cutShort();
    socket.once('end', cutShort);
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.once('close', () => {
      socket.off('end', cutShort);
      const left = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, left);
      if (left === 0 && endWhenAnswered.has(socket)) socket.end();
    });
    const failed = (err: unknown): void => {
      if (err instanceof HttpError) return send(res, err.status, { error: err.message });
      // The stack is for the operator's log, never for the client.
      api.log(`http ${String(req.method).slice(0, 16)} ${String(req.url).slice(0, 200)}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      send(res, 500, { error: 'internal error' });
    };
    try {
      handle(api, req, res).catch(failed);
    } catch (err) {
      failed(err);
    }
  };
}

/**
 * What node's parser refuses (a malformed request line or header) gets a 400 with the same
 * headers as every other answer, and the connection closes.
 */
function onClientError(err: NodeJS.ErrnoException, socket: net.Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  if ((inFlight.get(socket) ?? 0) > 0) {
    // Bad bytes after a good request: answering them now would put this 400 ahead of the
    // good request's answer (which the client would take for it). Answer that one, then close.
    endWhenAnswered.add(socket);
    closing.add(socket);
    return;
  }
  const body = JSON.stringify({ error: 'malformed HTTP request' });
  const head = [
    'HTTP/1.1 400 Bad Request',
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    `content-security-policy: ${API_CSP}`,
    ...Object.entries(COMMON_HEADERS).map(([k, v]) => `${k}: ${v}`),
    'connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

export async function startHttp(
  api: ApiActions,
  opts: { host: string; port: number; tls?: { cert: Buffer; key: Buffer } },
): Promise<HttpServerHandle> {
  const handler = apiHandler(api);
  const options = { requireHostHeader: false };
  const server: http.Server | https.Server = opts.tls ? https.createServer({ ...options, cert: opts.tls.cert, key: opts.tls.key }, handler) : http.createServer(options, handler);
  server.requestTimeout = 30_000;
  server.on('clientError', onClientError);
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
