// The events table of the PostgreSQL store: its schema, its daily partitions and their
// retention, and the migration from the unpartitioned table of earlier versions.
//
// Events are partitioned by RANGE on the device's timestamp, one partition per UTC day
// (events_20261128 holds ts in [2026-11-28, 2026-11-29)), so retention drops whole tables
// instead of deleting billions of rows, and each day's indexes stay small. Partitions are made
// on demand, only for days in a window around the server's clock: a device with a wild clock
// (1970, or ten years ahead) must not make thousands of tables, so its events go to the
// DEFAULT partition events_default instead.
//
// Several stateless workers share one database, so every change to the set of partitions (and
// the schema setup in init) runs under one transaction-level advisory lock: two workers creating
// the same day's partition at once wait for each other, and the second finds it made.
import { DatabaseError } from 'pg';
import type { Pool, PoolClient, QueryConfig, QueryResult } from 'pg';

export const DAY_MS = 86_400_000;

/** The advisory lock (two int4 keys: "beac", 1) that serialises DDL on the events table. */
export const EVENTS_DDL_LOCK = 'SELECT pg_advisory_xact_lock(1650811235, 1)';

export const DEFAULT_PARTITION = 'events_default';

/**
 * The partitioned events table. A unique constraint on a partitioned table must hold the
 * partition key, so the key that makes uploads idempotent is (device, stream, seq, ts): a
 * retransmitted event carries the ts it was enqueued with, and a device never reuses a seq in a
 * stream, so each event is still stored once. `row` numbers rows in insertion order for the page
 * cursors' (ts, row) keyset; it is not a key (it would have to include ts too, and nothing looks
 * a row up by it alone).
 *
 * No foreign key to devices: rows are only written for authenticated devices, and devices are
 * never deleted, while the key check costs every inserted row a lookup and a FOR KEY SHARE lock
 * on its device's row: about 15 % of the ingest rate (the median of 13 interleaved runs of
 * bench/cloud-ingest.sh, new against new_fk, on a shared 2-core machine; single runs vary).
 *
 * The sequence is created by name rather than by BIGSERIAL so that the migration from the old
 * table reuses the old one: row ids continue where they were, and old page cursors stay valid.
 */
export const EVENTS_SCHEMA = `
CREATE SEQUENCE IF NOT EXISTS events_row_seq;
CREATE TABLE IF NOT EXISTS events (
  row BIGINT NOT NULL DEFAULT nextval('events_row_seq'),
  device_id TEXT NOT NULL,
  stream BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  type TEXT NOT NULL,
  ts BIGINT NOT NULL,
  payload TEXT NOT NULL,
  volatile BOOLEAN NOT NULL,
  variable BOOLEAN NOT NULL,
  received BIGINT NOT NULL,
  CONSTRAINT events_key UNIQUE (device_id, stream, seq, ts)
) PARTITION BY RANGE (ts);
ALTER SEQUENCE events_row_seq OWNED BY events.row;
CREATE TABLE IF NOT EXISTS ${DEFAULT_PARTITION} PARTITION OF events DEFAULT;
CREATE INDEX IF NOT EXISTS events_by_time ON events (device_id, ts DESC, row DESC);
CREATE INDEX IF NOT EXISTS events_by_type ON events (device_id, type, ts DESC, row DESC);
`;

const COLUMNS = 'row, device_id, stream, seq, type, ts, payload, volatile, variable, received';

/** The UTC day (days since 1970) of a timestamp. */
export function dayOf(ts: number): number {
  return Math.floor(ts / DAY_MS);
}

/** events_YYYYMMDD: the partition of a UTC day. */
export function partitionName(day: number): string {
  return `events_${new Date(day * DAY_MS).toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/** The day of a daily partition's name; undefined for any other table (events_default). */
export function partitionDay(name: string): number | undefined {
  const m = /^events_(\d{4})(\d{2})(\d{2})$/.exec(name);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return partitionName(ms / DAY_MS) === name ? ms / DAY_MS : undefined;
}

export interface PartitionWindow {
  /** Days before the server's today that get a partition of their own (default 400). */
  pastDays: number;
  /** Days after it (default 2). */
  futureDays: number;
}

export const DEFAULT_WINDOW: PartitionWindow = { pastDays: 400, futureDays: 2 };

/** A client-side timeout for statements that may run long (migration, retention): none. */
const NO_TIMEOUT = 2 ** 31 - 1;

// The pool's query_timeout is for a hung server; these statements may just have much to do.
async function longQuery(c: PoolClient | Pool, text: string, values?: unknown[]): Promise<QueryResult<Record<string, unknown>>> {
  // node-postgres reads query_timeout per query too, though its typings omit it.
  const q: QueryConfig & { query_timeout: number } = { text, values, query_timeout: NO_TIMEOUT };
  return c.query(q);
}

/**
 * Run fn in a transaction on a client of its own. `long`: no statement timeout, for work that
 * may take long on a big table (migration, retention). On a server error the transaction is
 * rolled back and the client goes back to the pool; on anything else (our query timeout on a
 * hung server, a lost connection) the connection is in an unknown state, so it is destroyed.
 */
export async function transaction<T>(pool: Pool, fn: (c: PoolClient) => Promise<T>, long = false): Promise<T> {
  const c = await pool.connect();
  // A checked-out client whose server goes away between two queries emits 'error' (during a
  // query, the query rejects instead); unheard, that event would end the process. The next
  // query on it fails, and the catch below destroys it.
  const onError = (): void => undefined;
  c.on('error', onError);
  const q = (text: string): Promise<unknown> => (long ? longQuery(c, text) : c.query(text));
  try {
    await q('BEGIN');
    if (long) await q('SET LOCAL statement_timeout = 0');
    const r = await fn(c);
    await q('COMMIT');
    c.off('error', onError);
    c.release();
    return r;
  } catch (err) {
    const reusable = err instanceof DatabaseError && (await c.query('ROLLBACK').then(() => true, () => false));
    c.off('error', onError);
    c.release(reusable ? undefined : true);
    throw err;
  }
}

/**
 * The daily partitions: which days have one (cached: the set only grows while inserting, and a
 * day pruned by another worker only sends late events of that day to the default partition,
 * where the next prune deletes them), making them, dropping them.
 */
export class Partitions {
  private known = new Set<number>();
  /** Creations under way, so this worker's concurrent groups wait for one, not queue several. */
  private creating = new Map<number, Promise<void>>();

  constructor(
    private readonly pool: Pool,
    private readonly clock: () => number,
    private readonly window: PartitionWindow,
  ) {}

  /** Whether events of this day get a partition of their own now (else: the default one). */
  inWindow(day: number): boolean {
    const today = dayOf(this.clock());
    return day >= today - this.window.pastDays && day <= today + this.window.futureDays;
  }

  /**
   * Create the tables (under the DDL lock, so workers starting together do not race on CREATE
   * ... IF NOT EXISTS, which is not safe against a concurrent creation), migrating an
   * unpartitioned events table of an earlier version, and learn the partitions there are.
   */
  async init(otherSchema: string): Promise<void> {
    // A migration copies every event: a long transaction.
    await transaction(
      this.pool,
      async (c) => {
        await longQuery(c, EVENTS_DDL_LOCK);
        await longQuery(c, otherSchema);
        const kind = await longQuery(c, `SELECT relkind FROM pg_class WHERE oid = to_regclass('events')`);
        // Made in one transaction, so a partitioned table ('p') has everything already; running
        // the schema again would lock the row sequence against other workers' inserts.
        const kindOf = kind.rows[0]?.relkind;
        if (kindOf === 'r') await this.migrate(c);
        else if (kindOf === undefined) await longQuery(c, EVENTS_SCHEMA);
      },
      true,
    );
    await this.reload();
  }

  /**
   * The old table becomes events_unpartitioned, the partitioned one is made, every row is copied
   * (with its row id) into the partition of its day or the default one, and the old table is
   * dropped: one transaction, so a failure leaves the old table as it was.
   */
  private async migrate(c: PoolClient): Promise<void> {
    await longQuery(c, 'ALTER TABLE events RENAME TO events_unpartitioned');
    // Index names are per schema; the old ones are not needed for the copy.
    await longQuery(c, 'DROP INDEX IF EXISTS events_by_time, events_by_type');
    await longQuery(c, EVENTS_SCHEMA);
    const days = await longQuery(c, `SELECT DISTINCT ts / ${DAY_MS} AS day FROM events_unpartitioned`);
    for (const r of days.rows) {
      const day = Number(r.day);
      if (this.inWindow(day)) await createPartition(c, day);
    }
    await longQuery(c, `INSERT INTO events (${COLUMNS}) SELECT ${COLUMNS} FROM events_unpartitioned`);
    await longQuery(c, 'DROP TABLE events_unpartitioned');
  }

  /** Relearn which daily partitions exist. */
  async reload(): Promise<void> {
    this.known = new Set((await this.list()).map((p) => p.day));
  }

  private async list(): Promise<{ name: string; day: number }[]> {
    const r = await this.pool.query<{ relname: string }>(
      `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass`,
    );
    const out: { name: string; day: number }[] = [];
    for (const { relname } of r.rows) {
      const day = partitionDay(relname);
      if (day !== undefined) out.push({ name: relname, day });
    }
    return out.sort((a, b) => a.day - b.day);
  }

  /** Make sure each of these timestamps' days has its partition, if it is in the window. */
  async ensure(timestamps: Iterable<number>): Promise<void> {
    const missing = new Set<number>();
    for (const ts of timestamps) {
      const day = dayOf(ts);
      if (!this.known.has(day) && !missing.has(day) && this.inWindow(day)) missing.add(day);
    }
    for (const day of missing) {
      let p = this.creating.get(day);
      if (!p) {
        p = this.create(day).finally(() => this.creating.delete(day));
        this.creating.set(day, p);
      }
      await p;
    }
  }

  private async create(day: number): Promise<void> {
    // A transaction of its own, before the insert: partition DDL locks the default partition
    // exclusively, which must not be held for the length of an ingest transaction.
    await transaction(this.pool, async (c) => {
      await c.query(EVENTS_DDL_LOCK);
      const exists = await c.query('SELECT 1 FROM pg_class WHERE oid = to_regclass($1)', [partitionName(day)]);
      if (exists.rows.length === 0) await createPartition(c, day);
    });
    this.known.add(day);
  }

  /**
   * Retention: drop every daily partition whose whole day ends at or before the cutoff, and
   * delete the default partition's rows older than it. Partitions are counted before they are
   * dropped (so the table lock that DROP takes on the parent, which stops all inserts, is held
   * for the drop alone); an event of a pruned day stored in between is dropped uncounted.
   */
  async prune(olderThan: number): Promise<{ partitions: string[]; events: number }> {
    const old = (await this.list()).filter((p) => (p.day + 1) * DAY_MS <= olderThan);
    let events = await transaction(this.pool, async (c) => (await longQuery(c, `DELETE FROM ${DEFAULT_PARTITION} WHERE ts < $1`, [olderThan])).rowCount ?? 0, true);
    const dropped: string[] = [];
    for (const p of old) {
      const n = await transaction(this.pool, async (c) => Number((await longQuery(c, `SELECT count(*) AS n FROM ${p.name}`)).rows[0].n), true);
      // One transaction per partition: each holds the parent's lock only for its own drop.
      const gone = await transaction(this.pool, async (c) => {
        await c.query(EVENTS_DDL_LOCK);
        const still = await c.query(`SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass($1) AND inhparent = 'events'::regclass`, [p.name]);
        if (still.rows.length === 0) return false; // another worker's prune was first
        await c.query(`DROP TABLE ${p.name}`);
        return true;
      });
      this.known.delete(p.day);
      if (!gone) continue;
      dropped.push(p.name);
      events += n;
    }
    return { partitions: dropped, events };
  }
}

/**
 * Make a day's partition, moving rows of that day out of the default partition first (a device
 * whose clock ran more than the window ahead): PostgreSQL refuses to attach a partition while the
 * default one holds rows of its range. The default partition is locked first, so no insert can
 * add such a row between the move and the attach, and the lock is never upgraded mid-way (an
 * insert waiting on a row this transaction deletes could otherwise deadlock with it).
 */
async function createPartition(c: PoolClient, day: number): Promise<void> {
  const name = partitionName(day);
  const lo = day * DAY_MS;
  const hi = lo + DAY_MS;
  await c.query(`LOCK TABLE ${DEFAULT_PARTITION} IN ACCESS EXCLUSIVE MODE`);
  await c.query(`CREATE TABLE ${name} (LIKE events INCLUDING DEFAULTS)`);
  await c.query(
    `WITH moved AS (DELETE FROM ${DEFAULT_PARTITION} WHERE ts >= $1 AND ts < $2 RETURNING ${COLUMNS})
     INSERT INTO ${name} (${COLUMNS}) SELECT ${COLUMNS} FROM moved`,
    [lo, hi],
  );
  await c.query(`ALTER TABLE events ATTACH PARTITION ${name} FOR VALUES FROM (${lo}) TO (${hi})`);
}
