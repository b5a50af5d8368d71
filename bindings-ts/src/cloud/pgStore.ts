// The PostgreSQL store, through `pg` (node-postgres: the standard, maintained driver). Same
// semantics as sqliteStore.ts, for several stateless workers sharing one database: a group of
// batches (groupCommit.ts) is stored by one statement, hence one transaction, and duplicates are
// skipped by the events' unique key with ON CONFLICT DO NOTHING, so concurrent retransmissions
// of one batch, on one worker or two, cannot both insert. The events table, partitioned by day,
// is pgEvents.ts.
import { Pool, PoolClient, types } from 'pg';
import type { JsonValue } from './cbor';
import { GroupCommitter, PendingBatch } from './groupCommit';
import { DEFAULT_WINDOW, PartitionWindow, Partitions, transaction } from './pgEvents';
import { DEPLOYMENT_SCHEMA, PgDeployments } from './pgDeployments';
import { OUTBOX_CTE, PgWebhooks, WEBHOOK_SCHEMA } from './pgWebhooks';
import type { WireEvent } from './protocol';
import {
  checkCutoff,
  CloudStore,
  DeviceRecord,
  EventPage,
  EventQuery,
  MessageRecord,
  pageLimit,
  parseCursor,
  PruneResult,
  StoredEvent,
  VariableRecord,
} from './store';

// Everything but the events table (pgEvents.ts).
const SCHEMA = `
CREATE TABLE IF NOT EXISTS devices (
  id TEXT PRIMARY KEY,
  secret_hash TEXT,
  revoked BOOLEAN NOT NULL DEFAULT false,
  created BIGINT NOT NULL,
  last_seen BIGINT,
  next_msg_id BIGINT NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS variables (
  device_id TEXT NOT NULL REFERENCES devices(id),
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  ts BIGINT NOT NULL,
  PRIMARY KEY (device_id, name)
);
CREATE TABLE IF NOT EXISTS messages (
  device_id TEXT NOT NULL REFERENCES devices(id),
  id BIGINT NOT NULL,
  type TEXT NOT NULL,
  ts BIGINT NOT NULL,
  payload TEXT NOT NULL,
  delivered BIGINT,
  PRIMARY KEY (device_id, id)
);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
${WEBHOOK_SCHEMA}
${DEPLOYMENT_SCHEMA}`;

// BIGINT columns hold ms timestamps and sequence numbers, all below 2^53: read them as numbers.
const typeParsers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === 20) return (v: string) => Number(v);
    return format === undefined ? types.getTypeParser(oid) : types.getTypeParser(oid, format);
  }) as typeof types.getTypeParser,
};

interface EventRow {
  row: number;
  device_id: string;
  stream: number;
  seq: number;
  type: string;
  ts: number;
  payload: string;
  volatile: boolean;
  variable: boolean;
  received: number;
}

interface MessageRow {
  device_id: string;
  id: number;
  type: string;
  ts: number;
  payload: string;
  delivered: number | null;
}

function toEvent(r: EventRow): StoredEvent {
  return {
    deviceId: r.device_id,
    stream: r.stream,
    seq: r.seq,
    type: r.type,
    ts: r.ts,
    payload: JSON.parse(r.payload) as JsonValue,
    volatile: r.volatile,
    variable: r.variable,
    received: r.received,
  };
}

function toMessage(r: MessageRow): MessageRecord {
  const m: MessageRecord = { deviceId: r.device_id, id: r.id, type: r.type, ts: r.ts, payload: JSON.parse(r.payload) as JsonValue };
  if (r.delivered !== null) m.delivered = r.delivered;
  return m;
}

const DEVICE_SELECT = `SELECT d.id, d.created, d.last_seen, d.revoked,
  (SELECT count(*) FROM events e WHERE e.device_id = d.id)::int AS events,
  (SELECT count(*) FROM messages m WHERE m.device_id = d.id AND m.delivered IS NULL)::int AS pending
  FROM devices d`;

function toDevice(r: { id: string; created: number; last_seen: number | null; revoked: boolean; events: number; pending: number }): DeviceRecord {
  const d: DeviceRecord = { id: r.id, created: r.created, revoked: r.revoked, events: r.events, pendingMessages: r.pending };
  if (r.last_seen !== null) d.lastSeen = r.last_seen;
  return d;
}

/**
 * A group's events in one statement: insert the new ones (the events' key skips those stored
 * before, and any sent twice), and from the newly stored variable events set each variable to
 * the newest value. ON CONFLICT DO UPDATE cannot change one row twice in one statement, so only
 * the newest event per (device, variable) is applied: the latest device time, the higher
 * sequence number on a tie (the one enqueued later), as applying them one by one did. The
 * rows come out sorted by (device, name), the same lock order for every group. The webhooks'
 * outbox rows for the new events are written by the same statement (OUTBOX_CTE, pgWebhooks.ts).
 *
 * First (the insert's rows wait for it: an uncorrelated subquery runs once, before them),
 * when webhooks or cloud code exist, the statement takes a KEY SHARE lock on each of its
 * devices' rows of \`delivery_locks\` until it commits, making the rows it lacks (the table is
 * unlogged: a crash empties it): a webhook claim, which takes FOR UPDATE on those rows, then
 * never reads a device's outbox while an ingest of it is in progress, so it cannot send a later
 * batch of the device whose earlier one another worker is still committing (PgWebhooks.claim).
 * Two ingests share the lock. Taken on \`devices\`, it cost the write path about 7 %
 * (bench/webhooks.js); on a table of its own, unlogged, nothing this machine can tell from its
 * noise.
 */
const STORE_GROUP = `
WITH hooked AS MATERIALIZED (
  SELECT DISTINCT d FROM unnest($1::text[]) d WHERE EXISTS (SELECT 1 FROM webhooks) ORDER BY d
), made AS (
  INSERT INTO delivery_locks SELECT d FROM hooked ORDER BY d ON CONFLICT DO NOTHING RETURNING device_id
), busy AS MATERIALIZED (
  SELECT device_id FROM delivery_locks WHERE device_id IN (SELECT d FROM hooked) ORDER BY device_id FOR KEY SHARE
), ins AS (
  INSERT INTO events (device_id, stream, seq, type, ts, payload, volatile, variable, received)
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::bigint[], $6::text[], $7::boolean[], $8::boolean[], $9::bigint[])
  WHERE (SELECT count(*) FROM made) >= 0 AND (SELECT count(*) FROM busy) >= 0
  ON CONFLICT DO NOTHING
  RETURNING device_id, stream, seq, type, ts, payload, variable
), vars AS (
  INSERT INTO variables (device_id, name, value, ts)
  SELECT DISTINCT ON (device_id, type) device_id, type, payload, ts FROM ins WHERE variable
  ORDER BY device_id, type, ts DESC, seq DESC
  ON CONFLICT (device_id, name) DO UPDATE SET value = excluded.value, ts = excluded.ts
  WHERE excluded.ts >= variables.ts
), ${OUTBOX_CTE}
SELECT device_id, stream, seq, ts FROM ins`;

function eventKey(deviceId: string, stream: number, seq: number, ts: number): string {
  return `${deviceId} ${stream} ${seq} ${ts}`;
}

export interface PgStoreOptions {
  /** Connections in this worker's pool (default 10). */
  poolSize?: number;
  /** How long to wait for a connection, new or from the pool, before failing (default 5 s). */
  connectionTimeoutMillis?: number;
  /**
   * How long a statement may run (default 30 s): the server cancels it then, and if the server
   * does not answer at all, the query fails 5 s later on this side. Migration and retention
   * have no limit.
   */
  statementTimeoutMillis?: number;
  /** The server's clock, which decides the days that get partitions (default Date.now). */
  clock?: () => number;
  partitionWindow?: PartitionWindow;
}

export class PgStore implements CloudStore {
  readonly kind = 'postgres';
  private pool: Pool;
  private partitions: Partitions;
  readonly webhooks: PgWebhooks;
  readonly deployments: PgDeployments;

  constructor(url: string, options: PgStoreOptions = {}) {
    const statementTimeout = options.statementTimeoutMillis ?? 30_000;
    for (const [name, v] of Object.entries({ poolSize: options.poolSize, connectionTimeoutMillis: options.connectionTimeoutMillis, statementTimeoutMillis: statementTimeout })) {
      if (v !== undefined && (!Number.isSafeInteger(v) || v < 1)) throw new RangeError(`PgStore: ${name} must be a positive integer, not ${v}`);
    }
    // Without these, a dead or hung server blocks every caller forever: the wait for a
    // connection, the connect itself, and each query are bounded, and keepalive notices a peer
    // that vanished without closing the connection.
    this.pool = new Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      types: typeParsers,
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5000,
      keepAlive: true,
      statement_timeout: statementTimeout,
      query_timeout: statementTimeout + 5000,
    });
    // An idle client losing its server must not take the service down; the next query reports it.
    this.pool.on('error', () => undefined);
    this.partitions = new Partitions(this.pool, options.clock ?? Date.now, options.partitionWindow ?? DEFAULT_WINDOW);
    this.webhooks = new PgWebhooks(this.pool);
    this.deployments = new PgDeployments(this.pool);
  }

  async init(): Promise<void> {
    await this.partitions.init(SCHEMA);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async prune(olderThan: number): Promise<PruneResult> {
    checkCutoff(olderThan);
    return this.partitions.prune(olderThan);
  }

  private tx<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    return transaction(this.pool, fn);
  }

  async putCredential(id: string, hash: string, now: number): Promise<void> {
    await this.pool.query(
      `WITH d AS (
         INSERT INTO devices (id, secret_hash, revoked, created) VALUES ($1, $2, false, $3)
         ON CONFLICT (id) DO UPDATE SET secret_hash = excluded.secret_hash, revoked = false
       )
       INSERT INTO delivery_locks VALUES ($1) ON CONFLICT DO NOTHING`,
      [id, hash, now],
    );
  }

  async revokeCredential(id: string): Promise<boolean> {
    const r = await this.pool.query('UPDATE devices SET revoked = true, secret_hash = NULL WHERE id = $1', [id]);
    return (r.rowCount ?? 0) > 0;
  }

  async credential(id: string): Promise<string | undefined> {
    const r = await this.pool.query<{ secret_hash: string | null }>('SELECT secret_hash FROM devices WHERE id = $1 AND NOT revoked', [id]);
    return r.rows[0]?.secret_hash ?? undefined;
  }

  async credentials(): Promise<{ id: string; hash: string }[]> {
    const r = await this.pool.query<{ id: string; secret_hash: string }>('SELECT id, secret_hash FROM devices WHERE NOT revoked AND secret_hash IS NOT NULL ORDER BY id');
    return r.rows.map((x) => ({ id: x.id, hash: x.secret_hash }));
  }

  async touchDevices(seen: readonly { id: string; at: number }[]): Promise<void> {
    if (seen.length === 0) return;
    await this.pool.query(
      `UPDATE devices d SET last_seen = GREATEST(COALESCE(d.last_seen, 0), s.at)
       FROM unnest($1::text[], $2::bigint[]) AS s(id, at) WHERE d.id = s.id`,
      [seen.map((x) => x.id), seen.map((x) => x.at)],
    );
  }

  async listDevices(): Promise<DeviceRecord[]> {
    return (await this.pool.query(`${DEVICE_SELECT} ORDER BY d.id`)).rows.map(toDevice);
  }

  async device(id: string): Promise<DeviceRecord | undefined> {
    const r = await this.pool.query(`${DEVICE_SELECT} WHERE d.id = $1`, [id]);
    return r.rows[0] ? toDevice(r.rows[0]) : undefined;
  }

  // Up to four group statements at once: PostgreSQL flushes their commits together too.
  private committer = new GroupCommitter((batches) => this.storeGroup(batches), 4);

  async storeEvents(deviceId: string, stream: number, events: readonly WireEvent[], now: number): Promise<number> {
    if (events.length === 0) return 0;
    return this.committer.store({ deviceId, stream, events, now });
  }

  /**
   * A group of batches in one statement, so one transaction and one round trip (see
   * STORE_GROUP). An event sent twice in the group (a batch retransmitted while the first copy
   * waited) is sent to the server once, credited to the first batch holding it, so each
   * returned row names the one batch it counts for. Rows go in key order: two transactions
   * inserting overlapping keys then take them in the same order and wait, never deadlock.
   */
  private async storeGroup(batches: readonly PendingBatch[]): Promise<number[]> {
    const owner = new Map<string, number>();
    const rows: { b: PendingBatch; e: WireEvent }[] = [];
    batches.forEach((b, i) => {
      for (const e of b.events) {
        const key = eventKey(b.deviceId, b.stream, e.seq, e.ts);
        if (owner.has(key)) continue;
        owner.set(key, i);
        rows.push({ b, e });
      }
    });
    rows.sort((x, y) => (x.b.deviceId < y.b.deviceId ? -1 : x.b.deviceId > y.b.deviceId ? 1 : x.b.stream - y.b.stream || x.e.seq - y.e.seq || x.e.ts - y.e.ts));
    await this.partitions.ensure(rows.map((r) => r.e.ts));
    const r = await this.pool.query<{ device_id: string; stream: number; seq: number; ts: number }>({
      name: 'beacon-store-group',
      text: STORE_GROUP,
      values: [
        rows.map((x) => x.b.deviceId),
        rows.map((x) => x.b.stream),
        rows.map((x) => x.e.seq),
        rows.map((x) => x.e.type),
        rows.map((x) => x.e.ts),
        rows.map((x) => JSON.stringify(x.e.payload)),
        rows.map((x) => x.e.volatile),
        rows.map((x) => x.e.variable),
        rows.map((x) => x.b.now),
        batches[0].now,
      ],
    });
    const counts = batches.map(() => 0);
    for (const x of r.rows) {
      const i = owner.get(eventKey(x.device_id, x.stream, x.seq, x.ts));
      if (i === undefined) throw new Error(`PostgreSQL returned an event that was not sent: ${x.device_id} ${x.stream}:${x.seq}`);
      counts[i]++;
    }
    return counts;
  }

  async events(deviceId: string, query?: EventQuery): Promise<EventPage> {
    const limit = pageLimit(query);
    const cur = parseCursor(query?.before);
    const params: unknown[] = [deviceId];
    const where = ['device_id = $1'];
    if (query?.type !== undefined) {
      params.push(query.type);
      where.push(`type = $${params.length}`);
    }
    if (cur) {
      params.push(cur.ts, cur.row);
      where.push(`(ts < $${params.length - 1} OR (ts = $${params.length - 1} AND row < $${params.length}))`);
    }
    params.push(limit + 1);
    const r = await this.pool.query<EventRow>(`SELECT * FROM events WHERE ${where.join(' AND ')} ORDER BY ts DESC, row DESC LIMIT $${params.length}`, params);
    const page: EventPage = { events: r.rows.slice(0, limit).map(toEvent) };
    if (r.rows.length > limit) page.next = `${r.rows[limit - 1].ts}.${r.rows[limit - 1].row}`;
    return page;
  }

  async variables(deviceId: string): Promise<VariableRecord[]> {
    const r = await this.pool.query<{ name: string; value: string; ts: number }>('SELECT name, value, ts FROM variables WHERE device_id = $1 ORDER BY name', [deviceId]);
    return r.rows.map((x) => ({ name: x.name, value: JSON.parse(x.value) as JsonValue, ts: x.ts }));
  }

  async queueMessage(deviceId: string, type: string, payload: JsonValue, now: number): Promise<MessageRecord | undefined> {
    return this.tx(async (c) => {
      // The row lock of this UPDATE serialises concurrent sends to one device.
      const r = await c.query<{ id: number }>('UPDATE devices SET next_msg_id = next_msg_id + 1 WHERE id = $1 RETURNING next_msg_id - 1 AS id', [deviceId]);
      if (r.rows.length === 0) return undefined;
      const id = r.rows[0].id;
      await c.query('INSERT INTO messages (device_id, id, type, ts, payload) VALUES ($1, $2, $3, $4, $5)', [deviceId, id, type, now, JSON.stringify(payload)]);
      return { deviceId, id, type, ts: now, payload };
    });
  }

  async pendingMessages(deviceId: string, afterId: number, limit: number): Promise<MessageRecord[]> {
    const r = await this.pool.query<MessageRow>('SELECT * FROM messages WHERE device_id = $1 AND id > $2 AND delivered IS NULL ORDER BY id LIMIT $3', [deviceId, afterId, limit]);
    return r.rows.map(toMessage);
  }

  async markDelivered(deviceId: string, uptoId: number, now: number): Promise<number> {
    const r = await this.pool.query('UPDATE messages SET delivered = $1 WHERE device_id = $2 AND id <= $3 AND delivered IS NULL', [now, deviceId, uptoId]);
    return r.rowCount ?? 0;
  }

  async messages(deviceId: string): Promise<MessageRecord[]> {
    return (await this.pool.query<MessageRow>('SELECT * FROM messages WHERE device_id = $1 ORDER BY id', [deviceId])).rows.map(toMessage);
  }

  async withdrawMessage(deviceId: string, id: number): Promise<'withdrawn' | 'delivered' | undefined> {
    // One statement decides: a message marked delivered meanwhile is not deleted.
    const r = await this.pool.query<{ delivered: number | null }>('DELETE FROM messages WHERE device_id = $1 AND id = $2 AND delivered IS NULL RETURNING delivered', [deviceId, id]);
    if ((r.rowCount ?? 0) > 0) return 'withdrawn';
    const left = await this.pool.query('SELECT 1 FROM messages WHERE device_id = $1 AND id = $2', [deviceId, id]);
    return left.rows.length > 0 ? 'delivered' : undefined;
  }

  async setting(name: string): Promise<string | undefined> {
    const r = await this.pool.query<{ value: string }>('SELECT value FROM settings WHERE name = $1', [name]);
    return r.rows[0]?.value;
  }

  async setSetting(name: string, value: string): Promise<void> {
    await this.pool.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value', [name, value]);
  }
}
