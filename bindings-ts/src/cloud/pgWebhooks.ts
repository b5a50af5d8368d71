// Webhooks in the PostgreSQL store, shared by every worker. The outbox rows are written by the
// ingest statement itself (OUTBOX_CTE, part of pgStore.ts's STORE_GROUP), so they commit with
// the events. A row is claimed with FOR UPDATE SKIP LOCKED and a lease (claimed_until): two
// workers polling at once never take the same row, each row is taken only when it is the oldest
// of its (webhook, device), so one attempt at most is in flight per event and a device's events
// go out in order, and the lease of a worker that died runs out by itself.
import type { Pool } from 'pg';
import type { JsonValue } from './cbor';
import { LogRow, pendingRecords, toLog } from './sqliteWebhooks';
import { ActiveWebhook, ClaimedRow, CLI_CODE_URL, CODE_LOGS_KEPT, CodeLog, DeliveryEvent, DeliveryRecord, NewWebhook, WebhookRecord, WebhookStore } from './webhooks';
import { transaction } from './pgEvents';

export const WEBHOOK_SCHEMA = `
CREATE TABLE IF NOT EXISTS webhooks (
  id BIGSERIAL PRIMARY KEY,
  url TEXT NOT NULL,
  secret TEXT NOT NULL,
  types TEXT[],
  devices TEXT[],
  retry_for BIGINT NOT NULL,
  created BIGINT NOT NULL
);
-- The delivery order's lock, one row per device with events for webhooks (see claim). A table
-- of its own, unlogged: the same lock on \`devices\` cost every ingest about 7 %.
-- Made when a device is registered; a crash empties it, and the ingest and the claim make the
-- rows they need again.
CREATE UNLOGGED TABLE IF NOT EXISTS delivery_locks (device_id TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS outbox (
  id BIGSERIAL PRIMARY KEY,
  webhook_id BIGINT NOT NULL,
  device_id TEXT NOT NULL,
  stream BIGINT NOT NULL,
  seqs BIGINT[] NOT NULL,
  tss BIGINT[] NOT NULL,
  pos INT NOT NULL DEFAULT 0,
  attempts INT NOT NULL DEFAULT 0,
  next_at BIGINT NOT NULL,
  failing_since BIGINT,
  last_error TEXT,
  claimer TEXT,
  claimed_until BIGINT,
  created BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS outbox_by_device ON outbox (webhook_id, device_id, id);
CREATE TABLE IF NOT EXISTS dead_letters (
  id BIGSERIAL PRIMARY KEY,
  webhook_id BIGINT NOT NULL,
  device_id TEXT NOT NULL,
  stream BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  ts BIGINT NOT NULL,
  attempts INT NOT NULL,
  reason TEXT NOT NULL,
  failed_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS dead_letters_by_webhook ON dead_letters (webhook_id, id);
-- A store made before cloud code: the column added once. Checked first, because ALTER TABLE
-- takes a lock that would queue every worker's ingest behind it at each start.
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'webhooks' AND column_name = 'code') THEN
    ALTER TABLE webhooks ADD COLUMN code TEXT;
  END IF;
END $$;
CREATE UNIQUE INDEX IF NOT EXISTS webhooks_cli_code ON webhooks (url) WHERE url = '${CLI_CODE_URL}';
CREATE TABLE IF NOT EXISTS code_logs (
  id BIGSERIAL PRIMARY KEY,
  webhook_id BIGINT NOT NULL,
  device_id TEXT NOT NULL,
  stream BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  attempt INT NOT NULL,
  at BIGINT NOT NULL,
  ok BOOLEAN NOT NULL,
  output TEXT NOT NULL,
  error TEXT
);
CREATE INDEX IF NOT EXISTS code_logs_by_webhook ON code_logs (webhook_id, id);
`;

/**
 * The outbox part of the ingest statement: for each webhook whose filters match, one row per
 * (device, stream) of the events the statement newly inserted (`ins`). With no webhook the join
 * is empty and costs one look at an empty table. No foreign key to webhooks: every row would
 * lock the webhook's row (FOR KEY SHARE) against all concurrent groups; a webhook removed
 * meanwhile leaves rows that purgeRemoved deletes.
 */
export const OUTBOX_CTE = `
ob AS (
  INSERT INTO outbox (webhook_id, device_id, stream, seqs, tss, next_at, created)
  SELECT w.id, i.device_id, i.stream, array_agg(i.seq ORDER BY i.seq), array_agg(i.ts ORDER BY i.seq), $10, $10
  FROM ins i JOIN webhooks w ON (w.types IS NULL OR i.type = ANY (w.types)) AND (w.devices IS NULL OR i.device_id = ANY (w.devices))
  GROUP BY w.id, i.device_id, i.stream
)`;

interface OutboxRow {
  id: number;
  webhook_id: number;
  device_id: string;
  stream: number;
  seqs: number[];
  tss: number[];
  pos: number;
  attempts: number;
  failing_since: number | null;
  next_at: number;
  last_error: string | null;
}

interface HookRow {
  id: number;
  url: string;
  secret: string;
  types: string[] | null;
  devices: string[] | null;
  retry_for: number;
  created: number;
  code: string | null;
  pending: number;
  dead: number;
}

function toClaimed(r: OutboxRow): ClaimedRow {
  // BIGINT[] arrays come back as strings.
  const c: ClaimedRow = { id: r.id, webhookId: r.webhook_id, deviceId: r.device_id, stream: r.stream, seqs: r.seqs.map(Number), tss: r.tss.map(Number), pos: r.pos, attempts: r.attempts };
  if (r.failing_since !== null) c.failingSince = r.failing_since;
  return c;
}

function toRecord(r: HookRow): WebhookRecord {
  const w: WebhookRecord = { id: r.id, url: r.url, kind: r.code === null ? 'url' : 'code', retryFor: r.retry_for, created: r.created, pending: r.pending, dead: r.dead };
  if (r.types !== null) w.types = r.types;
  if (r.devices !== null) w.devices = r.devices;
  return w;
}

const LIST = `SELECT w.*,
  coalesce((SELECT sum(cardinality(o.seqs) - o.pos) FROM outbox o WHERE o.webhook_id = w.id), 0)::int AS pending,
  (SELECT count(*) FROM dead_letters d WHERE d.webhook_id = w.id)::int AS dead
  FROM webhooks w`;

export class PgWebhooks implements WebhookStore {
  constructor(private readonly pool: Pool) {}

  async addWebhook(w: NewWebhook): Promise<number> {
    const r = await this.pool.query<{ id: number }>(
      'INSERT INTO webhooks (url, secret, types, devices, retry_for, created, code) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id',
      [w.url, w.secret, w.types ?? null, w.devices ?? null, w.retryFor, w.created, w.code ?? null],
    );
    return r.rows[0].id;
  }

  async listWebhooks(): Promise<WebhookRecord[]> {
    return (await this.pool.query<HookRow>(`${LIST} ORDER BY w.id`)).rows.map(toRecord);
  }

  async webhook(id: number): Promise<WebhookRecord | undefined> {
    const r = await this.pool.query<HookRow>(`${LIST} WHERE w.id = $1`, [id]);
    return r.rows[0] ? toRecord(r.rows[0]) : undefined;
  }

  async activeWebhooks(): Promise<ActiveWebhook[]> {
    const r = await this.pool.query<HookRow>('SELECT id, url, secret, retry_for, code FROM webhooks ORDER BY id');
    return r.rows.map((x) => ({ id: x.id, url: x.url, secret: x.secret, retryFor: x.retry_for, ...(x.code !== null ? { code: x.code } : {}) }));
  }

  async removeWebhook(id: number): Promise<boolean> {
    return transaction(this.pool, async (c) => {
      const n = (await c.query('DELETE FROM webhooks WHERE id = $1', [id])).rowCount ?? 0;
      await c.query('DELETE FROM outbox WHERE webhook_id = $1', [id]);
      await c.query('DELETE FROM dead_letters WHERE webhook_id = $1', [id]);
      await c.query('DELETE FROM code_logs WHERE webhook_id = $1', [id]);
      return n > 0;
    });
  }

  async purgeRemoved(ids: readonly number[]): Promise<void> {
    await this.pool.query('DELETE FROM outbox WHERE webhook_id = ANY ($1::bigint[])', [ids]);
  }

  async claim(webhookId: number, limit: number, now: number, leaseUntil: number, claimer: string): Promise<ClaimedRow[]> {
    // A device's next delivery is its oldest outbox row (by id) when that row is due and no row
    // of the device is leased: one attempt in flight per (webhook, device). With workers, a
    // device's two batches in flight at once (the protocol's window) can be committed by two
    // workers at the same moment, and row ids then need not follow the device's order. So:
    //  - the devices with a next delivery are locked FOR UPDATE SKIP LOCKED in delivery_locks,
    //    and an ingest holds KEY SHARE on its devices there until it commits (STORE_GROUP,
    //    pgStore.ts): a device being stored right now, or claimed by another worker, waits for
    //    the next round, and once locked all its commits are visible. A device's row missing
    //    there (the unlogged table is emptied by a crash) is made first: an ingest making the
    //    same row holds it uncommitted, and the claim's insert waits for that ingest's commit;
    //  - of the rows of the oldest row's stream, the one with the lowest sequence number goes
    //    first (when its own retry time has come): the device's order, whichever commit came
    //    first.
    const heads = (devices: string) => `
      SELECT o.device_id, o.stream FROM outbox o
      WHERE o.webhook_id = $1 AND o.next_at <= $2 AND (o.claimed_until IS NULL OR o.claimed_until < $2) AND ${devices}
        AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.webhook_id = o.webhook_id AND p.device_id = o.device_id AND p.id < o.id)
        AND NOT EXISTS (SELECT 1 FROM outbox q WHERE q.webhook_id = o.webhook_id AND q.device_id = o.device_id AND q.claimed_until >= $2)`;
    return transaction(this.pool, async (c) => {
      const next = await c.query<{ device_id: string }>(
        `WITH h AS (SELECT DISTINCT x.device_id FROM (${heads('true')} ORDER BY o.id LIMIT $3) x),
         m AS (INSERT INTO delivery_locks SELECT device_id FROM h ORDER BY device_id ON CONFLICT DO NOTHING)
         SELECT device_id FROM h`,
        [webhookId, now, limit],
      );
      if (next.rows.length === 0) return [];
      const devices = await c.query<{ id: string }>(
        'SELECT device_id AS id FROM delivery_locks WHERE device_id = ANY ($1::text[]) ORDER BY device_id FOR UPDATE SKIP LOCKED',
        [next.rows.map((d) => d.device_id)],
      );
      if (devices.rows.length === 0) return [];
      const r = await c.query<OutboxRow>(
        `UPDATE outbox SET claimer = $4, claimed_until = $5 WHERE id IN (
           SELECT f.id FROM (
             SELECT DISTINCT ON (h.device_id) x.id, x.next_at FROM (${heads('o.device_id = ANY ($3::text[])')}) h
             JOIN outbox x ON x.webhook_id = $1 AND x.device_id = h.device_id AND x.stream = h.stream
             ORDER BY h.device_id, x.seqs[1], x.id) f
           WHERE f.next_at <= $2)
         RETURNING id, webhook_id, device_id, stream, seqs, tss, pos, attempts, failing_since, next_at, last_error`,
        [webhookId, now, devices.rows.map((d) => d.id), claimer, leaseUntil],
      );
      return r.rows.sort((a, b) => a.id - b.id).map(toClaimed);
    });
  }

  async outboxEvents(row: ClaimedRow): Promise<(DeliveryEvent | undefined)[]> {
    const r = await this.pool.query<{ seq: number; ts: number; type: string; payload: string; variable: boolean }>(
      'SELECT seq, ts, type, payload, variable FROM events WHERE device_id = $1 AND stream = $2 AND seq = ANY ($3::bigint[]) AND ts = ANY ($4::bigint[])',
      [row.deviceId, row.stream, row.seqs, row.tss],
    );
    const byKey = new Map(r.rows.map((e) => [`${e.seq}:${e.ts}`, e]));
    return row.seqs.map((seq, i) => {
      const e = byKey.get(`${seq}:${row.tss[i]}`);
      return e ? { seq: e.seq, ts: e.ts, type: e.type, payload: JSON.parse(e.payload) as JsonValue, variable: e.variable } : undefined;
    });
  }

  private async move(q: Pick<Pool, 'query'>, row: ClaimedRow, claimer: string, pos: number, leaseUntil: number): Promise<boolean> {
    const r =
      pos >= row.seqs.length
        ? await q.query('DELETE FROM outbox WHERE id = $1 AND claimer = $2', [row.id, claimer])
        : await q.query('UPDATE outbox SET pos = $3, attempts = 0, failing_since = NULL, last_error = NULL, claimed_until = $4 WHERE id = $1 AND claimer = $2', [row.id, claimer, pos, leaseUntil]);
    return (r.rowCount ?? 0) > 0;
  }

  async advance(row: ClaimedRow, claimer: string, pos: number, leaseUntil: number): Promise<boolean> {
    return this.move(this.pool, row, claimer, pos, leaseUntil);
  }

  async retryLater(row: ClaimedRow, claimer: string, x: { pos: number; attempts: number; nextAt: number; failingSince: number; lastError: string }): Promise<boolean> {
    const r = await this.pool.query(
      'UPDATE outbox SET pos = $7, attempts = $3, next_at = $4, failing_since = $5, last_error = $6, claimer = NULL, claimed_until = NULL WHERE id = $1 AND claimer = $2',
      [row.id, claimer, x.attempts, x.nextAt, x.failingSince, x.lastError, x.pos],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async deadLetter(row: ClaimedRow, claimer: string, pos: number, d: { attempts: number; reason: string; now: number }, leaseUntil: number): Promise<boolean> {
    return transaction(this.pool, async (c) => {
      const mine = await c.query('SELECT 1 FROM outbox WHERE id = $1 AND claimer = $2 FOR UPDATE', [row.id, claimer]);
      if (mine.rows.length === 0) return false;
      await c.query(
        'INSERT INTO dead_letters (webhook_id, device_id, stream, seq, ts, attempts, reason, failed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [row.webhookId, row.deviceId, row.stream, row.seqs[pos], row.tss[pos], d.attempts, d.reason, d.now],
      );
      return this.move(c, row, claimer, pos + 1, leaseUntil);
    });
  }

  async releaseClaims(claimer: string | null): Promise<void> {
    // Other workers' leases are theirs: a worker starting up waits for them to run out.
    if (claimer === null) return;
    await this.pool.query('UPDATE outbox SET claimer = NULL, claimed_until = NULL WHERE claimer = $1', [claimer]);
  }

  async deliveries(webhookId: number, status: 'pending' | 'dead', limit: number): Promise<DeliveryRecord[]> {
    if (status === 'dead') {
      const r = await this.pool.query<{ device_id: string; stream: number; seq: number; ts: number; attempts: number; reason: string; failed_at: number }>(
        'SELECT * FROM dead_letters WHERE webhook_id = $1 ORDER BY id LIMIT $2',
        [webhookId, limit],
      );
      return r.rows.map((x) => ({ deviceId: x.device_id, stream: x.stream, seq: x.seq, ts: x.ts, status: 'dead', attempts: x.attempts, lastError: x.reason, failedAt: x.failed_at }));
    }
    const r = await this.pool.query<OutboxRow>('SELECT * FROM outbox WHERE webhook_id = $1 ORDER BY id LIMIT $2', [webhookId, limit]);
    return pendingRecords(r.rows.map((x) => ({ ...toClaimed(x), nextAt: x.next_at, lastError: x.last_error ?? undefined })), limit);
  }

  async replay(webhookId: number, now: number): Promise<number> {
    const r = await this.pool.query(
      `WITH d AS (DELETE FROM dead_letters WHERE webhook_id = $1 RETURNING *)
       INSERT INTO outbox (webhook_id, device_id, stream, seqs, tss, next_at, created)
       SELECT webhook_id, device_id, stream, ARRAY[seq], ARRAY[ts], $2, $2 FROM d ORDER BY id`,
      [webhookId, now],
    );
    return r.rowCount ?? 0;
  }

  async addCodeLog(webhookId: number, l: CodeLog): Promise<void> {
    const r = await this.pool.query<{ id: number }>(
      'INSERT INTO code_logs (webhook_id, device_id, stream, seq, attempt, at, ok, output, error) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id',
      [webhookId, l.deviceId, l.stream, l.seq, l.attempt, l.at, l.ok, l.output, l.error ?? null],
    );
    // Every hundredth line: the rule's log is kept to its last CODE_LOGS_KEPT lines.
    const id = r.rows[0].id;
    if (id % 100 === 0) await this.pool.query('DELETE FROM code_logs WHERE webhook_id = $1 AND id <= $2', [webhookId, id - CODE_LOGS_KEPT]);
  }

  async codeLogs(webhookId: number, limit: number): Promise<CodeLog[]> {
    const r = await this.pool.query<LogRow>('SELECT * FROM code_logs WHERE webhook_id = $1 ORDER BY id DESC LIMIT $2', [webhookId, limit]);
    return r.rows.map(toLog);
  }

  async putCliCode(code: string, retryFor: number, now: number): Promise<number> {
    const r = await this.pool.query<{ id: number }>(
      `INSERT INTO webhooks (url, secret, retry_for, created, code) VALUES ($1, '', $2, $3, $4)
       ON CONFLICT (url) WHERE url = '${CLI_CODE_URL}' DO UPDATE SET code = excluded.code RETURNING id`,
      [CLI_CODE_URL, retryFor, now, code],
    );
    return r.rows[0].id;
  }
}
