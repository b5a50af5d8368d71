// Requests for the HTTP side of the fuzz suite, from the API's grammar (its routes, methods,
// query parameters, headers and bodies, each part either valid or a hostile variant of it)
// and from byte-level mutation of recorded good requests. fast-check generates and shrinks
// them: a failure is reported as the smallest request that still fails.
import fc from 'fast-check';
import { requestBytes } from '../rawHttp';

/** What a generated request needs to know about the cloud it is sent to. */
export interface HttpTarget {
  token: string;
  /** Devices that exist, so that routes below them are reached. */
  devices: string[];
}

const METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'get', 'X'];

// Path segments that broke parsers elsewhere: empty, dots, lone and bad percent escapes,
// brackets and colons (an authority to a URL parser), overlong ids, NUL and non-ASCII.
const HOSTILE_SEGMENTS = ['', '.', '..', '%', '%2', '%E0%A4%A', '%ZZ', '%00', '[', ']', 'a:99999', '@', '%2F', '%2e%2e', 'ü', '😀', 'x'.repeat(300), '0'.repeat(66), 'AB', 'ab'];

function segmentArb(t: HttpTarget): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom('api', 'devices', 'events', 'variables', 'messages', ...t.devices),
    fc.constantFrom(...HOSTILE_SEGMENTS),
    fc.integer({ min: -2, max: 99 }).map(String),
    fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s)),
  );
}

/** A path from the route grammar: /api/devices[/<id>[/<what>[/<mid>]]], with hostile parts. */
function pathArb(t: HttpTarget): fc.Arbitrary<string> {
  const id = fc.oneof(fc.constantFrom(...t.devices), segmentArb(t));
  const what = fc.oneof(fc.constantFrom('events', 'variables', 'messages'), segmentArb(t));
  const routed = fc.tuple(id, what, segmentArb(t), fc.integer({ min: 1, max: 4 })).map(([i, w, m, n]) => ['/api/devices', i, w, m].slice(0, n).join('/'));
  const odd = fc.constantFrom('//[', '//a:99999/', '//%', 'http://[/', '*', '/', '/index.html', '/app.js', '/api', '/api/', 'http://127.0.0.1/api/devices', '/api//devices', '/api/devices/');
  const free = fc.array(segmentArb(t), { maxLength: 6 }).map((s) => `/${s.join('/')}`);
  return fc.oneof({ weight: 4, arbitrary: routed }, { weight: 2, arbitrary: odd }, { weight: 1, arbitrary: free });
}

function queryArb(): fc.Arbitrary<string> {
  const limit = fc.constantFrom('1', '50', '1000', '0', '1001', '1e3', '0x10', '-1', '', '5.0', '%205', '+5', '050', '99999999999999999999');
  const before = fc.constantFrom('1.1', '99999999999999999.1', 'zz', '', '%', '1767225600000.42');
  const type = fc.string({ maxLength: 40 }).map(encodeURIComponent);
  return fc
    .record({ limit: fc.option(limit), before: fc.option(before), type: fc.option(type), junk: fc.option(fc.constantFrom('&&', '=', '%', 'a=%E0%A4%A')) })
    .map((q) => {
      const parts = Object.entries(q)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => (k === 'junk' ? String(v) : `${k}=${String(v)}`));
      return parts.length > 0 ? `?${parts.join('&')}` : '';
    });
}

/** JSON values the message route sees: ordinary ones, deep ones, and other shapes. */
function payloadArb(): fc.Arbitrary<unknown> {
  const deep = fc.integer({ min: 25, max: 40 }).map((n) => {
    let v: unknown = 0;
    for (let i = 0; i < n; i++) v = i % 2 ? [v] : { k: v };
    return v;
  });
  return fc.oneof(fc.jsonValue({ maxDepth: 4 }), deep, fc.string({ maxLength: 9000 }));
}

function bodyArb(t: HttpTarget): fc.Arbitrary<string | undefined> {
  const message = fc.record({ type: fc.oneof(fc.string({ maxLength: 34 }), fc.integer(), fc.constant(null)), payload: payloadArb() }, { requiredKeys: [] }).map((b) => JSON.stringify(b));
  const device = fc.oneof(fc.constantFrom(...t.devices).map((id) => id.toUpperCase()), fc.string({ maxLength: 70 })).map((id) => JSON.stringify({ id }));
  const deepText = fc.integer({ min: 100, max: 20_000 }).map((n) => `{"type":"x","payload":${'['.repeat(n)}${']'.repeat(n)}}`);
  const junk = fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('{', '[]', 'null', '{"type": "x", ', '\u0000', '{"__proto__": {"type": "x"}}'));
  return fc.option(fc.oneof({ weight: 4, arbitrary: message }, { weight: 1, arbitrary: device }, { weight: 1, arbitrary: deepText }, { weight: 2, arbitrary: junk }), { freq: 3 }).map((b) => b ?? undefined);
}

function headersArb(t: HttpTarget): fc.Arbitrary<Record<string, string>> {
  const auth = fc.constantFrom(`Bearer ${t.token}`, `Bearer ${t.token}`, `Bearer ${t.token}`, 'Bearer wrong', 'Bearer ', `Basic ${t.token}`, `bearer ${t.token}`, undefined);
  const type = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/jsonx', undefined);
  return fc.record({ auth, type }).map(({ auth: a, type: ct }) => {
    const h: Record<string, string> = {};
    if (a !== undefined) h.authorization = a;
    if (ct !== undefined) h['content-type'] = ct;
    return h;
  });
}

/** A whole request from the grammar: method, target, headers, body, as bytes. */
export function requestArb(t: HttpTarget): fc.Arbitrary<Buffer> {
  return fc
    .tuple(fc.constantFrom(...METHODS), pathArb(t), queryArb(), headersArb(t), bodyArb(t))
    .map(([method, p, q, headers, body]) => requestBytes(method, p + q, headers, body));
}

/** Recorded good requests, the seeds of byte-level mutation. */
export function goodRequests(t: HttpTarget): Buffer[] {
  const auth = { authorization: `Bearer ${t.token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const id = t.devices[0];
  return [
    requestBytes('GET', '/api/devices', auth),
    requestBytes('GET', `/api/devices/${id}/events?type=temp&limit=20`, auth),
    requestBytes('POST', `/api/devices/${id}/messages`, json, JSON.stringify({ type: 'config', payload: { period: 600, on: [true, null, 1.5] } })),
    requestBytes('DELETE', `/api/devices/${id}/messages/1`, auth),
    requestBytes('GET', '/', {}),
  ];
}

/** One edit of a request's bytes. */
const editArb = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ op: fc.constant('set' as const), at: fc.nat(), byte: fc.constantFrom(0x00, 0x0a, 0x0d, 0x20, 0x25, 0x2f, 0x3a, 0x5b, 0x7f, 0xff, 0xe0) }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), n: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ op: fc.constant('repeat' as const), at: fc.nat(), n: fc.integer({ min: 1, max: 40 }), times: fc.integer({ min: 2, max: 200 }) }),
);
export type Edit = typeof editArb extends fc.Arbitrary<infer T> ? T : never;

/** Apply edits to bytes (positions taken modulo the current length). */
export function mutate(buf: Buffer, edits: Edit[]): Buffer {
  let b = Buffer.from(buf);
  for (const e of edits) {
    if (b.length === 0) break;
    const at = e.at % b.length;
    switch (e.op) {
      case 'flip':
        b[at] ^= 1 << e.bit;
        break;
      case 'set':
        b[at] = e.byte;
        break;
      case 'insert':
        b = Buffer.concat([b.subarray(0, at), Buffer.from(e.bytes), b.subarray(at)]);
        break;
      case 'delete':
        b = Buffer.concat([b.subarray(0, at), b.subarray(at + e.n)]);
        break;
      case 'repeat': {
        const piece = b.subarray(at, at + e.n);
        b = Buffer.concat([b.subarray(0, at), ...Array<Buffer>(e.times).fill(piece), b.subarray(at + e.n)]);
        break;
      }
    }
  }
  return b;
}

/** A good request with 1 to 4 edits. */
export function mutatedRequestArb(t: HttpTarget): fc.Arbitrary<Buffer> {
  return fc.tuple(fc.constantFrom(...goodRequests(t)), fc.array(editArb, { minLength: 1, maxLength: 4 })).map(([b, edits]) => mutate(b, edits));
}

export { editArb };
