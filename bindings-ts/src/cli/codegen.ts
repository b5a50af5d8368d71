// `beacon codegen [--check]`, `beacon codegen --versions 0.2.6 --out DIR`
import { isApiVersion } from '../codegen/versions';
import { flagOption, ParsedArgs, stringOption, UsageError } from './args';
import { CliIo } from './io';

export async function codegenCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const check = flagOption(args, 'check');
  const versions = stringOption(args, 'versions');
  const out = stringOption(args, 'out');
  const { runCodegen, writeGlue } = await import('../codegen/index');
  if (versions !== undefined || out !== undefined) {
    if (versions === undefined || out === undefined) throw new UsageError('--versions and --out go together');
    if (check) throw new UsageError('--check cannot be combined with --versions');
    const list = versions.split(',').map((v) => v.trim());
    const bad = list.find((v) => !isApiVersion(v));
    if (bad !== undefined) throw new UsageError(`unknown API version '${bad}'`);
    for (const file of writeGlue({ versions: list, outDir: out })) io.err(`wrote ${file}\n`);
    return 0;
  }
  try {
    const result = await runCodegen({ check, log: (line) => io.err(line + '\n') });
    return check && result.stale.length > 0 ? 1 : 0;
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    io.err(`beacon codegen: ${err.message}\n`);
    return 1;
  }
}
