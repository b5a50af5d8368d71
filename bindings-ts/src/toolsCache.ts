// The tools' cache directory: what the tools make once and keep (compiled packages, the device
// libs the type checker reads, the scenario schema's validator), so that a command does not make
// it again while nothing it came from has changed.
//
// Location: $BEACON_CACHE_DIR, else $XDG_CACHE_HOME/beacon-tools, else ~/.cache/beacon-tools.
// BEACON_BUILD_CACHE=off makes every command work without it. A directory that cannot be written
// only means nothing is kept; a damaged file is made again (verifiedText).
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export function cacheRoot(): string {
  const env = process.env.BEACON_CACHE_DIR;
  if (env) return path.resolve(env);
  const xdg = process.env.XDG_CACHE_HOME;
  return path.join(xdg ? path.resolve(xdg) : path.join(os.homedir(), '.cache'), 'beacon-tools');
}

export function cachingEnabled(): boolean {
  const v = (process.env.BEACON_BUILD_CACHE ?? '').toLowerCase();
  return !['off', '0', 'no', 'false'].includes(v);
}

export function sha256(data: string | Buffer): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

/** The text of a file written by writeVerified, or undefined if it is missing or damaged. */
export function readVerified(file: string): string | undefined {
  if (!cachingEnabled()) return undefined;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const nl = text.indexOf('\n');
  const body = text.slice(nl + 1);
  return nl > 0 && text.slice(0, nl) === `// sha256 ${sha256(body)}` ? body : undefined;
}

/** Write `body` under a first line holding its SHA-256, atomically (a temporary name, then rename). */
export function writeVerified(file: string, body: string): void {
  if (!cachingEnabled()) return;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    fs.writeFileSync(tmp, `// sha256 ${sha256(body)}\n${body}`);
    fs.renameSync(tmp, file);
  } catch {
    // nowhere to keep it: made again next time
  }
}
