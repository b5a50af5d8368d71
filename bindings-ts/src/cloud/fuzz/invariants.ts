// What must hold after every batch of the cloud's fuzz suite, whatever the batch sent: the
// service answers (HTTP and MQTT), and the store is consistent (no (stream, seq) twice for a
// device, message ids unique and increasing).
import * as assert from 'node:assert/strict';
import { DeviceClient, MemoryStorage } from '../deviceClient';
import { rawHttp, RawResult, requestBytes } from '../rawHttp';
import type { Cloud, DeviceCredentials } from '../service';
import type { StoredEvent } from '../store';

/** Every event of a device, all pages. */
export async function allEvents(cloud: Cloud, id: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await cloud.store.events(id, { limit: 1000, before });
    out.push(...page.events);
    if (page.next === undefined) return out;
    before = page.next;
  }
}

/** The store's invariants for every device. */
export async function checkStore(cloud: Cloud): Promise<void> {
  for (const d of await cloud.store.listDevices()) {
    const events = await allEvents(cloud, d.id);
    const keys = new Set(events.map((e) => `${e.stream}/${e.seq}`));
    assert.equal(keys.size, events.length, `${d.id}: an event stored twice`);
    assert.equal(d.events, events.length, `${d.id}: the device's count and its events differ`);
    const ids = (await cloud.store.messages(d.id)).map((m) => m.id);
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], `${d.id}: message ids not increasing`);
  }
}

/** The service is alive: the API answers, and a device syncs an event end to end. */
export async function checkAlive(cloud: Cloud, control: DeviceCredentials, tag: string): Promise<void> {
  const port = Number(new URL(cloud.httpUrl).port);
  const r = await rawHttp(port, requestBytes('GET', '/api/devices', { authorization: `Bearer ${cloud.token}` }));
  assert.ok(r.ok && r.answer.status === 200, `${tag}: the API does not answer`);
  const d = new DeviceClient({ id: control.id, password: control.password, url: cloud.mqttUrl, storage: new MemoryStorage(), timeoutMs: 5000 });
  d.enqueue('alive', { tag }, { volatile: false });
  const s = await d.sync();
  assert.equal(s.acked, 1, `${tag}: the control device's sync`);
}

const STATUS = new Set([200, 201, 400, 401, 404, 405, 409, 413, 415]);

/**
 * A well-formed answer: one of the API's statuses (never 5xx), JSON with an `error` text for
 * refusals, the security headers. Returns a description of what is wrong, if anything.
 */
export function answerProblem(r: RawResult): string | undefined {
  if (!r.ok) return `no well-formed answer: ${r.why}`;
  const a = r.answer;
  if (!STATUS.has(a.status)) return `status ${a.status}`;
  if (!/frame-ancestors 'none'/.test(a.headers['content-security-policy'] ?? '')) return 'no frame-ancestors';
  if (a.headers['x-frame-options'] !== 'DENY') return 'no X-Frame-Options';
  if (a.headers['x-content-type-options'] !== 'nosniff') return 'no nosniff';
  // The page's files (HTML, script, style) are the only answers that are not JSON.
  if (a.status === 200 && /^text\/(html|javascript|css);/.test(a.headers['content-type'] ?? '')) return undefined;
  if (a.body === '' && a.headers['content-length'] !== undefined) return undefined; // HEAD
  let json: unknown;
  try {
    json = JSON.parse(a.body);
  } catch {
    return `body is not JSON: ${a.body.slice(0, 80)}`;
  }
  if (a.status >= 400 && typeof (json as { error?: unknown }).error !== 'string') return 'a refusal without an error text';
  if (/\n\s+at /.test(a.body)) return 'a stack trace in the answer';
  return undefined;
}
