// The stages of a build, source to unsigned package (see index.ts for the list). This module
// loads TypeScript, rollup and terser; compileApp.ts imports it only when the build cache has
// nothing current for the app, so commands that compile nothing never pay for it.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiVersion } from '../codegen/versions';
import { bundleApp } from './bundle';
import { scriptUsesCloud } from './cloudUse';
import { BuildError, Diagnostic } from './diagnostics';
import { checkEs5Syntax } from './es5check';
import { Engine, ensureHostTools } from './hostTools';
import { MinifyMode, minifyScript } from './minify';
import { packApp, PackReport } from './pack';
import { selectPolyfills } from './polyfill';
import { lookupPosition, shiftLines, SourceMapV3 } from './sourceMap';

export interface PipelineOptions {
  entry: string;
  apiVersion: ApiVersion;
  engine: Engine;
  typingsFile: string;
  /** Directory the package and its map go to: the map's sources are relative to it. */
  outDir: string;
  /** Path of the kept ES5 script: positions in the ES5 check's errors name it. */
  keptEs5: string;
  keptMin: string;
  /** Write the ES5 script to keptEs5 before checking it (so an error's positions can be looked up). */
  keepEs5: boolean;
  mode: MinifyMode;
  scriptName: string;
  onNote?: (line: string) => void;
}

/** What a build produced, before signing and before anything is written beside the source. */
export interface PipelineOutput {
  /** The package as beacon-pack wrote it (unsigned). */
  packageBytes: Buffer;
  /** Minified script -> sources, relative to outDir. */
  map: SourceMapV3;
  es5: string;
  /** What the engine compiled (polyfills included). */
  script: string;
  pack: PackReport;
  sourceBytes: number;
  polyfillBytes: number;
  polyfills: string[];
  modules: string[];
  /** Whether the app's modules refer to the API's cloud or sync objects (cloudUse.ts). */
  usesCloud: boolean;
  warnings: Diagnostic[];
  /** Every file the build read, for the build cache. */
  inputs: string[];
  /** The beacon-pack that compiled the bytecode. */
  packTool: string;
}

export async function runPipeline(opts: PipelineOptions): Promise<PipelineOutput> {
  const { entry, apiVersion, engine, outDir, keptEs5, keptMin, scriptName } = opts;
  const bundle = await bundleApp({
    entry,
    apiVersion,
    typingsFile: opts.typingsFile,
    outputFile: path.join(outDir, path.basename(keptEs5)),
  });

  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-build-'));
  try {
    // Positions in the ES5 script always name the file --keep writes, so they can be looked up.
    if (opts.keepEs5) fs.writeFileSync(keptEs5, bundle.code);
    const notEs5 = checkEs5Syntax(bundle.code, keptEs5);
    if (notEs5.length > 0) {
      throw new BuildError([
        ...notEs5,
        {
          severity: 'error',
          message:
            'the bundle is not ES5: bundled library code uses newer syntax' +
            (opts.keepEs5 ? '' : ` (keep the ES5 script to see it: beacon build --keep writes ${keptEs5})`),
        },
      ]);
    }

    const polyfills = selectPolyfills(bundle.code, engine, apiVersion);
    const prefixLines = polyfills.code.split('\n').length - 1;
    const input = polyfills.code + bundle.code;
    const inputMap = shiftLines(bundle.map, prefixLines);
    let script: string;
    let map: SourceMapV3;
    if (opts.mode === 'none') {
      script = input;
      map = { ...inputMap, file: scriptName };
    } else {
      const min = await minifyScript(input, inputMap, { fileName: scriptName, mode: opts.mode });
      script = min.code;
      map = { ...min.map, version: 3, file: scriptName, sources: min.map.sources };
    }
    // Its sources are relative to the package's directory, where the map goes (bundleApp's
    // outputFile is there).
    const scriptFile = path.join(workDir, scriptName);
    fs.writeFileSync(scriptFile, script);

    const [packTool] = await ensureHostTools(['beacon-pack'], engine, { onNote: opts.onNote });
    const tmpPackage = path.join(workDir, 'app.bapp');
    let pack: PackReport;
    try {
      pack = await packApp({ packTool, apiVersion, es5File: scriptFile, scriptName, outFile: tmpPackage });
    } catch (err) {
      if (!(err instanceof BuildError)) throw err;
      // An engine's syntax error in the minified script: point at the source it came from.
      throw new BuildError(
        err.diagnostics.map((d) => {
          if (d.file !== scriptFile && d.file !== scriptName) return d;
          const orig = d.line !== undefined ? lookupPosition(map, d.line, d.column) : undefined;
          if (!orig) return { ...d, file: opts.keepEs5 ? keptMin : scriptName };
          return { ...d, file: path.resolve(outDir, orig.source), line: orig.line, column: orig.column };
        }),
      );
    }
    return {
      packageBytes: fs.readFileSync(tmpPackage),
      map,
      es5: bundle.code,
      script,
      pack,
      sourceBytes: bundle.sourceBytes,
      polyfillBytes: Buffer.byteLength(polyfills.code),
      polyfills: polyfills.pieces,
      modules: bundle.modules,
      usesCloud: bundle.modules.some((m) => !m.startsWith('\0') && !/\.d\.ts$/.test(m) && fs.existsSync(m) && scriptUsesCloud(fs.readFileSync(m, 'utf8'))),
      warnings: bundle.warnings,
      inputs: bundle.inputs,
      packTool,
    };
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

/**
 * Load the compiler and run its front end once on a small app (type check, bundle, minify; no
 * package), so that a long-lived process (`beacon studio`) answers its first real build with
 * warm code: the build cache serves unchanged apps without loading the compiler at all, so the
 * first changed one would otherwise pay for loading and optimising it.
 */
export async function warmCompiler(apiVersion: ApiVersion, typingsFile: string): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-warm-'));
  try {
    const entry = path.join(dir, 'warm-up.ts');
    fs.writeFileSync(entry, 'const parts: string[] = [];\nfor (const n of [1, 2, 3]) parts.push(`n${n}`);\nclass Box { constructor(readonly v: number) {} }\nprint(parts.join(",") + new Box(1).v);\n');
    const bundle = await bundleApp({ entry, apiVersion, typingsFile, outputFile: path.join(dir, 'warm-up.es5.js') });
    checkEs5Syntax(bundle.code, 'warm-up.es5.js');
    await minifyScript(bundle.code, bundle.map, { fileName: 'app.min.js', mode: 'lines' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
