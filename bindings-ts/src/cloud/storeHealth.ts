// Whether this cloud process can reach its store. When a write fails for any reason but bad
// input (the database is down, restarting, unreachable), the process stops acknowledging: a
// frame is not tried again here, the device keeps its events and sends them in a later sync.
// Nothing acknowledged is ever held in memory only. While the store is down, frames are refused
// at once instead of each waiting for a connection timeout, a probe checks the store every
// second, and the owner is told (a worker on a shared subscription leaves it, so the broker
// gives the frames to workers that can store them).
import type { Log } from './core';
import type { CloudStore } from './store';

export interface StoreHealthReport {
  ok: boolean;
  /** UTC ms of the last change (down or back). */
  since: number;
  /** Why the store is down (the last error), while it is. */
  error?: string;
  /** Frames not acknowledged because the store was down, since this process started. */
  unacknowledged: number;
}

export class StoreUnreachable extends Error {}

/** PostgreSQL error classes that mean the server cannot be used now, whatever the query. */
const UNREACHABLE_SQLSTATE = /^(08|53|57P0[1-4]|58)/;
const UNREACHABLE_NODE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Whether an error from a store call says the store cannot be reached (rather than that this
 * one write was wrong): node-postgres' connection errors and timeouts, PostgreSQL's connection,
 * resource and shutdown classes, a closed pool, a busy or locked SQLite file.
 */
export function isStoreUnreachable(err: unknown): boolean {
  if (err instanceof StoreUnreachable) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (UNREACHABLE_SQLSTATE.test(code) || UNREACHABLE_NODE.has(code) || code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED')) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|Cannot use a pool after calling end|Client has encountered a connection error/i.test(err.message);
}

export class StoreHealth {
  private ok = true;
  private since: number;
  private error?: string;
  private unacknowledged = 0;
  private downAt = 0;
  private probe?: NodeJS.Timeout;
  private listeners: ((ok: boolean) => void)[] = [];

  constructor(
    private readonly store: CloudStore,
    private readonly log: Log,
    private readonly now: () => number = Date.now,
    private readonly probeMs = 1000,
  ) {
    this.since = now();
  }

  get up(): boolean {
    return this.ok;
  }

  /** Called with false when the store goes down, true when it is back. */
  onChange(fn: (ok: boolean) => void): void {
    this.listeners.push(fn);
  }

  report(): StoreHealthReport {
    const r: StoreHealthReport = { ok: this.ok, since: this.since, unacknowledged: this.unacknowledged };
    if (this.error !== undefined) r.error = this.error;
    return r;
  }

  /** Throws StoreUnreachable (counted) while the store is down: the frame is not tried. */
  check(what: string): void {
    if (this.ok) return;
    this.unacknowledged++;
    throw new StoreUnreachable(`${what} not handled: the store is unreachable (${this.error ?? 'unknown error'})`);
  }

  /** A store operation failed for a reason other than the frame's content. */
  failed(err: Error): void {
    this.unacknowledged++;
    this.error = err.message;
    if (!this.ok) return;
    this.ok = false;
    this.since = this.downAt = this.now();
    this.log(`store unreachable: ${err.message}; uploads are not acknowledged until it is back (devices keep their events and send them again)`);
    for (const fn of this.listeners) fn(false);
    this.schedule();
  }

  private schedule(): void {
    this.probe = setTimeout(() => void this.tryStore(), this.probeMs);
    this.probe.unref();
  }

  private async tryStore(): Promise<void> {
    this.probe = undefined;
    try {
      await this.store.ping();
    } catch (err) {
      this.error = (err as Error).message;
      this.schedule();
      return;
    }
    this.ok = true;
    this.error = undefined;
    this.since = this.now();
    this.log(`store reachable again after ${((this.since - this.downAt) / 1000).toFixed(1)} s; ${this.unacknowledged} frames were not acknowledged in all`);
    for (const fn of this.listeners) fn(true);
  }

  stop(): void {
    if (this.probe) clearTimeout(this.probe);
    this.probe = undefined;
  }
}
