// The webhook dispatcher: one in every cloud process. It claims due outbox rows (webhooks.ts),
// POSTs their events one by one, and records each outcome in the store before the next event of
// the row goes out, so that a process killed at any point leaves every event either done or
// still in the outbox (sent again after its lease runs out: at least once, never zero times).
//
// A receiver only ever holds its own deliveries: each webhook has its own limit of requests in
// flight in this process, every request has a deadline, and nothing here runs on the ingest path
// (the core only nudges the dispatcher after a commit, so that a new event goes out at once
// instead of at the next poll).
import * as http from 'http';
import * as https from 'https';
import * as crypto from 'crypto';
import * as os from 'os';
import { CodeSandbox, SANDBOX_DEFAULTS } from './codeSandbox';
import type { Log } from './core';
import { ActiveWebhook, backoff, ClaimedRow, CLI_CODE_URL, IDEMPOTENCY_HEADER, idempotencyKey, signature, SIGNATURE_HEADER, WebhookBody, webhookBody, WebhookStore } from './webhooks';

export interface WebhookOptions {
  /** Deadline of one POST, connection and answer included (default 10 s). */
  timeoutMs?: number;
  /** Requests in flight per webhook in this process (default 8). */
  concurrency?: number;
  /** First retry wait, before jitter; doubles with each failure (default 1 s). */
  retryBaseMs?: number;
  /** Longest wait between two attempts (default 10 min). */
  retryCapMs?: number;
  /** Largest event body POSTed (default 64 KiB); a bigger one is dead-lettered at once. */
  bodyLimit?: number;
  /** How often to look for due deliveries without a nudge (default 500 ms). */
  pollMs?: number;
  /** Deadline of one cloud-code call (default 30 s). */
  codeTimeoutMs?: number;
  /** A cloud-code handler's V8 heap, MB (default 128). */
  codeMemoryMb?: number;
}

export const WEBHOOK_DEFAULTS = {
  timeoutMs: 10_000,
  concurrency: 8,
  retryBaseMs: 1000,
  retryCapMs: 600_000,
  bodyLimit: 64 * 1024,
  pollMs: 500,
  codeTimeoutMs: SANDBOX_DEFAULTS.timeoutMs,
  codeMemoryMb: SANDBOX_DEFAULTS.memoryMb,
};

/** How long the list of webhooks is trusted before it is read again. */
const HOOKS_TTL = 1000;
/** How much of a failed answer's body goes into the reason. */
const REASON_BODY = 200;
/** How much of a successful answer is read before the connection is dropped instead of kept. */
const DRAIN_LIMIT = 64 * 1024;

type Outcome = { ok: true } | { ok: false; reason: string };

function errorReason(err: NodeJS.ErrnoException, timeoutMs: number): string {
  switch (err.code) {
    case 'ETIMEDOUT_BEACON':
      return `timeout: no answer within ${timeoutMs} ms`;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset by the receiver';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host not found (${err.code})`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `host unreachable (${err.code})`;
    default:
      return `${err.code ? `${err.code}: ` : ''}${err.message}`.slice(0, 300);
  }
}

/** One POST with a deadline; redirects are not followed (a 3xx is a failure that says where it pointed). */
export function postOnce(url: URL, body: Buffer, headers: Record<string, string>, timeoutMs: number, agent: http.Agent): Promise<Outcome> {
  return new Promise((resolve) => {
    const lib = url.protocol === 'https:' ? https : http;
    let settled = false;
    const done = (o: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const req = lib.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        done({ ok: true });
        // Read the rest so the connection can be reused, unless the receiver sends a lot.
        let n = 0;
        res.on('data', (c: Buffer) => {
          n += c.length;
          if (n > DRAIN_LIMIT) res.destroy();
        });
        res.on('error', () => undefined);
        return;
      }
      const chunks: Buffer[] = [];
      let n = 0;
      const finish = (): void => {
        const text = Buffer.concat(chunks).toString('utf8').slice(0, REASON_BODY).replace(/\s+/g, ' ').trim();
        if (status >= 300 && status < 400) done({ ok: false, reason: `redirect not followed: HTTP ${status} to ${String(res.headers.location ?? '(no location)').slice(0, 200)}` });
        else done({ ok: false, reason: `HTTP ${status}${text ? `: ${text}` : ''}` });
        res.destroy();
      };
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        n += c.length;
        if (n >= REASON_BODY) finish();
      });
      res.on('end', finish);
      res.on('error', finish);
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT_BEACON' })), timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => done({ ok: false, reason: errorReason(err, timeoutMs) }));
    req.end(body);
  });
}

export class WebhookDispatcher {
  private readonly opts: typeof WEBHOOK_DEFAULTS;
  /** This process's claims carry this name, so a lost lease is noticed and its claims let go at stop. */
  readonly claimer = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  private inFlight = new Map<number, number>();
  private rowsInHand = new Set<number>();
  private running = new Set<Promise<void>>();
  private known = new Set<number>();
  private polling = false;
  private again = false;
  private stopped = false;
  private timer?: NodeJS.Timeout;
  private timerAt = 0;
  private hooks: ActiveWebhook[] = [];
  private hooksAt = -Infinity;
  private lastProblem = '';
  private readonly httpAgent = new http.Agent({ keepAlive: true });
  private readonly httpsAgent = new https.Agent({ keepAlive: true });
  /** The process of each cloud-code rule, made at its first event (codeSandbox.ts). */
  private readonly sandboxes = new Map<number, CodeSandbox>();
  readonly counters = { delivered: 0, failed: 0, dead: 0 };

  constructor(
    private readonly store: WebhookStore,
    private readonly log: Log,
    private readonly now: () => number = Date.now,
    options: WebhookOptions = {},
    private readonly exclusiveStore = false,
  ) {
    this.opts = { ...WEBHOOK_DEFAULTS };
    for (const [k, v] of Object.entries(options) as [keyof WebhookOptions, number | undefined][]) {
      if (v === undefined) continue;
      if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`webhooks: ${k} must be a positive integer, not ${v}`);
      this.opts[k] = v;
    }
  }

  /** Longer than any attempt can take, so a lease only runs out when its holder is gone. */
  private leaseOf(hook: ActiveWebhook): number {
    return 2 * this.deadlineOf(hook) + 5000;
  }

  private deadlineOf(hook: ActiveWebhook): number {
    return hook.code === undefined ? this.opts.timeoutMs : this.opts.codeTimeoutMs;
  }

  async start(): Promise<void> {
    // SQLite serves one process: claims in the file are a killed predecessor's.
    if (this.exclusiveStore) await this.store.releaseClaims(null);
    this.kick();
  }

  /** Look for due deliveries now (after a commit that may have queued some). */
  kick(): void {
    if (this.stopped) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    void this.poll();
  }

  /** Poll again in `ms` at the latest (an earlier wake-up already set stays). */
  private schedule(ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + ms;
    if (this.timer !== undefined && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.hooksAt = -Infinity;
      this.kick();
    }, ms).unref();
  }

  /**
   * The webhooks, read again at most once a second: a nudge after every commit must not cost a
   * query when there is no webhook. A new webhook is seen within a second, by every process.
   */
  private async webhooks(): Promise<ActiveWebhook[]> {
    if (Date.now() - this.hooksAt >= HOOKS_TTL) {
      const hooks = await this.store.activeWebhooks();
      this.hooksAt = Date.now();
      this.forgetRemoved(hooks);
      this.hooks = hooks;
    }
    return this.hooks;
  }

  private problem(what: string): void {
    if (what === this.lastProblem) return;
    this.lastProblem = what;
    if (what !== '') this.log(`webhooks: ${what}; retrying`);
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      do {
        this.again = false;
        for (const hook of await this.webhooks()) {
          const free = this.opts.concurrency - (this.inFlight.get(hook.id) ?? 0);
          if (free <= 0 || this.stopped) continue;
          const now = this.now();
          const rows = await this.store.claim(hook.id, free, now, now + this.leaseOf(hook), this.claimer);
          for (const row of rows) this.start1(hook, row, now + this.leaseOf(hook));
        }
      } while (this.again && !this.stopped);
      this.problem('');
    } catch (err) {
      this.hooksAt = -Infinity;
      this.problem(`cannot read the outbox: ${(err as Error).message}`);
    } finally {
      this.polling = false;
      this.schedule(this.opts.pollMs);
    }
  }

  private forgetRemoved(hooks: readonly ActiveWebhook[]): void {
    const ids = new Set(hooks.map((h) => h.id));
    const gone = [...this.known].filter((id) => !ids.has(id));
    this.known = ids;
    for (const h of hooks) if (h.code !== undefined && this.sandboxes.get(h.id)?.source !== h.code) this.dropSandbox(h.id);
    for (const id of gone) this.dropSandbox(id);
    if (gone.length === 0) return;
    // Now and once an ingest statement that read the webhook before its removal must be over.
    const purge = (): void => void this.store.purgeRemoved(gone).catch(() => undefined);
    purge();
    setTimeout(purge, 60_000).unref();
  }

  private dropSandbox(id: number): void {
    void this.sandboxes.get(id)?.close();
    this.sandboxes.delete(id);
  }

  /** Run a cloud-code rule's handler for one event; what it printed, or why it failed, goes to the rule's log. */
  private async runCode(hook: ActiveWebhook & { code: string }, body: WebhookBody, attempt: number): Promise<Outcome> {
    let sandbox = this.sandboxes.get(hook.id);
    if (sandbox === undefined || sandbox.source !== hook.code) {
      this.dropSandbox(hook.id);
      sandbox = new CodeSandbox(hook.code, hook.url === CLI_CODE_URL ? 'handlers.js' : `rule-${hook.id}.js`, { timeoutMs: this.opts.codeTimeoutMs, memoryMb: this.opts.codeMemoryMb });
      this.sandboxes.set(hook.id, sandbox);
    }
    const r = await sandbox.call(body);
    if (r.output !== '' || !r.ok) {
      const log = { deviceId: body.deviceId, stream: body.stream, seq: body.seq, attempt, at: this.now(), ok: r.ok, output: r.output, ...(r.ok ? {} : { error: r.reason }) };
      await this.store.addCodeLog(hook.id, log).catch((err: Error) => this.problem(`cannot keep cloud code's log: ${err.message}`));
    }
    return r.ok ? { ok: true } : { ok: false, reason: r.reason };
  }

  private start1(hook: ActiveWebhook, row: ClaimedRow, leaseUntil: number): void {
    if (this.rowsInHand.has(row.id)) return;
    this.rowsInHand.add(row.id);
    this.inFlight.set(hook.id, (this.inFlight.get(hook.id) ?? 0) + 1);
    const p = this.runRow(hook, row, leaseUntil)
      .catch((err: Error) => this.problem(`delivery to webhook ${hook.id}: ${err.message}`))
      .finally(() => {
        this.rowsInHand.delete(row.id);
        this.inFlight.set(hook.id, (this.inFlight.get(hook.id) ?? 1) - 1);
        this.running.delete(p);
        // A slot is free, and the device's next row may now be the oldest.
        this.kick();
      });
    this.running.add(p);
  }

  /** Deliver a row's events in order, until one fails (retried later) or the row is done. */
  private async runRow(hook: ActiveWebhook, row: ClaimedRow, claimedUntil: number): Promise<void> {
    const events = await this.store.outboxEvents(row);
    const url = hook.code === undefined ? new URL(hook.url) : undefined;
    const agent = url?.protocol === 'https:' ? this.httpsAgent : this.httpAgent;
    const lease = this.leaseOf(hook);
    const deadline = this.deadlineOf(hook);
    let pos = row.pos;
    let attempts = row.attempts;
    let failingSince = row.failingSince;
    let leaseUntil = claimedUntil;
    while (pos < row.seqs.length && !this.stopped) {
      const ev = events[pos];
      const moveOn = (): void => {
        pos++;
        attempts = 0;
        failingSince = undefined;
      };
      if (ev === undefined) {
        // Pruned (retention) before it went out: nothing left to send.
        if (!(await this.store.advance(row, this.claimer, pos + 1, this.now() + lease))) return;
        leaseUntil = this.now() + lease;
        moveOn();
        continue;
      }
      const event = webhookBody(row.deviceId, row.stream, ev);
      const body = Buffer.from(JSON.stringify(event));
      if (body.length > this.opts.bodyLimit) {
        // It can never go out: no retries.
        const reason = `body of ${body.length} bytes over the ${this.opts.bodyLimit}-byte limit`;
        if (!(await this.store.deadLetter(row, this.claimer, pos, { attempts: 0, reason, now: this.now() }, this.now() + lease))) return;
        leaseUntil = this.now() + lease;
        this.counters.dead++;
        moveOn();
        continue;
      }
      const started = this.now();
      const headers = (): Record<string, string> => ({
        'content-type': 'application/json',
        'user-agent': 'beacon-cloud-webhooks',
        [SIGNATURE_HEADER]: signature(hook.secret, body, started),
        [IDEMPOTENCY_HEADER]: idempotencyKey(row.deviceId, row.stream, ev.seq),
        'beacon-webhook-id': String(hook.id),
        'beacon-attempt': String(attempts + 1),
      });
      const outcome =
        url === undefined ? await this.runCode(hook as ActiveWebhook & { code: string }, event, attempts + 1) : await postOnce(url, body, headers(), this.opts.timeoutMs, agent);
      if (this.stopped) return;
      if (outcome.ok) {
        this.counters.delivered++;
        // Progress is written when the row is done, when the lease needs renewing, and with any
        // failure: one write per row, not per event, for a receiver that keeps up. A process
        // killed in between sends the row's acknowledged events again (at least once).
        const now = this.now();
        if (pos + 1 >= row.seqs.length || leaseUntil - now < deadline + 5000) {
          if (!(await this.store.advance(row, this.claimer, pos + 1, now + lease))) return;
          leaseUntil = now + lease;
        }
        moveOn();
        continue;
      }
      this.counters.failed++;
      attempts++;
      failingSince ??= started;
      const now = this.now();
      if (now - failingSince >= hook.retryFor) {
        const reason = `${outcome.reason} (after ${attempts} attempts in ${Math.round((now - failingSince) / 1000)} s)`;
        if (!(await this.store.deadLetter(row, this.claimer, pos, { attempts, reason, now }, now + lease))) return;
        leaseUntil = now + lease;
        this.counters.dead++;
        this.log(`webhook ${hook.id}: ${row.deviceId}:${row.stream}:${ev.seq} dead-lettered: ${reason}`);
        moveOn();
        continue;
      }
      // The last attempt falls on the deadline, so an event is tried for the whole retryFor.
      const nextAt = Math.min(now + backoff(attempts, this.opts.retryBaseMs, this.opts.retryCapMs), failingSince + hook.retryFor);
      await this.store.retryLater(row, this.claimer, { pos, attempts, nextAt, failingSince, lastError: outcome.reason });
      this.schedule(Math.max(0, Math.min(nextAt - now, this.opts.pollMs)));
      return;
    }
  }

  /** Stop claiming, abandon requests in flight (their events stay in the outbox) and let go of this process's claims. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
    for (const id of [...this.sandboxes.keys()]) this.dropSandbox(id);
    await Promise.allSettled([...this.running]);
    await this.store.releaseClaims(this.claimer).catch(() => undefined);
  }
}
