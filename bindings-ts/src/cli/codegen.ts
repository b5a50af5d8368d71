// `beacon codegen [--check]`
import { flagOption, ParsedArgs } from './args';
import { CliIo } from './io';

export async function codegenCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const check = flagOption(args, 'check');
  const { runCodegen } = await import('../codegen/index');
  try {
    const result = await runCodegen({ check, log: (line) => io.err(line + '\n') });
    return check && result.stale.length > 0 ? 1 : 0;
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    io.err(`beacon codegen: ${err.message}\n`);
    return 1;
  }
}
