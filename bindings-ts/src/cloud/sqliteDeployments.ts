// Deployments in the SQLite store (deployments.ts has the model). Created with the other tables
// by SqliteStore.init: CREATE TABLE IF NOT EXISTS, so a store from before deployments gets them
// at its next start and nothing else changes.
import type Database from 'better-sqlite3';
import { Assignment, DeploymentRecord, DeploymentStore, DeviceDeployState, DeviceDeployment, PackageInfo } from './deployments';

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
  created INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS deployment_devices (
  deployment_id INTEGER NOT NULL REFERENCES deployments(id),
  device_id TEXT NOT NULL,
  state TEXT NOT NULL,
  fetched INTEGER NOT NULL DEFAULT 0,
  reason TEXT,
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
  state: string;
  fetched: number;
  reason: string | null;
  updated: number;
}

export function toPackage(r: PackageRow): PackageInfo {
  return { hash: r.hash, size: r.size, api: r.api, signed: Boolean(r.signed), name: r.name };
}

export function toDeviceDeployment(r: DeviceRow): DeviceDeployment {
  const d: DeviceDeployment = { deviceId: r.device_id, state: r.state as DeviceDeployState, fetched: r.fetched, updated: r.updated };
  if (r.reason !== null) d.reason = r.reason;
  return d;
}

export class SqliteDeployments implements DeploymentStore {
  constructor(private readonly db: Database.Database) {}

  async createDeployment(pkg: PackageInfo, bytes: Buffer, devices: readonly string[], now: number): Promise<number> {
    return this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO packages (hash, bytes, size, api, signed, name, created) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING')
        .run(pkg.hash, bytes, pkg.size, pkg.api, pkg.signed ? 1 : 0, pkg.name, now);
      const id = Number(this.db.prepare('INSERT INTO deployments (hash, name, created) VALUES (?, ?, ?)').run(pkg.hash, pkg.name, now).lastInsertRowid);
      const add = this.db.prepare("INSERT INTO deployment_devices (deployment_id, device_id, state, updated) VALUES (?, ?, 'pending', ?)");
      for (const d of devices) add.run(id, d, now);
      return id;
    })();
  }

  async assignment(deviceId: string): Promise<Assignment | undefined> {
    const r = this.db
      .prepare(
        `SELECT dd.deployment_id, dd.state, p.hash, p.size, p.api, p.signed, d.name FROM deployment_devices dd
         JOIN deployments d ON d.id = dd.deployment_id JOIN packages p ON p.hash = d.hash
         WHERE dd.device_id = ? ORDER BY dd.deployment_id DESC LIMIT 1`,
      )
      .get(deviceId) as (PackageRow & { deployment_id: number; state: string }) | undefined;
    return r ? { deploymentId: r.deployment_id, package: toPackage(r), state: r.state as DeviceDeployState } : undefined;
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
      .prepare('SELECT d.id, d.created, d.name, p.hash, p.size, p.api, p.signed FROM deployments d JOIN packages p ON p.hash = d.hash WHERE d.id = ?')
      .get(id) as (PackageRow & { id: number; created: number }) | undefined;
    if (!r) return undefined;
    const devices = (this.db.prepare('SELECT * FROM deployment_devices WHERE deployment_id = ? ORDER BY device_id').all(id) as DeviceRow[]).map(toDeviceDeployment);
    return { id: r.id, package: toPackage(r), created: r.created, devices };
  }
}
