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
  const body = buf.subarray(end + 4);
  const length = headers['content-length'];
  if (length !== undefined && !head && Number(length) !== body.length) return `content-length ${length} but ${body.length} bytes`;
  return { status: Number(m[1]), headers, body: body.toString('utf8') };
}

/** Send `request` as it is on a new connection and read until the server closes it. */
export function rawHttp(port: number, request: Buffer | string, timeoutMs = 10_000): Promise<RawResult> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (why?: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      const buf = Buffer.concat(chunks);
      if (why !== undefined && buf.length === 0) return resolve({ ok: false, why, bytes: 0 });
      const a = parseAnswer(buf, /^HEAD /.test(request.toString('latin1', 0, 5)));
      resolve(typeof a === 'string' ? { ok: false, why: a, bytes: buf.length } : { ok: true, answer: a });
    };
    const timer = setTimeout(() => finish('no answer in time'), timeoutMs);
    s.on('data', (d: Buffer) => chunks.push(d));
    s.on('end', () => finish());
    s.on('close', () => finish('closed without an answer'));
    s.on('error', (err) => finish(err.message));
    s.on('connect', () => s.write(request));
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
