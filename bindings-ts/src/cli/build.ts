// `beacon build <source> [-o app.bapp] [--api V] [--engine E] [--keep]`
import * as fs from 'fs';
import * as path from 'path';
import { flagOption, ParsedArgs, stringOption, UsageError } from './args';
import { apiOption, engineOption, existingFile, isSource, printDiagnostics, reportFailure } from './common';
import { CliIo } from './io';

export function defaultOutput(source: string): string {
  return source.slice(0, source.length - path.extname(source).length) + '.bapp';
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

  const { compileApp, formatDiagnostic, formatEngineVersion } = await import('../compiler');
  try {
    const r = await compileApp({
      entry: source,
      apiVersion,
      engine,
      outFile,
      keepEs5: flagOption(args, 'keep'),
      onNote: (line) => io.err(`beacon: ${line}\n`),
    });
    printDiagnostics(io, r.warnings, (d) => formatDiagnostic(d));
    const p = r.pack;
    io.out(
      `${path.relative(process.cwd(), r.outFile) || r.outFile}: ${p.package} bytes ` +
        `(API ${r.apiVersion}, ${p.engine} ${formatEngineVersion(p.engineVersion)} bytecode ${p.bytecode} bytes, ` +
        `ES5 source ${p.source} bytes)\n`,
    );
    if (r.es5File) io.out(`${path.relative(process.cwd(), r.es5File) || r.es5File}: ES5 script\n`);
    return 0;
  } catch (err) {
    return reportFailure(io, 'build', err);
  }
}
