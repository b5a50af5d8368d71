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

/** Edit distance (insertions, deletions, substitutions), case-insensitive: how far a typo is. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[y.length];
}

/**
 * The members of owner ("ble.build") in any API version closest to member, best first (at most
 * three): the "did you mean" of a member no version has. A name counts when it is within a third
 * of its length of edits (at least 2), or when one name contains the other; when none does, the
 * nearest one is given all the same.
 */
export function closestApiMembers(owner: string, member: string): string[] {
  const names = load()?.names ?? {};
  const prefix = `${owner}.`;
  const limit = Math.max(2, Math.floor(member.length / 3));
  return Object.keys(names)
    .filter((n) => n.startsWith(prefix) && !n.slice(prefix.length).includes('.'))
    .map((n) => {
      const m = n.slice(prefix.length);
      const lower = m.toLowerCase();
      const contains = lower.includes(member.toLowerCase()) || member.toLowerCase().includes(lower);
      return { n, d: contains ? Math.min(distance(m, member), limit) : distance(m, member) };
    })
    .sort((a, b) => a.d - b.d || a.n.localeCompare(b.n))
    // the near ones, or else the nearest: the author learns what the namespace does have
    .filter((c, i) => c.d <= limit || i === 0)
    .slice(0, 3)
    .map((c) => c.n);
}

/**
 * Why owner.member cannot run in api: in another version ("... is in API 0.2.6, not 0.0.9"), or in
 * none ("... is in no API version; did you mean ...?"). undefined when api has it.
 */
export function apiMemberProblem(owner: string, member: string, api: ApiVersion): string | undefined {
  const name = `${owner}.${member}`;
  const vs = apiVersionsOf(name);
  if (vs) return vs.includes(api) ? undefined : apiVersionHint(name, api);
  const close = closestApiMembers(owner, member).map((n) => {
    const where = apiVersionsOf(n) ?? [];
    return where.includes(api) ? n : `${n} (API ${joinVersions(where)})`;
  });
  const mean = close.length > 0 ? `; did you mean ${close.join(', ')}?` : '';
  return `${name} is in no API version (${joinVersions(load()?.versions ?? [])})${mean}`;
}
