// `beacon codegen`: declarations in, C glue, typings and docs out. With check, nothing is
// written and the result says which generated files are out of date (CI runs this).
import * as fs from 'fs';
import * as path from 'path';
import { emitC } from './emit-c';
import { emitDocs, scanErrorCodes, scanImplemented } from './emit-docs';
import { emitEnergyTable } from './energyTable';
import { emitIndex } from './emit-index';
import { emitTypings } from './emit-typings';
import { parseApi } from './parse';
import { API_VERSIONS, toolsRoot } from './versions';

export { parseApi, DeclarationError } from './parse';

export interface CodegenOptions {
  check?: boolean;
  /** Repository root; defaults to the parent of bindings-ts. */
  root?: string;
  log?: (line: string) => void;
}

export interface CodegenResult {
  files: string[];
  stale: string[];
}

export interface GlueOptions {
  /** API versions to emit the glue for (see CGlueOptions.versions). */
  versions: readonly string[];
  /** Directory for api_types.{h,c} and api_glue.{h,c}; created if missing. */
  outDir: string;
  /** Repository root; defaults to the parent of bindings-ts. */
  root?: string;
}

/**
 * The C glue of some API versions only, written to outDir rather than over the committed files:
 * for a firmware that runs apps of those versions alone (it refuses the others as unknown), and
 * to measure what each version costs. A build uses it by compiling outDir in place of
 * src/runtime/generated and src/glue/generated. Returns the files written.
 */
export function writeGlue(options: GlueOptions): string[] {
  const root = options.root ?? path.dirname(toolsRoot());
  const glue = emitC(parseApi(path.join(root, 'bindings-ts', 'api')), { versions: options.versions });
  fs.mkdirSync(options.outDir, { recursive: true });
  const texts: [string, string][] = [
    ['api_types.h', glue.typesHeader], ['api_types.c', glue.typesSource],
    ['api_glue.h', glue.header], ['api_glue.c', glue.source],
  ];
  return texts.map(([name, text]) => {
    const file = path.join(options.outDir, name);
    fs.writeFileSync(file, text);
    return file;
  });
}

/**
 * Every generated file, by path relative to the repository root, from the declarations in apiDir
 * and the runtime sources in runtimeDir (which say what is implemented). Pure: writes nothing.
 */
export function generate(apiDir: string, runtimeDir: string): Map<string, string> {
  const api = parseApi(apiDir);
  const glue = emitC(api);
  const out = new Map<string, string>();
  out.set('src/runtime/generated/api_types.h', glue.typesHeader);
  out.set('src/runtime/generated/api_types.c', glue.typesSource);
  out.set('src/glue/generated/api_glue.h', glue.header);
  out.set('src/glue/generated/api_glue.c', glue.source);
  for (const v of API_VERSIONS) out.set(`bindings-ts/types/beacon-${v}.d.ts`, emitTypings(api, v));
  out.set('bindings-ts/types/api-index.json', emitIndex(api));
  out.set('docs/api.md', emitDocs(api, scanImplemented(runtimeDir), scanErrorCodes(runtimeDir)));
  return out;
}

export function runCodegen(options: CodegenOptions = {}): CodegenResult {
  const tools = toolsRoot();
  const root = options.root ?? path.dirname(tools);
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const outputs = generate(path.join(root, 'bindings-ts', 'api'), path.join(root, 'src', 'runtime'));
  // The energy model's figures (src/world/energy), a table of the world's rather than the API's.
  outputs.set('src/world/generated/world_energy_table.c', emitEnergyTable(path.join(root, 'src', 'world', 'energy')));
  const stale: string[] = [];
  for (const [rel, text] of outputs) {
    const file = path.join(root, rel);
    const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    if (current === text) continue;
    stale.push(rel);
    if (!options.check) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    }
  }
  for (const f of stale) log(options.check ? `out of date: ${f} (run npm run codegen)` : `wrote ${f}`);
  return { files: [...outputs.keys()], stale };
}
