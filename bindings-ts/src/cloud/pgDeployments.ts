// Deployments in the PostgreSQL store (deployments.ts has the model; the same tables as
// sqliteDeployments.ts), created by PgStore.init with CREATE TABLE IF NOT EXISTS, so a database
// from before deployments gets them at the next start of a worker.
import type { Pool } from 'pg';
import { Assignment, DeploymentRecord, DeploymentStore, DeviceDeployState, PackageInfo } from './deployments';
import { transaction } from './pgEvents';
import { toDeviceDeployment, toPackage } from './sqliteDeployments';

export const DEPLOYMENT_SCHEMA = `
CREATE TABLE IF NOT EXISTS packages (
  hash TEXT PRIMARY KEY,
  bytes BYTEA NOT NULL,
  size BIGINT NOT NULL,
  api BIGINT NOT NULL,
  signed BOOLEAN NOT NULL,
  name TEXT NOT NULL,
  created BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS deployments (
  id BIGSERIAL PRIMARY KEY,
  hash TEXT NOT NULL REFERENCES packages(hash),
  name TEXT NOT NULL,
  created BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS deployment_devices (
  deployment_id BIGINT NOT NULL REFERENCES deployments(id),
  device_id TEXT NOT NULL,
  state TEXT NOT NULL,
  fetched BIGINT NOT NULL DEFAULT 0,
  reason TEXT,
  updated BIGINT NOT NULL,
  PRIMARY KEY (deployment_id, device_id)
);
CREATE INDEX IF NOT EXISTS deployment_devices_by_device ON deployment_devices (device_id, deployment_id);
`;

const PACKAGE_COLUMNS = 'p.hash, p.size, p.api, p.signed::int AS signed, d.name';

export class PgDeployments implements DeploymentStore {
  constructor(private readonly pool: Pool) {}

  async createDeployment(pkg: PackageInfo, bytes: Buffer, devices: readonly string[], now: number): Promise<number> {
    return transaction(this.pool, async (c) => {
      await c.query('INSERT INTO packages (hash, bytes, size, api, signed, name, created) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (hash) DO NOTHING', [
        pkg.hash,
        bytes,
        pkg.size,
        pkg.api,
        pkg.signed,
        pkg.name,
        now,
      ]);
      const r = await c.query<{ id: number }>('INSERT INTO deployments (hash, name, created) VALUES ($1, $2, $3) RETURNING id', [pkg.hash, pkg.name, now]);
      const id = r.rows[0].id;
      await c.query("INSERT INTO deployment_devices (deployment_id, device_id, state, updated) SELECT $1, unnest($2::text[]), 'pending', $3", [id, [...devices], now]);
      return id;
    });
  }

  async assignment(deviceId: string): Promise<Assignment | undefined> {
    const r = await this.pool.query(
      `SELECT dd.deployment_id, dd.state, ${PACKAGE_COLUMNS} FROM deployment_devices dd
       JOIN deployments d ON d.id = dd.deployment_id JOIN packages p ON p.hash = d.hash
       WHERE dd.device_id = $1 ORDER BY dd.deployment_id DESC LIMIT 1`,
      [deviceId],
    );
    const row = r.rows[0];
    return row ? { deploymentId: row.deployment_id, package: toPackage(row), state: row.state as DeviceDeployState } : undefined;
  }

  async packageBytes(hash: string): Promise<Buffer | undefined> {
    const r = await this.pool.query<{ bytes: Buffer }>('SELECT bytes FROM packages WHERE hash = $1', [hash]);
    return r.rows[0]?.bytes;
  }

  async setDeviceState(deploymentId: number, deviceId: string, state: DeviceDeployState, fetched: number, reason: string | undefined, now: number): Promise<void> {
    await this.pool.query('UPDATE deployment_devices SET state = $1, fetched = $2, reason = $3, updated = $4 WHERE deployment_id = $5 AND device_id = $6', [
      state,
      fetched,
      reason ?? null,
      now,
      deploymentId,
      deviceId,
    ]);
  }

  async listDeployments(): Promise<DeploymentRecord[]> {
    const r = await this.pool.query<{ id: number }>('SELECT id FROM deployments ORDER BY id');
    const out: DeploymentRecord[] = [];
    for (const { id } of r.rows) {
      const d = await this.deployment(id);
      if (d) out.push(d);
    }
    return out;
  }

  async deployment(id: number): Promise<DeploymentRecord | undefined> {
    const r = await this.pool.query(`SELECT d.id, d.created, ${PACKAGE_COLUMNS} FROM deployments d JOIN packages p ON p.hash = d.hash WHERE d.id = $1`, [id]);
    const row = r.rows[0];
    if (!row) return undefined;
    const devs = await this.pool.query('SELECT * FROM deployment_devices WHERE deployment_id = $1 ORDER BY device_id', [id]);
    return { id: row.id, package: toPackage(row), created: row.created, devices: devs.rows.map(toDeviceDeployment) };
  }
}
