// Device secrets and their hashes. The store keeps only a hash, in Mosquitto's own PBKDF2
// format ("$7$<iterations>$<salt, base64>$<PBKDF2-HMAC-SHA512, base64>"), so the same record
// authenticates a device against the embedded broker and, written into a password file,
// against an external Mosquitto. Secrets are 192 random bits: a slow hash adds nothing against
// guessing them, so the iteration count only needs to make a stolen hash file useless for
// precomputed tables and keep 1,000 simultaneous connects cheap.
import * as crypto from 'crypto';
import { promisify } from 'util';

const pbkdf2 = promisify(crypto.pbkdf2);

export const HASH_ITERATIONS = 1000;
export const SALT_BYTES = 12;
const HASH_BYTES = 64;

/** A new device secret: 24 random bytes as base64url (32 characters, safe in any config file). */
export function newSecret(): string {
  return crypto.randomBytes(24).toString('base64url');
}

/** A new HTTP API token: 32 random bytes as hex. */
export function newToken(): string {
  return crypto.randomBytes(32).toString('hex');
}

/**
 * The stored form of a secret. The salt is random unless given: the load generator's devices
 * (loadFleet.ts) derive theirs, so a later run can tell its own hashes from the salt alone.
 */
export async function hashSecret(secret: string, iterations = HASH_ITERATIONS, salt: Buffer = crypto.randomBytes(SALT_BYTES)): Promise<string> {
  const hash = await pbkdf2(Buffer.from(secret, 'utf8'), salt, iterations, HASH_BYTES, 'sha512');
  return `$7$${iterations}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Whether `secret` matches a stored hash; false for a hash in any other format. */
export async function verifySecret(secret: string | Buffer, stored: string): Promise<boolean> {
  const m = /^\$7\$(\d{1,7})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(stored);
  if (!m) return false;
  const iterations = Number(m[1]);
  const salt = Buffer.from(m[2], 'base64');
  const want = Buffer.from(m[3], 'base64');
  if (iterations < 1 || want.length !== HASH_BYTES) return false;
  const got = await pbkdf2(typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret, salt, iterations, HASH_BYTES, 'sha512');
  return crypto.timingSafeEqual(got, want);
}

/** Constant-time comparison of two tokens. */
export function sameToken(a: string, b: string): boolean {
  const x = crypto.createHash('sha256').update(a).digest();
  const y = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(x, y);
}
