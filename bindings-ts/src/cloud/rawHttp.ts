// HTTP/1.1 by hand, for tests and the fuzz suite: fetch and node's client normalise or refuse
// the request targets and headers a hostile client sends (`//[`, `%`, bare CR), so the bytes
// go out exactly as given and the answer is parsed strictly enough to notice a malformed one.
import * as net from 'net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What came back: an answer, or why there was none (the connection closed, nothing parsed). */
export type RawResult = { ok: true; answer: RawAnswer } | { ok: false; why: string; bytes: number };

/** Parse one HTTP/1.1 response (status line, headers, a body of content-length bytes). */
export function parseAnswer(buf: Buffer, head = false): RawAnswer | string {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return `no end of headers in ${buf.length} bytes`;
  const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.1 (\d{3}) [^\r\n]*$/.exec(lines[0]);
  if (!m) return `bad status line '${lines[0].slice(0, 60)}'`;
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i <= 0) return `bad header line '${line.slice(0, 60)}'`;
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  const rest = buf.subarray(end + 4);
  const length = headers['content-length'];
  // An answer to HEAD has no body, except the server's answer to a request line it could not
  // parse (it cannot know the method was HEAD).
  const n = length === undefined ? rest.length : head && rest.length !== Number(length) ? 0 : Number(length);
  if (!(n <= rest.length)) return `content-length ${length} but ${rest.length} bytes`;
  // Bytes after the body: answers to further requests sent on the same connection (a
  // pipelined or a mutated one), each of which must be well-formed too.
  if (n < rest.length) {
    const next = parseAnswer(rest.subarray(n));
    if (typeof next === 'string') return `after the first answer: ${next}`;
  }
  return { status: Number(m[1]), headers, body: rest.subarray(0, n).toString('utf8') };
}

/**
 * Send `request` as it is on a new connection and read the answer. A complete request is
 * answered while the connection stays open (node's server drops an answer to a client that
 * half-closed first), and the answer is taken once its body is in, plus a moment for any
 * further answers (to pipelined bytes); a request cut short is followed by the end of the
 * sending half, so the server sees it as such at once rather than after its timeout.
 */
export function rawHttp(port: number, request: Buffer | string, timeoutMs = 10_000): Promise<RawResult> {
  const bytes = typeof request === 'string' ? Buffer.from(request, 'latin1') : request;
  const head = /^HEAD /.test(bytes.toString('latin1', 0, 5));
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    let grace: NodeJS.Timeout | undefined;
    const finish = (why?: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(grace);
      s.destroy();
      const buf = Buffer.concat(chunks);
      if (why !== undefined && buf.length === 0) return resolve({ ok: false, why, bytes: 0 });
      const a = parseAnswer(buf, head);
      resolve(typeof a === 'string' ? { ok: false, why: a, bytes: buf.length } : { ok: true, answer: a });
    };
    const timer = setTimeout(() => finish('no answer in time'), timeoutMs);
    s.on('data', (d: Buffer) => {
      chunks.push(d);
      if (grace === undefined && typeof parseAnswer(Buffer.concat(chunks), head) !== 'string') grace = setTimeout(() => finish(), 30);
    });
    s.on('end', () => finish());
    s.on('close', () => finish('closed without an answer'));
    s.on('error', (err) => finish(err.message));
    s.on('connect', () => (completeRequest(bytes) ? s.write(bytes) : s.end(bytes)));
  });
}

/** A request's bytes: the request line as given, then headers and an optional body. */
export function requestBytes(method: string, target: string, headers: Record<string, string>, body?: string): Buffer {
  const h = { host: '127.0.0.1', connection: 'close', ...headers } as Record<string, string>;
  if (body !== undefined) h['content-length'] = String(Buffer.byteLength(body));
  const head = `${method} ${target} HTTP/1.1\r\n${Object.entries(h)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body ?? '', 'utf8')]);
}

/**
 * Whether `request` is complete as HTTP/1.1 frames it: the head ends, and as many body bytes
 * follow as content-length says. A server can only close a connection on an incomplete one.
 */
export function completeRequest(request: Buffer): boolean {
  const end = request.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const m = /\r\ncontent-length:[ \t]*([0-9]+)[ \t]*\r\n/i.exec(request.subarray(0, end + 2).toString('latin1'));
  return m === null || request.length - end - 4 >= Number(m[1]);
}
