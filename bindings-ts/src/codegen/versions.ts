// The firmware API versions a micro-app can target. One firmware serves all of them: the API
// version written into the app package selects the surface the app sees.
import * as fs from 'fs';
import * as path from 'path';

export const API_VERSIONS = ['0.0.9', '0.1.5', '0.2.6'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const DEFAULT_API_VERSION: ApiVersion = '0.2.6';

export function isApiVersion(v: string): v is ApiVersion {
  return (API_VERSIONS as readonly string[]).includes(v);
}

/** Parse "0.2.6" into [0, 2, 6]; throws on anything else. */
export function parseVersion(v: string): [number, number, number] {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(v);
  if (!m) throw new Error(`not a version: '${v}' (expected major.minor.patch)`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** The packed form written into packages and seen by the C side: major<<16 | minor<<8 | patch. */
export function packVersion(v: string): number {
  const [a, b, c] = parseVersion(v);
  return (a << 16) | (b << 8) | c;
}

export function compareVersions(a: string, b: string): number {
  return packVersion(a) - packVersion(b);
}

/** Root of the bindings-ts package (works from src/ and from dist/src/). */
export function toolsRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}

/** Generated typings that micro-app authors compile against, one file per API version. */
export function typingsFile(version: ApiVersion): string {
  return path.join(toolsRoot(), 'types', `beacon-${version}.d.ts`);
}
