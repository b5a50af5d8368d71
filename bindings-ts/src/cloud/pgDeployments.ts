// Deployments in the PostgreSQL store (deployments.ts has the model; the same tables as
// sqliteDeployments.ts), created by PgStore.init with CREATE TABLE IF NOT EXISTS, so a database
// from before deployments gets them at the next start of a worker.
import type { Pool } from 'pg';
import { Assignment, DeploymentRecord, DeploymentStore, DeviceDeployState, PackageInfo, Rollout, RolloutStatus, SINGLE_STAGE, stageOf } from './deployments';
import { transaction } from './pgEvents';
import { toDeployment, toDeviceDeployment, toPackage } from './sqliteDeployments';

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
  created BIGINT NOT NULL,
  stages TEXT NOT NULL DEFAULT '[100]',
  min_healthy BIGINT NOT NULL DEFAULT 0,
  stage INT NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'running',
  stopped TEXT
);
CREATE TABLE IF NOT EXISTS deployment_devices (
  deployment_id BIGINT NOT NULL REFERENCES deployments(id),
  device_id TEXT NOT NULL,
  stage INT NOT NULL DEFAULT 0,
  state TEXT NOT NULL,
  fetched BIGINT NOT NULL DEFAULT 0,
  reason TEXT,
  previous TEXT,
  updated BIGINT NOT NULL,
  PRIMARY KEY (deployment_id, device_id)
);
CREATE INDEX IF NOT EXISTS deployment_devices_by_device ON deployment_devices (device_id, deployment_id);
`;

const PACKAGE_COLUMNS = 'p.hash, p.size, p.api, p.signed::int AS signed, d.name';

export class PgDeployments implements DeploymentStore {
  constructor(private readonly pool: Pool) {}

  async createDeployment(pkg: PackageInfo, bytes: Buffer, devices: readonly string[], now: number, rollout: Rollout = SINGLE_STAGE): Promise<number> {
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
      const r = await c.query<{ id: number }>('INSERT INTO deployments (hash, name, created, stages, min_healthy) VALUES ($1, $2, $3, $4, $5) RETURNING id', [
        pkg.hash,
        pkg.name,
        now,
        JSON.stringify(rollout.stages),
        rollout.minHealthy,
      ]);
      const id = r.rows[0].id;
      await c.query("INSERT INTO deployment_devices (deployment_id, device_id, stage, state, updated) SELECT $1, d, s, 'pending', $4 FROM unnest($2::text[], $3::int[]) AS x(d, s)", [
        id,
        [...devices],
        stageOf(rollout, devices.length),
        now,
      ]);
      return id;
    });
  }

  async assignment(deviceId: string): Promise<Assignment | undefined> {
    const r = await this.pool.query(
      `SELECT dd.deployment_id, dd.state, dd.stage AS device_stage, d.stage, d.status, ${PACKAGE_COLUMNS} FROM deployment_devices dd
       JOIN deployments d ON d.id = dd.deployment_id JOIN packages p ON p.hash = d.hash
       WHERE dd.device_id = $1 ORDER BY dd.deployment_id DESC LIMIT 1`,
      [deviceId],
    );
    const row = r.rows[0];
    return row
      ? { deploymentId: row.deployment_id, package: toPackage(row), state: row.state as DeviceDeployState, deviceStage: row.device_stage, stage: row.stage, status: row.status as RolloutStatus }
      : undefined;
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
    const r = await this.pool.query(`SELECT d.*, p.size, p.api, p.signed::int AS signed FROM deployments d JOIN packages p ON p.hash = d.hash WHERE d.id = $1`, [id]);
    const row = r.rows[0];
    if (!row) return undefined;
    const devs = await this.pool.query('SELECT * FROM deployment_devices WHERE deployment_id = $1 ORDER BY stage, device_id', [id]);
    return toDeployment(row, devs.rows.map(toDeviceDeployment));
  }

  async setStage(deploymentId: number, stage: number, status: RolloutStatus): Promise<void> {
    await this.pool.query("UPDATE deployments SET stage = $1, status = $2 WHERE id = $3 AND status <> 'stopped'", [stage, status, deploymentId]);
  }

  async stopDeployment(deploymentId: number, why: string): Promise<void> {
    await this.pool.query("UPDATE deployments SET status = 'stopped', stopped = $1 WHERE id = $2", [why, deploymentId]);
  }

  async setPrevious(deploymentId: number, deviceId: string, hash: string): Promise<void> {
    await this.pool.query('UPDATE deployment_devices SET previous = $1 WHERE deployment_id = $2 AND device_id = $3 AND previous IS NULL', [hash, deploymentId, deviceId]);
  }

  async previous(deploymentId: number): Promise<{ deviceId: string; hash: string; state: DeviceDeployState }[]> {
    const r = await this.pool.query<{ device_id: string; previous: string; state: string }>(
      'SELECT device_id, previous, state FROM deployment_devices WHERE deployment_id = $1 AND previous IS NOT NULL ORDER BY device_id',
      [deploymentId],
    );
    return r.rows.map((x) => ({ deviceId: x.device_id, hash: x.previous, state: x.state as DeviceDeployState }));
  }

  async packageInfo(hash: string): Promise<PackageInfo | undefined> {
    const r = await this.pool.query('SELECT hash, size, api, signed::int AS signed, name FROM packages WHERE hash = $1', [hash]);
    return r.rows[0] ? toPackage(r.rows[0]) : undefined;
  }
}
