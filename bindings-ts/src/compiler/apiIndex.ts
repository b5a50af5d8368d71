// Which API versions have each name of the device API (bindings-ts/types/api-index.json, written
// by the codegen): used to tell an author that a name exists, just not in the version built for.
import * as fs from 'fs';
import * as path from 'path';
import { ApiVersion, toolsRoot } from '../codegen/versions';

interface ApiIndex {
  versions: string[];
  names: Record<string, string[]>;
}

let index: ApiIndex | null | undefined;

function load(): ApiIndex | null {
  if (index !== undefined) return index;
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(path.join(toolsRoot(), 'types', 'api-index.json'), 'utf8'));
    const o = parsed as Partial<ApiIndex>;
    index = o && typeof o.names === 'object' && o.names !== null ? (o as ApiIndex) : null;
  } catch {
    index = null;
  }
  return index;
}

/** The versions that have an API name ("timers.count"), or undefined when no version has it. */
export function apiVersionsOf(name: string): readonly string[] | undefined {
  const v = load()?.names[name];
  return Array.isArray(v) && v.length > 0 ? v : undefined;
}

/** "and"-joined list: "0.1.5 and 0.2.6". */
export function joinVersions(vs: readonly string[]): string {
  return vs.length <= 1 ? vs.join('') : `${vs.slice(0, -1).join(', ')} and ${vs[vs.length - 1]}`;
}

/** "timers.count is in API 0.2.6, not 0.0.9", or undefined when the name is in no version. */
export function apiVersionHint(name: string, api: ApiVersion): string | undefined {
  const vs = apiVersionsOf(name);
  if (!vs || vs.includes(api)) return undefined;
  return `${name} is in API ${joinVersions(vs)}, not ${api}`;
}
