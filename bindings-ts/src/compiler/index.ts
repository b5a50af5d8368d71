// The micro-app compiler: TypeScript or JavaScript in, app package (.bapp) out.
//
//   bundleApp      type check against the API version's typings, lower to ES5, bundle
//   checkEs5Syntax hold the bundle to what the engines parse
//   packApp        engine bytecode and package header (native beacon-pack)
//
// Each stage takes and returns plain values, so further stages (minifying, source maps, size
// reports, signing) slot in between without changing the others.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { API_VERSIONS, isApiVersion, typingsFile as defaultTypingsFile } from '../codegen/versions';
import { bundleApp } from './bundle';
import { BuildError, Diagnostic } from './diagnostics';
import { checkEs5Syntax } from './es5check';
import { DEFAULT_ENGINE, Engine, ENGINES, ensureHostTools, isEngine } from './hostTools';
import { packApp, PackReport } from './pack';

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
export { PackageHeader, readPackageHeader } from './appPackage';

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
  /** Keep the ES5 script next to the package (<out>.es5.js) instead of in a temp dir. */
  keepEs5?: boolean;
  /** Progress lines for slow steps (building the host tools). */
  onNote?: (line: string) => void;
}

export interface CompileResult {
  outFile: string;
  /** Set when keepEs5 was given. */
  es5File?: string;
  apiVersion: string;
  engine: Engine;
  pack: PackReport;
  /** Absolute paths of the bundled modules, entry first. */
  modules: string[];
  warnings: Diagnostic[];
}

export function es5FileFor(outFile: string): string {
  return outFile.replace(/\.bapp$/, '') + '.es5.js';
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

  const bundle = await bundleApp({
    entry,
    apiVersion,
    typingsFile: opts.typingsFile ?? defaultTypingsFile(apiVersion),
  });

  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-build-'));
  try {
    // Positions in the ES5 script always name the file --keep writes, so they can be looked up.
    const keptEs5 = es5FileFor(outFile);
    const es5File = opts.keepEs5 ? keptEs5 : path.join(workDir, path.basename(keptEs5));
    fs.writeFileSync(es5File, bundle.code);
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

    const [packTool] = await ensureHostTools(['beacon-pack'], engine, { onNote: opts.onNote });
    const tmpPackage = path.join(workDir, 'app.bapp');
    let pack: PackReport;
    try {
      pack = await packApp({ packTool, apiVersion, es5File, outFile: tmpPackage });
    } catch (err) {
      if (!(err instanceof BuildError)) throw err;
      throw new BuildError(
        err.diagnostics.map((d) => (d.file === es5File ? { ...d, file: keptEs5 } : d)),
      );
    }
    moveInto(tmpPackage, outFile);
    return {
      outFile,
      ...(opts.keepEs5 ? { es5File } : {}),
      apiVersion,
      engine,
      pack,
      modules: bundle.modules,
      warnings: bundle.warnings,
    };
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}
