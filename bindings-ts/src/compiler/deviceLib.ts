// The lib an app is type-checked against: the built-ins of its API version and nothing more
// (see languageLevel.ts). It is put together from TypeScript's own lib files, keeping only the
// declarations the device has, plus the iteration types of bindings-ts/lib/iteration.d.ts:
//
//   lib.es5.d.ts                 without Intl (no engine has ECMA-402), and without DataView
//                                before 0.2.6
//   lib.es2015.promise.d.ts      the Promise constructor (every version)
//   lib.es2015.collection.d.ts   Map and Set, from 0.2.6 (never WeakMap or WeakSet)
//
// Declarations are selected by name with TypeScript's parser, so a newer TypeScript only changes
// the lib where its own declarations of these built-ins change.
//
// Selecting takes a cold process about 0.15 s (parsing lib.es5.d.ts), so each lib is also kept in
// the tools' cache directory (toolsCache.ts) under the compiler's fingerprint (buildCache.ts: this
// code, iteration.d.ts and the installed TypeScript among it), with a SHA-256 of its text: a new
// compiler or TypeScript makes new libs, and a damaged file is made again.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { ApiVersion, toolsRoot } from '../codegen/versions';
import { cacheRoot, readVerified, writeVerified } from '../toolsCache';
import { compilerFingerprint } from './buildCache';
import { hasBuiltin } from './languageLevel';

function typescriptLib(name: string): string {
  return path.join(path.dirname(require.resolve('typescript')), `lib.${name}.d.ts`);
}

/** Name a top-level declaration introduces (the first one for `declare var a, b`). */
function declaredName(st: ts.Statement): string | undefined {
  if (ts.isVariableStatement(st)) {
    const d = st.declarationList.declarations[0];
    return d && ts.isIdentifier(d.name) ? d.name.text : undefined;
  }
  if (
    ts.isInterfaceDeclaration(st) ||
    ts.isTypeAliasDeclaration(st) ||
    ts.isFunctionDeclaration(st) ||
    ts.isModuleDeclaration(st) ||
    ts.isClassDeclaration(st)
  ) {
    return st.name && ts.isIdentifier(st.name) ? st.name.text : undefined;
  }
  return undefined;
}

/** The statements of a TypeScript lib file that `keep` accepts, as text. */
function selectFrom(lib: string, keep: (name: string | undefined, text: string) => boolean): string {
  const file = typescriptLib(lib);
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const parts: string[] = [`\n// ---- from TypeScript's lib.${lib}.d.ts\n`];
  for (const st of sf.statements) {
    if (keep(declaredName(st), st.getText(sf))) parts.push(st.getText(sf), '\n');
  }
  return parts.join('');
}

const COLLECTION_NAMES = ['Map', 'MapConstructor', 'ReadonlyMap', 'Set', 'SetConstructor', 'ReadonlySet'];

const cache = new Map<ApiVersion, string>();

function libCacheFile(api: ApiVersion): string {
  return path.join(cacheRoot(), 'lib', `beacon-${api}-${compilerFingerprint().slice(0, 24)}.d.ts`);
}

/** Text of the lib for an API version. */
export function deviceLibText(api: ApiVersion): string {
  const cached = cache.get(api) ?? readVerified(libCacheFile(api));
  if (cached !== undefined) {
    cache.set(api, cached);
    return cached;
  }
  const dataView = hasBuiltin(api, 'DataView');
  const parts = [
    '/// <reference no-default-lib="true"/>\n',
    `// The built-ins of API ${api}, selected from TypeScript's lib files (Apache-2.0, Microsoft\n`,
    '// Corporation) by the beacon compiler. Generated for each build; not for editing.\n',
    selectFrom('es5', (name, text) => {
      if (name === 'Intl' || /\bIntl\./.test(text)) return false;
      if (!dataView && (name === 'DataView' || name === 'DataViewConstructor')) return false;
      return true;
    }),
    selectFrom('es2015.promise', () => true),
  ];
  if (hasBuiltin(api, 'Map') || hasBuiltin(api, 'Set')) {
    parts.push(
      selectFrom('es2015.collection', (name) => name !== undefined && COLLECTION_NAMES.includes(name) && hasBuiltin(api, name.replace(/^Readonly|Constructor$/g, ''))),
    );
  }
  parts.push('\n// ---- bindings-ts/lib/iteration.d.ts\n', fs.readFileSync(path.join(toolsRoot(), 'lib', 'iteration.d.ts'), 'utf8'));
  const text = parts.join('');
  cache.set(api, text);
  writeVerified(libCacheFile(api), text);
  return text;
}

/** Write the lib for `api` into `dir`; returns its path. */
export function writeDeviceLib(api: ApiVersion, dir: string): string {
  const file = path.join(dir, `lib.beacon-${api}.d.ts`);
  fs.writeFileSync(file, deviceLibText(api));
  return file;
}

/** Whether a file is one of the device libs written by writeDeviceLib. */
export function isDeviceLib(file: string): boolean {
  return /[\\/]lib\.beacon-\d+\.\d+\.\d+\.d\.ts$/.test(file);
}
