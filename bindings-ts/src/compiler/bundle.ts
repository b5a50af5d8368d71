// The front end: type-check the app against the typings and the built-ins of its API version,
// lower it to ES5 and bundle every module it imports (tslib helpers included) into one script
// with no module system left, with a source map back to the modules. Rollup does the bundling,
// @rollup/plugin-typescript the checking and lowering; languageCheck.ts what the type checker
// does not see.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { LoadResult, LogLevel, Plugin, PluginContext, RollupError, RollupLog } from 'rollup';
import { ApiVersion } from '../codegen/versions';
import { BuildError, Diagnostic, sortDiagnostics } from './diagnostics';
import * as ts from 'typescript';
import { isDeviceLib, writeDeviceLib } from './deviceLib';
import { supersededByLanguageCheck, withHint } from './hints';
import { languageChecker } from './languageCheck';
import { originalPosition, RawSourceMap, SourceMapV3 } from './sourceMap';

export interface BundleOptions {
  /** Absolute path of the app's entry module (.ts or .js). */
  entry: string;
  apiVersion: ApiVersion;
  /** Ambient declarations of the device API for apiVersion. */
  typingsFile: string;
  /**
   * Name the bundle is generated as: the map's `file`, and what its sources are relative to
   * (give a path in the directory the map will be written to).
   */
  outputFile?: string;
}

export interface BundleResult {
  /** One ES5 script. */
  code: string;
  /** Source map of `code` back to the modules (sources relative to outputFile's directory). */
  map: SourceMapV3;
  /** Absolute paths of the modules that went into it, entry first. */
  modules: string[];
  /** Bytes of the modules' source files, tslib's helpers not counted. */
  sourceBytes: number;
  warnings: Diagnostic[];
  /**
   * Every file the type checker and the bundler read (the modules, the typings, declaration
   * files of packages), absolute; not the device lib, which only the compiler's version decides.
   */
  inputs: string[];
}

const SOURCE_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'];

/** A .js/.cjs entry is taken as a classic script: it keeps sloppy-mode semantics. */
function isScriptEntry(entry: string): boolean {
  return /\.c?js$/.test(entry);
}

function tslibDir(): string {
  return path.dirname(require.resolve('tslib'));
}

function isTslib(id: string): boolean {
  return id.startsWith(tslibDir() + path.sep);
}

/**
 * Rollup drops any statement it judges free of effects, loops included: a busy wait, or the
 * `while (true) {}` an app relies on to hang until the watchdog resets the device, would vanish
 * from the package without a word. The app's own modules are therefore taken whole; library code
 * (node_modules, tslib) is still tree-shaken, and terser then removes the functions and variables
 * that nothing uses in the app's modules too (it keeps loops).
 */
function keepAppStatements(): Plugin {
  return {
    name: 'beacon-keep-app-statements',
    transform(code, id) {
      if (id.startsWith('\0') || isTslib(id) || /[\\/]node_modules[\\/]/.test(id)) return null;
      return { code, map: null, moduleSideEffects: 'no-treeshake' };
    },
  };
}

function tsconfigFor(opts: BundleOptions, outDir: string, libFile: string): object {
  const script = isScriptEntry(opts.entry);
  return {
    files: [opts.entry, opts.typingsFile, libFile],
    compilerOptions: {
      target: 'ES5',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      // Every file is a module, so the helpers a file needs are imported from tslib (and then
      // bundled); a file taken as a global script would only reference them.
      moduleDetection: 'force',
      // The device's built-ins and nothing more (deviceLib.ts), instead of TypeScript's libs.
      noLib: true,
      types: [],
      strict: true,
      alwaysStrict: !script,
      allowJs: true,
      checkJs: false,
      skipLibCheck: true,
      forceConsistentCasingInFileNames: true,
      // Errors fail the build in bundleApp, after every one of them has been collected.
      noEmitOnError: false,
      // Left unset: the plugin then emits maps for rollup, which maps its own warnings back to
      // the app's source lines.
      newLine: 'lf',
      outDir,
      // The helpers are imported from tslib and bundled; the checker must find its types.
      paths: { tslib: [path.join(tslibDir(), 'tslib.d.ts')] },
    },
  };
}

type SourceMaps = ReadonlyMap<string, RawSourceMap>;

/**
 * Where a log points. The TypeScript plugin gives 1-based columns in the app's source; rollup
 * gives 0-based ones in TypeScript's output, mapped back here (dropped if they cannot be).
 */
function locOf(log: RollupLog, maps?: SourceMaps): Pick<Diagnostic, 'file' | 'line' | 'column'> {
  const file = log.loc?.file ?? log.id;
  if (!file) return {};
  if (!log.loc) return { file };
  if (!maps) return { file, line: log.loc.line, column: log.loc.column };
  const id = log.id ?? file;
  const map = maps.get(id);
  if (!map) return { file, line: log.loc.line, column: log.loc.column + 1 };
  const orig = originalPosition(map, log.loc.line, log.loc.column + 1);
  return orig ? { file, ...orig } : { file };
}

/**
 * Keep the source maps the TypeScript plugin loads modules with, for locOf. Their `sources` are
 * relative to TypeScript's outDir, while rollup reads them relative to the module: each map is
 * of its module alone, so it is renamed to the module's own file name.
 */
function recordingMaps(plugin: Plugin, maps: Map<string, RawSourceMap>): Plugin {
  const load = plugin.load;
  if (typeof load !== 'function') return plugin;
  return {
    ...plugin,
    async load(this: PluginContext, id: string): Promise<LoadResult> {
      const result = await load.call(this, id);
      if (result && typeof result === 'object' && result.map) {
        const map = (typeof result.map === 'string' ? JSON.parse(result.map) : result.map) as {
          mappings?: unknown;
          sources?: unknown;
          sourceRoot?: unknown;
        };
        if (typeof map.mappings === 'string') maps.set(id, { version: 3, mappings: map.mappings });
        if (Array.isArray(map.sources) && map.sources.length === 1) {
          return { ...result, map: { ...map, sourceRoot: undefined, sources: [path.basename(id)] } as typeof result.map };
        }
      }
      return result;
    },
  };
}

/** Rollup prefixes messages with the plugin name and the location; both are shown apart. */
function plainMessage(log: RollupLog): string {
  let m = log.message.replace(/^\[plugin [^\]]+\] /, '');
  if (log.loc) m = m.replace(/^.*? \(\d+:\d+\): /, '');
  return m;
}

/** Sort rollup's and the TypeScript plugin's logs into app diagnostics. */
function classify(level: LogLevel | 'error', log: RollupLog, maps: SourceMaps): Diagnostic | undefined {
  if (level === 'info' || level === 'debug') return undefined;
  if (log.plugin === 'typescript' && typeof log.pluginCode === 'string' && /^TS\d+$/.test(log.pluginCode)) {
    // Type errors are build errors (noEmitOnError semantics). The plugin gives 1-based columns.
    const message = log.message.replace(/^.*?@rollup\/plugin-typescript TS\d+: /s, '');
    return { severity: 'error', code: log.pluginCode, message, ...locOf(log) };
  }
  switch (log.code) {
    case 'MISSING_NAME_OPTION_FOR_IIFE_EXPORT':
      return undefined; // reported once from the chunk's export list
    case 'UNRESOLVED_IMPORT':
      return {
        severity: 'error',
        code: log.code,
        message: `cannot find module '${log.exporter ?? '?'}'`,
        ...(log.id ? { file: log.id } : {}),
      };
    default:
      return {
        severity: level === 'error' ? 'error' : 'warning',
        ...(log.code ? { code: log.code } : {}),
        message: plainMessage(log),
        ...locOf(log, log.plugin === 'typescript' ? undefined : maps),
      };
  }
}

function fromRollupError(err: RollupError, maps: SourceMaps): Diagnostic {
  return {
    severity: 'error',
    ...(err.code ? { code: err.code } : {}),
    message: plainMessage(err),
    ...locOf(err, err.plugin === 'typescript' ? undefined : maps),
  };
}

/** One diagnostic per position and message (two checks may find the same thing). */
function dedupe(list: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const key = `${d.file ?? ''}:${d.line ?? ''}:${d.column ?? ''}:${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export async function bundleApp(opts: BundleOptions): Promise<BundleResult> {
  const entry = path.resolve(opts.entry);
  if (!SOURCE_EXTENSIONS.includes(path.extname(entry)) || entry.endsWith('.d.ts')) {
    throw new BuildError(`${entry}: an app's entry must be a .ts or .js file`);
  }
  if (!fs.existsSync(entry)) throw new BuildError(`no such file: ${entry}`);
  if (!fs.existsSync(opts.typingsFile)) {
    throw new BuildError(
      `the typings for API ${opts.apiVersion} are missing (${opts.typingsFile}); generate them with 'beacon codegen'`,
    );
  }

  const { rollup } = await import('rollup');
  const typescript = (await import('@rollup/plugin-typescript')).default;
  const { nodeResolve } = await import('@rollup/plugin-node-resolve');
  const commonjs = (await import('@rollup/plugin-commonjs')).default;

  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-ts-'));
  const diagnostics: Diagnostic[] = [];
  let program: ts.Program | undefined;
  const finish = (list: readonly Diagnostic[]): Diagnostic[] =>
    dedupe(
      list
        .filter((d) => !supersededByLanguageCheck(d))
        .filter((d) => !(d.file && isDeviceLib(d.file)))
        .map((d) => withHint(d, { api: opts.apiVersion, ...(program ? { program } : {}) })),
    );
  try {
    const tsconfig = path.join(workDir, 'tsconfig.json');
    const libFile = writeDeviceLib(opts.apiVersion, workDir);
    fs.writeFileSync(
      tsconfig,
      JSON.stringify(tsconfigFor({ ...opts, entry }, path.join(workDir, 'out'), libFile), null, 2),
    );

    const maps = new Map<string, RawSourceMap>();
    const tsPlugin = typescript({
      tsconfig,
      filterRoot: false,
      include: SOURCE_EXTENSIONS.map((e) => `**/*${e}`),
      // Libraries' JavaScript is bundled as it is (and then held to ES5 by the final check).
      exclude: [/[\\/]node_modules[\\/].*\.[cm]?js$/],
      transformers: {
        before: [
          {
            type: 'program',
            factory: (p) => {
              program = p;
              return languageChecker(p, { api: opts.apiVersion, report: (d) => diagnostics.push(d) });
            },
          },
        ],
      },
    });
    const plugins: Plugin[] = [
      recordingMaps(tsPlugin, maps),
      keepAppStatements(),
      nodeResolve({ extensions: SOURCE_EXTENSIONS, preferBuiltins: false }),
      commonjs(),
    ];

    let bundle;
    try {
      bundle = await rollup({
        input: entry,
        plugins,
        // Unused tslib helpers must not leave feature tests behind.
        treeshake: { moduleSideEffects: (id) => !isTslib(id) },
        onLog: (lvl, log) => {
          const d = classify(lvl, log, maps);
          if (d) diagnostics.push(d);
        },
      });
    } catch (err) {
      // Rollup stops at the first error it meets itself; type errors found before it explain more.
      if (!diagnostics.some((d) => d.severity === 'error')) diagnostics.push(fromRollupError(err as RollupError, maps));
      throw new BuildError(sortDiagnostics(finish(diagnostics)));
    }
    try {
      const found = finish(diagnostics);
      if (found.some((d) => d.severity === 'error')) throw new BuildError(sortDiagnostics(found));
      diagnostics.length = 0;
      diagnostics.push(...found);
      const outputFile = opts.outputFile ?? path.join(path.dirname(entry), 'app.js');
      const { output } = await bundle.generate({
        format: 'iife',
        generatedCode: 'es5',
        strict: !isScriptEntry(entry),
        sourcemap: true,
        // Absolute here; made relative to outputFile's directory below. (Rollup's `file` option
        // would do it, but the TypeScript plugin wants its outDir under that file's directory.)
        sourcemapPathTransform: (relative, mapPath) => path.resolve(path.dirname(mapPath), relative),
      });
      const chunk = output[0];
      if (chunk.exports.length > 0) {
        diagnostics.push({
          severity: 'warning',
          file: entry,
          message: `exports of the entry module are not visible to anything on the device (${chunk.exports.join(', ')})`,
        });
      }
      const modules = [entry, ...Object.keys(chunk.modules).filter((m) => m !== entry)];
      let sourceBytes = 0;
      for (const m of modules) {
        if (isTslib(m) || m.startsWith('\0')) continue;
        try {
          sourceBytes += fs.statSync(m).size;
        } catch {
          // a virtual module: nothing on disk
        }
      }
      if (!chunk.map) throw new BuildError('the bundler produced no source map');
      const map: SourceMapV3 = {
        version: 3,
        file: path.basename(outputFile),
        sources: chunk.map.sources.map((src) =>
          path.relative(path.dirname(outputFile), src).split(path.sep).join('/'),
        ),
        sourcesContent: chunk.map.sourcesContent ?? [],
        names: chunk.map.names,
        mappings: chunk.map.mappings,
      };
      const inputs = new Set(modules.filter((m) => !m.startsWith('\0')));
      for (const sf of program?.getSourceFiles() ?? []) {
        const file = path.resolve(sf.fileName);
        if (!isDeviceLib(file) && !file.startsWith(workDir + path.sep)) inputs.add(file);
      }
      return { code: chunk.code, map, modules, sourceBytes, warnings: sortDiagnostics(diagnostics), inputs: [...inputs] };
    } finally {
      await bundle.close();
    }
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}
