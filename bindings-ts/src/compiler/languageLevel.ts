// What the device's JavaScript offers per API version (spec, "Language support"): ES5.1, plus
// promises, ArrayBuffer and typed arrays in every version, and DataView, Map and Set from 0.2.6
// on. Nothing else from ES2015 or later exists at run time: no Symbol, no iteration, no
// Object.values, no WeakMap.
//
// The type checker enforces it: each version compiles against its own lib (deviceLib.ts), which
// declares exactly these built-ins, so using anything else is a type error at its position. Syntax
// that TypeScript lowers to ES5 (let/const, classes, destructuring, spread over arrays, async
// functions, generators) needs no built-in beyond Promise and is accepted in every version.
import { API_VERSIONS, ApiVersion, compareVersions } from '../codegen/versions';

/** A built-in global beyond ES5 that some API versions have. */
export interface VersionedBuiltin {
  readonly name: string;
  readonly since: ApiVersion;
}

/** Built-in globals beyond ES5.1, with the first API version that has them. */
export const DEVICE_BUILTINS: readonly VersionedBuiltin[] = [
  { name: 'Promise', since: '0.0.9' },
  { name: 'DataView', since: '0.2.6' },
  { name: 'Map', since: '0.2.6' },
  { name: 'Set', since: '0.2.6' },
];

export function hasBuiltin(api: ApiVersion, name: string): boolean {
  const b = DEVICE_BUILTINS.find((x) => x.name === name);
  return b !== undefined && compareVersions(api, b.since) >= 0;
}

/** API versions that have a built-in, for messages ("Map is in API 0.2.6, not 0.1.5"). */
export function versionsWithBuiltin(name: string): ApiVersion[] {
  return API_VERSIONS.filter((v) => hasBuiltin(v, name));
}

/** One line for messages and docs: what the version's JavaScript has beyond ES5.1. */
export function describeLanguage(api: ApiVersion): string {
  const extra = ['Promise', 'ArrayBuffer', 'typed arrays'];
  for (const b of DEVICE_BUILTINS) if (b.name !== 'Promise' && hasBuiltin(api, b.name)) extra.push(b.name);
  const last = extra.pop() as string;
  return `ES5.1 with ${extra.join(', ')} and ${last}`;
}
