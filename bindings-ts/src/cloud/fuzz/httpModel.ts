// Model-based testing of the HTTP API with fast-check: sequences of commands (issue, revoke,
// post, withdraw and list messages, read a device, sync it over MQTT) run against the real
// cloud and against a small model of what the API promises (docs/cloud.md). After each command
// the answer must be the model's, and what the store holds must match it: in particular, a
// refused request leaves no message behind and a withdrawn message never reaches the device.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { DeviceClient, MemoryStorage } from '../deviceClient';
import { LIMITS, payloadSize } from '../protocol';
import { RawAnswer, rawHttp, requestBytes } from '../rawHttp';
import type { Cloud } from '../service';
import { answerProblem } from './invariants';

interface MessageModel {
  id: number;
  type: string;
  payload: unknown;
  delivered: boolean;
}

interface DeviceModel {
  password: string;
  revoked: boolean;
  messages: MessageModel[];
  nextId: number;
  events: number;
}

export interface ApiModel {
  devices: Map<string, DeviceModel>;
}

export interface ApiReal {
  cloud: Cloud;
  port: number;
  /** The device ids this run uses (fresh per run, so the model starts empty). */
  ids: string[];
  /** Requests sent, for the figures. */
  counter: { requests: number };
}

async function call(r: ApiReal, method: string, target: string, body?: unknown): Promise<{ status: number; json: unknown; answer: RawAnswer }> {
  const headers: Record<string, string> = { authorization: `Bearer ${r.cloud.token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await rawHttp(r.port, requestBytes(method, target, headers, body === undefined ? undefined : JSON.stringify(body)));
  r.counter.requests++;
  const problem = answerProblem(res);
  assert.equal(problem, undefined, `${method} ${target}: ${problem}`);
  if (!res.ok) throw new Error('unreachable');
  return { status: res.answer.status, json: JSON.parse(res.answer.body), answer: res.answer };
}

/** Nesting depth, and whether an integer beyond 2^53 - 1 is inside (iterative: the generator can nest deep). */
function shape(v: unknown): { depth: number; unsafe: boolean } {
  let depth = 0;
  let unsafe = false;
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length > 0) {
    const [x, d] = stack.pop() as [unknown, number];
    if (typeof x === 'number' && Number.isInteger(x) && !Number.isSafeInteger(x)) unsafe = true;
    if (x === null || typeof x !== 'object') continue;
    depth = Math.max(depth, d + 1);
    for (const y of Object.values(x as object)) stack.push([y, d + 1]);
  }
  return { depth, unsafe };
}

/** Whether the API must take this message (docs/cloud.md, docs/cloud-protocol.md §5). */
function acceptable(type: unknown, payload: unknown): boolean {
  if (typeof type !== 'string') return false;
  const chars = [...type].length;
  if (chars < 1 || chars > LIMITS.typeChars) return false;
  const p = payload === undefined ? null : payload;
  const { depth, unsafe } = shape(p);
  if (depth > LIMITS.payloadDepth || unsafe) return false;
  return payloadSize(p as never) <= LIMITS.payloadBytes;
}

type Cmd = fc.AsyncCommand<ApiModel, ApiReal>;

class Issue implements Cmd {
  constructor(readonly which: number) {}
  check(): boolean {
    return true;
  }
  async run(m: ApiModel, r: ApiReal): Promise<void> {
    const id = r.ids[this.which];
    const { status, json } = await call(r, 'POST', '/api/devices', { id: id.toUpperCase() });
    assert.equal(status, 201);
    const c = json as { id: string; password: string };
    assert.equal(c.id, id);
    const d = m.devices.get(id);
    if (d) Object.assign(d, { password: c.password, revoked: false });
    else m.devices.set(id, { password: c.password, revoked: false, messages: [], nextId: 1, events: 0 });
  }
  toString(): string {
    return `issue(${this.which})`;
  }
}

class Revoke implements Cmd {
  constructor(readonly which: number) {}
  check(): boolean {
    return true;
  }
  async run(m: ApiModel, r: ApiReal): Promise<void> {
    const id = r.ids[this.which];
    const { status } = await call(r, 'DELETE', `/api/devices/${id}`);
    const d = m.devices.get(id);
    assert.equal(status, d ? 200 : 404);
    if (d) d.revoked = true;
  }
  toString(): string {
    return `revoke(${this.which})`;
  }
}

class Post implements Cmd {
  constructor(
    readonly which: number,
    readonly body: { type?: unknown; payload?: unknown },
  ) {}
  check(): boolean {
    return true;
  }
  async run(m: ApiModel, r: ApiReal): Promise<void> {
    const id = r.ids[this.which];
    const sent = JSON.parse(JSON.stringify(this.body)) as { type?: unknown; payload?: unknown };
    const { status, json } = await call(r, 'POST', `/api/devices/${id}/messages`, sent);
    const d = m.devices.get(id);
    if (!d) return assert.equal(status, 404);
    if (!acceptable(sent.type, sent.payload)) return assert.equal(status, 400, JSON.stringify(json));
    assert.equal(status, 201, JSON.stringify(json));
    assert.equal((json as { id: number }).id, d.nextId);
    d.messages.push({ id: d.nextId++, type: sent.type as string, payload: sent.payload ?? null, delivered: false });
  }
  toString(): string {
    return `post(${this.which}, ${JSON.stringify(this.body).slice(0, 120)})`;
  }
}

class Withdraw implements Cmd {
  constructor(
    readonly which: number,
    readonly mid: number,
  ) {}
  check(): boolean {
    return true;
  }
  async run(m: ApiModel, r: ApiReal): Promise<void> {
    const id = r.ids[this.which];
    const { status } = await call(r, 'DELETE', `/api/devices/${id}/messages/${this.mid}`);
    const d = m.devices.get(id);
    const msg = d?.messages.find((x) => x.id === this.mid);
    if (!msg) return assert.equal(status, 404);
    if (msg.delivered) return assert.equal(status, 409);
    assert.equal(status, 200);
    if (d) d.messages = d.messages.filter((x) => x !== msg);
  }
  toString(): string {
    return `withdraw(${this.which}, ${this.mid})`;
  }
}

class List implements Cmd {
  constructor(readonly which: number) {}
  check(): boolean {
    return true;
  }
  async run(m: ApiModel, r: ApiReal): Promise<void> {
    const id = r.ids[this.which];
    const d = m.devices.get(id);
    const list = await call(r, 'GET', `/api/devices/${id}/messages`);
    const one = await call(r, 'GET', `/api/devices/${id}`);
    if (!d) {
      assert.equal(list.status, 404);
      return assert.equal(one.status, 404);
    }
    const got = (list.json as { messages: { id: number; type: string; payload: unknown; delivered?: number }[] }).messages;
    assert.deepEqual(
      got.map((x) => [x.id, x.type, x.payload, x.delivered !== undefined]),
      d.messages.map((x) => [x.id, x.type, x.payload, x.delivered]),
    );
    const dev = one.json as { revoked: boolean; events: number; pendingMessages: number };
    assert.equal(dev.revoked, d.revoked);
    assert.equal(dev.events, d.events);
    assert.equal(dev.pendingMessages, d.messages.filter((x) => !x.delivered).length);
  }
  toString(): string {
    return `list(${this.which})`;
  }
}

class Sync implements Cmd {
  constructor(
    readonly which: number,
    readonly events: number,
  ) {}
  check(m: Readonly<ApiModel>): boolean {
    return m.devices.size > 0;
  }
  async run(m: ApiModel, r: ApiReal): Promise<void> {
    const id = r.ids[this.which];
    const d = m.devices.get(id);
    const dev = new DeviceClient({ id, password: d?.password ?? 'none', url: r.cloud.mqttUrl, storage: new MemoryStorage(), timeoutMs: 5000 });
    const got: unknown[] = [];
    dev.onReceive((msg) => got.push(msg.payload));
    for (let i = 0; i < this.events; i++) dev.enqueue('fuzz', { i }, { volatile: false });
    if (!d || d.revoked) {
      await assert.rejects(dev.sync(), /Bad username or password|Not authorized/);
      return;
    }
    assert.equal((await dev.sync()).acked, this.events);
    assert.deepEqual(got, d.messages.filter((x) => !x.delivered).map((x) => x.payload));
    for (const x of d.messages) x.delivered = true;
    d.events += this.events;
  }
  toString(): string {
    return `sync(${this.which}, ${this.events})`;
  }
}

const typeArb = fc.oneof(
  { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 30 }) },
  { weight: 1, arbitrary: fc.constantFrom('', 'x'.repeat(31), '😀'.repeat(30), '😀'.repeat(31)) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.constant(null), fc.constant(undefined)) },
);

function nestedArb(): fc.Arbitrary<unknown> {
  return fc.integer({ min: LIMITS.payloadDepth - 2, max: LIMITS.payloadDepth + 2 }).map((n) => {
    let v: unknown = 'leaf';
    for (let i = 0; i < n; i++) v = i % 2 ? [v] : { k: v };
    return v;
  });
}

const payloadArb = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: nestedArb() },
  { weight: 1, arbitrary: fc.integer({ min: 8180, max: 8200 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** The commands, over `devices` device slots (the last one is never issued). */
export function apiCommands(devices: number): fc.Arbitrary<Iterable<Cmd>> {
  const which = fc.integer({ min: 0, max: devices - 1 });
  const issued = fc.integer({ min: 0, max: devices - 2 });
  return fc.commands(
    [
      issued.map((w) => new Issue(w)),
      which.map((w) => new Revoke(w)),
      fc.tuple(which, typeArb, payloadArb).map(([w, type, payload]) => new Post(w, { type, payload })),
      fc.tuple(which, fc.integer({ min: 1, max: 6 })).map(([w, mid]) => new Withdraw(w, mid)),
      which.map((w) => new List(w)),
      fc.tuple(which, fc.integer({ min: 0, max: 3 })).map(([w, n]) => new Sync(w, n)),
    ],
    { maxCommands: 25 },
  );
}
