// The load generator's devices in the store (`beacon cloud load`, loadGen.ts): their ids,
// passwords and credential hashes, and the SQL count of what a run stored.
//
// A store gets one secret for load devices (setting `load.secret`, made on first use). From it
// everything else is derived, so nothing per device has to be kept anywhere and a second run
// reuses the first one's credentials: the fleet's tag (8 hex digits of every id), each device's
// password, and the salt of its hash. Hashing is the slow part (PBKDF2, deliberately: about
// 3,000 a second on two cores), and the salt tells a later run which stored hashes it wrote
// itself without hashing again: a device whose stored hash carries its derived salt and the
// current iteration count has the derived password.
import * as crypto from 'crypto';
import { HASH_ITERATIONS, hashSecret, SALT_BYTES } from './credentials';
import type { CloudStore } from './store';

export const LOAD_SECRET_SETTING = 'load.secret';

/** The store's secret for load devices, made on first use. */
export async function loadSecret(store: CloudStore): Promise<string> {
  let secret = await store.setting(LOAD_SECRET_SETTING);
  if (secret === undefined) {
    secret = crypto.randomBytes(32).toString('hex');
    await store.setSetting(LOAD_SECRET_SETTING, secret);
  }
  return secret;
}

function derive(secret: string, what: string): Buffer {
  return crypto.createHmac('sha256', secret).update(what).digest();
}

/** 8 hex digits shared by the ids of one store's load devices. */
export function fleetTag(secret: string): string {
  return derive(secret, 'fleet').subarray(0, 4).toString('hex');
}

/**
 * Load device `index` (0-based): 16 bytes as hex like the product's ids, with the same first
 * and third words as the simulator's devices and the fleet tag and index in between.
 */
export function loadDeviceId(tag: string, index: number): string {
  return `5eac0b1d${tag}beac051a${index.toString(16).padStart(8, '0')}`;
}

/** A load device's password: 24 bytes as base64url, the shape newSecret() gives. */
export function loadPassword(secret: string, id: string): string {
  return derive(secret, `password:${id}`).subarray(0, 24).toString('base64url');
}

function loadSalt(secret: string, id: string): Buffer {
  return derive(secret, `salt:${id}`).subarray(0, SALT_BYTES);
}

/** Whether a stored hash is the one this secret gives the device (see the top of the file). */
function ownHash(secret: string, id: string, hash: string | undefined): boolean {
  return hash !== undefined && hash.startsWith(`$7$${HASH_ITERATIONS}$${loadSalt(secret, id).toString('base64')}$`);
}

export interface FleetCredentials {
  secret: string;
  tag: string;
  /** Hashes written by this call. */
  issued: number;
  /** Devices whose stored hash was already theirs. */
  reused: number;
}

/**
 * Make sure load devices 0..n-1 have credentials in the store: hash and store only those that
 * lack their own hash. Hashes run in parallel (crypto.pbkdf2 on libuv's thread pool) while
 * earlier ones are written.
 */
export async function ensureFleetCredentials(store: CloudStore, n: number, progress?: (done: number, total: number) => void): Promise<FleetCredentials> {
  const secret = await loadSecret(store);
  const tag = fleetTag(secret);
  const stored = new Map((await store.credentials()).map((c) => [c.id, c.hash]));
  const missing: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = loadDeviceId(tag, i);
    if (!ownHash(secret, id, stored.get(id))) missing.push(id);
  }
  stored.clear();
  let next = 0;
  let done = 0;
  const now = Date.now();
  // 32 at a time: enough to keep the thread pool and the database busy together.
  const lane = async (): Promise<void> => {
    while (next < missing.length) {
      const id = missing[next++];
      const hash = await hashSecret(loadPassword(secret, id), HASH_ITERATIONS, loadSalt(secret, id));
      await store.putCredential(id, hash, now);
      done++;
      if (done % 1000 === 0) progress?.(done, missing.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(32, missing.length) }, lane));
  return { secret, tag, issued: missing.length, reused: n - missing.length };
}

/**
 * How many events of one type the store holds, and how many distinct (device, stream, seq)
 * among them, counted by SQL on a connection of its own (the store interface has no such
 * query, and the count must see what the cloud committed, whichever process it runs in).
 */
export async function countEventsOfType(db: string, type: string): Promise<{ stored: number; distinct: number }> {
  if (/^postgres(ql)?:\/\//.test(db)) {
    const { Client } = await import('pg');
    const c = new Client({ connectionString: db });
    await c.connect();
    try {
      const r = await c.query<{ n: string; d: string }>(
        'SELECT count(*) AS n, count(DISTINCT (device_id, stream, seq)) AS d FROM events WHERE type = $1',
        [type],
      );
      return { stored: Number(r.rows[0].n), distinct: Number(r.rows[0].d) };
    } finally {
      await c.end();
    }
  }
  const { default: Database } = await import('better-sqlite3');
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    d.pragma('busy_timeout = 5000');
    const r = d
      .prepare("SELECT count(*) AS n, count(DISTINCT device_id || '/' || stream || '/' || seq) AS d FROM events WHERE type = ?")
      .get(type) as { n: number; d: number };
    return { stored: r.n, distinct: r.d };
  } finally {
    d.close();
  }
}
