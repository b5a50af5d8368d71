// The micro-app compiler: TypeScript or JavaScript in, app package (.bapp) out.
//
//   bundleApp       type check against the API version's typings and built-ins, lower to ES5,
//                   bundle (rollup), with a source map
//   checkEs5Syntax  hold the bundle to what the engines parse
//   selectPolyfills what Duktape lacks of the version's built-ins (Duktape packages only)
//   minifyScript    terser, ES5 in and out, the source map composed through it
//   packApp         engine bytecode and package header (native beacon-pack)
//   signPackage     optional Ed25519 signature block
//
// Beside the package goes <package>.map: minified script -> TypeScript sources, which `beacon
// run` and `beacon trace` use to show errors at their place in the source.
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { API_VERSIONS, isApiVersion, typingsFile as defaultTypingsFile } from '../codegen/versions';
import { bundleApp } from './bundle';
import { BuildError, Diagnostic } from './diagnostics';
import { checkEs5Syntax } from './es5check';
import { DEFAULT_ENGINE, Engine, ENGINES, ensureHostTools, isEngine } from './hostTools';
import { MinifyMode, minifyScript } from './minify';
import { packApp, PackReport } from './pack';
import { selectPolyfills } from './polyfill';
import { keyId, rawPublicKey, readPrivateKey, signPackage } from './sign';
import { lookupPosition, shiftLines, SourceMapV3 } from './sourceMap';

export { BuildError, Diagnostic, formatDiagnostic } from './diagnostics';
export { bundleApp, BundleOptions, BundleResult } from './bundle';
export { checkEs5Syntax } from './es5check';
export {
  DEFAULT_ENGINE,
  Engine,
  ENGINES,
  ensureHostTools,
  HostToolsError,
  hostBuildDir,
  isEngine,
  toolPath,
} from './hostTools';
export { formatEngineVersion, PackReport } from './pack';
export { PackageHeader, readPackageHeader, readSignatureBlock } from './appPackage';
export { MinifyMode, MINIFY_MODES } from './minify';
export { generateKeyPair, keyId } from './sign';
export { mapFileFor, rewriteLocations, loadPackageMap, PackageMap } from './trace';
export { SourceMapV3, lookupPosition } from './sourceMap';

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
  /** Sign the package with this Ed25519 private key (PEM file). */
  signKey?: string;
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
  warnings: Diagnostic[];
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

/** Put a finished file in place without ever leaving a partial one at `dest`. */
function moveInto(src: string, dest: string): void {
  try {
    fs.renameSync(src, dest);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    const tmp = `${dest}.tmp-${process.pid}`;
    fs.copyFileSync(src, tmp);
    fs.renameSync(tmp, dest);
  }
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

  const keptEs5 = es5FileFor(outFile);
  const keptMin = minFileFor(outFile);
  const scriptName = SCRIPT_NAME;
  const bundle = await bundleApp({
    entry,
    apiVersion,
    typingsFile: opts.typingsFile ?? defaultTypingsFile(apiVersion),
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
    if (mode === 'none') {
      script = input;
      map = { ...inputMap, file: scriptName };
    } else {
      const min = await minifyScript(input, inputMap, { fileName: scriptName, mode });
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
    let signedBy: string | undefined;
    if (signKey) {
      const signed = signPackage(fs.readFileSync(tmpPackage), signKey);
      fs.writeFileSync(tmpPackage, signed);
      signedBy = keyId(rawPublicKey(crypto.createPublicKey(signKey)));
      pack = { ...pack, package: signed.length };
    }
    const mapFile = `${outFile}.map`;
    const tmpMap = path.join(workDir, 'app.map');
    fs.writeFileSync(tmpMap, JSON.stringify(map));
    if (opts.keepEs5) fs.writeFileSync(keptMin, script);
    moveInto(tmpPackage, outFile);
    moveInto(tmpMap, mapFile);
    return {
      outFile,
      mapFile,
      ...(opts.keepEs5 ? { es5File: keptEs5, minFile: keptMin } : {}),
      apiVersion,
      engine,
      pack,
      sizes: {
        source: bundle.sourceBytes,
        es5: Buffer.byteLength(bundle.code),
        minified: Buffer.byteLength(script),
        bytecode: pack.bytecode,
        package: pack.package,
        polyfills: Buffer.byteLength(polyfills.code),
      },
      polyfills: polyfills.pieces,
      ...(signedBy ? { signedBy } : {}),
      modules: bundle.modules,
      warnings: bundle.warnings,
    };
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

