// Webhooks in the SQLite store: the receivers, the outbox (written by SqliteStore's ingest
// transaction through `queue`) and the dead letters. SQLite serves one cloud process, so a claim
// only has to keep this process's dispatcher from taking a row twice; the lease columns are the
// same as PostgreSQL's all the same, and claims left by a killed process are let go at start.
import type Database from 'better-sqlite3';
import type { JsonValue } from './cbor';
import type { PendingBatch } from './groupCommit';
import type { WireEvent } from './protocol';
import { ActiveWebhook, ClaimedRow, CLI_CODE_URL, CODE_LOGS_KEPT, CodeLog, DeliveryEvent, DeliveryRecord, matches, NewWebhook, WebhookRecord, WebhookStore } from './webhooks';

export const WEBHOOK_SCHEMA = `
CREATE TABLE IF NOT EXISTS webhooks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  url TEXT NOT NULL,
  secret TEXT NOT NULL,
  types TEXT,
  devices TEXT,
  retry_for INTEGER NOT NULL,
  created INTEGER NOT NULL,
  code TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS webhooks_cli_code ON webhooks (url) WHERE url = '${CLI_CODE_URL}';
CREATE TABLE IF NOT EXISTS outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id INTEGER NOT NULL,
  device_id TEXT NOT NULL,
  stream INTEGER NOT NULL,
  seqs TEXT NOT NULL,
  tss TEXT NOT NULL,
  pos INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at INTEGER NOT NULL,
  failing_since INTEGER,
  last_error TEXT,
  claimer TEXT,
  claimed_until INTEGER,
  created INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS outbox_by_device ON outbox (webhook_id, device_id, id);
CREATE TABLE IF NOT EXISTS dead_letters (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id INTEGER NOT NULL,
  device_id TEXT NOT NULL,
  stream INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  reason TEXT NOT NULL,
  failed_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS dead_letters_by_webhook ON dead_letters (webhook_id, id);
CREATE TABLE IF NOT EXISTS code_logs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id INTEGER NOT NULL,
  device_id TEXT NOT NULL,
  stream INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  at INTEGER NOT NULL,
  ok INTEGER NOT NULL,
  output TEXT NOT NULL,
  error TEXT
);
CREATE INDEX IF NOT EXISTS code_logs_by_webhook ON code_logs (webhook_id, id);
`;

interface HookRow {
  id: number;
  url: string;
  secret: string;
  types: string | null;
  devices: string | null;
  retry_for: number;
  created: number;
  code: string | null;
  pending: number;
  dead: number;
}

interface OutboxRow {
  id: number;
  webhook_id: number;
  device_id: string;
  stream: number;
  seqs: string;
  tss: string;
  pos: number;
  attempts: number;
  failing_since: number | null;
  next_at: number;
  last_error: string | null;
}

function toClaimed(r: OutboxRow): ClaimedRow {
  const c: ClaimedRow = { id: r.id, webhookId: r.webhook_id, deviceId: r.device_id, stream: r.stream, seqs: JSON.parse(r.seqs) as number[], tss: JSON.parse(r.tss) as number[], pos: r.pos, attempts: r.attempts };
  if (r.failing_since !== null) c.failingSince = r.failing_since;
  return c;
}

function toRecord(r: HookRow): WebhookRecord {
  const w: WebhookRecord = { id: r.id, url: r.url, kind: r.code === null ? 'url' : 'code', retryFor: r.retry_for, created: r.created, pending: r.pending, dead: r.dead };
  if (r.types !== null) w.types = JSON.parse(r.types) as string[];
  if (r.devices !== null) w.devices = JSON.parse(r.devices) as string[];
  return w;
}

const LIST = `SELECT w.*,
  coalesce((SELECT sum(json_array_length(o.seqs) - o.pos) FROM outbox o WHERE o.webhook_id = w.id), 0) AS pending,
  (SELECT count(*) FROM dead_letters d WHERE d.webhook_id = w.id) AS dead
  FROM webhooks w`;

export class SqliteWebhooks implements WebhookStore {
  private filters?: Database.Statement<unknown[]>;
  private insertOutbox?: Database.Statement<unknown[]>;

  constructor(private readonly db: Database.Database) {}

  /** The tables, and the code column a store made before cloud code lacks. */
  init(): void {
    const cols = this.db.prepare("SELECT name FROM pragma_table_info('webhooks')").all() as { name: string }[];
    if (cols.length > 0 && !cols.some((c) => c.name === 'code')) this.db.exec('ALTER TABLE webhooks ADD COLUMN code TEXT');
    this.db.exec(WEBHOOK_SCHEMA);
  }

  /**
   * Inside the ingest transaction: one outbox row per webhook whose filters match some of a
   * batch's new events (those just inserted, never duplicates).
   */
  queue(batches: readonly PendingBatch[], fresh: readonly WireEvent[][], now: number): void {
    this.filters ??= this.db.prepare('SELECT id, types, devices FROM webhooks');
    const hooks = (this.filters.all() as { id: number; types: string | null; devices: string | null }[]).map((h) => ({
      id: h.id,
      types: h.types === null ? null : (JSON.parse(h.types) as string[]),
      devices: h.devices === null ? null : (JSON.parse(h.devices) as string[]),
    }));
    if (hooks.length === 0) return;
    this.insertOutbox ??= this.db.prepare('INSERT INTO outbox (webhook_id, device_id, stream, seqs, tss, next_at, created) VALUES (?, ?, ?, ?, ?, ?, ?)');
    batches.forEach((b, i) => {
      for (const h of hooks) {
        const events = fresh[i].filter((e) => matches(h, b.deviceId, e.type));
        if (events.length === 0) continue;
        this.insertOutbox?.run(h.id, b.deviceId, b.stream, JSON.stringify(events.map((e) => e.seq)), JSON.stringify(events.map((e) => e.ts)), now, now);
      }
    });
  }

  async addWebhook(w: NewWebhook): Promise<number> {
    const r = this.db
      .prepare('INSERT INTO webhooks (url, secret, types, devices, retry_for, created, code) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(w.url, w.secret, w.types ? JSON.stringify(w.types) : null, w.devices ? JSON.stringify(w.devices) : null, w.retryFor, w.created, w.code ?? null);
    return Number(r.lastInsertRowid);
  }

  async listWebhooks(): Promise<WebhookRecord[]> {
    return (this.db.prepare(`${LIST} ORDER BY w.id`).all() as HookRow[]).map(toRecord);
  }

  async webhook(id: number): Promise<WebhookRecord | undefined> {
    const r = this.db.prepare(`${LIST} WHERE w.id = ?`).get(id) as HookRow | undefined;
    return r ? toRecord(r) : undefined;
  }

  async activeWebhooks(): Promise<ActiveWebhook[]> {
    const rows = this.db.prepare('SELECT id, url, secret, retry_for, code FROM webhooks ORDER BY id').all() as HookRow[];
    return rows.map((r) => ({ id: r.id, url: r.url, secret: r.secret, retryFor: r.retry_for, ...(r.code !== null ? { code: r.code } : {}) }));
  }

  async removeWebhook(id: number): Promise<boolean> {
    return this.db.transaction(() => {
      const n = this.db.prepare('DELETE FROM webhooks WHERE id = ?').run(id).changes;
      this.db.prepare('DELETE FROM outbox WHERE webhook_id = ?').run(id);
      this.db.prepare('DELETE FROM dead_letters WHERE webhook_id = ?').run(id);
      this.db.prepare('DELETE FROM code_logs WHERE webhook_id = ?').run(id);
      return n > 0;
    }).immediate();
  }

  async purgeRemoved(): Promise<void> {
    // The ingest transaction reads the webhooks inside SQLite's single writer lock: no orphans.
  }

  async claim(webhookId: number, limit: number, now: number, leaseUntil: number, claimer: string): Promise<ClaimedRow[]> {
    const rows = this.db
      .prepare(
        `UPDATE outbox SET claimer = ?, claimed_until = ? WHERE id IN (
           SELECT o.id FROM outbox o
           WHERE o.webhook_id = ? AND o.next_at <= ? AND (o.claimed_until IS NULL OR o.claimed_until < ?)
             AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.webhook_id = o.webhook_id AND p.device_id = o.device_id AND p.id < o.id)
           ORDER BY o.id LIMIT ?)
         RETURNING *`,
      )
      .all(claimer, leaseUntil, webhookId, now, now, limit) as OutboxRow[];
    return rows.sort((a, b) => a.id - b.id).map(toClaimed);
  }

  async outboxEvents(row: ClaimedRow): Promise<(DeliveryEvent | undefined)[]> {
    const st = this.db.prepare('SELECT seq, ts, type, payload, variable FROM events WHERE device_id = ? AND stream = ? AND seq = ?');
    return row.seqs.map((seq) => {
      const e = st.get(row.deviceId, row.stream, seq) as { seq: number; ts: number; type: string; payload: string; variable: number } | undefined;
      return e ? { seq: e.seq, ts: e.ts, type: e.type, payload: JSON.parse(e.payload) as JsonValue, variable: e.variable !== 0 } : undefined;
    });
  }

  private move(row: ClaimedRow, claimer: string, pos: number, leaseUntil: number): boolean {
    if (pos >= row.seqs.length) return this.db.prepare('DELETE FROM outbox WHERE id = ? AND claimer = ?').run(row.id, claimer).changes > 0;
    return (
      this.db
        .prepare('UPDATE outbox SET pos = ?, attempts = 0, failing_since = NULL, last_error = NULL, claimed_until = ? WHERE id = ? AND claimer = ?')
        .run(pos, leaseUntil, row.id, claimer).changes > 0
    );
  }

  async advance(row: ClaimedRow, claimer: string, pos: number, leaseUntil: number): Promise<boolean> {
    return this.move(row, claimer, pos, leaseUntil);
  }

  async retryLater(row: ClaimedRow, claimer: string, r: { pos: number; attempts: number; nextAt: number; failingSince: number; lastError: string }): Promise<boolean> {
    return (
      this.db
        .prepare('UPDATE outbox SET pos = ?, attempts = ?, next_at = ?, failing_since = ?, last_error = ?, claimer = NULL, claimed_until = NULL WHERE id = ? AND claimer = ?')
        .run(r.pos, r.attempts, r.nextAt, r.failingSince, r.lastError, row.id, claimer).changes > 0
    );
  }

  async deadLetter(row: ClaimedRow, claimer: string, pos: number, d: { attempts: number; reason: string; now: number }, leaseUntil: number): Promise<boolean> {
    return this.db.transaction(() => {
      const mine = this.db.prepare('SELECT 1 FROM outbox WHERE id = ? AND claimer = ?').get(row.id, claimer);
      if (!mine) return false;
      this.db
        .prepare('INSERT INTO dead_letters (webhook_id, device_id, stream, seq, ts, attempts, reason, failed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(row.webhookId, row.deviceId, row.stream, row.seqs[pos], row.tss[pos], d.attempts, d.reason, d.now);
      return this.move(row, claimer, pos + 1, leaseUntil);
    }).immediate();
  }

  async releaseClaims(claimer: string | null): Promise<void> {
    if (claimer === null) this.db.prepare('UPDATE outbox SET claimer = NULL, claimed_until = NULL WHERE claimer IS NOT NULL').run();
    else this.db.prepare('UPDATE outbox SET claimer = NULL, claimed_until = NULL WHERE claimer = ?').run(claimer);
  }

  async deliveries(webhookId: number, status: 'pending' | 'dead', limit: number): Promise<DeliveryRecord[]> {
    if (status === 'dead') {
      const rows = this.db.prepare('SELECT * FROM dead_letters WHERE webhook_id = ? ORDER BY id LIMIT ?').all(webhookId, limit) as {
        device_id: string;
        stream: number;
        seq: number;
        ts: number;
        attempts: number;
        reason: string;
        failed_at: number;
      }[];
      return rows.map((r) => ({ deviceId: r.device_id, stream: r.stream, seq: r.seq, ts: r.ts, status: 'dead', attempts: r.attempts, lastError: r.reason, failedAt: r.failed_at }));
    }
    const rows = this.db.prepare('SELECT * FROM outbox WHERE webhook_id = ? ORDER BY id LIMIT ?').all(webhookId, limit) as OutboxRow[];
    return pendingRecords(rows.map((r) => ({ ...toClaimed(r), nextAt: r.next_at, lastError: r.last_error ?? undefined })), limit);
  }

  async replay(webhookId: number, now: number): Promise<number> {
    return this.db.transaction(() => {
      const n = this.db
        .prepare(
          `INSERT INTO outbox (webhook_id, device_id, stream, seqs, tss, next_at, created)
           SELECT webhook_id, device_id, stream, json_array(seq), json_array(ts), ?, ? FROM dead_letters WHERE webhook_id = ? ORDER BY id`,
        )
        .run(now, now, webhookId).changes;
      this.db.prepare('DELETE FROM dead_letters WHERE webhook_id = ?').run(webhookId);
      return n;
    }).immediate();
  }

  async addCodeLog(webhookId: number, l: CodeLog): Promise<void> {
    const r = this.db
      .prepare('INSERT INTO code_logs (webhook_id, device_id, stream, seq, attempt, at, ok, output, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(webhookId, l.deviceId, l.stream, l.seq, l.attempt, l.at, l.ok ? 1 : 0, l.output, l.error ?? null);
    // Every hundredth line: the rule's log is kept to its last CODE_LOGS_KEPT lines.
    const id = Number(r.lastInsertRowid);
    if (id % 100 === 0) this.db.prepare('DELETE FROM code_logs WHERE webhook_id = ? AND id <= ?').run(webhookId, id - CODE_LOGS_KEPT);
  }

  async codeLogs(webhookId: number, limit: number): Promise<CodeLog[]> {
    const rows = this.db.prepare('SELECT * FROM code_logs WHERE webhook_id = ? ORDER BY id DESC LIMIT ?').all(webhookId, limit) as LogRow[];
    return rows.map(toLog);
  }

  async putCliCode(code: string, retryFor: number, now: number): Promise<number> {
    const r = this.db
      .prepare(
        `INSERT INTO webhooks (url, secret, retry_for, created, code) VALUES (?, '', ?, ?, ?)
         ON CONFLICT (url) WHERE url = '${CLI_CODE_URL}' DO UPDATE SET code = excluded.code RETURNING id`,
      )
      .get(CLI_CODE_URL, retryFor, now, code) as { id: number };
    return r.id;
  }
}

export interface LogRow {
  device_id: string;
  stream: number;
  seq: number;
  attempt: number;
  at: number;
  ok: number | boolean;
  output: string;
  error: string | null;
}

export function toLog(r: LogRow): CodeLog {
  const l: CodeLog = { deviceId: r.device_id, stream: r.stream, seq: r.seq, attempt: r.attempt, at: r.at, ok: r.ok === true || r.ok === 1, output: r.output };
  if (r.error !== null) l.error = r.error;
  return l;
}

/** Outbox rows as one record per event still to go, the first of each row with its attempt state. */
export function pendingRecords(rows: (ClaimedRow & { nextAt: number; lastError?: string })[], limit: number): DeliveryRecord[] {
  const out: DeliveryRecord[] = [];
  for (const r of rows) {
    for (let i = r.pos; i < r.seqs.length && out.length < limit; i++) {
      const d: DeliveryRecord = { deviceId: r.deviceId, stream: r.stream, seq: r.seqs[i], ts: r.tss[i], status: 'pending', attempts: i === r.pos ? r.attempts : 0 };
      if (i === r.pos) {
        d.nextAt = r.nextAt;
        if (r.lastError !== undefined) d.lastError = r.lastError;
      }
      out.push(d);
    }
  }
  return out;
}
