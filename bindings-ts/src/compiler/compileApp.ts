// compileApp: an app's source to its package, through the build cache (buildCache.ts). This
// module is light on purpose: on a hit nothing of TypeScript, rollup or terser is loaded; the
// stages themselves (pipeline.ts) are imported on a miss.
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { API_VERSIONS, ApiVersion, isApiVersion, typingsFile as defaultTypingsFile } from '../codegen/versions';
import { BuildCache, BuiltPackage, openBuildCache } from './buildCache';
import { BuildError, Diagnostic } from './diagnostics';
import { DEFAULT_ENGINE, Engine, ENGINES, ensureHostTools, isEngine } from './hostTools';
import type { MinifyMode } from './minify';
import type { PackReport } from './pack';
import type { PipelineOptions } from './pipeline';
import { keyId, rawPublicKey, readPrivateKey, signPackage } from './sign';

export interface CompileOptions {
  /** The app's entry module (.ts or .js). */
  entry: string;
  /** API version to build for, one of API_VERSIONS. */
  apiVersion: string;
  engine?: Engine;
  /** Where the package goes. Written only when the whole build succeeded. */
  outFile: string;
  /** Typings to check against; defaults to the generated typings of apiVersion. */
  typingsFile?: string;
  /** Keep the ES5 and the minified script next to the package (<out>.es5.js, <out>.min.js). */
  keepEs5?: boolean;
  /** How to minify; default 'lines' (see minify.ts). */
  minify?: MinifyMode;
  /** Sign the package with this ECDSA P-256 private key (PEM file). */
  signKey?: string;
  /** Use the build cache (default true; BEACON_BUILD_CACHE=off turns it off everywhere). */
  cache?: boolean;
  /**
   * Let a compile server (compileServer.ts) run the stages when it is up, and start one where
   * that is wanted (default true; BEACON_COMPILE_SERVER=off turns it off everywhere).
   */
  server?: boolean;
  /** Progress lines for slow steps (building the host tools). */
  onNote?: (line: string) => void;
}

/** Bytes at each stage of a build. */
export interface SizeReport {
  /** The app's source modules (npm packages included, TypeScript's helpers not). */
  source: number;
  /** The ES5 bundle. */
  es5: number;
  /** What the engine compiles: the minified script, with any polyfills. */
  minified: number;
  bytecode: number;
  package: number;
  /** Bytes of polyfills in front of the minified script, before minifying (0 for none). */
  polyfills: number;
}

export interface CompileResult {
  outFile: string;
  /** The source map beside the package. */
  mapFile: string;
  /** Set when keepEs5 was given. */
  es5File?: string;
  minFile?: string;
  apiVersion: string;
  engine: Engine;
  pack: PackReport;
  sizes: SizeReport;
  /** Built-ins supplied for the engine (Duktape), e.g. "Map". */
  polyfills: string[];
  /** Key id (first 8 bytes of the public key, hex) when signed. */
  signedBy?: string;
  /** Absolute paths of the bundled modules, entry first. */
  modules: string[];
  /** Whether the app's modules refer to the device API's `cloud` or `sync` (cloudUse.ts). */
  usesCloud: boolean;
  warnings: Diagnostic[];
  /** Whether the package came from the build cache (nothing was compiled). */
  cached: boolean;
  /** Whether a compile server (compileServer.ts) compiled it. */
  compiledOnServer: boolean;
}

/**
 * The name the engine knows the script by, and so the one error locations carry ("Error: boom
 * (app.min.js:12)"); the map beside the package turns it back into the source's. Short, because
 * Duktape keeps it in every function's bytecode.
 */
export const SCRIPT_NAME = 'app.min.js';

export function es5FileFor(outFile: string): string {
  return outFile.replace(/\.bapp$/, '') + '.es5.js';
}

export function minFileFor(outFile: string): string {
  return outFile.replace(/\.bapp$/, '') + '.min.js';
}

/** Write a file without ever leaving a partial one at `dest`. */
function writeInto(dest: string, data: string | Buffer): void {
  const tmp = `${dest}.tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  try {
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, dest);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

let tslibDirectory: string | undefined;

/** Files of the compiler itself (the build cache records them by absolute path). */
function isToolFile(file: string, typingsFile: string): boolean {
  tslibDirectory ??= path.dirname(require.resolve('tslib/package.json'));
  return file === typingsFile || file.startsWith(tslibDirectory + path.sep);
}

export async function compileApp(opts: CompileOptions): Promise<CompileResult> {
  const { apiVersion } = opts;
  if (!isApiVersion(apiVersion)) {
    throw new BuildError(`unknown API version '${apiVersion}' (known: ${API_VERSIONS.join(', ')})`);
  }
  const engine = opts.engine ?? DEFAULT_ENGINE;
  if (!isEngine(engine)) throw new BuildError(`unknown engine '${String(engine)}' (known: ${ENGINES.join(', ')})`);
  const entry = path.resolve(opts.entry);
  const outFile = path.resolve(opts.outFile);
  const outDir = path.dirname(outFile);
  if (!fs.existsSync(outDir) || !fs.statSync(outDir).isDirectory()) {
    throw new BuildError(`output directory does not exist: ${outDir}`);
  }
  // Read the key first: a bad key should not cost a build.
  const signKey: crypto.KeyObject | undefined = opts.signKey ? readPrivateKey(opts.signKey) : undefined;
  const mode = opts.minify ?? 'lines';
  const typingsFile = path.resolve(opts.typingsFile ?? defaultTypingsFile(apiVersion));
  const keptEs5 = es5FileFor(outFile);
  const keptMin = minFileFor(outFile);

  const cache: BuildCache | undefined =
    opts.cache === false || !fs.existsSync(entry) ? undefined : openBuildCache((f) => isToolFile(f, typingsFile));
  const key = cache?.key({ entry, apiVersion, engine, minify: mode, typingsFile });
  let built: BuiltPackage | undefined;
  if (cache && key) {
    built = await cache.lookup(key, entry, outDir, async () => (await ensureHostTools(['beacon-pack'], engine, { onNote: opts.onNote }))[0]);
  }
  const cached = built !== undefined;
  let compiledOnServer = false;
  if (!built) {
    const stages: PipelineOptions = {
      entry,
      apiVersion: apiVersion as ApiVersion,
      engine,
      typingsFile,
      outDir,
      keptEs5,
      keptMin,
      keepEs5: opts.keepEs5 === true,
      mode,
      scriptName: SCRIPT_NAME,
      ...(opts.onNote ? { onNote: opts.onNote } : {}),
    };
    // A warm compiler in a server of its own if there is one (compileServer.ts), else this
    // process's, and a server started for the next build where that is wanted.
    const server = opts.server === false ? undefined : await import('./compileServer');
    let out = server ? await server.compileOnServer(stages) : undefined;
    compiledOnServer = out !== undefined;
    if (!out) {
      const { runPipeline } = await import('./pipeline');
      out = await runPipeline(stages);
      if (server?.mayStartServer()) server.startServerInBackground();
    }
    built = {
      report: {
        pack: out.pack,
        sourceBytes: out.sourceBytes,
        polyfillBytes: out.polyfillBytes,
        polyfills: out.polyfills,
        modules: out.modules,
        usesCloud: out.usesCloud,
        warnings: out.warnings,
      },
      packageBytes: out.packageBytes,
      map: out.map,
      es5: out.es5,
      script: out.script,
    };
    if (cache && key) cache.store(key, entry, outDir, out.inputs, out.packTool, built);
  }

  let pkg = built.packageBytes;
  let pack = built.report.pack;
  let signedBy: string | undefined;
  if (signKey) {
    pkg = signPackage(pkg, signKey);
    signedBy = keyId(rawPublicKey(crypto.createPublicKey(signKey)));
    pack = { ...pack, package: pkg.length };
  }
  const mapFile = `${outFile}.map`;
  if (opts.keepEs5) {
    writeInto(keptEs5, built.es5);
    writeInto(keptMin, built.script);
  }
  writeInto(outFile, pkg);
  writeInto(mapFile, JSON.stringify(built.map));
  return {
    outFile,
    mapFile,
    ...(opts.keepEs5 ? { es5File: keptEs5, minFile: keptMin } : {}),
    apiVersion,
    engine,
    pack,
    sizes: {
      source: built.report.sourceBytes,
      es5: Buffer.byteLength(built.es5),
      minified: Buffer.byteLength(built.script),
      bytecode: pack.bytecode,
      package: pack.package,
      polyfills: built.report.polyfillBytes,
    },
    polyfills: built.report.polyfills,
    ...(signedBy ? { signedBy } : {}),
    modules: built.report.modules,
    usesCloud: built.report.usesCloud,
    warnings: built.report.warnings,
    cached,
    compiledOnServer,
  };
}
