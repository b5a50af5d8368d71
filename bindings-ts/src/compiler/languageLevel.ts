// What the device's JavaScript offers per API version (spec, "Language support"): ES5.1 syntax
// plus promises, ArrayBuffer and typed arrays; DataView, Map and Set from 0.2.6 on.
//
// TypeScript's lib files cannot express that exactly: lib.es5.d.ts already declares DataView,
// and lib.es2015.collection.d.ts brings WeakMap and WeakSet along with Map and Set. So every
// version compiles against es5 + es2015.promise + es2015.collection, and the built-ins the
// version lacks are rejected by a check of value references (unavailableGlobals), which also
// covers .js apps that are not type-checked.
import { ApiVersion, compareVersions } from '../codegen/versions';

export interface LanguageLevel {
  /** Names for the TypeScript `lib` compiler option. */
  readonly tsLib: readonly string[];
  /** Built-ins the lib files declare but the device does not have, with the reason. */
  readonly unavailableGlobals: ReadonlyMap<string, string>;
}

const COLLECTIONS_SINCE = '0.2.6';

export function languageLevel(api: ApiVersion): LanguageLevel {
  const unavailable = new Map<string, string>();
  if (compareVersions(api, COLLECTIONS_SINCE) < 0) {
    for (const name of ['DataView', 'Map', 'Set']) {
      unavailable.set(name, `${name} is not available in API ${api} (it is supported from ${COLLECTIONS_SINCE} on)`);
    }
  }
  for (const name of ['WeakMap', 'WeakSet']) {
    unavailable.set(name, `${name} is not supported by the device runtime`);
  }
  return {
    tsLib: ['es5', 'es2015.promise', 'es2015.collection'],
    unavailableGlobals: unavailable,
  };
}
