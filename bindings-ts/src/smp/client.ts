// An SMP client over any transport: numbered requests, answers matched by sequence, group and
// command, a timeout per try and retries that resend the same packet (same sequence number, so
// a late answer to the first try still counts and a duplicate is ignored).
import { SmpBody } from './cbor';
import { SmpError, SmpTimeoutError } from './errors';
import { decodePacket, encodePacket, Op, SmpPacket, SmpVersion } from './header';
import { SmpTransport } from './transport';

export interface RequestOptions {
  /** Per try, in milliseconds. */
  timeoutMs?: number;
  /** Tries after the first. */
  retries?: number;
}

export interface ClientOptions extends RequestOptions {
  /** Header version: SmpVersion.V2 (default) or V1. */
  version?: number;
  /** Called before each retry, with the try number (1 for the first retry). */
  onRetry?: (attempt: number, what: string) => void;
}

interface Pending {
  group: number;
  command: number;
  op: number;
  resolve: (p: SmpPacket) => void;
  reject: (e: Error) => void;
}

export class SmpClient {
  private seq = Math.floor(Math.random() * 256);
  private readonly pending = new Map<number, Pending>();
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly version: number;
  private linkError: Error | undefined;
  requests = 0;
  retried = 0;

  constructor(
    readonly transport: SmpTransport,
    private readonly opts: ClientOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 2000;
    this.retries = opts.retries ?? 3;
    this.version = opts.version ?? SmpVersion.V2;
    transport.onPacket((bytes) => this.receive(bytes));
    transport.onError((err) => {
      this.linkError = err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    });
  }

  private receive(bytes: Uint8Array): void {
    let packet: SmpPacket;
    try {
      packet = decodePacket(bytes);
    } catch {
      return; // not an answer we can read; the request's timeout deals with it
    }
    const h = packet.header;
    const p = this.pending.get(h.seq);
    if (!p || h.group !== p.group || h.command !== p.command || h.op !== p.op + 1) return;
    this.pending.delete(h.seq);
    p.resolve(packet);
  }

  /** Send a request and return the answer's body, without looking at rc/err. */
  async requestRaw(op: number, group: number, command: number, body: SmpBody, o: RequestOptions = {}): Promise<SmpBody> {
    if (this.linkError) throw this.linkError;
    const seq = (this.seq = (this.seq + 1) & 0xff);
    const packet = encodePacket({ version: this.version, op, group, seq, command }, body);
    const timeoutMs = o.timeoutMs ?? this.timeoutMs;
    const retries = o.retries ?? this.retries;
    const answer = new Promise<SmpPacket>((resolve, reject) => {
      this.pending.set(seq, { group, command, op, resolve, reject });
    });
    answer.catch(() => {}); // handled below; keeps an early link error from going unhandled
    this.requests++;
    try {
      for (let attempt = 0; attempt <= retries; attempt++) {
        if (attempt > 0) {
          this.retried++;
          this.opts.onRetry?.(attempt, `group ${group} command ${command}`);
        }
        await this.transport.send(packet);
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), timeoutMs);
        });
        const r = await Promise.race([answer, timeout]).finally(() => clearTimeout(timer));
        if (r !== 'timeout') return r.body;
      }
    } catch (err) {
      this.pending.delete(seq);
      throw err;
    }
    this.pending.delete(seq);
    throw new SmpTimeoutError(
      `no answer from ${this.transport.description} after ${retries + 1} tr${retries === 0 ? 'y' : 'ies'} of ${timeoutMs} ms`,
    );
  }

  /** Send a request; an error answer (rc other than 0, or err) throws SmpError. */
  async request(op: number, group: number, command: number, body: SmpBody, o: RequestOptions = {}): Promise<SmpBody> {
    const rsp = await this.requestRaw(op, group, command, body, o);
    const msg = typeof rsp.msg === 'string' ? rsp.msg : undefined;
    const err = rsp.err as { group?: unknown; rc?: unknown } | undefined;
    if (err && typeof err === 'object' && typeof err.group === 'number' && typeof err.rc === 'number' && err.rc !== 0) {
      throw new SmpError(typeof rsp.rc === 'number' ? rsp.rc : 0, err.group, err.rc, msg);
    }
    if (typeof rsp.rc === 'number' && rsp.rc !== 0) throw new SmpError(rsp.rc, undefined, undefined, msg);
    return rsp;
  }

  read(group: number, command: number, body: SmpBody = {}, o?: RequestOptions): Promise<SmpBody> {
    return this.request(Op.READ, group, command, body, o);
  }

  write(group: number, command: number, body: SmpBody = {}, o?: RequestOptions): Promise<SmpBody> {
    return this.request(Op.WRITE, group, command, body, o);
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}
