// `beacon build <source> [-o app.bapp] [--api V] [--engine E] [--sign key.pem] [--json]
//  [--minify lines|dense|none] [--keep]`
import * as fs from 'fs';
import * as path from 'path';
import type { CompileResult, MinifyMode } from '../compiler/light';
import { flagOption, ParsedArgs, stringOption, UsageError } from './args';
import { apiOption, engineOption, existingFile, isSource, printDiagnostics, reportFailure } from './common';
import { CliIo } from './io';

export function defaultOutput(source: string): string {
  return source.slice(0, source.length - path.extname(source).length) + '.bapp';
}

function shown(file: string): string {
  return path.relative(process.cwd(), file) || file;
}

function percent(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((100 * part) / whole)}%` : '-';
}

/** The size report: one line per stage, bytes right-aligned. */
export function sizeReport(r: CompileResult, engineVersion: string): string {
  const s = r.sizes;
  const width = String(Math.max(s.source, s.es5, s.minified, s.bytecode, s.package)).length;
  const row = (name: string, bytes: number, note = ''): string =>
    `  ${name.padEnd(9)}${String(bytes).padStart(width)} bytes${note ? `  ${note}` : ''}\n`;
  const modules = r.modules.filter((m) => !/[\\/]tslib[\\/]/.test(m)).length;
  const extras: string[] = [];
  if (r.polyfills.length > 0) extras.push(`polyfills for ${r.pack.engine}: ${r.polyfills.join(', ')}`);
  if (r.signedBy) extras.push(`signed with key ${r.signedBy}`);
  return (
    `${shown(r.outFile)}: API ${r.apiVersion}, ${r.pack.engine} ${engineVersion}\n` +
    row('source', s.source, `${modules} module${modules === 1 ? '' : 's'}`) +
    row('ES5', s.es5) +
    row('minified', s.minified, `${percent(s.minified, s.es5)} of ES5`) +
    row('bytecode', s.bytecode, `${percent(s.bytecode, s.minified)} of minified`) +
    row('package', s.package, `header 40${r.signedBy ? ', signature 104' : ''}`) +
    extras.map((e) => `  ${e}\n`).join('')
  );
}

export async function buildCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const source = existingFile(args.positionals[0]);
  if (!isSource(source)) throw new UsageError(`${args.positionals[0]}: expected a .ts or .js source file`);
  const apiVersion = apiOption(args);
  const engine = engineOption(args);
  const outArg = stringOption(args, 'output');
  const outFile = path.resolve(outArg ?? defaultOutput(source));
  const outDir = path.dirname(outFile);
  if (!fs.existsSync(outDir) || !fs.statSync(outDir).isDirectory()) {
    throw new UsageError(`output directory does not exist: ${path.dirname(outArg ?? outFile)}`, false);
  }
  if (outFile === source) throw new UsageError('the output would overwrite the source', false);
  const signArg = stringOption(args, 'sign');
  const signKey = signArg === undefined ? undefined : existingFile(signArg);
  const json = flagOption(args, 'json');
  const minifyArg = stringOption(args, 'minify');
  if (minifyArg !== undefined && !['lines', 'dense', 'none'].includes(minifyArg)) {
    throw new UsageError(`unknown --minify mode '${minifyArg}' (known: lines, dense, none)`);
  }
  const minify = minifyArg as MinifyMode | undefined;

  const { compileApp, formatDiagnostic, formatEngineVersion } = await import('../compiler/light');
  try {
    const r = await compileApp({
      entry: source,
      apiVersion,
      engine,
      outFile,
      keepEs5: flagOption(args, 'keep'),
      cache: !flagOption(args, 'no-cache'),
      ...(signKey ? { signKey } : {}),
      ...(minify ? { minify } : {}),
      onNote: (line) => io.err(`beacon: ${line}\n`),
    });
    printDiagnostics(io, r.warnings, (d) => formatDiagnostic(d));
    const engineVersion = formatEngineVersion(r.pack.engineVersion);
    io.err(sizeReport(r, engineVersion));
    if (r.es5File) io.err(`  kept ${shown(r.es5File)} (ES5) and ${shown(r.minFile ?? '')} (minified)\n`);
    if (json) {
      const report = {
        package: r.outFile,
        map: r.mapFile,
        apiVersion: r.apiVersion,
        engine: r.engine,
        engineVersion,
        sizes: r.sizes,
        polyfills: r.polyfills,
        signedBy: r.signedBy ?? null,
        modules: r.modules,
        warnings: r.warnings,
        cached: r.cached,
        compiledOnServer: r.compiledOnServer,
      };
      io.out(JSON.stringify(report) + '\n');
    }
    return 0;
  } catch (err) {
    return reportFailure(io, 'build', err);
  }
}
