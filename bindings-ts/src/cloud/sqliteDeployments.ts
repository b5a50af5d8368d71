// Deployments in the SQLite store (deployments.ts has the model). Created with the other tables
// by SqliteStore.init: CREATE TABLE IF NOT EXISTS, so a store from before deployments gets them
// at its next start and nothing else changes.
import type Database from 'better-sqlite3';
import { Assignment, DeploymentRecord, DeploymentStore, DeviceDeployState, DeviceDeployment, PackageInfo, Rollout, RolloutStatus, SINGLE_STAGE, stageOf } from './deployments';

export const DEPLOYMENT_SCHEMA = `
CREATE TABLE IF NOT EXISTS packages (
  hash TEXT PRIMARY KEY,
  bytes BLOB NOT NULL,
  size INTEGER NOT NULL,
  api INTEGER NOT NULL,
  signed INTEGER NOT NULL,
  name TEXT NOT NULL,
  created INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS deployments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  hash TEXT NOT NULL REFERENCES packages(hash),
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  stages TEXT NOT NULL DEFAULT '[100]',
  min_healthy INTEGER NOT NULL DEFAULT 0,
  stage INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'running',
  stopped TEXT
);
CREATE TABLE IF NOT EXISTS deployment_devices (
  deployment_id INTEGER NOT NULL REFERENCES deployments(id),
  device_id TEXT NOT NULL,
  stage INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL,
  fetched INTEGER NOT NULL DEFAULT 0,
  reason TEXT,
  previous TEXT,
  updated INTEGER NOT NULL,
  PRIMARY KEY (deployment_id, device_id)
);
CREATE INDEX IF NOT EXISTS deployment_devices_by_device ON deployment_devices (device_id, deployment_id);
`;

interface PackageRow {
  hash: string;
  size: number;
  api: number;
  signed: number;
  name: string;
}

interface DeviceRow {
  device_id: string;
  stage: number;
  state: string;
  fetched: number;
  reason: string | null;
  updated: number;
}

export function toPackage(r: PackageRow): PackageInfo {
  return { hash: r.hash, size: r.size, api: r.api, signed: Boolean(r.signed), name: r.name };
}

export function toDeviceDeployment(r: DeviceRow): DeviceDeployment {
  const d: DeviceDeployment = { deviceId: r.device_id, stage: r.stage, state: r.state as DeviceDeployState, fetched: r.fetched, updated: r.updated };
  if (r.reason !== null) d.reason = r.reason;
  return d;
}

export interface DeploymentRow {
  id: number;
  created: number;
  stages: string;
  min_healthy: number;
  stage: number;
  status: string;
  stopped: string | null;
}

export function toDeployment(r: DeploymentRow & PackageRow, devices: DeviceDeployment[]): DeploymentRecord {
  const d: DeploymentRecord = {
    id: r.id,
    package: toPackage(r),
    created: r.created,
    rollout: { stages: JSON.parse(r.stages) as number[], minHealthy: r.min_healthy },
    stage: r.stage,
    status: r.status as RolloutStatus,
    devices,
  };
  if (r.stopped !== null) d.stopped = r.stopped;
  return d;
}

export class SqliteDeployments implements DeploymentStore {
  constructor(private readonly db: Database.Database) {}

  async createDeployment(pkg: PackageInfo, bytes: Buffer, devices: readonly string[], now: number, rollout: Rollout = SINGLE_STAGE): Promise<number> {
    return this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO packages (hash, bytes, size, api, signed, name, created) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING')
        .run(pkg.hash, bytes, pkg.size, pkg.api, pkg.signed ? 1 : 0, pkg.name, now);
      const id = Number(
        this.db.prepare('INSERT INTO deployments (hash, name, created, stages, min_healthy) VALUES (?, ?, ?, ?, ?)').run(pkg.hash, pkg.name, now, JSON.stringify(rollout.stages), rollout.minHealthy).lastInsertRowid,
      );
      const add = this.db.prepare("INSERT INTO deployment_devices (deployment_id, device_id, stage, state, updated) VALUES (?, ?, ?, 'pending', ?)");
      const stages = stageOf(rollout, devices.length);
      devices.forEach((d, i) => add.run(id, d, stages[i], now));
      return id;
    })();
  }

  async assignment(deviceId: string): Promise<Assignment | undefined> {
    const r = this.db
      .prepare(
        `SELECT dd.deployment_id, dd.state, dd.stage AS device_stage, d.stage, d.status, p.hash, p.size, p.api, p.signed, d.name FROM deployment_devices dd
         JOIN deployments d ON d.id = dd.deployment_id JOIN packages p ON p.hash = d.hash
         WHERE dd.device_id = ? ORDER BY dd.deployment_id DESC LIMIT 1`,
      )
      .get(deviceId) as (PackageRow & { deployment_id: number; state: string; device_stage: number; stage: number; status: string }) | undefined;
    return r
      ? { deploymentId: r.deployment_id, package: toPackage(r), state: r.state as DeviceDeployState, deviceStage: r.device_stage, stage: r.stage, status: r.status as RolloutStatus }
      : undefined;
  }

  async packageBytes(hash: string): Promise<Buffer | undefined> {
    const r = this.db.prepare('SELECT bytes FROM packages WHERE hash = ?').get(hash) as { bytes: Buffer } | undefined;
    return r?.bytes;
  }

  async setDeviceState(deploymentId: number, deviceId: string, state: DeviceDeployState, fetched: number, reason: string | undefined, now: number): Promise<void> {
    this.db
      .prepare('UPDATE deployment_devices SET state = ?, fetched = ?, reason = ?, updated = ? WHERE deployment_id = ? AND device_id = ?')
      .run(state, fetched, reason ?? null, now, deploymentId, deviceId);
  }

  async listDeployments(): Promise<DeploymentRecord[]> {
    const ids = this.db.prepare('SELECT id FROM deployments ORDER BY id').all() as { id: number }[];
    const out: DeploymentRecord[] = [];
    for (const { id } of ids) {
      const d = await this.deployment(id);
      if (d) out.push(d);
    }
    return out;
  }

  async deployment(id: number): Promise<DeploymentRecord | undefined> {
    const r = this.db
      .prepare('SELECT d.*, p.size, p.api, p.signed FROM deployments d JOIN packages p ON p.hash = d.hash WHERE d.id = ?')
      .get(id) as (PackageRow & DeploymentRow) | undefined;
    if (!r) return undefined;
    const devices = (this.db.prepare('SELECT * FROM deployment_devices WHERE deployment_id = ? ORDER BY stage, device_id').all(id) as DeviceRow[]).map(toDeviceDeployment);
    return toDeployment(r, devices);
  }

  async setStage(deploymentId: number, stage: number, status: RolloutStatus): Promise<void> {
    this.db.prepare("UPDATE deployments SET stage = ?, status = ? WHERE id = ? AND status <> 'stopped'").run(stage, status, deploymentId);
  }

  async stopDeployment(deploymentId: number, why: string): Promise<void> {
    this.db.prepare("UPDATE deployments SET status = 'stopped', stopped = ? WHERE id = ?").run(why, deploymentId);
  }

  async setPrevious(deploymentId: number, deviceId: string, hash: string): Promise<void> {
    this.db.prepare('UPDATE deployment_devices SET previous = ? WHERE deployment_id = ? AND device_id = ? AND previous IS NULL').run(hash, deploymentId, deviceId);
  }

  async previous(deploymentId: number): Promise<{ deviceId: string; hash: string; state: DeviceDeployState }[]> {
    const rows = this.db.prepare('SELECT device_id, previous, state FROM deployment_devices WHERE deployment_id = ? AND previous IS NOT NULL ORDER BY device_id').all(deploymentId) as {
      device_id: string;
      previous: string;
      state: string;
    }[];
    return rows.map((r) => ({ deviceId: r.device_id, hash: r.previous, state: r.state as DeviceDeployState }));
  }

  async packageInfo(hash: string): Promise<PackageInfo | undefined> {
    const r = this.db.prepare('SELECT hash, size, api, signed, name FROM packages WHERE hash = ?').get(hash) as PackageRow | undefined;
    return r ? toPackage(r) : undefined;
  }
}
