// A webhook receiver for the tests: a node http server that checks each POST's signature as the
// docs tell receivers to, keeps what it got, counts how many requests for one idempotency key
// are in its hands at once, and answers as the test says (200, an error status, a redirect, or
// never).
import * as crypto from 'crypto';
import * as http from 'http';
import type * as net from 'net';
import Ajv from 'ajv';
import type { WebhookBody } from '../src/cloud/webhooks';

export type Answer = number | 'hang' | { redirect: string } | { status: number; afterMs: number };

export interface Received {
  key: string;
  body: WebhookBody;
  raw: string;
  signatureOk: boolean;
  /** Seconds between the signature's timestamp and the arrival. */
  age: number;
  attempt: number;
  webhookId: string;
  at: number;
}

export interface Receiver {
  url: string;
  /** The webhook's secret, once the test has it: the signature is checked with it. */
  secret: string;
  /** Every request, in arrival order (also those not answered 2xx). */
  requests: Received[];
  /** Bodies that did not match BODY_SCHEMA, with ajv's errors. */
  invalid: string[];
  /** Requests answered 2xx. */
  accepted(): Received[];
  /** The most requests for one idempotency key in the receiver's hands at one time. */
  maxConcurrentPerKey: number;
  /** How to answer the n-th request (from 1) for a key; default 200. */
  answer: (r: Received, n: number) => Answer;
  close(): Promise<void>;
}

/** The body's JSON schema: the maker's event shape plus where the event is from. */
export const BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'payload', 'enqueuedAt', 'identifier', 'deviceId', 'stream', 'seq', 'variable'],
  properties: {
    type: { type: 'string', minLength: 1, maxLength: 30 },
    payload: {},
    enqueuedAt: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' },
    identifier: { type: 'string', pattern: '^[0-9a-f]+$' },
    deviceId: { type: 'string', pattern: '^[0-9a-f]+$' },
    stream: { type: 'integer', minimum: 0 },
    seq: { type: 'integer', minimum: 1 },
    variable: { type: 'boolean' },
  },
};

const validate = new Ajv({ allErrors: true }).compile(BODY_SCHEMA);

/** The receiver's side of docs/cloud.md's verification example. */
export function verify(secret: string, header: string | undefined, raw: string, nowS = Math.floor(Date.now() / 1000)): { ok: boolean; age: number } {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!m) return { ok: false, age: NaN };
  const want = crypto.createHmac('sha256', secret).update(`${m[1]}.${raw}`).digest();
  const ok = crypto.timingSafeEqual(want, Buffer.from(m[2], 'hex'));
  return { ok, age: nowS - Number(m[1]) };
}

export async function startReceiver(answer: Receiver['answer'] = () => 200): Promise<Receiver> {
  const active = new Map<string, number>();
  const counts = new Map<string, number>();
  const accepted = new Set<Received>();
  const sockets = new Set<net.Socket>();
  const r: Receiver = {
    url: '',
    secret: '',
    requests: [],
    invalid: [],
    accepted: () => r.requests.filter((x) => accepted.has(x)),
    maxConcurrentPerKey: 0,
    answer,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const key = String(req.headers['beacon-idempotency-key']);
      const body = JSON.parse(raw) as WebhookBody;
      if (!validate(body)) r.invalid.push(`${raw.slice(0, 200)}: ${JSON.stringify(validate.errors)}`);
      const sig = verify(r.secret, req.headers['beacon-signature'] as string | undefined, raw);
      const got: Received = { key, body, raw, signatureOk: sig.ok, age: sig.age, attempt: Number(req.headers['beacon-attempt']), webhookId: String(req.headers['beacon-webhook-id']), at: Date.now() };
      r.requests.push(got);
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      const now = (active.get(key) ?? 0) + 1;
      active.set(key, now);
      r.maxConcurrentPerKey = Math.max(r.maxConcurrentPerKey, now);
      // In hand until the answer is sent or the cloud gives up on the connection.
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        active.set(key, (active.get(key) ?? 1) - 1);
      };
      res.on('close', release);
      const a = r.answer(got, n);
      if (a === 'hang') return;
      if (typeof a === 'object' && 'redirect' in a) {
        res.writeHead(302, { location: a.redirect });
        res.end();
        return;
      }
      const reply = (status: number): void => {
        if (status >= 200 && status < 300) accepted.add(got);
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(status >= 200 && status < 300 ? 'ok' : `receiver says no (${status})`);
      };
      // A slow receiver widens the window in which a second attempt could overlap the first.
      if (typeof a === 'object') setTimeout(() => reply(a.status), a.afterMs);
      else reply(a);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  r.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
  return r;
}
