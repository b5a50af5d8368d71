// The scenario schema's validator. Compiling the schema with ajv takes a process about 0.2 s, on
// every `beacon run --world`; ajv's standalone code (the validator as a JavaScript module, which
// ajv documents for exactly this) is therefore kept in the tools' cache directory
// (toolsCache.ts), named by the SHA-256 of the schema, ajv's version and the options, and loaded
// from there while those are unchanged. A damaged or missing file is compiled again.
import * as fs from 'fs';
import * as path from 'path';
import type { ValidateFunction } from 'ajv/dist/2020';
import { cacheRoot, readVerified, sha256, writeVerified } from '../toolsCache';

const OPTIONS = { allErrors: true, strict: true, allowUnionTypes: true } as const;

function ajvVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(require.resolve('ajv/package.json'), 'utf8')) as { version?: string }).version ?? '?';
  } catch {
    return '?';
  }
}

/** Evaluate standalone validator code as a CommonJS module whose require() is this module's. */
function load(code: string): ValidateFunction | undefined {
  const mod: { exports: unknown } = { exports: {} };
  new Function('require', 'module', 'exports', code)(require, mod, mod.exports);
  const v = mod.exports as ValidateFunction | { default?: ValidateFunction };
  return typeof v === 'function' ? v : v.default;
}

/** The validator of the JSON schema in `schemaFile` (draft 2020-12). */
export function schemaValidator(schemaFile: string): ValidateFunction {
  const text = fs.readFileSync(schemaFile, 'utf8');
  const key = sha256(`${text}\0ajv ${ajvVersion()}\0${JSON.stringify(OPTIONS)}\0standalone 1`);
  const file = path.join(cacheRoot(), 'schema', `${path.basename(schemaFile, '.json')}-${key.slice(0, 24)}.js`);
  const cached = readVerified(file);
  if (cached !== undefined) {
    const v = load(cached);
    if (v) return v;
  }
  // ajv itself only when compiling.
  const { default: Ajv2020 } = require('ajv/dist/2020') as typeof import('ajv/dist/2020');
  const { default: standaloneCode } = require('ajv/dist/standalone') as typeof import('ajv/dist/standalone');
  const ajv = new Ajv2020({ ...OPTIONS, code: { source: true } });
  const validate = ajv.compile(JSON.parse(text));
  writeVerified(file, standaloneCode(ajv, validate));
  return validate;
}
