// Emits bindings-ts/types/api-index.json: every name of the API (namespaces, functions, enum
// members, handle methods) with the versions that have it. The compiler uses it to turn "Property
// 'count' does not exist on type 'typeof timers'" into an error that says which API version has
// timers.count.
import type { ApiIR } from './ir';
import { API_VERSIONS } from './versions';

function versionsOf(mask: number): string[] {
  return API_VERSIONS.filter((_, i) => mask & (1 << i));
}

export function emitIndex(api: ApiIR): string {
  const names: Record<string, string[]> = {};
  const add = (name: string, mask: number) => {
    const prev = names[name] ? API_VERSIONS.reduce((m, v, i) => (names[name].includes(v) ? m | (1 << i) : m), 0) : 0;
    names[name] = versionsOf(prev | mask);
  };
  for (const ns of api.namespaces) add(ns.path, ns.mask);
  for (const fn of api.functions) {
    add(fn.owner ? `${fn.owner}.${fn.name}` : fn.name, fn.overloads.reduce((m, o) => m | o.mask, 0));
  }
  for (const k of api.consts) add(`${k.owner}.${k.name}`, k.values.reduce((m, v) => m | v.mask, 0));
  for (const hd of api.handles) {
    for (const m of hd.methods) add(`${hd.name}.${m.name}`, m.overloads.reduce((acc, o) => acc | o.mask, 0));
  }
  const sorted = Object.fromEntries(Object.keys(names).sort().map((k) => [k, names[k]]));
  return JSON.stringify({ versions: API_VERSIONS, names: sorted }, null, 1) + '\n';
}
