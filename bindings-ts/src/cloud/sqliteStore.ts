// The embedded store: one SQLite file through better-sqlite3 (synchronous, prepared statements,
// transactions as plain functions; the fastest and most used SQLite binding for node). WAL mode
// with synchronous=FULL: a batch is on disk when its transaction returns, before the cloud
// acknowledges it to the device.
import Database from 'better-sqlite3';
import type { JsonValue } from './cbor';
import { GroupCommitter, PendingBatch } from './groupCommit';
import type { WireEvent } from './protocol';
import { DEPLOYMENT_SCHEMA, SqliteDeployments } from './sqliteDeployments';
import { SqliteWebhooks } from './sqliteWebhooks';
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

const SCHEMA = `
CREATE TABLE IF NOT EXISTS devices (
  id TEXT PRIMARY KEY,
  secret_hash TEXT,
  revoked INTEGER NOT NULL DEFAULT 0,
  created INTEGER NOT NULL,
  last_seen INTEGER,
  next_msg_id INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS events (
  row INTEGER PRIMARY KEY AUTOINCREMENT,
  device_id TEXT NOT NULL REFERENCES devices(id),
  stream INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  ts INTEGER NOT NULL,
  payload TEXT NOT NULL,
  volatile INTEGER NOT NULL,
  variable INTEGER NOT NULL,
  received INTEGER NOT NULL,
  UNIQUE (device_id, stream, seq)
);
CREATE INDEX IF NOT EXISTS events_by_time ON events (device_id, ts DESC, row DESC);
CREATE INDEX IF NOT EXISTS events_by_type ON events (device_id, type, ts DESC, row DESC);
CREATE TABLE IF NOT EXISTS variables (
  device_id TEXT NOT NULL REFERENCES devices(id),
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  ts INTEGER NOT NULL,
  PRIMARY KEY (device_id, name)
);
CREATE TABLE IF NOT EXISTS messages (
  device_id TEXT NOT NULL REFERENCES devices(id),
  id INTEGER NOT NULL,
  type TEXT NOT NULL,
  ts INTEGER NOT NULL,
  payload TEXT NOT NULL,
  delivered INTEGER,
  PRIMARY KEY (device_id, id)
);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

interface EventRow {
  row: number;
  device_id: string;
  stream: number;
  seq: number;
  type: string;
  ts: number;
  payload: string;
  volatile: number;
  variable: number;
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

interface DeviceRow {
  id: string;
  created: number;
  last_seen: number | null;
  revoked: number;
  events: number;
  pending: number;
}

function toEvent(r: EventRow): StoredEvent {
  return {
    deviceId: r.device_id,
    stream: r.stream,
    seq: r.seq,
    type: r.type,
    ts: r.ts,
    payload: JSON.parse(r.payload) as JsonValue,
    volatile: r.volatile !== 0,
    variable: r.variable !== 0,
    received: r.received,
  };
}

function toMessage(r: MessageRow): MessageRecord {
  const m: MessageRecord = { deviceId: r.device_id, id: r.id, type: r.type, ts: r.ts, payload: JSON.parse(r.payload) as JsonValue };
  if (r.delivered !== null) m.delivered = r.delivered;
  return m;
}

function toDevice(r: DeviceRow): DeviceRecord {
  const d: DeviceRecord = { id: r.id, created: r.created, revoked: r.revoked !== 0, events: r.events, pendingMessages: r.pending };
  if (r.last_seen !== null) d.lastSeen = r.last_seen;
  return d;
}

const DEVICE_SELECT = `SELECT d.id, d.created, d.last_seen, d.revoked,
  (SELECT count(*) FROM events e WHERE e.device_id = d.id) AS events,
  (SELECT count(*) FROM messages m WHERE m.device_id = d.id AND m.delivered IS NULL) AS pending
  FROM devices d`;

export class SqliteStore implements CloudStore {
  readonly kind = 'sqlite';
  private db: Database.Database;
  readonly webhooks: SqliteWebhooks;
  readonly deployments: SqliteDeployments;

  constructor(readonly file: string) {
    this.db = new Database(file);
    this.webhooks = new SqliteWebhooks(this.db);
    this.deployments = new SqliteDeployments(this.db);
  }

  async init(): Promise<void> {
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.webhooks.init();
    this.db.exec(DEPLOYMENT_SCHEMA);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  async ping(): Promise<void> {
    // Nothing to reach, but a closed database should not look healthy.
    this.db.prepare('SELECT 1').get();
  }

  async prune(olderThan: number): Promise<PruneResult> {
    checkCutoff(olderThan);
    return { partitions: [], events: this.db.prepare('DELETE FROM events WHERE ts < ?').run(olderThan).changes };
  }

  async putCredential(id: string, hash: string, now: number): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO devices (id, secret_hash, revoked, created) VALUES (?, ?, 0, ?)
         ON CONFLICT (id) DO UPDATE SET secret_hash = excluded.secret_hash, revoked = 0`,
      )
      .run(id, hash, now);
  }

  async revokeCredential(id: string): Promise<boolean> {
    return this.db.prepare('UPDATE devices SET revoked = 1, secret_hash = NULL WHERE id = ?').run(id).changes > 0;
  }

  async credential(id: string): Promise<string | undefined> {
    const r = this.db.prepare('SELECT secret_hash FROM devices WHERE id = ? AND revoked = 0').get(id) as { secret_hash: string | null } | undefined;
    return r?.secret_hash ?? undefined;
  }

  async credentials(): Promise<{ id: string; hash: string }[]> {
    const rows = this.db.prepare('SELECT id, secret_hash FROM devices WHERE revoked = 0 AND secret_hash IS NOT NULL ORDER BY id').all() as { id: string; secret_hash: string }[];
    return rows.map((r) => ({ id: r.id, hash: r.secret_hash }));
  }

  async touchDevices(seen: readonly { id: string; at: number }[]): Promise<void> {
    const st = this.db.prepare('UPDATE devices SET last_seen = max(coalesce(last_seen, 0), ?) WHERE id = ?');
    this.db.transaction(() => {
      for (const s of seen) st.run(s.at, s.id);
    })();
  }

  async listDevices(): Promise<DeviceRecord[]> {
    return (this.db.prepare(`${DEVICE_SELECT} ORDER BY d.id`).all() as DeviceRow[]).map(toDevice);
  }

  async device(id: string): Promise<DeviceRecord | undefined> {
    const r = this.db.prepare(`${DEVICE_SELECT} WHERE d.id = ?`).get(id) as DeviceRow | undefined;
    return r ? toDevice(r) : undefined;
  }

  private insertEvent?: Database.Statement<unknown[]>;
  private upsertVariable?: Database.Statement<unknown[]>;
  private storeTx?: (batches: readonly PendingBatch[]) => number[];
  // better-sqlite3 is synchronous, so a group is gathered over one turn of the event loop.
  private committer = new GroupCommitter(async (batches) => {
    await new Promise((r) => setImmediate(r));
    return this.commitBatches(batches);
  });

  private commitBatches(batches: readonly PendingBatch[]): number[] {
    if (!this.storeTx) {
      const insertEvent = (this.insertEvent = this.db.prepare<unknown[]>(
        `INSERT INTO events (device_id, stream, seq, type, ts, payload, volatile, variable, received)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      ));
      const upsertVariable = (this.upsertVariable = this.db.prepare<unknown[]>(
        `INSERT INTO variables (device_id, name, value, ts) VALUES (?, ?, ?, ?)
         ON CONFLICT (device_id, name) DO UPDATE SET value = excluded.value, ts = excluded.ts
         WHERE excluded.ts >= variables.ts`,
      ));
      // The webhooks' outbox rows go in the same transaction as the events they announce.
      this.storeTx = this.db.transaction((list: readonly PendingBatch[]) => {
        const fresh: WireEvent[][] = [];
        const counts = list.map((b) => {
          const added: WireEvent[] = [];
          for (const e of b.events) {
            const json = JSON.stringify(e.payload);
            const r = insertEvent.run(b.deviceId, b.stream, e.seq, e.type, e.ts, json, e.volatile ? 1 : 0, e.variable ? 1 : 0, b.now);
            if (r.changes === 0) continue;
            added.push(e);
            if (e.variable) upsertVariable.run(b.deviceId, e.type, json, e.ts);
          }
          fresh.push(added);
          return added.length;
        });
        if (list.length > 0) this.webhooks.queue(list, fresh, list[0].now);
        return counts;
      });
    }
    return this.storeTx(batches);
  }

  async storeEvents(deviceId: string, stream: number, events: readonly WireEvent[], now: number): Promise<number> {
    return this.committer.store({ deviceId, stream, events, now });
  }

  async events(deviceId: string, query?: EventQuery): Promise<EventPage> {
    const limit = pageLimit(query);
    const cur = parseCursor(query?.before);
    const where = ['device_id = ?'];
    const params: (string | number)[] = [deviceId];
    if (query?.type !== undefined) {
      where.push('type = ?');
      params.push(query.type);
    }
    if (cur) {
      where.push('(ts < ? OR (ts = ? AND row < ?))');
      params.push(cur.ts, cur.ts, cur.row);
    }
    const rows = this.db
      .prepare(`SELECT * FROM events WHERE ${where.join(' AND ')} ORDER BY ts DESC, row DESC LIMIT ?`)
      .all(...params, limit + 1) as EventRow[];
    const page: EventPage = { events: rows.slice(0, limit).map(toEvent) };
    if (rows.length > limit) page.next = `${rows[limit - 1].ts}.${rows[limit - 1].row}`;
    return page;
  }

  async variables(deviceId: string): Promise<VariableRecord[]> {
    const rows = this.db.prepare('SELECT name, value, ts FROM variables WHERE device_id = ? ORDER BY name').all(deviceId) as { name: string; value: string; ts: number }[];
    return rows.map((r) => ({ name: r.name, value: JSON.parse(r.value) as JsonValue, ts: r.ts }));
  }

  async queueMessage(deviceId: string, type: string, payload: JsonValue, now: number): Promise<MessageRecord | undefined> {
    const tx = this.db.transaction((): MessageRecord | undefined => {
      const r = this.db.prepare('UPDATE devices SET next_msg_id = next_msg_id + 1 WHERE id = ? RETURNING next_msg_id - 1 AS id').get(deviceId) as { id: number } | undefined;
      if (!r) return undefined;
      this.db.prepare('INSERT INTO messages (device_id, id, type, ts, payload) VALUES (?, ?, ?, ?, ?)').run(deviceId, r.id, type, now, JSON.stringify(payload));
      return { deviceId, id: r.id, type, ts: now, payload };
    });
    return tx.immediate();
  }

  async pendingMessages(deviceId: string, afterId: number, limit: number): Promise<MessageRecord[]> {
    const rows = this.db
      .prepare('SELECT * FROM messages WHERE device_id = ? AND id > ? AND delivered IS NULL ORDER BY id LIMIT ?')
      .all(deviceId, afterId, limit) as MessageRow[];
    return rows.map(toMessage);
  }

  async markDelivered(deviceId: string, uptoId: number, now: number): Promise<number> {
    return this.db.prepare('UPDATE messages SET delivered = ? WHERE device_id = ? AND id <= ? AND delivered IS NULL').run(now, deviceId, uptoId).changes;
  }

  async messages(deviceId: string): Promise<MessageRecord[]> {
    return (this.db.prepare('SELECT * FROM messages WHERE device_id = ? ORDER BY id').all(deviceId) as MessageRow[]).map(toMessage);
  }

  async withdrawMessage(deviceId: string, id: number): Promise<'withdrawn' | 'delivered' | undefined> {
    const tx = this.db.transaction((): 'withdrawn' | 'delivered' | undefined => {
      const r = this.db.prepare('SELECT delivered FROM messages WHERE device_id = ? AND id = ?').get(deviceId, id) as { delivered: number | null } | undefined;
      if (!r) return undefined;
      if (r.delivered !== null) return 'delivered';
      this.db.prepare('DELETE FROM messages WHERE device_id = ? AND id = ?').run(deviceId, id);
      return 'withdrawn';
    });
    return tx.immediate();
  }

  async setting(name: string): Promise<string | undefined> {
    const r = this.db.prepare('SELECT value FROM settings WHERE name = ?').get(name) as { value: string } | undefined;
    return r?.value;
  }

  async setSetting(name: string, value: string): Promise<void> {
    this.db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value').run(name, value);
  }
}
